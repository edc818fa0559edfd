package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
)

// SARIF tool identity and the uriBaseId symbols of the repositories a
// finding can point into. Each symbol is defined in the run's
// originalUriBaseIds as https://github.com/<repo>/blob/<commit>/ when the
// repository's Repo and Commit are known, and left undefined otherwise
// (a local directory is never written).
const (
	SARIFToolName       = "cookbook-sync"
	SARIFInformationURI = "https://github.com/cookbook-sync/cookbook-sync"

	BaseCookbook    = "COOKBOOK"     // the SGLang repository (Report.Cookbook)
	BaseVLLMRecipes = "VLLM_RECIPES" // vllm-project/recipes (Report.VLLMRecipes)
	BaseInferenceX  = "INFERENCEX"   // the InferenceX checkout (Report.InferenceX)
	BasePages       = "SGLANG_PAGES" // the sglang checkout with the cookbook pages (Report.PagesRepo)
	BaseSrtSlurm    = "SRT_SLURM"    // NVIDIA/srt-slurm (Report.SrtSlurm)
)

// SARIF rule ids, one per kind of finding (FindingRules lists them with their
// descriptions).
const (
	RuleDiffers       = "check3/differs"
	RuleMissing       = "check3/missing"
	RuleProhibited    = "check3/prohibited"
	RuleNotCovered    = "check3/not-covered"
	RuleNotVerified   = "check3/not-verified"
	RuleError         = "check3/error"
	RuleLinkNotMerged = "check3/link-not-merged"
)

// FindingRule describes one kind of finding of the SARIF and annotation printers.
type FindingRule struct {
	ID    string // e.g. "check3/differs"
	Title string // annotation title, e.g. "Check 3 differs"
	Short string // one sentence
	Help  string // what the finding means and how to resolve it
}

// FindingRules lists every kind of finding, in the order of the SARIF run's
// tool.driver.rules (a result's ruleIndex). Rule: SemiAnalysisAI/InferenceX
// .github/codeowner-signoff-verify-prompt.md Check 3 (b) and (c).
func FindingRules() []FindingRule {
	return []FindingRule{
		{RuleDiffers, "Check 3 differs",
			"A production-useful setting differs between the upstream documentation and the InferenceX recipe.",
			"Check 3 (c) \"Settings match\": the upstream documentation (SGLang cookbook snippet or vLLM recipe) and the effective InferenceX recipe set this setting differently (or one side does not set it), and no exclusion rule covers it. Update the upstream documentation or the recipe so the values agree, or add a reviewed exclusion rule."},
		{RuleMissing, "Check 3 missing role",
			"A worker or service role exists on one side only.",
			"Check 3 (c): the role (agg, prefill, decode, frontend, …) is launched by one side and not the other. The documentation must describe every role the InferenceX recipe runs, and nothing else."},
		{RuleProhibited, "Check 3 prohibited setting",
			"A prohibited setting appears in the upstream documentation or the InferenceX recipe.",
			"Check 3 (c): the exclusion policy prohibits this setting (the message names the rule and its reason). Remove it from the side(s) that carry it."},
		{RuleNotCovered, "Check 3 no recipe covers this",
			"No vLLM recipe role matches the InferenceX role.",
			"No vllm-project/recipes role matches the InferenceX worker's model, precision, hardware, role and topology; the nearest candidate is named with what it misses. Add or extend a vLLM recipe that documents this deployment."},
		{RuleNotVerified, "Check 3 not verified",
			"The settings of a cited point or vLLM row could not be compared.",
			"The recipe was not found, lives upstream only, matched no (or several) master-config points, or uses a construct the renderer does not model (the message says which). Nothing unknown counts as covered: fix the citation or the renderer, or run with --allow-unverified to list these without failing."},
		{RuleError, "Check 3 error",
			"An input could not be read or rendered.",
			"Bad input: the message has the file:line:col of the problem. Fix the file and re-run."},
		{RuleLinkNotMerged, "Check 3 link not merged",
			"An upstream link the sign-off cites is not a merged PR or a published page.",
			"Check 3 (b): only a merged PR or a published page counts; an open, draft or closed-unmerged PR, a missing page or a state that could not be read fails. Merge or publish the change, then re-run."},
	}
}

