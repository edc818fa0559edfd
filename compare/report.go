package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
)

// Report is the result of a coverage run. Its JSON form (Report.JSON) is the
// stable schema documented in compare/SCHEMA.md; SchemaVersion identifies it.
type Report struct {
	SchemaVersion int `json:"schemaVersion"`
	// SchemaRevision counts the compatible additions made within
	// SchemaVersion (compare/SCHEMA.md lists them).
	SchemaRevision int        `json:"schemaRevision"`
	Policy         PolicyInfo `json:"policy"`
	// CookbookDir is the --cookbook directory; Cookbook lists every snippet
	// read, with its git commit (when a git checkout) and sha256.
	CookbookDir string     `json:"cookbookDir"`
	Cookbook    []FileInfo `json:"cookbook"`
	InferenceX  RepoInfo   `json:"inferencex"`
	// Points holds one entry per cited point, in file, cell, point order.
	Points []PointResult `json:"points"`

	// VLLMRecipes is the --vllm-recipes checkout (nil without it);
	// VLLMRecipeErrors the recipe files that failed to decode (bad input,
	// file:line:col); VLLM one entry per vLLM-family config key, in master
	// config order.
	VLLMRecipes      *RepoInfo `json:"vllmRecipes,omitempty"`
	VLLMRecipeErrors []string  `json:"vllmRecipeErrors,omitempty"`
	VLLM             []VLLMKey `json:"vllm,omitempty"`
	// Upstream holds the Check 3 (b) state of each --upstream link, in the
	// order given (SetLinks); omitted when none was asked for.
	Upstream []Link `json:"upstream,omitempty"`
	Counts   Counts `json:"counts"`
	// Gap is true when any role is differs, missing or prohibited, a
	// vLLM-family role has no recipe, a point or vLLM row was not verified
	// (UnverifiedGap), or an upstream link is not merged / published
	// (LinkGap).
	Gap bool `json:"gap"`
	// LinkGap is true when an upstream link is not merged / published or its
	// state could not be read (fail closed).
	LinkGap bool `json:"linkGap,omitempty"`
	// AllowUnverified is CoverageOptions.AllowUnverified (--allow-unverified):
	// points and rows that were not verified are listed, not a gap.
	AllowUnverified bool `json:"allowUnverified,omitempty"`
	// UnverifiedGap is true when a cookbook point or vLLM-family row could
	// not be verified (NotVerified: upstream-only, recipe not found, script
	// not found, no matching point, ambiguous point, unsupported) and
	// AllowUnverified is false (fail closed).
	UnverifiedGap bool `json:"unverifiedGap,omitempty"`
	// Errors is true when any point has StatusError (bad input).
	Errors bool `json:"errors"`
	// Warnings are problems of master-config keys no compared point uses
	// ("file:line:col: message"); a key that is used reports its problem on
	// its points.
	Warnings []string `json:"warnings,omitempty"`
}

// PolicyInfo names the exclusion rules the report was judged against.
type PolicyInfo struct {
	Version  string              `json:"version"`
	Policies []exclusions.Policy `json:"policies"`
}

// FileInfo identifies one upstream snippet file.
type FileInfo struct {
	Path   string `json:"path"`             // repository-relative path
	Commit string `json:"commit,omitempty"` // HEAD of the --cookbook git checkout
	Dirty  bool   `json:"dirty,omitempty"`  // the file differs from that commit
	SHA256 string `json:"sha256"`
}

// RepoInfo identifies the InferenceX checkout.
type RepoInfo struct {
	Dir    string `json:"dir"`
	Commit string `json:"commit,omitempty"` // HEAD when a git checkout
}

// PointResult is the coverage of one cookbook point that cites a recipe.
type PointResult struct {
	File      string `json:"file"` // snippet path, repository-relative
	Cell      int    `json:"cell"`
	CellID    string `json:"cellId"`
	ConfigKey string `json:"configKey"`
	Point     int    `json:"point"`
	Concs     []int  `json:"concs"`
	// Router and KV are the measured selection compared (cell.submitted,
	// point.kv).
	Router string `json:"router"`
	KV     string `json:"kv"`
	// Recipe is the cited path, Selector the cited variant; RecipeFile the
	// path found under --infx (relative to it).
	Recipe     string `json:"recipe"`
	Selector   string `json:"selector,omitempty"`
	RecipeFile string `json:"recipeFile,omitempty"`
	ProvSHA    string `json:"provSha,omitempty"`
	ProvStatus string `json:"provStatus,omitempty"`

	// Row and RowPos identify the master-config search-space row a cited
	// single-node script was run for (MatchPoint): its index among the
	// config key's rows and its file:line:col. Scripts only.
	Row    *int   `json:"row,omitempty"`
	RowPos string `json:"rowPos,omitempty"`

	Status  PointStatus `json:"status"`
	Message string      `json:"message,omitempty"`
	Drift   Drift       `json:"drift"`
	// Verdict is the worst role verdict (compared points only).
	Verdict Verdict  `json:"verdict,omitempty"`
	Roles   []Result `json:"roles,omitempty"`
}

