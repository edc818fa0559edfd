package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHostileDeadline: --deadline ends a command that has not finished
// with exit 3 and a message; a negative deadline is bad usage; a command
// that finishes first is not affected.
func TestHostileDeadline(t *testing.T) {
	exited := make(chan int, 1)
	var out, errb syncBuffer
	go runExit([]string{"render", "--all", "--infx", "../../infx/testdata/launch", "--deadline", "1ns"}, &out, &errb, func(code int) { exited <- code })
	select {
	case code := <-exited:
		if code != exitDeadline {
			t.Errorf("exit %d, want %d", code, exitDeadline)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("--deadline 1ns did not end the command")
	}
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(errb.String(), "--deadline 1ns passed before the command finished") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(errb.String(), "--deadline 1ns passed before the command finished") {
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
