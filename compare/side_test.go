package compare

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// kimiWorker is a vLLM worker in the shapes of the complete trees: the
// upstream side as vllm-project/recipes models/moonshotai/Kimi-K3.yaml
// features.spec_decoding writes it, the InferenceX side as
// benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh's throughput
// branch renders it (rejection_sample_method synthetic with the golden
// acceptance length).
func kimiWorker(spec string, harness ...string) *launch.Deployment {
	a := launch.Arg{Flag: "--speculative-config", Values: []string{spec}}
	if len(harness) == 1 {
		a.Harness = &launch.HarnessEdit{By: "runners/inject_synthetic_acceptance.py (inject_synthetic_acceptance.py@bafda7a0) at launch.sh:3:1", Values: []string{harness[0]}}
	}
	return &launch.Deployment{Engine: "vllm", Model: "moonshotai/Kimi-K3", Processes: []launch.Process{{
		Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "vllm serve",
		Args: []launch.Arg{{Values: []string{"moonshotai/Kimi-K3"}}, {Flag: "--tensor-parallel-size", Values: []string{"8"}}, a}}}}
}

const (
	kimiUpBlock = `{"model":"RedHatAI/Kimi-K3-speculator.dspark", "num_speculative_tokens":8, "method": "dspark", "draft_sample_method": "probabilistic", "rejection_sample_method": "block"}`
	kimiUpNone  = `{"model":"RedHatAI/Kimi-K3-speculator.dspark", "num_speculative_tokens":8, "method": "dspark", "draft_sample_method": "probabilistic"}`
	kimiIXSynth = `{"method": "dspark", "model": "RedHatAI/Kimi-K3-speculator.dspark", "num_speculative_tokens": 8, "draft_sample_method": "probabilistic", "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 3.84}`
	kimiIXBlock = `{"method": "dspark", "model": "RedHatAI/Kimi-K3-speculator.dspark", "num_speculative_tokens": 8, "draft_sample_method": "probabilistic", "rejection_sample_method": "block"}`
	kimiIXNone  = `{"method": "dspark", "model": "RedHatAI/Kimi-K3-speculator.dspark", "num_speculative_tokens": 8, "draft_sample_method": "probabilistic"}`
)

func agg(t *testing.T, up, ix *launch.Deployment) Result {
	t.Helper()
	rs, err := Compare(up, ix, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return byRole(t, rs)["agg"]
}

func exclLines(xs []Exclusion) []string {
	var out []string
	for _, x := range xs {
		out = append(out, x.Setting+" "+Shown(x.Upstream)+"|"+Shown(x.InferenceX)+" "+x.Rule)
	}
	return out
}

func diffLines(ds []Difference) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Setting+" "+Shown(d.Upstream)+"|"+Shown(d.InferenceX))
	}
	return out
}

