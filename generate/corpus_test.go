package generate

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// qwen35Options are the generate options of the Qwen3.5 corpus run: the
// InferenceX files under ../shared/corpus/pairs are master configs at
// 5b394d39 (MASTER_KEYS.tsv), the head of PR #3606 in the upstream file's
// source.prs; main is the upstream file's source.main.
func qwen35Options() Options {
	return Options{
		Model: "qwen3.5", DisplayName: "Qwen3.5", GeneratedOn: "2026-10-08",
		Source: cookbook.SyncSource{
			Main: "ceb50ba212080174e0563d2be1db9b0d654ab2ef",
			PRs:  map[string]cookbook.SyncPR{"3606": {SHA: "5b394d395eefcaacd5168e04aca95020adac5312", Status: "in-progress"}},
		},
	}
}

// TestCorpusGenerateQwen35 generates the Qwen3.5 data from the InferenceX
// files under ../shared/corpus/pairs, twice (byte-identical), checks that it
// decodes back identically, and compares it with the upstream
// docs/src/snippets/agentx/Qwen/qwen3.5.jsx (logged with -v): the cells the
// checkout can render must exist upstream under the same id (with
// --previous), with the upstream label.
func TestCorpusGenerateQwen35(t *testing.T) {
	root := testutil.SharedPath(t, "corpus/pairs/inferencex")
	upstream, err := cookbook.ReadFile(testutil.SharedPath(t, "corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx"))
	if err != nil {
		t.Fatal(err)
	}
	gen := func(prev *cookbook.File) *Result {
		ws, err := infx.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		opt := qwen35Options()
		opt.Previous = prev
		g, err := Run(t.Context(), ws, opt)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	a, b := gen(nil), gen(nil)
	if !bytes.Equal(a.Bytes, b.Bytes) {
		t.Fatalf("two runs differ: %s", lineDiff(b.Bytes, a.Bytes))
	}
	fa, err := cookbook.Parse("qwen3.5.jsx", a.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	// Decodes back identically: re-encoding the parsed data gives the same
	// bytes, and every selection of both decodes the same.
	again, err := cookbook.EncodeFile(fa)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, a.Bytes) {
		t.Fatalf("Encode(Parse(generated)) differs: %s", lineDiff(again, a.Bytes))
	}
	fb, _ := cookbook.Parse("qwen3.5.jsx", b.Bytes)
	if err := sameDecoding(fa, fb); err != nil {
		t.Fatal(err)
	}
	if len(fa.Cells) == 0 {
		t.Fatal("no cell generated")
	}
	if !bytes.Contains(a.Bytes, []byte(`"patch": {`)) {
		t.Error("no per-point patch in the output (fp8 agg-pareto rows 0-3 differ by --max-running-requests)")
	}

	// With the upstream file as --previous: ids and order follow upstream.
	p := gen(upstream)
	fp, err := cookbook.Parse("qwen3.5.jsx", p.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	upIdx := map[string]int{}
	for i, c := range upstream.Cells {
		upIdx[c.ID] = i
	}
	last := -1
	matched := 0
	for ci := range fp.Cells {
		c := &fp.Cells[ci]
		ui, ok := upIdx[c.ID]
		if !ok {
			t.Logf("cell %s (%s): not upstream", c.ID, c.Label)
			continue
		}
		matched++
		if ui < last {
			t.Errorf("cell %s: upstream order not kept", c.ID)
		}
		last = ui
		u := &upstream.Cells[ui]
		t.Logf("cell %s: label %q (upstream %q), detail %q (upstream %q), gpus %d (upstream %d), submitted %s (upstream %s), points %s (upstream %s)",
			c.ID, c.Label, u.Label, c.Detail, u.Detail, c.GPUs, u.GPUs, c.Submitted, u.Submitted, pointsSummary(c), pointsSummary(u))
		for pi, pt := range c.Points {
			upi := slices.IndexFunc(u.Points, func(q cookbook.Point) bool { return q.Item == pt.Item && slices.Equal(q.Concs, pt.Concs) })
			if upi < 0 {
				t.Logf("  point %d %v item %d: no upstream point", pi, pt.Concs, pt.Item)
				continue
			}
			for _, r := range []string{"dynamo", "sglang"} {
				for _, line := range compareCells(fp, ci, pi, upstream, ui, upi, r) {
					t.Logf("  point %d %v %s: %s", pi, pt.Concs, r, line)
				}
			}
		}
	}
	t.Logf("generated %d cells (%d points skipped: not in this checkout); %d have an upstream cell with the same id; upstream has %d cells",
		len(fp.Cells), len(p.Skipped), matched, len(upstream.Cells))
	// One cell per config key × search-space row: the 16 renderable rows
	// (fp4 agg 7, fp8 agg-pareto 5, fp8 pp-pareto 4), ids "<key>#<row>".
	ws, err := infx.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	opt := qwen35Options()
	opt.CellPerRow = true
	pr, err := Run(t.Context(), ws, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Data.Cells) != 16 {
		t.Errorf("--cell-per-row: %d cells, want 16", len(pr.Data.Cells))
	}
	for _, c := range pr.Data.Cells {
		if len(c.Points) != 1 || c.ID != c.ConfigKey+"#"+strconv.Itoa(c.Points[0].Item) {
			t.Errorf("--cell-per-row: cell %s has %d points", c.ID, len(c.Points))
		}
	}
	// Real values from the upstream file: the 5P3D PP cell of the fp8 GB300
	// pp-pareto key.
	const id = "qwen3.5-fp8-gb300-dynamo-sglang-agentic-pp-pareto#0"
	ci, err := fp.CellIndex(id)
	if err != nil {
		t.Fatal(err)
	}
	if c := fp.Cells[ci]; c.Label != "Disagg 5P3D · prefill TP1 · decode DEP4" || c.Submitted != "dynamo" || c.GPUs != 32 {
		t.Errorf("%s: label %q submitted %s gpus %d, want upstream's \"Disagg 5P3D · prefill TP1 · decode DEP4\", dynamo, 32", id, c.Label, c.Submitted, c.GPUs)
	}
}

func pointsSummary(c *cookbook.Cell) string {
	var s []string
	for _, p := range c.Points {
		s = append(s, fmt.Sprintf("%v/%d/%s", p.Concs, p.Item, p.KV))
	}
	return strings.Join(s, " ")
}

// compareCells compares a point of two cells on router r at the generated
// cell's measured KV tier, block by block (matched by kind and role): the
// flags and env vars only one side has, and values that differ.
func compareCells(a *cookbook.File, ai, api int, b *cookbook.File, bi, bpi int, r string) []string {
	kv := a.Cells[ai].Points[api].KV
	da, err := a.Decode(cookbook.Selection{Cell: ai, Point: api, Router: r, KV: kv})
	if err != nil {
		return []string{err.Error()}
	}
	db, err := b.Decode(cookbook.Selection{Cell: bi, Point: bpi, Router: r, KV: kv})
	if err != nil {
		return []string{"upstream: " + err.Error()}
	}
	var out []string
	used := map[int]bool{}
	for i := range da.Deployment.Processes {
		pa := &da.Deployment.Processes[i]
		j := slices.IndexFunc(db.Deployment.Processes, func(q launch.Process) bool { return q.Kind == pa.Kind && q.Role == pa.Role })
		name := string(pa.Kind)
		if pa.Role != "" {
			name += "/" + string(pa.Role)
		}
		if j < 0 {
			out = append(out, name+": only generated")
			continue
		}
		used[j] = true
		pb := &db.Deployment.Processes[j]
		if d := diffSettings(pa, pb); d != "" {
			out = append(out, name+": "+d)
		} else {
			out = append(out, name+": same")
		}
	}
	for j := range db.Deployment.Processes {
		if !used[j] {
			q := &db.Deployment.Processes[j]
			out = append(out, string(q.Kind)+"/"+string(q.Role)+": only upstream")
		}
	}
	return out
}

func diffSettings(a, b *launch.Process) string {
	am, bm := map[string]string{}, map[string]string{}
	for _, x := range a.Args {
		am[x.Flag] = strings.Join(x.Values, " ")
	}
	for _, x := range b.Args {
		bm[x.Flag] = strings.Join(x.Values, " ")
	}
	for _, e := range a.Env {
		am["env "+e.Name] = e.Value
	}
	for _, e := range b.Env {
		bm["env "+e.Name] = e.Value
	}
	var onlyA, onlyB, diff []string
	for k, v := range am {
		w, ok := bm[k]
		switch {
		case !ok:
			onlyA = append(onlyA, k)
		case v != w:
			diff = append(diff, k+" "+v+" vs "+w)
		}
	}
	for k := range bm {
		if _, ok := am[k]; !ok {
			onlyB = append(onlyB, k)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	sort.Strings(diff)
	var parts []string
	if a.Program != b.Program {
		parts = append(parts, "program "+a.Program+" vs "+b.Program)
	}
	if len(onlyA) > 0 {
		parts = append(parts, "only generated: "+strings.Join(onlyA, ", "))
	}
	if len(onlyB) > 0 {
		parts = append(parts, "only upstream: "+strings.Join(onlyB, ", "))
	}
	if len(diff) > 0 {
		parts = append(parts, "differ: "+strings.Join(diff, "; "))
	}
	return strings.Join(parts, " | ")
}
