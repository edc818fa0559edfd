package report

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/compare"
)

// Class is what an outcome means for the sign-off. ClassOf decides it once
// for every printer: text, Markdown, SARIF and annotations only group, sort
// and format what Findings classed.
type Class string

// Classes, best first.
const (
	// ClassOK: covered, covered with exclusions, not applicable.
	ClassOK Class = "ok"
	// ClassAllowed: not verified, listed apart without failing
	// (Report.AllowUnverified; never a time limit).
	ClassAllowed Class = "not verified (allowed)"
	// ClassNotVerified: the settings were not compared; fails closed.
	ClassNotVerified Class = "not verified"
	// ClassTimeLimit: a wall-clock backstop stopped the work; re-run.
	ClassTimeLimit Class = "time limit"
	// ClassGap: differs, missing, prohibited, no recipe covers this, a link
	// not merged / published (Check 3 (b) and (c)).
	ClassGap Class = "gap"
	// ClassError: bad input (file:line:col in the message).
	ClassError Class = "error"
	// ClassInfo: a gap or not-verified outcome of a point or row that does
	// not decide its config key (PointResult.Superseded,
	// RowResult.Superseded): another source's selection covers or judges
	// the same deployment, so it is shown as information (what that source
	// documents differently), never a failure.
	ClassInfo Class = "information"
)

// Fails reports whether c fails the sign-off (exit 1, or 2 / 3 for errors
// and time limits).
func (c Class) Fails() bool { return c != ClassOK && c != ClassAllowed && c != ClassInfo }

// ClassOf is the class of verdict v in this report: ClassAllowed for an
// allowable not-verified verdict when AllowUnverified, ClassTimeLimit,
// ClassNotVerified, ClassGap (compare.Verdict.Gap), ClassError (error, or
// any verdict this version does not know: fail closed), else ClassOK. The
// empty verdict (nothing judged) is ClassOK.
func (r *Report) ClassOf(v compare.Verdict) Class {
	switch {
	case v == "":
		return ClassOK
	case v.Allowable() && r.AllowUnverified:
		return ClassAllowed
	case v == compare.TimeLimit:
		return ClassTimeLimit
	case v.NotVerified():
		return ClassNotVerified
	case v.Gap():
		return ClassGap
	case v.Rank() >= compare.Error.Rank():
		return ClassError
	}
	return ClassOK
}

// Input kinds of a Finding that no point, row or link stands for.
const (
	InputVLLMRecipe = "vllm-recipe" // a vLLM recipe file that failed to decode
	InputPage       = "page"        // a cookbook page snippet whose code failed
	InputTimeLimit  = "time-limit"  // a unit a backstop stopped (a page snippet)
)

// Finding is one thing a reviewer must act on or may read: a setting that
// differs, a prohibited setting, a missing role, a role no recipe covers, a
// setting whose content is not known, a point or row not verified or in
// error, an input that failed, a link not merged. Exactly one of Point,
// Row (with Key), Input and Link says what it belongs to; Role / Match,
// Difference, Unknown and Prohibited narrow it down.
type Finding struct {
	Class Class
	// Rule is the FindingRule's ID (RuleDiffers, …); Level the SARIF level
	// ("error", or "note" for ClassAllowed).
	Rule, Level string
	// Message is the finding in one line, local directories removed
	// (Report.Scrub): SARIF's and the annotations' message.
	Message string
	// Base is the uriBaseId of File (BaseCookbook, BaseVLLMRecipes,
	// BaseInferenceX, BasePages); File is relative to that repository (""
	// = no location), Line 1-based (0 = none).
	Base, File string
	Line       int
	// Props are the SARIF result's properties, in order.
	Props []Prop

	Point *PointResult
	Key   *KeyResult
	Row   *RowResult
	// Role is the compared role (a point's, or a row role's Result); Match
	// the row's role with what it was matched with.
	Role  *compare.Result
	Match *RoleMatch
	// Difference is a differing setting (RuleDiffers); Unknown a setting
	// whose content is not known (RuleNotVerified); Prohibited a
	// prohibited setting (RuleProhibited).
	Difference *compare.Difference
	Unknown    *compare.Difference
	Prohibited *compare.Exclusion
	// Input is the kind of input (InputVLLMRecipe, InputPage,
	// InputTimeLimit) and InputText its entry ("file: message").
	Input, InputText string
	Link             *Link
}

