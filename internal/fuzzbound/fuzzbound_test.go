package fuzzbound

import (
	"strings"
	"testing"
	"time"
)

// TestHostileFuzzHangCheck: the fuzz bound fails a body that never returns
// (the old deferred check passed it) and reports a panic, not a crash.
func TestHostileFuzzHangCheck(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	if err := Within(20*time.Millisecond, func() error { <-block; return nil }); err == nil || !strings.Contains(err.Error(), "hang: no result within 20ms") {
		t.Errorf("blocked body: err = %v, want the hang error", err)
	}
	if err := Within(time.Second, func() error { panic("boom") }); err == nil || !strings.HasPrefix(err.Error(), "panic: boom\n") {
		t.Errorf("panicking body: err = %v, want the panic", err)
	}
	if err := Within(time.Second, func() error { return nil }); err != nil {
		t.Errorf("quick body: err = %v", err)
	}
}
