package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TextOptions tunes PrintText.
type TextOptions struct {
	// Width is the terminal's width in columns; tables wider than it get
	// their widest free-text column (config key, recipe place) shortened
	// with "…". 0 = no limit (a file or a pipe).
	Width int
}

// PrintText writes the report for a terminal: the headline (Headline),
// one table row per role of every compared point (one row for the other
// points), then every gap with its differences, then the sources and the
// totals. Errors are w's.
func PrintText(w io.Writer, r *Report, opt TextOptions) error {
	r = escapedReport(r, launch.EscapeLine) // every value from a checkout on one line
	var b bytes.Buffer
	b.WriteString(Headline(r) + "\n\n")
	if len(r.Keys) > 0 {
		r.keysText(&b, opt.Width)
	}
	cookbook := r.Cookbook != nil || len(r.Points) > 0
	if cookbook {
		r.cookbookText(&b, opt.Width)
	}
	if r.VLLM != nil || r.Pages != nil {
		r.vllmText(&b, opt.Width)
	}
	b.WriteString("\n")
	for _, f := range r.CookbookFiles {
		id := "sha256:" + f.SHA256
		if f.Commit != "" {
			id = "commit " + f.Commit
			if f.Dirty {
				id += " (modified)"
			}
		}
		fmt.Fprintf(&b, "Cookbook: %s (%s)\n", f.Path, id)
	}
	if r.InferenceX.Commit != "" {
		fmt.Fprintf(&b, "InferenceX: %s (commit %s)\n", r.InferenceX.Dir, r.InferenceX.Commit)
	} else {
		fmt.Fprintf(&b, "InferenceX: %s (not a git checkout: commit drift unknown)\n", r.InferenceX.Dir)
	}
	if v := r.VLLMRecipes; v != nil {
		if v.Commit != "" {
			fmt.Fprintf(&b, "vLLM recipes: %s (commit %s)\n", v.Dir, v.Commit)
		} else {
			fmt.Fprintf(&b, "vLLM recipes: %s (not a git checkout)\n", v.Dir)
		}
	}
	if cookbook {
		fmt.Fprintf(&b, "Roles: %s\n", strings.Join(sortedCounts(r.Counts.Roles), ", "))
		fmt.Fprintf(&b, "Points: %s\n", strings.Join(sortedCounts(r.Counts.Points), ", "))
	}
	if r.Pages != nil {
		fmt.Fprintf(&b, "SGLang pages keys: %s\n", strings.Join(sortedCounts(r.Counts.Pages), ", "))
		fmt.Fprintf(&b, "SGLang pages rows: %s\n", strings.Join(sortedCounts(r.Counts.PagesRows), ", "))
		fmt.Fprintf(&b, "SGLang pages roles: %s\n", strings.Join(sortedCounts(r.Counts.PagesRoles), ", "))
	}
	if r.VLLM != nil {
		fmt.Fprintf(&b, "vLLM keys: %s\n", strings.Join(sortedCounts(r.Counts.VLLM), ", "))
		fmt.Fprintf(&b, "vLLM rows: %s\n", strings.Join(sortedCounts(r.Counts.VLLMRows), ", "))
		fmt.Fprintf(&b, "vLLM roles: %s\n", strings.Join(sortedCounts(r.Counts.VLLMRoles), ", "))
	}
	if len(r.Upstream) > 0 {
		fmt.Fprintf(&b, "Upstream links: %s\n", strings.Join(sortedCounts(r.Counts.Links), ", "))
	}
	if n := r.Counts.Unverified; n > 0 {
		fmt.Fprintf(&b, "Not verified: %d %s\n", n, r.unverifiedNote())
	}
	if r.Policy.ID != "" {
		fmt.Fprintf(&b, "Check 3 policy: %s — %s (scope %s, strictness %s; %s)\n", r.Policy.ID, r.Policy.Title, r.Policy.Scope, r.Policy.Strictness, r.Policy.From)
	}
	fmt.Fprintf(&b, "Exclusion policy: %s\n", r.Policy.Version)
	b.WriteString(r.linksText())
	// A value can still begin a line (the first column): no line may be
	// a GitHub Actions workflow command when the report is printed in a
	// step (the runner trims leading white space, so indenting is not
	// enough): launch.GuardLines puts an empty quoted string before it.
	_, err := io.WriteString(w, launch.GuardLines(b.String()))
	return err
}

// unverifiedNote says what the points and rows that were not verified do
// to the exit status.
func (r *Report) unverifiedNote() string {
	if r.AllowUnverified {
		return "(listed, not a gap: --allow-unverified)"
	}
	return "(a gap: their settings were not compared; --allow-unverified lists them without failing)"
}

