package recipes

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// meteorWorker is an InferenceX agg worker of acme/Meteor-1 (or its FP8
// checkpoint) with the given vLLM args.
func meteorWorker(model, hw string, args ...launch.Arg) *launch.Deployment {
	return &launch.Deployment{Model: model, Hardware: hw, Processes: []launch.Process{
		{Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "vllm serve", Args: args}}}
}

func flag(f string, v ...string) launch.Arg { return launch.Arg{Flag: f, Values: v} }

func workerArgv(c *Candidate) string {
	var parts []string
	for _, a := range c.Deployment.Processes[c.Process].Args {
		if a.Flag != "" {
			parts = append(parts, a.Flag)
		}
		parts = append(parts, a.Values...)
	}
	return strings.Join(parts, " ")
}

func featureNames(fs []Feature) []string {
	var out []string
	for _, f := range fs {
		s := f.String()
		if !f.Default {
			s = "+" + s
		}
		out = append(out, s)
	}
	return out
}

// TestFeatureDefaultSet: the site's JSON renderings carry the default
// feature set only (§9.2 step 9): tool_calling on the default variant; the
// fp8 checkpoint's default_modes force spec_decoding on in mode eagle3 (mtp
// is limited to the default variant).
func TestFeatureDefaultSet(t *testing.T) {
	site, err := LoadSite(fixtureSite)
	if err != nil {
		t.Fatal(err)
	}
	rs := site.Renderings()
	r := renderingAt(t, rs, "acme/Meteor-1.json")
	if got, want := strings.Join(r.Role("single").Texts(), " "),
		"vllm serve acme/Meteor-1 --max-model-len 8192 --tensor-parallel-size 8 --tool-call-parser meteor --enable-auto-tool-choice"; got != want {
		t.Errorf("default h200:\n got %s\nwant %s", got, want)
	}
	if got := featureNames(r.Features); !reflect.DeepEqual(got, []string{"tool_calling"}) || r.CustomFeatures {
		t.Errorf("default features %v custom %v", got, r.CustomFeatures)
	}
	r = renderingAt(t, rs, "acme/Meteor-1-FP8.json")
	if got, want := strings.Join(r.Role("single").Texts(), " "),
		`vllm serve acme/Meteor-1-FP8 --max-model-len 8192 --tensor-parallel-size 8 --tool-call-parser meteor --enable-auto-tool-choice --speculative-config {"method":"eagle3","model":"acme/Meteor-1-EAGLE3","num_speculative_tokens":3}`; got != want {
		t.Errorf("fp8 h200:\n got %s\nwant %s", got, want)
	}
	if got := featureNames(r.Features); !reflect.DeepEqual(got, []string{"tool_calling", "spec_decoding:eagle3"}) {
		t.Errorf("fp8 features %v", got)
	}
}

