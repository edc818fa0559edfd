package report

import "github.com/cookbook-sync/cookbook-sync/compare"

// Sources of a key verdict (KeyVerdict.Source, UnitVerdict.Source,
// SourceResult.Source): the AgentX snippets, the cookbook's hand-written
// pages (SourcePages) and vllm-project/recipes (SourceVLLMRecipes).
const SourceAgentX = "agentx"

// KeyVerdict is the one Check 3 verdict of a config key from every source
// (issue 22): the key's deployments — each master-config row ×
// concurrency InferenceX ran (a unit) — are each covered when one
// selection of one source covers all their roles (an AgentX cell's point,
// a cookbook page selection, a vLLM recipe selection or guide block; never
// a prefill from one and a decode from another); otherwise a unit takes
// the best single-source result (UnitRank). The key's verdict is its worst
// unit's (compare.Worse).
type KeyVerdict struct {
	ConfigKey string          `json:"configKey"`
	Verdict   compare.Verdict `json:"verdict"`
	// Source is the source of every unit's verdict when it is one
	// (agentx, sglang-pages, vllm-recipes), "" when the units' verdicts come
	// from several.
	Source string `json:"source,omitempty"`
	// Sources lists every source that judged the key, in source order.
	Sources []string      `json:"sources"`
	Units   []UnitVerdict `json:"units"`
	// Note says why the key has no unit (not applicable under the policy
	// version: the sources' note).
	Note string `json:"note,omitempty"`
}

// UnitVerdict is the verdict of one deployment of a key, with the
// concurrencies that share the same outcome folded into Concs.
type UnitVerdict struct {
	// Row is the master-config row (infx's index among the key's rows),
	// nil for an AgentX point no master-config row was found for (its
	// concurrencies are then the point's).
	Row     *int            `json:"row,omitempty"`
	Concs   []int           `json:"concs"`
	Verdict compare.Verdict `json:"verdict"`
	// Source and Selection name where the verdict comes from: the covering
	// selection, or the nearest one of the best source ("agentx:
	// docs/…/glm-5.2.jsx § glm5.2-…#0 point 3", "sglang-pages:
	// docs/cookbook/…/GLM-5.2.mdx § hw=b300,…").
	Source    string `json:"source"`
	Selection string `json:"selection"`
	// Others are the other sources' results for this unit, as
	// information: each with what it documents differently.
	Others []SourceResult `json:"others,omitempty"`
}

// SourceResult is one source's result for a unit.
type SourceResult struct {
	Source    string          `json:"source"`
	Verdict   compare.Verdict `json:"verdict"`
	Selection string          `json:"selection"`
	// Shows lists what the source documents differently ("decode:
	// --speculative-num-steps 3 (inferencex 5)"), at most MaxShows.
	Shows []string `json:"shows,omitempty"`
}

// MaxShows bounds SourceResult.Shows.
const MaxShows = 6

// UnitRank orders the results a unit takes the best of: covered,
// covered-with-exclusions, then the compared gaps (differs, missing / no
// recipe covers this, prohibited: a source that compared says more than one
// that could not), then the not-verified outcomes, a time limit, an error.
// Not applicable ranks first (nothing to judge).
func UnitRank(v compare.Verdict) int {
	switch v {
	case compare.NotApplicable:
		return 0
	case compare.Covered:
		return 1
	case compare.CoveredWithExclusions:
		return 2
	case compare.Differs:
		return 3
	case compare.Missing, compare.NotCovered:
		return 4
	case compare.Prohibited:
		return 5
	case compare.TimeLimit:
		return 7
	case compare.Error:
		return 8
	}
	if v.NotVerified() {
		return 6
	}
	return 8 // unknown: fail closed
}
