package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/coverage"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
	"github.com/cookbook-sync/cookbook-sync/runcache"
	"github.com/cookbook-sync/cookbook-sync/upstream"
)

// demoFS is the embedded demo workspace used when coverage runs without
// --infx/--cookbook: demo/sglang (an sglang repository root with one AgentX
// snippet) and demo/inferencex (an InferenceX checkout with the recipes it
// cites). Both are small files written for this tool in the real formats.
//
//go:embed all:demo
var demoFS embed.FS

// coverageOptions are the coverage subcommand's flags.
type coverageOptions struct {
	infx, vllmRecipes, format string
	// configKeys are the --config-key values (repeatable, each a
	// comma-separated list of globs): coverage.Options.ConfigKeys.
	configKeys []string
	// flags are the command's parsed flags, for the Markdown footer
	// command (coverageFooter); nil in tests that build options by hand.
	flags *pflag.FlagSet
	// demo: the run is on the embedded demo workspace (no --infx).
	demo bool
	// mdLimit is the Markdown size limit (report.MarkdownOptions.Limit; 0:
	// the default); no flag sets it.
	mdLimit int
	// cookbook are the --cookbook checkouts (repeatable): AgentX
	// snippets, cookbook pages, or both.
	cookbook []string
	// allowUnverified: points / rows that could not be verified are listed
	// but are not a gap (default: they fail closed, exit 1).
	allowUnverified bool
	// upstream lists the --upstream links whose Check 3 (b) state is read
	// (package upstream) and reported; api is --api-url / --retries.
	upstream []string
	api      upAPIOptions
	// srtSlurmDir / srtSlurmVersion: --srt-slurm-dir and --srt-slurm-version
	// (coverage.Options).
	srtSlurmDir, srtSlurmVersion string
	// srtSlurmDirs are the --srt-slurm-dir values as given; srtSlurmDir
	// and forks are what they say (srtSlurmCheckouts).
	srtSlurmDirs []string
	forks        []infx.SrtSlurmCheckout
	// runError is the error that stopped the run (coverage.Run's, exit
	// 2), for the formats that print it (runErrorFormats); no flag sets
	// it.
	runError string
	// policy is --policy (coverage.Options.Policy).
	policy string
	// cacheDir / noCache are --cache-dir and --no-cache (openCache).
	cacheDir string
	noCache  bool
	// compactJSON is the report's report.CompactJSON when the run made
	// or read it and the report was not changed since
	// (coverage.CacheStats.CompactJSON): the json format prints it
	// instead of encoding the report again. No flag sets it.
	compactJSON []byte
}

func newCoverageCmd() *cobra.Command { return newCoverageCmdWith(runCoverage) }

