package cookbook

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// corpusAgentX lists the AgentX data files under
// ../shared/corpus/sglang/docs/src/snippets/agentx; it skips the test only
// when ../shared is absent.
func corpusAgentX(t *testing.T) []string {
	t.Helper()
	root := filepath.Join(moduleRoot(t), "..", "shared")
	if _, err := os.Stat(root); os.IsNotExist(err) {
		t.Skip("../shared is absent")
	}
	files, err := filepath.Glob(filepath.Join(root, "corpus", "sglang", "docs", "src", "snippets", "agentx", "*", "*.jsx"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no AgentX data file under ../shared/corpus/sglang/docs/src/snippets/agentx")
	}
	return files
}

// sameDecoding checks that every selection of a decodes exactly like the
// same selection of b (titles, kinds, roles, texts and copy-all text).
func sameDecoding(a, b *File) error {
	sa, sb := a.Selections(), b.Selections()
	if len(sa) != len(sb) {
		return fmt.Errorf("%d selections, want %d", len(sb), len(sa))
	}
	for i, s := range sa {
		if sb[i] != s {
			return fmt.Errorf("selection %d is %+v, want %+v", i, sb[i], s)
		}
		da, err := a.Decode(s)
		if err != nil {
			return err
		}
		db, err := b.Decode(s)
		if err != nil {
			return err
		}
		if da.CopyAll != db.CopyAll {
			return fmt.Errorf("%+v: copy-all differs:\n%s\n--- want ---\n%s", s, db.CopyAll, da.CopyAll)
		}
		if len(da.Blocks) != len(db.Blocks) {
			return fmt.Errorf("%+v: %d blocks, want %d", s, len(db.Blocks), len(da.Blocks))
		}
		for j := range da.Blocks {
			if da.Blocks[j] != db.Blocks[j] {
				return fmt.Errorf("%+v block %d: %+v, want %+v", s, j, db.Blocks[j], da.Blocks[j])
			}
		}
	}
	return nil
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
				t.Errorf("EncodeFile is not byte-identical to the upstream file: %s", lineDiff(same, src))
			}
			out, err := Encode(&f.Data)
			if err != nil {
				t.Fatal(err)
			}
			g, err := Parse(path, out)
			if err != nil {
				t.Fatalf("re-encoded file does not parse: %v", err)
			}
			if err := sameDecoding(f, g); err != nil {
				t.Fatal(err)
			}
			again, _ := Encode(&g.Data)
			if !bytes.Equal(out, again) {
				t.Errorf("Encode(Parse(Encode(x))) != Encode(x): %s", lineDiff(again, out))
			}
		})
	}
}

// lineDiff describes the first differing line of got and want.
func lineDiff(got, want []byte) string {
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w []byte
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if !bytes.Equal(g, w) {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, g, w)
		}
	}
	return "no difference"
}

// BenchmarkEncodeQwen35 measures re-encoding the largest corpus file
// (qwen3.5.jsx, 312 KB).
func BenchmarkEncodeQwen35(b *testing.B) {
	path := filepath.Join(moduleRoot(b), "..", "shared", "corpus", "sglang", "docs", "src", "snippets", "agentx", "Qwen", "qwen3.5.jsx")
	f, err := ReadFile(path)
	if err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EncodeFile(f); err != nil {
			b.Fatal(err)
		}
	}
}
