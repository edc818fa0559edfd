package main

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

// cliEchoBody is an API error answer that echoes the Authorization header
// ($AUTH, filled in by the fake from the request) and carries the URL-escaped
// token and the base64 basic-auth credential "x-access-token:<token>".
func cliEchoBody() string {
	return fmt.Sprintf(`{"message":"Denied for $AUTH (basic %s; q=%s)","documentation_url":"$AUTH"}`,
		base64.StdEncoding.EncodeToString([]byte("x-access-token:"+cliToken)), url.QueryEscape(cliToken))
}

// cliLeaks lists the forms of cliToken found in text.
func cliLeaks(text string) []string {
	var out []string
	for _, f := range []string{cliToken, cliToken[4:20], url.QueryEscape(cliToken),
		base64.StdEncoding.EncodeToString([]byte("x-access-token:" + cliToken)), base64.StdEncoding.EncodeToString([]byte(cliToken))} {
		if strings.Contains(text, f) {
			out = append(out, f)
		}
	}
	return out
}

// TestCLITokenNeverPrinted: against a server that echoes the Authorization
// header into 404, 422 and 500 messages (and into a PR title), upstream
// status (text, json), upstream refresh (text, json), pr plan (diff, json)
// and pr apply (text, json) print the token nowhere — stdout, stderr or JSON —
// and show *** where the server echoed it.
func TestCLITokenNeverPrinted(t *testing.T) {
	t.Setenv("GH_TOKEN", cliToken)
	t.Setenv("GITHUB_TOKEN", "")
	dir := t.TempDir()
	local := filepath.Join(dir, "qwen3.5.jsx")
	os.WriteFile(local, []byte(cliSnippetText("v1")), 0o644)
	refreshFile := filepath.Join(dir, "agentx.jsx")
	src, err := os.ReadFile("../../upstream/testdata/refresh/agentx.jsx")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(refreshFile, src, 0o644)

	type run struct {
		name  string
		fault *fakegithub.Fault
		args  []string
		code  int
	}
	var runs []run
	for _, status := range []int{404, 422, 500} {
		for _, format := range []string{"text", "json"} {
			runs = append(runs,
				run{fmt.Sprintf("status %d %s", status, format), &fakegithub.Fault{Path: `/pulls/1$`, Status: status},
					[]string{"upstream", "status", "--format", format, "https://github.com/sgl-project/sglang/pull/1"}, 1},
				run{fmt.Sprintf("refresh %d %s", status, format), &fakegithub.Fault{Path: `/actions/runs/`, Status: status},
					[]string{"upstream", "refresh", "--format", format, refreshFile}, 1})
		}
		for _, format := range []string{"diff", "json"} {
			runs = append(runs, run{fmt.Sprintf("plan %d %s", status, format), &fakegithub.Fault{Method: "GET", Path: `/pulls$`, Status: status},
				[]string{"pr", "plan", "--format", format, "--repo", cliRepo, "--model", "Qwen/qwen3.5", "--file", cliSnippet + "=" + local}, 1})
		}
	}
	for _, format := range []string{"text", "json"} {
		for _, f := range []*fakegithub.Fault{{Method: "POST", Path: `/pulls$`, Status: 422}, {Method: "POST", Path: `/git/blobs$`, Status: 500},
			{Method: "POST", Path: `/git/refs$`, Status: 404}} {
			runs = append(runs, run{"apply " + f.Path + " " + format, f,
				[]string{"pr", "apply", "--format", format, "--repo", cliRepo, "--model", "Qwen/qwen3.5", "--file", cliSnippet + "=" + local}, 1})
		}
	}
	for _, r := range runs {
		s := cliFake(t)
		s.AddRepo("SemiAnalysisAI/InferenceX", "main", nil)
		r.fault.Count, r.fault.Body = -1, cliEchoBody()
		s.AddFault(r.fault)
		args := append(append([]string{}, r.args[:2]...), append([]string{"--api-url", s.URL, "--retries", "0"}, r.args[2:]...)...)
		code, out, errOut := cliRun(t, args...)
		if code != r.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", r.name, code, r.code, out, errOut)
		}
		if l := cliLeaks(out + errOut); len(l) > 0 {
			t.Errorf("%s: output contains the token %q\n%s%s", r.name, l, out, errOut)
		}
		if !strings.Contains(out+errOut, "Bearer ***") {
			t.Errorf("%s: want the echoed header as \"Bearer ***\"\n%s%s", r.name, out, errOut)
		}
	}
	// A 200 answer echoing the header in the PR title: redacted in text and JSON.
	s := cliFake(t)
	s.AddFault(&fakegithub.Fault{Path: `/pulls/7$`, Count: -1, Status: 200,
		Body: `{"number":7,"state":"closed","merged":true,"merged_at":"2026-01-01T00:00:00Z","title":"$AUTH","base":{"repo":{"full_name":"sgl-project/sglang"}}}`})
	code, out, errOut := cliRun(t, "upstream", "status", "--api-url", s.URL, "--format", "json", "https://github.com/sgl-project/sglang/pull/7")
	if code != 0 || len(cliLeaks(out+errOut)) > 0 || !strings.Contains(out, `"title": "Bearer ***"`) {
		t.Errorf("title echo: exit %d\n%s%s", code, out, errOut)
	}
}