// newCoverageCmdWith is the coverage command running run with the parsed
// options (tests pass their own to read the options the CLI builds).
func newCoverageCmdWith(run func(*cobra.Command, coverageOptions) error) *cobra.Command {
	var o coverageOptions
	c := &cobra.Command{
		Use:     "coverage [--infx DIR [--cookbook DIR] [--vllm-recipes DIR]] [--config-key GLOB[,GLOB…]…] [--allow-unverified] [--upstream URL…] [--format " + formatNames("|") + "]",
		Example: exampleCoverage,
		Short:   "Check 3 coverage: compare every cited InferenceX recipe with its cookbook point, role by role",
		Long: `coverage decodes every AgentX cookbook point that cites an InferenceX recipe
(as measured: router = cell.submitted, KV tier = point.kv), renders the cited
recipe variant and compares them role by role (agg, prefill, decode,
router/frontend, etcd/NATS/nginx/Mooncake). A cited single-node shell script
is run (sandboxed, nothing is executed) for the master-config point the
cookbook point was measured as — the config key's search-space row that
lists the point's concurrencies and KV tier, narrowed by the worker's TP/EP/
DP attention, spec decoding and point.item — and compared the same way.

Services and routers the launcher starts for every job (srt-slurm's NATS;
its SGLang router in front of a single agg worker) that the cookbook omits
are informational unless a process is configured to use them
(compare/launcher.yaml).

--cookbook DIR (repeatable) is an sgl-project/sglang checkout: its AgentX
snippets (docs/src/snippets/agentx/**.jsx) are judged point by point, its
hand-written cookbook pages (docs/cookbook/**.mdx with
docs/src/snippets/configs and autoregressive) are read through the pages' own
code in a sandboxed JavaScript engine and every SGLang / Dynamo-SGLang config
key of --infx is judged against their selections ("no recipe covers this"
names the nearest selection and what differs). Give the AgentX checkout and
the docs checkout as two --cookbook flags, or one that has both. --infx is
an InferenceX checkout (old or inferencex-e2e layout). Without both, it
runs on a small embedded demo workspace.

--vllm-recipes DIR (a vllm-project/recipes checkout) goes the other way, from
InferenceX config keys: for every vllm, dynamo-vllm and llmd-vllm key of the
master configs it renders each point, finds the vLLM recipe role(s) matching
each worker role (model or variant checkpoint, hardware, precision, TP/EP/DP,
agg or prefill/decode) and compares the workers' engine args and env. The two
sides are named "vllm-recipes" (the upstream documentation) and "inferencex"
(the effective recipe). Each key names the recipe file + section (or YAML
variant + strategy) it was matched with, or "no recipe covers this" with the
nearest candidate, and gets one verdict: its worst row, prohibited > differs >
missing / no recipe covers this > not verified > covered-with-exclusions >
covered. With --cookbook as well, both parts run.

One verdict per config key, from every source. The unit is a deployment
InferenceX ran: a master-config row × concurrency. It is covered when one
selection of one source covers all its roles — an AgentX cell's point, a
cookbook page selection, a vLLM recipe selection or guide block — never a
prefill from one selection and a decode from another. Otherwise it takes the
best single-source result (covered, covered-with-exclusions, differs, no
recipe covers this, prohibited, not verified), naming the nearest selection
of each source; a prohibited setting InferenceX runs fails the deployment
whichever source covers it. The other sources' results are information
("the page shows --speculative-num-steps 5"). The key's verdict is its worst
deployment's; the headline counts keys, and the points and rows that decide
no deployment are information, never a gap.

Not verified. A point or vLLM row whose settings could not be compared has
one of these statuses, the same in both parts (infx's and render's names;
their "missing" is told apart as recipe / script not found):
  upstream-only      the recipe lives in the NVIDIA/srt-slurm ref the launcher
                     clones (CONFIG_FILE=recipes/…), not in --infx
  recipe not found   a recipe path of the InferenceX repository that is not
                     in --infx
  script not found   a single-node benchmark script that is not in --infx
  no matching point  no master-config row fits the cookbook point
  ambiguous point    several master-config rows fit it
  unsupported        a launcher format that is not rendered (llm-d, AMD
                     models.yaml)
For a Check 3 sign-off they fail closed: each is listed under Gaps with its
reason and the run exits 1. --allow-unverified lists them apart without
affecting the exit status.

--config-key GLOB keeps the cookbook cells and the config keys judged from the
InferenceX side (vLLM family, SGLang family against the pages) whose
InferenceX config key matches it. It may be repeated or hold several
comma-separated globs (--config-key 'dsr1-*,qwen3.5-*'): a key is kept when
any matches. Each glob must match a key of the run (a cookbook cell with a
point citing a recipe, or a master-config key judged): one that matches none
is bad usage (exit 2) naming it, as is a run with nothing to compare.

Multi-node points are rendered as their launcher submits them: the launcher
(runners/launch_*.sh of the row's runner label) runs in the sandbox up to its
srtctl apply, which names the srt-slurm repository and ref it clones (the
injected flags and env of that ref are rendered), the recipe it submits (a
copy from the InferenceX checkout, or the clone's own file: upstream-only
unless --srt-slurm-dir DIR holds it), its in-place edits of the recipe and
its --setup-script. --srt-slurm-version V names the ref of --srt-slurm-dir (a
recipe read from it for a launcher pinned to another ref carries a
commit-drift note) and the version rendered when no launcher is in the
checkout (default ` + infx.DefaultSrtSlurmVersion + `).

A launcher that clones an srt-slurm fork (functionstackx/srt-slurm-nv,
edwingao28/srt-slurm, cquil11/srt-slurm-nv) needs the fork's checkout:
--srt-slurm-dir OWNER/NAME[@REF]=DIR, repeatable, one per repository and ref
(REF a branch, tag or commit, matched by prefix; without @REF any ref of the
repository; NVIDIA/srt-slurm@REF=DIR is DIR at --srt-slurm-version REF). The
point renders with the injected flags and env of the NVIDIA/srt-slurm
release whose src/srtctl the checkout's is byte for byte (the same git tree
id), its recipe read from the checkout unless the launcher copies it from
InferenceX; a checkout whose src/srtctl is no release's is unsupported,
naming the closest release and the files that differ; a git checkout at
another commit than the launcher pins is unsupported (a plain directory is
accepted with a note). Without its checkout a fork point is unsupported and
says which repository and commit to check out and the flag that takes it.

--policy picks the Check 3 policy version (exclusions/policies.yaml): current
(default: every role, every production-useful setting), pinned (the version
the --infx checkout's own .github/codeowner-signoff-verify-prompt.md states, or
the prompt of its sign-off workflow before that file existed, identified by
content; an unknown prompt is bad usage), or a version id: 2026-07 (Check 3
for single-node keys only, MAJOR deployment-defining server args; multi-node
and disaggregated keys are "not applicable", other settings informational),
2026-06-major, 2026-06-complete. The report names the version and where it
came from. Use pinned to replay an old sign-off at its InferenceX commit.

--upstream URL (repeatable) also reads the Check 3 (b) state of each upstream
link the sign-off cites — a PR (open, draft, closed-unmerged, merged with
mergedAt) or a published page (exists, missing) — through the GitHub API
(--api-url; token from GH_TOKEN or GITHUB_TOKEN). A link that is not merged /
published is a gap; a state that cannot be read is "unknown" and fails closed.
A value that is not an http(s) URL is bad usage.

Exit status: 0 every compared role is covered (with or without exclusions),
every point / vLLM row was verified (or --allow-unverified) and every
--upstream link is merged / published; 1 a gap: a role differs, is missing
or carries a prohibited setting, no vLLM recipe covers a vLLM-family role, a
point or vLLM row was not verified, or a link is not merged / published or
its state is unknown; 2 bad usage or bad input (nothing to compare, a
--config-key that matches nothing, a snippet or recipe that does not
parse); 3 --deadline passed, or a wall-clock backstop stopped part of the
work ("time limit — re-run": the report is printed, incomplete; every
other limit counts work, so the same input gives the same answer on any
machine); 4 the output could not be written (stdout).

` + formatsHelpBlock(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.flags = cmd.Flags()
			return run(cmd, o)
		},
	}
	o.registerInputs(c, "InferenceX checkout `DIR`")
	f := c.Flags()
	f.StringArrayVar(&o.configKeys, "config-key", nil, "only cells / config keys whose InferenceX config key matches `GLOB` (path.Match); repeatable or comma-separated, each must match a key")
	f.StringVar(&o.format, "format", "text", "output format: "+formatHelp())
	f.StringVar(&o.cacheDir, "cache-dir", "", "cache `DIR` for finished reports, keyed by this executable, the options and every input file's content (default: $"+cacheEnv+", else the user cache directory's cookbook-sync/)")
	f.BoolVar(&o.noCache, "no-cache", false, "neither read nor write the cache")
	return c
}

