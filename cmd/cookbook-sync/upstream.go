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
	"time"

	"github.com/spf13/cobra"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/secrets"
	"github.com/cookbook-sync/cookbook-sync/upstream"
)

// upAPIOptions are the flags every network subcommand shares.
type upAPIOptions struct {
	apiURL      string        // --api-url: REST base URL (GitHub Enterprise: https://HOST/api/v3/)
	retries     int           // --retries: retries of 5xx / rate-limit answers, 0..upstream.MaxRetriesLimit
	timeout     time.Duration // --timeout: one attempt of one request (answer body included)
	callTimeout time.Duration // --call-timeout: one API call with all its retries and waits
}

// upMaxTimeout bounds --timeout and --call-timeout.
const upMaxTimeout = time.Hour

func (o *upAPIOptions) register(c *cobra.Command) {
	c.Flags().StringVar(&o.apiURL, "api-url", upstream.DefaultAPIURL, "GitHub REST API base URL (GitHub Enterprise: https://HOST/api/v3/)")
	c.Flags().IntVar(&o.retries, "retries", 4, fmt.Sprintf("retries of 5xx and rate-limited answers, 0..%d (honouring Retry-After, at most 60 s each)", upstream.MaxRetriesLimit))
	c.Flags().DurationVar(&o.timeout, "timeout", upstream.DefaultRequestTimeout, "time limit of one attempt of one API request, answer included (0: the default)")
	c.Flags().DurationVar(&o.callTimeout, "call-timeout", upstream.DefaultCallTimeout, "time limit of one API call with all its retries and waits (0: the default)")
}

// upToken returns the token from GH_TOKEN, then GITHUB_TOKEN (never from a
// flag, never printed).
func upToken() string {
	if t := strings.TrimSpace(os.Getenv("GH_TOKEN")); t != "" {
		return t
	}
	return strings.TrimSpace(os.Getenv("GITHUB_TOKEN"))
}

// check validates the flags (exit 2 when out of range), so a command that
// reads them only for some inputs still refuses bad values up front.
func (o *upAPIOptions) check() error {
	_, _, err := o.timeouts()
	return err
}

// timeouts validates the flags and gives the request and call timeouts,
// zero values replaced by the defaults.
func (o *upAPIOptions) timeouts() (time.Duration, time.Duration, error) {
	if o.retries < 0 || o.retries > upstream.MaxRetriesLimit {
		return 0, 0, &exitError{code: exitUsage, err: fmt.Errorf("--retries %d: want 0..%d", o.retries, upstream.MaxRetriesLimit)}
	}
	// Zero values come from callers that build the options without flags.
	timeout, callTimeout := o.timeout, o.callTimeout
	if timeout == 0 {
		timeout = upstream.DefaultRequestTimeout
	}
	if callTimeout == 0 {
		callTimeout = upstream.DefaultCallTimeout
	}
	if timeout < 0 || timeout > upMaxTimeout {
		return 0, 0, &exitError{code: exitUsage, err: fmt.Errorf("--timeout %s: want more than 0 and at most %s", timeout, upMaxTimeout)}
	}
	if callTimeout < 0 || callTimeout > upMaxTimeout {
		return 0, 0, &exitError{code: exitUsage, err: fmt.Errorf("--call-timeout %s: want more than 0 and at most %s", callTimeout, upMaxTimeout)}
	}
	return timeout, callTimeout, nil
}