// MaxSARIFResults is the most results PrintSARIF writes by default:
// GitHub code scanning keeps only the first 5,000 results of a run
// (https://docs.github.com/en/code-security/reference/code-scanning/sarif-files/sarif-support,
// "results per run"), so a log never holds more.
const MaxSARIFResults = 5000

// RuleResultsLeftOut is the rule of the one result that says how many
// findings a log capped at SARIFOptions.MaxResults left out, by level. It
// is the last rule of every run's tool.driver.rules, after FindingRules.
const RuleResultsLeftOut = "cookbook-sync/results-left-out"

// FingerprintKey is the partialFingerprints key of every result: its
// value is FindingFingerprint, then ":" and the finding's occurrence (1,
// 2, … in report order) among the findings of the run with the same
// fingerprint.
const FingerprintKey = "cookbookSyncFinding/v1"

// SARIFOptions are PrintSARIF's options.
type SARIFOptions struct {
	// ToolVersion is tool.driver.version, the version of the program that
	// wrote the log (the CLI passes its module version); "" is written as
	// "(devel)", as Go names a build without one.
	ToolVersion string
	// Invocation, when set, is the run's one invocations entry: how the
	// program ended. Nil: no invocation is written.
	Invocation *Invocation
	// RunError is the error that stopped the run before its report was
	// complete (the CLI's exit 2); "" when none. It is the log's first
	// result (RunErrorFinding) and a tool execution notification of the
	// invocation.
	RunError string
	// MaxResults bounds the results of the log (0: MaxSARIFResults),
	// including the one that says how many were left out.
	MaxResults int
}

// Invocation is how the program that wrote a log ended (SARIF's
// invocation object).
type Invocation struct {
	// ExitCode is the program's exit status; Description says what it
	// means ("gap found", …).
	ExitCode    int
	Description string
	// Successful is SARIF's executionSuccessful: the program ran to the end
	// and judged every input it was given (a gap found is a success; bad
	// input or a time limit is not).
	Successful bool
}

// PrintSARIF writes the report as a SARIF 2.1.0 log (indented JSON, one
// run of tool "cookbook-sync", version o.ToolVersion, with the
// FindingRules and RuleResultsLeftOut as its rules): one result per
// finding (Findings) — each differing setting of each gap role, each
// missing role, each prohibited setting, each vLLM role no recipe covers,
// each point or row that was not verified, each error and each upstream
// link that is not merged / published — after o.RunError's, if any.
//
// Levels follow the finding's class (Class.Level): gaps and errors are
// "error", what was not verified or stopped by a time limit "warning",
// allowed not-verified outcomes (AllowUnverified) and information
// (superseded points and rows) "note". Results come worst first: by level;
// within a level breadth first — one result of each rule and config key
// before a second of any, and of a key's results each problem (role and
// setting) once before it comes again from another row or point — so a
// cap keeps every kind of gap of every key; then by rule (errors,
// prohibited, differs, missing / no recipe covers this, link not merged,
// not verified); then in report order. At most
// o.MaxResults results are written (MaxSARIFResults, GitHub's limit): when
// there are more findings, the worst MaxResults-1 are kept and a last
// result of rule RuleResultsLeftOut (level warning, no location) says how
// many were left out at each level; run.properties.resultsLeftOut holds
// the same counts and run.properties.findings the number of findings.
//
// A result's location is its place with a line when it has one: the
// upstream file position (the cookbook snippet, uriBaseId COOKBOOK; the
// vLLM recipe's Markdown block or prose sentence, VLLM_RECIPES; the
// cookbook page, SGLANG_PAGES) when its line is known, else its place in
// the InferenceX checkout (INFERENCEX: the master-config entry of the
// key, the search-space row of a point's script, the line of an error in
// the unit's own recipe), else the upstream file alone. The other place,
// when there is one, is the result's related location. Links and run
// errors have no location.
//
// Each result has partialFingerprints[FingerprintKey]: a hash of what the
// finding is about (FindingFingerprint: rule, config key, unit, role,
// setting — never a line number or a value), so GitHub tracks one alert
// across runs while the files around it change.
//
// originalUriBaseIds and versionControlProvenance name each repository by
// its GitHub permalink base when Repo and Commit are known; local
// directories (RepoInfo.Dir) are never written, and are removed from
// messages. The output has no timestamps. Errors are w's or the encoder's.
func PrintSARIF(w io.Writer, r *Report, o SARIFOptions) error {
	log, err := buildSARIF(r, o)
	if err != nil {
		return err
	}
	e := json.NewEncoder(w)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	return e.Encode(log)
}

