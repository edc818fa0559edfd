package runcache

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// ErrNotAddressable: a tree cannot be keyed by its content — it holds a
// link that leaves it, a special file, a file that cannot be read, or more
// than MaxTreeBytes. The caller then runs without the cache.
var ErrNotAddressable = errors.New("not content-addressable")

// MaxTreeBytes bounds the bytes TreeDigest reads (file contents; 2 GiB).
const MaxTreeBytes = 2 << 30

// TreeDigest is the SHA-256 of everything under dir a run can read: the
// path, kind and bytes of every file and the target of every symbolic link
// (sorted by path), and, for the directory's own .git (a git checkout),
// every file of it by content except objects, which are named by their
// content and taken by name (loose objects, packs, and the object
// directories objects/info/alternates names, as `git clone --shared`
// makes): fetching history, moving a ref or changing a remote changes the
// digest. dir is taken as given (its absolute path is the caller's part of
// a key). Errors: ErrNotAddressable (wrapped, naming the file) or the
// walk's own error.
func TreeDigest(dir string) ([32]byte, error) {
	t := &treeHash{h: sha256.New()}
	root, err := filepath.Abs(dir)
	if err != nil {
		return [32]byte{}, err
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		t.real = real
	} else {
		return [32]byte{}, err
	}
	if err := t.walk(root, "", true); err != nil {
		return [32]byte{}, err
	}
	var sum [32]byte
	copy(sum[:], t.h.Sum(nil))
	return sum, nil
}

type treeHash struct {
	h     hash.Hash
	real  string // the root with its links resolved
	bytes int64
	buf   []byte
}

func (t *treeHash) part(kind, rel string, extra string) {
	fmt.Fprintf(t.h, "%s %d:%s %d:%s\n", kind, len(rel), rel, len(extra), extra)
}

// walk hashes the directory abs (rel under the root; top: the root itself).
func (t *treeHash) walk(abs, rel string, top bool) error {
	ents, err := os.ReadDir(abs)
	if err != nil {
		return err
	}
	// os.ReadDir sorts by name
	for _, e := range ents {
		p, r := filepath.Join(abs, e.Name()), pathJoin(rel, e.Name())
		if top && e.Name() == ".git" {
			if err := t.gitDir(p, r, 0); err != nil {
				return err
			}
			continue
		}
		switch typ := e.Type(); {
		case typ.IsDir():
			t.part("d", r, "")
			if err := t.walk(p, r, false); err != nil {
				return err
			}
		case typ.IsRegular():
			if err := t.file(p, r); err != nil {
				return err
			}
		case typ&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			res, err := filepath.EvalSymlinks(p)
			if err != nil || !within(res, t.real) {
				return fmt.Errorf("%s: a link out of the tree (or broken): %w", p, ErrNotAddressable)
			}
			// what it points at is hashed where it is
			t.part("l", r, target)
		default:
			return fmt.Errorf("%s: a special file: %w", p, ErrNotAddressable)
		}
	}
	return nil
}

// file hashes one regular file's bytes.
func (t *treeHash) file(p, rel string) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("%s: %v: %w", p, err, ErrNotAddressable)
	}
	defer func() { _ = f.Close() }() // read only: a failed close loses nothing
	fh := sha256.New()
	if t.buf == nil {
		t.buf = make([]byte, 256<<10)
	}
	// struct{ io.Reader } hides *os.File's WriteTo, which would ignore
	// t.buf and allocate 32 KiB for each file.
	n, err := io.CopyBuffer(fh, struct{ io.Reader }{f}, t.buf)
	if err != nil {
		return fmt.Errorf("%s: %v: %w", p, err, ErrNotAddressable)
	}
	if t.bytes += n; t.bytes > MaxTreeBytes {
		return fmt.Errorf("more than %d bytes: %w", MaxTreeBytes, ErrNotAddressable)
	}
	t.part("f", rel, string(fh.Sum(nil)))
	return nil
}

