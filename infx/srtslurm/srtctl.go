package srtslurm

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Which NVIDIA/srt-slurm release a fork's code is: the git tree id of its
// src/srtctl (the package srtctl runs from, NVIDIA/srt-slurm
// pyproject.toml) against the srtctl_tree of every entry of releases.yaml.
// A fork renders with a release's profile only when the two trees are the
// same tree, byte for byte; the files of each entry (srtctl-files.txt) name
// the files a fork changed.

//go:embed srtctl-files.txt
var srtctlFilesTxt []byte

// SrtctlFile is one file of an src/srtctl tree as git records it: Path
// relative to src/srtctl with '/' separators ("backends/sglang.py"), Mode
// the git mode ("100644", "100755" for a file whose owner may execute it,
// "120000" for a symbolic link), Blob the git blob id (40 lower-case hex
// digits: SHA-1 of "blob <size>\x00" and the content, a link's content
// being its target).
type SrtctlFile struct {
	Path string `json:"path"`
	Mode string `json:"mode"`
	Blob string `json:"blob"`
}

// GitTreeID returns the git tree id (40 lower-case hex digits) of the
// directory whose files, at any depth, are files: each directory a tree
// object of entries "<mode> <name>\x00<20-byte id>" sorted as git sorts
// them (by name, a directory's name compared as if it ended in '/'),
// directories with mode 40000, no empty directory. Errors: an empty or
// repeated path, a path that is also a directory, a mode or blob id git
// does not write.
func GitTreeID(files []SrtctlFile) (string, error) {
	type dir struct {
		files map[string]SrtctlFile
		dirs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]SrtctlFile{}, dirs: map[string]*dir{}} }
	root := newDir()
	for _, f := range files {
		switch f.Mode {
		case "100644", "100755", "120000":
		default:
			return "", fmt.Errorf("%s: mode %q is not a file mode git writes (100644, 100755, 120000)", f.Path, f.Mode)
		}
		if len(f.Blob) != 40 || strings.Trim(f.Blob, "0123456789abcdef") != "" {
			return "", fmt.Errorf("%s: blob id %q is not 40 lower-case hex digits", f.Path, f.Blob)
		}
		parts := strings.Split(f.Path, "/")
		d := root
		for i, p := range parts {
			if p == "" || p == "." || p == ".." {
				return "", fmt.Errorf("path %q: not a clean relative path", f.Path)
			}
			if i == len(parts)-1 {
				if _, ok := d.files[p]; ok {
					return "", fmt.Errorf("path %q given twice", f.Path)
				}
				if _, ok := d.dirs[p]; ok {
					return "", fmt.Errorf("path %q is a file and a directory", f.Path)
				}
				d.files[p] = f
				break
			}
			if _, ok := d.files[p]; ok {
				return "", fmt.Errorf("path %q is a file and a directory", strings.Join(parts[:i+1], "/"))
			}
			if d.dirs[p] == nil {
				d.dirs[p] = newDir()
			}
			d = d.dirs[p]
		}
	}
	var hash func(d *dir) []byte
	hash = func(d *dir) []byte {
		type entry struct {
			key, mode, name string
			id              []byte
		}
		var es []entry
		for name, f := range d.files {
			id, _ := hex.DecodeString(f.Blob)
			es = append(es, entry{name, f.Mode, name, id})
		}
		for name, sub := range d.dirs {
			es = append(es, entry{name + "/", "40000", name, hash(sub)})
		}
		sort.Slice(es, func(i, j int) bool { return es[i].key < es[j].key })
		var body bytes.Buffer
		for _, e := range es {
			body.WriteString(e.mode + " " + e.name + "\x00")
			body.Write(e.id)
		}
		return gitObjectID("tree", body.Bytes())
	}
	return hex.EncodeToString(hash(root)), nil
}

// gitObjectID is the SHA-1 git names an object of kind ("blob", "tree")
// with content data by.
func gitObjectID(kind string, data []byte) []byte {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", kind, len(data))
	h.Write(data)
	return h.Sum(nil)
}

