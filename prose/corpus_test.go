package prose_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/prose"
	"github.com/cookbook-sync/cookbook-sync/recipes"
)

func TestCorpusProseFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("reads ../shared")
	}
	opt := prose.Options{Hardware: recipes.ProseHardware}
	var all []prose.Finding
	root := "../../shared/corpus/upstream/sglang-docs"
	_ = filepath.WalkDir(filepath.Join(root, "docs/cookbook"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".mdx") {
			return nil
		}
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		_, f, err := prose.Read(rel, b, 1, opt)
		if err != nil {
			t.Error(err)
		}
		all = append(all, f...)
		return nil
	})
	vroot := "../../shared/corpus/vllm-recipes"
	_ = filepath.WalkDir(filepath.Join(vroot, "models"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return nil
		}
		b, _ := os.ReadFile(p)
		var doc yaml.Node
		if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 {
			return nil
		}
		rel, _ := filepath.Rel(vroot, p)
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == "guide" {
				g := m.Content[i+1]
				_, f, err := prose.Read(rel, []byte(g.Value), g.Line+1, opt)
				if err != nil {
					t.Error(err)
				}
				all = append(all, f...)
			}
		}
		return nil
	})
	t.Logf("\n%s", prose.Describe(all))
}
