package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/compare"
)

// unitKey is one deployment of a config key: a master-config row and a
// concurrency (row -1: an AgentX point placed on no row, conc its index
// among those points).
type unitKey struct{ row, conc int }

// srcEntry is one source's result that stands for some units of a key: an
// AgentX point (point >= 0) or a row of a key judged from the InferenceX
// side (list and row).
type srcEntry struct {
	source    string
	verdict   compare.Verdict
	selection string
	shows     []string
	ndiff     int
	point     int        // index in Report.Points, -1 for a row
	row       *RowResult // the row, nil for a point
	chosen    bool
	units     []unitKey
	// ixProhibited: a compared role's InferenceX side carries a prohibited
	// setting — a property of the deployment, not of the source
	ixProhibited bool
}

// ixProhibited reports whether a compared role of results carries a
// prohibited setting on the InferenceX side.
func ixProhibited(results []*compare.Result) bool {
	for _, res := range results {
		if res == nil {
			continue
		}
		for _, x := range res.Prohibited {
			if x.InferenceX != nil {
				return true
			}
		}
	}
	return false
}

func (e *srcEntry) result() SourceResult {
	return SourceResult{Source: e.source, Verdict: e.verdict, Selection: e.selection, Shows: e.shows}
}

// sourceOrder is the order sources are listed and preferred in on a tie.
func sourceOrder(s string) int {
	switch s {
	case SourceAgentX:
		return 0
	case SourcePages:
		return 1
	}
	return 2
}

// better reports whether a is a better result for a unit than b
// (UnitRank, then fewer differences, then the source order).
func better(a, b *srcEntry) bool {
	ra, rb := UnitRank(a.verdict), UnitRank(b.verdict)
	if ra != rb {
		return ra < rb
	}
	if a.ndiff != b.ndiff {
		return a.ndiff < b.ndiff
	}
	return sourceOrder(a.source) < sourceOrder(b.source)
}

// showsOf lists what an upstream side documents differently, role by role
// ("decode: --speculative-num-steps 3 (inferencex 5)"), at most
// MaxShows, and the number of differences.
func showsOf(results []*compare.Result) ([]string, int) {
	var out []string
	n := 0
	for _, res := range results {
		if res == nil {
			continue
		}
		for _, d := range res.Differences {
			n++
			if len(out) == MaxShows {
				continue
			}
			out = append(out, fmt.Sprintf("%s: %s (inferencex: %s)", res.Role, settingText(d.Setting, d.Upstream), valueText(d.InferenceX)))
		}
	}
	if n > len(out) && len(out) > 0 {
		out[len(out)-1] += fmt.Sprintf(" … %d more", n-len(out)+1)
	}
	return out, n
}

// rowSelection names what a row was matched with: each role's recipe or
// nearest recipe (RecipeRef.Where), once.
func rowSelection(row *RowResult) string {
	var ws []string
	for _, ro := range row.Roles {
		w := ""
		switch {
		case ro.Recipe != nil:
			w = ro.Recipe.Where
		case ro.Nearest != nil:
			w = "nearest: " + ro.Nearest.Where
		}
		if w != "" && !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		if row.Message != "" {
			return row.Message
		}
		return string(row.Status)
	}
	return strings.Join(ws, "; ")
}

