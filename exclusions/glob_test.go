package exclusions

import (
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// TestGlobMatcherMatchesRegexp: a compiled glob with a wildcard answers as
// its regexp (globRegexp) on fixed and random globs and names, newlines
// and invalid UTF-8 included.
func TestGlobMatcherMatchesRegexp(t *testing.T) {
	globs := []string{"*", "**", "--hicache-*", "*-port", "--*-port", "a*b*c", "*a*", "SGLANG_*_ACC*", "a*a", "aa*aa", "é*", "*\xff", "x?y*", "{a,b}*", "--*"}
	names := []string{"", "a", "aa", "aaa", "abc", "aXbYc", "acb", "--hicache-size", "--hicache", "--port", "-port", "x-port", "a\nb", "--x\n-port", "é", "éa", "\xff", "a\xffb", "xay", "aaaa"}
	alpha := testutil.Bytes("ab*-\n\xffé")
	globs = append(globs, testutil.RandomTexts(8, alpha, 1500, 7)...)
	names = append(names, testutil.RandomTexts(9, alpha, 400, 8)...)
	stars := 0
	for _, g := range globs {
		m, err := compileGlob(g)
		if err != nil || m.lit != nil {
			continue // (a literal glob is a set of names, as before)
		}
		re, _ := globRegexp(g)
		if m.segs != nil {
			stars++
		}
		for _, n := range names {
			if got, want := m.MatchString(n), re.MatchString(n); got != want {
				t.Errorf("glob %q on %q: %v, the regexp says %v", g, n, got, want)
			}
		}
	}
	if stars < 120 {
		t.Fatalf("only %d globs took the '*' path", stars)
	}
}
