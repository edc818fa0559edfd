package recipes

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

var fixtureSite = filepath.Join("testdata", "site")

func renderingAt(t *testing.T, rs []*Rendering, path string) *Rendering {
	t.Helper()
	for _, r := range rs {
		for _, p := range r.Paths {
			if p == path {
				return r
			}
		}
	}
	t.Fatalf("no rendering for %s", path)
	return nil
}

func envText(env []EnvEntry) string {
	var parts []string
	for _, e := range env {
		parts = append(parts, e.Name+"="+e.Value)
	}
	return strings.Join(parts, " ")
}

// TestSynthesisFixture checks the §9 rules on a small recipe: default hw,
// recommended strategy, last-wins dedupe, DEP over NVL4 trays, pd pools,
// generation env blocks, promoted variant trees and the precision gate.
func TestSynthesisFixture(t *testing.T) {
	site, err := LoadSite(fixtureSite)
	if err != nil {
		t.Fatal(err)
	}
	rs := site.Renderings()
	argv := func(r *Rendering, role string) string { return strings.Join(r.Role(role).Texts(), " ") }

	r := renderingAt(t, rs, "acme/Rocket-1.json")
	if r.Hardware != "h200" || r.Strategy != "single_node_tp" || !r.Recommended {
		t.Errorf("recommended: %s %s", r.Hardware, r.Strategy)
	}
	if got, want := argv(r, "single"), "vllm serve acme/Rocket-1 --trust-remote-code --max-num-seqs 128 --tensor-parallel-size 8 --reasoning-parser rocket"; got != want {
		t.Errorf("h200 tp:\n got %s\nwant %s", got, want)
	}
	if envText(r.Env) != "VLLM_A=1" {
		t.Errorf("env %s", envText(r.Env))
	}
	// §9.6 last wins: so.extra_args --max-num-seqs 256 replaces base 128 at its position.
	r = renderingAt(t, rs, "acme/Rocket-1/strategies/single_node_dep.json")
	if got, want := argv(r, "single"), "vllm serve acme/Rocket-1 --trust-remote-code --enable-expert-parallel --data-parallel-size 8 --max-num-seqs 256 --reasoning-parser rocket"; got != want {
		t.Errorf("h200 dep:\n got %s\nwant %s", got, want)
	}
	// §9.4 multi-node DEP on GB200 NVL4 trays: 2 × 4 GPUs.
	r = renderingAt(t, rs, "acme/Rocket-1/hw/gb200/strategies/multi_node_dep.json")
	if got, want := argv(r, "head"), "vllm serve acme/Rocket-1 --trust-remote-code --max-num-seqs 128 --enable-expert-parallel --data-parallel-hybrid-lb --data-parallel-size 8 --data-parallel-size-local 4 --data-parallel-address $HEAD_IP --reasoning-parser rocket"; got != want {
		t.Errorf("gb200 dep head:\n got %s\nwant %s", got, want)
	}
	if w := r.Role("worker"); w == nil || !strings.Contains(strings.Join(w.Texts(), " "), "--data-parallel-start-rank 4") {
		t.Errorf("gb200 dep worker rank 1 lacks start rank 4")
	}
	if envText(r.Env) != "VLLM_A=1 GLOO_SOCKET_IFNAME=$IFACE_NAME NCCL_SOCKET_IFNAME=$IFACE_NAME" {
		t.Errorf("multi env %s", envText(r.Env))
	}
	// §9.2 pd_nodes: 700 GB does not fit twice in an H200 node → one node per pool.
	r = renderingAt(t, rs, "acme/Rocket-1/strategies/pd_cluster.json")
	if got, want := argv(r, "prefill"), `vllm serve acme/Rocket-1 --trust-remote-code --max-num-seqs 128 --port 8001 --kv-transfer-config {"kv_connector":"NixlConnector","kv_role":"kv_producer"} --tensor-parallel-size 8 --reasoning-parser rocket`; got != want {
		t.Errorf("pd prefill:\n got %s\nwant %s", got, want)
	}
	if got := envText(r.Role("prefill").Env); got != "VLLM_A=1 VLLM_NIXL_SIDE_CHANNEL_PORT=5557 CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7" {
		t.Errorf("pd prefill env on h200 (NCCL_CUMEM_ENABLE dropped): %s", got)
	}
	if !strings.Contains(r.Router, "--prefill http://$PREFILL_NODE_1:8001 \\") || !strings.HasSuffix(r.Router, "--intra-node-data-parallel-size 1") {
		t.Errorf("router %q", r.Router)
	}
	r = renderingAt(t, rs, "acme/Rocket-1/hw/gb200/strategies/pd_cluster.json")
	if got := envText(r.Role("prefill").Env); got != "VLLM_A=1 NCCL_CUMEM_ENABLE=1 VLLM_NIXL_SIDE_CHANNEL_PORT=5557 CUDA_VISIBLE_DEVICES=0,1,2,3" {
		t.Errorf("pd prefill env on gb200: %s", got)
	}
	// Generation block (amd) env.
	r = renderingAt(t, rs, "acme/Rocket-1/hw/mi355x.json")
	if envText(r.Env) != "VLLM_A=1 VLLM_ROCM_USE_AITER=1" {
		t.Errorf("mi355x env %s", envText(r.Env))
	}
	// Promoted nvfp4 tree: Blackwell only, default b200, pools share a node.
	r = renderingAt(t, rs, "acme/Rocket-1-NVFP4.json")
	if r.Hardware != "b200" || r.Variant != "nvfp4" {
		t.Errorf("nvfp4 default hw %s variant %s", r.Hardware, r.Variant)
	}
	if got, want := argv(r, "single"), "vllm serve acme/Rocket-1-NVFP4 --trust-remote-code --max-num-seqs 128 --kv-cache-dtype fp8 --tensor-parallel-size 8 --reasoning-parser rocket"; got != want {
		t.Errorf("nvfp4:\n got %s\nwant %s", got, want)
	}
	r = renderingAt(t, rs, "acme/Rocket-1-NVFP4/strategies/pd_cluster.json")
	if !strings.Contains(argv(r, "decode"), "--tensor-parallel-size 4") || envText(r.Role("decode").Env) != "VLLM_A=1 VLLM_NIXL_SIDE_CHANNEL_PORT=5558 CUDA_VISIBLE_DEVICES=4,5,6,7" {
		t.Errorf("co-located pd decode: %s / %s", argv(r, "decode"), envText(r.Role("decode").Env))
	}
	for _, x := range rs {
		if x.Tree == "acme/Rocket-1-NVFP4" && (x.Hardware == "h200" || x.Hardware == "mi355x") {
			t.Errorf("nvfp4 rendered on %s", x.Hardware)
		}
	}
	// Deployment view.
	d := renderingAt(t, rs, "acme/Rocket-1/strategies/pd_cluster.json").Deployment()
	if d.Engine != "vllm" || d.Model != "acme/Rocket-1" || d.Source.Strategy != "pd_cluster" || len(d.Processes) != 3 ||
		d.Processes[0].Role != launch.RolePrefill || d.Processes[2].Kind != launch.KindVLLMRouter {
		t.Errorf("deployment %+v", d)
	}
	if o := d.Processes[0].Args[0].Origin; o.Kind != launch.OriginRecipe || o.Path != "model.model_id" || o.Detail != "models/acme/Rocket-1.yaml:10:13" {
		t.Errorf("model origin %v", o)
	}
}

