package exclusions

import (
	"strings"
	"testing"
)

func TestDefaultLoads(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if got := s.PolicyVersion(); !strings.Contains(got, "codeowner-signoff-verify-prompt.md@09813166") {
		t.Errorf("PolicyVersion = %q, want the verify prompt revision 09813166", got)
	}
	for _, r := range s.Rules() {
		if _, ok := s.Policy(r.Policy); !ok {
			t.Errorf("rule %s: policy %q not defined", r.ID, r.Policy)
		}
	}
}

// The settings the seed sign-off excluded (issue 2 item 6) and the
// inferencex.md (d) classes they map to.
func TestDefaultClassifiesSeedSettings(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		st    Setting
		class Class
	}{
		{Setting{Kind: KindEnv, Name: "SGLANG_SIMULATE_ACC_LEN", Value: "3.39", Role: "decode"}, ClassSyntheticAcceptance},
		{Setting{Kind: KindEnv, Name: "SGLANG_SIMULATE_ACC_TOKEN_MODE", Role: "prefill"}, ClassSyntheticAcceptance},
		{Setting{Kind: KindFlag, Name: "--enable-metrics", Role: "agg"}, ClassCollection},
		{Setting{Kind: KindFlag, Name: "--enable-cache-report", Role: "decode"}, ClassCollection},
		{Setting{Kind: KindFlag, Name: "--decode-log-interval", Value: "10", Role: "decode"}, ClassCollection},
		{Setting{Kind: KindFlag, Name: "--log-level", Value: "info", Role: "prefill"}, ClassCollection},
		{Setting{Kind: KindEnv, Name: "MC_TE_METRIC", Value: "true", Role: "decode"}, ClassCollection},
		{Setting{Kind: KindEnv, Name: "NO_COLOR", Value: "1", Role: "agg"}, ClassHarness},
		{Setting{Kind: KindEnv, Name: "PYTHONUNBUFFERED", Value: "1", Role: "agg"}, ClassHarness},
		{Setting{Kind: KindEnv, Name: "PIP_BREAK_SYSTEM_PACKAGES", Value: "1", Role: "frontend"}, ClassHarness},
		{Setting{Kind: KindFlag, Name: "--nccl-port", Value: "12345", Role: "agg"}, ClassHarness},
		{Setting{Kind: KindFlag, Name: "--model-path", Value: "/model/", Role: "agg"}, ClassPlacement},
		{Setting{Kind: KindFlag, Name: "--disaggregation-bootstrap-port", Value: "31000", Role: "prefill"}, ClassHarness},
		{Setting{Kind: KindEnv, Name: "AIPERF_REQUIRED_SERVER_METRIC_PREFIX", Value: "sglang:"}, ClassCollection},
		{Setting{Kind: KindField, Name: "slurm.time_limit", Value: "8:00:00"}, ClassHarness},
		{Setting{Kind: KindField, Name: "health_check.max_attempts", Value: "1440"}, ClassHarness},
		{Setting{Kind: KindEnv, Name: "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", Value: "1", Role: "decode"}, ClassProhibited},
		{Setting{Kind: KindEnv, Name: "SGLANG_DISAGGREGATION_WAITING_TIMEOUT", Value: "100000", Role: "prefill"}, ClassJudgment},
		{Setting{Kind: KindFlag, Name: "--cuda-graph-max-bs", Value: "64", Role: "decode"}, ClassJudgment},
		// services are compared like workers; where they listen is not
		{Setting{Kind: KindFlag, Name: "--advertise-client-urls", Value: "http://10.0.0.0:2379", Engine: "etcd", Role: "etcd"}, ClassPlacement},
		{Setting{Kind: KindField, Name: "nats.jetstream.store_dir", Value: "/tmp/nats", Engine: "nats", Role: "nats"}, ClassHarness},
		{Setting{Kind: KindField, Name: "nginx.http.upstream.server", Value: "10.0.0.2:8180", Engine: "nginx", Role: "nginx"}, ClassPlacement},
		{Setting{Kind: KindField, Name: "nginx.http.upstream.servers", Value: "3", Engine: "nginx", Role: "nginx"}, ClassJudgment},
		{Setting{Kind: KindField, Name: "nginx.http.server.listen", Value: "8000", Engine: "nginx", Role: "nginx"}, ClassHarness},
		{Setting{Kind: KindField, Name: "present", Value: "yes", Engine: "dynamo", Role: "dcgm-exporter"}, ClassCollection},
	}
	for _, c := range cases {
		r, ok := s.Match(c.st)
		if !ok {
			t.Errorf("%s %s: no rule", c.st.Kind, c.st.Name)
			continue
		}
		if r.Class != c.class {
			t.Errorf("%s %s: class %s (rule %s), want %s", c.st.Kind, c.st.Name, r.Class, r.ID, c.class)
		}
		if r.Reason == "" {
			t.Errorf("%s: empty reason", r.ID)
		}
	}
	// Production-useful settings have no rule.
	for _, st := range []Setting{
		{Kind: KindFlag, Name: "--attention-backend", Value: "trtllm_mha", Role: "agg"},
		{Kind: KindFlag, Name: "--tensor-parallel-size", Value: "4", Role: "decode"},
		{Kind: KindEnv, Name: "SGLANG_ENABLE_SPEC_V2", Value: "1", Role: "agg"},
		{Kind: KindFlag, Name: "--router-mode", Value: "kv", Role: "frontend"},
		{Kind: KindField, Name: "count", Value: "2", Role: "mooncake"},
		// a service's count, program and production settings are compared
		// (spec/srt-slurm.md §10b)
		{Kind: KindField, Name: "count", Value: "1", Role: "etcd"},
		{Kind: KindField, Name: "count", Value: "1", Role: "nginx"},
		{Kind: KindField, Name: "program", Value: "nats-server", Role: "nats"},
		{Kind: KindField, Name: "nats.max_payload", Value: "33554432", Engine: "nats", Role: "nats"},
		{Kind: KindField, Name: "nats.jetstream", Value: "enabled", Engine: "nats", Role: "nats"},
		{Kind: KindField, Name: "nginx.balance", Value: "hash $http_x_correlation_id consistent", Engine: "nginx", Role: "nginx"},
		{Kind: KindField, Name: "nginx.http.keepalive_timeout", Value: "600s", Engine: "nginx", Role: "nginx"},
		{Kind: KindField, Name: "nginx.http.upstream.keepalive", Value: "512", Engine: "nginx", Role: "nginx"},
		{Kind: KindField, Name: "nginx.http.upstream.keepalive_timeout", Value: "600s", Engine: "nginx", Role: "nginx"},
		{Kind: KindField, Name: "nginx.http.client_max_body_size", Value: "45m", Engine: "nginx", Role: "nginx"},
		{Kind: KindField, Name: "present", Value: "yes", Engine: "dynamo", Role: "lmcache-server"},
		// --http-port is harness only on the frontend.
		{Kind: KindFlag, Name: "--http-port", Value: "1", Role: "agg"},
	} {
		if r, ok := s.Match(st); ok {
			t.Errorf("%s %s: matched rule %s, want none", st.Kind, st.Name, r.ID)
		}
	}
}