// Counts tallies a report.
type Counts struct {
	// Roles counts role results by verdict; Points counts points by their
	// worst verdict (compared) or their status (the others).
	Roles  map[string]int `json:"roles"`
	Points map[string]int `json:"points"`
	// Links counts --upstream links by state (omitted when none).
	Links map[string]int `json:"links,omitempty"`
	// VLLM counts vLLM-family config keys by verdict (their worst row),
	// VLLMRows their rows by verdict, VLLMRoles their roles by verdict.
	VLLM      map[string]int `json:"vllm,omitempty"`
	VLLMRows  map[string]int `json:"vllmRows,omitempty"`
	VLLMRoles map[string]int `json:"vllmRoles,omitempty"`
	// Unverified counts the cookbook points and vLLM-family rows that were
	// not verified (NotVerified), whether or not AllowUnverified.
	Unverified int `json:"unverified"`
}

func (r *Report) count() {
	r.Counts = Counts{Roles: map[string]int{}, Points: map[string]int{}, Links: r.Counts.Links}
	r.Gap, r.Errors = false, false
	for _, p := range r.Points {
		if p.Status != StatusCompared {
			r.Counts.Points[string(p.Status)]++
			if p.Status == StatusError {
				r.Errors = true
			}
			if NotVerified(string(p.Status)) {
				r.Counts.Unverified++
			}
			continue
		}
		r.Counts.Points[string(p.Verdict)]++
		for _, res := range p.Roles {
			r.Counts.Roles[string(res.Verdict)]++
			if res.Verdict.Gap() {
				r.Gap = true
			}
		}
	}
	if r.VLLM != nil {
		// differs is always counted: it is the one verdict a compared key can
		// fail on besides prohibited
		r.Counts.VLLM, r.Counts.VLLMRows, r.Counts.VLLMRoles = map[string]int{string(Differs): 0}, map[string]int{}, map[string]int{}
	}
	if len(r.VLLMRecipeErrors) > 0 {
		r.Errors = true
	}
	for _, k := range r.VLLM {
		r.Counts.VLLM[k.Verdict]++
		for _, row := range k.Rows {
			r.Counts.VLLMRows[row.Verdict]++
			if row.Status == VLLMError {
				r.Errors = true
			}
			if NotVerified(row.Status) {
				r.Counts.Unverified++
			}
			for _, ro := range row.Roles {
				r.Counts.VLLMRoles[ro.Verdict]++
				if vllmGap(ro.Verdict) {
					r.Gap = true
				}
			}
		}
	}
	r.UnverifiedGap = r.Counts.Unverified > 0 && !r.AllowUnverified
	if r.LinkGap || r.UnverifiedGap {
		r.Gap = true
	}
}

// JSON returns the report as indented JSON (schema: compare/SCHEMA.md).
func (r *Report) JSON() ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func val(p *string) string {
	switch {
	case p == nil:
		return "(absent)"
	case *p == "":
		return "(set)"
	}
	return *p
}

func concs(cs []int) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = fmt.Sprint(c)
	}
	return strings.Join(s, ",")
}

