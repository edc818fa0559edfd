package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cookbook-sync/cookbook-sync/drift"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/secrets"
	"github.com/cookbook-sync/cookbook-sync/upstream"
	"github.com/spf13/cobra"
)

// driftOptions are drift's flags: coverage's inputs and judgment flags,
// the state, the baseline and the format.
type driftOptions struct {
	coverageOptions
	state, baseline string
	updateBaseline  bool
	baselineReason  string
	baselineDays    int
	// issue is --issue OWNER/NAME#N; issueRepo, issueTitle, issueLabel
	// --issue-repo, --issue-title, --issue-label.
	issue, issueRepo, issueTitle, issueLabel string
}

// issueTarget parses --issue / --issue-repo: the repository and the issue
// number (0: found by its marker). Errors are bad usage.
func (o driftOptions) issueTarget() (repo string, number int, err error) {
	switch {
	case o.issue != "" && o.issueRepo != "":
		return "", 0, errors.New("give --issue OWNER/NAME#N or --issue-repo OWNER/NAME, not both")
	case o.issue != "":
		r, n, ok := strings.Cut(o.issue, "#")
		num, perr := strconv.Atoi(n)
		if !ok || perr != nil || num <= 0 || !strings.Contains(r, "/") {
			return "", 0, fmt.Errorf("--issue %q: want OWNER/NAME#N (the tracking issue), or --issue-repo OWNER/NAME to find or open it", o.issue)
		}
		return r, num, nil
	case o.issueRepo != "":
		if strings.Count(o.issueRepo, "/") != 1 || strings.ContainsAny(o.issueRepo, "# ") {
			return "", 0, fmt.Errorf("--issue-repo %q: want OWNER/NAME", o.issueRepo)
		}
		return o.issueRepo, 0, nil
	}
	return "", 0, nil
}