// TestMatchDeploymentFeatures: MatchDeployment renders the opt-in features
// the InferenceX worker uses, as the site's toggles would, and puts the
// candidate whose speculative decoding agrees with the worker first.
func TestMatchDeploymentFeatures(t *testing.T) {
	ix, err := Open(fixtureSite)
	if err != nil {
		t.Fatal(err)
	}
	match := func(d *launch.Deployment, prec string) []Candidate {
		t.Helper()
		rms, err := ix.MatchDeployment(d, "vllm", prec)
		if err != nil || len(rms) != 1 || !rms[0].Covered() {
			t.Fatalf("MatchDeployment: %v %+v", err, rms)
		}
		return rms[0].Candidates
	}
	tp8 := flag("--tensor-parallel-size", "8")

	// MTP with the InferenceX synthetic acceptance keys: spec_decoding on
	// in its default mode, text_only (not used) off; the default rendering
	// (no spec decoding) follows.
	cs := match(meteorWorker("acme/Meteor-1", "h200", flag("--model", "acme/Meteor-1"), tp8,
		flag("--speculative-config", `{"method":"mtp","num_speculative_tokens":2,"synthetic_acceptance_length":2.5}`),
		flag("--tool-call-parser", "meteor"), flag("--enable-auto-tool-choice")), "bf16")
	c := cs[0]
	if c.Strategy != "single_node_tp" || c.Hardware != "h200" || !c.CustomFeatures ||
		!reflect.DeepEqual(featureNames(c.Features), []string{"tool_calling", "+spec_decoding:mtp"}) {
		t.Fatalf("mtp: %s %v", c.Where(), featureNames(c.Features))
	}
	if got, want := workerArgv(&c), `acme/Meteor-1 --max-model-len 8192 --tensor-parallel-size 8 --tool-call-parser meteor --enable-auto-tool-choice --speculative-config {"method":"mtp","num_speculative_tokens":2}`; got != want {
		t.Errorf("mtp argv:\n got %s\nwant %s", got, want)
	}
	if got, want := c.Where(), "models/acme/Meteor-1.yaml variant=default strategy=single_node_tp hw=h200 role=agg features=tool_calling,spec_decoding:mtp"; got != want {
		t.Errorf("where %q", got)
	}
	if o := c.Deployment.Processes[c.Process].Args[5].Origin; o.Path != "features.spec_decoding.modes.mtp.args[0]" || o.Detail != "models/acme/Meteor-1.yaml:31:13" {
		t.Errorf("feature origin %+v", o)
	}
	if d := cs[1]; d.Strategy != "single_node_tp" || d.CustomFeatures || SpecDecoding(d.Deployment.Processes[d.Process].Args) {
		t.Errorf("second candidate: %s %v", d.Where(), featureNames(d.Features))
	}

	// EAGLE3 and text-only: the mode whose args equal the worker's wins
	// over the default mode; both opt-in features combine, in YAML order;
	// the default-on tool_calling the worker does not run is switched off.
	cs = match(meteorWorker("acme/Meteor-1", "h200", tp8, flag("--language-model-only"),
		flag("--speculative-config", `{"num_speculative_tokens":3,"model":"acme/Meteor-1-EAGLE3","method":"eagle3"}`)), "bf16")
	if c := cs[0]; !reflect.DeepEqual(featureNames(c.Features), []string{"+spec_decoding:eagle3", "+text_only"}) ||
		workerArgv(&c) != `acme/Meteor-1 --max-model-len 8192 --tensor-parallel-size 8 --speculative-config {"method":"eagle3","model":"acme/Meteor-1-EAGLE3","num_speculative_tokens":3} --language-model-only` {
		t.Errorf("eagle3 + text_only: %s | %s", c.Where(), workerArgv(&c))
	}

	// On AMD eagle3 is unsupported: spec decoding is still on (the worker
	// runs it), in the only allowed mode, mtp.
	cs = match(meteorWorker("acme/Meteor-1", "mi355x", tp8,
		flag("--speculative-config", `{"method":"eagle3","model":"acme/Meteor-1-EAGLE3","num_speculative_tokens":3}`)), "bf16")
	if c := cs[0]; c.Hardware != "mi355x" || !reflect.DeepEqual(featureNames(c.Features), []string{"+spec_decoding:mtp"}) {
		t.Errorf("mi355x: %s %v", c.Where(), featureNames(c.Features))
	}

	// text_only is limited to single_node_tp: a DEP8 worker asking for it
	// gets nothing switched on (only tool_calling, which it lacks, off).
	cs = match(meteorWorker("acme/Meteor-1", "h200", flag("--data-parallel-size", "8"), flag("--enable-expert-parallel"),
		flag("--language-model-only")), "bf16")
	if c := cs[0]; c.Strategy != "single_node_dep" || !c.CustomFeatures || len(c.Features) != 0 ||
		c.Query.Features == nil || c.URL != "" {
		t.Errorf("dep text_only: %s %v", c.Where(), featureNames(c.Features))
	}

	// The FP8 checkpoint forces spec decoding on by default; a worker
	// without it gets the rendering with the opt-in feature switched off
	// first, then the site's default.
	cs = match(meteorWorker("acme/Meteor-1-FP8", "h200", tp8), "fp8")
	if len(cs) < 2 || !cs[0].CustomFeatures || len(cs[0].Features) != 0 ||
		workerArgv(&cs[0]) != "acme/Meteor-1-FP8 --max-model-len 8192 --tensor-parallel-size 8" ||
		cs[1].CustomFeatures || !reflect.DeepEqual(featureNames(cs[1].Features), []string{"tool_calling", "spec_decoding:eagle3"}) {
		t.Errorf("fp8 without spec: %+v", cs)
	}
	// With EAGLE3 the default mode already agrees: only tool_calling,
	// which the worker lacks, is switched off.
	cs = match(meteorWorker("acme/Meteor-1-FP8", "h200", tp8,
		flag("--speculative-config", `{"method":"eagle3","model":"acme/Meteor-1-EAGLE3","num_speculative_tokens":3}`)), "fp8")
	if !cs[0].CustomFeatures || cs[0].Strategy != "single_node_tp" || !reflect.DeepEqual(featureNames(cs[0].Features), []string{"spec_decoding:eagle3"}) ||
		cs[0].URL != "https://recipes.vllm.ai/acme/Meteor-1?hardware=h200&variant=fp8&features=spec_decoding" {
		t.Errorf("fp8 eagle3: %s %v", cs[0].Where(), featureNames(cs[0].Features))
	}
}

