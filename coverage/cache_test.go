package coverage

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/report"
	"github.com/cookbook-sync/cookbook-sync/runcache"
)

// cacheFixture is a copy of the script fixture (scriptFixture) in a
// temporary directory, so a test may edit it.
func cacheFixture(t *testing.T) (infxDir, cookbookDir string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "script"))); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "inferencex"), filepath.Join(dir, "sglang")
}

// jsonOf is the report as report.PrintJSON writes it.
func jsonOf(t *testing.T, rep *report.Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.PrintJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// cachedFixtureRun is a first run on a new copy of the script fixture
// with a new cache: the directories, the cache, the options (their
// CacheStats says what each later run did) and the report.
func cachedFixtureRun(t *testing.T) (ixDir, cbDir string, cache *runcache.Dir, opt Options, rep *report.Report) {
	t.Helper()
	ixDir, cbDir = cacheFixture(t)
	cache = openCache(t)
	opt = Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}, Cache: cache, CacheStats: &CacheStats{}}
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return ixDir, cbDir, cache, opt, rep
}

func openCache(t *testing.T) *runcache.Dir {
	t.Helper()
	c, err := runcache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A report read from the cache prints exactly as the one computed (every
// format), and an edit of an input file is a new key: the edited tree's
// own report, never the stored one.
func TestCacheColdWarmEdited(t *testing.T) {
	ixDir, cbDir, _, opt, cold := cachedFixtureRun(t)
	stats := opt.CacheStats
	if !stats.Stored || stats.Hit || stats.Skipped != "" {
		t.Fatalf("cold run: %+v, want stored", stats)
	}
	warm, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if !stats.Hit || stats.Stored {
		t.Fatalf("warm run: %+v, want a hit", stats)
	}
	for name, print := range map[string]func(*report.Report) string{
		"json": func(r *report.Report) string { return jsonOf(t, r) }, "text": textOf, "markdown": markdownOf,
	} {
		if a, b := print(cold), print(warm); a != b {
			t.Errorf("%s: the warm run prints differently:\n%s\n--- cold ---\n%s", name, b, a)
		}
	}
	if cold.Gap != warm.Gap || cold.Errors != warm.Errors || cold.TimeLimit != warm.TimeLimit || !equalStrings(cold.LocalDirs, warm.LocalDirs) {
		t.Errorf("warm run: gap %v errors %v time limit %v dirs %q, cold %v %v %v %q", warm.Gap, warm.Errors, warm.TimeLimit, warm.LocalDirs, cold.Gap, cold.Errors, cold.TimeLimit, cold.LocalDirs)
	}

	// one flag of the script changes: a new key, the edited tree's report
	script := filepath.Join(ixDir, "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh")
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(src, []byte("--mem-fraction-static 0.85"), []byte("--mem-fraction-static 0.8"), 1)
	if bytes.Equal(edited, src) {
		t.Fatal("the fixture script has no --mem-fraction-static 0.85")
	}
	if err := os.WriteFile(script, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	after, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Hit || !stats.Stored {
		t.Fatalf("after the edit: %+v, want a computed and stored report", stats)
	}
	fresh, err := Run(context.Background(), Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}})
	if err != nil {
		t.Fatal(err)
	}
	if a, b := jsonOf(t, after), jsonOf(t, fresh); a != b {
		t.Errorf("after the edit the cached run differs from an uncached one")
	}
	if jsonOf(t, after) == jsonOf(t, cold) || !strings.Contains(jsonOf(t, after), `"0.8"`) {
		t.Errorf("the edit did not change the report: the stored one was handed out")
	}
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}

// A corrupt or foreign entry is never trusted: it is computed again and
// replaced.
func TestCacheCorruptEntry(t *testing.T) {
	_, _, cache, opt, cold := cachedFixtureRun(t)
	stats := opt.CacheStats
	key, err := reportKey(cache, opt)
	if err != nil {
		t.Fatal(err)
	}
	entries := []string{cache.EntryPath(key)}
	data, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"truncated":      data[:len(data)-10],
		"a byte changed": append(bytes.Clone(data[:len(data)-3]), '!', data[len(data)-2], data[len(data)-1]),
		"not JSON":       nil, // filled below: a valid entry whose value is no report
		"empty":          {},
	} {
		if name == "not JSON" {
			// a well-formed entry of this key whose value is no report
			if err := cache.Put(key, []byte("{not json")); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(entries[0], bad, 0o600); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Hit || !stats.Stored {
			t.Errorf("%s entry: %+v, want recomputed and stored", name, stats)
		}
		if jsonOf(t, rep) != jsonOf(t, cold) {
			t.Errorf("%s entry: the report changed", name)
		}
		if got, err := os.ReadFile(entries[0]); err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s entry: not replaced by the good one (%v)", name, err)
		}
	}
}

