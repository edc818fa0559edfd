package recipes

import "testing"

// BenchmarkScanCorpus decodes the whole vllm-recipes corpus: the site's
// renderings of every model YAML plus every Markdown launch block.
func BenchmarkScanCorpus(b *testing.B) {
	root := recipesRoot(b)
	b.ReportAllocs()
	for b.Loop() {
		scans, errs := ScanDir(root)
		if len(errs) > 0 || len(scans) == 0 {
			b.Fatal(errs)
		}
	}
}

// BenchmarkMatch is one Index.Match over the whole corpus index.
func BenchmarkMatch(b *testing.B) {
	ix, err := Open(recipesRoot(b))
	if err != nil {
		b.Fatal(err)
	}
	q := Query{Framework: "vllm", Model: "moonshotai/Kimi-K2.5", Hardware: "mi355x", Precision: "fp4", TP: 8}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ix.Match(q); err != nil {
			b.Fatal(err)
		}
	}
}
