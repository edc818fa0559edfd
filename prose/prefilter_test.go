package prose

import (
	"reflect"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// TestPrefiltersMatchRegexps: noCode and tpMatches answer as the regexps
// they guard, on fixed and random text.
func TestPrefiltersMatchRegexps(t *testing.T) {
	texts := []string{"", "TP=8", "tp 4", "Tp=2 or 4", "use `--tp 8` with TP 8", "tensor-parallel-size of 4", "TENSOR PARALLELISM SIZE = 2",
		"tenſor-parallel-size 4", "a `b` c `d", "\u212a tp 3", "TP≥4", "xtp 5", "tp\t7~8"}
	texts = append(texts, testutil.RandomTexts(9, testutil.Runes("tTpPeEnNsSoOrRaAlLiIzZ-= 0123`~/x×ſ"), 30000, 24)...)
	for _, s := range texts {
		if got, want := noCode(s), codeRe.ReplaceAllString(s, " "); got != want {
			t.Errorf("noCode(%q) = %q, want %q", s, got, want)
		}
		if got, want := tpMatches(s), tpRe.FindAllStringSubmatch(s, -1); !reflect.DeepEqual(got, want) {
			t.Errorf("tpMatches(%q) = %q, want %q", s, got, want)
		}
	}
}
