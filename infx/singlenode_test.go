package infx

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// openLaunch opens testdata/launch: a checkout with the workflow, runner
// launchers, runners.yaml and scripts in InferenceX's shapes.
func openLaunch(t testing.TB) *Workspace {
	t.Helper()
	ws, err := Open("testdata/launch")
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func renderErr(t *testing.T, ws *Workspace, key string, row, conc int) *PointError {
	t.Helper()
	_, err := ws.Render(context.Background(), pointAt(t, ws, key, row, conc), Options{})
	var pe *PointError
	if !errors.As(err, &pe) {
		t.Fatalf("%s: err = %v, want a PointError", key, err)
	}
	if !errors.Is(err, ErrNotRenderable) {
		t.Errorf("%s: errors.Is(err, ErrNotRenderable) = false", key)
	}
	return pe
}

func envOf(p launch.Process) map[string]launch.EnvVar {
	out := map[string]launch.EnvVar{}
	for _, e := range p.Env {
		out[e.Name] = e
	}
	return out
}

// TestLaunchersAgree: both b200 launchers run m1_fp8_b200.sh (no
// framework-tagged script exists); the workflow's env is the starting
// point and stays out of the process env; what the launcher exports comes
// from the launcher, what the script exports from the script; hardware
// probes answer from the runner's table.
func TestLaunchersAgree(t *testing.T) {
	ws := openLaunch(t)
	p := pointAt(t, ws, "m1-fp8-b200-sglang", 0, 16)
	if strings.Join(p.Launchers, ",") != "runners/launch_b200-cw.sh,runners/launch_b200-dgxc.sh" {
		t.Fatalf("launchers = %q", p.Launchers)
	}
	d := renderOne(t, ws, p, Options{})
	if d.Source.File != "benchmarks/single_node/fixed_seq_len/m1_fp8_b200.sh" {
		t.Errorf("script = %q", d.Source.File)
	}
	if len(d.Notes) == 0 || !strings.Contains(d.Notes[0], "runners/launch_b200-cw.sh, runners/launch_b200-dgxc.sh") {
		t.Errorf("notes = %q", d.Notes)
	}
	pr := d.Processes[0]
	// b200-cw runs first (sorted): MODEL is the HF id, ISL+OSL+20 = 9236.
	eqStrings(t, "args", argsText(pr.Args), []string{
		"--model-path org/M1-FP8", "--tp 8", "--port 8888", "--context-length 9236", "--max-running-requests 32",
	})
	env := envOf(pr)
	for _, harness := range []string{"PYTHONDONTWRITEBYTECODE", "RESULT_DIR", "HF_TOKEN", "GPU_COUNT", "RESULT_FILENAME"} {
		if _, ok := env[harness]; ok {
			t.Errorf("workflow env %s in the process env", harness)
		}
	}
	if e := env["PORT"]; e.Value != "8888" || e.Origin.Kind != launch.OriginLauncher || e.Origin.Path != "runners/launch_b200-cw.sh" {
		t.Errorf("PORT = %+v, want 8888 from the launcher", e)
	}
	// Script-set variables carry the launch command's position.
	if e := env["SGLANG_ENABLE_JIT_DEEPGEMM"]; e.Value != "0" || e.Origin.Kind != launch.OriginScript || e.Origin.Path != "benchmarks/single_node/fixed_seq_len/m1_fp8_b200.sh:7" {
		t.Errorf("SGLANG_ENABLE_JIT_DEEPGEMM = %+v", e)
	}
	if e := env["GPU_METRICS_CSV"]; e.Value != "gpu_metrics.csv" || e.Origin.Kind != launch.OriginScript {
		t.Errorf("GPU_METRICS_CSV = %+v (exported by the library)", e)
	}
}

// TestLaunchersDisagree: b200-cw prefers the framework-tagged
// m2_fp8_b200_sglang.sh, b200-dgxc runs m2_fp8_b200.sh: ambiguous, both
// named.
func TestLaunchersDisagree(t *testing.T) {
	ws := openLaunch(t)
	pe := renderErr(t, ws, "m2-fp8-b200-sglang", 0, 16)
	if pe.Status != StatusAmbiguous {
		t.Fatalf("status = %s (%s), want ambiguous", pe.Status, pe.Note)
	}
	for _, want := range []string{"runners/launch_b200-cw.sh (runner b200-cw_00) runs benchmarks/single_node/fixed_seq_len/m2_fp8_b200_sglang.sh",
		"runners/launch_b200-dgxc.sh (runners b200-dgxc_00, b200-dgxc_01) runs benchmarks/single_node/fixed_seq_len/m2_fp8_b200.sh"} {
		if !strings.Contains(pe.Note, want) {
			t.Errorf("note %q lacks %q", pe.Note, want)
		}
	}
}

// TestLauncherRefuses: b200-dgxc exits for a model it does not stage; the
// point runs on b200-cw and the note says why the other launcher is out.
func TestLauncherRefuses(t *testing.T) {
	ws := openLaunch(t)
	d := renderOne(t, ws, pointAt(t, ws, "m3-fp8-b200-vllm", 0, 8), Options{})
	if d.Source.File != "benchmarks/single_node/fixed_seq_len/m3_fp8_b200_vllm.sh" || d.Processes[0].Program != "vllm serve" {
		t.Fatalf("source %q program %q", d.Source.File, d.Processes[0].Program)
	}
	joined := strings.Join(d.Notes, "\n")
	if !strings.Contains(joined, "runners/launch_b200-dgxc.sh starts no benchmark script: runners/launch_b200-dgxc.sh:10:5: exit 1 (last output: \"Unsupported model prefix/precision: m3/fp8\") (runners b200-dgxc_00, b200-dgxc_01)") {
		t.Errorf("notes = %q", d.Notes)
	}
}

// TestAgenticHarnessEnv: KV_OFFLOAD_BACKEND comes from the row's
// kv-offload-backend, TOTAL_CPU_DRAM_GB as agentic_dram_offload_gb
// computes it, and awk decides the HiCache cap.
func TestAgenticHarnessEnv(t *testing.T) {
	ws := openLaunch(t)
	p := pointAt(t, ws, "m1-fp8-h200-sglang-agentic-mtp", 0, 32)
	// min(3,095,781, cap 2,861,022) MiB × 2^20 B × 0.90 × 8/8 GPUs / 10^9
	// = 2699.99… → 2699 GB.
	if p.TotalCPUDRAMGB != 2699 || p.KVOffloadBackend != "hicache" {
		t.Fatalf("TotalCPUDRAMGB = %d, backend %q; want 2699, hicache", p.TotalCPUDRAMGB, p.KVOffloadBackend)
	}
	d := renderOne(t, ws, p, Options{})
	// 2699/8 = 337 > cap 200: the awk BEGIN test takes the cap.
	eqStrings(t, "args", argsText(d.Processes[0].Args), []string{
		"--model-path org/M1-FP8", "--tp 8", "--enable-hierarchical-cache", "--hicache-size 200",
	})
	// Row 1: kv-offloading none → no backend, no DRAM budget, no HiCache.
	p = pointAt(t, ws, "m1-fp8-h200-sglang-agentic-mtp", 1, 4)
	if p.TotalCPUDRAMGB != 0 {
		t.Errorf("kv-offloading none: TotalCPUDRAMGB = %d, want 0", p.TotalCPUDRAMGB)
	}
	d = renderOne(t, ws, p, Options{})
	eqStrings(t, "args", argsText(d.Processes[0].Args), []string{"--model-path org/M1-FP8", "--tp 4"})
}

// TestScriptStatuses: an unknown command in a condition, a missing script
// and an exit before any launch are statuses with file:line, not errors.
func TestScriptStatuses(t *testing.T) {
	ws := openLaunch(t)
	pe := renderErr(t, ws, "m4-fp8-h200-sglang", 0, 4)
	if pe.Status != StatusUnsupported || !strings.Contains(pe.Note, "benchmarks/single_node/fixed_seq_len/m4_fp8_h200.sh:3:4: gpu-health-probe --strict in a condition") {
		t.Errorf("unknown command: %s %q", pe.Status, pe.Note)
	}
	pe = renderErr(t, ws, "m5-fp8-h200-sglang", 0, 4)
	if pe.Status != StatusMissing || !strings.Contains(pe.Note, "runners/launch_h200-nb.sh runs benchmarks/single_node/fixed_seq_len/m5_fp8_h200.sh") {
		t.Errorf("missing script: %s %q", pe.Status, pe.Note)
	}
	pe = renderErr(t, ws, "m6-fp8-h200-sglang", 0, 4)
	if pe.Status != StatusUnsupported || !strings.Contains(pe.Note, `benchmarks/single_node/fixed_seq_len/m6_fp8_h200.sh:4:5: exit 1 (last output: "Error: this script supports TP <= 4, got 8")`) {
		t.Errorf("exit: %s %q", pe.Status, pe.Note)
	}
	s, err := ws.RenderAll(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Errors != 0 || s.Rendered != 4 || s.Ambiguous != 1 || s.Missing != 1 || s.Unsupported != 2 {
		t.Errorf("summary: rendered %d ambiguous %d missing %d unsupported %d errors %d %q",
			s.Rendered, s.Ambiguous, s.Missing, s.Unsupported, s.Errors, s.Failures)
	}
}

// TestGHExpr: the workflow expressions benchmark-tmpl.yml uses.
func TestGHExpr(t *testing.T) {
	ctx := ghContext{
		"inputs": map[string]any{"scenario-type": "agentic-coding", "dp-attn": false, "kv-offload-backend": "", "tp": "8"},
		"matrix": map[string]any{"config": map[string]any{"kv-offload-backend": map[string]any{"name": "hicache"}, "router": nil}},
		"runner": map[string]any{"name": "b200-dgxc_00"},
	}
	for in, want := range map[string]string{
		"${{ inputs.scenario-type == 'agentic-coding' && 'agentic/' || 'fixed_seq_len/' }}": "agentic/",
		"${{ inputs.dp-attn && '/DPA' || '' }}":                                             "",
		"x${{ inputs.kv-offload-backend != '' && inputs.kv-offload-backend || 'none' }}":    "xnone",
		"${{ matrix.config['kv-offload-backend'].name }}":                                   "hicache",
		"${{ matrix.config.router && toJson(matrix.config.router) || '' }}":                 "",
		"TP${{ inputs.tp }}-${{ runner.name }}":                                             "TP8-b200-dgxc_00",
		"${{ format('{0}-{1}', inputs.tp, 'x') }}":                                          "8-x",
		"${{ secrets.HF_TOKEN }}":                                                           "",
		"${{ inputs.SCENARIO-TYPE == 'AGENTIC-CODING' }}":                                   "true",
	} {
		got, err := evalGHTemplate(in, ctx)
		if err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := evalGHTemplate("${{ inputs.tp == }}", ctx); err == nil {
		t.Error("malformed expression accepted")
	}
}

// TestScriptAssociativeKeys: keys of associative arrays are strings, even
// when they hold ':' (bash's reading, not arithmetic), in literals,
// lookups and assignments; line numbers are kept.
func TestScriptAssociativeKeys(t *testing.T) {
	src := "declare -A M=(\n  [8192:8:1:false:1]=5\n  [a b]=x\n)\nK=8192; T=8\nN=\"${M[${K}:${T}:1:false:1]:-3}\"\nO=\"${M[1:2]:-3}\"\nM[x:y]=7\npython3 -m sglang.launch_server --n \"$N\" --o \"$O\" --m \"${M[x:y]}\" --ab \"${M[a b]}\"\n"
	run, err := runScript("assoc.sh", []byte(src), ScriptOptions{})
	if err != nil {
		t.Fatal(err)
	}
	procs, err := ScriptProcesses(run, "assoc.sh")
	if err != nil {
		t.Fatal(err)
	}
	eqStrings(t, "args", argsText(procs[0].Args), []string{"--n 5", "--o 3", "--m 7", "--ab x"})
	if procs[0].Origin.Path != "assoc.sh:9" {
		t.Errorf("origin %s, want assoc.sh:9", procs[0].Origin.Path)
	}
}

// BenchmarkRenderSingleNode renders every point of testdata/launch (the
// workflow step, the runner launchers, the scripts and the library run in
// the sandbox for each launcher of each point).
func BenchmarkRenderSingleNode(b *testing.B) {
	ws, err := Open("testdata/launch")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ws.RenderAll(context.Background(), nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLaunchOlderLayout: the same checkout in the shape of commits before
// 2026-07-02 (master configs and runners.yaml under .github/configs/,
// runners.yaml a flat label → runner names mapping) renders the same
// script with the same flags.
func TestLaunchOlderLayout(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/launch")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".github", "configs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "configs", "nvidia-master.yaml"), filepath.Join(dir, ".github", "configs", "nvidia-master.yaml")); err != nil {
		t.Fatal(err)
	}
	flat := "b200:\n  - b200-cw_00\n  - b200-dgxc_00\nh200:\n  - h200-nb_0\ncluster:h200-dgxc:\n  - h200-nb_1\n"
	if err := os.WriteFile(filepath.Join(dir, ".github", "configs", "runners.yaml"), []byte(flat), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "configs")); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := pointAt(t, ws, "m1-fp8-b200-sglang", 0, 16)
	if len(p.Launchers) != 2 {
		t.Fatalf("launchers = %q", p.Launchers)
	}
	d := renderOne(t, ws, p, Options{})
	if d.Source.File != "benchmarks/single_node/fixed_seq_len/m1_fp8_b200.sh" {
		t.Errorf("script = %q", d.Source.File)
	}
	eqStrings(t, "args", argsText(d.Processes[0].Args), []string{
		"--model-path org/M1-FP8", "--tp 8", "--port 8888", "--context-length 9236", "--max-running-requests 32",
	})
}

// copyLaunch copies testdata/launch into a temporary checkout and applies
// edits (file → old → new) to it.
func copyLaunch(t *testing.T, edits ...[3]string) *Workspace {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/launch")); err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		p := filepath.Join(dir, e[0])
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), e[1]) {
			t.Fatalf("%s lacks %q", e[0], e[1])
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(data), e[1], e[2], 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestLauncherNotFollowed: one launcher of the label branches on a command
// the sandbox cannot evaluate before it picks the script. What that
// runner would run is unknown, so the point is unsupported (it is not
// rendered from the other launcher alone).
func TestLauncherNotFollowed(t *testing.T) {
	ws := copyLaunch(t, [3]string{"runners/launch_b200-dgxc.sh", "salloc --partition", "if nvidia-topo-check; then BENCH_SCRIPT=x.sh; fi\nsalloc --partition"})
	pe := renderErr(t, ws, "m1-fp8-b200-sglang", 0, 16)
	if pe.Status != StatusUnsupported || !strings.Contains(pe.Note, "runners/launch_b200-dgxc.sh (runner b200-dgxc_00) could not be followed: runners/launch_b200-dgxc.sh:14:4: nvidia-topo-check in a condition") {
		t.Errorf("%s: %q", pe.Status, pe.Note)
	}
}

// TestLauncherRunnerBranch: the last runner of a launcher picks another
// script (a branch on RUNNER_NAME): ambiguous, naming the runners.
func TestLauncherRunnerBranch(t *testing.T) {
	ws := copyLaunch(t, [3]string{"runners/launch_b200-dgxc.sh", "salloc --partition", "[[ \"$RUNNER_NAME\" == *_01 ]] && BENCH_SCRIPT=benchmarks/single_node/fixed_seq_len/m2_fp8_b200.sh\nsalloc --partition"})
	pe := renderErr(t, ws, "m1-fp8-b200-sglang", 0, 16)
	if pe.Status != StatusAmbiguous || !strings.Contains(pe.Note, "runners/launch_b200-dgxc.sh (runner b200-dgxc_01) runs benchmarks/single_node/fixed_seq_len/m2_fp8_b200.sh") {
		t.Errorf("%s: %q", pe.Status, pe.Note)
	}
}

// TestWorkflowEnvInherited: the workflow's env reaches the script's server;
// it is kept as the deployment's inherited env with its workflow position.
func TestWorkflowEnvInherited(t *testing.T) {
	ws := copyLaunch(t, [3]string{".github/workflows/benchmark-tmpl.yml", "  RESULT_DIR: /workspace/results\n", "  RESULT_DIR: /workspace/results\n  SGLANG_FOO_BAR: '1'\n"})
	d := renderOne(t, ws, pointAt(t, ws, "m1-fp8-b200-sglang", 0, 16), Options{})
	var got []string
	for _, e := range d.Inherited {
		if e.Name == "SGLANG_FOO_BAR" || e.Name == "PYTHONDONTWRITEBYTECODE" {
			got = append(got, e.Name+"="+e.Value+" "+e.Origin.String())
		}
	}
	eqStrings(t, "inherited", got, []string{
		"SGLANG_FOO_BAR=1 workflow .github/workflows/benchmark-tmpl.yml:54",
		"PYTHONDONTWRITEBYTECODE=1 workflow .github/workflows/benchmark-tmpl.yml:55",
	})
	for _, e := range d.Processes[0].Env {
		if e.Name == "SGLANG_FOO_BAR" {
			t.Errorf("inherited env written into the process env: %+v", e)
		}
	}
}

// TestLaunchedScriptParseError: a benchmark script a launcher starts that
// bash cannot read is bad input at the script's file:line:col (not a
// status, not the workflow step's later exit).
func TestLaunchedScriptParseError(t *testing.T) {
	ws := copyLaunch(t, [3]string{"benchmarks/single_node/fixed_seq_len/m3_fp8_b200_vllm.sh", "vllm serve", "if then fi (\nvllm serve"})
	_, err := ws.Render(context.Background(), pointAt(t, ws, "m3-fp8-b200-vllm", 0, 8), Options{})
	var pe *PosError
	if !errors.As(err, &pe) || errors.Is(err, ErrNotRenderable) || pe.File != "benchmarks/single_node/fixed_seq_len/m3_fp8_b200_vllm.sh" || pe.Line != 2 {
		t.Fatalf("err = %v, want bad input at benchmarks/single_node/fixed_seq_len/m3_fp8_b200_vllm.sh:2", err)
	}
}

// TestSymlinkOutOfCheckout: a symbolic link committed in the checkout that
// points outside it is not followed: the script reads nothing through it.
func TestSymlinkOutOfCheckout(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("TOKEN=leaked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := copyLaunch(t, [3]string{"benchmarks/single_node/fixed_seq_len/m3_fp8_b200_vllm.sh", "vllm serve \"$MODEL\"", "X=$(cat benchmarks/link 2>/dev/null)\nvllm serve \"$MODEL\" --x \"y$X\""})
	if err := os.Symlink(secret, filepath.Join(ws.Root, "benchmarks", "link")); err != nil {
		t.Fatal(err)
	}
	// issue 10: the jail refuses the link; the run stops there and reports
	// the refused path (the point is unsupported), and nothing it read is
	// in the result.
	_, err := ws.Render(context.Background(), pointAt(t, ws, "m3-fp8-b200-vllm", 0, 8), Options{})
	var pe *PointError
	if !errors.As(err, &pe) || pe.Status != StatusUnsupported || !strings.Contains(pe.Note, "m3_fp8_b200_vllm.sh:2:5: a read of benchmarks/link: a symbolic link resolves outside the checkout") {
		t.Fatalf("err = %v, want unsupported naming the refused link", err)
	}
	if strings.Contains(err.Error(), "leaked") {
		t.Errorf("the link's content reached the result: %v", err)
	}
}

// TestScriptHostParams: $$, $PPID and $RANDOM have fixed values, not this
// machine's.
func TestScriptHostParams(t *testing.T) {
	run, err := runScript("pp.sh", []byte("x=\"a$$-${PPID}-$RANDOM\"\npython3 -m sglang.launch_server --x \"$x\" --y $$\n"), ScriptOptions{})
	if err != nil {
		t.Fatal(err)
	}
	procs, err := ScriptProcesses(run, "pp.sh")
	if err != nil {
		t.Fatal(err)
	}
	eqStrings(t, "args", argsText(procs[0].Args), []string{"--x a4242-4241-12345", "--y 4242"})
}

// TestScriptCommandLookup: `command -v` answers from the sandbox's view —
// functions, the image's tools, GPU probes by vendor — and an unknown
// tool tested in a condition is unsupported, never "not installed".
func TestScriptCommandLookup(t *testing.T) {
	h200, _ := shellutil.FactsFor("h200")
	src := "f() { :; }\nA=no; B=no; C=no; D=no\ncommand -v f >/dev/null && A=yes\ncommand -v python3 >/dev/null && B=yes\ncommand -v rocm-smi >/dev/null && C=yes\ncommand -v nvidia-smi >/dev/null && D=yes\npython3 -m sglang.launch_server --a $A --b $B --c $C --d $D\n"
	run, err := runScript("lk.sh", []byte(src), ScriptOptions{Facts: h200})
	if err != nil {
		t.Fatal(err)
	}
	procs, err := ScriptProcesses(run, "lk.sh")
	if err != nil {
		t.Fatal(err)
	}
	eqStrings(t, "args", argsText(procs[0].Args), []string{"--a yes", "--b yes", "--c no", "--d yes"})
	run, err = runScript("lk2.sh", []byte("if command -v my-site-tool >/dev/null; then X=1; fi\npython3 -m sglang.launch_server\n"), ScriptOptions{Facts: h200})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop == nil || run.Stop.Pos.Line != 1 || !strings.Contains(run.Stop.Msg, "whether my-site-tool is installed") {
		t.Errorf("stop = %+v", run.Stop)
	}
}

// TestScriptInterpreterPanic: a single-node script line the interpreter
// panics on (`+=0[`) makes the point unsupported, at the script's line,
// with no stack trace, instead of ending the process.
func TestScriptInterpreterPanic(t *testing.T) {
	const script = "benchmarks/single_node/fixed_seq_len/m3_fp8_b200_vllm.sh"
	ws := copyLaunch(t, [3]string{script, "vllm serve \"$MODEL\"", "+=0[\nvllm serve \"$MODEL\""})
	_, err := ws.Render(context.Background(), pointAt(t, ws, "m3-fp8-b200-vllm", 0, 8), Options{})
	var pe *PointError
	if !errors.As(err, &pe) || pe.Status != StatusUnsupported {
		t.Fatalf("err = %v, want StatusUnsupported", err)
	}
	if !strings.Contains(pe.Note, script+":2:1: ") || !strings.Contains(pe.Note, "the shell interpreter (mvdan.cc/sh/v3) fails on this input: an assignment to an empty variable name") || strings.Contains(pe.Note, "goroutine") {
		t.Errorf("note = %q", pe.Note)
	}
}

// TestRenderedWorkerImage: the workers of a single-node script run in the
// master config's image (runners/launch_*.sh start the script in $IMAGE),
// as do an AMD batch job's servers (docker run "$DOCKER_IMAGE_NAME" =
// $IMAGE); the router and other processes name none.
func TestRenderedWorkerImage(t *testing.T) {
	ws := openLaunch(t)
	d := renderOne(t, ws, pointAt(t, ws, "m1-fp8-b200-sglang", 0, 16), Options{})
	b, err := batchFixture(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		d    launch.Deployment
		want string
	}{{d, "lmsysorg/sglang:v0.5.12"}, {b, "rocm/sgl-dev:v0.5.16"}} {
		workers := 0
		for _, p := range c.d.Processes {
			switch {
			case p.Kind == launch.KindWorker:
				workers++
				if p.Image != c.want {
					t.Errorf("%s %s worker image %q, want %q", c.d.Source.File, p.Role, p.Image, c.want)
				}
			case p.Image != "":
				t.Errorf("%s %s image %q, want none", c.d.Source.File, p.Kind, p.Image)
			}
		}
		if workers == 0 {
			t.Errorf("%s: no worker", c.d.Source.File)
		}
	}
}

// runLog is the launcher runs a Workspace made (launchRuns): the last by
// runs key, and how many were made.
type runLog struct {
	byKey map[string]cachedRun
	made  int
}

// launchRuns records the launcher runs a Workspace makes from now on
// (snCache.observe), kept in its cache or not.
func launchRuns(ws *Workspace) *runLog {
	ws.snInit()
	l := &runLog{byKey: map[string]cachedRun{}}
	ws.sn.observe = func(key string, c cachedRun) { l.byKey[key], l.made = c, l.made+1 }
	return l
}

// launcherRunsEnded lists, by runner name, whether the launcher runs
// recorded (launchRuns) ended early (sandbox.Trace.EndedAt) — "ended" —
// or ran to their end — "full" (every run of the name alike, else
// "mixed"). A run with holes for two runner names (runnerHoleOutcomes)
// counts for both: its key's worlds name them (the first hole is
// RUNNER_NAME's).
func launcherRunsEnded(runs *runLog) map[string]string {
	out := map[string]string{}
	for key, c := range runs.byKey {
		if c.run == nil {
			continue
		}
		parts := strings.Split(key, "\x01")
		names := []string{parts[2]}
		if worlds := parts[len(parts)-1]; worlds != "" {
			names = nil
			for _, w := range strings.Split(worlds, "\x03") {
				names = append(names, strings.Split(w, "\x02")[1])
			}
		}
		v := "full"
		if c.run.EndedAt != 0 {
			v = "ended"
		}
		for _, rn := range names {
			w := v
			if old, ok := out[rn]; ok && old != w {
				w = "mixed"
			}
			out[rn] = w
		}
	}
	return out
}

// TestLaterRunnersEndAtServer: the processes are those of the first
// launcher and runner name that starts a benchmark script; the others are
// followed only to their first server launch after they started one (the
// script they start and that they get to a server launch is all that is
// read of them). What a later runner does past it is not followed: here
// b200-dgxc_01 loops after its server comes up, which rendered in full
// would exceed the step bound; the point renders as b200-cw_00 runs it.
func TestLaterRunnersEndAtServer(t *testing.T) {
	ws := copyLaunch(t, [3]string{"benchmarks/single_node/fixed_seq_len/m1_fp8_b200.sh", "wait_for_server_ready\n", "wait_for_server_ready\n[[ $RUNNER_NAME == *_01 ]] && while :; do hostname; done\n"})
	runs := launchRuns(ws)
	d := renderOne(t, ws, pointAt(t, ws, "m1-fp8-b200-sglang", 0, 16), Options{})
	eqStrings(t, "args", argsText(d.Processes[0].Args), []string{
		"--model-path org/M1-FP8", "--tp 8", "--port 8888", "--context-length 9236", "--max-running-requests 32",
	})
	got := launcherRunsEnded(runs)
	want := map[string]string{"b200-cw_00": "full", "b200-dgxc_00": "ended", "b200-dgxc_01": "ended"}
	if !maps.Equal(got, want) {
		t.Errorf("launcher runs: %v, want %v", got, want)
	}
}

// TestFirstRunnerWithoutScriptLaterInFull: when the first launcher starts
// no benchmark script, the first that does is the one rendered, so it
// runs to its end — here its second server (a later launch) is in the
// rendering. Its two runner names run as one run with holes
// (runnerHoleOutcomes), so the second runs to its end too, where on its
// own it would end at its server (TestLaterRunnersEndAtServer); without
// holes it does, and the rendering is the same.
func TestFirstRunnerWithoutScriptLaterInFull(t *testing.T) {
	ws := copyLaunch(t,
		[3]string{"runners/launch_b200-cw.sh", "set -x\n", "exit 3\n"},
		[3]string{"benchmarks/single_node/fixed_seq_len/m1_fp8_b200.sh", "wait_for_server_ready\n", "wait_for_server_ready\npython3 -m sglang.launch_server --model-path \"$MODEL\" --port 9999 > s2.log 2>&1 &\n"})
	runs := launchRuns(ws)
	d := renderOne(t, ws, pointAt(t, ws, "m1-fp8-b200-sglang", 0, 16), Options{})
	if len(d.Processes) != 2 {
		t.Fatalf("%d processes, want the 2 servers the rendered runner starts: %+v", len(d.Processes), d.Processes)
	}
	got := launcherRunsEnded(runs)
	want := map[string]string{"b200-cw_00": "full", "b200-dgxc_00": "full", "b200-dgxc_01": "full"}
	if !maps.Equal(got, want) {
		t.Errorf("launcher runs: %v, want %v", got, want)
	}
	plain := copyLaunch(t,
		[3]string{"runners/launch_b200-cw.sh", "set -x\n", "exit 3\n"},
		[3]string{"benchmarks/single_node/fixed_seq_len/m1_fp8_b200.sh", "wait_for_server_ready\n", "wait_for_server_ready\npython3 -m sglang.launch_server --model-path \"$MODEL\" --port 9999 > s2.log 2>&1 &\n"})
	plainRuns := launchRuns(plain)
	dp := renderOne(t, plain, pointAt(t, plain, "m1-fp8-b200-sglang", 0, 16), Options{noHoles: true})
	if !reflect.DeepEqual(d, dp) {
		t.Errorf("with holes:\n%+v\nwithout:\n%+v", d, dp)
	}
	got = launcherRunsEnded(plainRuns)
	want = map[string]string{"b200-cw_00": "full", "b200-dgxc_00": "full", "b200-dgxc_01": "ended"}
	if !maps.Equal(got, want) {
		t.Errorf("launcher runs without holes: %v, want %v", got, want)
	}
}

// TestLaterRunnerBackgroundServer: a later runner name that launches its
// server in a background subshell while the script goes on (here into a
// loop without end) is not ended at that launch — where the script is at
// then depends on scheduling — but followed on, to the same answer every
// time: the loop's bound.
func TestLaterRunnerBackgroundServer(t *testing.T) {
	for range 8 {
		ws := copyLaunch(t, [3]string{"benchmarks/single_node/fixed_seq_len/m1_fp8_b200.sh", "export SGLANG_ENABLE_JIT_DEEPGEMM=0\n",
			"export SGLANG_ENABLE_JIT_DEEPGEMM=0\nif [[ $RUNNER_NAME == b200-dgxc* ]]; then ( for i in $(seq 1 200); do hostname; done; python3 -m sglang.launch_server --model-path X --port 1 > s.log 2>&1 ) &\nwhile :; do hostname; done; fi\n"})
		_, err := ws.Render(context.Background(), pointAt(t, ws, "m1-fp8-b200-sglang", 0, 16), Options{ScriptSteps: 5000})
		var pe *PointError
		if !errors.As(err, &pe) || pe.Status != StatusUnsupported || !strings.Contains(pe.Note, "execution limit") {
			t.Fatalf("err = %v, want the loop's bound", err)
		}
	}
}

// TestPointHarness: the workflow side kept for one point (pointHarness)
// is harness's for each runner name, computed once per name, the point's
// inputs shared between names.
func TestPointHarness(t *testing.T) {
	ws := copyLaunch(t)
	p := pointAt(t, ws, "m1-fp8-b200-sglang", 0, 16)
	ph := &pointHarness{}
	for _, rn := range []string{"b200-dgxc_00", "b200-dgxc_01", "b200-dgxc_00"} {
		got, err := ws.harnessOf(ph, p, rn)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ws.harness(p, rn)
		if err != nil {
			t.Fatal(err)
		}
		if got == nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %+v, want %+v", rn, got, want)
		}
		if got != ph.byName[rn] {
			t.Errorf("%s: not the one kept", rn)
		}
	}
	if len(ph.byName) != 2 || !ph.done {
		t.Errorf("kept %d names, inputs done %v", len(ph.byName), ph.done)
	}
	// each name's step carries its own name, never the other's
	for rn, other := range map[string]string{"b200-dgxc_00": "b200-dgxc_01", "b200-dgxc_01": "b200-dgxc_00"} {
		own := false
		for _, e := range ph.byName[rn].Env {
			own = own || strings.Contains(e.Value, rn)
			if strings.Contains(e.Value, other) {
				t.Errorf("%s's step has %s=%s", rn, e.Name, e.Value)
			}
		}
		if !own {
			t.Errorf("%s's step does not carry its name: %+v", rn, ph.byName[rn].Env)
		}
	}
}