// HashSrtctl reads checkout/src/srtctl from disk as `git add` would record
// it and returns its git tree id (GitTreeID) and its files, sorted by
// path. The checkout's .gitignore files (at its root, in src/ and in
// src/srtctl at any depth) and .git/info/exclude leave out what they
// ignore (__pycache__/, *.pyc, …); .git entries and empty directories are
// not recorded. Content is hashed as it is on disk (no clean filter, no
// line-ending conversion). Errors: no src/srtctl directory, a file or
// directory that cannot be read, an entry that is neither a regular file,
// a symbolic link nor a directory (a FIFO, a socket, a device).
func HashSrtctl(checkout string) (string, []SrtctlFile, error) {
	base := filepath.Join(checkout, "src", "srtctl")
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return "", nil, fmt.Errorf("%s: no src/srtctl directory (want an srt-slurm work tree)", checkout)
	}
	var ps []gitignore.Pattern
	readIgnore := func(file string, domain []string) error {
		data, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimRight(line, "\r")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			ps = append(ps, gitignore.ParsePattern(line, domain))
		}
		return nil
	}
	// lowest priority first: info/exclude, then the .gitignore files from
	// the root down (go-git's matcher lets the last match decide)
	for _, f := range []struct {
		file   string
		domain []string
	}{
		{filepath.Join(checkout, ".git", "info", "exclude"), nil},
		{filepath.Join(checkout, ".gitignore"), nil},
		{filepath.Join(checkout, "src", ".gitignore"), []string{"src"}},
	} {
		if err := readIgnore(f.file, f.domain); err != nil {
			return "", nil, err
		}
	}
	var files []SrtctlFile
	var walk func(dir string, comps []string) error
	walk = func(dir string, comps []string) error {
		if err := readIgnore(filepath.Join(dir, ".gitignore"), comps); err != nil {
			return err
		}
		m := gitignore.NewMatcher(ps)
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range ents {
			name := e.Name()
			if name == ".git" {
				continue
			}
			full := filepath.Join(dir, name)
			c := append(slices.Clone(comps), name)
			st, err := os.Lstat(full)
			if err != nil {
				return err
			}
			isDir := st.IsDir()
			if m.Match(c, isDir) {
				continue
			}
			rel := path.Join(c[2:]...)
			switch {
			case isDir:
				if err := walk(full, c); err != nil {
					return err
				}
			case st.Mode()&fs.ModeSymlink != 0:
				target, err := os.Readlink(full)
				if err != nil {
					return err
				}
				files = append(files, SrtctlFile{Path: rel, Mode: "120000", Blob: hex.EncodeToString(gitObjectID("blob", []byte(filepath.ToSlash(target))))})
			case st.Mode().IsRegular():
				data, err := os.ReadFile(full)
				if err != nil {
					return err
				}
				mode := "100644"
				if st.Mode().Perm()&0o100 != 0 {
					mode = "100755"
				}
				files = append(files, SrtctlFile{Path: rel, Mode: mode, Blob: hex.EncodeToString(gitObjectID("blob", data))})
			default:
				return fmt.Errorf("%s: not a file, link or directory (%s)", full, st.Mode().Type())
			}
		}
		return nil
	}
	if err := walk(base, []string{"src", "srtctl"}); err != nil {
		return "", nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	tree, err := GitTreeID(files)
	if err != nil {
		return "", nil, err
	}
	return tree, files, nil
}

// SrtctlMatch says how an src/srtctl tree relates to the NVIDIA/srt-slurm
// entries of releases.yaml (MatchSrtctl).
type SrtctlMatch struct {
	// Tree is the tree's git tree id.
	Tree string
	// Release is the entry (a release or branch ref, as ProfileFor names
	// it) whose src/srtctl is this very tree, "" when none is; Same lists
	// every entry with that tree, in table order (their profiles are equal:
	// the table check refuses anything else).
	Release string
	Same    []string
	// Closest is, when Release is "", the entry whose src/srtctl differs
	// in the fewest files (of a tie, the later in releases.yaml: releases
	// oldest first, then branches),
	// and Differs those files: changed, added or removed, paths relative
	// to src/srtctl, sorted.
	Closest string
	Differs []string
}

