package sandbox

import (
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// errTailByLines is errTail's rule stated plainly: each write split into
// lines, trimmed, empty and "+" (xtrace) lines left out, a line over 300
// bytes cut with "…", a line equal to the last kept one left out, the last
// four kept.
func errTailByLines(writes []string) []string {
	var kept []string
	for _, w := range writes {
		for _, l := range strings.Split(w, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "+") {
				if len(l) > 300 {
					l = l[:300] + "…"
				}
				if n := len(kept); n > 0 && kept[n-1] == l {
					continue
				}
				kept = append(kept, l)
				if len(kept) > 4 {
					kept = kept[1:]
				}
			}
		}
	}
	return kept
}

// TestErrTailKeepsLastLines: the lines errTail keeps (Trace.ExitMsg is the
// last) are those of errTailByLines, for fixed and random writes: lines
// split across writes, blank and xtrace lines, repeats, long lines cut
// (and a long line repeated, or a short one ending in "…"), more than four.
func TestErrTailKeepsLastLines(t *testing.T) {
	long := strings.Repeat("x", 310)
	cases := [][]string{
		{"a\nb\n", "c\n"},
		{"  one  \n\n+ set -x trace\n", "two\ntwo\n", "three"},
		{"1\n2\n3\n4\n5\n6\n"},
		{long + "\n", long + "\n", "tail"},
		{strings.Repeat("y", 300) + "…\n", long[:300] + "…\n", long + "\n"},
		{"x\r\n", "\tx\t\n", "x"},
		{"", "\n\n", "+only\n"},
	}
	pieces := []string{"a", "b", "\n", " ", "+", "…", long, "\t", "c\nc\n", "\n+x\n"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var ws []string
		for range 1 + r.IntN(6) {
			var b strings.Builder
			for range r.IntN(8) {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			ws = append(ws, b.String())
		}
		cases = append(cases, ws)
	}
	for _, ws := range cases {
		sb := &sandbox{}
		e := &errTail{w: io.Discard, sb: sb}
		for _, w := range ws {
			if n, err := e.Write([]byte(w)); err != nil || n != len(w) {
				t.Fatalf("Write(%q) = %d, %v", w, n, err)
			}
		}
		if want := errTailByLines(ws); !slices.Equal(sb.errLines, want) {
			t.Errorf("writes %q: kept %q, want %q", ws, sb.errLines, want)
		}
	}
}
