package pages

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// importOracle is the unanchored multi-line search importPaths replaces.
var importOracle = regexp.MustCompile(`(?m)^import\s+\{[^}]*\}\s+from\s+["'](/src/snippets/[^"']+\.jsx)["']`)

func oracleImports(src []byte) []string {
	var out []string
	for _, m := range importOracle.FindAllSubmatch(src, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

func gotImports(src []byte) []string {
	var out []string
	for _, m := range importPaths(src) {
		out = append(out, string(m))
	}
	return out
}

// mutations are src and one-edit variants of it (a byte deleted, a
// newline, brace, quote or "import" put in), from a fixed seed.
func mutations(src []byte, n int, seed uint64) [][]byte {
	return testutil.Mutations(src, []string{"\n", "}", "{", "'", "\"", "import", "import {", "\nimport { A } from '/src/snippets/a.jsx'", " ", "from"}, n, seed)
}

func TestImportPathsMatchesMultilineSearch(t *testing.T) {
	cases := []string{
		"",
		"import { A } from '/src/snippets/a.jsx'",
		"import { A } from '/src/snippets/a.jsx'\nimport { B } from \"/src/snippets/b/c.jsx\"\n",
		"x import { A } from '/src/snippets/a.jsx'\n",
		" import { A } from '/src/snippets/a.jsx'\n",
		"import {\n  A,\n  B\n} from\n'/src/snippets/a.jsx'",
		"importimport { A } from '/src/snippets/a.jsx'",
		"import { A } from '/src/snippets/a.jsx'import { B } from '/src/snippets/b.jsx'",
		"import { A } from '/src/snippets/a.jsx'\nimport { A } from '/src/snippets/a.jsx'",
		"import { A } from '/src/snippets/a.js'\nimport { B } from '/src/snippets/b.jsx'",
		"import { A from '/src/snippets/a.jsx'\nimport { B } from '/src/snippets/b.jsx'",
		"\r\nimport { A } from '/src/snippets/a.jsx'",
		"import {} from '/src/snippets/x.jsx'\n\nimport { Y } from '../other.jsx'",
	}
	for _, c := range cases {
		for _, m := range mutations([]byte(c), 40, uint64(len(c))) {
			if got, want := gotImports(m), oracleImports(m); !slices.Equal(got, want) {
				t.Errorf("%q: importPaths %q, the multi-line search %q", m, got, want)
			}
		}
	}
}

func TestCorpusImportPathsMatchesMultilineSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: reads every .mdx page of ../shared/corpus/upstream/sglang-docs")
	}
	root := testutil.SharedPath(t, "corpus/upstream/sglang-docs")
	pages, found := 0, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".mdx") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pages++
		want := oracleImports(src)
		found += len(want)
		if got := gotImports(src); !slices.Equal(got, want) {
			t.Errorf("%s: importPaths %q, the multi-line search %q", p, got, want)
		}
		if bytes.Contains(src, []byte("import")) {
			for _, m := range mutations(src, 20, uint64(pages))[1:] {
				if got, want := gotImports(m), oracleImports(m); !slices.Equal(got, want) {
					t.Errorf("%s (mutated): importPaths %q, the multi-line search %q", p, got, want)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if pages < 50 || found < 50 {
		t.Fatalf("only %d pages with %d snippet imports read: is the corpus there?", pages, found)
	}
	t.Logf("%d pages, %d snippet imports", pages, found)
}
