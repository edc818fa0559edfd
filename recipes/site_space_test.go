package recipes

import (
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TestSiteQueryURL: the URL carries only what syncUrl keeps — no
// "default" variant, no recommended strategy, no 1-node count, no default
// pools — form-encoded as URLSearchParams does.
func TestSiteQueryURL(t *testing.T) {
	q := SiteQuery{Page: "moonshotai/Kimi-K3", Hardware: "gb200", Variant: "default", Strategy: "multi_node_tep", Nodes: 2,
		Features: []string{"tool_calling", "spec_decoding"}, FMode: []string{"spec_decoding:dspark"}, recommended: "multi_node_dep"}
	if got, want := q.URL(), "https://recipes.vllm.ai/moonshotai/Kimi-K3?hardware=gb200&strategy=multi_node_tep&nodes=2&features=tool_calling%2Cspec_decoding&fmode=spec_decoding%3Adspark"; got != want {
		t.Errorf("URL\n got %s\nwant %s", got, want)
	}
	// No URL opens the page at 4 nodes (CommandBuilder keeps ?nodes only
	// when it is 1 or 2) or with every feature off (an empty features
	// param is dropped): no link rather than a link to another command.
	q.Nodes = 4
	if got := q.URL(); got != "" {
		t.Errorf("4 nodes: URL %s, want none", got)
	}
	q.Nodes, q.Features = 1, []string{}
	if got := q.URL(); got != "" {
		t.Errorf("every feature off: URL %s, want none", got)
	}
	q = SiteQuery{Page: "a/b", Hardware: "b200", Variant: "fp8", Strategy: "single_node_tep", Nodes: 1, recommended: "single_node_tep"}
	if got, want := q.URL(), "https://recipes.vllm.ai/a/b?hardware=b200&variant=fp8"; got != want {
		t.Errorf("URL %s, want %s", got, want)
	}
	q = SiteQuery{Page: "a/b", Hardware: "gb300", Strategy: "pd_cluster", Nodes: 1, recommended: "single_node_tp",
		Prefill: PoolPick{"tp", 2}, Decode: PoolPick{"dep", 1}, defPrefill: PoolPick{"tp", 1}, defDecode: PoolPick{"dep", 1}}
	if got, want := q.URL(), "https://recipes.vllm.ai/a/b?hardware=gb300&strategy=pd_cluster&prefill_nodes=2"; got != want {
		t.Errorf("URL %s, want %s", got, want)
	}
	if got := (SiteQuery{}).URL(); got != "" {
		t.Errorf("empty query URL %q", got)
	}
}

// TestTopologyExact: every size counts, and TP×DP with EP is not DEP.
func TestTopologyExact(t *testing.T) {
	args := func(kv ...string) []launch.Arg {
		var out []launch.Arg
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				out = append(out, launch.Arg{Flag: kv[i]})
				continue
			}
			out = append(out, launch.Arg{Flag: kv[i], Values: []string{kv[i+1]}})
		}
		return out
	}
	tp8pp2 := TopologyOf(args("--tensor-parallel-size", "8", "--pipeline-parallel-size", "2"))
	tp4pp4 := TopologyOf(args("--tensor-parallel-size", "4", "--pipeline-parallel-size", "4"))
	if tp8pp2.Same(tp4pp4) || tp8pp2.GPUs != tp4pp4.GPUs || tp8pp2.String() != "TP8(pp2)" || tp4pp4.String() != "TP4(pp4)" {
		t.Errorf("pp: %s %s same=%v", tp8pp2, tp4pp4, tp8pp2.Same(tp4pp4))
	}
	tdep := TopologyOf(args("-tp", "4", "--data-parallel-size", "4", "--enable-expert-parallel", ""))
	dep := TopologyOf(args("--data-parallel-size", "16", "--enable-expert-parallel", ""))
	if tdep.Mode != "tp_dep" || tdep.String() != "TP4×DEP4" || dep.String() != "DEP16" || tdep.Same(dep) {
		t.Errorf("dp+ep: %s (%s) vs %s", tdep, tdep.Mode, dep)
	}
	if q := QueryTopology(16, 16, 0, true); !q.Same(dep) {
		t.Errorf("dp-attn query %+v vs %+v", q, dep)
	}
	if q := QueryTopology(4, 4, 4, false); !q.Same(tdep) {
		t.Errorf("tp4 ep4 dp4 query %+v vs %+v", q, tdep)
	}
	if s := TopologyOf(args("-tp", "4", "--data-parallel-size", "2")).String(); s != "TP4×DP2" {
		t.Errorf("tp_dp %s", s)
	}
}

