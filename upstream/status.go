package upstream

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
	"go.yaml.in/yaml/v3"
)

// State is the merge / publication state of an upstream link.
type State string

// Link states. Only StateMerged and StateExists satisfy Check 3 (b)
// (InferenceX .github/codeowner-signoff-verify-prompt.md: "gh pr view … --json
// state,mergedAt" must give MERGED with a mergedAt; "a published page counts as
// merged"; open, draft, closed-unmerged, branch and commit links fail; "if the
// status can't be verified, the check fails").
const (
	StateOpen           State = "open"            // PR open, ready for review
	StateDraft          State = "draft"           // PR open as a draft
	StateClosedUnmerged State = "closed-unmerged" // PR closed without merging
	StateMerged         State = "merged"          // PR merged (MergedAt set)
	StateExists         State = "exists"          // page: source file exists on the default branch
	StateMissing        State = "missing"         // page: no source file on the default branch
	StateUnknown        State = "unknown"         // could not be read: fails closed
)

// Link kinds.
const (
	KindPR    = "pr"    // https://<host>/OWNER/NAME/pull/N
	KindPage  = "page"  // a published page listed in pages.yaml
	KindOther = "other" // anything else (branch, commit, blob links…): never OK
)

// LinkState is the state of one link.
type LinkState struct {
	URL      string     `json:"url"`
	Kind     string     `json:"kind"`               // KindPR, KindPage or KindOther
	State    State      `json:"state"`              // see the State constants
	MergedAt *time.Time `json:"mergedAt,omitempty"` // PRs: when merged (UTC)
	Repo     string     `json:"repo,omitempty"`     // OWNER/NAME the link lives in
	Number   int        `json:"number,omitempty"`   // PR number
	Title    string     `json:"title,omitempty"`    // PR title
	Branch   string     `json:"branch,omitempty"`   // pages: the default branch checked
	File     string     `json:"file,omitempty"`     // pages: the source file found (or the first candidate)
}

// OK reports whether the link satisfies Check 3 (b): a merged PR or an
// existing published page. Every other state, including StateUnknown, is
// false (fail closed).
func (s LinkState) OK() bool { return s.State == StateMerged || s.State == StateExists }

// LinkResult is one entry of StatusAll: the state and, when the state could
// not be read, the error (then State is StateUnknown).
type LinkResult struct {
	LinkState
	Err error `json:"-"`
}

// MarshalJSON adds "error": the error text.
func (r LinkResult) MarshalJSON() ([]byte, error) {
	type plain struct {
		LinkState
		Error string `json:"error,omitempty"`
	}
	p := plain{LinkState: r.LinkState}
	if r.Err != nil {
		p.Error = r.Err.Error()
	}
	return jsonMarshal(p)
}

//go:embed pages.yaml
var pagesYAML []byte

// pageRule is one entry of pages.yaml.
type pageRule struct {
	Host   string   `yaml:"host"`
	Prefix string   `yaml:"prefix"`
	Repo   string   `yaml:"repo"`
	Files  []string `yaml:"files"`
	Source string   `yaml:"source"`
}

// pageRules returns the embedded page → file mapping (upstream/pages.yaml).
func pageRules() ([]pageRule, error) {
	var doc struct {
		Pages []pageRule `yaml:"pages"`
	}
	if err := yaml.Unmarshal(pagesYAML, &doc); err != nil {
		return nil, fmt.Errorf("upstream/pages.yaml: %w", err)
	}
	return doc.Pages, nil
}

