package pyfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/internal/fuzzbound"
)

// TestFloatRepr: FloatRepr is CPython's repr(float) on every value of
// floatTable (table_test.go, written by python3 testdata/gen.py).
func TestFloatRepr(t *testing.T) {
	for _, c := range floatTable {
		f, err := strconv.ParseFloat(c.hex, 64)
		if err != nil {
			t.Fatalf("ParseFloat(%q): %v", c.hex, err)
		}
		if got := FloatRepr(f); got != c.repr {
			t.Errorf("FloatRepr(%s) = %q, Python repr %q", c.hex, got, c.repr)
		}
	}
}

// TestJSONString: WriteJSONRunes is CPython's json.dumps(str) on every str
// of strTable (lone surrogates included), JSONString on those that are
// valid UTF-8 and on the invalid bytes of badUTF8Table (read as
// bytes.decode("utf-8", "replace")).
func TestJSONString(t *testing.T) {
	for _, c := range strTable {
		var b strings.Builder
		WriteJSONRunes(&b, c.runes)
		if got := b.String(); got != c.json {
			t.Errorf("WriteJSONRunes(%U) = %s, Python %s", c.runes, got, c.json)
		}
		if slices.ContainsFunc(c.runes, func(r rune) bool { return r >= 0xd800 && r <= 0xdfff }) {
			continue // a lone surrogate: no UTF-8 string holds it
		}
		s := string(c.runes)
		if got := JSONString(s); got != c.json {
			t.Errorf("JSONString(%q) = %s, Python %s", s, got, c.json)
		}
	}
	for _, c := range badUTF8Table {
		if got := JSONString(c.in); got != c.json {
			t.Errorf("JSONString(%q) = %s, Python %s", c.in, got, c.json)
		}
	}
}

// TestJSONStringNotPython: the inputs no Python str has, written by Go's
// rule (U+FFFD for each byte that begins no valid UTF-8 sequence, and for
// a rune that is no code point). Python's bytes.decode("utf-8", "replace")
// gives one U+FFFD for a truncated sequence ("\xe2\x82"), Go two.
func TestJSONStringNotPython(t *testing.T) {
	for in, want := range map[string]string{
		"\xe2\x82":   `"\ufffd\ufffd"`,
		"a\xf0\x9fb": `"a\ufffd\ufffdb"`,
	} {
		if got := JSONString(in); got != want {
			t.Errorf("JSONString(%q) = %s, want %s", in, got, want)
		}
	}
	var b strings.Builder
	WriteJSONRunes(&b, []rune{-1, utf8.MaxRune + 1, 'x'})
	if got, want := b.String(), `"\ufffd\ufffdx"`; got != want {
		t.Errorf("WriteJSONRunes(-1, U+110000, x) = %s, want %s", got, want)
	}
}

// TestLivePython (COOKBOOK_SYNC_LIVE_PYTHON=1, python3 on PATH): the
// committed table is what testdata/gen.py writes now, and FloatRepr /
// WriteJSONRunes agree with python3 on random floats (any bit pattern) and
// random strs.
func TestLivePython(t *testing.T) {
	if os.Getenv("COOKBOOK_SYNC_LIVE_PYTHON") != "1" {
		t.Skip("set COOKBOOK_SYNC_LIVE_PYTHON=1 to compare with python3")
	}
	out, err := exec.Command("python3", "testdata/gen.py").Output()
	if err != nil {
		t.Fatalf("python3 testdata/gen.py: %v", err)
	}
	committed, err := os.ReadFile("table_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, committed) {
		t.Errorf("table_test.go differs from python3 testdata/gen.py: regenerate it")
	}

	rng := rand.New(rand.NewPCG(1, 2))
	const n = 5000
	var floats []float64
	var strs [][]rune
	var in strings.Builder
	for i := 0; i < n; i++ {
		f := math.Float64frombits(rng.Uint64())
		if i%2 == 1 { // ordinary magnitudes too
			f = (rng.Float64()*2 - 1) * math.Pow(10, float64(rng.IntN(41)-20))
		}
		floats = append(floats, f)
		fmt.Fprintf(&in, "f %s\n", strconv.FormatFloat(f, 'x', -1, 64))
		rs := make([]rune, rng.IntN(6))
		for j := range rs {
			switch rng.IntN(3) {
			case 0:
				rs[j] = rune(rng.IntN(0x80))
			case 1:
				rs[j] = rune(rng.IntN(0x10000))
			default:
				rs[j] = rune(rng.IntN(utf8.MaxRune + 1))
			}
		}
		strs = append(strs, rs)
		cps := make([]string, len(rs))
		for j, r := range rs {
			cps[j] = strconv.Itoa(int(r))
		}
		fmt.Fprintf(&in, "s %s\n", strings.Join(cps, ","))
	}
	const prog = `import json, sys
for line in sys.stdin:
    k, _, v = line.rstrip("\n").partition(" ")
    if k == "f":
        print(repr(float.fromhex(v)))
    else:
        print(json.dumps("".join(chr(int(c)) for c in v.split(",") if c)))
`
	cmd := exec.Command("python3", "-c", prog)
	cmd.Stdin = strings.NewReader(in.String())
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 2*n {
		t.Fatalf("python3 answered %d lines, want %d", len(lines), 2*n)
	}
	for i := 0; i < n; i++ {
		if got := FloatRepr(floats[i]); got != lines[2*i] {
			t.Errorf("FloatRepr(%x) = %q, python3 %q", floats[i], got, lines[2*i])
		}
		var b strings.Builder
		WriteJSONRunes(&b, strs[i])
		if got := b.String(); got != lines[2*i+1] {
			t.Errorf("WriteJSONRunes(%U) = %s, python3 %s", strs[i], got, lines[2*i+1])
		}
	}
}