// TestCompareSideExclusion (issue 22 item 4): synthetic-vllm-rejection-sampler
// has scope side, so InferenceX's synthetic value is taken out on its own
// side and the upstream's rejection_sample_method is compared with
// InferenceX's production path. The script pins nothing else: absent, and
// vLLM's default for the key is cited nowhere (compare/defaults.yaml), so
// the upstream's block is a difference — never a match.
func TestCompareSideExclusion(t *testing.T) {
	r := agg(t, kimiWorker(kimiUpBlock), kimiWorker(kimiIXSynth))
	if r.Verdict != Differs {
		t.Fatalf("verdict %s, want differs (differences %q, excluded %q)", r.Verdict, diffLines(r.Differences), exclLines(r.Excluded))
	}
	if got, want := diffLines(r.Differences), []string{"--speculative-config.rejection_sample_method block|(absent)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("differences %q, want %q", got, want)
	}
	if n := r.Differences[0].Note; n != "InferenceX runs synthetic for the benchmark, harness-only (synthetic-vllm-rejection-sampler, excluded); compared with its production path, which does not set it" {
		t.Errorf("note %q", n)
	}
	// the harness values are still listed, each on InferenceX's side only
	if got, want := exclLines(r.Excluded), []string{
		"--speculative-config.rejection_sample_method (absent)|synthetic synthetic-vllm-rejection-sampler",
		"--speculative-config.synthetic_acceptance_length (absent)|3.84 synthetic-vllm-acceptance-length",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("excluded %q, want %q", got, want)
	}
	if r.Excluded[0].Class != exclusions.ClassSyntheticAcceptance {
		t.Errorf("class %s", r.Excluded[0].Class)
	}

	// Harness-only: the same recipe without the pin is covered, whatever
	// synthetic values InferenceX runs (the injection changes no verdict).
	for _, ix := range []string{kimiIXSynth, strings.Replace(kimiIXSynth, "3.84", "2.51", 1), kimiIXNone} {
		r = agg(t, kimiWorker(kimiUpNone), kimiWorker(ix))
		if r.Verdict.Rank() > CoveredWithExclusions.Rank() || len(r.Differences) != 0 {
			t.Errorf("%s: verdict %s, differences %q", ix, r.Verdict, diffLines(r.Differences))
		}
	}
	// A production path that pins block itself matches the upstream's.
	if r = agg(t, kimiWorker(kimiUpBlock), kimiWorker(kimiIXBlock)); r.Verdict != Covered {
		t.Errorf("block vs block: %s %q", r.Verdict, diffLines(r.Differences))
	}
	// Upstream block, production path none, no harness: the plain difference.
	if r = agg(t, kimiWorker(kimiUpBlock), kimiWorker(kimiIXNone)); r.Verdict != Differs || len(r.Excluded) != 0 ||
		!reflect.DeepEqual(diffLines(r.Differences), []string{"--speculative-config.rejection_sample_method block|(absent)"}) {
		t.Errorf("block vs none: %s %q %q", r.Verdict, diffLines(r.Differences), exclLines(r.Excluded))
	}
	// An upstream that documents the synthetic sampler: its value is taken
	// out on its side; InferenceX's production block is then compared
	// with nothing.
	r = agg(t, kimiWorker(strings.Replace(kimiUpBlock, `"block"`, `"synthetic"`, 1)), kimiWorker(kimiIXBlock))
	if r.Verdict != Differs || !reflect.DeepEqual(diffLines(r.Differences), []string{"--speculative-config.rejection_sample_method (absent)|block"}) ||
		!reflect.DeepEqual(exclLines(r.Excluded), []string{"--speculative-config.rejection_sample_method synthetic|(absent) synthetic-vllm-rejection-sampler"}) ||
		!strings.HasPrefix(r.Differences[0].Note, "the upstream documents synthetic, harness-only") {
		t.Errorf("upstream synthetic: %s %q %q %+v", r.Verdict, diffLines(r.Differences), exclLines(r.Excluded), r.Differences)
	}
}

// TestCompareSideExclusionProduction: where the harness replaced a value
// the recipe as committed gives (runners/inject_synthetic_acceptance.py on
// an srt-slurm recipe with rejection_sample_method block, InferenceX
// benchmarks/multi_node/srt-slurm-recipes/vllm/kimi-k3/agentic/
// disagg-gb300-1p1d-dcp8-dcp8-dspark4-mooncake-agentic.yaml), that value is
// the production path's and is what the upstream's is compared with.
func TestCompareSideExclusionProduction(t *testing.T) {
	r := agg(t, kimiWorker(kimiUpBlock), kimiWorker(kimiIXSynth, kimiIXBlock))
	if r.Verdict != CoveredWithExclusions || len(r.Differences) != 0 {
		t.Fatalf("verdict %s, differences %q", r.Verdict, diffLines(r.Differences))
	}
	if got, want := exclLines(r.Excluded), []string{
		"--speculative-config.rejection_sample_method (absent)|synthetic synthetic-vllm-rejection-sampler",
		"--speculative-config.synthetic_acceptance_length (absent)|3.84 synthetic-vllm-acceptance-length",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("excluded %q, want %q", got, want)
	}
	// the recipe as committed sets no sampler: the upstream's block differs
	r = agg(t, kimiWorker(kimiUpBlock), kimiWorker(kimiIXSynth, kimiIXNone))
	if r.Verdict != Differs || !reflect.DeepEqual(diffLines(r.Differences), []string{"--speculative-config.rejection_sample_method block|(absent)"}) ||
		!strings.Contains(r.Differences[0].Note, "which does not set it (before runners/inject_synthetic_acceptance.py (inject_synthetic_acceptance.py@bafda7a0) at launch.sh:3:1)") {
		t.Errorf("committed none: %s %+v", r.Verdict, r.Differences)
	}
	// a committed strict sampler differs from the upstream's block, shown
	r = agg(t, kimiWorker(kimiUpBlock), kimiWorker(kimiIXSynth, strings.Replace(kimiIXBlock, "block", "strict", 1)))
	if r.Verdict != Differs || !reflect.DeepEqual(diffLines(r.Differences), []string{"--speculative-config.rejection_sample_method block|strict"}) ||
		!strings.Contains(r.Differences[0].Note, "which sets strict (before runners/inject_synthetic_acceptance.py") {
		t.Errorf("committed strict: %s %+v", r.Verdict, r.Differences)
	}
	// a committed synthetic value is harness too: taken out again
	r = agg(t, kimiWorker(kimiUpBlock), kimiWorker(kimiIXSynth, strings.Replace(kimiIXSynth, "3.84", "2.51", 1)))
	if r.Verdict != Differs || !reflect.DeepEqual(diffLines(r.Differences), []string{"--speculative-config.rejection_sample_method block|(absent)"}) {
		t.Errorf("committed synthetic: %s %+v", r.Verdict, r.Differences)
	}
}

