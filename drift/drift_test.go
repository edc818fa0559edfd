package drift

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/coverage"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/report"
	"github.com/cookbook-sync/cookbook-sync/runcache"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

const (
	scriptPath  = "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh"
	snippetPath = "docs/src/snippets/agentx/Qwen/qwen3.5-scripts.jsx"
	fixtureSHA  = "2222222222222222222222222222222222222222"
	fixtureKey  = "qwen3.5-fp8-b200-sglang-agentic-mtp"
)

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fixture is an InferenceX history (the qwen3.5 B200 AgentX key of
// coverage's script fixture) and the cookbook snippet that cites it.
type fixture struct {
	h       *testutil.History
	script  string
	snippet string // the snippet's text, prov.sha still the placeholder
	pinned  string // the first commit
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{h: testutil.NewHistory(t, "InferenceX")}
	f.script = read(t, filepath.Join("..", "coverage", "testdata", "script", "inferencex", filepath.FromSlash(scriptPath)))
	f.snippet = read(t, filepath.Join("..", "coverage", "testdata", "script", "sglang", filepath.FromSlash(snippetPath)))
	f.h.Write(map[string]string{
		"configs/nvidia-master.yaml":  read(t, filepath.Join("..", "coverage", "testdata", "script", "inferencex", "configs", "nvidia-master.yaml")),
		scriptPath:                    f.script,
		"benchmarks/benchmark_lib.sh": read(t, filepath.Join("..", "infx", "testdata", "old", "benchmarks", "benchmark_lib.sh")),
	})
	f.pinned = f.h.Commit("Add Qwen3.5 B200 AgentX (#9000)")
	return f
}

// cookbook writes the snippet with prov.sha set to sha, edited by edit
// (nil: as is), into a new cookbook checkout and returns its directory.
func (f *fixture) cookbook(t *testing.T, sha string, edit func(string) string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "sglang")
	text := strings.ReplaceAll(f.snippet, fixtureSHA, sha)
	if edit != nil {
		text = edit(text)
	}
	p := filepath.Join(dir, filepath.FromSlash(snippetPath))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func run(t *testing.T, opt Options) *Result {
	t.Helper()
	if opt.Now.IsZero() {
		opt.Now = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// codes are the items' states, a letter each, in order: S in sync, M
// InferenceX moved, C cookbook drifted, G recipe gone, P pinned commit not
// available, V not verified.
func codes(res *Result) string {
	letter := map[State]byte{InSync: 'S', InfxMoved: 'M', CookbookDrifted: 'C', RecipeGone: 'G', PinnedNotAvailable: 'P', NotVerified: 'V'}
	var b []byte
	for _, it := range res.Items {
		c, ok := letter[it.State]
		if !ok {
			c = '?'
		}
		b = append(b, c)
	}
	return string(b)
}

// item is the result's item of the fixture snippet's cell and point.
func item(t *testing.T, res *Result, cellID string, point int) Item {
	t.Helper()
	for _, it := range res.Items {
		if it.CellID == cellID && it.Point == point {
			return it
		}
	}
	t.Fatalf("no item %s/%d", cellID, point)
	return Item{}
}

// TestDriftStates: each AgentX state on a history built here, the fixture
// snippet's eight points (cells 0, 1, 2, 3 of the fp8 key cite its script;
// 2/1 fits two rows; the fp4 key's script and the -retired key never
// existed): in sync at the pinned commit, InferenceX moved after a commit
// changes the script (the change listed), cookbook drifted when the
// snippet shows another value than the pinned script runs, recipe gone
// when head retires the script, pinned commit not available for a commit
// the history lacks — with the summary line, the exit decision (Failed)
// and what is new, first run and next night.
func TestDriftStates(t *testing.T) {
	f := newFixture(t)
	cb := f.cookbook(t, f.pinned, nil)
	opt := Options{Coverage: coverage.Options{InfxDir: f.h.Dir, CookbookDirs: []string{cb}}}
	const fp8 = fixtureKey + "#"

	res := run(t, opt)
	if got := codes(res); got != "SSCSVVVV" || !res.Failed || res.New != 5 || res.PinnedCommits != 1 || res.PinnedAvailable != 1 {
		t.Fatalf("at the pinned commit: states %s failed %v new %d pinned %d/%d", got, res.Failed, res.New, res.PinnedAvailable, res.PinnedCommits)
	}
	if got, want := res.Summary(), "8 deployments: 3 in sync, 1 cookbook drifted, 4 not verified — 37%"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if it := item(t, res, fp8+"1", 0); it.Pinned != compare.Differs || !slices.Equal(it.Changes, []string{"agg: --moe-a2a-backend: (absent) → deepep"}) {
		t.Errorf("cookbook drifted item %+v", it)
	}
	if r := item(t, res, fp8+"2", 1).Reason; !strings.HasPrefix(r, "at the pinned commit: ambiguous point: 2 search-space rows") || !strings.Contains(r, "rows 2 (configs/nvidia-master.yaml:19:9)") {
		t.Errorf("ambiguous reason %q (the pinned tree's temporary path must not show)", r)
	}
	if r := item(t, res, fixtureKey+"-retired#0", 0).Reason; !strings.HasPrefix(r, "the cited recipe is not in InferenceX at its pinned commit either") {
		t.Errorf("never-there reason %q", r)
	}
	first := res.Snapshot()
	// the next night, nothing changed: nothing new, exit 0
	if res = run(t, Options{Coverage: opt.Coverage, Previous: first}); res.Failed || res.New != 0 {
		t.Errorf("next night: failed %v new %d", res.Failed, res.New)
	}

	// InferenceX moves: the script raises the memory fraction
	f.h.Write(map[string]string{scriptPath: strings.Replace(f.script, "--mem-fraction-static 0.85", "--mem-fraction-static 0.9", 1)})
	f.h.Commit("Raise the memory fraction (#9101)")
	res = run(t, Options{Coverage: opt.Coverage, Previous: first})
	if got := codes(res); got != "MMCMVVVV" || !res.Failed || res.New != 4 || res.Failing != 4 {
		t.Fatalf("moved: states %s failed %v new %d failing %d", got, res.Failed, res.New, res.Failing)
	}
	it := item(t, res, fp8+"0", 0)
	if it.Pinned != compare.CoveredWithExclusions || it.Head != compare.Differs || !slices.Equal(it.Changes, []string{"agg: --mem-fraction-static: 0.85 → 0.9"}) || it.ProvSHA != f.pinned || it.Previous != InSync || !it.New {
		t.Errorf("moved item %+v", it)
	}
	if got, want := res.Summary(), "8 deployments: 3 InferenceX moved, 1 cookbook drifted, 4 not verified — 0%"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	moved := res.Snapshot()
	if res = run(t, Options{Coverage: opt.Coverage, Previous: moved}); res.Failed || res.New != 0 || codes(res) != "MMCMVVVV" {
		t.Errorf("second night: failed %v new %d states %s", res.Failed, res.New, codes(res))
	}

	// the cookbook shows another value than the pinned script runs
	drifted := f.cookbook(t, f.pinned, func(s string) string { return strings.ReplaceAll(s, "\"0.85\"", "\"0.8\"") })
	res = run(t, Options{Coverage: coverage.Options{InfxDir: f.h.Dir, CookbookDirs: []string{drifted}}, Previous: moved})
	if got := codes(res); got != "CCCCVVVV" || !res.Failed || res.New != 4 {
		t.Fatalf("drifted: states %s failed %v new %d", got, res.Failed, res.New)
	}
	// what the pinned script ran, then what head changed besides (the
	// cookbook's value on the left)
	if it := item(t, res, fp8+"0", 0); it.Pinned != compare.Differs || !slices.Equal(it.Changes, []string{"agg: --mem-fraction-static: 0.8 → 0.85", "at head: agg: --mem-fraction-static: 0.8 → 0.9"}) {
		t.Errorf("drifted item %+v", it)
	}

	// a commit the history does not have: counted, never a failure by
	// itself — not even where head lacks the recipe (retired, or cited
	// from a later commit: not known)
	absent := f.cookbook(t, "3333333333333333333333333333333333333333", nil)
	res = run(t, Options{Coverage: coverage.Options{InfxDir: f.h.Dir, CookbookDirs: []string{absent}}, Previous: moved})
	if got := codes(res); got != "PPPPPPPP" || res.Failed || res.PinnedAvailable != 0 || res.PinnedCommits != 1 || res.Deployments != 8 {
		t.Fatalf("absent: states %s pinned %d/%d", got, res.PinnedAvailable, res.PinnedCommits)
	}
	if r := res.Items[7].Reason; r != "commit 333333333333 is not in the InferenceX checkout's history; at head: no matching point: config key qwen3.5-fp8-b200-sglang-agentic-mtp-retired is not in the master configs of the InferenceX checkout" {
		t.Errorf("absent reason %q", r)
	}

	// head retires the script
	f.h.Remove(scriptPath)
	f.h.Commit("Retire the key's script (#9200)")
	res = run(t, Options{Coverage: opt.Coverage, Previous: moved})
	if got := codes(res); got != "GGCGVVVV" || !res.Failed || res.New != 4 {
		t.Fatalf("gone: states %s failed %v new %d", got, res.Failed, res.New)
	}

	// a plain directory (no history): no pinned commit is available, and
	// what head lacks is not known to be gone
	plain := filepath.Join(t.TempDir(), "InferenceX")
	if err := os.CopyFS(plain, os.DirFS(f.h.Dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(plain, ".git")); err != nil {
		t.Fatal(err)
	}
	res = run(t, Options{Coverage: coverage.Options{InfxDir: plain, CookbookDirs: []string{cb}}})
	if got := codes(res); got != "PPPPPPPP" || res.Failed || res.PinnedAvailable != 0 {
		t.Errorf("plain directory: states %s pinned %d", got, res.PinnedAvailable)
	}
}

// TestDriftBaseline: accepted drift does not fail; an expired entry fails
// again (even when not new); the last day still accepts; an entry for
// another state does not accept; stale entries are listed;
// UpdateBaseline (--update-baseline) accepts what fails and round-trips.
func TestDriftBaseline(t *testing.T) {
	f := newFixture(t)
	cb := f.cookbook(t, f.pinned, nil)
	f.h.Write(map[string]string{scriptPath: strings.Replace(f.script, "--mem-fraction-static 0.85", "--mem-fraction-static 0.9", 1)})
	f.h.Commit("Raise the memory fraction (#9101)")
	co := coverage.Options{InfxDir: f.h.Dir, CookbookDirs: []string{cb}}
	first := run(t, Options{Coverage: co})
	if !first.Failed || first.Failing != 8 {
		t.Fatalf("first run: failed %v failing %d", first.Failed, first.Failing)
	}
	yml := "accepted:\n"
	var moved string
	for _, it := range first.Items {
		yml += "  - id: \"" + it.ID + "\"\n    state: " + string(it.State) + "\n    reason: the next sync carries it\n    expires: 2026-12-31\n"
		if it.State == InfxMoved && moved == "" {
			moved = it.ID
		}
	}
	yml += "  - id: agentx:nosuch.jsx#c/0\n    reason: gone long ago\n    expires: 2027-01-01\n"
	b, err := ParseBaseline("baseline.yaml", []byte(yml))
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, Options{Coverage: co, Baseline: b})
	if res.Failed || res.Accepted != 8 || res.New != 8 || len(res.Stale) != 1 || res.Stale[0].ID != "agentx:nosuch.jsx#c/0" || res.Stale[0].Line != 34 {
		t.Errorf("accepted: failed %v accepted %d new %d stale %+v", res.Failed, res.Accepted, res.New, res.Stale)
	}
	// expired: fails again, even with a state saying it is not new
	res = run(t, Options{Coverage: co, Baseline: b, Previous: first.Snapshot(), Now: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})
	if !res.Failed || res.Expired != 8 || res.New != 0 || !res.Items[0].Expired {
		t.Errorf("expired: failed %v expired %d new %d", res.Failed, res.Expired, res.New)
	}
	// the last day still accepts
	res = run(t, Options{Coverage: co, Baseline: b, Now: time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC)})
	if res.Failed || res.Expired != 0 {
		t.Errorf("last day: failed %v expired %d", res.Failed, res.Expired)
	}
	// an entry for another state does not accept
	other, err := ParseBaseline("b.yaml", []byte("accepted:\n  - id: \""+moved+"\"\n    state: cookbook drifted\n    reason: r\n    expires: 2027-06-01\n"))
	if err != nil {
		t.Fatal(err)
	}
	res = run(t, Options{Coverage: co, Baseline: other})
	for _, it := range res.Items {
		if it.ID == moved && (it.Accepted != nil || !it.Fails) {
			t.Errorf("other state: %+v", it)
		}
	}
	if len(res.Stale) != 1 {
		t.Errorf("other state: stale %+v", res.Stale)
	}
	// --update-baseline: accepts every failing item
	up := UpdateBaseline(other, res, "accepted by the nightly owner", time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC), 30)
	if len(up.Entries) != 8 || up.Entries[0].Expires != "2027-01-03" || up.Entries[0].Reason != "accepted by the nightly owner" {
		t.Fatalf("updated baseline %+v", up.Entries)
	}
	again, err := ParseBaseline("up.yaml", up.Marshal())
	if err != nil {
		t.Fatalf("%v\n%s", err, up.Marshal())
	}
	if res := run(t, Options{Coverage: co, Baseline: again}); res.Failed || res.Accepted != 8 || len(res.Stale) != 0 {
		t.Errorf("with the updated baseline: failed %v accepted %d stale %d", res.Failed, res.Accepted, len(res.Stale))
	}
}

// TestParseBaselineErrors: bad baselines name file:line:col.
func TestParseBaselineErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"accepted:\n  - id: a\n    expires: 2027-01-01\n", "b.yaml:2:5: accepted[0] (a): no reason"},
		{"accepted:\n  - id: a\n    reason: r\n    expires: tomorrow\n", "b.yaml:4:14: accepted[0].expires: \"tomorrow\" is not a date"},
		{"accepted:\n  - id: a\n    reason: r\n    expires: 2027-01-01\n    state: in sync\n", "b.yaml:5:12: accepted[0].state: \"in sync\" is not a drift state"},
		{"accepted:\n  - id: a\n    reason: r\n    expires: 2027-01-01\n    owner: me\n", "b.yaml:5:5: accepted[0]: unknown field \"owner\""},
		{"ignore:\n  - a\n", "b.yaml:1:1: unknown field \"ignore\""},
		{"accepted: [\n", "b.yaml:1: did not find expected node content"},
		{"accepted:\n  - {id: a, reason: r, expires: 2027-01-01}\n  - {id: a, reason: s, expires: 2027-01-01}\n", "b.yaml:3:5: accepted[1]: a is already accepted at line 2"},
		{"accepted: []\naccepted: []\n", "b.yaml:2:1: \"accepted\" given twice"},
		{"accepted:\n  - {id: a, reason: r, expires: 2001-01-01, expires: 2099-01-01}\n", "b.yaml:2:45: accepted[0]: expires given twice"},
		{"accepted:\n  - {id: a, reason: ~, expires: 2027-01-01}\n", "b.yaml:2:21: accepted[0].reason: want a string"},
		{"accepted:\n  - {id: a, reason: !!binary aGk=, expires: 2027-01-01}\n", "b.yaml:2:21: accepted[0].reason: want a string"},
		{"accepted: []\n---\nmore: 1\n", "b.yaml:2: a second YAML document"},
	} {
		_, err := ParseBaseline("b.yaml", []byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want prefix %q", c.in, err, c.want)
		}
	}
	if b, err := ParseBaseline("b.yaml", []byte("\n")); err != nil || len(b.Entries) != 0 {
		t.Errorf("empty: %v %v", b, err)
	}
}

