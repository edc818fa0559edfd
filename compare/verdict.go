package compare

// Verdict is the one outcome vocabulary of every Check 3 judgement — a
// role, a cookbook point, a vLLM-family row or key, a whole report — with
// one severity order (Rank). Rule: SemiAnalysisAI/InferenceX
// .github/codeowner-signoff-verify-prompt.md Check 3 (c) "Settings match";
// the not-verified outcomes follow the fail-closed reading of
// ../shared/spec/inferencex.md: an unknown thing never counts as covered.
type Verdict string

// Verdicts, from best to worst (Rank).
const (
	// NotApplicable: Check 3 does not apply under the policy version the
	// run follows (e.g. a multi-node key under a single-node-only policy):
	// nothing to compare, not a gap, never "covered".
	NotApplicable Verdict = "not applicable"
	// Covered: every compared setting is equal.
	Covered Verdict = "covered"
	// CoveredWithExclusions: settings differ, but every difference is
	// excluded by a rule (harness, collection, synthetic acceptance,
	// placement) or informational (judgment); each is listed.
	CoveredWithExclusions Verdict = "covered-with-exclusions"

	// The not-verified outcomes (NotVerified): the settings were not
	// compared, so a sign-off cannot rest on them; a gap unless the caller
	// allows unverified outcomes (coverage.Options.AllowUnverified).

	// MatchedNotCompared: a vLLM recipe role matches, but the InferenceX
	// point could not be rendered, so its settings were not compared.
	MatchedNotCompared Verdict = "matched (not compared)"
	// UpstreamOnly: the recipe lives in the NVIDIA/srt-slurm ref the
	// launcher clones, not in the InferenceX checkout.
	UpstreamOnly Verdict = "upstream-only"
	// RecipeNotFound: a cited repository recipe path is not in the
	// InferenceX checkout.
	RecipeNotFound Verdict = "recipe not found"
	// ScriptNotFound: a cited single-node script is not in the InferenceX
	// checkout.
	ScriptNotFound Verdict = "script not found"
	// NoMatch: no master-config point fits the upstream point.
	NoMatch Verdict = "no matching point"
	// Ambiguous: several master-config points fit and nothing tells them
	// apart.
	Ambiguous Verdict = "ambiguous point"
	// Unsupported: a launcher format or construct the renderer does not
	// model (named in the message).
	Unsupported Verdict = "unsupported"
	// ContentNotKnown: a compared role has a setting whose value is not
	// known on one side (Result.Unknown), e.g. the content of
	// srt-slurm's own /configs/ file without the srt-slurm checkout.
	ContentNotKnown Verdict = "content not known"
	// TimeLimit: a wall-clock backstop (the page sandbox's or the script
	// sandbox's) stopped the work this depends on before it ended. It says
	// nothing about the input: the same input on a quiet machine gives a
	// verdict. Not verified, but never allowed (Allowable): the run exits
	// 3, asking for a re-run.
	TimeLimit Verdict = "time limit — re-run"

	// Missing: the role exists on one side only. A gap.
	Missing Verdict = "missing"
	// NotCovered: no vLLM recipe role matches the InferenceX role (model or
	// variant checkpoint, precision, hardware, role, topology); the nearest
	// candidate is named with what differs. A gap.
	NotCovered Verdict = "no recipe covers this"
	// Differs: a production-useful setting is missing or different. A gap.
	Differs Verdict = "differs"
	// Prohibited: a prohibited setting appears on either side. A gap.
	Prohibited Verdict = "prohibited"
	// Error: the input is present but could not be read or rendered (bad
	// input, with file:line:col in the message).
	Error Verdict = "error"
)

// Verdicts lists every verdict in severity order, best first (the order of
// report counts and of Rank).
func Verdicts() []Verdict {
	return []Verdict{NotApplicable, Covered, CoveredWithExclusions,
		MatchedNotCompared, UpstreamOnly, RecipeNotFound, ScriptNotFound, NoMatch, Ambiguous, Unsupported, ContentNotKnown, TimeLimit,
		Missing, NotCovered, Differs, Prohibited, Error}
}

// Rank orders verdicts by severity: covered = not applicable 0 <
// covered-with-exclusions 1
// < the not-verified outcomes 2 < missing = no recipe covers this 3 <
// differs 4 < prohibited 5 < error 6. An unknown verdict ranks as error:
// nothing unknown is ever better than a known failure.
func (v Verdict) Rank() int {
	switch v {
	case Covered, NotApplicable:
		return 0
	case CoveredWithExclusions:
		return 1
	case MatchedNotCompared, UpstreamOnly, RecipeNotFound, ScriptNotFound, NoMatch, Ambiguous, Unsupported, ContentNotKnown, TimeLimit:
		return 2
	case Missing, NotCovered:
		return 3
	case Differs:
		return 4
	case Prohibited:
		return 5
	}
	return 6
}

// Gap reports whether v fails Check 3 on its own: differs, missing, no
// recipe covers this, prohibited. Not-verified outcomes are gaps only when
// unverified outcomes are not allowed (NotVerified); errors are bad input.
func (v Verdict) Gap() bool {
	return v == Differs || v == Missing || v == NotCovered || v == Prohibited
}

// NotVerified reports whether v means the settings were not compared
// (matched (not compared), upstream-only, recipe not found, script not
// found, no matching point, ambiguous point, unsupported, content not
// known, time limit).
func (v Verdict) NotVerified() bool { return v.Rank() == 2 }

// Allowable reports whether v is a not-verified outcome that
// coverage.Options.AllowUnverified may list without a gap: every one but
// TimeLimit, which is no outcome of the input and is never hidden.
func (v Verdict) Allowable() bool { return v.NotVerified() && v != TimeLimit }

// Worse returns the more severe of a and b (Rank); of equal rank, a. The
// empty verdict is "nothing yet": Worse("", b) is b.
func Worse(a, b Verdict) Verdict {
	if a == "" || b.Rank() > a.Rank() {
		return b
	}
	return a
}

// Summary gives the worst verdict over results (Covered when empty).
func Summary(rs []Result) Verdict {
	v := Covered
	for _, r := range rs {
		v = Worse(v, r.Verdict)
	}
	return v
}