// checkInputs checks the shared input flags (registerInputs) and
// resolves the --srt-slurm-dir values: a bad --upstream URL is bad usage.
func (o *coverageOptions) checkInputs(cmd *cobra.Command) error {
	for _, u := range o.upstream {
		if err := checkLinkURL(u); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	var err error
	if o.srtSlurmDir, o.srtSlurmVersion, o.forks, err = srtSlurmCheckouts(o.srtSlurmDirs, o.srtSlurmVersion, cmd.Flags().Changed("srt-slurm-version")); err != nil {
		return err
	}
	return checkSrtSlurmFlags(o.srtSlurmDir, o.srtSlurmVersion)
}

// registerInputs registers the input and judgment flags coverage and
// signoff share (same names, same defaults): --infx (described by infxHelp),
// --cookbook, --vllm-recipes, --allow-unverified, --upstream,
// --srt-slurm-dir, --srt-slurm-version, --policy and the GitHub API flags.
func (o *coverageOptions) registerInputs(c *cobra.Command, infxHelp string) {
	f := c.Flags()
	f.StringVar(&o.infx, "infx", "", infxHelp)
	f.StringArrayVar(&o.cookbook, "cookbook", nil, "sgl-project/sglang checkout `DIR` with AgentX snippets (docs/src/snippets/agentx) and/or hand-written cookbook pages (docs/src/snippets/configs, autoregressive); repeatable")
	f.StringVar(&o.vllmRecipes, "vllm-recipes", "", "vllm-project/recipes checkout `DIR`: cover every vLLM-family config key (vllm, dynamo-vllm, llmd-vllm) of --infx")
	f.BoolVar(&o.allowUnverified, "allow-unverified", false, "list points / vLLM rows that could not be verified (upstream-only, recipe not found, …) without making them a gap")
	f.StringArrayVar(&o.upstream, "upstream", nil, "upstream `URL` (PR or published page) that must be merged / published; repeatable")
	f.StringArrayVar(&o.srtSlurmDirs, "srt-slurm-dir", nil, "NVIDIA/srt-slurm checkout `DIR` for recipes a launcher submits from its srt-slurm clone, or OWNER/NAME[@REF]=DIR: the checkout of an srt-slurm fork a launcher clones; repeatable")
	f.StringVar(&o.srtSlurmVersion, "srt-slurm-version", infx.DefaultSrtSlurmVersion, "the srt-slurm ref --srt-slurm-dir is at, and the version rendered when a launcher's pin is not known")
	f.StringVar(&o.policy, "policy", "current", "Check 3 policy `VERSION` to judge by: current (the default), pinned (the one the --infx checkout's sign-off prompt states, identified by content), or a version id (2026-07, 2026-06-major, …)")
	o.api.register(c)
}

func runCoverage(cmd *cobra.Command, o coverageOptions) error {
	if err := o.api.check(); err != nil {
		return err
	}
	format, ok := coverageFormatNamed(o.format)
	if !ok {
		return &exitError{code: exitUsage, err: fmt.Errorf("--format %q: want %s", o.format, formatNames(" or "))}
	}
	if err := o.checkInputs(cmd); err != nil {
		return err
	}
	if o.vllmRecipes != "" && o.infx == "" {
		return &exitError{code: exitUsage, err: errors.New("--vllm-recipes needs --infx (the InferenceX checkout whose vLLM-family keys are covered)")}
	}
	if o.vllmRecipes == "" && (o.infx == "") != (len(o.cookbook) == 0) {
		return &exitError{code: exitUsage, err: errors.New("--infx and --cookbook go together (give both, or neither for the demo workspace)")}
	}
	o.demo = o.infx == ""
	if o.demo {
		dir, err := extractDemo()
		if err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(dir) }() // a temporary copy: left behind at worst
		o.infx, o.cookbook = filepath.Join(dir, "inferencex"), []string{filepath.Join(dir, "sglang")}
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	opts := o.libOptions()
	// a bar on stderr when it is a terminal and the run takes a while;
	// cleared before anything else is printed
	prog := newProgress(cmd.ErrOrStderr())
	if prog != nil {
		opts.Progress = prog.update
	}
	var stats coverage.CacheStats
	if !o.demo {
		// (the demo is extracted to a new directory every run)
		opts.Cache, opts.CacheStats = o.openCache(cmd.ErrOrStderr(), os.Getenv), &stats
		// the text is printed while the report is stored: the text
		// printer reads the report only (report.PrintText works on its
		// own escaped copy), as the store does
		opts.StoreInBackground = format.name == "text" && len(o.upstream) == 0
	}
	rep, err := coverage.Run(ctx, opts)
	prog.clear()
	cacheDone := func() {
		stats.Wait()
		if strings.HasPrefix(stats.Skipped, coverage.SkipWrite) {
			warn(cmd.ErrOrStderr(), "cache: "+stats.Skipped)
		}
		if opts.Cache != nil {
			// entries unused for days go (runcache.Trim, once a day): a
			// directory that cannot be read is found again on the next run
			_ = opts.Cache.Trim(time.Now())
		}
	}
	if opts.StoreInBackground {
		defer cacheDone() // after the text, before the process ends
	} else {
		cacheDone()
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		err = configKeyHint(flagError(err), err, o)
		if runErrorFormats[format.name] {
			// the log or annotations a workflow step reads say it too
			o.runError = err.Error()
			if perr := format.print(cmd.OutOrStdout(), runErrorReport(o), o); perr != nil {
				return perr
			}
		}
		return &exitError{code: exitUsage, err: err}
	}
	if o.demo {
		// name the embedded workspace, not its temporary copy
		rep.InferenceX.Dir = "(embedded demo)/inferencex"
		if rep.Cookbook != nil {
			rep.Cookbook.Dir = "(embedded demo)/sglang"
		}
	}
	if len(o.upstream) > 0 {
		links, err := readLinks(cmd.Context(), o.api, o.upstream)
		if err != nil {
			return err
		}
		rep.SetLinks(links)
	}
	if !o.demo && len(o.upstream) == 0 && !opts.StoreInBackground {
		// the report as Run returned it (a store in the background
		// writes it: only the json format, stored first, reads it)
		o.compactJSON = stats.CompactJSON
	}
	if err := format.print(cmd.OutOrStdout(), rep, o); err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		warn(cmd.ErrOrStderr(), w)
	}
	return coverageStatus(rep)
}