// PageSource maps a published page URL to the upstream repository and the
// candidate source files (rules in upstream/pages.yaml). ok is false when the
// URL is not a known published page.
func PageSource(u string) (repo string, files []string, ok bool, err error) {
	pu, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return "", nil, false, fmt.Errorf("link %q: %w", u, err)
	}
	rules, err := pageRules()
	if err != nil {
		return "", nil, false, err
	}
	host := strings.ToLower(pu.Hostname())
	for _, r := range rules {
		if host != r.Host || !strings.HasPrefix(pu.Path, r.Prefix) {
			continue
		}
		p := strings.Trim(strings.TrimPrefix(pu.Path, r.Prefix), "/")
		if p == "" {
			continue
		}
		segs := strings.Split(p, "/")
		for _, s := range segs {
			if s == "" || s == "." || s == ".." {
				return "", nil, false, fmt.Errorf("link %q: bad page path", u)
			}
		}
		var out []string
		for _, f := range r.Files {
			if strings.Contains(f, "{org}") || strings.Contains(f, "{model}") {
				if len(segs) != 2 {
					continue
				}
				f = strings.ReplaceAll(f, "{org}", segs[0])
				f = strings.ReplaceAll(f, "{model}", segs[1])
			}
			out = append(out, path.Clean(strings.ReplaceAll(f, "{path}", p)))
		}
		if len(out) == 0 {
			continue
		}
		return r.Repo, out, true, nil
	}
	return "", nil, false, nil
}

// ParsePRURL parses https://<host>/OWNER/NAME/pull/N[/files…][#…]. Any host
// is accepted (GitHub Enterprise); the API asked is the Client's.
func ParsePRURL(u string) (repo string, number int, ok bool) {
	pu, err := url.Parse(strings.TrimSpace(u))
	if err != nil || pu.Host == "" {
		return "", 0, false
	}
	segs := strings.Split(strings.Trim(pu.Path, "/"), "/")
	if len(segs) < 4 || (segs[2] != "pull" && segs[2] != "pulls") {
		return "", 0, false
	}
	n, err := strconv.Atoi(segs[3])
	if err != nil || n <= 0 {
		return "", 0, false
	}
	if !validRepoPart(segs[0]) || !validRepoPart(segs[1]) {
		return "", 0, false
	}
	return segs[0] + "/" + segs[1], n, true
}

// ErrNotMergeable is wrapped by Status errors for links that can never satisfy
// Check 3 (b): branch, commit and file links, and URLs that are neither a PR
// nor a known published page.
var ErrNotMergeable = errors.New("not a PR or published-page link (Check 3 (b): branch, commit and file links fail)")

// Status reads the state of one link: for a PR URL its state
// (open / draft / closed-unmerged / merged with mergedAt, from GET
// /repos/{owner}/{repo}/pulls/{n}); for a published page whether its source
// file (pages.yaml) exists on the repository's default branch (GET
// /repos/{owner}/{repo} and GET /repos/{owner}/{repo}/contents/{path}?ref=…).
//
// Whenever the state cannot be established — API error after retries,
// malformed answer, an inconsistent one (merged without state "closed" or
// without merged_at, a merged_at on an unmerged PR, no "merged" field), an
// answer about another PR number, repository or file, an answer from
// another host than the API host asked (a redirect elsewhere is refused),
// an unsupported link — it returns State StateUnknown and a non-nil error
// saying why, so callers fail closed. A page whose source files are all
// absent (404) is StateMissing with no error.
func (c *Client) Status(ctx context.Context, link string) (LinkState, error) {
	st, err := c.status(ctx, link)
	st.Title = c.red.String(st.Title)
	return st, c.red.wrap(err)
}

func (c *Client) status(ctx context.Context, link string) (LinkState, error) {
	st := LinkState{URL: link, Kind: KindOther, State: StateUnknown}
	if repo, n, ok := ParsePRURL(link); ok {
		st.Kind, st.Repo, st.Number = KindPR, repo, n
		return c.prStatus(ctx, st)
	}
	repo, files, ok, err := PageSource(link)
	if err != nil {
		return st, err
	}
	if ok {
		st.Kind, st.Repo, st.File = KindPage, repo, files[0]
		return c.pageStatus(ctx, st, files)
	}
	return st, fmt.Errorf("link %s: %w", link, ErrNotMergeable)
}

