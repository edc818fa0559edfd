package gittree

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func commitAll(t *testing.T, r *git.Repository, msg string, n int) string {
	t.Helper()
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "f", Email: "f@example.invalid", When: time.Date(2026, 8, 1, 0, n, 0, 0, time.UTC)}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// TestCommitFS: a commit's tree is a conforming read-only fs.FS
// (fstest.TestFS), Changed lists the paths two commits differ in, the
// squash-merge PR number is read from the title, and Materialize writes a
// read-only copy, a link out of the tree left out.
func TestCommitFS(t *testing.T) {
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	write := func(p, c string) {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("configs/a.yaml", "a: 1\n")
	write("benchmarks/run.sh", "echo hi\n")
	if err := os.Symlink("../configs/a.yaml", filepath.Join(dir, "benchmarks", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "benchmarks", "out")); err != nil {
		t.Fatal(err)
	}
	base := commitAll(t, r, "base", 1)
	write("configs/a.yaml", "a: 2\n")
	write("docs/new.md", "new\n")
	head := commitAll(t, r, "Change a (#2703)\n\nbody", 2)

	g, err := Open(filepath.Join(dir, "configs")) // a directory inside the work tree
	if err != nil {
		t.Fatal(err)
	}
	hc, err := g.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if hc.Hash != head || hc.PR != 2703 || hc.Title != "Change a (#2703)" || len(hc.Parents) != 1 || hc.Parents[0] != base {
		t.Fatalf("head %+v", hc)
	}
	bc, err := g.Resolve(hc.Parents[0][:9])
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(hc.FS(), "configs/a.yaml", "benchmarks/run.sh", "docs/new.md"); err != nil {
		t.Fatal(err)
	}
	if b, err := bc.ReadFile("configs/a.yaml"); err != nil || string(b) != "a: 1\n" {
		t.Errorf("base a.yaml %q %v", b, err)
	}
	ch, err := g.Changed(context.Background(), bc, hc)
	if err != nil || !slices.Equal(ch, []string{"configs/a.yaml", "docs/new.md"}) {
		t.Errorf("changed %v %v", ch, err)
	}
	if ok, err := g.IsAncestor(base, head); !ok || err != nil {
		t.Errorf("ancestor %v %v", ok, err)
	}

	out := filepath.Join(t.TempDir(), "tree")
	if err := Materialize(context.Background(), hc.FS(), out, Limits{}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = RemoveAll(out) }()
	if b, err := os.ReadFile(filepath.Join(out, "benchmarks", "link.yaml")); err != nil || string(b) != "a: 2\n" {
		t.Errorf("link in the tree: %q %v", b, err)
	}
	if _, err := os.Lstat(filepath.Join(out, "benchmarks", "out")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a link out of the tree was written: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(out, "configs", "a.yaml")); err != nil || fi.Mode().Perm() != 0o444 {
		t.Errorf("mode %v %v", fi.Mode(), err)
	}
	if err := Materialize(context.Background(), hc.FS(), filepath.Join(t.TempDir(), "small"), Limits{MaxFiles: 2}); !errors.Is(err, ErrLimit) {
		t.Errorf("file limit: %v", err)
	}
	if _, err := Open(t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("not a repository: %v", err)
	}
}

// TestOpenBareAndSubdir: Open reads a bare git directory (no work tree:
// Root is ""), a work tree's root and a directory inside it; a plain
// directory is ErrNotRepo.
func TestOpenBareAndSubdir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wt")
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "a"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head := commitAll(t, r, "first", 1)
	bare := filepath.Join(t.TempDir(), "bare.git")
	if _, err := git.PlainClone(bare, true, &git.CloneOptions{URL: dir}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir, root string
	}{{bare, ""}, {dir, dir}, {filepath.Join(dir, "sub"), dir}} {
		g, err := Open(c.dir)
		if err != nil {
			t.Fatalf("%s: %v", c.dir, err)
		}
		if g.Root() != c.root {
			t.Errorf("%s: root %q, want %q", c.dir, g.Root(), c.root)
		}
		if got, err := g.Resolve("HEAD"); err != nil || got.Hash != head {
			t.Errorf("%s: HEAD %v %v", c.dir, got, err)
		}
	}
	if _, err := Open(t.TempDir()); !errors.Is(err, ErrNotRepo) {
		t.Errorf("plain directory: %v", err)
	}
}

// TestResolveCommit: a full or abbreviated commit id resolves; an
// abbreviation two commits share is ErrAmbiguous (never the first found);
// a ref name or revision expression is not a commit id.
func TestResolveCommit(t *testing.T) {
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range 20 { // 20 commits: two share a first hex digit
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, commitAll(t, r, "c", i+1))
	}
	g, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{ids[3], ids[3][:12]} {
		if c, err := g.ResolveCommit(id); err != nil || c.Hash != ids[3] {
			t.Errorf("%s: %v %v", id, c, err)
		}
	}
	first := map[byte]int{}
	for _, id := range ids {
		first[id[0]]++
	}
	for d, n := range first {
		if n > 1 {
			if _, err := g.ResolveCommit(string(d)); !errors.Is(err, ErrAmbiguous) {
				t.Errorf("%c (%d commits): %v, want ErrAmbiguous", d, n, err)
			}
			break
		}
	}
	for _, bad := range []string{"HEAD", "master", "0000000000000000000000000000000000000000"} {
		if _, err := g.ResolveCommit(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
