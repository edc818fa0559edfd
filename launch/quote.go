package launch

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
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
// joiners), the line and paragraph separators U+2028 and U+2029 (a line
// break to many viewers and JavaScript) and bytes that are not UTF-8. They become \xNN (below U+0100 and
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
	if r >= 0 && r < utf8.RuneSelf {
		// ASCII: the C0 controls but newline and tab, and DEL (no ASCII
		// character is a format character or a separator); printing a
		// report asks this of every character it writes
		return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f
	}
	return r == utf8.RuneError || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// ShellSafe reports whether s can be printed raw in shell output: valid
// UTF-8 with no character EscapeControl escapes, no newline or tab, and no
// "##[" (issue 20, item 4). Quote writes any other value in ANSI-C quoting.
func ShellSafe(s string) bool {
	if strings.Contains(s, legacyCommand) {
		return false
	}
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			// printable ASCII: kept (the "##[" test is above)
			i++
			continue
		}
		r, n := decodeRune(s[i:])
		if r < 0 || !safeRune(r) {
			return false
		}
		i += n
	}
	return true
}

// legacyCommand starts a GitHub Actions workflow command of the legacy
// form anywhere in an output line: the runner tries "##[name]data" when a
// line is no "::name::data" command (actions/runner
// src/Runner.Common/ActionCommand.cs TryParse, tried by
// src/Runner.Worker/ActionCommandManager.cs TryProcessCommand), with the
// same commands (add-mask, stop-commands, error, …). Every printer breaks
// it by writing its second '#' escaped (legacyAt).
const legacyCommand = "##["

// legacyAt reports whether s[i] is the second '#' of a "##[".
func legacyAt(s string, i int) bool {
	return i > 0 && i+1 < len(s) && s[i] == '#' && s[i-1] == '#' && s[i+1] == '['
}

// safeRune: a character ShellSafe and EscapeLine keep.
func safeRune(r rune) bool {
	return r != '\n' && r != '\t' && !needsEscape(r)
}

// decodeRune decodes the first character of s (s not empty): -1 and 1 for
// a byte that is not UTF-8 (utf8.DecodeRuneInString cannot tell a real
// U+FFFD from a bad byte by the rune alone).
func decodeRune(s string) (rune, int) {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n <= 1 {
		return -1, 1
	}
	return r, n
}

// EscapeLine is EscapeControl for a value printed inside one line of text
// (a comment line of shell output, a header, a table cell): newline, CR
// and tab are escaped too (\n, \r, \t), so a value from a checkout can
// neither end the line nor start a new one (a GitHub Actions workflow
// command), and the second '#' of a "##[" (a legacy workflow command
// anywhere in a line, legacyCommand) is written \x23. A value without
// such a character is returned unchanged (issue 20, item 4).
func EscapeLine(s string) string {
	if ShellSafe(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := decodeRune(s[i:])
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case legacyAt(s, i):
			b.WriteString(`\x23`)
		case r < 0:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !safeRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case !safeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// EscapeJSON rewrites JSON text so that no character EscapeControl would
// escape appears raw, nor a "##[" (legacyCommand): each such character
// (they can only stand inside strings; of "##[" the second '#') becomes a
// \u escape (RFC 8259 §7; a character beyond U+FFFF as
// its UTF-16 surrogate pair), a byte that is not UTF-8 \ufffd. The
// strings decode to the same values (encoding/json itself leaves C1
// controls, DEL, bidi overrides and the like raw), so JSON keeps every
// value while nothing in it drives a terminal (issue 20, item 4). JSON
// without such a character is returned unchanged.
func EscapeJSON(b []byte) []byte {
	clean := !bytes.Contains(b, []byte(legacyCommand))
	for i := 0; clean && i < len(b); {
		if c := b[i]; c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			// ASCII that needsEscape keeps
			i++
			continue
		}
		r, n := decodeRune(string(b[i:min(len(b), i+utf8.UTFMax)]))
		if r < 0 || needsEscape(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, n := decodeRune(string(b[i:min(len(b), i+utf8.UTFMax)]))
		switch {
		case r < 0:
			out = append(out, `\ufffd`...)
		case legacyAt(string(b[max(0, i-1):min(len(b), i+2)]), min(i, 1)):
			out = append(out, `\u0023`...)
		case needsEscape(r) && r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		case needsEscape(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