// cookbookText writes the cookbook points' table and gaps.
func (r *Report) cookbookText(b *bytes.Buffer, width int) {
	tw := newTable(b, width, []int{10, 9, 8, 7, 11, 4, 3}, []int{0})
	fmt.Fprintln(tw, "CONFIG KEY\tCELL\tPT\tROUTER\tKV\tROLE\tVERDICT\tMATCHED\tDIFF\tEXCL\tINFO\tDRIFT")
	for _, p := range r.Points {
		id := cellTag(p.CellID)
		if p.Status != StatusCompared {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t-\t%s\t\t\t\t\t%s\n", p.ConfigKey, id, p.Point, p.Router, p.KV, p.Status, p.Drift.State)
			continue
		}
		for _, res := range p.Roles {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", p.ConfigKey, id, p.Point, p.Router, p.KV,
				roleName(res), res.Verdict, res.Matched, len(res.Differences), len(res.Excluded), len(res.Info), p.Drift.State)
		}
	}
	tw.Flush()
	first := true
	head := func() {
		if first {
			b.WriteString("\nGaps:\n")
			first = false
		}
	}
	fs := pointFindings(Findings(r))
	// each failing role with its settings, then errors, then the points
	// not verified (grouped), as one list of findings
	var prev *compare.Result
	for _, f := range fs {
		if f.Role == nil || !f.Class.Fails() {
			continue
		}
		p, res := f.Point, f.Role
		if res != prev {
			head()
			fmt.Fprintf(b, "  %s point %d %s: %s\n", p.CellID, p.Point, roleName(*res), res.Verdict)
			if res.Note != "" {
				fmt.Fprintf(b, "    %s\n", res.Note)
			}
			prev = res
		}
		switch {
		case f.Difference != nil:
			d := f.Difference
			fmt.Fprintf(b, "    %s: upstream %s, inferencex %s", d.Setting, val(d.Upstream), val(d.InferenceX))
			if d.Note != "" {
				fmt.Fprintf(b, " (%s)", d.Note)
			}
			b.WriteString("\n")
		case f.Prohibited != nil:
			fmt.Fprintf(b, "    %s\n", prohibitedText(*f.Prohibited, "upstream", "inferencex"))
		case f.Unknown != nil:
			fmt.Fprintf(b, "    %s\n", unknownText(*f.Unknown))
		}
	}
	for _, f := range fs {
		if f.Role == nil && f.Class == ClassError {
			head()
			fmt.Fprintf(b, "  %s point %d: error: %s\n", f.Point.CellID, f.Point.Point, f.Point.Message)
		}
	}
	failing, allowed := map[*PointResult]bool{}, map[*PointResult]bool{}
	for _, f := range fs {
		switch {
		case f.Role != nil || f.Class == ClassError || f.Class == ClassInfo:
		case f.Class == ClassAllowed:
			allowed[f.Point] = true
		default:
			failing[f.Point] = true
		}
	}
	for _, g := range unverifiedGroups(r.Points, func(p *PointResult) bool { return failing[p] }) {
		head()
		b.WriteString(g)
	}
	if gs := unverifiedGroups(r.Points, func(p *PointResult) bool { return allowed[p] }); len(gs) > 0 {
		b.WriteString("\nNot verified (--allow-unverified: listed, not a gap):\n")
		for _, g := range gs {
			b.WriteString(g)
		}
	}
}

// pointFindings are the findings of cookbook points, in order.
func pointFindings(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Point != nil {
			out = append(out, f)
		}
	}
	return out
}

// unknownText describes a setting whose content is not known for the text
// Gaps.
func unknownText(d compare.Difference) string {
	s := fmt.Sprintf("%s: not verified: %s (upstream %s, inferencex %s)", d.Setting, compare.ContentNotKnown, val(d.Upstream), val(d.InferenceX))
	if d.Note != "" {
		s += ": " + d.Note
	}
	return s
}

