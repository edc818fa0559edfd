package recipes

import (
	"regexp"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestPoolModes pins pdPoolModes of vllm-project/recipes
// src/lib/command-synthesis.js: a strategy's family is read from its name
// with the anchored patterns (^|_)dep$, (^|_)tep$, (^|_)tp(_pp|_dp)?$ —
// "xdep" is no DEP strategy, "tp_pp" is TP — ordered tp, tep, dep, [tp]
// when none, narrowed by strategy_overrides.pd_cluster.pool_modes unless
// that leaves nothing.
func TestPoolModes(t *testing.T) {
	for _, c := range []struct {
		offered []string
		pool    string // strategy_overrides.pd_cluster.pool_modes (flow YAML)
		want    []string
	}{
		{[]string{"multi_node_dep", "single_node_tep", "single_node_tp", "pd_cluster"}, "", []string{"tp", "tep", "dep"}},
		{[]string{"xdep", "single_node_xtep"}, "", []string{"tp"}},
		{[]string{"tp_pp", "dep"}, "", []string{"tp", "dep"}},
		{[]string{"single_node_tp_dp", "multi_node_tep"}, "", []string{"tp", "tep"}},
		{[]string{"single_node_tp", "multi_node_dep"}, "[dep]", []string{"dep"}},
		{[]string{"single_node_tp"}, "[dep]", []string{"tp"}},
		{nil, "", []string{"tp"}},
	} {
		var root yaml.Node
		src := "model: {}"
		if c.pool != "" {
			src = "strategy_overrides: {pd_cluster: {pool_modes: " + c.pool + "}}"
		}
		if err := yaml.Unmarshal([]byte(src), &root); err != nil {
			t.Fatal(err)
		}
		x := &rctx{r: &Recipe{yamlDoc: yamlDoc{root: root.Content[0]}}, offered: c.offered}
		if got := x.poolModes(); !slices.Equal(got, c.want) {
			t.Errorf("offered %v pool_modes %q: %v, want %v", c.offered, c.pool, got, c.want)
		}
	}
}

// TestFamilyEnd: familyEnd gives what the site's anchored patterns give
// for every name, tricky ones included.
func TestFamilyEnd(t *testing.T) {
	pats := []struct {
		re    *regexp.Regexp
		words []string
	}{
		{regexp.MustCompile(`(?:^|_)dep$`), []string{"dep"}},
		{regexp.MustCompile(`(?:^|_)tep$`), []string{"tep"}},
		{regexp.MustCompile(`(?:^|_)tp(?:_pp|_dp)?$`), []string{"tp", "tp_pp", "tp_dp"}},
	}
	names := []string{"", "dep", "tep", "tp", "xdep", "x_dep", "dep_x", "_dep", "dep\n", "tp_pp", "a_tp_dp", "tp_pp_x",
		"_tp", "ep", "tp_ep", "a__tp", "tpx", "xtp_pp", "x_tp_pp", "pd_cluster", "dp_tep", "tep_dep", "TP", "t_p"}
	for _, p := range pats {
		for _, n := range names {
			if got, want := familyEnd(n, p.words...), p.re.MatchString(n); got != want {
				t.Errorf("familyEnd(%q, %q) = %v, the pattern %v", n, p.words, got, want)
			}
		}
	}
}
