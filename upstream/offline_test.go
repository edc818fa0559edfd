package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestPlanOfflineWithoutCheckout: the identity, branch, title, body and
// new contents, without a single request; the current content is not
// known. Applied later, the saved plan is resolved against the live state
// like any other.
func TestPlanOfflineWithoutCheckout(t *testing.T) {
	s := newFake(t)
	c, _ := newClient(t, s, testToken)
	content := "export const agentx = {\n \"model\": \"Qwen3.5\",\n \"x\": 1\n};\n"
	p, err := c.PlanOffline(input(content))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Recorded()); n != 0 {
		t.Fatalf("PlanOffline sent %d requests", n)
	}
	if p.ID != "sgl-project/sglang:qwen/qwen3.5" || p.Branch != "cookbook-sync/qwen/qwen3.5" || p.Action != ActionOffline || p.Base != "" || p.BaseSHA != "" ||
		p.Title != "[cookbook-sync] qwen/qwen3.5: launch commands from InferenceX" || len(p.Files) != 1 || p.Files[0].Change != ChangeUnknown ||
		p.Files[0].New != content || p.Files[0].NewSHA != BlobSHA([]byte(content)) || p.Files[0].Old != "" {
		t.Fatalf("plan %+v", p)
	}
	if !strings.HasPrefix(p.Body, "<!-- cookbook-sync:sgl-project/sglang:qwen/qwen3.5 -->\n") || !strings.Contains(p.Body, "`qwen3.5-fp8-gb300-dynamo-sglang-agentic`") {
		t.Errorf("body:\n%s", p.Body)
	}
	d := p.Diff()
	for _, want := range []string{
		"# sgl-project/sglang:qwen/qwen3.5: [cookbook-sync] qwen/qwen3.5: launch commands from InferenceX\n# action: offline (GitHub was not asked",
		"\n# branch: cookbook-sync/qwen/qwen3.5 → the default branch (not read: offline)\n# PR body:\n#   <!-- cookbook-sync:sgl-project/sglang:qwen/qwen3.5 -->\n",
		"\n# not compared (offline: the current content was not read): " + snippet + ", whole\ndiff --git a/" + snippet + " b/" + snippet +
			"\nnew file mode 100644\n--- /dev/null\n+++ b/" + snippet + "\n@@ -0,0 +1,4 @@\n+export const agentx = {\n",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	// the JSON form is a plan pr apply --plan takes: Apply re-reads the
	// live state and creates the PR
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var saved Plan
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	res, err := c.Apply(context.Background(), &saved)
	if err != nil || res.Action != ActionCreate || !res.Created || res.Commit == "" {
		t.Fatalf("apply of the offline plan: %+v, %v", res, err)
	}
}

// TestPlanOfflineCheckout compares the files with the base branch of a
// local checkout, from its own refs, and refuses what Plan refuses.
func TestPlanOfflineCheckout(t *testing.T) {
	f := newGitFixture(t)
	c, err := New(Options{APIURL: "http://127.0.0.1:1/"}) // nothing listens: any request would fail
	if err != nil {
		t.Fatal(err)
	}
	in := PlanInput{Repo: testRepo, Model: "Qwen/qwen3.5", Checkout: f.work, Files: []File{{Path: snippet, Content: []byte("new\n")}, {Path: "README.md", Content: []byte("sglang\n")}}}
	p, err := c.PlanOffline(in)
	if err != nil {
		t.Fatal(err)
	}
	if p.Base != "main" || len(p.BaseSHA) != 40 || p.Parent != p.BaseSHA || !p.Commit || p.Action != ActionOffline ||
		!strings.Contains(p.Reason, "files compared with origin/main at "+p.BaseSHA[:12]+" in the checkout (as last fetched)") {
		t.Fatalf("plan %+v", p)
	}
	byPath := map[string]PlannedFile{}
	for _, pf := range p.Files {
		byPath[pf.Path] = pf
	}
	if s := byPath[snippet]; s.Change != "modify" || s.Old != "old\n" || s.OldSHA != BlobSHA([]byte("old\n")) {
		t.Errorf("snippet %+v", s)
	}
	if r := byPath["README.md"]; r.Change != "none" {
		t.Errorf("README.md %+v", r)
	}
	d := p.Diff()
	if !strings.Contains(d, "# branch: cookbook-sync/qwen/qwen3.5 → main ("+p.BaseSHA[:12]+" in the checkout)\n") ||
		!strings.Contains(d, "# unchanged: README.md\n") || !strings.HasSuffix(d, "--- a/"+snippet+"\n+++ b/"+snippet+"\n@@ -1 +1 @@\n-old\n+new\n") {
		t.Errorf("diff:\n%s", d)
	}

	in.Base = "release"
	if _, err := c.PlanOffline(in); err == nil || !strings.Contains(err.Error(), "base branch release: neither origin/release nor a local branch release") {
		t.Errorf("unknown base: %v", err)
	}
	in.Base, in.Checkout = "", t.TempDir()
	var ie *InputError
	if _, err := c.PlanOffline(in); !errors.As(err, &ie) || !strings.Contains(err.Error(), "not a git checkout") {
		t.Errorf("not a checkout: %v", err)
	}
	in.Checkout = ""
	in.Files = []File{{Path: snippet, Content: []byte("token ghp_" + strings.Repeat("a", 36) + "\n")}}
	if _, err := c.PlanOffline(in); !errors.As(err, &ie) {
		t.Errorf("a token in a file: %v", err)
	}
}
