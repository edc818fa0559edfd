package srtslurm

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// FuzzParseRender feeds arbitrary YAML to Parse and renders every selector
// with a few versions: errors are fine, panics and hangs are not.
func FuzzParseRender(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	if dir, ok := sharedDir(f, "SRT_SLURM_RECIPE_DIR", "../shared/corpus/srt-slurm"); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "benchmarks/multi_node/srt-slurm-recipes/*/*/*/*.yaml"))
		more2, _ := filepath.Glob(filepath.Join(dir, "benchmarks/multi_node/srt-slurm-recipes/*/*/*/*/*.yaml"))
		seeds = append(append(seeds, more...), more2...)
	}
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("base: {name: n}\nzip_override_z: {resources: {agg_nodes: [1, 2]}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := fuzzWithin(fuzzBound, func() error {
			r, err := Parse("fuzz.yaml", data)
			if err != nil {
				return nil
			}
			sels := append(r.Selectors(), "base")
			if len(sels) > 8 {
				sels = sels[:8]
			}
			for _, sel := range sels {
				for _, v := range []string{"", "sa-submission-q2-2026", "v1.0.31", "aflowers/vllm-gb200-v0.20.0"} {
					out, err := r.Render(sel, Options{Version: v})
					if err == nil {
						_ = out.Text()
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%v\ninput: %q", err, data)
		}
	})
}

// fuzzBound is how long one fuzz input may run before it counts as a hang
// (not a speed check: inputs take milliseconds).
const fuzzBound = 10 * time.Second

// fuzzWithin runs body in its own goroutine and returns its error, a
// recovered panic with its stack, or a hang error once d has passed. The
// bound is a timer, not a deferred check, so a body that never returns
// still fails the input. The body reports through its result because
// t.Fatal may only be called from the test goroutine.
func fuzzWithin(d time.Duration, body func() error) error {
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

// TestHostileFuzzHangCheck: the fuzz bound fails a body that never returns
// (the old deferred check passed it) and reports a panic, not a crash.
func TestHostileFuzzHangCheck(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	if err := fuzzWithin(20*time.Millisecond, func() error { <-block; return nil }); err == nil || !strings.Contains(err.Error(), "hang: no result within 20ms") {
		t.Errorf("blocked body: err = %v, want the hang error", err)
	}
	if err := fuzzWithin(time.Second, func() error { panic("boom") }); err == nil || !strings.HasPrefix(err.Error(), "panic: boom\n") {
		t.Errorf("panicking body: err = %v, want the panic", err)
	}
	if err := fuzzWithin(time.Second, func() error { return nil }); err != nil {
		t.Errorf("quick body: err = %v", err)
	}
}
