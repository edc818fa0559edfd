package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

const (
	testToken = "ghp_TESTtokenNEVERprinted0123456789abcd"
	snippet   = "docs/src/snippets/agentx/Qwen/qwen3.5.jsx"
	testRepo  = "sgl-project/sglang"
)

// newFake starts a fake GitHub with sgl-project/sglang (default branch main)
// holding an old snippet and a page.
func newFake(t *testing.T) *fakegithub.Server {
	t.Helper()
	s := fakegithub.New()
	t.Cleanup(s.Close)
	s.Token = testToken
	s.AddRepo(testRepo, "main", map[string]string{
		snippet: "export const agentx = {\n \"model\": \"Qwen3.5\"\n};\n",
		"docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx": "# Qwen3.5\n",
		"README.md": "sglang\n",
	})
	return s
}

type sleepRec struct{ waits []time.Duration }

func (r *sleepRec) sleep(_ context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return nil
}

func newClient(t *testing.T, s *fakegithub.Server, token string) (*Client, *sleepRec) {
	t.Helper()
	rec := &sleepRec{}
	c, err := New(Options{APIURL: s.URL, Token: token, Sleep: rec.sleep,
		Now: func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	return c, rec
}

func input(content string) PlanInput {
	return PlanInput{Repo: testRepo, Model: "Qwen/qwen3.5",
		Files: []File{{Path: snippet, Content: []byte(content)}},
		Evidence: Evidence{InferenceXSHA: "ceb50ba212080174e0563d2be1db9b0d654ab2ef",
			ConfigKeys: []string{"qwen3.5-fp8-gb300-dynamo-sglang-agentic"}, Runs: []string{"37714835620"},
			Coverage: "agg: covered\nprefill: covered"}}
}

func planApply(t *testing.T, c *Client, in PlanInput) (*Plan, *ApplyResult, error) {
	t.Helper()
	p, err := c.Plan(context.Background(), in)
	if err != nil {
		return nil, nil, err
	}
	res, err := c.Apply(context.Background(), p)
	return p, res, err
}

func TestIdentity(t *testing.T) {
	id, branch, marker, err := Identity("sgl-project/sglang", "Qwen/qwen3.5")
	if err != nil {
		t.Fatal(err)
	}
	if id != "sgl-project/sglang:qwen/qwen3.5" || branch != "cookbook-sync/qwen/qwen3.5" || marker != "<!-- cookbook-sync:sgl-project/sglang:qwen/qwen3.5 -->" {
		t.Errorf("got %q %q %q", id, branch, marker)
	}
	for _, bad := range []string{"", "../x", "a/../b", "a b", "x.lock", "a//b", "-x", "q/wen@{1}"} {
		if _, _, _, err := Identity("sgl-project/sglang", bad); err == nil {
			t.Errorf("model %q accepted", bad)
		}
	}
	for _, bad := range []string{"sglang", "a/b/c", "../x", "a/"} {
		if _, _, _, err := Identity(bad, "m"); err == nil {
			t.Errorf("repo %q accepted", bad)
		}
	}
}

func TestBlobSHA(t *testing.T) {
	// `printf 'hello\n' | git hash-object --stdin`
	if got := BlobSHA([]byte("hello\n")); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Errorf("BlobSHA = %s", got)
	}
}

// TestApplyTenTimes: ten applies (two of them with new content) leave one
// branch, one PR and one commit per real change.
func TestApplyTenTimes(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	contents := []string{"v1\n", "v1\n", "v1\n", "v2\n", "v2\n", "v2\n", "v2\n", "v3\n", "v3\n", "v3\n"}
	var commits int
	for i, content := range contents {
		p, res, err := planApply(t, c, input(content))
		if err != nil {
			t.Fatalf("apply %d: %v", i+1, err)
		}
		if res.Commit != "" {
			commits++
		}
		want := ActionNone
		switch {
		case i == 0:
			want = ActionCreate
		case content != contents[i-1]:
			want = ActionUpdate
		}
		if p.Action != want || res.Action != want {
			t.Errorf("apply %d: plan action %s, result %s, want %s (%s)", i+1, p.Action, res.Action, want, p.Reason)
		}
		if res.PR != 1 {
			t.Errorf("apply %d: PR %d, want 1", i+1, res.PR)
		}
	}
	if commits != 3 {
		t.Errorf("%d commits made, want 3", commits)
	}
	if got := s.Branches(testRepo); strings.Join(got, ",") != "cookbook-sync/qwen/qwen3.5,main" {
		t.Errorf("branches %v", got)
	}
	if n := s.CommitsOn(testRepo, "cookbook-sync/qwen/qwen3.5", "main"); n != 3 {
		t.Errorf("branch has %d commits over main, want 3", n)
	}
	repo := s.Repos[testRepo]
	if len(repo.Pulls) != 1 || repo.Pulls[0].State != "open" || repo.Pulls[0].Head != "cookbook-sync/qwen/qwen3.5" {
		t.Fatalf("pulls: %+v", repo.Pulls)
	}
	if got, _ := s.File(testRepo, "cookbook-sync/qwen/qwen3.5", snippet); got != "v3\n" {
		t.Errorf("branch content %q", got)
	}
	body := repo.Pulls[0].Body
	for _, want := range []string{"<!-- cookbook-sync:sgl-project/sglang:qwen/qwen3.5 -->", "ceb50ba21208",
		"qwen3.5-fp8-gb300-dynamo-sglang-agentic", "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/37714835620", "prefill: covered"} {
		if !strings.Contains(body, want) {
			t.Errorf("PR body lacks %q:\n%s", want, body)
		}
	}
	// Every commit on the branch carries the trailer and no other author.
	for sha, o := range repo.Objects {
		if o.Type == "commit" && o.Message != "Initial commit\n" && !hasTrailer(o.Message, "sgl-project/sglang:qwen/qwen3.5") {
			t.Errorf("commit %s lacks the trailer: %q", sha, o.Message)
		}
	}
}

func TestApplyNoOpWhenBaseHasContent(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	cur, _ := s.File(testRepo, "main", snippet)
	p, res, err := planApply(t, c, input(cur))
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != ActionNone || res.PR != 0 || res.Commit != "" {
		t.Errorf("plan %s / result %+v", p.Action, res)
	}
	if len(s.Branches(testRepo)) != 1 || len(s.Repos[testRepo].Pulls) != 0 {
		t.Error("a no-op made a branch or PR")
	}
}

func TestApplyStopsWhenSomeoneElsePushed(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	if _, _, err := planApply(t, c, input("v1\n")); err != nil {
		t.Fatal(err)
	}
	foreign := s.Commit(testRepo, "cookbook-sync/qwen/qwen3.5", "octocat", "fix a typo\n", map[string]string{"README.md": "typo fixed\n"})
	p, err := c.Plan(context.Background(), input("v2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != ActionBlocked || !strings.Contains(p.Reason, "someone else pushed") {
		t.Errorf("plan: %s %s", p.Action, p.Reason)
	}
	_, err = c.Apply(context.Background(), p)
	if !errors.Is(err, ErrBranchMoved) {
		t.Fatalf("apply: %v, want ErrBranchMoved", err)
	}
	if head := s.Repos[testRepo].Refs["heads/cookbook-sync/qwen/qwen3.5"]; head != foreign {
		t.Errorf("branch moved to %s", head)
	}
	if got, _ := s.File(testRepo, "cookbook-sync/qwen/qwen3.5", snippet); got != "v1\n" {
		t.Errorf("content changed to %q", got)
	}
}

func TestApplyStalePlan(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	if _, _, err := planApply(t, c, input("v1\n")); err != nil {
		t.Fatal(err)
	}
	p, err := c.Plan(context.Background(), input("v2\n"))
	if err != nil || p.Action != ActionUpdate {
		t.Fatalf("plan: %v %v", err, p)
	}
	s.Commit(testRepo, "cookbook-sync/qwen/qwen3.5", "octocat", "human edit\n", map[string]string{snippet: "human\n"})
	if _, err := c.Apply(context.Background(), p); !errors.Is(err, ErrBranchMoved) {
		t.Fatalf("apply of a stale plan: %v", err)
	}
	if got, _ := s.File(testRepo, "cookbook-sync/qwen/qwen3.5", snippet); got != "human\n" {
		t.Errorf("human content overwritten: %q", got)
	}
}

func TestApplyReopensClosedPR(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	if _, _, err := planApply(t, c, input("v1\n")); err != nil {
		t.Fatal(err)
	}
	s.ClosePull(testRepo, 1, false)
	p, res, err := planApply(t, c, input("v2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != ActionReopen || !res.Reopened || res.PR != 1 || res.Commit == "" {
		t.Errorf("plan %s, result %+v", p.Action, res)
	}
	pulls := s.Repos[testRepo].Pulls
	if len(pulls) != 1 || pulls[0].State != "open" {
		t.Errorf("pulls %+v", pulls)
	}
}

func TestApplyRecreatesWhenBranchDeleted(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	if _, _, err := planApply(t, c, input("v1\n")); err != nil {
		t.Fatal(err)
	}
	s.ClosePull(testRepo, 1, true)
	p, res, err := planApply(t, c, input("v1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != ActionRecreate || !res.Created || res.PR != 2 {
		t.Errorf("plan %s, result %+v", p.Action, res)
	}
	pulls := s.Repos[testRepo].Pulls
	if len(pulls) != 2 || pulls[0].State != "closed" || pulls[1].State != "open" || !strings.Contains(pulls[1].Body, "Supersedes #1") {
		t.Errorf("pulls %+v", pulls)
	}
	// Again: now there is an open PR; nothing to do.
	p, _, err = planApply(t, c, input("v1\n"))
	if err != nil || p.Action != ActionNone {
		t.Errorf("second run: %v %s %s", err, p.Action, p.Reason)
	}
}

func TestApplyAfterMerge(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	if _, _, err := planApply(t, c, input("v1\n")); err != nil {
		t.Fatal(err)
	}
	s.Merge(testRepo, 1)
	p, res, err := planApply(t, c, input("v1\n"))
	if err != nil || p.Action != ActionNone || res.PR != 0 {
		t.Fatalf("same content after merge: %v %s %+v", err, p.Action, res)
	}
	p, res, err = planApply(t, c, input("v2\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != ActionCreate || res.PR != 2 || !res.Created {
		t.Errorf("new content after merge: %s %+v", p.Action, res)
	}
	if n := s.CommitsOn(testRepo, "cookbook-sync/qwen/qwen3.5", "main"); n != 1 {
		t.Errorf("%d commits over main, want 1", n)
	}
}

func TestApplyRefusesDuplicateOpenPRs(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	marker := "<!-- cookbook-sync:sgl-project/sglang:qwen/qwen3.5 -->"
	s.Commit(testRepo, "other-a", "octocat", "a\n", map[string]string{"a": "a\n"})
	s.Commit(testRepo, "other-b", "octocat", "b\n", map[string]string{"b": "b\n"})
	s.AddPull(testRepo, &fakegithub.Pull{Title: "a", Body: marker, State: "open", Head: "other-a", Base: "main"})
	s.AddPull(testRepo, &fakegithub.Pull{Title: "b", Body: marker, State: "open", Head: "other-b", Base: "main"})
	_, err := c.Plan(context.Background(), input("v1\n"))
	if err == nil || !strings.Contains(err.Error(), "#1") || !strings.Contains(err.Error(), "#2") {
		t.Fatalf("want a duplicate error naming #1 and #2, got %v", err)
	}
}

func TestApplyNeedsToken(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, "")
	p, err := c.Plan(context.Background(), input("v1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(context.Background(), p); !errors.Is(err, ErrNoToken) {
		t.Errorf("apply without token: %v", err)
	}
}

func TestApplyRetriesAndTokenStaysInHeader(t *testing.T) {
	s := newFake(t)
	c, rec := newClient(t, s, testToken)
	s.AddFault(&fakegithub.Fault{Method: "POST", Path: `/git/blobs$`, Count: 2, Status: 502, Body: `{"message":"Server Error"}`})
	s.AddFault(&fakegithub.Fault{Method: "POST", Path: `/pulls$`, Count: 1, Status: 403,
		Header: map[string]string{"Retry-After": "7"},
		Body:   `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`})
	if _, res, err := planApply(t, c, input("v1\n")); err != nil || res.PR != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 7 * time.Second}
	if len(rec.waits) != 3 || rec.waits[0] != want[0] || rec.waits[1] != want[1] || rec.waits[2] != want[2] {
		t.Errorf("waits %v, want %v", rec.waits, want)
	}
	if len(s.Repos[testRepo].Pulls) != 1 {
		t.Errorf("%d PRs after a retried create", len(s.Repos[testRepo].Pulls))
	}
	for _, r := range s.Recorded() {
		if strings.Contains(r.URL, testToken) || strings.Contains(r.Body, testToken) {
			t.Errorf("token in request %s %s", r.Method, r.URL)
		}
		if r.Auth != "Bearer "+testToken {
			t.Errorf("request %s %s: Authorization %q", r.Method, r.URL, r.Auth)
		}
	}
}

func TestRetryAfterTooLongFails(t *testing.T) {
	s := newFake(t)
	c, rec := newClient(t, s, testToken)
	s.AddFault(&fakegithub.Fault{Path: `/pulls/1$`, Count: -1, Status: 403, Header: map[string]string{"Retry-After": "3600"},
		Body: `{"message":"You have exceeded a secondary rate limit."}`})
	st, err := c.Status(context.Background(), "https://github.com/sgl-project/sglang/pull/1")
	if err == nil || st.State != StateUnknown || st.OK() {
		t.Errorf("got %+v %v", st, err)
	}
	if len(rec.waits) != 0 {
		t.Errorf("waited %v beyond MaxRetryWait", rec.waits)
	}
}

func TestPlanDiff(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, "")
	p, err := c.Plan(context.Background(), input("export const agentx = {\n \"model\": \"Qwen3.5\",\n \"x\": 1\n};\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := p.Diff()
	want := "diff --git a/" + snippet + " b/" + snippet + "\n--- a/" + snippet + "\n+++ b/" + snippet + "\n" +
		"@@ -1,3 +1,4 @@\n export const agentx = {\n- \"model\": \"Qwen3.5\"\n+ \"model\": \"Qwen3.5\",\n+ \"x\": 1\n };\n"
	if !strings.HasSuffix(d, want) {
		t.Errorf("diff:\n%s\nwant suffix:\n%s", d, want)
	}
	if p.Action != ActionCreate || p.Branch != "cookbook-sync/qwen/qwen3.5" || p.Base != "main" {
		t.Errorf("plan %+v", p)
	}
	// Plan is read-only.
	for _, r := range s.Recorded() {
		if r.Method != "GET" {
			t.Errorf("plan sent %s %s", r.Method, r.URL)
		}
	}
}

func TestUnifiedDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	new := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl"
	got := UnifiedDiff(old, new)
	// As `git diff` prints it.
	want := "@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -9,3 +9,4 @@\n i\n j\n k\n+l\n\\ No newline at end of file\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := UnifiedDiff("", "x\n"); got != "@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("add: %q", got)
	}
}

func TestPlanRefusesMarkerOnForeignBranch(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	s.Commit(testRepo, "someone/qwen", "octocat", "a\n", map[string]string{"a": "a\n"})
	s.AddPull(testRepo, &fakegithub.Pull{Title: "copy", Body: "<!-- cookbook-sync:sgl-project/sglang:qwen/qwen3.5 -->", State: "open", Head: "someone/qwen", Base: "main"})
	if _, err := c.Plan(context.Background(), input("v1\n")); err == nil || !strings.Contains(err.Error(), "someone/qwen") {
		t.Errorf("got %v", err)
	}
}

// TestApplySavedPlan: a plan survives a JSON round trip and applies.
func TestApplySavedPlan(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	p, err := c.Plan(context.Background(), input("v1\n"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back Plan
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	res, err := c.Apply(context.Background(), &back)
	if err != nil || !res.Created || res.Commit == "" {
		t.Fatalf("%+v %v", res, err)
	}
	if got, _ := s.File(testRepo, "cookbook-sync/qwen/qwen3.5", snippet); got != "v1\n" {
		t.Errorf("content %q", got)
	}
}

func TestPrintingNeverShowsToken(t *testing.T) {
	opts := Options{APIURL: "https://api.github.com/", Token: testToken}
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{fmt.Sprint(opts), fmt.Sprintf("%+v", opts), fmt.Sprintf("%#v", opts), fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c)} {
		if strings.Contains(s, testToken) || !strings.Contains(s, "redacted") {
			t.Errorf("printed: %s", s)
		}
	}
}

// TestApplyFromFork: the branch lives in a fork, the PR is opened upstream
// from "<fork owner>:<branch>"; repeated applies reuse it.
func TestApplyFromFork(t *testing.T) {
	s := newFake(t)
	s.AddFork(testRepo, "cookbook-sync-bot/sglang")
	c, _ := newClient(t, s, testToken)
	in := func(content string) PlanInput {
		i := input(content)
		i.HeadRepo = "cookbook-sync-bot/sglang"
		return i
	}
	commits := 0
	for i, content := range []string{"v1\n", "v1\n", "v2\n", "v2\n"} {
		p, res, err := planApply(t, c, in(content))
		if err != nil {
			t.Fatalf("apply %d: %v", i+1, err)
		}
		if res.Commit != "" {
			commits++
		}
		if res.PR != 1 {
			t.Errorf("apply %d: %s PR %d", i+1, p.Action, res.PR)
		}
	}
	if commits != 2 {
		t.Errorf("%d commits", commits)
	}
	up, fork := s.Branches(testRepo), s.Branches("cookbook-sync-bot/sglang")
	if len(up) != 1 || len(fork) != 2 || fork[0] != "cookbook-sync/qwen/qwen3.5" {
		t.Errorf("upstream branches %v, fork branches %v", up, fork)
	}
	if n := s.CommitsOn("cookbook-sync-bot/sglang", "cookbook-sync/qwen/qwen3.5", "main"); n != 2 {
		t.Errorf("%d commits on the fork branch", n)
	}
	pulls := s.Repos[testRepo].Pulls
	if len(pulls) != 1 || pulls[0].HeadOwner != "cookbook-sync-bot" || pulls[0].State != "open" {
		t.Fatalf("pulls %+v", pulls)
	}
	s.Commit("cookbook-sync-bot/sglang", "cookbook-sync/qwen/qwen3.5", "octocat", "edit\n", map[string]string{"x": "y\n"})
	if _, _, err := planApply(t, c, in("v3\n")); !errors.Is(err, ErrBranchMoved) {
		t.Errorf("foreign push on the fork: %v", err)
	}
	// The same branch name from another owner is a different update.
	s.AddPull(testRepo, &fakegithub.Pull{Title: "x", Body: "<!-- cookbook-sync:sgl-project/sglang:qwen/qwen3.5 -->", State: "open",
		Head: "cookbook-sync/qwen/qwen3.5", Base: "main"})
	if _, err := c.Plan(context.Background(), input("v3\n")); err == nil {
		t.Error("two open PRs carrying the marker: no error")
	}
}

// TestClosedPRFromOtherBranchIsNotReopened: a closed PR that carries the
// marker but came from another branch is superseded, not reopened.
func TestClosedPRFromOtherBranchIsNotReopened(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	s.Commit(testRepo, "old-sync/qwen", "bot", "old\n", map[string]string{"a": "a\n"})
	s.AddPull(testRepo, &fakegithub.Pull{Title: "old", Body: "<!-- cookbook-sync:sgl-project/sglang:qwen/qwen3.5 -->", State: "closed", Head: "old-sync/qwen", Base: "main"})
	p, res, err := planApply(t, c, input("v1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != ActionCreate || res.PR != 2 || !strings.Contains(s.Repos[testRepo].Pulls[1].Body, "Supersedes #1") {
		t.Errorf("%s %+v", p.Action, res)
	}
	if s.Repos[testRepo].Pulls[0].State != "closed" {
		t.Error("old PR reopened")
	}
}
