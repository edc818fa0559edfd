// cookbook-sync patch: empty arrays, associative counts, numeric tests.

package interp

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
)

// TestEmptyArraysAndNumericTests: an array that read -a, mapfile or
// declare -A left empty expands to no field in "${a[@]}" (it gave one
// empty field), ${#m[@]} counts an associative array's values (it gave
// 1), [[ a -eq b ]] reads its operands as arithmetic expressions (0x10,
// 010, 2+3, a name), test and [ take decimal integers only, shift past
// the parameters fails and shifts none, a shift count is taken modulo
// 64 — each as
// bash 5.2 prints it (the expected text is bash's output of the script).
func TestEmptyArraysAndNumericTests(t *testing.T) {
	src := `read -ra A <<< ""; echo x "${A[@]}" y ${#A[@]}
IFS=, read -ra B <<< ""; echo x "${B[@]}" y
declare -A M; echo x "${M[@]}" y ${#M[@]} "${!M[@]}"
declare -A N=([b]=2 [a]=1); echo ${#N[@]} ${#N[*]}
[[ 0x10 -gt 7 ]] && echo y1
[[ 010 -eq 8 ]] && echo y2
[[ 2+3 -eq 5 ]] && echo y3
x=4; [[ x -eq 4 ]] && echo y4
[[ "" -eq 0 ]] && echo y5
[ 0x10 -eq 16 ] 2>/dev/null || echo n6
[ " 5 " -eq 5 ] && echo y7
[ "" -eq 0 ] 2>/dev/null || echo n8
[ +5 -eq 5 ] && echo y9
set -- a b; shift 3; echo "s$? $#"; shift 2; echo "s$? $#"
echo $(( 1 << 64 )) $(( 1 << -8 )) $(( -16 >> 66 )) $(( 8 >> -60 )); v=1; (( v <<= 65 )); echo $v
`
	want := "x y 0\nx y\nx y 0\n2 2\ny1\ny2\ny3\ny4\ny5\nn6\ny7\nn8\ny9\ns1 2\ns0 0\n1 72057594037927936 -4 0\n2\n"
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "a.sh")
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

// TestPlainDecimal: the decimal operands testArithm reads without a
// parser have the value the parser and expand.Arithm give them; every
// other text (a sign, a blank, a base prefix, an octal zero, a name, a
// number past 18 digits) is left to the parser.
func TestPlainDecimal(t *testing.T) {
	for _, s := range []string{"0", "7", "16", "1024", "999999999999999999"} {
		got, ok := plainDecimal(s)
		expr, err := syntax.NewParser().Arithmetic(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		want, err := expand.Arithm(&expand.Config{}, expr)
		if !ok || err != nil || got != int64(want) {
			t.Errorf("plainDecimal(%q) = %d, %v; the parser gives %d, %v", s, got, ok, want, err)
		}
	}
	for _, s := range []string{"", "010", "00", "+5", "-5", " 5", "5 ", "0x10", "2+3", "x", "1000000000000000000", "1e3", "\uE000"} {
		if n, ok := plainDecimal(s); ok {
			t.Errorf("plainDecimal(%q) = %d, want it left to the parser", s, n)
		}
	}
}
