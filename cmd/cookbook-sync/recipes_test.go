package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

var edgeMD = filepath.Join("..", "..", "recipes", "testdata", "md", "edge.md")

func TestRecipesDecodeText(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"recipes", "decode", edgeMD}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{
		"(markdown): 12 deployments",
		"hardware=mi300x",
		"section: Edge Model Usage Guide > GPU Deployment > Running Edge-72B with BF16 [4xMI300X/MI325X/MI355X]",
		"vllm serve edge/Edge-72B --tensor-parallel-size 4 --limit-mm-per-prompt '{\"image\":2,\"video\":0}'",
		"VLLM_ROCM_USE_AITER=1",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestRecipesDecodeJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"recipes", "decode", "--format", "json", edgeMD}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var deps []launch.Deployment
	if err := json.Unmarshal(out.Bytes(), &deps); err != nil {
		t.Fatal(err)
	}
	if len(deps) != 12 || deps[0].Engine != "vllm" || deps[0].Model != "edge/Edge-72B" || deps[0].Hardware != "mi300x" {
		t.Errorf("deployments: %d, first %+v", len(deps), deps[0])
	}
}

func TestRecipesUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"recipes", "decode", "--format", "yaml", edgeMD},
		{"recipes", "decode", filepath.Join("testdata", "does-not-exist.md")},
		{"recipes", "scan", edgeMD},
		{"recipes", "decode"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func TestRecipesScan(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"recipes", "scan", filepath.Dir(edgeMD)}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "launch blocks: 10 (13 commands); with hardware context: 6") {
		t.Errorf("scan output:\n%s", out.String())
	}
}

// TestRecipesBadShape: a model recipe with a wrong-shaped synthesis input
// (nested list in base_args) exits 2 with file:line:col + YAML path; in a
// scan it is counted as failed with the same reason while the other files
// still decode; the help documents the exit status.
func TestRecipesBadShape(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "Bad.yaml")
	src := "model:\n  model_id: acme/X\n  base_args:\n    - [\"--trust-remote-code\"]\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	want := p + ":4:7: model.base_args[0]: want an argument token (a string), got a list"
	if code := run([]string{"recipes", "decode", p}, &out, &errb); code != exitUsage || errb.String() != "cookbook-sync: "+want+"\n" {
		t.Errorf("decode: exit %d, stderr %q, want %q", code, errb.String(), want)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.md"), []byte("# Ok\n\n```bash\nvllm serve a/b --tensor-parallel-size 2\n```\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"recipes", "scan", dir}, &out, &errb); code != exitUsage {
		t.Errorf("scan: exit %d, want 2", code)
	}
	for _, w := range []string{"files: 2 (legacy markdown 1, model YAML 0, --config YAML 0), failed: 1\n", "failed: " + want + "\n"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("scan output lacks %q:\n%s", w, out.String())
		}
	}
	for _, cmd := range [][]string{{"recipes", "--help"}, {"recipes", "decode", "--help"}, {"recipes", "scan", "--help"}} {
		out.Reset()
		if code := run(cmd, &out, &errb); code != 0 || !strings.Contains(out.String(), "Exit status:\n  0  ") || !strings.Contains(out.String(), "\n  2  ") {
			t.Errorf("%v: exit %d, no Exit status section:\n%s", cmd, code, out.String())
		}
	}
}
