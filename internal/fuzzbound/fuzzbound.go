// Package fuzzbound is the hang and panic guard of the module's fuzz
// targets (issue 10: a deferred hang check passes a body that never
// returns). Test support only: no production code imports it.
package fuzzbound

import (
	"fmt"
	"runtime/debug"
	"time"
)

// Bound is how long one fuzz input may run before it counts as a hang (not
// a speed check: inputs take milliseconds).
const Bound = 10 * time.Second

// Within runs body in its own goroutine and returns its error, a recovered
// panic with its stack, or a hang error once d has passed. The bound is a
// timer, not a deferred check, so a body that never returns still fails the
// input. The body reports through its result because t.Fatal may only be
// called from the test goroutine.
func Within(d time.Duration, body func() error) error {
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
