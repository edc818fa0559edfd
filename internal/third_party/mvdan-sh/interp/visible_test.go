// cookbook-sync patch (issue 24): tests of EachVisibleOverlay.

package interp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"mvdan.cc/sh/v3/syntax"
)

// TestEachVisibleOverlay: at every command of a script that sets, shadows,
// unsets and unexports variables in functions, subshells, pipelines
// (background copies) and command-scoped assignments, EachVisibleOverlay
// lists each name the overlays hold once, in ListEnviron's order, with
// what a lookup of the name finds.
func TestEachVisibleOverlay(t *testing.T) {
	src := `
B9=x B=y A=1 Z_=2
export A
f() {
	local A=10 C=3
	B=20
	unset Z_
	probe f1
	g
	probe f2
}
g() {
	local B=200 A9=9
	declare +x A
	probe g1
	( D=4; unset C; probe sub )
	E=5 probe assign
	echo | { F=6; probe pipe; }
}
probe top1
f
probe top2
x=$(G=7; probe subst)
`
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "t.sh")
	if err != nil {
		t.Fatal(err)
	}
	probes := 0
	r, err := New(Env(expand.ListEnviron("ROOT=1", "A=0")), ExecHandlers(func(next ExecHandlerFunc) ExecHandlerFunc {
		return func(ctx context.Context, args []string) error {
			if args[0] != "probe" {
				return next(ctx, args)
			}
			probes++
			env := HandlerCtx(ctx).Env
			var names []string
			var got []string
			EachVisibleOverlay(env, func(name string, vr expand.Variable) bool {
				names = append(names, name)
				got = append(got, fmt.Sprintf("%s=%v/%v/%q", name, vr.IsSet(), vr.Exported, vr.Str))
				return true
			})
			if !slices.IsSortedFunc(names, nameCompare) || len(slices.Compact(slices.Clone(names))) != len(names) {
				t.Errorf("%s: names not sorted and unique: %q", args[1], names)
			}
			var want []string
			var all []string
			EachOverlay(env, func(name string, _ expand.Variable) bool { all = append(all, name); return true })
			slices.SortFunc(all, nameCompare)
			for _, n := range slices.Compact(all) {
				vr := env.Get(n)
				want = append(want, fmt.Sprintf("%s=%v/%v/%q", n, vr.IsSet(), vr.Exported, vr.Str))
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s:\n got %q\nwant %q", args[1], got, want)
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
	if probes != 9 {
		t.Errorf("%d probes ran, want 9", probes)
	}
}

// TestOverlayBytes: at every command of a script that sets strings,
// indexed and associative arrays (whole, by element, appended), unsets,
// shadows in functions and runs in subshells and pipelines, OverlayBytes
// is the sum of VarBytes over what EachOverlay lists.
func TestOverlayBytes(t *testing.T) {
	src := `
A=abc; B=(x yy zzz); declare -A M=([k]=v [kk]=vv)
probe 1
B[1]=longer; B+=(more); M[k]=changed; M[new]=n; A+=def
probe 2
f() { local A=inner; local -a L=(1 2); L[5]=six; probe f; unset B; probe unset; }
f
probe 3
( M[sub]=s; probe sub )
echo | { B=(p q); probe pipe; }
x=$(C=ccc; probe subst)
probe 4
`
	file, err := syntax.NewParser().Parse(strings.NewReader(src), "b.sh")
	if err != nil {
		t.Fatal(err)
	}
	probes := 0
	r, err := New(Env(expand.ListEnviron("ROOT=1")), ExecHandlers(func(next ExecHandlerFunc) ExecHandlerFunc {
		return func(ctx context.Context, args []string) error {
			if args[0] != "probe" {
				return next(ctx, args)
			}
			probes++
			env := HandlerCtx(ctx).Env
			want := 0
			root := EachOverlay(env, func(name string, vr expand.Variable) bool { want += VarBytes(name, vr); return true })
			gotRoot, got := OverlayBytes(env)
			if got != want || fmt.Sprintf("%p", gotRoot) != fmt.Sprintf("%p", root) {
				t.Errorf("%s: OverlayBytes %d, listed %d", args[1], got, want)
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
	if probes != 9 {
		t.Errorf("%d probes ran, want 9", probes)
	}
}
