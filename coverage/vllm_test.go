package coverage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/recipes"
	"github.com/cookbook-sync/cookbook-sync/report"
)

var (
	vllmFixtureInfx    = filepath.Join("testdata", "vllm", "inferencex")
	vllmFixtureRecipes = filepath.Join("testdata", "vllm", "recipes")
)

func vllmFixture(t testing.TB) *report.Report {
	t.Helper()
	rep, err := Run(context.Background(), Options{InfxDir: vllmFixtureInfx, VLLMRecipesDir: vllmFixtureRecipes})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func vllmKey(t *testing.T, rep *report.Report, key string) report.KeyResult {
	t.Helper()
	for _, k := range rep.VLLM {
		if k.ConfigKey == key {
			return k
		}
	}
	t.Fatalf("no entry for %s", key)
	return report.KeyResult{}
}

func settings[T compare.Difference | compare.Exclusion](xs []T, f func(T) string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func diffSettings(r *compare.Result) []string {
	return settings(r.Differences, func(d compare.Difference) string {
		return d.Setting + "=" + compare.Shown(d.Upstream) + "|" + compare.Shown(d.InferenceX)
	})
}

func exclSettings(xs []compare.Exclusion) []string {
	return settings(xs, func(x compare.Exclusion) string { return x.Setting + ":" + string(x.Class) + ":" + x.Rule })
}

const cometYAML = "models/acme/Comet-1.yaml"

// The fixture (coverage/testdata/vllm): InferenceX configs/nvidia-master.yaml
// with four vLLM-family keys and one SGLang key, and a recipes tree with
// acme/Comet-1 (single_node_tp and pd_cluster on h200 and gb200; the site
// gives TP = GPUs per node: 8 on h200, 4 on a gb200 tray).
func TestVLLMCoverageFixture(t *testing.T) {
	rep := vllmFixture(t)
	var keys []string
	for _, k := range rep.VLLM {
		keys = append(keys, k.ConfigKey+"="+string(k.Verdict))
	}
	want := []string{
		"comet-fp8-h200-vllm=" + string(compare.NotCovered),
		"comet-fp8-h200-vllm-mtp=differs",
		"comet-fp8-h200-vllm-noscript=" + string(report.StatusScriptNotFound),
		"comet-fp8-gb200-dynamo-vllm=differs",
	}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("keys (the sglang key is not vLLM-family):\n got %q\nwant %q", keys, want)
	}
	if !rep.Gap || rep.Errors {
		t.Errorf("gap %v errors %v, want a gap and no error", rep.Gap, rep.Errors)
	}
	if w := map[string]int{"differs": 2, string(compare.NotCovered): 1, "script not found": 1}; !reflect.DeepEqual(rep.Counts.VLLM, w) {
		t.Errorf("key counts %v, want %v", rep.Counts.VLLM, w)
	}
	// The noscript row and the dynamo key's upstream-only row were not
	// verified: a gap (fail closed) unless AllowUnverified.
	if rep.Counts.Unverified != 2 || !rep.UnverifiedGap {
		t.Errorf("unverified %d (gap %v), want 2 failing closed", rep.Counts.Unverified, rep.UnverifiedGap)
	}

	// Single-node vllm, tp 8: the script's vllm serve (--tensor-parallel-size=$TP,
	// MAX_MODEL_LEN = ISL+OSL = 2048, --gpu-memory-utilization 0.9 = vLLM's
	// default) vs single_node_tp on h200 (TP8, --max-model-len 32768).
	k := vllmKey(t, rep, "comet-fp8-h200-vllm")
	if len(k.Rows) != 2 {
		t.Fatalf("rows %+v", k.Rows)
	}
	r0 := k.Rows[0]
	if r0.Status != report.StatusCompared || !reflect.DeepEqual(r0.Concs, []int{4, 8}) || r0.Recipe != "benchmarks/single_node/fixed_seq_len/comet_fp8_h200_vllm.sh" ||
		len(r0.Roles) != 1 || r0.Verdict != compare.CoveredWithExclusions {
		t.Fatalf("row 0 %+v", r0)
	}
	ro := r0.Roles[0]
	if ro.Role != "agg" || ro.Topology != "TP8" || ro.Recipe == nil || ro.Recipe.File != cometYAML || ro.Recipe.Variant != "default" ||
		ro.Recipe.Strategy != "single_node_tp" || ro.Recipe.Hardware != "h200" || ro.Verdict != compare.CoveredWithExclusions {
		t.Fatalf("row 0 role %+v %+v", ro, ro.Recipe)
	}
	if got, w := exclSettings(ro.Result.Excluded), []string{"--host:harness:harness-host", "--port:harness:harness-port"}; !reflect.DeepEqual(got, w) {
		t.Errorf("row 0 excluded %q, want %q", got, w)
	}
	// the recipe's image is the site's brand default vllm/vllm-openai:latest
	// (§9.8), a floating tag against InferenceX's v0.25.0: informational;
	// --max-model-len is judgment; --gpu-memory-utilization 0.9 is vLLM's
	// cited default (compare/defaults.yaml), the recipe states none
	if len(ro.Result.Info) != 3 || ro.Result.Info[0].Setting != "image" || ro.Result.Info[0].Rule != compare.ImageFloatingRule ||
		*ro.Result.Info[0].Upstream != "vllm/vllm-openai:latest" || *ro.Result.Info[0].InferenceX != "vllm/vllm-openai:v0.25.0" ||
		ro.Result.Info[1].Setting != "--max-model-len" || *ro.Result.Info[1].Upstream != "32768" || *ro.Result.Info[1].InferenceX != "2048" ||
		ro.Result.Info[2].Setting != "--gpu-memory-utilization" || ro.Result.Info[2].Rule != "default-gpu-memory-utilization" || ro.Result.Info[2].Upstream != nil ||
		!strings.Contains(ro.Result.Info[2].Reason, "source: https://") {
		t.Errorf("row 0 info %+v", ro.Result.Info)
	}
	// tp 4: the site only renders TP8 on an 8-GPU h200 node.
	r1 := k.Rows[1]
	if r1.Verdict != compare.NotCovered || len(r1.Roles) != 1 || r1.Roles[0].Nearest == nil || r1.Roles[0].Recipe != nil ||
		r1.Roles[0].Nearest.Strategy != "single_node_tp" || !reflect.DeepEqual(r1.Roles[0].Misses, []string{"topology: recipe TP8, want TP4"}) {
		t.Errorf("row 1 %+v", r1)
	}

	// MTP script: --model flag vs the recipe's positional model, -tp and
	// --trust_remote_code spellings all match; the synthetic acceptance
	// keys are excluded (S), the rest of --speculative-config is compared
	// with the recipe's opt-in spec_decoding feature switched on (the
	// site's feature toggle; recipes.Index.MatchDeployment), so it matches.
	k = vllmKey(t, rep, "comet-fp8-h200-vllm-mtp")
	ro = k.Rows[0].Roles[0]
	if got, w := diffSettings(ro.Result), []string{"--enforce-eager=(absent)|(set)"}; !reflect.DeepEqual(got, w) {
		t.Errorf("mtp differences %q, want %q", got, w)
	}
	if got, w := exclSettings(ro.Result.Excluded), []string{"--port:harness:harness-port",
		"--speculative-config.synthetic_acceptance_length:synthetic-acceptance:synthetic-vllm-acceptance-length",
		"--speculative-config.rejection_sample_method:synthetic-acceptance:synthetic-vllm-rejection-sampler"}; !reflect.DeepEqual(got, w) {
		t.Errorf("mtp excluded %q, want %q", got, w)
	}

	// No script in the checkout: reported with that status, still matched.
	k = vllmKey(t, rep, "comet-fp8-h200-vllm-noscript")
	if r := k.Rows[0]; r.Status != "script not found" || r.Verdict != "script not found" || len(r.Roles) != 1 ||
		r.Roles[0].Verdict != compare.MatchedNotCompared || r.Roles[0].Recipe == nil || r.Roles[0].Recipe.Strategy != "single_node_tp" || r.Roles[0].Result != nil {
		t.Errorf("noscript row %+v", r)
	}

	// Dynamo + vLLM disagg 1P1D TP4/TP4 on GB200 trays vs pd_cluster on gb200:
	// python3 -m dynamo.vllm = vllm serve; --disaggregation-mode and kv_role
	// are role identity (placement); decode's --max-num-batched-tokens 8192
	// is InferenceX-only.
	k = vllmKey(t, rep, "comet-fp8-gb200-dynamo-vllm")
	if len(k.Rows) != 2 || k.Rows[0].Status != report.StatusCompared || len(k.Rows[0].Roles) != 2 {
		t.Fatalf("dynamo rows %+v", k.Rows)
	}
	pre, dec := k.Rows[0].Roles[0], k.Rows[0].Roles[1]
	if pre.Role != "prefill" || pre.Topology != "TP4" || pre.Recipe.Strategy != "pd_cluster" || pre.Recipe.Hardware != "gb200" || pre.Verdict != compare.CoveredWithExclusions {
		t.Errorf("prefill %+v %+v %q", pre, pre.Recipe, diffSettings(pre.Result))
	}
	ex := strings.Join(exclSettings(pre.Result.Excluded), " ")
	for _, w := range []string{"--disaggregation-mode:placement:placement-vllm-disaggregation-mode", "--kv-transfer-config.kv_role:placement:placement-vllm-kv-role",
		"env VLLM_NIXL_SIDE_CHANNEL_PORT:harness:harness-vllm-ports", "--served-model-name:placement:placement-served-model-name"} {
		if !strings.Contains(ex, w) {
			t.Errorf("prefill exclusions lack %s: %s", w, ex)
		}
	}
	if dec.Role != "decode" || dec.Verdict != compare.Differs {
		t.Errorf("decode %+v", dec)
	}
	if got, w := diffSettings(dec.Result), []string{"--max-num-batched-tokens=(absent)|8192"}; !reflect.DeepEqual(got, w) {
		t.Errorf("decode differences %q, want %q", got, w)
	}
	if r := k.Rows[1]; r.Status != report.StatusUpstreamOnly || r.Verdict != compare.UpstreamOnly || r.Recipe != "recipes/vllm/comet/disagg-gb200-1p2d.yaml" ||
		len(r.Roles) != 2 || r.Roles[1].Verdict != compare.MatchedNotCompared || r.Roles[1].Topology != "TP4" {
		t.Errorf("upstream-only row %+v", r)
	}

	// Text names the recipe place of every role and each gap's values.
	txt := textOf(rep)
	for _, w := range []string{
		"comet-fp8-gb200-dynamo-vllm row 0 conc 8 decode (TP4): differs\n    upstream: models/acme/Comet-1.yaml variant=default strategy=pd_cluster hw=gb200 role=decode\n    site: https://recipes.vllm.ai/acme/Comet-1?hardware=gb200&strategy=pd_cluster\n    --max-num-batched-tokens: upstream (absent), inferencex 8192\n",
		"comet-fp8-h200-vllm row 1 conc 16 agg (TP4): no recipe covers this\n    nearest upstream: models/acme/Comet-1.yaml variant=default strategy=single_node_tp hw=h200 role=agg\n    topology: recipe TP8, want TP4\n",
		"vLLM keys: script not found 1, no recipe covers this 1, differs 2\n",
		// one verdict line per key, with its rows per outcome
		"  comet-fp8-h200-vllm           no recipe covers this            rows: covered-with-exclusions 1, no recipe covers this 1\n",
		"  comet-fp8-h200-vllm-noscript  script not found (not verified)  rows: script not found 1\n",
		"  comet-fp8-gb200-dynamo-vllm   differs                          rows: upstream-only 1, differs 1\n",
		// rows not compared are gaps, with what InferenceX runs and why
		"  comet-fp8-gb200-dynamo-vllm row 1 conc 64: not verified: upstream-only\n    inferencex: recipes/vllm/comet/disagg-gb200-1p2d.yaml\n",
		"Not verified: 2 (a gap: their settings were not compared; --allow-unverified lists them without failing)\n",
	} {
		if !strings.Contains(txt, w) {
			t.Errorf("text lacks %q:\n%s", w, txt)
		}
	}
	// The Markdown printer has its own golden tests (package report); here
	// only: it names the gap verdicts and the rows not verified.
	md := markdownOf(rep)
	for _, w := range []compare.Verdict{compare.NotCovered, compare.Differs, "not verified"} {
		if !strings.Contains(md, string(w)) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}
}

func TestVLLMCoverageConfigKeyAndUsage(t *testing.T) {
	rep, err := Run(context.Background(), Options{InfxDir: vllmFixtureInfx, VLLMRecipesDir: vllmFixtureRecipes, ConfigKeys: []string{"*-noscript"}})
	if err != nil {
		t.Fatal(err)
	}
	// its one row has no script in the checkout: not verified, a gap (fail
	// closed) unless AllowUnverified
	if len(rep.VLLM) != 1 || !rep.Gap || !rep.UnverifiedGap || rep.Counts.Unverified != 1 {
		t.Errorf("--config-key: %d keys, gap %v, unverified %d", len(rep.VLLM), rep.Gap, rep.Counts.Unverified)
	}
	rep, err = Run(context.Background(), Options{InfxDir: vllmFixtureInfx, VLLMRecipesDir: vllmFixtureRecipes, ConfigKeys: []string{"*-noscript"}, AllowUnverified: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Gap || rep.UnverifiedGap || rep.Counts.Unverified != 1 || !rep.AllowUnverified {
		t.Errorf("--allow-unverified: gap %v, unverifiedGap %v, unverified %d", rep.Gap, rep.UnverifiedGap, rep.Counts.Unverified)
	}
	if txt := textOf(rep); !strings.Contains(txt, "\nRows not verified (--allow-unverified: listed, not a gap):\n  comet-fp8-h200-vllm-noscript row 0 conc 4: not verified: script not found\n") ||
		strings.Contains(txt, "Gaps of the keys judged from the InferenceX side:") {
		t.Errorf("--allow-unverified text:\n%s", txt)
	}
	// A glob that matches no vLLM-family key compares nothing: bad usage.
	_, err = Run(context.Background(), Options{InfxDir: vllmFixtureInfx, VLLMRecipesDir: vllmFixtureRecipes, ConfigKeys: []string{"qwen35*"}})
	var oe *OptionError
	if !errors.Is(err, ErrUsage) || !errors.As(err, &oe) || oe.Field != "ConfigKey" || oe.Value != "qwen35*" ||
		oe.Msg != "no vLLM-family config key (vllm, dynamo-vllm, llmd-vllm) of the InferenceX checkout "+launch.QuotePath(vllmFixtureInfx)+" matches: nothing was compared" {
		t.Errorf("no matching key: %v", err)
	}
	for _, o := range []Options{
		{InfxDir: vllmFixtureInfx},
		{InfxDir: vllmFixtureInfx, VLLMRecipesDir: filepath.Join("testdata", "nope")},
		{InfxDir: vllmFixtureRecipes, VLLMRecipesDir: vllmFixtureRecipes}, // no master configs
	} {
		if _, err := Run(context.Background(), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// A malformed model YAML in the recipes tree is bad input: an error (exit 2)
// naming file:line:col, or, when the rest of the tree was indexed, a report
// marked Errors (exit 2) listing it.
func TestVLLMCoverageBadRecipe(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(vllmFixtureRecipes)); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "models", "acme", "Broken.yaml")
	if err := os.WriteFile(bad, []byte("meta:\n  title: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{InfxDir: vllmFixtureInfx, VLLMRecipesDir: dir})
	if err != nil {
		if !strings.Contains(err.Error(), filepath.Join("models", "acme", "Broken.yaml")+":2:1") {
			t.Errorf("error %v, want Broken.yaml:2:1", err)
		}
		return
	}
	if !rep.Errors || len(rep.VLLMRecipeErrors) == 0 || !strings.Contains(strings.Join(rep.VLLMRecipeErrors, "\n"), "Broken.yaml:") {
		t.Errorf("errors %v %q", rep.Errors, rep.VLLMRecipeErrors)
	}
}

// Synthetic-acceptance keys given as dotted sub-keys are kept for the
// exclusion rules; the rest of --speculative-config is canonical JSON.
func TestVLLMSideSyntheticKeys(t *testing.T) {
	p := launch.Process{Kind: launch.KindWorker, Program: "vllm serve", Args: []launch.Arg{
		{Values: []string{"acme/Comet-1"}},
		{Flag: "--speculative-config", Values: []string{`{"method": "mtp", "num_speculative_tokens": 3}`}},
		{Flag: "--speculative-config.synthetic_acceptance_length=2.9"},
	}}
	d := vllmSide(&launch.Deployment{}, &p, launch.RoleDecode, "acme/Comet-1")
	rules, err := compare.DefaultRules()
	if err != nil {
		t.Fatal(err)
	}
	n := rules.NormalizeProcess(&d.Processes[0], "vllm", "acme/Comet-1")
	got := map[string]string{}
	for _, k := range n.Order {
		got[k] = n.Settings[k].Value
	}
	want := map[string]string{"program": "vllm serve", "--model": "acme/Comet-1", "--speculative-config": `{"method":"mtp","num_speculative_tokens":3}`,
		"--speculative-config.synthetic_acceptance_length": "2.9", "workers": "1", "nodes-per-worker": "1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	if d.Processes[0].Role != launch.RoleDecode || d.Engine != "vllm" {
		t.Errorf("side %+v", d)
	}
}

// vllmCorpus returns ../shared/corpus/inferencex and
// ../shared/corpus/vllm-recipes (testutil.SharedPath).
func vllmCorpus(t testing.TB) (string, string) {
	t.Helper()
	return testutil.SharedPath(t, "corpus/inferencex"), testutil.SharedPath(t, "corpus/vllm-recipes")
}

// TestCorpusCoverageVLLM runs coverage over every vLLM-family key of the
// master configs in ../shared/corpus/inferencex against
// ../shared/corpus/vllm-recipes: every key gets an entry, every row a status
// and a verdict (or a reason), every role a recipe place or the nearest
// candidate.
func TestCorpusCoverageVLLM(t *testing.T) {
	ixDir, recDir := vllmCorpus(t)
	rep, err := Run(context.Background(), Options{InfxDir: ixDir, VLLMRecipesDir: recDir})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := infx.Open(ixDir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range ws.ConfigKeys() {
		if e, _ := ws.Entry(k); recipes.VLLMFamily(e.Framework) {
			want = append(want, k)
		}
	}
	var got []string
	for _, k := range rep.VLLM {
		got = append(got, k.ConfigKey)
		if k.Verdict == "" || len(k.Rows) == 0 {
			t.Errorf("%s: no verdict / rows", k.ConfigKey)
		}
		for _, r := range k.Rows {
			if r.Status == "" || r.Verdict == "" || len(r.Concs) == 0 {
				t.Errorf("%s row %d: status %q verdict %q", k.ConfigKey, r.Row, r.Status, r.Verdict)
			}
			if r.Status == report.StatusError {
				t.Errorf("%s row %d: error %s", k.ConfigKey, r.Row, r.Message)
			}
			if len(r.Roles) == 0 && r.Message == "" {
				t.Errorf("%s row %d: neither roles nor a reason", k.ConfigKey, r.Row)
			}
			for _, ro := range r.Roles {
				if ro.Verdict == "" || (ro.Recipe == nil && ro.Nearest == nil) {
					t.Errorf("%s row %d %s: verdict %q, no recipe place", k.ConfigKey, r.Row, ro.Role, ro.Verdict)
				}
				if ro.Verdict == compare.NotCovered && (ro.Nearest == nil || len(ro.Misses) == 0) {
					t.Errorf("%s row %d %s: not covered without nearest candidate", k.ConfigKey, r.Row, ro.Role)
				}
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("keys:\n got %q\nwant %q", got, want)
	}
	if len(rep.VLLMRecipeErrors) > 0 || rep.Errors {
		t.Errorf("recipe errors %q", rep.VLLMRecipeErrors)
	}
	// dsv4-fp4-gb200-dynamo-vllm row 0 runs the corpus recipe
	// vllm/deepseek-v4/8k1k/disagg-gb200-low-latency.yaml ("1 prefill (DEP=8)
	// + 1 decode (TP=8)"): its prefill is compared with the DeepSeek-V4-Pro
	// recipe's pd_cluster on gb200; no recipe has a TP8 decode there.
	k := vllmKey(t, rep, "dsv4-fp4-gb200-dynamo-vllm")
	r0 := k.Rows[0]
	if r0.Status != report.StatusCompared || r0.Recipe != "benchmarks/multi_node/srt-slurm-recipes/vllm/deepseek-v4/8k1k/disagg-gb200-low-latency.yaml" || len(r0.Roles) != 2 {
		t.Fatalf("dsv4 gb200 row 0 %+v", r0)
	}
	pre, dec := r0.Roles[0], r0.Roles[1]
	if pre.Topology != "DEP8" || pre.Recipe == nil || pre.Recipe.File != "models/deepseek-ai/DeepSeek-V4-Pro.yaml" || pre.Recipe.Strategy != "pd_cluster" || pre.Result == nil {
		t.Errorf("dsv4 prefill %+v", pre)
	}
	// issue 12: the variant serving deepseek-ai/DeepSeek-V4-Pro (fp8), and
	// the site's pd_cluster with a TP decode pool renders the TP8 decode
	for _, ro := range []report.RoleMatch{pre, dec} {
		if ro.Recipe == nil || ro.Recipe.Variant != "fp8" || ro.Recipe.Checkpoint != "deepseek-ai/DeepSeek-V4-Pro" {
			t.Errorf("dsv4 %s: want the fp8 variant serving deepseek-ai/DeepSeek-V4-Pro, got %+v", ro.Role, ro.Recipe)
		}
	}
	// (features all off: no URL opens the page there, the Where says so)
	if dec.Topology != "TP8" || dec.Recipe == nil || dec.Recipe.Topology != "TP8" || dec.Recipe.Strategy != "pd_cluster" ||
		!strings.HasSuffix(dec.Recipe.Where, "features=none") || dec.Recipe.URL != "" || dec.Result == nil {
		t.Errorf("dsv4 decode %+v %+v", dec, dec.Recipe)
	}
	// The compared prefill differs (the recipe's fp8 variant runs
	// --max-num-batched-tokens 16384, InferenceX 32768): the row and the
	// key are differs, worse than the decode nobody covers.
	mnbt := ""
	for _, d := range pre.Result.Differences {
		if d.Setting == "--max-num-batched-tokens" {
			mnbt = deref(d.Upstream) + "|" + deref(d.InferenceX)
		}
	}
	t.Logf("dsv4 gb200 prefill --max-num-batched-tokens %s", mnbt)
	if pre.Verdict != compare.Differs || mnbt != "16384|32768" || r0.Verdict != compare.Differs || k.Verdict != compare.Differs {
		t.Errorf("dsv4 gb200: prefill %s (--max-num-batched-tokens %s), row %s, key %s; want differs", pre.Verdict, mnbt, r0.Verdict, k.Verdict)
	}
	// the upstream side is the vLLM recipe compared, the inferencex side
	// the rendered InferenceX worker
	if u := pre.Result.Upstream; u.Recipe != "models/deepseek-ai/DeepSeek-V4-Pro.yaml" || u.Strategy != "pd_cluster" || u.Variant != pre.Recipe.Variant {
		t.Errorf("dsv4 prefill upstream source %+v", u)
	}
	if rep.Counts.VLLM[string(compare.Differs)] < 1 || !rep.UnverifiedGap {
		t.Errorf("key counts %v (unverified gap %v): want a differs bucket and unverified rows", rep.Counts.VLLM, rep.UnverifiedGap)
	}
	// DeepSeek-V4-Pro.yaml: meta.hardware.mi300x: unsupported.
	mi := vllmKey(t, rep, "dsv4-fp8-mi300x-vllm").Rows[0].Roles[0]
	if mi.Verdict != compare.NotCovered || !slices.Contains(mi.Misses, "hardware: models/deepseek-ai/DeepSeek-V4-Pro.yaml marks mi300x unsupported (meta.hardware.mi300x)") {
		t.Errorf("dsv4-fp8-mi300x-vllm role %s, misses %q", mi.Verdict, mi.Misses)
	}
	t.Logf("vLLM keys: %v; rows: %v; roles: %v", rep.Counts.VLLM, rep.Counts.VLLMRows, rep.Counts.VLLMRoles)
}

// The key verdict is the worst row outcome (compare.Rank): error >
// prohibited > differs > missing = no recipe covers this > not verified >
// covered-with-exclusions > covered; "" is nothing yet.
func TestVLLMVerdictPrecedence(t *testing.T) {
	for _, c := range []struct {
		in   []compare.Verdict
		want compare.Verdict
	}{
		{[]compare.Verdict{compare.NotCovered, compare.Differs}, compare.Differs},
		{[]compare.Verdict{compare.Differs, compare.NotCovered}, compare.Differs},
		{[]compare.Verdict{compare.Differs, compare.Prohibited}, compare.Prohibited},
		{[]compare.Verdict{compare.UpstreamOnly, compare.NotCovered}, compare.NotCovered},
		{[]compare.Verdict{compare.Missing, compare.UpstreamOnly}, compare.Missing},
		// differs ranks above missing (one severity order for every verdict)
		{[]compare.Verdict{compare.Missing, compare.Differs}, compare.Differs},
		{[]compare.Verdict{compare.Differs, compare.Missing}, compare.Differs},
		// of equal rank, the first
		{[]compare.Verdict{compare.Missing, compare.NotCovered}, compare.Missing},
		{[]compare.Verdict{compare.CoveredWithExclusions, compare.UpstreamOnly}, compare.UpstreamOnly},
		{[]compare.Verdict{compare.MatchedNotCompared, compare.CoveredWithExclusions}, compare.MatchedNotCompared},
		{[]compare.Verdict{compare.Covered, compare.CoveredWithExclusions}, compare.CoveredWithExclusions},
		{[]compare.Verdict{compare.Prohibited, compare.Error}, compare.Error},
		{[]compare.Verdict{compare.Covered}, compare.Covered},
	} {
		got := compare.Verdict("")
		for _, v := range c.in {
			got = compare.Worse(got, v)
		}
		if got != c.want {
			t.Errorf("worst of %q = %q, want %q", c.in, got, c.want)
		}
	}
}

// BenchmarkCoverageVLLM is the whole vLLM-family coverage run on the corpus
// (open the recipes index, render every point, match and compare).
func BenchmarkCoverageVLLM(b *testing.B) {
	ixDir, recDir := vllmCorpus(b)
	for b.Loop() {
		if _, err := Run(context.Background(), Options{InfxDir: ixDir, VLLMRecipesDir: recDir}); err != nil {
			b.Fatal(err)
		}
	}
}

// A role no recipe covers names the model recipe that explicitly opts its
// hardware out (vllm-recipes.md: meta.hardware.<hw> "unsupported").
func TestHardwareOptOut(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "models", "acme"), 0o755); err != nil {
		t.Fatal(err)
	}
	yml := "meta:\n  title: Comet-1\n  hardware:\n    h200: verified\n    mi300x: unsupported\nmodel:\n  model_id: acme/Comet-1\n"
	if err := os.WriteFile(filepath.Join(dir, "models", "acme", "Comet-1.yaml"), []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	near := &report.RecipeRef{Kind: "yaml", File: "models/acme/Comet-1.yaml", Hardware: "h200"}
	cache := map[string]map[string]string{}
	for _, c := range []struct {
		name string
		ro   report.RoleMatch
		hw   string
		want string
	}{
		{"opted out", report.RoleMatch{Verdict: compare.NotCovered, Nearest: near, Misses: []string{"hardware: recipe h200, want mi300x"}}, "mi300x",
			"hardware: models/acme/Comet-1.yaml marks mi300x unsupported (meta.hardware.mi300x)"},
		{"not declared", report.RoleMatch{Verdict: compare.NotCovered, Nearest: near, Misses: []string{"hardware: recipe h200, want mi355x"}}, "mi355x", ""},
		{"other model", report.RoleMatch{Verdict: compare.NotCovered, Nearest: near, Misses: []string{"model: recipe acme/Comet-1, want acme/Nova", "hardware: recipe h200, want mi300x"}}, "mi300x", ""},
		{"topology only", report.RoleMatch{Verdict: compare.NotCovered, Nearest: near, Misses: []string{"topology: recipe TP8, want TP4"}}, "mi300x", ""},
		{"covered", report.RoleMatch{Verdict: compare.Differs, Nearest: near, Misses: []string{"hardware: recipe h200, want mi300x"}}, "mi300x", ""},
	} {
		if got := hardwareOptOut(dir, &c.ro, c.hw, cache); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestVLLMSideExclusionMutations (issue 22 item 4): with the MTP script's
// only production difference (--enforce-eager) removed, the fixture's MTP
// key is covered-with-exclusions. A recipe that pins
// rejection_sample_method block inside --speculative-config is then not
// covered: InferenceX's synthetic sampler is taken out on its own side and
// its production path sets none, for which vLLM's default is cited
// nowhere. Harness-only mutations of the script (the synthetic keys' values
// or presence) change no verdict; a production one (the draft length) does.
func TestVLLMSideExclusionMutations(t *testing.T) {
	const script = "benchmarks/single_node/fixed_seq_len/comet_fp8_h200_vllm_mtp.sh"
	const spec = `'{"num_speculative_tokens": 2, "method": "mtp", "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.5}'`
	// edit replaces from with to in the fixture's recipe (file "recipe")
	// or MTP script (file "script")
	type edit struct{ file, from, to string }
	var text string // the text report of the last run
	run := func(t *testing.T, edits ...edit) report.RoleMatch {
		t.Helper()
		dir := t.TempDir()
		ix, rec := filepath.Join(dir, "inferencex"), filepath.Join(dir, "recipes")
		if err := os.CopyFS(ix, os.DirFS(vllmFixtureInfx)); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(rec, os.DirFS(vllmFixtureRecipes)); err != nil {
			t.Fatal(err)
		}
		edits = append(edits, edit{"script", " \\\n    --enforce-eager", ""})
		for _, e := range edits {
			e.file = map[string]string{"script": filepath.Join(ix, script), "recipe": filepath.Join(rec, cometYAML)}[e.file]
			b, err := os.ReadFile(e.file)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), e.from) {
				t.Fatalf("%s lacks %q", e.file, e.from)
			}
			if err := os.WriteFile(e.file, []byte(strings.Replace(string(b), e.from, e.to, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		rep, err := Run(context.Background(), Options{InfxDir: ix, VLLMRecipesDir: rec, ConfigKeys: []string{"comet-fp8-h200-vllm-mtp"}})
		if err != nil {
			t.Fatal(err)
		}
		text = textOf(rep)
		k := vllmKey(t, rep, "comet-fp8-h200-vllm-mtp")
		if len(k.Rows) != 1 || len(k.Rows[0].Roles) != 1 || k.Rows[0].Roles[0].Result == nil {
			t.Fatalf("rows %+v", k.Rows)
		}
		return k.Rows[0].Roles[0]
	}
	base := run(t)
	if base.Verdict != compare.CoveredWithExclusions || len(base.Result.Differences) != 0 {
		t.Fatalf("baseline %s %q", base.Verdict, diffSettings(base.Result))
	}
	t.Run("recipe pins block", func(t *testing.T) {
		ro := run(t, edit{"recipe", `'{"method":"mtp","num_speculative_tokens":2}'`, `'{"method":"mtp","num_speculative_tokens":2,"rejection_sample_method":"block"}'`})
		if ro.Verdict != compare.Differs {
			t.Errorf("verdict %s, want differs", ro.Verdict)
		}
		if got, w := diffSettings(ro.Result), []string{"--speculative-config.rejection_sample_method=block|(absent)"}; !reflect.DeepEqual(got, w) {
			t.Errorf("differences %q, want %q", got, w)
		}
		if w := "    --speculative-config.rejection_sample_method: upstream block, inferencex (absent) (InferenceX runs synthetic for the benchmark, harness-only (synthetic-vllm-rejection-sampler, excluded); compared with its production path, which does not set it)\n"; !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	})
	for name, to := range map[string]string{
		"another acceptance length": strings.Replace(spec, "2.5", "3.1", 1),
		"no synthetic sampler":      strings.Replace(spec, `, "rejection_sample_method": "synthetic"`, "", 1),
		"no synthetic keys":         `'{"num_speculative_tokens": 2, "method": "mtp"}'`,
	} {
		t.Run("harness: "+name, func(t *testing.T) {
			ro := run(t, edit{"script", spec, to})
			if ro.Verdict.Rank() > compare.CoveredWithExclusions.Rank() || len(ro.Result.Differences) != 0 {
				t.Errorf("verdict %s %q: a harness-only change changed the verdict", ro.Verdict, diffSettings(ro.Result))
			}
		})
	}
	t.Run("production: draft length", func(t *testing.T) {
		ro := run(t, edit{"script", spec, strings.Replace(spec, `"num_speculative_tokens": 2`, `"num_speculative_tokens": 3`, 1)})
		if ro.Verdict != compare.Differs {
			t.Errorf("verdict %s, want differs", ro.Verdict)
		}
	})
}

// TestJudgeKeysAtOnce: keys judged on every CPU (judgeKeys) give the report
// judging them one at a time gives (with an OnSetting callback, which keys
// are judged one at a time for), key for key in entry order — on one CPU
// and on four.
func TestJudgeKeysAtOnce(t *testing.T) {
	one := func(procs int, onSetting func(compare.Seen)) []byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rep, err := Run(context.Background(), Options{InfxDir: vllmFixtureInfx, VLLMRecipesDir: vllmFixtureRecipes, OnSetting: onSetting})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rep.VLLM)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var mu sync.Mutex
	seen := 0
	serial := one(1, func(compare.Seen) { mu.Lock(); seen++; mu.Unlock() })
	if seen == 0 {
		t.Fatal("OnSetting never called: the fixture compares nothing")
	}
	for _, procs := range []int{1, 2, 4} {
		if got := one(procs, nil); !bytes.Equal(got, serial) {
			t.Errorf("GOMAXPROCS %d, keys at once: the vLLM keys differ from one at a time", procs)
		}
	}
}

// TestReleaseQueries: the vLLM part releases each model on a hardware its
// keys' points serve once, when the last key serving it is judged — in
// any order of judging — and never while a key left serves it.
func TestReleaseQueries(t *testing.T) {
	ws, err := infx.Open(vllmFixtureInfx)
	if err != nil {
		t.Fatal(err)
	}
	c := &run{ws: ws}
	var entries []*infx.Entry
	serves := map[*infx.Entry]map[string]bool{}
	for _, k := range ws.ConfigKeys() {
		e, err := ws.Entry(k)
		if err != nil || !recipes.VLLMFamily(e.Framework) {
			continue
		}
		pts, _ := ws.Points(k)
		serves[e] = map[string]bool{}
		for _, p := range pts {
			serves[e][strings.ToLower(p.Model)+" on "+strings.ToLower(p.Hardware)] = true
		}
		entries = append(entries, e)
	}
	if len(entries) < 2 {
		t.Fatalf("%d vLLM entries in the fixture, want 2 or more", len(entries))
	}
	reversed := slices.Clone(entries)
	slices.Reverse(reversed)
	for _, order := range [][]*infx.Entry{entries, reversed} {
		released := map[string]int{}
		done := c.releaseQueries(entries, func(model, hw string) { released[model+" on "+hw]++ })
		for i, e := range order {
			before := maps.Clone(released)
			done(e)
			for s, n := range released {
				if n == before[s] {
					continue
				}
				for _, later := range order[i+1:] {
					if serves[later][s] {
						t.Errorf("%s released while %s, not yet judged, serves it", s, later.Key)
					}
				}
			}
		}
		want := map[string]int{}
		for _, e := range entries {
			for s := range serves[e] {
				want[s] = 1
			}
		}
		if !maps.Equal(released, want) {
			t.Errorf("released %v, want each of %v once", released, want)
		}
	}
}
