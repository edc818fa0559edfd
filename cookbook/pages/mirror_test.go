package pages

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// mirrorSGLang names a bare mirror of the sglang repository (a fork that
// reaches 2026-08-07: github:Smallfu666/sglang) for TestMirror… here.
const mirrorSGLang = "SGLANG_MIRROR_GIT_DIR"

// historyLedger is what the pages' own code shows, per docs commit and
// config snippet, under Node (testdata/oracle/history.mjs).
const historyLedger = "testdata/oracle/sglang-docs-history.txt"

// historyLine is one line of historyLedger.
type historyLine struct {
	commit, date, file string
	rows               int    // -1: an error
	sum                string // or the error
}

func readHistory(t *testing.T) []historyLine {
	t.Helper()
	b, err := os.ReadFile(historyLedger)
	if err != nil {
		t.Fatal(err)
	}
	var out []historyLine
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		f := strings.SplitN(line, " ", 5)
		if len(f) != 5 {
			t.Fatalf("%s:%d: %q", historyLedger, i+1, line)
		}
		h := historyLine{commit: f[0], date: f[1], file: f[2], rows: -1, sum: f[4]}
		if f[3] != "error" {
			if h.rows, err = strconv.Atoi(f[3]); err != nil {
				t.Fatalf("%s:%d: %q", historyLedger, i+1, line)
			}
		}
		out = append(out, h)
	}
	return out
}

// extractDocs writes the docs dir of commit (src/snippets and cookbook;
// docs/, or docs_new/ before 2026-08-03) of gitDir under dir.
func extractDocs(gitDir, commit, dir string) error {
	var paths []string
	for _, p := range []string{"docs/src/snippets", "docs/cookbook", "docs_new/src/snippets", "docs_new/cookbook"} {
		if exec.Command("git", "--git-dir", gitDir, "cat-file", "-e", commit+":"+p).Run() == nil {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return errors.New("no docs*/src/snippets")
	}
	cmd := exec.Command("git", append([]string{"--git-dir", gitDir, "archive", commit}, paths...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git archive: %v: %s", err, stderr.Bytes())
	}
	tr := tar.NewReader(bytes.NewReader(out))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg || strings.Contains(h.Name, "..") {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
}

// TestMirrorCookbookPageEngines: every docs commit of the sglang history
// touching docs*/src/snippets/ from 2026-07-01 to 2026-08-07 (the mirror
// named by SGLANG_MIRROR_GIT_DIR; SGLANG_MIRROR_SINCE=YYYY-MM-DD widens the
// window, 2026-04-20 for the whole history) decodes, every config snippet,
// with the selections, cells, badges, modes and commands the pages' own
// code shows under Node (testdata/oracle/sglang-docs-history.txt, made by
// testdata/oracle/history.mjs): the engine versions of June (five fixed
// dims), of 07-27 (overlay rows) and of August, under docs_new/ and docs/.
func TestMirrorCookbookPageEngines(t *testing.T) {
	gitDir := testutil.MirrorGitDir(t, mirrorSGLang)
	since, until := "2026-07-01", "2026-08-07"
	if s := os.Getenv("SGLANG_MIRROR_SINCE"); s != "" {
		since = s
	}
	want := map[string]map[string]historyLine{} // commit → file → line
	dates := map[string]string{}
	for _, h := range readHistory(t) {
		if want[h.commit] == nil {
			want[h.commit] = map[string]historyLine{}
		}
		want[h.commit][h.file] = h
		dates[h.commit] = h.date
	}
	// the commits of the window, as git lists them
	out, err := exec.Command("git", "--git-dir", gitDir, "log", "--format=%H %ad", "--date=short", "--", "docs*/src/snippets/*").Output()
	if err != nil {
		t.Fatal(err)
	}
	var commits []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		c, d, _ := strings.Cut(sc.Text(), " ")
		if d >= since && d <= until {
			commits = append(commits, c)
		}
	}
	if len(commits) == 0 {
		t.Fatalf("no docs commit from %s to %s in %s", since, until, gitDir)
	}
	cache := &Cache{}
	pagesDecoded, rowsDecoded, withConfigs := 0, 0, 0
	for _, c := range commits {
		w := want[c] // none for a commit without config snippets
		dir := t.TempDir()
		if err := extractDocs(gitDir, c, dir); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		set, err := Load(context.Background(), dir, Options{Cache: cache, Files: func(fi FileInfo) bool { return snippetKind(fi.Rel) == "config" }})
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		got := map[string]bool{}
		if len(w) > 0 {
			withConfigs++
		}
		for _, f := range append(set.Files, set.NotRun...) {
			if snippetKind(f) != "config" {
				continue
			}
			got[f] = true
			h, ok := w[f]
			switch {
			case !ok:
				t.Errorf("%s: %s decoded, not in %s (rerun history.mjs)", c[:9], f, historyLedger)
			case set.Errors[f] != nil:
				t.Errorf("%s %s: %s: %v (Node: %d rows %s)", c[:9], dates[c], f, set.Errors[f], h.rows, h.sum)
			default:
				sum := sha256.New()
				for _, s := range set.Selections[f] {
					j, err := s.GoldenJSON()
					if err != nil {
						t.Fatal(err)
					}
					sum.Write(j)
					sum.Write([]byte{'\n'})
				}
				n := len(set.Selections[f])
				if h.rows != n || fmt.Sprintf("%x", sum.Sum(nil)) != h.sum {
					t.Errorf("%s %s: %s: %d rows %x, Node: %d rows %s", c[:9], dates[c], f, n, sum.Sum(nil), h.rows, h.sum)
				}
				pagesDecoded++
				rowsDecoded += n
			}
		}
		for f := range w {
			if !got[f] {
				t.Errorf("%s %s: %s is in the ledger, not decoded", c[:9], dates[c], f)
			}
		}
	}
	t.Logf("%d docs commits from %s to %s (%d with config snippets): %d (commit, config) pairs decoded as the pages show them (%d rows)",
		len(commits), since, until, withConfigs, pagesDecoded, rowsDecoded)
}
