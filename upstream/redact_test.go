package upstream

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

// leakForms are the forms of testToken no output may contain: the token,
// its URL escaping (the same for this token), and the base64 of the basic-auth
// credential the checkout path sends.
func leakForms(tok string) []string {
	return []string{tok, url.QueryEscape(tok), base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok)),
		base64.StdEncoding.EncodeToString([]byte(tok))}
}

// echoBody is an error answer that echoes the Authorization header (the fake
// replaces $AUTH) and carries the other forms of tok in the message and the
// documentation URL.
func echoBody(tok string) string {
	return fmt.Sprintf(`{"message":"Bad request from $AUTH (basic %s, %s)","documentation_url":"https://docs.example/?t=%s"}`,
		base64.StdEncoding.EncodeToString([]byte("x-access-token:"+tok)), base64.URLEncoding.EncodeToString([]byte(tok)), url.QueryEscape(tok))
}

func assertRedacted(t *testing.T, what, text string) {
	t.Helper()
	for _, f := range leakForms(testToken) {
		if strings.Contains(text, f) {
			t.Errorf("%s contains the token (form %q):\n%s", what, f, text)
		}
	}
	if !strings.Contains(text, Redacted) {
		t.Errorf("%s: want %q where the server echoed the token:\n%s", what, Redacted, text)
	}
}

func TestRedactorForms(t *testing.T) {
	tok := "ghp_a+b/c=d&e" // escaping changes it
	r := newRedactor(tok)
	qs := url.QueryEscape(tok)
	ps := url.PathEscape(tok)
	js, _ := json.Marshal(tok)
	b64 := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + tok))
	raw64 := base64.RawURLEncoding.EncodeToString([]byte("x-access-token:" + tok))
	tokb64 := base64.StdEncoding.EncodeToString([]byte(tok))
	in := strings.Join([]string{"Bearer " + tok, "?access_token=" + qs, "/p/" + ps, "json " + string(js), "Basic " + b64, raw64, tokb64}, " | ")
	got := r.String(in)
	want := `Bearer *** | ?access_token=*** | /p/*** | json "***" | Basic *** | *** | ***`
	if got != want {
		t.Errorf("redacted\n got %s\nwant %s", got, want)
	}
	if string(r.Bytes([]byte(in))) != want {
		t.Errorf("Bytes differs from String")
	}
	if newRedactor("").String(in) != in {
		t.Error("no token: text changed")
	}
	err := r.wrap(fmt.Errorf("x: %w", &InputError{errors.New("boom " + tok)}))
	var ie *InputError
	if err.Error() != "x: boom ***" || !errors.As(err, &ie) {
		t.Errorf("wrap: %q, InputError kept: %v", err, errors.As(err, &ie))
	}
}

// TestTokenNotInStatusErrors: a server echoing the Authorization header (and
// the URL-escaped and base64 forms of the token) in 404, 422 and 500 messages
// never gets the token into an error, a LinkResult or its JSON; *** stands in.
func TestTokenNotInStatusErrors(t *testing.T) {
	for _, status := range []int{404, 422, 500} {
		s := newFake(t)
		c, _ := newClient(t, s, testToken)
		s.AddFault(&fakegithub.Fault{Path: `/pulls/1$`, Count: -1, Status: status, Body: echoBody(testToken)})
		// A title carrying the token (a 200 answer) is redacted too.
		s.AddFault(&fakegithub.Fault{Path: `/pulls/2$`, Count: -1, Status: 200,
			Body: `{"number":2,"state":"open","draft":false,"merged":false,"title":"$AUTH","base":{"repo":{"full_name":"sgl-project/sglang"}}}`})
		rs := c.StatusAll(context.Background(), []string{"https://github.com/sgl-project/sglang/pull/1", "https://github.com/sgl-project/sglang/pull/2"})
		if rs[0].Err == nil || rs[0].State != StateUnknown || rs[1].State != StateOpen {
			t.Fatalf("%d: %+v", status, rs)
		}
		assertRedacted(t, fmt.Sprintf("%d error", status), rs[0].Err.Error())
		assertRedacted(t, fmt.Sprintf("%d title", status), rs[1].Title)
		b, _ := json.Marshal(rs)
		assertRedacted(t, fmt.Sprintf("%d JSON", status), string(b))
	}
}

