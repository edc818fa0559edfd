package syntaxwalk

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// visits is what a walk shows f: each node's type, position, end and, for
// a comment, its text; "nil" for f(nil). prune makes f return false for
// every prune-th node (0: never).
func visits(walk func(syntax.Node, func(syntax.Node) bool), root syntax.Node, prune int) []string {
	var out []string
	n := 0
	walk(root, func(node syntax.Node) bool {
		if node == nil {
			out = append(out, "nil")
			return true
		}
		n++
		s := fmt.Sprintf("%T %s-%s", node, node.Pos(), node.End())
		if c, ok := node.(*syntax.Comment); ok {
			s += " #" + c.Text
		}
		out = append(out, s)
		return prune == 0 || n%prune != 0
	})
	return out
}

// sameWalk fails t when Walk and upstream's syntax.Walk show f different
// visits of the tree of src (parsed as bash), whole or pruned.
func sameWalk(t *testing.T, name string, src []byte) {
	t.Helper()
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(string(src)), name)
	if err != nil {
		return // not a bash file upstream parses: nothing to walk
	}
	for _, prune := range []int{0, 2, 3, 7} {
		want := visits(syntax.Walk, f, prune)
		got := visits(Walk, f, prune)
		if !slices.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s (prune %d): %d visits against upstream's %d, first difference at %d: %q against %q",
				name, prune, len(got), len(want), i, at(got, i), at(want, i))
			return
		}
	}
}

func at(l []string, i int) string {
	if i < len(l) {
		return l[i]
	}
	return "(end)"
}

// TestWalkMatchesUpstream: Walk visits what upstream's syntax.Walk visits,
// in its order, with its f(nil) calls, pruned or not — trailing comments
// of statements, case items and array elements (the ones upstream walks
// in a deferred call) included.
func TestWalkMatchesUpstream(t *testing.T) {
	srcs := []string{
		"echo a # trailing\n# next\necho b\n",
		"f() { # open\n  x=1 # set\n  y=(1 # one\n  2 # two\n  ) # arr\n} # end\n",
		"case $x in\n  a) echo a ;; # item\n  # before b\n  b) echo b # in b\n  ;; # after b\nesac # case\n",
		"if true; then # then\n  : # colon\nelse # else\n  : ; fi # fi\nwhile read -r l; do echo \"$l\"; done < <(ls) # ps\n",
		"declare -A m=([a]=1 # first\n [b]=2 # second\n) # decl\n(( i++ )) # arith\n[[ -n $x && $y == z* ]] # test\n",
		"a=$(echo \"${x:-d}\" | tr a b) # subst\ntime { sleep 1; } # time\ncoproc c { cat; } # coproc\nlet 'x=1+2' # let\n",
		"",
		"# only a comment\n",
	}
	for i, s := range srcs {
		sameWalk(t, fmt.Sprintf("case%d.sh", i), []byte(s))
	}
}

// TestCorpusWalkMatchesUpstream: the same for every shell script of the
// complete InferenceX tree of ../shared.
func TestCorpusWalkMatchesUpstream(t *testing.T) {
	root := testutil.UpstreamInferenceX(t)
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sh") && !strings.HasSuffix(p, ".slurm") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		sameWalk(t, p, src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("walked %d scripts of %s, want the whole tree's", n, root)
	}
}
