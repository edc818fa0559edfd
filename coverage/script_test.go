package coverage

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// scriptFixture is compare/testdata/script: an old-layout InferenceX tree
// (configs/nvidia-master.yaml, one agentic single-node script) and an AgentX
// snippet whose cells cite it.
func scriptFixture() (infxDir, cookbookDir string) {
	d := filepath.Join("testdata", "script")
	return filepath.Join(d, "inferencex"), filepath.Join(d, "sglang")
}

// The expected values below are derived by hand from the fixture files: the
// master rows (0: TP8 conc 1,4,8; 1: TP4 EP4 DP-attention conc 8,16; 2 and
// 3: TP4 HiCache, both list conc 32), the script's branches, and the
// exclusion rules.
func TestCoverageScriptFixture(t *testing.T) {
	ixDir, cbDir := scriptFixture()
	rep, err := Run(context.Background(), Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		cellID  string
		point   int
		status  report.Status
		verdict compare.Verdict
		row     int // -1: none
		msg     string
	}
	const key = "qwen3.5-fp8-b200-sglang-agentic-mtp"
	wants := []want{
		{key + "#0", 0, report.StatusCompared, compare.CoveredWithExclusions, 0, "row 0"},
		// conc 8 without HiCache fits rows 0 and 1; the worker's TP8 picks row 0
		{key + "#0", 1, report.StatusCompared, compare.CoveredWithExclusions, 0, "row 0"},
		{key + "#1", 0, report.StatusCompared, compare.Differs, 1, "row 1"},
		// conc 32 with HiCache fits rows 2 and 3; item 2 picks row 2
		{key + "#2", 0, report.StatusCompared, compare.CoveredWithExclusions, 2, "row 2"},
		// ... and item 0 names neither
		{key + "#2", 1, report.StatusAmbiguous, compare.Ambiguous, -1, "2 search-space rows of " + key + " fit concurrency 32, KV tier hicache, TP4 EP1 and item 0: rows 2 ("},
		// conc 128 is in no row, but TP8/EP1/no DP attention/KV none/spec
		// select row 0 alone: compared at 128, as possible commit drift
		{key + "#3", 0, report.StatusCompared, compare.CoveredWithExclusions, 0, "possible commit drift: no row of " + key + " in the InferenceX checkout has concurrency 128; row 0 ("},
		{"qwen3.5-fp4-b200-sglang-agentic-mtp#0", 0, report.StatusScriptNotFound, compare.ScriptNotFound, -1, "single-node script benchmarks/single_node/agentic/qwen3.5_fp4_b200_sglang_mtp.sh is not in "},
		{key + "-retired#0", 0, report.StatusNoMatch, compare.NoMatch, -1, "config key " + key + "-retired is not in the master configs of the InferenceX checkout"},
	}
	if len(rep.Points) != len(wants) {
		t.Fatalf("%d points, want %d", len(rep.Points), len(wants))
	}
	for i, w := range wants {
		p := rep.Points[i]
		if p.CellID != w.cellID || p.Point != w.point || p.Status != w.status || p.Verdict != w.verdict || !strings.Contains(p.Message, w.msg) {
			t.Errorf("point %d: %s/%d %q %q %q, want %s/%d %q %q containing %q", i, p.CellID, p.Point, p.Status, p.Verdict, p.Message,
				w.cellID, w.point, w.status, w.verdict, w.msg)
		}
		switch {
		case w.row < 0 && p.Row != nil:
			t.Errorf("point %d: row %d, want none", i, *p.Row)
		case w.row >= 0 && (p.Row == nil || *p.Row != w.row || !strings.HasSuffix(p.RowPos, "nvidia-master.yaml:"+[]string{"17", "18", "19", "20"}[w.row]+":9")):
			t.Errorf("point %d: row %v at %q, want row %d", i, p.Row, p.RowPos, w.row)
		}
	}
	roleOf := func(i int) compare.Result {
		if len(rep.Points[i].Roles) != 1 || rep.Points[i].Roles[0].Role != "agg" {
			t.Fatalf("point %d roles %+v, want one agg (a single-node script starts one server; the cell has no router)", i, rep.Points[i].Roles)
		}
		return rep.Points[i].Roles[0]
	}
	exclusionsOf := func(xs []compare.Exclusion) []string {
		var out []string
		for _, x := range xs {
			out = append(out, x.Setting+" "+deref(x.Upstream)+"->"+deref(x.InferenceX)+" "+x.Rule)
		}
		return out
	}
	// #0 point 0 (conc 4): the script's CONC-dependent values equal the
	// cookbook's (--cuda-graph-max-bs 4, --scheduler-recv-interval 10 since
	// CONC is not > 4). Matched: program, 15 flags (model, host,
	// trust-remote-code, TP, attention backend, mem fraction, context length,
	// cuda graph bs, recv interval, 4 speculative flags, 2 parsers), 2 env,
	// workers, nodes-per-worker = 20, and the image (the cell's
	// lmsysorg/sglang:v0.5.16-cu130, the master config's the script runs
	// in) = 21.
	a := roleOf(0)
	wantEx := []string{
		"--served-model-name Qwen/Qwen3.5-397B-A17B-FP8-><absent> placement-served-model-name",
		"--port 30000->8888 harness-port",
		"--enable-metrics <absent>-> collection-enable-metrics",
		"env SGLANG_SIMULATE_ACC_LEN <absent>->3.39 synthetic-simulate-acc",
		"env SGLANG_SIMULATE_ACC_METHOD <absent>->match-expected synthetic-simulate-acc",
	}
	if a.Matched != 21 || len(a.Differences) != 0 || len(a.Info) != 0 || !reflect.DeepEqual(exclusionsOf(a.Excluded), wantEx) {
		t.Errorf("#0 point 0 agg: matched %d, differences %+v, info %v\nexcluded %v\nwant     %v", a.Matched, a.Differences, exclusionsOf(a.Info), exclusionsOf(a.Excluded), wantEx)
	}
	// #0 point 1 (conc 8): same launch in the cookbook, the script sizes
	// the graph to 8 and switches the recv interval to 30 — sweep-derived
	// values, informational.
	a = roleOf(1)
	wantInfo := []string{
		"--cuda-graph-max-bs-decode 4->8 judgment-cuda-graph-max-bs",
		"--scheduler-recv-interval 10->30 judgment-scheduler-recv-interval",
	}
	if a.Matched != 19 || len(a.Differences) != 0 || !reflect.DeepEqual(exclusionsOf(a.Info), wantInfo) {
		t.Errorf("#0 point 1 agg: matched %d, differences %+v, info %v", a.Matched, a.Differences, exclusionsOf(a.Info))
	}
	// #1 (DP attention, row 1): the script's DP-attention branch adds
	// --moe-a2a-backend deepep, which the cookbook lacks.
	a = roleOf(2)
	if len(a.Differences) != 1 || a.Differences[0].Setting != "--moe-a2a-backend" || a.Differences[0].Upstream != nil || deref(a.Differences[0].InferenceX) != "deepep" {
		t.Errorf("#1 agg differences %+v", a.Differences)
	}
	if a.Matched != 24 {
		t.Errorf("#1 agg matched %d, want 24 (21 + --data-parallel-size, --enable-dp-attention, --expert-parallel-size)", a.Matched)
	}
	// #2 point 0 (row 2, KV_OFFLOADING=dram): the HiCache flags match.
	if a := roleOf(3); a.Matched != 24 || len(a.Differences) != 0 || len(a.Info) != 0 {
		t.Errorf("#2 agg: matched %d, differences %+v, info %v", a.Matched, a.Differences, exclusionsOf(a.Info))
	}
	if d := rep.Points[5].Drift; d.State != report.DriftChanged || !strings.Contains(d.Detail, "has concurrency 128") {
		t.Errorf("#3 drift = %+v, want changed (concurrency moved)", d)
	}
	wantCounts := map[string]int{"covered-with-exclusions": 4, "differs": 1, "ambiguous point": 1, "no matching point": 1, "script not found": 1}
	if !reflect.DeepEqual(rep.Counts.Points, wantCounts) {
		t.Errorf("point counts %v, want %v", rep.Counts.Points, wantCounts)
	}
	if !rep.Gap || rep.Errors {
		t.Errorf("gap %v errors %v, want a gap (the #1 difference) and no error", rep.Gap, rep.Errors)
	}
	// ambiguous 1 + no matching point 1 + script not found 1: not verified
	if rep.Counts.Unverified != 3 || !rep.UnverifiedGap {
		t.Errorf("unverified %d (gap %v), want 3, failing closed", rep.Counts.Unverified, rep.UnverifiedGap)
	}
	// The Markdown printer has its own golden tests (package report); here
	// only: it names the gap verdicts and the not-verified points.
	md := markdownOf(rep)
	for _, s := range []string{string(compare.Differs), "not verified"} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
}

