package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/generate"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/upstream"
)

// prOptions are the flags of `cookbook-sync pr plan|apply`.
type prOptions struct {
	upAPIOptions
	repo, model, base, title string
	files                    []string // PATH=LOCALFILE
	format                   string   // plan: diff | json; apply: text | json
	checkout, remote         string
	headRepo                 string // fork holding the branch
	ixRepo, ixSHA            string
	configKeys, runs         []string
	coverageFile             string
	planFile                 string // apply: a saved `pr plan --format json`
	offline                  bool   // plan: from the local files only (upstream.Client.PlanOffline)
}

// newPRCmd: `cookbook-sync pr plan|apply --repo OWNER/NAME --model SLUG
// --file PATH=LOCALFILE… [--base B] [--title T] [--checkout DIR]
// [--inferencex-sha SHA] [--config-key K…] [--run R…] [--coverage FILE]
// [--api-url URL] [--format …]`.
func newPRCmd() *cobra.Command {
	c := &cobra.Command{
		Use:     "pr",
		Example: examplePR,
		Short:   "Open or update the upstream PR for a generated update (plan / apply)",
		Long: `The PR lifecycle for one update, split like plan/apply.

The update's identity is OWNER/NAME + model slug: the branch is
cookbook-sync/<model-slug> and the PR body carries the hidden marker
<!-- cookbook-sync:<owner>/<name>:<model-slug> -->. Before opening a PR every PR
for that branch or marker is looked up in every state: an open one is updated,
a closed-unmerged one is reopened (or re-created when its branch is gone), and
a duplicate is never opened. When the branch's head commit lacks our
"Cookbook-Sync-Id" trailer someone else pushed to it: nothing is changed.

  pr plan   read-only: what would change (--format diff, the default, or json;
            --offline: a preview from the local files, GitHub not asked)
  pr apply  does it; needs GH_TOKEN or GITHUB_TOKEN

Commits are made without a clone, through the Git Data API, or with go-git in
a local checkout given with --checkout DIR (pushed to its --remote). With
--head-repo FORK the branch is pushed to that fork and the PR is opened from it.` + prInputHelp + prExitStatus,
	}
	c.AddCommand(newPRSubCmd("plan"), newPRSubCmd("apply"))
	return groupCommand(c)
}

// prInputHelp says what pr plan / apply check before asking GitHub.
const prInputHelp = `

Inputs are checked before anything is asked of GitHub: every --file, --coverage
and --plan is read as a regular file (a FIFO, device or directory is refused;
at most 64 MiB); a --file for docs/src/snippets/agentx/**.jsx must parse as an
AgentX snippet (errors give file:line:col); --coverage must be UTF-8 text;
--title is one line; --inferencex-sha is 7-40 hex digits; --run is a run id
(37714835620, 37714835620/attempts/2) or a GitHub Actions run URL; --checkout
is a git checkout with the --remote. Nothing pushed may carry a secret:
GH_TOKEN / GITHUB_TOKEN or any variable named *TOKEN*, *SECRET*, *KEY*,
*PASSWORD*, *CREDENTIAL* (as is, in another case, as a fragment of 8+
characters, reversed, hex or base64), or a string shaped like a GitHub token
(ghp_…, github_pat_…): the error names the file, line:col and the kind of
secret, never the secret.`

// prExitStatus is the "Exit status" section of pr's help.
const prExitStatus = `

Exit status:
  0  plan computed (pr plan) / PR opened, updated, reopened or already up to
     date (pr apply)
  1  the plan is blocked (someone else pushed to the branch) or an API / push
     failure; apply then changes nothing more
  2  bad usage or input (see above), or pr apply without GH_TOKEN / GITHUB_TOKEN`

