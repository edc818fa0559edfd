package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
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
	want := `# dsr1-fp8-h200-sglang row 0 conc 8 (fixed-seq-len 8192/1024)
# script benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200_sglang.sh
# model deepseek-ai/DeepSeek-R1-0528, hardware h200, engine sglang

# agg worker: 1 worker, 1 node/worker
SGLANG_ENABLE_JIT_DEEPGEMM=false \             # script
python3 -m sglang.launch_server \
  --model-path deepseek-ai/DeepSeek-R1-0528 \  # script
  --host 0.0.0.0 \                             # script
  --port 8888 \                                # script
  --tensor-parallel-size 8 \                   # script
  --trust-remote-code \                        # script
  --scheduler-recv-interval 30 \               # script
  --cuda-graph-max-bs 8 \                      # script
  --context-length 9236 \                      # script
  --mem-fraction-static 0.82                   # script
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
	if strings.Join(kinds, ",") != "etcd,nats,prefill worker,decode worker,nginx,dynamo-frontend" {
		t.Errorf("launch order = %v", kinds)
	}
	dec := got[0].Processes[3]
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
	// The endless-loop fixture fails (exit 2 after the summary).
	code, out, errs := runCLI("render", "--infx", infxFixtures+"/old", "--all")
	if code != exitUsage || !strings.Contains(errs, "1 points failed to render") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "error: loop-fp8-h200-sglang row 0 conc 1: ") || !strings.Contains(out, "loop_fp8_h200_sglang.sh:") {
		t.Errorf("failure not listed:\n%s", out)
	}
	for _, want := range []string{"keys            10\n", "points          21\n", "rendered        15\n", "upstream-only   3\n", "unsupported     2\n", "out of scope    2\n", "errors          1\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
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
		{"no mode", []string{"render", "--infx", infxFixtures + "/old"}, "exactly one of"},
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
		{"endless script", []string{"render", "--infx", infxFixtures + "/old", "--config-key", "loop-fp8-h200-sglang"},
			"benchmarks/single_node/fixed_seq_len/loop_fp8_h200_sglang.sh:"},
		{"recipe not found", []string{"render", "--recipe", "nope.yaml"}, "nope.yaml: recipe not found"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", c.name, code, errs, c.want)
		}
	}
}