// prStatus reads GET /repos/{owner}/{repo}/pulls/{n} and fails closed: the
// PR is merged only when the answer says "merged": true, "state": "closed"
// and carries a "merged_at", and the answer is about the PR asked for (its
// "number" and its "base.repo.full_name") and came from the API host asked
// (InferenceX .github/codeowner-signoff-verify-prompt.md: "gh pr view …
// --json state,mergedAt" must give MERGED with a mergedAt; "if the status
// can't be verified, the check fails"). Any other combination is
// StateUnknown with the reason.
func (c *Client) prStatus(ctx context.Context, st LinkState) (LinkState, error) {
	owner, name, _ := splitRepo(st.Repo)
	pr, resp, err := c.gh.PullRequests.Get(ctx, owner, name, st.Number)
	if err != nil {
		return st, fmt.Errorf("pr %s#%d: merge state unreadable: %w", st.Repo, st.Number, err)
	}
	unknown := func(format string, args ...any) (LinkState, error) {
		st.State, st.MergedAt = StateUnknown, nil
		return st, fmt.Errorf("pr %s#%d: %s: merge state unknown", st.Repo, st.Number, fmt.Sprintf(format, args...))
	}
	if err := c.fromAPIHost(resp); err != nil {
		return unknown("%v", err)
	}
	if pr.GetNumber() != st.Number {
		return unknown("the answer is about PR #%d, not #%d", pr.GetNumber(), st.Number)
	}
	if got := pr.GetBase().GetRepo().GetFullName(); !strings.EqualFold(got, st.Repo) {
		if got == "" {
			return unknown("the answer does not say which repository the PR is in (no base.repo.full_name)")
		}
		return unknown("the answer is about a PR of %q, not of %s", got, st.Repo)
	}
	st.Title = pr.GetTitle()
	state := pr.GetState()
	hasMergedAt := pr.MergedAt != nil && !pr.MergedAt.IsZero()
	mergedAt := "no merged_at"
	if hasMergedAt {
		mergedAt = "merged_at " + pr.MergedAt.UTC().Format(time.RFC3339)
	}
	switch {
	case state != "open" && state != "closed":
		return unknown("unexpected state %q", state)
	case pr.Merged == nil:
		return unknown("the answer has no \"merged\" field (state %q, %s)", state, mergedAt)
	case *pr.Merged && state == "closed" && hasMergedAt:
		t := pr.MergedAt.UTC()
		st.State, st.MergedAt = StateMerged, &t
	case *pr.Merged:
		return unknown("inconsistent answer: merged true with state %q and %s", state, mergedAt)
	case hasMergedAt:
		return unknown("inconsistent answer: merged false with state %q and %s", state, mergedAt)
	case state == "closed":
		st.State = StateClosedUnmerged
	case pr.GetDraft():
		st.State = StateDraft
	default:
		st.State = StateOpen
	}
	return st, nil
}

// fromAPIHost checks that an answer came from the API host asked (scheme and
// host of Options.APIURL): a redirect elsewhere is refused by the Client's
// CheckRedirect already; this is the second lock.
func (c *Client) fromAPIHost(resp *github.Response) error {
	if resp == nil || resp.Response == nil || resp.Request == nil || resp.Request.URL == nil {
		return errors.New("the answer does not say where it came from")
	}
	u := resp.Request.URL
	if !strings.EqualFold(u.Host, c.base.Host) || u.Scheme != c.base.Scheme {
		return fmt.Errorf("the answer came from %s://%s, not from the API host asked (%s)", u.Scheme, u.Host, c.base.Host)
	}
	return nil
}

func (c *Client) pageStatus(ctx context.Context, st LinkState, files []string) (LinkState, error) {
	owner, name, err := splitRepo(st.Repo)
	if err != nil {
		return st, err
	}
	branch, err := c.defaultBranch(ctx, owner, name)
	if err != nil {
		return st, fmt.Errorf("page %s: %w", st.URL, err)
	}
	st.Branch = branch
	for _, f := range files {
		_, exists, err := c.fileBlobSHA(ctx, owner, name, f, branch)
		if err != nil {
			return st, fmt.Errorf("page %s: source %s: %w", st.URL, f, err)
		}
		if exists {
			st.State, st.File = StateExists, f
			return st, nil
		}
	}
	st.State = StateMissing
	return st, nil
}

