package upstream

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// ErrBranchMoved is returned (wrapped) when the update's branch was pushed to
// by someone else, or moved between Plan and Apply. Apply then changes nothing.
var ErrBranchMoved = errors.New("branch moved by someone else")

// ErrNoToken is returned by Apply when the Client has no token.
var ErrNoToken = errors.New("pr apply needs a token: set GH_TOKEN or GITHUB_TOKEN")

// ApplyResult says what Apply did.
type ApplyResult struct {
	Action   string `json:"action"`             // the Action performed (see the Action constants)
	Branch   string `json:"branch"`             // branch name
	Commit   string `json:"commit,omitempty"`   // new commit SHA; "" when no commit was needed
	Head     string `json:"head"`               // branch head after Apply
	PR       int    `json:"pr,omitempty"`       // PR number ("" for ActionNone without a PR)
	URL      string `json:"url,omitempty"`      // PR HTML URL
	Created  bool   `json:"created,omitempty"`  // a PR was opened
	Reopened bool   `json:"reopened,omitempty"` // a closed PR was reopened
	Edited   bool   `json:"edited,omitempty"`   // title/body were updated
}

// Apply carries out p against the live state. It first re-reads that state
// (so a stale or re-applied plan cannot open a duplicate or overwrite
// anyone): if the branch's head commit is not ours (no TrailerKey trailer for
// p.ID) it stops with ErrBranchMoved; if another cookbook-sync run moved it,
// Apply continues from the live head.
// It makes a commit only when some file content differs from the branch (or
// base) — so applying the same plan again makes no commit and opens no PR —
// moves the branch fast-forward only (force only to restart our own branch
// after its PR was merged), and then opens, updates or reopens the one PR.
// Writes: POST git/blobs, git/trees, git/commits, git/refs; PATCH git/refs;
// POST/PATCH pulls (or go-git commit + push for a checkout).
func (c *Client) Apply(ctx context.Context, p *Plan) (*ApplyResult, error) {
	res, err := c.apply(ctx, p)
	return res, c.red.wrap(err)
}

