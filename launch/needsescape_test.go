package launch

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestNeedsEscapeEveryRune: needsEscape, with its ASCII fast path, answers
// as the Unicode tables do for every code point (and for a negative rune
// and one past the range).
func TestNeedsEscapeEveryRune(t *testing.T) {
	want := func(r rune) bool {
		if r == '\n' || r == '\t' {
			return false
		}
		return r == utf8.RuneError || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
	}
	for r := rune(-1); r <= unicode.MaxRune+1; r++ {
		if got := needsEscape(r); got != want(r) {
			t.Fatalf("needsEscape(%U) = %v, the tables say %v", r, got, want(r))
		}
	}
	for _, c := range []struct {
		r    rune
		want bool
	}{{'\n', false}, {'\t', false}, {'\r', true}, {0x1b, true}, {0x7f, true}, {'a', false}, {' ', false}, {0x85, true}, {0x200e, true}, {0x2028, true}} {
		if got := needsEscape(c.r); got != c.want {
			t.Errorf("needsEscape(%U) = %v, want %v", c.r, got, c.want)
		}
	}
}
