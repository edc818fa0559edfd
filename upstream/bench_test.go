package upstream

import (
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"os"
	"testing"
)

// BenchmarkCorpusParseSnippet measures the position-keeping JSON parse that
// Refresh runs on the largest real AgentX snippet in ../shared/corpus.
func BenchmarkCorpusParseSnippet(b *testing.B) {
	src, err := os.ReadFile(testutil.SharedPath(b, "corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseSnippet(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnifiedDiff measures the plan diff of a real-sized snippet with a
// change every 50 lines.
func BenchmarkUnifiedDiff(b *testing.B) {
	src, err := os.ReadFile(testutil.SharedPath(b, "corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx"))
	if err != nil {
		b.Fatal(err)
	}
	lines := splitLines(string(src))
	for i := 0; i < len(lines); i += 50 {
		lines[i] = "// changed\n"
	}
	var changed string
	for _, l := range lines {
		changed += l
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		UnifiedDiff(string(src), changed)
	}
}
