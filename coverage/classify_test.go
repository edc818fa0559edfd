package coverage

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClassifyCookbooksDocsNew: a checkout whose cookbook pages are under
// docs_new/ (sgl-project/sglang before 2026-08-03) is the pages checkout,
// as one under docs/ is; one with AgentX snippets stays the AgentX one.
func TestClassifyCookbooksDocsNew(t *testing.T) {
	mk := func(parts ...string) string {
		d := t.TempDir()
		if err := os.MkdirAll(filepath.Join(append([]string{d}, parts...)...), 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	july := mk("docs_new", "src", "snippets", "configs")
	agentx := mk("docs", "src", "snippets", "agentx")
	a, p, err := classifyCookbooks([]string{july, agentx})
	if err != nil || a != agentx || p != july {
		t.Fatalf("agentx %q, pages %q, err %v", a, p, err)
	}
	if _, _, err := classifyCookbooks([]string{mk("docs_old")}); err == nil {
		t.Error("a checkout with neither: no error")
	}
}
