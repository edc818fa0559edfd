// cookbook-sync patch (issue 24): holes.

package expand

import (
	"encoding/binary"
	"unicode/utf8"
)

// HoleMark begins every hole: a string that stands for a value the run
// does not look at (infx/sandbox Config.Holes). A hole is HoleMark, a
// name and HoleEnd; nothing in a script's own text or in a value the
// sandbox makes holds HoleMark (U+E000, a private-use character), and
// where it does the string is taken as holding a hole, which only makes
// the run look at it (Config.Inspect) and give up its holes.
const (
	HoleMark = "\uE000"
	HoleEnd  = "\uE001"
)

// HasHole reports whether s may hold a hole or a part of one. Every rune
// of a hole begins with the byte 0xDF, 0xEE or 0xF3 (U+07C0–U+07FF,
// U+E000–U+EFFF, planes 12 to 15: infx/sandbox Hole), so a part of one
// — what a byte limit cut off: a command's input read up to a bound, the
// rest left in the pipe for the next reader — holds such a byte or is
// not UTF-8. A string whose own text has one (a private-use character)
// is taken as holding a hole: a look at it gives the run's holes up,
// which is never wrong. Text of other runes (an em dash in a comment)
// holds none.
func HasHole(s string) bool {
	i := firstNonASCII(s)
	if i == len(s) {
		return false // ASCII: the common case, eight bytes at a time
	}
	s = s[i:]
	for j := 0; j < len(s); j++ {
		if c := s[j]; c == 0xDF || c == 0xEE || c == 0xF3 {
			return true
		}
	}
	return !utf8.ValidString(s)
}

// firstNonASCII is the index of the first byte of s at or over 0x80,
// len(s) when there is none.
func firstNonASCII(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64([]byte(s[i:i+8]))&0x8080808080808080 != 0 { // one load, no copy
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return i
		}
	}
	return len(s)
}

// anyHole reports whether one of ss holds a hole.
func anyHole(ss []string) bool {
	for _, s := range ss {
		if HasHole(s) {
			return true
		}
	}
	return false
}

// inspect calls Config.Inspect with what when s holds a hole: the
// expansion is about to look at the content of s (its length, a pattern
// match, a number, a name, a split at a character that is not
// whitespace, a glob).
func (cfg *Config) inspect(what, s string) {
	if cfg.Inspect != nil && HasHole(s) {
		cfg.Inspect(what)
	}
}

// inspectAll is inspect for each of ss.
func (cfg *Config) inspectAll(what string, ss []string) {
	if cfg.Inspect != nil && anyHole(ss) {
		cfg.Inspect(what)
	}
}

// ifsOnlyWhitespace reports whether IFS holds only spaces, tabs and
// newlines: a split at them leaves a hole, which holds none, and the
// value it stands for, which holds none either (Config.Inspect), whole.
func (cfg *Config) ifsOnlyWhitespace() bool {
	for _, r := range cfg.ifs {
		if r != ' ' && r != '\t' && r != '\n' {
			return false
		}
	}
	return true
}