// Prop is one property of a Finding.
type Prop struct {
	Key   string
	Value any
}

var recipeErrorPosRe = regexp.MustCompile(`^([^\s:]+):(\d+):\d+: `)

// Findings lists the report's findings in report order: the cookbook points
// (each gap role's missing role, differing settings, prohibited settings and
// settings whose content is not known — also of a role that is only not
// verified —; the point's error; the point when not verified), the keys
// judged from the InferenceX side (vLLM recipes, then cookbook pages) row by
// row likewise (with roles no recipe covers, located at the master config),
// the vLLM recipe and cookbook page errors, the units a time limit stopped,
// then the upstream links that are not merged / published. Classes come
// from ClassOf: allowed outcomes are listed (ClassAllowed, level note),
// covered ones are not.
func Findings(r *Report) []Finding {
	var out []Finding
	pv := Prop{"policyVersion", r.Policy.Version}
	add := func(f Finding) {
		why := ""
		switch {
		case f.Point != nil:
			why = f.Point.Superseded
		case f.Row != nil:
			why = f.Row.Superseded
		}
		if why != "" && f.Class != ClassError && f.Class != ClassTimeLimit && f.Class != ClassOK {
			f.Class, f.Level = ClassInfo, "note"
			f.Props = append(f.Props, Prop{"superseded", why})
		}
		if f.Level == "" {
			f.Level = "error"
			if f.Class == ClassAllowed {
				f.Level = "note"
			}
		}
		f.Message = r.Scrub(f.Message)
		for i, p := range f.Props {
			if s, ok := p.Value.(string); ok {
				f.Props[i].Value = r.Scrub(s)
			}
		}
		out = append(out, f)
	}

	for i := range r.Points {
		p := &r.Points[i]
		base := func(f Finding, extra ...Prop) Finding {
			ps := []Prop{{"configKey", p.ConfigKey}, {"cellId", p.CellID}, {"point", p.Point}}
			ps = append(ps, extra...)
			ps = append(ps, pv)
			if p.Recipe != "" {
				rec := p.Recipe
				if p.Selector != "" {
					rec += ":" + p.Selector
				}
				ps = append(ps, Prop{"inferencexRecipe", rec})
			}
			f.Point, f.Base, f.File, f.Line, f.Props = p, BaseCookbook, p.File, p.Line, ps
			return f
		}
		switch {
		case p.Status == StatusError:
			add(base(Finding{Class: ClassError, Rule: RuleError, Message: fmt.Sprintf("%s point %d: error: %s", p.CellID, p.Point, p.Message)},
				Prop{"verdict", string(compare.Error)}))
			continue
		case p.Status.NotVerified():
			msg := fmt.Sprintf("%s point %d: not verified: %s", p.CellID, p.Point, p.Status)
			if p.Message != "" {
				msg += ": " + p.Message
			}
			add(base(Finding{Class: r.ClassOf(p.Status.Verdict()), Rule: RuleNotVerified, Message: msg},
				Prop{"verdict", string(p.Status.Verdict())}))
			continue
		}
		for j := range p.Roles {
			res := &p.Roles[j]
			head := fmt.Sprintf("%s point %d %s", p.CellID, p.Point, roleName(*res))
			rp := []Prop{{"role", roleName(*res)}, {"verdict", string(res.Verdict)}}
			for _, f := range r.roleFindings(head, res) {
				add(base(f, append(append([]Prop{}, rp...), f.Props...)...))
			}
		}
	}

	for _, list := range [][]KeyResult{r.VLLM, r.Pages} {
		for i := range list {
			k := &list[i]
			for j := range k.Rows {
				r.rowFindings(k, &k.Rows[j], pv, add)
			}
		}
	}

	for _, in := range []struct {
		kind, prefix, base string
		class              Class
		rule               string
		list               []string
	}{
		{InputVLLMRecipe, "vLLM recipe error: ", BaseVLLMRecipes, ClassError, RuleError, r.VLLMRecipeErrors},
		{InputPage, "cookbook page error: ", BasePages, ClassError, RuleError, r.PageErrors},
		{InputTimeLimit, "", BasePages, ClassTimeLimit, RuleNotVerified, r.TimeLimits},
	} {
		verdict := compare.Error
		if in.class == ClassTimeLimit {
			verdict = compare.TimeLimit
		}
		for _, e := range in.list {
			f := Finding{Class: in.class, Rule: in.rule, Message: in.prefix + e, Input: in.kind, InputText: e,
				Props: []Prop{{"verdict", string(verdict)}, pv}}
			if m := recipeErrorPosRe.FindStringSubmatch(r.Scrub(e)); m != nil && !filepath.IsAbs(m[1]) {
				f.Base, f.File = in.base, m[1]
				f.Line, _ = strconv.Atoi(m[2])
			}
			add(f)
		}
	}

	for i := range r.Upstream {
		l := &r.Upstream[i]
		if l.OK {
			continue
		}
		msg := fmt.Sprintf("upstream link %s: %s (Check 3 (b) needs a merged PR or a published page)", l.URL, l.State)
		if l.Error != "" {
			msg += ": " + l.Error
		}
		ps := []Prop{{"url", l.URL}, {"kind", l.Kind}, {"state", l.State}}
		if l.Repo != "" {
			ps = append(ps, Prop{"repo", l.Repo})
		}
		if l.Number > 0 {
			ps = append(ps, Prop{"number", l.Number})
		}
		add(Finding{Class: ClassGap, Rule: RuleLinkNotMerged, Message: msg, Props: append(ps, pv), Link: l})
	}
	return out
}

