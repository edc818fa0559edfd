package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/report"
	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

// upstreamFake is a fake GitHub holding sgl-project/sglang with a merged PR
// (45111, merged 2026-10-05T09:30:00Z), an open PR (45113), a draft
// (45112), a closed-unmerged PR (45114), a PR whose reads fail with 502
// forever (45115) and one whose body is malformed JSON (45116). It requires
// the token for writes; coverage only reads.
func upstreamFake(t *testing.T) *fakegithub.Server {
	t.Helper()
	s := cliFake(t)
	merged := time.Date(2026, 10, 5, 9, 30, 0, 0, time.UTC)
	s.Commit(cliRepo, "feature", "dev", "f\n", map[string]string{"x": "y\n"})
	s.AddPull(cliRepo, &fakegithub.Pull{Number: 45111, State: "closed", Merged: true, MergedAt: &merged, Head: "feature", Base: "main"})
	s.AddPull(cliRepo, &fakegithub.Pull{Number: 45112, State: "open", Draft: true, Head: "feature", Base: "main"})
	s.AddPull(cliRepo, &fakegithub.Pull{Number: 45113, State: "open", Head: "feature", Base: "main"})
	s.AddPull(cliRepo, &fakegithub.Pull{Number: 45114, State: "closed", Head: "feature", Base: "main"})
	s.AddPull(cliRepo, &fakegithub.Pull{Number: 45115, State: "closed", Merged: true, MergedAt: &merged, Head: "feature", Base: "main"})
	s.AddPull(cliRepo, &fakegithub.Pull{Number: 45116, State: "closed", Merged: true, MergedAt: &merged, Head: "feature", Base: "main"})
	// (Retry-After: 0: the retry is made at once, the test does not wait
	// the 1 s backoff)
	s.AddFault(&fakegithub.Fault{Path: `/pulls/45115$`, Count: -1, Status: 502, Header: map[string]string{"Retry-After": "0"}, Body: "bad gateway"})
	s.AddFault(&fakegithub.Fault{Path: `/pulls/45116$`, Count: -1, Status: 200, Body: `{"number": 45116, "state": "clo`})
	return s
}

const prURL = "https://github.com/sgl-project/sglang/pull/"

// coverageUp runs coverage on the demo's agg config key (every compared role
// covered with exclusions; its one point whose recipe is not in the demo
// tree is listed under --allow-unverified, so the links decide the exit
// code) with --upstream links against the fake.
func coverageUp(t *testing.T, s *fakegithub.Server, format string, links ...string) (int, string, string) {
	t.Helper()
	infx, cb := demoDirs(t)
	args := []string{"--infx", infx, "--cookbook", cb, "--config-key", "*-agentic-agg", "--allow-unverified", "--format", format,
		"--api-url", s.URL, "--retries", "1"}
	for _, l := range links {
		args = append(args, "--upstream", l)
	}
	return runCoverageCLI(t, args...)
}