// Runs whose report is not a function of the key do not use the cache.
func TestCacheSkipped(t *testing.T) {
	ixDir, cbDir := cacheFixture(t)
	cache := openCache(t)
	ex, err := exclusions.ForPolicy(exclusions.DefaultPolicyID())
	if err != nil {
		t.Fatal(err)
	}
	var stats CacheStats
	opt := Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}, Cache: cache, CacheStats: &stats, Exclusions: ex}
	for i := range 2 {
		if _, err := Run(context.Background(), opt); err != nil {
			t.Fatal(err)
		}
		if stats.Hit || stats.Stored || !strings.Contains(stats.Skipped, "Options.Exclusions") {
			t.Errorf("run %d with a caller's exclusion set: %+v", i, stats)
		}
	}
	// a link out of the tree: the tree cannot be keyed by content
	if err := os.Symlink(os.TempDir(), filepath.Join(ixDir, "outside")); err != nil {
		t.Fatal(err)
	}
	opt.Exclusions = nil
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if stats.Hit || stats.Stored || !strings.Contains(stats.Skipped, "not content-addressable") {
		t.Errorf("a tree with a link out of it: %+v", stats)
	}
}

// Bad usage is never cached: the same error every time.
func TestCacheBadUsage(t *testing.T) {
	ixDir, cbDir := cacheFixture(t)
	cache := openCache(t)
	var stats CacheStats
	opt := Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}, Cache: cache, CacheStats: &stats, ConfigKeys: []string{"no-such-key"}}
	for i := range 2 {
		if _, err := Run(context.Background(), opt); err == nil {
			t.Fatalf("run %d: a pattern that matches nothing gave no error", i)
		}
		if stats.Hit || stats.Stored {
			t.Errorf("run %d: %+v", i, stats)
		}
	}
}

// A run whose report is not stored (here: the cookbook changed) reads the
// renderings of the unchanged InferenceX tree from the cache, and its
// report is the uncached run's; an edit of the tree renders again.
func TestCacheRendersAcrossRuns(t *testing.T) {
	ixDir, cbDir := cacheFixture(t)
	cache := openCache(t)
	var stats CacheStats
	opt := Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}, Cache: cache, CacheStats: &stats}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if stats.RendersStored == 0 || stats.RenderHits != 0 {
		t.Fatalf("cold run: %+v, want renderings stored", stats)
	}
	stored := stats.RendersStored
	snippet := filepath.Join(cbDir, "docs/src/snippets/agentx/Qwen/qwen3.5-scripts.jsx")
	src, err := os.ReadFile(snippet)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snippet, append(src, []byte("\n// edited\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Hit || stats.RenderHits != stored || stats.RendersStored != 0 {
		t.Errorf("after a cookbook edit: %+v, want every one of the %d renderings read back", stats, stored)
	}
	fresh, err := Run(context.Background(), Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}})
	if err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, rep) != jsonOf(t, fresh) {
		t.Error("the report from cached renderings differs from the uncached one")
	}
	// the tree changes: every rendering is made again
	script := filepath.Join(ixDir, "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh")
	s, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, append(s, []byte("\n# edited\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if stats.RenderHits != 0 || stats.RendersStored != stored {
		t.Errorf("after an InferenceX edit: %+v, want %d renderings made and stored again", stats, stored)
	}
}