// client builds the upstream client from the flags and the environment.
func (o *upAPIOptions) client() (*upstream.Client, error) {
	timeout, callTimeout, err := o.timeouts()
	if err != nil {
		return nil, err
	}
	retries := o.retries
	if retries == 0 {
		retries = -1 // upstream: 0 means the default
	}
	// Every other secret of the process (GH_TOKEN, *KEY*, *SECRET*…) is
	// redacted from what the Client returns and refused in what pr pushes
	// and refresh --write writes, like the token (package secrets).
	c, err := upstream.New(upstream.Options{APIURL: o.apiURL, Token: upToken(), MaxRetries: retries,
		RequestTimeout: timeout, CallTimeout: callTimeout, Secrets: secrets.FromEnviron(os.Environ())})
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

// upRedacted runs fn with a buffer for its output and then writes the buffer
// to w and returns fn's error, both with the token redacted (cl.Redact): the
// last guard that nothing printed — text, JSON, error messages on stderr —
// carries GH_TOKEN / GITHUB_TOKEN, whatever the server put into its answers.
func upRedacted(w io.Writer, cl *upstream.Client, fn func(w *bytes.Buffer) error) error {
	var buf bytes.Buffer
	err := fn(&buf)
	if _, werr := io.WriteString(w, cl.Redact(buf.String())); werr != nil {
		return werr // exit 4 (runExit reads the failed stdout)
	}
	if err == nil {
		return nil
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee == errGap {
			return errGap // carries no text: the report above says what the gap is
		}
		return &exitError{code: ee.code, err: cl.RedactError(ee.err)} // a copy: errGap is shared
	}
	return cl.RedactError(err)
}

// upExitStatus is the "Exit status" section of the network subcommands' help.
const upExitStatus = `

Exit status:
  0  done: every link merged / exists (status), statuses refreshed (refresh),
     plan computed / PR opened or updated (pr)
  1  a gap or an upstream failure: a link not merged, missing or unknown (its
     state could not be read: fails closed), an API error, a blocked plan
  2  bad usage or input: flags, a malformed URL, an unreadable or non-regular
     input file (FIFO, device, directory, > 64 MiB), a broken snippet`

// newUpstreamCmd: `cookbook-sync upstream status URL… [--format text|json]`
// and `cookbook-sync upstream refresh FILE [--write] [--format text|json]`.
func newUpstreamCmd() *cobra.Command {
	c := &cobra.Command{
		Use:     "upstream",
		Example: exampleUpstream,
		Short:   "Merge state of upstream links; refresh AgentX provenance statuses",
		Long: `Talk to GitHub about the upstream material Check 3 cites.

  upstream status URL…   is each PR merged / each published page's source present?
  upstream refresh FILE  move an AgentX snippet's provenance statuses forward

The token, when needed, is read from GH_TOKEN or GITHUB_TOKEN. It is never
printed: any form of it in a server's answer or an error shows as ***.

Every request attempt is bounded by --timeout (default 30s) and every API call,
with its retries (--retries 0..10) and waits, by --call-timeout (default 2m).` + upExitStatus,
	}
	c.AddCommand(newUpstreamStatusCmd(), newUpstreamRefreshCmd())
	return groupCommand(c)
}

type upStatusOptions struct {
	upAPIOptions
	format string
}

func newUpstreamStatusCmd() *cobra.Command {
	var o upStatusOptions
	c := &cobra.Command{
		Use:     "status URL…",
		Example: exampleUpstreamStatus,
		Short:   "Print the merge state of PR links and whether published pages exist",
		Long: `For each URL print its state:

  PR (https://github.com/OWNER/NAME/pull/N)   open | draft | closed-unmerged | merged (with mergedAt)
  published page (docs.sglang.io/cookbook/…,  exists | missing: whether the source file the page is
  recipes.vllm.ai/ORG/MODEL)                  built from is on the default branch (upstream/pages.yaml)

A state that cannot be read (API error, malformed answer, branch/commit link)
is "unknown" and fails closed. A URL that is not an absolute http(s) URL
("not a url", file:///…) is bad usage.

Exit status:
  0  every link is merged / exists
  1  some link is open, draft, closed-unmerged, missing or unknown
  2  bad usage: no URL, a malformed or non-http(s) URL, a bad flag value`,
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
	for _, u := range urls {
		if err := upstream.CheckLinkURL(u); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	}
	cl, err := o.client()
	if err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return upRedacted(w, cl, func(w *bytes.Buffer) error {
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
	})
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
		Use:     "refresh FILE",
		Example: exampleUpstreamRefresh,
		Short:   "Update an AgentX snippet's provenance statuses from InferenceX PR and run states",
		Long: `Read an AgentX data file (docs/src/snippets/agentx/<org>/<model>.jsx), ask GitHub
for each cited InferenceX run and PR, and move statuses forward:
in-progress → verified-pr (the run succeeded) → verified (and the PR merged).
Only the status values change; every other byte is kept. Records that cannot
move (no run cited, run failed, PR closed) are listed.

Without --write the changes are only printed. With --write the file is
replaced atomically (temporary file fsynced, renamed, directory fsynced); a
symlink is written through to its target and stays a link. Nothing is written
that carries a secret: GH_TOKEN / GITHUB_TOKEN or any variable named *TOKEN*,
*SECRET*, *KEY*, *PASSWORD*, *CREDENTIAL* (as is, in another case, as a
fragment of 8+ characters, reversed, hex or base64), or a string shaped like
a GitHub token (ghp_…, github_pat_…).

Exit status:
  0  done (changes printed, or written with --write)
  1  an API failure: nothing written
  2  bad usage, an unreadable or non-regular file (FIFO, device, directory,
     > 64 MiB), a file that is not an AgentX snippet, or (--write) an update
     that would carry a secret: nothing written`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUpstreamRefresh(cmd.Context(), cmd.OutOrStdout(), args[0], o)
		},
	}
	o.register(c)
	c.Flags().BoolVar(&o.write, "write", false, "write the updated file in place (atomically, fsynced; through a symlink to its target)")
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
	return upRedacted(w, cl, func(w *bytes.Buffer) error { return upRefresh(ctx, w, cl, file, src, o) })
}

func upRefresh(ctx context.Context, w *bytes.Buffer, cl *upstream.Client, file string, src []byte, o upRefreshOptions) error {
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
		// Never write a secret: the token, another secret of the process,
		// as is or transformed, or a token-shaped string (package secrets).
		if err := cl.CheckSecrets(out); err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("%s:%w; nothing written", file, err)}
		}
		if err := writeAtomic(file, out); err != nil {
			return err // exit 4 (*writeError) or 2 (not an output file)
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

// upReadFile reads an input file with launch.ReadInput: a FIFO, a device
// or a directory is refused (never blocks), as is a file over 64 MiB.
func upReadFile(name string) ([]byte, error) {
	return launch.ReadInput(name)
}
