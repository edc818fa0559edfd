package coverage

import (
	"context"
	"os"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/runcache"
)

// completeTrees is the main job's input on the complete trees of ../shared
// (every source), for benchmarks: mainJob for a testing.TB.
func completeTrees(b testing.TB) Options {
	b.Helper()
	return Options{
		InfxDir:        testutil.SharedPath(b, "corpus/upstream/InferenceX"),
		CookbookDirs:   []string{testutil.SharedPath(b, "corpus/upstream/sglang-docs"), testutil.SharedPath(b, "corpus/sglang")},
		SrtSlurmDir:    testutil.SharedPath(b, "corpus/upstream/srt-slurm"),
		VLLMRecipesDir: testutil.SharedPath(b, "corpus/vllm-recipes"),
	}
}

// benchRun runs coverage with opt once per iteration, reporting
// allocations (issue 24: ns/op, B/op, allocs/op per source and together).
func benchRun(b *testing.B, opt Options) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), opt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCorpusCompleteAll is the main job: the complete trees, every
// source (the command each closing note runs).
func BenchmarkCorpusCompleteAll(b *testing.B) { benchRun(b, completeTrees(b)) }

// BenchmarkCorpusCompleteEmptyCache is the main job's first run with a
// cache (the default): an empty cache directory each time, filled by the
// run — the trees digested, the render packs and the report written.
func BenchmarkCorpusCompleteEmptyCache(b *testing.B) {
	opt := completeTrees(b)
	stats := &CacheStats{}
	opt.CacheStats = stats
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		cache, err := runcache.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		opt.Cache = cache
		b.StartTimer()
		if _, err := Run(context.Background(), opt); err != nil {
			b.Fatal(err)
		}
		if !stats.Stored || stats.RendersStored == 0 {
			b.Fatalf("the run filled no cache: %+v", stats)
		}
	}
}

// BenchmarkCorpusCompleteAgentX is the AgentX part alone (corpus/sglang
// snippets against the complete InferenceX tree, with srt-slurm).
func BenchmarkCorpusCompleteAgentX(b *testing.B) {
	opt := completeTrees(b)
	opt.CookbookDirs, opt.VLLMRecipesDir = opt.CookbookDirs[1:], ""
	benchRun(b, opt)
}

// BenchmarkCorpusCompletePages is the hand-written pages part alone
// (upstream/sglang-docs).
func BenchmarkCorpusCompletePages(b *testing.B) {
	opt := completeTrees(b)
	opt.CookbookDirs, opt.VLLMRecipesDir = opt.CookbookDirs[:1], ""
	benchRun(b, opt)
}

// BenchmarkCorpusCompleteVLLM is the vLLM recipes part alone.
func BenchmarkCorpusCompleteVLLM(b *testing.B) {
	opt := completeTrees(b)
	opt.CookbookDirs = nil
	benchRun(b, opt)
}

// BenchmarkCorpusCompleteOneKey is `coverage --config-key K` with every
// source for one SGLang disaggregated key (srt-slurm rendered), or for the
// key COOKBOOK_SYNC_BENCH_KEY names (to profile another: the slowest).
func BenchmarkCorpusCompleteOneKey(b *testing.B) {
	opt := completeTrees(b)
	opt.ConfigKeys = []string{"dsr1-fp8-gb200-dynamo-sglang"}
	if k := os.Getenv("COOKBOOK_SYNC_BENCH_KEY"); k != "" {
		opt.ConfigKeys = []string{k}
	}
	benchRun(b, opt)
}

// warmTrees is completeTrees with a new cache, filled by one run (the
// report and every rendering stored); stats is what the next runs did.
func warmTrees(b *testing.B) (Options, *runcache.Dir, *CacheStats) {
	opt := completeTrees(b)
	cache, err := runcache.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	stats := &CacheStats{}
	opt.Cache, opt.CacheStats = cache, stats
	if _, err := Run(context.Background(), opt); err != nil || !stats.Stored || stats.RendersStored == 0 {
		b.Fatalf("filling the cache: %v %+v", err, stats)
	}
	return opt, cache, stats
}

// BenchmarkCorpusCompleteWarm is the main job read from a warm cache
// (Options.Cache; filled once before the timer): keying every input tree
// and decoding the stored report — a warm run's work besides printing.
func BenchmarkCorpusCompleteWarm(b *testing.B) {
	opt, _, stats := warmTrees(b)
	b.ResetTimer()
	benchRun(b, opt)
	if !stats.Hit {
		b.Fatalf("not read from the cache: %+v", stats)
	}
}

// BenchmarkCorpusCompleteRendersWarm is the main job whose report is not
// in the cache but whose InferenceX renderings are (a run after the
// cookbook changed, or with other options: here AllowUnverified): what a
// nightly run on an unchanged InferenceX tree does.
func BenchmarkCorpusCompleteRendersWarm(b *testing.B) {
	opt, cache, stats := warmTrees(b)
	opt.AllowUnverified = true
	b.ResetTimer()
	b.ReportAllocs()
	for b.Loop() {
		// a new report key each time: the report is computed, the renders read
		opt.ConfigKeys = nil
		if _, err := Run(context.Background(), opt); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := os.RemoveAll(cache.EntryPath(mustReportKey(b, cache, opt))); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	if stats.Hit || stats.RenderHits == 0 {
		b.Fatalf("renders not read from the cache: %+v", stats)
	}
}

func mustReportKey(b *testing.B, cache *runcache.Dir, opt Options) runcache.Key {
	k, err := reportKey(cache, opt)
	if err != nil {
		b.Fatal(err)
	}
	return k
}
