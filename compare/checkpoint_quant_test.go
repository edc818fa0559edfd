package compare

import (
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TestCheckpointQuantImplied: the embedded table names the method of the
// checkpoints it cites and nothing else (a BF16 release, a distill, a
// community FP8 export, an unlisted publisher are not known).
func TestCheckpointQuantImplied(t *testing.T) {
	tab, err := DefaultCheckpointQuant()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ engine, ckpt, want string }{
		{"sglang", "nvidia/Qwen3.5-397B-A17B-NVFP4", "modelopt_fp4"},
		{"vllm", "nvidia/MiniMax-M3-NVFP4", "modelopt_fp4"},
		{"sglang", "nvidia/DeepSeek-R1-0528-FP4-v2", "modelopt_fp4"},
		{"sglang", "nvidia/DeepSeek-R1-FP4", "modelopt_fp4"},
		{"sglang", "Qwen/Qwen3.5-397B-A17B-FP8", "fp8"},
		{"vllm", "deepseek-ai/DeepSeek-R1-0528", "fp8"},
		{"sglang", "Qwen/Qwen3.5-397B-A17B", ""},                   // BF16
		{"sglang", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", ""}, // BF16 distill
		{"sglang", "RedHatAI/Qwen3-32B-FP8-dynamic", ""},           // compressed-tensors
		{"sglang", "zai-org/GLM-5-FP8", ""},                        // no cited source
		{"sglang", "nvidia/Llama-3.1-8B-Instruct-FP8", ""},         // ModelOpt FP8: engine-specific name
		{"sglang", "/scratch/models/Qwen3.5-397B-A17B-FP8", ""},    // not an id
		{"trtllm", "nvidia/MiniMax-M3-NVFP4", ""},                  // not an engine of the row
	} {
		row, ok := tab.Implied(c.engine, c.ckpt)
		got := ""
		if ok {
			got = row.Method
		}
		if got != c.want {
			t.Errorf("Implied(%s, %s) = %q, want %q", c.engine, c.ckpt, got, c.want)
		}
	}
}

func TestParseCheckpointQuantErrors(t *testing.T) {
	for name, doc := range map[string]string{
		"no source":   "checkpoints:\n  - match: [\"a/b\"]\n    method: fp8\n    engines: [vllm]\n",
		"not a URL":   "checkpoints:\n  - match: [\"a/b\"]\n    method: fp8\n    engines: [vllm]\n    sources: [\"the model card\"]\n",
		"upper case":  "checkpoints:\n  - match: [\"Qwen/*-FP8\"]\n    method: fp8\n    engines: [vllm]\n    sources: [\"https://x\"]\n",
		"no org":      "checkpoints:\n  - match: [\"*-fp8\"]\n    method: fp8\n    engines: [vllm]\n    sources: [\"https://x\"]\n",
		"bad glob":    "checkpoints:\n  - match: [\"a/[\"]\n    method: fp8\n    engines: [vllm]\n    sources: [\"https://x\"]\n",
		"unknown key": "checkpoints:\n  - match: [\"a/b\"]\n    method: fp8\n    engines: [vllm]\n    sources: [\"https://x\"]\n    why: x\n",
	} {
		if _, err := ParseCheckpointQuant("t.yaml", []byte(doc)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestCompareCheckpointQuantization: --quantization on one side equal to
// what the other side's served checkpoint implies is informational
// (rule checkpoint-quantization, citing its sources); a different explicit
// method, an unquantized or unlisted checkpoint, or two explicit values
// that differ stay differences.
func TestCompareCheckpointQuantization(t *testing.T) {
	mk := func(model string, kv ...string) *launch.Deployment {
		return &launch.Deployment{Engine: "sglang", Model: model, Processes: []launch.Process{{
			Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "python3 -m sglang.launch_server",
			Args: args(append([]string{"--model-path", model}, kv...)...)}}}
	}
	const fp8 = "Qwen/Qwen3.5-397B-A17B-FP8"
	const nvfp4 = "nvidia/Qwen3.5-397B-A17B-NVFP4"
	// InferenceX stages the checkpoint: the path resolves to the id
	staged := func(model string, kv ...string) *launch.Deployment {
		d := mk(model, kv...)
		d.Processes[0].Args[0].Values = []string{"/scratch/fsw/models/" + model[strings.IndexByte(model, '/')+1:]}
		return d
	}
	info := func(r Result) string {
		for _, e := range r.Info {
			if e.Setting == "--quantization" {
				return e.Rule
			}
		}
		return ""
	}
	for _, c := range []struct {
		name   string
		up, ix *launch.Deployment
		want   Verdict
		rule   string
	}{
		{"fp8 implied by the Qwen FP8 release", mk(fp8), staged(fp8, "--quantization", "fp8"), CoveredWithExclusions, "checkpoint-quantization"},
		{"upstream explicit, InferenceX implied", mk(fp8, "--quantization", "fp8"), staged(fp8), CoveredWithExclusions, "checkpoint-quantization"},
		{"modelopt_fp4 implied by an NVIDIA NVFP4 export", mk(nvfp4), staged(nvfp4, "--quantization", "modelopt_fp4"), CoveredWithExclusions, "checkpoint-quantization"},
		{"another method than the checkpoint's", mk(nvfp4), staged(nvfp4, "--quantization", "fp8"), Differs, ""},
		{"online fp8 of a BF16 checkpoint", mk("Qwen/Qwen3.5-397B-A17B"), staged("Qwen/Qwen3.5-397B-A17B", "--quantization", "fp8"), Differs, ""},
		{"unlisted checkpoint", mk("zai-org/GLM-5-FP8"), staged("zai-org/GLM-5-FP8", "--quantization", "fp8"), Differs, ""},
		{"two explicit methods", mk(fp8, "--quantization", "w8a8_fp8"), staged(fp8, "--quantization", "fp8"), Differs, ""},
	} {
		got := run(t, c.up, c.ix)["agg"]
		if got.Verdict != c.want || info(got) != c.rule {
			t.Errorf("%s: verdict %s rule %q, want %s %q (differences %+v)", c.name, got.Verdict, info(got), c.want, c.rule, got.Differences)
		}
	}
	// the reason names the checkpoint, the method and the sources
	got := run(t, mk(nvfp4), staged(nvfp4, "--quantization", "modelopt_fp4"))["agg"]
	if len(got.Info) != 1 || !strings.Contains(got.Info[0].Reason, "--quantization modelopt_fp4 is the method nvidia/Qwen3.5-397B-A17B-NVFP4 implies") ||
		!strings.Contains(got.Info[0].Reason, "https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/configs/model_config.py") {
		t.Errorf("info %+v", got.Info)
	}
}