// A stored report is used only when it reads back from its JSON as it
// was written: the run that stores it hands its JSON to the printer
// (CacheStats.CompactJSON, the bytes stored), the first run that reads it
// encodes it again and leaves its mark (readBackKey), the runs after
// trust the mark while it names the entry's bytes. An entry that decodes
// but encodes to other bytes (here: the same report with its keys in
// another order) is computed again and marked as not reading back; the
// runs after compute the report without the cache, the same report.
func TestCacheReadBack(t *testing.T) {
	_, _, cache, opt, cold := cachedFixtureRun(t)
	stats := opt.CacheStats
	want, err := report.CompactJSON(cold)
	if err != nil {
		t.Fatal(err)
	}
	if !stats.Stored || !bytes.Equal(stats.CompactJSON, want) {
		t.Fatalf("cold run: stored %v, CompactJSON %d bytes, want the report's %d", stats.Stored, len(stats.CompactJSON), len(want))
	}
	key, err := reportKey(cache, opt)
	if err != nil {
		t.Fatal(err)
	}
	if stored, ok := cache.Get(key); !ok || !bytes.Equal(stored, want) {
		t.Fatalf("the entry is not the report's CompactJSON (%v)", ok)
	}
	mk := readBackKey(cache, key)
	if _, ok := cache.Get(mk); ok {
		t.Fatal("a mark before any run read the entry")
	}
	for i, mark := range []string{"first read", "marked", "a mark of other bytes"} {
		if mark == "a mark of other bytes" {
			if err := cache.Put(mk, make([]byte, 32)); err != nil {
				t.Fatal(err)
			}
		}
		warm, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if !stats.Hit || !bytes.Equal(stats.CompactJSON, want) || jsonOf(t, warm) != jsonOf(t, cold) {
			t.Errorf("run %d (%s): %+v, CompactJSON %d bytes, want a hit with the report's JSON", i, mark, stats, len(stats.CompactJSON))
		}
		if got, ok := cache.Get(mk); !ok || len(got) != 32 || bytes.Equal(got, make([]byte, 32)) {
			t.Errorf("run %d (%s): the mark is %x (%v), want the entry's digest", i, mark, got, ok)
		}
	}

	// the same report, its top-level keys reversed: it decodes, but does
	// not encode back to these bytes
	var fields []string
	{
		dec := json.NewDecoder(bytes.NewReader(want))
		var m map[string]json.RawMessage
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			fields = append(fields, strconv.Quote(k)+":"+string(v))
		}
		sort.Sort(sort.Reverse(sort.StringSlice(fields)))
	}
	other := []byte("{" + strings.Join(fields, ",") + "}\n")
	if bytes.Equal(other, want) {
		t.Fatal("the reordered report is the report")
	}
	if err := cache.Put(key, other); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		rep, err := Run(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if stats.Hit || stats.Stored || stats.Skipped != skipRoundTrip || stats.CompactJSON != nil {
			t.Errorf("run %d over an entry that does not read back: %+v", i, stats)
		}
		if jsonOf(t, rep) != jsonOf(t, cold) {
			t.Errorf("run %d over an entry that does not read back: the report changed", i)
		}
		if got, ok := cache.Get(key); !ok || !bytes.Equal(got, notRoundTrip) {
			t.Errorf("run %d: the entry is %.40q (%v), want the not-reading-back mark", i, got, ok)
		}
	}
}

