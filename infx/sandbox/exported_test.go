package sandbox

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
	"mvdan.cc/sh/v3/syntax"
)

// exportedByLookup is exported's rule stated plainly: every name listed,
// looked up (the visible value), kept when an exported string.
func exportedByLookup(env expand.Environ) []string {
	var names []string
	env.Each(func(name string, _ expand.Variable) bool {
		names = append(names, name)
		return true
	})
	slices.Sort(names)
	names = slices.Compact(names)
	var out []string
	for _, n := range names {
		if v := env.Get(n); v.IsSet() && v.Exported && v.Kind == expand.String {
			out = append(out, n+"="+v.Str)
		}
	}
	return out
}

// TestExportedMatchesLookups: at every command of a script that shadows,
// unsets, unexports and re-exports variables in functions (local and
// global), subshells and command-scoped assignments, exported gives what
// looking each name up gives.
func TestExportedMatchesLookups(t *testing.T) {
	src := `
export A=1 B=2 C=3 D=4
E=5
f() {
	local A=10
	export B=20
	local -x C=30
	unset D
	export E
	probe f1
	g
	probe f2
}
g() {
	local B=200
	declare +x E
	probe g1
	( export F=6; unset A; probe sub )
	X=7 probe assign
	unset Z
	( export __cookbook_sync_container=0 A=1 F=7; probe container )
	( export __cookbook_sync_container=0; export -n __cookbook_sync_container; probe unmarked )
	( export __cookbook_sync_container=5; probe nocontainer )
	export L2=8 | probe pipe1 | probe pipe2
	{ export M=9; probe bg; } &
	wait
}
probe top1
f
probe top2
export -n C
probe top3
`
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "t.sh")
	if err != nil {
		t.Fatal(err)
	}
	// the run's start as the sandbox gives it (startEnv, split once) and
	// as a plain list; pipeline stages and & run on background copies
	start := []string{"PATH=/bin", "HOME=/root", "Z=z"}
	for _, root := range []expand.Environ{newStartEnv(start), expand.ListEnviron(start...)} {
		var probes atomic.Int32
		// one sandbox for the whole run, as a run has: its envDiff
		// answers from its last answer (shared when equal)
		psb := &sandbox{base: map[string]string{"PATH": "/bin", "HOME": "/other", "B": "2"},
			containerBases: []map[string]string{{"A": "1", "F": "6", "HOME": "/root"}}}
		r, err := interp.New(interp.Env(root),
			interp.ExecHandlers(func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
				return func(ctx context.Context, args []string) error {
					if args[0] != "probe" {
						return next(ctx, args)
					}
					probes.Add(1)
					hc := interp.HandlerCtx(ctx)
					got, want := exported(hc.Env), exportedByLookup(hc.Env)
					if !slices.Equal(got, want) {
						t.Errorf("%T at %s:\n got %q\nwant %q", root, args[1], got, want)
					}
					// envDiff's fast path gives what diffing the whole
					// listing gives, against the run's base and a
					// container's
					sb := &sandbox{base: map[string]string{"PATH": "/bin", "HOME": "/other", "B": "2"},
						containerBases: []map[string]string{{"A": "1", "F": "6", "HOME": "/root"}}}
					sb.mu.Lock()
					fast, ok := sb.envDiffFast(hc.Env)
					slow := sb.diffEnv(exported(hc.Env))
					sb.mu.Unlock()
					if _, isStart := root.(*startEnv); ok != isStart || ok && !slices.Equal(fast, slow) {
						t.Errorf("%T at %s: envDiffFast %q (%v), diffEnv %q", root, args[1], fast, ok, slow)
					}
					if got := psb.envDiff(hc.Env); !slices.Equal(got, slow) || cap(got) != len(got) {
						t.Errorf("%T at %s: the run's envDiff %q (cap %d), diffEnv %q", root, args[1], got, cap(got), slow)
					}
					return nil
				}
			}))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Run(context.Background(), file); err != nil {
			t.Fatal(err)
		}
		if n := probes.Load(); n != 14 {
			t.Errorf("%T: %d probes ran, want 14", root, n)
		}
	}
}

// BenchmarkExported: one command's environment as scripts have it (300
// inherited variables, exports at the top, locals two functions deep),
// over the run's start as the sandbox makes it (a startEnv) and over
// expand.ListEnviron.
func BenchmarkExported(b *testing.B) {
	b.Run("start", func(b *testing.B) { benchExported(b, func(kvs []string) expand.Environ { return newStartEnv(kvs) }) })
	b.Run("list", func(b *testing.B) {
		benchExported(b, func(kvs []string) expand.Environ { return expand.ListEnviron(kvs...) })
	})
}

