package infx

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TestCorpusRunnerHoles renders every single-node point of the complete
// InferenceX tree (../shared/corpus/upstream/InferenceX) with holes for
// the runner names (runnerHoleOutcomes) and without: every point's
// outcome (deployment, status, reason) is the same; the launchers' runs
// with holes are nearly all usable (a launcher that reads its runner's
// last character looks once, then its names run on their own).
func TestCorpusRunnerHoles(t *testing.T) {
	root := testutil.UpstreamInferenceX(t)
	render := func(noHoles bool) (*Workspace, []string) {
		ws, err := Open(root)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, k := range ws.ConfigKeys() {
			pts, err := ws.Points(k)
			if err != nil {
				t.Fatal(err)
			}
			if len(pts) > 0 && pts[0].Kind == KindScript {
				keys = append(keys, k)
			}
		}
		if len(keys) < 50 {
			t.Fatalf("%d config keys of single-node points, want the tree's", len(keys))
		}
		var out []string
		if _, err := ws.RenderAll(context.Background(), keys, Options{noHoles: noHoles, OnPoint: func(r PointResult, d *launch.Deployment) {
			b, _ := json.Marshal(struct {
				R PointResult
				D *launch.Deployment
			}{r, d})
			out = append(out, string(b))
		}}); err != nil {
			t.Fatal(err)
		}
		return ws, out
	}
	holed, got := render(false)
	plain, want := render(true)
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d points with holes, %d without", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("point %d differs with holes:\n got %s\nwant %s", i, got[i][:min(len(got[i]), 400)], want[i][:min(len(want[i]), 400)])
		}
	}
	runs, used := holed.sn.holeRuns.Load(), holed.sn.holeUsed.Load()
	t.Logf("%d points; %d launch steps run with holes for two runner names, %d usable", len(got), runs, used)
	if used < 500 || runs-used > 5 || plain.sn.holeRuns.Load() != 0 {
		t.Errorf("%d runs with holes, %d usable; %d without holes", runs, used, plain.sn.holeRuns.Load())
	}
}