func newPRSubCmd(verb string) *cobra.Command {
	var o prOptions
	short := "Show what pr apply would change (read-only)"
	long := `Compute, read-only, what pr apply would do for this update and print it as a
unified diff of the files plus the PR title and body (--format diff), or as
JSON (--format json) that pr apply --plan FILE can apply later.

--offline previews the update from the local files alone, asking GitHub
nothing: the branch, the PR title and body, and the files — compared with
the base branch of --checkout DIR as that checkout last fetched it
(<remote>/<base>, else the local branch; without --base the remote's HEAD,
else the checkout's current branch), or, without --checkout, shown whole
("not compared"). The action is "offline": which PR exists and what apply
does is read from GitHub by pr apply, which also takes the JSON of an
offline plan.`
	defFormat := "diff"
	if verb == "apply" {
		short, defFormat = "Open, update or reopen the upstream PR (needs GH_TOKEN / GITHUB_TOKEN)", "text"
		long = `Re-read the live state, then commit the files (only when some content
differs), move the branch fast-forward and open, update or reopen the one PR
for this update; never a duplicate. With --plan FILE apply a saved
pr plan --format json instead of planning from the flags.`
	}
	example := examplePRPlan
	if verb == "apply" {
		example = examplePRApply
	}
	c := &cobra.Command{
		Use:     verb,
		Example: example,
		Short:   short,
		Long:    long + prInputHelp + prExitStatus,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return runPR(ctx, cmd.OutOrStdout(), verb, o)
		},
	}
	o.register(c)
	if verb == "plan" {
		c.Flags().BoolVar(&o.offline, "offline", false, "preview from the local files only, asking GitHub nothing (the files are compared with --checkout's base branch as last fetched, else shown whole)")
	}
	fl := c.Flags()
	fl.StringVar(&o.repo, "repo", "", "upstream repository OWNER/NAME (e.g. sgl-project/sglang)")
	fl.StringVar(&o.model, "model", "", "model slug, the update's identity (e.g. Qwen/qwen3.5)")
	fl.StringArrayVar(&o.files, "file", nil, "PATH=LOCALFILE: write LOCALFILE's content to PATH in the repository (repeatable)")
	fl.StringVar(&o.base, "base", "", "base branch (default: the repository's default branch)")
	fl.StringVar(&o.title, "title", "", "PR title (default: \"[cookbook-sync] <model>: launch commands from InferenceX\")")
	fl.StringVar(&o.headRepo, "head-repo", "", "fork OWNER/NAME to push the branch to; the PR is opened in --repo from it")
	fl.StringVar(&o.checkout, "checkout", "", "local checkout of the repository: commit with go-git there and push to --remote")
	fl.StringVar(&o.remote, "remote", "origin", "remote of --checkout to push to")
	fl.StringVar(&o.ixRepo, "inferencex-repo", "SemiAnalysisAI/InferenceX", "InferenceX repository OWNER/NAME (PR body evidence)")
	fl.StringVar(&o.ixSHA, "inferencex-sha", "", "InferenceX commit the update was generated from (PR body evidence)")
	fl.StringArrayVar(&o.configKeys, "config-key", nil, "InferenceX config key covered (repeatable; PR body evidence)")
	fl.StringArrayVar(&o.runs, "run", nil, "InferenceX Actions run id or URL (repeatable; PR body evidence)")
	fl.StringVar(&o.coverageFile, "coverage", "", "file with the coverage summary to quote in the PR body")
	if verb == "plan" {
		fl.StringVar(&o.format, "format", defFormat, "output format: diff or json")
	} else {
		fl.StringVar(&o.format, "format", defFormat, "output format: text or json")
		fl.StringVar(&o.planFile, "plan", "", "apply this saved plan (pr plan --format json) instead of planning from flags")
	}
	return c
}

