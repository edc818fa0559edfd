package helpers

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// nodeExcludesWord is the reader's -c word of the checkout's submit.sh
// (the golden runs use the real text, never a copy).
func nodeExcludesWord(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testutil.UpstreamInferenceX(t), "benchmarks", "multi_node", "amd_utils", "submit.sh"))
	if err != nil {
		t.Fatal(err)
	}
	words, _ := pythonCWords(t, src)
	for _, w := range words {
		if IsNodeExcludes(w) {
			return w
		}
	}
	t.Fatalf("submit.sh: no python3 -c word is a known version of the node_excludes.yaml reader (%d words)", len(words))
	return ""
}

// TestGoldenNodeExcludes: the reader on the fixtures of
// testdata/node_excludes/golden.json equals what python3 (PyYAML 6) printed
// and exited with (gen.py, run on the real text).
func TestGoldenNodeExcludes(t *testing.T) {
	word := nodeExcludesWord(t)
	b, err := os.ReadFile(filepath.Join("testdata", "node_excludes", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Word  string `json:"word_sha256"`
		Cases []struct {
			Name, YAML, Framework, Model, Stdout string
			Status                               int
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if g.Word != Hash([]byte(word)) || g.Word != nodeExcludesV1 {
		t.Fatalf("golden made from text %s, checkout has %s, table %s", g.Word, Hash([]byte(word)), nodeExcludesV1)
	}
	for _, c := range g.Cases {
		vars := map[string]string{"NODE_EXCLUDES_YAML": "./node_excludes.yaml", "FRAMEWORK": c.Framework, "MODEL_NAME": c.Model}
		lookup := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
		w, err := amdExpandWord(word, lookup)
		if err != nil {
			t.Fatal(err)
		}
		out, err := RunNodeExcludes(AMDModelsInput{Raw: word, Expanded: w.text, Var: lookup, ReadFile: func(name string) ([]byte, error) {
			if name != "./node_excludes.yaml" {
				return nil, fmt.Errorf("%w: %s", ErrNoSuchFile, name)
			}
			return []byte(c.YAML), nil
		}})
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if out.Stdout != c.Stdout || out.Status != c.Status {
			t.Errorf("%s: stdout %q status %d, python3 %q %d", c.Name, out.Stdout, out.Status, c.Stdout, c.Status)
		}
	}
}

// TestNodeExcludesRefusals: what the reader does not reproduce exactly is
// an error, never a guessed output; a missing file is Python's failure.
func TestNodeExcludesRefusals(t *testing.T) {
	word := nodeExcludesWord(t)
	vars := map[string]string{"NODE_EXCLUDES_YAML": "./node_excludes.yaml", "FRAMEWORK": "f", "MODEL_NAME": "m"}
	lookup := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	w, _ := amdExpandWord(word, lookup)
	run := func(yml string, expanded string) (AMDModelsOutput, error) {
		return RunNodeExcludes(AMDModelsInput{Raw: word, Expanded: expanded, Var: lookup, ReadFile: func(string) ([]byte, error) {
			if yml == "" {
				return nil, ErrNoSuchFile
			}
			return []byte(yml), nil
		}})
	}
	if out, err := run("", w.text); err != nil || out.Status != 1 || out.Stdout != "" {
		t.Errorf("missing file: %+v %v, want status 1", out, err)
	}
	var un *AMDModelsUnsupported
	for name, yml := range map[string]string{
		"list exclude":    "rules:\n  - framework: f\n    models: [m]\n    exclude_nodes: [a, b]\n",
		"tagged model":    "rules:\n  - framework: f\n    models: [!!binary aGk=]\n",
		"merge key":       "a: &a {framework: f}\nrules:\n  - <<: *a\n    models: [m]\n",
		"two documents":   "rules: []\n---\nrules: []\n",
		"alias explosion": "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nrules: [*e]\n",
	} {
		if _, err := run(yml, w.text); !errors.As(err, &un) {
			t.Errorf("%s: %v, want *AMDModelsUnsupported", name, err)
		}
	}
	if _, err := run("rules: []\n", w.text+" "); !errors.As(err, &un) {
		t.Errorf("a program other than the text expanded: %v, want refused", err)
	}
	vars["MODEL_NAME"] = "m'x"
	w2, _ := amdExpandWord(word, lookup)
	if _, err := run("rules: []\n", w2.text); !errors.As(err, &un) {
		t.Errorf("a quote in MODEL_NAME: %v, want refused", err)
	}
	if _, err := RunNodeExcludes(AMDModelsInput{Raw: word + " ", Var: lookup}); !errors.As(err, &un) {
		t.Errorf("an unknown text: %v, want refused", err)
	}
}

// TestMirrorNodeExcludes: every text of the reader in submit.sh in the
// InferenceX history since 2026-06-01 is in the table, at the commits it
// cites.
func TestMirrorNodeExcludes(t *testing.T) {
	gitDir, git := mirrorGit(t)
	cited := map[string]bool{}
	for _, p := range NodeExcludesTable() {
		for _, c := range p.Commits {
			cited[c] = true
		}
	}
	n := 0
	for _, c := range strings.Fields(string(git("log", "--all", "--since=2026-06-01", "--format=%H", "--", NodeExcludesPath))) {
		out, err := exec.Command("git", "--git-dir", gitDir, "show", c+":"+NodeExcludesPath).Output()
		if err != nil {
			continue // the file removed at c
		}
		words, lines := pythonCWords(t, out)
		for i, w := range words {
			if !strings.Contains(w, "node_excludes") && !strings.Contains(w, "NODE_EXCLUDES_YAML") {
				continue
			}
			n++
			if !IsNodeExcludes(w) {
				t.Errorf("%s %s:%d: the reader's text (sha256 %s) is in no version of the table", c[:9], NodeExcludesPath, lines[i], Hash([]byte(w)))
			}
		}
	}
	for c := range cited {
		if IsNodeExcludes(nodeExcludesAt(t, git, c)) == false {
			t.Errorf("cited commit %s: the reader's text is not the table's", c)
		}
	}
	if n == 0 {
		t.Fatal("no version of the reader found in the history")
	}
}

func nodeExcludesAt(t *testing.T, git func(...string) []byte, c string) string {
	words, _ := pythonCWords(t, git("show", c+":"+NodeExcludesPath))
	for _, w := range words {
		if strings.Contains(w, "NODE_EXCLUDES_YAML") {
			return w
		}
	}
	return ""
}