// A run without a cache says so in the CacheStats it is given, whatever
// a cached run left there: no hit, nothing stored, no JSON of another
// report to print.
func TestCacheStatsWithoutCache(t *testing.T) {
	_, _, _, opt, _ := cachedFixtureRun(t)
	stats := opt.CacheStats
	if !stats.Stored || stats.CompactJSON == nil {
		t.Fatalf("cold run: %+v", stats)
	}
	opt.Cache = nil
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if stats.Hit || stats.Stored || stats.CompactJSON != nil || stats.Skipped == "" {
		t.Errorf("a run without a cache: %+v", *stats)
	}
}

// With StoreInBackground, Run returns its report before it is stored; the
// store is done, and its figures final, once CacheStats.Wait returns: the
// entry is the report's JSON and the next run reads it back. A hit, and a
// run without a cache, have nothing to wait for.
func TestCacheStoreInBackground(t *testing.T) {
	ixDir, cbDir := cacheFixture(t)
	var stats CacheStats
	opt := Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}, Cache: openCache(t), CacheStats: &stats, StoreInBackground: true}
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	want, err := report.CompactJSON(rep) // read while it is stored: the store only reads it too
	if err != nil {
		t.Fatal(err)
	}
	stats.Wait()
	if !stats.Stored || stats.Hit || stats.Skipped != "" || !bytes.Equal(stats.CompactJSON, want) {
		t.Fatalf("after Wait: %+v, want stored with the report's JSON", stats)
	}
	warm, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	stats.Wait() // nothing to wait for
	if !stats.Hit || jsonOf(t, warm) != jsonOf(t, rep) {
		t.Errorf("the run after: %+v, want a hit with the same report", stats)
	}
	opt.Cache = nil
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	stats.Wait()
}

// A CacheStats given to Run again before Wait: the store the first run
// left to the background is over before the second run resets it (under
// -race: no write of the first store meets the reset).
func TestCacheStatsReusedBeforeWait(t *testing.T) {
	ixDir, cbDir := cacheFixture(t)
	var stats CacheStats
	opt := Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}, Cache: openCache(t), CacheStats: &stats, StoreInBackground: true}
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), opt); err != nil { // no Wait in between
		t.Fatal(err)
	}
	stats.Wait()
	if !stats.Hit {
		t.Errorf("the second run: %+v, want a hit on what the first stored", stats)
	}
	opt.Cache = nil
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
}

// TestCorpusRenderPacksEverySource: on the complete trees with every
// source (SGLang keys of the AgentX and pages parts, vLLM keys), a run with
// an empty cache stores its renderings — the SGLang keys' packs written
// while the vLLM part runs, the vLLM keys' as each is judged — and a run
// whose report is not stored (another option) reads every one of them
// back and stores none, its report the one an uncached run makes.
func TestCorpusRenderPacksEverySource(t *testing.T) {
	opt := mainJob(t)
	opt.ConfigKeys = []string{"glm5.2-fp4-b300-sglang-agentic-mtp", "qwen3.5-fp8-h200-sglang*", "dsv4-fp4-b200-vllm", "dsr1-fp8-mi355x-sglang-disagg"}
	var stats CacheStats
	opt.Cache, opt.CacheStats = openCache(t), &stats
	if _, err := Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	stored := stats.RendersStored
	if stored < 10 || stats.RenderHits != 0 || !stats.Stored {
		t.Fatalf("first run: %+v, want renderings stored", stats)
	}
	opt.AllowUnverified = true // another report key, the same renderings
	_, got := runJSON(t, opt)
	if stats.Hit || stats.RenderHits != stored || stats.RendersStored != 0 {
		t.Errorf("second run: %+v, want the %d renderings read back, none stored", stats, stored)
	}
	fresh := opt
	fresh.Cache, fresh.CacheStats = nil, nil
	if _, want := runJSON(t, fresh); !bytes.Equal(got, want) {
		t.Errorf("the report from stored renderings differs from the uncached one: %s", testutil.LineDiff(want, got))
	}
}