// verdictOrder is the order of count buckets, best first, following the
// verdict precedence: covered < covered-with-exclusions < not verified
// (the statuses NotVerified reports) < missing / no recipe covers this <
// differs < prohibited < error.
func verdictOrder() []string {
	return []string{string(Covered), string(CoveredWithExclusions),
		Matched, string(StatusUpstreamOnly), string(StatusRecipeNotFound), string(StatusScriptNotFound), string(StatusNoMatch),
		string(StatusAmbiguous), string(StatusUnsupported),
		string(Missing), NotCovered, string(Differs), string(Prohibited), string(StatusError)}
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

// Text renders the report for a terminal: one table row per role of every
// compared point (one row for the other points), then every difference,
// then the totals.
func (r *Report) Text() string {
	var b bytes.Buffer
	cookbook := r.CookbookDir != "" || len(r.Points) > 0
	if cookbook {
		r.cookbookText(&b)
	}
	if r.VLLM != nil {
		r.vllmText(&b)
	}
	b.WriteString("\n")
	for _, f := range r.Cookbook {
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
	fmt.Fprintf(&b, "Exclusion policy: %s\n", r.Policy.Version)
	b.WriteString(r.linksText())
	return b.String()
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
func (r *Report) cookbookText(b *bytes.Buffer) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
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
	for _, p := range r.Points {
		for _, res := range p.Roles {
			if !res.Verdict.Gap() {
				continue
			}
			head()
			fmt.Fprintf(b, "  %s point %d %s: %s\n", p.CellID, p.Point, roleName(res), res.Verdict)
			if res.Note != "" {
				fmt.Fprintf(b, "    %s\n", res.Note)
			}
			for _, d := range res.Differences {
				fmt.Fprintf(b, "    %s: cookbook %s, recipe %s", d.Setting, val(d.Cookbook), val(d.Recipe))
				if d.Note != "" {
					fmt.Fprintf(b, " (%s)", d.Note)
				}
				b.WriteString("\n")
			}
			for _, x := range res.Prohibited {
				fmt.Fprintf(b, "    %s\n", prohibitedText(x, "cookbook", "recipe"))
			}
		}
	}
	for _, p := range r.Points {
		if p.Status == StatusError {
			head()
			fmt.Fprintf(b, "  %s point %d: error: %s\n", p.CellID, p.Point, p.Message)
		}
	}
	if !r.AllowUnverified {
		for _, g := range unverifiedGroups(r.Points) {
			head()
			b.WriteString(g)
		}
		return
	}
	if gs := unverifiedGroups(r.Points); len(gs) > 0 {
		b.WriteString("\nNot verified (--allow-unverified: listed, not a gap):\n")
		for _, g := range gs {
			b.WriteString(g)
		}
	}
}

// unverifiedGroups lists the points that were not verified (NotVerified),
// consecutive points of one cell with the same status and message as one
// entry: "  <cell id> point(s) …: not verified: <status>\n    <message>\n".
func unverifiedGroups(ps []PointResult) []string {
	var out []string
	for i := 0; i < len(ps); {
		p := ps[i]
		if !NotVerified(string(p.Status)) {
			i++
			continue
		}
		j := i + 1
		for j < len(ps) && ps[j].CellID == p.CellID && ps[j].File == p.File && ps[j].Status == p.Status && ps[j].Message == p.Message {
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
func prohibitedText(x Exclusion, a, b string) string {
	var on []string
	var vals []string
	if x.Cookbook != nil {
		on = append(on, a)
		vals = append(vals, a+" "+val(x.Cookbook))
	}
	if x.Recipe != nil {
		on = append(on, b)
		vals = append(vals, b+" "+val(x.Recipe))
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

func roleName(res Result) string {
	if res.Index > 0 {
		return fmt.Sprintf("%s[%d]", res.Role, res.Index)
	}
	return res.Role
}

// exclusionTables writes a role's excluded settings and, in a separate
// table, its informational (judgment-class) differences; a and b name the
// sides (column headers).
func exclusionTables(b *strings.Builder, res Result, a, c string) {
	for _, t := range []struct {
		head string
		xs   []Exclusion
	}{{"excluded setting", res.Excluded}, {"informational (judgment)", res.Info}} {
		if len(t.xs) == 0 {
			continue
		}
		if t.head != "excluded setting" && len(res.Excluded) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "| %s | %s | %s | class | rule | reason | policy |\n|---|---|---|---|---|---|---|\n", t.head, a, c)
		for _, x := range t.xs {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(x.Setting), mdVal(x.Cookbook), mdVal(x.Recipe), x.Class, x.Rule, strings.ReplaceAll(x.Reason, "|", `\|`), x.Policy)
		}
	}
}

// mdCell escapes a value for a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
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

// Markdown renders the report as evidence for a Check 3 sign-off: the
// upstream files with their commit (or sha256), the exclusion policy
// version, then per config key × variant × role the verdict, the matched
// settings count, every difference and every exclusion with its reason.
func (r *Report) Markdown() string {
	var b strings.Builder
	b.WriteString("# Check 3 coverage evidence (cookbook-sync)\n\n")
	fmt.Fprintf(&b, "- Exclusion policy: %s\n", r.Policy.Version)
	for _, p := range r.Policy.Policies {
		fmt.Fprintf(&b, "  - `%s`: %s @ `%s`", p.ID, p.Source, p.Version)
		if p.Note != "" {
			fmt.Fprintf(&b, " — %s", p.Note)
		}
		b.WriteString("\n")
	}
	cookbook := r.CookbookDir != "" || len(r.Points) > 0
	if cookbook {
		b.WriteString("- Upstream files (sgl-project/sglang):\n")
	}
	for _, f := range r.Cookbook {
		if f.Commit != "" {
			dirty := ""
			if f.Dirty {
				dirty = " (working tree differs from this commit)"
			}
			fmt.Fprintf(&b, "  - `%s` at commit `%s`%s, sha256 `%s`\n", f.Path, f.Commit, dirty, f.SHA256)
		} else {
			fmt.Fprintf(&b, "  - `%s` sha256 `%s` (not a git checkout)\n", f.Path, f.SHA256)
		}
	}
	if r.InferenceX.Commit != "" {
		fmt.Fprintf(&b, "- InferenceX checkout at commit `%s`\n", r.InferenceX.Commit)
	} else {
		b.WriteString("- InferenceX: not a git checkout (commit drift since each cell's prov.sha is unknown)\n")
	}
	if cookbook {
		fmt.Fprintf(&b, "- Roles: %s\n", strings.Join(sortedCounts(r.Counts.Roles), ", "))
		fmt.Fprintf(&b, "- Points: %s\n", strings.Join(sortedCounts(r.Counts.Points), ", "))
	}
	if len(r.Upstream) > 0 {
		fmt.Fprintf(&b, "- Upstream links: %s\n", strings.Join(sortedCounts(r.Counts.Links), ", "))
	}
	if n := r.Counts.Unverified; n > 0 {
		fmt.Fprintf(&b, "- Not verified: %d %s\n", n, r.unverifiedNote())
	}
	b.WriteString(r.linksMarkdown())

	key := ""
	for _, p := range r.Points {
		if p.ConfigKey != key {
			key = p.ConfigKey
			fmt.Fprintf(&b, "\n## `%s`\n", key)
		}
		variant := p.Recipe
		if p.Selector != "" {
			variant += ":" + p.Selector
		}
		fmt.Fprintf(&b, "\n### `%s` point %d (conc %s) — router %s, KV %s\n\n", p.CellID, p.Point, concs(p.Concs), p.Router, p.KV)
		fmt.Fprintf(&b, "- Variant: `%s`\n", variant)
		fmt.Fprintf(&b, "- Provenance: prov.sha `%s`, status %s\n", short(p.ProvSHA), p.ProvStatus)
		fmt.Fprintf(&b, "- Commit drift: %s", p.Drift.State)
		if p.Drift.Detail != "" {
			fmt.Fprintf(&b, " (%s)", p.Drift.Detail)
		}
		b.WriteString("\n")
		if p.Status != StatusCompared {
			fmt.Fprintf(&b, "- Result: **%s**", p.Status)
			if NotVerified(string(p.Status)) {
				b.WriteString(" (not verified)")
			}
			if p.Message != "" {
				fmt.Fprintf(&b, " — %s", p.Message)
			}
			b.WriteString("\n")
			continue
		}
		if p.Row != nil && p.Message != "" {
			fmt.Fprintf(&b, "- Master-config point: %s\n", p.Message)
		}
		fmt.Fprintf(&b, "- Result: **%s**\n\n", p.Verdict)
		b.WriteString("| role | verdict | matched settings | differences | exclusions | informational |\n|---|---|---|---|---|---|\n")
		for _, res := range p.Roles {
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d |\n", roleName(res), res.Verdict, res.Matched, len(res.Differences), len(res.Excluded), len(res.Info))
		}
		for _, res := range p.Roles {
			if len(res.Differences)+len(res.Excluded)+len(res.Info)+len(res.Prohibited) == 0 && res.Note == "" {
				continue
			}
			fmt.Fprintf(&b, "\n**%s** (%s)\n\n", roleName(res), res.Verdict)
			if res.Note != "" {
				fmt.Fprintf(&b, "%s\n\n", res.Note)
			}
			if len(res.Differences) > 0 || len(res.Prohibited) > 0 {
				b.WriteString("| difference | cookbook | recipe |\n|---|---|---|\n")
				for _, d := range res.Differences {
					rv := mdVal(d.Recipe)
					if d.Diff != "" {
						rv += "<br>diff: " + mdCell(d.Diff)
					}
					if d.Note != "" {
						rv += "<br>" + mdCell(d.Note)
					}
					fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(d.Setting), mdVal(d.Cookbook), rv)
				}
				for _, x := range res.Prohibited {
					fmt.Fprintf(&b, "| %s — **prohibited** (%s: %s) | %s | %s |\n", mdCell(x.Setting), x.Rule, x.Reason, mdVal(x.Cookbook), mdVal(x.Recipe))
				}
				b.WriteString("\n")
			}
			exclusionTables(&b, res, "cookbook", "recipe")
		}
	}
	if r.VLLM != nil {
		r.vllmMarkdown(&b)
	}
	return b.String()
}
