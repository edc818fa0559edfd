package pages

import (
	"bufio"
	"context"
	"encoding/json"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"os"
	"slices"
	"testing"
)

// goldenPaths are the oracle file
// (../shared/golden/cookbook-pages/sglang-docs.golden.jsonl) and the sglang
// checkout it was made from (../shared/corpus/upstream/sglang-docs), as
// testutil.SharedPath gives them.
func goldenPaths(t testing.TB) (golden, root string) {
	t.Helper()
	return testutil.SharedPath(t, "golden/cookbook-pages/sglang-docs.golden.jsonl"), testutil.SharedPath(t, "corpus/upstream/sglang-docs")
}

// goldenRow is one line of the oracle.
type goldenRow struct {
	File      string          `json:"file"`
	Kind      string          `json:"kind"`
	Selection json.RawMessage `json:"selection"`
	Mode      string          `json:"mode"`
	Command   string          `json:"command"`
	Cell      int             `json:"cell"`
	Verified  string          `json:"verified"`
	Error     string          `json:"error"`
}

// rowKey identifies a (file, selection, mode) row; the selection as JSON in
// the oracle's key order.
func rowKey(file, sel, mode string) string { return file + "\x00" + sel + "\x00" + mode }

// TestGoldenCookbookPages decodes the whole checkout and compares with the
// oracle (../shared/tools/cookbook_pages_oracle.mjs under Node): for every
// (file, selection, mode) the same command byte for byte, the same cell
// and badge, and exactly the same selections per file.
func TestGoldenCookbookPages(t *testing.T) {
	golden, root := goldenPaths(t)
	f, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]goldenRow{}
	wantFiles := map[string]int{}
	var order []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r goldenRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Error != "" {
			t.Fatalf("golden has an error row: %s", sc.Bytes())
		}
		vals, keys, err := decodeOrdered(r.Selection)
		if err != nil {
			t.Fatal(err)
		}
		sj, err := Selection{Values: vals, Order: keys}.SelectionJSON()
		if err != nil {
			t.Fatal(err)
		}
		k := rowKey(r.File, string(sj), r.Mode)
		if _, dup := want[k]; dup {
			t.Fatalf("golden repeats %s", k)
		}
		want[k] = r
		order = append(order, k)
		wantFiles[r.File]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	set, err := Load(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for file, e := range set.Errors {
		t.Errorf("%s: %v", file, e)
	}
	if len(set.Files) != len(wantFiles) {
		t.Errorf("decoded %d snippet files, golden has %d", len(set.Files), len(wantFiles))
	}
	got := map[string]bool{}
	var matched, mismatched, extra int
	var exMismatch, exExtra []string
	for _, file := range set.Files {
		for _, s := range set.Selections[file] {
			sj, err := s.SelectionJSON()
			if err != nil {
				t.Fatal(err)
			}
			k := rowKey(file, string(sj), s.Mode)
			if got[k] {
				t.Errorf("%s: selection %s mode %q listed twice", file, sj, s.Mode)
				continue
			}
			got[k] = true
			w, ok := want[k]
			if !ok {
				extra++
				if len(exExtra) < 5 {
					exExtra = append(exExtra, file+" "+string(sj)+" "+s.Mode)
				}
				continue
			}
			if w.Command != s.Command || w.Kind != s.Kind || (s.Kind == "config" && (w.Cell != s.Cell || w.Verified != s.Verified)) {
				mismatched++
				if len(exMismatch) < 5 {
					exMismatch = append(exMismatch, file+" "+string(sj)+" "+s.Mode+"\n--- golden:\n"+w.Command+"\n--- ours:\n"+s.Command)
				}
				continue
			}
			matched++
		}
	}
	var missing int
	var exMissing []string
	for _, k := range order {
		if !got[k] {
			missing++
			if len(exMissing) < 5 {
				exMissing = append(exMissing, k)
			}
		}
	}
	t.Logf("golden rows %d: matched %d, mismatched %d, missing %d, extra %d; files %d (errors %d)",
		len(order), matched, mismatched, missing, extra, len(set.Files), len(set.Errors))
	if mismatched+missing+extra > 0 {
		t.Errorf("mismatched %d, missing %d, extra %d (of %d golden rows)", mismatched, missing, extra, len(order))
		for _, e := range slices.Concat(exMismatch) {
			t.Logf("mismatch: %s", e)
		}
		for _, e := range exMissing {
			t.Logf("missing: %q", e)
		}
		for _, e := range exExtra {
			t.Logf("extra: %s", e)
		}
	}
}