func newDriftCmd() *cobra.Command {
	var o driftOptions
	c := &cobra.Command{
		Use:   "drift --infx DIR --cookbook DIR… [--vllm-recipes DIR] [--state FILE] [--baseline FILE [--update-baseline]] [--issue-repo OWNER/NAME] [--format text|json|markdown|sarif]",
		Short: "Nightly drift: cookbook and recipes against the pinned InferenceX recipes, only what is new fails",
		Long: `drift compares every AgentX point of the --cookbook checkout with the InferenceX
recipe it was generated from, twice: at the commit its provenance pins
(prov.sha, read from the --infx git history with go-git) and at InferenceX
head (the --infx checkout as it is; a bare git directory: its HEAD). Each point
is in sync, InferenceX moved (the recipe changed since the pinned commit; the
changed settings are what the next cookbook sync must carry), cookbook drifted
(the cookbook does not show what the pinned recipe runs), recipe gone, pinned
commit not available (not in the history — a shallow clone? — counted, never a
failure by itself) or not verified (with its reason). Hand-written cookbook
pages and vLLM recipes carry no provenance: their drift is a config key that
was covered in the previous run's state (--state FILE) and no longer is.

The first line is the summary ("42 deployments: 35 in sync, 5 InferenceX
moved, 2 cookbook drifted — 83%"). Only drift that is new since the previous
state (everything, on a first run) and not accepted by --baseline FILE fails;
an accepted entry whose date has passed fails again. --state FILE is read when
it exists and written (atomically) after the run; --update-baseline writes the
baseline with every failing deployment accepted (--baseline-reason, for
--baseline-days days). --allow-unverified: a deployment that could not be
verified is listed but does not fail.

--issue-repo OWNER/NAME keeps one tracking issue there (GH_TOKEN /
GITHUB_TOKEN): found by a hidden marker and --issue-label, edited in place
only when its body changes, closed when nothing is drifted, reopened when
drift comes back, never a second one; without --state its hidden block is the
previous state. --issue OWNER/NAME#N names the issue. --format sarif writes a
SARIF 2.1.0 log for code scanning (examples/github-actions/cookbook-drift.yml
is a ready nightly workflow).

Exit status: 0 nothing new drifted; 1 something did; 2 bad usage or input
(a state or baseline file that does not parse: file:line:col); 3 --deadline
passed, or a wall-clock backstop stopped part of the work (never 0); 4 the
output, the state or the baseline could not be written.`,
		Example: exampleDrift,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.flags = cmd.Flags()
			return runDrift(cmd, o)
		},
	}
	o.registerInputs(c, "InferenceX git checkout `DIR` (its history holds the pinned commits; a bare git directory: its HEAD is head)")
	f := c.Flags()
	f.StringArrayVar(&o.configKeys, "config-key", nil, "only deployments whose InferenceX config key matches `GLOB` (path.Match); repeatable or comma-separated, each must match a key")
	f.StringVar(&o.format, "format", "text", "output format: text, json, markdown or sarif (SARIF 2.1.0 for code scanning: one result per drifted deployment, error when it fails the run)")
	f.StringVar(&o.cacheDir, "cache-dir", "", "cache `DIR` for finished head reports (default: $"+cacheEnv+", else the user cache directory's cookbook-sync/)")
	f.BoolVar(&o.noCache, "no-cache", false, "neither read nor write the cache")
	f.StringVar(&o.state, "state", "", "state `FILE` of the previous run: read when it exists (what is new is decided against it), written after the run")
	f.StringVar(&o.baseline, "baseline", "", "baseline `FILE` of accepted drift (YAML: accepted: [{id, reason, expires, state}])")
	f.BoolVar(&o.updateBaseline, "update-baseline", false, "write --baseline with every failing deployment accepted")
	f.StringVar(&o.baselineReason, "baseline-reason", "", "the `REASON` --update-baseline gives its new entries (default: the reason of the expired entry it renews, else \"accepted with --update-baseline\")")
	f.IntVar(&o.baselineDays, "baseline-days", 30, "the `DAYS` --update-baseline's new entries accept the drift for")
	f.StringVar(&o.issue, "issue", "", "keep the tracking issue `OWNER/NAME#N` up to date (GH_TOKEN / GITHUB_TOKEN); its hidden state is the previous state unless --state is given")
	f.StringVar(&o.issueRepo, "issue-repo", "", "find the tracking issue of `OWNER/NAME` by its hidden marker (and label), or open it; one per repository, never a second")
	f.StringVar(&o.issueTitle, "issue-title", drift.DefaultIssueTitle, "the tracking issue's `TITLE`")
	f.StringVar(&o.issueLabel, "issue-label", drift.IssueLabel, "the `LABEL` the tracking issue is opened with and found by")
	return c
}

// maxDriftFile bounds a state or baseline file read (bytes): a bigger one
// (or a device that never ends) is bad input, not a run out of memory.
const maxDriftFile = 64 << 20

// maxBaselineDays bounds --baseline-days (ten years).
const maxBaselineDays = 3650

// readDriftFile reads a --state or --baseline file: its bytes, or
// exists=false when there is none. Errors (bad usage, exit 2): not a
// regular file, unreadable, over maxDriftFile.
func readDriftFile(flag, name string) (data []byte, exists bool, err error) {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, &exitError{code: exitUsage, err: fmt.Errorf("--%s: %w", flag, err)}
	}
	defer func() { _ = f.Close() }()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, false, &exitError{code: exitUsage, err: fmt.Errorf("--%s %s: not a regular file", flag, name)}
	}
	data, err = io.ReadAll(io.LimitReader(f, maxDriftFile+1))
	switch {
	case err != nil:
		return nil, false, &exitError{code: exitUsage, err: fmt.Errorf("--%s: %w", flag, err)}
	case len(data) > maxDriftFile:
		return nil, false, &exitError{code: exitUsage, err: fmt.Errorf("--%s %s: larger than %d MiB", flag, name, maxDriftFile>>20)}
	}
	return data, true, nil
}

