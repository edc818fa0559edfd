// cookbook-sync patch: read -d.

package interp

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestReadDelim: read -d ends the line at the option's first character,
// at NUL for an empty value (the find -print0 loop), as bash 5.2 (the expected text
// is bash's output of the script): the status is 1 when the input ends
// before the delimiter.
func TestReadDelim(t *testing.T) {
	src := `printf "a\0b c\0" | while IFS= read -r -d "" f; do echo "[$f]"; done
IFS= read -r -d , x <<< "p,q"; echo "$x"
read -r -d "" y <<END
multi
line
END
echo "[$y] $?"
IFS= read -r -d x z <<< "abcxdef"; echo "$z"
`
	want := "[a]\n[b c]\np\n[multi\nline] 1\nabc\n"
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "d.sh")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	r, err := New(StdIO(nil, &buf, &buf))
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	if got := buf.String(); got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
}
