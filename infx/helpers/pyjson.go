package helpers

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/internal/pyfmt"
)

// This file is Python's json module as the InferenceX injectors use it:
// json.loads of a JSON text into Python values (dict order kept, the last
// duplicate key winning in the first one's place) and json.dumps with
// separators=(",", ":") and the default ensure_ascii=True, allow_nan=True
// (CPython Lib/json/decoder.py, scanner.py, encoder.py).

// pyKind is the Python type of a decoded JSON value.
type pyKind int

const (
	pyNull pyKind = iota
	pyBool
	pyInt
	pyFloat
	pyStr
	pyList
	pyDict
)

// pyValue is one decoded JSON value: Int holds a Python int (arbitrary
// precision), Float a float, Str a str as code points (lone surrogates
// kept, as Python keeps them), List and Dict their elements (Dict in
// insertion order).
type pyValue struct {
	Kind  pyKind
	Bool  bool
	Int   *big.Int
	Float float64
	Str   []rune
	List  []*pyValue
	Keys  [][]rune
	Vals  []*pyValue
}

// get returns the dict's value for key and whether it is there.
func (v *pyValue) get(key string) (*pyValue, bool) {
	for i, k := range v.Keys {
		if string(k) == key {
			return v.Vals[i], true
		}
	}
	return nil, false
}

// set assigns key: in place when present (Python keeps the position),
// else at the end.
func (v *pyValue) set(key string, val *pyValue) {
	for i, k := range v.Keys {
		if string(k) == key {
			v.Vals[i] = val
			return
		}
	}
	v.Keys = append(v.Keys, []rune(key))
	v.Vals = append(v.Vals, val)
}

// pop removes key when present.
func (v *pyValue) pop(key string) {
	for i, k := range v.Keys {
		if string(k) == key {
			v.Keys = append(v.Keys[:i:i], v.Keys[i+1:]...)
			v.Vals = append(v.Vals[:i:i], v.Vals[i+1:]...)
			return
		}
	}
}

// setKey is set for a key as decoded: compared code point by code point,
// so that keys holding lone surrogates (which a Go string cannot carry)
// stay distinct, as they are in Python.
func (v *pyValue) setKey(key []rune, val *pyValue) {
	for i, k := range v.Keys {
		if runesEqual(k, key) {
			v.Vals[i] = val
			return
		}
	}
	v.Keys = append(v.Keys, key)
	v.Vals = append(v.Vals, val)
}

