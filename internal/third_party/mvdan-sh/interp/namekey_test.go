// cookbook-sync patch (issue 24): tests of the overlay's name keys.

package interp

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
)

// TestNameKeyOrder: for every pair of a set of names — shell names of one
// to twelve bytes sharing long prefixes, and names holding '=', a zero
// byte, bytes over 0x7f and the empty name — a pair whose nameKeys differ
// is ordered by them as nameCompare orders the names, and keyedCompare
// is nameCompare.
func TestNameKeyOrder(t *testing.T) {
	names := []string{"", "=", "\x00", "A", "A=", "A\x00", "A\x00B", "AB", "A_", "A9", "Z", "_", "a", "\xff", "é",
		"ABCDEFG", "ABCDEFGH", "ABCDEFGHI", "ABCDEFG\x00", "ABCDEFG=", "ABCDEF", "ABCDEF=", "ABCDEFGG", "SLURM_JOB", "SLURM_JOBID",
		"SLURM_JOB_ID", "SLURM_JO", "SLURM_J", "SLURM_", "SLURM", "SGLANG_X", "SGLANG_", "SGLANG"}
	rng := rand.New(rand.NewPCG(1, 2))
	const alpha = "AB_9="
	for range 400 {
		b := make([]byte, 1+rng.IntN(12))
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha))]
		}
		names = append(names, string(b))
	}
	sign := func(c int) int { return min(max(c, -1), 1) }
	for _, a := range names {
		for _, b := range names {
			want := sign(nameCompare(a, b))
			ka, kb := nameKey(a), nameKey(b)
			if ka != kb && (ka < kb) != (want < 0) {
				t.Fatalf("nameKey(%q)=%#x, nameKey(%q)=%#x, but nameCompare says %d", a, ka, b, kb, want)
			}
			if got := sign(keyedCompare(ka, kb, a, b)); got != want {
				t.Fatalf("keyedCompare(%q, %q) = %d, nameCompare %d", a, b, got, want)
			}
		}
	}
}

// TestOverlayFind: names put into an overlay in random order (past the
// linear scan's eight, with keys shared by many) are kept in nameCompare
// order with their keys, and find gives every name's index and every
// other name's insertion point, as a search of the sorted names does.
func TestOverlayFind(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var pool []string
	for _, p := range []string{"SLURM_JOB", "SLURM_JOBID", "X", "ABCDEFGH", "ABCDEFG"} {
		pool = append(pool, p)
		for i := range 20 {
			pool = append(pool, p+string(rune('A'+i)), p+"_"+string(rune('a'+i)))
		}
	}
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	o := childEnviron(nil, false)
	in, out := pool[:len(pool)/2], pool[len(pool)/2:]
	for _, n := range in {
		o.put(n, namedVariable{Name: n, Variable: expand.Variable{Set: true, Kind: expand.String, Str: n}})
	}
	if !slices.IsSortedFunc(o.names, nameCompare) || len(o.keys) != len(o.names) {
		t.Fatalf("names not sorted or keys not kept: %d names, %d keys", len(o.names), len(o.keys))
	}
	for i, n := range o.names {
		if o.keys[i] != nameKey(n) {
			t.Fatalf("keys[%d] = %#x, want nameKey(%q) = %#x", i, o.keys[i], n, nameKey(n))
		}
	}
	for _, n := range append(slices.Clone(in), out...) {
		wi, wok := slices.BinarySearchFunc(o.names, n, nameCompare)
		if i, ok := o.find(n); i != wi || ok != wok {
			t.Errorf("find(%q) = %d, %v; want %d, %v", n, i, ok, wi, wok)
		}
		if got := o.Get(n); got.Str != n && slices.Contains(in, n) {
			t.Errorf("Get(%q) = %q", n, got.Str)
		}
	}
}