func (c *Client) apply(ctx context.Context, p *Plan) (*ApplyResult, error) {
	if !c.HasToken() {
		return nil, ErrNoToken
	}
	if p == nil {
		return nil, errors.New("apply: nil plan")
	}
	id, _, marker, err := Identity(p.Repo, p.Model)
	if err != nil {
		return nil, &InputError{err}
	}
	if id != p.ID {
		return nil, &InputError{fmt.Errorf("apply: plan id %q does not match repo %s and model %s", p.ID, p.Repo, p.Model)}
	}
	live := *p
	live.Files = append([]PlannedFile(nil), p.Files...)
	if len(live.Files) == 0 {
		return nil, &InputError{errors.New("apply: plan has no files")}
	}
	for i := range live.Files { // a saved plan may have been edited: trust only path and content
		if err := validPath(live.Files[i].Path); err != nil {
			return nil, &InputError{err}
		}
		live.Files[i].NewSHA = BlobSHA([]byte(live.Files[i].New))
	}
	if err := c.checkPlanInput(live.Title, live.Evidence, live.Files); err != nil {
		return nil, err
	}
	if err := c.resolve(ctx, &live, marker); err != nil {
		return nil, err
	}
	if live.Action == ActionBlocked {
		if live.Head != p.Head {
			return nil, fmt.Errorf("%w: %s is at %s, the plan saw %s: %s", ErrBranchMoved, p.Branch, orNone(live.Head), orNone(p.Head), live.Reason)
		}
		return nil, fmt.Errorf("%w: %s", ErrBranchMoved, live.Reason)
	}
	res := &ApplyResult{Action: live.Action, Branch: live.Branch, Head: live.Head}
	if live.Existing != nil {
		res.PR, res.URL = live.Existing.Number, live.Existing.URL
	}
	if live.Action == ActionNone {
		if live.Existing == nil || live.Existing.State == StateMerged || live.Existing.State == StateClosedUnmerged {
			res.PR, res.URL = 0, ""
		}
		return res, nil
	}
	_, st, err := c.storeFor(&live)
	if err != nil {
		return nil, err
	}
	head := live.Head
	if live.isFork() && live.Head == "" && live.Commit {
		// Start the fork's branch at the upstream base first (objects are
		// shared in the fork network), so the commit's parent is reachable
		// there; the update below is then a fast-forward.
		if err := c.moveRef(ctx, st, live.Branch, live.Parent, "", false); err != nil {
			return nil, fmt.Errorf("create %s in %s at %s: %w", live.Branch, live.HeadRepo, short(live.Parent), err)
		}
		live.Head, head = live.Parent, live.Parent
	}
	if live.Commit {
		msg := commitMessage(&live)
		sha, err := st.writeCommit(ctx, live.Parent, live.Files, msg)
		if err != nil {
			return nil, fmt.Errorf("commit: %w", err)
		}
		res.Commit, head = sha, sha
	}
	if head == "" { // no commit and no branch: start it at the parent
		head = live.Parent
	}
	if head != live.Head {
		force := live.Head != "" && live.Parent != live.Head
		if err := c.moveRef(ctx, st, live.Branch, head, live.Head, force); err != nil {
			return nil, err
		}
	}
	res.Head = head
	owner, name, _ := splitRepo(live.Repo)
	switch live.Action {
	case ActionUpdate, ActionReopen:
		edit := &github.PullRequest{}
		changed := false
		if live.Existing.Title != live.Title {
			edit.Title, changed = github.String(live.Title), true
		}
		if !sameText(live.Existing.Body, live.Body) {
			edit.Body, changed = github.String(live.Body), true
		}
		if live.Action == ActionReopen {
			edit.State, changed = github.String("open"), true
		}
		if changed {
			pr, _, err := c.gh.PullRequests.Edit(ctx, owner, name, live.Existing.Number, edit)
			if err != nil {
				return res, fmt.Errorf("edit PR #%d: %w", live.Existing.Number, err)
			}
			res.URL = pr.GetHTMLURL()
			res.Edited = edit.Title != nil || edit.Body != nil
			res.Reopened = live.Action == ActionReopen
		}
	case ActionCreate, ActionRecreate:
		n, u, err := c.createPR(ctx, owner, name, &live, marker)
		if err != nil {
			return res, err
		}
		res.PR, res.URL, res.Created = n, u, true
	}
	return res, nil
}

// moveRef sets branch to sha where it was at old ("" = absent). It never
// reports "moved by someone else" without having seen it: when the write
// fails — GitHub refused it, answered 5xx or the connection broke, so it may
// or may not have taken effect — it reads the branch back first. At sha: the
// write took effect, done. Still at old after a transient failure: the write
// is tried again (at most Options.MaxRetries times, with backoff).
// Anywhere else: someone else moved it (ErrBranchMoved). A read-back that
// fails too leaves the state unknown: an error, not ErrBranchMoved.
func (c *Client) moveRef(ctx context.Context, st store, branch, sha, old string, force bool) error {
	for attempt := 0; ; attempt++ {
		werr := st.setRef(ctx, branch, sha, old, force)
		if werr == nil {
			return nil
		}
		cur, rerr := st.ref(ctx, branch)
		switch {
		case rerr != nil:
			return fmt.Errorf("update %s to %s: %v; reading it back failed too (%v): its state is unknown, run again", branch, short(sha), werr, rerr)
		case cur == sha:
			return nil
		case cur != old:
			return fmt.Errorf("%w: update %s: it is at %s, expected %s (%v)", ErrBranchMoved, branch, orNone(cur), orNone(old), werr)
		case transient(werr) && attempt < c.opts.MaxRetries:
			if err := c.opts.Sleep(ctx, min(backoff(attempt), c.opts.MaxRetryWait)); err != nil {
				return err
			}
		default:
			return fmt.Errorf("update %s to %s (it is still at %s): %w", branch, short(sha), orNone(cur), werr)
		}
	}
}

