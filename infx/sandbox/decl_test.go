package sandbox

import (
	"strings"
	"testing"
)

// TestDeclOptionsNotEmulated: a declaration or a read with an option the
// interpreter does not have (declare -i, -l, -u, -t; export -n, -f; read
// -t, -n, -u)
// stops the run as not followed, naming it — the interpreter skipped it
// and left its variables unset (`declare -i n=5` gave n empty) — while
// the options it has (-a, -A, -r, -x, -g, -p; read's -r, -a, -p, -d) run
// as before.
func TestDeclOptionsNotEmulated(t *testing.T) {
	for _, c := range []struct{ src, cmd string }{
		{"declare -i n=5\nserver --n \"$n\"\n", "declare -i"},
		{"f() { local -ri c=7; server --c \"$c\"; }\nf\n", "local -ri"},
		{"typeset -u U=abc\nserver\n", "typeset -u"},
		{"X=1\nexport -n X\nserver\n", "export -n"},
		{"declare -l L=ABC\nserver\n", "declare -l"},
		{"read -t 5 X <<< a\nserver\n", "read -t"},
		{"IFS= read -rn1 C <<< ab\nserver\n", "read -rn1"},
		{"read -p '> ' -u 3 X\nserver\n", "read -u"},
		{"mapfile -t -n 2 L <<< x\nserver\n", "mapfile -n"},
	} {
		tr := mustRun(t, c.src)
		if tr.Stop == nil || tr.Stop.Command != c.cmd || !strings.Contains(tr.Stop.Msg, "has no such option") || len(tr.Commands) != 0 {
			t.Errorf("%q: stop %+v, %d commands", c.src, tr.Stop, len(tr.Commands))
		}
	}
	tr := mustRun(t, "IFS=, read -r -d '' -a P <<< 'p,q'\nread -rp '> ' Q <<< q\nread -rd x R <<< 'rxs'\nmapfile -t -d , M <<< 'm,n'\n"+
		"server \"${P[1]}\" \"$Q\" \"$R\" \"${M[0]}\"\n")
	if tr.Stop != nil || len(tr.Commands) != 1 || strings.Join(tr.Commands[0].Argv, " ") != "server q\n q r m" {
		t.Errorf("read's options: stop %+v, commands %+v", tr.Stop, tr.Commands)
	}
	tr = mustRun(t, "declare -A M=([a]=1)\nlocal_f() { local -a A=(x y); readonly -a R=(1); declare -rx E=e; server \"${M[a]}\" \"${A[1]}\" \"${R[0]}\" \"$E\"; }\nlocal_f\n")
	if tr.Stop != nil || len(tr.Commands) != 1 || strings.Join(tr.Commands[0].Argv, " ") != "server 1 y 1 e" {
		t.Errorf("supported options: stop %+v, commands %+v", tr.Stop, tr.Commands)
	}
}

// TestAssignmentTildeAndEscapes: an assignment value starting with a tilde
// expands it (guardAssignments keeps the tilde first), and its unquoted
// backslash escapes are removed, as bash does.
func TestAssignmentTildeAndEscapes(t *testing.T) {
	tr := mustRun(t, "x=~/y\nq='a'\\''b'\nw=c\\ d\nserver \"$x\" \"$q\" \"$w\"\n")
	if len(tr.Commands) != 1 || strings.Join(tr.Commands[0].Argv, "|") != "server|/home/runner/y|a'b|c d" {
		t.Errorf("stop %+v, commands %+v", tr.Stop, tr.Commands)
	}
}
