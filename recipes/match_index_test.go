package recipes

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// infxQueries reads the vLLM-family keys of the InferenceX master configs
// (configs/*-master.yaml) into one Query per search-space row and role.
func infxQueries(t testing.TB, dir string) (keys []string, qs map[string][]Query) {
	qs = map[string][]Query{}
	files, _ := filepath.Glob(filepath.Join(dir, "configs", "*-master.yaml"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		for _, kv := range pairs(deref(&doc)) {
			e := kv.val
			fw := strOr(get(e, "framework"), "")
			if !VLLMFamily(fw) {
				continue
			}
			base := Query{ConfigKey: kv.key, Framework: fw, Model: strOr(get(e, "model"), ""),
				Hardware: strOr(get(e, "runner"), ""), Precision: strOr(get(e, "precision"), "")}
			keys = append(keys, kv.key)
			for _, sc := range pairs(get(e, "scenarios")) {
				for _, s := range seq(sc.val) {
					for _, row := range seq(get(s, "search-space")) {
						mk := func(n *yaml.Node, role launch.Role) Query {
							q := base
							q.Role = role
							tp, _ := num(get(n, "tp"))
							ep, _ := num(get(n, "ep"))
							q.TP, q.EP = int(tp), int(ep)
							q.DPAttn = truthy(get(n, "dp-attn"))
							return q
						}
						if get(row, "prefill") != nil {
							qs[kv.key] = append(qs[kv.key], mk(get(row, "prefill"), launch.RolePrefill), mk(get(row, "decode"), launch.RoleDecode))
						} else {
							qs[kv.key] = append(qs[kv.key], mk(row, launch.RoleAgg))
						}
					}
				}
			}
		}
	}
	sort.Strings(keys)
	return keys, qs
}

// TestCorpusMatchInferenceX matches every role of the vLLM-family keys of
// the InferenceX master configs against the vllm-recipes corpus and reports
// the verdict counts and the gaps with their nearest candidate.
func TestCorpusMatchInferenceX(t *testing.T) {
	root := recipesRoot(t)
	infx := testutil.SharedPath(t, "corpus/inferencex")
	ix, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	keys, qs := infxQueries(t, infx)
	if len(keys) == 0 {
		t.Fatalf("%s: no vLLM-family keys in configs/*-master.yaml", infx)
	}
	var rolesExact, rolesNearest, keysCovered, keysGap int
	for _, k := range keys {
		seen := map[string]bool{}
		gap := false
		for _, q := range qs[k] {
			id := string(q.Role) + QueryTopology(q.TP, q.EP, q.DP, q.DPAttn).String()
			if seen[id] {
				continue
			}
			seen[id] = true
			cs, err := ix.Match(q)
			if err != nil {
				t.Errorf("%s: %v", k, err)
				continue
			}
			if len(cs) == 0 {
				t.Errorf("%s %s: no candidate at all", k, id)
				continue
			}
			if cs[0].Exact {
				rolesExact++
				t.Logf("covered %s [%s]: %s", k, id, cs[0].Where())
				continue
			}
			rolesNearest++
			gap = true
			t.Logf("gap %s [%s %s %s %s]: nearest %s (%s)", k, q.Model, q.Hardware, q.Precision, id, cs[0].Where(), strings.Join(cs[0].Misses, "; "))
		}
		if gap {
			keysGap++
		} else {
			keysCovered++
		}
	}
	t.Logf("index: %d recipe roles; vLLM-family keys %d: covered %d, gap %d; distinct roles: exact %d, nearest only %d",
		ix.Len(), len(keys), keysCovered, keysGap, rolesExact, rolesNearest)
}

// TestMatchNearestTopology: when no selection has the wanted layout, the
// nearest is the one whose TP, DP and PP sizes and expert parallelism are
// closest (topoDistance), not the recommended strategy of the same GPU
// count: a TP4×DEP4 worker on four GB200 trays is nearest to
// multi_node_tp_dp's TP4×DP4 (only EP differs), where the recommended
// multi_node_tp came first before; a TP4 PP2 worker to multi_node_tp_pp's
// TP4(pp4). An exact layout is still exact.
func TestMatchNearestTopology(t *testing.T) {
	ix, err := Open(filepath.Join("testdata", "nearest"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		topo  Topology
		want  []string
		exact bool
	}{
		{Topology{TP: 4, DP: 4, PP: 1, EP: true, GPUs: 16, Mode: "tp_dep"}, []string{"multi_node_tp_dp", "multi_node_tp", "multi_node_tp_pp"}, false},
		// mode tp is scored first (TP16 and TP4(pp4) are tp), then distance
		{Topology{TP: 4, DP: 1, PP: 2, GPUs: 8, Mode: "tp"}, []string{"multi_node_tp_pp", "multi_node_tp", "multi_node_tp_dp"}, false},
		{Topology{TP: 4, DP: 4, PP: 1, GPUs: 16, Mode: "tp_dp"}, []string{"multi_node_tp_dp"}, true},
	} {
		topo := c.topo
		cs, err := ix.Match(Query{Model: "acme/Nova-1", Hardware: "gb200", Role: launch.RoleAgg, Topology: &topo, Nearest: 3})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range cs {
			got = append(got, x.Strategy)
			if x.Exact != c.exact {
				t.Errorf("%s: %s exact %v", topo, x.Strategy, x.Exact)
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: candidates %v, want %v", topo, got, c.want)
		}
	}
}

// TestCorpusNearestTPDP: on the real Kimi-K3 recipe, InferenceX's GB200
// TP4×DEP4 agentic worker (kimik3-fp4-gb200-dynamo-vllm-agentic) is
// nearest to the TP4·DP4 layout the recipe names for GB200 trays
// (multi_node_tp_dp), not to TP+PP.
func TestCorpusNearestTPDP(t *testing.T) {
	ix, err := Open(recipesRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	topo := Topology{TP: 4, DP: 4, PP: 1, EP: true, GPUs: 16, Mode: "tp_dep"}
	cs, err := ix.Match(Query{Model: "moonshotai/Kimi-K3", Hardware: "gb200", Precision: "fp4", Role: launch.RoleAgg, Topology: &topo})
	if err != nil || len(cs) != 1 {
		t.Fatalf("%v %+v", err, cs)
	}
	if c := cs[0]; c.Exact || c.Strategy != "multi_node_tp_dp" || c.Topology.String() != "TP4×DP4" {
		t.Errorf("nearest %s %s exact %v", c.Where(), c.Topology, c.Exact)
	}
}
