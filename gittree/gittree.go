// Package gittree reads a commit of a git repository with go-git, without
// a git binary and without touching the work tree: the commit's metadata,
// its tree as a read-only io/fs file system, the paths two commits differ
// in, and a read-only copy of the tree on disk for the renderers that read
// files by path (package infx runs scripts in a sandbox that resolves real
// paths). It is the one definition of "InferenceX at a commit" for
// `cookbook-sync signoff` (base and head of a PR) and the nightly drift.
//
// Limits count work, never time: Materialize stops at MaxFiles files or
// MaxBytes bytes with an error naming the limit.
package gittree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Repo is a git repository opened read-only.
type Repo struct {
	r      *git.Repository
	root   string // the work-tree root ("" for a bare repository)
	gitDir string // the git directory ("" when not known)
}

// Commit is one commit: Hash the full id, Title the first line of its
// message, PR the pull-request number a squash-merge title ends with
// ("… (#2703)"; 0 when none), Parents the parent ids in order.
type Commit struct {
	Hash    string
	Title   string
	Message string
	Author  string
	When    time.Time
	Parents []string
	PR      int

	tree *object.Tree
}

// Short is the first 12 characters of the commit id.
func (c *Commit) Short() string {
	if len(c.Hash) > 12 {
		return c.Hash[:12]
	}
	return c.Hash
}

// ErrNotRepo is returned (wrapped) by Open when dir is in no git repository.
var ErrNotRepo = errors.New("not a git repository")

// Open opens the git repository holding dir (its work tree or a bare git
// directory; the .git of a parent directory is found). Errors wrap
// ErrNotRepo when there is none.
func Open(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// the directory itself first (a work tree's root, or a bare git
	// directory, which the search for a .git would walk past), then its
	// parents' .git (a directory inside a work tree)
	r, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		r, err = git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	}
	if err != nil {
		if errors.Is(err, git.ErrRepositoryNotExists) {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotRepo)
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	g := &Repo{r: r}
	if wt, err := r.Worktree(); err == nil {
		g.root = wt.Filesystem.Root()
	}
	if st, ok := r.Storer.(interface{ Filesystem() billy.Filesystem }); ok {
		g.gitDir = st.Filesystem().Root()
	}
	return g, nil
}

// BorrowsObjects reports whether the repository borrows objects from
// another one through objects/info/alternates (git clone --shared or
// --reference), which are not read here (go-git reads an alternate only
// inside the git directory; read from anywhere, its packs are opened per
// object: minutes for one commit): commits only those objects hold are not
// found.
func (g *Repo) BorrowsObjects() bool {
	if g.gitDir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(g.gitDir, "objects", "info", "alternates"))
	return err == nil
}

// Root is the work-tree root ("" for a bare repository).
func (g *Repo) Root() string { return g.root }

// prRe is the pull-request number GitHub's squash merge appends to a title.
var prRe = regexp.MustCompile(`\(#(\d+)\)\s*$`)

// Resolve reads the commit rev names: a full or abbreviated id, a branch,
// a tag, HEAD, or any expression go-git's ResolveRevision reads ("HEAD~1",
// "main^"). The error names rev.
func (g *Repo) Resolve(rev string) (*Commit, error) {
	h, err := g.r.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("revision %q: %w", rev, err)
	}
	c, err := g.r.CommitObject(*h)
	if err != nil {
		return nil, fmt.Errorf("revision %q: %w", rev, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("revision %q: tree: %w", rev, err)
	}
	out := &Commit{Hash: c.Hash.String(), Message: c.Message, Author: c.Author.Name, When: c.Committer.When.UTC(), tree: t}
	out.Title, _, _ = strings.Cut(strings.TrimSpace(c.Message), "\n")
	out.Title = strings.TrimSpace(out.Title)
	if m := prRe.FindStringSubmatch(out.Title); m != nil {
		out.PR, _ = strconv.Atoi(m[1])
	}
	for _, p := range c.ParentHashes {
		out.Parents = append(out.Parents, p.String())
	}
	return out, nil
}

// ErrAmbiguous is returned (wrapped) by ResolveCommit for an abbreviated
// commit id that more than one commit has.
var ErrAmbiguous = errors.New("ambiguous commit id")

