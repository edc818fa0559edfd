package sandbox

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
	"mvdan.cc/sh/v3/expand"
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
	probes := 0
	r, err := interp.New(interp.Env(expand.ListEnviron("PATH=/bin", "HOME=/root", "Z=z")),
		interp.ExecHandlers(func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error {
				if args[0] != "probe" {
					return next(ctx, args)
				}
				probes++
				hc := interp.HandlerCtx(ctx)
				got, want := exported(hc.Env), exportedByLookup(hc.Env)
				if !slices.Equal(got, want) {
					t.Errorf("at %s:\n got %q\nwant %q", args[1], got, want)
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
	if probes != 8 {
		t.Errorf("%d probes ran, want 8", probes)
	}
}

// BenchmarkExported: one command's environment as scripts have it (300
// inherited variables, exports at the top, locals two functions deep).
func BenchmarkExported(b *testing.B) {
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
	r, err := interp.New(interp.Env(expand.ListEnviron(base...)),
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
