package infx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/internal/fuzzbound"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

func openOld(t testing.TB) *Workspace {
	t.Helper()
	ws, err := Open("testdata/old")
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func pointAt(t testing.TB, ws *Workspace, key string, row, conc int) Point {
	t.Helper()
	pts, err := ws.Points(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		if p.Row == row && p.Concurrency == conc {
			return p
		}
	}
	t.Fatalf("%s: no point row %d conc %d", key, row, conc)
	return Point{}
}

// argsText gives "flag v1 v2" per Arg for easy comparison.
func argsText(args []launch.Arg) []string {
	var out []string
	for _, a := range args {
		out = append(out, strings.TrimSpace(a.Flag+" "+strings.Join(a.Values, " ")))
	}
	return out
}

func renderOne(t *testing.T, ws *Workspace, p Point, opt Options) launch.Deployment {
	t.Helper()
	d, err := ws.Render(context.Background(), p, opt)
	if err != nil {
		t.Fatalf("render %s row %d conc %d: %v", p.ConfigKey, p.Row, p.Concurrency, err)
	}
	return d
}

func eqStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestScriptInlineLaunch(t *testing.T) {
	ws := openOld(t)
	// conc 4: the $( [[ $CONC -gt 4 ]] … ) gives 10; no DP attention.
	d := renderOne(t, ws, pointAt(t, ws, "dsr1-fp8-h200-sglang", 0, 4), Options{})
	if len(d.Processes) != 1 {
		t.Fatalf("processes = %d, want 1", len(d.Processes))
	}
	p := d.Processes[0]
	if p.Program != "python3 -m sglang.launch_server" || p.Kind != launch.KindWorker || p.Role != launch.RoleAgg {
		t.Errorf("process = %q %s %s", p.Program, p.Kind, p.Role)
	}
	eqStrings(t, "args", argsText(p.Args), []string{
		"--model-path deepseek-ai/DeepSeek-R1-0528", "--host 0.0.0.0", "--port 8888",
		"--tensor-parallel-size 8", "--trust-remote-code", "--scheduler-recv-interval 10",
		"--cuda-graph-max-bs 4", "--context-length 9236", "--mem-fraction-static 0.82",
	})
	eqStrings(t, "env", envText(p.Env), []string{"SGLANG_ENABLE_JIT_DEEPGEMM=false"})
	if p.Args[0].Origin.Kind != launch.OriginScript || p.Args[0].Origin.Path != "benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200_sglang.sh:20" {
		t.Errorf("origin = %v", p.Args[0].Origin)
	}
	if d.Source.File != "benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200_sglang.sh" || d.Source.ConfigKey != "dsr1-fp8-h200-sglang" || d.Source.Concurrency != 4 {
		t.Errorf("source = %+v", d.Source)
	}
	// conc 16: the other branch of the $( … ).
	d = renderOne(t, ws, pointAt(t, ws, "dsr1-fp8-h200-sglang", 0, 16), Options{})
	if v, _ := launch.Lookup(d.Processes[0].Args, "--scheduler-recv-interval"); len(v) != 1 || v[0] != "30" {
		t.Errorf("conc 16 scheduler-recv-interval = %v, want 30", v)
	}
	// DP-attention row: the branch adds DP/EP/EPLB flags.
	d = renderOne(t, ws, pointAt(t, ws, "dsr1-fp8-h200-sglang", 1, 64), Options{})
	got := argsText(d.Processes[0].Args)
	eqStrings(t, "dp args", got[3:8], []string{"--tensor-parallel-size 8", "--dp-size 8", "--enable-dp-attention", "--ep-size 8", "--enable-eplb"})
}

func envText(env []launch.EnvVar) []string {
	var out []string
	for _, e := range env {
		out = append(out, e.Name+"="+e.Value)
	}
	return out
}

func TestScriptArrayPrintfQ(t *testing.T) {
	ws := openOld(t)
	p := pointAt(t, ws, "qwen3.5-fp8-h200-vllm", 1, 256)
	if filepath.Base(p.Script) != "qwen3.5_fp8_h200.sh" {
		t.Fatalf("script = %q (bare-name fallback expected)", p.Script)
	}
	d := renderOne(t, ws, p, Options{})
	pr := d.Processes[0]
	if pr.Program != "vllm serve" {
		t.Fatalf("program = %q", pr.Program)
	}
	eqStrings(t, "args", argsText(pr.Args), []string{
		"Qwen/Qwen3.5-397B-A17B-FP8", "--host 0.0.0.0", "--port 8888",
		"--tensor-parallel-size 1", "--data-parallel-size 8", "--enable-expert-parallel",
		"--max-model-len 2048", "--max-num-seqs 256",
		`--compilation-config {"cudagraph_mode": "FULL_AND_PIECEWISE", "max_cudagraph_capture_size": 512}`,
		"--no-enable-prefix-caching",
	})
	eqStrings(t, "env", envText(pr.Env), []string{"VLLM_USE_FLASHINFER_MOE_FP8=1"})

	// The printf '%q ' copy went to the in-memory sink, not to disk.
	run, err := RunScript(p.Script, ScriptOptions{Env: ScriptEnv(p, nil)})
	if err != nil {
		t.Fatal(err)
	}
	got := run.Writes["/workspace/results/vllm_command.txt"]
	want := `vllm serve Qwen/Qwen3.5-397B-A17B-FP8 --host 0.0.0.0 --port 8888 --tensor-parallel-size 1 --data-parallel-size 8 --enable-expert-parallel --max-model-len 2048 --max-num-seqs 256 --compilation-config \{\"cudagraph_mode\":\ \"FULL_AND_PIECEWISE\"\,\ \"max_cudagraph_capture_size\":\ 512\} --no-enable-prefix-caching `
	if got != want {
		t.Errorf("vllm_command.txt:\n got %q\nwant %q", got, want)
	}
	if _, err := os.Stat("/workspace/results/vllm_command.txt"); err == nil {
		t.Errorf("script wrote to disk")
	}
}

func TestScriptEvalEnvWrapper(t *testing.T) {
	ws := openOld(t)
	p := pointAt(t, ws, "qwen3.5-fp8-h200-sglang-agentic-mtp", 0, 4)
	if !strings.HasSuffix(p.Script, "agentic/qwen3.5_fp8_h200_sglang_mtp.sh") {
		t.Fatalf("script = %q", p.Script)
	}
	// kv-offloading none: InferenceX's agentic_dram_offload_gb gives 0
	// (the DRAM budget only exists for kv-offloading dram).
	if p.TotalCPUDRAMGB != 0 || slices.ContainsFunc(ScriptEnv(p, nil), func(s string) bool { return strings.HasPrefix(s, "TOTAL_CPU_DRAM_GB=") }) {
		t.Errorf("TotalCPUDRAMGB = %d", p.TotalCPUDRAMGB)
	}
	d := renderOne(t, ws, p, Options{})
	pr := d.Processes[0]
	eqStrings(t, "args", argsText(pr.Args), []string{
		"--model-path Qwen/Qwen3.5-397B-A17B-FP8", "--tp 8", "--speculative-algorithm EAGLE",
		"--speculative-num-steps 3", "--speculative-eagle-topk 1", "--speculative-num-draft-tokens 4",
		"--max-running-requests 8", "--port 8888",
	})
	eqStrings(t, "env", envText(pr.Env), []string{"SGLANG_SIMULATE_ACC_LEN=3.39", "SGLANG_SIMULATE_ACC_METHOD=match-expected", "SGLANG_ENABLE_SPEC_V2=1"})
	// EVAL_ONLY=true drops the synthetic-acceptance exports.
	d = renderOne(t, ws, p, Options{ScriptEnv: []string{"EVAL_ONLY=true"}})
	eqStrings(t, "eval env", envText(d.Processes[0].Env), []string{"SGLANG_ENABLE_SPEC_V2=1"})
}

func TestScriptArrayViaFunction(t *testing.T) {
	t.Parallel() // seconds of sandboxed script steps: alongside the others
	ws := openOld(t)
	d := renderOne(t, ws, pointAt(t, ws, "glm5.2-fp8-h200-sglang", 0, 2), Options{})
	if len(d.Processes) != 2 {
		t.Fatalf("processes = %d, want worker + router", len(d.Processes))
	}
	eqStrings(t, "args", argsText(d.Processes[0].Args), []string{
		"--model-path zai-org/GLM-5.2-FP8", "--tp-size 8", "--reasoning-parser glm45", "--tool-call-parser glm47",
	})
	r := d.Processes[1]
	if r.Kind != launch.KindSGLangRouter || r.Role != launch.RoleNone || r.Program != "python3 -m sglang_router.launch_router" {
		t.Errorf("router = %s %s %q", r.Kind, r.Role, r.Program)
	}
	eqStrings(t, "router args", argsText(r.Args), []string{"--worker-urls http://127.0.0.1:30000", "--port 8888"})
}

func TestScriptEndlessLoop(t *testing.T) {
	t.Parallel() // seconds of sandboxed script steps: alongside the others
	ws := openOld(t)
	p := pointAt(t, ws, "loop-fp8-h200-sglang", 0, 1)
	// The step bound ends it, whatever the machine's speed: unsupported.
	_, err := ws.Render(context.Background(), p, Options{})
	if !errors.Is(err, ErrScriptLimit) || errors.Is(err, ErrScriptTimeLimit) {
		t.Fatalf("err = %v, want ErrScriptLimit", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "unsupported: the run did not end within the sandbox's bounds: benchmarks/single_node/fixed_seq_len/loop_fp8_h200_sglang.sh:") || !strings.Contains(msg, ":3:") && !strings.Contains(msg, ":4:") {
		t.Errorf("error does not name file:line:col: %v", err)
	}
	// A smaller step bound ends it sooner, the same way.
	_, err = ws.Render(context.Background(), p, Options{ScriptSteps: 1000})
	if !errors.Is(err, ErrScriptLimit) {
		t.Fatalf("steps: err = %v, want ErrScriptLimit", err)
	}
	// The wall-clock backstop is its own outcome: time limit, never
	// unsupported (it says nothing of the script).
	_, err = ws.Render(context.Background(), p, Options{ScriptTimeout: 50 * time.Millisecond, ScriptSteps: 1 << 30})
	var pe *PointError
	if !errors.Is(err, ErrScriptTimeLimit) || errors.Is(err, ErrScriptLimit) || !errors.As(err, &pe) || pe.Status != StatusTimeLimit {
		t.Fatalf("backstop: err = %v, want ErrScriptTimeLimit with StatusTimeLimit", err)
	}
}

func TestScriptWritesNothing(t *testing.T) {
	ws := openOld(t)
	dir := t.TempDir()
	target := filepath.Join(dir, "owned.txt")
	p := pointAt(t, ws, "kimik3-fp4-h200-sglang", 0, 1)
	wd, _ := os.Getwd()
	run, err := RunScript(p.Script, ScriptOptions{Env: ScriptEnv(p, []string{"TARGET=" + target}), ReadRoots: []string{"testdata/old"}, Dir: wd})
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Errorf("script wrote %d files into %s", len(ents), dir)
	}
	if got := run.Writes[target]; got != "owned\nmore\n" {
		t.Errorf("recorded write = %q", got)
	}
	var names []string
	for _, c := range run.Commands {
		names = append(names, c.Argv[0])
	}
	eqStrings(t, "commands", names, []string{"dirname", "hf", "touch", "cp", "python3"}) // sglang_common_flags is the library's function

	// Through Render: the checkout's benchmark_lib.sh helper gives flags,
	// its check_env_vars and wait_for_server_ready are stubbed.
	d := renderOne(t, ws, p, Options{ScriptEnv: []string{"TARGET=" + target}})
	eqStrings(t, "args", argsText(d.Processes[0].Args), []string{
		"--model-path moonshotai/Kimi-K3", "--tp 8", "--enable-metrics", "--log-level warning",
	})
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("render wrote %d files", len(ents))
	}
}

