package cookbook

import (
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"os"
	"testing"
)

// BenchmarkDecodeQwen35All parses qwen3.5.jsx and decodes all of its
// selections (text, copy-all and oracle JSON) per iteration.
func BenchmarkDecodeQwen35All(b *testing.B) {
	path := testutil.SharedPath(b, "corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx")
	src, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
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
