package upstream

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/secrets"
	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

// prAnswer is a GET pulls/{n} answer shaped like GitHub's.
func prAnswer(number int, repo, state string, merged any, mergedAt any) string {
	m := map[string]any{"number": number, "state": state, "title": "t", "draft": false,
		"base": map[string]any{"ref": "main", "repo": map[string]any{"full_name": repo}}}
	if merged != nil {
		m["merged"] = merged
	}
	if mergedAt != nil {
		m["merged_at"] = mergedAt
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestHostileMergeState: every inconsistent or misdirected answer about a
// PR's merge state — open (or merged false) with a merged_at, merged with
// state open, no merged_at, no merged field, an answer about another PR
// number or another repository, an answer after a redirect to another host
// or to another PR — is "unknown" with the reason, never merged (issue 10
// item 5). The published-page path fails closed the same way.
func TestHostileMergeState(t *testing.T) {
	const at = "2026-10-05T09:30:00Z"
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Another host answering "merged" for anything, with the right number.
		var n int
		fmt.Sscanf(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], "%d", &n)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, prAnswer(n, testRepo, "closed", true, at))
	}))
	t.Cleanup(other.Close)
	cases := []struct {
		name   string
		fault  fakegithub.Fault
		reason string
	}{
		{"state open + merged_at", fakegithub.Fault{Status: 200, Body: prAnswer(50001, testRepo, "open", false, at)}, "merged false with state \"open\" and merged_at 2026-10-05T09:30:00Z"},
		{"state open + merged true + merged_at", fakegithub.Fault{Status: 200, Body: prAnswer(50001, testRepo, "open", true, at)}, "merged true with state \"open\""},
		{"merged false + merged_at", fakegithub.Fault{Status: 200, Body: prAnswer(50001, testRepo, "closed", false, at)}, "merged false with state \"closed\""},
		{"merged true, no merged_at", fakegithub.Fault{Status: 200, Body: prAnswer(50001, testRepo, "closed", true, nil)}, "merged true with state \"closed\" and no merged_at"},
		{"merged true, merged_at null", fakegithub.Fault{Status: 200, Body: prAnswer(50001, testRepo, "closed", true, nil) + ""}, "no merged_at"},
		{"no merged field", fakegithub.Fault{Status: 200, Body: prAnswer(50001, testRepo, "closed", nil, at)}, `no "merged" field`},
		{"state merged", fakegithub.Fault{Status: 200, Body: prAnswer(50001, testRepo, "merged", true, at)}, `unexpected state "merged"`},
		{"other number", fakegithub.Fault{Status: 200, Body: prAnswer(45111, testRepo, "closed", true, at)}, "about PR #45111, not #50001"},
		{"other repository", fakegithub.Fault{Status: 200, Body: prAnswer(50001, "evil/sglang", "closed", true, at)}, `about a PR of "evil/sglang", not of sgl-project/sglang`},
		{"no repository", fakegithub.Fault{Status: 200, Body: `{"number":50001,"state":"closed","merged":true,"merged_at":"` + at + `"}`}, "does not say which repository"},
		{"redirect to another host", fakegithub.Fault{Status: 302, Header: map[string]string{"Location": other.URL + "/repos/sgl-project/sglang/pulls/50001"}}, "redirect to " + other.URL + " refused"},
		{"redirect to another PR", fakegithub.Fault{Status: 301, Header: map[string]string{"Location": "/repos/sgl-project/sglang/pulls/45111"}}, "about PR #45111, not #50001"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := statusFake(t)
			f := tc.fault
			f.Path, f.Count = `/pulls/50001$`, -1
			s.AddFault(&f)
			c, _ := newClient(t, s, testToken)
			link := "https://github.com/sgl-project/sglang/pull/50001"
			st, err := c.Status(context.Background(), link)
			if err == nil || st.State != StateUnknown || st.OK() || st.MergedAt != nil {
				t.Fatalf("got %+v, err %v: want unknown with an error", st, err)
			}
			if !strings.Contains(err.Error(), tc.reason) || !strings.Contains(err.Error(), "merge state un") {
				t.Errorf("error %q lacks the reason %q", err, tc.reason)
			}
			rs := c.StatusAll(context.Background(), []string{"https://github.com/sgl-project/sglang/pull/45111", link})
			if AllOK(rs) || !rs[0].OK() || rs[1].State != StateUnknown {
				t.Errorf("StatusAll: %+v", rs)
			}
			// The merged PR of the fake stays merged: the checks are not
			// blanket refusals.
			if st, err := c.Status(context.Background(), "https://github.com/sgl-project/sglang/pull/45111"); err != nil || st.State != StateMerged {
				t.Errorf("real merged PR: %+v %v", st, err)
			}
		})
	}
	// The token never followed the redirect to the other host.
	// (Go drops Authorization on a cross-host redirect, and it is refused
	// before being sent.)

	// Published pages: an answer about another repository, about another
	// file, or after a redirect to another host is unknown, not "exists".
	pageCases := []struct {
		name   string
		fault  fakegithub.Fault
		reason string
	}{
		{"repo answer about another repo", fakegithub.Fault{Path: `^/repos/sgl-project/sglang$`, Status: 200,
			Body: `{"full_name":"evil/sglang","default_branch":"main"}`}, `the answer is about "evil/sglang"`},
		{"contents answer about another file", fakegithub.Fault{Path: `/contents/`, Status: 200,
			Body: `{"type":"file","path":"README.md","sha":"0123456789abcdef0123456789abcdef01234567","encoding":"base64","content":""}`}, `the answer is about "README.md"`},
		{"contents of type symlink", fakegithub.Fault{Path: `/contents/`, Status: 200,
			Body: `{"type":"symlink","path":"docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx","sha":"0123456789abcdef0123456789abcdef01234567","target":"x"}`}, `of type "symlink"`},
		{"contents redirected to another host", fakegithub.Fault{Path: `/contents/`, Status: 307,
			Header: map[string]string{"Location": other.URL + "/x"}}, "refused"},
	}
	for _, tc := range pageCases {
		t.Run(tc.name, func(t *testing.T) {
			s := statusFake(t)
			f := tc.fault
			f.Count = -1
			s.AddFault(&f)
			c, _ := newClient(t, s, "")
			st, err := c.Status(context.Background(), "https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5")
			if err == nil || st.OK() || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("got %+v, err %v: want not OK with %q", st, err, tc.reason)
			}
			if rs := c.StatusAll(context.Background(), []string{st.URL}); rs[0].State != StateUnknown || AllOK(rs) {
				t.Errorf("StatusAll: %+v", rs)
			}
		})
	}
}

