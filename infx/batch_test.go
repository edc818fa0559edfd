package infx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// batchFixture copies testdata/batch (an AMD multi-node entry whose
// launcher submits a Slurm batch job, in the shape of InferenceX
// runners/launch_mi355x-amds.sh → amd_utils/) with edit applied to the
// file rel, and renders its point.
func batchFixture(t *testing.T, rel string, edit func(string) string) (launch.Deployment, error) {
	t.Helper()
	ws, pts := batchCopy(t, fileEdit{rel, edit})
	if len(pts) != 1 || pts[0].Kind != KindBatch || pts[0].Status != StatusOK {
		t.Fatalf("points = %+v, want one batch point", pts)
	}
	return ws.Render(context.Background(), pts[0], Options{})
}

// fileEdit is an edit of one file of a fixture copy (nil edit: none).
type fileEdit struct {
	rel  string
	edit func(string) string
}

// batchCopy copies testdata/batch with edits applied, opens it and lists
// its key's points.
func batchCopy(t *testing.T, edits ...fileEdit) (*Workspace, []Point) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/batch")); err != nil {
		t.Fatal(err)
	}
	for _, f := range edits {
		if f.rel == "" || f.edit == nil {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.rel))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.edit(string(b))), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := ws.Points("m1-fp8-mi355x-sglang-disagg")
	if err != nil {
		t.Fatal(err)
	}
	return ws, pts
}

