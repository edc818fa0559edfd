// cookbook-sync patch (see ../PATCHES.md): this file is not part of
// mvdan.cc/sh; it is under the same license as the package.

package interp

import (
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/internal"
	"mvdan.cc/sh/v3/pattern"
)

// TestStarMatcher: for every pattern over a, b, *, ., ?, [, ], \, (, |
// and a byte that is not UTF-8 up to four long, starMatcher takes exactly
// those of text and stars, and matches every name over a, b, ., *, a
// newline and that byte up to four long as the regular expression
// pattern.Regexp makes (ExtendedPatternMatcher) does.
func TestStarMatcher(t *testing.T) {
	words := func(alpha string, n int) []string {
		out := []string{""}
		prev := []string{""}
		for range n {
			var next []string
			for _, w := range prev {
				for i := 0; i < len(alpha); i++ {
					next = append(next, w+alpha[i:i+1])
				}
			}
			out = append(out, next...)
			prev = next
		}
		return out
	}
	names := words("ab.*\n\xff", 4)
	taken := 0
	for _, pat := range words("ab*.?[]\\(|\xff", 4) {
		fast, ok := starMatcher(pat)
		plain := true
		for i := 0; i < len(pat); i++ {
			switch pat[i] {
			case '?', '[', ']', '\\', '(', '|', 0xff:
				if pat[i] != ']' {
					plain = false
				}
			}
		}
		if ok != plain {
			t.Fatalf("pattern %q: taken %v, want %v", pat, ok, plain)
		}
		if !ok {
			continue
		}
		taken++
		slow, err := internal.ExtendedPatternMatcher(pat, pattern.EntireString|pattern.ExtendedOperators)
		if err != nil {
			t.Fatalf("pattern %q: %v", pat, err)
		}
		for _, name := range names {
			if got, want := fast(name), slow(name); got != want {
				t.Errorf("pattern %q, name %q: %v, the expression %v", pat, name, got, want)
			}
		}
	}
	if taken < 500 {
		t.Errorf("%d patterns taken, want every one of text and stars", taken)
	}
}
