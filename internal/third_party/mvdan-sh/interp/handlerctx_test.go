// cookbook-sync patch (issue 24): tests of handlerValueCtx and the
// handler's environment.

package interp

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
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

// TestCallHandlerContextReused: the call handler is given the runner's
// one context (thirteenth patch), filled for each call — its position,
// directory, output and status are those of the call, also for a call
// of a command substitution's quiet command and in a subshell (its own
// runner) — and a call makes no allocation for it.
func TestCallHandlerContextReused(t *testing.T) {
	var got []string
	var ctxs []context.Context
	r, err := New(
		CallHandler(func(ctx context.Context, args []string) ([]string, error) {
			if args[0] != "probe" {
				return args, nil
			}
			hc := HandlerCtx(ctx)
			ctxs = append(ctxs, ctx)
			got = append(got, fmt.Sprintf("%s@%d:%d|%s|%d", strings.Join(args[1:], ","), hc.Pos.Line(), hc.Pos.Col(), hc.Dir, hc.LastExitStatus))
			return []string{":"}, nil
		}),
		QuietCalls(func(name string) bool { return name == "probe" }),
		Dir("/"),
	)
	if err != nil {
		t.Fatal(err)
	}
	src := "probe a\nfalse; probe b\ncd /tmp; X=$(probe c)\n( cd /; probe d )\nprobe e\n"
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	want := "a@1:1|/|0 b@2:8|/|1 c@3:14|/tmp|0 d@4:9|/|0 e@5:1|/tmp|0"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("handlers saw %q, want %q", s, want)
	}
	if len(ctxs) == 5 && (ctxs[0] != ctxs[1] || ctxs[1] != ctxs[4] || ctxs[3] == ctxs[0]) {
		t.Errorf("the runner's calls share one context and a subshell has its own: %p %p %p %p %p", ctxs[0], ctxs[1], ctxs[2], ctxs[3], ctxs[4])
	}
	var calls int
	rn, _ := New(CallHandler(func(ctx context.Context, args []string) ([]string, error) { calls++; return args, nil }), Dir("/"))
	ctx := context.Background()
	pos := syntax.NewPos(0, 1, 1)
	if n := testing.AllocsPerRun(100, func() { rn.handlerCtx(ctx, handlerKindCall, pos) }); n != 0 {
		t.Errorf("a call handler's context: %v allocations, want 0", n)
	}
}