func runPR(ctx context.Context, w io.Writer, verb string, o prOptions) error {
	usage := func(format string, args ...any) error {
		return &exitError{code: exitUsage, err: fmt.Errorf("pr %s: "+format, append([]any{verb}, args...)...)}
	}
	switch {
	case verb == "plan" && o.format != "diff" && o.format != "json":
		return usage("--format %q: want diff or json", o.format)
	case verb == "apply" && o.format != "text" && o.format != "json":
		return usage("--format %q: want text or json", o.format)
	case o.planFile != "":
		return applySavedPlan(ctx, w, o)
	case o.repo == "":
		return usage("--repo OWNER/NAME is required")
	case o.model == "":
		return usage("--model SLUG is required")
	case len(o.files) == 0:
		return usage("at least one --file PATH=LOCALFILE is required")
	}
	if _, _, _, err := upstream.Identity(o.repo, o.model); err != nil {
		return usage("%v", err)
	}
	if err := upstream.ValidateTitle(o.title); err != nil {
		return usage("--title: %v", err)
	}
	if o.ixSHA != "" {
		if err := upstream.ValidateSHA(o.ixSHA); err != nil {
			return usage("--inferencex-sha: %v", err)
		}
	}
	for _, r := range o.runs {
		if err := upstream.ValidateRun(r); err != nil {
			return usage("--run: %v", err)
		}
	}
	if o.checkout != "" {
		if st, err := os.Stat(o.checkout); err != nil || !st.IsDir() {
			return usage("--checkout %s: not a directory (want a local git checkout of %s)", o.checkout, o.repo)
		}
	}
	in := upstream.PlanInput{Repo: o.repo, Model: o.model, Base: o.base, Title: o.title, Checkout: o.checkout, Remote: o.remote, HeadRepo: o.headRepo,
		Evidence: upstream.Evidence{InferenceXRepo: o.ixRepo, InferenceXSHA: o.ixSHA, ConfigKeys: o.configKeys, Runs: o.runs}}
	for _, f := range o.files {
		repoPath, local, ok := strings.Cut(f, "=")
		if !ok || repoPath == "" || local == "" {
			return usage("--file %q: want PATH=LOCALFILE", f)
		}
		b, err := upReadFile(local)
		if err != nil {
			return usage("--file %s: %v", repoPath, err)
		}
		if isAgentXSnippet(repoPath) {
			if _, err := cookbook.Parse(local, b); err != nil {
				return usage("--file %s: not a valid AgentX snippet: %v", repoPath, err)
			}
		}
		in.Files = append(in.Files, upstream.File{Path: repoPath, Content: b})
	}
	if o.coverageFile != "" {
		b, err := upReadFile(o.coverageFile)
		if err != nil {
			return usage("--coverage: %v", err)
		}
		if err := upstream.ValidateCoverage(string(b)); err != nil {
			return usage("--coverage %s: %v", o.coverageFile, err)
		}
		in.Evidence.Coverage = string(b)
	}
	cl, err := o.client()
	if err != nil {
		return err
	}
	if verb == "apply" && !cl.HasToken() {
		return usage("%v", upstream.ErrNoToken)
	}
	return upRedacted(w, cl, func(w *bytes.Buffer) error { return prPlanApply(ctx, w, cl, verb, in, o.format, o.offline) })
}

// isAgentXSnippet reports whether repoPath is an AgentX data file of the
// SGLang cookbook (sgl-project/sglang docs/src/snippets/agentx/**.jsx).
func isAgentXSnippet(repoPath string) bool {
	return strings.HasPrefix(repoPath, "docs/src/snippets/agentx/") && strings.HasSuffix(repoPath, ".jsx")
}

// prPlanApply plans the update (offline: from the local files only,
// upstream.Client.PlanOffline) and prints the plan (pr plan) or applies it
// (pr apply).
func prPlanApply(ctx context.Context, w *bytes.Buffer, cl *upstream.Client, verb string, in upstream.PlanInput, format string, offline bool) error {
	usage := func(format string, args ...any) error {
		return &exitError{code: exitUsage, err: fmt.Errorf("pr %s: "+format, append([]any{verb}, args...)...)}
	}
	var plan *upstream.Plan
	var err error
	if offline {
		plan, err = cl.PlanOffline(in)
	} else {
		plan, err = cl.Plan(ctx, in)
	}
	if err != nil {
		var ie *upstream.InputError
		if errors.As(err, &ie) {
			return usage("%v", err)
		}
		return upFailure(fmt.Errorf("pr %s: %w", verb, err))
	}
	removed := removedCells(plan)
	if verb == "plan" {
		if format == "json" {
			b, err := json.MarshalIndent(plan, "", "  ")
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s\n", b)
		} else {
			for _, r := range removed {
				fmt.Fprintf(w, "# %s: removes %s: %s\n", r.path, plural(len(r.ids), "cell"), strings.Join(r.ids, ", "))
			}
			w.WriteString(plan.Diff())
		}
		if plan.Action == upstream.ActionBlocked {
			return upFailure(errors.New(plan.Reason))
		}
		return nil
	}
	return applyPlan(ctx, w, cl, plan, format)
}

