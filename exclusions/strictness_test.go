package exclusions

import (
	"strings"
	"testing"
)

// TestStrictClassesKernelChoices: under the "major server args" policies a
// kernel, backend, fusion or quantization choice is major by rule, flag or
// env var (the env catch-all "similar env toggles" does not win over it);
// the settings the text names InferenceX-specific, tuning sizes and the
// image stay informational; the current policy counts every setting.
func TestStrictClassesKernelChoices(t *testing.T) {
	cur, err := PolicyByID("current")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		key    string
		values []string
		major  bool
		rule   string
	}{
		{"--linear-backend", []string{"emulation"}, true, "kernel-backend"},
		{"--linear-backend", nil, true, "kernel-backend"},
		{"--fp8-gemm-backend", []string{"deep_gemm"}, true, "kernel-backend"},
		{"--enable-aiter-allreduce-fusion", []string{""}, true, "fusion"},
		{"--disable-shared-experts-fusion", []string{""}, true, "fusion"},
		{"--enable-flashinfer-allreduce-fusion", nil, true, "fusion"},
		{"--disable-custom-all-reduce", nil, true, "collective-kernels"},
		{"--deepep-mode", []string{"low_latency"}, true, "kernel-options"},
		{"--attention-config", []string{`{"backend":"FLASHINFER"}`}, true, "kernel-options"},
		{"--enable-flashinfer-cutlass-moe", nil, true, "kernel-library"},
		{"--kv-cache-dtype", []string{"fp8"}, true, "precision"},
		{"--enable-deepseek-v4-fp4-indexer", nil, true, "precision"},
		{"--hf-overrides", []string{`{"index_topk_freq":4}`}, true, "model-overrides"},
		{"--speculative-num-steps", []string{"3"}, true, "speculative"},
		{"--enable-dp-attention", nil, true, "parallelism"},
		{"--tensor-parallel-size", []string{"4"}, true, "parallelism"},
		{"workers", []string{"2"}, true, "parallelism"},
		{"positional", []string{"MiniMaxAI/MiniMax-M3-MXFP8"}, true, "model"},
		{"env VLLM_ROCM_USE_AITER_MOE", []string{"1"}, true, "kernel-library"},
		{"env VLLM_ROCM_USE_AITER", []string{"0"}, true, "kernel-library"},
		{"env SGLANG_USE_AITER", []string{"1"}, true, "kernel-library"},
		{"env VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS", []string{"1"}, true, "fusion"},
		{"env ROCM_QUICK_REDUCE_QUANTIZATION", []string{"INT6"}, true, "precision"},
		{"env VLLM_ROCM_QUICK_REDUCE_QUANTIZATION", []string{"INT4"}, true, "precision"},
		{"env VLLM_ATTENTION_BACKEND", []string{"FLASHINFER"}, true, "kernel-backend"},
		{"env SGLANG_DSA_FUSE_TOPK", []string{"1"}, true, "fusion"},
		{"env SGLANG_ENABLE_JIT_DEEPGEMM", []string{"0"}, true, "kernel-library"},
		{"env VLLM_ALLREDUCE_USE_SYMM_MEM", []string{"1"}, true, "collective-kernels"},
		{"env VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT", []string{"1"}, true, "exception"},
		// informational: named by the text, tuning, plumbing, catch-alls
		{"env SGLANG_RADIX_FORCE_MISS", []string{"1"}, false, "inferencex-specific"},
		{"--chunked-prefill-size", []string{"16384"}, false, "inferencex-specific"},
		{"--disable-piecewise-cuda-graph", nil, false, "inferencex-specific"},
		{"--speculative-config.synthetic_acceptance_length", []string{"3.39"}, false, "synthetic-acceptance"},
		{"env VLLM_ROCM_QUICK_REDUCE_QUANTIZATION_MIN_SIZE_KB", []string{"256"}, false, "tuning-and-plumbing"},
		{"env SGLANG_JIT_DEEPGEMM_PRECOMPILE", []string{"0"}, false, "tuning-and-plumbing"},
		{"env TRITON_CACHE_DIR", []string{"/tmp/triton"}, false, "tuning-and-plumbing"},
		{"env AITER_LOG_LEVEL", []string{"WARNING"}, false, "tuning-and-plumbing"},
		{"--disable-flashinfer-autotune", nil, false, "tuning-and-plumbing"},
		{"env SGLANG_ENABLE_SPEC_V2", []string{"1"}, false, "env-toggles"},
		{"env NCCL_MIN_NCHANNELS", []string{"112"}, false, "env-toggles"},
		{"env VLLM_FLOAT32_MATMUL_PRECISION", []string{"high"}, false, "env-toggles"},
		{"image", []string{"vllm/vllm-openai:v0.20.0"}, false, "image"},
		{"--distributed-executor-backend", []string{"mp"}, false, "exception"},
		{"--max-num-seqs", []string{"256"}, false, ""},
		{"--gpu-memory-utilization", []string{"0.9"}, false, ""},
		{"--data-parallel-rpc-port", []string{"13345"}, false, ""},
		{"--compilation-config", []string{`{"cudagraph_mode":"FULL_DECODE_ONLY"}`}, false, ""},
	}
	for _, id := range []string{"2026-07", "2026-06-major"} {
		p, err := PolicyByID(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			got := p.Classify(c.key, c.values...)
			if got.Major != c.major || got.Rule != c.rule {
				t.Errorf("%s: Classify(%q, %q) = major %v rule %q, want major %v rule %q", id, c.key, c.values, got.Major, got.Rule, c.major, c.rule)
			}
			if p.Counts(c.key, c.values...) != c.major {
				t.Errorf("%s: Counts(%q) != %v", id, c.key, c.major)
			}
			if !cur.Counts(c.key, c.values...) {
				t.Errorf("current: Counts(%q) = false, want every setting counted", c.key)
			}
		}
	}
}

