// Package report holds the result model of a Check 3 coverage run (Report:
// cookbook points, vLLM-family keys, upstream links, counts) and its
// printers: text, Markdown, JSON (schema in SCHEMA.md), SARIF 2.1.0 and
// GitHub Actions annotations, one file per format, each
// Print<Format>(io.Writer, *Report, …) error.
//
// What a reviewer must act on is decided once: ClassOf classes every
// verdict (gap, not verified, allowed, time limit, error) and Findings lists
// every finding of a report in order, each with its class, rule, location
// and the unit it belongs to; the printers only group, sort and format it.
//
// Every outcome is a compare.Verdict with one severity order
// (compare.Verdict.Rank); the two sides of every comparison are named
// neutrally: "upstream" (the upstream documentation: an SGLang cookbook
// snippet or page, a vLLM recipe) and "inferencex" (the effective
// InferenceX recipe). Package coverage fills a Report; this package reads
// no files and touches no network.
package report

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
)

// SchemaVersion is the version of the Report's JSON schema (SCHEMA.md). It
// changes only when a field is renamed or removed: 2 named the sides
// neutrally ("upstream" / "inferencex" instead of "cookbook" / "recipe",
// "sides" removed), typed every outcome as one verdict vocabulary with one
// severity order, and gave points and vLLM rows the same "status" and
// "verdict" fields.
const SchemaVersion = 2

// SchemaRevision counts the compatible additions to schema SchemaVersion
// (SCHEMA.md lists them); it restarts at 1 with each version: 2 added the
// policy version fields, the not applicable and content not known verdicts,
// roles[].unknown, and the vLLM recipe checkpoint / url / command; 3 the
// time limit verdict, timeLimit and timeLimits; 4 keys (one verdict per
// config key) and superseded; 5 recipe.prose; 6 no new field: SCHEMA.md
// describes every field.
const SchemaRevision = 6

// Status says what coverage could do with one cited point or vLLM-family
// row: StatusCompared, or why it was not compared — one of the
// not-verified verdicts (compare.Verdict.NotVerified: upstream-only, recipe
// not found, script not found, no matching point, ambiguous point,
// unsupported) or compare.Error (bad input). The values are the verdicts'
// own words; Verdict converts.
type Status string

// Statuses. Every status but StatusCompared and StatusError means the
// point or row was not verified: a gap unless Report.AllowUnverified.
const (
	// StatusCompared: the recipe was rendered and compared role by role.
	StatusCompared Status = "compared"
	// StatusRecipeNotFound: a cited repository recipe path is not in the
	// InferenceX checkout (infx.StatusMissing of a recipe).
	StatusRecipeNotFound = Status(compare.RecipeNotFound)
	// StatusUpstreamOnly: the recipe lives in the NVIDIA/srt-slurm ref the
	// launcher clones, not in the InferenceX checkout (infx
	// StatusUpstreamOnly: a CONFIG_FILE=recipes/<file> reference whose
	// overlay benchmarks/multi_node/srt-slurm-recipes/<file> is absent).
	StatusUpstreamOnly = Status(compare.UpstreamOnly)
	// StatusUnsupported: a launcher format or construct infx does not
	// render (named in the message).
	StatusUnsupported = Status(compare.Unsupported)
	// StatusScriptNotFound: a cited single-node script is not in the
	// InferenceX checkout.
	StatusScriptNotFound = Status(compare.ScriptNotFound)
	// StatusNoMatch: no master-config point of the config key fits the
	// upstream point (the message says which part).
	StatusNoMatch = Status(compare.NoMatch)
	// StatusAmbiguous: several search-space rows fit and the point's
	// selectors do not tell them apart (the message lists them).
	StatusAmbiguous = Status(compare.Ambiguous)
	// StatusError: the recipe is present but could not be loaded or
	// rendered (bad input: the message has file:line:col).
	StatusError = Status(compare.Error)
	// StatusTimeLimit: a wall-clock backstop stopped the rendering (the
	// script sandbox's): nothing is known; re-run (never allowed by
	// AllowUnverified; the run exits 3).
	StatusTimeLimit = Status(compare.TimeLimit)
	// StatusNotApplicable: Check 3 does not apply to the config key under
	// the run's policy version (Report.Policy): not compared, not a gap.
	StatusNotApplicable = Status(compare.NotApplicable)
)

