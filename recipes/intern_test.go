package recipes

import (
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TestTokenInterner: equal token lists (every Text and Origin, in order)
// share one slice; a list that differs in any of them, or in length, gets
// its own; an append to a shared slice copies it (capacity = length), so
// the kept list never changes; a nil interner hands back what it is given.
func TestTokenInterner(t *testing.T) {
	o := launch.Origin{Kind: launch.OriginRecipe, Path: "m.yaml", Detail: "m.yaml:3:5"}
	mk := func(texts ...string) []Token {
		out := make([]Token, 0, len(texts)+4) // spare capacity, as a builder leaves it
		for _, s := range texts {
			out = append(out, Token{Text: s, Origin: o})
		}
		return out
	}
	ti := &tokenInterner{}
	a := ti.intern(mk("vllm", "serve", "m", "--tp", "8"))
	b := ti.intern(mk("vllm", "serve", "m", "--tp", "8"))
	if &a[0] != &b[0] {
		t.Error("equal lists were not shared")
	}
	if cap(a) != len(a) {
		t.Errorf("kept list has spare capacity %d > %d", cap(a), len(a))
	}
	c := mk("vllm", "serve", "m", "--tp", "8")
	c[4].Origin.Detail = "m.yaml:4:5"
	if c2 := ti.intern(c); &c2[0] == &a[0] {
		t.Error("lists with different origins were shared")
	}
	if d := ti.intern(mk("vllm", "serve", "m", "--tp")); &d[0] == &a[0] {
		t.Error("a shorter list was shared")
	}
	e := append(b, Token{Text: "--x"})
	e[0].Text = "changed"
	if a[0].Text != "vllm" || len(a) != 5 {
		t.Errorf("an append to a shared list changed the kept one: %v", a)
	}
	var nilTI *tokenInterner
	f := mk("x")
	if g := nilTI.intern(f); &g[0] != &f[0] {
		t.Error("a nil interner did not hand back its input")
	}
}