// rowFindings adds the findings of one row of key k: its error or its
// not-verified status (located at the upstream recipe a role matched, else
// at the master config), then each gap role's (a role no recipe covers at
// the master config; a compared role's settings at the recipe).
func (r *Report) rowFindings(k *KeyResult, row *RowResult, pv Prop, add func(Finding)) {
	head := k.ConfigKey
	if row.Row >= 0 {
		head = fmt.Sprintf("%s row %d", k.ConfigKey, row.Row)
	}
	props := func(extra ...Prop) []Prop {
		ps := []Prop{{"configKey", k.ConfigKey}, {"framework", k.Framework}}
		if row.Row >= 0 {
			ps = append(ps, Prop{"row", row.Row})
		}
		ps = append(ps, extra...)
		ps = append(ps, pv)
		if row.Recipe != "" {
			rec := row.Recipe
			if row.Selector != "" {
				rec += ":" + row.Selector
			}
			ps = append(ps, Prop{"inferencexRecipe", rec})
		}
		return ps
	}
	master := Finding{Key: k, Row: row, Base: BaseInferenceX, File: k.MasterFile, Line: k.MasterLine}
	rowLoc := master
	for _, ro := range row.Roles {
		if ro.Recipe != nil && ro.Recipe.File != "" {
			rowLoc.Base, rowLoc.File, rowLoc.Line = upstreamBase(*k), ro.Recipe.File, ro.Recipe.Line
			break
		}
	}
	switch {
	case row.Status == StatusError:
		f := rowLoc
		f.Class, f.Rule, f.Message = ClassError, RuleError, fmt.Sprintf("%s: error: %s", head, row.Message)
		f.Props = props(Prop{"verdict", string(compare.Error)})
		add(f)
		return
	case row.Status.NotVerified():
		f := rowLoc
		msg := fmt.Sprintf("%s conc %s: not verified: %s", head, concRange(row.Concs), row.Status)
		if row.Message != "" {
			msg += ": " + row.Message
		}
		f.Class, f.Rule, f.Message = r.ClassOf(row.Status.Verdict()), RuleNotVerified, msg
		f.Props = props(Prop{"verdict", string(row.Status.Verdict())})
		add(f)
		// its roles may still be gaps (no recipe covers them)
	}
	for i := range row.Roles {
		ro := &row.Roles[i]
		if !ro.Verdict.Gap() && !(ro.Verdict.NotVerified() && ro.Result != nil && len(ro.Result.Unknown) > 0) {
			continue
		}
		rhead := fmt.Sprintf("%s %s (%s)", head, ro.Role, ro.Topology)
		rp := []Prop{{"role", ro.Role}, {"topology", ro.Topology}, {"verdict", string(ro.Verdict)}}
		if ro.Verdict == compare.NotCovered || ro.Recipe == nil {
			f := master
			f.Match = ro
			msg := fmt.Sprintf("%s: %s", rhead, ro.Verdict)
			if ro.Nearest != nil {
				msg += "; nearest upstream: " + ro.Nearest.Where
				rp = append(rp, Prop{"nearest", ro.Nearest.Where})
			}
			if len(ro.Misses) > 0 {
				msg += "; misses: " + strings.Join(ro.Misses, "; ")
			}
			f.Class, f.Rule, f.Message, f.Props = r.ClassOf(ro.Verdict), ruleFor(ro.Verdict), msg, props(rp...)
			add(f)
			continue
		}
		rp = append(rp, Prop{"vllmRecipe", ro.Recipe.Where})
		if ro.Recipe.URL != "" {
			rp = append(rp, Prop{"recipesURL", ro.Recipe.URL})
		}
		res := ro.Result
		if res == nil {
			res = &compare.Result{Role: ro.Role, Verdict: ro.Verdict}
		}
		for _, rf := range r.roleFindings(rhead, res) {
			f := rf
			f.Key, f.Row, f.Match = k, row, ro
			f.Base, f.File, f.Line = upstreamBase(*k), ro.Recipe.File, ro.Recipe.Line
			f.Props = props(append(append([]Prop{}, rp...), rf.Props...)...)
			add(f)
		}
	}
}

