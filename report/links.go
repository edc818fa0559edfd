package report

import (
	"time"
)

// Link is the Check 3 (b) state of one upstream link a sign-off cites (a PR
// or a published page), as read by package upstream and handed to the report
// as data by the caller (packages report and coverage do no network I/O).
//
// Rule: SemiAnalysisAI/InferenceX .github/codeowner-signoff-verify-prompt.md
// Check 3 (b): only a MERGED PR or a published page counts; a state that
// cannot be verified fails.
type Link struct {
	URL string `json:"url"`
	// Kind is "pr", "page" or "other" (upstream.KindPR, KindPage, KindOther).
	Kind string `json:"kind"`
	// State is open, draft, closed-unmerged, merged (PRs), exists, missing
	// (pages) or unknown (could not be read).
	State    string     `json:"state"`
	MergedAt *time.Time `json:"mergedAt,omitempty"` // merged PRs, UTC
	Repo     string     `json:"repo,omitempty"`     // OWNER/NAME
	Number   int        `json:"number,omitempty"`   // PR number
	Title    string     `json:"title,omitempty"`    // PR title
	Branch   string     `json:"branch,omitempty"`   // pages: default branch checked
	File     string     `json:"file,omitempty"`     // pages: source file
	// Error is why the state could not be read (State unknown).
	Error string `json:"error,omitempty"`
	// OK: the link satisfies Check 3 (b). SetLinks recomputes it fail-closed
	// (merged with mergedAt, or exists, and no error).
	OK bool `json:"ok"`
}

// Link states that satisfy Check 3 (b), and the fail-closed state.
const (
	LinkMerged  = "merged"
	LinkExists  = "exists"
	LinkUnknown = "unknown"
)

// linkOK is the fail-closed Check 3 (b) test: merged (with a merge time) or
// an existing page, and no read error. Anything else — open, draft,
// closed-unmerged, missing, unknown, an empty or unrecognised state — fails.
func linkOK(l Link) bool {
	if l.Error != "" {
		return false
	}
	switch l.State {
	case LinkMerged:
		return l.MergedAt != nil
	case LinkExists:
		return true
	}
	return false
}

// SetLinks records the upstream links' states in the report: each link's OK
// is recomputed fail-closed (the caller's OK is not trusted), an empty State
// becomes "unknown", Counts.Links tallies them by state, and any link that is
// not OK makes the report a gap (Gap, LinkGap).
func (r *Report) SetLinks(links []Link) {
	r.Upstream = make([]Link, len(links))
	r.LinkGap = false
	if r.Counts.Links == nil {
		r.Counts.Links = map[string]int{}
	}
	clear(r.Counts.Links)
	for i, l := range links {
		if l.State == "" {
			l.State = LinkUnknown
		}
		if l.State == LinkUnknown && l.Error == "" {
			l.Error = "state not read"
		}
		l.OK = linkOK(l)
		if !l.OK {
			r.LinkGap = true
			r.Gap = true
		}
		r.Counts.Links[l.State]++
		r.Upstream[i] = l
	}
	r.Count()
}