// defaultBranch returns the repository's default branch (GET /repos/{o}/{r}),
// from an answer about that repository (full_name) from the API host.
func (c *Client) defaultBranch(ctx context.Context, owner, name string) (string, error) {
	r, resp, err := c.gh.Repositories.Get(ctx, owner, name)
	if err != nil {
		return "", fmt.Errorf("repository %s/%s: %w", owner, name, err)
	}
	if err := c.fromAPIHost(resp); err != nil {
		return "", fmt.Errorf("repository %s/%s: %w", owner, name, err)
	}
	if got := r.GetFullName(); !strings.EqualFold(got, owner+"/"+name) {
		return "", fmt.Errorf("repository %s/%s: the answer is about %q", owner, name, got)
	}
	if r.GetDefaultBranch() == "" {
		return "", fmt.Errorf("repository %s/%s: no default_branch in the answer", owner, name)
	}
	return r.GetDefaultBranch(), nil
}

// fileBlobSHA returns the blob SHA of path at ref (GET contents). exists is
// false on 404; a directory, an answer about another path or of another type
// than "file", or from another host, is an error.
func (c *Client) fileBlobSHA(ctx context.Context, owner, name, p, ref string) (sha string, exists bool, err error) {
	f, dir, resp, err := c.gh.Repositories.GetContents(ctx, owner, name, p, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		if isNotFound(err) {
			if herr := c.fromAPIHost(resp); herr != nil {
				return "", false, herr
			}
			return "", false, nil
		}
		return "", false, err
	}
	if err := c.fromAPIHost(resp); err != nil {
		return "", false, err
	}
	if f == nil || dir != nil {
		return "", false, fmt.Errorf("%s is a directory", p)
	}
	if f.GetPath() != p || f.GetType() != "file" {
		return "", false, fmt.Errorf("%s: the answer is about %q of type %q, not the file asked", p, f.GetPath(), f.GetType())
	}
	if f.GetSHA() == "" {
		return "", false, fmt.Errorf("%s: contents answer without sha", p)
	}
	return f.GetSHA(), true, nil
}

// StatusAll reads every link in order (serially; GitHub asks for serial
// requests) and returns one LinkResult per link, in the input order. It never
// fails as a whole: each unreadable link is a result with StateUnknown and Err.
// Coverage uses it for `coverage --upstream URL…`: a link satisfies Check 3 (b)
// iff result.OK() (and result.Err == nil).
func (c *Client) StatusAll(ctx context.Context, urls []string) []LinkResult {
	out := make([]LinkResult, 0, len(urls))
	for _, u := range urls {
		st, err := c.Status(ctx, u)
		if err != nil {
			st.State, st.MergedAt = StateUnknown, nil
		}
		out = append(out, LinkResult{LinkState: st, Err: err})
	}
	return out
}

// AllOK reports whether every result is OK (merged / exists) with no error.
func AllOK(rs []LinkResult) bool {
	for _, r := range rs {
		if r.Err != nil || !r.OK() {
			return false
		}
	}
	return len(rs) > 0
}

// CheckLinkURL reports whether u is a well-formed absolute http(s) URL with a
// host — the only links Status can read. Anything else ("not a url",
// file:///etc/passwd, a relative path) is bad input, not an unknown state.
func CheckLinkURL(u string) error {
	pu, err := url.Parse(u)
	if err != nil || strings.TrimSpace(u) != u || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" || pu.Opaque != "" {
		return fmt.Errorf("link %q: not an http(s) URL (want a PR link such as https://github.com/OWNER/NAME/pull/N or a published cookbook / recipes page)", u)
	}
	if pu.User != nil {
		return fmt.Errorf("link %q: credentials in a link are not accepted", pu.Redacted())
	}
	return nil
}
