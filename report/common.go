package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/compare"
)

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// val is compare.Shown.
func val(p *string) string { return compare.Shown(p) }

func concs(cs []int) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = fmt.Sprint(c)
	}
	return strings.Join(s, ",")
}

// verdictOrder is the order of count buckets: compare.Verdicts, best
// first.
func verdictOrder() []string {
	var out []string
	for _, v := range compare.Verdicts() {
		out = append(out, string(v))
	}
	return out
}

func sortedCounts(m map[string]int) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range verdictOrder() {
		if n, ok := m[k]; ok {
			out = append(out, fmt.Sprintf("%s %d", k, n))
			seen[k] = true
		}
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		out = append(out, fmt.Sprintf("%s %d", k, m[k]))
	}
	return out
}

// unverifiedGroups lists the points of ps that in keeps, consecutive
// points of one cell with the same status and message as one entry:
// "  <cell id> point(s) …: not verified: <status>\n    <message>\n".
func unverifiedGroups(ps []PointResult, in func(*PointResult) bool) []string {
	var out []string
	for i := 0; i < len(ps); {
		p := ps[i]
		if !in(&ps[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(ps) && in(&ps[j]) && ps[j].CellID == p.CellID && ps[j].File == p.File && ps[j].Status == p.Status && ps[j].Message == p.Message {
			j++
		}
		pts := fmt.Sprintf("point %d", p.Point)
		if j-i > 1 {
			ns := make([]int, 0, j-i)
			for _, q := range ps[i:j] {
				ns = append(ns, q.Point)
			}
			pts = "points " + concRange(ns)
		}
		g := fmt.Sprintf("  %s %s: not verified: %s\n", p.CellID, pts, p.Status)
		if p.Message != "" {
			g += fmt.Sprintf("    %s\n", p.Message)
		}
		out = append(out, g)
		i = j
	}
	return out
}

// prohibitedText describes a prohibited setting for the text Gaps: which
// side(s) carry it (named a and b, for the Exclusion's cookbook and recipe
// values), with their values, the rule and its reason.
func prohibitedText(x compare.Exclusion, a, b string) string {
	var on []string
	var vals []string
	if x.Upstream != nil {
		on = append(on, a)
		vals = append(vals, a+" "+val(x.Upstream))
	}
	if x.InferenceX != nil {
		on = append(on, b)
		vals = append(vals, b+" "+val(x.InferenceX))
	}
	where := "set on neither side"
	switch len(on) {
	case 1:
		where = "set in " + on[0] + " only"
	case 2:
		where = "set in both " + a + " and " + b
	}
	return fmt.Sprintf("%s: PROHIBITED, %s (%s) — %s: %s", x.Setting, where, strings.Join(vals, ", "), x.Rule, x.Reason)
}

// cellTag is the "#n" suffix of a cell id (the config key is its own column).
func cellTag(id string) string {
	if i := strings.LastIndexByte(id, '#'); i >= 0 {
		return id[i:]
	}
	return id
}

func roleName(res compare.Result) string {
	if res.Index > 0 {
		return fmt.Sprintf("%s[%d]", res.Role, res.Index)
	}
	return res.Role
}

// mdCell escapes a value for a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	if s == "" {
		return ""
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func mdVal(p *string) string {
	switch {
	case p == nil:
		return "(absent)"
	case *p == "":
		return "(set)"
	}
	return mdCell(*p)
}

// concRange prints concurrencies compactly: "1,2,4" or "1…256 (9)".
func concRange(cs []int) string {
	if len(cs) <= 4 {
		return concs(cs)
	}
	return fmt.Sprintf("%d…%d (%d)", cs[0], cs[len(cs)-1], len(cs))
}

func (ro *RoleMatch) place() string {
	switch {
	case ro.Recipe != nil:
		return ro.Recipe.Where
	case ro.Nearest != nil:
		return "nearest: " + ro.Nearest.Where
	}
	return "-"
}

// Headline is the run's verdict in one line, the first line of the text
// and Markdown reports: "✅ Check 3: covered — …" when nothing fails, else
// "❌ Check 3: <n> gaps — differs 2, not verified 1, …": the cookbook points
// and vLLM-family rows that fail (a gap verdict, a not-verified outcome
// unless AllowUnverified, an error) counted by verdict, worst first, the
// not-verified outcomes together, and the upstream links that are not
// merged / published.
func Headline(r *Report) string {
	gaps := map[string]int{}
	var order []string
	add := func(k string) {
		if gaps[k] == 0 {
			order = append(order, k)
		}
		gaps[k]++
	}
	ok := map[string]int{}
	judge := func(v compare.Verdict) {
		switch r.ClassOf(v) {
		case ClassAllowed:
			ok["not verified (allowed)"]++
		case ClassNotVerified:
			add("not verified")
		case ClassTimeLimit, ClassGap, ClassError:
			add(string(v))
		default:
			ok[string(v)]++
		}
	}
	if len(r.Keys) > 0 {
		// one verdict per config key from every source
		for _, k := range r.Keys {
			judge(k.Verdict)
		}
	} else {
		for _, p := range r.Points {
			judge(p.Verdict)
		}
		for _, k := range r.UpstreamKeys() {
			if k.Verdict == compare.NotApplicable {
				judge(k.Verdict) // no rows: the key itself
				continue
			}
			for _, row := range k.Rows {
				judge(row.Verdict)
			}
		}
	}
	for range r.VLLMRecipeErrors {
		add(string(compare.Error))
	}
	for range r.PageErrors {
		add(string(compare.Error))
	}
	for range r.TimeLimits {
		add(string(compare.TimeLimit))
	}
	for _, l := range r.Upstream {
		if !l.OK {
			add("link not merged")
		}
	}
	rank := func(k string) int {
		switch k {
		case "not verified":
			return compare.Unsupported.Rank()
		case "link not merged":
			return compare.Missing.Rank()
		}
		return compare.Verdict(k).Rank()
	}
	sort.SliceStable(order, func(i, j int) bool { return rank(order[i]) > rank(order[j]) })
	n := 0
	var parts []string
	for _, k := range order {
		n += gaps[k]
		parts = append(parts, fmt.Sprintf("%s %d", k, gaps[k]))
	}
	if n == 0 && !r.Gap {
		var okParts []string
		for _, k := range []string{string(compare.Covered), string(compare.CoveredWithExclusions), "not verified (allowed)", string(compare.NotApplicable)} {
			if ok[k] > 0 {
				okParts = append(okParts, fmt.Sprintf("%s %d", k, ok[k]))
			}
		}
		compared := ok[string(compare.Covered)] + ok[string(compare.CoveredWithExclusions)]
		for _, k := range r.Keys {
			// a key not verified (allowed) may have covered deployments
			for _, u := range k.Units {
				if u.Verdict == compare.Covered || u.Verdict == compare.CoveredWithExclusions {
					compared++
				}
			}
		}
		switch {
		case len(okParts) == 0:
			return "✅ Check 3: covered"
		case compared == 0 && ok["not verified (allowed)"] == 0:
			// only keys the policy version does not cover
			return "✅ Check 3: no gaps, nothing in scope — " + strings.Join(okParts, ", ")
		case ok["not verified (allowed)"] > 0 && compared == 0:
			// nothing was compared: never call that covered
			return "✅ Check 3: no gaps, nothing compared — " + strings.Join(okParts, ", ")
		case ok["not verified (allowed)"] > 0 || ok[string(compare.NotApplicable)] > 0:
			return "✅ Check 3: no gaps — " + strings.Join(okParts, ", ")
		}
		return "✅ Check 3: covered — " + strings.Join(okParts, ", ")
	}
	if n == 0 {
		// a gap the counts above do not name (a role verdict under a
		// point that is not itself failing cannot happen; kept fail-closed)
		return "❌ Check 3: gap"
	}
	head := fmt.Sprintf("❌ Check 3: %d %s — %s", n, plural(n, "gap", "gaps"), strings.Join(parts, ", "))
	if len(r.Keys) > 0 {
		var okParts []string
		for _, k := range []string{string(compare.Covered), string(compare.CoveredWithExclusions), "not verified (allowed)", string(compare.NotApplicable)} {
			if ok[k] > 0 {
				okParts = append(okParts, fmt.Sprintf("%s %d", k, ok[k]))
			}
		}
		head += fmt.Sprintf(" (of %d config %s", len(r.Keys), plural(len(r.Keys), "key", "keys"))
		if len(okParts) > 0 {
			head += "; " + strings.Join(okParts, ", ")
		}
		return head + ")"
	}
	if rs := roleGaps(r); rs != "" {
		head += " (roles: " + rs + ")"
	}
	return head
}

// roleGaps counts the failing role verdicts of the cookbook points and vLLM
// rows ("prohibited 7, differs 7") when they say more than the point and
// row verdicts do (a point's verdict is its worst role's, so a differing
// role under a prohibited point is otherwise not named); "" when they add
// nothing.
func roleGaps(r *Report) string {
	roles := map[compare.Verdict]int{}
	units := map[compare.Verdict]int{}
	for _, p := range r.Points {
		units[p.Verdict]++
		for _, res := range p.Roles {
			if res.Verdict.Gap() {
				roles[res.Verdict]++
			}
		}
	}
	for _, k := range r.UpstreamKeys() {
		for _, row := range k.Rows {
			units[row.Verdict]++
			for _, ro := range row.Roles {
				if ro.Verdict.Gap() {
					roles[ro.Verdict]++
				}
			}
		}
	}
	hidden := false
	for v := range roles {
		if units[v] == 0 {
			hidden = true
		}
	}
	if !hidden {
		return ""
	}
	var parts []string
	for _, v := range slices.Backward(compare.Verdicts()) {
		if roles[v] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", v, roles[v]))
		}
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
