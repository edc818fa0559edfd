package report

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
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
	// InputRun: the run itself stopped before its report was complete
	// (bad usage or bad input the CLI exits 2 for): RunErrorFinding.
	InputRun = "run"
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
	// of Class (Class.Level: "error", "warning" or "note").
	Rule, Level string
	// Message is the finding in one line, local directories removed
	// (Report.Scrub): SARIF's and the annotations' message.
	Message string
	// Base is the uriBaseId of File (BaseCookbook, BaseVLLMRecipes,
	// BaseInferenceX, BasePages); File is relative to that repository (""
	// = no location), Line 1-based (0 = none): the upstream place of the
	// finding (the cookbook snippet line, the vLLM recipe's Markdown block
	// or the prose sentence of a prose alternate, the file:line of an
	// input error), or the master config for a role no recipe covers.
	Base, File string
	Line       int
	// InferenceXFile and InferenceXLine are the finding's place in the
	// InferenceX checkout ("" / 0 when none is known): the master-config
	// entry of a key's row (KeyResult.MasterFile, MasterLine), the
	// search-space row a cookbook point's script was run for
	// (PointResult.RowPos), else the recipe the point cites
	// (PointResult.RecipeFile, no line); an error whose message starts with
	// "<recipe>:<line>:<col>: " of the unit's own recipe is at that line.
	InferenceXFile string
	InferenceXLine int
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
	scrub := r.scrubber()
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
			f.Class = ClassInfo
			f.Props = append(f.Props, Prop{"superseded", why})
		}
		f.Level = f.Class.Level()
		f.Message = scrub(f.Message)
		for i, p := range f.Props {
			if s, ok := p.Value.(string); ok {
				f.Props[i].Value = scrub(s)
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
			f.InferenceXFile, f.InferenceXLine = pointPlace(p)
			return f
		}
		switch {
		case p.Status == StatusError:
			f := base(Finding{Class: ClassError, Rule: RuleError, Message: fmt.Sprintf("%s point %d: error: %s", p.CellID, p.Point, p.Message)},
				Prop{"verdict", string(compare.Error)})
			recipe := p.RecipeFile
			if recipe == "" {
				recipe = p.Recipe // a cited recipe that failed to load was found
			}
			if l := r.errorLine(p.Message, recipe); l > 0 {
				f.InferenceXFile, f.InferenceXLine = recipe, l
			}
			add(f)
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
	master := Finding{Key: k, Row: row, Base: BaseInferenceX, File: k.MasterFile, Line: k.MasterLine,
		InferenceXFile: k.MasterFile, InferenceXLine: k.MasterLine}
	rowLoc := master
	for _, ro := range row.Roles {
		if ro.Recipe != nil && ro.Recipe.File != "" {
			rowLoc.Base = upstreamBase(*k)
			rowLoc.File, rowLoc.Line = ro.Recipe.place()
			break
		}
	}
	switch {
	case row.Status == StatusError:
		f := rowLoc
		f.Class, f.Rule, f.Message = ClassError, RuleError, fmt.Sprintf("%s: error: %s", head, row.Message)
		f.Props = props(Prop{"verdict", string(compare.Error)})
		if l := r.errorLine(row.Message, row.Recipe); l > 0 {
			f.InferenceXFile, f.InferenceXLine = row.Recipe, l
		}
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
			f.Base = upstreamBase(*k)
			f.File, f.Line = ro.Recipe.place()
			f.InferenceXFile, f.InferenceXLine = master.InferenceXFile, master.InferenceXLine
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

// Level is the SARIF level of a finding of class c: "error" for a gap or
// an error (what the sign-off must fix), "warning" for what was not
// verified or stopped by a time limit (nothing known: fails closed, but
// nothing was found wrong either), "note" for an allowed not-verified
// outcome and for information (a superseded point or row); "none" for
// ClassOK, which no finding has.
func (c Class) Level() string {
	switch c {
	case ClassOK:
		return "none"
	case ClassNotVerified, ClassTimeLimit:
		return "warning"
	case ClassAllowed, ClassInfo:
		return "note"
	}
	return "error" // ClassGap, ClassError, and any class this version does not know
}

// place is the position of a recipe role in its upstream file: the
// Markdown block's line, else the sentence of a prose alternate (its file
// and line), else the file alone (a model YAML or a page selection, whose
// line is not known).
func (ref *RecipeRef) place() (string, int) {
	if ref.Line <= 0 && ref.Prose != nil && ref.Prose.File != "" && ref.Prose.Line > 0 {
		return ref.Prose.File, ref.Prose.Line
	}
	return ref.File, ref.Line
}

// pointPlace is a cookbook point's place in the InferenceX checkout: the
// search-space row its script was run for (RowPos "file:line:col"), else
// the recipe it cites, found in the checkout (no line), else none.
func pointPlace(p *PointResult) (string, int) {
	if m := posRe.FindStringSubmatch(p.RowPos); m != nil && !filepath.IsAbs(m[1]) {
		l, _ := strconv.Atoi(m[2])
		return m[1], l
	}
	if p.RecipeFile != "" && !filepath.IsAbs(p.RecipeFile) {
		return p.RecipeFile, 0
	}
	return "", 0
}

// posRe is a whole "file:line[:col]" position.
var posRe = regexp.MustCompile(`^([^\s:]+):(\d+)(?::\d+)?$`)

// errorLine is the line of an error message (local directories removed)
// that starts with "<file>:<line>:<col>: " when file is the unit's own
// InferenceX recipe (relative to the checkout), else 0.
func (r *Report) errorLine(msg, file string) int {
	if file == "" || filepath.IsAbs(file) {
		return 0
	}
	m := recipeErrorPosRe.FindStringSubmatch(r.Scrub(msg))
	if m == nil || m[1] != file {
		return 0
	}
	l, _ := strconv.Atoi(m[2])
	return l
}

// RunErrorFinding is the finding of an error that stopped the run before
// its report was complete (the CLI's exit 2: bad usage or bad input, e.g.
// a --config-key that matches nothing): class error, rule RuleError, the
// message msg with the report's local directories removed. The SARIF and
// annotation printers list it first (SARIFOptions.RunError,
// AnnotationOptions.RunError).
func RunErrorFinding(r *Report, msg string) Finding {
	msg = r.Scrub(strings.Join(strings.Fields(msg), " "))
	return Finding{Class: ClassError, Rule: RuleError, Level: ClassError.Level(), Message: "run error: " + msg,
		Input: InputRun, InputText: msg, Props: []Prop{{"verdict", string(compare.Error)}}}
}

// levelRank orders SARIF levels worst first: error, warning, note, none.
func levelRank(level string) int {
	switch level {
	case "error":
		return 0
	case "warning":
		return 1
	case "note":
		return 2
	}
	return 3
}

// worstFirst is the order of fs worst first, as indices into fs: by level
// (errors, then warnings, then notes); within a level breadth first, in
// rounds: each group (same group(f)) gives one finding per round — its
// findings of a kind (same kind(f)) not seen before first, then the
// repeats —, so a cap keeps one finding of every group before a second of
// any; within a round by rule (ruleSeverity: errors — bad input —,
// prohibited settings, differences, missing roles and roles no recipe
// covers, links not merged, then what was not verified); then in report
// order. A nil kind makes every finding a kind of its own.
func worstFirst(fs []Finding, group, kind func(Finding) string) []int {
	nth := make([]int, len(fs)) // repeats of the finding's kind before it
	seen := map[string]int{}
	members := map[string][]int{}
	var groups []string
	for i, f := range fs {
		if kind != nil {
			k := f.Level + "\x00" + kind(f)
			nth[i] = seen[k]
			seen[k]++
		}
		g := f.Level + "\x00" + group(f)
		if _, ok := members[g]; !ok {
			groups = append(groups, g)
		}
		members[g] = append(members[g], i)
	}
	round := make([]int, len(fs))
	for _, g := range groups {
		m := members[g]
		sort.SliceStable(m, func(i, j int) bool { return nth[m[i]] < nth[m[j]] })
		for r, i := range m {
			round[i] = r
		}
	}
	order := make([]int, len(fs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if la, lb := levelRank(fs[a].Level), levelRank(fs[b].Level); la != lb {
			return la < lb
		}
		if round[a] != round[b] {
			return round[a] < round[b]
		}
		return ruleSeverity(fs[a].Rule) < ruleSeverity(fs[b].Rule)
	})
	return order
}

// keyRule groups the findings of one rule and config key (a finding of no
// key is a group of its own).
func keyRule(f Finding) string {
	if key := f.configKey(); key != "" {
		return f.Rule + "\x00" + key
	}
	return f.Rule + "\x00\x01" + f.Message
}

// problem is what a finding says, whatever unit it was found in: its rule,
// config key, role and setting (the same setting of one key differing on
// many rows is one problem); a finding of no key is a problem of its own.
func problem(f Finding) string {
	key := f.configKey()
	if key == "" {
		return f.Rule + "\x00" + f.Message
	}
	role := ""
	switch {
	case f.Role != nil:
		role = roleName(*f.Role)
	case f.Match != nil:
		role = f.Match.Role
	}
	return strings.Join([]string{f.Rule, key, role, f.setting()}, "\x00")
}

// configKey is the InferenceX config key the finding belongs to ("" for
// links and inputs).
func (f Finding) configKey() string {
	switch {
	case f.Point != nil:
		return f.Point.ConfigKey
	case f.Key != nil:
		return f.Key.ConfigKey
	}
	return ""
}

// setting is the flag or env var the finding is about ("" when none).
func (f Finding) setting() string {
	switch {
	case f.Difference != nil:
		return f.Difference.Setting
	case f.Unknown != nil:
		return f.Unknown.Setting
	case f.Prohibited != nil:
		return f.Prohibited.Setting
	}
	return ""
}
