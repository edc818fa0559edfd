package coverage

import (
	"context"
	"sync"

	"github.com/cookbook-sync/cookbook-sync/infx"
)

// keysAhead is how many config keys the background prerendering
// (prerenderAhead) may be ahead of the keys the judges have taken: what it
// renders is held in the Workspace's memo until the key is judged
// (infx.Workspace.Forget), so the live heap follows the window instead of
// the part. Issue 24 (main job, complete trees, every source, 2 cores,
// medians of five paired runs): whole parts ahead 7.30 s wall, 13.0
// user-s; 8 keys ahead 7.10 s, 12.2 user-s (the collector marks a smaller
// heap), but a CPU idles for half a second while the AgentX part runs
// alone; in a second set 8, 24 and 48 keys ahead gave 6.90, 6.67 and
// 6.88 s (11.9, 11.9 and 12.2 user-s).
const keysAhead = 24

// keyWindow paces the background prerendering of a run by its judging:
// the keys in the order they will be judged (the pages part's, then the
// vLLM part's) and how far the judges have got.
type keyWindow struct {
	mu    sync.Mutex
	order map[string]int // config key -> its place among the keys to judge
	// frontier is one past the latest place of a key a judge has taken.
	frontier int
	// changed is closed (and replaced) when frontier moves.
	changed chan struct{}
}

// newKeyWindow is the window of the points' keys, in the order of their
// first point.
func newKeyWindow(pts []infx.Point) *keyWindow {
	w := &keyWindow{order: map[string]int{}, changed: make(chan struct{})}
	for _, p := range pts {
		if _, ok := w.order[p.ConfigKey]; !ok {
			w.order[p.ConfigKey] = len(w.order)
		}
	}
	return w
}

// took records that a judge has taken key (nil window: nothing).
func (w *keyWindow) took(key string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if i, ok := w.order[key]; ok && i+1 > w.frontier {
		w.frontier = i + 1
		close(w.changed)
		w.changed = make(chan struct{})
	}
}

// wait returns true once p's key is within keysAhead of the frontier (a
// key the window does not know: at once), false when ctx is done first.
func (w *keyWindow) wait(ctx context.Context, p infx.Point) bool {
	for {
		w.mu.Lock()
		i, ok := w.order[p.ConfigKey]
		if !ok || i < w.frontier+keysAhead {
			w.mu.Unlock()
			return true
		}
		ch := w.changed
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}