func benchExported(b *testing.B, root func([]string) expand.Environ) {
	var base []string
	for i := range 300 {
		base = append(base, "VAR_"+string(rune('A'+i/26))+string(rune('A'+i%26))+"_HOME="+strings.Repeat("v", 20))
	}
	src := "export MODEL=m TP=8 CONC=4\nf() { local A=1; export B=2; g; }\ng() { local C=3; probe; }\nf\n"
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "b.sh")
	if err != nil {
		b.Fatal(err)
	}
	var env expand.Environ
	r, err := interp.New(interp.Env(root(base)),
		interp.ExecHandlers(func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				env = interp.HandlerCtx(ctx).Env
				return nil
			}
		}))
	if err != nil {
		b.Fatal(err)
	}
	if err := r.Run(context.Background(), file); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		exported(env)
	}
}

// TestEnvironVersion: two commands whose environments have the same
// interp.EnvironVersion see the same exported variables (envDiff reuses
// its answer on that ground), through assignments in functions (local and
// global), subshells, command substitutions, command-scoped assignments,
// unset and export -n; and commands run back to back in an unchanged
// environment do share one (the reuse happens).
func TestEnvironVersion(t *testing.T) {
	src := `
export A=1
probe p1
probe p2
f() {
	probe f0
	local L=1
	probe f1
	export A=2
	probe f2
	x=$(probe sub; export A=3; probe sub2)
	probe f3
	( export A=4; probe sub3 )
	probe f4
	M=9 probe assign
	probe f5
}
f
probe top
unset A
probe unset
export B=1
export -n B
probe unexport
probe unexport2
x=1
probe notexported
export A=1 C=1
y=2
probe notexported2
A+=z
probe append
export A
probe keep
declare -n R=A
probe nameref
R=5
probe namerefwrite
unset -n R
C=(1 2)
probe array
readonly C
probe readonly
declare +x A
probe unexportA
set -a
z=3
probe allexport
set +a
w=4
probe prew
export w
probe exportw
h() { local q=1 r; r=2; probe inh; }
probe beforeh
h
probe afterh
k() { local A=2; probe ink; }
k
probe afterk
m() { local N=1; declare -g N=2; declare -g G=3; export G; probe inm; for A in 5 6; do probe loop; done; printf -v A '%s' 7; probe printfv; read -r A <<< 8; probe read; A[1]=9; probe elem; local +x A; probe plusx; }
m
probe afterm
g() { local A=7; probe glocal; local -x A; probe glocalx; export A=8; probe gexport; q=1; probe gplain; }
A=1
export A
g
probe afterg
`
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "t.sh")
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		scope   any
		version uint64
		env     []string
		at      string
	}
	var probes []seen
	r, err := interp.New(interp.Env(expand.ListEnviron("PATH=/bin", "HOME=/root")),
		interp.ExecHandlers(func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				if args[0] != "probe" {
					return next(ctx, args)
				}
				env := interp.HandlerCtx(ctx).Env
				scope, version, ok := interp.EnvironVersion(env)
				if !ok {
					t.Errorf("at %s: not an environment of the runner", args[1])
				}
				probes = append(probes, seen{scope, version, exported(env), args[1]})
				return nil
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), file); err != nil {
		t.Fatal(err)
	}
	if len(probes) != 46 {
		var names []string
		for _, p := range probes {
			names = append(names, p.at)
		}
		t.Fatalf("%d probes ran, want 46: %v", len(probes), names)
	}
	shared := 0
	for i, a := range probes {
		for _, b := range probes[i+1:] {
			if a.scope == b.scope && a.version == b.version {
				shared++
				if !slices.Equal(a.env, b.env) {
					t.Errorf("%s and %s: one environment version, different variables: %q, %q", a.at, b.at, a.env, b.env)
				}
			}
		}
	}
	// p1/p2, f4/f5 … : back to back in one environment
	if shared < 2 {
		t.Errorf("%d probe pairs share an environment version, want the back-to-back ones", shared)
	}
	// an assignment to a variable no command inherits keeps the version,
	// and a function setting only such locals its caller's scope: the
	// commands around them share one (the answer is reused)
	at := map[string]seen{}
	for _, p := range probes {
		at[p.at] = p
	}
	for _, pair := range [][2]string{{"unexport2", "notexported"}, {"gexport", "gplain"}, {"beforeh", "inh"}, {"inh", "afterh"}} {
		a, b := at[pair[0]], at[pair[1]]
		if a.scope != b.scope || a.version != b.version {
			t.Errorf("%s and %s: a variable that is not exported was set between them and the version moved", pair[0], pair[1])
		}
	}
}

