// cookbook-sync patch: quote removal in Literal.

package interp

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"mvdan.cc/sh/v3/syntax"
)

// TestLiteralQuoteRemoval: the unquoted backslash escapes of an
// assignment value, a case word and a [[ ]] operand are removed, as bash
// 5.2 removes them (the expected text is bash's output of the script):
// an assignment V=a\ b kept the backslash (upstream v3.14.1 has the bug).
func TestLiteralQuoteRemoval(t *testing.T) {
	src := `V='q'\''uote'; W=a\ b; X=\$HOME; echo "$V|$W|$X"
case a\ b in "a b") echo c1;; esac
[[ x\y == xy ]] && echo t1
v=~/y; echo "$v"
`
	want := "q'uote|a b|$HOME\nc1\nt1\n/home/runner/y\n"
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "l.sh")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	r, err := New(StdIO(nil, &buf, &buf), Env(expand.ListEnviron("HOME=/home/runner")))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	if got := buf.String(); got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
}