func runesEqual(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// errJSONDecode is json.JSONDecodeError: the text is not JSON Python
// accepts.
type errJSONDecode struct{ msg string }

func (e *errJSONDecode) Error() string { return "json.decoder.JSONDecodeError: " + e.msg }

// maxJSONDepth bounds nesting: CPython's scanner raises RecursionError
// (not a JSONDecodeError) somewhere below 1000 levels, depending on the
// stack of its caller; deeper texts are not modelled.
const maxJSONDepth = 512

// maxIntDigits is CPython's int_max_str_digits (3.11+): a longer integer
// makes json.loads raise ValueError (not a JSONDecodeError), older
// Pythons read it; either way not modelled.
const maxIntDigits = 4300

// pyLoads is json.loads(s) for a str s (already decoded text).
func pyLoads(s string) (*pyValue, error) {
	if !utf8.ValidString(s) {
		return nil, &errJSONDecode{"text is not UTF-8"}
	}
	d := &pyDecoder{s: s}
	d.ws()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.ws()
	if d.i != len(d.s) {
		return nil, &errJSONDecode{fmt.Sprintf("Extra data: char %d", d.i)}
	}
	return v, nil
}

type pyDecoder struct {
	s string
	i int
}

// ws skips JSON whitespace ([ \t\n\r]*, decoder.WHITESPACE).
func (d *pyDecoder) ws() {
	for d.i < len(d.s) && strings.IndexByte(" \t\n\r", d.s[d.i]) >= 0 {
		d.i++
	}
}

func (d *pyDecoder) fail(what string) error {
	return &errJSONDecode{fmt.Sprintf("%s: char %d", what, d.i)}
}

func (d *pyDecoder) value(depth int) (*pyValue, error) {
	if depth > maxJSONDepth {
		return nil, &NotModelled{"a speculative-config JSON nested deeper than 512 levels (Python's RecursionError limit)"}
	}
	if d.i >= len(d.s) {
		return nil, d.fail("Expecting value")
	}
	rest := d.s[d.i:]
	switch c := d.s[d.i]; {
	case c == '"':
		d.i++
		r, err := d.str()
		return &pyValue{Kind: pyStr, Str: r}, err
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case strings.HasPrefix(rest, "null"):
		d.i += 4
		return &pyValue{Kind: pyNull}, nil
	case strings.HasPrefix(rest, "true"):
		d.i += 4
		return &pyValue{Kind: pyBool, Bool: true}, nil
	case strings.HasPrefix(rest, "false"):
		d.i += 5
		return &pyValue{Kind: pyBool}, nil
	case strings.HasPrefix(rest, "NaN"):
		d.i += 3
		return &pyValue{Kind: pyFloat, Float: math.NaN()}, nil
	case strings.HasPrefix(rest, "Infinity"):
		d.i += 8
		return &pyValue{Kind: pyFloat, Float: math.Inf(1)}, nil
	case strings.HasPrefix(rest, "-Infinity"):
		d.i += 9
		return &pyValue{Kind: pyFloat, Float: math.Inf(-1)}, nil
	default:
		return d.number()
	}
}

// number is scanner.NUMBER_RE: (-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?;
// an int when neither fraction nor exponent, else float(text).
func (d *pyDecoder) number() (*pyValue, error) {
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(d.s) && d.s[d.i] == '-' {
		d.i++
	}
	if d.i < len(d.s) && d.s[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		d.i = start
		return nil, d.fail("Expecting value")
	}
	isFloat := false
	if d.i+1 < len(d.s) && d.s[d.i] == '.' && d.s[d.i+1] >= '0' && d.s[d.i+1] <= '9' {
		d.i++
		digits()
		isFloat = true
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		save := d.i
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			d.i = save
		} else {
			isFloat = true
		}
	}
	text := d.s[start:d.i]
	if !isFloat {
		if len(strings.TrimPrefix(text, "-")) > maxIntDigits {
			return nil, &NotModelled{"a speculative-config JSON integer of more than 4300 digits (Python's int_max_str_digits)"}
		}
		n, ok := new(big.Int).SetString(text, 10)
		if !ok {
			return nil, d.fail("Expecting value")
		}
		return &pyValue{Kind: pyInt, Int: n}, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !isRangeErr(err) {
		return nil, d.fail("Expecting value")
	}
	return &pyValue{Kind: pyFloat, Float: f}, nil // out of range: ±inf or 0, as float() gives
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// str decodes a string after its opening quote (py_scanstring, strict:
// control characters are errors).
func (d *pyDecoder) str() ([]rune, error) {
	var out []rune
	for {
		if d.i >= len(d.s) {
			return nil, d.fail("Unterminated string starting at")
		}
		r, size := utf8.DecodeRuneInString(d.s[d.i:])
		switch {
		case r == '"':
			d.i++
			return out, nil
		case r < 0x20:
			return nil, d.fail("Invalid control character at")
		case r != '\\':
			out = append(out, r)
			d.i += size
			continue
		}
		d.i++
		if d.i >= len(d.s) {
			return nil, d.fail("Unterminated string starting at")
		}
		e := d.s[d.i]
		d.i++
		switch e {
		case '"', '\\', '/':
			out = append(out, rune(e))
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			u, ok := d.hex4()
			if !ok {
				return nil, d.fail("Invalid \\uXXXX escape")
			}
			if u >= 0xd800 && u <= 0xdbff && strings.HasPrefix(d.s[d.i:], "\\u") {
				save := d.i
				d.i += 2
				if l, ok := d.hex4(); ok && l >= 0xdc00 && l <= 0xdfff {
					out = append(out, rune(0x10000+(u-0xd800)<<10|(l-0xdc00)))
					continue
				}
				d.i = save
			}
			out = append(out, rune(u))
		default:
			return nil, d.fail("Invalid \\escape")
		}
	}
}

func (d *pyDecoder) hex4() (int, bool) {
	if d.i+4 > len(d.s) {
		return 0, false
	}
	h := d.s[d.i : d.i+4]
	for _, c := range h {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return 0, false
		}
	}
	n, _ := strconv.ParseUint(h, 16, 32)
	d.i += 4
	return int(n), true
}

func (d *pyDecoder) object(depth int) (*pyValue, error) {
	d.i++ // {
	v := &pyValue{Kind: pyDict}
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return v, nil
	}
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, d.fail("Expecting property name enclosed in double quotes")
		}
		d.i++
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.ws()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, d.fail("Expecting ':' delimiter")
		}
		d.i++
		d.ws()
		val, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.setKey(k, val)
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			return v, nil
		}
		if d.i >= len(d.s) || d.s[d.i] != ',' {
			return nil, d.fail("Expecting ',' delimiter")
		}
		d.i++
		d.ws()
	}
}

