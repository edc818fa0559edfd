package upstream

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v62/github"
)

// TrailerKey is the commit-message trailer that marks a commit as written by
// cookbook-sync for one update: "Cookbook-Sync-Id: <ID>". A branch whose head
// commit lacks it (for that ID) was pushed to by someone else, and Apply stops
// (the rule Renovate follows: no rebasing once a human edited the branch).
const TrailerKey = "Cookbook-Sync-Id"

// File is one file of an update: its repository path (slash-separated,
// relative, e.g. "docs/src/snippets/agentx/Qwen/qwen3.5.jsx") and its new
// content (UTF-8 text).
type File struct {
	Path    string `json:"path"`
	Content []byte `json:"-"`
}

// Evidence is what the PR body cites so a reviewer (and the InferenceX
// Check 3 verifier) can trace the update back to InferenceX.
type Evidence struct {
	// InferenceXRepo is OWNER/NAME of InferenceX; empty means
	// "SemiAnalysisAI/InferenceX".
	InferenceXRepo string `json:"inferencexRepo,omitempty"`
	// InferenceXSHA is the InferenceX main commit the update was generated from.
	InferenceXSHA string `json:"inferencexSha,omitempty"`
	// ConfigKeys are the InferenceX config keys covered
	// (e.g. "qwen3.5-fp8-gb300-dynamo-sglang-agentic").
	ConfigKeys []string `json:"configKeys,omitempty"`
	// Runs are the InferenceX Actions runs cited (URLs or ids).
	Runs []string `json:"runs,omitempty"`
	// Coverage is the coverage summary (plain text, shown in a code fence).
	Coverage string `json:"coverage,omitempty"`
}

// PlanInput is one update: the target repository, the model it is for and
// the files to write.
type PlanInput struct {
	// Repo is the upstream repository OWNER/NAME (e.g. "sgl-project/sglang").
	// The branch is created in it, so the token needs contents and
	// pull-request write access there.
	Repo string
	// Model is the model slug, the update's identity within Repo
	// (e.g. "Qwen/qwen3.5"; lower-cased; segments of [a-z0-9._-]).
	Model string
	// Base is the branch the PR targets; empty means the default branch.
	Base string
	// Title is the PR title and first commit line; empty gives a default.
	Title string
	// Files are the files to write (at least one; paths unique).
	Files []File
	// Evidence is cited in the PR body.
	Evidence Evidence
	// HeadRepo, when set, is a fork OWNER/NAME of Repo to push the branch to
	// (for a bot without write access to Repo); the PR is opened in Repo from
	// "<fork owner>:<branch>". The fork must be in Repo's fork network (GitHub
	// shares git objects across it). Not combined with Checkout.
	HeadRepo string
	// Checkout, when set, is a local git checkout of Repo: commits are made
	// with go-git there and pushed to its remote (Remote, default "origin")
	// instead of through the Git Data API.
	Checkout string
	Remote   string
}

// Actions a Plan can take.
const (
	ActionCreate   = "create"   // new branch (or reuse of our own branch) and a new PR
	ActionUpdate   = "update"   // open PR: new commit and/or new title/body
	ActionReopen   = "reopen"   // closed-unmerged PR whose branch still exists: reopen it
	ActionRecreate = "recreate" // closed-unmerged PR whose branch is gone: new branch, new PR
	ActionNone     = "none"     // nothing to do (content already there)
	ActionBlocked  = "blocked"  // someone else pushed to the branch: stop
	// ActionOffline: a plan computed without GitHub (PlanOffline): what
	// Apply does is decided from the live state it reads first.
	ActionOffline = "offline"
)

// PlannedFile is one file of a Plan. Old is the content at the commit the
// new commit would be parented on (Plan.Parent); Change is "add", "modify",
// "none", or "unknown" when the current content was not read (PlanOffline
// without a checkout).
type PlannedFile struct {
	Path   string `json:"path"`
	Change string `json:"change"`
	OldSHA string `json:"oldBlobSha,omitempty"` // git blob SHA-1 of Old
	NewSHA string `json:"newBlobSha"`           // git blob SHA-1 of New
	Old    string `json:"old"`
	New    string `json:"new"`
}

// ExistingPR is a PR found for the update's branch or marker.
type ExistingPR struct {
	Number    int    `json:"number"`
	State     State  `json:"state"`
	URL       string `json:"url"`
	HeadSHA   string `json:"headSha,omitempty"`
	HeadRef   string `json:"headRef,omitempty"`   // head branch name
	HeadOwner string `json:"headOwner,omitempty"` // owner of the head repository
	Title     string `json:"title"`
	Body      string `json:"-"`
}

