package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// MarkdownOptions tunes PrintMarkdown.
type MarkdownOptions struct {
	// Limit is the most bytes written (0 = DefaultMarkdownLimit). Bytes
	// bound GitHub's character count from above (a character is at most as
	// many UTF-16 units as UTF-8 bytes).
	Limit int
	// JSONHint is the command that gives the whole report as JSON (e.g.
	// "cookbook-sync coverage --infx <InferenceX> … --format json"), named
	// when the Markdown is cut. It names input directories by placeholder,
	// never by local path: JSONInputs says what each stands for.
	JSONHint string
	// JSONInputs are the checkouts JSONHint names by placeholder, printed
	// after it with their repository and commit ("where `<InferenceX>` is
	// `SemiAnalysisAI/InferenceX@<sha>`"), so that the command reproduces
	// the run on any machine.
	JSONInputs []HintInput
}

// HintInput is one input checkout of MarkdownOptions.JSONHint.
type HintInput struct {
	// Placeholder is its name in the command ("<InferenceX>").
	Placeholder string
	// Repo is the checkout as the report records it: its Repo and Commit
	// are printed, never its Dir; nil or no Commit: "(not a git checkout:
	// no commit)".
	Repo *RepoInfo
	// Default names the repository when Repo does not
	// ("SemiAnalysisAI/InferenceX").
	Default string
}

