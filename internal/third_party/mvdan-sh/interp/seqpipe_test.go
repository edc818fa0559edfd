// cookbook-sync patch (issue 24): tests of SequentialPipes.

package interp

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestSequentialPipes: a pipeline whose left stage SequentialPipes
// accepts prints and exits as it does with its stages side by side — the
// right stage in the shell (its reads stay), the left stage's variables
// gone with it, pipefail, |& with both streams, an output past the 64 KiB
// an in-process pipe holds, nested pipelines, a fatal error — and the
// callback is asked with the stage and the shell's functions.
func TestSequentialPipes(t *testing.T) {
	run := func(src string, seq func(*syntax.Stmt, func(string) bool) bool) (string, error) {
		t.Helper()
		f, err := syntax.NewParser().Parse(strings.NewReader(src), "p.sh")
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		opts := []RunnerOption{StdIO(nil, &buf, &buf)}
		if seq != nil {
			opts = append(opts, SequentialPipes(seq))
		}
		r, err := New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		err = r.Run(context.Background(), f)
		return buf.String(), err
	}
	all := func(*syntax.Stmt, func(string) bool) bool { return true }
	for _, src := range []string{
		"echo a b | { read x y; echo \"$y$x\"; }\n",
		"echo 5 | read n; echo \"n=$n\"\n",
		"echo ${Z:=set} | { read v; echo \"$v\"; }; echo \"${Z:-unset}\"\n",
		"set -o pipefail; false | true; echo $?; true | false; echo $?\n",
		"false | true; echo $?\n",
		"{ echo out; echo err >&2; } |& { read a; read b; echo \"$a,$b\"; }\n",
		"printf '%070000d' 0 | { read x; echo ${#x}; }\n",
		"echo a | { read x; echo \"$x$x\"; } | { read y; echo \"[$y]\"; }\n",
		"echo \"$(echo in)\" | { read l; echo \"got $l\"; }\n",
		"f() { echo fn; }; f | { read l; echo \"$l\"; }\n",
		"exit 3 | true; echo \"still $?\"\n",
	} {
		want, werr := run(src, nil)
		got, gerr := run(src, all)
		if got != want || (gerr == nil) != (werr == nil) {
			t.Errorf("%q: sequential %q %v, side by side %q %v", src, got, gerr, want, werr)
		}
	}
	var asked []string
	out, err := run("echo a | { read l; }\necho() { builtin echo \"<$*>\"; }\necho y | { read l; builtin echo \"$l\"; }\n",
		func(st *syntax.Stmt, isFunc func(string) bool) bool {
			asked = append(asked, st.Cmd.(*syntax.CallExpr).Args[0].Lit()+":"+map[bool]string{true: "func", false: "cmd"}[isFunc("echo")])
			return isFunc("echo") // the function runs as a stage of its own too
		})
	if err != nil || out != "<y>\n" {
		t.Errorf("output %q, %v", out, err)
	}
	if strings.Join(asked, " ") != "echo:cmd echo:func" {
		t.Errorf("the callback was asked %v, want [echo:cmd echo:func]", asked)
	}
}
