package upstream

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// FuzzRefreshInput: Refresh never panics on any snippet text; with no
// reachable API it either fails or finds nothing to look up.
func FuzzRefreshInput(f *testing.F) {
	if b, err := os.ReadFile("testdata/refresh/agentx.jsx"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`export const agentx = {"source": {"repo": "https://github.com/a/b", "prs": {"1": {"run": null, "status": "in-progress"}}}};`))
	f.Add([]byte(`export const agentx = {"a": "\"", "b": "\\", "status": "verified"}`))
	f.Add([]byte("export const x = "))
	c, err := New(Options{APIURL: "http://127.0.0.1:1/", MaxRetries: -1})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		err := fuzzWithin(fuzzBound, func() error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // no network: any lookup fails at once
			out, changes, err := c.Refresh(ctx, src)
			if err == nil && len(out) != len(src) && len(changes) == 0 {
				return fmt.Errorf("text changed without changes")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%v\ninput: %q", err, src)
		}
	})
}

// FuzzLinks: link parsing never panics and never maps outside the repo.
func FuzzLinks(f *testing.F) {
	for _, s := range []string{"https://github.com/a/b/pull/1", "https://docs.sglang.io/cookbook/a/b", "https://recipes.vllm.ai/o/m?x=1", "%", "https://docs.sglang.io/cookbook/../.."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		err := fuzzWithin(fuzzBound, func() error {
			ParsePRURL(u)
			if _, files, ok, err := PageSource(u); ok && err == nil {
				for _, p := range files {
					if validPath(p) != nil {
						return fmt.Errorf("%q maps to bad path %q", u, p)
					}
				}
			}
			Identity("a/b", u)
			return nil
		})
		if err != nil {
			t.Fatal(err)
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