func TestIndexMatchFixture(t *testing.T) {
	ix, err := Open(fixtureSite)
	if err != nil {
		t.Fatal(err)
	}
	// The variant is the one serving the checkpoint; GB200 named the
	// InferenceX way.
	cs, err := ix.Match(Query{Framework: "vllm", Model: "acme/Rocket-1-NVFP4", Hardware: "gb200-nvl72", Precision: "fp4", TP: 4})
	if err != nil || len(cs) == 0 || !cs[0].Exact {
		t.Fatalf("nvfp4 gb200: %v %+v", err, cs)
	}
	if c := cs[0]; c.Model != "acme/Rocket-1-NVFP4" || c.Variant != "nvfp4" || c.Strategy != "single_node_tp" || c.Hardware != "gb200" || c.File != "models/acme/Rocket-1.yaml" {
		t.Errorf("nvfp4 gb200: %s", c.Where())
	}
	// Precision only breaks ties: acme/Rocket-1 is the default variant's
	// checkpoint even when InferenceX calls the run fp4.
	cs, _ = ix.Match(Query{Framework: "vllm", Model: "acme/Rocket-1", Hardware: "gb200", Precision: "fp4", TP: 4})
	if len(cs) == 0 || !cs[0].Exact || cs[0].Variant != "default" || cs[0].Checkpoint != "acme/Rocket-1" {
		t.Errorf("fp4 default checkpoint: %+v", cs)
	}
	// DEP8 on GB200 = two 4-GPU trays (multi_node_dep).
	cs, _ = ix.Match(Query{Framework: "dynamo-vllm", Model: "acme/Rocket-1", Hardware: "gb200", Precision: "fp8", TP: 8, EP: 8, DPAttn: true})
	if len(cs) == 0 || !cs[0].Exact || cs[0].Strategy != "multi_node_dep" || cs[0].Topology.GPUs != 8 {
		t.Errorf("DEP8 gb200: %+v", cs)
	}
	// Disaggregated prefill.
	cs, _ = ix.Match(Query{Framework: "dynamo-vllm", Model: "acme/Rocket-1", Hardware: "h200", Precision: "fp8", Role: launch.RolePrefill, TP: 8})
	if len(cs) == 0 || !cs[0].Exact || cs[0].Strategy != "pd_cluster" || cs[0].Role != launch.RolePrefill {
		t.Errorf("prefill: %+v", cs)
	}
	// The guide's hand-written command matches too (after the YAML).
	cs, _ = ix.Match(Query{Model: "acme/Rocket-1", Hardware: "h200", Precision: "fp8", TP: 8})
	var md *Candidate
	for i := range cs {
		if cs[i].Kind == "markdown" {
			md = &cs[i]
		}
	}
	if cs[0].Kind != "yaml" || md == nil || md.Section != "Rocket-1 > Serving on 8xH200" || md.Line != 59 {
		t.Errorf("guide candidate: %+v", md)
	}
	// Nothing on b300: nearest candidate with the reason.
	cs, _ = ix.Match(Query{Model: "acme/Rocket-1", Hardware: "b300", Precision: "fp8", TP: 8})
	if len(cs) != 1 || cs[0].Exact || !reflect.DeepEqual(cs[0].Misses, []string{"hardware: recipe h200, want b300"}) {
		t.Errorf("nearest: %+v", cs)
	}
	// A rendered InferenceX deployment: roles and topology read from args.
	d := launch.Deployment{Model: "acme/Rocket-1", Hardware: "gb200", Processes: []launch.Process{
		{Kind: launch.KindWorker, Role: launch.RolePrefill, Program: "python3 -m dynamo.vllm", Args: []launch.Arg{{Flag: "--model", Values: []string{"acme/Rocket-1"}}, {Flag: "-tp", Values: []string{"4"}}}},
		{Kind: launch.KindWorker, Role: launch.RoleDecode, Program: "python3 -m dynamo.vllm", Args: []launch.Arg{{Flag: "--data-parallel-size", Values: []string{"8"}}, {Flag: "--enable-expert-parallel"}}},
	}}
	rms, err := ix.MatchDeployment(&d, "dynamo-vllm", "fp8")
	if err != nil || len(rms) != 2 {
		t.Fatalf("MatchDeployment: %v %d", err, len(rms))
	}
	if !rms[0].Covered() || rms[0].Candidates[0].Strategy != "pd_cluster" {
		t.Errorf("prefill TP4 on gb200: %+v", rms[0].Candidates[0])
	}
	// The site's decode pool pills: DEP on 2 nodes.
	if c := rms[1].Candidates[0]; !rms[1].Covered() || c.Strategy != "pd_cluster" || c.Topology.String() != "DEP8" ||
		c.Query.Decode != (PoolPick{Mode: "dep", Nodes: 2}) || c.URL != "" || // every feature off: no URL reaches it

		!strings.Contains(c.Command, "--data-parallel-size 8 \\\n  --data-parallel-size-local 4") {
		t.Errorf("decode DEP8 on gb200: %s %s\n%s", c.Where(), c.URL, c.Command)
	}
	if _, err := ix.Match(Query{Framework: "sglang", Model: "acme/Rocket-1"}); !errors.Is(err, ErrNotVLLM) {
		t.Errorf("sglang: %v", err)
	}
}