// ResolveCommit reads the commit whose id is sha or starts with it
// (abbreviated, lower-case hex). Unlike Resolve it reads no ref, branch
// or revision expression, and an abbreviation two commits share is
// ErrAmbiguous (git's rule), never the first found. Errors name sha.
func (g *Repo) ResolveCommit(sha string) (*Commit, error) {
	if len(sha) == 40 {
		if _, err := g.r.CommitObject(plumbing.NewHash(sha)); err != nil {
			return nil, fmt.Errorf("commit %s: %w", sha, err)
		}
		return g.Resolve(sha)
	}
	var found []string
	iter, err := g.r.CommitObjects()
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", sha, err)
	}
	err = iter.ForEach(func(c *object.Commit) error {
		if h := c.Hash.String(); strings.HasPrefix(h, sha) && !slices.Contains(found, h) {
			found = append(found, h)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", sha, err)
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("commit %s: %w", sha, plumbing.ErrObjectNotFound)
	case 1:
		return g.Resolve(found[0])
	}
	sort.Strings(found)
	return nil, fmt.Errorf("%w: %s is the start of %s", ErrAmbiguous, sha, strings.Join(found, ", "))
}

// Shallow reports whether the repository is a shallow clone (its git
// directory has a shallow file): commits before its graft points are not
// in it.
func (g *Repo) Shallow() bool {
	if g.gitDir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(g.gitDir, "shallow"))
	return err == nil
}

// IsAncestor reports whether commit a is an ancestor of (or equal to) b.
func (g *Repo) IsAncestor(a, b string) (bool, error) {
	ca, err := g.r.CommitObject(plumbing.NewHash(a))
	if err != nil {
		return false, err
	}
	if a == b {
		return true, nil
	}
	cb, err := g.r.CommitObject(plumbing.NewHash(b))
	if err != nil {
		return false, err
	}
	return ca.IsAncestor(cb)
}

// Remote is the URL of remote name ("" when there is none).
func (g *Repo) Remote(name string) string {
	rm, err := g.r.Remote(name)
	if err != nil || len(rm.Config().URLs) == 0 {
		return ""
	}
	return rm.Config().URLs[0]
}

// DefaultBranch is the remote-tracking ref of remote's default branch
// (refs/remotes/<remote>/HEAD's target, else <remote>/main, else
// <remote>/master) and its commit; "" when the repository has none.
func (g *Repo) DefaultBranch(remote string) (ref, hash string) {
	if r, err := g.r.Reference(plumbing.NewRemoteHEADReferenceName(remote), true); err == nil {
		if sym, err := g.r.Reference(plumbing.NewRemoteHEADReferenceName(remote), false); err == nil && sym.Type() == plumbing.SymbolicReference {
			return sym.Target().Short(), r.Hash().String()
		}
		return remote + "/HEAD", r.Hash().String()
	}
	for _, b := range []string{"main", "master"} {
		if r, err := g.r.Reference(plumbing.NewRemoteReferenceName(remote, b), true); err == nil {
			return remote + "/" + b, r.Hash().String()
		}
	}
	return "", ""
}