// TestStrictClassesJSONValues: a JSON option with a value rule is major
// where the keys that differ select a fusion pass or custom op, not where
// only its CUDA-graph sizes differ; one side alone is judged on all its
// keys.
func TestStrictClassesJSONValues(t *testing.T) {
	p, err := PolicyByID("2026-07")
	if err != nil {
		t.Fatal(err)
	}
	graphs := `{"cudagraph_capture_sizes":[4,8],"cudagraph_mode":"FULL_DECODE_ONLY"}`
	graphs2 := `{"cudagraph_capture_sizes":[4,8,16],"cudagraph_mode":"FULL_DECODE_ONLY"}`
	fuse := `{"cudagraph_capture_sizes":[4,8],"cudagraph_mode":"FULL_DECODE_ONLY","pass_config":{"fuse_allreduce_rms":true}}`
	fuse2 := `{"cudagraph_capture_sizes":[4,8,16],"cudagraph_mode":"FULL_DECODE_ONLY","pass_config":{"fuse_allreduce_rms":true}}`
	ops := `{"custom_ops":["+quant_fp8"]}`
	for _, c := range []struct {
		values []string
		major  bool
	}{
		{[]string{graphs, graphs2}, false},
		{[]string{graphs, fuse}, true},
		{[]string{fuse, fuse2}, false}, // both fuse the same: only the sizes differ
		{[]string{fuse}, true},         // the other side has no --compilation-config
		{[]string{graphs}, false},
		{[]string{ops, graphs}, true},
		// custom_ops all with compilation vs no compilation (mode 0, whose
		// default is every custom op): compile and graph settings
		{[]string{`{"cudagraph_mode":"FULL_AND_PIECEWISE","custom_ops":["all"]}`, `{"cudagraph_mode":"FULL_DECODE_ONLY","mode":0}`}, false},
		{[]string{"not json fuse"}, true},
	} {
		got := p.Classify("--compilation-config", c.values...)
		if got.Major != c.major {
			t.Errorf("Classify(--compilation-config, %q) = %+v, want major %v", c.values, got, c.major)
		}
		if c.major && got.Rule != "kernel-json" {
			t.Errorf("Classify(--compilation-config, %q): rule %q, want kernel-json", c.values, got.Rule)
		}
	}
	if got := p.Classify("--kernel-config", `{"enable_cutedsl_warmup":true}`); got.Major {
		t.Errorf("--kernel-config warm-up: %+v, want informational", got)
	}
}