// MatchPoint narrows the rows that list the point's concurrencies and KV
// tier by topology, then by item; selectors that fit no row are skipped.
func TestMatchPoint(t *testing.T) {
	ixDir, _ := scriptFixture()
	ws, err := infx.Open(ixDir)
	if err != nil {
		t.Fatal(err)
	}
	const key = "qwen3.5-fp8-b200-sglang-agentic-mtp"
	for _, c := range []struct {
		name   string
		q      PointQuery
		status report.Status
		row    int
	}{
		{"one row lists the conc", PointQuery{Concs: []int{4}, KV: "none"}, report.StatusCompared, 0},
		{"topology TP8", PointQuery{Concs: []int{8}, KV: "none", Topology: true, TP: 8, EP: 1, Spec: true}, report.StatusCompared, 0},
		{"topology DEP4", PointQuery{Concs: []int{8}, KV: "none", Topology: true, TP: 4, EP: 4, DPAttn: true, Spec: true}, report.StatusCompared, 1},
		{"no topology, item 1", PointQuery{Concs: []int{8}, KV: "none", Item: 1}, report.StatusCompared, 1},
		// TP2 fits neither row: skipped, the item decides
		{"topology fits no row", PointQuery{Concs: []int{8}, KV: "none", Topology: true, TP: 2, EP: 1, Spec: true, Item: 1}, report.StatusCompared, 1},
		{"KV tier picks the row", PointQuery{Concs: []int{16}, KV: "hicache"}, report.StatusCompared, 2},
		{"mooncake is not the row's backend", PointQuery{Concs: []int{16}, KV: "mooncake"}, report.StatusNoMatch, -1},
		{"two concs in one row", PointQuery{Concs: []int{32, 64}, KV: "hicache"}, report.StatusCompared, 3},
		{"concs span two rows", PointQuery{Concs: []int{16, 64}, KV: "hicache"}, report.StatusNoMatch, -1},
		{"ambiguous", PointQuery{Concs: []int{32}, KV: "hicache", Item: 7}, report.StatusAmbiguous, -1},
	} {
		m := MatchPoint(ws, key, c.q)
		if m.Status != c.status {
			t.Errorf("%s: status %q (%s), want %q", c.name, m.Status, m.Message, c.status)
			continue
		}
		if c.row >= 0 {
			if len(m.Points) != len(c.q.Concs) || m.Points[0].Row != c.row {
				t.Errorf("%s: points %+v, want row %d", c.name, m.Points, c.row)
				continue
			}
			for i, p := range m.Points {
				if p.Concurrency != c.q.Concs[i] {
					t.Errorf("%s: point %d conc %d, want %d", c.name, i, p.Concurrency, c.q.Concs[i])
				}
			}
		}
	}
	if m := MatchPoint(nil, key, PointQuery{Concs: []int{4}}); m.Status != report.StatusNoMatch || m.Message != "the InferenceX checkout has no master config: the script's matrix point (TP, EP, CONC, …) is unknown" {
		t.Errorf("no workspace: %+v", m)
	}
}

