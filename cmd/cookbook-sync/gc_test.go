package main

import (
	"runtime/debug"
	"testing"
)

// TestTuneGC: without GOGC / GOMEMLIMIT the batch settings apply; with
// them, the environment's values are left alone.
func TestTuneGC(t *testing.T) {
	prevPercent := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(-1)
	defer func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}()
	tuneGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != batchGCPercent {
		t.Errorf("GC percent %d, want %d", got, batchGCPercent)
	}
	if got := debug.SetMemoryLimit(-1); got != batchMemoryLimit {
		t.Errorf("memory limit %d, want %d", got, batchMemoryLimit)
	}
	debug.SetMemoryLimit(1 << 40)
	tuneGC(func(k string) string { return map[string]string{"GOGC": "50", "GOMEMLIMIT": "1GiB"}[k] })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: GC percent changed to %d", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("GOMEMLIMIT set: memory limit changed to %d", got)
	}
}
