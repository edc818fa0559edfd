package coverage

import (
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// One selection covers the roles of a row: never a prefill of one
// selection and a decode of another.
func TestJointRoles(t *testing.T) {
	res := func(v compare.Verdict, diffs int) *compare.Result {
		r := &compare.Result{Verdict: v}
		for range diffs {
			r.Differences = append(r.Differences, compare.Difference{Setting: "--x"})
		}
		return r
	}
	ref := func(w string) *report.RecipeRef { return &report.RecipeRef{Where: w} }
	t.Run("stitched", func(t *testing.T) {
		pre := &report.RoleMatch{Role: "prefill", Recipe: ref("A"), Verdict: compare.Covered}
		dec := &report.RoleMatch{Role: "decode", Recipe: ref("B"), Verdict: compare.Covered}
		jointRoles([]*report.RoleMatch{pre, dec}, [][]selChoice{
			{{key: "A", res: res(compare.Covered, 0), ref: ref("A")}},
			{{key: "B", res: res(compare.Covered, 0), ref: ref("B")}},
		})
		for _, r := range []*report.RoleMatch{pre, dec} {
			if r.Verdict != compare.NotCovered || r.Recipe != nil || r.Nearest == nil ||
				r.Misses[len(r.Misses)-1] != "selection: no one selection documents every role (prefill in A; decode in B)" {
				t.Errorf("%s: %+v", r.Role, r)
			}
		}
	})
	t.Run("one selection for both", func(t *testing.T) {
		pre := &report.RoleMatch{Role: "prefill"}
		dec := &report.RoleMatch{Role: "decode"}
		jointRoles([]*report.RoleMatch{pre, dec}, [][]selChoice{
			{{key: "A", res: res(compare.Covered, 0), ref: ref("A")}, {key: "C", res: res(compare.Differs, 1), ref: ref("C")}, {key: "D", res: res(compare.Differs, 2), ref: ref("D")}},
			{{key: "B", res: res(compare.Covered, 0), ref: ref("B")}, {key: "D", res: res(compare.Differs, 1), ref: ref("D")}, {key: "C", res: res(compare.Differs, 1), ref: ref("C")}},
		})
		// C: 2 differences in all, D: 3
		if pre.Recipe.Where != "C" || dec.Recipe.Where != "C" || pre.Verdict != compare.Differs || dec.Verdict != compare.Differs {
			t.Errorf("prefill %+v decode %+v", pre, dec)
		}
	})
	t.Run("matched, not compared", func(t *testing.T) {
		pre := &report.RoleMatch{Role: "prefill", Recipe: ref("A0"), Verdict: compare.MatchedNotCompared}
		dec := &report.RoleMatch{Role: "decode", Recipe: ref("B0"), Verdict: compare.MatchedNotCompared}
		refs := [][]string{{"A0", "C0"}, {"B0", "C1"}}
		matchedJoint([]*report.RoleMatch{pre, dec}, [][]string{{"A", "C"}, {"B", "C"}}, func(r, i int) *report.RecipeRef { return ref(refs[r][i]) })
		if pre.Recipe.Where != "C0" || dec.Recipe.Where != "C1" || pre.Verdict != compare.MatchedNotCompared {
			t.Errorf("prefill %+v decode %+v", pre, dec)
		}
		matchedJoint([]*report.RoleMatch{pre, dec}, [][]string{{"A"}, {"B"}}, func(r, i int) *report.RecipeRef { return ref(refs[r][i]) })
		if pre.Verdict != compare.NotCovered || dec.Verdict != compare.NotCovered {
			t.Errorf("split: prefill %+v decode %+v", pre, dec)
		}
	})
}