// roleFindings lists the findings of one compared role (class, rule,
// message, extra properties; the caller adds the unit and the location):
// a missing role, one per differing setting ("<head>: <setting>: upstream
// <v>, inferencex <v> (<note>)"), one per prohibited setting, one per
// setting whose content is not known; a gap role none of these explain gets
// one finding of its verdict (fail closed). A role that is not a gap gives
// only its settings whose content is not known.
func (r *Report) roleFindings(head string, res *compare.Result) []Finding {
	var out []Finding
	if res.Verdict.Gap() {
		class := r.ClassOf(res.Verdict)
		if res.Verdict == compare.Missing {
			msg := head + ": missing"
			if res.Note != "" {
				msg += ": " + res.Note
			}
			out = append(out, Finding{Class: class, Rule: RuleMissing, Message: msg, Role: res})
		}
		for i := range res.Differences {
			d := &res.Differences[i]
			msg := fmt.Sprintf("%s: %s: upstream %s, inferencex %s", head, d.Setting, val(d.Upstream), val(d.InferenceX))
			if d.Note != "" {
				msg += " (" + d.Note + ")"
			}
			out = append(out, Finding{Class: ClassGap, Rule: RuleDiffers, Message: msg, Props: []Prop{{"setting", d.Setting}}, Role: res, Difference: d})
		}
		for i := range res.Prohibited {
			x := &res.Prohibited[i]
			out = append(out, Finding{Class: ClassGap, Rule: RuleProhibited, Message: head + ": " + prohibitedText(*x, "upstream", "inferencex"),
				Props: []Prop{{"setting", x.Setting}, {"exclusionRule", x.Rule}, {"policy", x.Policy}}, Role: res, Prohibited: x})
		}
	}
	for i := range res.Unknown {
		d := &res.Unknown[i]
		msg := fmt.Sprintf("%s: %s: not verified: %s (upstream %s, inferencex %s)", head, d.Setting, compare.ContentNotKnown, val(d.Upstream), val(d.InferenceX))
		out = append(out, Finding{Class: r.ClassOf(compare.ContentNotKnown), Rule: RuleNotVerified, Message: msg,
			Props: []Prop{{"setting", d.Setting}}, Role: res, Unknown: d})
	}
	if len(out) == 0 && res.Verdict.Gap() {
		msg := head + ": " + string(res.Verdict)
		if res.Note != "" {
			msg += ": " + res.Note
		}
		out = append(out, Finding{Class: r.ClassOf(res.Verdict), Rule: ruleFor(res.Verdict), Message: msg, Role: res})
	}
	return out
}

// ruleFor is the rule of a verdict (an unknown verdict is an error).
func ruleFor(v compare.Verdict) string {
	switch {
	case v == compare.Differs:
		return RuleDiffers
	case v == compare.Missing:
		return RuleMissing
	case v == compare.Prohibited:
		return RuleProhibited
	case v == compare.NotCovered:
		return RuleNotCovered
	case v.NotVerified():
		return RuleNotVerified
	}
	return RuleError
}

// upstreamBase is the uriBaseId of a key's recipe references: the vLLM
// recipes, or the sglang checkout with the cookbook pages.
func upstreamBase(k KeyResult) string {
	if k.Source == SourcePages {
		return BasePages
	}
	return BaseVLLMRecipes
}
