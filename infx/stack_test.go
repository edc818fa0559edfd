package infx

import "testing"

// TestGrowStackStaysOnTheStack: growStack's frames are stack memory (a
// frame's array that escaped to the heap would allocate on every
// rendering goroutine instead of growing its stack), and it returns.
func TestGrowStackStaysOnTheStack(t *testing.T) {
	if n := testing.AllocsPerRun(20, func() { growStack(stackFrames) }); n != 0 {
		t.Fatalf("growStack(%d) allocates %.0f times per call, want 0", stackFrames, n)
	}
	if got := growStack(stackFrames); got != 0 {
		t.Fatalf("growStack read %d from its zeroed frames", got)
	}
}