// coverageStatus is the outcome of a finished coverage run: an *exitError
// with exit 2 when it found bad input, 3 when a time limit stopped part of
// it, 1 (errGap) for a gap, else nil (exit 0).
func coverageStatus(rep *report.Report) error {
	switch {
	case rep.Errors:
		return &exitError{code: exitUsage, err: errors.New(errorsSummary(rep))}
	case rep.TimeLimit:
		// no property of the input: the report is incomplete
		return &exitError{code: exitDeadline, err: errors.New("time limit — re-run: a wall-clock backstop stopped part of the work (see the report); nothing else in it depends on the machine's speed")}
	case rep.Gap:
		return errGap
	}
	return nil
}

// runErrorReport is the report a run that stopped with an error is
// printed with (runErrorFormats): nothing judged, verdict error, and the
// directories the run was given — as given and absolute, longest first
// (LocalDirs), and each checkout's absolute directory (RepoInfo.Dir) — so
// the printers remove them from the error's message ("<dir>/x" → "x", a
// bare "<dir>" → "inferencex", "cookbook", …).
func runErrorReport(o coverageOptions) *report.Report {
	rep := &report.Report{SchemaVersion: report.SchemaVersion, SchemaRevision: report.SchemaRevision, Verdict: compare.Error, Errors: true}
	abs := func(d string) string {
		if a, err := filepath.Abs(d); err == nil {
			return a
		}
		return d
	}
	dirs := append([]string{o.infx, o.vllmRecipes, o.srtSlurmDir}, o.cookbook...)
	for _, c := range o.forks {
		dirs = append(dirs, c.Dir)
	}
	for _, d := range dirs {
		if d != "" {
			rep.LocalDirs = append(rep.LocalDirs, d, abs(d))
		}
	}
	sort.SliceStable(rep.LocalDirs, func(i, j int) bool { return len(rep.LocalDirs[i]) > len(rep.LocalDirs[j]) })
	info := func(d string) *report.RepoInfo {
		if d == "" {
			return nil
		}
		return &report.RepoInfo{Dir: abs(d)}
	}
	if o.infx != "" {
		rep.InferenceX.Dir = abs(o.infx)
	}
	rep.VLLMRecipes, rep.SrtSlurm = info(o.vllmRecipes), info(o.srtSlurmDir)
	if len(o.cookbook) > 0 {
		rep.Cookbook = info(o.cookbook[0])
	}
	if len(o.cookbook) > 1 {
		rep.PagesRepo = info(o.cookbook[1])
	}
	return rep
}