// applySavedPlan runs `pr apply --plan FILE`.
func applySavedPlan(ctx context.Context, w io.Writer, o prOptions) error {
	if o.repo != "" || o.model != "" || len(o.files) > 0 {
		return &exitError{code: exitUsage, err: errors.New("pr apply: --plan replaces --repo, --model and --file; give one or the other")}
	}
	b, err := upReadFile(o.planFile)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	var plan upstream.Plan
	if err := json.Unmarshal(b, &plan); err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", jsonErrPos(o.planFile, b, err), err)}
	}
	for _, f := range plan.Files {
		if isAgentXSnippet(f.Path) {
			if _, err := cookbook.Parse(f.Path, []byte(f.New)); err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("%s: files %s: not a valid AgentX snippet: %w", o.planFile, f.Path, err)}
			}
		}
	}
	cl, err := o.client()
	if err != nil {
		return err
	}
	if !cl.HasToken() {
		return &exitError{code: exitUsage, err: upstream.ErrNoToken}
	}
	return upRedacted(w, cl, func(w *bytes.Buffer) error { return applyPlan(ctx, w, cl, &plan, o.format) })
}

func applyPlan(ctx context.Context, w *bytes.Buffer, cl *upstream.Client, plan *upstream.Plan, format string) error {
	res, err := cl.Apply(ctx, plan)
	if err != nil {
		var ie *upstream.InputError
		if errors.As(err, &ie) {
			return &exitError{code: exitUsage, err: fmt.Errorf("pr apply: %w", err)}
		}
		return upFailure(fmt.Errorf("pr apply: %w", err))
	}
	if format == "json" {
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintf(w, "%s\n", b)
		return nil
	}
	fmt.Fprintf(w, "%s: %s (%s)\n", res.Action, plan.Branch, plan.Reason)
	if res.Commit != "" {
		fmt.Fprintf(w, "commit %s\n", res.Commit)
	} else {
		fmt.Fprintln(w, "no commit (content unchanged)")
	}
	if res.PR != 0 {
		what := "PR"
		switch {
		case res.Created:
			what = "opened PR"
		case res.Reopened:
			what = "reopened PR"
		case res.Edited:
			what = "updated PR"
		}
		fmt.Fprintf(w, "%s #%d %s\n", what, res.PR, res.URL)
	}
	return nil
}

// fileRemoval is the cells an AgentX snippet of a plan loses.
type fileRemoval struct {
	path string
	ids  []string
}

// removedCells lists, per AgentX snippet of the plan, the cells of the
// current file (Old) that the new content no longer has
// (generate.RemovedCells); files that lose none are left out. `pr plan`
// prints them: a plan that removes upstream cells says so before anything
// is pushed.
func removedCells(plan *upstream.Plan) []fileRemoval {
	var out []fileRemoval
	for _, f := range plan.Files {
		if !isAgentXSnippet(f.Path) || f.Old == "" {
			continue
		}
		oldF, err1 := cookbook.Parse(f.Path, []byte(f.Old))
		newF, err2 := cookbook.Parse(f.Path, []byte(f.New))
		if err1 != nil || err2 != nil {
			continue
		}
		if ids := generate.RemovedCells(oldF, newF); len(ids) > 0 {
			out = append(out, fileRemoval{path: f.Path, ids: ids})
		}
	}
	return out
}

// jsonErrPos places a JSON decoding error of file's data at line:col: the
// syntax error's or type error's offset, else the end of the data (an
// unexpected end).
func jsonErrPos(file string, data []byte, err error) string {
	off := len(data)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se) && int(se.Offset) < len(data):
		off = int(se.Offset) - 1 // the offending byte (Offset counts it)
	case se != nil:
		off = len(data) // unexpected end: after the last byte
	case errors.As(err, &te):
		off = int(te.Offset) - 1
	}
	line, col := launch.OffsetPos(data, max(off, 0))
	return fmt.Sprintf("%s:%d:%d", launch.QuotePath(file), line, col)
}