// TestSnapshotRoundTrip: a state written is read back; bad states name
// file:line:col or the item.
func TestSnapshotRoundTrip(t *testing.T) {
	s := &Snapshot{Schema: SnapshotSchema, InferenceX: "abc", Items: []SnapshotItem{{ID: "vllm-recipes:k", State: CoverageLost, Verdict: "differs"}}}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseSnapshot("s.json", data)
	if err != nil || len(back.Items) != 1 || back.Items[0] != s.Items[0] {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	for _, c := range []struct{ in, want string }{
		{"{\n  \"schema\": 1,\n  \"items\": [\n    {\"id\": 3}\n  ]\n}", "s.json:4:13: items.id: want string, got number"},
		{"{\"schema\": 1, \"items\": [}", "s.json:1:26: invalid character"},
		{"{\"schema\": 2, \"items\": []}", "s.json: schema 2: want 1"},
		{"{\"schema\": 1, \"items\": [{\"id\": \"a\", \"state\": \"fine\"}]}", "s.json: items[0] (a): unknown state \"fine\""},
		{"{\"schema\": 1, \"extra\": 1}", "s.json: json: unknown field \"extra\""},
		{"{\"schema\": 1, \"items\": []}\n{\"schema\": 1}", "s.json:2:1: data after the state's JSON object"},
		{" \n", "s.json: empty"},
	} {
		_, err := ParseSnapshot("s.json", []byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want prefix %q", c.in, err, c.want)
		}
	}
}

// TestPrintText: the text report names what changed and the flags; the
// Markdown table keeps what a checkout wrote inert.
func TestPrintText(t *testing.T) {
	res := &Result{Counts: map[State]int{InfxMoved: 1, InSync: 1}, Deployments: 2, InSyncPercent: 50, New: 1, Failing: 1, Failed: true, PinnedCommits: 2, PinnedAvailable: 1,
		Items: []Item{{ID: "agentx:a.jsx#c/0", Source: SourceAgentX, ConfigKey: "k", File: "a.jsx", Line: 7, State: InfxMoved, ProvSHA: "0123456789abcdef", Pinned: compare.Covered, Head: compare.Differs,
			Changes: []string{"agg: --x: 1 → 2"}, New: true, Fails: true}, {ID: "agentx:a.jsx#c/1", State: InSync}}}
	var b bytes.Buffer
	if err := PrintText(&b, res); err != nil {
		t.Fatal(err)
	}
	want := "2 deployments: 1 in sync, 1 InferenceX moved — 50%\n" +
		"FAIL: 1 drifted deployment new or past its baseline date; 1 new; pinned commits: 1 of 2 in the InferenceX history\n\n" +
		"InferenceX moved (1)\n  k  a.jsx:7 point 0  [new, FAILS]\n      pinned 0123456789ab: covered; head: differs\n      agg: --x: 1 → 2\n"
	if b.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := PrintMarkdown(&b, res, 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| InferenceX moved | `k` | `a.jsx:7 point 0` | `agg: --x: 1 → 2` | new, FAILS |") {
		t.Errorf("markdown:\n%s", b.String())
	}
	res.Items[0].Reason = "see ![p](https://x.invalid/p.png) [click](https://x.invalid) @octocat SemiAnalysisAI/InferenceX#1"
	res.Items[0].Changes = []string{"agg: env X: `a` → @b [c](d)"}
	b.Reset()
	if err := PrintMarkdown(&b, res, 0); err != nil {
		t.Fatal(err)
	}
	for _, live := range []string{"![p](", "[click](", " @octocat", "InferenceX#1", "`a`"} {
		if strings.Contains(b.String(), live) {
			t.Errorf("markdown carries %q live:\n%s", live, b.String())
		}
	}
}

// TestKeyItem: a page or vLLM key drifts when it loses its coverage
// against the previous run's state, and stays "coverage lost" while it
// does; a key never covered is "not covered" (new on a first run only).
func TestKeyItem(t *testing.T) {
	up, ix := "8", "4"
	differs := &report.KeyResult{ConfigKey: "k", Verdict: compare.Differs, Rows: []report.RowResult{{Verdict: compare.Differs, Roles: []report.RoleMatch{
		{Role: "agg", Verdict: compare.Differs, Recipe: &report.RecipeRef{}, Result: &compare.Result{Role: "agg", Verdict: compare.Differs, Differences: []compare.Difference{{Setting: "--tensor-parallel-size", Upstream: &up, InferenceX: &ix}}}},
		{Role: "decode", Topology: "TP8", Verdict: compare.NotCovered, Misses: []string{"hardware"}},
	}}}}
	for _, c := range []struct {
		k    *report.KeyResult
		was  State
		want State
	}{
		{&report.KeyResult{ConfigKey: "k", Verdict: compare.Covered}, "", InSync},
		{&report.KeyResult{ConfigKey: "k", Verdict: compare.CoveredWithExclusions}, CoverageLost, InSync},
		{differs, InSync, CoverageLost},
		{differs, CoverageLost, CoverageLost},
		{differs, NotCovered, NotCovered},
		{differs, "", NotCovered},
		{differs, NotVerified, NotCovered},
		{&report.KeyResult{ConfigKey: "k", Verdict: compare.Unsupported, Rows: []report.RowResult{{Verdict: compare.Unsupported, Message: "no launcher"}}}, InSync, NotVerified},
		{&report.KeyResult{ConfigKey: "k", Verdict: compare.NotApplicable, Note: "single-node policy"}, InSync, NotApplicable},
	} {
		it := keyItem(SourceVLLM, c.k, c.was)
		if it.State != c.want || it.ID != "vllm-recipes:k" {
			t.Errorf("%s after %q: %s (%s), want %s", c.k.Verdict, c.was, it.State, it.ID, c.want)
		}
	}
	it := keyItem(SourcePages, differs, InSync)
	if want := []string{"agg: --tensor-parallel-size: 8 → 4", "decode: no upstream role covers TP8 (nearest misses: hardware)"}; !slices.Equal(it.Changes, want) {
		t.Errorf("changes %q, want %q", it.Changes, want)
	}
	if it := keyItem(SourcePages, &report.KeyResult{ConfigKey: "k", Verdict: compare.Unsupported, Rows: []report.RowResult{{Verdict: compare.Unsupported, Message: "no launcher"}}}, ""); it.Reason != "unsupported: no launcher" {
		t.Errorf("reason %q", it.Reason)
	}
	unknown := &report.KeyResult{ConfigKey: "k", Verdict: compare.ContentNotKnown, Rows: []report.RowResult{{Verdict: compare.ContentNotKnown, Roles: []report.RoleMatch{
		{Role: "agg", Verdict: compare.ContentNotKnown, Result: &compare.Result{Unknown: []compare.Difference{{Setting: "env HSA_NO_SCRATCH_RECLAIM"}}}}}}}}
	if it := keyItem(SourcePages, unknown, InSync); it.State != NotVerified || it.Reason != "content not known: the value of agg: env HSA_NO_SCRATCH_RECLAIM is not known on one side" {
		t.Errorf("unknown: %s %q", it.State, it.Reason)
	}
}

// TestDriftCache: a pinned commit's points are kept in the cache and read
// back the same (a warm nightly judges no pinned commit again); a cookbook
// edit changes the key.
func TestDriftCache(t *testing.T) {
	f := newFixture(t)
	cb := f.cookbook(t, f.pinned, nil)
	cache, err := runcache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	co := coverage.Options{InfxDir: f.h.Dir, CookbookDirs: []string{cb}}
	cold := run(t, Options{Coverage: co})
	co.Cache = cache
	first := run(t, Options{Coverage: co})
	keys := []string{fixtureKey, "qwen3.5-fp4-b200-sglang-agentic-mtp", fixtureKey + "-retired"} // the snippet's keys, in point order
	key, err := pinnedKey(cache, co, cb, f.pinned+":.", keys)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cache.Get(key); !ok {
		t.Fatal("no cache entry for the pinned commit")
	}
	warm := run(t, Options{Coverage: co})
	for _, r := range []*Result{first, warm} {
		if codes(r) != codes(cold) || !slices.EqualFunc(r.Items, cold.Items, func(a, b Item) bool {
			return a.ID == b.ID && a.State == b.State && a.Reason == b.Reason && slices.Equal(a.Changes, b.Changes)
		}) {
			t.Errorf("cached run %s differs from the uncached %s", codes(r), codes(cold))
		}
	}
	// the cache entry under another cookbook content is another key
	edited := f.cookbook(t, f.pinned, func(s string) string { return strings.ReplaceAll(s, "\"0.85\"", "\"0.8\"") })
	other, err := pinnedKey(cache, co, edited, f.pinned+":.", keys)
	if err != nil || other == key {
		t.Errorf("edited cookbook: key %v (same: %v)", err, other == key)
	}
}

// TestDriftVLLM: vLLM keys (coverage's vLLM fixture: no provenance) drift
// against the previous run's state — on a first run every key not covered
// is new; a key the previous state had in sync and that is not covered now
// is "coverage lost" (new), and stays so, not new, the next night.
func TestDriftVLLM(t *testing.T) {
	fx := filepath.Join("..", "coverage", "testdata", "vllm")
	co := coverage.Options{InfxDir: filepath.Join(fx, "inferencex"), VLLMRecipesDir: filepath.Join(fx, "recipes")}
	first := run(t, Options{Coverage: co})
	var got []string
	for _, it := range first.Items {
		got = append(got, it.ID+"="+string(it.State))
	}
	want := []string{"vllm-recipes:comet-fp8-h200-vllm=not covered", "vllm-recipes:comet-fp8-h200-vllm-mtp=not covered",
		"vllm-recipes:comet-fp8-h200-vllm-noscript=not verified", "vllm-recipes:comet-fp8-gb200-dynamo-vllm=not covered"}
	if !slices.Equal(got, want) || !first.Failed || first.New != 4 {
		t.Fatalf("first run: %q failed %v new %d", got, first.Failed, first.New)
	}
	if it := first.Items[1]; it.File != "configs/nvidia-master.yaml" || it.Line == 0 || len(it.Changes) == 0 {
		t.Errorf("item %+v: want its master-config place and its differences", it)
	}
	prev := first.Snapshot()
	for i := range prev.Items {
		if prev.Items[i].ID == "vllm-recipes:comet-fp8-h200-vllm-mtp" {
			prev.Items[i].State = InSync // last night the mtp key was covered
		}
	}
	res := run(t, Options{Coverage: co, Previous: prev})
	if it := res.Items[1]; it.State != CoverageLost || !it.New || it.Previous != InSync || !res.Failed || res.New != 1 {
		t.Fatalf("coverage lost: %+v failed %v new %d", it, res.Failed, res.New)
	}
	res = run(t, Options{Coverage: co, Previous: res.Snapshot()})
	if it := res.Items[1]; it.State != CoverageLost || it.New || res.Failed {
		t.Errorf("the next night: %+v failed %v", it, res.Failed)
	}
}

// TestDriftHostile: a snippet that repeats a cell id is bad input (the ids
// name items in the state and the baseline); a pinned commit whose tree
// cannot be judged (its master config does not parse) makes its points
// not verified — never "not available", never in sync.
func TestDriftHostile(t *testing.T) {
	f := newFixture(t)
	dup := f.cookbook(t, f.pinned, func(s string) string {
		return strings.Replace(s, `"id": "qwen3.5-fp8-b200-sglang-agentic-mtp#1"`, `"id": "qwen3.5-fp8-b200-sglang-agentic-mtp#0"`, 1)
	})
	_, err := Run(context.Background(), Options{Coverage: coverage.Options{InfxDir: f.h.Dir, CookbookDirs: []string{dup}}})
	if err == nil || !strings.Contains(err.Error(), "qwen3.5-scripts.jsx:171:4: cells[1].id: duplicate cell id") {
		t.Errorf("a repeated cell id: %v, want the reader's file:line:col error (ids name items in the state)", err)
	}

	g := newFixture(t)
	master := read(t, filepath.Join(g.h.Dir, "configs", "nvidia-master.yaml"))
	g.h.Write(map[string]string{"configs/nvidia-master.yaml": master + "\n  broken: [\n"})
	broken := g.h.Commit("a master config that does not parse")
	g.h.Write(map[string]string{"configs/nvidia-master.yaml": master})
	g.h.Commit("fixed")
	cb := g.cookbook(t, broken, nil)
	res := run(t, Options{Coverage: coverage.Options{InfxDir: g.h.Dir, CookbookDirs: []string{cb}}})
	if got := codes(res); got != "VVVVVVVV" || !res.Failed || res.PinnedAvailable != 1 {
		t.Fatalf("broken pinned tree: states %s failed %v available %d", got, res.Failed, res.PinnedAvailable)
	}
	if r := res.Items[0].Reason; !strings.HasPrefix(r, "not judged at the pinned commit "+broken[:12]+": ") || strings.Contains(r, os.TempDir()) {
		t.Errorf("reason %q", r)
	}
}

// TestDriftBare: a bare repository is judged at its HEAD (read-only copy),
// with the same states as its work tree.
func TestDriftBare(t *testing.T) {
	f := newFixture(t)
	f.h.Write(map[string]string{scriptPath: strings.Replace(f.script, "--mem-fraction-static 0.85", "--mem-fraction-static 0.9", 1)})
	f.h.Commit("Raise the memory fraction (#9101)")
	cb := f.cookbook(t, f.pinned, nil)
	bare := filepath.Join(t.TempDir(), "InferenceX.git")
	if _, err := git.PlainClone(bare, true, &git.CloneOptions{URL: f.h.Dir}); err != nil {
		t.Fatal(err)
	}
	res := run(t, Options{Coverage: coverage.Options{InfxDir: bare, CookbookDirs: []string{cb}}})
	if got := codes(res); got != "MMCMVVVV" || res.InferenceX.Dir != bare {
		t.Errorf("bare: states %s, dir %q", got, res.InferenceX.Dir)
	}
}

// TestDriftHeadChanges: what head changes that Check 3 does not count as a
// gap still moves InferenceX — a row no longer running the point's
// concurrency, an engine image tag (informational) — and a deployment
// that drifts again in another way is new again, while a run scoped to
// one key keeps the others' state.
func TestDriftHeadChanges(t *testing.T) {
	f := newFixture(t)
	cb := f.cookbook(t, f.pinned, nil)
	co := coverage.Options{InfxDir: f.h.Dir, CookbookDirs: []string{cb}}
	first := run(t, Options{Coverage: co})
	master := read(t, filepath.Join(f.h.Dir, "configs", "nvidia-master.yaml"))

	// row 0 no longer runs concurrency 4 (cell 0's point 0)
	f.h.Write(map[string]string{"configs/nvidia-master.yaml": strings.Replace(master, "conc-list: [1, 4, 8]", "conc-list: [1, 8]", 1)})
	f.h.Commit("drop concurrency 4")
	res := run(t, Options{Coverage: co, Previous: first.Snapshot()})
	it := item(t, res, fixtureKey+"#0", 0)
	if it.State != InfxMoved || len(it.Changes) != 1 || !strings.HasPrefix(it.Changes[0], "no search-space row runs the point's concurrency any more: no row of "+fixtureKey) {
		t.Errorf("concurrency dropped: %s %q", it.State, it.Changes)
	}
	if it := item(t, res, fixtureKey+"#0", 1); it.State != InSync {
		t.Errorf("concurrency 8, still run: %s %q", it.State, it.Changes)
	}

	// an engine image bump: informational for Check 3, a change for a sync
	f.h.Write(map[string]string{"configs/nvidia-master.yaml": strings.Replace(master, "lmsysorg/sglang:v0.5.16-cu130", "lmsysorg/sglang:v0.5.99-cu130", 1)})
	f.h.Commit("bump the image")
	moved := run(t, Options{Coverage: co, Previous: first.Snapshot()})
	it = item(t, moved, fixtureKey+"#0", 1)
	if it.State != InfxMoved || !slices.ContainsFunc(it.Changes, func(c string) bool {
		return strings.Contains(c, "v0.5.16-cu130 → lmsysorg/sglang:v0.5.99-cu130 (informational)")
	}) {
		t.Errorf("image bump: %s %q", it.State, it.Changes)
	}

	// moved again in another way: new again
	f.h.Write(map[string]string{
		"configs/nvidia-master.yaml": strings.Replace(master, "lmsysorg/sglang:v0.5.16-cu130", "lmsysorg/sglang:v0.5.99-cu130", 1),
		scriptPath:                   strings.Replace(f.script, "--mem-fraction-static 0.85", "--mem-fraction-static 0.9", 1),
	})
	f.h.Commit("raise the memory fraction too")
	again := run(t, Options{Coverage: co, Previous: moved.Snapshot()})
	if it := item(t, again, fixtureKey+"#0", 1); it.State != InfxMoved || !it.New || it.Previous != InfxMoved {
		t.Errorf("moved again: %s new %v previous %s", it.State, it.New, it.Previous)
	}

	// a run scoped to one key keeps the state of the others
	scoped := co
	scoped.ConfigKeys = []string{fixtureKey + "-retired"}
	part := run(t, Options{Coverage: scoped, Previous: again.Snapshot()})
	if n, want := len(part.Snapshot().Items), len(again.Snapshot().Items); len(part.Items) != 1 || n != want {
		t.Errorf("scoped: %d items judged, state of %d items, want 1 and %d", len(part.Items), n, want)
	}
}

// TestDriftBadPins: a prov.sha that is no commit id, or an abbreviation
// two commits share, pins nothing known: not verified, never in sync; a
// checkout older than the pinned commit is not compared backwards.
func TestDriftBadPins(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct{ sha, want string }{
		{"main", `prov.sha "main" is not a commit sha`},
		{"HEAD~1", `prov.sha "HEAD~1" is not a commit sha`},
		{strings.ToUpper(f.pinned), "is not a commit sha"},
	} {
		res := run(t, Options{Coverage: coverage.Options{InfxDir: f.h.Dir, CookbookDirs: []string{f.cookbook(t, c.sha, nil)}}})
		if codes(res) != "VVVVVVVV" || !strings.Contains(res.Items[0].Reason, c.want) {
			t.Errorf("prov.sha %q: %s %q", c.sha, codes(res), res.Items[0].Reason)
		}
	}
	// head behind the pinned commit
	f.h.Write(map[string]string{scriptPath: strings.Replace(f.script, "--mem-fraction-static 0.85", "--mem-fraction-static 0.9", 1)})
	later := f.h.Commit("later")
	wt, err := f.h.Repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Hash: plumbing.NewHash(f.pinned), Force: true}); err != nil {
		t.Fatal(err)
	}
	res := run(t, Options{Coverage: coverage.Options{InfxDir: f.h.Dir, CookbookDirs: []string{f.cookbook(t, later, nil)}}})
	if codes(res) != "VVVVVVVV" || !strings.Contains(res.Items[0].Reason, "is older than the pinned commit") || res.PinnedAvailable != 1 {
		t.Errorf("head behind: %s %q, %d pinned commits available", codes(res), res.Items[0].Reason, res.PinnedAvailable)
	}
}

