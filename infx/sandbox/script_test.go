package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runSrc runs src as the script name with cfg.
func runSrc(name, src string, cfg Config) (*Trace, error) {
	return Run(context.Background(), Script{Path: name, Src: []byte(src)}, cfg)
}

// mustRun is runSrc of src as t.sh with PATH=/usr/bin, failing the test
// on an error.
func mustRun(t *testing.T, src string) *Trace {
	t.Helper()
	tr, err := runSrc("t.sh", src, Config{Env: []string{"PATH=/usr/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func eqStrings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestRelaxSet(t *testing.T) {
	for in, want := range map[string]string{
		"set -euo pipefail":            "set -o pipefail",
		"set -e":                       "set +e",
		"set -eux":                     "set +e",
		"set -o errexit -o nounset -x": "set +e",
		"set -o xtrace -o pipefail":    "set -o pipefail",
		"set -- -e a":                  "set -- -e a",
	} {
		if got := strings.Join(relaxSet(strings.Fields(in)), " "); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

func TestScriptParseError(t *testing.T) {
	_, err := runSrc("bad.sh", ("echo ok\nif [ x ]; then\n  echo\n"), Config{})
	var pe *PosError
	if !errors.As(err, &pe) || pe.File != "bad.sh" || pe.Line == 0 || pe.Col == 0 {
		t.Fatalf("err = %v, want bad.sh:line:col", err)
	}
}

// TestScriptSizeAndRecursionBounds: a variable doubled by assignments alone
// (no command runs in between) and an endless recursion both end with
// ErrLimit at the statement's position, and the guard that checks
// assignments changes neither values nor exit statuses.
func TestScriptSizeAndRecursionBounds(t *testing.T) {
	bomb := "s=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nfor i in $(seq 40); do s=$s$s; done\npython3 -m sglang.launch_server --x \"$s\"\n"
	bomb = strings.Replace(bomb, "$(seq 40)", strings.Repeat("1 ", 40), 1)
	_, err := runSrc("bomb.sh", (bomb), Config{})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "variables hold more than 16777216 bytes") {
		t.Fatalf("bomb: err = %v, want the variable size bound", err)
	}
	if !strings.HasPrefix(err.Error(), "bomb.sh:2:") {
		t.Errorf("bomb: error not at the doubling line 2: %v", err)
	}

	_, err = runSrc("recurse.sh", ("f() { f; }\nf\npython3 -m sglang.launch_server\n"), Config{})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "more than 5000 shell function calls") {
		t.Fatalf("recurse: err = %v, want the function-call bound", err)
	}

	// Values and $? survive the guard: `x=$?` keeps the failing status,
	// `if y=$(false)` takes the else branch, and a value built from
	// quoted parts is unchanged.
	src := "false\nx=$?\nif y=$(false); then b=then; else b=else; fi\nz='a b'\"c\"d\npython3 -m sglang.launch_server --x \"$x\" --b \"$b\" --z \"$z\"\n"
	run, err := runSrc("guard.sh", (src), Config{})
	if err != nil {
		t.Fatal(err)
	}
	var argv []string
	for _, c := range run.Commands {
		if len(c.Argv) > 0 && c.Argv[0] == "python3" {
			argv = c.Argv
		}
	}
	want := []string{"python3", "-m", "sglang.launch_server", "--x", "1", "--b", "else", "--z", "a bcd"}
	if strings.Join(argv, "|") != strings.Join(want, "|") {
		t.Errorf("argv = %q, want %q", argv, want)
	}
}

// TestScriptBraceExpansionBound: a brace range the interpreter will not
// expand (more than 16Ki words) stops the run at the sandbox's bounds
// instead of silently running the loop zero times.
func TestScriptBraceExpansionBound(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.sh")
	if err := os.WriteFile(p, []byte("n=0\nfor i in {1..200000}; do n=$((n+1)); done\n[ \"$n\" = 0 ] && python3 -m sglang.launch_server --tp 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Script{Path: p}, Config{ReadRoots: []string{filepath.Dir(p)}})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "brace expansion would exceed 16384 elements") {
		t.Errorf("got %v, want the sandbox's bound", err)
	}
}

// TestScriptSystemPathTest: a test of the runner's own system files is
// unknown (unsupported), never "absent".
func TestScriptSystemPathTest(t *testing.T) {
	run, err := runSrc("sys.sh", ("X=\nif [ -f /etc/os-release ]; then X=--foo; fi\npython3 -m sglang.launch_server $X\n"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop == nil || run.Stop.Pos.Line != 2 || !strings.Contains(run.Stop.Msg, "a test of /etc/os-release") {
		t.Errorf("stop = %+v", run.Stop)
	}
}

// TestScriptStatusRead: an unknown command whose status the next statement
// reads ($?) is tested like a condition: unsupported, not success.
func TestScriptStatusRead(t *testing.T) {
	run, err := runSrc("rc.sh", ("probe-tool --check\nrc=$?\nif [ $rc -eq 0 ]; then X=--foo; fi\npython3 -m sglang.launch_server $X\n"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop == nil || run.Stop.Pos.Line != 1 || run.Stop.Command != "probe-tool" {
		t.Errorf("stop = %+v", run.Stop)
	}
}

// TestScriptProcSubst: process substitutions read and unread end (no FIFO,
// no hang), and what `<(…)` produces is what the reader sees.
func TestScriptProcSubst(t *testing.T) {
	src := ": <(true)\nX=\nwhile read -r l; do X=\"$X$l\"; done < <(printf 'a\\nb\\n')\nY=$(cat <(echo yy))\npython3 -m sglang.launch_server --x \"$X\" --y \"$Y\" --c <(echo cfg)\n"
	run, err := runSrc("ps.sh", src, Config{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	last := run.Commands[len(run.Commands)-1].Argv
	if len(last) != 9 || strings.Join(last[:8], " ") != "python3 -m sglang.launch_server --x ab --y yy --c" || !strings.HasPrefix(last[8], procSubstPrefix) {
		t.Fatalf("argv = %q", last)
	}
	if run.Writes[last[8]] != "cfg\n" {
		t.Errorf("writes = %q", run.Writes)
	}
}

// TestInterpreterPanic: input the interpreter panics on ends the run as
// Unsupported with a message and no stack trace: `+=0[` (an assignment to
// an empty name: mvdan.cc/sh/v3 interp lookupVar) at its position, also in
// a background statement or a pipe, which the interpreter runs in
// goroutines of its own; an arithmetic assignment or ++ to an array
// element (`$((a[1]=2))`: the interpreter looks up the empty name) at the
// expression, in those goroutines too. (A name empty only at run time, `[[ -v $E ]]`,
// gets bash's answer: TestHostileRuntimeNames.)
func TestInterpreterPanic(t *testing.T) {
	for _, c := range []struct {
		src  string
		want Unsupported
	}{
		{"+=0[", Unsupported{Pos: Pos{File: "p.sh", Line: 1, Col: 1}, Msg: namelessMsg}},
		{"x=1\n{ +=0[; } &\nwait\n", Unsupported{Pos: Pos{File: "p.sh", Line: 2, Col: 3}, Msg: namelessMsg}},
		{"echo a | +=0[ cat\n", Unsupported{Pos: Pos{File: "p.sh", Line: 1, Col: 10}, Msg: namelessMsg}},
		{"x=1\n{ echo $((a[1]=2)); } &\nwait\n", Unsupported{Pos: Pos{File: "p.sh", Line: 2, Col: 11}, Msg: arithNameMsg}},
		{"a=(1)\n(( a[0]++ )) | cat\n", Unsupported{Pos: Pos{File: "p.sh", Line: 2, Col: 4}, Msg: arithNameMsg}},
	} {
		run, err := runSrc("p.sh", c.src, Config{})
		if err != nil {
			t.Fatalf("%q: err = %v, want an Unsupported run", c.src, err)
		}
		if run.Stop == nil || *run.Stop != c.want {
			t.Errorf("%q: stop = %+v, want %+v", c.src, run.Stop, c.want)
		}
		if run.Stop != nil && (strings.Contains(run.Stop.Msg, "goroutine") || strings.Contains(run.Stop.Msg, ".go:")) {
			t.Errorf("%q: stop message carries a stack trace: %q", c.src, run.Stop.Msg)
		}
	}
}

// TestScriptRuntimeErrors: an arithmetic expansion error makes the run
// Unsupported at the expansion's own file:line:col (bash reports it and
// skips the command), and a CRLF script is refused at its first carriage
// return.
func TestScriptRuntimeErrors(t *testing.T) {
	env := []string{"MODEL=m", "TP=8", "EP_SIZE=1", "CONC=4", "PORT=8888"}
	for _, c := range []struct {
		file string
		want Unsupported
	}{
		{"testdata/scripts/arith_assign.sh", Unsupported{Pos: Pos{File: "testdata/scripts/arith_assign.sh", Line: 4, Col: 3}, Msg: "arithmetic expansion failed: division by zero (bash reports it and skips the command)"}},
		{"testdata/scripts/arith_inline.sh", Unsupported{Pos: Pos{File: "testdata/scripts/arith_inline.sh", Line: 4, Col: 23}, Msg: "arithmetic expansion failed: division by zero (bash reports it and skips the command)"}},
	} {
		run, err := Run(context.Background(), Script{Path: c.file}, Config{Env: env})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if run.Stop == nil || *run.Stop != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.file, run.Stop, c.want)
		}
	}
	_, err := Run(context.Background(), Script{Path: "testdata/scripts/crlf.sh"}, Config{Env: env})
	if want := `testdata/scripts/crlf.sh:1:20: carriage return (CRLF line endings): bash would read it as part of the line ($'\r': command not found); convert the script to LF line endings`; err == nil || err.Error() != want {
		t.Errorf("crlf:\n got %v\nwant %s", err, want)
	}
}

// TestScriptPrintfConversions: printf conversions the interpreter lacks
// (precision, %e/%f/%g, %X, '#') come out as bash's printf (C printf)
// gives them.
func TestScriptPrintfConversions(t *testing.T) {
	run, err := Run(context.Background(), Script{Path: "testdata/scripts/printf_float.sh"}, Config{Env: []string{"MODEL=m", "PORT=8888"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Commands) != 1 {
		t.Fatalf("commands = %+v", run.Commands)
	}
	// Values from bash 5: printf "%.2f" 0.5 → 0.50; '%g' 1234567 →
	// 1.23457e+06; '%#X' 255 → 0XFF; '%05.1f' 3.14159 → 003.1;
	// '%e' 1500 → 1.500000e+03; '%.1f' with no argument → 0.0; printf -v
	// in a function assigns the local.
	eqStrings(t, "argv", run.Commands[0].Argv, []string{"python3", "-m", "sglang.launch_server", "--model-path", "m",
		"--mem-fraction-static", "0.50", "--big", "1.23457e+06", "--hex", "0XFF", "--pad", "003.1|ab  |abc|0",
		"--sci", "1.500000e+03", "--missing", "0.0", "--quoted", "it's|b", "--port", "8888"})
}