// MatchSrtctl compares an src/srtctl tree (its tree id and files, as
// HashSrtctl gives them) with every entry of releases.yaml. Errors: the
// embedded file list does not load (a bug in srtctl-files.txt).
func MatchSrtctl(tree string, files []SrtctlFile) (SrtctlMatch, error) {
	st, err := loadSrtctl()
	if err != nil {
		return SrtctlMatch{}, err
	}
	m := SrtctlMatch{Tree: tree}
	for _, e := range st.entries {
		if e.tree == tree {
			m.Same = append(m.Same, e.ref)
		}
	}
	if len(m.Same) > 0 {
		m.Release = m.Same[0]
		return m, nil
	}
	have := map[string]SrtctlFile{}
	for _, f := range files {
		have[f.Path] = f
	}
	best := -1
	for _, e := range st.entries {
		var d []string
		for p, f := range e.files {
			if g, ok := have[p]; !ok || g != f {
				d = append(d, p)
			}
		}
		for p := range have {
			if _, ok := e.files[p]; !ok {
				d = append(d, p)
			}
		}
		if best < 0 || len(d) <= best {
			best = len(d)
			sort.Strings(d)
			m.Closest, m.Differs = e.ref, d
		}
	}
	return m, nil
}

// srtctlEntry is one entry of releases.yaml with its src/srtctl files.
type srtctlEntry struct {
	ref   string
	tree  string
	files map[string]SrtctlFile // by path
}

// srtctlTable is srtctl-files.txt, parsed and checked.
type srtctlTable struct {
	entries []srtctlEntry // releases.yaml order: releases, then branches
}

// loadSrtctl parses srtctl-files.txt once and checks it against
// releases.yaml.
var loadSrtctl = sync.OnceValues(func() (*srtctlTable, error) {
	return parseSrtctlFiles("infx/srtslurm/srtctl-files.txt", srtctlFilesTxt, loadReleases())
})

// parseSrtctlFiles reads a file list (the format of srtctl-files.txt) for
// the release table t. Errors (name:line): a line of no known form, a
// block for a ref that is not the next entry of t, a removal of a file not
// there, an entry whose files do not hash to its srtctl_tree or that has
// no srtctl_tree, two entries with one tree and different profiles.
func parseSrtctlFiles(name string, data []byte, t *releaseTable) (*srtctlTable, error) {
	all := append(slices.Clone(t.releases), t.branches...)
	out := &srtctlTable{}
	cur := map[string]SrtctlFile{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	flush := func() error {
		if len(out.entries) == 0 {
			return nil
		}
		e := &out.entries[len(out.entries)-1]
		e.files = maps.Clone(cur)
		var fl []SrtctlFile
		for _, f := range e.files {
			fl = append(fl, f)
		}
		id, err := GitTreeID(fl)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", name, e.ref, err)
		}
		if id != e.tree {
			return fmt.Errorf("%s: %s: the files hash to tree %s, releases.yaml srtctl_tree is %s", name, e.ref, id, e.tree)
		}
		return nil
	}
	for sc.Scan() {
		line++
		s := sc.Text()
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if ref, ok := strings.CutPrefix(s, "@ "); ok {
			if err := flush(); err != nil {
				return nil, err
			}
			i := len(out.entries)
			if i >= len(all) || all[i].Ref != ref {
				return nil, fmt.Errorf("%s:%d: block %q is not the next entry of releases.yaml", name, line, ref)
			}
			if all[i].SrtctlTree == "" {
				return nil, fmt.Errorf("%s:%d: %s has no srtctl_tree in releases.yaml", name, line, ref)
			}
			out.entries = append(out.entries, srtctlEntry{ref: ref, tree: all[i].SrtctlTree})
			continue
		}
		if len(out.entries) == 0 {
			return nil, fmt.Errorf("%s:%d: a file before the first @ block", name, line)
		}
		if p, ok := strings.CutPrefix(s, "- "); ok {
			if _, there := cur[p]; !there {
				return nil, fmt.Errorf("%s:%d: %s removed but not there", name, line, p)
			}
			delete(cur, p)
			continue
		}
		f := strings.SplitN(s, " ", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want \"@ REF\", \"MODE BLOB PATH\" or \"- PATH\"", name, line)
		}
		cur[f[2]] = SrtctlFile{Mode: f[0], Blob: f[1], Path: f[2]}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(out.entries) != len(all) {
		return nil, fmt.Errorf("%s: %d blocks for the %d entries of releases.yaml", name, len(out.entries), len(all))
	}
	byTree := map[string]*release{}
	for i := range all {
		r := &all[i]
		if o := byTree[r.SrtctlTree]; o != nil {
			a, b := o.prof, r.prof
			a.name, b.name = "", ""
			if !reflect.DeepEqual(a, b) {
				return nil, fmt.Errorf("%s: %s and %s have the same src/srtctl tree and different profiles", name, o.Ref, r.Ref)
			}
			continue
		}
		byTree[r.SrtctlTree] = r
	}
	return out, nil
}
