package compare

import (
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

func TestEngineVersion(t *testing.T) {
	d, err := DefaultDefaults()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		engine, image, want string
		ok                  bool
	}{
		{"vllm", "vllm/vllm-openai:v0.11.2", "0.11.2", true},
		{"vllm", "docker://vllm/vllm-openai:v0.25.0", "0.25.0", true},
		{"sglang", "lmsysorg/sglang:v0.5.16-cu130", "0.5.16", true},
		{"vllm", "vllm/vllm-openai:nightly-dev-x86_64-cu13.0.1-426e59f", "", false},
		{"vllm", "vllm/vllm-openai:kimi-k3", "", false},
		{"vllm", "vllm/vllm-openai", "", false}, // :latest
		{"vllm", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.0", "", false},
		{"sglang", "vllm/vllm-openai:v0.25.0", "", false},
	}
	for _, c := range cases {
		got, ok := d.EngineVersion(c.engine, c.image)
		if got != c.want || ok != c.ok {
			t.Errorf("EngineVersion(%s, %s) = %q %v, want %q %v", c.engine, c.image, got, ok, c.want, c.ok)
		}
	}
}

func TestDefaultsLookup(t *testing.T) {
	d, err := DefaultDefaults()
	if err != nil {
		t.Fatal(err)
	}
	// async scheduling is cited as default from 0.19.1 (Kimi-K2.5 recipe)
	if r, ok := d.Lookup("vllm", "--async-scheduling", "", "0.25.0"); !ok || !strings.Contains(r.Source, "models/moonshotai/Kimi-K2.5.yaml") {
		t.Errorf("async-scheduling at 0.25.0: %+v %v", r, ok)
	}
	for _, v := range []string{"0.11.2", "0.19.0", ""} {
		if _, ok := d.Lookup("vllm", "--async-scheduling", "", v); ok {
			t.Errorf("async-scheduling at %q: cited, want compared (outside the range or unknown)", v)
		}
	}
	if _, ok := d.Lookup("vllm", "--moe-backend", "auto", "0.27.1"); !ok {
		t.Error("moe-backend auto at 0.27.1: not cited")
	}
	if _, ok := d.Lookup("vllm", "--moe-backend", "triton", "0.27.1"); ok {
		t.Error("moe-backend triton: cited as default")
	}
	// unchanged since the first release: every version, also unknown
	if _, ok := d.Lookup("vllm", "--tensor-parallel-size", "1", ""); !ok {
		t.Error("tensor-parallel-size 1 (unknown version): not cited")
	}
	// no row without a source: max-num-batched-tokens stays compared
	if _, ok := d.Lookup("vllm", "--max-num-batched-tokens", "8192", "0.25.0"); ok {
		t.Error("max-num-batched-tokens: cited, want compared")
	}
	// SGLang: only the parallel sizes of one (ServerArgs), every version;
	// other SGLang flags stay compared
	if r, ok := d.Lookup("sglang", "--data-parallel-size", "1", ""); !ok || !strings.Contains(r.Source, "sglang/srt/server_args.py") {
		t.Errorf("sglang --data-parallel-size 1: %+v %v", r, ok)
	}
	if _, ok := d.Lookup("sglang", "--data-parallel-size", "2", "0.5.16"); ok {
		t.Error("sglang --data-parallel-size 2: cited, want compared")
	}
	if _, ok := d.Lookup("sglang", "--mem-fraction-static", "0.9", "0.5.16"); ok {
		t.Error("sglang --mem-fraction-static: cited, want compared")
	}
}

func TestParseDefaultsErrors(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"defaults: {vllm: [{flag: --dtype, value: auto, versions: '*'}]}", "is not a URL"},
		{"defaults: {vllm: [{flag: dtype, value: auto, versions: '*', source: 'https://x'}]}", "must start with '-'"},
		{"defaults: {vllm: [{flag: --dtype, value: auto, versions: '~0.1', source: 'https://x'}]}", "bad"},
		{"defaults: {vllm: [{flag: --dtype, value: auto, source: 'https://x'}]}", "versions: empty"},
		{"bogus: 1", "field bogus not found"},
	} {
		if _, err := ParseDefaults("t.yaml", []byte(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseDefaults(%q) = %v, want %q", c.data, err, c.want)
		}
	}
}

// A vLLM flag at its cited default on one side and absent on the other is
// informational with the source; outside the row's version range, or with
// an image without a version, it is a difference.
func TestCompareCitedDefault(t *testing.T) {
	dep := func(image string, args ...launch.Arg) *launch.Deployment {
		return &launch.Deployment{Engine: "vllm", Model: "moonshotai/Kimi-K2.5", Processes: []launch.Process{{
			Kind: launch.KindWorker, Program: "vllm serve", Image: image,
			Args: append([]launch.Arg{{Values: []string{"moonshotai/Kimi-K2.5"}}, {Flag: "--tensor-parallel-size", Values: []string{"8"}}}, args...),
		}}}
	}
	async := launch.Arg{Flag: "--async-scheduling"}
	tp1 := launch.Arg{Flag: "--pipeline-parallel-size", Values: []string{"1"}}

	res, err := Compare(dep("vllm/vllm-openai:v0.25.0"), dep("vllm/vllm-openai:v0.25.0", async, tp1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Verdict != CoveredWithExclusions || len(r.Differences) != 0 || len(r.Info) != 2 {
		t.Fatalf("v0.25.0: verdict %s, differences %+v, info %+v", r.Verdict, r.Differences, r.Info)
	}
	a := r.Info[0]
	if a.Setting != "--async-scheduling" || a.Rule != "default-async-scheduling" || a.Upstream != nil || a.InferenceX == nil || *a.InferenceX != "" ||
		a.Policy != "prompt-09813166" ||
		a.Reason != "--async-scheduling on is the vllm default at 0.25.0 (image vllm/vllm-openai:v0.25.0; default for >=0.19.1), the same as the flag absent; source: https://github.com/vllm-project/recipes/blob/8959cf64189c71d36e11c6a30335f923f261b1f7/models/moonshotai/Kimi-K2.5.yaml — \"Async scheduling: Enabled by default for better throughput.\" (recipe with min_vllm_version 0.19.1; also models/moonshotai/Kimi-K2.6.yaml)" {
		t.Errorf("async info %+v (reason %q)", a, a.Reason)
	}
	if p := r.Info[1]; p.Setting != "--pipeline-parallel-size" || p.Rule != "default-pipeline-parallel-size" || !strings.Contains(p.Reason, "at every version") {
		t.Errorf("pp info %+v", p)
	}

	for _, img := range []string{"vllm/vllm-openai:v0.11.2", "vllm/vllm-openai:nightly"} {
		res, err = Compare(dep(img), dep(img, async, tp1), Options{})
		if err != nil {
			t.Fatal(err)
		}
		r = res[0]
		if r.Verdict != Differs || len(r.Differences) != 1 || r.Differences[0].Setting != "--async-scheduling" || len(r.Info) != 1 {
			t.Errorf("%s: verdict %s, differences %+v, info %+v; want --async-scheduling compared", img, r.Verdict, r.Differences, r.Info)
		}
	}
}
