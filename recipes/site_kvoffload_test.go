package recipes

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

var kvFixture = filepath.Join("testdata", "kvoffload")

// kvSelections is the selection space of recipe id's default variant on
// hw, as Index.spaceEntries renders it (before the JSON API dedupe).
func kvSelections(t *testing.T, ix *Index, id, hw string) []*Rendering {
	t.Helper()
	for _, r := range ix.site.Recipes {
		if r.HFID != id {
			continue
		}
		vn := get(get(r.root, "variants"), "default")
		x := &rctx{s: ix.site, t: treeSpec{id: r.HFID, recipe: r, variant: "default"}, r: r, v: "default", vn: vn,
			hw: ix.site.hwByID[hw], pc: posCache{site: ix.site, m: map[*yaml.Node]launch.Origin{}}, kvOpts: ix.site.kvOffload}
		return x.selections(x.setup())
	}
	t.Fatalf("no recipe %s", id)
	return nil
}

const (
	simpleKV  = `{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use_per_rank":1024,"lazy_offload":false}}`
	fsKV      = `{"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"spec_name":"TieringOffloadingSpec","cpu_bytes_to_use":2048}}`
	lmcacheKV = `{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both","kv_connector_extra_config":{"lmcache.mp.port":5555}}`
)

// kvOffered lists "strategy@nodes:option" of the non-PD selections (option
// "" for none), in selection order.
func kvOffered(rs []*Rendering) []string {
	var out []string
	for _, r := range rs {
		if r.DeployType != "pd_cluster" {
			out = append(out, fmt.Sprintf("%s@%d:%s", r.Strategy, r.NodeCount, r.KVOffload))
		} else if r.KVOffload != "" {
			out = append(out, "pd_cluster:"+r.KVOffload)
		}
	}
	return out
}

// TestKVOffloadSelections: the KV Offload row composes Simple with every
// non-PD strategy, LMCache only with its `strategies`, the opt-in
// filesystem tier only where the recipe verified it and on its brands,
// nothing on Intel XPU or under pd_cluster; the option's args come last
// (every rank), its env after the strategy's, and the URL carries
// kv_offload.
func TestKVOffloadSelections(t *testing.T) {
	ix, err := Open(kvFixture)
	if err != nil {
		t.Fatal(err)
	}
	rs := kvSelections(t, ix, "acme/Comet-1", "h200")
	if got, want := kvOffered(rs), []string{
		"single_node_tp@1:", "single_node_tp@1:simple", "single_node_tp@1:offloading_fs", "single_node_tp@1:lmcache",
		"multi_node_tp@2:", "multi_node_tp@2:simple", "multi_node_tp@2:offloading_fs",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("h200 offered\n got %v\nwant %v", got, want)
	}
	pick := func(rs []*Rendering, strategy, kvo string) *Rendering {
		t.Helper()
		for _, r := range rs {
			if r.Strategy == strategy && r.KVOffload == kvo {
				return r
			}
		}
		t.Fatalf("no %s %q rendering", strategy, kvo)
		return nil
	}
	r := pick(rs, "single_node_tp", "simple")
	if got, want := strings.Join(r.Roles[0].Texts(), " "), "vllm serve acme/Comet-1 --max-model-len 8192 --tensor-parallel-size 8 --kv-transfer-config "+simpleKV; got != want {
		t.Errorf("simple argv\n got %s\nwant %s", got, want)
	}
	if r.URL != "https://recipes.vllm.ai/acme/Comet-1?hardware=h200&kv_offload=simple" || r.Query.KVOffload != "simple" ||
		len(r.Paths) != 0 || r.Companion != "" || envText(r.Env) != "VLLM_A=1" {
		t.Errorf("simple: url %s query %+v paths %v companion %q env %s", r.URL, r.Query, r.Paths, r.Companion, envText(r.Env))
	}
	if o := r.Roles[0].Argv[len(r.Roles[0].Argv)-1].Origin; o.Path != "taxonomy.yaml" || o.Detail != "taxonomy.yaml:27:9" {
		t.Errorf("simple arg origin %+v", o)
	}
	r = pick(rs, "single_node_tp", "lmcache")
	if got := r.Roles[0].Texts(); got[len(got)-1] != lmcacheKV || r.URL != "https://recipes.vllm.ai/acme/Comet-1?hardware=h200&kv_offload=lmcache" {
		t.Errorf("lmcache: %v %s", got, r.URL)
	}
	if want := "# --port must match \"lmcache.mp.port\".\nlmcache server \\\n  --port 5555"; r.Companion != want {
		t.Errorf("lmcache companion %q", r.Companion)
	}
	// Multi-node: every rank carries the connector; the option's env
	// follows the strategy's and overrides base_env in place.
	r = pick(rs, "multi_node_tp", "offloading_fs")
	for _, rc := range r.Roles {
		if got := rc.Texts(); got[len(got)-2] != "--kv-transfer-config" || got[len(got)-1] != fsKV {
			t.Errorf("fs %s rank %d: %v", rc.Name, rc.Rank, got)
		}
	}
	if got, want := envText(r.Env), "VLLM_A=2 GLOO_SOCKET_IFNAME=$IFACE_NAME PYTHONHASHSEED=0"; got != want {
		t.Errorf("fs env %q, want %q", got, want)
	}
	if r.URL != "https://recipes.vllm.ai/acme/Comet-1?hardware=h200&nodes=2&kv_offload=offloading_fs" {
		t.Errorf("fs url %s", r.URL)
	}

	// Intel XPU: the row is off. Google TPU: no filesystem tier (brands).
	if got, want := kvOffered(kvSelections(t, ix, "acme/Comet-1", "arc")), []string{"single_node_tp@1:", "multi_node_tp@2:"}; !reflect.DeepEqual(got, want) {
		t.Errorf("arc offered %v, want %v", got, want)
	}
	if got, want := kvOffered(kvSelections(t, ix, "acme/Comet-1", "tpu7")), []string{
		"single_node_tp@1:", "single_node_tp@1:simple", "single_node_tp@1:lmcache", "multi_node_tp@2:", "multi_node_tp@2:simple",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("tpu7 offered %v, want %v", got, want)
	}
	// kv_offload_support: simple "unsupported" opts out; the opt-in
	// filesystem tier is not verified by this recipe.
	if got, want := kvOffered(kvSelections(t, ix, "acme/Dust-1", "h200")), []string{
		"single_node_tp@1:", "single_node_tp@1:lmcache", "multi_node_tp@2:",
	}; !reflect.DeepEqual(got, want) {
		t.Errorf("Dust-1 offered %v, want %v", got, want)
	}
}

