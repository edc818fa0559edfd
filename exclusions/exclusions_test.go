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
		{Setting{Kind: KindField, Name: "count", Value: "1", Role: "etcd"}, ClassHarness},
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
		{Setting{Kind: KindField, Name: "count", Role: "frontend"}, ""},
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
