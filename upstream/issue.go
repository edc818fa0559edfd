package upstream

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/google/go-github/v62/github"
)

// This file keeps one tracking issue per repository up to date, as
// Renovate keeps its dependency dashboard: the issue is found by a hidden
// marker in its body (and the label it was opened with), edited in place,
// closed when there is nothing to track, and never opened twice.

// MaxIssueBody is the longest issue body GitHub accepts, in characters.
const MaxIssueBody = 65536

// maxIssuePages bounds the pages of 100 issues read to find the tracking
// issue by its label: work counted, never time.
const maxIssuePages = 10

// Issue is a tracking issue as read or written.
type Issue struct {
	Repo   string // owner/name
	Number int
	Title  string
	Body   string
	State  string // open, closed
	URL    string
}

// TrackedIssue says which issue FindIssue found: Issue (nil when none)
// and Others, further issues carrying the marker (GitHub does not prevent
// them; the tracker never opens one and leaves them alone), by number.
type TrackedIssue struct {
	Issue  *Issue
	Others []int
}

// ErrIssueRepo marks a tracking-issue repository that is not OWNER/NAME.
var ErrIssueRepo = errors.New("bad issue repository")

// FindIssue finds the tracking issue of repo (OWNER/NAME): issue number
// when number > 0 (it must exist), else the open issue (else the most
// recent closed one) whose body holds marker, among the issues carrying
// label, then, when none does, among those GitHub's search finds by the
// marker. Errors: a bad repo (ErrIssueRepo), the API's (redacted).
func (c *Client) FindIssue(ctx context.Context, repo string, number int, label, marker string) (*TrackedIssue, error) {
	t, err := c.findIssue(ctx, repo, number, label, marker)
	return t, c.red.wrap(err)
}

func (c *Client) findIssue(ctx context.Context, repo string, number int, label, marker string) (*TrackedIssue, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIssueRepo, err)
	}
	if number > 0 {
		is, _, err := c.gh.Issues.Get(ctx, owner, name, number)
		if err != nil {
			return nil, fmt.Errorf("issue %s#%d: %w", repo, number, err)
		}
		return &TrackedIssue{Issue: issueOf(repo, is)}, nil
	}
	var found []*github.Issue
	seen := map[int]bool{}
	keep := func(is *github.Issue) {
		if !is.IsPullRequest() && strings.Contains(is.GetBody(), marker) && !seen[is.GetNumber()] {
			seen[is.GetNumber()] = true
			found = append(found, is)
		}
	}
	opts := &github.IssueListByRepoOptions{State: "all", Labels: []string{label}, ListOptions: github.ListOptions{PerPage: 100}}
	for page := 0; page < maxIssuePages; page++ {
		list, resp, err := c.gh.Issues.ListByRepo(ctx, owner, name, opts)
		if err != nil {
			return nil, fmt.Errorf("list issues of %s labelled %s: %w", repo, label, err)
		}
		for _, is := range list {
			keep(is)
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(found) == 0 {
		// the label may have been taken off: GitHub's search by the marker
		id := strings.TrimSuffix(strings.TrimPrefix(marker, "<!-- "), " -->")
		q := fmt.Sprintf("repo:%s is:issue in:body %q", repo, id)
		sr, _, err := c.gh.Search.Issues(ctx, q, &github.SearchOptions{ListOptions: github.ListOptions{PerPage: 100}})
		if err != nil {
			return nil, fmt.Errorf("search the issues of %s for the tracking marker: %w", repo, err)
		}
		if sr.GetIncompleteResults() {
			return nil, fmt.Errorf("search the issues of %s for the tracking marker: GitHub returned incomplete results; retry later", repo)
		}
		for _, is := range sr.Issues {
			keep(is)
		}
	}
	if len(found) == 0 {
		return &TrackedIssue{}, nil
	}
	// the open one first, then the most recent
	sort.SliceStable(found, func(i, j int) bool {
		oi, oj := found[i].GetState() == "open", found[j].GetState() == "open"
		if oi != oj {
			return oi
		}
		return found[i].GetNumber() > found[j].GetNumber()
	})
	t := &TrackedIssue{Issue: issueOf(repo, found[0])}
	for _, is := range found[1:] {
		t.Others = append(t.Others, is.GetNumber())
	}
	sort.Ints(t.Others)
	return t, nil
}

// IssueAction is what SaveIssue did.
type IssueAction string

// The actions.
const (
	IssueCreated   IssueAction = "created"
	IssueUpdated   IssueAction = "updated"
	IssueReopened  IssueAction = "reopened"
	IssueClosed    IssueAction = "closed"
	IssueUnchanged IssueAction = "unchanged" // nothing to write: no request made
	IssueNone      IssueAction = "none"      // nothing to track and no issue: none opened
)

// SaveIssue makes the tracking issue of repo say title and body: cur (from
// FindIssue; nil when there is none) is edited in place — reopened when
// closed and open is true, closed when open is false — and written only
// when something differs; without cur an issue is opened with label, unless
// open is false (nothing to track). A body over MaxIssueBody characters is
// refused before any request. Errors: the API's (redacted).
func (c *Client) SaveIssue(ctx context.Context, repo string, cur *Issue, title, body, label string, open bool) (*Issue, IssueAction, error) {
	is, act, err := c.saveIssue(ctx, repo, cur, title, body, label, open)
	return is, act, c.red.wrap(err)
}

func (c *Client) saveIssue(ctx context.Context, repo string, cur *Issue, title, body, label string, open bool) (*Issue, IssueAction, error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrIssueRepo, err)
	}
	if n := len([]rune(body)); n > MaxIssueBody {
		return nil, "", fmt.Errorf("issue body of %d characters: GitHub takes at most %d", n, MaxIssueBody)
	}
	if err := c.CheckSecrets([]byte(title + "\n" + body)); err != nil {
		return nil, "", err
	}
	if cur == nil {
		if !open {
			return nil, IssueNone, nil
		}
		req := &github.IssueRequest{Title: &title, Body: &body}
		if label != "" {
			req.Labels = &[]string{label}
		}
		is, _, err := c.gh.Issues.Create(ctx, owner, name, req)
		if err != nil {
			return nil, "", fmt.Errorf("open the tracking issue in %s: %w", repo, err)
		}
		return issueOf(repo, is), IssueCreated, nil
	}
	state := "open"
	if !open {
		state = "closed"
	}
	if cur.Title == title && cur.Body == body && cur.State == state {
		return cur, IssueUnchanged, nil
	}
	req := &github.IssueRequest{}
	if cur.Title != title {
		req.Title = &title
	}
	if cur.Body != body {
		req.Body = &body
	}
	if cur.State != state {
		req.State = &state
	}
	is, _, err := c.gh.Issues.Edit(ctx, owner, name, cur.Number, req)
	if err != nil {
		return nil, "", fmt.Errorf("update the tracking issue %s#%d: %w", repo, cur.Number, err)
	}
	act := IssueUpdated
	switch {
	case cur.State != state && state == "closed":
		act = IssueClosed
	case cur.State != state:
		act = IssueReopened
	}
	return issueOf(repo, is), act, nil
}

func issueOf(repo string, is *github.Issue) *Issue {
	return &Issue{Repo: repo, Number: is.GetNumber(), Title: is.GetTitle(), Body: is.GetBody(), State: is.GetState(), URL: is.GetHTMLURL()}
}