// TestCorpusSelectionSpace: the selections the site offers beyond its
// JSON files — the fp8 variant (no model_id of its own) serving
// deepseek-ai/DeepSeek-V4-Pro, a PD decode pool of TP8 over two GB200
// trays, Kimi-K3 TEP16 on four trays — match exactly, with the page URL of
// the selection and the command the site shows.
func TestCorpusSelectionSpace(t *testing.T) {
	ix, err := Open(recipesRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	tp8 := QueryTopology(8, 0, 0, false)
	cs, err := ix.Match(Query{Framework: "dynamo-vllm", Model: "deepseek-ai/DeepSeek-V4-Pro", Hardware: "gb200", Precision: "fp4",
		Role: launch.RoleDecode, Topology: &tp8})
	if err != nil || len(cs) == 0 || !cs[0].Exact {
		t.Fatalf("dsv4 decode TP8: %v %+v", err, cs)
	}
	c := cs[0]
	if c.Variant != "fp8" || c.Checkpoint != "deepseek-ai/DeepSeek-V4-Pro" || c.Strategy != "pd_cluster" || c.Topology.String() != "TP8" ||
		c.Query.Decode != (PoolPick{"tp", 2}) ||
		c.URL != "https://recipes.vllm.ai/deepseek-ai/DeepSeek-V4-Pro?hardware=gb200&variant=fp8&strategy=pd_cluster&decode_mode=tp" ||
		!strings.HasPrefix(c.Command, "vllm serve deepseek-ai/DeepSeek-V4-Pro \\\n") ||
		!strings.Contains(c.Command, "--tensor-parallel-size 8 \\\n  --nnodes 2 \\\n  --node-rank 0 \\\n  --master-addr $DECODE_NODE_1") {
		t.Errorf("dsv4 decode TP8: %s\n%s\n%s", c.Where(), c.URL, c.Command)
	}
	// The NVFP4 checkpoint is not the one InferenceX serves: never exact.
	for _, c := range cs {
		if c.Variant == "nvfp4" || c.Variant == "default" {
			t.Errorf("exact candidate of another checkpoint: %s", c.Where())
		}
	}
	tep16 := QueryTopology(16, 16, 0, false)
	cs, _ = ix.Match(Query{Framework: "dynamo-vllm", Model: "moonshotai/Kimi-K3", Hardware: "gb200", Precision: "fp4", Topology: &tep16})
	if len(cs) == 0 || !cs[0].Exact || cs[0].Strategy != "multi_node_tep" || cs[0].Query.Nodes != 4 || cs[0].URL != "" {
		t.Errorf("kimi-k3 TEP16: %+v", cs)
	}
	// TP4×DP4+EP is neither DEP16 nor TEP16: nothing exact.
	tdep := QueryTopology(4, 4, 4, false)
	cs, _ = ix.Match(Query{Framework: "dynamo-vllm", Model: "moonshotai/Kimi-K3", Hardware: "gb200", Precision: "fp4", Topology: &tdep})
	if len(cs) == 0 || cs[0].Exact {
		t.Errorf("kimi-k3 TP4×DEP4: %+v", cs)
	}
}
