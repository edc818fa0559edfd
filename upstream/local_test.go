package upstream

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

// gitFixture is a bare "upstream" repository and a checkout of it, both real
// git repositories in temp dirs.
type gitFixture struct {
	remote, work string
}

func newGitFixture(t *testing.T) gitFixture {
	t.Helper()
	f := gitFixture{remote: filepath.Join(t.TempDir(), "sglang.git"), work: filepath.Join(t.TempDir(), "sglang")}
	if _, err := git.PlainInit(f.remote, true); err != nil {
		t.Fatal(err)
	}
	repo, err := git.PlainInitWithOptions(f.work, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.Main}})
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range map[string]string{snippet: "old\n", "README.md": "sglang\n", "docs/run.sh": "#!/bin/sh\n"} {
		full := filepath.Join(f.work, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		mode := os.FileMode(0o644)
		if filepath.Ext(p) == ".sh" {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(c), mode); err != nil {
			t.Fatal(err)
		}
	}
	wt, _ := repo.Worktree()
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "Upstream Dev", Email: "dev@example.com", When: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if _, err := wt.Commit("initial\n", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{f.remote}}); err != nil {
		t.Fatal(err)
	}
	if err := repo.Push(&git.PushOptions{RefSpecs: []config.RefSpec{"refs/heads/main:refs/heads/main"}}); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f gitFixture) remoteRef(t *testing.T, branch string) (string, bool) {
	r, err := git.PlainOpen(f.remote)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := r.Reference(plumbing.NewBranchReferenceName(branch), true)
	if err != nil {
		return "", false
	}
	return ref.Hash().String(), true
}

// commitsOver counts first-parent commits on branch that are not on main.
func (f gitFixture) commitsOver(t *testing.T, branch string) (n int, last *object.Commit) {
	r, _ := git.PlainOpen(f.remote)
	mainSHA, _ := f.remoteRef(t, "main")
	sha, ok := f.remoteRef(t, branch)
	for ok && sha != mainSHA {
		c, err := r.CommitObject(plumbing.NewHash(sha))
		if err != nil {
			t.Fatal(err)
		}
		if last == nil {
			last = c
		}
		n++
		if len(c.ParentHashes) == 0 {
			break
		}
		sha = c.ParentHashes[0].String()
	}
	return n, last
}

func TestCheckoutApply(t *testing.T) {
	f := newGitFixture(t)
	s := fakegithub.New()
	t.Cleanup(s.Close)
	s.Token = testToken
	s.AddRepo(testRepo, "main", nil)
	s.ExternalRef = func(_, branch string) (string, bool) { return f.remoteRef(t, branch) }
	c, _ := newClient(t, s, testToken)
	in := func(content string) PlanInput {
		i := input(content)
		i.Checkout = f.work
		return i
	}
	headBefore, _ := mustOpen(t, f.work).Head()
	commits := 0
	for i, content := range []string{"v1\n", "v1\n", "v1\n", "v2\n", "v2\n"} {
		p, res, err := planApply(t, c, in(content))
		if err != nil {
			t.Fatalf("apply %d: %v", i+1, err)
		}
		if res.Commit != "" {
			commits++
		}
		if res.PR != 1 {
			t.Errorf("apply %d: PR %d (%s)", i+1, res.PR, p.Action)
		}
	}
	if commits != 2 {
		t.Errorf("%d commits, want 2", commits)
	}
	n, last := f.commitsOver(t, "cookbook-sync/qwen/qwen3.5")
	if n != 2 || last == nil || !hasTrailer(last.Message, "sgl-project/sglang:qwen/qwen3.5") || last.Author.Name != "cookbook-sync" {
		t.Fatalf("remote branch: %d commits, last %v", n, last)
	}
	file, err := last.File(snippet)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := file.Contents(); got != "v2\n" {
		t.Errorf("content %q", got)
	}
	// Untouched entries keep their modes; the checkout's HEAD and worktree are untouched.
	if sh, err := last.File("docs/run.sh"); err != nil || sh.Mode.String() != "0100755" {
		t.Errorf("docs/run.sh: %v %v", sh, err)
	}
	headAfter, _ := mustOpen(t, f.work).Head()
	if headAfter.Hash() != headBefore.Hash() || headAfter.Name() != headBefore.Name() {
		t.Errorf("checkout HEAD moved: %v → %v", headBefore, headAfter)
	}
	if b, _ := os.ReadFile(filepath.Join(f.work, snippet)); string(b) != "old\n" {
		t.Errorf("worktree file changed: %q", b)
	}
	if len(s.Repos[testRepo].Pulls) != 1 {
		t.Errorf("%d PRs", len(s.Repos[testRepo].Pulls))
	}

	// Someone else pushes to the branch from another clone: stop.
	other := filepath.Join(t.TempDir(), "other")
	r2, err := git.PlainClone(other, false, &git.CloneOptions{URL: f.remote, ReferenceName: plumbing.NewBranchReferenceName("cookbook-sync/qwen/qwen3.5")})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(other, "README.md"), []byte("human\n"), 0o644)
	wt, _ := r2.Worktree()
	wt.Add("README.md")
	if _, err := wt.Commit("human edit\n", &git.CommitOptions{Author: &object.Signature{Name: "octocat", Email: "o@example.com", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
	if err := r2.Push(&git.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	moved, _ := f.remoteRef(t, "cookbook-sync/qwen/qwen3.5")
	p, err := c.Plan(context.Background(), in("v3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Action != ActionBlocked {
		t.Errorf("plan after a foreign push: %s", p.Action)
	}
	if _, err := c.Apply(context.Background(), p); !errors.Is(err, ErrBranchMoved) {
		t.Errorf("apply after a foreign push: %v", err)
	}
	if now, _ := f.remoteRef(t, "cookbook-sync/qwen/qwen3.5"); now != moved {
		t.Error("branch moved after a refused apply")
	}
}

func mustOpen(t *testing.T, dir string) *git.Repository {
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCheckoutAuthNotInURL: for an https remote the token goes into HTTP basic
// auth (a header), never into the remote URL or the repository config; a
// remote URL that already carries credentials is refused.
func TestCheckoutAuthNotInURL(t *testing.T) {
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{"https://github.com/sgl-project/sglang.git"}})
	repo.CreateRemote(&config.RemoteConfig{Name: "creds", URLs: []string{"https://user:secret@github.com/sgl-project/sglang.git"}})
	s, err := openLocalStore(dir, "origin", testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.auth == nil || s.auth.String() == "" || strings.Contains(s.auth.String(), testToken) {
		t.Errorf("auth %v", s.auth)
	}
	if u := s.remote.Config().URLs[0]; strings.Contains(u, testToken) {
		t.Errorf("token in remote URL %s", u)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, ".git", "config"))
	if strings.Contains(string(cfg), testToken) {
		t.Error("token written to .git/config")
	}
	if _, err := openLocalStore(dir, "creds", testToken, nil); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("credentials in remote URL: %v", err)
	}
}
