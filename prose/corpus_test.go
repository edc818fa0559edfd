package prose_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/prose"
	"github.com/cookbook-sync/cookbook-sync/recipes"
)

// TestCorpusProseFindings lists, for the complete trees (the SGLang
// cookbook's autoregressive pages, sgl-project/sglang
// docs/cookbook/autoregressive/**.mdx, and the prose of every vLLM model
// YAML, vllm-project/recipes models/**.yaml guide: and
// variants.<v>.description), every clause with a setting shape, with its
// shape and whether the rule accepts it (and why not), against
// testdata/corpus-findings.golden (-update rewrites it). Whether an
// accepted statement names the hardware / variant a page with several
// needs is decided by the consumer (coverage/pageprose.go,
// recipes/guide_prose.go).
func TestCorpusProseFindings(t *testing.T) {
	opt := prose.Options{Hardware: recipes.ProseHardware}
	var all []prose.Finding
	root := testutil.SharedPath(t, "corpus/upstream/sglang-docs")
	err := filepath.WalkDir(filepath.Join(root, "docs/cookbook/autoregressive"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".mdx") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		_, f, err := prose.Read(filepath.ToSlash(rel), b, 1, opt)
		if err != nil {
			t.Error(err)
		}
		all = append(all, f...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	vroot := testutil.SharedPath(t, "corpus/vllm-recipes")
	err = filepath.WalkDir(filepath.Join(vroot, "models"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var doc yaml.Node
		if yaml.Unmarshal(b, &doc) != nil || len(doc.Content) == 0 {
			return nil
		}
		rel, _ := filepath.Rel(vroot, p)
		rel = filepath.ToSlash(rel)
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			switch m.Content[i].Value {
			case "guide":
				g := m.Content[i+1]
				_, f, err := prose.Read(rel, []byte(g.Value), g.Line+1, opt)
				if err != nil {
					t.Error(err)
				}
				all = append(all, f...)
			case "variants":
				vs := m.Content[i+1]
				for j := 0; j+1 < len(vs.Content); j += 2 {
					v := vs.Content[j+1]
					for k := 0; k+1 < len(v.Content); k += 2 {
						if v.Content[k].Value == "description" {
							d := v.Content[k+1]
							_, f, err := prose.Read(rel, []byte(d.Value), d.Line, opt)
							if err != nil {
								t.Error(err)
							}
							all = append(all, f...)
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := []byte(prose.Describe(all))
	golden := filepath.Join("testdata", "corpus-findings.golden")
	if *testutil.Update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./prose -run TestCorpusProseFindings -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("findings differ from %s (-update rewrites it): %s", golden, testutil.LineDiff(got, want))
	}
	n := strings.Count(string(got), " accepted: ")
	t.Logf("%d findings, %d accepted", strings.Count(string(got), "\n"), n)
}
