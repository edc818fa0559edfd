package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

func statusFake(t *testing.T) *fakegithub.Server {
	s := newFake(t)
	s.AddRepo("vllm-project/recipes", "main", map[string]string{"models/moonshotai/Kimi-K3.yaml": "meta: {}\n"})
	merged := time.Date(2026, 10, 5, 9, 30, 0, 0, time.UTC)
	for _, p := range []*fakegithub.Pull{
		{Number: 44712, Title: "open one", State: "open", Head: "main", Base: "main"},
		{Number: 44713, Title: "draft one", State: "open", Draft: true, Head: "main", Base: "main"},
		{Number: 44714, Title: "closed one", State: "closed", Head: "main", Base: "main"},
		{Number: 45111, Title: "merged one", State: "closed", Merged: true, MergedAt: &merged, Head: "main", Base: "main"},
	} {
		s.AddPull(testRepo, p)
	}
	return s
}

func TestStatus(t *testing.T) {
	s := statusFake(t)
	c, _ := newClient(t, s, "")
	merged := time.Date(2026, 10, 5, 9, 30, 0, 0, time.UTC)
	cases := []struct {
		url   string
		kind  string
		state State
		file  string
		ok    bool
	}{
		{"https://github.com/sgl-project/sglang/pull/44712", KindPR, StateOpen, "", false},
		{"https://github.com/sgl-project/sglang/pull/44713/files", KindPR, StateDraft, "", false},
		{"https://github.com/sgl-project/sglang/pull/44714#issuecomment-1", KindPR, StateClosedUnmerged, "", false},
		{"https://github.com/sgl-project/sglang/pull/45111", KindPR, StateMerged, "", true},
		{"https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5", KindPage, StateExists, "docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx", true},
		{"https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen9/", KindPage, StateMissing, "docs/cookbook/autoregressive/Qwen/Qwen9.mdx", false},
		{"https://docs.sglang.io/src/snippets/agentx/Qwen/qwen3.5.jsx", KindPage, StateExists, snippet, true},
		{"https://recipes.vllm.ai/moonshotai/Kimi-K3?hardware=gb200&nodes=4&strategy=multi_node_tp", KindPage, StateExists, "models/moonshotai/Kimi-K3.yaml", true},
		{"https://recipes.vllm.ai/moonshotai/Kimi-K2.6", KindPage, StateMissing, "models/moonshotai/Kimi-K2.6.yaml", false},
	}
	for _, tc := range cases {
		st, err := c.Status(context.Background(), tc.url)
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		if st.Kind != tc.kind || st.State != tc.state || st.OK() != tc.ok || (tc.file != "" && st.File != tc.file) {
			t.Errorf("%s: got %+v", tc.url, st)
		}
		if tc.state == StateMerged && (st.MergedAt == nil || !st.MergedAt.Equal(merged)) {
			t.Errorf("%s: mergedAt %v", tc.url, st.MergedAt)
		}
	}
	// Branch, commit and blob links can never satisfy Check 3 (b).
	for _, u := range []string{"https://github.com/sgl-project/sglang/tree/cookbook-sync/qwen",
		"https://github.com/sgl-project/sglang/commit/652614ed", "https://example.com/x"} {
		st, err := c.Status(context.Background(), u)
		if !errors.Is(err, ErrNotMergeable) || st.State != StateUnknown || st.OK() {
			t.Errorf("%s: %+v %v", u, st, err)
		}
	}
}

