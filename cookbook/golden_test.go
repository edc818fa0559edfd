package cookbook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// TestGoldenAgentX checks every selection of every golden file under
// ../shared/golden/agentx byte for byte, and that Selections() yields
// exactly the golden's selections in the same order. Snippets are read from
// ../shared/corpus/sglang/docs/src/snippets/agentx/<file>.
func TestGoldenAgentX(t *testing.T) {
	goldenDir := testutil.SharedPath(t, "golden/agentx")
	snipDir := testutil.SharedPath(t, "corpus/sglang")
	var goldens []string
	err := filepath.WalkDir(goldenDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".golden.jsonl") {
			goldens = append(goldens, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(goldens) == 0 {
		t.Fatalf("no *.golden.jsonl under %s", goldenDir)
	}
	total, failed := 0, 0
	for _, g := range goldens {
		rel, _ := filepath.Rel(goldenDir, g)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			n, bad := checkGolden(t, g, snipDir)
			total += n
			failed += bad
		})
	}
	t.Logf("agentx golden: %d files, %d selections checked, %d failed", len(goldens), total, failed)
}

type goldenKey struct {
	File   string `json:"file"`
	Cell   int    `json:"cell"`
	Point  int    `json:"point"`
	Router string `json:"router"`
	KV     string `json:"kv"`
}

func checkGolden(t *testing.T, golden, snipDir string) (checked, failed int) {
	fh, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	files := map[string]*File{}
	var lines [][]byte
	var keys []goldenKey
	for sc.Scan() {
		line := bytes.Clone(sc.Bytes())
		var k goldenKey
		if err := json.Unmarshal(line, &k); err != nil {
			t.Fatalf("%s:%d: %v", golden, len(lines)+1, err)
		}
		lines = append(lines, line)
		keys = append(keys, k)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	shown := 0
	for i, k := range keys {
		f := files[k.File]
		if f == nil {
			f, err = ReadFile(filepath.Join(snipDir, "docs/src/snippets/agentx", filepath.FromSlash(k.File)))
			if err != nil {
				t.Fatalf("%s: %v", k.File, err)
			}
			files[k.File] = f
		}
		checked++
		d, err := f.Decode(Selection{Cell: k.Cell, Point: k.Point, Router: k.Router, KV: k.KV})
		if err != nil {
			failed++
			t.Errorf("%s:%d: decode: %v", golden, i+1, err)
			continue
		}
		got := d.OracleJSON()
		if !bytes.Equal(got, lines[i]) {
			failed++
			if shown < 5 {
				shown++
				t.Errorf("%s:%d (cell %d point %d %s %s) differs:\n%s", golden, i+1, k.Cell, k.Point, k.Router, k.KV, firstDiff(got, lines[i]))
			}
		}
	}
	// The selection set and order must equal the golden's.
	var want []Selection
	fileOf := ""
	for _, k := range keys {
		want = append(want, Selection{Cell: k.Cell, Point: k.Point, Router: k.Router, KV: k.KV})
		if fileOf == "" {
			fileOf = k.File
		} else if fileOf != k.File {
			t.Errorf("golden %s mixes data files %s and %s", golden, fileOf, k.File)
		}
	}
	if f := files[fileOf]; f != nil {
		got := f.Selections()
		if len(got) != len(want) {
			t.Errorf("%s: Selections() gives %d selections, golden has %d", fileOf, len(got), len(want))
		}
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Errorf("%s: selection %d = %+v, golden %+v", fileOf, i, got[i], want[i])
				break
			}
		}
	}
	t.Logf("%s: %d selections, %d failed", filepath.Base(golden), checked, failed)
	return checked, failed
}

// firstDiff shows the context around the first differing byte.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-200, 0)
	return "got:  ..." + string(got[lo:min(i+200, len(got))]) + "\nwant: ..." + string(want[lo:min(i+200, len(want))])
}
