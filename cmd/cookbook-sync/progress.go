package main

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// progressDelay is how long a run goes before it shows progress: a run
// that finishes sooner prints nothing of it.
const progressDelay = time.Second

// progressWidth is the width the description of the unit in work is cut
// or padded to, so that the bar beside it stays put.
const progressWidth = 48

// progress draws how far a long run is (coverage.Options.Progress) as a
// bar on stderr (github.com/schollz/progressbar/v3): only when stderr is a
// terminal, and only once progressDelay has passed since the run began;
// otherwise — a pipe, a file, CI — nothing at all. The libraries never
// print: they call update; the CLI clears the bar before it prints.
type progress struct {
	w     io.Writer
	now   func() time.Time
	start time.Time
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	// max and done are the bar's total and count; drawn when it was last
	// drawn (at most every progressEvery).
	max, done int
	drawn     time.Time
}

// progressEvery is how often the bar is redrawn at most.
const progressEvery = 100 * time.Millisecond

// newProgress is the progress of a run starting now on stderr, nil (no
// progress, every method a no-op) when stderr is not a terminal.
func newProgress(stderr io.Writer) *progress {
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return newProgressTo(stderr, time.Now)
}

// newProgressTo is the progress of a run starting at now() drawn on w,
// whatever w is (tests pass a buffer and a clock).
func newProgressTo(w io.Writer, now func() time.Time) *progress {
	return &progress{w: w, now: now, start: now()}
}

// update is the coverage.Options.Progress callback: done of total units
// judged, what next. The bar appears once progressDelay has passed.
func (p *progress) update(done, total int, what string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	total = max(total, 1)
	done = min(max(done, 0), total)
	if p.bar == nil {
		if now.Sub(p.start) < progressDelay {
			return
		}
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetWidth(30),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetRenderBlankState(false))
		p.max, p.done = total, 0
	} else if now.Sub(p.drawn) < progressEvery && done != total {
		return
	}
	if total != p.max || done < p.done {
		// a new part of the run: its own count
		p.bar.Reset()
		p.bar.ChangeMax(total)
		p.max = total
	}
	p.drawn, p.done = now, done
	// a failed write to stderr: nowhere to report it
	p.bar.Describe(fitWidth(launch.EscapeLine(what), progressWidth))
	_ = p.bar.Set(done)
}

// clear removes the bar (if it was drawn) before the run's output is
// printed; update draws it again if the run goes on.
func (p *progress) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Clear()
		_ = p.bar.Exit()
		p.bar = nil
	}
}

// fitWidth is s cut to n runes (the end replaced by "…") or padded with
// spaces to n.
func fitWidth(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	for len(r) < n {
		r = append(r, ' ')
	}
	return string(r)
}
