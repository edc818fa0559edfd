package batchgc

import (
	"runtime/debug"
	"testing"
)

// TestTune: without GOGC / GOMEMLIMIT the batch settings apply; with
// them, the environment's values are left alone.
func TestTune(t *testing.T) {
	prevPercent := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(-1)
	defer func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}()
	Tune(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != Percent {
		t.Errorf("GC percent %d, want %d", got, Percent)
	}
	if got := debug.SetMemoryLimit(-1); got != MemoryLimit {
		t.Errorf("memory limit %d, want %d", got, MemoryLimit)
	}
	debug.SetMemoryLimit(1 << 40)
	Tune(func(k string) string { return map[string]string{"GOGC": "50", "GOMEMLIMIT": "1GiB"}[k] })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: GC percent changed to %d", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("GOMEMLIMIT set: memory limit changed to %d", got)
	}
}