// Verdict is the outcome a status stands for when nothing was compared
// (the verdict of the same words); StatusCompared has none ("").
func (s Status) Verdict() compare.Verdict {
	if s == StatusCompared {
		return ""
	}
	return compare.Verdict(s)
}

// NotVerified reports whether s means the settings were not compared and
// the input was not bad (every status but compared and error).
func (s Status) NotVerified() bool { return s.Verdict().NotVerified() }

// Report is the result of a coverage run. Its JSON form (PrintJSON) is the
// stable schema documented in SCHEMA.md; SchemaVersion identifies it.
type Report struct {
	SchemaVersion  int        `json:"schemaVersion"`
	SchemaRevision int        `json:"schemaRevision"`
	Policy         PolicyInfo `json:"policy"`
	// Verdict is the run's outcome: the worst verdict of every point, row
	// and link (compare.Worse); not-verified outcomes count only when
	// AllowUnverified is false.
	Verdict compare.Verdict `json:"verdict"`
	// Cookbook is the SGLang repository read (nil without one): its
	// repository name, commit and every snippet read with its sha256.
	Cookbook *RepoInfo `json:"cookbook,omitempty"`
	// CookbookFiles lists every snippet read (repository-relative paths).
	CookbookFiles []FileInfo `json:"cookbookFiles,omitempty"`
	InferenceX    RepoInfo   `json:"inferencex"`
	// SrtSlurm is the NVIDIA/srt-slurm checkout recipes were read from
	// (coverage.Options.SrtSlurmDir; nil without one).
	SrtSlurm *RepoInfo `json:"srtSlurm,omitempty"`
	// Points holds one entry per cited point, in file, cell, point order.
	Points []PointResult `json:"points"`

	// VLLMRecipes is the vllm-project/recipes checkout (nil without it);
	// VLLMRecipeErrors the recipe files that failed to decode (bad input,
	// file:line:col); VLLM one entry per vLLM-family config key, in master
	// config order.
	VLLMRecipes      *RepoInfo   `json:"vllmRecipes,omitempty"`
	VLLMRecipeErrors []string    `json:"vllmRecipeErrors,omitempty"`
	VLLM             []KeyResult `json:"vllm,omitempty"`
	// PagesRepo is the sglang checkout whose hand-written cookbook pages
	// were read (nil without pages); PageErrors the page snippets that
	// could not run (file and why: a throw, a loop, a bound); Pages one
	// entry per SGLang-family config key judged against the pages
	// (Source "sglang-pages"), in master config order.
	PagesRepo  *RepoInfo   `json:"pagesRepo,omitempty"`
	PageErrors []string    `json:"pageErrors,omitempty"`
	Pages      []KeyResult `json:"pages,omitempty"`
	// Upstream holds the Check 3 (b) state of each upstream link asked
	// for, in the order given (SetLinks); omitted when none was.
	Upstream []Link `json:"upstream,omitempty"`
	// Keys is the one verdict of each config key from every source
	// (KeyVerdict; schema revision 4), in the order the keys first appear
	// in Points, VLLM, Pages. The run's verdict, gap and headline follow
	// it: a point or row whose outcome no unit of its key takes is
	// information (Superseded), never a gap.
	Keys   []KeyVerdict `json:"keys,omitempty"`
	Counts Counts       `json:"counts"`
	// Gap is true when any role is a gap (compare.Verdict.Gap), a point or
	// vLLM row was not verified (UnverifiedGap), or an upstream link is not
	// merged / published (LinkGap).
	Gap bool `json:"gap"`
	// LinkGap is true when an upstream link is not merged / published or its
	// state could not be read (fail closed).
	LinkGap bool `json:"linkGap,omitempty"`
	// AllowUnverified: points and rows that were not verified are listed,
	// not a gap.
	AllowUnverified bool `json:"allowUnverified,omitempty"`
	// UnverifiedGap is true when a point or vLLM-family row could not be
	// verified and AllowUnverified is false (fail closed).
	UnverifiedGap bool `json:"unverifiedGap,omitempty"`
	// TimeLimit is true when a wall-clock backstop stopped some of the
	// work (a point, row or role with verdict compare.TimeLimit, or a
	// TimeLimits entry): the report is incomplete through no fault of the
	// input; the CLI exits 3 (re-run). Never hidden by AllowUnverified.
	TimeLimit bool `json:"timeLimit,omitempty"`
	// TimeLimits names the units a backstop stopped that no point or row
	// stands for (a cookbook page snippet, "file: message").
	TimeLimits []string `json:"timeLimits,omitempty"`
	// Errors is true when any point or row has StatusError or a vLLM recipe
	// failed to decode (bad input).
	Errors bool `json:"errors"`
	// Warnings are problems of master-config keys no compared point uses
	// ("file:line:col: message").
	Warnings []string `json:"warnings,omitempty"`
	// LocalDirs are the run's local directories (as given and absolute,
	// longest first): the printers that leave this machine (Markdown,
	// SARIF, annotations) remove them from messages (Scrub). Not in JSON.
	LocalDirs []string `json:"-"`
}