// buildSARIF builds the SARIF log PrintSARIF writes.
func buildSARIF(r *Report, o SARIFOptions) (*sarif.Report, error) {
	log := sarif.NewReport()
	run := sarif.NewRunWithInformationURI(SARIFToolName, SARIFInformationURI)
	version := o.ToolVersion
	if version == "" {
		version = "(devel)"
	}
	run.Tool.Driver.WithVersion(version)
	rules := append(FindingRules(), FindingRule{RuleResultsLeftOut, "cookbook-sync results left out",
		"Findings left out of this log.",
		"GitHub code scanning keeps at most 5,000 results of a run: the worst findings are in the log, and this result counts the others by level. The JSON report (--format json) lists every finding."})
	index := map[string]int{}
	for i, ru := range rules {
		index[ru.ID] = i
		level := sarif.LevelError
		switch {
		case ru.ID == RuleNotVerified && r.AllowUnverified:
			level = sarif.LevelNote
		case ru.ID == RuleNotVerified, ru.ID == RuleResultsLeftOut:
			level = sarif.LevelWarning
		}
		run.Tool.Driver.AddRule(sarif.NewRule(ru.ID).
			WithName(sarifRuleName(ru.ID)).
			WithDescription(ru.Short).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(ru.Short)).
			WithHelp(sarif.NewMultiformatMessageString().WithText(ru.Help)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(level)))
	}

	bases := map[string]sarif.ArtifactLocation{}
	for _, rp := range repoBases(r) {
		if rp.info == nil {
			continue
		}
		if rp.info.Repo == "" || rp.info.Commit == "" {
			// every uriBaseId a result uses is defined; without a commit
			// the base has no URI (a local directory is never written)
			bases[rp.base] = *sarif.NewArtifactLocation().
				WithDescription(sarif.NewTextMessage(rp.label + ": the repository root (not a git checkout with a GitHub origin: no commit to link)"))
			continue
		}
		bases[rp.base] = *sarif.NewArtifactLocation().
			WithURI("https://github.com/" + rp.info.Repo + "/blob/" + rp.info.Commit + "/").
			WithDescription(sarif.NewTextMessage(rp.label + ": " + rp.info.Repo + " at " + rp.info.Commit))
		run.AddVersionControlProvenance(sarif.NewVersionControlDetails().
			WithRepositoryURI("https://github.com/" + rp.info.Repo).
			WithRevisionID(rp.info.Commit).
			WithMappedTo(sarif.NewArtifactLocation().WithURIBaseID(rp.base)))
	}
	if len(bases) > 0 {
		run.WithOriginalUriBaseIds(bases)
	}

	for _, f := range r.CookbookFiles {
		a := sarif.NewArtifact().
			WithLocation(sarif.NewArtifactLocation().WithURI(sarifURI(f.Path)).WithURIBaseID(BaseCookbook))
		if f.SHA256 != "" {
			a.WithHashes(map[string]string{"sha-256": f.SHA256})
		}
		run.AddArtifact(a)
	}

	var fs []Finding
	if o.RunError != "" {
		fs = append(fs, RunErrorFinding(r, o.RunError))
	}
	fs = append(fs, Findings(r)...)
	prints := fingerprints(fs)
	order := worstFirst(fs, keyRule, problem)
	limit := o.MaxResults
	if limit <= 0 {
		limit = MaxSARIFResults
	}
	kept, left := order, []int(nil)
	if len(order) > limit {
		kept, left = order[:limit-1], order[limit-1:]
	}

	props := sarif.NewPropertyBag().
		Add("verdict", string(r.Verdict)).
		Add("gap", r.Gap).
		Add("headline", headline(r, o.RunError)).
		Add("policyVersion", r.Policy.Version).
		Add("schemaVersion", r.SchemaVersion).
		Add("findings", len(fs))
	if r.AllowUnverified {
		props.Add("allowUnverified", true)
	}
	leftCounts := map[string]int{}
	for _, i := range left {
		leftCounts[fs[i].Level]++
	}
	if len(left) > 0 {
		props.Add("resultsLeftOut", leftCounts)
	}
	run.WithProperties(props)

	if o.Invocation != nil {
		inv := sarif.NewInvocation().
			WithExecutionSuccessful(o.Invocation.Successful).
			WithExitCode(o.Invocation.ExitCode)
		if o.Invocation.Description != "" {
			inv.WithExitCodeDescription(r.Scrub(o.Invocation.Description))
		}
		if o.RunError != "" {
			inv.AddToolExecutionNotification(sarif.NewNotification().
				WithLevel(sarif.LevelError).
				WithMessage(sarif.NewTextMessage(fs[0].Message)))
		}
		run.AddInvocation(inv)
	}

	for _, i := range kept {
		f := fs[i]
		res := sarif.NewRuleResult(f.Rule).
			WithRuleIndex(index[f.Rule]).
			WithLevel(f.Level).
			WithMessage(sarif.NewTextMessage(f.Message)).
			WithPartialFingerprints(map[string]string{FingerprintKey: prints[i]})
		primary, related := f.places()
		if primary.file != "" {
			res.AddLocation(primary.sarifLocation())
		}
		if related.file != "" {
			res.AddRelatedLocation(related.sarifLocation())
		}
		pb := sarif.NewPropertyBag()
		for _, p := range f.Props {
			pb.Add(p.Key, p.Value)
		}
		res.WithProperties(pb)
		run.AddResult(res)
	}
	if len(left) > 0 {
		var parts []string
		for _, l := range []string{"error", "warning", "note"} {
			if n := leftCounts[l]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, plural(n, l, l+"s")))
			}
		}
		msg := fmt.Sprintf("%d more %s left out of this log (at most %d results): %s; the JSON report (--format json) lists every one",
			len(left), plural(len(left), "finding", "findings"), limit, strings.Join(parts, ", "))
		pb := sarif.NewPropertyBag().Add("resultsLeftOut", leftCounts)
		run.AddResult(sarif.NewRuleResult(RuleResultsLeftOut).
			WithRuleIndex(index[RuleResultsLeftOut]).
			WithLevel(sarif.LevelWarning).
			WithMessage(sarif.NewTextMessage(msg)).
			WithPartialFingerprints(map[string]string{FingerprintKey: hashFields(RuleResultsLeftOut) + ":1"}).
			WithProperties(pb))
	}
	log.AddRun(run)
	return log, nil
}

