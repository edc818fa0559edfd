// cookbook-sync patch (issue 24): tests of Goroutines.

package interp

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestGoroutines: the count is the goroutines running beside the command a
// handler answers — 0 in the shell with nothing in the background; 1 in a
// background subshell, in a pipeline's left stage, and in a subshell or a
// command substitution of a background job (they share the count); 0 again
// once the job was waited for and the pipeline ended (a pipeline's right
// stage, mx, sees 0 or 1: its left stage may have ended by then).
func TestGoroutines(t *testing.T) {
	var n atomic.Int64
	var mu sync.Mutex
	seen := map[string]int64{}
	call := func(ctx context.Context, args []string) ([]string, error) {
		if strings.HasPrefix(args[0], "m") {
			mu.Lock()
			seen[args[0]] = n.Load()
			mu.Unlock()
			return []string{"true"}, nil
		}
		return args, nil
	}
	src := `m0
(m1; (m2); x=$(m3)) &
wait
m4
m5 | mx
m6
{ m7; } &
wait
m8
`
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "g.sh")
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(CallHandler(call), Goroutines(&n))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Run(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"m0": 0, "m1": 1, "m2": 1, "m3": 1, "m4": 0, "m5": 1, "m6": 0, "m7": 1, "m8": 0}
	for k, v := range want {
		if seen[k] != v {
			t.Errorf("%s saw %d goroutines, want %d (all: %v)", k, seen[k], v, seen)
		}
	}
	if n.Load() != 0 {
		t.Errorf("after the run: %d", n.Load())
	}
}