func TestScriptNoLaunch(t *testing.T) {
	run, err := runScript("x.sh", []byte("echo hi; ls /\n"), ScriptOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ScriptProcesses(run, "x.sh"); err == nil || !strings.Contains(err.Error(), "x.sh: no server launch command") {
		t.Errorf("err = %v", err)
	}
}

func FuzzRunScript(f *testing.F) {
	for _, s := range []string{
		"python3 -m sglang.launch_server --tp $TP &",
		"A=(vllm serve m --x 1); \"${A[@]}\"",
		"while :; do :; done",
		"eval \"$(echo trtllm-serve m)\"",
		"f() { f; }; f",
		"echo > /tmp/x; cat < /etc/passwd",
		// Issue 10's hostile shapes: a nameless function (the nil
		// dereference), an unread process substitution, a write to the
		// interpreter's FIFO name, an expansion bomb, host queries, a loop
		// without a simple command, nesting past the bound.
		"()00",
		"() ( : )",
		": <(true); vllm serve m --config <(echo x)",
		"echo x > \"$TMPDIR/sh-interp-1\"; vllm serve m",
		`x=$(printf "%065536d" 0); : "${x//0/$x}"`,
		"[[ -r /etc/shadow ]] && echo y; [[ -x /bin/sh ]]; command -v ls; vllm serve m",
		"x=1; while [[ $x ]]; do x=1; done",
		strings.Repeat("(", 2000) + strings.Repeat(")", 2000),
		// Input the interpreter panics on: an assignment to an empty
		// name, in the foreground, a background statement and a pipe, and
		// a name empty only at run time.
		"+=0[",
		"{ +=0[; } &\nwait",
		"echo a | +=0[ cat",
		"[[ -v $E ]]",
		// Names empty only at run time, in the interpreter's own
		// goroutines (issue 20 item 1): bash's answer, never a crash.
		"E=; [[ -v $E ]] &",
		"E=; unset \"$E\" | cat",
		"{ declare -n R=\"\"; echo $R; } &",
		"{ echo $((x[1]=2)); } &",
		"a=(1); (( a[0]++ )) | cat",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// The script's own 50 ms wall limit must also bound blocked I/O
		// (an unread process substitution, a FIFO): an input still
		// running after 2 s is a hang, not a slow run.
		err := fuzzbound.Within(2*time.Second, func() error {
			run, err := runScript("fuzz.sh", []byte(src), ScriptOptions{Timeout: 50 * time.Millisecond, Steps: 2000, Env: []string{"TP=8"}})
			if err == nil {
				_, _ = ScriptProcesses(run, "fuzz.sh")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%v\ninput: %q", err, src)
		}
	})
}

func TestScriptHeredocConfig(t *testing.T) {
	ws := openOld(t)
	p := pointAt(t, ws, "dsr1-fp4-b200-trt", 0, 128)
	if p.InScope || p.Engine != "trtllm" || filepath.Base(p.Script) != "dsr1_fp4_b200_trt.sh" {
		t.Fatalf("point = %+v", p)
	}
	d := renderOne(t, ws, p, Options{})
	pr := d.Processes[0]
	if pr.Program != "trtllm-serve" {
		t.Fatalf("program = %q", pr.Program)
	}
	eqStrings(t, "args", argsText(pr.Args), []string{
		"nvidia/DeepSeek-R1-0528-FP4", "--host 0.0.0.0", "--port 8888", "--tp_size 8", "--ep_size 8",
		"--extra_llm_api_options /workspace/extra-llm-api-config.yml",
	})
	eqStrings(t, "files", pr.Files, []string{"/workspace/extra-llm-api-config.yml"})
	run, err := RunScript(p.Script, ScriptOptions{Env: ScriptEnv(p, nil)})
	if err != nil {
		t.Fatal(err)
	}
	want := "enable_attention_dp: true\ncuda_graph_config:\n  max_batch_size: 128\n"
	if got := run.Writes["/workspace/extra-llm-api-config.yml"]; got != want {
		t.Errorf("config = %q, want %q", got, want)
	}
	if got := run.Writes["/workspace/config-copy.yml"]; got != want {
		t.Errorf("tee copy = %q", got)
	}
}
