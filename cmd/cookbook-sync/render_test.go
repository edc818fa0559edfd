package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

const infxFixtures = "../../infx/testdata"

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRenderTextScript(t *testing.T) {
	code, out, errs := runCLI("render", "--infx", infxFixtures+"/old", "--config-key", "dsr1-fp8-h200-sglang", "--row", "0", "--conc", "8")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The command is the fixture script's launch line, its origins in a
	// comment above it (a comment after a trailing backslash would end the
	// command).
	want := `# dsr1-fp8-h200-sglang row 0 conc 8 (fixed-seq-len 8192/1024)
# script benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200_sglang.sh
# model deepseek-ai/DeepSeek-R1-0528, hardware h200, engine sglang
# note: no launcher of runner label h200 (runners/launch_*.sh) is in the checkout: the script is the one the launchers' common naming rule finds

# agg worker: 1 worker, 1 node/worker
# every env var and flag: script
SGLANG_ENABLE_JIT_DEEPGEMM=false \
python3 -m sglang.launch_server \
  --model-path deepseek-ai/DeepSeek-R1-0528 \
  --host 0.0.0.0 \
  --port 8888 \
  --tensor-parallel-size 8 \
  --trust-remote-code \
  --scheduler-recv-interval 30 \
  --cuda-graph-max-bs 8 \
  --context-length 9236 \
  --mem-fraction-static 0.82
`
	if out != want {
		t.Errorf("text output:\n%s\nwant:\n%s", out, want)
	}
}

