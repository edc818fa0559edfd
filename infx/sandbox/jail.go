package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// jail is the sandbox's only way to the disk: every file a script reads,
// tests, lists or runs is opened through an os.Root of one read root (the
// checkout and its declared siblings, Config.ReadRoots), so no
// symbolic link resolves outside the root it lives in, whatever the
// script names; paths outside every root (/proc, /dev, /etc, /sys, the
// tool's own files) are never opened. Files are opened non-blocking and
// must be regular (a FIFO or device is refused after the open, by fstat,
// so one swapped in after a check cannot block).
type jail struct {
	roots []jailRoot
	// files, when set, keeps what the jail stats and reads (the trees are
	// fixed: Cache.FixTrees).
	files *fileCache
}

type jailRoot struct {
	dir  string // absolute, cleaned
	root *os.Root
}

// errJailEscape: a path resolves (through a symbolic link) outside the read
// root it is in. os.Root reports it as "path escapes from parent".
var errJailEscape = errors.New("a symbolic link resolves outside the checkout (refused: the sandbox reads only inside its read roots)")

// errNotRegular: a FIFO, device or socket, which a read would block on or
// never finish.
var errNotRegular = errors.New("not a regular file (a FIFO or device would block the run)")

// newJail opens the read roots (absolute paths); a root that cannot be
// opened is left out (nothing in it can be read).
func newJail(dirs []string) *jail {
	j := &jail{}
	for _, d := range dirs {
		d = filepath.Clean(d)
		r, err := os.OpenRoot(d)
		if err != nil {
			continue
		}
		j.roots = append(j.roots, jailRoot{dir: d, root: r})
	}
	return j
}

// close releases the roots.
func (j *jail) close() {
	if j == nil {
		return
	}
	for _, r := range j.roots {
		_ = r.root.Close() // opened read-only: nothing to flush
	}
	j.roots = nil
}

// find is the root whose directory holds p (the longest) and p relative
// to it; ok=false when p is in none.
func (j *jail) find(p string) (r jailRoot, rel string, ok bool) {
	if j == nil || !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
		return jailRoot{}, "", false
	}
	p = filepath.Clean(p)
	for _, c := range j.roots {
		if within(p, c.dir) && len(c.dir) >= len(r.dir) {
			r, ok = c, true
		}
	}
	if !ok {
		return jailRoot{}, "", false
	}
	rel, err := filepath.Rel(r.dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return jailRoot{}, "", false
	}
	return r, rel, true
}

// contains reports whether p is (lexically) inside a read root.
func (j *jail) contains(p string) bool {
	_, _, ok := j.find(p)
	return ok
}

// jailErr maps os.Root's errors: an escape becomes errJailEscape, keeping
// the path as the caller named it.
func jailErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "path escapes from parent") {
		return &os.PathError{Op: op, Path: name, Err: errJailEscape}
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return &os.PathError{Op: op, Path: name, Err: pe.Err}
	}
	return &os.PathError{Op: op, Path: name, Err: err}
}