// libOptions is o as coverage.Options.
func (o coverageOptions) libOptions() coverage.Options {
	return coverage.Options{InfxDir: o.infx, CookbookDirs: o.cookbook, VLLMRecipesDir: o.vllmRecipes, ConfigKeys: splitConfigKeys(o.configKeys),
		AllowUnverified: o.allowUnverified, SrtSlurmDir: o.srtSlurmDir, SrtSlurmVersion: o.srtSlurmVersion, SrtSlurmForks: o.forks, Policy: o.policy}
}

// checkLinkURL rejects an --upstream value that is not an absolute http(s)
// URL with a host (bad usage, exit 2). A well-formed URL that is not a PR or
// a published page is read as usual and fails Check 3 (b) (exit 1).
func checkLinkURL(u string) error {
	pu, err := url.Parse(strings.TrimSpace(u))
	if err != nil || (pu.Scheme != "https" && pu.Scheme != "http") || pu.Host == "" {
		return fmt.Errorf("--upstream %q: not a URL (want a PR or published-page link, https://…)", u)
	}
	return nil
}

// readLinks asks GitHub for the state of each link (package upstream, the
// only one that does network I/O) and converts the results into report data.
// A link whose state cannot be read comes back "unknown" with its error: the
// report fails closed. Errors: a bad --api-url (exit 2).
func readLinks(ctx context.Context, api upAPIOptions, urls []string) ([]report.Link, error) {
	cl, err := api.client()
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	rs := cl.StatusAll(ctx, urls)
	links := make([]report.Link, len(rs))
	for i, r := range rs {
		l := report.Link{
			URL: r.URL, Kind: r.Kind, State: string(r.State), MergedAt: r.MergedAt, Repo: r.Repo,
			Number: r.Number, Title: r.Title, Branch: r.Branch, File: r.File, OK: r.OK() && r.Err == nil,
		}
		if r.Err != nil {
			l.Error = r.Err.Error()
			l.State = string(upstream.StateUnknown)
		}
		links[i] = l
	}
	return links, nil
}

