package helpers

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// TestJSONNormalize: the normalizer's output equals python3's (the wants
// were made with CPython 3 by
//
//	python3 -c 'import json,sys; print(json.dumps(json.loads(sys.stdin.read())))'
//
// on each input); input Python rejects is status 1; input past the
// decoder's bounds is not reproduced.
func TestJSONNormalize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\n  \"backend\": \"mooncake\",\n  \"size\": 1.50,\n  \"big\": 123456789012345678901234567890,\n  \"u\": \"\u00e9\",\n  \"l\": [1, 2e3, null, true],\n  \"a\": 1, \"a\": 2\n}\n",
			`{"backend": "mooncake", "size": 1.5, "big": 123456789012345678901234567890, "u": "\u00e9", "l": [1, 2000.0, null, true], "a": 2}`},
		{"NaN\n", "NaN"},
		{`"x"`, `"x"`},
		{"[]", "[]"},
	} {
		out, err := RunJSONNormalize([]byte(c.in))
		if err != nil || out.Status != 0 || out.Stdout != c.want+"\n" {
			t.Errorf("%q: %q status %d err %v, want %q", c.in, out.Stdout, out.Status, err, c.want)
		}
	}
	for _, in := range []string{"", "{", "none", "{\"a\": 1} x", "\xff"} {
		out, err := RunJSONNormalize([]byte(in))
		if err != nil || out.Status != 1 || out.Stdout != "" {
			t.Errorf("%q: %q status %d err %v, want status 1", in, out.Stdout, out.Status, err)
		}
	}
	if _, err := RunJSONNormalize([]byte(strings.Repeat("[", 600) + strings.Repeat("]", 600))); !errors.Is(err, ErrNotReproduced) {
		t.Errorf("600 levels: err %v, want ErrNotReproduced", err)
	}
	if !IsJSONNormalize("'import json, sys\nprint(json.dumps(json.loads(sys.stdin.read())))'") || IsJSONNormalize("'import json, sys\nprint(json.dumps(json.loads(sys.stdin.read()), indent=1))'") {
		t.Error("IsJSONNormalize: the known text must be the v1 hash, any other text not")
	}
}

// TestCorpusJSONNormalize: the complete InferenceX tree's server_sglang.sh
// runs the normalizer's v1 text.
func TestCorpusJSONNormalize(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(testutil.UpstreamInferenceX(t), JSONNormalizePath))
	if err != nil {
		t.Fatal(err)
	}
	words, _ := pythonCWords(t, src)
	n := 0
	for _, w := range words {
		if strings.Contains(w, "json.loads(sys.stdin") {
			n++
			if !IsJSONNormalize(w) {
				t.Errorf("a normalizer text %s not in the table", Hash([]byte(w)))
			}
		}
	}
	if n != 1 {
		t.Errorf("%d normalizer texts in %s, want 1", n, JSONNormalizePath)
	}
}

// TestMirrorJSONNormalize: every text of the normalizer in the InferenceX
// history since 2026-06-01 (any script under benchmarks/ printing
// json.dumps(json.loads(stdin))) is in the table.
func TestMirrorJSONNormalize(t *testing.T) {
	gitDir, git := mirrorGit(t)
	n := 0
	for _, c := range strings.Fields(string(git("log", "--all", "--since=2026-06-01", "--format=%H", "-S", "json.loads(sys.stdin", "--", "benchmarks/"))) {
		out, _ := exec.Command("git", "--git-dir", gitDir, "grep", "-l", "json.loads(sys.stdin", c, "--", "benchmarks/").Output()
		for _, f := range strings.Fields(string(out)) {
			_, p, _ := strings.Cut(f, ":")
			words, lines := pythonCWords(t, git("show", c+":"+p))
			for i, w := range words {
				if !strings.Contains(w, "json.dumps(json.loads(sys.stdin") {
					continue // another program (server_atom.sh's reply check)
				}
				n++
				if !IsJSONNormalize(w) {
					t.Errorf("%s %s:%d: a normalizer text (sha256 %s) in no version of the table", c[:9], p, lines[i], Hash([]byte(w)))
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no version of the normalizer found in the history")
	}
}
