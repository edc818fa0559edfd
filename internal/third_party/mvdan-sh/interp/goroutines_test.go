// cookbook-sync patch (issue 24): tests of Goroutines.

package interp

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// TestGoroutines: the count is what may run beside the command a handler
// answers — 0 in the shell with nothing in the background; 1 in a
// background subshell, in a pipeline's stages, and in a subshell or a
// command substitution of a background job (they share the count); 1 after
// a job or a process substitution that ended but was not waited for, and in
// a pipeline's last stage after the other stage ended (so that the count
// at a command does not depend on which goroutine ran first); 0 again once
// the job was waited for and the pipeline ended.
func TestGoroutines(t *testing.T) {
	var n atomic.Int64
	var mu sync.Mutex
	seen := map[string]int64{}
	ended := map[string]chan struct{}{"l5": make(chan struct{}), "j9": make(chan struct{}), "p10": make(chan struct{})}
	call := func(ctx context.Context, args []string) ([]string, error) {
		switch args[0] {
		case "l5", "j9", "p10":
			// a stage, a job, a process substitution that ends at once
			close(ended[args[0]])
			return []string{"true"}, nil
		case "mx", "m9", "m11":
			// read once the other goroutine surely ended
			<-ended[map[string]string{"mx": "l5", "m9": "j9", "m11": "p10"}[args[0]]]
			time.Sleep(20 * time.Millisecond)
		}
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
m5 | m5r
m6
{ m7; } &
wait
m8
l5 | mx
(j9) &
m9
cat <(p10) >/dev/null
m11
wait
m12
`
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "g.sh")
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		n.Store(0)
		clear(seen)
		for k := range ended {
			ended[k] = make(chan struct{})
		}
		r, err := New(CallHandler(call), Goroutines(&n))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Run(context.Background(), f); err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{"m0": 0, "m1": 1, "m2": 1, "m3": 1, "m4": 0, "m5": 1, "m5r": 1, "m6": 0, "m7": 1, "m8": 0,
			"mx": 1, "m9": 1, "m11": 2, "m12": 0}
		for k, v := range want {
			if seen[k] != v {
				t.Errorf("%s saw %d, want %d (all: %v)", k, seen[k], v, seen)
			}
		}
		if n.Load() != 0 {
			t.Errorf("after the run: %d", n.Load())
		}
	}
}