// TestBatchJob: the launcher runs to its sbatch under both answers of the
// submit host's `import yaml` probe; the job script runs once per node of
// the 4-node allocation (srun steps, docker run, the container's
// server.sh); the servers become a prefill role (2 one-node workers), the
// router, and a decode role (1 worker over 2 nodes, its head only), the
// env the container's script exported, not what docker run passed.
func TestBatchJob(t *testing.T) {
	d, err := batchFixture(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Source.File != "benchmarks/multi_node/amd_utils/job.slurm" {
		t.Errorf("source file %q", d.Source.File)
	}
	var shape []string
	for _, p := range d.Processes {
		shape = append(shape, strings.Join([]string{string(p.Kind), string(p.Role), itoa(p.Workers), itoa(p.NodesPerWorker)}, "/"))
	}
	if got, want := strings.Join(shape, " "), "worker/prefill/2/0 sglang-router//0/0 worker/decode/0/2"; got != want {
		t.Fatalf("processes %s, want %s", got, want)
	}
	pre, dec := d.Processes[0], d.Processes[2]
	for _, c := range []struct {
		p    launch.Process
		flag string
		want string
	}{
		{pre, "--disaggregation-ib-device", "rdma0,rdma1,rdma2,rdma3,rdma4,rdma5,rdma6,rdma7"},
		{pre, "--tp-size", "8"},
		{dec, "--tp-size", "16"},
		{dec, "--nnodes", "2"},
		{dec, "--node-rank", "0"},
		{dec, "--dist-init-addr", "10.0.0.2:20000"},
	} {
		if v, ok := launch.Lookup(c.p.Args, c.flag); !ok || strings.Join(v, " ") != c.want {
			t.Errorf("%s %s = %q, want %q", c.p.Role, c.flag, v, c.want)
		}
	}
	env := map[string]string{}
	for _, e := range pre.Env {
		env[e.Name] = e.Value
	}
	if env["SGLANG_PREFILL_ENV"] != "1" || env["SGLANG_MORI_FLAG"] != "1" || env["GLOO_SOCKET_IFNAME"] != "eth0" {
		t.Errorf("prefill env %v: want the container's exports and the inline assignment", env)
	}
	for _, n := range []string{"NODE_RANK", "MODEL_NAME", "IPADDRS", "xP", "PATH", "HOME"} {
		if _, ok := env[n]; ok {
			t.Errorf("prefill env has %s, which docker run passed in (the job's plumbing)", n)
		}
	}
	if r := d.Processes[1]; strings.Join(r.Argv(), " ") != "python -m sglang_router.launch_router --pd-disaggregation --port 30000 --policy random --prefill http://10.0.0.0:8000 --prefill http://10.0.0.1:8000 --decode http://10.0.0.2:8000" {
		t.Errorf("router %q", r.Argv())
	}
	if len(d.Notes) == 0 || !strings.Contains(d.Notes[0], "on 4 nodes") {
		t.Errorf("notes %q", d.Notes)
	}
	// The NIC QoS (nicctl) is not known: the traffic class the container's
	// script derives from it is marked unknown, on every worker; the
	// router started after the benchmark client is not a process.
	for _, p := range d.Processes {
		var tc *launch.EnvVar
		for i := range p.Env {
			if p.Env[i].Name == "MORI_RDMA_TC" {
				tc = &p.Env[i]
			}
		}
		if tc == nil || tc.Unknown == "" || !strings.Contains(tc.Unknown, "nicctl reports DSCP 26 on no-drop priority 5") {
			t.Errorf("%s MORI_RDMA_TC = %+v, want unknown naming the nicctl answers", p.Role, tc)
		}
		if strings.Contains(strings.Join(p.Argv(), " "), "--never-reached") {
			t.Errorf("a process the script starts after the benchmark client: %q", p.Argv())
		}
	}
}

// TestBatchJobUnsupported: whatever of the job is not followed makes the
// point unsupported, naming where — never a guessed process.
func TestBatchJobUnsupported(t *testing.T) {
	const job, server, submit = "benchmarks/multi_node/amd_utils/job.slurm", "benchmarks/multi_node/amd_utils/server.sh", "benchmarks/multi_node/amd_utils/submit.sh"
	for _, c := range []struct {
		name, file, old, new, want string
	}{
		{"a decode node's task exits before its launch", server, `else
    rank=`, `else
    exit 3
    rank=`, "the task of node 2 of 4 where nicctl is not installed starts no server"},
		{"an unknown program on a node", server, `export SGLANG_MORI_FLAG=1`, `export SGLANG_MORI_FLAG=$(mystery-tool show)`, "mystery-tool show in a value the script uses"},
		{"no node count", submit, `-N "$NUM_NODES" -n "$NUM_NODES" `, ``, "does not name a node count"},
		{"more nodes than the bound", submit, `-N "$NUM_NODES"`, `-N 100000`, "does not name a node count from 1 to 64"},
		{"an answer's export the container's script overrides", submit, `EXCLUDE="--exclude=bad-node"`, `EXCLUDE="--exclude=bad-node"; export SGLANG_MORI_FLAG=2`, ""},
		{"the answers start different servers", submit, `EXCLUDE="--exclude=bad-node"`, `EXCLUDE="--exclude=bad-node"; export PREFILL_NODES_PER_WORKER=1 xP=3`, "start different servers"},
		{"an unknown reader in the import branch", submit, `EXCLUDE="--exclude=bad-node"`, `EXCLUDE=$(python3 -c "import yaml; print(1)")`, "python3 -c import yaml; print(1) in a value the script uses"},
		{"the job script is not a file", submit, `./job.slurm`, `./gone.slurm`, "submits no batch job"},
		{"the job submits a job", job, `export MODEL_DIR="$MODEL_PATH"`, `export MODEL_DIR="$MODEL_PATH"; sbatch -N 1 ./job.slurm`, "starts no server"},
		{"the job script outside the checkout", submit, `./job.slurm`, `/etc/hostname`, "submits no batch job"},
		{"a node count that is not a number", submit, `-N "$NUM_NODES"`, `-N many`, "does not name a node count"},
		{"a model not staged", job, `export MODEL_DIR="$MODEL_PATH"`, `MODEL_DIR="$MODEL_PATH"`, "where nicctl is not installed ends with status 1 before a server starts"},
	} {
		d, err := batchFixture(t, c.file, func(s string) string {
			if !strings.Contains(s, c.old) {
				t.Fatalf("%s: %q not in %s", c.name, c.old, c.file)
			}
			return strings.Replace(s, c.old, c.new, 1)
		})
		if c.want == "" {
			// the export reaches the job only under one answer, but the
			// container gets only what docker run passes and its script
			// sets the variable itself: the same servers under both
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			_ = d
			continue
		}
		var pe *PointError
		if !errors.As(err, &pe) || pe.Status != StatusUnsupported || !strings.Contains(pe.Note, c.want) {
			t.Errorf("%s: got %v, want unsupported containing %q", c.name, err, c.want)
		}
	}
}

// TestBatchJobStopAfterLaunch: a node's task that stops after its first
// server launch is unsupported — its router may come later.
func TestBatchJobStopAfterLaunch(t *testing.T) {
	_, err := batchFixture(t, "benchmarks/multi_node/amd_utils/server.sh", func(s string) string {
		return strings.Replace(s, "    if [ \"$NODE_RANK\" -eq 0 ]; then\n", "    X=$(mystery-tool show)\n    if [ \"$NODE_RANK\" -eq 0 ]; then\n", 1)
	})
	var pe *PointError
	if !errors.As(err, &pe) || pe.Status != StatusUnsupported || !strings.Contains(pe.Note, "past its first server launch") {
		t.Errorf("got %v, want unsupported past the first launch", err)
	}
}

// TestBatchJobHostile: the hostile pass's shapes — each is rendered as the
// job runs, or unsupported, never a wrong process.
func TestBatchJobHostile(t *testing.T) {
	const job, server, submit = "benchmarks/multi_node/amd_utils/job.slurm", "benchmarks/multi_node/amd_utils/server.sh", "benchmarks/multi_node/amd_utils/submit.sh"
	type tc struct {
		name, file, old, new string
		unsup                string                           // unsupported containing this, or
		check                func(d launch.Deployment) string // "" when right
	}
	shape := func(d launch.Deployment) string {
		var s []string
		for _, p := range d.Processes {
			s = append(s, strings.Join([]string{string(p.Kind), string(p.Role), itoa(p.Workers), itoa(p.NodesPerWorker)}, "/"))
		}
		return strings.Join(s, " ")
	}
	const base = "worker/prefill/2/0 sglang-router//0/0 worker/decode/0/2"
	for _, c := range []tc{
		{"a server srun starts itself", job, `srun --nodelist="$SLURM_JOB_NODELIST" bash -lc "`, `srun --nodes=1 python3 -m sglang.launch_server --disaggregation-mode decode --tp-size 4
srun --nodelist="$SLURM_JOB_NODELIST" bash -lc "`, "", func(d launch.Deployment) string {
			if got := shape(d); got != "worker/decode/0/0 "+base {
				return got
			}
			return ""
		}},
		{"a router the batch script starts itself", job, `srun --nodelist="$SLURM_JOB_NODELIST" bash -lc "`, `python -m sglang_router.launch_router --port 30001 &
srun --nodelist="$SLURM_JOB_NODELIST" bash -lc "`, "", func(d launch.Deployment) string {
			if got := shape(d); got != "sglang-router//0/0 "+base {
				return got
			}
			return ""
		}},
		{"a node outside the allocation", job, `--nodelist="$SLURM_JOB_NODELIST" bash -lc "`, `--nodelist=gpu[7-9] bash -lc "`, "not a node of the allocation", nil},
		{"an empty node list", job, `--nodelist="$SLURM_JOB_NODELIST" bash -lc "`, `--nodelist=, bash -lc "`, "names no node", nil},
		{"a malformed node list", job, `--nodelist="$SLURM_JOB_NODELIST" bash -lc "`, `--nodelist=node[3-1] bash -lc "`, "names no node", nil},
		{"-e with its value attached", job, `-e xP=$xP`, `-exP=$xP`, "", func(d launch.Deployment) string {
			if got := shape(d); got != base {
				return got
			}
			return ""
		}},
		{"docker run --env-file", job, `docker run --init`, `docker run --env-file /etc/job.env --init`, "--env-file /etc/job.env", nil},
		{"docker run --entrypoint", job, `docker run --init`, `docker run --entrypoint /init.sh --init`, "--entrypoint /init.sh", nil},
		{"sbatch --export=NONE", submit, `sbatch --parsable`, `sbatch --export=NONE --parsable`, "ends with status 1 before a server starts", nil},
		{"sbatch --export=NIL", submit, `sbatch --parsable`, `sbatch --export=NIL --parsable`, "a form the sandbox does not read", nil},
		{"-N twice: the last one", submit, `-N "$NUM_NODES"`, `-N 9 -N "$NUM_NODES"`, "", func(d launch.Deployment) string {
			if got := shape(d); got != base {
				return got
			}
			return ""
		}},
		{"a multi-node worker without --node-rank", server, ` --node-rank $rank"
    fi
    setsid bash -c "$CMD" &`, `"
    fi
    setsid bash -c "$CMD" &`, "without --node-rank", nil},
		{"a worker's nodes that differ", server, `export SGLANG_MORI_FLAG=1`, `export SGLANG_MORI_FLAG=$NODE_RANK`, "differs from its head's settings", nil},
	} {
		d, err := batchFixture(t, c.file, func(s string) string {
			if !strings.Contains(s, c.old) {
				t.Fatalf("%s: %q not in %s", c.name, c.old, c.file)
			}
			return strings.Replace(s, c.old, c.new, 1)
		})
		if c.unsup != "" {
			var pe *PointError
			if !errors.As(err, &pe) || pe.Status != StatusUnsupported || !strings.Contains(pe.Note, c.unsup) {
				t.Errorf("%s: got %v, want unsupported containing %q", c.name, err, c.unsup)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if bad := c.check(d); bad != "" {
			t.Errorf("%s: %s", c.name, bad)
		}
	}
}

// batchWorkspace is batchCopy with the row's conc-list set to concs and
// server.sh edited by edit (nil: as it is).
func batchWorkspace(t *testing.T, concs string, edit func(string) string) (*Workspace, []Point) {
	t.Helper()
	return batchCopy(t,
		fileEdit{"configs/amd-master.yaml", func(s string) string { return strings.Replace(s, "conc-list: [8]", "conc-list: "+concs, 1) }},
		fileEdit{"benchmarks/multi_node/amd_utils/server.sh", edit})
}

// TestFollowBatchShared: the points of one row's concurrency list submit
// the same batch job (the job runs the whole list); it is followed once
// per Workspace (followBatchOnce) and every point gets what following it
// alone gives — a deep copy (editing one point's rendering changes no
// other's), an error placed at the asking point — also when the points
// render at once (RenderAll's stream).
func TestFollowBatchShared(t *testing.T) {
	ws, pts := batchWorkspace(t, "[8, 16, 32]", nil)
	if len(pts) != 3 {
		t.Fatalf("%d points, want 3", len(pts))
	}
	var got []launch.Deployment
	for _, p := range pts {
		d, err := ws.Render(context.Background(), p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	// the launcher submits under both answers of its `import yaml` probe:
	// two jobs, the same for every point
	if n := len(ws.batchJobs); n != 2 {
		t.Errorf("%d batch jobs followed, want 2 (the three points submit the same two)", n)
	}
	got[0].Processes[0].Args[0].Values = []string{"edited"}
	for i, p := range pts {
		alone, aPts := batchWorkspace(t, "[8, 16, 32]", nil)
		want, err := alone.Render(context.Background(), aPts[i], Options{})
		if err != nil {
			t.Fatal(err)
		}
		again, err := ws.Render(context.Background(), p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, want) {
			t.Errorf("point %d (concurrency %d): the shared job's rendering differs from following it alone", i, p.Concurrency)
		}
		if i > 0 && !reflect.DeepEqual(got[i], want) {
			t.Errorf("point %d: first rendering differs from following it alone", i)
		}
	}
	if reflect.DeepEqual(got[0], got[1]) {
		t.Error("editing one point's rendering reached another's")
	}

	// An unsupported job: each point's error at its own reference, the
	// note the same.
	ws, pts = batchWorkspace(t, "[8, 16]", func(s string) string {
		return strings.Replace(s, "export SGLANG_MORI_FLAG=1", "export SGLANG_MORI_FLAG=$(mystery-tool show)", 1)
	})
	var notes []string
	for _, p := range pts {
		_, err := ws.Render(context.Background(), p, Options{})
		var pe *PointError
		if !errors.As(err, &pe) || pe.Status != StatusUnsupported || pe.Pos != p.RefPos {
			t.Fatalf("concurrency %d: %v, want unsupported at %s", p.Concurrency, err, p.RefPos)
		}
		notes = append(notes, pe.Note)
	}
	if len(ws.batchJobs) != 1 || notes[0] != notes[1] || !strings.Contains(notes[0], "mystery-tool show") {
		t.Errorf("%d jobs, notes %q", len(ws.batchJobs), notes)
	}

	// At once: RenderAll renders the points on every CPU; each result is
	// the one rendered alone.
	ws, pts = batchWorkspace(t, "[1, 2, 4, 8, 16, 32, 64, 128]", nil)
	var all []launch.Deployment
	if _, err := ws.RenderAll(context.Background(), []string{"m1-fp8-mi355x-sglang-disagg"}, Options{OnPoint: func(r PointResult, d *launch.Deployment) {
		if d == nil {
			t.Errorf("point %d did not render: %+v", r.Concurrency, r)
			return
		}
		all = append(all, *d)
	}}); err != nil {
		t.Fatal(err)
	}
	if len(all) != len(pts) || len(ws.batchJobs) != 2 {
		t.Fatalf("%d renderings of %d points, %d jobs", len(all), len(pts), len(ws.batchJobs))
	}
	for i := 1; i < len(all); i++ {
		if !reflect.DeepEqual(all[i].Processes, all[0].Processes) {
			t.Errorf("point %d renders other processes than point 0", i)
		}
	}
}

// TestRenderOnceAtATime: Renders of one point made at once (a part
// rendering a point the background is rendering) render it once — the
// others wait and take it from the memo (counted by the renderings
// PersistRenders stores: one) — and all get the same deployment.
func TestRenderOnceAtATime(t *testing.T) {
	ws, pts := batchWorkspace(t, "[8]", nil)
	persistRenders(t, ws)
	got := make([]launch.Deployment, 6)
	errs := make([]error, len(got))
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i], errs[i] = ws.Render(context.Background(), pts[0], Options{}) })
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil || !reflect.DeepEqual(got[i], got[0]) {
			t.Fatalf("render %d: %v, or another deployment", i, errs[i])
		}
	}
	ws.FlushRenders()
	if _, stored := ws.PersistedRenders(); stored != 1 {
		t.Errorf("the point was rendered %d times, want once", stored)
	}
}