func runDrift(cmd *cobra.Command, o driftOptions) error {
	reasonSet := cmd.Flags().Changed("baseline-reason")
	switch {
	case o.infx == "":
		return &exitError{code: exitUsage, err: errors.New("--infx is required: the InferenceX git checkout whose history holds the pinned commits")}
	case len(o.cookbook) == 0 && o.vllmRecipes == "":
		return &exitError{code: exitUsage, err: errors.New("--cookbook (the checkout with the AgentX snippets or cookbook pages) or --vllm-recipes is required")}
	case o.updateBaseline && o.baseline == "":
		return &exitError{code: exitUsage, err: errors.New("--update-baseline needs --baseline FILE (the file it writes)")}
	case o.baselineDays <= 0 || o.baselineDays > maxBaselineDays:
		return &exitError{code: exitUsage, err: fmt.Errorf("--baseline-days %d: want 1 to %d days", o.baselineDays, maxBaselineDays)}
	case reasonSet && strings.TrimSpace(o.baselineReason) == "":
		return &exitError{code: exitUsage, err: errors.New("--baseline-reason: say why the drift is accepted (an empty reason is refused)")}
	case o.state != "" && o.baseline != "" && samePath(o.state, o.baseline):
		return &exitError{code: exitUsage, err: fmt.Errorf("--state and --baseline name one file (%s): they are different files", o.state)}
	case len(o.upstream) > 0:
		return &exitError{code: exitUsage, err: errors.New("--upstream: drift reads no upstream links (signoff and coverage do)")}
	}
	switch o.format {
	case "text", "json", "markdown", "sarif":
	default:
		return &exitError{code: exitUsage, err: fmt.Errorf("--format %q: want text, json, markdown or sarif", o.format)}
	}
	if err := o.api.check(); err != nil {
		return err
	}
	if err := o.checkInputs(cmd); err != nil {
		return err
	}
	issueRepo, issueNum, err := o.issueTarget()
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	opt := drift.Options{Coverage: o.libOptions(), Now: time.Now()}
	if o.state != "" {
		data, ok, err := readDriftFile("state", o.state)
		if err != nil {
			return err
		}
		if ok {
			if opt.Previous, err = drift.ParseSnapshot(o.state, data); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
		}
	}
	if o.baseline != "" {
		data, ok, err := readDriftFile("baseline", o.baseline)
		switch {
		case err != nil:
			return err
		case ok:
			if opt.Baseline, err = drift.ParseBaseline(o.baseline, data); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
		case o.updateBaseline:
			opt.Baseline = &drift.Baseline{}
		default:
			return &exitError{code: exitUsage, err: fmt.Errorf("--baseline %s: no such file (--update-baseline writes one)", o.baseline)}
		}
	}
	// the tracking issue first: its hidden state is the previous state
	var cl *upstream.Client
	var tracked *upstream.TrackedIssue
	if issueRepo != "" {
		if upToken() == "" {
			return &exitError{code: exitUsage, err: errors.New("--issue / --issue-repo write the tracking issue: set GH_TOKEN or GITHUB_TOKEN")}
		}
		if cl, err = o.api.client(); err != nil {
			return err
		}
		if tracked, err = cl.FindIssue(ctx, issueRepo, issueNum, o.issueLabel, drift.IssueMarker); err != nil {
			return upFailure(err)
		}
		for _, n := range tracked.Others {
			warn(cmd.ErrOrStderr(), fmt.Sprintf("%s#%d also carries the tracking marker: left alone (the tracker updates #%d)", issueRepo, n, tracked.Issue.Number))
		}
		if o.state == "" && tracked.Issue != nil {
			prev, err := drift.StateFromIssue(tracked.Issue.Body)
			switch {
			case err == nil:
				opt.Previous = prev
			case errors.Is(err, drift.ErrNoIssueState):
			default:
				// never trusted: a first run, said
				warn(cmd.ErrOrStderr(), fmt.Sprintf("%s#%d: %v: judged as a first run", issueRepo, tracked.Issue.Number, err))
			}
		}
	}
	opt.Coverage.Cache = o.openCache(cmd.ErrOrStderr(), os.Getenv)
	res, err := drift.Run(ctx, opt)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return &exitError{code: exitUsage, err: flagError(err)}
	}
	// --update-baseline: the baseline it writes decides what the output
	// says fails (never after a time-limited run: its outcomes are not
	// drift to accept)
	var newBaseline []byte
	if o.updateBaseline && !res.TimeLimit {
		reason := ""
		if reasonSet {
			reason = strings.TrimSpace(o.baselineReason)
		}
		b := drift.UpdateBaseline(opt.Baseline, res, reason, opt.Now, o.baselineDays)
		newBaseline = b.Marshal()
		if err := secrets.FromEnv().Check(newBaseline); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("--baseline %s: not written: %w", o.baseline, err)}
		}
		accepted := res.Failing
		res.Judge(b, opt.Now)
		if accepted > 0 {
			warn(cmd.ErrOrStderr(), fmt.Sprintf("%s: %s accepted until %s", o.baseline, plural(accepted, "drifted deployment"), opt.Now.UTC().AddDate(0, 0, o.baselineDays).Format(time.DateOnly)))
		}
	} else if o.updateBaseline {
		warn(cmd.ErrOrStderr(), o.baseline+": not written: a time limit cut the run short (its outcomes are not drift to accept)")
	}
	w := cmd.OutOrStdout()
	switch o.format {
	case "json":
		err = escapedJSON(w, func(b *bytes.Buffer) error { return drift.PrintJSON(b, res) })
	case "markdown":
		err = escaped(w, func(b *bytes.Buffer) error { return drift.PrintMarkdown(b, res, 0) })
	case "sarif":
		err = escapedJSON(w, func(b *bytes.Buffer) error { return drift.PrintSARIF(b, res, buildVersion()) })
	default:
		err = escaped(w, func(b *bytes.Buffer) error { return drift.PrintText(b, res) })
	}
	if err != nil {
		return err
	}
	if res.Head != nil {
		for _, wmsg := range res.Head.Warnings {
			warn(cmd.ErrOrStderr(), wmsg)
		}
	}
	if res.Shallow {
		warn(cmd.ErrOrStderr(), "the InferenceX checkout is a shallow clone: pinned commits outside it are not available (fetch-depth: 0)")
	}
	// what the run leaves: the baseline, then the issue, then the state —
	// the state last, so a run whose other writes failed is judged again
	if newBaseline != nil {
		if err := writeAtomic(o.baseline, newBaseline); err != nil {
			return err
		}
	}
	if issueRepo != "" && !res.TimeLimit {
		body, err := drift.IssueBody(res, o.issueTitle, upstream.MaxIssueBody)
		if err != nil {
			return upFailure(err)
		}
		is, act, err := cl.SaveIssue(ctx, issueRepo, tracked.Issue, o.issueTitle, body, o.issueLabel, res.Tracking())
		if err != nil {
			return upFailure(err)
		}
		req, _, _ := cl.Stats().Snapshot()
		switch {
		case is == nil:
			printStderr(cmd.ErrOrStderr(), fmt.Sprintf("cookbook-sync: tracking issue: none in %s, none opened (everything in sync); %d API requests", issueRepo, req))
		default:
			printStderr(cmd.ErrOrStderr(), launch.EscapeControl(fmt.Sprintf("cookbook-sync: tracking issue %s: %s; %d API requests", is.URL, act, req)))
		}
	}
	if o.state != "" && !res.TimeLimit {
		// a run the backstop cut short leaves the previous state alone
		data, err := res.Snapshot().Marshal()
		if err != nil {
			return err
		}
		if err := writeAtomic(o.state, data); err != nil {
			return err
		}
	}
	switch {
	case res.TimeLimit:
		return &exitError{code: exitDeadline, err: errors.New("time limit — re-run: a wall-clock backstop stopped part of the work")}
	case res.Failed:
		return &exitError{code: exitGap, err: errors.New("new drift found")}
	}
	return nil
}

// samePath reports whether a and b name one file (the same path, or the
// same existing file).
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, ea := os.Stat(a)
	sb, eb := os.Stat(b)
	return ea == nil && eb == nil && os.SameFile(sa, sb)
}
