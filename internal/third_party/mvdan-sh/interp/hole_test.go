// cookbook-sync patch (issue 24): tests of InspectHoles and of
// expand.Config.Inspect.

package interp

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"mvdan.cc/sh/v3/syntax"
)

// holeX is the hole the tests put in X: the marks around a name.
const holeX = expand.HoleMark + "X" + expand.HoleEnd

// runHoles runs src with X holding holeX, W a part of it cut by bytes
// (no mark left) and V a plain value, under
// InspectHoles, and returns what was looked at first ("" when nothing)
// and the output.
func runHoles(t *testing.T, src string) (what, out string) {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "h.sh")
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	var buf bytes.Buffer
	r, err := New(StdIO(nil, &buf, &buf),
		Env(expand.ListEnviron("X="+holeX, "V=plain", "W="+holeX[1:], "PATH=/nonexistent")),
		InspectHoles(func(w string) {
			if what == "" {
				what = w
			}
		}),
		// no program runs: a command that is not a builtin fails
		ExecHandlers(func(ExecHandlerFunc) ExecHandlerFunc {
			return func(ctx context.Context, args []string) error { return ExitStatus(127) }
		}),
		// nor does a file open
		OpenHandler(func(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
			return nil, os.ErrNotExist
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	return what, buf.String()
}

// TestInspectHoles: what a script only copies — assigns, joins into a
// word, passes to a function, splits at whitespace, tests for being set
// or empty, prints with echo or printf %s — is not looked at, and the
// output holds the hole where the value would be; every operation that
// looks at the content (a parameter operation, arithmetic, a pattern, a
// comparison, a file test, a name, a split at other characters, a
// command name, a builtin's operand, a redirection, an associative key,
// text run as code, a name reference's target, getopts' parameters,
// select's reply, a mapfile split at another byte, declare -p, a part of
// a hole cut by bytes) calls the inspector. The right operand of && and ||
// in [[ ]] is not looked at when the left decides, as bash does not
// evaluate it.
func TestInspectHoles(t *testing.T) {
	copies := []struct{ src, out string }{
		{`echo "$X"`, holeX + "\n"},
		{`y=$X; z="pre-${y}-post"; echo $z`, "pre-" + holeX + "-post\n"},
		{`f() { echo "$1" "$#"; }; f "$X"`, holeX + " 1\n"},
		{`for a in a $X b; do echo $a; done`, "a\n" + holeX + "\nb\n"},
		{`echo ${X:-d} ${X-d} ${X:+set} ${U:-$X}`, holeX + " " + holeX + " set " + holeX + "\n"},
		{`[[ -n $X ]] && echo yes; [ -z "$X" ] || echo no`, "yes\nno\n"},
		{`[[ $X ]] && echo t`, "t\n"},
		{`printf '%s|%s\n' "$X" "$V"`, holeX + "|plain\n"},
		{`export Y=$X; A=($X v); echo "${A[0]}" ${#A[@]}`, holeX + " 2\n"},
		{`[[ $V == plain || $X == z ]] && echo or`, "or\n"},
		{`[[ $V == other && $X == z ]] || echo and`, "and\n"},
		{`: "$X"; true "$X"; echo ok`, "ok\n"},
		{`x=$(echo "$X"); echo "$x"`, holeX + "\n"},
		{`set -- "$X" b; echo "$1"`, holeX + "\n"},
		{`echo -n "$X"`, holeX},
		{`cat() { echo "$@"; }; cat <<EOF
$X
EOF
echo done`, "\ndone\n"},
	}
	for _, c := range copies {
		what, out := runHoles(t, c.src)
		if what != "" {
			t.Errorf("%q looked at the hole (%s), want a copy", c.src, what)
		}
		if out != c.out {
			t.Errorf("%q printed %q, want %q", c.src, out, c.out)
		}
	}
	looks := []string{
		`echo ${#X}`,
		`echo ${X%_*}`,
		`echo ${X#a}`,
		`echo ${X:1}`,
		`echo ${X/a/b}`,
		`echo ${X^^}`,
		`echo ${X@Q}`,
		`echo ${!X}`,
		`echo $((X + 1))`,
		`y=$X; echo $((y))`,
		`((X > 1))`,
		`let y=X`,
		`[[ $X == a* ]]`,
		`[[ $X != b ]]`,
		`[[ $X =~ a ]]`,
		`[[ $X < b ]]`,
		`[ "$X" = a ]`,
		`test "$X" -eq 1`,
		`[[ -f $X ]]`,
		`[[ -v $X ]]`,
		`case $X in a) echo a;; esac`,
		`case a in $X) echo a;; esac`,
		`[[ a == $X ]]`,
		`echo ${V%$X}`,
		`IFS=_; echo $X`,
		`read a <<< "$X"`,
		`printf "$X"`,
		`printf '%d' "$X"`,
		`printf '%5s' "$X"`,
		`printf '%b' "$X"`,
		`printf '%c' "$X"`,
		`printf -v "$X" x`,
		`echo -e "$X"`,
		`eval "$X"`,
		`cd "$X"`,
		`exit "$X"`,
		`shift "$X"`,
		`source "$X"`,
		`"$X" arg`,
		`exec "$X"`,
		`command -v "$X"`,
		`echo hi > "$X"`,
		`echo hi > /tmp/$X.log`,
		`declare -A m; m[$X]=1`,
		`declare -A m=([$X]=1)`,
		`declare -A m=([a]=$X); echo "${m[@]}"`,
		`declare "$X=1"`,
		`unset "$X"`,
		`set -x; echo "$X"`,
		`echo *$X`,
		`[[ $V == other || $X == z ]]`,
		`[[ $V == plain && $X == z ]]`,
		`[[ $W == z ]]`,
		`declare -p X`,
		`set -- "-$X"; getopts a o`,
		`OPTIND=$X; getopts a o -a`,
		`select c in a b; do break; done <<< "$X"`,
		`declare -n r=$X`,
		`mapfile -d : arr <<< "$X"`,
		`PWD=$X; pwd -P`,
	}
	for _, src := range looks {
		if what, _ := runHoles(t, src); what == "" {
			t.Errorf("%q did not look at the hole", src)
		}
	}
}

// runWorlds runs src like runHoles with X = holeX standing for "b300-nv_01"
// in one world and "b300-nv_17" in another (HoleWorlds), and a stat
// handler under which only "b300-nv_01.json" exists; it returns what was
// looked at first and the output.
func runWorlds(t *testing.T, src string) (what, out string) {
	t.Helper()
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "w.sh")
	if err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	worlds := []*strings.Replacer{strings.NewReplacer(holeX, "b300-nv_01"), strings.NewReplacer(holeX, "b300-nv_17")}
	var buf bytes.Buffer
	r, err := New(StdIO(nil, &buf, &buf),
		Env(expand.ListEnviron("X="+holeX, "PATH=/nonexistent")),
		InspectHoles(func(w string) {
			if what == "" {
				what = w
			}
		}),
		HoleWorlds(func(s string) []string {
			var out []string
			for _, w := range worlds {
				out = append(out, w.Replace(s))
			}
			return out
		}),
		StatHandler(func(ctx context.Context, name string, follow bool) (os.FileInfo, error) {
			if strings.Contains(name, holeX) {
				what = "the stat handler got a hole" // the embedder's to decide
			}
			return nil, os.ErrNotExist
		}),
		ExecHandlers(func(ExecHandlerFunc) ExecHandlerFunc {
			return func(ctx context.Context, args []string) error { return ExitStatus(127) }
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Run(context.Background(), f)
	return what, buf.String()
}

// TestHoleWorlds: with the holes' worlds known (HoleWorlds), a pattern
// removal whose result is the same in every world is that result and no
// look; one whose results differ, and every other operation, is still a
// look; a file test hands the path, hole and all, to the stat handler,
// which decides; without worlds a file test is a look.
func TestHoleWorlds(t *testing.T) {
	for _, c := range []struct{ src, what, out string }{
		{`echo "launch_${X%%_*}.sh"`, "", "launch_b300-nv.sh\n"},
		{`echo "${X%_*}"`, "", "b300-nv\n"},
		{`echo "${X#b300-}"`, "${…#…}", ""},
		{`echo "${X%%-*}"`, "", "b300\n"},
		{`echo "${X%1}"`, "${…%…}", ""}, // _01 loses its 1, _17 keeps its 7
		{`echo "${X: -1}"`, "${…:offset}", ""},
		{`echo "${#X}"`, "${#…}", ""},
		{`echo "${X/nv/x}"`, "${…/pattern/…}", ""},
		{`[ -f "$X.json" ] && echo yes || echo no`, "the stat handler got a hole", "no\n"},
		{`[ "$X" = b300-nv_01 ] && echo yes`, "a test", ""},
		// a directory named by a hole is looked at, however it is named:
		// every path after it would be resolved in it
		{`OLDPWD=$X; cd -`, "a directory", ""},
		{`HOME=$X; cd`, "a directory", ""},
	} {
		what, out := runWorlds(t, c.src)
		if what != c.what {
			t.Errorf("%q: looked at %q, want %q", c.src, what, c.what)
			continue
		}
		if c.what == "" && out != c.out {
			t.Errorf("%q: output %q, want %q", c.src, out, c.out)
		}
	}
	// without worlds, the same removal and file test are looks
	for _, src := range []string{`echo "${X%%_*}"`, `[ -f "$X.json" ]`} {
		if what, _ := runHoles(t, src); what == "" {
			t.Errorf("%q without worlds: no look", src)
		}
	}
}
