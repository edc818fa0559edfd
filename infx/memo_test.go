package infx

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// batchPoint opens a copy of testdata/batch and returns its one point of
// m1-fp8-mi355x-sglang-disagg (a batch job followed in the sandbox).
func batchPoint(t *testing.T) (*Workspace, []Point) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/batch")); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := ws.Points("m1-fp8-mi355x-sglang-disagg")
	if err != nil || len(pts) != 1 {
		t.Fatalf("points %v, %v", pts, err)
	}
	return ws, pts
}

// TestRenderMemo: a second Render of the same point in one Workspace is
// the remembered outcome (one memo entry), equal to the first, and a copy — changing
// what one caller got reaches neither the memo nor another caller. A point
// that differs in any field (here the concurrency, and a field the JSON
// form leaves out) is rendered on its own.
func TestRenderMemo(t *testing.T) {
	ws, pts := batchPoint(t)
	ctx := context.Background()
	// off by default: nothing is remembered
	if _, err := ws.Render(ctx, pts[0], Options{}); err != nil {
		t.Fatal(err)
	}
	if len(ws.memo) != 0 {
		t.Fatalf("memo entries without RememberRenders: %d", len(ws.memo))
	}
	ws.RememberRenders()
	first, err := ws.Render(ctx, pts[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := first.Clone()
	first.Processes[0].Args[0].Values = append(first.Processes[0].Args[0].Values, "changed")
	first.Processes[0].Program = "changed"
	second, err := ws.Render(ctx, pts[0], Options{})
	if err != nil {
		t.Fatalf("second render ran again: %v", err)
	}
	if !reflect.DeepEqual(second, want) {
		t.Errorf("second render differs from the first:\n%+v\n%+v", second, want)
	}
	if len(ws.memo) != 1 {
		t.Errorf("memo entries after two renders of one point: %d, want 1", len(ws.memo))
	}
	other := pts[0]
	other.Concurrency++
	if _, err := ws.Render(ctx, other, Options{}); err != nil {
		t.Fatal(err)
	}
	if len(ws.memo) != 2 {
		t.Errorf("memo entries after a point with another concurrency: %d, want 2", len(ws.memo))
	}
	hidden := pts[0]
	hidden.setupScript = "other.sh"
	if k1, _ := ws.memoKey(pts[0], Options{}); func() bool { k2, _ := ws.memoKey(hidden, Options{}); return k1 == k2 }() {
		t.Error("a field the JSON form leaves out is not in the memo key")
	}
	if k1, _ := ws.memoKey(pts[0], Options{}); func() bool { k2, _ := ws.memoKey(pts[0], Options{ScriptSteps: 7}); return k1 == k2 }() {
		t.Error("the step bound is not in the memo key")
	}
}

// TestRenderMemoKeepsNoTimeLimit: a wall-clock backstop or an interrupted
// run is never remembered.
func TestRenderMemoKeepsNoTimeLimit(t *testing.T) {
	for _, err := range []error{ErrScriptTimeLimit, context.Canceled, &PointError{Status: StatusTimeLimit}} {
		if memoizable(err) {
			t.Errorf("%v is remembered", err)
		}
	}
	for _, err := range []error{nil, &PointError{Status: StatusUnsupported}} {
		if !memoizable(err) {
			t.Errorf("%v is not remembered", err)
		}
	}
}

// TestForget: Forget drops the remembered renderings, the launcher runs
// and the batch jobs of one config key's points (another key's stay); a later Render
// of the key's point renders it again to the same outcome, and Prerender
// leaves the forgotten key's points alone.
func TestForget(t *testing.T) {
	ws, pts := batchPoint(t)
	ws.RememberRenders()
	ctx := context.Background()
	first, err := ws.Render(ctx, pts[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	other := pts[0]
	other.ConfigKey = "another-key" // a point of another key, remembered on its own
	if _, err := ws.Render(ctx, other, Options{}); err != nil {
		t.Fatal(err)
	}
	key := pts[0].ConfigKey
	if len(ws.memo) != 2 || len(ws.memoOf[key]) != 1 || len(ws.sn.runsOf[key]) == 0 {
		t.Fatalf("before Forget: %d memo entries, %d of the key, %d launcher runs of the key", len(ws.memo), len(ws.memoOf[key]), len(ws.sn.runsOf[key]))
	}
	if len(ws.batchOf[key]) == 0 || len(ws.batchJobs) == 0 {
		t.Fatalf("before Forget: %d batch jobs of the key, %d in all", len(ws.batchOf[key]), len(ws.batchJobs))
	}
	runs := len(ws.sn.runs)
	ws.Forget(key)
	if len(ws.batchOf[key]) != 0 || len(ws.batchJobs) != 0 {
		t.Errorf("after Forget: %d batch jobs of the key, %d in all (the other key's point shared the key's)", len(ws.batchOf[key]), len(ws.batchJobs))
	}
	if len(ws.memo) != 1 || len(ws.memoOf[key]) != 0 || len(ws.sn.runsOf[key]) != 0 || len(ws.sn.runs) >= runs {
		t.Errorf("after Forget: %d memo entries (want 1), %d of the key, %d launcher runs of the key, %d runs (were %d)", len(ws.memo), len(ws.memoOf[key]), len(ws.sn.runsOf[key]), len(ws.sn.runs), runs)
	}
	if _, ok := ws.memoOf["another-key"]; !ok {
		t.Error("Forget dropped another key's renderings")
	}
	// Prerender skips the key; Render renders it again, the same
	ws.Prerender(ctx, pts, Options{})
	if len(ws.memo) != 1 {
		t.Errorf("Prerender rendered a forgotten key's point: %d memo entries", len(ws.memo))
	}
	again, err := ws.Render(ctx, pts[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, first) {
		t.Errorf("rendered again after Forget:\n%+v\nwant\n%+v", again, first)
	}
}

// TestPrerenderEveryRelease: PrerenderEvery puts every point that can be
// rendered in the memo — an srt-slurm recipe point too, which Prerender
// leaves to its caller — and ReleaseScripts then drops the prepared
// scripts and the launcher runs but keeps the memo; a point rendered
// after it (its memo entry forgotten) is rendered again to the same
// outcome.
func TestPrerenderEveryRelease(t *testing.T) {
	ws, err := Open("testdata/multinode")
	if err != nil {
		t.Fatal(err)
	}
	pts, err := ws.Points("m1-fp8-h200-dynamo-sglang")
	if err != nil || len(pts) == 0 || pts[0].Kind != KindRecipe || pts[0].Status != StatusOK {
		t.Fatalf("points %+v, %v", pts, err)
	}
	ws.RememberRenders()
	ctx := context.Background()
	ws.Prerender(ctx, pts[:1], Options{})
	if len(ws.memo) != 0 {
		t.Fatalf("Prerender rendered a recipe point: %d memo entries", len(ws.memo))
	}
	ws.PrerenderEvery(ctx, pts[:1], Options{})
	if len(ws.memo) != 1 {
		t.Fatalf("PrerenderEvery: %d memo entries, want 1", len(ws.memo))
	}
	if len(ws.sn.runs) == 0 || ws.sn.scripts.Prepared() == 0 {
		t.Fatalf("before ReleaseScripts: %d launcher runs, %d prepared scripts", len(ws.sn.runs), ws.sn.scripts.Prepared())
	}
	first, err := ws.Render(ctx, pts[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws.ReleaseScripts()
	if len(ws.sn.runs) != 0 || len(ws.sn.runsOf) != 0 || ws.sn.scripts.Prepared() != 0 {
		t.Errorf("after ReleaseScripts: %d launcher runs (%d keys), %d prepared scripts", len(ws.sn.runs), len(ws.sn.runsOf), ws.sn.scripts.Prepared())
	}
	if len(ws.memo) != 1 {
		t.Errorf("ReleaseScripts dropped renderings: %d memo entries", len(ws.memo))
	}
	ws.memoMu.Lock()
	clear(ws.memo)
	clear(ws.memoOf)
	ws.memoMu.Unlock()
	again, err := ws.Render(ctx, pts[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, first) {
		t.Errorf("rendered again after ReleaseScripts:\n%+v\nwant\n%+v", again, first)
	}
	if len(ws.sn.runs) == 0 {
		t.Error("the render after ReleaseScripts kept no launcher run")
	}
}

// TestStoredRenderingForm: a rendering read back from the cache is the
// one stored (decodeDeployment accepts it exactly when its JSON decodes
// deeply equal to it), and a deployment whose JSON loses something (an
// empty list JSON leaves out, which decodes as none) is not read back.
func TestStoredRenderingForm(t *testing.T) {
	ws, pts := batchPoint(t)
	d, err := ws.Render(context.Background(), pts[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkStoredForm(t, "the batch point", d)
	lossy := d.Clone()
	lossy.Notes = []string{} // omitempty: decodes as nil
	data, ok := encodeDeployment(lossy)
	if !ok {
		t.Fatal("no stored form of a deployment with an empty list")
	}
	if _, ok := decodeDeployment(data); ok {
		t.Error("a deployment whose JSON lost an empty list was read back")
	}
	if _, ok := decodeDeployment(data[:10]); ok {
		t.Error("a truncated entry was read back")
	}
}

// checkStoredForm fails unless d's stored form reads back exactly when
// its JSON decodes deeply equal to it, and reads back to d.
func checkStoredForm(t *testing.T, what string, d launch.Deployment) {
	t.Helper()
	js, err := json.Marshal(d)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	var back launch.Deployment
	lossless := json.Unmarshal(js, &back) == nil && reflect.DeepEqual(back, d)
	data, ok := encodeDeployment(d)
	if !ok {
		t.Errorf("%s: no stored form", what)
		return
	}
	got, ok := decodeDeployment(data)
	if ok != lossless {
		t.Errorf("%s: read back %v, its JSON decodes deeply equal %v", what, ok, lossless)
	}
	if ok && !reflect.DeepEqual(got, d) {
		t.Errorf("%s: read back another deployment", what)
	}
}