// vllmText writes one table row per role of every vLLM-family key row (one
// row for rows without roles), one verdict line per key (its worst row
// outcome, with the count of its rows per outcome), then the gaps: every
// difference (vllm-recipes value vs inferencex value), every prohibited
// setting with the side(s) carrying it, every role no recipe covers with
// the nearest candidate and what it misses, every row that was not verified
// (unless --allow-unverified, which lists them apart) and every error.
func (r *Report) vllmText(b *bytes.Buffer, width int) {
	if len(r.Points) > 0 || r.Cookbook != nil {
		b.WriteString("\n")
	}
	b.WriteString("Config keys judged from the InferenceX side — vLLM-family keys vs vllm-project/recipes, SGLang-family keys vs the SGLang cookbook pages; UPSTREAM = the recipe role or page selection matched:\n")
	tw := newTable(b, width, []int{10, 9, 8, 7, 3, 2}, []int{11, 0})
	fmt.Fprintln(tw, "CONFIG KEY\tROW\tCONCS\tSTATUS\tROLE\tTOPO\tVERDICT\tMATCHED\tDIFF\tEXCL\tINFO\tUPSTREAM")
	for _, k := range r.UpstreamKeys() {
		for _, row := range k.Rows {
			if len(row.Roles) == 0 {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t-\t\t%s\t\t\t\t\t-\n", k.ConfigKey, row.Row, concRange(row.Concs), row.Status, row.Verdict)
				continue
			}
			for _, ro := range row.Roles {
				m, d, x, i := "", "", "", ""
				if res := ro.Result; res != nil {
					m, d, x, i = fmt.Sprint(res.Matched), fmt.Sprint(len(res.Differences)), fmt.Sprint(len(res.Excluded)), fmt.Sprint(len(res.Info))
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ConfigKey, row.Row, concRange(row.Concs), row.Status,
					ro.Role, ro.Topology, ro.Verdict, m, d, x, i, ro.place())
			}
		}
	}
	tw.Flush()
	b.WriteString("\nKey verdicts of these sources alone (worst row: error > prohibited > differs > missing = no recipe covers this > not verified > covered-with-exclusions > covered):\n")
	tw = newTable(b, width, nil, []int{0, 2})
	for _, k := range r.UpstreamKeys() {
		rows := map[string]int{}
		for _, row := range k.Rows {
			rows[string(row.Verdict)]++
		}
		tag := ""
		if k.Verdict.NotVerified() {
			tag = " (not verified)"
		}
		fmt.Fprintf(tw, "  %s\t%s%s\trows: %s\n", k.ConfigKey, k.Verdict, tag, strings.Join(sortedCounts(rows), ", "))
	}
	tw.Flush()
	first := true
	head := func() {
		if first {
			b.WriteString("\nGaps of the keys judged from the InferenceX side:\n")
			first = false
		}
	}
	var unverified, allowed []string
	var inputs []Finding
	var prev *RoleMatch
	for _, f := range Findings(r) {
		switch {
		case f.Input != "":
			inputs = append(inputs, f)
			continue
		case f.Row == nil:
			continue
		}
		k, row := f.Key, f.Row
		if f.Match == nil {
			if f.Class == ClassInfo || f.Class == ClassOK {
				continue
			}
			if f.Class == ClassError {
				head()
				fmt.Fprintf(b, "  %s row %d: error: %s\n", k.ConfigKey, row.Row, row.Message)
				continue
			}
			u := fmt.Sprintf("  %s row %d conc %s: not verified: %s\n", k.ConfigKey, row.Row, concRange(row.Concs), row.Status)
			if row.Recipe != "" {
				rec := row.Recipe
				if row.Selector != "" {
					rec += ":" + row.Selector
				}
				u += fmt.Sprintf("    inferencex: %s\n", rec)
			}
			if row.Message != "" {
				u += fmt.Sprintf("    %s\n", row.Message)
			}
			if f.Class == ClassAllowed {
				allowed = append(allowed, u)
			} else {
				unverified = append(unverified, u)
			}
			continue
		}
		if !f.Class.Fails() {
			continue
		}
		ro := f.Match
		if ro != prev {
			prev = ro
			head()
			fmt.Fprintf(b, "  %s row %d conc %s %s (%s): %s\n", k.ConfigKey, row.Row, concRange(row.Concs), ro.Role, ro.Topology, ro.Verdict)
			if ro.Verdict == compare.NotCovered || ro.Recipe == nil {
				if ro.Nearest != nil {
					fmt.Fprintf(b, "    nearest upstream: %s\n", ro.Nearest.Where)
				}
				for _, m := range ro.Misses {
					fmt.Fprintf(b, "    %s\n", m)
				}
				continue
			}
			fmt.Fprintf(b, "    upstream: %s\n", ro.Recipe.Where)
			if ro.Recipe.URL != "" {
				fmt.Fprintf(b, "    site: %s\n", ro.Recipe.URL)
			}
			if res := ro.Result; res != nil && res.Note != "" {
				fmt.Fprintf(b, "    %s\n", res.Note)
			}
		}
		switch {
		case f.Difference != nil:
			d := f.Difference
			fmt.Fprintf(b, "    %s: upstream %s, inferencex %s", d.Setting, val(d.Upstream), val(d.InferenceX))
			if d.Note != "" {
				fmt.Fprintf(b, " (%s)", d.Note)
			}
			b.WriteString("\n")
		case f.Prohibited != nil:
			fmt.Fprintf(b, "    %s\n", prohibitedText(*f.Prohibited, "upstream", "inferencex"))
		case f.Unknown != nil:
			fmt.Fprintf(b, "    %s\n", unknownText(*f.Unknown))
		}
	}
	for _, u := range unverified {
		head()
		b.WriteString(u)
	}
	// the inputs that failed: time limits, page errors, vLLM recipe errors
	for _, kind := range []string{InputTimeLimit, InputPage, InputVLLMRecipe} {
		for _, f := range inputs {
			if f.Input != kind {
				continue
			}
			head()
			switch kind {
			case InputTimeLimit:
				fmt.Fprintf(b, "  %s\n", f.InputText)
			case InputPage:
				fmt.Fprintf(b, "  cookbook page error: %s\n", f.InputText)
			default:
				fmt.Fprintf(b, "  vLLM recipe error: %s\n", f.InputText)
			}
		}
	}
	if len(allowed) > 0 {
		b.WriteString("\nRows not verified (--allow-unverified: listed, not a gap):\n")
		for _, u := range allowed {
			b.WriteString(u)
		}
	}
}

