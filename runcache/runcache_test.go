package runcache

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func open(t *testing.T) *Dir {
	t.Helper()
	d, err := Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestGetPut(t *testing.T) {
	d := open(t)
	k := d.NewKey("test/1").Add("a").Sum()
	if _, ok := d.Get(k); ok {
		t.Fatal("a hit in an empty cache")
	}
	if err := d.Put(k, []byte("value\n")); err != nil {
		t.Fatal(err)
	}
	if v, ok := d.Get(k); !ok || string(v) != "value\n" {
		t.Fatalf("Get = %q %v", v, ok)
	}
	if v, sum, ok := d.GetSum(k); !ok || string(v) != "value\n" || sum != sha256.Sum256(v) {
		t.Fatalf("GetSum = %q %x %v, want the value and its SHA-256", v, sum, ok)
	}
	// the empty value is a value
	k0 := d.NewKey("test/1").Add("empty").Sum()
	if err := d.Put(k0, nil); err != nil {
		t.Fatal(err)
	}
	if v, ok := d.Get(k0); !ok || len(v) != 0 {
		t.Fatalf("empty value: %q %v", v, ok)
	}
}

// Parts are length-prefixed; the kind and the executable are in the key.
func TestKeyParts(t *testing.T) {
	d := open(t)
	if d.NewKey("k").Add("ab").Add("c").Sum() == d.NewKey("k").Add("a").Add("bc").Sum() {
		t.Error("ab|c and a|bc give one key")
	}
	if d.NewKey("k").Add("x").Sum() == d.NewKey("l").Add("x").Sum() {
		t.Error("the kind is not in the key")
	}
	other := &Dir{path: d.path, exe: "another build"}
	if d.NewKey("k").Add("x").Sum() == other.NewKey("k").Add("x").Sum() {
		t.Error("the executable is not in the key")
	}
	if d.NewKey("k").AddBytes([]byte("x")).Sum() != d.NewKey("k").Add("x").Sum() {
		t.Error("Add and AddBytes of the same part differ")
	}
	if _, ok := strings.CutPrefix(d.exe, "go-buildid:"); !ok && len(d.exe) != 64 {
		t.Errorf("executable name %q: neither a Go build ID nor a SHA-256", d.exe)
	}
}

// A truncated, altered or foreign entry is a miss, never trusted; Put
// replaces it.
func TestCorruptEntries(t *testing.T) {
	d := open(t)
	k := d.NewKey("test/1").Add("a").Sum()
	other := d.NewKey("test/1").Add("b").Sum()
	if err := d.Put(k, []byte("the value")); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(d.file(k))
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"empty":          {},
		"truncated":      good[:len(good)-1],
		"longer":         append(bytes.Clone(good), 'x'),
		"a byte changed": bytes.Replace(good, []byte("the value"), []byte("the valuE"), 1),
		"another magic":  bytes.Replace(good, []byte("v1"), []byte("v2"), 1),
	} {
		if err := os.WriteFile(d.file(k), bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if v, ok := d.Get(k); ok {
			t.Errorf("%s entry read as %q", name, v)
		}
		if v, _, ok := d.GetSum(k); ok {
			t.Errorf("%s entry read by GetSum as %q", name, v)
		}
		if err := d.Put(k, []byte("the value")); err != nil {
			t.Fatal(err)
		}
		if v, ok := d.Get(k); !ok || string(v) != "the value" {
			t.Errorf("%s entry not replaced: %q %v", name, v, ok)
		}
	}
	// another key's entry copied under this name
	if err := os.MkdirAll(filepath.Dir(d.file(other)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.file(other), good, 0o600); err != nil {
		t.Fatal(err)
	}
	if v, ok := d.Get(other); ok {
		t.Errorf("a foreign entry read as %q", v)
	}
}

// Concurrent writers and readers of one key: a reader sees nothing or the
// whole value, and no temporary file is left.
func TestConcurrentPut(t *testing.T) {
	d := open(t)
	k := d.NewKey("test/1").Add("a").Sum()
	val := bytes.Repeat([]byte("0123456789"), 100000)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if err := d.Put(k, val); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if v, ok := d.Get(k); ok && !bytes.Equal(v, val) {
				t.Error("a partial value was read")
			}
		})
	}
	wg.Wait()
	ents, err := os.ReadDir(filepath.Dir(d.file(k)))
	if err != nil || len(ents) != 1 {
		t.Errorf("entries %v (%v), want the one entry", ents, err)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func digest(t *testing.T, dir string) [32]byte {
	t.Helper()
	s, err := TreeDigest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Every change a run could see changes the digest; reading it again
// without a change does not.
func TestTreeDigest(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a/b.sh"), "echo 1\n")
	write(t, filepath.Join(dir, "c.yaml"), "x: 1\n")
	seen := map[[32]byte]string{}
	step := func(name string) {
		t.Helper()
		s := digest(t, dir)
		if s != digest(t, dir) {
			t.Fatalf("%s: two digests of one tree differ", name)
		}
		if prev, ok := seen[s]; ok {
			t.Errorf("%s: same digest as %s", name, prev)
		}
		seen[s] = name
	}
	step("start")
	write(t, filepath.Join(dir, "a/b.sh"), "echo 2\n")
	step("content")
	if err := os.Rename(filepath.Join(dir, "c.yaml"), filepath.Join(dir, "d.yaml")); err != nil {
		t.Fatal(err)
	}
	step("rename")
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	step("empty directory")
	if err := os.Symlink("a/b.sh", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	step("link inside")
	// times are not content
	if err := os.Chtimes(filepath.Join(dir, "d.yaml"), time.Unix(1, 0), time.Unix(1, 0)); err != nil {
		t.Fatal(err)
	}
	if _, ok := seen[digest(t, dir)]; !ok {
		t.Error("a new modification time changed the digest")
	}
	// a link out of the tree: its target can change unseen
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if _, err := TreeDigest(dir); !errors.Is(err, ErrNotAddressable) {
		t.Errorf("link out of the tree: %v, want ErrNotAddressable", err)
	}
}

// A git checkout's refs, remotes and objects are part of its digest: a
// new commit, a moved ref, a fetched object, a new remote URL; and so are
// the objects of the repository it borrows from (alternates).
func TestTreeDigestGit(t *testing.T) {
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	commit := func(file, content string) {
		t.Helper()
		write(t, filepath.Join(dir, file), content)
		if _, err := wt.Add(file); err != nil {
			t.Fatal(err)
		}
		sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
		if _, err := wt.Commit("c", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
			t.Fatal(err)
		}
	}
	commit("f.txt", "1\n")
	seen := map[[32]byte]string{}
	step := func(name string) {
		t.Helper()
		s := digest(t, dir)
		if prev, ok := seen[s]; ok {
			t.Errorf("%s: same digest as %s", name, prev)
		}
		seen[s] = name
	}
	step("first commit")
	// content back to what it was, but history moved on
	commit("f.txt", "2\n")
	write(t, filepath.Join(dir, "f.txt"), "1\n")
	step("second commit, same work tree bytes as the first")
	if _, err := r.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{"https://github.com/a/b"}}); err != nil {
		t.Fatal(err)
	}
	step("remote added")

	// a clone --shared: its objects live in dir's object directory
	shared := t.TempDir()
	write(t, filepath.Join(shared, ".git/HEAD"), "ref: refs/heads/master\n")
	write(t, filepath.Join(shared, ".git/objects/info/alternates"), filepath.Join(dir, ".git/objects")+"\n")
	before := digest(t, shared)
	// an object appears in the lender (a fetch there)
	write(t, filepath.Join(dir, ".git/objects/ab/cdef0123456789abcdef0123456789abcdef01"), "x")
	if digest(t, shared) == before {
		t.Error("an object fetched into the alternate object directory did not change the borrower's digest")
	}
}

// Trim removes entries unused for TrimAge and stale temporary files, once
// per TrimInterval; Get marks an entry used.
func TestTrim(t *testing.T) {
	d := open(t)
	now := time.Now()
	put := func(name string, age time.Duration) Key {
		t.Helper()
		k := d.NewKey("test/1").Add(name).Sum()
		if err := d.Put(k, []byte(name)); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(d.EntryPath(k), now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return k
	}
	exists := func(k Key) bool {
		_, err := os.Stat(d.EntryPath(k))
		return err == nil
	}
	old := put("old", TrimAge+time.Hour)
	used := put("used", TrimAge+time.Hour)
	fresh := put("fresh", time.Hour)
	if _, ok := d.Get(used); !ok {
		t.Fatal("no entry")
	}
	tmp := filepath.Join(filepath.Dir(d.EntryPath(fresh)), ".tmp-left")
	write(t, tmp, "partial")
	if err := os.Chtimes(tmp, now.Add(-2*MarkInterval), now.Add(-2*MarkInterval)); err != nil {
		t.Fatal(err)
	}
	if err := d.Trim(now); err != nil {
		t.Fatal(err)
	}
	if exists(old) || !exists(used) || !exists(fresh) {
		t.Errorf("after Trim: old %v used %v fresh %v, want only old removed", exists(old), exists(used), exists(fresh))
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Error("a stale temporary file was left")
	}
	// within TrimInterval nothing more is trimmed
	old2 := put("old2", TrimAge+time.Hour)
	if err := d.Trim(now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if !exists(old2) {
		t.Error("trimmed twice within TrimInterval")
	}
	if err := d.Trim(now.Add(TrimInterval + time.Hour)); err != nil {
		t.Fatal(err)
	}
	if exists(old2) {
		t.Error("not trimmed after TrimInterval")
	}
	if v, ok := d.Get(fresh); !ok || string(v) != "fresh" {
		t.Errorf("a used entry lost: %q %v", v, ok)
	}
}

// TestDigests: a Digests answers TreeDigest once per directory (as given
// or absolute: one directory) for concurrent callers, so an edit after
// the first answer is not seen — a run promises none; a nil Digests
// digests every time.
func TestDigests(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := TreeDigest(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := &Digests{}
	sums := make([][32]byte, 4)
	var wg sync.WaitGroup
	for i := range sums {
		wg.Go(func() { sums[i], _ = d.TreeDigest(dir) })
	}
	wg.Wait()
	for i, s := range sums {
		if s != want {
			t.Errorf("caller %d: %x, want %x", i, s, want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(".", dir)
	if err != nil {
		rel = dir
	}
	if s, _ := d.TreeDigest(rel); s != want {
		t.Error("the same directory, given otherwise, was digested again")
	}
	var none *Digests
	if s, _ := none.TreeDigest(dir); s == want {
		t.Error("a nil Digests did not digest the edited tree")
	}
}
