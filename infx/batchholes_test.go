package infx

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TestFollowBatchHoles: the fixture's launcher submits its job for two
// runner names; the node tasks run once with a hole for RUNNER_NAME
// (batchTask) and every point renders what it renders when each task
// runs with its own values — when the job only passes the name on (the
// runs are shared), when it looks at it without effect, and when the
// servers it starts depend on it (the runs with holes are not used; the
// points are what they are without holes).
func TestFollowBatchHoles(t *testing.T) {
	const job = "benchmarks/multi_node/amd_utils/job.slurm"
	for _, c := range []struct {
		name   string
		edit   func(string) string
		shared bool
	}{
		{"copied", func(s string) string {
			return strings.Replace(s, "-e xP=$xP", `-e xP=$xP -e RUNNER=\$RUNNER_NAME -e "RUN_LOG=/logs/\${RUNNER_NAME}.log"`, 1)
		}, true},
		{"looked at", func(s string) string {
			return strings.Replace(s, "IPS=()", "[[ $RUNNER_NAME == *_9 ]] && echo never\nIPS=()", 1)
		}, false},
		{"decides", func(s string) string {
			return strings.Replace(s, "IPS=()", "[[ $RUNNER_NAME == *_1 ]] && export yD=2\nIPS=()", 1)
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			edit := fileEdit{job, c.edit}
			ws, pts := batchCopy(t, edit)
			plain, plainPts := batchCopy(t, edit)
			for i, p := range pts {
				got, err := ws.Render(context.Background(), p, Options{})
				want, werr := plain.Render(context.Background(), plainPts[i], Options{noHoles: true})
				// each copy of the fixture is its own directory, which errors name
				if strings.ReplaceAll(errText(err), ws.Root, "ROOT") != strings.ReplaceAll(errText(werr), plain.Root, "ROOT") {
					t.Fatalf("point %d: %v, want %v", i, err, werr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("point %d renders other processes with holes:\n got %+v\nwant %+v", i, got.Processes, want.Processes)
				}
			}
			if n := plain.holeRuns.Load(); n != 0 {
				t.Errorf("%d tasks ran with holes without them", n)
			}
			runs, used := ws.holeRuns.Load(), ws.holeUsed.Load()
			if runs == 0 {
				t.Fatal("no task ran with holes")
			}
			if want := map[bool]int64{true: runs, false: 0}[c.shared]; used != want {
				t.Errorf("%d of %d runs with holes usable, want %d", used, runs, want)
			}
		})
	}
}

// errText is err's text, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestSubmissionHoles: the variables two submissions differ in, when
// every value may be a hole; none when a value may not (a space, too
// short to hold a hole's marks), a variable is set in one only, or it is
// one the sandbox reads a directory from.
func TestSubmissionHoles(t *testing.T) {
	sub := func(env ...string) batchSubmission { return batchSubmission{env: env} }
	base := []string{"A=1", "RUNNER_NAME=mi355x-amds_06", "RESULT=r_conc8_mi355x-amds_06", "B=same-value"}
	other := []string{"A=1", "RUNNER_NAME=mi355x-amds_19", "RESULT=r_conc8_mi355x-amds_19", "B=same-value"}
	if got := submissionHoles([]batchSubmission{sub(base...), sub(other...), sub(base...)}); !reflect.DeepEqual(got, []string{"RUNNER_NAME", "RESULT"}) {
		t.Errorf("holes %q", got)
	}
	for name, subs := range map[string][]batchSubmission{
		"one submission":   {sub(base...)},
		"none differ":      {sub(base...), sub(base...)},
		"a space":          {sub("X=a value here"), sub("X=another-value")},
		"too short":        {sub("X=ab"), sub("X=cd")},
		"set in one only":  {sub("X=value-one", "Y=value-y"), sub("X=value-two")},
		"set in the other": {sub("X=value-one"), sub("X=value-two", "Y=value-y")},
		"a model share":    {sub("MODEL_DIR=/share/models-a"), sub("MODEL_DIR=/share/models-b")},
	} {
		if got := submissionHoles(subs); got != nil {
			t.Errorf("%s: holes %q", name, got)
		}
	}
}

// TestCorpusBatchHoles renders every AMD batch point of the complete
// InferenceX tree (../shared/corpus/upstream/InferenceX) with holes and
// without: every point's outcome (deployment, status, reason) is the
// same, and the node tasks ran with holes are all usable (the jobs only
// pass the runner's name on), about half as many as the tasks followed.
func TestCorpusBatchHoles(t *testing.T) {
	holed, plain, n := corpusHolesCompare(t, 5, func(p Point) bool { return p.Kind == KindBatch })
	runs, used := holed.holeRuns.Load(), holed.holeUsed.Load()
	t.Logf("%d points; %d node tasks run with holes, %d usable", n, runs, used)
	if runs == 0 || used != runs || plain.holeRuns.Load() != 0 {
		t.Errorf("%d runs with holes, %d usable; %d without holes", runs, used, plain.holeRuns.Load())
	}
}

// corpusHolesCompare renders the config keys of the complete InferenceX
// tree whose first point keep accepts (at least minKeys of them) with
// holes and without (Options.noHoles), fails for every point whose
// outcome (deployment, status, reason) differs, and returns the two
// Workspaces and the number of points.
func corpusHolesCompare(t *testing.T, minKeys int, keep func(Point) bool) (holed, plain *Workspace, points int) {
	t.Helper()
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
			if len(pts) > 0 && keep(pts[0]) {
				keys = append(keys, k)
			}
		}
		if len(keys) < minKeys {
			t.Fatalf("%d config keys, want the tree's (at least %d)", len(keys), minKeys)
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
	return holed, plain, len(got)
}