func TestNormalizeArgs(t *testing.T) {
	in := []launch.Arg{
		{Values: []string{"org/m"}},
		{Flag: "-tp=8"},
		{Flag: "--tensor_parallel_size", Values: []string{"4"}},
		{Flag: "-O3"},
		{Flag: "--speculative-config", Values: []string{`{"num_speculative_tokens": 3, "method": "mtp", "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.5}`}},
		{Flag: "--attention_config.use_fp4_indexer_cache=True"},
		{Flag: "--limit-mm-per-prompt.video", Values: []string{"0"}},
	}
	out, syn := NormalizeArgs(in)
	got := map[string]string{}
	var order []string
	for _, a := range out {
		got[a.Flag] = strings.Join(a.Values, " ")
		order = append(order, a.Flag)
	}
	want := map[string]string{
		"--model": "org/m", "--tensor-parallel-size": "4", "--optimization-level": "3",
		"--speculative-config":  `{"method":"mtp","num_speculative_tokens":3}`,
		"--attention-config":    `{"use_fp4_indexer_cache":true}`,
		"--limit-mm-per-prompt": `{"video":0}`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("normalised\n got %v\nwant %v", got, want)
	}
	if order[1] != "--tensor-parallel-size" {
		t.Errorf("last wins keeps the last position: %v", order)
	}
	if !reflect.DeepEqual(syn, []string{"--speculative-config.rejection_sample_method", "--speculative-config.synthetic_acceptance_length"}) {
		t.Errorf("synthetic keys %v", syn)
	}
	if tp := TopologyOf(out); tp.TP != 4 || tp.Mode != "tp" || tp.GPUs != 4 {
		t.Errorf("topology %+v", tp)
	}
	for _, c := range []struct {
		q, r string
		ok   bool
	}{{"fp4", "nvfp4", true}, {"fp4", "mxfp4", true}, {"fp8", "fp8", true}, {"fp8", "nvfp4", false}, {"bf16", "fp8", false}} {
		if PrecisionMatches(c.q, c.r) != c.ok {
			t.Errorf("PrecisionMatches(%s,%s)", c.q, c.r)
		}
	}
	for in, want := range map[string]string{"cluster:gb300-nv": "gb300", "b200-dgxc": "b200", "mi355x-disagg": "mi355x", "h200": "h200", "B300": "b300"} {
		if got := NormalizeHardware(in); got != want {
			t.Errorf("NormalizeHardware(%s) = %s", in, got)
		}
	}
}

