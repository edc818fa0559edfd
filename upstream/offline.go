package upstream

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// ChangeUnknown is PlannedFile.Change of a file whose current content was
// not read (PlanOffline without a checkout).
const ChangeUnknown = "unknown"

// PlanOffline computes from in alone, without a request to GitHub or a
// remote, the plan of the update as far as it is known locally: its ID,
// branch, body marker, files, title and body (Action ActionOffline). With
// in.Checkout the files are compared with the base branch as the checkout
// last fetched it (refs/remotes/<Remote>/<Base>, else the local branch
// <Base>; without Base the remote's HEAD as last fetched, else the
// checkout's current branch), which gives Base, BaseSHA and Parent and
// each file's Old and Change; without one every file's Change is
// ChangeUnknown. What PRs exist for the update, where its branch is and
// the action are not known: Apply reads them from the live state, so an
// offline plan applies like any other. The inputs are checked as Plan
// checks them (InputError), secrets included.
func (c *Client) PlanOffline(in PlanInput) (*Plan, error) {
	p, marker, err := c.newPlan(in)
	if err != nil {
		return nil, c.red.wrap(err)
	}
	p.Action = ActionOffline
	notAsked := "GitHub was not asked: the update's PRs, its branch and the action are read by pr apply"
	if p.Checkout == "" {
		for i := range p.Files {
			p.Files[i].Change = ChangeUnknown
		}
		p.Reason = notAsked + "; the files' current content was not read (a checkout of the repository gives a diff)"
		p.Body = prBody(p, marker)
		c.redactPlan(p)
		return p, nil
	}
	repo, err := git.PlainOpen(p.Checkout)
	if err != nil {
		return nil, c.red.wrap(&InputError{fmt.Errorf("checkout %s: not a git checkout: %w", p.Checkout, err)})
	}
	remote := p.Remote
	if remote == "" {
		remote = "origin"
	}
	base, ref, sha, err := localBase(repo, remote, p.Base)
	if err != nil {
		return nil, c.red.wrap(&InputError{fmt.Errorf("checkout %s: %w", p.Checkout, err)})
	}
	p.Base, p.BaseSHA, p.Parent = base, sha, sha
	st := &localStore{repo: repo, name: remote}
	if err := c.fillContents(context.Background(), st, p, marker); err != nil {
		return nil, c.red.wrap(err)
	}
	p.Reason = fmt.Sprintf("%s; files compared with %s at %s in the checkout (as last fetched)", notAsked, ref, short(sha))
	c.redactPlan(p)
	return p, nil
}

// localBase finds the base branch of an offline plan in a checkout, from
// its own refs only: base (or, when "", the remote's HEAD as last fetched,
// else the checkout's current branch) as the remote-tracking ref
// refs/remotes/<remote>/<base>, else the local branch. It returns the
// branch name, the ref read (for the plan's reason) and its commit.
func localBase(repo *git.Repository, remote, base string) (name, ref, sha string, err error) {
	if base == "" {
		if r, err := repo.Reference(plumbing.NewRemoteHEADReferenceName(remote), false); err == nil && r.Type() == plumbing.SymbolicReference {
			base = strings.TrimPrefix(r.Target().String(), "refs/remotes/"+remote+"/")
		} else if h, err := repo.Reference(plumbing.HEAD, false); err == nil && h.Type() == plumbing.SymbolicReference && h.Target().IsBranch() {
			base = h.Target().Short()
		} else {
			return "", "", "", fmt.Errorf("no base branch: %s/HEAD is not known and HEAD is detached; give the base branch", remote)
		}
	}
	for _, rn := range []plumbing.ReferenceName{plumbing.NewRemoteReferenceName(remote, base), plumbing.NewBranchReferenceName(base)} {
		r, err := repo.Reference(rn, true)
		if errors.Is(err, plumbing.ErrReferenceNotFound) {
			continue
		}
		if err != nil {
			return "", "", "", fmt.Errorf("%s: %w", rn, err)
		}
		return base, rn.Short(), r.Hash().String(), nil
	}
	return "", "", "", fmt.Errorf("base branch %s: neither %s/%s nor a local branch %s (fetch it, or give another base)", base, remote, base, base)
}
