package recipes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/fuzzbound"
)

// FuzzMarkdownShell feeds arbitrary Markdown through the goldmark walk, the
// lenient repairs and the mvdan.cc/sh parser: it must never panic, and every
// unparsable block must carry a file:line:col error.
func FuzzMarkdownShell(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "md", "edge.md")); err == nil {
		f.Add(string(data))
	}
	f.Add("```bash\nvllm serve a/b \\ \n  --x '{\"a\": <p>}' # c\n```\n")
	f.Add("=== \"4xH100\"\n\n    ```bash\n    export A=1\n    vllm serve m\n    ```\n")
	f.Add("<details>\n<summary>H200</summary>\n\n```bash\nvllm serve m -tp 8  ```\n\ntext\n")
	f.Add("```\nif [ x ]; then\nA=1\nfi\ndocker run --gpus all vllm/vllm-openai:latest m &\n```\n")
	// Issue 10: nesting past the depth bound, in Markdown and in a fence.
	var nested strings.Builder
	for i := range 150 {
		nested.WriteString(strings.Repeat(" ", 2*i) + "- x\n")
	}
	f.Add(nested.String())
	f.Add(strings.Repeat(">", 300) + " x\n")
	f.Add("```bash\n" + strings.Repeat("(", 2000) + "vllm serve m" + strings.Repeat(")", 2000) + "\n```\n")
	f.Fuzz(func(t *testing.T, src string) {
		err := fuzzbound.Within(fuzzbound.Bound, func() error {
			blocks, err := ParseMarkdown("f.md", []byte(src), 1, 0)
			if err != nil {
				return nil
			}
			for _, b := range blocks {
				if b.Err != nil && !posRe.MatchString(b.Err.Error()) {
					return fmt.Errorf("error without position: %v", b.Err)
				}
				_ = BlockDeployments(b)
			}
			_, _ = ParseShell(src)
			return nil
		})
		if err != nil {
			t.Fatalf("%v\ninput: %q", err, src)
		}
	})
}

// FuzzRecipeSynthesis renders arbitrary recipe YAML against the fixture
// taxonomy and strategies: no panic, no unbounded work.
func FuzzRecipeSynthesis(f *testing.F) {
	base, err := LoadSite(fixtureSite)
	if err != nil {
		f.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(fixtureSite, "models", "acme", "Rocket-1.yaml")); err == nil {
		f.Add(data)
	}
	f.Add([]byte("model: {model_id: a/b}\nvariants: {default: {tp: {h200: 99}, vram_minimum_gb: 5000}}\ncompatible_strategies: [pd_cluster, multi_node_dep]\nstrategy_min_gpus: {tp: 100000}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := fuzzbound.Within(fuzzbound.Bound, func() error {
			doc, err := parseYAML("models/x/y.yaml", data)
			if err != nil {
				return nil
			}
			root := deref(doc)
			if !isMap(root) {
				return nil
			}
			s := *base
			s.Recipes = []*Recipe{{HFID: "x/y", File: "models/x/y.yaml", yamlDoc: yamlDoc{rel: "models/x/y.yaml", root: root}}}
			for _, r := range s.Renderings() {
				_ = r.Deployment()
				for i := range r.Roles {
					_ = r.Roles[i].Command()
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%v\ninput: %q", err, data)
		}
	})
}
