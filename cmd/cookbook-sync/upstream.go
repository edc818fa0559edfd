package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cookbook-sync/cookbook-sync/upstream"
)

// upAPIOptions are the flags every network subcommand shares.
type upAPIOptions struct {
	apiURL  string // --api-url: REST base URL (GitHub Enterprise: https://HOST/api/v3/)
	retries int    // --retries: retries of 5xx / rate-limit answers
}

func (o *upAPIOptions) register(c *cobra.Command) {
	c.Flags().StringVar(&o.apiURL, "api-url", upstream.DefaultAPIURL, "GitHub REST API base URL (GitHub Enterprise: https://HOST/api/v3/)")
	c.Flags().IntVar(&o.retries, "retries", 4, "retries of 5xx and rate-limited answers (honouring Retry-After, at most 60 s each)")
}

// upToken returns the token from GH_TOKEN, then GITHUB_TOKEN (never from a
// flag, never printed).
func upToken() string {
	if t := strings.TrimSpace(os.Getenv("GH_TOKEN")); t != "" {
		return t
	}
	return strings.TrimSpace(os.Getenv("GITHUB_TOKEN"))
}

// client builds the upstream client from the flags and the environment.
func (o *upAPIOptions) client() (*upstream.Client, error) {
	retries := o.retries
	if retries == 0 {
		retries = -1 // upstream: 0 means the default
	}
	c, err := upstream.New(upstream.Options{APIURL: o.apiURL, Token: upToken(), MaxRetries: retries})
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return c, nil
}

// upFailure reports an upstream/API failure: exit 1 (fail closed), with the
// message.
func upFailure(err error) error {
	return &exitError{code: exitGap, err: err}
}

// newUpstreamCmd: `cookbook-sync upstream status URL… [--format text|json]`
// and `cookbook-sync upstream refresh FILE [--write] [--format text|json]`.
func newUpstreamCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "upstream",
		Short: "Merge state of upstream links; refresh AgentX provenance statuses",
		Long: `Talk to GitHub about the upstream material Check 3 cites.

  upstream status URL…   is each PR merged / each published page's source present?
  upstream refresh FILE  move an AgentX snippet's provenance statuses forward

The token, when needed, is read from GH_TOKEN or GITHUB_TOKEN.`,
	}
	c.AddCommand(newUpstreamStatusCmd(), newUpstreamRefreshCmd())
	return c
}

type upStatusOptions struct {
	upAPIOptions
	format string
}

