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
		// each copy of the fixture is its own directory, which errors name
		if a, b := strings.ReplaceAll(errText(err), ws.Root, "ROOT"), strings.ReplaceAll(errText(werr), plain.Root, "ROOT"); a != b {
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

// TestBatchHolesDiffMore: the seventh review's edits, none a way through:
// two holes for one value, the value also a script argument or set by
// the job, in the servers' arguments (a name, a port, the role), a stop,
// files, quoting and listings of it.
func TestBatchHolesDiffMore(t *testing.T) {
	L := func(add string) fileEdit {
		return fileEdit{holesLauncher, func(s string) string {
			return strings.Replace(s, "export GPUS_PER_NODE=8", "export GPUS_PER_NODE=8\n"+add, 1)
		}}
	}
	J := func(old, nw string) fileEdit {
		return fileEdit{holesJob, func(s string) string { return strings.Replace(s, old, nw, 1) }}
	}
	S := func(old, nw string) fileEdit {
		return fileEdit{"benchmarks/multi_node/amd_utils/server.sh", func(s string) string { return strings.Replace(s, old, nw, 1) }}
	}
	cases := map[string][]fileEdit{
		"rn2-dockerE": {L("export RN2=$RUNNER_NAME"), J("-e xP=$xP", `-e xP=$xP -e A=\$RUNNER_NAME -e B=\$RN2`), S("COMMON=\"", "COMMON=\"--a $A --b $B ")},
		"rn2-argv":    {L("export RN2=$RUNNER_NAME"), J("-e xP=$xP", `-e xP=$xP -e A=\$RUNNER_NAME -e B=\$RN2`), S("COMMON=\"", "export A B\nCOMMON=\"--x $A$B ")},
		"job-export":  {J("IPS=()", "export RUNNER_NAME=fixedname1\nIPS=()")},
		"job-unset":   {J("IPS=()", "unset RUNNER_NAME\nIPS=()")},
		"sbatch-arg":  {fileEdit{"benchmarks/multi_node/amd_utils/submit.sh", func(s string) string { return strings.Replace(s, "./job.slurm", "./job.slurm \"$RUNNER_NAME\"", 1) }}, J("-e xP=$xP", `-e xP=$xP -e A=$1 -e B=\$RUNNER_NAME`), S("COMMON=\"", "COMMON=\"--x $A$B ")},
		"export-none": {fileEdit{"benchmarks/multi_node/amd_utils/submit.sh", func(s string) string {
			return strings.Replace(s, "sbatch ", "sbatch --export=ALL,RN3=$RUNNER_NAME ", 1)
		}}, J("-e xP=$xP", `-e xP=$xP -e B=\$RN3`), S("COMMON=\"", "COMMON=\"--x $B ")},
		"served-name":     {J("-e xP=$xP", `-e xP=$xP -e B=\$RUNNER_NAME`), S("COMMON=\"", "COMMON=\"--served-model-name $B ")},
		"port-hole":       {L("case $RUNNER_NAME in *_0) export PP=aaaaaaaaa8000;; *) export PP=bbbbbbbbb8000;; esac"), J("-e xP=$xP", `-e xP=$xP -e PP=\$PP`), S("COMMON=\"", "COMMON=\"--served-model-name ${PP} ")},
		"mode-hole":       {L("case $RUNNER_NAME in *_0) export MM=prefill_xx;; *) export MM=decode_xxx;; esac"), J("-e xP=$xP", `-e xP=$xP -e MM=\$MM`), S("--disaggregation-mode decode", "--disaggregation-mode $MM")},
		"srun-stop":       {J("IPS=()", "srun --nodelist=node9 true\nIPS=()")},
		"unsupported-cmd": {J("IPS=()", "frobnicate-tool \"$RUNNER_NAME\"\nIPS=()")},
		"stdout-file":     {J("IPS=()", "echo $RUNNER_NAME > /tmp/rn; export QQ=$(cat /tmp/rn)\nIPS=()"), J("-e xP=$xP", `-e xP=$xP -e QQ=\$QQ`), S("COMMON=\"", "COMMON=\"--q $QQ ")},
		"printf-q":        {J("IPS=()", "export QQ=$(printf %q \"$RUNNER_NAME\")\nIPS=()"), J("-e xP=$xP", `-e xP=$xP -e QQ=\$QQ`), S("COMMON=\"", "COMMON=\"--q $QQ ")},
		"declare-p":       {J("IPS=()", "export QQ=$(declare -p RUNNER_NAME)\nIPS=()")},
		"at-Q":            {J("IPS=()", "export QQ=${RUNNER_NAME@Q}\nIPS=()"), J("-e xP=$xP", `-e xP=$xP -e QQ=\$QQ`), S("COMMON=\"", "COMMON=\"--q $QQ ")},
		"env-dump":        {J("IPS=()", "export QQ=$(env | base64 -w0)\nIPS=()")},
		"ls-dir":          {J("IPS=()", "mkdir -p /tmp/dd; echo x > /tmp/dd/a_$RUNNER_NAME; export QQ=$(ls /tmp/dd)\nIPS=()")},
		"glob-dir":        {J("IPS=()", "mkdir -p /tmp/dd; echo x > /tmp/dd/a_$RUNNER_NAME; F=(/tmp/dd/*); export QQ=${F[0]}\nIPS=()"), J("-e xP=$xP", `-e xP=$xP -e QQ=\$QQ`), S("COMMON=\"", "COMMON=\"--q $QQ ")},
	}
	for name, edits := range cases {
		t.Run(name, func(t *testing.T) { holesCompare(t, edits...) })
	}
}
