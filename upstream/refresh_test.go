package upstream

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

const ixRepo = "SemiAnalysisAI/InferenceX"

func TestRefresh(t *testing.T) {
	src, err := os.ReadFile("testdata/refresh/agentx.jsx")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/refresh/agentx.refreshed.jsx")
	if err != nil {
		t.Fatal(err)
	}
	s := fakegithub.New()
	t.Cleanup(s.Close)
	s.AddRepo(ixRepo, "main", map[string]string{"README.md": "x\n"})
	merged := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	s.AddPull(ixRepo, &fakegithub.Pull{Number: 101, State: "closed", Merged: true, MergedAt: &merged, Head: "a", Base: "main"})
	for _, n := range []int{102, 103, 104} {
		s.AddPull(ixRepo, &fakegithub.Pull{Number: n, State: "open", Head: "b", Base: "main"})
	}
	s.AddRun(ixRepo, &fakegithub.Run{ID: 9001, Status: "completed", Conclusion: "success",
		Attempts: map[int]*fakegithub.Run{2: {Status: "completed", Conclusion: "success"}}})
	s.AddRun(ixRepo, &fakegithub.Run{ID: 9002, Status: "completed", Conclusion: "success"})
	s.AddRun(ixRepo, &fakegithub.Run{ID: 9004, Status: "completed", Conclusion: "failure"})
	c, _ := newClient(t, s, "")
	got, changes, err := c.Refresh(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("refreshed text differs from testdata/refresh/agentx.refreshed.jsx:\n%s", UnifiedDiff(string(want), string(got)))
	}
	type row struct {
		line     int
		from, to string
		applied  bool
	}
	wantRows := []row{{13, "verified-pr", "verified", true}, {18, "in-progress", "verified-pr", true}, {23, "in-progress", "in-progress", false},
		{28, "verified-pr", "verified-pr", false}, {39, "verified-pr", "verified", true}, {46, "in-progress", "verified-pr", true},
		{56, "in-progress", "in-progress", false}, {65, "verified-pr", "verified", true}, {73, "verified-pr", "verified-pr", false}}
	if len(changes) != len(wantRows) {
		t.Fatalf("%d changes: %+v", len(changes), changes)
	}
	for i, w := range wantRows {
		ch := changes[i]
		if ch.Line != w.line || ch.From != w.from || ch.To != w.to || ch.Applied != w.applied || ch.Reason == "" {
			t.Errorf("change %d: %+v, want %+v", i, ch, w)
		}
	}
	if changes[0].Path != `source.prs["101"].status` || changes[4].Path != "cells[0].prov.status" || changes[5].Path != "cells[0].points[0].status" {
		t.Errorf("paths %q %q %q", changes[0].Path, changes[4].Path, changes[5].Path)
	}
	if !strings.Contains(changes[3].Reason, "concluded failure") || !strings.Contains(changes[2].Reason, "no run cited") {
		t.Errorf("reasons %q / %q", changes[3].Reason, changes[2].Reason)
	}
	// Refreshing the refreshed text changes nothing more.
	again, ch2, err := c.Refresh(context.Background(), got)
	if err != nil || !bytes.Equal(again, got) {
		t.Errorf("second refresh changed the text: %v", err)
	}
	for _, ch := range ch2 {
		if ch.Applied {
			t.Errorf("second refresh applied %+v", ch)
		}
	}
}

func TestRefreshFailsOnAPIError(t *testing.T) {
	src, _ := os.ReadFile("testdata/refresh/agentx.jsx")
	s := fakegithub.New()
	t.Cleanup(s.Close)
	s.AddRepo(ixRepo, "main", nil)
	s.AddFault(&fakegithub.Fault{Path: `/actions/runs/`, Count: -1, Status: 500})
	c, _ := newClient(t, s, "")
	if out, _, err := c.Refresh(context.Background(), src); err == nil || out != nil {
		t.Errorf("refresh with a failing API: %v", err)
	}
}

