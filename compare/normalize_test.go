package compare

import (
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

func rules(t testing.TB) *Rules {
	t.Helper()
	r, err := DefaultRules()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFlagNormalization(t *testing.T) {
	r := rules(t)
	for _, c := range []struct{ engine, in, want string }{
		{"sglang", "--tensor_parallel_size", "--tensor-parallel-size"}, // _ -> -
		{"sglang", "tensor_parallel_size", "--tensor-parallel-size"},   // recipe key
		{"sglang", "--tp", "--tensor-parallel-size"},
		{"sglang", "--tp-size", "--tensor-parallel-size"},
		{"sglang", "--dp", "--data-parallel-size"},
		{"sglang", "--dp-size", "--data-parallel-size"},
		{"sglang", "--ep", "--expert-parallel-size"},
		{"sglang", "--ep-size", "--expert-parallel-size"},
		{"sglang", "--pp-size", "--pipeline-parallel-size"},
		{"sglang", "--model", "--model-path"},
		{"sglang", "--speculative-algo", "--speculative-algorithm"},
		{"sglang", "--mamba-scheduler-strategy", "--mamba-radix-cache-strategy"},
		{"sglang", "--cuda-graph-max-bs", "--cuda-graph-max-bs-decode"},
		{"sglang", "--nccl-init-addr", "--dist-init-addr"},
		{"vllm", "-tp", "--tensor-parallel-size"},
		{"vllm", "--tp", "--tp"}, // sglang aliases do not apply to vLLM
		// the shared table (launch/aliases.yaml) has vLLM's short options
		{"vllm", "-q", "--quantization"},
		{"vllm", "-asc", "--api-server-count"},
		{"vllm", "--dyn_tool_call_parser", "--tool-call-parser"},
		{"dynamo", "--router_mode", "--router-mode"},
	} {
		if got := r.Flag(c.engine, c.in); got != c.want {
			t.Errorf("Flag(%s, %q) = %q, want %q", c.engine, c.in, got, c.want)
		}
	}
}

func TestValueNormalization(t *testing.T) {
	r := rules(t)
	for _, c := range []struct{ flag, in, want string }{
		{"--mem-fraction-static", "0.80", "0.8"},
		{"--chunked-prefill-size", "65536", "65536"},
		{"--x", "True", "true"},
		{"--x", "FALSE", "false"},
		{"--speculative-config", `{"method": "mtp", "num_speculative_tokens": 3}`, `{"method":"mtp","num_speculative_tokens":3}`},
		{"--speculative-config", `{"num_speculative_tokens":3,"method":"mtp"}`, `{"method":"mtp","num_speculative_tokens":3}`},
		{"--hicache-storage-backend-extra-config", `{"enable_group_semantics": true}`, `{"enable_group_semantics":true}`},
		{"--x", "16,16,16,12", "16,16,16,12"},
		{"--x", "{not json", "{not json"},
		{"--x", "trtllm_mha", "trtllm_mha"},
		{"--deepep-config", "/configs/deepep_config.json", "deepep_config.json"},
		{"--deepep-config", "deepep_config.json", "deepep_config.json"},
		{"--chat-template", "/workspace/templates/deepseek_v4_thinking.jinja", "deepseek_v4_thinking.jinja"},
		{"--x", "/configs/x.json", "/configs/x.json"}, // not a file flag
	} {
		if got := r.Value(c.flag, c.in); got != c.want {
			t.Errorf("Value(%s, %q) = %q, want %q", c.flag, c.in, got, c.want)
		}
	}
}

func TestModel(t *testing.T) {
	const id = "Qwen/Qwen3.5-397B-A17B-FP8"
	for _, c := range []struct{ in, hf, want string }{
		{"/model", id, id},
		{"/model/", id, id},
		{"$MODEL", id, id},
		{"$MODEL_PATH", id, id},
		{"hf:" + id, "", id},
		{"/scratch/models/Qwen3.5-397B-A17B-FP8", id, id},
		{"/scratch/models/Other", id, "/scratch/models/Other"},
		// repository names are case-insensitive: a staged lower-case copy
		{"/lustre/fsw/models/qwen3.5-397b-a17b-fp8", id, id},
		{"/models", id, id}, // the llm-d job's mount
		// a hub cache entry
		{"/mnt/hf_hub_cache//models--Qwen--Qwen3.5-397B-A17B-FP8/snapshots/main", id, id},
		{"/mnt/hf_hub_cache/models--Qwen--Other/snapshots/main", id, "/mnt/hf_hub_cache/models--Qwen--Other/snapshots/main"},
		{id, id, id},
		{"/model/", "", "/model/"}, // unknown id: unchanged, so a MustMatch rule reports it
	} {
		if got := Model(c.in, c.hf); got != c.want {
			t.Errorf("Model(%q, %q) = %q, want %q", c.in, c.hf, got, c.want)
		}
	}
}

func TestEqualPlaceholders(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"http://$ETCD_IP:2379", "http://10.0.0.1:2379", true},
		{"http://10.0.0.1:2379", "http://$ETCD_IP:2379", true},
		{"$AGG_HEAD_IP:20000", "node-17:20000", true},
		{"$AGG_HEAD_IP:20000", "node-17:20001", false},
		{"$PREFILL_HEAD_IP:5757", "{head_ip}:5757", true},
		{"${NODE_IP}", "$NODE_IP", true},
		{"kv", "round-robin", false},
		{"", "", true},
	} {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("Equal(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestNormalizeProcess(t *testing.T) {
	r := rules(t)
	p := &launch.Process{
		Kind: launch.KindWorker, Role: launch.RoleDecode, Program: "python -m  sglang.launch_server",
		Args: []launch.Arg{
			{Flag: "--model-path", Values: []string{"/model/"}},
			{Flag: "--served-model-name", Values: []string{"nvidia/Qwen3.5-397B-A17B-NVFP4"}},
			{Flag: "--tp=4"},
			{Flag: "--trust-remote-code", Values: []string{"true"}},
			{Flag: "--enable-dp-attention", Values: []string{"false"}},
			{Flag: "--active-decode-blocks-threshold", Values: []string{"None"}},
			{Flag: "--cuda_graph_bs", Values: []string{"1", "2", "4"}},
		},
		Env:     []launch.EnvVar{{Name: "SGLANG_MOONCAKE_CUSTOM_MEM_POOL", Value: "True"}},
		Workers: 3,
	}
	n := r.NormalizeProcess(p, "sglang", "")
	want := map[string]string{
		"program":                             "sglang serve",                   // python -m sglang.launch_server is the sglang CLI's server
		"--model-path":                        "nvidia/Qwen3.5-397B-A17B-NVFP4", // via --served-model-name
		"--served-model-name":                 "nvidia/Qwen3.5-397B-A17B-NVFP4",
		"--tensor-parallel-size":              "4",
		"--trust-remote-code":                 "",
		"--cuda-graph-bs":                     "1 2 4",
		"env SGLANG_MOONCAKE_CUSTOM_MEM_POOL": "true",
		"workers":                             "3",
		"nodes-per-worker":                    "1",
	}
	if len(n.Settings) != len(want) {
		t.Errorf("got %d settings %v, want %d", len(n.Settings), n.Order, len(want))
	}
	for k, v := range want {
		s, ok := n.Settings[k]
		if !ok {
			t.Errorf("%s: missing", k)
			continue
		}
		if s.Value != v {
			t.Errorf("%s = %q, want %q", k, s.Value, v)
		}
	}
	for _, k := range []string{"--enable-dp-attention", "--active-decode-blocks-threshold"} {
		if _, ok := n.Settings[k]; ok {
			t.Errorf("%s: false/None should mean absent", k)
		}
	}
}

func TestParseRulesErrors(t *testing.T) {
	for _, c := range []struct{ name, y string }{
		{"not a flag", "aliases: {sglang: {tp: [--tp]}}"},
		{"alias not a flag", "aliases: {sglang: {--tp-size: [tp]}}"},
		{"double alias", "aliases: {sglang: {--a: [--x], --b: [--x]}}"},
		{"unknown key", "alias: {}"},
	} {
		if _, err := ParseRules("n.yaml", []byte(c.y)); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestEnvNormalization(t *testing.T) {
	r := rules(t)
	for _, c := range []struct{ name, value, wantName, wantValue string }{
		{"SGLANG_DISABLE_TP_MEMORY_INBALANCE_CHECK", "1", "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK", "false"},
		{"SGLANG_DISABLE_TP_MEMORY_INBALANCE_CHECK", "true", "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK", "false"},
		{"SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK", "0", "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK", "false"},
		{"SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK", "1", "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK", "true"},
		{"SGL_ENABLE_JIT_DEEPGEMM", "false", "SGLANG_ENABLE_JIT_DEEPGEMM", "false"},
		{"SGLANG_MOONCAKE_CUSTOM_MEM_POOL", "True", "SGLANG_MOONCAKE_CUSTOM_MEM_POOL", "true"},
		{"NCCL_NVLS_ENABLE", "1", "NCCL_NVLS_ENABLE", "1"},
	} {
		n, v := r.Env(c.name, c.value)
		if n != c.wantName || v != c.wantValue {
			t.Errorf("Env(%s=%s) = %s=%s, want %s=%s", c.name, c.value, n, v, c.wantName, c.wantValue)
		}
	}
}

// A worker flag given twice keeps its last value (argparse store: srtctl
// injects --disaggregation-bootstrap-port, the recipe repeats it); a router
// keeps every --prefill/--decode occurrence (append options).
func TestRepeatedFlags(t *testing.T) {
	r := rules(t)
	w := &launch.Process{Kind: launch.KindWorker, Role: launch.RolePrefill, Program: "python3 -m dynamo.sglang",
		Args: []launch.Arg{{Flag: "--disaggregation-bootstrap-port", Values: []string{"7200"}}, {Flag: "--disaggregation-bootstrap-port", Values: []string{"31000"}}}}
	if got := r.NormalizeProcess(w, "sglang", "").Settings["--disaggregation-bootstrap-port"].Value; got != "31000" {
		t.Errorf("worker repeated flag = %q, want 31000", got)
	}
	rt := &launch.Process{Kind: launch.KindSGLangRouter, Program: "python -m sglang_router.launch_router",
		Args: []launch.Arg{{Flag: "--prefill", Values: []string{"http://$PREFILL_0_HEAD_IP:30000", "8998"}}, {Flag: "--prefill", Values: []string{"http://$PREFILL_1_HEAD_IP:30000", "8998"}}}}
	if got, want := r.NormalizeProcess(rt, "sglang-router", "").Settings["--prefill"].Value, "http://$PREFILL_0_HEAD_IP:30000 8998 ; http://$PREFILL_1_HEAD_IP:30000 8998"; got != want {
		t.Errorf("router repeated flag = %q, want %q", got, want)
	}
}

// TestSGLangDerivedSettings: settings SGLang's ServerArgs derives compare
// equal to the side that states them — NEXTN is EAGLE, a tokenizer path
// equal to the model path is the default, an all-to-all MoE backend splits
// the experts over the TP ranks — and model ids compare without case.
func TestSGLangDerivedSettings(t *testing.T) {
	w := func(args ...launch.Arg) *launch.Process {
		return &launch.Process{Kind: launch.KindWorker, Program: "sglang serve", Args: args}
	}
	a := func(f string, v ...string) launch.Arg { return launch.Arg{Flag: f, Values: v} }
	up := &launch.Deployment{Engine: "sglang", Model: "org/M-FP4-v2", Processes: []launch.Process{*w(a("--model-path", "org/M-FP4-v2"), a("--tp", "8"),
		a("--speculative-algorithm", "NEXTN"), a("--moe-a2a-backend", "megamoe"))}}
	ix := &launch.Deployment{Engine: "sglang", Model: "org/M-FP4-V2", Processes: []launch.Process{*w(a("--model-path", "org/M-FP4-V2"), a("--tokenizer-path", "org/M-FP4-V2"),
		a("--tp", "8"), a("--ep-size", "8"), a("--speculative-algorithm", "EAGLE"), a("--moe-a2a-backend", "megamoe"))}}
	rs, err := Compare(up, ix, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Verdict != Covered || len(rs[0].Differences) != 0 {
		t.Errorf("verdict %s, differences %v", rs[0].Verdict, diffText(rs[0]))
	}
	// a different EP is still a difference
	ix.Processes[0].Args[3] = a("--ep-size", "4")
	if rs, _ := Compare(up, ix, Options{}); rs[0].Verdict != Differs || strings.Join(diffText(rs[0]), "|") != "--expert-parallel-size: upstream 8, inferencex 4" {
		t.Errorf("ep 8 vs 4: %s %v", rs[0].Verdict, diffText(rs[0]))
	}
}