// gitDir hashes a .git entry: a directory (every file by content, objects
// by name) or a file ("gitdir: PATH", a worktree or submodule: the file
// and the directory it names). depth bounds the links followed (worktree,
// commondir, alternates).
func (t *treeHash) gitDir(p, rel string, depth int) error {
	if depth > 4 {
		return fmt.Errorf("%s: git directories link too deep: %w", p, ErrNotAddressable)
	}
	st, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("%s: %v: %w", p, err, ErrNotAddressable)
	}
	if !st.IsDir() {
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("%s: %v: %w", p, err, ErrNotAddressable)
		}
		t.part("g", rel, string(data))
		target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
		if !ok {
			return nil
		}
		return t.gitDir(absFrom(filepath.Dir(p), strings.TrimSpace(target)), rel+"→", depth+1)
	}
	return filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %v: %w", q, err, ErrNotAddressable)
		}
		r, _ := filepath.Rel(p, q)
		r = rel + "/" + filepath.ToSlash(r)
		if d.IsDir() {
			t.part("gd", r, "")
			return nil
		}
		under := filepath.ToSlash(strings.TrimPrefix(q, p))
		if strings.HasPrefix(under, "/objects/") && under != "/objects/info/alternates" {
			// named by content (loose objects, packs and their indexes)
			t.part("go", r, "")
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(q)
			if err != nil {
				return err
			}
			t.part("gl", r, target)
			return nil
		}
		data, err := os.ReadFile(q)
		if err != nil {
			return fmt.Errorf("%s: %v: %w", q, err, ErrNotAddressable)
		}
		t.part("gf", r, string(data))
		switch under {
		case "/objects/info/alternates":
			for _, line := range strings.Split(string(data), "\n") {
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
					if err := t.gitObjects(absFrom(filepath.Join(p, "objects"), line), r+"→", depth+1); err != nil {
						return err
					}
				}
			}
		case "/commondir":
			if err := t.gitDir(absFrom(p, strings.TrimSpace(string(data))), r+"→", depth+1); err != nil {
				return err
			}
		}
		return nil
	})
}

// gitObjects hashes the names in an object directory another repository
// lends (alternates), and its own alternates.
func (t *treeHash) gitObjects(dir, rel string, depth int) error {
	if depth > 4 {
		return fmt.Errorf("%s: git alternates too deep: %w", dir, ErrNotAddressable)
	}
	var names []string
	err := filepath.WalkDir(dir, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %v: %w", q, err, ErrNotAddressable)
		}
		r, _ := filepath.Rel(dir, q)
		names = append(names, filepath.ToSlash(r))
		if filepath.ToSlash(r) == "info/alternates" {
			data, err := os.ReadFile(q)
			if err != nil {
				return fmt.Errorf("%s: %v: %w", q, err, ErrNotAddressable)
			}
			t.part("ga", rel+"/"+filepath.ToSlash(r), string(data))
			for _, line := range strings.Split(string(data), "\n") {
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
					if err := t.gitObjects(absFrom(dir, line), rel+"→", depth+1); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, n := range names {
		t.part("go", rel+"/"+n, "")
	}
	return nil
}

func absFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

func pathJoin(a, b string) string {
	if a == "" {
		return b
	}
	return a + "/" + b
}

// within reports whether p is dir or under it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// Digests is TreeDigest once per directory for a run over trees that do
// not change while it lasts (a coverage run digests the InferenceX and
// srt-slurm trees for its report's key and again for its renderings'):
// each directory, by its absolute path, is digested by the first caller
// and its answer, error included, given to every later one. The zero
// value is ready; safe for concurrent use; a nil *Digests digests every
// time.
type Digests struct {
	mu sync.Mutex
	m  map[string]*digestCall
}

// digestCall is one directory's TreeDigest, made once.
type digestCall struct {
	once sync.Once
	sum  [32]byte
	err  error
}

// TreeDigest is runcache.TreeDigest(dir), made once per absolute
// directory.
func (d *Digests) TreeDigest(dir string) ([32]byte, error) {
	if d == nil {
		return TreeDigest(dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return [32]byte{}, err
	}
	d.mu.Lock()
	if d.m == nil {
		d.m = map[string]*digestCall{}
	}
	c, ok := d.m[abs]
	if !ok {
		c = &digestCall{}
		d.m[abs] = c
	}
	d.mu.Unlock()
	c.once.Do(func() { c.sum, c.err = TreeDigest(dir) })
	return c.sum, c.err
}