// TestMatchDeploymentStagedDraft: a worker that stages its draft head
// locally (hf download <id> --local-dir …/<name>, as InferenceX's
// minimaxm3_fp4_b200_mtp.sh does) runs the spec-decoding mode whose draft
// repository has that name — the most specific one: a path ending in
// Meteor-1-EAGLE3-GQA is eagle3_gqa, not eagle3 whose draft
// (acme/Meteor-1-EAGLE3) is only a prefix of it; a path ending in
// Meteor-1-EAGLE3 is eagle3.
func TestMatchDeploymentStagedDraft(t *testing.T) {
	ix, err := Open(fixtureSite)
	if err != nil {
		t.Fatal(err)
	}
	tp8 := flag("--tensor-parallel-size", "8")
	for _, c := range []struct{ draft, mode string }{
		{"/scratch/fsw/models/Meteor-1-EAGLE3-GQA", "+spec_decoding:eagle3_gqa"},
		{"/data/models/meteor-1-eagle3-gqa/", "+spec_decoding:eagle3_gqa"},
		{"acme/Meteor-1-EAGLE3-GQA", "+spec_decoding:eagle3_gqa"},
		{"/scratch/fsw/models/Meteor-1-EAGLE3", "+spec_decoding:eagle3"},
	} {
		d := meteorWorker("acme/Meteor-1", "h200", tp8, flag("--speculative-config",
			`{"method":"eagle3","model":"`+c.draft+`","num_speculative_tokens":3,"rejection_sample_method":"synthetic"}`))
		rms, err := ix.MatchDeployment(d, "vllm", "bf16")
		if err != nil || len(rms) != 1 || !rms[0].Covered() {
			t.Fatalf("%s: %v %+v", c.draft, err, rms)
		}
		got := rms[0].Candidates[0]
		if !reflect.DeepEqual(featureNames(got.Features), []string{c.mode}) {
			t.Errorf("draft %s: %s, want %s", c.draft, got.Where(), c.mode)
		}
	}
}

// TestNormalizeDynamoToolCallParser: Dynamo's --dyn-tool-call-parser
// implies vLLM's --enable-auto-tool-choice (added once, after it).
func TestNormalizeDynamoToolCallParser(t *testing.T) {
	flags := func(args ...launch.Arg) string {
		out, _ := NormalizeArgs(args)
		var fs []string
		for _, a := range out {
			fs = append(fs, a.Flag)
		}
		return strings.Join(fs, " ")
	}
	if got := flags(flag("--dyn-tool-call-parser", "minimax_m3"), flag("--reasoning-parser", "minimax_m3")); got != "--dyn-tool-call-parser --enable-auto-tool-choice --reasoning-parser" {
		t.Errorf("implied: %s", got)
	}
	if got := flags(flag("--enable-auto-tool-choice"), flag("--dyn_tool_call_parser=kimi_k2")); got != "--enable-auto-tool-choice --dyn-tool-call-parser" {
		t.Errorf("already set: %s", got)
	}
	if got := flags(flag("--tool-call-parser", "x")); got != "--tool-call-parser" {
		t.Errorf("vLLM's own parser implies nothing: %s", got)
	}
}

// TestCorpusMatchDeploymentFeatures: on the real DeepSeek-V4-Pro recipe,
// spec_decoding is opt-in (opt_in_features) with modes mtp (variants fp8,
// nvfp4) and dspark (variants default, dspark); the default variant
// forces dspark through default_modes.
func TestCorpusMatchDeploymentFeatures(t *testing.T) {
	ix, err := Open(recipesRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	tp8 := flag("--tensor-parallel-size", "8")
	// NVFP4 with MTP on b200: the mtp mode's args are rendered.
	d := meteorWorker("nvidia/DeepSeek-V4-Pro-NVFP4", "b200", tp8,
		flag("--speculative-config", `{"method":"mtp","num_speculative_tokens":2,"rejection_sample_method":"synthetic"}`))
	rms, err := ix.MatchDeployment(d, "vllm", "fp4")
	if err != nil || len(rms) != 1 || !rms[0].Covered() {
		t.Fatalf("nvfp4: %v %+v", err, rms)
	}
	c := rms[0].Candidates[0]
	if c.Variant != "nvfp4" || c.Hardware != "b200" || c.Strategy != "single_node_tp" || !c.CustomFeatures ||
		!reflect.DeepEqual(featureNames(c.Features), []string{"+spec_decoding:mtp"}) {
		t.Errorf("nvfp4 mtp: %s %v", c.Where(), featureNames(c.Features))
	}
	if v, ok := launch.Lookup(c.Deployment.Processes[c.Process].Args, "--speculative-config"); !ok || v[0] != `{"method":"mtp","num_speculative_tokens":2}` {
		t.Errorf("nvfp4 speculative-config %v", v)
	}
	// deepseek-ai/DeepSeek-V4-Pro is the fp8 variant's checkpoint (no
	// model_id of its own), not the 0813 release of the default variant.
	d = meteorWorker("deepseek-ai/DeepSeek-V4-Pro", "h200", tp8)
	rms, err = ix.MatchDeployment(d, "vllm", "fp8")
	if err != nil || len(rms) != 1 || !rms[0].Covered() {
		t.Fatalf("fp8: %v %+v", err, rms)
	}
	c = rms[0].Candidates[0]
	if c.Variant != "fp8" || c.Checkpoint != "deepseek-ai/DeepSeek-V4-Pro" || SpecDecoding(c.Deployment.Processes[c.Process].Args) ||
		len(c.Features) != 0 || c.Query.Variant != "fp8" || c.URL != "" {
		t.Errorf("fp8 without spec: %s %v", c.Where(), featureNames(c.Features))
	}
}