// FuzzFloatRepr: for any float64 bit pattern, FloatRepr reads back as the
// same float (strconv.ParseFloat, sign of zero included; nan as nan), has
// exactly strconv's shortest round-trip digits, and is positional exactly
// when the decimal exponent is in [-4, 16), with a "." in every finite
// positional form (Python's ".0").
func FuzzFloatRepr(f *testing.F) {
	for _, c := range floatTable {
		v, _ := strconv.ParseFloat(c.hex, 64)
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		err := fuzzbound.Within(fuzzbound.Bound, func() error {
			s := FloatRepr(x)
			y, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return fmt.Errorf("FloatRepr(%x) = %q does not parse: %v", x, s, err)
			}
			if math.IsNaN(x) {
				if s != "nan" || !math.IsNaN(y) {
					return fmt.Errorf("FloatRepr(NaN) = %q", s)
				}
				return nil
			}
			if math.Float64bits(y) != bits {
				return fmt.Errorf("FloatRepr(%x) = %q reads back as %x", x, s, y)
			}
			if math.IsInf(x, 0) {
				return nil
			}
			e := strconv.FormatFloat(x, 'e', -1, 64)
			mant, expS, _ := strings.Cut(e, "e")
			exp, _ := strconv.Atoi(expS)
			want := strings.TrimLeft(strings.Replace(strings.TrimPrefix(mant, "-"), ".", "", 1), "0")
			body, _, hasE := strings.Cut(strings.TrimPrefix(s, "-"), "e")
			got := strings.TrimRight(strings.TrimLeft(strings.Replace(body, ".", "", 1), "0"), "0")
			if x == 0 {
				want, got = "", strings.Trim(got, "0")
			}
			if got != strings.TrimRight(want, "0") {
				return fmt.Errorf("FloatRepr(%x) = %q, shortest digits %s", x, s, want)
			}
			if positional := exp >= -4 && exp < 16; positional == hasE {
				return fmt.Errorf("FloatRepr(%x) = %q: decimal exponent %d", x, s, exp)
			}
			if !hasE && !strings.Contains(s, ".") {
				return fmt.Errorf("FloatRepr(%x) = %q has no '.'", x, s)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzJSONString: for any string, JSONString is ASCII, is what
// WriteJSONRunes writes for the string's runes, and encoding/json reads it
// back as the string with its invalid UTF-8 bytes as U+FFFD.
func FuzzJSONString(f *testing.F) {
	for _, c := range strTable {
		f.Add(string(c.runes))
	}
	for _, c := range badUTF8Table {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := fuzzbound.Within(fuzzbound.Bound, func() error {
			out := JSONString(s)
			for i := 0; i < len(out); i++ {
				if c := out[i]; c < ' ' || c > '~' {
					return fmt.Errorf("JSONString(%q) = %q: byte %#x", s, out, c)
				}
			}
			var b strings.Builder
			WriteJSONRunes(&b, []rune(s))
			if b.String() != out {
				return fmt.Errorf("JSONString(%q) = %s, WriteJSONRunes %s", s, out, b.String())
			}
			var back string
			if err := json.Unmarshal([]byte(out), &back); err != nil {
				return fmt.Errorf("JSONString(%q) = %s: %v", s, out, err)
			}
			if want := string([]rune(s)); back != want {
				return fmt.Errorf("JSONString(%q) = %s reads back as %q", s, out, back)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
