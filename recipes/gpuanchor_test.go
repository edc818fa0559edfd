package recipes

import (
	"math/rand/v2"
	"regexp/syntax"
	"strings"
	"testing"
)

// TestGPUAnchorsCoverEveryWord: every literal word of gpuToken's
// alternation holds one of gpuAnchors (lower case), so mayHoldGPUWord
// never skips a text the regexp matches; and on random text built from
// the words and their pieces, HardwareWords answers as the regexp alone.
func TestGPUAnchorsCoverEveryWord(t *testing.T) {
	re, err := syntax.Parse(gpuToken.String(), syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	// the capture group's alternation
	var alts []*syntax.Regexp
	var find func(r *syntax.Regexp)
	find = func(r *syntax.Regexp) {
		if r.Op == syntax.OpCapture {
			alts = r.Sub
			if len(r.Sub) == 1 && r.Sub[0].Op == syntax.OpAlternate {
				alts = r.Sub[0].Sub
			}
			return
		}
		for _, s := range r.Sub {
			find(s)
		}
	}
	find(re)
	if len(alts) < 10 {
		t.Fatalf("%d alternatives found in %s", len(alts), gpuToken)
	}
	// the shortest strings of each alternative (every branch of a factored
	// alternation; classes and optional parts at their least; repeats at
	// their minimum, at least once)
	var shortest func(r *syntax.Regexp) []string
	shortest = func(r *syntax.Regexp) []string {
		switch r.Op {
		case syntax.OpLiteral:
			return []string{strings.ToLower(string(r.Rune))}
		case syntax.OpConcat:
			out := []string{""}
			for _, s := range r.Sub {
				var next []string
				for _, a := range out {
					for _, b := range shortest(s) {
						next = append(next, a+b)
					}
				}
				out = next
			}
			return out
		case syntax.OpCharClass:
			return []string{strings.ToLower(string(r.Rune[0]))}
		case syntax.OpRepeat, syntax.OpPlus:
			one := shortest(r.Sub[0])
			out := one
			for range max(r.Min, 1) - 1 {
				var next []string
				for _, a := range out {
					for _, b := range one {
						next = append(next, a+b)
					}
				}
				out = next
			}
			return out
		case syntax.OpAlternate:
			var out []string
			for _, s := range r.Sub {
				out = append(out, shortest(s)...)
			}
			return out
		case syntax.OpCapture:
			return shortest(r.Sub[0])
		}
		return []string{""} // ?, *, empty
	}
	var words []string
	for _, a := range alts {
		for _, w := range shortest(a) {
			words = append(words, w)
			ok := false
			for _, an := range gpuAnchors {
				if strings.Contains(w, an) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("the word %q (of %s) holds none of gpuAnchors", w, a)
			}
		}
	}
	if len(words) < 40 {
		t.Fatalf("%d words", len(words))
	}
	r := rand.New(rand.NewPCG(2, 9))
	pieces := append(words, " ", "8x", "8×", "/", "-", "NVL4", "Hopper", "ſ", "(FP8)", "TPU v6e", "gb", "20", "rtx 5", "a", "MI3xx")
	for range 20000 {
		var b strings.Builder
		for range r.IntN(5) {
			p := pieces[r.IntN(len(pieces))]
			if r.IntN(3) == 0 {
				p = strings.ToUpper(p)
			}
			if r.IntN(4) == 0 && len(p) > 1 {
				p = p[:len(p)-1]
			}
			b.WriteString(p)
		}
		text := b.String()
		want := gpuTokenWords(text)
		if got := HardwareWords(text); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("HardwareWords(%q) = %q, the regexp gives %q", text, got, want)
		}
	}
}