// TestUpstreamUsageErrors: malformed links, out-of-range --retries and
// timeouts are bad usage (exit 2) with a message naming the problem, and no
// request is sent.
func TestUpstreamUsageErrors(t *testing.T) {
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	s := cliFake(t)
	pr := "https://github.com/sgl-project/sglang/pull/1"
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"not a url"}, `link "not a url": not an http(s) URL`},
		{[]string{"file:///etc/passwd"}, `link "file:///etc/passwd": not an http(s) URL`},
		{[]string{pr, "ftp://github.com/a/b/pull/1"}, `link "ftp://github.com/a/b/pull/1": not an http(s) URL`},
		{[]string{"github.com/a/b/pull/1"}, "not an http(s) URL"},
		{[]string{"--retries", "11", pr}, "--retries 11: want 0..10"},
		{[]string{"--retries", "1000000", pr}, "--retries 1000000: want 0..10"},
		{[]string{"--retries", "-1", pr}, "--retries -1: want 0..10"},
		{[]string{"--timeout", "-1s", pr}, "--timeout -1s"},
		{[]string{"--call-timeout", "2h", pr}, "--call-timeout 2h0m0s"},
	} {
		args := append([]string{"upstream", "status", "--api-url", s.URL}, c.args...)
		code, out, errOut := cliRun(t, args...)
		if code != 2 || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s%s", c.args, code, c.msg, out, errOut)
		}
	}
	if n := len(s.Recorded()); n != 0 {
		t.Errorf("%d requests sent for bad usage", n)
	}
	// A well-formed https link that is not a PR or page stays "unknown" (exit 1).
	if code, out, _ := cliRun(t, "upstream", "status", "--api-url", s.URL, "https://github.com/sgl-project/sglang/tree/main"); code != 1 || !strings.HasPrefix(out, "unknown ") {
		t.Errorf("branch link: exit %d\n%s", code, out)
	}
}

// TestUpstreamRetriesEndOnRefusedPort: the maximum --retries against a
// refused port ends (bounded by --call-timeout) with exit 1.
func TestUpstreamRetriesEndOnRefusedPort(t *testing.T) {
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	code, out, errOut := cliRun(t, "upstream", "status", "--api-url", "http://127.0.0.1:1/", "--retries", "10", "--call-timeout", "300ms",
		"https://github.com/sgl-project/sglang/pull/1")
	if code != 1 || !strings.HasPrefix(out, "unknown ") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	// The report is the message: exit 1 adds no "gap found" line on stderr.
	if strings.Contains(errOut, "gap found") {
		t.Errorf("stderr repeats the gap: %q", errOut)
	}
}

// TestUpstreamInputsNotRegular: a FIFO or a directory given as an input file
// (pr --file, --coverage, --plan; upstream refresh) is refused with exit 2
// instead of blocking.
func TestUpstreamInputsNotRegular(t *testing.T) {
	t.Setenv("GH_TOKEN", cliToken)
	t.Setenv("GITHUB_TOKEN", "")
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs:", err)
	}
	local := filepath.Join(dir, "s.jsx")
	os.WriteFile(local, []byte(cliSnippetText("v1")), 0o644)
	api := "http://127.0.0.1:1/"
	base := []string{"--api-url", api, "--repo", cliRepo, "--model", "Qwen/qwen3.5"}
	for _, bad := range []string{fifo, dir} {
		for _, args := range [][]string{
			append([]string{"pr", "plan"}, append(base, "--file", cliSnippet+"="+bad)...),
			append([]string{"pr", "plan"}, append(base, "--file", cliSnippet+"="+local, "--coverage", bad)...),
			{"pr", "apply", "--api-url", api, "--plan", bad},
			{"upstream", "refresh", "--api-url", api, bad},
		} {
			done := make(chan struct{})
			var code int
			var errOut string
			go func() {
				defer close(done)
				code, _, errOut = cliRun(t, args...)
			}()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("%v: still reading after 30 s", args)
			}
			if code != 2 || !strings.Contains(errOut, bad) {
				t.Errorf("%v: exit %d, want 2 naming the file\n%s", args, code, errOut)
			}
		}
	}
}