// linkLine is "<state> <url> (<detail>)" for the text report.
func linkLine(l Link) string {
	var detail []string
	switch {
	case l.MergedAt != nil:
		detail = append(detail, "mergedAt "+l.MergedAt.UTC().Format(time.RFC3339))
	case l.Kind == "page" && l.File != "":
		detail = append(detail, fmt.Sprintf("%s %s@%s", l.File, l.Repo, l.Branch))
	}
	if l.Error != "" {
		detail = append(detail, "error: "+l.Error)
	}
	s := fmt.Sprintf("%-15s %s", l.State, l.URL)
	if len(detail) > 0 {
		s += " (" + strings.Join(detail, "; ") + ")"
	}
	return s
}

func (r *Report) linksText() string {
	if len(r.Upstream) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nUpstream links (Check 3 (b): merged PR or published page):\n")
	for _, l := range r.Upstream {
		mark := "ok  "
		if !l.OK {
			mark = "GAP "
		}
		fmt.Fprintf(&b, "  %s%s\n", mark, linkLine(l))
	}
	return b.String()
}

// keysText writes the one verdict of each config key (Report.Keys): the
// key, its verdict, the source it comes from and its units, then, for the
// deployments a source covers, what the other sources document
// differently (information).
func (r *Report) keysText(b *bytes.Buffer, width int) {
	b.WriteString("Config keys — one verdict per key from every source (a deployment is covered by one selection of one source: AgentX cell, cookbook page, vLLM recipe):\n")
	tw := newTable(b, width, nil, []int{0, 3})
	fmt.Fprintln(tw, "CONFIG KEY\tVERDICT\tFROM\tDEPLOYMENTS")
	for _, k := range r.Keys {
		from := k.Source
		if from == "" {
			from = strings.Join(k.Sources, "+")
		}
		fmt.Fprintf(tw, "%s\t%s%s\t%s\t%s\n", k.ConfigKey, k.Verdict, r.allowedTag(k.Verdict), from, unitsSummary(k))
	}
	tw.Flush()
	first := true
	for _, k := range r.Keys {
		for _, u := range k.Units {
			var also []string
			for _, o := range u.Others {
				a := fmt.Sprintf("%s %s (%s)", o.Source, o.Selection, o.Verdict)
				if len(o.Shows) > 0 {
					a += " shows " + strings.Join(o.Shows, "; ")
				}
				also = append(also, a)
			}
			if len(also) == 0 {
				continue
			}
			if first {
				b.WriteString("\nInformation — what the other sources document for each deployment (its verdict comes from the source named first):\n")
				first = false
			}
			fmt.Fprintf(b, "  %s %s: %s by %s %s\n", k.ConfigKey, unitPlace(u), u.Verdict, u.Source, u.Selection)
			for _, a := range also {
				fmt.Fprintf(b, "    %s\n", a)
			}
		}
	}
	b.WriteString("\n")
}

// unitPlace is "row 0 conc 1-16" (or "conc 8" for a unit placed on no row).
func unitPlace(u UnitVerdict) string {
	if u.Row == nil {
		return "conc " + concRange(u.Concs)
	}
	return fmt.Sprintf("row %d conc %s", *u.Row, concRange(u.Concs))
}

// unitsSummary counts a key's units by verdict ("5 covered-with-exclusions";
// the note of a key without units).
func unitsSummary(k KeyVerdict) string {
	if len(k.Units) == 0 {
		return k.Note
	}
	n := map[string]int{}
	for _, u := range k.Units {
		n[string(u.Verdict)] += len(u.Concs)
	}
	return strings.Join(sortedCounts(n), ", ")
}