// TestCompareSideExclusionCitedDefault: a side-excluded value leaves its
// side at the production path's; absent equals a pinned value only through
// an engine default compare/defaults.yaml cites (vLLM
// --gpu-memory-utilization 0.9), reported as information with the note.
// A rule of scope pair with a value pattern (@fabric.*: a placeholder for
// the host's own value) still takes the setting out on both sides.
func TestCompareSideExclusionCitedDefault(t *testing.T) {
	ex, err := exclusions.Parse("t.yaml", []byte(`
version: "1"
policy: prompt-09813166
policies: {prompt-09813166: {source: s, version: v}}
rules:
  - id: harness-gmu
    match: {flag: --gpu-memory-utilization, value: "0.95"}
    class: harness
    scope: side
    reason: "a harness value for the test"
  - id: fabric
    match: {value: "*@fabric.*"}
    class: harness
    scope: pair
    reason: "a host placeholder"
`))
	if err != nil {
		t.Fatal(err)
	}
	mk := func(kv ...string) *launch.Deployment {
		return &launch.Deployment{Engine: "vllm", Model: "moonshotai/Kimi-K3", Processes: []launch.Process{{
			Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "vllm serve", Args: args(kv...)}}}
	}
	cmp := func(up, ix *launch.Deployment) Result {
		rs, err := Compare(up, ix, Options{Exclusions: ex})
		if err != nil {
			t.Fatal(err)
		}
		return rs[0]
	}
	r := cmp(mk("--gpu-memory-utilization", "0.9"), mk("--gpu-memory-utilization", "0.95"))
	if r.Verdict != CoveredWithExclusions || len(r.Differences) != 0 || len(r.Info) != 1 || r.Info[0].Rule != "default-gpu-memory-utilization" ||
		!strings.HasPrefix(r.Info[0].Reason, "InferenceX runs 0.95 for the benchmark, harness-only (harness-gmu, excluded); compared with its production path, which does not set it; --gpu-memory-utilization 0.9 is the vllm default") ||
		!reflect.DeepEqual(exclLines(r.Excluded), []string{"--gpu-memory-utilization (absent)|0.95 harness-gmu"}) {
		t.Errorf("cited default: %s %q %+v %q", r.Verdict, diffLines(r.Differences), r.Info, exclLines(r.Excluded))
	}
	r = cmp(mk("--gpu-memory-utilization", "0.8"), mk("--gpu-memory-utilization", "0.95"))
	if r.Verdict != Differs || !reflect.DeepEqual(diffLines(r.Differences), []string{"--gpu-memory-utilization 0.8|(absent)"}) {
		t.Errorf("no default for 0.8: %s %q", r.Verdict, diffLines(r.Differences))
	}
	r = cmp(mk("--kv-transfer-config", "mlx5_0"), mk("--kv-transfer-config", "@fabric.ib"))
	if r.Verdict != CoveredWithExclusions || len(r.Differences) != 0 ||
		!reflect.DeepEqual(exclLines(r.Excluded), []string{"--kv-transfer-config mlx5_0|@fabric.ib fabric"}) {
		t.Errorf("pair: %s %q %q", r.Verdict, diffLines(r.Differences), exclLines(r.Excluded))
	}
}

// NormalizeProcess marks the settings a harness step changed with their
// production values; the others carry none.
func TestNormalizeProduction(t *testing.T) {
	rules, err := DefaultRules()
	if err != nil {
		t.Fatal(err)
	}
	d := kimiWorker(kimiIXSynth, kimiIXBlock)
	n := rules.NormalizeProcess(&d.Processes[0], "vllm", d.Model)
	rsm, sal, rest := n.Settings["--speculative-config.rejection_sample_method"], n.Settings["--speculative-config.synthetic_acceptance_length"], n.Settings["--speculative-config"]
	if rsm == nil || rsm.Value != "synthetic" || rsm.HarnessBy == "" || rsm.Production == nil || *rsm.Production != "block" {
		t.Errorf("rejection_sample_method %+v", rsm)
	}
	if sal == nil || sal.HarnessBy == "" || sal.Production != nil {
		t.Errorf("synthetic_acceptance_length %+v", sal)
	}
	if rest == nil || rest.HarnessBy != "" || rest.Production != nil {
		t.Errorf("the rest of --speculative-config %+v", rest)
	}
	if tp := n.Settings["--tensor-parallel-size"]; tp == nil || tp.HarnessBy != "" {
		t.Errorf("tp %+v", tp)
	}
}