// Scrub removes this machine's directories from s, so a message names
// files as repository-relative paths: every LocalDirs prefix ("<dir>/x" →
// "x"), then every absolute RepoInfo.Dir of the report ("<dir>/x" → "x",
// a bare "<dir>" → the repository's name), longest first.
func (r *Report) Scrub(s string) string { return r.scrubber()(s) }

// scrubber is Scrub with the report's directories worked out once: for a
// printer that scrubs many messages of one report.
func (r *Report) scrubber() func(string) string {
	var local []string
	for _, d := range r.LocalDirs {
		d = strings.TrimSuffix(d, "/")
		if d == "" || d == "." {
			continue
		}
		local = append(local, d+"/")
	}
	type rd struct{ dir, name string }
	var ds []rd
	for _, rp := range repoBases(r) {
		if rp.info == nil || rp.info.Dir == "" {
			continue
		}
		name := rp.info.Repo
		if name == "" {
			name = rp.label
		}
		for _, d := range []string{rp.info.Dir, filepath.Clean(rp.info.Dir)} {
			d = strings.TrimRight(d, "/")
			if filepath.IsAbs(d) && d != "" {
				ds = append(ds, rd{d, name})
			}
		}
	}
	// longest first: a checkout nested in another is removed whole
	sort.SliceStable(ds, func(i, j int) bool { return len(ds[i].dir) > len(ds[j].dir) })
	// common is the longest prefix of every checkout's directory: a string
	// without it holds none of them (one scan instead of four per checkout)
	common := ""
	for i, d := range ds {
		if i == 0 {
			common = d.dir
			continue
		}
		n := 0
		for n < len(common) && n < len(d.dir) && common[n] == d.dir[n] {
			n++
		}
		common = common[:n]
	}
	return func(s string) string {
		if !strings.Contains(s, "/") {
			// every directory removed ends in "/" or is absolute
			return s
		}
		for _, d := range local {
			s = replacePath(s, d, "", false)
		}
		if !strings.Contains(s, common) {
			return s
		}
		for _, d := range ds {
			s = replacePath(s, d.dir+"/", "", false)
			s = replacePath(s, d.dir, d.name, true)
		}
		return s
	}
}

// replacePath replaces old with repl where old begins a path: at the
// start of s or after a character that cannot be part of a path (space,
// quote, bracket, "=", ":", ","), so a relative directory named like a
// path element ("sglang") is never cut out of the middle of another path.
// With whole, old must also end there (not be followed by a path
// character: "/home/u/ix" is not "/home/u/ixy").
func replacePath(s, old, repl string, whole bool) string {
	if old == "" || !strings.Contains(s, old) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := i + len(old)
		ok := i == 0 || strings.ContainsRune(" \t\n\"'`(<[{=:,;", rune(s[i-1]))
		if whole && j < len(s) && isPathChar(s[j]) {
			ok = false
		}
		b.WriteString(s[:i])
		if ok {
			b.WriteString(repl)
		} else {
			b.WriteString(old)
		}
		s = s[j:]
	}
}

