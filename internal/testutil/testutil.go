// Package testutil holds the helpers several packages' tests share. It is
// imported by _test.go files only.
package testutil

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// ModuleRoot is the repository root (the directory holding go.mod), found
// from this file's place in the source tree.
func ModuleRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testutil: no caller")
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// LineDiff describes the first differing line of got and want ("line N:
// got …, want …"), or "no difference".
func LineDiff(got, want []byte) string {
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w []byte
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if !bytes.Equal(g, w) {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, g, w)
		}
	}
	return "no difference"
}

// RandomTexts is n texts for a test that checks code against an oracle on
// many inputs: each of 0 to maxLen-1 pieces drawn from pieces, from a PCG
// source seeded with seed (the same texts on every run). Bytes gives
// one-byte pieces (invalid UTF-8 kept), Runes one-rune pieces.
func RandomTexts(seed uint64, pieces []string, n, maxLen int) []string {
	r := rand.New(rand.NewPCG(seed, seed))
	out := make([]string, n)
	var b strings.Builder
	for i := range out {
		b.Reset()
		for range r.IntN(maxLen) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		out[i] = b.String()
	}
	return out
}

// Bytes is s's bytes, each a piece (RandomTexts).
func Bytes(s string) []string {
	out := make([]string, len(s))
	for i := range len(s) {
		out[i] = s[i : i+1]
	}
	return out
}

// Runes is s's runes, each a piece (RandomTexts).
func Runes(s string) []string {
	var out []string
	for _, r := range s {
		out = append(out, string(r))
	}
	return out
}

// Mutations is src and n one-edit variants of it (a byte deleted, or one of
// inserts put in before a byte), from a PCG source seeded with seed: the
// inputs a test checks a rewrite of a scanner against its oracle on.
func Mutations(src []byte, inserts []string, n int, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, seed))
	out := [][]byte{src}
	for range n {
		if len(src) == 0 {
			break
		}
		i := r.IntN(len(src))
		if r.IntN(2) == 0 {
			out = append(out, slices.Concat(src[:i], src[i+1:]))
		} else {
			out = append(out, slices.Concat(src[:i], []byte(inserts[r.IntN(len(inserts))]), src[i:]))
		}
	}
	return out
}
