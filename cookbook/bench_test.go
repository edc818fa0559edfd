package cookbook

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDecodeQwen35All parses qwen3.5.jsx and decodes all of its
// selections (text, copy-all and oracle JSON) per iteration.
func BenchmarkDecodeQwen35All(b *testing.B) {
	snip, _ := envDir(b, "AGENTX_SNIPPET_DIR", "../shared/corpus/sglang")
	path := filepath.Join(snip, "docs/src/snippets/agentx/Qwen/qwen3.5.jsx")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Skipf("qwen3.5.jsx not available: %v", err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		f, err := Parse(path, src)
		if err != nil {
			b.Fatal(err)
		}
		sels := f.Selections()
		for _, s := range sels {
			d, err := f.Decode(s)
			if err != nil {
				b.Fatal(err)
			}
			buf = d.AppendOracleJSON(buf[:0])
		}
	}
}