// TestCoverageScriptImage: a single-node point's image is compared like a
// multi-node worker's — the master config's `image:` (the container
// runners/launch_*.sh run the script in) against the AgentX cell's
// lmsysorg/sglang:v0.5.16-cu130. A pinned v0.5.12 is engine-version drift:
// informational under the default policy (09813166: image tags are
// plumbing), a difference under 2026-06-complete; another repository is a
// difference; a floating master tag is informational.
func TestCoverageScriptImage(t *testing.T) {
	ixDir, cbDir := scriptFixture()
	const drift = "engine-version drift: upstream v0.5.16-cu130, InferenceX v0.5.12-cu130 (sglang 0.5.16 vs 0.5.12)"
	for _, c := range []struct {
		image, policy string
		verdict       compare.Verdict
		note          string // the image difference's note; "" for none
		info          string // the image's informational rule; "" for none
	}{
		{"lmsysorg/sglang:v0.5.12-cu130", "", compare.CoveredWithExclusions, "", "judgment-image-version"},
		{"lmsysorg/sglang:v0.5.12-cu130", "2026-06-complete", compare.Differs, drift, ""},
		{"rocm/sgl-dev:v0.5.16-cu130", "", compare.Differs, "another image repository: upstream docker.io/lmsysorg/sglang, InferenceX docker.io/rocm/sgl-dev", ""},
		{"lmsysorg/sglang:dev", "", compare.CoveredWithExclusions, "", compare.ImageFloatingRule},
	} {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(ixDir)); err != nil {
			t.Fatal(err)
		}
		master := filepath.Join(dir, "configs", "nvidia-master.yaml")
		b, err := os.ReadFile(master)
		if err != nil {
			t.Fatal(err)
		}
		b = []byte(strings.Replace(string(b), "image: lmsysorg/sglang:v0.5.16-cu130", "image: "+c.image, 1))
		if err := os.WriteFile(master, b, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), Options{InfxDir: dir, CookbookDirs: []string{cbDir}, ConfigKeys: []string{"qwen3.5-fp8-b200-sglang-agentic-mtp"}, Policy: c.policy})
		if err != nil {
			t.Fatal(err)
		}
		p := rep.Points[0] // #0 point 0: covered with the fixture's own image
		if p.Status != report.StatusCompared || p.Verdict != c.verdict || len(p.Roles) != 1 {
			t.Fatalf("%s %s: %s %s %+v", c.image, c.policy, p.Status, p.Verdict, p.Roles)
		}
		r := p.Roles[0]
		var note, info, reason string
		for _, d := range r.Differences {
			if d.Setting == "image" {
				note = d.Note
			}
		}
		for _, e := range r.Info {
			if e.Setting == "image" {
				info, reason = e.Rule, e.Reason
			}
		}
		if c.note != "" && !strings.HasPrefix(note, c.note) || c.note == "" && note != "" || info != c.info {
			t.Errorf("%s %s: image note %q, info %q; want %q, %q", c.image, c.policy, note, info, c.note, c.info)
		}
		if info == "judgment-image-version" && !strings.HasSuffix(reason, "; "+drift) {
			t.Errorf("%s %s: reason %q; want it to end with the drift", c.image, c.policy, reason)
		}
	}
}