// TestStartEnvIsListEnviron: startEnv lists and looks up exactly what
// expand.ListEnviron does for the same pairs — duplicates (the last wins),
// pairs without "=" or with an empty name (dropped), names that are
// prefixes of others ("A", "A9", "A_"), values holding "=" — and its size
// is the sum of its names and values.
func TestStartEnvIsListEnviron(t *testing.T) {
	cases := [][]string{
		{"A=1", "A=2", "=x", "B", "A9=3", "A_=4", "a=5", "PATH=/x=y", "Z=", "A=3"},
		nil,
		{"X=1"},
	}
	// every list of up to 4 pairs over a small alphabet
	atoms := []string{"A=1", "A=2", "AB=3", "A", "=", "A==", "B=x"}
	for i := range 7 * 7 * 7 * 7 {
		var c []string
		for n := i; n > 0; n /= 7 {
			c = append(c, atoms[n%7])
		}
		cases = append(cases, c)
	}
	type nv struct{ n, v string }
	for _, kvs := range cases {
		want, got := expand.ListEnviron(kvs...), newStartEnv(kvs)
		var w, g []nv
		want.Each(func(n string, v expand.Variable) bool { w = append(w, nv{n, v.Str}); return true })
		size := 0
		got.Each(func(n string, v expand.Variable) bool {
			g = append(g, nv{n, v.Str})
			size += len(n) + len(v.Str)
			return true
		})
		if !slices.Equal(w, g) || size != got.bytes {
			t.Errorf("%q: startEnv lists %v (%d bytes, %d counted), ListEnviron %v", kvs, g, size, got.bytes, w)
		}
		for i, p := range got.pairs {
			if n, v, _ := strings.Cut(p, "="); n != got.names[i] || v != got.value(i) {
				t.Errorf("%q: pair %q for %s=%s", kvs, p, got.names[i], got.value(i))
			}
		}
		for _, name := range []string{"A", "A9", "A_", "AB", "B", "PATH", "Z", "X", "", "a", "Q"} {
			if a, b := want.Get(name), got.Get(name); !reflect.DeepEqual(a, b) {
				t.Errorf("%q: Get(%q) = %+v, ListEnviron %+v", kvs, name, b, a)
			}
		}
	}
}

// TestEnvDiffSharesEqualAnswers: commands whose exported variables are
// the ones the command before saw get that command's list itself (no new
// list, no new strings), though an assignment to an unexported variable
// moved the environment's version between them; a list that differs is
// new, and one that is a prefix of the last shares its array with a
// capacity that ends at its length (an append copies it).
func TestEnvDiffSharesEqualAnswers(t *testing.T) {
	src := `export A=1 B=2
probe one
i=1
probe two
i=2
probe three
export B=3
probe four
unset B
probe five
`
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "t.sh")
	if err != nil {
		t.Fatal(err)
	}
	sb := &sandbox{base: map[string]string{"PATH": "/bin"}}
	got := map[string][]string{}
	r, err := interp.New(interp.Env(newStartEnv([]string{"PATH=/bin"})),
		interp.ExecHandlers(func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				got[args[1]] = sb.envDiff(interp.HandlerCtx(ctx).Env)
				return nil
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), file); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"one": {"A=1", "B=2"}, "two": {"A=1", "B=2"}, "three": {"A=1", "B=2"}, "four": {"A=1", "B=3"}, "five": {"A=1"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("envDiff answers %q, want %q", got, want)
	}
	if &got["one"][0] != &got["two"][0] || &got["two"][0] != &got["three"][0] {
		t.Error("equal answers are not shared")
	}
	if &got["four"][0] == &got["three"][0] {
		t.Error("a changed answer shares the last one's array")
	}
	if &got["five"][0] != &got["four"][0] || cap(got["five"]) != 1 {
		t.Errorf("a prefix of the last answer: shared %v, capacity %d (want its length, 1)", &got["five"][0] == &got["four"][0], cap(got["five"]))
	}
}

// TestCompareNameEq: compareNameEq orders names (no "=" in them) as their
// "NAME=" forms compare (fixed and random names, bytes around '='
// included).
func TestCompareNameEq(t *testing.T) {
	names := []string{"", "A", "AB", "A_", "A9", "a", "<", ">", "B", "\xff"}
	names = append(names, testutil.RandomTexts(4, testutil.Bytes("AB_<>9a\xff"), 3000, 5)...)
	for _, a := range names[:200] {
		for _, b := range names {
			if got, want := compareNameEq(a, b), strings.Compare(a+"=", b+"="); got != want {
				t.Fatalf("compareNameEq(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}