// headline is the run's headline (Headline), or, when a run error stopped
// the run, "❌ Check 3: error — the run stopped: <message>".
func headline(r *Report, runErr string) string {
	if runErr != "" {
		return "❌ Check 3: error — the run stopped: " + RunErrorFinding(r, runErr).InputText
	}
	return Headline(r)
}

// place is one position of a finding: a file of the repository of
// uriBaseId base, and a 1-based line (0: not known).
type place struct {
	base, file string
	line       int
}

// places are the finding's SARIF locations: the primary one (the first
// with a line of: the upstream place, the InferenceX place; else the
// upstream file, else the InferenceX file) and the other, when it is
// another place; an empty place for none.
func (f Finding) places() (primary, related place) {
	up := place{f.Base, f.File, f.Line}
	ix := place{}
	if f.InferenceXFile != "" {
		ix = place{BaseInferenceX, f.InferenceXFile, f.InferenceXLine}
	}
	if up.file == "" {
		return ix, place{}
	}
	if ix.file == "" || ix == up || (ix.base == up.base && ix.file == up.file && ix.line == 0) {
		return up, place{}
	}
	if up.line == 0 && ix.line > 0 {
		return ix, up
	}
	return up, ix
}

// sarifLocation is p as a SARIF location (with a region when the line is
// known).
func (p place) sarifLocation() *sarif.Location {
	al := sarif.NewArtifactLocation().WithURI(sarifURI(p.file)).WithURIBaseID(p.base)
	pl := sarif.NewPhysicalLocation().WithArtifactLocation(al)
	if p.line > 0 {
		pl.WithRegion(sarif.NewRegion().WithStartLine(p.line))
	}
	return sarif.NewLocationWithPhysicalLocation(pl)
}

