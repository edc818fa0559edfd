package cookbook

import (
	"fmt"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// fuzzBound is how long one fuzz input may run before it counts as a hang
// (not a speed check: inputs take milliseconds).
const fuzzBound = 10 * time.Second

// fuzzWithin runs body in its own goroutine and returns its error, a
// recovered panic with its stack, or a hang error once d has passed. The
// bound is a timer, not a deferred check, so a body that never returns
// still fails the input. The body reports through its result because
// t.Fatal may only be called from the test goroutine.
func fuzzWithin(d time.Duration, body func() error) error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		done <- body()
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
		return fmt.Errorf("hang: no result within %v", d)
	}
}

// TestHostileFuzzHangCheck: the fuzz bound fails a body that never returns
// (the old deferred check passed it) and reports a panic, not a crash.
func TestHostileFuzzHangCheck(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	if err := fuzzWithin(20*time.Millisecond, func() error { <-block; return nil }); err == nil || !strings.Contains(err.Error(), "hang: no result within 20ms") {
		t.Errorf("blocked body: err = %v, want the hang error", err)
	}
	if err := fuzzWithin(time.Second, func() error { panic("boom") }); err == nil || !strings.HasPrefix(err.Error(), "panic: boom\n") {
		t.Errorf("panicking body: err = %v, want the panic", err)
	}
	if err := fuzzWithin(time.Second, func() error { return nil }); err != nil {
		t.Errorf("quick body: err = %v", err)
	}
}
