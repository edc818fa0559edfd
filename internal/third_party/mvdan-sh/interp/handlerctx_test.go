// cookbook-sync patch (issue 24): tests of handlerValueCtx and the
// handler's environment.

package interp

import (
	"context"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

type otherKey struct{}

// TestHandlerContextCarried: a handler reads its HandlerContext through
// contexts derived from the one it is given, values of the caller's context
// still show, and its Env is the runner's environment as it is at the call.
func TestHandlerContextCarried(t *testing.T) {
	var got []string
	r, err := New(
		CallHandler(func(ctx context.Context, args []string) ([]string, error) {
			if args[0] != "probe" {
				return args, nil
			}
			inner, cancel := context.WithCancel(ctx)
			defer cancel()
			hc := HandlerCtx(inner)
			got = append(got, hc.Env.Get("A").String()+"|"+hc.Dir+"|"+strings.Join(args[1:], ",")+"|"+inner.Value(otherKey{}).(string))
			if _, ok := hc.Env.(expand.WriteEnviron); !ok {
				t.Errorf("hc.Env is %T, not the runner's WriteEnviron", hc.Env)
			}
			return []string{"true"}, nil
		}),
		Dir("/"),
	)
	if err != nil {
		t.Fatal(err)
	}
	f, err := syntax.NewParser().Parse(strings.NewReader("A=1; probe x; f() { local A=2; probe y; }; f; probe z"), "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.WithValue(context.Background(), otherKey{}, "v")
	if err := r.Run(ctx, f); err != nil {
		t.Fatal(err)
	}
	want := "1|/|x|v 2|/|y|v 1|/|z|v"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("handlers saw %q, want %q", s, want)
	}
	// a context carrying a HandlerContext value (not the runner's) still reads
	hc := HandlerCtx(context.WithValue(context.Background(), handlerCtxKey{}, HandlerContext{Dir: "/x"}))
	if hc.Dir != "/x" {
		t.Errorf("HandlerCtx of a stored value: Dir %q", hc.Dir)
	}
}
