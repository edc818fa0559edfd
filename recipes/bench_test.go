package recipes

import (
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

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

// BenchmarkOpen indexes the whole corpus (every rendering role and
// Markdown launch block).
func BenchmarkOpen(b *testing.B) {
	root := recipesRoot(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Open(root); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMatchDeployment is one MatchDeployment of a DeepSeek-V4-Pro
// NVFP4 TP8 worker on b200 running MTP: the opt-in spec_decoding feature
// is re-rendered (lazily) for every candidate.
func BenchmarkMatchDeployment(b *testing.B) {
	ix, err := Open(recipesRoot(b))
	if err != nil {
		b.Fatal(err)
	}
	d := &launch.Deployment{Model: "nvidia/DeepSeek-V4-Pro-NVFP4", Hardware: "b200", Processes: []launch.Process{{
		Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "vllm serve", Args: []launch.Arg{
			{Flag: "--tensor-parallel-size", Values: []string{"8"}},
			{Flag: "--speculative-config", Values: []string{`{"method":"mtp","num_speculative_tokens":2}`}},
		}}}}
	b.ReportAllocs()
	for b.Loop() {
		rms, err := ix.MatchDeployment(d, "vllm", "fp4")
		if err != nil || len(rms) != 1 || !rms[0].Candidates[0].CustomFeatures {
			b.Fatal(err, rms)
		}
	}
}

// BenchmarkSelectionSpace renders the site's selection space of one
// checkpoint on one hardware (every variant serving it, strategy × nodes,
// PD pool mode × size per role) from a fresh cache, as the first Match of
// a (model, hardware) pair does.
func BenchmarkSelectionSpace(b *testing.B) {
	ix, err := Open(recipesRoot(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ix.space = &spaceCache{}
		if es := ix.spaceEntries("deepseek-ai/DeepSeek-V4-Pro", "gb200"); len(es) == 0 {
			b.Fatal("no selection-space entries")
		}
	}
}
