package coverage

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/infx"
)

// TestKeyWindow: a point starts once its key is within keysAhead of the
// keys the judges took; a key the window does not know starts at once;
// a cancelled run stops waiting.
func TestKeyWindow(t *testing.T) {
	var pts []infx.Point
	for i := range keysAhead + 3 {
		k := fmt.Sprintf("key-%02d", i)
		pts = append(pts, infx.Point{ConfigKey: k}, infx.Point{ConfigKey: k}) // two points a key
	}
	w := newKeyWindow(pts)
	if len(w.order) != keysAhead+3 || w.order["key-00"] != 0 || w.order[fmt.Sprintf("key-%02d", keysAhead+2)] != keysAhead+2 {
		t.Fatalf("order %v", w.order)
	}
	ctx := context.Background()
	for i := range keysAhead {
		if !w.wait(ctx, infx.Point{ConfigKey: fmt.Sprintf("key-%02d", i)}) {
			t.Fatalf("key %d within the window waited", i)
		}
	}
	if !w.wait(ctx, infx.Point{ConfigKey: "not-known"}) {
		t.Fatal("a key the window does not know waited")
	}
	last := infx.Point{ConfigKey: fmt.Sprintf("key-%02d", keysAhead+2)} // needs the frontier at 3
	got := make(chan bool)
	go func() { got <- w.wait(ctx, last) }()
	w.took("key-00")
	w.took("not-known") // moves nothing
	select {
	case <-got:
		t.Fatal("started with the frontier at 1")
	case <-time.After(20 * time.Millisecond):
	}
	w.took("key-02") // a key taken past one another judge holds: frontier 3
	if !<-got {
		t.Fatal("wait = false")
	}
	w.took("key-01") // behind the frontier: it stays
	if w.frontier != 3 {
		t.Fatalf("frontier %d, want 3", w.frontier)
	}
	cctx, cancel := context.WithCancel(ctx)
	far := newKeyWindow(pts)
	go func() { got <- far.wait(cctx, last) }()
	cancel()
	if <-got {
		t.Fatal("a cancelled wait returned true")
	}
	var none *keyWindow
	none.took("key-00") // no window: nothing
}