// extractDemo writes the embedded demo workspace to a new temporary
// directory (the readers take file paths) and returns it.
func extractDemo() (string, error) {
	dir, err := os.MkdirTemp("", "cookbook-sync-demo-")
	if err != nil {
		return "", err
	}
	err = fs.WalkDir(demoFS, "demo", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("demo", filepath.FromSlash(p))
		dst := filepath.Join(dir, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := demoFS.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		_ = os.RemoveAll(dir) // the extraction's error is the one that counts
		return "", err
	}
	return dir, nil
}

// configKeyHint adds to msg, the command-line form of err (flagError),
// where the config keys are listed when err is about --config-key globs
// that matched nothing — "cookbook-sync render --list --infx DIR lists the
// config keys" — and, for a glob without wildcards, the closest keys of the
// checkout. msg comes back unchanged for other errors and on the demo
// workspace (no --infx).
func configKeyHint(msg, err error, o coverageOptions) error {
	if o.demo || o.infx == "" {
		return msg
	}
	var globs []string
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var oe *coverage.OptionError
		if errors.As(e, &oe) && oe.Field == "ConfigKey" && oe.Value != "" {
			globs = append(globs, oe.Value)
		}
	}
	if len(globs) == 0 {
		return msg
	}
	hint := listKeysCommand(o.infx) + " lists the config keys"
	var keys []string
	if ws, err := infx.Open(o.infx); err == nil {
		keys = ws.ConfigKeys()
	}
	for _, g := range globs {
		if strings.ContainsAny(g, "*?[\\") {
			continue
		}
		if c := closestNames(g, keys, maxClosest); len(c) > 0 {
			hint += fmt.Sprintf("; closest to %s: %s", g, strings.Join(c, ", "))
		}
	}
	return fmt.Errorf("%w: %s", msg, hint)
}

// optionFlags maps coverage.Options fields to the flags that set them.
var optionFlags = map[string]string{
	"InfxDir": "--infx", "CookbookDir": "--cookbook", "VLLMRecipesDir": "--vllm-recipes",
	"ConfigKey": "--config-key", "SrtSlurmDir": "--srt-slurm-dir", "SrtSlurmVersion": "--srt-slurm-version", "Policy": "--policy",
}

// splitConfigKeys is the --config-key values as coverage.Options.ConfigKeys:
// each value split at its commas, in order ("a,b" "c" → a b c). An empty
// item ("a,,b", a trailing comma) is kept, for coverage.Run to refuse.
func splitConfigKeys(vals []string) []string {
	var out []string
	for _, v := range vals {
		out = append(out, strings.Split(v, ",")...)
	}
	return out
}

// flagError rewrites a *coverage.OptionError in the words of the command
// line ("--infx DIR: …"), and each of several joined ones (one per
// --config-key glob that matches nothing), separated by "; "; other errors
// come back unchanged.
func flagError(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var msgs []string
		for _, e := range j.Unwrap() {
			if _, ok := e.(*coverage.OptionError); !ok {
				msgs = nil
				break
			}
			msgs = append(msgs, flagError(e).Error())
		}
		if len(msgs) > 1 {
			return errors.New(strings.Join(msgs, "; "))
		}
	}
	var oe *coverage.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	flag, ok := optionFlags[oe.Field]
	if !ok {
		return err
	}
	if oe.Field == "CookbookDir" && oe.Value == "" {
		return errors.New("give --cookbook, --vllm-recipes or both")
	}
	return errors.New(oe.FlagError(flag))
}

// printReport writes rep in o.format (coverageFormats; text when the
// format is not one of them).
func printReport(w io.Writer, rep *report.Report, o coverageOptions) error {
	f, ok := coverageFormatNamed(o.format)
	if !ok {
		f, _ = coverageFormatNamed("text")
	}
	return f.print(w, rep, o)
}

