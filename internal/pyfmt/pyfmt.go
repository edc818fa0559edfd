// Package pyfmt writes two of CPython's texts the way CPython writes them:
// repr(float) and json.dumps of a str (ensure_ascii=True, the default). It
// is the one copy of these rules for the packages that reproduce Python
// programs' output (infx/srtslurm, infx/helpers).
package pyfmt

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// FloatRepr is Python 3's repr(f) (and str(f)): CPython's float_repr in
// Objects/floatobject.c, PyOS_double_to_string(f, 'r', 0, Py_DTSF_ADD_DOT_0)
// under float_repr_style 'short' (Python/pystrtod.c): the shortest digits
// that read back as f, positional when the decimal exponent e of the first
// digit is -4 ≤ e < 16 (with ".0" when the value is integral), otherwise
// d[.ddd]e±XX with at least two exponent digits. Non-finite values are
// "nan", "inf" and "-inf"; negative zero is "-0.0".
//
// The digits are Go's shortest round-trip digits (strconv, 'e', -1): like
// CPython's dtoa mode 0 they are the shortest that round-trip and, among
// those, the closest to f.
func FloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // [-]d[.ddd]e±XX
	mant, expS, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expS)
	sign := ""
	if strings.HasPrefix(mant, "-") {
		sign = "-"
		mant = mant[1:]
	}
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		if exp < 10 {
			es += "0"
		}
		return sign + m + "e" + es + strconv.Itoa(exp)
	}
	switch {
	case exp < 0:
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	case len(digits) <= exp+1:
		return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	default:
		return sign + digits[:exp+1] + "." + digits[exp+1:]
	}
}

// JSONString is json.dumps(s) for a str s with ensure_ascii=True: Python's
// Lib/json/encoder.py py_encode_basestring_ascii (its C twin
// c_encode_basestring_ascii in Modules/_json.c writes the same). See
// WriteJSONRunes for the escapes.
//
// A Python str is always code points; bytes of s that are not valid UTF-8
// have no Python counterpart and are read the way Go ranges over a string:
// each byte that does not begin a valid sequence is U+FFFD, so it is
// written \ufffd. (A surrogate code point encoded in s as UTF-8 bytes is
// such invalid UTF-8; lone surrogates are written only by WriteJSONRunes.)
func JSONString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		writeJSONRune(&b, r)
	}
	b.WriteByte('"')
	return b.String()
}

// WriteJSONRunes writes json.dumps of the str whose code points are rs
// (ensure_ascii=True, py_encode_basestring_ascii): printable ASCII U+0020
// to U+007E as is but for " and \ (escaped \" and \\); \n \r \t \b \f as
// those short escapes; every other code point below U+10000 as \uXXXX
// (lowercase hex; the other C0 controls, U+007F and lone surrogates
// included); a code point above the BMP as its UTF-16 surrogate pair
// \udXXX\udXXX. A value of rs that is no code point (negative or above
// U+10FFFF) is written as U+FFFD.
func WriteJSONRunes(b *strings.Builder, rs []rune) {
	b.WriteByte('"')
	for _, r := range rs {
		writeJSONRune(b, r)
	}
	b.WriteByte('"')
}

const hexDigits = "0123456789abcdef"

// shortEscapes is encoder.py's ESCAPE_DCT but for its \u00XX entries.
var shortEscapes = [...]string{
	'"': `\"`, '\\': `\\`, '\n': `\n`, '\r': `\r`, '\t': `\t`, '\b': `\b`, '\f': `\f`,
}

func writeJSONRune(b *strings.Builder, r rune) {
	if r >= 0 && int(r) < len(shortEscapes) && shortEscapes[r] != "" {
		b.WriteString(shortEscapes[r])
		return
	}
	switch {
	case r >= ' ' && r <= '~':
		b.WriteByte(byte(r))
	case r < 0 || r > utf8.MaxRune:
		writeU(b, utf8.RuneError)
	case r >= 0x10000:
		n := r - 0x10000
		writeU(b, 0xd800|n>>10)
		writeU(b, 0xdc00|n&0x3ff)
	default:
		writeU(b, r)
	}
}

// writeU writes \uXXXX for u < 0x10000.
func writeU(b *strings.Builder, u rune) {
	b.WriteString(`\u`)
	b.WriteByte(hexDigits[u>>12&0xf])
	b.WriteByte(hexDigits[u>>8&0xf])
	b.WriteByte(hexDigits[u>>4&0xf])
	b.WriteByte(hexDigits[u&0xf])
}