// TestTokenNotInRefreshErrors: the same for Refresh.
func TestTokenNotInRefreshErrors(t *testing.T) {
	src, err := os.ReadFile("testdata/refresh/agentx.jsx")
	if err != nil {
		t.Fatal(err)
	}
	for _, status := range []int{404, 422, 500} {
		s := fakegithub.New()
		t.Cleanup(s.Close)
		s.AddRepo(ixRepo, "main", nil)
		s.AddFault(&fakegithub.Fault{Path: `/actions/runs/`, Count: -1, Status: status, Body: echoBody(testToken)})
		c, _ := newClient(t, s, testToken)
		_, _, err := c.Refresh(context.Background(), src)
		if err == nil {
			t.Fatalf("%d: no error", status)
		}
		assertRedacted(t, fmt.Sprintf("refresh %d", status), err.Error())
	}
}

// TestTokenNotInPlanApplyErrors: Plan failing on a 404/422/500 that echoes
// the header, and Apply failing on a write (blob 500, ref 422, PR 422), never
// show the token; the plan and its JSON never carry it either.
func TestTokenNotInPlanApplyErrors(t *testing.T) {
	for _, status := range []int{404, 422, 500} {
		s := newFake(t)
		c, _ := newClient(t, s, testToken)
		s.AddFault(&fakegithub.Fault{Method: "GET", Path: `/pulls$`, Count: -1, Status: status, Body: echoBody(testToken)})
		_, err := c.Plan(context.Background(), input("v1\n"))
		if err == nil {
			t.Fatalf("plan %d: no error", status)
		}
		assertRedacted(t, fmt.Sprintf("plan %d", status), err.Error())
	}
	for _, f := range []*fakegithub.Fault{
		{Method: "POST", Path: `/git/blobs$`, Status: 500},
		{Method: "POST", Path: `/git/refs$`, Status: 422},
		{Method: "POST", Path: `/pulls$`, Status: 422},
	} {
		s := newFake(t)
		c, _ := newClient(t, s, testToken)
		f.Count, f.Body = -1, echoBody(testToken)
		s.AddFault(f)
		p, err := c.Plan(context.Background(), input("v1\n"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(p)
		for _, form := range leakForms(testToken) {
			if strings.Contains(string(b)+p.Diff(), form) {
				t.Errorf("plan carries the token")
			}
		}
		res, err := c.Apply(context.Background(), p)
		if err == nil {
			t.Fatalf("apply with %s %s failing: %+v", f.Method, f.Path, res)
		}
		assertRedacted(t, "apply "+f.Path, err.Error())
		rb, _ := json.Marshal(res)
		for _, form := range leakForms(testToken) {
			if strings.Contains(string(rb), form) {
				t.Errorf("apply result carries the token: %s", rb)
			}
		}
	}
}

// TestPlanRefusesToPublishToken: a file, title or evidence carrying the
// token is refused as bad input before any request.
func TestPlanRefusesToPublishToken(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	for name, in := range map[string]PlanInput{
		"file":     input("token = " + testToken + "\n"),
		"title":    func() PlanInput { in := input("v1\n"); in.Title = "x " + testToken; return in }(),
		"coverage": func() PlanInput { in := input("v1\n"); in.Evidence.Coverage = "a\n" + testToken; return in }(),
	} {
		_, err := c.Plan(context.Background(), in)
		var ie *InputError
		if !errors.As(err, &ie) || strings.Contains(err.Error(), testToken) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n := len(s.Recorded()); n != 0 {
		t.Errorf("%d requests sent for refused input", n)
	}
}

// TestPlanInputChecks: title, InferenceX sha, runs and coverage are checked
// (InputError) before any request.
func TestPlanInputChecks(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, "")
	bad := map[string]func(*PlanInput){
		"title newline":   func(in *PlanInput) { in.Title = "a\nb" },
		"title long":      func(in *PlanInput) { in.Title = strings.Repeat("x", 257) },
		"sha zz":          func(in *PlanInput) { in.Evidence.InferenceXSHA = "zz" },
		"sha short":       func(in *PlanInput) { in.Evidence.InferenceXSHA = "abc123" },
		"sha 41":          func(in *PlanInput) { in.Evidence.InferenceXSHA = strings.Repeat("a", 41) },
		"run word":        func(in *PlanInput) { in.Evidence.Runs = []string{"not-a-run"} },
		"run other url":   func(in *PlanInput) { in.Evidence.Runs = []string{"https://github.com/o/n/pull/3"} },
		"run file url":    func(in *PlanInput) { in.Evidence.Runs = []string{"file:///actions/runs/1"} },
		"coverage binary": func(in *PlanInput) { in.Evidence.Coverage = "ok\x00\xff" },
		"coverage NUL":    func(in *PlanInput) { in.Evidence.Coverage = "ok\x00" },
		"config key":      func(in *PlanInput) { in.Evidence.ConfigKeys = []string{"a b"} },
	}
	for name, mod := range bad {
		in := input("v1\n")
		mod(&in)
		_, err := c.Plan(context.Background(), in)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: %v, want an InputError", name, err)
		}
	}
	if n := len(s.Recorded()); n != 0 {
		t.Errorf("%d requests sent for bad input", n)
	}
	for _, r := range []string{"37714835620", "37714835620/attempts/2",
		"https://github.com/SemiAnalysisAI/InferenceX/actions/runs/37714835620",
		"https://github.com/SemiAnalysisAI/InferenceX/actions/runs/37714835620/job/99",
		"https://github.com/SemiAnalysisAI/InferenceX/actions/runs/37714835620/attempts/3"} {
		if err := ValidateRun(r); err != nil {
			t.Errorf("ValidateRun(%q): %v", r, err)
		}
	}
	for _, sha := range []string{"ceb50ba", "ceb50ba212080174e0563d2be1db9b0d654ab2ef", "CEB50BA2"} {
		if err := ValidateSHA(sha); err != nil {
			t.Errorf("ValidateSHA(%q): %v", sha, err)
		}
	}
}

// TestCheckoutNotGitIsInputError: a missing or non-git --checkout is bad
// input, not an upstream failure.
func TestCheckoutNotGitIsInputError(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, "")
	for _, dir := range []string{t.TempDir(), "/nonexistent/checkout"} {
		in := input("v1\n")
		in.Checkout = dir
		_, err := c.Plan(context.Background(), in)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("checkout %s: %v, want an InputError", dir, err)
		}
	}
}

