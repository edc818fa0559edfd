package srtslurm

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// writeTree writes files (path → content; a value "-> T" is a symbolic
// link to T, a path ending in '/' an empty directory) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(c, "-> "); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(c), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHashSrtctl: the tree id git gives the same files (`git add -A; git
// rev-parse $(git write-tree):src/srtctl` on this tree, git 2.43: 9c68b5b3),
// with an executable file, a link, an empty directory, what .gitignore
// ignores (a __pycache__/ directory, *.pyc) and a name ("backends.txt")
// that git sorts before the directory "backends".
func TestHashSrtctl(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".gitignore":                    "__pycache__/\n*.pyc\n",
		"src/srtctl/__init__.py":        "print(1)\n",
		"src/srtctl/backends/sglang.py": "x = 1\n",
		"src/srtctl/run.sh":             "#!/bin/sh\necho hi\n",
		"src/srtctl/link.py":            "-> backends/sglang.py",
		"src/srtctl/__pycache__/a.pyc":  "junk",
		"src/srtctl/backends/b.pyc":     "y",
		"src/srtctl/backends.txt":       "z\n",
		"src/srtctl/empty/":             "",
	})
	tree, files, err := HashSrtctl(dir)
	if err != nil {
		t.Fatal(err)
	}
	if tree != "9c68b5b356714617a916ace62308b554e67af2f0" {
		t.Errorf("tree %s, want 9c68b5b3 (git)", tree)
	}
	want := []SrtctlFile{
		{"__init__.py", "100644", "b917a726c93f902e43291d9009d6488385133b67"},
		{"backends.txt", "100644", "b68025345d5301abad4d9ec9166f455243a0d746"},
		{"backends/sglang.py", "100644", "7d4290a117a4ddcc11daae7ea675841033830c8f"},
		{"link.py", "120000", "534d63450091dd0b2d762bc2f5a0d3b04e4e6fb3"},
		{"run.sh", "100755", "4163036efa65bd4a469e752267498f01ea36a55c"},
	}
	if !slices.Equal(files, want) {
		t.Errorf("files\n%v\nwant\n%v", files, want)
	}
	// not a work tree
	if _, _, err := HashSrtctl(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no src/srtctl directory") {
		t.Errorf("empty dir: %v", err)
	}
}

// TestGitTreeIDErrors: what GitTreeID refuses.
func TestGitTreeIDErrors(t *testing.T) {
	const b = "b917a726c93f902e43291d9009d6488385133b67"
	for _, c := range []struct {
		files []SrtctlFile
		want  string
	}{
		{[]SrtctlFile{{"a", "100600", b}}, "not a file mode"},
		{[]SrtctlFile{{"a", "100644", "xyz"}}, "not 40 lower-case hex"},
		{[]SrtctlFile{{"a", "100644", b}, {"a", "100755", b}}, "given twice"},
		{[]SrtctlFile{{"a", "100644", b}, {"a/b", "100644", b}}, "a file and a directory"},
		{[]SrtctlFile{{"a/../b", "100644", b}}, "not a clean relative path"},
	} {
		if _, err := GitTreeID(c.files); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.files, err, c.want)
		}
	}
}

// TestSrtctlFilesTable: srtctl-files.txt has one block per entry of
// releases.yaml, and each block's files hash to the entry's srtctl_tree
// (loadSrtctl checks it); a tree matches its entry, a one-file change
// names that file against the closest entry.
func TestSrtctlFilesTable(t *testing.T) {
	st, err := loadSrtctl()
	if err != nil {
		t.Fatal(err)
	}
	rt := loadReleases()
	if len(st.entries) != len(rt.releases)+len(rt.branches) {
		t.Fatalf("%d blocks, %d entries", len(st.entries), len(rt.releases)+len(rt.branches))
	}
	for _, e := range st.entries {
		var fl []SrtctlFile
		for _, f := range e.files {
			fl = append(fl, f)
		}
		m, err := MatchSrtctl(e.tree, fl)
		if err != nil || !slices.Contains(m.Same, e.ref) {
			t.Errorf("%s: %+v %v", e.ref, m, err)
		}
	}
	newest := st.entries[len(rt.releases)-1]
	var fl []SrtctlFile
	for _, f := range newest.files {
		if f.Path == "backends/sglang.py" {
			f.Blob = "0000000000000000000000000000000000000000"
		}
		fl = append(fl, f)
	}
	fl = append(fl, SrtctlFile{"extra.py", "100644", "b917a726c93f902e43291d9009d6488385133b67"})
	tree, err := GitTreeID(fl)
	if err != nil {
		t.Fatal(err)
	}
	m, err := MatchSrtctl(tree, fl)
	if err != nil || m.Release != "" || m.Closest != newest.ref || !slices.Equal(m.Differs, []string{"backends/sglang.py", "extra.py"}) {
		t.Errorf("changed: %+v %v", m, err)
	}
}

// TestSrtctlFilesErrors: what parseSrtctlFiles refuses.
func TestSrtctlFilesErrors(t *testing.T) {
	rt := loadReleases()
	first := rt.releases[0].Ref
	for doc, want := range map[string]string{
		"100644 b917a726c93f902e43291d9009d6488385133b67 a\n": "before the first @ block",
		"@ nope\n":               "not the next entry",
		"@ " + first + "\n- a\n": "removed but not there",
		"@ " + first + "\nfoo\n": "want \"@ REF\"",
		"@ " + first + "\n100644 b917a726c93f902e43291d9009d6488385133b67 a\n": "the files hash to tree",
	} {
		if _, err := parseSrtctlFiles("t", []byte(doc), rt); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q → %v, want %q", doc, err, want)
		}
	}
}

// TestCorpusHashSrtctl: the NVIDIA/srt-slurm checkout of ../shared
// (c88ef731, v1.0.68) hashes to v1.0.68's srtctl_tree.
func TestCorpusHashSrtctl(t *testing.T) {
	dir := testutil.SharedPath(t, "corpus/upstream/srt-slurm")
	tree, files, err := HashSrtctl(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := MatchSrtctl(tree, files)
	if err != nil || m.Release != "v1.0.68" {
		t.Errorf("%s: %+v %v", dir, m, err)
	}
}