// TestStatusFailsClosed: a PR whose merge state cannot be read — 5xx forever,
// a malformed body, "merged" without mergedAt, 404 — is unknown, not OK, with
// an error.
func TestStatusFailsClosed(t *testing.T) {
	s := statusFake(t)
	c, rec := newClient(t, s, "")
	s.AddFault(&fakegithub.Fault{Path: `/pulls/44712$`, Count: -1, Status: 503, Body: `{"message":"Service Unavailable"}`})
	s.AddFault(&fakegithub.Fault{Path: `/pulls/44713$`, Count: -1, Status: 200, Body: `{"number": 44713, "state": "open", "merged": tru`})
	s.AddFault(&fakegithub.Fault{Path: `/pulls/44714$`, Count: -1, Status: 200, Body: `{"number": 44714, "state": "closed", "merged": true, "merged_at": null}`})
	s.AddFault(&fakegithub.Fault{Path: `/pulls/44715$`, Count: -1, Status: 200, Body: `{"number": 44715}`})
	urls := []string{
		"https://github.com/sgl-project/sglang/pull/44712",
		"https://github.com/sgl-project/sglang/pull/44713",
		"https://github.com/sgl-project/sglang/pull/44714",
		"https://github.com/sgl-project/sglang/pull/44715",
		"https://github.com/sgl-project/sglang/pull/99999", // 404
		"https://github.com/sgl-project/sglang/pull/45111", // the one readable, merged
	}
	rs := c.StatusAll(context.Background(), urls)
	if len(rs) != len(urls) {
		t.Fatalf("%d results", len(rs))
	}
	for i, r := range rs[:5] {
		if r.Err == nil || r.State != StateUnknown || r.OK() {
			t.Errorf("%s: %+v err=%v: want unknown with an error", urls[i], r.LinkState, r.Err)
		}
	}
	if !rs[5].OK() || rs[5].Err != nil {
		t.Errorf("merged PR: %+v %v", rs[5], rs[5].Err)
	}
	if AllOK(rs) {
		t.Error("AllOK true with unreadable links")
	}
	// 5xx forever: retried MaxRetries (4) times with backoff, then given up.
	if want := []time.Duration{1 * time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}; len(rec.waits) != 4 || rec.waits[3] != want[3] {
		t.Errorf("waits %v, want %v", rec.waits, want)
	}
	b, err := json.Marshal(rs[0])
	if err != nil || !strings.Contains(string(b), `"state":"unknown"`) || !strings.Contains(string(b), `"error":"pr sgl-project/sglang#44712: merge state unreadable`) {
		t.Errorf("json %s %v", b, err)
	}
}

// TestStatusConditionalRequests: the second read of unchanged links is
// answered with 304s from the per-Client ETag cache.
func TestStatusConditionalRequests(t *testing.T) {
	s := statusFake(t)
	c, _ := newClient(t, s, "")
	urls := []string{"https://github.com/sgl-project/sglang/pull/45111", "https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5"}
	first := c.StatusAll(context.Background(), urls)
	req1, nm1, _ := c.Stats().Snapshot()
	second := c.StatusAll(context.Background(), urls)
	req2, nm2, _ := c.Stats().Snapshot()
	if nm1 != 0 || nm2-nm1 != req2-req1 || req2-req1 != 3 {
		t.Errorf("requests %d→%d, 304s %d→%d", req1, req2, nm1, nm2)
	}
	for i := range first {
		if first[i].State != second[i].State || !second[i].OK() {
			t.Errorf("%s: %v then %v", urls[i], first[i].State, second[i].State)
		}
	}
	n304 := 0
	for _, r := range s.Recorded() {
		if r.Status == 304 {
			n304++
			if r.Header.Get("If-None-Match") == "" {
				t.Error("304 without If-None-Match")
			}
		}
	}
	if n304 != 3 {
		t.Errorf("%d 304s recorded", n304)
	}
	// A different Client has its own cache.
	c2, _ := newClient(t, s, "")
	c2.StatusAll(context.Background(), urls)
	if _, nm, _ := c2.Stats().Snapshot(); nm != 0 {
		t.Errorf("fresh client got %d 304s", nm)
	}
}

func TestPageSourceMapping(t *testing.T) {
	repo, files, ok, err := PageSource("https://docs.sglang.io/cookbook/autoregressive/DeepSeek/DeepSeek-V4")
	if err != nil || !ok || repo != "sgl-project/sglang" || files[0] != "docs/cookbook/autoregressive/DeepSeek/DeepSeek-V4.mdx" {
		t.Errorf("%s %v %v %v", repo, files, ok, err)
	}
	repo, files, ok, err = PageSource("https://recipes.vllm.ai/meta-llama/Llama-3.1-8B-Instruct")
	if err != nil || !ok || repo != "vllm-project/recipes" || len(files) != 1 || files[0] != "models/meta-llama/Llama-3.1-8B-Instruct.yaml" {
		t.Errorf("%s %v %v %v", repo, files, ok, err)
	}
	if _, _, ok, _ := PageSource("https://recipes.vllm.ai/"); ok {
		t.Error("site root mapped")
	}
	if _, _, _, err := PageSource("https://docs.sglang.io/cookbook/a/../../etc"); err == nil {
		t.Error("dot-dot page accepted")
	}
}