// Plan is what Apply would do, computed read-only. It is JSON-serialisable
// (file contents included) and Diff renders it as a unified diff.
type Plan struct {
	ID       string        `json:"id"`                 // "<owner>/<name>:<model-slug>"
	Model    string        `json:"model"`              // model slug as given
	Repo     string        `json:"repo"`               // OWNER/NAME
	HeadRepo string        `json:"headRepo,omitempty"` // fork OWNER/NAME holding the branch; "" = Repo
	Branch   string        `json:"branch"`             // "cookbook-sync/<model-slug>"
	Base     string        `json:"base"`               // target branch
	BaseSHA  string        `json:"baseSha"`
	Head     string        `json:"headSha,omitempty"` // current head of Branch; "" when absent
	Parent   string        `json:"parentSha"`         // commit a new commit would be parented on
	Action   string        `json:"action"`            // one of the Action constants
	Reason   string        `json:"reason"`            // why this action
	Commit   bool          `json:"commit"`            // a new commit is needed (content differs from Parent)
	Title    string        `json:"title"`
	Body     string        `json:"body"`
	Existing *ExistingPR   `json:"existing,omitempty"`
	Files    []PlannedFile `json:"files"`
	Evidence Evidence      `json:"evidence"`
	Checkout string        `json:"checkout,omitempty"`
	Remote   string        `json:"remote,omitempty"`
	Related  []ExistingPR  `json:"related,omitempty"` // every PR found for the branch/marker
}

// InputError is returned by Plan for bad input (repository, model slug,
// file paths or contents), as opposed to API failures.
type InputError struct{ Err error }

// Error returns the wrapped error's text.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *InputError) Unwrap() error { return e.Err }

var slugSegment = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// Identity returns the update's identity for repo + model: the ID, the
// branch name and the hidden PR-body marker. They are stable (no dates, no
// hashes of content): the same repo and model always give the same branch.
// Rule source: Renovate ("the branch name is the identity of an update").
func Identity(repo, model string) (id, branch, marker string, err error) {
	owner, name, err := splitRepo(repo)
	if err != nil {
		return "", "", "", err
	}
	slug := strings.ToLower(strings.Trim(strings.TrimSpace(model), "/"))
	if slug == "" {
		return "", "", "", errors.New("model: empty slug")
	}
	for _, s := range strings.Split(slug, "/") {
		if !slugSegment.MatchString(s) || strings.Contains(s, "..") || strings.HasSuffix(s, ".lock") || strings.HasSuffix(s, ".") {
			return "", "", "", fmt.Errorf("model %q: segment %q: want [a-z0-9][a-z0-9._-]* (no \"..\", no .lock)", model, s)
		}
	}
	id = strings.ToLower(owner+"/"+name) + ":" + slug
	return id, "cookbook-sync/" + slug, "<!-- cookbook-sync:" + id + " -->", nil
}

// BlobSHA returns the git blob object id (SHA-1 of "blob <len>\0<content>").
func BlobSHA(content []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// validPath checks a repository path.
func validPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || path.Clean(p) != p || p == "." ||
		strings.HasPrefix(p, "../") || p == ".." || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..") {
		return fmt.Errorf("file path %q: want a clean relative path", p)
	}
	if p == ".git" || strings.HasPrefix(p, ".git/") || strings.Contains(p, "\\") {
		return fmt.Errorf("file path %q: not allowed", p)
	}
	return nil
}

// store is where commits are read and written: the Git Data API or a local
// go-git checkout.
type store interface {
	// ref returns the commit a branch points at, "" when it does not exist.
	ref(ctx context.Context, branch string) (string, error)
	// message returns a commit's message.
	message(ctx context.Context, sha string) (string, error)
	// readFile returns path's content at commit; exists false when absent.
	readFile(ctx context.Context, commit, p string) ([]byte, bool, error)
	// writeCommit creates a commit on top of parent that writes files.
	writeCommit(ctx context.Context, parent string, files []PlannedFile, msg string) (string, error)
	// setRef points branch at sha: create when old == "", else move from old
	// (fast-forward only unless force).
	setRef(ctx context.Context, branch, sha, old string, force bool) error
}