// TestCitedScriptSharesRendering: a single-node point rendered through its
// launchers that cites a script (the AgentX part's point) renders as the
// point that cites none — one memo entry and one set of launcher runs for
// both — plus a note when the launchers run another script; its launcher
// runs are not kept past the render (their environment holds the point's
// own CONC: no other point has their input).
func TestCitedScriptSharesRendering(t *testing.T) {
	ws := copyLaunch(t)
	ws.RememberRenders()
	runs := launchRuns(ws)
	p := pointAt(t, ws, "m1-fp8-b200-sglang", 0, 16)
	if p.Kind != KindScript || len(p.Launchers) == 0 || p.Script != "" {
		t.Fatalf("point kind %s launchers %v script %q: want a launcher point without a script", p.Kind, p.Launchers, p.Script)
	}
	plain := renderOne(t, ws, p, Options{})
	made := runs.made
	if made == 0 {
		t.Fatal("no launcher run was made")
	}
	if n := len(ws.sn.runs); n != 0 {
		t.Errorf("%d single-node launcher runs kept, want 0", n)
	}
	cases := []struct {
		cite string
		note string // "" = the plain rendering
	}{
		{plain.Source.File, ""},
		{"benchmarks/single_node/fixed_seq_len/other.sh", "the launchers run " + plain.Source.File + ", not the cited benchmarks/single_node/fixed_seq_len/other.sh"},
	}
	for _, c := range cases {
		q := p
		q.Script = filepath.Join(ws.Root, filepath.FromSlash(c.cite))
		got := renderOne(t, ws, q, Options{})
		want := plain.Clone()
		if c.note != "" {
			want.Notes = append(want.Notes, c.note)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("cited %s:\n got %+v\nwant %+v", c.cite, got, want)
		}
	}
	if runs.made != made || len(ws.memo) != 1 {
		t.Errorf("the cited points made %d launcher runs more and %d memo entries, want 0 and 1", runs.made-made, len(ws.memo))
	}
	// rendered on its own (no memo), a cited point gives the same
	fresh := copyLaunch(t)
	q := pointAt(t, fresh, "m1-fp8-b200-sglang", 0, 16)
	q.Script = filepath.Join(fresh.Root, "benchmarks/single_node/fixed_seq_len/other.sh")
	got := renderOne(t, fresh, q, Options{})
	if n := len(got.Notes); n == 0 || got.Notes[n-1] != cases[1].note {
		t.Errorf("fresh cited rendering's notes %q, want the last %q", got.Notes, cases[1].note)
	}
}
