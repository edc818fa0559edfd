package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/drift"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

// driftFixture is an InferenceX history with the qwen3.5 B200 script of
// coverage's fixture, and a cookbook checkout holding the AgentX snippet
// pinned to its commit, cut by cut (nil: whole).
func driftFixture(t *testing.T, cut func(string) string) (ix, cb string) {
	t.Helper()
	root := testutil.ModuleRoot()
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const script = "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh"
	h := testutil.NewHistory(t, "InferenceX")
	h.Write(map[string]string{
		"configs/nvidia-master.yaml":  read("coverage/testdata/script/inferencex/configs/nvidia-master.yaml"),
		script:                        read("coverage/testdata/script/inferencex/" + script),
		"benchmarks/benchmark_lib.sh": read("infx/testdata/old/benchmarks/benchmark_lib.sh"),
	})
	pinned := h.Commit("Add Qwen3.5 B200 AgentX (#9000)")
	const snippet = "docs/src/snippets/agentx/Qwen/qwen3.5-scripts.jsx"
	text := strings.ReplaceAll(read("coverage/testdata/script/sglang/"+snippet), "2222222222222222222222222222222222222222", pinned)
	if cut != nil {
		text = cut(text)
	}
	cb = filepath.Join(t.TempDir(), "sglang")
	p := filepath.Join(cb, filepath.FromSlash(snippet))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return h.Dir, cb
}

// inSyncCells keeps the snippet's first cell only (its two points are in
// sync with the pinned script and with head).
func inSyncCells(s string) string {
	i := strings.Index(s, ",\n  {\n   \"id\": \"qwen3.5-fp8-b200-sglang-agentic-mtp#1\"")
	j := strings.LastIndex(s, "\n ]\n};")
	if i < 0 || j < i {
		panic("the fixture snippet changed shape")
	}
	return s[:i] + s[j:]
}

// TestDriftIssue: `drift --issue-repo` against the fake GitHub — the first
// run opens the one tracking issue (labelled, the marker, the table, the
// hidden state); the next night reads the state back from the issue (nothing
// new: exit 0) and updates the body in place; a third run with nothing
// changed writes nothing, in at most 100 API requests (here: the one
// listing); never a second issue; --issue OWNER/NAME#N names it; when
// everything is in sync the issue is closed.
func TestDriftIssue(t *testing.T) {
	s := fakegithub.New()
	t.Cleanup(s.Close)
	s.Token = cliToken
	const repo = "SemiAnalysisAI/InferenceX"
	s.AddRepo(repo, "main", map[string]string{"README.md": "InferenceX\n"})
	t.Setenv("GH_TOKEN", cliToken)
	t.Setenv("GITHUB_TOKEN", "")
	ix, cb := driftFixture(t, nil)
	args := []string{"drift", "--infx", ix, "--cookbook", cb, "--no-cache", "--issue-repo", repo, "--api-url", s.URL, "--retries", "0"}
	requests := func() int {
		s.Mu.Lock()
		defer s.Mu.Unlock()
		return len(s.Requests)
	}

	code, out, errOut := cliRun(t, args...)
	if code != exitGap || !strings.Contains(errOut, "tracking issue https://github.com/"+repo+"/issues/1: created; 3 API requests") {
		t.Fatalf("first run: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	r := s.Repos[repo]
	if len(r.Issues) != 1 {
		t.Fatalf("%d issues", len(r.Issues))
	}
	is := r.Issues[0]
	if is.Title != drift.DefaultIssueTitle || !strings.HasPrefix(is.Body, drift.IssueMarker+"\n") || len(is.Labels) != 1 || is.Labels[0] != drift.IssueLabel ||
		!strings.Contains(is.Body, "**8 deployments: 3 in sync, 1 cookbook drifted, 4 not verified — 37%**") || !strings.Contains(is.Body, "<!-- cookbook-sync-drift-state v1\n") {
		t.Fatalf("issue %q labels %v body:\n%s", is.Title, is.Labels, is.Body)
	}
	if strings.Contains(is.Body, cliToken) || strings.Contains(out+errOut, cliToken) {
		t.Fatal("the token shows")
	}
	first := is.Body

	// the next night: the state comes from the issue, nothing is new
	before := requests()
	code, out, errOut = cliRun(t, args...)
	if code != exitOK || !strings.Contains(out, "OK: nothing new drifted; 0 new;") || !strings.Contains(errOut, "/issues/1: updated; 2 API requests") {
		t.Fatalf("second run: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if len(r.Issues) != 1 || r.Issues[0].Body == first || requests()-before != 2 {
		t.Fatalf("second run: %d issues, body changed %v, %d requests", len(r.Issues), r.Issues[0].Body != first, requests()-before)
	}

	// nothing changed since: nothing written, one request (the listing)
	before = requests()
	code, _, errOut = cliRun(t, args...)
	got := requests() - before
	if code != exitOK || !strings.Contains(errOut, "/issues/1: unchanged; 1 API requests") || got != 1 || got > 100 {
		t.Fatalf("third run: exit %d, %d requests, stderr:\n%s", code, got, errOut)
	}
	t.Logf("API requests with nothing changed: %d", got)

	// --issue names it; an unrelated issue carrying no marker is left alone
	s.Mu.Lock()
	r.Issues = append(r.Issues, &fakegithub.Issue{Number: 2, Title: "other", Body: "no marker", State: "open", Labels: []string{drift.IssueLabel}})
	s.Mu.Unlock()
	named := append(append([]string{}, args[:len(args)-6]...), "--issue", repo+"#1", "--api-url", s.URL, "--retries", "0")
	if code, _, errOut = cliRun(t, named...); code != exitOK || !strings.Contains(errOut, "/issues/1: unchanged") {
		t.Fatalf("--issue: exit %d, stderr:\n%s", code, errOut)
	}

	// everything in sync: the issue is closed, none opened
	ix2, cb2 := driftFixture(t, inSyncCells)
	sync := []string{"drift", "--infx", ix2, "--cookbook", cb2, "--no-cache", "--issue-repo", repo, "--api-url", s.URL, "--retries", "0"}
	code, out, errOut = cliRun(t, sync...)
	if code != exitOK || !strings.HasPrefix(out, "2 deployments: 2 in sync — 100%\n") || !strings.Contains(errOut, "/issues/1: closed;") {
		t.Fatalf("in sync: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if len(r.Issues) != 2 || r.Issues[0].State != "closed" || r.Issues[1].State != "open" || r.Issues[1].Body != "no marker" {
		t.Fatalf("in sync: issues %+v", r.Issues)
	}
	// drift again: the closed issue is reopened, never a second
	code, _, errOut = cliRun(t, args...)
	if code != exitGap || !strings.Contains(errOut, "/issues/1: reopened;") || len(r.Issues) != 2 {
		t.Fatalf("drift again: exit %d, %d issues, stderr:\n%s", code, len(r.Issues), errOut)
	}
}