// TestBaselineMatch: of the entries naming an item, a current one accepts
// it before an expired one, the later expiry first; an entry recording
// changes accepts those changes only.
func TestBaselineMatch(t *testing.T) {
	now := time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)
	it := &Item{ID: "a", State: InfxMoved, Changes: []string{"agg: --x: 1 → 2"}}
	b := &Baseline{Entries: []Entry{
		{ID: "a", Reason: "old", Expires: "2001-01-01"},
		{ID: "a", State: CookbookDrifted, Reason: "other state", Expires: "2099-01-01"},
		{ID: "a", State: InfxMoved, Reason: "current", Expires: "2027-01-01"},
		{ID: "a", Reason: "later", Expires: "2028-01-01"},
	}}
	if j := b.match(it, now); j != 3 {
		t.Errorf("match %d, want the current entry expiring last (3)", j)
	}
	b.Entries = b.Entries[:2]
	if j := b.match(it, now); j != 0 || !b.Entries[j].expired(now) {
		t.Errorf("match %d, want the expired one (0)", j)
	}
	b.Entries = []Entry{{ID: "a", Reason: "r", Expires: "2099-01-01", Changes: "0000000000000000"}}
	if j := b.match(it, now); j != -1 {
		t.Errorf("other changes accepted by %d", j)
	}
	b.Entries[0].Changes = it.changesDigest()
	if j := b.match(it, now); j != 0 {
		t.Errorf("its changes not accepted: %d", j)
	}
	// renewing an expired entry keeps its reason unless one is given
	res := &Result{Items: []Item{{ID: "a", State: InfxMoved, Fails: true}}}
	up := UpdateBaseline(&Baseline{Entries: []Entry{{ID: "a", Reason: "why it is fine", Expires: "2001-01-01"}}}, res, "", now, 30)
	if len(up.Entries) != 1 || up.Entries[0].Reason != "why it is fine" || up.Entries[0].Expires != "2027-01-03" {
		t.Errorf("renewed %+v", up.Entries)
	}
}
