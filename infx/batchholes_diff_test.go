package infx

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// Differential cases of holes at the batch job (batchholes.go), from a
// second review: fixture edits that bring RUNNER_NAME, a hole, to infx's
// own command handlers; each renders the same with holes and without.

// holesCompare renders the fixture with edits with holes and without and
// fails when a point renders otherwise or a rendering panics.
func holesCompare(t *testing.T, edits ...fileEdit) {
	t.Helper()
	ws, pts := batchCopy(t, edits...)
	plain, plainPts := batchCopy(t, edits...)
	for i, p := range pts {
		var got, want any
		var err, werr error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("point %d: holed render panics: %v", i, r)
				}
			}()
			d, e := ws.Render(context.Background(), p, Options{})
			got, err = d, e
		}()
		d, e := plain.Render(context.Background(), plainPts[i], Options{noHoles: true})
		want, werr = d, e
		if errText(err) != errText(werr) {
			t.Errorf("point %d error differs:\n holes:    %v\n no holes: %v", i, err, werr)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("point %d renders other processes with holes:\n got %+v\nwant %+v", i, got, want)
		} else {
			t.Logf("point %d same (err %v)", i, err)
		}
	}
	t.Logf("hole runs %d used %d", ws.holeRuns.Load(), ws.holeUsed.Load())
}

// holesJob and holesLauncher are the fixture files edited.
const holesJob = "benchmarks/multi_node/amd_utils/job.slurm"
const holesLauncher = "runners/launch_mi355x-x.sh"

// TestBatchHolesDiff: the review's counterexample — an option docker run
// reads after a -e it takes as its own value — fixed since, and its
// control without a hole.
func TestBatchHolesDiff(t *testing.T) {
	// C1: docker run --name -e --entrypoint=$EP: copiesHole takes the
	// word after "-e" as a copied -e value, dockerRun reads it as
	// --entrypoint and decides bash/sh vs other from the hole.
	t.Run("entrypoint", func(t *testing.T) {
		holesCompare(t,
			fileEdit{holesLauncher, func(s string) string {
				return strings.Replace(s, "export GPUS_PER_NODE=8", "export GPUS_PER_NODE=8\ncase $RUNNER_NAME in *_0) export EP=usr/bin/sh;; *) export EP=opt/x/bash;; esac", 1)
			}},
			fileEdit{holesJob, func(s string) string {
				return strings.Replace(s, "--name c rocm/sgl-dev:v0.5.16 bash -lc", `--name -e --entrypoint=\$EP rocm/sgl-dev:v0.5.16 -lc`, 1)
			}},
		)
	})
	// C1 control: same edit, one value (no hole): both render.
	t.Run("entrypoint-control", func(t *testing.T) {
		holesCompare(t,
			fileEdit{holesLauncher, func(s string) string {
				return strings.Replace(s, "export GPUS_PER_NODE=8", "export GPUS_PER_NODE=8\nexport EP=usr/bin/sh", 1)
			}},
			fileEdit{holesJob, func(s string) string {
				return strings.Replace(s, "--name c rocm/sgl-dev:v0.5.16 bash -lc", `--name -e --entrypoint=\$EP rocm/sgl-dev:v0.5.16 -lc`, 1)
			}},
		)
	})
}

// TestBatchHolesDiffHandled: edits the review found handled (a look, or
// a copy that renders the same).
func TestBatchHolesDiffHandled(t *testing.T) {
	for name, rep := range map[string][2]string{
		"srun-J":        {"IPS=()", "srun -J \"$RUNNER_NAME\" --nodes=1 true\nIPS=()"},
		"srun-export":   {"IPS=()", "srun --export=ALL,RN=$RUNNER_NAME --nodes=1 true\nIPS=()"},
		"hostname-arg":  {"IPS=()", "hostname \"$RUNNER_NAME\" >/dev/null\nIPS=()"},
		"scontrol":      {"IPS=()", "scontrol show hostnames \"$RUNNER_NAME\" >/dev/null\nIPS=()"},
		"curl":          {"IPS=()", "curl -s http://$RUNNER_NAME:80/x >/dev/null\nIPS=()"},
		"xargs-stdin":   {"IPS=()", "echo $RUNNER_NAME | xargs -r true\nIPS=()"},
		"hostfile":      {"IPS=()", "echo $RUNNER_NAME > /tmp/hf; scontrol show hostnames $(cat /tmp/hf) >/dev/null\nIPS=()"},
		"docker-name":   {"--name c", "--name \\$RUNNER_NAME"},
		"docker-e-copy": {"-e xP=$xP", "-e xP=$xP -e RN=\\$RUNNER_NAME"},
		"whoami-USER":   {"IPS=()", "export USER=$RUNNER_NAME; whoami >/dev/null\nIPS=()"},
		"nodename":      {"IPS=()", "SLURMD_NODENAME=$RUNNER_NAME hostname >/dev/null\nIPS=()"},
		"bash-c-arg":    {"IPS=()", "bash -c 'echo $1' _ \"$RUNNER_NAME\" >/dev/null\nIPS=()"},
	} {
		t.Run(name, func(t *testing.T) {
			holesCompare(t, fileEdit{holesJob, func(s string) string { return strings.Replace(s, rep[0], rep[1], 1) }})
		})
	}
}

// TestCorpusBatchHolesModels: the models.yaml loader of the complete
// tree's server_sglang.sh (../shared/corpus/upstream/InferenceX), given a
// chunked_prefill_size formula naming RUNNER_NAME, renders the same with
// holes and without: the loader reads the variables a formula names
// (Call.Getenv), each looked at — the second review's case, fixed.
func TestCorpusBatchHolesModels(t *testing.T) {
	// C2: the models.yaml loader (python3 -c, infx/helpers) gets
	// c.Environ(), unchecked: a chunked_prefill_size formula naming
	// RUNNER_NAME reads the hole's bytes (amdPyInt: non-ASCII ->
	// Unsupported) where the value gives a warning and goes on.
	src, err := os.ReadFile(filepath.Join(testutil.UpstreamInferenceX(t), "benchmarks/multi_node/amd_utils/server_sglang.sh"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	loader := strings.Join(lines[78:188], "\n")
	if !strings.HasPrefix(loader, `eval "$(python3 -c "`) || !strings.HasSuffix(loader, `")"`) {
		t.Fatalf("loader lines: %q ... %q", loader[:40], loader[len(loader)-10:])
	}
	pre := "cat > /tmp/models.yaml <<EOF\n$MODEL_NAME:\n  prefill:\n    dp:\n      chunked_prefill_size: \"RUNNER_NAME * 2\"\nEOF\nMODELS_YAML=/tmp/models.yaml\n" + loader + "\n"
	holesCompare(t, fileEdit{holesJob, func(s string) string {
		return strings.Replace(s, "IPS=()", pre+"IPS=()", 1)
	}})
}