// HintWhere says what each placeholder of a JSONHint stands for:
// "where `<InferenceX>` is `SemiAnalysisAI/InferenceX@<full sha>`, `<sglang>`
// is `sgl-project/sglang` (not a git checkout: no commit)"; "" without
// inputs. No local directory appears in it.
func HintWhere(ins []HintInput) string {
	var parts []string
	for _, in := range ins {
		name, commit := in.Default, ""
		if in.Repo != nil {
			if in.Repo.Repo != "" {
				name = in.Repo.Repo
			}
			commit = in.Repo.Commit
		}
		ph := "`" + strings.ReplaceAll(in.Placeholder, "`", "'") + "`"
		if commit == "" {
			parts = append(parts, fmt.Sprintf("%s is `%s` (not a git checkout: no commit)", ph, name))
		} else {
			parts = append(parts, fmt.Sprintf("%s is `%s@%s`", ph, name, commit))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "where " + strings.Join(parts, ", ")
}

// DefaultMarkdownLimit keeps a report under GitHub's 65,536-character
// comment limit with room for a reviewer's own words.
const DefaultMarkdownLimit = 60000

// PrintMarkdown writes the report as evidence a reviewer pastes into a
// Check 3 sign-off:
//
//  1. the verdict on the first line (Headline);
//  2. the scope: each upstream repository at its commit, the exclusion
//     policy, the counts;
//  3. the gaps, grouped by config key → role → setting, each with the
//     points (cell#point, concurrencies) or vLLM rows it holds for — not
//     one table per concurrency;
//  4. the exclusions, listed once per config key with their class, rule,
//     reason and policy;
//  5. per-key evidence in <details>: every point or row with its variant,
//     verdict, matched-settings count, commit drift and source links.
//
// Files are GitHub permalinks (https://github.com/<repo>/blob/<sha>/<path>
// #L<n>) when the checkout is a git repository, else repository-relative
// paths; a local directory never appears (Report.LocalDirs are removed from
// every message). Sections that would take the output past opt.Limit are
// cut, evidence first, then exclusions, then gaps, with a pointer to
// opt.JSONHint for the rest. Errors are w's.
func PrintMarkdown(w io.Writer, r *Report, opt MarkdownOptions) error {
	limit := opt.Limit
	if limit <= 0 {
		limit = DefaultMarkdownLimit
	}
	// every value on one line (oneLine), then each in a code span
	// (mdCell), as inert text (mdText) or HTML-escaped (htmlEsc)
	m := &md{r: escapedReport(r, mdOneLine), limit: limit}
	if opt.JSONHint != "" {
		m.hint = "`" + strings.ReplaceAll(opt.JSONHint, "`", "'") + "`"
		if w := HintWhere(opt.JSONInputs); w != "" {
			m.hint += ", " + w
		}
	}
	m.write()
	_, err := io.WriteString(w, m.out.String())
	return err
}

// md is one Markdown rendering.
type md struct {
	r     *Report
	limit int
	hint  string // the JSON command in backticks, and what its placeholders stand for
	out   strings.Builder
	cut   []string // sections cut for size
	// sc is r's scrubber (scrub), made at first use
	sc func(string) string
}

// keyBlock is one config key's part of a section; short, when set, is a
// one-line summary printed instead when text no longer fits.
type keyBlock struct {
	key   string
	text  string
	short string
}

// maxGapRows bounds the table rows and list items of one key's gaps; the
// rest is counted and left to the JSON.
const maxGapRows = 25

func (m *md) write() {
	r := m.r
	m.out.WriteString(Headline(r) + "\n\n")
	m.out.WriteString(m.scope())
	gaps := m.gapBlocks()
	excl := m.exclusionBlocks()
	evid := m.evidenceBlocks()
	// reserve room for the trailer naming what was cut
	reserve := 600 + len(m.hint)
	m.section("## Config keys (one verdict per key from every source)\n\n| config key | verdict | from | deployments |\n|---|---|---|---|\n", "config keys", m.keyBlocks(), reserve)
	m.section("## Gaps\n\n", "gaps", gaps, reserve)
	m.section("## Other sources (information)\n\n| config key | deployment | source | selection | verdict | documents differently |\n|---|---|---|---|---|---|\n", "other sources", m.otherBlocks(), reserve)
	m.section("## Exclusions (once per config key)\n\n", "exclusions", excl, reserve)
	m.section("## Evidence\n\n", "evidence", evid, reserve)
	if len(m.cut) > 0 {
		fmt.Fprintf(&m.out, "\n---\n✂️ Cut to stay under %d characters: %s.", m.limit, strings.Join(m.cut, "; "))
		if m.hint != "" {
			fmt.Fprintf(&m.out, " The whole report: %s.", m.hint)
		}
		m.out.WriteString("\n")
	}
}

// section writes a heading and as many key blocks as fit; the rest is
// named in m.cut.
func (m *md) section(head, name string, blocks []keyBlock, reserve int) {
	if len(blocks) == 0 {
		return
	}
	first := blocks[0].text
	if blocks[0].short != "" {
		first = blocks[0].short
	}
	if m.out.Len()+len(head)+len(first)+reserve > m.limit {
		// not even one key fits: no empty heading
		m.cut = append(m.cut, fmt.Sprintf("%s of %d config %s", name, len(blocks), plural(len(blocks), "key", "keys")))
		return
	}
	m.out.WriteString(head)
	shortened := 0
	for i, b := range blocks {
		if m.out.Len()+len(b.text)+reserve > m.limit {
			if b.short != "" && m.out.Len()+len(b.short)+reserve <= m.limit {
				m.out.WriteString(b.short)
				shortened++
				continue
			}
			var keys []string
			for _, x := range blocks[i:] {
				keys = append(keys, clip(x.key, 48))
			}
			m.cut = append(m.cut, fmt.Sprintf("%s of %d more config %s (%s)", name, len(blocks)-i, plural(len(blocks)-i, "key", "keys"), mdText(shortList(keys, 4))))
			break
		}
		m.out.WriteString(b.text)
	}
	if shortened > 0 {
		m.cut = append(m.cut, fmt.Sprintf("%s of %d config %s shown as one line", name, shortened, plural(shortened, "key", "keys")))
	}
}

// clip shortens s to at most n runes, keeping its start and end ("a…z").
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 5 {
		return s
	}
	h := (n - 1) / 2
	return string(r[:h]) + "…" + string(r[len(r)-(n-1-h):])
}

// ClipEnd cuts s to at most n bytes at a character boundary, marking the
// cut with "…" (for printers outside this package: signoff's comment, the
// drift table).
func ClipEnd(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func shortList(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(", … %d more", len(xs)-n)
}

// scope is the list of what was compared against what.
func (m *md) scope() string {
	r := m.r
	var b strings.Builder
	if r.Cookbook != nil || len(r.Points) > 0 {
		fmt.Fprintf(&b, "- Upstream: SGLang cookbook %s, %d AgentX %s", repoRef(r.Cookbook, "sgl-project/sglang"), len(r.CookbookFiles), plural(len(r.CookbookFiles), "snippet", "snippets"))
		// the content read, pinned: without a commit the sha256 is the
		// only record of what was compared
		var fs []string
		for _, f := range r.CookbookFiles {
			name := f.Path[strings.LastIndexByte(f.Path, '/')+1:]
			dirty := ""
			if f.Dirty {
				dirty = ", modified"
			}
			fs = append(fs, fmt.Sprintf("%s sha256 `%s`%s", mdCell(name), short(f.SHA256), dirty))
		}
		if len(fs) > 0 {
			b.WriteString(": " + shortList(fs, 8))
		}
		b.WriteString("\n")
	}
	if r.VLLMRecipes != nil {
		fmt.Fprintf(&b, "- Upstream: vLLM recipes %s\n", repoRef(r.VLLMRecipes, "vllm-project/recipes"))
	}
	fmt.Fprintf(&b, "- InferenceX: %s", repoRef(&r.InferenceX, "SemiAnalysisAI/InferenceX"))
	if r.InferenceX.Commit == "" && len(r.Points) > 0 {
		b.WriteString(": commit drift since each cell's prov.sha is unknown")
	}
	b.WriteString("\n")
	if r.SrtSlurm != nil {
		fmt.Fprintf(&b, "- srt-slurm recipes: %s\n", repoRef(r.SrtSlurm, "NVIDIA/srt-slurm"))
	}
	if r.Policy.ID != "" {
		fmt.Fprintf(&b, "- Check 3 policy: %s — %s (scope %s, strictness %s; %s)\n", mdCell(r.Policy.ID), mdText(r.Policy.Title), mdText(r.Policy.Scope), mdText(r.Policy.Strictness), mdText(m.scrub(r.Policy.From)))
	}
	fmt.Fprintf(&b, "- Exclusion policy: %s", mdCell(r.Policy.Version))
	var ps []string
	for _, p := range r.Policy.Policies {
		ps = append(ps, mdCell(p.ID))
	}
	if len(ps) > 0 {
		b.WriteString(" (rules from " + strings.Join(ps, ", ") + ")")
	}
	b.WriteString("\n")
	if len(r.Points) > 0 {
		fmt.Fprintf(&b, "- Cookbook points: %s", strings.Join(sortedCounts(r.Counts.Points), ", "))
		if len(r.Counts.Roles) > 0 {
			fmt.Fprintf(&b, " · roles: %s", strings.Join(sortedCounts(r.Counts.Roles), ", "))
		}
		b.WriteString("\n")
	}
	if r.VLLM != nil {
		fmt.Fprintf(&b, "- vLLM-family keys: %s · rows: %s · roles: %s\n", strings.Join(sortedCounts(r.Counts.VLLM), ", "),
			strings.Join(sortedCounts(r.Counts.VLLMRows), ", "), strings.Join(sortedCounts(r.Counts.VLLMRoles), ", "))
	}
	if r.Pages != nil {
		fmt.Fprintf(&b, "- Upstream: SGLang cookbook pages %s\n", repoRef(r.PagesRepo, "sgl-project/sglang"))
		fmt.Fprintf(&b, "- SGLang-family keys vs the cookbook pages: %s · rows: %s · roles: %s\n", strings.Join(sortedCounts(r.Counts.Pages), ", "),
			strings.Join(sortedCounts(r.Counts.PagesRows), ", "), strings.Join(sortedCounts(r.Counts.PagesRoles), ", "))
	}
	if n := r.Counts.Unverified; n > 0 {
		fmt.Fprintf(&b, "- Not verified: %d %s\n", n, r.unverifiedNote())
	}
	if len(r.Upstream) > 0 {
		b.WriteString("- Upstream links (Check 3 (b): a merged PR or a published page):\n")
		for _, l := range r.Upstream {
			mark := "✅"
			if !l.OK {
				mark = "❌"
			}
			fmt.Fprintf(&b, "  - %s %s — %s", mark, mdLinkURL(l.URL), mdText(l.State))
			if l.MergedAt != nil {
				fmt.Fprintf(&b, " %s", l.MergedAt.UTC().Format("2006-01-02T15:04:05Z"))
			}
			if l.Error != "" {
				fmt.Fprintf(&b, " (%s)", mdText(m.scrub(l.Error)))
			}
			b.WriteString("\n")
		}
	}
	for i, e := range r.TimeLimits {
		if i == 5 {
			fmt.Fprintf(&b, "- … %d more stopped by the time limit (the JSON has every one)\n", len(r.TimeLimits)-i)
			break
		}
		fmt.Fprintf(&b, "- ⏱ %s\n", mdCell(clip(m.scrub(e), 300)))
	}
	for i, e := range r.PageErrors {
		if i == 5 {
			fmt.Fprintf(&b, "- … %d more cookbook page errors (the JSON has every one)\n", len(r.PageErrors)-i)
			break
		}
		fmt.Fprintf(&b, "- cookbook page error: %s\n", mdCell(clip(m.scrub(e), 300)))
	}
	for i, e := range r.VLLMRecipeErrors {
		if i == 5 {
			fmt.Fprintf(&b, "- … %d more vLLM recipe errors (the JSON has every one)\n", len(r.VLLMRecipeErrors)-i)
			break
		}
		fmt.Fprintf(&b, "- vLLM recipe error: %s\n", mdCell(clip(m.scrub(e), 300)))
	}
	b.WriteString("- Sides: **upstream** is the documentation (cookbook snippet or page, vLLM recipe), **inferencex** the effective InferenceX recipe.\n\n")
	return b.String()
}

// repoRef is "[owner/name@sha12](https://github.com/owner/name/tree/sha)"
// when the commit is known, else the repository's name with "(no commit)".
func repoRef(ri *RepoInfo, def string) string {
	if ri == nil {
		return "`" + def + "`"
	}
	name := ri.Repo
	if name == "" {
		name = def
	}
	if ri.Commit == "" {
		return mdCell(name) + " (not a git checkout: no commit)"
	}
	return fmt.Sprintf("[%s](%s)", mdCell(name+"@"+short(ri.Commit)), mdURL("https://github.com/"+name+"/tree/"+ri.Commit))
}

// mdURL makes a link destination built from values of a checkout (a
// repository name, a file path) unable to leave the Markdown link: every
// byte outside RFC 3986's unreserved and reserved characters, and the
// ones Markdown gives a meaning there ( ( ) < > [ ] ` ' " \ ), is
// percent-encoded (GitHub decodes them back to the same path). A clean
// URL is unchanged.
func mdURL(u string) string {
	const keep = "-._~:/?#@!$&*+,;=%"
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// scrub removes every local directory of the run from s (LocalDirs), so
// paths read as repository-relative.
func (m *md) scrub(s string) string {
	if m.sc == nil {
		m.sc = m.r.scrubber()
	}
	return m.sc(s)
}

// pointLabel is "#<cell>·p<point>" (the cell id's "#n" and the point
// index).
func pointLabel(p PointResult) string {
	return mdText(fmt.Sprintf("%s·p%d", cellTag(p.CellID), p.Point))
}

// labels joins point or row labels compactly, at most 12 of them.
func labels(ls []string) string {
	seen := map[string]bool{}
	var u []string
	for _, l := range ls {
		if !seen[l] {
			seen[l] = true
			u = append(u, l)
		}
	}
	return shortList(u, 12)
}

// gapLine is one grouped gap: a setting (or a role, a status) with the
// points it holds for.
type gapLine struct {
	role, what, up, ix, note string
	// md is a note already in safe Markdown (our own links), printed as is
	md     string
	points []string
	concs  []int
}

// gapGroups collects gap lines in first-seen order under a grouping key.
type gapGroups struct {
	order []string
	lines map[string]*gapLine
}

func (g *gapGroups) add(k string, l gapLine, point string, concs []int) {
	if g.lines == nil {
		g.lines = map[string]*gapLine{}
	}
	x, ok := g.lines[k]
	if !ok {
		x = &l
		g.lines[k] = x
		g.order = append(g.order, k)
	}
	x.points = append(x.points, point)
	x.concs = append(x.concs, concs...)
}

// gapBlocks is the Gaps section: one block per config key with a gap,
// worst key first (then in report order).
func (m *md) gapBlocks() []keyBlock {
	r := m.r
	type keyGaps struct {
		key     string
		verdict compare.Verdict
		diffs   gapGroups // role × setting × values
		roles   gapGroups // missing roles, no recipe covers this
		prohib  gapGroups
		unver   gapGroups // not verified / error: status × message
	}
	var keys []*keyGaps
	byKey := map[string]*keyGaps{}
	get := func(k string) *keyGaps {
		if g, ok := byKey[k]; ok {
			return g
		}
		g := &keyGaps{key: k}
		byKey[k] = g
		keys = append(keys, g)
		return g
	}
	// the findings that fail, under their config key: a key's verdict is
	// the worst of its failing points and rows
	for _, f := range Findings(r) {
		if !f.Class.Fails() || f.Link != nil || f.Input != "" {
			continue
		}
		if p := f.Point; p != nil {
			g := get(p.ConfigKey)
			g.verdict = compare.Worse(g.verdict, p.Verdict)
			pl := pointLabel(*p)
			if f.Role == nil {
				g.unver.add(string(p.Status)+"\x00"+p.Message, gapLine{what: string(p.Status), note: m.scrub(p.Message)}, pl, p.Concs)
				continue
			}
			m.addRoleGap(&g.diffs, &g.roles, &g.prohib, mdText(roleName(*f.Role)), f, pl, p.Concs)
			continue
		}
		k, row := f.Key, f.Row
		g := get(k.ConfigKey)
		g.verdict = compare.Worse(g.verdict, row.Verdict)
		rl := fmt.Sprintf("row %d", row.Row)
		ro := f.Match
		switch {
		case ro == nil:
			what := string(row.Status)
			g.unver.add(what+"\x00"+row.Message, gapLine{what: what, note: m.scrub(row.Message)}, rl, row.Concs)
		case ro.Verdict == compare.NotCovered || ro.Recipe == nil:
			note := ""
			if ro.Nearest != nil {
				note = "nearest: " + m.recipeLink(*k, ro.Nearest)
			}
			if len(ro.Misses) > 0 {
				note += " — misses: " + mdText(strings.Join(ro.Misses, "; "))
			}
			role := mdText(ro.Role + " " + ro.Topology)
			g.roles.add(ro.Role+"\x00"+ro.Topology+"\x00"+note, gapLine{role: role, what: string(ro.Verdict), md: note}, rl, row.Concs)
		default:
			// which recipe role the settings were compared with
			role := mdText(ro.Role+" "+ro.Topology) + " vs " + m.recipeLink(*k, ro.Recipe)
			m.addRoleGap(&g.diffs, &g.roles, &g.prohib, role, f, rl, row.Concs)
		}
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].verdict.Rank() > keys[j].verdict.Rank() })
	var out []keyBlock
	var bad []string
	for _, l := range r.Upstream {
		if !l.OK {
			e := ""
			if l.Error != "" {
				e = " (" + mdText(m.scrub(l.Error)) + ")"
			}
			bad = append(bad, fmt.Sprintf("- %s — **%s**%s: Check 3 (b) needs a merged PR or a published page\n", mdLinkURL(l.URL), mdText(l.State), e))
		}
	}
	if len(bad) > 0 {
		out = append(out, keyBlock{key: "upstream links", text: "### Upstream links\n\n" + strings.Join(bad, "") + "\n"})
	}
	for _, g := range keys {
		var b strings.Builder
		fmt.Fprintf(&b, "### %s — %s\n\n", mdCell(g.key), g.verdict)
		rows, more := 0, 0
		if len(g.diffs.order)+len(g.prohib.order) > 0 {
			b.WriteString("| role | setting | upstream | inferencex | points |\n|---|---|---|---|---|\n")
			prevRole := ""
			for _, grp := range []*gapGroups{&g.prohib, &g.diffs} {
				// the rows of one role (and recipe) together, in first-seen order
				roleAt := map[string]int{}
				for i, k := range grp.order {
					if _, ok := roleAt[grp.lines[k].role]; !ok {
						roleAt[grp.lines[k].role] = i
					}
				}
				sort.SliceStable(grp.order, func(i, j int) bool {
					return roleAt[grp.lines[grp.order[i]].role] < roleAt[grp.lines[grp.order[j]].role]
				})
				for _, k := range grp.order {
					if rows++; rows > maxGapRows {
						more++
						continue
					}
					l := grp.lines[k]
					what := mdCell(l.what)
					if grp == &g.prohib {
						what += " **prohibited**"
					}
					if l.note != "" {
						what += "<br>" + mdText(l.note)
					}
					role := l.role
					if role == prevRole {
						role = "″" // the role (and the recipe it is compared with) of the row above
					}
					prevRole = l.role
					fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", role, what, l.up, l.ix, pointsCell(l))
				}
			}
			if more > 0 {
				fmt.Fprintf(&b, "\n… %d more %s (the JSON has every one).\n", more, plural(more, "setting", "settings"))
			}
			b.WriteString("\n")
		}
		items, moreItems := 0, 0
		for _, k := range g.roles.order {
			if items++; items > maxGapRows {
				moreItems++
				continue
			}
			l := g.roles.lines[k]
			fmt.Fprintf(&b, "- **%s** %s", l.role, l.what)
			switch {
			case l.md != "":
				fmt.Fprintf(&b, " — %s", l.md)
			case l.note != "":
				fmt.Fprintf(&b, " — %s", mdText(l.note))
			}
			fmt.Fprintf(&b, " (%s)\n", pointsCell(l))
		}
		for _, k := range g.unver.order {
			if items++; items > maxGapRows {
				moreItems++
				continue
			}
			l := g.unver.lines[k]
			kind := "not verified: " + l.what
			if l.what == string(StatusError) {
				kind = "error"
			}
			fmt.Fprintf(&b, "- **%s** (%s)", kind, pointsCell(l))
			if l.note != "" {
				fmt.Fprintf(&b, " — %s", mdText(l.note))
			}
			b.WriteString("\n")
		}
		if moreItems > 0 {
			fmt.Fprintf(&b, "- … %d more (the JSON has every one)\n", moreItems)
		}
		if len(g.roles.order)+len(g.unver.order) > 0 {
			b.WriteString("\n")
		}
		var nv, nu int
		for _, k := range g.unver.order {
			nu += len(g.unver.lines[k].points)
		}
		nv = len(g.diffs.order) + len(g.prohib.order) + len(g.roles.order)
		short := fmt.Sprintf("- %s — **%s**: %d %s, %d not verified %s (details in the JSON)\n", mdCell(g.key), g.verdict,
			nv, plural(nv, "setting or role gap", "setting or role gaps"), nu, plural(nu, "point or row", "points or rows"))
		out = append(out, keyBlock{key: g.key, text: b.String(), short: short})
	}
	return out
}

// addRoleGap adds one finding of a failing role under label: a missing
// role (or a role failing with nothing else to show) to roles, a
// prohibited setting to prohib, a differing setting or one whose content
// is not known to diffs.
func (m *md) addRoleGap(diffs, roles, prohib *gapGroups, role string, f Finding, label string, concs []int) {
	res := f.Role
	switch {
	case f.Difference != nil:
		d := f.Difference
		up, ix := mdVal(d.Upstream), mdVal(d.InferenceX)
		k := strings.Join([]string{role, d.Setting, up, ix, d.Note}, "\x00")
		diffs.add(k, gapLine{role: role, what: d.Setting, up: up, ix: ix, note: m.scrub(d.Note)}, label, concs)
	case f.Prohibited != nil:
		x := f.Prohibited
		up, ix := mdVal(x.Upstream), mdVal(x.InferenceX)
		k := strings.Join([]string{role, x.Setting, up, ix, x.Rule}, "\x00")
		prohib.add(k, gapLine{role: role, what: x.Setting, up: up, ix: ix, note: x.Rule + ": " + x.Reason}, label, concs)
	case f.Unknown != nil:
		d := f.Unknown
		up, ix := mdVal(d.Upstream), mdVal(d.InferenceX)
		k := strings.Join([]string{role, d.Setting, up, ix, "unknown"}, "\x00")
		note := "not verified: " + string(compare.ContentNotKnown)
		if d.Note != "" {
			note += ": " + m.scrub(d.Note)
		}
		diffs.add(k, gapLine{role: role, what: d.Setting, up: up, ix: ix, note: note}, label, concs)
	default:
		what := string(res.Verdict)
		roles.add(role+"\x00"+what+"\x00"+res.Note, gapLine{role: role, what: what, note: m.scrub(res.Note)}, label, concs)
	}
}

// pointsCell is "<labels> · conc <range>".
func pointsCell(l *gapLine) string {
	s := labels(l.points)
	if cs := uniqSorted(l.concs); len(cs) > 0 {
		s += " · conc " + concRange(cs)
	}
	return s
}

func uniqSorted(cs []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, c := range cs {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Ints(out)
	return out
}

// exclusionBlocks lists, once per config key, the exclusion rules that
// took settings out of its comparisons (excluded) or made them
// informational (judgment), each rule once with its class, reason and
// policy and the settings and roles it applied to.
func (m *md) exclusionBlocks() []keyBlock {
	type rule struct {
		id, kind, class, reason, policy string
		settings                        []string
		seen                            map[string]bool
		roles                           map[string]bool
	}
	type keyEx struct {
		key   string
		order []string
		rules map[string]*rule
	}
	var keys []*keyEx
	byKey := map[string]*keyEx{}
	add := func(key, kind, role string, x compare.Exclusion) {
		g, ok := byKey[key]
		if !ok {
			g = &keyEx{key: key, rules: map[string]*rule{}}
			byKey[key] = g
			keys = append(keys, g)
		}
		k := kind + "\x00" + x.Rule
		ru, ok := g.rules[k]
		if !ok {
			ru = &rule{id: x.Rule, kind: kind, class: string(x.Class), reason: x.Reason, policy: x.Policy, seen: map[string]bool{}, roles: map[string]bool{}}
			g.rules[k] = ru
			g.order = append(g.order, k)
		}
		if !ru.seen[x.Setting] {
			ru.seen[x.Setting] = true
			ru.settings = append(ru.settings, x.Setting)
		}
		ru.roles[role] = true
	}
	each := func(key string, res compare.Result) {
		for _, x := range res.Excluded {
			add(key, "excluded", res.Role, x)
		}
		for _, x := range res.Info {
			add(key, "informational", res.Role, x)
		}
	}
	for _, p := range m.r.Points {
		for _, res := range p.Roles {
			each(p.ConfigKey, res)
		}
	}
	for _, k := range m.r.UpstreamKeys() {
		for _, row := range k.Rows {
			for _, ro := range row.Roles {
				if ro.Result != nil && ro.Recipe != nil {
					each(k.ConfigKey, *ro.Result)
				}
			}
		}
	}
	var out []keyBlock
	for _, g := range keys {
		n := 0
		for _, ru := range g.rules {
			n += len(ru.settings)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<details><summary><code>%s</code> — %d %s under %d %s</summary>\n\n", htmlEsc(g.key), n, plural(n, "setting", "settings"), len(g.order), plural(len(g.order), "rule", "rules"))
		b.WriteString("| rule | kind | class | settings | roles | reason | policy |\n|---|---|---|---|---|---|---|\n")
		for _, k := range g.order {
			ru := g.rules[k]
			var roles []string
			for r := range ru.roles {
				roles = append(roles, r)
			}
			sort.Strings(roles)
			var sets []string
			for _, x := range ru.settings {
				sets = append(sets, mdCell(x))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", mdText(ru.id), mdText(ru.kind), mdText(ru.class), strings.Join(sets, " "), mdText(strings.Join(roles, ", ")), mdText(ru.reason), mdText(ru.policy))
		}
		b.WriteString("\n</details>\n\n")
		out = append(out, keyBlock{key: g.key, text: b.String()})
	}
	return out
}

// evidenceBlocks gives per config key, in <details>, every point or vLLM
// row: its selection, variant, verdict, matched settings, drift and source
// links.
func (m *md) evidenceBlocks() []keyBlock {
	r := m.r
	var out []keyBlock
	var keys []string
	byKey := map[string][]PointResult{}
	for _, p := range r.Points {
		if _, ok := byKey[p.ConfigKey]; !ok {
			keys = append(keys, p.ConfigKey)
		}
		byKey[p.ConfigKey] = append(byKey[p.ConfigKey], p)
	}
	for _, key := range keys {
		pts := byKey[key]
		v := compare.Verdict("")
		for _, p := range pts {
			v = compare.Worse(v, p.Verdict)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<details><summary><code>%s</code> — %s%s, %d %s</summary>\n\n", htmlEsc(key), v, r.allowedTag(v), len(pts), plural(len(pts), "point", "points"))
		b.WriteString("| point | conc | router | KV | variant | verdict | roles (matched) | drift | upstream |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, p := range pts {
			variant := p.Recipe
			if p.Selector != "" {
				variant += ":" + p.Selector
			}
			if link := r.InferenceX.Permalink(p.RecipeFile, 0); link != "" {
				label := p.RecipeFile[strings.LastIndexByte(p.RecipeFile, '/')+1:]
				if p.Selector != "" {
					label += ":" + p.Selector
				}
				variant = fmt.Sprintf("[%s](%s)", mdCell(label), mdURL(link))
			} else {
				variant = mdCell(variant)
			}
			var roles []string
			for _, res := range p.Roles {
				roles = append(roles, fmt.Sprintf("%s %s (%d)", mdText(roleName(res)), shortVerdict(res.Verdict), res.Matched))
			}
			rs := strings.Join(roles, ", ")
			if p.Status != StatusCompared {
				rs = "see Gaps"
				if p.Status.Verdict().Allowable() && r.AllowUnverified {
					rs = mdText(m.scrub(p.Message))
				}
			}
			drift := mdText(p.Drift.State)
			if p.Drift.Detail != "" {
				drift += ": " + mdText(m.scrub(p.Drift.Detail))
			}
			src := m.fileLink(r.Cookbook, p.File, p.Line)
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", pointLabel(p), concRange(p.Concs), mdText(p.Router), mdText(p.KV), variant, p.Verdict, rs, drift, src)
		}
		b.WriteString("\n</details>\n\n")
		out = append(out, keyBlock{key: key, text: b.String()})
	}
	for _, k := range r.UpstreamKeys() {
		var b strings.Builder
		fmt.Fprintf(&b, "<details><summary><code>%s</code> (%s) — %s%s, %d %s</summary>\n\n", htmlEsc(k.ConfigKey), sourceLabel(k), k.Verdict, r.allowedTag(k.Verdict), len(k.Rows), plural(len(k.Rows), "row", "rows"))
		fmt.Fprintf(&b, "%s · model %s · %s · %s · master %s\n\n", mdText(k.Framework), mdCell(k.Model), mdText(k.Hardware), mdText(k.Precision), m.fileLink(&r.InferenceX, k.MasterFile, k.MasterLine))
		b.WriteString("| row | conc | inferencex | role | verdict | matched | vllm recipe |\n|---|---|---|---|---|---|---|\n")
		for _, row := range k.Rows {
			rec := row.Recipe
			if row.Selector != "" {
				rec += ":" + row.Selector
			}
			if len(row.Roles) == 0 {
				fmt.Fprintf(&b, "| %d | %s | %s | | %s | | %s |\n", row.Row, concRange(row.Concs), mdCell(m.scrub(rec)), row.Verdict, mdText(m.scrub(row.Message)))
				continue
			}
			for _, ro := range row.Roles {
				matched := ""
				if ro.Result != nil {
					matched = strconv.Itoa(ro.Result.Matched)
				}
				place := "—"
				switch {
				case ro.Recipe != nil:
					place = m.recipeLink(k, ro.Recipe)
				case ro.Nearest != nil:
					place = "nearest " + m.recipeLink(k, ro.Nearest)
				}
				fmt.Fprintf(&b, "| %d | %s | %s | %s %s | %s | %s | %s |\n", row.Row, concRange(row.Concs), mdCell(m.scrub(rec)), mdText(ro.Role), mdText(ro.Topology), ro.Verdict, matched, place)
			}
		}
		b.WriteString("\n</details>\n\n")
		out = append(out, keyBlock{key: k.ConfigKey, text: b.String()})
	}
	return out
}

// shortVerdict abbreviates covered-with-exclusions for dense tables.
func shortVerdict(v compare.Verdict) string {
	if v == compare.CoveredWithExclusions {
		return "covered*"
	}
	return string(v)
}

// fileLink is a Markdown link to rel at the checkout's commit (line when >
// 0), or the path in code when no permalink can be made.
func (m *md) fileLink(ri *RepoInfo, rel string, line int) string {
	rel = m.scrub(rel)
	if rel == "" {
		return ""
	}
	label := rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		label = rel[i+1:]
	}
	if line > 0 {
		label += ":" + strconv.Itoa(line)
	}
	if link := ri.Permalink(rel, line); link != "" {
		return fmt.Sprintf("[%s](%s)", mdCell(label), mdURL(link))
	}
	if line > 0 {
		return mdCell(rel + ":" + strconv.Itoa(line))
	}
	return mdCell(rel)
}

// recipeLink names a vLLM recipe role with a permalink to its file at the
// recipes commit and, when known, the recipes.vllm.ai page of the selection
// (the command a reader sees there).
func (m *md) recipeLink(k KeyResult, ref *RecipeRef) string {
	link := m.r.upstreamRepo(k).Permalink(ref.File, ref.Line)
	where := mdCell(m.scrub(ref.Where))
	out := where
	if link != "" {
		out = fmt.Sprintf("[%s](%s)", where, mdURL(link))
	}
	if u := safeURL(ref.URL); u != "" {
		site := "recipes.vllm.ai"
		if strings.HasPrefix(u, "https://docs.sglang.io/") {
			site = "docs.sglang.io"
		}
		out += fmt.Sprintf(" ([%s](%s))", site, u)
	}
	return out
}

// safeURL is u when it is an https URL of the recipes or SGLang docs site that cannot
// break out of a Markdown link, else "".
func safeURL(u string) string {
	if !strings.HasPrefix(u, "https://recipes.vllm.ai/") && !strings.HasPrefix(u, "https://docs.sglang.io/") || strings.ContainsAny(u, " ()<>[]`\"\n\r") {
		return ""
	}
	return u
}

// mdLinkURL prints an upstream link's URL: as it is when it is an https
// URL of only URL characters (GitHub autolinks it), else as inert text
// (mdText).
func mdLinkURL(u string) string {
	if strings.HasPrefix(u, "https://") && mdURL(u) == u {
		return u
	}
	return mdText(u)
}

// mdOneLine is the Markdown printer's first rule for every value
// (escapedReport): line breaks become spaces (a value never starts a
// Markdown block or a line of its own), every other control or format
// character is escaped (launch.EscapeControl) and so is the second '#' of
// a "##[" (\x23: a legacy GitHub Actions workflow command works anywhere
// in a line, see launch.EscapeLine).
func mdOneLine(s string) string {
	if strings.ContainsAny(s, "\r\n") {
		s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	}
	// a legacy workflow command anywhere in a line: its second '#' as
	// launch.EscapeLine writes it
	return strings.ReplaceAll(launch.EscapeControl(s), "##[", `#\x23[`)
}

// mdText makes free text (messages, reasons, notes from the checkouts)
// inert in Markdown: one line (so nothing starts a line: no heading, list
// or block), the characters that open links, images, emphasis, code, tags
// and table cells backslash-escaped (\ ` * [ ] < > |), "&" as an entity,
// "@" kept from mentioning anyone and "#" and "GH-" before a digit from
// referencing an issue ("#123", "owner/repo#123", "GH-123": GitHub's
// autolinked references): a combining grapheme joiner (U+034F, invisible
// and, unlike a format character such as U+2060, left alone by
// launch.EscapeControl) after them, so GitHub's patterns no longer match.
func mdText(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r == '#' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			b.WriteString("#\u034f")
			continue
		}
		if r == '-' && i >= 2 && s[i-2:i] == "GH" && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
			b.WriteString("-\u034f")
			continue
		}
		switch r {
		case '\r', '\n':
			b.WriteByte(' ')
		case '\\', '`', '*', '[', ']', '<', '>', '|':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '@':
			b.WriteString("@\u034f")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// htmlEsc escapes text inside an HTML element, on one line.
func htmlEsc(s string) string {
	s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	s = strings.ReplaceAll(s, "&", "&amp;")
	s = strings.NewReplacer("`", "&#96;", "[", "&#91;", "]", "&#93;", "*", "&#42;", "_", "&#95;", "@", "&#64;", "|", "&#124;").Replace(s)
	s = strings.ReplaceAll(s, "<", "&lt;")
	return strings.ReplaceAll(s, ">", "&gt;")
}

// allowedTag marks a not-verified verdict that AllowUnverified lets pass.
func (r *Report) allowedTag(v compare.Verdict) string {
	if v.Allowable() && r.AllowUnverified {
		return " (not verified, allowed)"
	}
	return ""
}

// sourceLabel names what a key judged from the InferenceX side was
// compared with.
func sourceLabel(k KeyResult) string {
	if k.Source == SourcePages {
		return "SGLang pages"
	}
	return "vLLM"
}

// keyBlocks are the table rows of the config keys' one verdict
// (Report.Keys): the key, its verdict, the source(s) it comes from and its
// deployments by verdict.
func (m *md) keyBlocks() []keyBlock {
	r := m.r
	var out []keyBlock
	for _, k := range r.Keys {
		from := k.Source
		if from == "" {
			from = strings.Join(k.Sources, ", ")
		}
		text := fmt.Sprintf("| `%s` | %s%s | %s | %s |\n", htmlEsc(k.ConfigKey), k.Verdict, r.allowedTag(k.Verdict), mdText(from), mdText(m.scrub(unitsSummary(k))))
		out = append(out, keyBlock{key: k.ConfigKey, text: text})
	}
	return endTable(out)
}

// otherBlocks are, per config key, what the other sources document for
// each deployment (KeyVerdict units' Others): the source, its selection
// (the nearest, for a gap), its verdict and its differences, clipped
// (information).
func (m *md) otherBlocks() []keyBlock {
	var out []keyBlock
	for _, k := range m.r.Keys {
		var b strings.Builder
		for _, u := range k.Units {
			for _, o := range u.Others {
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", htmlEsc(k.ConfigKey), mdText(unitPlace(u)), mdText(o.Source),
					mdText(clip(m.scrub(o.Selection), 160)), o.Verdict, mdText(clip(m.scrub(strings.Join(o.Shows, "; ")), 300)))
			}
		}
		if b.Len() > 0 {
			out = append(out, keyBlock{key: k.ConfigKey, text: b.String()})
		}
	}
	return endTable(out)
}

// endTable ends a table whose rows are blocks with a blank line.
func endTable(bs []keyBlock) []keyBlock {
	if n := len(bs); n > 0 {
		bs[n-1].text += "\n"
	}
	return bs
}

// MarkdownText makes free text from a checkout inert in Markdown, on one
// line (mdText after mdOneLine): for printers outside this package
// (signoff's comment).
func MarkdownText(s string) string { return mdText(mdOneLine(s)) }

// MarkdownCode is s as a code span fit for a table cell (mdCell after
// mdOneLine); "" for "".
func MarkdownCode(s string) string { return mdCell(mdOneLine(s)) }

// MarkdownURL is u when it is a GitHub permalink or a recipes.vllm.ai link
// the Markdown printer links to, else "".
func MarkdownURL(u string) string {
	if mdLinkURL(u) == u {
		return u
	}
	return ""
}
