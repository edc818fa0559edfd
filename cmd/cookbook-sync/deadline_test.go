package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// runAsync runs runExit on a goroutine and returns the first exit status it
// reports, by returning or by calling its exit function (the hard stop).
func runAsync(args []string, stdout, stderr *syncBuffer) <-chan int {
	code := make(chan int, 2)
	go func() { code <- runExit(args, stdout, stderr, func(c int) { code <- c }) }()
	return code
}

// waitFor polls s until it contains want or 2 s passed.
func waitFor(s *syncBuffer, want string) bool {
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(s.String(), want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return strings.Contains(s.String(), want)
}

// TestHostileDeadline: --deadline ends a command that has not finished
// with exit 3 and a message (the command returning after its context's
// deadline, or the hard stop); a negative deadline is bad usage; a command
// that finishes first is not affected.
func TestHostileDeadline(t *testing.T) {
	var out, errb syncBuffer
	select {
	case code := <-runAsync([]string{"render", "--all", "--infx", "../../infx/testdata/launch", "--deadline", "1ns"}, &out, &errb):
		if code != exitDeadline {
			t.Errorf("exit %d, want %d", code, exitDeadline)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("--deadline 1ns did not end the command")
	}
	if !waitFor(&errb, "--deadline 1ns passed before the command finished") {
		t.Errorf("stderr %q", errb.String())
	}
	var o2, e2 bytes.Buffer
	if code := runExit([]string{"render", "--recipe", "demo/inferencex/benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5/gb300-fp8/agentic/disagg-gb300-1p1d-tp4-tp4-c8.yaml", "--deadline", "-1s"}, &o2, &e2, func(int) { t.Error("exit called") }); code != exitUsage ||
		!strings.Contains(e2.String(), "--deadline -1s: want a positive duration") {
		t.Errorf("negative deadline: exit %d, stderr %q", code, e2.String())
	}
	var o3, e3 bytes.Buffer
	if code := runExit([]string{"render", "--recipe", "demo/inferencex/benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5/gb300-fp8/agentic/disagg-gb300-1p1d-tp4-tp4-c8.yaml", "--deadline", "1h"}, &o3, &e3, func(int) { t.Error("exit called") }); code != exitOK {
		t.Errorf("finished before the deadline: exit %d, stderr %q", code, e3.String())
	}
}

// hangingAPI is a GitHub API that answers nothing until the request is
// abandoned; started receives one value per request that reached it.
func hangingAPI(t *testing.T) (url string, started <-chan struct{}) {
	ch := make(chan struct{}, 16)
	done := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ch <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(func() { close(done); s.Close() })
	return s.URL + "/", ch
}

// TestHostileDeadlineContext: a command that honours its context (upstream
// status waiting on an API that never answers, with per-request timeouts far
// longer than the deadline) returns when --deadline passes, with exit 3 and
// the message, before the hard stop would have ended it.
func TestHostileDeadlineContext(t *testing.T) {
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	api, started := hangingAPI(t)
	var out, errb syncBuffer
	begin := time.Now()
	code := runAsync([]string{"upstream", "status", "--api-url", api, "--retries", "0", "--timeout", "1m", "--call-timeout", "1m",
		"--deadline", "300ms", "https://github.com/sgl-project/sglang/pull/1"}, &out, &errb)
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the request never reached the API")
	}
	select {
	case c := <-code:
		if c != exitDeadline {
			t.Errorf("exit %d, want %d", c, exitDeadline)
		}
		if el := time.Since(begin); el >= 300*time.Millisecond+hardStopGrace {
			t.Errorf("returned after %s: the hard stop, not the context, ended it", el)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("--deadline 300ms did not end the command")
	}
	if want := "cookbook-sync: --deadline 300ms passed before the command finished\n"; !strings.HasSuffix(errb.String(), want) ||
		strings.Count(errb.String(), "--deadline") != 1 {
		t.Errorf("stderr %q, want it to end in %q once", errb.String(), want)
	}
}

// TestHostileInterrupt: an interrupt (Ctrl-C, SIGINT) while a command that
// honours its context waits on the network ends it with exit 130 and a
// message, not with the command's own "unknown" gap (exit 1); the test
// process itself is not killed (the signal goes to the command's context).
func TestHostileInterrupt(t *testing.T) {
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	api, started := hangingAPI(t)
	var out, errb syncBuffer
	code := runAsync([]string{"upstream", "status", "--api-url", api, "--retries", "0", "--timeout", "1m", "--call-timeout", "1m",
		"https://github.com/sgl-project/sglang/pull/1"}, &out, &errb)
	select {
	case <-started: // runExit has registered for the signal
	case <-time.After(10 * time.Second):
		t.Fatal("the request never reached the API")
	}
	if err := self.Signal(os.Interrupt); err != nil {
		t.Skipf("cannot interrupt this process here: %v", err) // Windows
	}
	select {
	case c := <-code:
		if c != exitInterrupted {
			t.Errorf("exit %d, want %d (stdout %q)", c, exitInterrupted, out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the interrupt did not end the command")
	}
	if want := "cookbook-sync: interrupted before the command finished (exit 130)\n"; !strings.HasSuffix(errb.String(), want) {
		t.Errorf("stderr %q, want it to end in %q", errb.String(), want)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader on two
// goroutines (the deadline's message and the command's output).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
