package pages

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// goldenRows reads ../shared/golden/cookbook-pages/sglang-docs.golden.jsonl
// as Selections (Order from the JSON key order; testutil.SharedPath).
func goldenRows(t testing.TB) []Selection {
	t.Helper()
	golden, _ := goldenPaths(t)
	f, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Selection
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var s Selection
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		var raw struct {
			Selection json.RawMessage `json:"selection"`
		}
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		s.Order = jsonKeys(t, raw.Selection)
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// jsonKeys lists the keys of a JSON object in document order.
func jsonKeys(t testing.TB, b []byte) []string {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestGoldenCookbookPagesCommands parses every command of the golden
// cookbook-pages rows. The only errors allowed are ErrNoCommand: the
// generators' comment-only texts for selections they do not support
// ("# Error: This hardware only supports FP8 quantization", "# … Work In
// Progress"), which start nothing.
func TestGoldenCookbookPagesCommands(t *testing.T) {
	rows := goldenRows(t)
	if len(rows) != 23539 {
		t.Errorf("golden rows: got %d, want 23539", len(rows))
	}
	noCmd := map[string]int{}
	byKind := map[string]int{}
	var bad []string
	for i := range rows {
		d, err := ParseCommand("", &rows[i])
		if errors.Is(err, ErrNoCommand) {
			noCmd[filepath.Base(rows[i].File)]++
			continue
		}
		if err != nil {
			if len(bad) < 20 && !strings.Contains(err.Error(), "node-rank <0|1>") {
				bad = append(bad, err.Error())
			}
			byKind["error"]++
			continue
		}
		byKind["ok"]++
		if d.Model == "" {
			t.Errorf("%s %v: no model", rows[i].File, rows[i].Values)
		}
		for _, p := range d.Processes {
			if p.Kind == launch.KindWorker && p.Role == launch.RoleNone {
				t.Errorf("%s %v: worker without role", rows[i].File, rows[i].Values)
			}
			byKind[string(p.Kind)+"/"+string(p.Role)]++
			if p.NodesPerWorker > 1 {
				byKind["multi-node"]++
			}
			if p.Image != "" {
				byKind["docker"]++
			}
		}
	}
	total := 0
	var files []string
	for f, n := range noCmd {
		total += n
		files = append(files, f)
	}
	sort.Strings(files)
	t.Logf("parsed: %v", byKind)
	t.Logf("no command (comment-only, ErrNoCommand): %d rows in %d generators: %v", total, len(files), noCmd)
	for _, b := range bad {
		t.Error(b)
	}
	if byKind["error"] > 0 {
		t.Errorf("%d commands not parsed", byKind["error"])
	}
	if total != 1024 {
		t.Errorf("comment-only rows: got %d, want 1024", total)
	}
}

// findRow is the golden row of file (suffix) with the selection values
// want (a subset) and mode ("" for generators).
func findRow(t *testing.T, rows []Selection, file, mode string, want map[string]any) *Selection {
	t.Helper()
	for i := range rows {
		r := &rows[i]
		if !strings.HasSuffix(r.File, file) || r.Mode != mode {
			continue
		}
		ok := true
		for k, v := range want {
			if !reflect.DeepEqual(r.Values[k], v) {
				ok = false
				break
			}
		}
		if ok {
			return r
		}
	}
	t.Fatalf("no golden row %s %s %v", file, mode, want)
	return nil
}

func argVals(t *testing.T, p launch.Process, flag string) string {
	t.Helper()
	v, ok := launch.Lookup(p.Args, flag)
	if !ok {
		return "<absent>"
	}
	return strings.Join(v, " ")
}

func TestGoldenCookbookPagesCommandValues(t *testing.T) {
	rows := goldenRows(t)
	parse := func(r *Selection) *launch.Deployment {
		t.Helper()
		d, err := ParseCommand("", r)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	one := func(d *launch.Deployment) launch.Process {
		t.Helper()
		if len(d.Processes) != 1 {
			t.Fatalf("%d processes, want 1: %+v", len(d.Processes), d.Processes)
		}
		return d.Processes[0]
	}

	t.Run("single-node TP (qwen35 397b fp8 h200)", func(t *testing.T) {
		r := findRow(t, rows, "autoregressive/qwen35-deployment.jsx", "", map[string]any{"model": "397b", "hardware": "h200",
			"quantization": "fp8", "reasoning": "disabled", "toolcall": "disabled", "speculative": "disabled", "mambaCache": "v1"})
		d := parse(r)
		p := one(d)
		if d.Model != "Qwen/Qwen3.5-397B-A17B-FP8" || d.Hardware != "h200" || d.Engine != "sglang" {
			t.Errorf("model %q hw %q engine %q", d.Model, d.Hardware, d.Engine)
		}
		if p.Kind != launch.KindWorker || p.Role != launch.RoleAgg || p.NodesPerWorker != 0 || p.Image != "" {
			t.Errorf("process %+v", p)
		}
		if got := argVals(t, p, "--tp"); got != "8" {
			t.Errorf("--tp %q\n%s", got, r.Command)
		}
		if got := argVals(t, p, "--speculative-algorithm"); got != "<absent>" {
			t.Errorf("--speculative-algorithm %q", got)
		}
		if !strings.Contains(p.Origin.Path, "qwen35-deployment.jsx selection model=397b,hardware=h200,quantization=fp8") || !strings.HasSuffix(p.Origin.Path, " line 1") {
			t.Errorf("origin %q", p.Origin.Path)
		}
	})

	t.Run("DP attention + EP (deepseek-r1 basic h200 fp8 tp+dp+ep)", func(t *testing.T) {
		r := findRow(t, rows, "autoregressive/deepseek-r1-basic-deployment.jsx", "", map[string]any{"hardware": "h200", "quantization": "fp8",
			"strategy": []any{"tp", "dp", "ep"}, "thinking": "disabled", "toolcall": "disabled"})
		p := one(parse(r))
		t.Logf("%s", r.Command)
		if got := argVals(t, p, "--dp"); got != "8" {
			t.Errorf("--dp %q", got)
		}
		if got := argVals(t, p, "--enable-dp-attention"); got != "" {
			t.Errorf("--enable-dp-attention %q", got)
		}
		if got := argVals(t, p, "--ep"); got != "8" {
			t.Errorf("--ep %q", got)
		}
	})

	t.Run("MTP / EAGLE (deepseek-v4 pro fp4 b200 low-latency)", func(t *testing.T) {
		r := findRow(t, rows, "configs/deepseek-ai/deepseek-v4.jsx", "python", map[string]any{"hw": "b200", "variant": "pro", "quant": "fp4",
			"strategy": "low-latency", "nodes": "single"})
		d := parse(r)
		p := one(d)
		if d.Model != "deepseek-ai/DeepSeek-V4-Pro" {
			t.Errorf("model %q", d.Model)
		}
		for flag, want := range map[string]string{"--speculative-algorithm": "EAGLE", "--speculative-num-steps": "3",
			"--speculative-eagle-topk": "1", "--speculative-num-draft-tokens": "4", "--tp": "8"} {
			if got := argVals(t, p, flag); got != want {
				t.Errorf("%s %q, want %q\n%s", flag, got, want, r.Command)
			}
		}
	})

	t.Run("multi-node nnodes=2 (deepseek-v4 pro fp4 gb200 multi-2)", func(t *testing.T) {
		r := findRow(t, rows, "configs/deepseek-ai/deepseek-v4.jsx", "python", map[string]any{"hw": "gb200", "variant": "pro", "quant": "fp4",
			"strategy": "low-latency", "nodes": "multi-2"})
		p := one(parse(r))
		if p.NodesPerWorker != 2 || argVals(t, p, "--nnodes") != "2" || argVals(t, p, "--node-rank") != "<node-rank>" ||
			argVals(t, p, "--dist-init-addr") != "<node0-ip>:20000" {
			t.Errorf("multi-node: npw %d %q %q %q", p.NodesPerWorker, argVals(t, p, "--nnodes"), argVals(t, p, "--node-rank"), argVals(t, p, "--dist-init-addr"))
		}
		if v, _ := launch.LookupEnv(p.Env, "NCCL_MNNVL_ENABLE"); v != "1" {
			t.Errorf("env NCCL_MNNVL_ENABLE %q: %+v", v, p.Env)
		}
		if v, _ := launch.LookupEnv(p.Env, "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"); v != "256" {
			t.Errorf("env SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK %q", v)
		}
	})

	t.Run("multi-node two node commands (ring-2.5-1t mi300x)", func(t *testing.T) {
		r := findRow(t, rows, "autoregressive/ring-25-1t-deployment.jsx", "", map[string]any{"hardware": "mi300x", "reasoning": "disabled", "toolcall": "disabled"})
		p := one(parse(r))
		if p.NodesPerWorker != 2 || argVals(t, p, "--node-rank") != "0" || argVals(t, p, "--port") != "30000" ||
			argVals(t, p, "--dist-init-addr") != "<your-node0-ip>:20000" || argVals(t, p, "--pp-size") != "2" {
			t.Errorf("node 0: npw %d rank %q port %q addr %q pp %q", p.NodesPerWorker, argVals(t, p, "--node-rank"), argVals(t, p, "--port"),
				argVals(t, p, "--dist-init-addr"), argVals(t, p, "--pp-size"))
		}
		if v, _ := launch.LookupEnv(p.Env, "GLOO_SOCKET_IFNAME"); v != "<nic-ifname>" {
			t.Errorf("exported GLOO_SOCKET_IFNAME %q", v)
		}
		if got := argVals(t, p, "--model-loader-extra-config"); got != `{"enable_multithread_load": "true","num_threads": 64}` {
			t.Errorf("quoted JSON %q", got)
		}
	})

	t.Run("docker mode (glm-5.2 mi355x fp8)", func(t *testing.T) {
		r := findRow(t, rows, "configs/zai-org/glm-5.2.jsx", "docker", map[string]any{"hw": "mi355x", "nodes": "single"})
		d := parse(r)
		p := one(d)
		if p.Image == "" || !strings.HasPrefix(p.Image, "lmsysorg/sglang") || p.Program != "sglang serve" {
			t.Errorf("image %q program %q\n%s", p.Image, p.Program, r.Command)
		}
		if len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "--device /dev/kfd") || !strings.Contains(d.Notes[0], "--ipc host") {
			t.Errorf("notes %q", d.Notes)
		}
		if !strings.HasPrefix(d.Model, "zai-org/GLM-5.2") {
			t.Errorf("model %q", d.Model)
		}
	})

	t.Run("docker bash -lc wrapper (minimax-h3)", func(t *testing.T) {
		r := findRow(t, rows, "configs/MiniMaxAI/minimax-h3.jsx", "docker", map[string]any{"hw": "b200", "profile": "resident", "weights": "fl2va",
			"mode": "t2va", "quant": "bf16", "encoder": "auto"})
		p := one(parse(r))
		if p.Program != "sglang serve" || p.Image != "lmsysorg/sglang:dev" || argVals(t, p, "--num-gpus") != "8" || argVals(t, p, "--model-variant") != "fl2va" {
			t.Errorf("%+v", p)
		}
		if len(p.Preamble) != 1 || p.Preamble[0] != `python -m pip install -e /sgl-workspace/sglang/python[diffusion]` {
			t.Errorf("preamble %q", p.Preamble)
		}
		if v, _ := launch.LookupEnv(p.Env, "HF_TOKEN"); v != "<your-hf-token>" {
			t.Errorf("HF_TOKEN %q", v)
		}
	})
}

func TestParseCommandRolesAndErrors(t *testing.T) {
	sel := &Selection{File: "docs/src/snippets/configs/x/y.jsx", Kind: "config", Values: map[string]any{"hw": "b200", "pdMode": "prefill"}, Order: []string{"hw", "pdMode"}}
	d, err := ParseCommand("SGLANG_X=1 sglang serve \\\n  --model-path a/b \\\n  --disaggregation-mode=prefill \\\n  --port 30000", sel)
	if err != nil {
		t.Fatal(err)
	}
	p := d.Processes[0]
	if p.Role != launch.RolePrefill || argVals(t, p, "--disaggregation-mode") != "prefill" || p.Env[0].Name != "SGLANG_X" {
		t.Errorf("%+v", p)
	}
	if p.Args[1].Origin.Path != "docs/src/snippets/configs/x/y.jsx selection hw=b200,pdMode=prefill line 3" {
		t.Errorf("origin %q", p.Args[1].Origin.Path)
	}
	d, err = ParseCommand("", &Selection{File: "f.jsx", Values: map[string]any{"pdMode": "decode"}, Command: "sglang serve --model-path a/b"})
	if err != nil || d.Processes[0].Role != launch.RoleDecode {
		t.Fatalf("pdMode decode: %v %+v", err, d)
	}
	d, err = ParseCommand("python -m sglang_router.launch_router --pd-disaggregation --prefill http://p:30000 --decode http://d:30100\n"+
		"python3 -m sglang.launch_server --model-path a/b --disaggregation-mode decode", &Selection{File: "f.jsx"})
	if err != nil || len(d.Processes) != 2 || d.Processes[0].Kind != launch.KindSGLangRouter || d.Processes[1].Role != launch.RoleDecode {
		t.Fatalf("router + decode: %v %+v", err, d)
	}
	for _, bad := range []struct{ cmd, want string }{
		{"# only a comment\n", "only comments"},
		{"for i in 1 2; do sglang serve; done", "control flow"},
		{"sglang serve --model-path a/b | tee log", "operator"},
		{"vllm serve a/b", `unknown program "vllm"`},
		{"sglang serve --model-path $(cat m)", "expansion"},
		{"sglang serve --model-path a/b > log", "redirection"},
		{"docker run --weird x img sglang serve", `docker run option "--weird"`},
		{"sglang serve --nnodes 2 --node-rank 0\nsglang serve --nnodes 2 --node-rank 0", "--node-rank 0 again"},
	} {
		_, err := ParseCommand(bad.cmd, &Selection{File: "f.jsx", Values: map[string]any{"hw": "b200"}})
		var ce *CommandError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), bad.want) || !strings.HasPrefix(err.Error(), "f.jsx selection hw=b200 line ") {
			t.Errorf("%q: got %v, want %q", bad.cmd, err, bad.want)
		}
	}
	if _, err := ParseCommand(strings.Repeat("(", MaxCommandNesting+1), &Selection{}); err == nil || !strings.Contains(err.Error(), "openers") {
		t.Errorf("nesting bound: %v", err)
	}
}
