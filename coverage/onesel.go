package coverage

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/cookbook/pages"
	"github.com/cookbook-sync/cookbook-sync/recipes"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// One selection covers a deployment (issue 22, item 1): the roles of one
// InferenceX row (prefill and decode) are covered only by one selection of
// one source — one cookbook page selection, one recipes.vllm.ai selection
// or one guide section — never a prefill of one selection and a decode of
// another, which documents a deployment nobody wrote down.

// pageSelKey is the selection a page role belongs to: the page file and
// its selection text (pages.SelectionText; the run mode, python or docker,
// is one selection shown two ways), and for a prose alternate the
// statement (its sentence's place and setting).
func pageSelKey(c *pageCand) string {
	return c.sel.File + "\x00" + pages.SelectionText(c.sel) + pageSelProse(c)
}

// recipeSelKey is the selection a vLLM recipe role belongs to: for a model
// YAML rendering the page, hardware, variant, strategy, the features
// switched on and their modes and the KV offload pick (the prefill and
// decode pool picks are per role: the site sets each pool apart); for a
// Markdown guide block its file and section; for a prose alternate also
// the statement.
func recipeSelKey(c *recipes.Candidate) string {
	if c.Kind != "yaml" {
		return strings.Join([]string{c.Kind, c.File, c.Section}, "\x00") + recipeSelProse(c)
	}
	q := c.Query
	return strings.Join([]string{c.Kind, c.File, c.Variant, c.Strategy, c.Hardware,
		strings.Join(q.Features, ","), strings.Join(q.FMode, ","), q.KVOffload}, "\x00") + recipeSelProse(c)
}

// recipeSelProse is the part of a recipe role's selection key its prose
// alternate adds ("" for the selection itself).
func recipeSelProse(c *recipes.Candidate) string {
	if c.Prose == nil {
		return ""
	}
	return fmt.Sprintf("\x00prose %s:%d %s", c.Prose.File, c.Prose.Line, c.Prose.Summary())
}

// commonKeys is the set of keys every list holds (nil for no lists).
func commonKeys(lists [][]string) map[string]bool {
	if len(lists) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, k := range lists[0] {
		out[k] = true
	}
	for _, l := range lists[1:] {
		has := map[string]bool{}
		for _, k := range l {
			has[k] = true
		}
		for k := range out {
			if !has[k] {
				delete(out, k)
			}
		}
	}
	return out
}

// selChoice is one role's comparison with one exact candidate.
type selChoice struct {
	key string
	res *compare.Result
	ref *report.RecipeRef
}

// bestChoice is the index of the best-comparing choice of one role
// (betterResult; the first of equals). cs is not empty.
func bestChoice(cs []selChoice) int {
	best := 0
	for i := range cs {
		if betterResult(cs[i].res, cs[best].res) {
			best = i
		}
	}
	return best
}

// set makes ch the role's match: its recipe, result and verdict.
func (ch selChoice) set(vr *report.RoleMatch) {
	vr.Recipe, vr.Result, vr.Verdict = ch.ref, ch.res, ch.res.Verdict
}

// bestJoint picks, of the selection keys every role compared (choices[r]
// lists role r's), the one whose roles together compare best: the worst
// role verdict first, then the fewest differences, then the most matched
// settings, then the first in role 0's order. It returns the index of that
// selection's choice in each role's list, or nil when no key is in every
// list.
func bestJoint(choices [][]selChoice) []int {
	if len(choices) == 0 {
		return nil
	}
	var best []int
	var bestRank, bestDiffs, bestMatched int
	for i0, c0 := range choices[0] {
		pick := []int{i0}
		rank, diffs, matched := c0.res.Verdict.Rank(), len(c0.res.Differences), c0.res.Matched
		ok := true
		for _, list := range choices[1:] {
			j := -1
			for k := range list {
				if list[k].key == c0.key && (j < 0 || betterResult(list[k].res, list[j].res)) {
					j = k
				}
			}
			if j < 0 {
				ok = false
				break
			}
			pick = append(pick, j)
			rank = max(rank, list[j].res.Verdict.Rank())
			diffs += len(list[j].res.Differences)
			matched += list[j].res.Matched
		}
		if !ok {
			continue
		}
		if best == nil || rank < bestRank || rank == bestRank && (diffs < bestDiffs || diffs == bestDiffs && matched > bestMatched) {
			best, bestRank, bestDiffs, bestMatched = pick, rank, diffs, matched
		}
	}
	return best
}

// splitSelections marks the roles of a row whose exact matches belong to
// no one selection: each role keeps its own best match as the nearest
// (with its comparison as evidence) and becomes "no recipe covers this",
// with a miss naming the selections that document each role.
func splitSelections(roles []*report.RoleMatch) {
	var where []string
	for _, vr := range roles {
		if vr.Recipe != nil {
			where = append(where, vr.Role+" in "+vr.Recipe.Where)
		}
	}
	miss := "selection: no one selection documents every role (" + strings.Join(where, "; ") + ")"
	for _, vr := range roles {
		if vr.Recipe != nil {
			vr.Nearest, vr.Recipe, vr.Alternatives = vr.Recipe, nil, 0
		}
		vr.Verdict = compare.NotCovered
		vr.Misses = append(vr.Misses, miss)
	}
}

// jointRoles makes the roles of a row with more than one role (prefill and
// decode) agree on one selection: when every role has exact matches
// (choices[r] non-empty) the selection bestJoint picks becomes each role's
// match and result; when they share none, splitSelections. Roles without an
// exact match are "no recipe covers this" already and leave the others as
// they are (the row is not covered either way).
func jointRoles(roles []*report.RoleMatch, choices [][]selChoice) {
	if len(roles) < 2 {
		return
	}
	for _, cs := range choices {
		if len(cs) == 0 {
			return
		}
	}
	pick := bestJoint(choices)
	if pick == nil {
		splitSelections(roles)
		return
	}
	for r, vr := range roles {
		choices[r][pick[r]].set(vr)
	}
}

// matchedJoint is jointRoles for roles matched but not compared (a row
// that could not be rendered): when every role has exact matches (keys[r]
// their selection keys, in candidate order) each role's match becomes its
// first candidate of the first selection every role has (ref(r, i) is the
// reference of role r's candidate i); when they share none,
// splitSelections.
func matchedJoint(roles []*report.RoleMatch, keys [][]string, ref func(r, i int) *report.RecipeRef) {
	if len(roles) < 2 {
		return
	}
	for _, ks := range keys {
		if len(ks) == 0 {
			return
		}
	}
	common := commonKeys(keys)
	for _, k := range keys[0] {
		if !common[k] {
			continue
		}
		for r, vr := range roles {
			i := slices.Index(keys[r], k)
			vr.Recipe = ref(r, i)
		}
		return
	}
	splitSelections(roles)
}
