package batchgc

import (
	"bytes"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"
)

// RSSBudget is the peak resident memory (bytes, the whole process as
// `/usr/bin/time` and getrusage's ru_maxrss count it) the CLI keeps a run
// under by default: issue 24's budget for the main job on the complete
// trees of ../shared (cold, every source, 2 cores) is 250 MB.
const RSSBudget = 250_000_000

// budgetMargin (bytes) is kept below RSSBudget. The anonymous pages reach
// the collector's limit at their peak (main job, complete trees, limits
// of 201–213 MiB: peaks of 237,500–238,300 KiB of RSS with a 3 MiB margin,
// 3–6 MiB under the budget), the limit is soft (a collector that falls
// behind on a loaded machine lets the heap past it: one run that took 16 s
// instead of 8 peaked at 240,896 KiB, 3.2 MiB under), and the executable's
// pages grow between two reads (Every: from 21 to 24 MB in the main job's
// first 0.2 s). 8 MiB covers those with room to spare, for about 2% of the
// run's time against 3 MiB.
const budgetMargin = 8 << 20

// Every is how often FollowBudget reads the process's resident pages.
const Every = 20 * time.Millisecond

// minRoomNum / minRoomDen: the room (bytes) LimitFor leaves the heap above
// its live objects is at least a quarter of them, whatever the budget: a
// run whose live heap outgrows what the budget leaves it would otherwise
// have the collector run back to back (Go caps it at half the CPU), and
// a budget is not worth a run several times slower; such a run goes over
// the budget instead.
const minRoomNum, minRoomDen = 1, 4

// LimitFor is the collector's memory limit (bytes; runtime/debug
// SetMemoryLimit) that keeps a process's resident memory under budget:
// fileBacked is its file-backed and shared resident pages
// (/proc/self/statm's third field: the executable's text and read-only
// data the kernel has mapped, which the Go limit does not count),
// overhead what the runtime holds besides heap objects and free pages
// (fragmentation in spans, stacks, metadata: runtime/metrics
// /memory/classes/…), live the heap's live objects (/gc/heap/live:bytes).
// The limit is budget - budgetMargin - fileBacked, but never under
// overhead + live + live/4 (see minRoomNum), nor under 64 MiB.
func LimitFor(budget, fileBacked, overhead, live int64) int64 {
	limit := budget - budgetMargin - fileBacked
	if floor := overhead + live + live*minRoomNum/minRoomDen; limit < floor {
		limit = floor
	}
	if limit < 64<<20 {
		limit = 64 << 20
	}
	return limit
}

// FollowBudget keeps the collector's memory limit at LimitFor(budget, …)
// of the process's present state, read every Every until stop is called
// (stop waits for the follower to end; calling it twice is harmless). It
// does nothing, and stop is a no-op, when the environment (getenv) sets
// GOMEMLIMIT, or where /proc/self/statm cannot be read (not Linux): the
// limit Tune set stays. The limit follows the executable's resident pages
// as the kernel maps them (18–20 MiB at the start of the main job, 31–34
// MiB at its end on the machine of issue 24), so a run takes the room the
// budget leaves it at each moment, and on a system that maps less of the
// executable it takes more.
func FollowBudget(getenv func(string) string, budget int64) (stop func()) {
	if getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	f, err := os.Open("/proc/self/statm")
	if err != nil {
		return func() {}
	}
	page := int64(os.Getpagesize())
	samples := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	buf := make([]byte, 128)
	var last int64 = -1
	step := func() bool {
		n, err := f.ReadAt(buf, 0)
		if n == 0 && err != nil {
			return false
		}
		shared, ok := statmField(buf[:n], 2)
		if !ok {
			return false
		}
		metrics.Read(samples)
		u := func(i int) int64 {
			if samples[i].Value.Kind() != metrics.KindUint64 {
				return 0
			}
			return int64(samples[i].Value.Uint64())
		}
		overhead := u(0) - u(1) - u(2) - u(3)
		limit := LimitFor(budget, shared*page, overhead, u(4))
		// a change of under 256 KiB is not worth the collector's
		// recomputation of its goal
		if d := limit - last; last < 0 || d > 256<<10 || d < -(256<<10) {
			debug.SetMemoryLimit(limit)
			last = limit
		}
		return true
	}
	if !step() {
		_ = f.Close()
		return func() {}
	}
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer func() { _ = f.Close() }()
		t := time.NewTicker(Every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if !step() {
					return
				}
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		<-ended
	}
}

// statmField is the i-th (0-based) space-separated number of a
// /proc/PID/statm line (in pages).
func statmField(line []byte, i int) (int64, bool) {
	fields := bytes.Fields(line)
	if i >= len(fields) {
		return 0, false
	}
	v, err := strconv.ParseInt(string(fields[i]), 10, 64)
	return v, err == nil && v >= 0
}
