package coverage

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/report"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// gitRepo is a read-only view of the git checkout containing a directory,
// read with go-git (no git binary, no network).
type gitRepo struct {
	repo *git.Repository
	root string // worktree root
	dir  string // the directory given (absolute)
	head string // HEAD commit hash
	tree map[string]*object.Tree
}

// openRepo returns the git checkout whose work-tree root is dir, or nil
// when dir is not the root of a git work tree (a plain directory inside
// some other repository is not an InferenceX checkout: that repository's
// HEAD says nothing about InferenceX) or HEAD cannot be read.
func openRepo(dir string) *gitRepo {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	r, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: false, EnableDotGitCommonDir: true})
	if err != nil {
		return nil
	}
	wt, err := r.Worktree()
	if err != nil {
		return nil
	}
	if root, err := filepath.EvalSymlinks(wt.Filesystem.Root()); err == nil {
		if d, err := filepath.EvalSymlinks(abs); err != nil || d != root {
			return nil
		}
	}
	h, err := r.Head()
	if err != nil {
		return nil
	}
	return &gitRepo{repo: r, root: wt.Filesystem.Root(), dir: abs, head: h.Hash().String(), tree: map[string]*object.Tree{}}
}

// CommitRef names one commit of a git repository: Repo its directory (a
// work tree or a bare git directory), Commit the full commit id.
type CommitRef struct{ Repo, Commit string }

// openRepoAt is the repository at repoDir seen as if its work tree were
// dir at commit (a tree materialized from that commit); nil when the
// repository or the commit cannot be read.
func openRepoAt(repoDir, commit, dir string) *gitRepo {
	r, err := git.PlainOpenWithOptions(repoDir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil
	}
	if _, err := r.CommitObject(plumbing.NewHash(commit)); err != nil {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	if e, err := filepath.EvalSymlinks(abs); err == nil {
		abs = e
	}
	return &gitRepo{repo: r, root: abs, dir: abs, head: commit, tree: map[string]*object.Tree{}}
}

// repoPath turns a path relative to g.dir into a path relative to the
// worktree root, with forward slashes.
func (g *gitRepo) repoPath(rel string) (string, bool) {
	p, err := filepath.Rel(g.root, filepath.Join(g.dir, filepath.FromSlash(rel)))
	if err != nil || p == ".." || len(p) > 2 && p[:3] == ".."+string(filepath.Separator) {
		return "", false
	}
	return filepath.ToSlash(p), true
}

func (g *gitRepo) treeAt(sha string) (*object.Tree, error) {
	if t, ok := g.tree[sha]; ok {
		return t, nil
	}
	c, err := g.repo.CommitObject(plumbing.NewHash(sha))
	if err != nil {
		return nil, err
	}
	t, err := c.Tree()
	if err != nil {
		return nil, err
	}
	g.tree[sha] = t
	return t, nil
}

// drift compares the working-tree file rel (relative to the InfxDir dir)
// with the same path at commit provSHA.
func (g *gitRepo) drift(rel, provSHA string) report.Drift {
	if g == nil {
		return report.Drift{State: report.DriftUnknown, Detail: "the InferenceX directory is not a git checkout"}
	}
	d := report.Drift{State: report.DriftUnknown, Commit: g.head}
	if len(provSHA) != 40 {
		d.Detail = fmt.Sprintf("prov.sha %q is not a full commit id", provSHA)
		return d
	}
	rp, ok := g.repoPath(rel)
	if !ok {
		d.Detail = "recipe is outside the git work tree"
		return d
	}
	t, err := g.treeAt(provSHA)
	if err != nil {
		d.Detail = fmt.Sprintf("prov.sha %s is not in the checkout", provSHA[:12])
		return d
	}
	data, err := os.ReadFile(filepath.Join(g.root, filepath.FromSlash(rp)))
	if err != nil {
		d.Detail = err.Error()
		return d
	}
	now := plumbing.ComputeHash(plumbing.BlobObject, data)
	f, err := t.File(rp)
	if err != nil {
		d.State, d.Detail = report.DriftChanged, fmt.Sprintf("recipe did not exist at prov.sha %s", provSHA[:12])
		return d
	}
	if f.Hash == now {
		d.State, d.Detail = report.DriftNone, fmt.Sprintf("recipe identical to prov.sha %s", provSHA[:12])
		return d
	}
	d.State, d.Detail = report.DriftChanged, fmt.Sprintf("recipe changed since prov.sha %s (blob %s -> %s)", provSHA[:12], f.Hash.String()[:12], now.String()[:12])
	return d
}

// dirty reports whether the working-tree file p differs from HEAD (or is
// not committed).
func (g *gitRepo) dirty(p string) bool {
	abs, err := filepath.Abs(p)
	if err != nil {
		return true
	}
	rel, err := filepath.Rel(g.root, abs)
	if err != nil {
		return true
	}
	t, err := g.treeAt(g.head)
	if err != nil {
		return true
	}
	f, err := t.File(filepath.ToSlash(rel))
	if err != nil {
		return true
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return true
	}
	return plumbing.ComputeHash(plumbing.BlobObject, data) != f.Hash
}

// github is the GitHub OWNER/NAME of the checkout: from its origin remote
// when that is a github.com URL, else def (the source's well-known
// repository). Permalinks are built from it and the HEAD commit.
func (g *gitRepo) github(def string) string {
	rm, err := g.repo.Remote("origin")
	if err != nil || len(rm.Config().URLs) == 0 {
		return def
	}
	u := rm.Config().URLs[0]
	if m := githubRe.FindStringSubmatch(u); m != nil {
		return m[1]
	}
	if strings.HasPrefix(u, "/") || strings.HasPrefix(u, "file://") || strings.HasPrefix(u, ".") {
		// a local clone (a mirror of the upstream): its commits are the
		// upstream's
		return def
	}
	// another host (gitlab, a fork server): its commits may not be on
	// GitHub, so no permalink is made
	return ""
}

// githubRe is a github.com origin URL: https (with or without user info,
// which is never kept), ssh or scp-like; the whole URL must match.
var githubRe = regexp.MustCompile(`^(?:https?://(?:[^@/]+@)?github\.com/|ssh://git@github\.com/|git@github\.com:)([A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+?)(?:\.git)?/?$`)
