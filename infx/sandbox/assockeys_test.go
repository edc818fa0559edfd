package sandbox

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// quoteAssocKeysOracle is quoteAssocKeys as it was written first: the
// names found by an unanchored multi-line search, every line through the
// regexps.
func quoteAssocKeysOracle(src []byte) []byte {
	if !bytes.Contains(src, []byte("-A")) {
		return src
	}
	nameRE := regexp.MustCompile(`(?m)^\s*(?:declare|local|typeset)\s+-[a-zA-Z]*A[a-zA-Z]*\s+([A-Za-z_][A-Za-z0-9_]*)`)
	lines := bytes.SplitAfter(src, []byte("\n"))
	in := false
	var names []string
	for _, m := range nameRE.FindAllSubmatch(src, -1) {
		names = append(names, regexp.QuoteMeta(string(m[1])))
	}
	var useRE *regexp.Regexp
	if len(names) > 0 {
		useRE = regexp.MustCompile(`(\$\{!?(?:` + strings.Join(names, "|") + `)\[|(?:^|[\s;])(?:` + strings.Join(names, "|") + `)\[)([^\]"'\x60@*][^\]"'\x60]*)\]`)
	}
	for i, l := range lines {
		if useRE != nil && !in {
			lines[i] = useRE.ReplaceAll(l, []byte(`${1}"${2}"]`))
			l = lines[i]
		}
		if !in {
			if loc := assocDeclRE.FindIndex(l); loc != nil {
				rest := l[loc[1]:]
				if !bytes.Contains(rest, []byte(")")) {
					in = true
				}
			}
			continue
		}
		if t := bytes.TrimSpace(l); bytes.HasPrefix(t, []byte(")")) {
			in = false
			continue
		}
		lines[i] = assocKeyRE.ReplaceAll(l, []byte(`${1}["${2}"]=`))
	}
	return bytes.Join(lines, nil)
}

// assocMutations are src and one-edit variants of it, from a fixed seed.
func assocMutations(src []byte, n int, seed uint64) [][]byte {
	return testutil.Mutations(src, []string{"\n", " ", "\t", "(", ")", "[", "]", "=", "declare -A M=(", "local -gA N", "\n  [a:b]=1\n", "${M[x:y]}", "M[k]=v", "typeset -Ax T\n", "\n\n"}, n, seed)
}

func TestQuoteAssocKeysMatchesOracle(t *testing.T) {
	cases := []string{
		"",
		"declare -A M=(\n  [1024:4:false]=4\n  [2048:8:true]=8\n)\necho ${M[1024:4:false]}\n",
		"declare -A M=( [a:b]=1 )\nx=${M[a:b]}\nM[c:d]=2\n",
		"  \n\n  declare -A M\nM[a:b]=1\n",
		"local -gA CFG=(\n[x]=1\n)\n",
		"typeset -Ax T=(\n\t[k:1]=v\n)\necho \"${!T[k:1]}\"\n",
		"echo -A\n",
		"declare\n-A M=(\n[a:b]=1\n)\n",
		"f() { local -A seen; seen[a:b]=1; }\n",
		"declare -a L=( [0]=1 )\n",
		"x=1 declare -A M\n",
		"declare -A M=(\n[a]=1 )\n[b:c]=2\n",
		"declare -A A1 A2\nA1[x:y]=1\n",
	}
	for ci, c := range cases {
		for _, m := range assocMutations([]byte(c), 60, uint64(ci)) {
			if got, want := quoteAssocKeys(m), quoteAssocKeysOracle(m); !bytes.Equal(got, want) {
				t.Errorf("%q:\n got %q\nwant %q", m, got, want)
			}
		}
	}
}

func TestCorpusQuoteAssocKeysMatchesOracle(t *testing.T) {
	root := testutil.UpstreamInferenceX(t)
	n, changed := 0, 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sh") && !strings.HasSuffix(p, ".slurm") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		want := quoteAssocKeysOracle(src)
		if !bytes.Equal(want, src) {
			changed++
		}
		if got := quoteAssocKeys(src); !bytes.Equal(got, want) {
			t.Errorf("%s: quoteAssocKeys differs from the oracle", p)
		}
		if bytes.Contains(src, []byte("-A")) {
			for _, m := range assocMutations(src, 15, uint64(n))[1:] {
				if got, want := quoteAssocKeys(m), quoteAssocKeysOracle(m); !bytes.Equal(got, want) {
					t.Errorf("%s (mutated): quoteAssocKeys differs from the oracle", p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 || changed == 0 {
		t.Fatalf("%d scripts read, %d changed by the oracle: is the corpus there?", n, changed)
	}
	t.Logf("%d scripts, %d with associative keys quoted", n, changed)
}