func TestMatchRoleEngineValue(t *testing.T) {
	s, err := Parse("t.yaml", []byte(`
version: "1"
policy: p
policies: {p: {source: s, version: "v"}}
rules:
  - id: w
    match: {flag: "--x-*", role: worker, engine: sglang, value: "{1,2}"}
    class: judgment
    scope: pair
    reason: r
  - id: svc
    match: {field: count, role: service}
    class: harness
    reason: r
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		st   Setting
		want string
	}{
		{Setting{Kind: KindFlag, Name: "--x-a", Value: "1", Engine: "sglang", Role: "decode"}, "w"},
		{Setting{Kind: KindFlag, Name: "--x-a", Value: "2", Engine: "sglang", Role: "agg"}, "w"},
		{Setting{Kind: KindFlag, Name: "--x-a", Value: "3", Engine: "sglang", Role: "agg"}, ""},
		{Setting{Kind: KindFlag, Name: "--x-a", Value: "1", Engine: "vllm", Role: "agg"}, ""},
		{Setting{Kind: KindFlag, Name: "--x-a", Value: "1", Engine: "sglang", Role: "frontend"}, ""},
		{Setting{Kind: KindEnv, Name: "--x-a", Value: "1", Engine: "sglang", Role: "agg"}, ""},
		{Setting{Kind: KindField, Name: "count", Role: "nats"}, "svc"},
		{Setting{Kind: KindField, Name: "count", Role: "mooncake"}, "svc"},
		{Setting{Kind: KindField, Name: "count", Role: "lmcache-server"}, "svc"}, // a services-registry kind
		{Setting{Kind: KindField, Name: "count", Role: "frontend"}, ""},
		{Setting{Kind: KindField, Name: "count", Role: "decode"}, ""},
	} {
		r, ok := s.Match(c.st)
		got := ""
		if ok {
			got = r.ID
		}
		if got != c.want {
			t.Errorf("Match(%+v) = %q, want %q", c.st, got, c.want)
		}
	}
	if got, want := s.PolicyVersion(), "1 (s@v)"; got != want {
		t.Errorf("PolicyVersion = %q, want %q", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	const head = "version: \"1\"\npolicy: p\npolicies: {p: {source: s, version: v}}\nrules:\n"
	cases := []struct {
		name, yaml, want string
	}{
		{"unknown class", head + "  - id: a\n    match: {flag: --a}\n    class: harnes\n    reason: r\n",
			`t.yaml:7:12: rules[0].class: unknown class "harnes"`},
		{"empty reason", head + "  - id: a\n    match: {flag: --a}\n    class: harness\n    reason: \"  \"\n",
			`t.yaml:8:13: rules[0].reason: empty reason`},
		{"missing reason", head + "  - id: a\n    match: {flag: --a}\n    class: harness\n",
			`rules[0].reason: empty reason`},
		{"bad pattern", head + "  - id: a\n    match: {env: \"A_{B\"}\n    class: harness\n    reason: r\n",
			`t.yaml:6:18: rules[0].match.env: bad pattern "A_{B": unmatched '{'`},
		{"bad pattern bracket", head + "  - id: a\n    match: {flag: \"--a[bc]\"}\n    class: harness\n    reason: r\n",
			`rules[0].match.flag: bad pattern`},
		{"flag without dash", head + "  - id: a\n    match: {flag: a}\n    class: harness\n    reason: r\n",
			`rules[0].match.flag: flag pattern "a" must start with '-'`},
		{"two selectors", head + "  - id: a\n    match: {flag: --a, env: A}\n    class: harness\n    reason: r\n",
			`rules[0].match: set only one of flag, env, field`},
		{"empty match", head + "  - id: a\n    match: {role: agg}\n    class: harness\n    reason: r\n",
			`rules[0].match: needs flag, env, field or value`},
		{"duplicate id", head + "  - id: a\n    match: {flag: --a}\n    class: harness\n    reason: r\n  - id: a\n    match: {flag: --b}\n    class: harness\n    reason: r\n",
			`rules[1].id: duplicate rule id "a" (also rules[0])`},
		{"unknown policy", head + "  - id: a\n    match: {flag: --a}\n    class: harness\n    reason: r\n    policy: q\n",
			`rules[0].policy: unknown policy "q"`},
		{"mustMatch not placement", head + "  - id: a\n    match: {flag: --a}\n    class: harness\n    mustMatch: true\n    reason: r\n",
			`rules[0].mustMatch: mustMatch is only meaningful for class placement`},
		{"unknown key", head + "  - id: a\n    match: {flag: --a}\n    clas: harness\n    reason: r\n",
			`field clas not found`},
		{"value without scope", head + "  - id: a\n    match: {flag: --a, value: x}\n    class: harness\n    reason: r\n",
			`rules[0].scope: missing: a rule with a value pattern states its scope`},
		{"side on judgment", head + "  - id: a\n    match: {flag: --a, value: x}\n    class: judgment\n    scope: side\n    reason: r\n",
			`t.yaml:8:12: rules[0].scope: scope side is only meaningful for class harness, collection or synthetic-acceptance, not judgment`},
		{"unknown scope", head + "  - id: a\n    match: {flag: --a}\n    class: harness\n    scope: both\n    reason: r\n",
			`rules[0].scope: unknown scope "both" (want pair or side)`},
		{"syntax", "rules: [", `t.yaml: yaml:`},
		{"no version", "policy: p\npolicies: {p: {source: s, version: v}}\n", `t.yaml: version: missing`},
		{"default policy unknown", "version: \"1\"\npolicy: x\npolicies: {p: {source: s, version: v}}\n", `policy: unknown policy "x"`},
	}
	for _, c := range cases {
		_, err := Parse("t.yaml", []byte(c.yaml))
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.name, err, c.want)
		}
	}
}

// Env vars the InferenceX harness puts into a server's environment are
// excluded by who consumes them (issue 8 item 1; sources in rules.yaml).
func TestHarnessEnvByConsumer(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, value string
		rule        string
		class       Class
		consumer    Consumer
	}{
		// the names the 843c6254 coverage run reported as "differs"
		{"MODEL_PATH", "/lustre/fsw/models/Qwen3.5-397B-A17B-FP8", "harness-env-model-path", ClassHarness, ConsumerModelStaging},
		{"WEKA_LOADER_OVERRIDE", "semianalysis_cc_traces_weka_062126_256k", "collection-env-benchmark-client", ClassCollection, ConsumerBenchmarkClient},
		{"EVAL_FRAMEWORK", "lm-eval", "collection-env-evals", ClassCollection, ConsumerEvals},
		{"GPU_METRICS_CSV", "gpu_metrics.csv", "collection-env-results", ClassCollection, ConsumerWorkflow},
		{"PYTHONDONTWRITEBYTECODE", "1", "harness-env-python-bytecode", ClassHarness, ConsumerWorkflow},
		{"PYTHONPYCACHEPREFIX", "/tmp/inferencex-pycache", "harness-env-python-bytecode", ClassHarness, ConsumerWorkflow},
		// workflow env (benchmark-tmpl.yml)
		{"MODEL", "Qwen/Qwen3.5-397B-A17B-FP8", "harness-env-model", ClassHarness, ConsumerWorkflow},
		{"TP", "8", "harness-env-matrix-parallelism", ClassHarness, ConsumerWorkflow},
		{"CONC", "64", "harness-env-matrix-sequence", ClassHarness, ConsumerWorkflow},
		{"SPEC_DECODING", "mtp", "harness-env-matrix-spec", ClassHarness, ConsumerWorkflow},
		{"SCENARIO_SUBDIR", "agentic/", "harness-env-matrix-identity", ClassHarness, ConsumerWorkflow},
		{"TOTAL_CPU_DRAM_GB", "1500", "harness-env-matrix-kv", ClassHarness, ConsumerWorkflow},
		{"DECODE_DP_ATTN", "true", "harness-env-matrix-disagg", ClassHarness, ConsumerWorkflow},
		{"HF_TOKEN", "hf_x", "harness-env-hf-token", ClassHarness, ConsumerModelStaging},
		{"HF_HUB_CACHE", "/mnt/hf_hub_cache/", "harness-hf-cache", ClassHarness, ConsumerModelStaging},
		{"RUNNER_NAME", "b200-dgxc_3", "harness-env-runner", ClassHarness, ConsumerWorkflow},
		{"GITHUB_STEP_SUMMARY", "", "harness-env-github", ClassHarness, ConsumerWorkflow},
		{"PORT", "8888", "harness-env-port", ClassHarness, ConsumerWorkflow},
		{"RESULT_DIR", "/workspace/results", "collection-env-results", ClassCollection, ConsumerWorkflow},
		{"RANDOM_RANGE_RATIO", "0.8", "collection-env-benchmark-client", ClassCollection, ConsumerBenchmarkClient},
		{"AIPERF_FAILED_REQUEST_THRESHOLD", "0.10", "collection-aiperf", ClassCollection, ConsumerBenchmarkClient},
		{"EVAL_ONLY", "false", "collection-env-evals", ClassCollection, ConsumerEvals},
		{"SWEBENCH_USE_MODAL", "true", "collection-env-swebench", ClassCollection, ConsumerEvals},
		{"SALLOC_EXCLUDE", "b300-005,b300-006", "harness-env-slurm", ClassHarness, ConsumerCluster},
		// launchers, benchmark_lib.sh and the scripts
		{"ENROOT_CACHE_PATH", "/home/u/.cache/enroot", "harness-env-enroot", ClassHarness, ConsumerCluster},
		{"UV_INSTALL_DIR", "/tmp/uv", "harness-env-uv", ClassHarness, ConsumerContainer},
		{"HIP_VISIBLE_DEVICES", "0,1,2,3", "placement-env-devices", ClassPlacement, ConsumerCluster},
		{"CUDA_DEVICE_ORDER", "PCI_BUS_ID", "placement-env-devices", ClassPlacement, ConsumerCluster},
		{"CUDA_VISIBLE_DEVICES", "0,1", "harness-cuda-visible-devices", ClassHarness, ConsumerCluster},
		{"XDG_RUNTIME_DIR", "/tmp/enroot-runtime-1000", "placement-env-host-paths", ClassPlacement, ConsumerCluster},
		{"VLLM_CACHE_ROOT", "/it-share/gharunners/.cache/vllm", "harness-cache-dirs", ClassHarness, ConsumerCluster},
		{"INFMAX_CONTAINER_WORKSPACE", "/workspace", "harness-env-workspace", ClassHarness, ConsumerWorkflow},
		{"SERVED_MODEL_NAME", "deepseek-r1-fp4", "collection-env-benchmark-client", ClassCollection, ConsumerBenchmarkClient},
		{"AGENTIC_WARMUP_GRACE_PERIOD", "3600", "collection-env-benchmark-client", ClassCollection, ConsumerBenchmarkClient},
		{"EVAL_MAX_MODEL_LEN", "16384", "collection-env-evals", ClassCollection, ConsumerEvals},
		{"NUM_PROMPTS", "640", "collection-env-benchmark-client", ClassCollection, ConsumerBenchmarkClient}, // launch_b200-dgxc.sh at d27433df
		{"NO_COLOR", "1", "harness-no-color", ClassHarness, ConsumerTelemetry},
		{"TQDM_DISABLE", "1", "harness-progress-bars", ClassHarness, ConsumerTelemetry},
		{"CONFIG_FILE", "recipes/qwen3.5/disagg.yaml", "harness-env-additional-settings", ClassHarness, ConsumerWorkflow},
		{"SYNTHETIC_ACCEPTANCE", "true", "synthetic-acceptance-settings", ClassSyntheticAcceptance, ConsumerWorkflow},
		// the Dynamo settings srtctl injects, by consumer (no DYN_* glob)
		{"DYN_SYSTEM_PORT", "8081", "harness-dyn-env", ClassHarness, ConsumerCluster},
		{"DYN_SKIP_SGLANG_LOG_FORMATTING", "1", "collection-dyn-logging", ClassCollection, ConsumerTelemetry},
	}
	for _, c := range cases {
		st := Setting{Kind: KindEnv, Name: c.name, Value: c.value, Engine: "sglang", Role: "agg"}
		r, ok := s.Match(st)
		if !ok {
			t.Errorf("env %s: no rule, want %s (%s, consumer %s)", c.name, c.rule, c.class, c.consumer)
			continue
		}
		if r.ID != c.rule || r.Class != c.class || r.Consumer != c.consumer {
			t.Errorf("env %s: rule %s (%s, consumer %q), want %s (%s, consumer %s)", c.name, r.ID, r.Class, r.Consumer, c.rule, c.class, c.consumer)
		}
		if !strings.Contains(r.Reason, "/") && !strings.Contains(r.Reason, ".") {
			t.Errorf("env %s: rule %s reason %q names no consumer file", c.name, r.ID, r.Reason)
		}
	}
	// An unknown name and the engines' own settings are compared.
	for _, name := range append([]string{"FOO_BAR"}, engineEnv...) {
		for _, role := range []string{"agg", "prefill", "decode", "frontend"} {
			if r, ok := s.Match(Setting{Kind: KindEnv, Name: name, Value: "1", Engine: "sglang", Role: role}); ok {
				t.Errorf("env %s (%s): matched rule %s (%s), want none: it stays compared", name, role, r.ID, r.Class)
			}
		}
	}
}

// engineEnv are production settings the serving engine reads itself, also
// exported by InferenceX scripts: never excluded.
var engineEnv = []string{
	"SGLANG_ENABLE_SPEC_V2", "SGLANG_ENABLE_JIT_DEEPGEMM", "SGL_ENABLE_JIT_DEEPGEMM", "SGLANG_USE_AITER",
	"VLLM_USE_DEEP_GEMM", "VLLM_ROCM_USE_AITER", "VLLM_USE_FLASHINFER_MOE_FP4", "VLLM_FLOAT32_MATMUL_PRECISION",
	"NCCL_MIN_NCHANNELS", "NCCL_NVLS_ENABLE", "NCCL_CUMEM_ENABLE", "NCCL_IB_DISABLE",
	"TORCH_BLAS_PREFER_HIPBLASLT", "PYTORCH_CUDA_ALLOC_CONF", "OMP_NUM_THREADS", "SAFETENSORS_FAST_GPU",
	"MC_ENABLE_DEST_DEVICE_AFFINITY", "PYTHONHASHSEED", "WITH_NVIDIA_PEERMEM", "TRITON_PTXAS_PATH",
	"UCX_MEMTYPE_CACHE", "MORI_RDMA_TC",
	// no consumer in the InferenceX tree: compared
	"INFERENCEX_MOONCAKE_MAX_TRANSFER_BATCH_KEYS", "DECODE_MTP_SIZE", "PREFILL_IMAGE", "CLIENT_IMAGE",
	// every process's
	"PATH", "HOME", "PYTHONPATH", "TMPDIR",
	// Dynamo settings a broad DYN_* glob would hide
	"DYN_TOKENIZER", "DYN_ENGINE_CONV_AFFINITY", "DYN_ROUTER_TEMPERATURE", "DYN_PUBLISH_KV_EVENTS",
}

func TestParseConsumer(t *testing.T) {
	const head = "version: \"1\"\npolicy: p\npolicies: {p: {source: s, version: v}}\nrules:\n"
	for _, c := range []struct{ name, yaml, want string }{
		{"unknown consumer", head + "  - id: a\n    match: {env: A}\n    class: harness\n    consumer: runner\n    reason: r\n",
			`t.yaml:8:15: rules[0].consumer: unknown consumer "runner" (want benchmark-client, evals, workflow, cluster, model-staging, container or telemetry)`},
		{"harness env without consumer", head + "  - id: a\n    match: {env: A}\n    class: harness\n    reason: r\n",
			`rules[0].consumer: missing: an env var is harness only by the consumer that reads it`},
		{"placement env without consumer", head + "  - id: a\n    match: {env: A}\n    class: placement\n    reason: r\n",
			`rules[0].consumer: missing: an env var is placement only by the consumer`},
	} {
		_, err := Parse("t.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
	// A flag rule, and an env rule whose class is not excluded by consumer
	// (judgment, synthetic acceptance), need no consumer.
	s, err := Parse("t.yaml", []byte(head+"  - id: a\n    match: {flag: --a}\n    class: harness\n    reason: r\n"+
		"  - id: b\n    match: {env: B}\n    class: judgment\n    reason: r\n"+
		"  - id: c\n    match: {env: C}\n    class: collection\n    consumer: evals\n    reason: r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := s.Match(Setting{Kind: KindEnv, Name: "C"}); !ok || r.Consumer != ConsumerEvals {
		t.Errorf("Match(C) = %+v, %v; want consumer evals", r, ok)
	}
	// Every env rule of the embedded set that excludes names its consumer.
	d, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range d.Rules() {
		if r.Match.Env != "" && (r.Class == ClassHarness || r.Class == ClassCollection || r.Class == ClassPlacement) {
			n++
			if !r.Consumer.Valid() {
				t.Errorf("rule %s: consumer %q", r.ID, r.Consumer)
			}
		}
	}
	if n < 45 {
		t.Errorf("%d env rules with a consumer, want at least 45", n)
	}
}

// Only named Dynamo plumbing is excluded (cookbook-sync issue 8 item 1 and
// the "compare by content" issue): ports, the request/event plane (whether
// NATS is needed is judged from the plane by compare/launcher.yaml, not by
// this list), log format and build directories. Every other DYN_* — router,
// tokenizer, affinity, KV events, codec — is compared, and no rule may
// match DYN_ names by a wildcard.
func TestDynEnvOnlyNamedPlumbingExcluded(t *testing.T) {
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, rule string }{
		{"DYN_SYSTEM_PORT", "harness-dyn-env"},
		{"DYN_SYSTEM_PORT_BASE", "harness-dyn-env"},
		{"DYN_REQUEST_PLANE", "harness-dyn-env"},
		{"DYN_EVENT_PLANE", "harness-dyn-env"},
		{"DYN_VLLM_KV_EVENT_PORT", "harness-dyn-env"},
		{"DYN_LOG", "collection-dyn-log"},
		{"DYN_SKIP_SGLANG_LOG_FORMATTING", "collection-dyn-logging"},
		{"DYN_LOGGING_JSONL", "collection-dyn-logging"},
		{"DYN_LOCK_DIR", "harness-dyn-build"},
	} {
		for _, role := range []string{"decode", "frontend"} {
			r, ok := s.Match(Setting{Kind: KindEnv, Name: c.name, Value: "1", Role: role})
			if !ok || r.ID != c.rule {
				t.Errorf("%s on %s: rule %v, want %s", c.name, role, r, c.rule)
				continue
			}
			if r.Class.Excluded() && r.Consumer == "" {
				t.Errorf("%s: rule %s excludes without a consumer", c.name, r.ID)
			}
		}
	}
	for _, name := range []string{
		"DYN_ROUTER_TEMPERATURE", "DYN_ROUTER_SESSION_AFFINITY_TTL_SECS", "DYN_ROUTER_QUEUE_THRESHOLD",
		"DYN_ROUTER_ACTIVE_REQUEST_EXPIRY_SECS", "DYN_ROUTER_LOAD_BLOCK_SIZE", "DYN_TOKENIZER", "DYN_TOKENIZER_CACHE",
		"DYN_TOKENIZER_CACHE_BYTES", "DYN_ENGINE_CONV_AFFINITY", "DYN_REQUEST_PLANE_CODEC", "DYN_DEFAULT_THINKING_MODE",
		"DYN_PUBLISH_KV_EVENTS", "DYN_TCP_CHANNEL_BUFFER", "DYN_CONNECTOR", "DYN_TRTLLM_ENABLE_ATTENTION_DP",
		"DYN_SOMETHING_NEW",
	} {
		for _, role := range []string{"agg", "prefill", "decode", "frontend", "nats"} {
			if r, ok := s.Match(Setting{Kind: KindEnv, Name: name, Value: "0.0", Role: role}); ok {
				t.Errorf("%s on %s: matched rule %s (%s), want it compared", name, role, r.ID, r.Class)
			}
		}
	}
	for _, r := range s.Rules() {
		if r.Match.Env == "" || !strings.ContainsAny(r.Match.Env, "*?") {
			continue
		}
		if m, ok := s.Match(Setting{Kind: KindEnv, Name: "DYN_ROUTER_TEMPERATURE", Value: "x", Role: "frontend"}); ok && m.ID == r.ID {
			t.Errorf("rule %s: env glob %q matches a DYN_ name", r.ID, r.Match.Env)
		}
		if strings.Contains(r.Match.Env, "DYN_") {
			t.Errorf("rule %s: env glob %q over DYN_ names; list them", r.ID, r.Match.Env)
		}
	}
}

// TestRuleScopes classifies every rule of rules.yaml (issue 22 item 4):
// scope side exactly for the synthetic-acceptance controls the harness
// sets on the engine in place of a production value; every other rule —
// names that are plumbing, and the @fabric.* placeholder whose value
// stands for the host's own — takes the pair out.
func TestRuleScopes(t *testing.T) {
	all, err := allRules()
	if err != nil {
		t.Fatal(err)
	}
	side := map[string]bool{
		"synthetic-simulate-acc": true, "synthetic-vllm-acceptance-length": true, "synthetic-vllm-rejection-sampler": true,
		"synthetic-trtllm-accepted-tokens": true, "synthetic-tilert-simulate-acc": true, "synthetic-radix-force-miss": true,
	}
	for _, r := range all.Rules() {
		switch {
		case side[r.ID] && r.Scope != ScopeSide:
			t.Errorf("%s: scope %q, want side", r.ID, r.Scope)
		case !side[r.ID] && r.Scope != ScopePair:
			t.Errorf("%s: scope %q, want pair", r.ID, r.Scope)
		}
	}
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		st   Setting
		rule string
		side bool
	}{
		{Setting{Kind: KindFlag, Name: "--speculative-config.rejection_sample_method", Value: "synthetic", Engine: "vllm", Role: "decode"}, "synthetic-vllm-rejection-sampler", true},
		{Setting{Kind: KindFlag, Name: "--speculative-config.rejection_sample_method", Value: "block", Engine: "vllm", Role: "decode"}, "", false},
		{Setting{Kind: KindFlag, Name: "--speculative-config.synthetic_acceptance_length", Value: "3.84", Engine: "vllm", Role: "agg"}, "synthetic-vllm-acceptance-length", true},
		{Setting{Kind: KindEnv, Name: "SGLANG_SIMULATE_ACC_LEN", Value: "2.5", Engine: "sglang", Role: "decode"}, "synthetic-simulate-acc", true},
		{Setting{Kind: KindEnv, Name: "NCCL_FOO", Value: "mlx5@fabric.ib", Engine: "sglang", Role: "decode"}, "harness-ib-devices", false},
		{Setting{Kind: KindFlag, Name: "--port", Value: "8000", Engine: "vllm", Role: "agg"}, "harness-port", false},
	} {
		r, ok := s.Match(c.st)
		got := ""
		if ok {
			got = r.ID
		}
		if got != c.rule || ok && r.Side() != c.side {
			t.Errorf("%s=%s: rule %q side %v, want %q side %v", c.st.Name, c.st.Value, got, ok && r.Side(), c.rule, c.side)
		}
	}
}