// TestMatchDeploymentKVOffload: a worker running an offload connector is
// matched with the rendering of that KV Offload option (with the features
// it uses); a worker without one, or with a Mooncake connector, keeps the
// rendering without it and sees no offload candidate.
func TestMatchDeploymentKVOffload(t *testing.T) {
	ix, err := Open(kvFixture)
	if err != nil {
		t.Fatal(err)
	}
	tp8 := flag("--tensor-parallel-size", "8")
	match := func(args ...launch.Arg) []Candidate {
		t.Helper()
		rms, err := ix.MatchDeployment(meteorWorker("acme/Comet-1", "h200", args...), "vllm", "bf16")
		if err != nil || len(rms) != 1 || !rms[0].Covered() {
			t.Fatalf("MatchDeployment: %v %+v", err, rms)
		}
		return rms[0].Candidates
	}
	// InferenceX's own sizing of the same connector.
	cs := match(tp8, flag("--kv-transfer-config", `{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use_per_rank":99}}`))
	c := cs[0]
	if c.Strategy != "single_node_tp" || c.Query.KVOffload != "simple" || c.CustomFeatures ||
		c.URL != "https://recipes.vllm.ai/acme/Comet-1?hardware=h200&kv_offload=simple" ||
		c.Where() != "models/acme/Comet-1.yaml variant=default strategy=single_node_tp hw=h200 role=agg kv_offload=simple" {
		t.Fatalf("simple: %s %s %+v", c.Where(), c.URL, c.Query)
	}
	if got, want := workerArgv(&c), "acme/Comet-1 --max-model-len 8192 --tensor-parallel-size 8 --kv-transfer-config "+simpleKV; got != want {
		t.Errorf("simple argv\n got %s\nwant %s", got, want)
	}
	if !strings.HasSuffix(c.Command, " \\\n  --kv-transfer-config '"+simpleKV+"'") {
		t.Errorf("simple command %s", c.Command)
	}
	for _, c := range cs {
		if c.Query.KVOffload != "" && c.Query.KVOffload != "simple" {
			t.Errorf("simple worker: candidate %s", c.Where())
		}
	}
	// LMCache with spec decoding: both composed.
	c = match(tp8, flag("--kv-transfer-config", lmcacheKV), flag("--speculative-config", `{"method":"mtp","num_speculative_tokens":1}`))[0]
	if c.Query.KVOffload != "lmcache" || !c.CustomFeatures ||
		c.URL != "https://recipes.vllm.ai/acme/Comet-1?hardware=h200&features=spec_decoding&kv_offload=lmcache" {
		t.Errorf("lmcache+mtp: %s %s", c.Where(), c.URL)
	}
	if got, want := workerArgv(&c), `acme/Comet-1 --max-model-len 8192 --tensor-parallel-size 8 --speculative-config {"method":"mtp","num_speculative_tokens":1} --kv-transfer-config `+lmcacheKV; got != want {
		t.Errorf("lmcache+mtp argv\n got %s\nwant %s", got, want)
	}
	// OffloadingConnector: the filesystem tier (the one offered here).
	c = match(tp8, flag("--kv-transfer-config", fsKV))[0]
	if c.Query.KVOffload != "offloading_fs" {
		t.Errorf("fs: %s", c.Where())
	}
	if v, _ := launch.LookupEnv(c.Deployment.Processes[c.Process].Env, "PYTHONHASHSEED"); v != "0" {
		t.Errorf("fs env %v", c.Deployment.Processes[c.Process].Env)
	}
	// No offload connector, or Mooncake's: the plain rendering, and no
	// offload candidate at all.
	for name, args := range map[string][]launch.Arg{
		"none":     {tp8},
		"mooncake": {tp8, flag("--kv-transfer-config", `{"kv_connector":"MooncakeStoreConnector","kv_role":"kv_both"}`)},
	} {
		cs := match(args...)
		if c := cs[0]; c.Strategy != "single_node_tp" || c.Query.KVOffload != "" || c.URL != "https://recipes.vllm.ai/acme/Comet-1?hardware=h200" {
			t.Errorf("%s: first %s %s", name, c.Where(), c.URL)
		}
		for _, c := range cs {
			if c.Query.KVOffload != "" {
				t.Errorf("%s: offload candidate %s", name, c.Where())
			}
		}
	}
	// Match (no worker args) ranks offload renderings after the others.
	tp := QueryTopology(8, 0, 0, false)
	ms, err := ix.Match(Query{Model: "acme/Comet-1", Hardware: "h200", Topology: &tp})
	if err != nil || len(ms) != 4 || ms[0].Query.KVOffload != "" ||
		ms[1].Query.KVOffload != "simple" || ms[2].Query.KVOffload != "offloading_fs" || ms[3].Query.KVOffload != "lmcache" {
		t.Errorf("Match: %v", func() []string {
			var w []string
			for _, c := range ms {
				w = append(w, c.Where())
			}
			return w
		}())
	}
}

