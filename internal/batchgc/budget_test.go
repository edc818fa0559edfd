package batchgc

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestLimitFor: the limit is what the budget leaves after the margin and
// the file-backed pages, raised to leave the heap a quarter of its live
// objects as room, and never under 64 MiB.
func TestLimitFor(t *testing.T) {
	const MiB = 1 << 20
	for _, c := range []struct {
		name                               string
		budget, file, overhead, live, want int64
	}{
		{"the main job's end (31 MiB of the executable mapped)", 250_000_000, 31 * MiB, 60 * MiB, 100 * MiB, 250_000_000 - 8*MiB - 31*MiB},
		{"its start (20 MiB mapped)", 250_000_000, 20 * MiB, 7 * MiB, 2 * MiB, 250_000_000 - 8*MiB - 20*MiB},
		{"a live heap the budget has no room for", 250_000_000, 31 * MiB, 50 * MiB, 160 * MiB, 50*MiB + 160*MiB + 40*MiB},
		{"a tiny budget", 40 * MiB, 31 * MiB, 1 * MiB, 1 * MiB, 64 * MiB},
	} {
		if got := LimitFor(c.budget, c.file, c.overhead, c.live); got != c.want {
			t.Errorf("%s: LimitFor(%d, %d, %d, %d) = %d, want %d", c.name, c.budget, c.file, c.overhead, c.live, got, c.want)
		}
	}
}

// TestStatmField reads /proc/PID/statm's numbers and refuses what is not
// one.
func TestStatmField(t *testing.T) {
	line := []byte("454417 15845 6564 4498 0 42549 0\n")
	for i, want := range []int64{454417, 15845, 6564, 4498, 0, 42549, 0} {
		if got, ok := statmField(line, i); !ok || got != want {
			t.Errorf("field %d: %d, %v; want %d", i, got, ok, want)
		}
	}
	for _, bad := range []string{"", "1 2", "1 2 x", "1 2 -3"} {
		if v, ok := statmField([]byte(bad), 2); ok {
			t.Errorf("statmField(%q, 2) = %d, ok; want not ok", bad, v)
		}
	}
}

// TestFollowBudget: with GOMEMLIMIT set nothing changes; without it (on
// a system with /proc/self/statm) the limit is set at once to what
// LimitFor leaves under the budget, and stop ends the follower.
func TestFollowBudget(t *testing.T) {
	prev := debug.SetMemoryLimit(1 << 40)
	defer debug.SetMemoryLimit(prev)
	stop := FollowBudget(func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] }, RSSBudget)
	stop()
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("GOMEMLIMIT set: limit changed to %d", got)
	}
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skipf("no /proc/self/statm (%v): FollowBudget leaves the limit alone", err)
	}
	stop = FollowBudget(func(string) string { return "" }, RSSBudget)
	got := debug.SetMemoryLimit(-1)
	stop()
	stop() // twice: harmless
	if got >= RSSBudget-budgetMargin || got < 64<<20 {
		t.Errorf("limit %d under a budget of %d: want under the budget less the margin, at least 64 MiB", got, int64(RSSBudget))
	}
}