// TestMatchRemembered: Match answers a query it answered before from its
// memo with what a new Index answers (the fields Match reads are the key:
// another topology or role is another answer), as a copy a caller may
// edit; an error names each query's own config key.
func TestMatchRemembered(t *testing.T) {
	ix, err := Open(fixtureSite)
	if err != nil {
		t.Fatal(err)
	}
	qs := []Query{
		{ConfigKey: "a", Framework: "vllm", Model: "acme/Rocket-1-NVFP4", Hardware: "gb200-nvl72", Precision: "fp4", TP: 4},
		{ConfigKey: "b", Framework: "dynamo-vllm", Model: "acme/Rocket-1", Hardware: "gb200", Precision: "fp8", TP: 8, EP: 8, DPAttn: true},
		{ConfigKey: "c", Framework: "dynamo-vllm", Model: "acme/Rocket-1", Hardware: "gb200", Precision: "fp8", Topology: &Topology{TP: 8, DP: 1, PP: 1, GPUs: 8, Mode: "tp"}},
		{ConfigKey: "d", Framework: "dynamo-vllm", Model: "acme/Rocket-1", Hardware: "h200", Precision: "fp8", Role: launch.RolePrefill, TP: 8},
		{ConfigKey: "e", Framework: "dynamo-vllm", Model: "acme/Rocket-1", Hardware: "h200", Precision: "fp8", Role: launch.RoleDecode, TP: 8},
		{ConfigKey: "f", Model: "acme/Rocket-1", Hardware: "b300", Precision: "fp8", TP: 8},
	}
	for round := range 2 {
		for _, q := range qs {
			fresh, err := Open(fixtureSite)
			if err != nil {
				t.Fatal(err)
			}
			want, err1 := fresh.Match(q)
			got, err2 := ix.Match(q)
			// (each index's own rendering behind the candidate)
			strip := func(cs []Candidate) []Candidate {
				out := slices.Clone(cs)
				for i := range out {
					out[i].rendering = nil
				}
				return out
			}
			if err1 != nil || err2 != nil || !reflect.DeepEqual(strip(got), strip(want)) {
				t.Fatalf("round %d, query %s: remembered %+v (%v), new %+v (%v)", round, q.ConfigKey, got, err2, want, err1)
			}
			// edit the answer: the next one is unchanged
			got[0].Misses = append(got[0].Misses, "edited")
			got[0].Deployment.Processes[0].Args[0].Values[0] = "edited"
		}
	}
	if n := len(ix.matches.m); n != len(qs) {
		t.Errorf("%d answers remembered, want %d (one per query)", n, len(qs))
	}
	for _, k := range []string{"x", "y"} {
		if _, err := ix.Match(Query{ConfigKey: k, Framework: "vllm"}); err == nil || !strings.Contains(err.Error(), "query "+k+":") {
			t.Errorf("query %s without a model: %v", k, err)
		}
	}
}