// FindingFingerprint is the stable identity of a finding, the hex SHA-256
// (first 32 digits) of the lines "name=value" of what it is about, in this
// order, each only when the finding has it:
//
//	rule=<FindingRule ID>
//	source=<cookbook | vllm-recipes | sglang-pages | input | link>
//	key=<InferenceX config key>
//	file=<the cookbook snippet of a point; the file of an input error>
//	cell=<cell id> point=<point index>          (a cookbook point)
//	row=<search-space row> concs=<1,2,4>        (a key's row)
//	role=<role[index]> topology=<TP8>           (a role; topology for rows)
//	setting=<flag or env var>                   (a setting)
//	input=<kind> text=<message>                 (an input or run error; its ":line:col" removed)
//	url=<upstream link>                         (a link)
//
// Never a line number, a value or a verdict: an alert stays one alert
// while the files around it move, a value changes or a class is relaxed
// (superseded, allowed).
func FindingFingerprint(f Finding) string {
	var fields []string
	add := func(k, v string) { fields = append(fields, k+"="+v) }
	add("rule", f.Rule)
	switch {
	case f.Point != nil:
		add("source", "cookbook")
		add("key", f.Point.ConfigKey)
		add("file", f.Point.File)
		add("cell", f.Point.CellID)
		add("point", strconv.Itoa(f.Point.Point))
	case f.Row != nil && f.Key != nil:
		src := f.Key.Source
		if src == "" {
			src = SourceVLLMRecipes
		}
		add("source", src)
		add("key", f.Key.ConfigKey)
		add("row", strconv.Itoa(f.Row.Row))
		add("concs", concs(f.Row.Concs))
	case f.Link != nil:
		add("source", "link")
		add("url", f.Link.URL)
	case f.Input != "":
		add("source", "input")
		add("input", f.Input)
		add("text", lineColRe.ReplaceAllString(f.Message, ""))
	}
	switch {
	case f.Role != nil:
		add("role", roleName(*f.Role))
	case f.Match != nil:
		add("role", f.Match.Role)
	}
	if f.Match != nil {
		add("topology", f.Match.Topology)
	}
	if s := f.setting(); s != "" {
		add("setting", s)
	}
	return hashFields(fields...)
}

// lineColRe is a ":line:col" of a position in a message.
var lineColRe = regexp.MustCompile(`:\d+:\d+\b`)

// hashFields is the first 32 hex digits of the SHA-256 of the fields,
// one per line.
func hashFields(fields ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(fields, "\n") + "\n"))
	return hex.EncodeToString(sum[:16])
}

// fingerprints are the partialFingerprints values of fs, in its order:
// FindingFingerprint and ":" the occurrence of that fingerprint so far.
func fingerprints(fs []Finding) []string {
	seen := map[string]int{}
	out := make([]string, len(fs))
	for i, f := range fs {
		h := FindingFingerprint(f)
		seen[h]++
		out[i] = h + ":" + strconv.Itoa(seen[h])
	}
	return out
}

// sarifRuleName is the rule id's last part in CamelCase ("check3/not-covered"
// → "NotCovered"), SARIF's reportingDescriptor.name.
func sarifRuleName(id string) string {
	id = id[strings.LastIndexByte(id, '/')+1:]
	var b strings.Builder
	for _, w := range strings.Split(id, "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// sarifURI escapes a repository-relative path as a relative URI reference
// (spaces and the like percent-encoded, "/" kept).
func sarifURI(p string) string {
	return (&url.URL{Path: filepath.ToSlash(p)}).EscapedPath()
}

// repoBase is one repository a report names, with its uriBaseId symbol.
type repoBase struct {
	base, label string
	info        *RepoInfo
}

func repoBases(r *Report) []repoBase {
	return []repoBase{
		{BaseCookbook, "cookbook", r.Cookbook},
		{BaseInferenceX, "inferencex", &r.InferenceX},
		{BaseVLLMRecipes, "vllm-recipes", r.VLLMRecipes},
		{BasePages, "sglang-pages", r.PagesRepo},
		{BaseSrtSlurm, "srt-slurm", r.SrtSlurm},
	}
}