func TestRefreshBadInput(t *testing.T) {
	c, _ := New(Options{APIURL: "http://127.0.0.1:1/"})
	for _, src := range []string{"", "export const agentx = [];", "export const agentx = {\n \"a\": 1,\n \"b\": }\n;", "export const agentx = {\"model\": 1};"} {
		if _, _, err := c.Refresh(context.Background(), []byte(src)); err == nil {
			t.Errorf("%q accepted", src)
		}
	}
	_, _, err := c.Refresh(context.Background(), []byte("export const agentx = {\n \"a\": 1,\n \"b\": }\n;"))
	if err == nil || !strings.Contains(err.Error(), "snippet:3:") {
		t.Errorf("error lacks line:col: %v", err)
	}
}

// TestCorpusRefresh runs Refresh on the real AgentX snippets in
// ../shared/corpus with every cited InferenceX PR merged and every run
// successful: each verified-pr record (all cite a run) becomes verified, the
// in-progress ones (no run cited) are reported, and no other byte changes.
func TestCorpusRefresh(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testutil.SharedPath(t, "corpus/sglang/docs/src/snippets/agentx"), "*", "*.jsx"))
	if len(files) == 0 {
		t.Fatal("no AgentX snippets in ../shared/corpus")
	}
	prRe := regexp.MustCompile(`"pr": "([0-9]+)"|"([0-9]+)": \{\n\s+"run"`)
	runRe := regexp.MustCompile(`actions/runs/([0-9]+)|"run": "([0-9]+)`)
	statusRe := regexp.MustCompile(`"status": "(in-progress|verified-pr)"`)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := fakegithub.New()
			defer s.Close()
			s.AddRepo(ixRepo, "main", nil)
			merged := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
			seen := map[string]bool{}
			for _, m := range prRe.FindAllStringSubmatch(string(src), -1) {
				n := m[1] + m[2]
				if !seen[n] {
					seen[n] = true
					num, _ := strconv.Atoi(n)
					s.AddPull(ixRepo, &fakegithub.Pull{Number: num, State: "closed", Merged: true, MergedAt: &merged, Head: "x", Base: "main"})
				}
			}
			for _, m := range runRe.FindAllStringSubmatch(string(src), -1) {
				id, _ := strconv.ParseInt(m[1]+m[2], 10, 64)
				s.AddRun(ixRepo, &fakegithub.Run{ID: id, Status: "completed", Conclusion: "success"})
			}
			c, _ := newClient(t, s, "")
			out, changes, err := c.Refresh(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			nVerifiedPR := strings.Count(string(src), `"status": "verified-pr"`)
			nInProgress := strings.Count(string(src), `"status": "in-progress"`)
			applied, notes := 0, 0
			for _, ch := range changes {
				if ch.Applied {
					applied++
					if ch.To != ProvVerified {
						t.Errorf("%+v: want verified", ch)
					}
				} else {
					notes++
				}
			}
			if applied != nVerifiedPR || notes != nInProgress {
				t.Errorf("applied %d (want %d verified-pr records), notes %d (want %d in-progress records)", applied, nVerifiedPR, notes, nInProgress)
			}
			if got := strings.Count(string(out), `"status": "verified-pr"`); got != 0 {
				t.Errorf("%d verified-pr left", got)
			}
			inL, outL := strings.Split(string(src), "\n"), strings.Split(string(out), "\n")
			if len(inL) != len(outL) {
				t.Fatalf("line count %d → %d", len(inL), len(outL))
			}
			changed := 0
			for i := range inL {
				if inL[i] == outL[i] {
					continue
				}
				changed++
				if !statusRe.MatchString(inL[i]) || statusRe.ReplaceAllString(inL[i], `"status": "verified"`) != outL[i] {
					t.Errorf("line %d: %q → %q", i+1, inL[i], outL[i])
				}
			}
			if changed != applied {
				t.Errorf("%d lines changed, %d changes applied", changed, applied)
			}
		})
	}
}
