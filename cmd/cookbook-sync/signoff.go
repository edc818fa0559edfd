package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/gittree"
	"github.com/cookbook-sync/cookbook-sync/report"
	"github.com/cookbook-sync/cookbook-sync/signoff"
	"github.com/spf13/cobra"
)

// signoffOptions are signoff's flags: coverage's inputs and judgment
// flags, the range and the format.
type signoffOptions struct {
	coverageOptions
	base, head string
	// offline: no link state is read (merge state decided by checkouts
	// only; links "not verified").
	offline bool
}

func newSignoffCmd() *cobra.Command {
	var o signoffOptions
	c := &cobra.Command{
		Use:   "signoff --infx DIR [--base REV] [--head REV] [--cookbook DIR…] [--vllm-recipes DIR] [--upstream URL…] [--format markdown|json|text|sarif|github]",
		Short: "Check 3 for one InferenceX PR: the config keys it affects, their coverage and merge state, as a paste-ready comment",
		Long: `signoff reads the InferenceX git repository at --infx (a checkout or a bare
git directory) at two commits with go-git — --head (default HEAD) and --base
(default its first parent; a "(#N)" PR number in the head's title is shown) —
and finds the config keys the range affects: those named by the entries it adds
to perf-changelog.yaml (exact keys or '*' globs, expanded against head, and
against base for keys it retires; a pattern that matches nothing is reported)
and those whose effective render (every point's programs, images, arguments,
environment, counts and files) differs between the two commits. Keys whose
master entry or rendered files changed but whose render did not are counted
on one line, not judged; keys of frameworks outside Check 3 are listed as such.

The affected keys are then covered at head exactly as coverage --config-key
KEY… would (every row and role, every source given), and for each key the
content that covers it must be merged upstream (Check 3 (b)): a --cookbook /
--vllm-recipes checkout whose origin is the upstream repository and whose HEAD
is on its default branch counts as merged at that commit; otherwise a merged
PR link decides — given with --upstream, or an sgl-project/sglang or
vllm-project/recipes PR URL found in the added changelog entries — read from
GitHub (GH_TOKEN / GITHUB_TOKEN; --offline reads none). Anything not verified
fails closed.

--format markdown is the comment to paste into the sign-off (under 60,000
characters): the verdict line, the range, one row per key, what changed in
each render, merge state, the method, then the coverage report of the keys.
json carries the same; sarif and github print the coverage findings.

Exit status: 0 every affected key covered and merged (or no Check 3 key
affected); 1 a gap (a key not covered, or its merge state not verified);
2 bad usage or input (no git repository, a bad range, a changelog or master
config that does not parse); 3 --deadline passed; 4 the output could not be
written.`,
		Example: exampleSignoff,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.flags = cmd.Flags()
			return runSignoff(cmd, o)
		},
	}
	o.registerInputs(c, "InferenceX git checkout or bare repository `DIR`")
	f := c.Flags()
	f.StringVar(&o.head, "head", "HEAD", "the PR's commit `REV`")
	f.StringVar(&o.base, "base", "", "the commit `REV` to compare with (default: the first parent of --head)")
	f.StringVar(&o.format, "format", "markdown", "output format: markdown, json, text, sarif or github")
	f.BoolVar(&o.offline, "offline", false, "read no link state from GitHub (merge state from checkouts only)")
	return c
}

func runSignoff(cmd *cobra.Command, o signoffOptions) error {
	if o.infx == "" {
		return &exitError{code: exitUsage, err: errors.New("--infx is required: the InferenceX git checkout whose commits are signed off")}
	}
	switch o.format {
	case "markdown", "json", "text", "sarif", "github":
	default:
		return &exitError{code: exitUsage, err: fmt.Errorf("--format %q: want markdown, json, text, sarif or github", o.format)}
	}
	if err := o.api.check(); err != nil {
		return err
	}
	if err := o.checkInputs(cmd); err != nil {
		return err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	opt := signoff.Options{Coverage: o.libOptions(), Head: o.head, Base: o.base, Upstream: o.upstream}
	opt.Coverage.ConfigKeys = nil
	if !o.offline {
		opt.Links = func(ctx context.Context, urls []string) ([]report.Link, error) { return readLinks(ctx, o.api, urls) }
	}
	res, err := signoff.Run(ctx, opt)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		var re *signoff.RangeError
		if errors.As(err, &re) {
			return &exitError{code: exitUsage, err: fmt.Errorf("%v: --%s: %v", signoff.ErrRange, strings.ToLower(re.Field), re.Err)}
		}
		if errors.Is(err, gittree.ErrNotRepo) {
			return &exitError{code: exitUsage, err: fmt.Errorf("--infx %s is not a git repository: signoff reads commits (cookbook-sync coverage --infx %s judges a directory as it is)", o.infx, o.infx)}
		}
		return &exitError{code: exitUsage, err: flagError(err)}
	}
	w := cmd.OutOrStdout()
	switch o.format {
	case "markdown":
		err = escaped(w, func(b *bytes.Buffer) error { return signoff.PrintMarkdown(b, res, 0, report.MarkdownOptions{}) })
	case "json":
		err = escapedJSON(w, func(b *bytes.Buffer) error { return signoff.PrintJSON(b, res) })
	case "text":
		err = escaped(w, func(b *bytes.Buffer) error {
			return signoff.PrintText(b, res, report.TextOptions{Width: termWidth(w)})
		})
	default:
		if res.Coverage == nil {
			_, err = io.WriteString(w, res.Headline()+"\n")
			break
		}
		for _, f := range coverageFormats() {
			if f.name == o.format {
				err = f.print(w, res.Coverage, o.coverageOptions)
			}
		}
	}
	if err != nil {
		return err
	}
	if res.Coverage != nil {
		for _, wmsg := range res.Coverage.Warnings {
			warn(cmd.ErrOrStderr(), wmsg)
		}
	}
	switch {
	case res.Errors:
		return &exitError{code: exitUsage, err: errors.New("a config key could not be judged (see the report)")}
	case res.Coverage != nil && res.Coverage.TimeLimit:
		return &exitError{code: exitDeadline, err: errors.New("time limit — re-run: a wall-clock backstop stopped part of the work")}
	case res.Gap:
		return errGap
	}
	return nil
}