// createPR opens the PR of p (POST pulls). When the POST fails — GitHub
// refused it, answered 5xx or the connection broke, so the PR may or may not
// have been opened — it first reads back the open PRs from p's branch
// (GET pulls?state=open&head=…): one carrying marker is the PR (opened by
// the failed attempt or by a concurrent run), done. None after a transient
// failure: the POST is tried again (at most Options.MaxRetries times).
func (c *Client) createPR(ctx context.Context, owner, name string, p *Plan, marker string) (int, string, error) {
	for attempt := 0; ; attempt++ {
		pr, _, err := c.gh.PullRequests.Create(ctx, owner, name, &github.NewPullRequest{
			Title: github.String(p.Title), Head: github.String(p.headOwner() + ":" + p.Branch), Base: github.String(p.Base),
			Body: github.String(p.Body), MaintainerCanModify: github.Bool(true)})
		if err == nil {
			return pr.GetNumber(), pr.GetHTMLURL(), nil
		}
		found, rerr := c.openPRFrom(ctx, owner, name, p.headOwner(), p.Branch, marker)
		switch {
		case rerr != nil:
			return 0, "", fmt.Errorf("open PR for %s: %w; reading back failed too (%v): whether it was opened is unknown; run again, it will be found", p.Branch, err, rerr)
		case found != nil:
			return found.GetNumber(), found.GetHTMLURL(), nil
		case transient(err) && attempt < c.opts.MaxRetries:
			if serr := c.opts.Sleep(ctx, min(backoff(attempt), c.opts.MaxRetryWait)); serr != nil {
				return 0, "", serr
			}
		case statusOf(err) == http.StatusUnprocessableEntity:
			return 0, "", fmt.Errorf("open PR for %s: GitHub refused (a PR for this branch may have appeared meanwhile; run again, it will be found): %w", p.Branch, err)
		default:
			return 0, "", fmt.Errorf("open PR for %s: %w", p.Branch, err)
		}
	}
}

// openPRFrom returns the open PR from headOwner:branch whose body carries
// marker, or nil.
func (c *Client) openPRFrom(ctx context.Context, owner, name, headOwner, branch, marker string) (*github.PullRequest, error) {
	list, _, err := c.gh.PullRequests.List(ctx, owner, name, &github.PullRequestListOptions{State: "open", Head: headOwner + ":" + branch,
		ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return nil, err
	}
	for _, pr := range list {
		if pr.GetHead().GetRef() == branch && strings.EqualFold(headOwnerOf(pr, owner), headOwner) && strings.Contains(pr.GetBody(), marker) {
			return pr, nil
		}
	}
	return nil, nil
}

func orNone(s string) string {
	if s == "" {
		return "(absent)"
	}
	return short(s)
}

// commitMessage is the title, the evidence as trailers, and the ID trailer
// (TrailerKey) that marks the commit as ours.
func commitMessage(p *Plan) string {
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(p.Title, "\n", " ") + "\n\n")
	for _, f := range p.Files {
		if f.Change != "none" {
			fmt.Fprintf(&b, "%s %s\n", f.Change, f.Path)
		}
	}
	b.WriteString("\n")
	if p.Evidence.InferenceXSHA != "" {
		fmt.Fprintf(&b, "InferenceX-Source: %s@%s\n", p.Evidence.InferenceXRepo, p.Evidence.InferenceXSHA)
	}
	fmt.Fprintf(&b, "%s: %s\n", TrailerKey, p.ID)
	return b.String()
}

func (c *Client) commitSig() (name, email string, when time.Time) {
	return c.author, c.email, c.opts.Now().UTC().Truncate(time.Second)
}

// apiStore reads and writes git objects through the Git Data API.
type apiStore struct {
	c           *Client
	owner, name string
}