func isPathChar(c byte) bool {
	return c == '/' || c == '.' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// PolicyInfo names the policy version the report was judged against: its
// id and scope / strictness (SemiAnalysisAI/InferenceX
// .github/codeowner-signoff-verify-prompt.md, as exclusions/policies.yaml
// records it), where that choice came from, and the exclusion rules'
// version and policies.
type PolicyInfo struct {
	// ID is the policy version ("09813166", "2026-07", …); Scope "all" or
	// "single-node"; Strictness "all" or "major" (exclusions.PolicySpec).
	ID         string `json:"id,omitempty"`
	Title      string `json:"title,omitempty"`
	Scope      string `json:"scope,omitempty"`
	Strictness string `json:"strictness,omitempty"`
	// From says how the version was chosen: "default", "named", or
	// "pinned: <file> sha256 <hash> (matched by sha256 | markers)".
	From     string              `json:"from,omitempty"`
	Version  string              `json:"version"`
	Policies []exclusions.Policy `json:"policies"`
}

// FileInfo identifies one upstream snippet file.
type FileInfo struct {
	Path   string `json:"path"`             // repository-relative path
	Commit string `json:"commit,omitempty"` // HEAD of the checkout
	Dirty  bool   `json:"dirty,omitempty"`  // the file differs from that commit
	SHA256 string `json:"sha256"`
}

// RepoInfo identifies one checkout. Dir is the directory as given (printed
// only by the terminal printer; Markdown, SARIF and annotations use Repo
// and Commit), Repo the GitHub OWNER/NAME it is a clone of (from its
// origin remote, or the well-known name of the source:
// SemiAnalysisAI/InferenceX, sgl-project/sglang, vllm-project/recipes),
// Commit its HEAD when a git checkout.
type RepoInfo struct {
	Dir    string `json:"dir"`
	Repo   string `json:"repo,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// Permalink is https://github.com/<Repo>/blob/<Commit>/<rel>[#L<line>] when
// both Repo and Commit are known, else "" (a local path is never a link).
func (r *RepoInfo) Permalink(rel string, line int) string {
	if r == nil || r.Repo == "" || r.Commit == "" || rel == "" {
		return ""
	}
	u := "https://github.com/" + r.Repo + "/blob/" + r.Commit + "/" + rel
	if line > 0 {
		u += "#L" + strconv.Itoa(line)
	}
	return u
}

// PointResult is the coverage of one cookbook point that cites a recipe.
type PointResult struct {
	File      string `json:"file"` // snippet path, repository-relative
	Line      int    `json:"line,omitempty"`
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
	// path found in the InferenceX checkout (relative to it).
	Recipe     string `json:"recipe"`
	Selector   string `json:"selector,omitempty"`
	RecipeFile string `json:"recipeFile,omitempty"`
	ProvSHA    string `json:"provSha,omitempty"`
	ProvStatus string `json:"provStatus,omitempty"`

	// Row and RowPos identify the master-config search-space row a cited
	// single-node script was run for: its index among the config key's
	// rows and its file:line:col. Scripts only.
	Row    *int   `json:"row,omitempty"`
	RowPos string `json:"rowPos,omitempty"`

	Status  Status `json:"status"`
	Message string `json:"message,omitempty"`
	Drift   Drift  `json:"drift"`
	// Verdict is the worst role verdict when compared, else the status's
	// verdict (Status.Verdict).
	Verdict compare.Verdict  `json:"verdict"`
	Roles   []compare.Result `json:"roles,omitempty"`
	// Superseded says why the point does not decide its key's verdict
	// (KeyVerdict): another source's selection covers or judges each of its
	// deployments better, or the master config no longer runs it. Its
	// findings are then information (ClassInfo). "" when it decides.
	Superseded string `json:"superseded,omitempty"`
}

// Drift says whether the recipe compared is the one the cookbook cell was
// generated from (the file at the cell's prov.sha).
type Drift struct {
	// State: "none" (the rendered file equals the file at prov.sha),
	// "changed" (it differs, or did not exist at prov.sha: differences may
	// be commit drift rather than a gap), "unknown" (not knowable: the
	// InferenceX directory is not a git checkout, or prov.sha is not in it).
	State string `json:"state"`
	// Commit is the HEAD commit of the InferenceX checkout (when a git
	// checkout).
	Commit string `json:"commit,omitempty"`
	// Detail explains the state.
	Detail string `json:"detail,omitempty"`
}

// Drift states.
const (
	DriftNone    = "none"
	DriftChanged = "changed"
	DriftUnknown = "unknown"
)

// KeyResult is the coverage of one InferenceX config key judged from the
// InferenceX side (Source says against what): a vLLM-family key (framework
// vllm, dynamo-vllm or llmd-vllm in configs/*-master.yaml) against
// vllm-project/recipes, or an SGLang-family key against the SGLang
// cookbook's hand-written pages. (Named VLLMKey before schema revision 3's
// refactor; the JSON field names are unchanged.)
type KeyResult struct {
	// Source is the upstream documentation the key was judged against:
	// "vllm-recipes" (vllm-project/recipes) or "sglang-pages" (the SGLang
	// cookbook's hand-written pages).
	Source    string `json:"source,omitempty"`
	ConfigKey string `json:"configKey"`
	Framework string `json:"framework"`
	Model     string `json:"model"`    // master `model` (Hugging Face id)
	Hardware  string `json:"hardware"` // runner SKU (b200, gb200, mi355x …)
	Precision string `json:"precision"`
	// Master is the master entry's place: MasterFile (relative to the
	// InferenceX checkout) and MasterLine, and as "file:line:col".
	Master     string `json:"master"`
	MasterFile string `json:"masterFile,omitempty"`
	MasterLine int    `json:"masterLine,omitempty"`
	// Verdict is the worst row verdict (compare.Worse), or not applicable
	// (Note says why) when the policy version does not cover the key.
	Verdict compare.Verdict `json:"verdict"`
	Note    string          `json:"note,omitempty"`
	Rows    []RowResult     `json:"rows"`
}

// RowResult is one search-space row of a key (one entry per distinct
// rendering: concurrencies that render identically share it).
type RowResult struct {
	Row      int    `json:"row"`
	Concs    []int  `json:"concs"`
	Scenario string `json:"scenario"`
	// Recipe is the InferenceX recipe or script the row runs (relative to
	// the checkout when present, else as referenced); Selector its variant.
	Recipe   string `json:"recipe,omitempty"`
	Selector string `json:"selector,omitempty"`
	// Status says whether the row was rendered and compared; Message says
	// why not.
	Status  Status `json:"status"`
	Message string `json:"message,omitempty"`
	// Verdict is the worst role verdict; a row without roles has its
	// status's verdict.
	Verdict compare.Verdict `json:"verdict"`
	Roles   []RoleMatch     `json:"roles,omitempty"`
	// Superseded says why the row does not decide its key's verdict
	// (KeyVerdict; as PointResult.Superseded).
	Superseded string `json:"superseded,omitempty"`
}

// RoleMatch is one worker role (agg, prefill, decode) of a row, matched with
// the upstream documentation (a vLLM recipe role, a cookbook page
// selection's role) and, when the row rendered, compared setting by
// setting. For vLLM keys frontends and services are not compared: Dynamo
// and llm-d are deployment layers around vLLM workers, and vLLM recipes
// document the engine.
type RoleMatch struct {
	Role string `json:"role"`
	// Topology is the InferenceX role's layout ("TP8", "DEP8", "TEP4").
	Topology string `json:"topology"`
	// Recipe is the recipe role compared (an exact match); Nearest the
	// closest candidate when none matches, with Misses saying what differs.
	Recipe  *RecipeRef `json:"recipe,omitempty"`
	Nearest *RecipeRef `json:"nearest,omitempty"`
	Misses  []string   `json:"misses,omitempty"`
	// Alternatives counts the other exact matches (the one compared is the
	// best by verdict, then fewest differences, then the index's order).
	Alternatives int `json:"alternatives,omitempty"`
	// Verdict: a compared verdict, compare.NotCovered, or
	// compare.MatchedNotCompared.
	Verdict compare.Verdict `json:"verdict"`
	// Result is the comparison of the worker with Recipe (or, as evidence,
	// with Nearest): "upstream" values are the vLLM recipe's, "inferencex"
	// values InferenceX's.
	Result *compare.Result `json:"result,omitempty"`
}

// RecipeRef names one vLLM recipe role: a model YAML rendering (file,
// variant, strategy, hardware) or a Markdown launch block (file, line,
// heading chain).
type RecipeRef struct {
	Kind     string `json:"kind"` // yaml | markdown
	File     string `json:"file"` // relative to the recipes checkout
	Section  string `json:"section,omitempty"`
	Line     int    `json:"line,omitempty"`
	Variant  string `json:"variant,omitempty"`
	Strategy string `json:"strategy,omitempty"`
	Hardware string `json:"hardware,omitempty"`
	Model    string `json:"model,omitempty"`
	Role     string `json:"role"`
	Topology string `json:"topology"`
	// Where is the place as one string ("models/…yaml variant=… strategy=…
	// hw=… role=…" or "<file>:<line> § <section>").
	Where string `json:"where"`
	// Checkpoint is the Hugging Face id the recipe role serves (the
	// variant's model_id, else the recipe's); URL the recipes.vllm.ai page
	// with the query of this selection (hardware, variant, strategy, nodes,
	// features, pool modes …; vllm-project/recipes
	// src/components/recipes/CommandBuilder.jsx syncUrl); Command the
	// command the site shows for the role.
	Checkpoint string `json:"checkpoint,omitempty"`
	URL        string `json:"url,omitempty"`
	Command    string `json:"command,omitempty"`
	// Prose, when set, says the role is a prose alternate of the selection
	// (issue 22, item 5): the selection's command with the setting the
	// sentence states (package prose); Where then ends with
	// " + prose <file>:<line> \"<sentence>\" (<setting>)". Command and
	// URL stay the selection's.
	Prose *ProseRef `json:"prose,omitempty"`
}

// ProseRef cites the sentence of a prose alternate: the page or recipe
// file, the line where the sentence starts (1-based), the sentence (inline
// markup removed), the setting in words ("tp=4", "tp>=4", "add
// --kv-cache-dtype fp8") and the concurrency / sequence-length qualifier
// as written ("for low concurrency"; the alternate is taken at every
// concurrency), "" when none.
type ProseRef struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Sentence  string `json:"sentence"`
	Setting   string `json:"setting"`
	Qualifier string `json:"qualifier,omitempty"`
}

// Counts tallies a report. Every map is keyed by verdict (or, Links, by
// link state).
type Counts struct {
	// Roles counts cookbook role results; Points cookbook points by their
	// verdict.
	Roles  map[string]int `json:"roles"`
	Points map[string]int `json:"points"`
	// Links counts upstream links by state (omitted when none).
	Links map[string]int `json:"links,omitempty"`
	// VLLM counts vLLM-family config keys by verdict, VLLMRows their rows,
	// VLLMRoles their roles.
	VLLM      map[string]int `json:"vllm,omitempty"`
	VLLMRows  map[string]int `json:"vllmRows,omitempty"`
	VLLMRoles map[string]int `json:"vllmRoles,omitempty"`
	// Pages, PagesRows, PagesRoles count the keys judged against the
	// SGLang cookbook pages the same way.
	Pages      map[string]int `json:"pages,omitempty"`
	PagesRows  map[string]int `json:"pagesRows,omitempty"`
	PagesRoles map[string]int `json:"pagesRoles,omitempty"`
	// Unverified counts the points and vLLM-family rows whose verdict is
	// not verified (compare.Verdict.NotVerified), whether or not
	// AllowUnverified: the same units Headline counts. A row that was not
	// rendered but has a role no recipe covers is that gap, not counted
	// here.
	Unverified int `json:"unverified"`
	// Keys counts the config keys by their one verdict (Report.Keys;
	// omitted when the run has none).
	Keys map[string]int `json:"keys,omitempty"`
}

// Count recomputes Counts, Gap, UnverifiedGap, Errors and Verdict from the
// points, rows and links (call it after filling them; SetLinks calls it).
func (r *Report) Count() {
	links := r.Counts.Links
	r.Counts = Counts{Roles: map[string]int{}, Points: map[string]int{}, Links: links}
	r.Gap, r.Errors = false, false
	r.TimeLimit = len(r.TimeLimits) > 0
	v := compare.Verdict("")
	for _, p := range r.Points {
		r.Counts.Points[string(p.Verdict)]++
		if p.Superseded != "" {
			for _, res := range p.Roles {
				r.Counts.Roles[string(res.Verdict)]++
			}
			continue // information: another source decides its key
		}
		v = r.worse(v, p.Verdict)
		if p.Verdict == compare.TimeLimit {
			r.TimeLimit = true
		}
		if p.Status == StatusError {
			r.Errors = true
		}
		if p.Verdict.NotVerified() {
			r.Counts.Unverified++
		}
		for _, res := range p.Roles {
			r.Counts.Roles[string(res.Verdict)]++
			if res.Verdict == compare.TimeLimit {
				r.TimeLimit = true
			}
			if res.Verdict.Gap() {
				r.Gap = true
			}
		}
	}
	if r.VLLM != nil {
		// differs is always counted: it is the one verdict a compared key
		// can fail on besides prohibited
		r.Counts.VLLM, r.Counts.VLLMRows, r.Counts.VLLMRoles = map[string]int{string(compare.Differs): 0}, map[string]int{}, map[string]int{}
	}
	if len(r.VLLMRecipeErrors) > 0 {
		r.Errors = true
		v = compare.Worse(v, compare.Error)
	}
	if r.Pages != nil {
		r.Counts.Pages, r.Counts.PagesRows, r.Counts.PagesRoles = map[string]int{string(compare.Differs): 0}, map[string]int{}, map[string]int{}
	}
	if len(r.PageErrors) > 0 {
		r.Errors = true
		v = compare.Worse(v, compare.Error)
	}
	for _, list := range []struct {
		keys              []KeyResult
		keyC, rowC, roleC map[string]int
	}{{r.VLLM, r.Counts.VLLM, r.Counts.VLLMRows, r.Counts.VLLMRoles}, {r.Pages, r.Counts.Pages, r.Counts.PagesRows, r.Counts.PagesRoles}} {
		for _, k := range list.keys {
			list.keyC[string(k.Verdict)]++
			if len(k.Rows) == 0 {
				v = r.worse(v, k.Verdict)
			}
			for _, row := range k.Rows {
				list.rowC[string(row.Verdict)]++
				if row.Superseded != "" {
					for _, ro := range row.Roles {
						list.roleC[string(ro.Verdict)]++
					}
					continue // information: another source decides its key
				}
				v = r.worse(v, row.Verdict)
				if row.Verdict == compare.TimeLimit {
					r.TimeLimit = true
				}
				if row.Status == StatusError {
					r.Errors = true
				}
				if row.Verdict.NotVerified() {
					r.Counts.Unverified++
				}
				for _, ro := range row.Roles {
					list.roleC[string(ro.Verdict)]++
					if ro.Verdict == compare.TimeLimit {
						r.TimeLimit = true
					}
					if ro.Verdict.Gap() {
						r.Gap = true
					}
				}
			}
		}
	}
	if r.Keys != nil {
		r.Counts.Keys = map[string]int{}
		for _, k := range r.Keys {
			r.Counts.Keys[string(k.Verdict)]++
			// a key's verdict may be worse than any one result's (a
			// prohibited setting InferenceX runs, seen as evidence)
			v = r.worse(v, k.Verdict)
			if k.Verdict.Gap() {
				r.Gap = true
			}
		}
	}
	r.UnverifiedGap = r.Counts.Unverified > 0 && !r.AllowUnverified
	if r.TimeLimit {
		v = compare.Worse(v, compare.TimeLimit)
	}
	if r.LinkGap || r.UnverifiedGap || r.TimeLimit {
		r.Gap = true
	}
	if v == "" {
		v = compare.Covered
	}
	r.Verdict = v
}

// worse is compare.Worse, except that a not-verified verdict does not count
// when AllowUnverified (it is listed, not a gap).
func (r *Report) worse(a, b compare.Verdict) compare.Verdict {
	if r.AllowUnverified && b.Allowable() {
		return a
	}
	return compare.Worse(a, b)
}

// UpstreamKeys are the config keys judged from the InferenceX side: the
// vLLM-family keys against the vLLM recipes, then the SGLang-family keys
// against the cookbook pages (KeyResult.Source tells them apart).
func (r *Report) UpstreamKeys() []KeyResult {
	if len(r.Pages) == 0 {
		return r.VLLM
	}
	return append(append([]KeyResult(nil), r.VLLM...), r.Pages...)
}

// upstreamRepo is the checkout a key's recipe references are in.
func (r *Report) upstreamRepo(k KeyResult) *RepoInfo {
	if k.Source == SourcePages {
		return r.PagesRepo
	}
	return r.VLLMRecipes
}

// Sources of KeyResult.Source.
const (
	SourceVLLMRecipes = "vllm-recipes"
	SourcePages       = "sglang-pages"
)