// TestRetriesBounded: New refuses more than MaxRetriesLimit retries.
func TestRetriesBounded(t *testing.T) {
	if _, err := New(Options{MaxRetries: MaxRetriesLimit + 1}); err == nil {
		t.Error("MaxRetries 11 accepted")
	}
	if _, err := New(Options{MaxRetries: MaxRetriesLimit}); err != nil {
		t.Errorf("MaxRetries 10: %v", err)
	}
	if _, err := New(Options{RequestTimeout: -time.Second}); err == nil {
		t.Error("negative timeout accepted")
	}
	if got := backoff(1 << 20); got != time.Second<<MaxRetriesLimit {
		t.Errorf("backoff of a huge attempt: %s", got)
	}
}

// TestRequestTimeoutCutsSlowAnswers: a server that sends the headers and
// then trickles the body, or never answers, is cut off by RequestTimeout on
// every attempt; a server that keeps answering 5xx is cut off by CallTimeout
// however many retries remain. The handlers block until the request is
// cancelled, so the test ends only because the client gives up.
func TestRequestTimeoutCutsSlowAnswers(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/pulls/1") {
			w.WriteHeader(200)
			w.Write([]byte(`{"number":`))
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer slow.Close()
	defer close(release)
	for _, tok := range []string{"", testToken} { // with a token the body is read by the redacting transport
		rec := &sleepRec{}
		c, err := New(Options{APIURL: slow.URL, Token: tok, MaxRetries: 2, RequestTimeout: 50 * time.Millisecond, Sleep: rec.sleep})
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range []string{"https://github.com/o/n/pull/1", "https://github.com/o/n/pull/2"} {
			st, err := c.Status(context.Background(), link)
			if err == nil || st.State != StateUnknown || !strings.Contains(err.Error(), "request timeout") {
				t.Errorf("token %v %s: %+v %v", tok != "", link, st, err)
			}
		}
	}
	// CallTimeout: endless 502s with real (context-aware) sleeps.
	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(502)
	}))
	defer fail.Close()
	c, err := New(Options{APIURL: fail.URL, MaxRetries: MaxRetriesLimit, CallTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := c.Status(context.Background(), "https://github.com/o/n/pull/1"); err == nil || st.State != StateUnknown {
		t.Errorf("endless 502: %+v %v", st, err)
	}
}