// stat is os.Root's Stat (follow) or Lstat of p.
func (j *jail) stat(p string, follow bool) (fs.FileInfo, error) {
	r, rel, ok := j.find(p)
	if !ok {
		return nil, &os.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	key := fileStatKey{root: r.dir, path: p, follow: follow}
	if j.files != nil {
		if s, ok := j.files.stat(key); ok {
			return s.info, s.err
		}
	}
	var st fs.FileInfo
	var err error
	if follow {
		st, err = r.root.Stat(rel)
	} else {
		st, err = r.root.Lstat(rel)
	}
	var s fileStat
	if err != nil {
		s.err = jailErr("stat", p, err)
	} else {
		s.info = sandboxInfo{st}
	}
	if j.files != nil {
		j.files.putStat(key, s)
	}
	return s.info, s.err
}

// isFile reports whether p is a regular file inside a root.
func (j *jail) isFile(p string) bool {
	st, err := j.stat(p, true)
	return err == nil && st.Mode().IsRegular()
}

// isDir reports whether p is a directory inside a root.
func (j *jail) isDir(p string) bool {
	st, err := j.stat(p, true)
	return err == nil && st.IsDir()
}

// open opens the regular file p for reading (non-blocking; anything but a
// regular file is refused after the open).
func (j *jail) open(p string) (*os.File, error) {
	r, rel, ok := j.find(p)
	if !ok {
		return nil, &os.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	f, err := r.root.OpenFile(rel, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, jailErr("open", p, err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		_ = f.Close() // read-only, refused: the refusal is the error
		if err == nil {
			err = errNotRegular
		}
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	return f, nil
}

// readFile reads at most limit bytes of the regular file p. The bytes
// must not be changed in place: with a read cache (j.files) every reader
// of p gets the same slice.
func (j *jail) readFile(p string, limit int64) ([]byte, error) {
	if j.files == nil {
		return j.readDisk(p, limit)
	}
	r, _, ok := j.find(p)
	if !ok {
		return j.readDisk(p, limit)
	}
	key := fileReadKey{root: r.dir, path: p, limit: limit}
	if got, ok := j.files.read(key); ok {
		return got.data, got.err
	}
	data, err := j.readDisk(p, limit)
	j.files.putRead(key, fileRead{data: data, err: err})
	return data, err
}

// readDisk is readFile from the disk.
func (j *jail) readDisk(p string, limit int64) ([]byte, error) {
	f, err := j.open(p)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read-only
	// sized from the file's size once (io.ReadAll grows from 512 bytes,
	// allocating a script two or three times over); still read to its end
	// (a file that grows is read as it is), never past limit
	var b bytes.Buffer
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		b.Grow(int(min(st.Size(), limit)) + bytes.MinRead)
	}
	if _, err := b.ReadFrom(io.LimitReader(f, limit)); err != nil {
		return nil, &os.PathError{Op: "read", Path: p, Err: err}
	}
	if b.Len() == 0 {
		return []byte{}, nil // as io.ReadAll: empty, not nil
	}
	return b.Bytes(), nil
}

// readInput reads a whole input file (a script) inside a root, at most
// maxInputBytes; larger is an error. A git symbolic link checked out as a
// plain file (linkPlaceholder) is followed, as the link itself would be.
func (j *jail) readInput(p string) ([]byte, error) {
	for hops := 0; ; hops++ {
		data, err := j.readFile(p, maxInputBytes+1)
		if err != nil {
			return nil, err
		}
		if len(data) > maxInputBytes {
			return nil, &os.PathError{Op: "read", Path: p, Err: fmt.Errorf("larger than %d bytes", maxInputBytes)}
		}
		target, ok := j.linkPlaceholder(p, data)
		if !ok || hops >= maxLinkHops {
			return data, nil
		}
		p = target
	}
}

// maxLinkHops bounds a chain of link placeholders readInput follows.
const maxLinkHops = 8

// linkPlaceholder reports whether data, the content of the file p, is a
// git symbolic link checked out as a plain file, and returns the file it
// names. Git writes a link that way when links are not made
// (core.symlinks=false, or a copy of a checkout that dropped them): the file
// holds the link's target and nothing else — no newline. InferenceX's
// runners/launch_b200-dgxc-slurm.sh is such a link to launch_b200-dgxc.sh
// (mode 120000 at 843c6254). It is a placeholder only when the content is
// one relative path (no whitespace, no control character) naming, from p's
// directory, a regular file inside the same read roots; a real script
// never is one word naming a sibling file.
func (j *jail) linkPlaceholder(p string, data []byte) (string, bool) {
	if len(data) == 0 || len(data) > 4096 || data[0] == '#' {
		return "", false
	}
	for _, c := range data {
		if c <= ' ' || c == 0x7f {
			return "", false
		}
	}
	rel := string(data)
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return "", false
	}
	target := filepath.Join(filepath.Dir(p), filepath.FromSlash(rel))
	if target == filepath.Clean(p) || !j.contains(target) || !j.isFile(target) {
		return "", false
	}
	return target, true
}

// maxInputBytes bounds a script or sourced file the sandbox reads.
const maxInputBytes = 16 << 20

// readDir lists the directory p.
func (j *jail) readDir(p string) ([]fs.DirEntry, error) {
	r, rel, ok := j.find(p)
	if !ok {
		return nil, &os.PathError{Op: "readdir", Path: p, Err: fs.ErrNotExist}
	}
	f, err := r.root.Open(rel)
	if err != nil {
		return nil, jailErr("readdir", p, err)
	}
	defer func() { _ = f.Close() }() // read-only
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, jailErr("readdir", p, err)
	}
	return ents, nil
}

// walk walks the tree at p (fs.WalkDir through the root: links are not
// followed); fn gets absolute paths.
func (j *jail) walk(p string, fn fs.WalkDirFunc) error {
	r, rel, ok := j.find(p)
	if !ok {
		return fn(p, nil, &os.PathError{Op: "lstat", Path: p, Err: fs.ErrNotExist})
	}
	return fs.WalkDir(r.root.FS(), filepath.ToSlash(rel), func(q string, d fs.DirEntry, err error) error {
		return fn(filepath.Join(r.dir, filepath.FromSlash(q)), d, err)
	})
}

// sandboxInfo is a file's information as scripts see it: ownership is no
// one's (Sys gives a uid and gid no user has, so `-O`/`-G` are false
// rather than a question to this machine's user database) and times are
// fixed.
type sandboxInfo struct{ fs.FileInfo }

func (s sandboxInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (s sandboxInfo) Sys() any           { return noOwnerStat() }

// maxNesting bounds how deeply a script's text nests brackets ( { [ and
// compound commands before the parser sees it: the parser recurses once
// per level, and a million levels overflow its stack. Real scripts nest a
// handful of levels.
const maxNesting = 1000

// checkNesting refuses text nested deeper than maxNesting, counted on the
// raw text (outside quotes and comments): open brackets minus closing ones
// (never below zero: a case pattern's ")" closes nothing), and the keywords
// that open compound commands (if, case, while, until, for, select, do,
// then) minus those that close them. Heredoc bodies are skipped.
func checkNesting(name string, src []byte) error {
	depth, kw := 0, 0
	line, col := 1, 0
	var quote byte
	word := make([]byte, 0, 8)
	var heredocs []string // delimiters whose bodies start at the next line
	dashes := map[string]bool{}
	endWord := func() error {
		switch string(word) {
		case "if", "case", "while", "until", "for", "select":
			kw++
		case "fi", "esac", "done":
			if kw > 0 {
				kw--
			}
		}
		word = word[:0]
		if kw > maxNesting {
			return &PosError{File: name, Line: line, Col: col, Err: limitf(LimitNesting, "compound commands nested more than %d deep", maxNesting)}
		}
		return nil
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		col++
		if c == '\n' {
			line, col = line+1, 0
			if quote == 0 && len(heredocs) > 0 {
				// Skip the bodies, line by line, up to each delimiter.
				i++
				for _, d := range heredocs {
					for i < len(src) {
						end := bytes.IndexByte(src[i:], '\n')
						l := src[i:]
						if end >= 0 {
							l = src[i : i+end]
						}
						if dashes[d] {
							l = bytes.TrimLeft(l, "\t")
						}
						line++
						if end < 0 {
							i = len(src)
						} else {
							i += end + 1
						}
						if string(l) == d {
							break
						}
					}
				}
				heredocs = heredocs[:0]
				i--
				col = 0
				continue
			}
		}
		switch quote {
		case '\'':
			if c == '\'' {
				quote = 0
			}
			continue
		case '"':
			switch c {
			case '\\':
				i++
				col++
			case '"':
				quote = 0
			}
			continue
		}
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' {
			if len(word) < 8 {
				word = append(word, c)
			} else {
				word = append(word[:0], '-')
			}
			continue
		}
		if len(word) > 0 {
			if err := endWord(); err != nil {
				return err
			}
		}
		switch c {
		case '\\':
			i++
			col++
		case '\'', '"':
			quote = c
		case '<':
			if i+2 < len(src) && src[i+1] == '<' && src[i+2] != '<' && (i == 0 || src[i-1] != '<') {
				// A heredoc: its delimiter word (quotes removed).
				j := i + 2
				dash := false
				if j < len(src) && src[j] == '-' {
					dash = true
					j++
				}
				for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
					j++
				}
				var d []byte
				for j < len(src) && strings.IndexByte(" \t\n;&|<>()", src[j]) < 0 {
					if src[j] != '\'' && src[j] != '"' && src[j] != '\\' {
						d = append(d, src[j])
					}
					j++
				}
				if len(d) > 0 {
					heredocs = append(heredocs, string(d))
					dashes[string(d)] = dash
				}
				col += j - 1 - i
				i = j - 1
			}
		case '#':
			if i == 0 || strings.IndexByte(" \t\n;&|()", src[i-1]) >= 0 {
				for i+1 < len(src) && src[i+1] != '\n' {
					i++
				}
			}
		case '(', '{', '[':
			depth++
			if depth > maxNesting {
				return &PosError{File: name, Line: line, Col: col, Err: limitf(LimitNesting, "brackets nested more than %d deep", maxNesting)}
			}
		case ')', '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	if len(word) > 0 {
		return endWord()
	}
	return nil
}