// footerKind says how the Markdown footer command (coverageFooter) carries
// one coverage flag.
type footerKind int

const (
	// footerDir: an input directory, named by a placeholder whose
	// checkout (repository and commit) is said after the command.
	footerDir footerKind = iota + 1
	// footerValue: carried as given, every time it was given.
	footerValue
	// footerDropped: does not change the report's content (its form, or
	// when the command gives up); the footer asks for --format json.
	footerDropped
)

// coverageFooterFlags lists every flag of the coverage command, its own
// and the inherited ones, in the order the footer carries them: every flag
// that changes the result is carried (TestCoverageFooterCarriesEveryFlag
// fails on a flag missing here).
var coverageFooterFlags = []struct {
	name string
	kind footerKind
}{
	{"infx", footerDir},
	{"cookbook", footerDir},
	{"vllm-recipes", footerDir},
	{"srt-slurm-dir", footerDir},
	{"srt-slurm-version", footerValue},
	{"config-key", footerValue},
	{"policy", footerValue},
	{"allow-unverified", footerValue},
	{"upstream", footerValue},
	// the GitHub API the --upstream states are read from, and how hard
	// it is asked: a state that cannot be read is "unknown" (a gap)
	{"api-url", footerValue},
	{"retries", footerValue},
	{"timeout", footerValue},
	{"call-timeout", footerValue},
	{"format", footerDropped},   // the footer asks for json
	{"deadline", footerDropped}, // exit 3, never a different report
	{"help", footerDropped},
	// the cache gives the report a fresh run would: never a different one
	{"cache-dir", footerDropped},
	{"no-cache", footerDropped},
}

// coverageFooter is the command that gives the whole report of the run as
// JSON (the Markdown footer): "cookbook-sync coverage" with every flag
// given that changes the result (coverageFooterFlags), input directories
// as placeholders (--infx <InferenceX>, --cookbook <sglang>, …), and
// --format json; and the checkout each placeholder stands for (its
// repository and commit, read from rep). No local path appears in either.
// A flag given that coverageFooterFlags does not list is carried as
// given. Without fs (options built by hand) only --format json.
func coverageFooter(fs *pflag.FlagSet, rep *report.Report) (string, []report.HintInput) {
	args := []string{"cookbook-sync", "coverage"}
	var inputs []report.HintInput
	used := map[string]bool{}
	placeholder := func(base string) string {
		p := "<" + base + ">"
		for i := 2; used[p]; i++ {
			p = fmt.Sprintf("<%s-%d>", base, i)
		}
		used[p] = true
		return p
	}
	dir := func(flag, v string) {
		var ri *report.RepoInfo
		base, def := flag, ""
		switch flag {
		case "infx":
			ri, base, def = &rep.InferenceX, "InferenceX", "SemiAnalysisAI/InferenceX"
		case "vllm-recipes":
			ri, def = rep.VLLMRecipes, "vllm-project/recipes"
		case "srt-slurm-dir":
			ri, base, def = rep.SrtSlurm, "srt-slurm", "NVIDIA/srt-slurm"
			if c, err := infx.ParseSrtSlurmDir(v); err == nil && (c.Repo != infx.SrtSlurmRepo || c.Ref != "") {
				// OWNER/NAME[@REF]=DIR: the placeholder stands for DIR, the
				// checkout's commit read from it
				_, name, _ := strings.Cut(c.Repo, "/")
				p := placeholder(name)
				fri := &report.RepoInfo{Repo: c.Repo}
				if c.Repo == infx.SrtSlurmRepo && rep.SrtSlurm != nil && rep.SrtSlurm.Dir == c.Dir {
					fri = rep.SrtSlurm
				} else if head, ok := infx.CheckoutHead(c.Dir); ok {
					fri.Commit = head
				}
				args = append(args, "--"+flag, c.Flag(p))
				inputs = append(inputs, report.HintInput{Placeholder: p, Repo: fri, Default: c.Repo})
				return
			}
		case "cookbook":
			base, def = "sglang", "sgl-project/sglang"
			switch {
			case rep.Cookbook != nil && rep.Cookbook.Dir == v:
				ri = rep.Cookbook
			case rep.PagesRepo != nil && rep.PagesRepo.Dir == v:
				ri, base = rep.PagesRepo, "sglang-docs"
			}
		}
		if ri != nil && ri.Dir != v {
			ri = nil // not the checkout the report read: no commit known
		}
		p := placeholder(base)
		args = append(args, "--"+flag, p)
		inputs = append(inputs, report.HintInput{Placeholder: p, Repo: ri, Default: def})
	}
	carry := func(f *pflag.Flag) {
		if f.Value.Type() == "bool" {
			if f.Value.String() == "true" {
				args = append(args, "--"+f.Name)
			} else {
				args = append(args, "--"+f.Name+"="+f.Value.String())
			}
			return
		}
		vals := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		}
		for _, v := range vals {
			if k := footerKindOf(f.Name); k == footerDir {
				dir(f.Name, v)
			} else {
				args = append(args, "--"+f.Name, shellWord(v))
			}
		}
	}
	if fs != nil {
		for _, ff := range coverageFooterFlags {
			if f := fs.Lookup(ff.name); f != nil && f.Changed && ff.kind != footerDropped {
				carry(f)
			}
		}
		fs.Visit(func(f *pflag.Flag) {
			if footerKindOf(f.Name) == 0 {
				carry(f)
			}
		})
	}
	return strings.Join(append(args, "--format", "json"), " "), inputs
}

