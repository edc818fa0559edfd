package testutil

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// History is a git repository in a temporary directory, committed to with
// fixed author times (the same commit ids on every run): the InferenceX
// histories of the signoff and drift tests.
type History struct {
	T    testing.TB
	Dir  string
	Repo *git.Repository
	n    int
}

// NewHistory initializes a repository in <t.TempDir()>/<name>.
func NewHistory(t testing.TB, name string) *History {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	return &History{T: t, Dir: dir, Repo: r}
}

// Write writes files (slash path → content) into the work tree.
func (h *History) Write(files map[string]string) {
	h.T.Helper()
	for p, c := range files {
		full := filepath.Join(h.Dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			h.T.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			h.T.Fatal(err)
		}
	}
}

// Remove removes slash paths from the work tree.
func (h *History) Remove(paths ...string) {
	h.T.Helper()
	for _, p := range paths {
		if err := os.Remove(filepath.Join(h.Dir, filepath.FromSlash(p))); err != nil {
			h.T.Fatal(err)
		}
	}
}

// Commit commits every file of the work tree (removals too) with message
// msg and returns the commit id.
func (h *History) Commit(msg string) string {
	h.T.Helper()
	wt, err := h.Repo.Worktree()
	if err != nil {
		h.T.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		h.T.Fatal(err)
	}
	h.n++
	sig := &object.Signature{Name: "fixture", Email: "fixture@example.invalid", When: time.Date(2026, 8, 1, 0, h.n, 0, 0, time.UTC)}
	c, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, All: true})
	if err != nil {
		h.T.Fatal(err)
	}
	return c.String()
}
