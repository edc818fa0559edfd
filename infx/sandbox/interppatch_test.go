package sandbox

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
	"mvdan.cc/sh/v3/syntax"
)

// TestSubshellFunctionsCopyOnWrite: the interp patch shares a shell's
// functions with its subshells until one of them defines or unsets one
// (ownFuncs): what a subshell defines or unsets never reaches its parent
// or a sibling, what the parent defines after starting a subshell never
// reaches it — through ( ), command substitutions, pipelines and
// background jobs (run with -race: the shared table is only read).
func TestSubshellFunctionsCopyOnWrite(t *testing.T) {
	src := `
f() { echo f1; }
( f() { echo sub; }; f )
f
( unset -f f; f 2>/dev/null || echo gone )
f
x=$(f() { echo subst; }; f)
echo "$x"
f
{ f() { echo f2; }; } | cat
p=$(f)
echo "p=$p"
for i in 1 2 3; do { g() { echo "g$i"; }; g; } & done
f() { echo parent; }
wait
f
y=$(f)
echo "y=$y"
`
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "t.sh")
	if err != nil {
		t.Fatal(err)
	}
	var out limitedBuffer // (background shells write at once)
	r, err := interp.New(interp.Env(expand.ListEnviron("PATH=/nonexistent")), interp.StdIO(nil, &out, &out), interp.SkipFinalVars(),
		interp.ExecHandlers(func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				if args[0] == "cat" {
					return nil
				}
				return interp.ExitStatus(127)
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), file); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.buf.String()), "\n")
	// the background jobs' lines come in any order: sort them in place
	i := slices.IndexFunc(lines, func(s string) bool { return len(s) == 2 && s[0] == 'g' })
	if i >= 0 && i+3 <= len(lines) {
		slices.Sort(lines[i : i+3])
	}
	want := []string{"sub", "f1", "gone", "f1", "subst", "f1", "p=f1", "g1", "g2", "g3", "parent", "y=parent"}
	if !slices.Equal(lines, want) {
		t.Errorf("got\n%q\nwant\n%q", lines, want)
	}
	if len(r.Vars) != 0 {
		t.Errorf("Vars holds %d variables with SkipFinalVars", len(r.Vars))
	}
}

// TestPatternCacheSameMatches: a runner keeping its patterns compiled
// (interp.Patterns, shared by two runs at once) matches case and [[ == ]]
// exactly as one compiling them each time — globs, classes, extended
// operators, !(…) negation, a malformed pattern (no match) — and keeps
// each distinct pattern once.
func TestPatternCacheSameMatches(t *testing.T) {
	src := `
for x in abc a.b "" "a b" x-1 ab.txt '[' 'a*'; do
	case "$x" in
	a*c) echo "$x 1" ;;
	?.?) echo "$x 2" ;;
	+([a-z])) echo "$x 3" ;;
	*[0-9]) echo "$x 4" ;;
	'a*') echo "$x 5" ;;
	*) echo "$x other" ;;
	esac
	[[ $x == !(*.txt) ]] && echo "$x not-txt"
	[[ $x == @(abc|x-*) ]] && echo "$x alt"
	[[ $x == [ ]] && echo "$x bracket"
	[[ $x == *\ * ]] && echo "$x space"
done
true
`
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "t.sh")
	if err != nil {
		t.Fatal(err)
	}
	run := func(c *interp.PatternCache) string {
		var out limitedBuffer // (background shells write at once)
		opts := []interp.RunnerOption{interp.Env(expand.ListEnviron()), interp.StdIO(nil, &out, &out)}
		if c != nil {
			opts = append(opts, interp.Patterns(c))
		}
		r, err := interp.New(opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Run(context.Background(), file); err != nil {
			t.Fatal(err)
		}
		return out.buf.String()
	}
	want := run(nil)
	c := interp.NewPatternCache()
	var wg sync.WaitGroup
	got := make([]string, 3)
	for i := range got {
		wg.Go(func() { got[i] = run(c) })
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Errorf("run %d with the cache:\n%s\nwithout:\n%s", i, g, want)
		}
	}
	if !strings.Contains(want, "abc 1\nabc not-txt\nabc alt\n") || !strings.Contains(want, "ab.txt 3") && !strings.Contains(want, "ab.txt other") {
		t.Errorf("matches:\n%s", want)
	}
	if n := c.Len(); n != 8 {
		t.Errorf("%d patterns kept, want 8 (six in case, four in [[ ]], each once, but a*c and *: text and stars need no expression)", n)
	}
	// a pattern a script builds to any size matches, and is never kept
	long, err := syntax.NewParser().Parse(strings.NewReader(`p=$(printf '%02000d' 0); x="$p"; [[ $x == "$p" ]] && echo long-ok`), "long.sh")
	if err != nil {
		t.Fatal(err)
	}
	var out limitedBuffer
	r, err := interp.New(interp.Env(expand.ListEnviron()), interp.StdIO(nil, &out, &out), interp.Patterns(c))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), long); err != nil || out.buf.String() != "long-ok\n" || c.Len() != 8 {
		t.Errorf("a 2,000-byte pattern: %v, output %q, %d kept (want 8)", err, out.buf.String(), c.Len())
	}
	// nor is a long one that needs an expression
	long, err = syntax.NewParser().Parse(strings.NewReader(`p=$(printf '%02000d' 0); x="$p"; [[ $x == ?$p ]] || echo long-no`), "long2.sh")
	if err != nil {
		t.Fatal(err)
	}
	out = limitedBuffer{}
	if r, err = interp.New(interp.Env(expand.ListEnviron()), interp.StdIO(nil, &out, &out), interp.Patterns(c)); err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), long); err != nil || out.buf.String() != "long-no\n" || c.Len() != 8 {
		t.Errorf("a 2,001-byte pattern with ?: %v, output %q, %d kept (want 8)", err, out.buf.String(), c.Len())
	}
}