// footerKindOf is the kind coverageFooterFlags gives the flag, 0 when it
// does not list it.
func footerKindOf(name string) footerKind {
	for _, ff := range coverageFooterFlags {
		if ff.name == name {
			return ff.kind
		}
	}
	return 0
}

// shellWord quotes s for a POSIX shell: bare when it holds only
// [A-Za-z0-9_@%+=:,./-] (and is not empty), else in single quotes (a single
// quote inside closed, escaped and reopened), so that a glob or a value
// with spaces is passed as is.
func shellWord(s string) string {
	bare := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r)) {
			bare = false
			break
		}
	}
	if bare {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// termWidth is the width of w when it is a terminal (golang.org/x/term),
// else $COLUMNS when set, else 0 (no limit).
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

// errorsSummary says which inputs were bad when a run has errors (exit 2):
// cited recipes or points that could not be rendered, vLLM recipe files
// that could not be read, cookbook pages whose code failed — naming the
// first page.
func errorsSummary(rep *report.Report) string {
	var parts []string
	n := 0
	for _, p := range rep.Points {
		if p.Status == report.StatusError {
			n++
		}
	}
	for _, k := range rep.UpstreamKeys() {
		for _, row := range k.Rows {
			if row.Status == report.StatusError {
				n++
			}
		}
	}
	if n > 0 {
		parts = append(parts, fmt.Sprintf("%d cited points or vLLM/page rows could not be rendered", n))
	}
	if e := len(rep.VLLMRecipeErrors); e > 0 {
		parts = append(parts, fmt.Sprintf("%s could not be read", plural(e, "vLLM recipe file")))
	}
	if e := len(rep.PageErrors); e > 0 {
		parts = append(parts, fmt.Sprintf("%s failed (first: %s)", plural(e, "cookbook page snippet"), launch.EscapeControl(rep.Scrub(rep.PageErrors[0]))))
	}
	if len(parts) == 0 {
		return "bad input (\"error\" above)"
	}
	return strings.Join(parts, "; ") + " (\"error\" above)"
}

// cacheEnv names the environment variable that sets the cache directory
// when --cache-dir is not given; "off" turns the cache off (as
// --no-cache).
const cacheEnv = "COOKBOOK_SYNC_CACHE"

// openCache is the cache the run uses (coverage.Options.Cache): nil with
// --no-cache or $COOKBOOK_SYNC_CACHE=off; else --cache-dir, else
// $COOKBOOK_SYNC_CACHE, else runcache.DefaultDir. A cache that cannot be
// opened is a warning on stderr and a run without it, never a failure.
func (o coverageOptions) openCache(stderr io.Writer, getenv func(string) string) *runcache.Dir {
	dir := o.cacheDir
	if o.noCache || dir == "" && getenv(cacheEnv) == "off" {
		return nil
	}
	if dir == "" {
		dir = getenv(cacheEnv)
	}
	if dir == "" {
		d, err := runcache.DefaultDir()
		if err != nil {
			warn(stderr, "cache: "+err.Error()+" (running without it; --cache-dir DIR names one)")
			return nil
		}
		dir = d
	}
	c, err := runcache.Open(dir)
	if err != nil {
		warn(stderr, "cache: "+err.Error()+" (running without it)")
		return nil
	}
	return c
}