func (s *apiStore) ref(ctx context.Context, branch string) (string, error) {
	r, _, err := s.c.gh.Git.GetRef(ctx, s.owner, s.name, "heads/"+branch)
	if err != nil {
		if isNotFound(err) {
			return "", nil
		}
		return "", err
	}
	if r.GetObject().GetType() != "commit" || r.GetObject().GetSHA() == "" {
		return "", fmt.Errorf("ref heads/%s: not a commit", branch)
	}
	if r.GetRef() != "refs/heads/"+branch { // GitHub answers a prefix match with a list
		return "", nil
	}
	return r.GetObject().GetSHA(), nil
}

func (s *apiStore) message(ctx context.Context, sha string) (string, error) {
	cm, _, err := s.c.gh.Git.GetCommit(ctx, s.owner, s.name, sha)
	if err != nil {
		return "", err
	}
	return cm.GetMessage(), nil
}

func (s *apiStore) readFile(ctx context.Context, commit, p string) ([]byte, bool, error) {
	f, dir, _, err := s.c.gh.Repositories.GetContents(ctx, s.owner, s.name, p, &github.RepositoryContentGetOptions{Ref: commit})
	if err != nil {
		if isNotFound(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	if f == nil || dir != nil {
		return nil, false, fmt.Errorf("%s is a directory", p)
	}
	if f.GetEncoding() == "base64" && (f.Content != nil && *f.Content != "" || f.GetSize() == 0) {
		content := ""
		if f.Content != nil {
			content = *f.Content
		}
		b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(content, "\n", ""))
		if err != nil {
			return nil, false, fmt.Errorf("%s: bad base64 content: %w", p, err)
		}
		return b, true, nil
	}
	// Files over 1 MB come without content: read the blob.
	b, _, err := s.c.gh.Git.GetBlobRaw(ctx, s.owner, s.name, f.GetSHA())
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

func (s *apiStore) writeCommit(ctx context.Context, parent string, files []PlannedFile, msg string) (string, error) {
	pc, _, err := s.c.gh.Git.GetCommit(ctx, s.owner, s.name, parent)
	if err != nil {
		return "", err
	}
	var entries []*github.TreeEntry
	for _, f := range files {
		if f.Change == "none" {
			continue
		}
		bl, _, err := s.c.gh.Git.CreateBlob(ctx, s.owner, s.name, &github.Blob{
			Content: github.String(base64.StdEncoding.EncodeToString([]byte(f.New))), Encoding: github.String("base64")})
		if err != nil {
			return "", fmt.Errorf("blob %s: %w", f.Path, err)
		}
		if bl.GetSHA() != f.NewSHA {
			return "", fmt.Errorf("blob %s: server stored %s, expected %s", f.Path, bl.GetSHA(), f.NewSHA)
		}
		entries = append(entries, &github.TreeEntry{Path: github.String(f.Path), Mode: github.String("100644"),
			Type: github.String("blob"), SHA: github.String(bl.GetSHA())})
	}
	tree, _, err := s.c.gh.Git.CreateTree(ctx, s.owner, s.name, pc.GetTree().GetSHA(), entries)
	if err != nil {
		return "", fmt.Errorf("tree: %w", err)
	}
	name, email, when := s.c.commitSig()
	sig := &github.CommitAuthor{Name: github.String(name), Email: github.String(email), Date: &github.Timestamp{Time: when}}
	cm, _, err := s.c.gh.Git.CreateCommit(ctx, s.owner, s.name, &github.Commit{
		Message: github.String(msg), Tree: &github.Tree{SHA: tree.SHA}, Parents: []*github.Commit{{SHA: github.String(parent)}},
		Author: sig, Committer: sig}, nil)
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	return cm.GetSHA(), nil
}

func (s *apiStore) setRef(ctx context.Context, branch, sha, old string, force bool) error {
	ref := &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}}
	if old == "" {
		_, _, err := s.c.gh.Git.CreateRef(ctx, s.owner, s.name, ref)
		return err
	}
	_, _, err := s.c.gh.Git.UpdateRef(ctx, s.owner, s.name, ref, force)
	return err
}
