package compare

import (
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TestCompareStrictnessByRule: under the 2026-07 policy a kernel choice
// InferenceX adds (--linear-backend emulation, an AITER MoE env var) is a
// difference whose note cites the policy rule, while an env toggle (the
// policy's catch-all) and a flag the policy does not name are
// informational (policy-not-major) with the rule's quote; with no policy (every setting
// counts) all four are differences. OnSetting sees every compared setting.
func TestCompareStrictnessByRule(t *testing.T) {
	dep := func(extra []launch.Arg, env []launch.EnvVar) *launch.Deployment {
		return &launch.Deployment{Engine: "vllm", Model: "MiniMaxAI/MiniMax-M3-MXFP8", Source: launch.Source{ConfigKey: "minimaxm3-fp8-mi355x-vllm"},
			Processes: []launch.Process{{Kind: launch.KindWorker, Program: "vllm serve",
				Args: append([]launch.Arg{{Values: []string{"MiniMaxAI/MiniMax-M3-MXFP8"}}, {Flag: "--tensor-parallel-size", Values: []string{"4"}},
					{Flag: "--moe-backend", Values: []string{"aiter"}}}, extra...), Env: env}}}
	}
	up := dep(args("--block-size", "64"), nil)
	ix := dep(args("--linear-backend", "emulation", "--block-size", "128"), env("VLLM_ROCM_USE_AITER_MOE", "1", "VLLM_USE_V2_MODEL_RUNNER", "1"))
	spec, err := exclusions.PolicyByID("2026-07")
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	res, err := Compare(up, ix, Options{Strictness: &spec, OnSetting: func(s Seen) {
		if s.ConfigKey != "minimaxm3-fp8-mi355x-vllm" || s.Role != "agg" {
			t.Errorf("seen %+v", s)
		}
		seen = append(seen, s.Key)
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	diffs := map[string]Difference{}
	for _, d := range r.Differences {
		diffs[d.Setting] = d
	}
	if r.Verdict != Differs || len(diffs) != 2 {
		t.Fatalf("verdict %s, differences %+v", r.Verdict, r.Differences)
	}
	if d := diffs["--linear-backend"]; d.Upstream != nil || d.InferenceX == nil || *d.InferenceX != "emulation" ||
		!strings.HasPrefix(d.Note, "major under policy 2026-07 (rule kernel-backend): \"kernel-selection backends:") {
		t.Errorf("--linear-backend %+v", d)
	}
	if d := diffs["env VLLM_ROCM_USE_AITER_MOE"]; d.Note != "major under policy 2026-07 (rule kernel-library): \"which kernels run, determining the perf profile\"" {
		t.Errorf("VLLM_ROCM_USE_AITER_MOE %+v", d)
	}
	info := map[string]Exclusion{}
	for _, e := range r.Info {
		info[e.Setting] = e
	}
	if e := info["env VLLM_USE_V2_MODEL_RUNNER"]; e.Rule != StrictnessRule || e.Policy != "2026-07" || !strings.Contains(e.Reason, "(rule env-toggles): \"`SGLANG_RADIX_FORCE_MISS` and similar env toggles\"") {
		t.Errorf("VLLM_USE_V2_MODEL_RUNNER %+v", e)
	}
	if e := info["--block-size"]; e.Rule != StrictnessRule || !strings.Contains(e.Reason, "under policy 2026-07: \"The recipe only needs to match the MAJOR") {
		t.Errorf("--block-size %+v", e)
	}
	for _, k := range []string{"positional", "--tensor-parallel-size", "--moe-backend", "--linear-backend", "--block-size", "env VLLM_ROCM_USE_AITER_MOE", "env VLLM_USE_V2_MODEL_RUNNER"} {
		if !strings.Contains(" "+strings.Join(seen, " | ")+" ", k) {
			t.Errorf("OnSetting did not see %s (saw %q)", k, seen)
		}
	}

	res, err = Compare(up, ix, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; len(r.Differences) != 4 || len(r.Info) != 0 {
		t.Errorf("every setting counts: differences %+v, info %+v", r.Differences, r.Info)
	} else {
		for _, d := range r.Differences {
			if d.Note != "" {
				t.Errorf("every setting counts: %s has a note %q", d.Setting, d.Note)
			}
		}
	}
}
