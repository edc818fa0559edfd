package launch

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// QuotePath gives a file name as it may be printed: unchanged when every
// character is printable (unicode.IsPrint, or a space), else Go-quoted
// (strconv.Quote: "evil\x1b[31m.yaml") so that a name written by a stranger
// (an InferenceX fork's checkout) cannot send escape sequences to the
// terminal or fake a line of output. It is our own rule (issue 10, item 6),
// used wherever a file name is formatted into a message: InputError (and so
// infx.PosError, srtslurm.Error, cookbook.Error) and the CLI's error printer.
func QuotePath(p string) string {
	if printable(p) {
		return p
	}
	return strconv.Quote(p)
}

// printable reports whether s is valid UTF-8 of printable characters and
// spaces only (no control, format or bidi-override character).
func printable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !(unicode.IsPrint(r) || r == ' ') {
			return false
		}
	}
	return true
}

// EscapeControl escapes, in a message about to be printed, every character
// that could drive a terminal: C0/C1 control characters other than newline
// and tab, DEL, Unicode format characters (bidi overrides, zero-width
// joiners) and bytes that are not UTF-8. They become \xNN (below U+0100 and
// invalid bytes) or \uNNNN; everything else is kept, so a clean message is
// returned unchanged. The CLI applies it to every error and warning it
// prints, as the last line of defence behind QuotePath (issue 10, item 6).
func EscapeControl(s string) string {
	clean := true
	for _, r := range s {
		if needsEscape(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case needsEscape(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape: see EscapeControl.
func needsEscape(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}
