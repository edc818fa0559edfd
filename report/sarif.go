package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/cookbook-sync/cookbook-sync/compare"
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

	for _, f := range gapFindings(r) {
		res := sarif.NewRuleResult(f.rule).
			WithRuleIndex(index[f.rule]).
			WithLevel(f.level).
			WithMessage(sarif.NewTextMessage(f.msg))
		if f.file != "" {
			al := sarif.NewArtifactLocation().WithURI(sarifURI(f.file)).WithURIBaseID(f.base)
			pl := sarif.NewPhysicalLocation().WithArtifactLocation(al)
			if f.line > 0 {
				pl.WithRegion(sarif.NewRegion().WithStartLine(f.line))
			}
			res.AddLocation(sarif.NewLocationWithPhysicalLocation(pl))
		}
		pb := sarif.NewPropertyBag()
		for _, p := range f.props {
			pb.Add(p.k, p.v)
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

// gapFinding is one result of the SARIF and annotation printers: a gap, an
// error, an outcome that was not verified or a link that is not merged.
type gapFinding struct {
	rule  string // FindingRule.ID
	level string // error, warning or note (SARIF levels; annotations map them)
	msg   string
	// base is the uriBaseId of file (BaseCookbook, BaseVLLMRecipes,
	// BaseInferenceX); file is relative to that repository ("" = no
	// location), line 1-based (0 = none).
	base, file string
	line       int
	props      []gapProp
}

// gapProp is one property of a gapFinding, in the order given.
type gapProp struct {
	k string
	v any
}

var recipeErrorPosRe = regexp.MustCompile(`^([^\s:]+):(\d+):\d+: `)

// gapFindings lists the report's findings in report order: the cookbook
// points (each gap role's differences, missing role, prohibited settings;
// the point's error; the point when not verified), the vLLM-family keys'
// rows likewise (with roles no recipe covers), the vLLM recipe decoding
// errors, then the upstream links that are not merged / published. Local
// directories are removed from every message (scrubDirs).
func gapFindings(r *Report) []gapFinding {
	var out []gapFinding
	// not verified fails closed: an error like any gap, unless allowed
	unverified := sarif.LevelError
	if r.AllowUnverified {
		unverified = sarif.LevelNote
	}
	pv := gapProp{"policyVersion", r.Policy.Version}
	add := func(f gapFinding) {
		f.msg = scrubDirs(r, f.msg)
		for i, p := range f.props {
			if s, ok := p.v.(string); ok {
				f.props[i].v = scrubDirs(r, s)
			}
		}
		out = append(out, f)
	}

	for _, p := range r.Points {
		base := func(rule, level, msg string, extra ...gapProp) gapFinding {
			ps := []gapProp{{"configKey", p.ConfigKey}, {"cellId", p.CellID}, {"point", p.Point}}
			ps = append(ps, extra...)
			ps = append(ps, pv)
			if p.Recipe != "" {
				rec := p.Recipe
				if p.Selector != "" {
					rec += ":" + p.Selector
				}
				ps = append(ps, gapProp{"inferencexRecipe", rec})
			}
			return gapFinding{rule: rule, level: level, msg: msg, base: BaseCookbook, file: p.File, line: p.Line, props: ps}
		}
		switch {
		case p.Status == StatusError:
			add(base(RuleError, sarif.LevelError, fmt.Sprintf("%s point %d: error: %s", p.CellID, p.Point, p.Message),
				gapProp{"verdict", string(compare.Error)}))
			continue
		case p.Status.NotVerified():
			msg := fmt.Sprintf("%s point %d: not verified: %s", p.CellID, p.Point, p.Status)
			if p.Message != "" {
				msg += ": " + p.Message
			}
			add(base(RuleNotVerified, unverified, msg, gapProp{"verdict", string(p.Status.Verdict())}))
			continue
		}
		for _, res := range p.Roles {
			if !res.Verdict.Gap() {
				continue
			}
			head := fmt.Sprintf("%s point %d %s", p.CellID, p.Point, roleName(res))
			rp := []gapProp{{"role", roleName(res)}, {"verdict", string(res.Verdict)}}
			for _, f := range roleFindings(head, res) {
				add(base(f.rule, sarif.LevelError, f.msg, append(append([]gapProp{}, rp...), f.props...)...))
			}
		}
	}

	for _, k := range r.UpstreamKeys() {
		for _, row := range k.Rows {
			head := k.ConfigKey
			if row.Row >= 0 {
				head = fmt.Sprintf("%s row %d", k.ConfigKey, row.Row)
			}
			props := func(extra ...gapProp) []gapProp {
				ps := []gapProp{{"configKey", k.ConfigKey}, {"framework", k.Framework}}
				if row.Row >= 0 {
					ps = append(ps, gapProp{"row", row.Row})
				}
				ps = append(ps, extra...)
				ps = append(ps, pv)
				if row.Recipe != "" {
					rec := row.Recipe
					if row.Selector != "" {
						rec += ":" + row.Selector
					}
					ps = append(ps, gapProp{"inferencexRecipe", rec})
				}
				return ps
			}
			master := gapFinding{base: BaseInferenceX, file: k.MasterFile, line: k.MasterLine}
			// a row-level gapFinding points at the vLLM recipe a role matched,
			// else at the InferenceX master config
			rowLoc := master
			for _, ro := range row.Roles {
				if ro.Recipe != nil && ro.Recipe.File != "" {
					rowLoc = gapFinding{base: upstreamBase(k), file: ro.Recipe.File, line: ro.Recipe.Line}
					break
				}
			}
			switch {
			case row.Status == StatusError:
				f := rowLoc
				f.rule, f.level, f.msg = RuleError, sarif.LevelError, fmt.Sprintf("%s: error: %s", head, row.Message)
				f.props = props(gapProp{"verdict", string(compare.Error)})
				add(f)
				continue
			case row.Status.NotVerified():
				f := rowLoc
				msg := fmt.Sprintf("%s conc %s: not verified: %s", head, concRange(row.Concs), row.Status)
				if row.Message != "" {
					msg += ": " + row.Message
				}
				f.rule, f.level, f.msg = RuleNotVerified, unverified, msg
				f.props = props(gapProp{"verdict", string(row.Status.Verdict())})
				add(f)
				// its roles may still be gaps (no recipe covers them)
			}
			for _, ro := range row.Roles {
				if !ro.Verdict.Gap() {
					continue
				}
				rhead := fmt.Sprintf("%s %s (%s)", head, ro.Role, ro.Topology)
				rp := []gapProp{{"role", ro.Role}, {"topology", ro.Topology}, {"verdict", string(ro.Verdict)}}
				if ro.Verdict == compare.NotCovered || ro.Recipe == nil {
					f := master
					msg := fmt.Sprintf("%s: %s", rhead, ro.Verdict)
					if ro.Nearest != nil {
						msg += "; nearest upstream: " + ro.Nearest.Where
						rp = append(rp, gapProp{"nearest", ro.Nearest.Where})
					}
					if len(ro.Misses) > 0 {
						msg += "; misses: " + strings.Join(ro.Misses, "; ")
					}
					f.rule, f.level, f.msg, f.props = ruleFor(ro.Verdict), sarif.LevelError, msg, props(rp...)
					add(f)
					continue
				}
				loc := gapFinding{base: upstreamBase(k), file: ro.Recipe.File, line: ro.Recipe.Line}
				rp = append(rp, gapProp{"vllmRecipe", ro.Recipe.Where})
				if ro.Recipe.URL != "" {
					rp = append(rp, gapProp{"recipesURL", ro.Recipe.URL})
				}
				res := ro.Result
				if res == nil {
					res = &compare.Result{Role: ro.Role, Verdict: ro.Verdict}
				}
				for _, rf := range roleFindings(rhead, *res) {
					f := loc
					f.rule, f.level, f.msg = rf.rule, sarif.LevelError, rf.msg
					f.props = props(append(append([]gapProp{}, rp...), rf.props...)...)
					add(f)
				}
			}
		}
	}

	for _, e := range r.VLLMRecipeErrors {
		f := gapFinding{rule: RuleError, level: sarif.LevelError, msg: "vLLM recipe error: " + e,
			props: []gapProp{{"verdict", string(compare.Error)}, pv}}
		if m := recipeErrorPosRe.FindStringSubmatch(scrubDirs(r, e)); m != nil && !filepath.IsAbs(m[1]) {
			f.base, f.file = BaseVLLMRecipes, m[1]
			f.line, _ = strconv.Atoi(m[2])
		}
		add(f)
	}

	for _, l := range r.Upstream {
		if l.OK {
			continue
		}
		msg := fmt.Sprintf("upstream link %s: %s (Check 3 (b) needs a merged PR or a published page)", l.URL, l.State)
		if l.Error != "" {
			msg += ": " + l.Error
		}
		ps := []gapProp{{"url", l.URL}, {"kind", l.Kind}, {"state", l.State}}
		if l.Repo != "" {
			ps = append(ps, gapProp{"repo", l.Repo})
		}
		if l.Number > 0 {
			ps = append(ps, gapProp{"number", l.Number})
		}
		add(gapFinding{rule: RuleLinkNotMerged, level: sarif.LevelError, msg: msg, props: append(ps, pv)})
	}
	return out
}

// roleFindings lists the findings of one gap role (rule, message, extra
// properties; the caller adds the location): one per differing setting
// ("<head>: <setting>: upstream <v>, inferencex <v> (<note>)"), one per
// prohibited setting, one for a missing role; a gap role none of these
// explain gets one gapFinding of its verdict (fail closed).
func roleFindings(head string, res compare.Result) []gapFinding {
	var out []gapFinding
	if res.Verdict == compare.Missing {
		msg := head + ": missing"
		if res.Note != "" {
			msg += ": " + res.Note
		}
		out = append(out, gapFinding{rule: RuleMissing, msg: msg})
	}
	for _, d := range res.Differences {
		msg := fmt.Sprintf("%s: %s: upstream %s, inferencex %s", head, d.Setting, val(d.Upstream), val(d.InferenceX))
		if d.Note != "" {
			msg += " (" + d.Note + ")"
		}
		out = append(out, gapFinding{rule: RuleDiffers, msg: msg, props: []gapProp{{"setting", d.Setting}}})
	}
	for _, x := range res.Prohibited {
		out = append(out, gapFinding{rule: RuleProhibited, msg: head + ": " + prohibitedText(x, "upstream", "inferencex"),
			props: []gapProp{{"setting", x.Setting}, {"exclusionRule", x.Rule}, {"policy", x.Policy}}})
	}
	if len(out) == 0 {
		msg := head + ": " + string(res.Verdict)
		if res.Note != "" {
			msg += ": " + res.Note
		}
		out = append(out, gapFinding{rule: ruleFor(res.Verdict), msg: msg})
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

// scrubDirs removes the report's absolute local directories (RepoInfo.Dir)
// from s: "<dir>/rel" becomes "rel" and a bare "<dir>" the repository's
// name (or label). Relative directories are left alone: they are not
// local paths of the machine and would match ordinary words.
func scrubDirs(r *Report, s string) string { return r.Scrub(s) }

// upstreamBase is the uriBaseId of a key's recipe references: the vLLM
// recipes, or the sglang checkout with the cookbook pages.
func upstreamBase(k KeyResult) string {
	if k.Source == SourcePages {
		return BasePages
	}
	return BaseVLLMRecipes
}
