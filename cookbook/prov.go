package cookbook

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Provenance is the merged provenance of one point, in one shape for both
// data generations (spec (c)): newer files merge cell.prov with the point's
// keys and expand URLs like the page's pointInfo; older files carry the URLs
// on the point, and the bare ids (Recipe path, Run id, Job) are derived from
// them by stripping the repository prefixes.
type Provenance struct {
	SHA      string // InferenceX commit the recipe is read at
	Recipe   string // repo-relative recipe path (srt-slurm YAML or shell script)
	Override string // recipe selector: "", "base", "override_<name>", "zip_override_<name>[i]"
	Item     int    // index in the InferenceX search space
	PR       string
	Status   string // verified | verified-pr | in-progress
	Run      string // "<run_id>" or "<run_id>/attempts/<n>"
	Job      string // "<run>/job/<id>"
	Comment  string // issue-comment id
	Date     string

	RecipeURL, RunURL, JobURL, PRURL, CommentURL string
}

// Provenance returns the merged provenance of cells[cell].points[point]
// (zero value for out-of-range indexes).
func (f *File) Provenance(cell, point int) Provenance {
	if cell < 0 || cell >= len(f.Cells) || point < 0 || point >= len(f.Cells[cell].Points) {
		return Provenance{}
	}
	c := &f.Cells[cell]
	pt := &c.Points[point]
	var p Provenance
	if c.Prov != nil {
		p = Provenance{SHA: c.Prov.SHA, Recipe: c.Prov.Recipe, Run: c.Prov.Run, PR: c.Prov.PR,
			Comment: c.Prov.Comment, Status: c.Prov.Status, Date: c.Prov.Date}
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&p.SHA, pt.SHA)
	set(&p.Recipe, pt.Recipe)
	set(&p.Run, pt.Run)
	set(&p.PR, pt.PR)
	set(&p.Comment, pt.Comment)
	set(&p.Status, pt.Status)
	set(&p.Date, pt.Date)
	set(&p.Job, pt.Job)
	p.Override = pt.Override
	p.Item = pt.Item
	repo := strings.TrimSuffix(f.Source.Repo, "/")
	// Older format: URLs given, derive ids.
	p.RecipeURL, p.RunURL, p.JobURL, p.PRURL, p.CommentURL = pt.RecipeURL, pt.RunURL, pt.JobURL, pt.PRURL, pt.UseComment
	if p.Recipe == "" && p.RecipeURL != "" {
		sha, recipe := splitBlobURL(repo, p.RecipeURL)
		if p.SHA == "" {
			p.SHA = sha
		}
		p.Recipe = recipe
	}
	if p.Run == "" && p.RunURL != "" {
		p.Run = strings.TrimPrefix(p.RunURL, repo+"/actions/runs/")
	}
	if p.Job == "" && p.JobURL != "" {
		p.Job = strings.TrimPrefix(p.JobURL, repo+"/actions/runs/")
	}
	if p.Comment == "" && p.CommentURL != "" {
		if i := strings.Index(p.CommentURL, "#issuecomment-"); i >= 0 {
			p.Comment = p.CommentURL[i+len("#issuecomment-"):]
		}
	}
	// Newer format: expand ids to URLs (pointInfo).
	if repo != "" {
		if p.RecipeURL == "" && p.Recipe != "" && p.SHA != "" {
			p.RecipeURL = repo + "/blob/" + p.SHA + "/" + p.Recipe
		}
		if p.RunURL == "" && p.Run != "" {
			p.RunURL = repo + "/actions/runs/" + p.Run
		}
		if p.JobURL == "" && p.Job != "" {
			p.JobURL = repo + "/actions/runs/" + p.Job
		}
		if p.PRURL == "" && p.PR != "" {
			p.PRURL = repo + "/pull/" + p.PR
		}
		if p.CommentURL == "" && p.Comment != "" && p.PR != "" {
			p.CommentURL = repo + "/pull/" + p.PR + "#issuecomment-" + p.Comment
		}
	}
	return p
}

// recipeOf is Provenance(...).Recipe without building the URLs.
func (f *File) recipeOf(c *Cell, pt *Point) string {
	if pt.Recipe != "" {
		return pt.Recipe
	}
	if c.Prov != nil && c.Prov.Recipe != "" {
		return c.Prov.Recipe
	}
	if pt.RecipeURL != "" {
		_, r := splitBlobURL(strings.TrimSuffix(f.Source.Repo, "/"), pt.RecipeURL)
		return r
	}
	return ""
}

// splitBlobURL splits "<repo>/blob/<sha>/<path>" into sha and path ("" when
// url has another shape).
func splitBlobURL(repo, url string) (sha, path string) {
	rest, ok := strings.CutPrefix(url, repo+"/blob/")
	if !ok {
		return "", ""
	}
	sha, path, _ = strings.Cut(rest, "/")
	return sha, path
}

// provStatuses are the provenance statuses of cell.prov, point overrides and
// source.prs entries (spec agentx-format.md (c): verified | verified-pr |
// in-progress; a mirrored PR that has since merged is "verified", the
// lifecycle `upstream refresh` follows).
var provStatuses = []string{"verified", "verified-pr", "in-progress"}

// CheckStatus checks a provenance status (cell.prov.status, a point's
// status, source.prs[N].status): one of verified, verified-pr, in-progress
// (spec agentx-format.md (c)); the error says what was expected.
func CheckStatus(s string) error {
	if !slices.Contains(provStatuses, s) {
		return fmt.Errorf("%q is not a provenance status (want %s)", s, strings.Join(provStatuses, ", "))
	}
	return nil
}

// CheckSHA checks a git commit sha as provenance carries it: 7 to 40
// lower-case hex digits (source.main, source.prs[*].sha, cell.prov.sha).
func CheckSHA(s string) error {
	if len(s) < 7 || len(s) > 40 || strings.Trim(s, "0123456789abcdef") != "" {
		return fmt.Errorf("%q is not a commit sha (want 7 to 40 lower-case hex digits)", s)
	}
	return nil
}

// CheckDate checks a calendar date YYYY-MM-DD (generatedOn, cell.prov.date):
// the day must exist (2026-02-30 and 2026-13-45 are refused).
func CheckDate(s string) error {
	if _, err := time.Parse(time.DateOnly, s); err != nil || len(s) != 10 {
		return fmt.Errorf("%q is not a calendar date (want YYYY-MM-DD)", s)
	}
	return nil
}

// CheckPR checks a GitHub PR number as provenance carries it (a decimal
// string, source.prs keys and cell.prov.pr): 1 to 2^31, no sign or
// leading zeros.
func CheckPR(s string) error {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n < 1 || n > 1<<31 || strconv.FormatUint(n, 10) != s {
		return fmt.Errorf("%q is not a PR number (want 1 to 2147483648)", s)
	}
	return nil
}