// CombineKeys gives each config key of the report one verdict from every
// source (KeyVerdict, Report.Keys; call it before Count): the units of a key are the master-config
// rows × concurrencies of the keys judged from the InferenceX side (cookbook
// pages, vLLM recipes), or, for a key only AgentX points cite, the points'
// rows × concurrencies (a point placed on no row is a unit of its own).
// Each unit takes the best result of any one source (UnitRank: one
// point, or one row whose roles agree on one selection, jointRoles); the
// other sources' results are its Others. A point or row that no unit takes
// gets Superseded (information: its findings do not fail the run), except
// an error or a time limit, which always count. AgentX points of a key the
// master config enumerates whose deployment it no longer runs are
// information too ("not run by the master config").
func (rep *Report) CombineKeys() {
	// idempotent: a report changed after an earlier call is combined anew
	rep.Keys = nil
	for i := range rep.Points {
		rep.Points[i].Superseded = ""
	}
	for _, list := range [][]KeyResult{rep.VLLM, rep.Pages} {
		for i := range list {
			for j := range list[i].Rows {
				list[i].Rows[j].Superseded = ""
			}
		}
	}
	type keyData struct {
		entries []*srcEntry
		master  map[unitKey]bool // units the master config enumerates (nil: none judged)
		na      string           // a not-applicable note
		naOnly  bool
	}
	var order []string
	keys := map[string]*keyData{}
	get := func(k string) *keyData {
		kd, ok := keys[k]
		if !ok {
			kd = &keyData{naOnly: true}
			keys[k] = kd
			order = append(order, k)
		}
		return kd
	}
	for i := range rep.Points {
		p := &rep.Points[i]
		kd := get(p.ConfigKey)
		e := &srcEntry{source: SourceAgentX, verdict: p.Verdict, point: i,
			selection: p.File + " § " + p.CellID}
		var rs []*compare.Result
		for j := range p.Roles {
			rs = append(rs, &p.Roles[j])
		}
		e.shows, e.ndiff = showsOf(rs)
		e.ixProhibited = ixProhibited(rs)
		if p.Status == StatusNotApplicable {
			e.verdict = compare.NotApplicable
		} else {
			kd.naOnly = false
		}
		if p.Row != nil && *p.Row >= 0 {
			for _, c := range p.Concs {
				e.units = append(e.units, unitKey{*p.Row, c})
			}
		}
		kd.entries = append(kd.entries, e)
	}
	for _, list := range [][]KeyResult{rep.VLLM, rep.Pages} {
		for i := range list {
			k := &list[i]
			kd := get(k.ConfigKey)
			if len(k.Rows) == 0 {
				if k.Verdict == compare.NotApplicable && kd.na == "" {
					kd.na = k.Note
				}
				continue
			}
			kd.naOnly = false
			if kd.master == nil {
				kd.master = map[unitKey]bool{}
			}
			source := k.Source
			if source == "" {
				source = SourceVLLMRecipes
			}
			for j := range k.Rows {
				row := &k.Rows[j]
				e := &srcEntry{source: source, verdict: row.Verdict, point: -1, row: row, selection: rowSelection(row)}
				var rs []*compare.Result
				for _, ro := range row.Roles {
					rs = append(rs, ro.Result)
				}
				e.shows, e.ndiff = showsOf(rs)
				e.ixProhibited = ixProhibited(rs)
				for _, c := range row.Concs {
					u := unitKey{row.Row, c}
					e.units = append(e.units, u)
					kd.master[u] = true
				}
				kd.entries = append(kd.entries, e)
			}
		}
	}

	for _, key := range order {
		kd := keys[key]
		kv := KeyVerdict{ConfigKey: key}
		for _, e := range kd.entries {
			if !slices.Contains(kv.Sources, e.source) {
				kv.Sources = append(kv.Sources, e.source)
			}
		}
		sort.SliceStable(kv.Sources, func(i, j int) bool { return sourceOrder(kv.Sources[i]) < sourceOrder(kv.Sources[j]) })
		if kd.naOnly {
			kv.Verdict, kv.Note = compare.NotApplicable, kd.na
			if kv.Note == "" {
				kv.Note = "Check 3 does not apply to this key under the policy version"
			}
			rep.Keys = append(rep.Keys, kv)
			continue
		}
		// the units and the results that stand for each
		byUnit := map[unitKey][]*srcEntry{}
		var units []unitKey
		lone := 0
		for _, e := range kd.entries {
			if e.verdict == compare.NotApplicable {
				continue
			}
			us := e.units
			// a point placed on no row, of a key nothing else judges, or a
			// result that failed before it could place itself (the master
			// config's points could not be listed): a unit of its own, so
			// the failure is the key's, never "not applicable"
			lonely := len(us) == 0 && (kd.master == nil || e.verdict == compare.Error || e.verdict == compare.TimeLimit)
			if lonely {
				us = []unitKey{{-1, lone}}
				lone++
			}
			for _, u := range us {
				if !lonely && kd.master != nil && !kd.master[u] {
					continue
				}
				if _, ok := byUnit[u]; !ok {
					units = append(units, u)
				}
				byUnit[u] = append(byUnit[u], e)
			}
		}
		sort.SliceStable(units, func(i, j int) bool {
			if units[i].row != units[j].row {
				// the points placed on no row last
				return units[j].row < 0 || units[i].row >= 0 && units[i].row < units[j].row
			}
			return units[i].conc < units[j].conc
		})
		var decided []*srcEntry // per unit
		for _, u := range units {
			es := byUnit[u]
			// a prohibited setting InferenceX runs fails the deployment
			// whichever source documents it: only the results that found
			// one may decide
			// (one that judged it prohibited first: a source whose nearest
			// selection merely saw it as evidence has another verdict)
			cands, forced := es, false
			if slices.ContainsFunc(es, func(e *srcEntry) bool { return e.ixProhibited }) {
				cands = slices.DeleteFunc(slices.Clone(es), func(e *srcEntry) bool { return !e.ixProhibited })
				if judged := slices.DeleteFunc(slices.Clone(cands), func(e *srcEntry) bool { return e.verdict != compare.Prohibited }); len(judged) > 0 {
					cands = judged
				} else {
					forced = true
				}
			}
			best := cands[0]
			for _, e := range cands[1:] {
				if better(e, best) {
					best = e
				}
			}
			best.chosen = true
			decided = append(decided, best)
			uv := UnitVerdict{Verdict: best.verdict, Source: best.source, Selection: best.selection}
			if forced && UnitRank(best.verdict) < UnitRank(compare.Prohibited) {
				uv.Verdict = compare.Prohibited
			}
			if u.row >= 0 {
				r := u.row
				uv.Row = &r
				uv.Concs = []int{u.conc}
			} else if best.point >= 0 {
				uv.Concs = slices.Clone(rep.Points[best.point].Concs)
			} else if best.row != nil {
				uv.Concs = slices.Clone(best.row.Concs)
			}
			for _, e := range es {
				if e != best {
					uv.Others = append(uv.Others, e.result())
				}
			}
			sort.SliceStable(uv.Others, func(i, j int) bool { return sourceOrder(uv.Others[i].Source) < sourceOrder(uv.Others[j].Source) })
			// fold a concurrency into the previous unit of the same row
			// and outcome
			if n := len(kv.Units); n > 0 && u.row >= 0 && kv.Units[n-1].Row != nil && *kv.Units[n-1].Row == u.row && sameUnitOutcome(kv.Units[n-1], uv) {
				kv.Units[n-1].Concs = append(kv.Units[n-1].Concs, u.conc)
			} else {
				kv.Units = append(kv.Units, uv)
			}
			kv.Verdict = compare.Worse(kv.Verdict, uv.Verdict)
		}
		for i, d := range decided {
			if i == 0 {
				kv.Source = d.source
			} else if d.source != kv.Source {
				kv.Source = ""
				break
			}
		}
		if len(units) == 0 {
			kv.Verdict = compare.NotApplicable
			if kd.na != "" {
				kv.Note = kd.na
			}
		}
		// the results no unit takes are information
		for _, e := range kd.entries {
			if e.chosen || e.verdict == compare.Error || e.verdict == compare.TimeLimit || e.verdict == compare.NotApplicable {
				continue
			}
			why := supersededWhy(e, kd.master, byUnit)
			if e.row != nil {
				e.row.Superseded = why
			} else {
				rep.Points[e.point].Superseded = why
			}
		}
		rep.Keys = append(rep.Keys, kv)
	}
}