// Changed lists the paths (slash-separated, sorted) whose content or mode
// differs between commits a and b, added and removed files included.
func (g *Repo) Changed(ctx context.Context, a, b *Commit) ([]string, error) {
	ch, err := object.DiffTreeWithOptions(ctx, a.tree, b.tree, &object.DiffTreeOptions{})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, c := range ch {
		for _, n := range []string{c.From.Name, c.To.Name} {
			if n != "" {
				seen[n] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// ReadFile reads the file at path p (slash-separated, relative to the
// repository root) at commit c; fs.ErrNotExist (wrapped) when absent.
func (c *Commit) ReadFile(p string) ([]byte, error) {
	return fs.ReadFile(c.FS(), p)
}

// FS is the commit's tree as a read-only file system (fs.FS, fs.ReadDirFS):
// names are slash-separated and relative to the repository root;
// symbolic links read as files holding their target; submodules as empty
// directories.
func (c *Commit) FS() fs.FS { return treeFS{c.tree, c.When} }

type treeFS struct {
	t    *object.Tree
	when time.Time
}

func (f treeFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if name == "." {
		return &treeDir{fs: f, name: ".", t: f.t}, nil
	}
	e, err := f.t.FindEntry(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	switch e.Mode {
	case filemode.Dir:
		sub, err := f.t.Tree(name)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &treeDir{fs: f, name: name, t: sub}, nil
	case filemode.Submodule:
		return &treeDir{fs: f, name: name}, nil
	}
	blob, err := f.t.File(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &treeFile{info: entryInfo{name: path.Base(name), mode: e.Mode, size: blob.Size, when: f.when}, rc: rd}, nil
}

func (f treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	d, err := f.Open(name)
	if err != nil {
		return nil, err
	}
	td, ok := d.(*treeDir)
	_ = d.Close() // a tree file's Close releases a blob reader; a directory's does nothing
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	return td.ReadDir(-1)
}

// entryInfo is the fs.FileInfo of a tree entry.
type entryInfo struct {
	name string
	mode filemode.FileMode
	size int64
	when time.Time
}

func (i entryInfo) Name() string { return i.name }
func (i entryInfo) Size() int64  { return i.size }
func (i entryInfo) Mode() fs.FileMode {
	switch i.mode {
	case filemode.Dir, filemode.Submodule:
		return fs.ModeDir | 0o555
	case filemode.Executable:
		return 0o555
	case filemode.Symlink:
		return fs.ModeSymlink | 0o444
	}
	return 0o444
}
func (i entryInfo) ModTime() time.Time { return i.when }
func (i entryInfo) IsDir() bool        { return i.mode == filemode.Dir || i.mode == filemode.Submodule }
func (i entryInfo) Sys() any           { return nil }

type treeFile struct {
	info entryInfo
	rc   io.ReadCloser
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *treeFile) Read(b []byte) (int, error) { return f.rc.Read(b) }
func (f *treeFile) Close() error               { return f.rc.Close() }

type treeDir struct {
	fs   treeFS
	name string
	t    *object.Tree // nil for a submodule
	pos  int
}

func (d *treeDir) Stat() (fs.FileInfo, error) {
	return entryInfo{name: path.Base(d.name), mode: filemode.Dir, when: d.fs.when}, nil
}
func (d *treeDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}
func (d *treeDir) Close() error { return nil }

// ReadDir lists the directory's entries in name order (fs.ReadDirFile).
func (d *treeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	var ents []object.TreeEntry
	if d.t != nil {
		ents = d.t.Entries
	}
	rest := ents[min(d.pos, len(ents)):]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 && len(rest) > n {
		rest = rest[:n]
	}
	d.pos += len(rest)
	out := make([]fs.DirEntry, 0, len(rest))
	for _, e := range rest {
		info := entryInfo{name: e.Name, mode: e.Mode, when: d.fs.when}
		if !info.IsDir() {
			p := e.Name
			if d.name != "." {
				p = d.name + "/" + e.Name
			}
			if f, err := d.fs.t.File(p); err == nil {
				info.size = f.Size
			}
		}
		out = append(out, fs.FileInfoToDirEntry(info))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// Limits bound Materialize: MaxFiles files and MaxBytes bytes in all
// (DefaultMaxFiles, DefaultMaxBytes when zero).
type Limits struct {
	MaxFiles int
	MaxBytes int64
}

// DefaultMaxFiles and DefaultMaxBytes bound a materialized tree: 50,000
// files and 512 MiB (InferenceX at 843c6254 holds 1,279 files, 16 MB).
const (
	DefaultMaxFiles       = 50_000
	DefaultMaxBytes int64 = 512 << 20
)

// ErrLimit is returned (wrapped, naming the limit) when a tree is larger
// than Limits allow.
var ErrLimit = errors.New("tree larger than the limit")

// Materialize writes the file system fsys (a Commit.FS) under dir, which
// must not exist yet or be empty: files read-only (0444, 0555 when
// executable), symbolic links as links when their target stays inside
// dir (others are skipped: a link out of the tree reads nothing of it).
// On error dir may hold part of the tree; the caller removes it.
func Materialize(ctx context.Context, fsys fs.FS, dir string, lim Limits) error {
	if lim.MaxFiles <= 0 {
		lim.MaxFiles = DefaultMaxFiles
	}
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultMaxBytes
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files, bytes := 0, int64(0)
	var dirs []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			if p != "." {
				dirs = append(dirs, dst)
			}
			return os.MkdirAll(dst, 0o755)
		}
		files++
		if files > lim.MaxFiles {
			return fmt.Errorf("%w: more than %d files", ErrLimit, lim.MaxFiles)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		bytes += int64(len(data))
		if bytes > lim.MaxBytes {
			return fmt.Errorf("%w: more than %d bytes", ErrLimit, lim.MaxBytes)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target := string(data)
			resolved := filepath.Join(filepath.Dir(dst), filepath.FromSlash(target))
			if filepath.IsAbs(target) || !within(resolved, dir) {
				return nil
			}
			return os.Symlink(target, dst)
		}
		mode := os.FileMode(0o444)
		if info, err := d.Info(); err == nil && info.Mode()&0o111 != 0 {
			mode = 0o555
		}
		return os.WriteFile(dst, data, mode)
	})
	if err != nil {
		return err
	}
	// directories read-only last (deepest first), so nothing is added
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i], 0o555); err != nil {
			return err
		}
	}
	return nil
}

// RemoveAll removes a tree Materialize wrote (its directories are
// read-only).
func RemoveAll(dir string) error {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
