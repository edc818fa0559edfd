package recipes

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// workersFor is the number of goroutines eachIndex uses for n items: one
// per CPU (GOMAXPROCS), at most n, at least 1.
func workersFor(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n))
}

// eachIndex calls work(w, i) for every i in [0, n) on k goroutines (k
// from workersFor(n), which the caller computes once: k at least 1) and
// returns when all calls have returned. w (0 ≤ w < k) numbers the
// goroutine making the call, so work can keep state per goroutine;
// indexes are handed out in increasing order. Callers store each result at
// its index: the outcome is the one a loop gives, on any number of CPUs.
func eachIndex(n, k int, work func(w, i int)) {
	if k <= 1 {
		for i := range n {
			work(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range k {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				work(w, i)
			}
		})
	}
	wg.Wait()
}
