package report

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
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

// PrintSARIF writes the report as a SARIF 2.1.0 log (indented JSON, one
// run of tool "cookbook-sync" with the FindingRules as its rules): one result per
// finding — each differing setting of each gap role, each missing role,
// each prohibited setting, each vLLM role no recipe covers, each point or
// row that was not verified (level note when AllowUnverified, else error:
// it fails closed like any gap), each error and each upstream link that is not merged /
// published; gaps and errors have level error. A result's location is the
// upstream file position: the cookbook snippet (uriBaseId COOKBOOK), the
// vLLM recipe (VLLM_RECIPES), or, for a role no recipe covers, the
// InferenceX master config (INFERENCEX). originalUriBaseIds and
// versionControlProvenance name each repository by its GitHub permalink
// base when Repo and Commit are known; local directories (RepoInfo.Dir) are
// never written, and are removed from messages. The output has no
// timestamps and follows the report's order. Errors are w's or the
// encoder's.
func PrintSARIF(w io.Writer, r *Report) error {
	log, err := buildSARIF(r)
	if err != nil {
		return err
	}
	e := json.NewEncoder(w)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	return e.Encode(log)
}

// buildSARIF builds the SARIF log PrintSARIF writes.
func buildSARIF(r *Report) (*sarif.Report, error) {
	log := sarif.NewReport()
	run := sarif.NewRunWithInformationURI(SARIFToolName, SARIFInformationURI)
	rules := FindingRules()
	index := map[string]int{}
	for i, ru := range rules {
		index[ru.ID] = i
		level := sarif.LevelError
		if ru.ID == RuleNotVerified && r.AllowUnverified {
			level = sarif.LevelNote
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

	props := sarif.NewPropertyBag().
		Add("verdict", string(r.Verdict)).
		Add("gap", r.Gap).
		Add("headline", Headline(r)).
		Add("policyVersion", r.Policy.Version).
		Add("schemaVersion", r.SchemaVersion)
	if r.AllowUnverified {
		props.Add("allowUnverified", true)
	}
	run.WithProperties(props)

	for _, f := range Findings(r) {
		res := sarif.NewRuleResult(f.Rule).
			WithRuleIndex(index[f.Rule]).
			WithLevel(f.Level).
			WithMessage(sarif.NewTextMessage(f.Message))
		if f.File != "" {
			al := sarif.NewArtifactLocation().WithURI(sarifURI(f.File)).WithURIBaseID(f.Base)
			pl := sarif.NewPhysicalLocation().WithArtifactLocation(al)
			if f.Line > 0 {
				pl.WithRegion(sarif.NewRegion().WithStartLine(f.Line))
			}
			res.AddLocation(sarif.NewLocationWithPhysicalLocation(pl))
		}
		pb := sarif.NewPropertyBag()
		for _, p := range f.Props {
			pb.Add(p.Key, p.Value)
		}
		res.WithProperties(pb)
		run.AddResult(res)
	}
	log.AddRun(run)
	return log, nil
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
