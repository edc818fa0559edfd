package coverage

import (
	"bufio"
	"context"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	infxpkg "github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// corpusDirs returns ../shared/corpus/pairs/inferencex,
// ../shared/corpus/sglang and ../shared/corpus/pairs/PAIRS.tsv
// (testutil.SharedPath: skipped only under -short or when ../shared is
// absent).
func corpusDirs(t testing.TB) (infx, sglang, pairs string) {
	t.Helper()
	return testutil.SharedPath(t, "corpus/pairs/inferencex"), testutil.SharedPath(t, "corpus/sglang"), testutil.SharedPath(t, "corpus/pairs/PAIRS.tsv")
}

type pairRow struct {
	file, cellID, recipe, selector string
	cell, point                    int
	saved                          bool
}

// readPairs reads PAIRS.tsv (test data: which cells cite which recipe and
// whether the corpus saved it).
func readPairs(t testing.TB, p string) []pairRow {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var hdr map[string]int
	var out []pairRow
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if hdr == nil {
			hdr = map[string]int{}
			for i, c := range cols {
				hdr[c] = i
			}
			continue
		}
		get := func(k string) string { return cols[hdr[k]] }
		ci, _ := strconv.Atoi(get("cell_index"))
		pi, _ := strconv.Atoi(get("point_index"))
		out = append(out, pairRow{file: get("data_file"), cellID: get("cell_id"), recipe: get("recipe_path"),
			selector: get("override_selector"), cell: ci, point: pi, saved: get("saved") == "yes"})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorpusCoverage runs coverage on the pairs corpus: every point whose
// cited YAML recipe is in the tree gets role verdicts, absent recipes are
// "recipe not found" (or "upstream-only" when the master-config row runs a
// CONFIG_FILE=recipes/… recipe that is not in the tree), shell scripts (none
// are in the corpus) "script not found", all of them not verified (a gap),
// and no point is an error.
func TestCorpusCoverage(t *testing.T) {
	infx, sglang, pairs := corpusDirs(t)
	rep, err := Run(context.Background(), Options{InfxDir: infx, CookbookDirs: []string{sglang}})
	if err != nil {
		t.Fatal(err)
	}
	rows := readPairs(t, pairs)
	ws, _ := infxpkg.Open(infx)
	upstreamOnly, unverified := 0, 0
	for _, r := range rows {
		if !r.saved {
			unverified++ // recipe or script not in the corpus
		}
	}
	byKey := map[string]*report.PointResult{}
	for i := range rep.Points {
		p := &rep.Points[i]
		byKey[strings.TrimPrefix(p.File, "docs/src/snippets/agentx/")+"|"+strconv.Itoa(p.Cell)+"|"+strconv.Itoa(p.Point)] = p
	}
	if len(rep.Points) != len(rows) {
		t.Errorf("%d cited points, PAIRS.tsv has %d", len(rep.Points), len(rows))
	}
	for _, r := range rows {
		p := byKey[r.file+"|"+strconv.Itoa(r.cell)+"|"+strconv.Itoa(r.point)]
		if p == nil {
			t.Errorf("%s cell %d point %d: not in the report", r.file, r.cell, r.point)
			continue
		}
		if p.CellID != r.cellID || p.Recipe != r.recipe || p.Selector != r.selector {
			t.Errorf("%s point %d: cites %s:%s, PAIRS.tsv %s:%s", p.CellID, p.Point, p.Recipe, p.Selector, r.recipe, r.selector)
		}
		switch {
		case strings.HasSuffix(r.recipe, ".sh"):
			// PAIRS.tsv: "shell script: not in this corpus (upstream code)"
			if r.saved || p.Status != report.StatusScriptNotFound || p.Drift.Detail != "script not in the InferenceX checkout" {
				t.Errorf("%s point %d: status %q (%s), want script not found", p.CellID, p.Point, p.Status, p.Drift.Detail)
			}
		case !r.saved:
			// An absent repository path is "recipe not found", unless the
			// master-config row the point was measured as runs a
			// CONFIG_FILE=recipes/… recipe that is not in the checkout
			// (infx: upstream-only, it lives in NVIDIA/srt-slurm).
			want := report.StatusRecipeNotFound
			if p.Row != nil && ws != nil {
				for _, mp := range wsPoints(t, ws, p.ConfigKey) {
					if mp.Row == *p.Row && strings.HasPrefix(mp.RecipeRef, "recipes/") && mp.Recipe == "" {
						want = report.StatusUpstreamOnly
					}
				}
			}
			if p.Status != want {
				t.Errorf("%s point %d: status %q, want %s (%s)", p.CellID, p.Point, p.Status, want, p.Message)
			}
			if p.Status == report.StatusUpstreamOnly {
				upstreamOnly++
			}
		default:
			if p.Status != report.StatusCompared {
				t.Errorf("%s point %d: status %q (%s), want compared", p.CellID, p.Point, p.Status, p.Message)
				continue
			}
			if len(p.Roles) == 0 || p.Verdict == "" {
				t.Errorf("%s point %d: no role verdicts", p.CellID, p.Point)
			}
			for _, res := range p.Roles {
				if res.Verdict.Rank() < 0 {
					t.Errorf("%s point %d %s: verdict %q", p.CellID, p.Point, res.Role, res.Verdict)
				}
			}
		}
		// The corpus is not a git checkout: drift is unknown, never guessed.
		if p.Drift.State != report.DriftUnknown && p.Status == report.StatusCompared {
			t.Errorf("%s point %d: drift %q, want unknown", p.CellID, p.Point, p.Drift.State)
		}
	}
	// NATS: srt-slurm v1 starts it for every job (setup_head.py,
	// srt-slurm.md §6), but the qwen3.5-fp8 b300/b200 Dynamo disagg recipes
	// are schema 2, run by srtctl 2.x, which starts NATS only when something
	// rides on it (§10b; request plane tcp here): like the cookbook cells,
	// they have no NATS, so no launcher-nats-unused role is left.
	natsInfo := 0
	for _, p := range rep.Points {
		for _, res := range p.Roles {
			if res.Verdict == compare.Missing {
				t.Errorf("%s point %d %s: missing (%s)", p.CellID, p.Point, res.Role, res.Note)
			}
			if res.Role == "nats" && len(res.Info) == 1 && res.Info[0].Rule == "launcher-nats-unused" {
				natsInfo++
				if !strings.Contains(p.CellID, "qwen3.5-fp8-b") || p.Router != "dynamo" || res.Verdict != compare.CoveredWithExclusions {
					t.Errorf("%s point %d nats: %s via launcher-nats-unused", p.CellID, p.Point, res.Verdict)
				}
			}
		}
	}
	if natsInfo != 0 {
		t.Errorf("%d NATS roles informational (launcher-nats-unused), want none (schema-2 recipes start no unused NATS)", natsInfo)
	}
	// Spec pair 2 (inferencex.md (b)): the old-layout qwen3.5 gb300-fp4
	// disagg c8 recipe hard-codes SGLANG_SIMULATE_ACC_* (synthetic
	// acceptance, excluded) and its decode env sets
	// SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 (Check 13, prohibited: inferencex.md
	// (d)), which the cookbook's decode worker carries too.
	p := byKey["Qwen/qwen3.5.jsx|16|0"]
	if p == nil || p.Status != report.StatusCompared {
		t.Fatalf("qwen3.5 cell 16 point 0: %+v", p)
	}
	if p.Router != "dynamo" || p.KV != "hicache" {
		t.Errorf("cell 16 measured selection %s/%s, want dynamo/hicache", p.Router, p.KV)
	}
	roles := map[string]compare.Result{}
	for _, r := range p.Roles {
		roles[r.Role] = r
	}
	dec := roles["decode"]
	if dec.Verdict != compare.Prohibited || len(dec.Prohibited) != 1 || dec.Prohibited[0].Setting != "env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE" ||
		deref(dec.Prohibited[0].InferenceX) != "1" || deref(dec.Prohibited[0].Upstream) != "1" {
		t.Errorf("cell 16 decode: %s %+v", dec.Verdict, dec.Prohibited)
	}
	pre := roles["prefill"]
	simulated := map[string]string{}
	for _, x := range pre.Excluded {
		if x.Class == "synthetic-acceptance" {
			simulated[x.Setting] = deref(x.InferenceX)
		}
	}
	wantSim := map[string]string{"env SGLANG_SIMULATE_ACC_LEN": "3.39", "env SGLANG_SIMULATE_ACC_METHOD": "match-expected", "env SGLANG_SIMULATE_ACC_TOKEN_MODE": "real-draft-token"}
	if pre.Verdict != compare.CoveredWithExclusions || len(pre.Differences) != 0 || !reflect.DeepEqual(simulated, wantSim) {
		t.Errorf("cell 16 prefill: %s, differences %+v, synthetic %v", pre.Verdict, pre.Differences, simulated)
	}
	// PAIRS.tsv rows 22/1, 22/2, 24/0, 24/1 (qwen3.5-fp4-gb200 agentic mtp)
	// cite old-layout recipes that are not saved; nvidia-master.yaml runs
	// those rows with CONFIG_FILE=recipes/qwen3.5/sglang/gb200-fp4/agentx/agg-variants.yaml.
	if upstreamOnly != 4 {
		t.Errorf("%d points upstream-only, want 4", upstreamOnly)
	}
	// Fail closed: every point not verified (absent recipe or script, or a
	// setting whose content is not known: srt-slurm's own
	// /configs/deepep_config.json without the srt-slurm checkout) is
	// counted and makes the run a gap.
	notKnown := 0
	for _, p := range rep.Points {
		if p.Verdict == compare.ContentNotKnown {
			notKnown++
			for _, res := range p.Roles {
				if res.Verdict == compare.ContentNotKnown && (len(res.Unknown) != 1 || res.Unknown[0].Setting != "--deepep-config") {
					t.Errorf("%s %s: unknown %+v, want --deepep-config", p.CellID, res.Role, res.Unknown)
				}
			}
		}
	}
	if notKnown != 1 {
		t.Errorf("%d points with content not known, want 1 (the deepep-config one)", notKnown)
	}
	unverified += notKnown
	if rep.Counts.Unverified != unverified || !rep.UnverifiedGap || !rep.Gap {
		t.Errorf("unverified %d (gap %v, unverifiedGap %v), want %d (PAIRS.tsv saved=no) and a gap", rep.Counts.Unverified, rep.Gap, rep.UnverifiedGap, unverified)
	}
	if os.Getenv("COVERAGE_DUMP") != "" {
		os.WriteFile(os.Getenv("COVERAGE_DUMP"), []byte(textOf(rep)), 0o644)
		md := markdownOf(rep)
		os.WriteFile(os.Getenv("COVERAGE_DUMP")+".md", []byte(md), 0o644)
	}
}

func wsPoints(t *testing.T, ws *infxpkg.Workspace, key string) []infxpkg.Point {
	t.Helper()
	pts, err := ws.Points(key)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return pts
}

// BenchmarkCoveragePairs measures a whole coverage run on the pairs corpus.
func BenchmarkCoveragePairs(b *testing.B) {
	infx, sglang, _ := corpusDirs(b)
	for b.Loop() {
		if _, err := Run(context.Background(), Options{InfxDir: infx, CookbookDirs: []string{sglang}}); err != nil {
			b.Fatal(err)
		}
	}
}
