package drift

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/cookbook-sync/cookbook-sync/report"
)

// sarifRule is one drift state as a SARIF rule.
type sarifRule struct {
	state       State
	id, short   string
	help        string
	defaultWarn bool
}

// sarifRules are the drift states a result can have, in the run's
// tool.driver.rules order.
var sarifRules = []sarifRule{
	{InfxMoved, "drift/inferencex-moved", "The InferenceX recipe changed since the commit the cookbook point pins.",
		"The cookbook shows what the recipe ran at its pinned commit (prov.sha); the recipe at InferenceX head runs something else (the message lists the settings). The next cookbook sync must carry them.", false},
	{CookbookDrifted, "drift/cookbook-drifted", "The cookbook does not show what the recipe ran at its pinned commit.",
		"The cookbook point and the recipe at the commit its provenance pins set a setting differently (the message lists them): the cookbook was edited, or generated from something else. Regenerate the snippet or fix its provenance.", false},
	{RecipeGone, "drift/recipe-gone", "The recipe the cookbook point cites is no longer in InferenceX.",
		"The cited recipe or script existed at the pinned commit and is not at InferenceX head: the key or recipe was retired. Retire the cookbook point or re-point it.", false},
	{CoverageLost, "drift/coverage-lost", "A config key covered in the previous run no longer is.",
		"A page or vLLM-recipe key was covered (Check 3) in the previous run's state and is not now (the message lists the differences).", false},
	{NotCovered, "drift/not-covered", "A config key is not covered by the cookbook pages or the vLLM recipes.",
		"The key was not covered in the previous run either (or there was none): known, new only on a first run.", true},
	{NotVerified, "drift/not-verified", "A deployment could not be compared.",
		"One side could not be rendered or compared (the message says why): nothing unknown is in sync.", true},
}

// PrintSARIF writes the drifted items as a SARIF 2.1.0 log for code
// scanning: one result per drifted item (level error when it fails the
// run, warning when known or accepted), located in the cookbook snippet
// (uriBaseId COOKBOOK) or the InferenceX master config (INFERENCEX), with
// a fingerprint from the rule and the item's id; version is the tool's.
func PrintSARIF(w io.Writer, res *Result, version string) error {
	log := sarif.NewReport()
	run := sarif.NewRunWithInformationURI(report.SARIFToolName, report.SARIFInformationURI)
	if version == "" {
		version = "(devel)"
	}
	run.Tool.Driver.WithVersion(version)
	index := map[State]int{}
	for i, r := range sarifRules {
		index[r.state] = i
		level := sarif.LevelError
		if r.defaultWarn {
			level = sarif.LevelWarning
		}
		run.Tool.Driver.AddRule(sarif.NewRule(r.id).
			WithName(strings.ReplaceAll(strings.TrimPrefix(r.id, "drift/"), "-", " ")).
			WithDescription(r.short).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(r.short)).
			WithHelp(sarif.NewMultiformatMessageString().WithText(r.help)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(level)))
	}
	bases := map[string]sarif.ArtifactLocation{}
	base := func(name string, info *report.RepoInfo) {
		if info == nil || info.Repo == "" || info.Commit == "" {
			return
		}
		bases[name] = *sarif.NewArtifactLocation().WithURI("https://github.com/" + info.Repo + "/blob/" + info.Commit + "/")
	}
	if res.Head != nil {
		base(report.BaseCookbook, res.Head.Cookbook)
	}
	base(report.BaseInferenceX, &res.InferenceX)
	if len(bases) > 0 {
		run.WithOriginalUriBaseIds(bases)
	}
	run.WithProperties(sarif.NewPropertyBag().Add("summary", res.Summary()).Add("status", res.Status()).Add("failed", res.Failed))
	for _, it := range res.Items {
		i, ok := index[it.State]
		if !ok {
			continue
		}
		level := sarif.LevelWarning
		if it.Fails {
			level = sarif.LevelError
		}
		msg := it.ConfigKey + ": " + string(it.State)
		if it.Reason != "" {
			msg += ": " + it.Reason
		}
		if len(it.Changes) > 0 {
			msg += ": " + strings.Join(it.Changes, "; ")
		}
		if f := it.flags(); f != "" {
			msg += " [" + f + "]"
		}
		sum := sha256.Sum256([]byte(sarifRules[i].id + "\n" + it.ID))
		r := sarif.NewRuleResult(sarifRules[i].id).WithRuleIndex(i).WithLevel(level).
			WithMessage(sarif.NewTextMessage(msg)).
			WithPartialFingerprints(map[string]string{"cookbookSyncDrift/v1": hex.EncodeToString(sum[:16])})
		if it.File != "" {
			b := report.BaseInferenceX
			if it.Source == SourceAgentX {
				b = report.BaseCookbook
			}
			pl := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewArtifactLocation().WithURI(it.File).WithURIBaseID(b))
			if it.Line > 0 {
				pl.WithRegion(sarif.NewRegion().WithStartLine(it.Line))
			}
			r.AddLocation(sarif.NewLocationWithPhysicalLocation(pl))
		}
		run.AddResult(r)
	}
	log.AddRun(run)
	b, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