// TestSiteQueryURLKVOffload: kv_offload follows the other params, the way
// syncUrl writes it.
func TestSiteQueryURLKVOffload(t *testing.T) {
	q := SiteQuery{Page: "deepseek-ai/DeepSeek-V4-Pro", Hardware: "b200", Variant: "fp8", Strategy: "single_node_tp", Nodes: 1,
		Features: []string{"tool_calling"}, KVOffload: "simple", recommended: "single_node_dep"}
	if got, want := q.URL(), "https://recipes.vllm.ai/deepseek-ai/DeepSeek-V4-Pro?hardware=b200&variant=fp8&strategy=single_node_tp&features=tool_calling&kv_offload=simple"; got != want {
		t.Errorf("URL\n got %s\nwant %s", got, want)
	}
}

// TestCorpusKVOffload: DeepSeek-V4-Pro fp8 on B200, single_node_tp with
// the Simple KV Offload pick, carries the site's SimpleCPUOffloadConnector
// config (taxonomy.yaml kv_offload.simple) and is the match of a TP8
// worker running that connector.
func TestCorpusKVOffload(t *testing.T) {
	root := recipesRoot(t)
	ix, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use_per_rank":236223201280,"lazy_offload":false}}`
	d := meteorWorker("deepseek-ai/DeepSeek-V4-Pro", "b200", flag("--tensor-parallel-size", "8"),
		flag("--tokenizer-mode", "deepseek_v4"), flag("--tool-call-parser", "deepseek_v4"), flag("--enable-auto-tool-choice"),
		flag("--reasoning-parser", "deepseek_v4"),
		flag("--kv-transfer-config", `{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use_per_rank":356125000000,"lazy_offload":false}}`))
	rms, err := ix.MatchDeployment(d, "vllm", "fp8")
	if err != nil || len(rms) != 1 || !rms[0].Covered() {
		t.Fatalf("MatchDeployment: %v %+v", err, rms)
	}
	c := rms[0].Candidates[0]
	if c.Variant != "fp8" || c.Hardware != "b200" || c.Strategy != "single_node_tp" || c.Query.KVOffload != "simple" {
		t.Fatalf("dsv4 simple: %s", c.Where())
	}
	if v, ok := launch.Lookup(c.Deployment.Processes[c.Process].Args, "--kv-transfer-config"); !ok || len(v) != 1 || v[0] != want {
		t.Errorf("dsv4 simple --kv-transfer-config %v\nwant %s", v, want)
	}
	if !strings.Contains(c.Command, "--kv-transfer-config '"+want+"'") {
		t.Errorf("dsv4 simple command:\n%s", c.Command)
	}
	if c.URL != "https://recipes.vllm.ai/deepseek-ai/DeepSeek-V4-Pro?hardware=b200&variant=fp8&strategy=single_node_tp&kv_offload=simple" {
		t.Errorf("dsv4 simple URL %s", c.URL)
	}
	// The same worker without the connector keeps the plain rendering.
	d = meteorWorker("deepseek-ai/DeepSeek-V4-Pro", "b200", flag("--tensor-parallel-size", "8"))
	rms, err = ix.MatchDeployment(d, "vllm", "fp8")
	if err != nil || len(rms) != 1 || !rms[0].Covered() {
		t.Fatalf("MatchDeployment plain: %v %+v", err, rms)
	}
	for _, c := range rms[0].Candidates {
		if c.Query.KVOffload != "" && !strings.HasPrefix(c.Query.KVOffload, "kv_store") {
			t.Errorf("plain worker: offload candidate %s", c.Where())
		}
	}
	if c := rms[0].Candidates[0]; c.Strategy != "single_node_tp" || c.Query.KVOffload != "" {
		t.Errorf("plain worker: first %s", c.Where())
	}
}