// sameUnitOutcome reports whether two units have the same verdict, source,
// selection and other sources' results.
func sameUnitOutcome(a, b UnitVerdict) bool {
	if a.Verdict != b.Verdict || a.Source != b.Source || a.Selection != b.Selection || len(a.Others) != len(b.Others) {
		return false
	}
	for i := range a.Others {
		x, y := a.Others[i], b.Others[i]
		if x.Source != y.Source || x.Verdict != y.Verdict || x.Selection != y.Selection || !slices.Equal(x.Shows, y.Shows) {
			return false
		}
	}
	return true
}

// supersededWhy says why a result does not decide its key: the master
// config does not run its deployments, or which source's result each of
// them takes (the first named).
func supersededWhy(e *srcEntry, master map[unitKey]bool, byUnit map[unitKey][]*srcEntry) string {
	for _, u := range e.units {
		if master != nil && !master[u] {
			continue
		}
		for _, o := range byUnit[u] {
			if o.chosen {
				return fmt.Sprintf("information: the key's row %d concurrency %d takes %s %s (%s)", u.row, u.conc, o.source, o.selection, o.verdict)
			}
		}
	}
	if len(e.units) == 0 {
		return fmt.Sprintf("information: placed on no master-config row (%s); the key is judged on the rows of its master config", e.verdict)
	}
	return "information: the master config no longer runs this deployment (row and concurrency not in its search space)"
}

// settingText is a setting as a source documents it: "--flag value",
// "--flag" (bare), "no --flag" (absent).
func settingText(setting string, v *string) string {
	switch {
	case v == nil:
		return "no " + setting
	case *v == "":
		return setting
	}
	return setting + " " + *v
}

// valueText is the other side's value: "value", "set" (bare), "absent".
func valueText(v *string) string {
	switch {
	case v == nil:
		return "absent"
	case *v == "":
		return "set"
	}
	return *v
}