func (d *pyDecoder) array(depth int) (*pyValue, error) {
	d.i++ // [
	v := &pyValue{Kind: pyList}
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return v, nil
	}
	for {
		val, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.List = append(v.List, val)
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == ']' {
			d.i++
			return v, nil
		}
		if d.i >= len(d.s) || d.s[d.i] != ',' {
			return nil, d.fail("Expecting ',' delimiter")
		}
		d.i++
		d.ws()
	}
}

// pyDumps is json.dumps(v, separators=(",", ":")).
func pyDumps(v *pyValue) string {
	var b strings.Builder
	pyDumpSep(&b, v, ",", ":")
	return b.String()
}

// pyDumpsDefault is json.dumps(v) with its default separators (", ",
// ": "; CPython Lib/json/encoder.py: item_separator ', ', key_separator
// ': ' when indent is None).
func pyDumpsDefault(v *pyValue) string {
	var b strings.Builder
	pyDumpSep(&b, v, ", ", ": ")
	return b.String()
}

func pyDumpSep(b *strings.Builder, v *pyValue, item, key string) {
	switch v.Kind {
	case pyNull:
		b.WriteString("null")
	case pyBool:
		if v.Bool {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case pyInt:
		b.WriteString(v.Int.String())
	case pyFloat:
		switch {
		case math.IsNaN(v.Float):
			b.WriteString("NaN")
		case math.IsInf(v.Float, 1):
			b.WriteString("Infinity")
		case math.IsInf(v.Float, -1):
			b.WriteString("-Infinity")
		default:
			b.WriteString(pyfmt.FloatRepr(v.Float))
		}
	case pyStr:
		pyfmt.WriteJSONRunes(b, v.Str)
	case pyList:
		b.WriteByte('[')
		for i, e := range v.List {
			if i > 0 {
				b.WriteString(item)
			}
			pyDumpSep(b, e, item, key)
		}
		b.WriteByte(']')
	case pyDict:
		b.WriteByte('{')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteString(item)
			}
			pyfmt.WriteJSONRunes(b, k)
			b.WriteString(key)
			pyDumpSep(b, v.Vals[i], item, key)
		}
		b.WriteByte('}')
	}
}

// pyFormatG is format(f, "g") (precision 6, trailing zeros removed,
// exponent form for decimal exponents < -4 or ≥ 6).
func pyFormatG(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return pyfmt.FloatRepr(f) // nan, inf, -inf as repr writes them
	}
	e := strconv.FormatFloat(f, 'e', 5, 64) // rounded to 6 significant digits
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	neg := strings.HasPrefix(mant, "-")
	digits := strings.TrimRight(strings.Replace(strings.TrimPrefix(mant, "-"), ".", "", 1), "0")
	if digits == "" {
		digits = "0"
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if exp < -4 || exp >= 6 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		return sign + m + "e" + fmt.Sprintf("%+03d", exp)
	}
	switch {
	case exp < 0:
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	case len(digits) <= exp+1:
		return sign + digits + strings.Repeat("0", exp+1-len(digits))
	default:
		return sign + digits[:exp+1] + "." + digits[exp+1:]
	}
}