func TestRenderJSONRecipe(t *testing.T) {
	code, out, errs := runCLI("render", "--infx", infxFixtures+"/new", "--config-key", "qwen3.5-fp4-gb300-dynamo-sglang-agentic-disagg", "--conc", "8", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got []struct {
		Point struct {
			ConfigKey string `json:"configKey"`
			Row       int    `json:"row"`
		} `json:"point"`
		Status    string `json:"status"`
		Model     string `json:"model"`
		SrtSlurm  string `json:"srtSlurmVersion"`
		Processes []struct {
			Kind  string   `json:"kind"`
			Role  string   `json:"role"`
			Nodes int      `json:"nodes"`
			Argv  []string `json:"argv"`
			Env   []struct {
				Name   string `json:"name"`
				Origin struct {
					Kind string `json:"kind"`
				} `json:"origin"`
			} `json:"env"`
			Args []struct {
				Flag   string `json:"flag"`
				Origin struct {
					Kind string `json:"kind"`
					Path string `json:"path"`
				} `json:"origin"`
			} `json:"args"`
		} `json:"processes"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got) != 1 || got[0].Point.Row != 0 || got[0].Status != "ok" || got[0].Model != "nvidia/Qwen3.5-397B-A17B-NVFP4" || got[0].SrtSlurm != "v1.0.68" {
		t.Fatalf("got %+v", got)
	}
	var kinds []string
	for _, p := range got[0].Processes {
		kinds = append(kinds, strings.TrimSpace(p.Role+" "+p.Kind))
	}
	// schema 2 (srtctl 2.x services registry, srt-slurm.md §10b): no NATS
	// unless something rides on it
	if strings.Join(kinds, ",") != "etcd,prefill worker,decode worker,nginx,dynamo-frontend" {
		t.Errorf("launch order = %v", kinds)
	}
	dec := got[0].Processes[2]
	if dec.Nodes != 1 || dec.Argv[0] != "python3" || dec.Argv[2] != "dynamo.sglang" {
		t.Errorf("decode = %+v", dec)
	}
	found := false
	for _, a := range dec.Args {
		if a.Flag == "--cuda-graph-max-bs" {
			found = a.Origin.Kind == "recipe"
		}
	}
	if !found {
		t.Errorf("decode --cuda-graph-max-bs not marked recipe: %+v", dec.Args)
	}
}

func TestRenderAllSummary(t *testing.T) {
	t.Parallel() // seconds of sandboxed script steps: alongside the others
	// The endless-loop fixture is unsupported (the sandbox stops it), not
	// an error; out-of-scope keys are not rendered.
	code, out, errs := runCLI("render", "--infx", infxFixtures+"/old", "--all")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"keys            10\n", "points          21\n", "rendered        14\n", "upstream-only   2\n", "unsupported     3\n",
		"ambiguous       0\n", "out of scope    2 (not rendered: Check 3 covers vLLM/SGLang only)\n", "errors          0\n"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("summary has %q %d times, want once:\n%s", want, strings.Count(out, want), out)
		}
	}
	// One line per config key (values from the fixture master configs),
	// and under it the points that were not rendered, with where and why.
	for _, want := range []string{
		"CONFIG KEY                           FRAMEWORK      POINTS RENDERED UPSTREAM-ONLY MISSING UNSUPPORTED AMBIGUOUS ERRORS  CHECK 3\n",
		"\ndsr1-fp4-gb200-dynamo-sglang         dynamo-sglang       6        4             2       0           0         0      0  in scope\n" +
			"    upstream-only: 2 points, row 3 conc 256,512: recipes/gb200-fp4/8k1k.yaml:override_stp_tp4 — not in the checkout: it lives in the NVIDIA/srt-slurm ref the launcher clones (--srt-slurm-dir renders it from a checkout)\n",
		"\ndsr1-fp4-b200-trt                    trt                 1        0             0       0           0         0      0  out of scope\n",
		"\ndsr1-fp8-h200-sglang                 sglang              4        4             0       0           0         0      0  in scope\nqwen3.5-fp8-h200-vllm ",
		"\nqwen3.5-fp8-mi355x-sglang-disagg     sglang-disagg       2        0             0       0           2         0      0  in scope\n" +
			"    unsupported: 2 points, row 0 conc 8,16: (no recipe or script) — sglang-disagg: no launcher of runner label mi355x-disagg (runners/launch_*.sh) is in the checkout: what submits the batch job of benchmarks/multi_node/qwen3.5_fp8_mi355x_sglang-disagg.sh (not in the checkout) is not known\n",
		"\n    unsupported: 1 point, row 0 conc 1: benchmarks/single_node/fixed_seq_len/loop_fp8_h200_sglang.sh — ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--all lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, " in scope\n") + strings.Count(out, " out of scope\n"); n != 10 {
		t.Errorf("%d key lines, want 10", n)
	}
}

func TestRenderAllJSON(t *testing.T) {
	t.Parallel() // seconds of sandboxed script steps: alongside the others
	code, out, errs := runCLI("render", "--infx", infxFixtures+"/old", "--all", "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		Keys, Points, Rendered, UpstreamOnly, Errors int
		ConfigKeys                                   []struct {
			ConfigKey, Framework string
			InScope              bool
			Points, Rendered     int
			Results              []struct {
				Row, Concurrency                 int
				Status, Recipe, Selector, Reason string
				File                             string
				ScriptsTried                     []string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Keys != 10 || got.Points != 21 || got.Rendered != 14 || got.UpstreamOnly != 2 || got.Errors != 0 || len(got.ConfigKeys) != 10 {
		t.Fatalf("totals: %+v", got)
	}
	for _, k := range got.ConfigKeys {
		if k.ConfigKey != "dsr1-fp4-gb200-dynamo-sglang" {
			continue
		}
		if k.Framework != "dynamo-sglang" || !k.InScope || k.Points != 6 || len(k.Results) != 6 {
			t.Fatalf("%+v", k)
		}
		r := k.Results[1] // row 0 conc 8: the flat recipe
		if r.Row != 0 || r.Concurrency != 8 || r.Status != "rendered" || r.Recipe != "recipes/sglang/dsr1/gb200-fp4/8k1k/disagg-1p1d.yaml" || r.Selector != "" || r.Reason != "" {
			t.Errorf("row 0 conc 8: %+v", r)
		}
		r = k.Results[2] // row 1 conc 64: zip_override_lowlat[1]
		if r.Row != 1 || r.Concurrency != 64 || r.Status != "rendered" || r.Selector != "zip_override_lowlat[1]" {
			t.Errorf("row 1 conc 64: %+v", r)
		}
		r = k.Results[5]
		if r.Row != 3 || r.Concurrency != 512 || r.Status != "upstream-only" || r.Recipe != "recipes/gb200-fp4/8k1k.yaml" || r.Selector != "override_stp_tp4" ||
			!strings.Contains(r.Reason, "NVIDIA/srt-slurm ref the launcher clones") {
			t.Errorf("row 3 conc 512: %+v", r)
		}
		return
	}
	t.Errorf("dsr1-fp4-gb200-dynamo-sglang not listed")
}

func TestRenderList(t *testing.T) {
	code, out, errs := runCLI("render", "--infx", infxFixtures+"/old", "--list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 11 {
		t.Fatalf("%d lines, want header + 10 keys:\n%s", len(lines), out)
	}
	for _, want := range []string{
		"CONFIG KEY                           FRAMEWORK      ROWS POINTS  CHECK 3",
		"dsr1-fp8-h200-sglang                 sglang            2      4  in scope",
		"dsr1-fp4-gb200-dynamo-sglang         dynamo-sglang     4      6  in scope",
		"dsr1-fp4-b200-trt                    trt               1      1  out of scope",
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("--list lacks %q:\n%s", want, out)
		}
	}
	code, out, errs = runCLI("render", "--infx", infxFixtures+"/old", "--list", "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var keys []struct {
		ConfigKey, Framework string
		InScope              bool
		Rows, Points         int
	}
	if err := json.Unmarshal([]byte(out), &keys); err != nil || len(keys) != 10 {
		t.Fatalf("%v: %s", err, out)
	}
	for _, k := range keys {
		if k.ConfigKey == "qwen3.5-fp8-h200-sglang-agentic-mtp" && (k.Framework != "sglang" || !k.InScope || k.Rows != 1 || k.Points != 2) {
			t.Errorf("%+v", k)
		}
	}
}

// TestRenderTextIsShell: every block's command in the text output parses
// as shell (mvdan.cc/sh/v3) into exactly the env and argv of the JSON
// output, and the origins, the served-model-name note and the fingerprint
// step are spelled out in comments.
func TestRenderTextIsShell(t *testing.T) {
	args := []string{"render", "--infx", infxFixtures + "/old", "--config-key", "dsr1-fp4-gb200-dynamo-sglang", "--row", "0", "--conc", "4"}
	code, text, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, js, errs := runCLI(append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, errs)
	}
	var got []struct {
		Processes []struct {
			Argv []string
			Env  []struct{ Name, Value string }
		}
	}
	if err := json.Unmarshal([]byte(js), &got); err != nil || len(got) != 1 {
		t.Fatalf("%v: %s", err, js)
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(text), "render.txt")
	if err != nil {
		t.Fatalf("text output is not valid shell: %v\n%s", err, text)
	}
	if len(f.Stmts) != len(got[0].Processes) {
		t.Fatalf("%d shell commands, %d processes:\n%s", len(f.Stmts), len(got[0].Processes), text)
	}
	for i, st := range f.Stmts {
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok {
			t.Fatalf("command %d is %T", i, st.Cmd)
		}
		var env, argv []string
		for _, a := range call.Assigns {
			v, err := expand.Literal(nil, a.Value)
			if err != nil {
				t.Fatal(err)
			}
			env = append(env, a.Name.Value+"="+v)
		}
		for _, w := range call.Args {
			v, err := expand.Literal(nil, w)
			if err != nil {
				t.Fatal(err)
			}
			argv = append(argv, v)
		}
		p := got[0].Processes[i]
		var wantEnv []string
		for _, e := range p.Env {
			wantEnv = append(wantEnv, e.Name+"="+e.Value)
		}
		if strings.Join(argv, "\x00") != strings.Join(p.Argv, "\x00") || strings.Join(env, "\x00") != strings.Join(wantEnv, "\x00") {
			t.Errorf("command %d:\n got %q %q\nwant %q %q", i, env, argv, wantEnv, p.Argv)
		}
	}
	for _, want := range []string{
		// The fixture recipe sets served-model-name: deepseek-ai/DeepSeek-R1.
		"#   --served-model-name* --host --port",
		"\n# * --served-model-name: value from the recipe's served-model-name, whose own flag srt-slurm drops\nHEAD_NODE_IP=10.0.0.0 \\\n",
		"\n# recipe: env SGLANG_ENABLE_JIT_DEEPGEMM; flags ",
		" && ( <fingerprint: capture the environment into /logs/fingerprint_decode_w<i>.json, non-fatal> )\n",
		"\n# nats\n# every env var and flag: injected (srt-slurm v1.0.68)\n/configs/nats-server \\\n  -js \\\n  -sd /tmp/nats\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "FINGERPRINT") || strings.Contains(text, "\\ ") {
		t.Errorf("placeholder or comment after a backslash left:\n%s", text)
	}
}

func TestRenderRecipeNoSelector(t *testing.T) {
	code, out, errs := runCLI("render", "--infx", infxFixtures+"/old", "--recipe", "recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml")
	if code != exitUsage || out != "" || !strings.Contains(errs, "the recipe has base and 3 variants, name one as FILE:<selector> (base, override_maxtpt, zip_override_lowlat[0], zip_override_lowlat[1])") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runCLI("render", "--infx", infxFixtures+"/old", "--recipe", "recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml:base")
	if code != 0 || !strings.Contains(out, "variants.yaml:base (srt-slurm v1.0.68)\n") {
		t.Errorf("base: exit %d: %s\n%s", code, errs, out)
	}
}

func TestRenderRecipeFlag(t *testing.T) {
	code, out, errs := runCLI("render", "--infx", infxFixtures+"/old", "--recipe", "recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml:override_maxtpt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "# recipe benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml:override_maxtpt (srt-slurm v1.0.68)") ||
		!strings.Contains(out, "  --expert-parallel-size 8") {
		t.Errorf("output:\n%s", out)
	}
	// A plain file path without --infx.
	code, _, errs = runCLI("render", "--recipe", infxFixtures+"/old/benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/gb200-fp4/8k1k/disagg-1p1d.yaml", "--srt-slurm-version", "v1.0.53")
	if code != 0 {
		t.Errorf("plain recipe: exit %d: %s", code, errs)
	}
}

func TestRenderErrors(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(dir+"/configs", 0o755)
	os.WriteFile(dir+"/configs/nvidia-master.yaml", []byte("k:\n  image: x\n  model: [1,\n"), 0o644)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no mode", []string{"render", "--infx", infxFixtures + "/old"}, "exactly one of --config-key, --recipe, --all or --list"},
		{"two modes", []string{"render", "--infx", infxFixtures + "/old", "--all", "--config-key", "x"}, "exactly one of"},
		{"bad format", []string{"render", "--infx", infxFixtures + "/old", "--all", "--format", "xml"}, `--format "xml"`},
		{"no infx", []string{"render", "--config-key", "k"}, "--infx DIR is required"},
		{"row without key", []string{"render", "--infx", infxFixtures + "/old", "--all", "--row", "1"}, "--row and --conc need --config-key"},
		{"unknown key", []string{"render", "--infx", infxFixtures + "/old", "--config-key", "nope"}, `unknown config key "nope"`},
		{"no such row", []string{"render", "--infx", infxFixtures + "/old", "--config-key", "dsr1-fp8-h200-sglang", "--row", "7"}, "has no point with row 7"},
		{"yaml error", []string{"render", "--infx", dir, "--all"}, dir + "/configs/nvidia-master.yaml:3:3: YAML: "},
		{"unknown selector", []string{"render", "--infx", infxFixtures + "/new", "--config-key", "qwen3.5-fp4-gb300-dynamo-sglang-agentic-disagg", "--row", "2"},
			"infx/testdata/new/inferencex-e2e/configs/nvidia-master.yaml:35:21: "},
		{"unknown version", []string{"render", "--infx", infxFixtures + "/old", "--config-key", "dsr1-fp4-gb200-dynamo-sglang", "--row", "0", "--conc", "4", "--srt-slurm-version", "v0.0.1"},
			"--srt-slurm-version: "},
		{"recipe not found", []string{"render", "--recipe", "nope.yaml"}, "nope.yaml: recipe not found"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", c.name, code, errs, c.want)
		}
	}
}

// TestRenderEndlessScript: a script the sandbox stops at its step bound is
// unsupported (exit 1, nothing rendered), with the script's file:line:col.
func TestRenderEndlessScript(t *testing.T) {
	t.Parallel() // seconds of sandboxed script steps: alongside the others
	code, _, errs := runCLI("render", "--infx", infxFixtures+"/old", "--config-key", "loop-fp8-h200-sglang")
	if code != exitGap || !strings.Contains(errs, "unsupported: the run did not end within the sandbox's bounds: benchmarks/single_node/fixed_seq_len/loop_fp8_h200_sglang.sh:3:7: ") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

// TestRenderExitStatus: --config-key exits 1 with the reasons when none of
// its selected points could be rendered; bad --srt-slurm-dir and an empty
// --srt-slurm-version are bad usage (2); a master that breaks the schema
// is bad input (2) with file:line:col.
func TestRenderExitStatus(t *testing.T) {
	notDir := t.TempDir() + "/file"
	os.WriteFile(notDir, []byte("x"), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"nothing rendered", []string{"render", "--infx", infxFixtures + "/new", "--config-key", "qwen3.5-fp4-gb300-dynamo-sglang-agentic-disagg", "--row", "3"}, exitGap,
			"cookbook-sync: config key \"qwen3.5-fp4-gb300-dynamo-sglang-agentic-disagg\": no point could be rendered (1 point selected):\n" +
				"  " + infxFixtures + "/new/inferencex-e2e/configs/nvidia-master.yaml:40:21: missing: srt-recipe qwen3.5/sglang/gb300-fp4/agentx/disagg-gone.yaml is not in the checkout\n"},
		{"srt-slurm-dir missing", []string{"render", "--infx", infxFixtures + "/old", "--config-key", "dsr1-fp8-h200-sglang", "--srt-slurm-dir", notDir + "-nope"}, exitUsage,
			"cookbook-sync: --srt-slurm-dir: stat " + notDir + "-nope: no such file or directory\n"},
		{"srt-slurm-dir file", []string{"render", "--infx", infxFixtures + "/old", "--config-key", "dsr1-fp8-h200-sglang", "--srt-slurm-dir", notDir}, exitUsage,
			"cookbook-sync: --srt-slurm-dir " + notDir + ": not a directory (want an NVIDIA/srt-slurm checkout)\n"},
		{"empty version", []string{"render", "--infx", infxFixtures + "/old", "--config-key", "dsr1-fp8-h200-sglang", "--srt-slurm-version", ""}, exitUsage,
			"cookbook-sync: --srt-slurm-version: empty (default v1.0.68)\n"},
		{"directory reference", []string{"render", "--infx", infxFixtures + "/refdir", "--config-key", "dirref", "--row", "0"}, exitUsage,
			"cookbook-sync: " + infxFixtures + "/refdir/configs/nvidia-master.yaml:23:13: recipe recipes/sglang/dsr1/8k1k: " + infxFixtures + "/refdir/benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/8k1k: a directory, want a file\n"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(c.args...)
		if code != c.code || errs != c.want {
			t.Errorf("%s: exit %d, stderr\n%q\nwant exit %d and\n%q", c.name, code, errs, c.code, c.want)
		}
	}
	// A master with an unbounded concurrency range fails at once (it used
	// to hang), naming the position.
	dir := t.TempDir()
	os.MkdirAll(dir+"/configs", 0o755)
	src, _ := os.ReadFile(infxFixtures + "/invalid/concrange-huge.yaml")
	os.WriteFile(dir+"/configs/nvidia-master.yaml", src, 0o644)
	code, _, errs := runCLI("render", "--infx", dir, "--config-key", "k")
	want := "cookbook-sync: " + dir + "/configs/nvidia-master.yaml:20:19: k.scenarios.fixed-seq-len[0].search-space[0].conc-end: concurrency must be in 1..1048576, got 4611686018427387905\n"
	if code != exitUsage || errs != want {
		t.Errorf("huge range: exit %d, stderr %q", code, errs)
	}
	// --help documents the exit status.
	_, out, _ := runCLI("render", "--help")
	if !strings.Contains(out, "Exit status: 0 the points") || !strings.Contains(out, "1 none\nof the selected points") {
		t.Errorf("help lacks the exit status:\n%s", out)
	}
}

// TestRenderWarnsOtherKeys: a master config with one broken key (an
// unknown kv-offload-backend) still renders the other keys; the broken key
// is a warning with file:line:col on stderr, and asking for it is an error
// at its position (exit 2).
func TestRenderWarnsOtherKeys(t *testing.T) {
	dir := t.TempDir()
	broken, err := os.ReadFile("../../infx/testdata/invalid/kv-offload-backend.yaml")
	if err != nil {
		t.Fatal(err)
	}
	good := "ok-fp8-h200-sglang:\n  image: lmsysorg/sglang:v0.5.12\n  model: org/M\n  model-prefix: ok\n  runner: h200\n  precision: fp8\n  framework: sglang\n  multinode: false\n  scenarios:\n    fixed-seq-len:\n    - isl: 1024\n      osl: 1024\n      search-space:\n      - { tp: 8, conc-list: [4] }\n"
	if err := os.MkdirAll(filepath.Join(dir, "configs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "configs", "nvidia-master.yaml"), append([]byte(good), broken...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("render", "--infx", dir, "--list")
	if code != exitOK || !strings.Contains(out, "ok-fp8-h200-sglang") || strings.Contains(out, "\nk ") {
		t.Errorf("--list: exit %d\n%s", code, out)
	}
	if !strings.Contains(errs, "cookbook-sync: warning: "+filepath.Join(dir, "configs", "nvidia-master.yaml")+":") || !strings.Contains(errs, "floppy") {
		t.Errorf("no positioned warning for the broken key: %q", errs)
	}
	code, _, errs = runCLI("render", "--infx", dir, "--config-key", "k")
	if code != exitUsage || !strings.Contains(errs, "floppy") || strings.Contains(errs, "warning:") {
		t.Errorf("--config-key k: exit %d, stderr %q", code, errs)
	}
}

// TestRenderBrokenRunners: a runners.yaml that does not parse decides which
// launcher runs a script: rendering a script point is bad input (exit 2)
// at the file's position.
func TestRenderBrokenRunners(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../infx/testdata/launch")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "configs", "runners.yaml")
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), "  h200:\n", "  h200: {\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI("render", "--infx", dir, "--config-key", "m4-fp8-h200-sglang")
	if code != exitUsage || !strings.Contains(errs, p+":") {
		t.Errorf("exit %d, stderr %q; want 2 at %s", code, errs, p)
	}
}

// TestRenderUnknownSetting: a setting a script makes only under some
// answers to a fact the sandbox does not know is shown marked unknown,
// with why, in the text and in the JSON.
func TestRenderUnknownSetting(t *testing.T) {
	code, out, errs := runCLI("render", "--infx", "../../infx/testdata/choices", "--config-key", "c1-fp8-mi355x-vllm")
	if code != 0 || !strings.Contains(out, "\n# unknown: env HSA_NO_SCRATCH_RECLAIM=1 when rocm-smi --showfw prints no MEC line or the MEC firmware is far below 177 (1) or the MEC firmware is below 177 (176); unset when the MEC firmware is 177 or later (177) or the MEC firmware is far above 177 (99999) — not known: the MEC firmware version of mi355x") {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCLI("render", "--infx", "../../infx/testdata/choices", "--config-key", "c1-fp8-mi355x-vllm", "--format", "json")
	if code != 0 || !strings.Contains(out, `"unknown": "HSA_NO_SCRATCH_RECLAIM=1 when rocm-smi --showfw prints no MEC line`) {
		t.Errorf("exit %d\n%s\n%s", code, out, errs)
	}
}