// storeFor returns the store the base branch is read from and the store the
// update's branch lives in (the same unless p.HeadRepo is a fork).
func (c *Client) storeFor(p *Plan) (base, head store, err error) {
	owner, name, err := splitRepo(p.Repo)
	if err != nil {
		return nil, nil, err
	}
	if p.Checkout != "" {
		if p.isFork() {
			return nil, nil, &InputError{errors.New("a fork (head repo) cannot be combined with a local checkout; make the fork the checkout's remote (Plan.Remote) instead")}
		}
		st, err := openLocalStore(p.Checkout, p.Remote, c.token, c.commitSig)
		if err != nil {
			return nil, nil, &InputError{err} // a missing or non-git directory, an unknown remote
		}
		return st, st, nil
	}
	base = &apiStore{c: c, owner: owner, name: name}
	if p.isFork() {
		ho, hn, err := splitRepo(p.HeadRepo)
		if err != nil {
			return nil, nil, &InputError{err}
		}
		return base, &apiStore{c: c, owner: ho, name: hn}, nil
	}
	return base, base, nil
}

// isFork reports whether the branch lives in a fork.
func (p *Plan) isFork() bool { return p.HeadRepo != "" && !strings.EqualFold(p.HeadRepo, p.Repo) }

// headOwner is the owner of the repository holding the branch.
func (p *Plan) headOwner() string {
	r := p.Repo
	if p.isFork() {
		r = p.HeadRepo
	}
	o, _, _ := strings.Cut(r, "/")
	return o
}

// storeAt picks the store to read commit sha from: the base store for the
// base commit, else the head store.
func (p *Plan) storeAt(base, head store, sha string) store {
	if sha == p.BaseSHA {
		return base
	}
	return head
}

// Plan computes, read-only, what Apply would do for in: the base and branch
// heads, the PRs already open or closed for the update (searched in every
// state by branch — GET /repos/{o}/{r}/pulls?state=all&head=… — and by the
// hidden marker — GET /search/issues), whether the branch was moved by
// someone else, the file changes and the PR title and body.
func (c *Client) Plan(ctx context.Context, in PlanInput) (*Plan, error) {
	p, err := c.plan(ctx, in)
	if err != nil {
		return nil, c.red.wrap(err)
	}
	c.redactPlan(p)
	return p, nil
}

func (c *Client) plan(ctx context.Context, in PlanInput) (*Plan, error) {
	p, marker, err := c.newPlan(in)
	if err != nil {
		return nil, err
	}
	if err := c.resolve(ctx, p, marker); err != nil {
		return nil, err
	}
	return p, nil
}

