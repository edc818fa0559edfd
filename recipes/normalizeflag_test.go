package recipes

import (
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// normalizeFlagOracle is NormalizeFlag as first written: every long
// option tried for the abbreviation.
func normalizeFlagOracle(flag string) (canon, subPath, inline string) {
	if !strings.HasPrefix(flag, "-") {
		return flag, "", ""
	}
	base := flag
	if i := strings.Index(flag, "."); i > 0 {
		base, subPath = flag[:i], flag[i+1:]
	}
	if !strings.HasPrefix(base, "--") {
		if a := launch.CanonicalFlag("vllm", base); a != base {
			return a, subPath, ""
		}
		if strings.HasPrefix(base, "-O") && len(base) > 2 {
			return "--optimization-level", subPath, base[2:]
		}
		return base, subPath, ""
	}
	base = "--" + strings.ReplaceAll(base[2:], "_", "-")
	if vllmFlags[base] || strings.HasPrefix(base, "--no-") && vllmFlags["--"+strings.TrimPrefix(base, "--no-")] {
		return base, subPath, ""
	}
	var hit string
	for f := range vllmFlags {
		if strings.HasPrefix(f, base) {
			if hit != "" {
				return base, subPath, ""
			}
			hit = f
		}
	}
	if hit != "" {
		return hit, subPath, ""
	}
	return base, subPath, ""
}

// TestNormalizeFlagMatchesOracle: every long option, each of its
// prefixes, with "_" for "-" and a sub-path, and random words normalize
// as the scan over every option gives.
func TestNormalizeFlagMatchesOracle(t *testing.T) {
	words := []string{"", "-", "--", "---", "-O3", "-tp", "--tp", "--no-", "--no-enable", "x", "--max_model_len", "--max-model-len.x"}
	for _, f := range vllmFlagList {
		for n := 2; n <= len(f); n++ {
			words = append(words, f[:n], strings.ReplaceAll(f[:n], "-", "_")[0:1]+"-"+strings.ReplaceAll(f[:n], "-", "_")[2:], f[:n]+".a.b")
		}
	}
	words = append(words, testutil.RandomTexts(6, testutil.Bytes("-_.abcdemnorstx"), 20000, 10)...)
	for _, w := range words {
		c1, s1, i1 := NormalizeFlag(w)
		c2, s2, i2 := normalizeFlagOracle(w)
		if c1 != c2 || s1 != s2 || i1 != i2 {
			t.Fatalf("NormalizeFlag(%q) = %q %q %q, the scan gives %q %q %q", w, c1, s1, i1, c2, s2, i2)
		}
	}
	if len(vllmFlagList) < 100 {
		t.Fatalf("%d long options", len(vllmFlagList))
	}
}