// TestStrictClassExplain: the reason names the policy, the rule and quotes
// the policy text the rule implements; an exception gives its reason.
func TestStrictClassExplain(t *testing.T) {
	p, err := PolicyByID("2026-07")
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"--linear-backend": "major under policy 2026-07 (rule kernel-backend): \"kernel-selection backends: `--attention-backend`, `--moe-runner-backend`, `--enable-flashinfer-allreduce-fusion` and similar\"",
		"env SGLANG_RADIX_FORCE_MISS": "not a major, deployment-defining server arg under policy 2026-07 (rule inferencex-specific): \"per-lane sweep tuning and harness plumbing such as " +
			"`--scheduler-recv-interval`, `--chunked-prefill-size`, `--disable-piecewise-cuda-graph`, `SGLANG_RADIX_FORCE_MISS` and similar env toggles\"",
		"--max-num-seqs": "not a major, deployment-defining server arg under policy 2026-07: \"The recipe only needs to match the MAJOR, deployment-defining server args, not every flag.\"",
		"--distributed-executor-backend": "not a major, deployment-defining server arg under policy 2026-07 (exception): names a backend but selects no kernel: " +
			"vLLM's worker launcher (mp, ray, uni; EngineArgs.distributed_executor_backend), placement plumbing",
	} {
		if got := p.Classify(key).Explain(p.ID); got != want {
			t.Errorf("Explain(%s):\n got %s\nwant %s", key, got, want)
		}
	}
}

// TestStrictClassesQuotesAreThePolicyText: every rule of every policy
// cites words of its own policy's quote (parsePolicies enforces it; this
// pins that the embedded file has rules and that each has a quote).
func TestStrictClassesQuotesAreThePolicyText(t *testing.T) {
	n := 0
	for _, p := range Policies() {
		if p.Strictness != StrictMajor {
			if p.Classes != nil {
				t.Errorf("%s: classes under strictness %s", p.ID, p.Strictness)
			}
			continue
		}
		for _, r := range p.Classes.Rules {
			n++
			if r.Quote == "" || !strings.Contains(squeeze(p.Quote), squeeze(r.Quote)) {
				t.Errorf("%s rule %s: quote %q is not in the policy text", p.ID, r.ID, r.Quote)
			}
		}
		for _, e := range p.Classes.Exceptions {
			if e.Reason == "" {
				t.Errorf("%s exception %s: no reason", p.ID, e.Setting)
			}
		}
	}
	if n < 20 {
		t.Errorf("%d rules over the major policies, want each to state its rules", n)
	}
}

// TestParsePoliciesClasses: invalid classes are rejected with the field.
func TestParsePoliciesClasses(t *testing.T) {
	base := `default: x
policies:
  - id: x
    title: t
    source: s
    markers: {all: [m]}
    scope: all
    quote: "MAJOR: kernel-selection backends and similar. INFORMATIONAL: env toggles."
    rules: [prompt-09813166]
    rulePolicy: prompt-09813166
`
	for _, c := range []struct{ tail, want string }{
		{"    strictness: major\n", "needs classes.rules"},
		{"    strictness: all\n    classes: {rules: [{id: a, class: major, quote: env toggles, env: ['*']}]}\n", "only meaningful with strictness major"},
		{"    strictness: major\n    classes: {rules: [{id: a, class: major, quote: kernel backends, env: ['*']}]}\n", "is not words of the policy quote"},
		{"    strictness: major\n    classes: {rules: [{id: a, class: big, quote: env toggles, env: ['*']}]}\n", `class "big"`},
		{"    strictness: major\n    classes: {rules: [{id: a, class: major, quote: env toggles}]}\n", "no flags, env or fields"},
		{"    strictness: major\n    classes: {rules: [{id: a, class: major, quote: env toggles, env: ['*']}, {id: a, class: major, quote: env toggles, env: ['*']}]}\n", "id is required, unique"},
		{"    strictness: major\n    classes: {rules: [{id: a, class: major, quote: env toggles, env: ['{a']}]}\n", "bad pattern"},
		{"    strictness: major\n    classes: {rules: [{id: a, class: major, quote: env toggles, env: ['*']}], exceptions: [{setting: x, class: major}]}\n", "reason are required"},
	} {
		_, err := parsePolicies("p.yaml", []byte(base+c.tail), rulesYAML)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.tail, err, c.want)
		}
	}
	ok := base + "    strictness: major\n    classes: {rules: [{id: a, class: major, quote: \"kernel-selection   backends\", flags: ['--*-backend']}]}\n"
	if _, err := parsePolicies("p.yaml", []byte(ok), rulesYAML); err != nil {
		t.Errorf("valid classes: %v", err)
	}
}
