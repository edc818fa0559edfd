package exclusions

import (
	"math/rand/v2"
	"testing"
)

// TestIndexedMatch: Match through the rule index (ruleIndex) finds the
// rule a scan of every rule in order finds, for every policy's set and
// settings of every kind (and an unknown one) built from the rules' own
// names, values, engines and roles and others: the index only skips rules
// that cannot apply.
func TestIndexedMatch(t *testing.T) {
	var names, values []string
	def, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range def.rules {
		for _, s := range []string{r.Match.Flag, r.Match.Env, r.Match.Field} {
			if s != "" {
				names = append(names, s)
			}
		}
		if r.name != nil {
			for n := range r.name.lit {
				names = append(names, n)
			}
		}
		if r.Match.Value != "" {
			values = append(values, r.Match.Value)
		}
	}
	names = append(names, "--tensor-parallel-size", "--port", "SGLANG_X", "NCCL_DEBUG", "present", "--other", "")
	values = append(values, "", "1", "true", "0.0.0.0", "/models/x", "8000")
	kinds := []SettingKind{KindFlag, KindEnv, KindField, "other"}
	engines := []string{"", "sglang", "vllm", "trtllm", "dynamo", "sglang-router"}
	roles := []string{"", "agg", "prefill", "decode", "frontend", "etcd", "nats", "mooncake", "custom"}
	sets := []*Set{def}
	for _, p := range Policies() {
		s, err := ForPolicy(p.ID)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, s)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	checked, matched := 0, 0
	for _, s := range sets {
		if s.idx == nil {
			t.Fatalf("set %q has no index", s.spec)
		}
		linear := &Set{rules: s.rules}
		for range 20000 {
			st := Setting{Kind: kinds[rng.IntN(len(kinds))], Name: names[rng.IntN(len(names))], Value: values[rng.IntN(len(values))],
				Engine: engines[rng.IntN(len(engines))], Role: roles[rng.IntN(len(roles))]}
			got, gok := s.Match(st)
			want, wok := linear.Match(st)
			if gok != wok || got != want {
				t.Fatalf("set %q, %+v: indexed %v %v, every rule %v %v", s.spec, st, got, gok, want, wok)
			}
			checked++
			if gok {
				matched++
			}
		}
	}
	if matched < checked/20 {
		t.Errorf("%d of %d settings matched a rule: the settings miss the rules", matched, checked)
	}
}