func TestCoverageUpstreamMerged(t *testing.T) {
	s := upstreamFake(t)
	t.Setenv("GH_TOKEN", cliToken)
	t.Setenv("GITHUB_TOKEN", "")
	code, out, errs := coverageUp(t, s, "text", prURL+"45111", "https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5")
	if code != exitOK {
		t.Fatalf("merged PR + existing page: exit %d, want 0: %s\n%s", code, errs, out)
	}
	for _, want := range []string{
		"  ok  merged          " + prURL + "45111 (mergedAt 2026-10-05T09:30:00Z)\n",
		"  ok  exists          https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5 (docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx sgl-project/sglang@main)\n",
		"Upstream links: exists 1, merged 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// JSON: the links, in order, with mergedAt; no gap.
	code, out, _ = coverageUp(t, s, "json", prURL+"45111")
	var rep struct {
		SchemaVersion  int `json:"schemaVersion"`
		SchemaRevision int `json:"schemaRevision"`
		Upstream       []struct {
			URL, Kind, State, Repo, Error string
			Number                        int
			MergedAt                      *time.Time
			OK                            bool
		} `json:"upstream"`
		Counts struct{ Links map[string]int }
		Gap    bool `json:"gap"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if code != exitOK || rep.Gap || rep.SchemaVersion != 2 || rep.SchemaRevision != report.SchemaRevision || len(rep.Upstream) != 1 {
		t.Fatalf("exit %d: %+v", code, rep)
	}
	u := rep.Upstream[0]
	if u.URL != prURL+"45111" || u.Kind != "pr" || u.State != "merged" || u.Repo != cliRepo || u.Number != 45111 || !u.OK ||
		u.MergedAt == nil || !u.MergedAt.Equal(time.Date(2026, 10, 5, 9, 30, 0, 0, time.UTC)) || rep.Counts.Links["merged"] != 1 {
		t.Errorf("link %+v counts %v", u, rep.Counts.Links)
	}
}

func TestCoverageUpstreamNotMerged(t *testing.T) {
	s := upstreamFake(t)
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	for _, c := range []struct{ n, state string }{{"45113", "open"}, {"45112", "draft"}, {"45114", "closed-unmerged"}} {
		code, out, _ := coverageUp(t, s, "text", prURL+"45111", prURL+c.n)
		if code != exitGap || !strings.Contains(out, "  GAP "+c.state+strings.Repeat(" ", 16-len(c.state))+prURL+c.n+"\n") {
			t.Errorf("%s PR: exit %d, want 1:\n%s", c.state, code, out)
		}
	}
	code, out, _ := coverageUp(t, s, "markdown", prURL+"45113")
	if code != exitGap {
		t.Errorf("markdown: exit %d, want 1", code)
	}
	checkMarkdown(t, out, "❌ Check 3: 1 gap — link not merged 1 (of 1 config key; not verified (allowed) 1)")
	for _, want := range []string{
		"- Upstream links (Check 3 (b): a merged PR or a published page):\n  - ❌ " + prURL + "45113 — open\n",
		"- Not verified: 1 (listed, not a gap: --allow-unverified)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

// TestCoverageUpstreamFailsClosed: a merge state that cannot be read (5xx
// on every retry, a malformed answer, a link that is no PR or page) makes
// coverage exit 1 with "unknown" — never 0 — and the token never appears in
// the output.
func TestCoverageUpstreamFailsClosed(t *testing.T) {
	s := upstreamFake(t)
	t.Setenv("GH_TOKEN", cliToken)
	t.Setenv("GITHUB_TOKEN", "")
	for _, c := range []struct{ name, link, err string }{
		{"5xx forever", prURL + "45115", "502"},
		{"malformed", prURL + "45116", ""},
		{"branch link", "https://github.com/sgl-project/sglang/tree/main", ""},
	} {
		for _, format := range []string{"text", "markdown", "json"} {
			code, out, errs := coverageUp(t, s, format, prURL+"45111", c.link)
			if code != exitGap {
				t.Errorf("%s %s: exit %d, want 1: %s\n%s", c.name, format, code, errs, out)
			}
			if !strings.Contains(out, "unknown") || !strings.Contains(out, c.err) {
				t.Errorf("%s %s: output lacks unknown / %q:\n%s", c.name, format, c.err, out)
			}
			if strings.Contains(out+errs, cliToken) || strings.Contains(out+errs, cliToken[4:20]) {
				t.Errorf("%s %s: token in output", c.name, format)
			}
		}
	}
	code, out, _ := coverageUp(t, s, "json", prURL+"45115")
	var rep struct {
		Upstream []struct{ State, Error string }
		LinkGap  bool `json:"linkGap"`
		Gap      bool `json:"gap"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitGap || !rep.Gap || !rep.LinkGap ||
		len(rep.Upstream) != 1 || rep.Upstream[0].State != "unknown" || !strings.Contains(rep.Upstream[0].Error, "502") {
		t.Errorf("json: exit %d %v %+v", code, err, rep)
	}
	// The token went only into the Authorization header, never a URL; the
	// 502 read was tried twice per run (--retries 1: 4 runs, 8 reads).
	s.Mu.Lock()
	defer s.Mu.Unlock()
	reads502 := 0
	for _, r := range s.Requests {
		if strings.Contains(r.URL, cliToken) || strings.Contains(r.Body, cliToken) {
			t.Errorf("token in request %s %s", r.Method, r.URL)
		}
		if strings.HasSuffix(r.URL, "/pulls/45115") && r.Status == 502 {
			reads502++
		}
	}
	if reads502 != 8 {
		t.Errorf("%d reads of the 502 PR, want 8 (each of 4 runs: one try and one retry)", reads502)
	}
	// A bad --api-url is bad usage.
	infx, cb := demoDirs(t)
	if code, _, errs := runCoverageCLI(t, "--infx", infx, "--cookbook", cb, "--upstream", prURL+"1", "--api-url", "ftp://x"); code != exitUsage {
		t.Errorf("bad --api-url: exit %d %s", code, errs)
	}
}