// newPlan checks in (InputError) and gives the plan of the update before
// anything is read: its identity, branch, files (new contents), evidence
// and title; and the body marker.
func (c *Client) newPlan(in PlanInput) (*Plan, string, error) {
	id, branch, marker, err := Identity(in.Repo, in.Model)
	if err != nil {
		return nil, "", &InputError{err}
	}
	if len(in.Files) == 0 {
		return nil, "", &InputError{errors.New("plan: no files")}
	}
	seen := map[string]bool{}
	files := make([]PlannedFile, 0, len(in.Files))
	for _, f := range in.Files {
		if err := validPath(f.Path); err != nil {
			return nil, "", &InputError{err}
		}
		if seen[f.Path] {
			return nil, "", &InputError{fmt.Errorf("file path %q given twice", f.Path)}
		}
		seen[f.Path] = true
		if !utf8.Valid(f.Content) {
			return nil, "", &InputError{fmt.Errorf("file %s: content is not UTF-8 text", f.Path)}
		}
		files = append(files, PlannedFile{Path: f.Path, New: string(f.Content), NewSHA: BlobSHA(f.Content)})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	if err := c.checkPlanInput(in.Title, in.Evidence, files); err != nil {
		return nil, "", err
	}
	owner, name, _ := splitRepo(in.Repo)
	if in.HeadRepo != "" {
		if _, _, err := splitRepo(in.HeadRepo); err != nil {
			return nil, "", &InputError{fmt.Errorf("head repo: %w", err)}
		}
	}
	p := &Plan{ID: id, Model: in.Model, Repo: owner + "/" + name, HeadRepo: in.HeadRepo, Branch: branch, Base: in.Base, Files: files,
		Evidence: in.Evidence, Checkout: in.Checkout, Remote: in.Remote}
	if p.Evidence.InferenceXRepo == "" {
		p.Evidence.InferenceXRepo = "SemiAnalysisAI/InferenceX"
	}
	p.Title = in.Title
	if p.Title == "" {
		p.Title = fmt.Sprintf("[cookbook-sync] %s: launch commands from InferenceX", strings.ToLower(strings.Trim(in.Model, "/")))
	}
	return p, marker, nil
}

// resolve fills the live state of p: heads, PRs, action, old contents, body.
func (c *Client) resolve(ctx context.Context, p *Plan, marker string) error {
	owner, name, _ := splitRepo(p.Repo)
	bst, hst, err := c.storeFor(p)
	if err != nil {
		return err
	}
	if p.Base == "" {
		if p.Base, err = c.defaultBranch(ctx, owner, name); err != nil {
			return err
		}
	}
	if p.BaseSHA, err = bst.ref(ctx, p.Base); err != nil {
		return fmt.Errorf("base branch %s: %w", p.Base, err)
	}
	if p.BaseSHA == "" {
		return fmt.Errorf("base branch %s does not exist in %s", p.Base, p.Repo)
	}
	if p.Head, err = hst.ref(ctx, p.Branch); err != nil {
		return fmt.Errorf("branch %s: %w", p.Branch, err)
	}
	prs, err := c.findPRs(ctx, owner, name, p.headOwner(), p.Branch, marker)
	if err != nil {
		return err
	}
	p.Related = prs
	p.Existing = nil
	var open []ExistingPR
	for _, pr := range prs {
		if pr.State == StateOpen || pr.State == StateDraft {
			open = append(open, pr)
		}
	}
	switch {
	case len(open) > 1:
		nums := make([]string, len(open))
		for i, o := range open {
			nums[i] = "#" + strconv.Itoa(o.Number)
		}
		return fmt.Errorf("%d open PRs for %s (%s): resolve by hand, cookbook-sync never picks one", len(open), p.ID, strings.Join(nums, ", "))
	case len(open) == 1:
		e := open[0]
		if e.HeadRef != p.Branch || !strings.EqualFold(e.HeadOwner, p.headOwner()) {
			return fmt.Errorf("open PR #%d carries the marker of %s but its head is %s:%s, not %s:%s: resolve by hand",
				e.Number, p.ID, e.HeadOwner, e.HeadRef, p.headOwner(), p.Branch)
		}
		p.Existing = &e
	default:
		// Only PRs from our branch can be reopened or continued; others
		// carrying the marker are listed as superseded (Related).
		for _, want := range []State{StateClosedUnmerged, StateMerged} {
			for i := range prs { // prs is sorted newest first
				mine := prs[i].HeadRef == p.Branch && strings.EqualFold(prs[i].HeadOwner, p.headOwner())
				if prs[i].State == want && mine && p.Existing == nil {
					e := prs[i]
					p.Existing = &e
				}
			}
		}
	}
	// Foreign pushes: our commits carry the trailer for this ID.
	ours := false
	if p.Head != "" {
		msg, err := hst.message(ctx, p.Head)
		if err != nil {
			return fmt.Errorf("branch %s head %s: %w", p.Branch, p.Head, err)
		}
		ours = hasTrailer(msg, p.ID)
		if !ours {
			p.Action = ActionBlocked
			p.Reason = fmt.Sprintf("branch %s head %s was not written by cookbook-sync (no %q trailer for %s): someone else pushed to it; not touching it",
				p.Branch, short(p.Head), TrailerKey, p.ID)
			p.Parent = p.Head
			return c.fillContents(ctx, p.storeAt(bst, hst, p.Parent), p, marker)
		}
	}
	ex := p.Existing
	switch {
	case ex != nil && (ex.State == StateOpen || ex.State == StateDraft):
		p.Action, p.Parent = ActionUpdate, p.Head
		p.Reason = fmt.Sprintf("PR #%d is open", ex.Number)
		if p.Head == "" {
			return fmt.Errorf("PR #%d is open but branch %s is missing", ex.Number, p.Branch)
		}
	case ex != nil && ex.State == StateClosedUnmerged && p.Head != "":
		p.Action, p.Parent = ActionReopen, p.Head
		p.Reason = fmt.Sprintf("PR #%d was closed without merging; its branch exists: reopen it", ex.Number)
	case ex != nil && ex.State == StateClosedUnmerged:
		p.Action, p.Parent = ActionRecreate, p.BaseSHA
		p.Reason = fmt.Sprintf("PR #%d was closed without merging and its branch is gone: new branch from %s, new PR", ex.Number, p.Base)
	case p.Head != "" && (ex == nil || ex.HeadSHA != p.Head):
		// Our branch without a PR (an earlier run stopped before opening it):
		// continue on it.
		p.Action, p.Parent = ActionCreate, p.Head
		p.Reason = fmt.Sprintf("branch %s exists (ours) without a PR: open one", p.Branch)
	default:
		p.Action, p.Parent = ActionCreate, p.BaseSHA
		p.Reason = "no PR for this update"
		if ex != nil {
			p.Reason = fmt.Sprintf("PR #%d was merged; new changes go into a new PR", ex.Number)
		}
	}
	if err := c.fillContents(ctx, p.storeAt(bst, hst, p.Parent), p, marker); err != nil {
		return err
	}
	if p.Action == ActionCreate || p.Action == ActionRecreate {
		// Nothing to propose when the base already has the content.
		same := true
		for _, f := range p.Files {
			b, ok, err := bst.readFile(ctx, p.BaseSHA, f.Path)
			if err != nil {
				return err
			}
			if !ok || BlobSHA(b) != f.NewSHA {
				same = false
				break
			}
		}
		if same {
			p.Action, p.Commit = ActionNone, false
			p.Reason = fmt.Sprintf("%s@%s already has this content", p.Base, short(p.BaseSHA))
		}
	}
	if p.Action == ActionUpdate && !p.Commit && ex.Title == p.Title && sameText(ex.Body, p.Body) {
		p.Action, p.Reason = ActionNone, fmt.Sprintf("PR #%d is open and up to date", ex.Number)
	}
	return nil
}

// fillContents reads the old contents at p.Parent and builds the body.
func (c *Client) fillContents(ctx context.Context, st store, p *Plan, marker string) error {
	p.Commit = false
	for i := range p.Files {
		f := &p.Files[i]
		b, ok, err := st.readFile(ctx, p.Parent, f.Path)
		if err != nil {
			return fmt.Errorf("read %s at %s: %w", f.Path, short(p.Parent), err)
		}
		f.Old, f.OldSHA = "", ""
		switch {
		case !ok:
			f.Change = "add"
		case BlobSHA(b) == f.NewSHA:
			f.Change, f.Old, f.OldSHA = "none", string(b), f.NewSHA
		default:
			f.Change, f.Old, f.OldSHA = "modify", string(b), BlobSHA(b)
		}
		if f.Change != "none" {
			p.Commit = true
		}
	}
	p.Body = prBody(p, marker)
	return nil
}

// sameText compares PR texts ignoring CRLF vs LF and trailing white space
// (GitHub may normalise line ends of bodies edited in the web UI).
func sameText(a, b string) bool {
	norm := func(s string) string { return strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \n") }
	return norm(a) == norm(b)
}

// hasTrailer reports whether msg carries "Cookbook-Sync-Id: id" as a trailer line.
func hasTrailer(msg, id string) bool {
	for _, line := range strings.Split(msg, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), TrailerKey) && strings.TrimSpace(v) == id {
			return true
		}
	}
	return false
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// findPRs lists every PR (any state) whose head is branch, plus every PR
// whose body carries marker, newest first, with merge state read per PR.
func (c *Client) findPRs(ctx context.Context, owner, name, headOwner, branch, marker string) ([]ExistingPR, error) {
	nums := map[int]bool{}
	opts := &github.PullRequestListOptions{State: "all", Head: headOwner + ":" + branch, ListOptions: github.ListOptions{PerPage: 100}}
	for {
		list, resp, err := c.gh.PullRequests.List(ctx, owner, name, opts)
		if err != nil {
			return nil, fmt.Errorf("list PRs for %s: %w", branch, err)
		}
		for _, pr := range list {
			if pr.GetHead().GetRef() == branch || pr.GetHead().GetRef() == "" {
				nums[pr.GetNumber()] = true
			}
		}
		if resp == nil || resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	id := strings.TrimSuffix(strings.TrimPrefix(marker, "<!-- "), " -->")
	q := fmt.Sprintf("repo:%s/%s is:pr in:body %q", owner, name, id)
	sr, _, err := c.gh.Search.Issues(ctx, q, &github.SearchOptions{ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return nil, fmt.Errorf("search PRs for marker %s: %w", id, err)
	}
	if sr.GetIncompleteResults() {
		return nil, fmt.Errorf("search PRs for marker %s: GitHub returned incomplete results; retry later", id)
	}
	for _, is := range sr.Issues {
		if is.IsPullRequest() && strings.Contains(is.GetBody(), marker) {
			nums[is.GetNumber()] = true
		}
	}
	var out []ExistingPR
	for n := range nums {
		pr, _, err := c.gh.PullRequests.Get(ctx, owner, name, n)
		if err != nil {
			return nil, fmt.Errorf("PR #%d: %w", n, err)
		}
		st, err := c.prStatus(ctx, LinkState{Repo: owner + "/" + name, Number: n})
		if err != nil {
			return nil, err
		}
		out = append(out, ExistingPR{Number: n, State: st.State, URL: pr.GetHTMLURL(), HeadSHA: pr.GetHead().GetSHA(), HeadRef: pr.GetHead().GetRef(),
			HeadOwner: headOwnerOf(pr, owner),
			Title:     pr.GetTitle(), Body: pr.GetBody()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number > out[j].Number })
	return out, nil
}

// headOwnerOf is the owner of a PR's head repository (the base owner when the
// head repository was deleted).
func headOwnerOf(pr *github.PullRequest, fallback string) string {
	if l := pr.GetHead().GetRepo().GetOwner().GetLogin(); l != "" {
		return l
	}
	if o, _, ok := strings.Cut(pr.GetHead().GetLabel(), ":"); ok && o != "" {
		return o
	}
	return fallback
}

// prBody renders the PR body: the hidden marker, the evidence and the file
// list. Text from inputs is escaped so it cannot forge a marker.
func prBody(p *Plan, marker string) string {
	var b strings.Builder
	b.WriteString(marker + "\n")
	b.WriteString("Generated by cookbook-sync from SemiAnalysis InferenceX AgentX submissions, with harness-only settings removed.\n\n")
	b.WriteString("## Evidence\n\n")
	e := p.Evidence
	repo := e.InferenceXRepo
	if e.InferenceXSHA != "" {
		fmt.Fprintf(&b, "- InferenceX: [`%s@%s`](https://github.com/%s/tree/%s)\n", escapeMD(repo), short(e.InferenceXSHA), escapeMD(repo), escapeMD(e.InferenceXSHA))
	} else {
		fmt.Fprintf(&b, "- InferenceX: `%s` (commit not given)\n", escapeMD(repo))
	}
	if len(e.ConfigKeys) > 0 {
		b.WriteString("- Config keys:\n")
		for _, k := range e.ConfigKeys {
			fmt.Fprintf(&b, "  - `%s`\n", escapeMD(k))
		}
	}
	if len(e.Runs) > 0 {
		b.WriteString("- Runs:\n")
		for _, r := range e.Runs {
			fmt.Fprintf(&b, "  - %s\n", runLink(repo, r))
		}
	}
	if strings.TrimSpace(e.Coverage) != "" {
		b.WriteString("\n## Coverage\n\n")
		fence := "```"
		for strings.Contains(e.Coverage, fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "%stext\n%s\n%s\n", fence, strings.ReplaceAll(strings.TrimRight(e.Coverage, "\n"), "<!--", "<!\u200b--"), fence)
	}
	var sup []string
	for i := len(p.Related) - 1; i >= 0; i-- {
		r := p.Related[i]
		if r.State == StateClosedUnmerged && (p.Action == ActionRecreate || p.Existing == nil || p.Existing.Number != r.Number) {
			sup = append(sup, "#"+strconv.Itoa(r.Number))
		}
	}
	if len(sup) > 0 {
		fmt.Fprintf(&b, "\nSupersedes %s (closed without merging).\n", strings.Join(sup, ", "))
	}
	b.WriteString("\n## Files\n\n")
	for _, f := range p.Files {
		fmt.Fprintf(&b, "- `%s` (blob %s)\n", escapeMD(f.Path), short(f.NewSHA))
	}
	return b.String()
}

var runID = regexp.MustCompile(`^[0-9]+(/attempts/[0-9]+)?$`)

func runLink(repo, r string) string {
	r = strings.TrimSpace(r)
	if runID.MatchString(r) {
		return fmt.Sprintf("https://github.com/%s/actions/runs/%s", repo, r)
	}
	if strings.HasPrefix(r, "https://") && !strings.ContainsAny(r, " <>`") {
		return r
	}
	return "`" + escapeMD(r) + "`"
}

// escapeMD keeps input text inside inline code and out of HTML comments.
func escapeMD(s string) string {
	s = strings.ReplaceAll(s, "`", "'")
	s = strings.ReplaceAll(s, "<!--", "<!\u200b--")
	return strings.ReplaceAll(s, "\n", " ")
}
