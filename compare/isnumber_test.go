package compare

import (
	"regexp"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// TestIsNumberMatchesRegexp: isNumber answers as the regexp it replaces,
// on fixed and random words.
func TestIsNumberMatchesRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$`)
	words := []string{"", "0", "-", "+", ".", "-.", ".5", "5.", "5.e3", "1e", "1e+", "1e+5", "-1.5E-3", "+.5e5", "1.2.3", "١", "1 ", " 1", "1\n", "0x10", "inf", "NaN", "--5", "1e5e5", "007"}
	words = append(words, testutil.RandomTexts(1, testutil.Bytes("0123456789.+-eEx \n"), 50000, 9)...)
	for _, w := range words {
		if got, want := isNumber(w), re.MatchString(w); got != want {
			t.Errorf("isNumber(%q) = %v, the regexp says %v", w, got, want)
		}
	}
}

// TestHasPlaceholderMatchesRegexp: hasPlaceholder answers as placeholderRe
// alone on fixed and random texts.
func TestHasPlaceholderMatchesRegexp(t *testing.T) {
	texts := []string{"", "$", "${", "$X", "${X}", "{a}", "{A}", "<a>", "<A>", "http://$ETCD_IP:2379", "{head_ip}", "a<b c>", "$1"}
	texts = append(texts, testutil.RandomTexts(3, testutil.Bytes("${}<>aZ_1 .-:"), 50000, 8)...)
	for _, s := range texts {
		if got, want := hasPlaceholder(s), placeholderRe.MatchString(s); got != want {
			t.Errorf("hasPlaceholder(%q) = %v, the regexp says %v", s, got, want)
		}
	}
}