// TestPRPlanInputChecks: pr plan refuses bad input with exit 2 and a clear
// message before asking GitHub: a missing or non-git --checkout, a broken
// AgentX snippet (file:line:col), a binary --coverage, a multi-line --title,
// a non-hex --inferencex-sha and a --run that is neither a run id nor a run URL.
func TestPRPlanInputChecks(t *testing.T) {
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	s := cliFake(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsx")
	os.WriteFile(good, []byte(cliSnippetText("v1")), 0o644)
	full := cliSnippetText("v1")
	trunc := filepath.Join(dir, "trunc.jsx")
	os.WriteFile(trunc, []byte(full[:len(full)/2]), 0o644)
	bin := filepath.Join(dir, "cov.bin")
	os.WriteFile(bin, []byte("agg: covered\n\x00\xff\xfe\x89PNG"), 0o644)
	notGit := t.TempDir()
	base := []string{"pr", "plan", "--api-url", s.URL, "--repo", cliRepo, "--model", "Qwen/qwen3.5"}
	for _, c := range []struct {
		args []string
		msg  string // regexp
	}{
		{[]string{"--file", cliSnippet + "=" + good, "--checkout", filepath.Join(dir, "nowhere")}, `--checkout .*nowhere: not a directory`},
		{[]string{"--file", cliSnippet + "=" + good, "--checkout", notGit}, `checkout .*: not a git checkout: repository does not exist`},
		{[]string{"--file", cliSnippet + "=" + trunc}, `not a valid AgentX snippet: ` + regexp.QuoteMeta(trunc) + `:\d+:\d+: `},
		{[]string{"--file", cliSnippet + "=" + good, "--coverage", bin}, `--coverage .*cov\.bin: coverage summary: not UTF-8 text`},
		{[]string{"--file", cliSnippet + "=" + good, "--title", "a\nb"}, `--title: .*line break`},
		{[]string{"--file", cliSnippet + "=" + good, "--inferencex-sha", "zz"}, `--inferencex-sha: .*7 to 40 hexadecimal`},
		{[]string{"--file", cliSnippet + "=" + good, "--run", "not-a-run"}, `--run: run "not-a-run": want a run id`},
	} {
		code, out, errOut := cliRun(t, append(append([]string{}, base...), c.args...)...)
		if code != 2 || !regexp.MustCompile(c.msg).MatchString(errOut) {
			t.Errorf("%v: exit %d, want 2 and /%s/\n%s%s", c.args, code, c.msg, out, errOut)
		}
	}
	if n := len(s.Recorded()); n != 0 {
		t.Errorf("%d requests sent for bad input", n)
	}
	// A non-snippet path is not parsed as a snippet; a run URL and a short sha pass.
	code, out, errOut := cliRun(t, append(append([]string{}, base...), "--file", "README.md="+trunc,
		"--run", "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/37714835620", "--inferencex-sha", "ceb50ba")...)
	if code != 0 || !strings.Contains(out, "# action: create") {
		t.Errorf("README.md: exit %d\n%s%s", code, out, errOut)
	}
}

// TestUpstreamHelpExitStatus: every upstream and pr subcommand documents its
// exit status.
func TestUpstreamHelpExitStatus(t *testing.T) {
	for _, args := range [][]string{{"upstream"}, {"upstream", "status"}, {"upstream", "refresh"}, {"pr"}, {"pr", "plan"}, {"pr", "apply"}} {
		code, out, errOut := cliRun(t, append(args, "--help")...)
		if code != 0 || !strings.Contains(out, "Exit status:\n  0  ") || !strings.Contains(out, "\n  2  ") {
			t.Errorf("%v --help: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}
