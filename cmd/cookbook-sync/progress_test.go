package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Progress is drawn on a terminal only: a buffer or a file (a pipe, CI's
// log) gets none, and a coverage run whose stderr is a file prints nothing
// there.
func TestProgressQuietWhenNotTerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p := newProgress(&bytes.Buffer{}); p != nil {
		t.Error("progress on a buffer")
	}
	if p := newProgress(f); p != nil {
		t.Error("progress on a file")
	}
	var p *progress // what newProgress gives: every method a no-op
	p.update(1, 2, "agentx k")
	p.clear()

	var out bytes.Buffer
	if code := run([]string{"coverage"}, &out, f); code != exitGap || !strings.HasPrefix(out.String(), "❌ Check 3:") {
		t.Fatalf("coverage on the demo: exit %d, stdout %.80q", code, out.String())
	}
	if st, err := f.Stat(); err != nil || st.Size() != 0 {
		b, _ := os.ReadFile(f.Name())
		t.Errorf("stderr is a file: %q", b)
	}
}

// On a terminal the bar appears once progressDelay has passed, names the
// unit in work with the count, starts over for a new part, and is cleared
// before the output.
func TestProgressAfterDelay(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var w bytes.Buffer
	p := newProgressTo(&w, func() time.Time { return now })
	p.update(0, 4, "agentx qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg")
	now = now.Add(progressDelay - time.Millisecond)
	p.update(1, 4, "agentx qwen3.5-fp8-gb300-dynamo-sglang-agentic-disagg")
	if w.Len() != 0 {
		t.Fatalf("drawn before %s: %q", progressDelay, w.String())
	}
	now = now.Add(time.Millisecond)
	p.update(2, 4, "agentx qwen3.5-fp4-b200-sglang-agentic-mtp")
	if s := w.String(); !strings.Contains(s, "agentx qwen3.5-fp4-b200-sglang-agentic-mtp") || !strings.Contains(s, "(2/4)") {
		t.Fatalf("bar: %q", s)
	}
	w.Reset()
	now = now.Add(progressEvery) // past the throttle
	p.update(0, 30, "vllm-recipes dsv4-fp4-gb200-dynamo-vllm-agentic-mtp2-no-spec-decode")
	if s := w.String(); !strings.Contains(s, "(0/30)") || !strings.Contains(s, "vllm-recipes dsv4-fp4-gb200-dynamo-vllm-agentic… ") {
		t.Fatalf("new part: %q", s)
	}
	w.Reset()
	p.clear()
	if s := w.String(); !strings.HasPrefix(s, "\r") || strings.TrimSpace(s) != "" {
		t.Errorf("clear: %q", s)
	}
}
