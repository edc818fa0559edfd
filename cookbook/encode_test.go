package cookbook

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// corpusAgentX lists the AgentX data files under
// ../shared/corpus/sglang/docs/src/snippets/agentx (testutil.SharedPath).
func corpusAgentX(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testutil.SharedPath(t, "corpus/sglang/docs/src/snippets/agentx"), "*", "*.jsx"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no AgentX data file under ../shared/corpus/sglang/docs/src/snippets/agentx")
	}
	return files
}

// TestCorpusEncodeRoundTrip: Parse(real file) → EncodeFile gives the same
// bytes (the upstream generator's layout and key order); Encode with the
// default header and PR order → Parse decodes every selection identically.
func TestCorpusEncodeRoundTrip(t *testing.T) {
	for _, path := range corpusAgentX(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := Parse(path, src)
			if err != nil {
				t.Fatal(err)
			}
			same, err := EncodeFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(same, src) {
				t.Errorf("EncodeFile is not byte-identical to the upstream file: %s", testutil.LineDiff(same, src))
			}
			out, err := Encode(&f.Data)
			if err != nil {
				t.Fatal(err)
			}
			g, err := Parse(path, out)
			if err != nil {
				t.Fatalf("re-encoded file does not parse: %v", err)
			}
			if err := SameDecoding(f, g); err != nil {
				t.Fatal(err)
			}
			again, _ := Encode(&g.Data)
			if !bytes.Equal(out, again) {
				t.Errorf("Encode(Parse(Encode(x))) != Encode(x): %s", testutil.LineDiff(again, out))
			}
		})
	}
}

// BenchmarkEncodeQwen35 measures re-encoding the largest corpus file
// (qwen3.5.jsx, 312 KB).
func BenchmarkEncodeQwen35(b *testing.B) {
	f, err := ReadFile(testutil.SharedPath(b, "corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeFile(f); err != nil {
			b.Fatal(err)
		}
	}
}
