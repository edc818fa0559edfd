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