func newUpstreamStatusCmd() *cobra.Command {
	var o upStatusOptions
	c := &cobra.Command{
		Use:   "status URL…",
		Short: "Print the merge state of PR links and whether published pages exist",
		Long: `For each URL print its state:

  PR (https://github.com/OWNER/NAME/pull/N)   open | draft | closed-unmerged | merged (with mergedAt)
  published page (docs.sglang.io/cookbook/…,  exists | missing: whether the source file the page is
  recipes.vllm.ai/ORG/MODEL)                  built from is on the default branch (upstream/pages.yaml)

A state that cannot be read (API error, malformed answer, branch/commit link)
is "unknown" and fails closed.

Exit: 0 every link merged/exists, 1 otherwise, 2 bad usage.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUpstreamStatus(cmd.Context(), cmd.OutOrStdout(), args, o)
		},
	}
	o.register(c)
	c.Flags().StringVar(&o.format, "format", "text", "output format: text or json")
	return c
}

func runUpstreamStatus(ctx context.Context, w io.Writer, urls []string, o upStatusOptions) error {
	if o.format != "text" && o.format != "json" {
		return &exitError{code: exitUsage, err: fmt.Errorf("--format %q: want text or json", o.format)}
	}
	cl, err := o.client()
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	rs := cl.StatusAll(ctx, urls)
	if o.format == "json" {
		b, err := json.MarshalIndent(rs, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\n", b)
	} else {
		for _, r := range rs {
			fmt.Fprintln(w, upStatusLine(r))
		}
	}
	if !upstream.AllOK(rs) {
		return errGap
	}
	return nil
}

// upStatusLine is "<state> <url> (<detail>)".
func upStatusLine(r upstream.LinkResult) string {
	var detail []string
	switch {
	case r.MergedAt != nil:
		detail = append(detail, "mergedAt "+r.MergedAt.UTC().Format(time.RFC3339))
	case r.Kind == upstream.KindPage && r.Branch != "":
		detail = append(detail, fmt.Sprintf("%s %s@%s", r.File, r.Repo, r.Branch))
	}
	if r.Err != nil {
		detail = append(detail, "error: "+r.Err.Error())
	}
	s := fmt.Sprintf("%-15s %s", r.State, r.URL)
	if len(detail) > 0 {
		s += " (" + strings.Join(detail, "; ") + ")"
	}
	return s
}

type upRefreshOptions struct {
	upAPIOptions
	write  bool
	format string
}

func newUpstreamRefreshCmd() *cobra.Command {
	var o upRefreshOptions
	c := &cobra.Command{
		Use:   "refresh FILE",
		Short: "Update an AgentX snippet's provenance statuses from InferenceX PR and run states",
		Long: `Read an AgentX data file (docs/src/snippets/agentx/<org>/<model>.jsx), ask GitHub
for each cited InferenceX run and PR, and move statuses forward:
in-progress → verified-pr (the run succeeded) → verified (and the PR merged).
Only the status values change; every other byte is kept. Records that cannot
move (no run cited, run failed, PR closed) are listed.

Without --write the changes are only printed. Exit: 0 done, 1 API failure
(nothing written), 2 bad usage or unreadable file.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUpstreamRefresh(cmd.Context(), cmd.OutOrStdout(), args[0], o)
		},
	}
	o.register(c)
	c.Flags().BoolVar(&o.write, "write", false, "write the updated file in place (atomically)")
	c.Flags().StringVar(&o.format, "format", "text", "output format: text or json")
	return c
}

func runUpstreamRefresh(ctx context.Context, w io.Writer, file string, o upRefreshOptions) error {
	if o.format != "text" && o.format != "json" {
		return &exitError{code: exitUsage, err: fmt.Errorf("--format %q: want text or json", o.format)}
	}
	src, err := upReadFile(file)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	cl, err := o.client()
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	out, changes, err := cl.Refresh(ctx, src)
	if err != nil {
		if errors.Is(err, upstream.ErrBadSnippet) {
			return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", file, err)}
		}
		return upFailure(fmt.Errorf("%s: %w", file, err))
	}
	applied := 0
	for _, ch := range changes {
		if ch.Applied {
			applied++
		}
	}
	if o.write && applied > 0 {
		if err := upWriteAtomic(file, out); err != nil {
			return upFailure(err)
		}
	}
	if o.format == "json" {
		b, _ := json.MarshalIndent(struct {
			File    string            `json:"file"`
			Written bool              `json:"written"`
			Changes []upstream.Change `json:"changes"`
		}{file, o.write && applied > 0, append([]upstream.Change{}, changes...)}, "", "  ")
		fmt.Fprintf(w, "%s\n", b)
		return nil
	}
	for _, ch := range changes {
		if ch.Applied {
			fmt.Fprintf(w, "%s:%d: %s: %s → %s (%s)\n", file, ch.Line, ch.Path, ch.From, ch.To, ch.Reason)
		} else {
			fmt.Fprintf(w, "%s:%d: %s: stays %s (%s)\n", file, ch.Line, ch.Path, ch.From, ch.Reason)
		}
	}
	switch {
	case applied == 0:
		fmt.Fprintf(w, "%s: no status changes\n", file)
	case o.write:
		fmt.Fprintf(w, "%s: %d status changes written\n", file, applied)
	default:
		fmt.Fprintf(w, "%s: %d status changes (not written; use --write)\n", file, applied)
	}
	return nil
}

// upMaxInput bounds files read by these subcommands (the largest real snippet
// is ~0.3 MB).
const upMaxInput = 8 << 20

func upReadFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, upMaxInput+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > upMaxInput {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, upMaxInput)
	}
	return b, nil
}

// upWriteAtomic replaces name with data via a temp file in the same directory
// and a rename, keeping the file mode.
func upWriteAtomic(name string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), mode)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