// TestHostilePostRetry: a write whose answer is a 502 may or may not have
// taken effect. Apply never repeats a ref or PR creation blindly and never
// calls a 502 "branch moved by someone else": it reads the state back, then
// decides (issue 10 item 5).
func TestHostilePostRetry(t *testing.T) {
	gw := `{"message":"Bad Gateway"}`
	type check func(t *testing.T, s *fakegithub.Server, res *ApplyResult, err error)
	count := func(s *fakegithub.Server, method, suffix string) int {
		n := 0
		for _, r := range s.Recorded() {
			if r.Method == method && strings.HasSuffix(strings.SplitN(r.URL, "?", 2)[0], suffix) {
				n++
			}
		}
		return n
	}
	// readBackBefore checks that after the first failed write to suffix, a
	// GET of readSuffix came before any further write to it.
	readBackBefore := func(t *testing.T, s *fakegithub.Server, method, suffix, readSuffix string) {
		t.Helper()
		failed := false
		for _, r := range s.Recorded() {
			path := strings.SplitN(r.URL, "?", 2)[0]
			switch {
			case r.Method == method && strings.HasSuffix(path, suffix) && r.Status >= 500:
				failed = true
			case failed && r.Method == http.MethodGet && strings.HasSuffix(path, readSuffix):
				return
			case failed && r.Method == method && strings.HasSuffix(path, suffix):
				t.Errorf("%s %s sent again before reading %s back", method, suffix, readSuffix)
				return
			}
		}
		if !failed {
			t.Errorf("no failed %s %s", method, suffix)
		} else {
			t.Errorf("no read-back GET …%s after the failed %s", readSuffix, method)
		}
	}
	cases := []struct {
		name   string
		second bool // fault on the second apply (the branch exists: PATCH)
		fault  fakegithub.Fault
		check  check
	}{
		{"create ref: 502 after it landed", false, fakegithub.Fault{Method: "POST", Path: `/git/refs$`, Count: 1, Status: 502, Body: gw, After: true},
			func(t *testing.T, s *fakegithub.Server, res *ApplyResult, err error) {
				if err != nil || res.PR != 1 || !res.Created {
					t.Fatalf("%+v %v", res, err)
				}
				if n := count(s, "POST", "/git/refs"); n != 1 {
					t.Errorf("%d POST git/refs, want 1 (no blind retry)", n)
				}
				readBackBefore(t, s, "POST", "/git/refs", "/git/ref/heads/cookbook-sync/qwen/qwen3.5")
			}},
		{"create ref: 502, did not land", false, fakegithub.Fault{Method: "POST", Path: `/git/refs$`, Count: 1, Status: 502, Body: gw},
			func(t *testing.T, s *fakegithub.Server, res *ApplyResult, err error) {
				if err != nil || res.PR != 1 {
					t.Fatalf("%+v %v", res, err)
				}
				if n := count(s, "POST", "/git/refs"); n != 2 {
					t.Errorf("%d POST git/refs, want 2 (retried after reading it back)", n)
				}
				readBackBefore(t, s, "POST", "/git/refs", "/git/ref/heads/cookbook-sync/qwen/qwen3.5")
			}},
		{"move ref: 502 after it landed", true, fakegithub.Fault{Method: "PATCH", Path: `/git/refs/`, Count: 1, Status: 502, Body: gw, After: true},
			func(t *testing.T, s *fakegithub.Server, res *ApplyResult, err error) {
				if err != nil || res.Commit == "" || res.Head != res.Commit {
					t.Fatalf("%+v %v", res, err)
				}
				if n := count(s, "PATCH", "/git/refs/heads/cookbook-sync/qwen/qwen3.5"); n != 1 {
					t.Errorf("%d PATCH git/refs, want 1", n)
				}
				if got, _ := s.File(testRepo, "cookbook-sync/qwen/qwen3.5", snippet); got != "v2\n" {
					t.Errorf("branch holds %q", got)
				}
				readBackBefore(t, s, "PATCH", "/git/refs/heads/cookbook-sync/qwen/qwen3.5", "/git/ref/heads/cookbook-sync/qwen/qwen3.5")
			}},
		{"open PR: 502 after it was opened", false, fakegithub.Fault{Method: "POST", Path: `/pulls$`, Count: 1, Status: 502, Body: gw, After: true},
			func(t *testing.T, s *fakegithub.Server, res *ApplyResult, err error) {
				if err != nil || res.PR != 1 || res.URL == "" {
					t.Fatalf("%+v %v", res, err)
				}
				if n := len(s.Repos[testRepo].Pulls); n != 1 {
					t.Errorf("%d PRs", n)
				}
				if n := count(s, "POST", "/pulls"); n != 1 {
					t.Errorf("%d POST pulls, want 1", n)
				}
				readBackBefore(t, s, "POST", "/pulls", "/pulls")
			}},
		{"open PR: 502, not opened", false, fakegithub.Fault{Method: "POST", Path: `/pulls$`, Count: 1, Status: 502, Body: gw},
			func(t *testing.T, s *fakegithub.Server, res *ApplyResult, err error) {
				if err != nil || res.PR != 1 || len(s.Repos[testRepo].Pulls) != 1 || count(s, "POST", "/pulls") != 2 {
					t.Fatalf("%+v %v, %d POST pulls", res, err, count(s, "POST", "/pulls"))
				}
				readBackBefore(t, s, "POST", "/pulls", "/pulls")
			}},
		{"move ref: 502 forever", true, fakegithub.Fault{Method: "PATCH", Path: `/git/refs/`, Count: -1, Status: 502, Body: gw},
			func(t *testing.T, s *fakegithub.Server, res *ApplyResult, err error) {
				if err == nil || errors.Is(err, ErrBranchMoved) || strings.Contains(err.Error(), "moved") || !strings.Contains(err.Error(), "502") ||
					!strings.Contains(err.Error(), "still at") {
					t.Fatalf("want a 502 failure, not a moved branch: %v", err)
				}
				if n := count(s, "PATCH", "/git/refs/heads/cookbook-sync/qwen/qwen3.5"); n != 5 {
					t.Errorf("%d PATCHes, want 1 + 4 retries", n)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newFake(t)
			c, _ := newClient(t, s, testToken)
			if tc.second {
				if _, _, err := planApply(t, c, input("v1\n")); err != nil {
					t.Fatal(err)
				}
			}
			f := tc.fault
			s.AddFault(&f)
			s.Mu.Lock()
			s.Requests = nil
			s.Mu.Unlock()
			content := "v1\n"
			if tc.second {
				content = "v2\n"
			}
			_, res, err := planApply(t, c, input(content))
			tc.check(t, s, res, err)
		})
	}
	// A real foreign push between plan and apply is still "moved".
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	if _, _, err := planApply(t, c, input("v1\n")); err != nil {
		t.Fatal(err)
	}
	p, err := c.Plan(context.Background(), input("v2\n"))
	if err != nil {
		t.Fatal(err)
	}
	s.Commit(testRepo, "cookbook-sync/qwen/qwen3.5", "octocat", "mine\n", map[string]string{"x": "y\n"})
	if _, err := c.Apply(context.Background(), p); !errors.Is(err, ErrBranchMoved) {
		t.Errorf("foreign push: %v, want ErrBranchMoved", err)
	}
}

// TestHostileRefuseSecretOutput: Plan and Apply refuse to push a file that
// carries the token (as is or transformed), another secret of the process
// (Options.Secrets), or a GitHub token-shaped string of another run; the
// error names the file, the position and the kind, never the value, and no
// request is sent (issue 10 item 4).
func TestHostileRefuseSecretOutput(t *testing.T) {
	const cloud = "AKIAxQ7hostileCLOUDkey93"
	foreign := "ghs_" + strings.Repeat("Fo9", 12)
	cases := []struct{ name, content, kind string }{
		{"token", "t = " + testToken + "\n", "GitHub token"},
		{"token hex", "x\nt = " + hex.EncodeToString([]byte(testToken)) + "\n", "GH_TOKEN"},
		{"token reversed", "t = '" + reverse(testToken) + "'\n", "GH_TOKEN"},
		{"token prefix", "t = '" + testToken[:12] + "'\n", "GH_TOKEN"},
		{"token upper", "t = '" + strings.ToUpper(testToken) + "'\n", "GH_TOKEN"},
		{"cloud key base64", "k: " + base64.StdEncoding.EncodeToString([]byte(cloud)) + "\n", "AWS_SECRET_ACCESS_KEY (base64-encoded"},
		{"cloud key fragment", "k: " + cloud[3:15] + "\n", "AWS_SECRET_ACCESS_KEY"},
		{"another run's token", "a\nb\n  \"--tokenizer-path\": \"" + foreign + "\"\n", "a GitHub token-shaped string (ghs_…)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newFake(t)
			c, err := New(Options{APIURL: s.URL, Token: testToken, Sleep: (&sleepRec{}).sleep,
				Secrets: []secrets.Secret{{Name: "GH_TOKEN", Value: testToken}, {Name: "AWS_SECRET_ACCESS_KEY", Value: cloud}, {Name: "GITHUB_SHA", Value: "not-checked-by-name-here"}}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Plan(context.Background(), input(tc.content))
			var ie *InputError
			if !errors.As(err, &ie) || !errors.Is(err, secrets.ErrSecret) {
				t.Fatalf("plan: %v, want an InputError wrapping secrets.ErrSecret", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "file "+snippet+":") || !strings.Contains(msg, tc.kind) {
				t.Errorf("plan error %q: want the file and %q", msg, tc.kind)
			}
			for _, v := range []string{testToken, cloud, foreign} {
				for k := 0; k+secrets.MinLen <= len(v); k++ {
					if strings.Contains(msg, v[k:k+secrets.MinLen]) {
						t.Fatalf("the error carries a secret: %q", msg)
					}
				}
			}
			if n := len(s.Recorded()); n != 0 {
				t.Errorf("%d requests sent for a refused file", n)
			}
			// A saved plan edited to carry the secret is refused by Apply
			// before any write.
			p, err := c.Plan(context.Background(), input("v1\n"))
			if err != nil {
				t.Fatal(err)
			}
			p.Files[0].New = tc.content
			if _, err := c.Apply(context.Background(), p); !errors.As(err, &ie) || !errors.Is(err, secrets.ErrSecret) {
				t.Errorf("apply: %v", err)
			}
			for _, r := range s.Recorded() {
				if r.Method != http.MethodGet {
					t.Errorf("write sent for a refused plan: %s %s", r.Method, r.URL)
				}
			}
		})
	}
}

// TestHostileRedactionServerEcho: a server echoing transformed forms of the
// token (hex, reversed, a 12-character prefix, upper-cased) and of another secret in an
// error message never gets them into an error or a LinkResult.
func TestHostileRedactionServerEcho(t *testing.T) {
	const cloud = "AKIAxQ7hostileCLOUDkey93"
	s := statusFake(t)
	body := fmt.Sprintf(`{"message":"denied %s %s %s %s %s"}`, hex.EncodeToString([]byte(testToken)), reverse(testToken), testToken[:secrets.FragLen],
		strings.ToUpper(testToken), base64.RawURLEncoding.EncodeToString([]byte(cloud[2:])))
	s.AddFault(&fakegithub.Fault{Path: `/pulls/1$`, Count: -1, Status: 403, Body: body})
	c, err := New(Options{APIURL: s.URL, Token: testToken, Secrets: []secrets.Secret{{Name: "CLOUD_KEY", Value: cloud}}, Sleep: (&sleepRec{}).sleep,
		Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	rs := c.StatusAll(context.Background(), []string{"https://github.com/sgl-project/sglang/pull/1"})
	b, _ := json.Marshal(rs)
	text := rs[0].Err.Error() + string(b)
	for _, v := range []string{testToken, cloud} {
		if strings.Contains(text, strings.ToUpper(v)) {
			t.Fatalf("upper-cased echo of %q survives:\n%s", v, text)
		}
		for k := 0; k+secrets.FragLen <= len(v); k++ {
			for _, form := range []string{v[k : k+secrets.FragLen], reverse(v[k : k+secrets.FragLen])} {
				if strings.Contains(text, form) {
					t.Fatalf("echo %q survives:\n%s", form, text)
				}
			}
		}
	}
	if strings.Contains(text, hex.EncodeToString([]byte(testToken))[:16]) || !strings.Contains(text, "denied ***") {
		t.Errorf("hex echo survives or nothing redacted:\n%s", text)
	}
}

func reverse(s string) string {
	r := []rune(s)
	for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
		r[a], r[b] = r[b], r[a]
	}
	return string(r)
}
