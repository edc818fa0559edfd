package infx

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestCorpusRunnerHoles renders every single-node point of the complete
// InferenceX tree (../shared/corpus/upstream/InferenceX) with holes for
// the runner names (runnerHoleOutcomes) and without: every point's
// outcome (deployment, status, reason) is the same; the launchers' runs
// with holes are nearly all usable (a launcher that reads its runner's
// last character looks once, then its names run on their own).
func TestCorpusRunnerHoles(t *testing.T) {
	holed, plain, n := corpusHolesCompare(t, 50, func(p Point) bool { return p.Kind == KindScript })
	runs, used := holed.sn.holeRuns.Load(), holed.sn.holeUsed.Load()
	t.Logf("%d points; %d launch steps run with holes for two runner names, %d usable", n, runs, used)
	if used < 500 || runs-used > 5 || plain.sn.holeRuns.Load() != 0 {
		t.Errorf("%d runs with holes, %d usable; %d without holes", runs, used, plain.sn.holeRuns.Load())
	}
}

// TestRunnerHolesOff: a launcher whose run with holes ends in a bound is
// not tried again for the next point (another key), nor a launcher whose
// run looked at a hole in the benchmark script for the next point of that
// config key; the points render as without holes.
func TestRunnerHolesOff(t *testing.T) {
	type render struct {
		key string
		env []string
	}
	for _, c := range []struct {
		name    string
		edit    [3]string
		renders []render
		off     string
	}{
		{"bound in the launcher", [3]string{"runners/launch_b200-dgxc.sh", "salloc --partition", "while :; do hostname; done\nsalloc --partition"},
			[]render{{"m1-fp8-b200-sglang", nil}, {"m2-fp8-b200-sglang", nil}}, "runners/launch_b200-dgxc.sh"},
		{"look in the script", [3]string{"benchmarks/single_node/fixed_seq_len/m1_fp8_b200.sh", "export SGLANG_ENABLE_JIT_DEEPGEMM=0\n", "export SGLANG_ENABLE_JIT_DEEPGEMM=0\nenv | grep RUNNER_NAME > /tmp/rn\n"},
			[]render{{"m1-fp8-b200-sglang", []string{"X=1"}}, {"m1-fp8-b200-sglang", []string{"X=2"}}}, "runners/launch_b200-dgxc.sh\x00m1-fp8-b200-sglang"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, plain := copyLaunch(t, c.edit), copyLaunch(t, c.edit)
			for _, r := range c.renders {
				got, gerr := ws.Render(context.Background(), pointAt(t, ws, r.key, 0, 16), Options{ScriptEnv: r.env})
				want, werr := plain.Render(context.Background(), pointAt(t, plain, r.key, 0, 16), Options{ScriptEnv: r.env, noHoles: true})
				if a, b := strings.ReplaceAll(errText(gerr), ws.Root, "ROOT"), strings.ReplaceAll(errText(werr), plain.Root, "ROOT"); a != b || !reflect.DeepEqual(got, want) {
					t.Errorf("%s %v: with holes %v %+v\nwithout %v %+v", r.key, r.env, gerr, got, werr, want)
				}
			}
			if n := ws.sn.holeRuns.Load(); n != 1 || ws.sn.holeUsed.Load() != 0 || !ws.sn.holeOff[c.off] {
				t.Errorf("%d tries, %d used, off %v", n, ws.sn.holeUsed.Load(), ws.sn.holeOff)
			}
		})
	}
}

// TestCorpusMultinodeLauncherHoles renders every multi-node point of the
// complete InferenceX tree whose launcher ends in srtctl apply
// (Workspace.submission) or sbatch (renderBatch) with holes for the
// launchers' runner names (launcherHoleRuns) and without: every point's
// outcome (deployment, status, reason) is the same, and the launchers'
// runs with holes are nearly all usable (the launchers name a recipe's job
// after the runner with sed, cancel its stale jobs by that name and run
// the synthetic-acceptance injector, which reads a few variables of its
// environment, and submits under another name made from it
// (RUNNER_NAME="inferencex-$RUNNER_NAME" srtctl apply): copies).
func TestCorpusMultinodeLauncherHoles(t *testing.T) {
	holed, plain, n := corpusHolesCompare(t, 20, func(p Point) bool { return p.Kind == KindRecipe || p.Kind == KindBatch })
	runs, used := holed.sn.holeRuns.Load(), holed.sn.holeUsed.Load()
	t.Logf("%d points; %d launcher runs with holes for two runner names, %d usable", n, runs, used)
	if used < 400 || runs-used > 3 || plain.sn.holeRuns.Load() != 0 {
		t.Errorf("%d runs with holes, %d usable; %d without holes", runs, used, plain.sn.holeRuns.Load())
	}
}
