package launch

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/internal/inert"
)

// TestHostileEscapeShell: every value with a control or format character
// prints in ANSI-C quoting; the printed command has no raw control
// character and no line that is a workflow command, and parsing and
// expanding it gives back every value exactly (issue 20, item 4).
func TestHostileEscapeShell(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a\nb", `$'a\nb'`},
		{"a\rb", `$'a\rb'`},
		{"\x1b[2J", `$'\e[2J'`},
		{"a\x00b", `$'a\x00b'`},
		{"a\u2028b", `$'a\xe2\x80\xa8b'`},
		{"it's\t\\", `$'it\'s\t\\'`},
		{"bad\xffbyte", `$'bad\xffbyte'`},
		{"\x01f", `$'\x01f'`},
		{"::add-mask::abc", "::add-mask::abc"},
		{"x ##[add-mask]abc", `$'x #\x23[add-mask]abc'`},
		{"# one #[", "'# one #['"},
	} {
		if got := Quote(c.in); got != c.want {
			t.Errorf("Quote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	for _, v := range inert.Hostile() {
		p := Process{Kind: KindWorker, Program: "python3 -m sglang.launch_server",
			Preamble: []string{"echo " + Quote(v)},
			Env:      []EnvVar{{Name: "HOSTILE", Value: v}},
			Args: []Arg{{Flag: "--x", Values: []string{v}}, {Values: []string{v}},
				{Flag: "--y", Values: []string{"::stop-commands::tok", v}}}}
		out := Format(&p)
		inert.CheckInert(t, "Format", out, false)
		cmds, err := inert.ShellCommands(out)
		if err != nil {
			t.Fatalf("%q: printed command does not parse: %v\n%s", v, err, out)
		}
		want := inert.UntilNUL(v)
		if len(cmds) != 2 || !slices.Equal(cmds[0].Words, []string{"echo", want}) {
			t.Fatalf("%q: preamble: %+v\n%s", v, cmds, out)
		}
		got := cmds[1]
		wantWords := []string{"python3", "-m", "sglang.launch_server", "--x", want, want, "--y", "::stop-commands::tok", want}
		if got.Assigns["HOSTILE"] != want || !slices.Equal(got.Words, wantWords) {
			t.Errorf("%q: expanded %q %q, want %q\n%s", v, got.Assigns, got.Words, wantWords, out)
		}
	}
	// A raw program, flag, env name and preamble line from a checkout.
	p := Process{Program: "::error::prog", Preamble: []string{"a\n  ::warning::pre", "b\x1bc"},
		Env:  []EnvVar{{Name: "N\nAME", Value: "1"}},
		Args: []Arg{{Flag: "::error::flag"}, {Flag: "--f\r::x::"}}}
	out := Format(&p)
	inert.CheckInert(t, "Format raw", out, false)
	if want := "a\n  ''::warning::pre\n$'b\\ec'\n$'N\\nAME'=1 \\\n''::error::prog \\\n  ''::error::flag \\\n  $'--f\\r::x::'"; out != want {
		t.Errorf("Format raw:\n%s\nwant\n%s", out, want)
	}
	if got := GuardLines("ok\n \t::error::x\n::\nx::y::"); got != "ok\n \t''::error::x\n''::\nx::y::" {
		t.Errorf("GuardLines = %q", got)
	}
	if got := EscapeLine("a\nb\tc\rd\x1b\u2028\xff##[x]"); got != `a\nb\tc\rd\x1b\u2028\xff#\x23[x]` {
		t.Errorf("EscapeLine = %s", got)
	}
	if s := "clean value, é"; EscapeLine(s) != s || !strings.EqualFold(Quote(s), "'clean value, é'") {
		t.Errorf("clean value changed: %s %s", EscapeLine(s), Quote(s))
	}
}

// TestHostileEscapeShellText: a command a page's code composed, with a
// hostile value written raw inside single or double quotes, prints with
// that word in ANSI-C quoting: inert, and the same words when parsed.
func TestHostileEscapeShellText(t *testing.T) {
	clean := "python3 -m sglang.launch_server \\\n  --model-path Qwen/Qwen3.5 \\\n  --json '{\n  \"a\": 1\n}' \\\n  --tp 8"
	if got := ShellText(clean); got != clean {
		t.Errorf("clean command changed:\n%s", got)
	}
	for _, v := range inert.Hostile() {
		sq := "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
		dq := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "`", "\\`").Replace(v) + `"`
		src := "python3 -m sglang.launch_server \\\n  --x " + sq + " \\\n  --y " + dq + " \\\n  --tp 8"
		out := ShellText(src)
		inert.CheckInert(t, "ShellText", out, false)
		cmds, err := inert.ShellCommands(out)
		if err != nil {
			t.Fatalf("%q: %v\n%s", v, err, out)
		}
		if !utf8.ValidString(v) {
			continue // bash refuses the source: escaped, not re-quoted
		}
		// a NUL in source text is dropped by the parser, as by bash
		want := strings.ReplaceAll(v, "\x00", "")
		wantWords := []string{"python3", "-m", "sglang.launch_server", "--x", want, "--y", want, "--tp", "8"}
		if len(cmds) != 1 || !slices.Equal(cmds[0].Words, wantWords) {
			t.Errorf("%q: %q, want %q\n%s", v, cmds, wantWords, out)
		}
	}
	// a hostile word with an expansion cannot be re-quoted: escaped
	if got := ShellText("echo \"$HOME\n::error::x\"\x1b"); got != `echo "$HOME\n::error::x"\x1b` {
		t.Errorf("expansion word: %q", got)
	}
}

// TestHostileEscapeJSON: EscapeJSON writes every character EscapeControl
// escapes as a \u escape (a surrogate pair beyond U+FFFF) and leaves clean
// JSON alone; the strings decode to the same values.
func TestHostileEscapeJSON(t *testing.T) {
	clean := []byte("{\"a\": \"é ✓ \\n\"}\n")
	if got := EscapeJSON(clean); string(got) != string(clean) {
		t.Errorf("clean JSON changed: %s", got)
	}
	in := []byte("[\"nel\u0085 ls\u2028 bidi\u202e tag\U000E0001 del\x7f bad\xff\"]")
	want := `["nel\u0085 ls\u2028 bidi\u202e tag\udb40\udc01 del\u007f bad\ufffd"]`
	got := EscapeJSON(in)
	if string(got) != want {
		t.Errorf("EscapeJSON = %s, want %s", got, want)
	}
	var back, orig []string
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(in, &orig); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back, orig) {
		t.Errorf("values changed: %q, want %q", back, orig)
	}
	inert.CheckInert(t, "EscapeJSON", string(got), false)
}
