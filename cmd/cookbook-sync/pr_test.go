package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

const (
	cliToken   = "ghp_CLItokenMUSTnotLEAK0123456789abcdef"
	cliRepo    = "sgl-project/sglang"
	cliSnippet = "docs/src/snippets/agentx/Qwen/qwen3.5.jsx"
	cliBranch  = "cookbook-sync/qwen/qwen3.5"
)

// cliSnippetText is a minimal valid AgentX snippet (the pr commands parse
// every --file for docs/src/snippets/agentx/**.jsx with cookbook.Parse); the
// version v only changes the "model" line.
func cliSnippetText(v string) string {
	return `export const agentx = {
 "model": "Qwen3.5 ` + v + `",
 "cells": [
  {
   "id": "agg-tp4",
   "label": "Agg TP4",
   "submitted": "sglang",
   "routers": {"sglang": {"blocks": [{"kind": "worker", "role": "agg", "cmd": "python3 -m sglang.launch_server", "args": [["--tp", "4"]]}]}},
   "points": [{"concs": [1], "kv": "none"}]
  }
 ]
};
`
}

// cliModelLine is the line of cliSnippetText(v) that differs between versions.
func cliModelLine(v string) string { return "\n \"model\": \"Qwen3.5 " + v + "\",\n" }

// cliRun runs the CLI in-process and returns exit code, stdout, stderr.
func cliRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func cliFake(t *testing.T) *fakegithub.Server {
	t.Helper()
	s := fakegithub.New()
	t.Cleanup(s.Close)
	s.Token = cliToken
	s.AddRepo(cliRepo, "main", map[string]string{cliSnippet: "old\n", "docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx": "# Qwen3.5\n"})
	return s
}

// TestPRApplyTenTimes: `pr apply` run 10 times (content changing twice)
// leaves exactly one branch, one PR and one commit per real change; the token
// appears in no output, request URL or request body.
func TestPRApplyTenTimes(t *testing.T) {
	s := cliFake(t)
	t.Setenv("GH_TOKEN", cliToken)
	t.Setenv("GITHUB_TOKEN", "")
	dir := t.TempDir()
	local := filepath.Join(dir, "qwen3.5.jsx")
	cov := filepath.Join(dir, "coverage.txt")
	os.WriteFile(cov, []byte("agg TP4: covered\ndecode TP4: covered\n"), 0o644)
	args := []string{"pr", "apply", "--api-url", s.URL, "--retries", "0", "--repo", cliRepo, "--model", "Qwen/qwen3.5",
		"--file", cliSnippet + "=" + local, "--inferencex-sha", "ceb50ba212080174e0563d2be1db9b0d654ab2ef",
		"--config-key", "qwen3.5-fp8-gb300-dynamo-sglang-agentic", "--run", "37714835620", "--coverage", cov}
	var outputs []string
	commits := 0
	for i, v := range []string{"v1", "v1", "v1", "v2", "v2", "v2", "v2", "v3", "v3", "v3"} {
		os.WriteFile(local, []byte(cliSnippetText(v)), 0o644)
		code, out, errOut := cliRun(t, args...)
		outputs = append(outputs, out, errOut)
		if code != 0 {
			t.Fatalf("apply %d: exit %d\n%s%s", i+1, code, out, errOut)
		}
		if strings.Contains(out, "\ncommit ") {
			commits++
		}
		if i == 0 && !strings.Contains(out, "opened PR #1 https://github.com/sgl-project/sglang/pull/1") {
			t.Errorf("first apply output:\n%s", out)
		}
		if i == 1 && !strings.HasPrefix(out, "none: ") {
			t.Errorf("second apply output:\n%s", out)
		}
	}
	if commits != 3 {
		t.Errorf("%d commits, want 3", commits)
	}
	if got := s.Branches(cliRepo); strings.Join(got, ",") != cliBranch+",main" {
		t.Errorf("branches %v", got)
	}
	if n := s.CommitsOn(cliRepo, cliBranch, "main"); n != 3 {
		t.Errorf("%d commits on the branch, want 3", n)
	}
	if n := len(s.Repos[cliRepo].Pulls); n != 1 {
		t.Errorf("%d PRs, want 1", n)
	}

	// plan (json, diff) and status outputs are scanned too.
	code, out, errOut := cliRun(t, append([]string{"pr", "plan", "--format", "json"}, args[2:]...)...)
	outputs = append(outputs, out, errOut)
	var plan struct {
		Action, Branch string
		Existing       struct{ Number int }
	}
	if code != 0 || json.Unmarshal([]byte(out), &plan) != nil || plan.Action != "none" || plan.Branch != cliBranch || plan.Existing.Number != 1 {
		t.Errorf("plan json: exit %d %+v\n%s%s", code, plan, out, errOut)
	}
	os.WriteFile(local, []byte(cliSnippetText("v4")), 0o644)
	code, out, errOut = cliRun(t, append([]string{"pr", "plan"}, args[2:]...)...)
	outputs = append(outputs, out, errOut)
	if code != 0 || !strings.Contains(out, "@@ -1,5 +1,5 @@\n export const agentx = {"+strings.Replace(cliModelLine("v3"), "\n", "\n-", 1)+"+"+cliModelLine("v4")[1:]) || !strings.Contains(out, "# action: update") {
		t.Errorf("plan diff: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cliRun(t, "upstream", "status", "--api-url", s.URL, "https://github.com/sgl-project/sglang/pull/1")
	outputs = append(outputs, out, errOut)
	if code != 1 || !strings.HasPrefix(out, "open ") {
		t.Errorf("status of the open PR: exit %d\n%s%s", code, out, errOut)
	}
	// Someone else pushes: apply stops with exit 1 and says so.
	s.Commit(cliRepo, cliBranch, "octocat", "human edit\n", map[string]string{"README.md": "x\n"})
	code, out, errOut = cliRun(t, args...)
	outputs = append(outputs, out, errOut)
	if code != 1 || !strings.Contains(errOut, "someone else pushed") {
		t.Errorf("apply after a foreign push: exit %d\n%s%s", code, out, errOut)
	}
	if n := len(s.Repos[cliRepo].Pulls); n != 1 {
		t.Errorf("%d PRs after the refused apply", n)
	}

	for i, o := range outputs {
		if strings.Contains(o, cliToken) || strings.Contains(o, cliToken[4:20]) {
			t.Errorf("output %d contains the token", i)
		}
	}
	reqs := s.Recorded()
	if len(reqs) == 0 {
		t.Fatal("no requests recorded")
	}
	for _, r := range reqs {
		if strings.Contains(r.URL, cliToken) || strings.Contains(r.Body, cliToken) {
			t.Errorf("token in request %s %s", r.Method, r.URL)
		}
		for k, vs := range r.Header {
			for _, v := range vs {
				if k != "Authorization" && strings.Contains(v, cliToken) {
					t.Errorf("token in header %s of %s %s", k, r.Method, r.URL)
				}
			}
		}
		if r.Auth != "Bearer "+cliToken {
			t.Errorf("%s %s: Authorization %q", r.Method, r.URL, r.Auth)
		}
	}
}

func TestPRApplyNeedsToken(t *testing.T) {
	s := cliFake(t)
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	local := filepath.Join(t.TempDir(), "f")
	os.WriteFile(local, []byte(cliSnippetText("v1")), 0o644)
	code, _, errOut := cliRun(t, "pr", "apply", "--api-url", s.URL, "--repo", cliRepo, "--model", "Qwen/qwen3.5", "--file", cliSnippet+"="+local)
	if code != 2 || !strings.Contains(errOut, "GH_TOKEN") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	// plan works without a token and writes nothing.
	code, out, errOut := cliRun(t, "pr", "plan", "--api-url", s.URL, "--repo", cliRepo, "--model", "Qwen/qwen3.5", "--file", cliSnippet+"="+local)
	if code != 0 || !strings.Contains(out, "-old\n+export const agentx = {"+strings.Replace(cliModelLine("v1"), "\n", "\n+", 1)) {
		t.Errorf("plan: exit %d\n%s%s", code, out, errOut)
	}
	for _, r := range s.Recorded() {
		if r.Method != "GET" {
			t.Errorf("plan sent %s %s", r.Method, r.URL)
		}
	}
}

func TestPRUsage(t *testing.T) {
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	local := filepath.Join(t.TempDir(), "f")
	os.WriteFile(local, []byte("x\n"), 0o644)
	for _, args := range [][]string{
		{"pr", "plan", "--model", "m", "--file", "a=" + local},
		{"pr", "plan", "--repo", cliRepo, "--file", "a=" + local},
		{"pr", "plan", "--repo", cliRepo, "--model", "m"},
		{"pr", "plan", "--repo", cliRepo, "--model", "m", "--file", "a"},
		{"pr", "plan", "--repo", cliRepo, "--model", "../m", "--file", "a=" + local},
		{"pr", "plan", "--repo", cliRepo, "--model", "m", "--file", "a=/nonexistent/x"},
		{"pr", "plan", "--repo", cliRepo, "--model", "m", "--file", "a=" + local, "--format", "yaml"},
		{"pr", "plan", "--repo", cliRepo, "--model", "m", "--file", "../a=" + local, "--api-url", "http://127.0.0.1:1/"},
		{"pr", "plan", "--repo", cliRepo, "--model", "m", "--file", "a=" + local, "--api-url", "ftp://x"},
	} {
		if code, _, errOut := cliRun(t, args...); code != 2 {
			t.Errorf("%v: exit %d (%s)", args, code, errOut)
		}
	}
}

func TestUpstreamStatusCLI(t *testing.T) {
	s := cliFake(t)
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	merged := time.Date(2026, 10, 5, 9, 30, 0, 0, time.UTC)
	s.Commit(cliRepo, "feature", "dev", "f\n", map[string]string{"x": "y\n"})
	s.AddPull(cliRepo, &fakegithub.Pull{Number: 45111, State: "closed", Merged: true, MergedAt: &merged, Head: "feature", Base: "main"})
	s.AddPull(cliRepo, &fakegithub.Pull{Number: 45112, State: "open", Draft: true, Head: "feature", Base: "main"})
	s.AddPull(cliRepo, &fakegithub.Pull{Number: 45113, State: "open", Head: "feature", Base: "main"})
	s.AddFault(&fakegithub.Fault{Path: `/pulls/45113$`, Count: -1, Status: 502, Body: "bad gateway"})
	api := []string{"upstream", "status", "--api-url", s.URL, "--retries", "0"}

	code, out, _ := cliRun(t, append(api, "https://github.com/sgl-project/sglang/pull/45111", "https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5")...)
	want := "merged          https://github.com/sgl-project/sglang/pull/45111 (mergedAt 2026-10-05T09:30:00Z)\n" +
		"exists          https://docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5 (docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx sgl-project/sglang@main)\n"
	if code != 0 || out != want {
		t.Errorf("exit %d\n%s\nwant\n%s", code, out, want)
	}
	code, out, _ = cliRun(t, append(api, "https://github.com/sgl-project/sglang/pull/45111", "https://github.com/sgl-project/sglang/pull/45112")...)
	if code != 1 || !strings.Contains(out, "draft           https://github.com/sgl-project/sglang/pull/45112") {
		t.Errorf("draft: exit %d\n%s", code, out)
	}
	// Fails closed when the merge state cannot be read.
	code, out, _ = cliRun(t, append(api, "--format", "json", "https://github.com/sgl-project/sglang/pull/45113")...)
	var rs []struct{ URL, State, Error string }
	if code != 1 || json.Unmarshal([]byte(out), &rs) != nil || len(rs) != 1 || rs[0].State != "unknown" || !strings.Contains(rs[0].Error, "502") {
		t.Errorf("unreadable: exit %d\n%s", code, out)
	}
	if code, _, _ := cliRun(t, "upstream", "status"); code != 2 {
		t.Errorf("no URL: exit %d", code)
	}
	if code, _, _ := cliRun(t, append(api, "--format", "xml", "https://github.com/a/b/pull/1")...); code != 2 {
		t.Errorf("bad format: exit %d", code)
	}
}

func TestUpstreamRefreshCLI(t *testing.T) {
	s, src, want := refreshFixture(t)
	file := filepath.Join(t.TempDir(), "qwen3.5.jsx")
	os.WriteFile(file, src, 0o644)

	code, out, errOut := cliRun(t, "upstream", "refresh", "--api-url", s.URL, file)
	if code != 0 || !strings.Contains(out, file+`:13: source.prs["101"].status: verified-pr → verified`) || !strings.Contains(out, "5 status changes (not written; use --write)") {
		t.Errorf("dry run: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, src) {
		t.Error("dry run wrote the file")
	}
	code, out, errOut = cliRun(t, "upstream", "refresh", "--api-url", s.URL, "--write", file)
	if code != 0 || !strings.Contains(out, "5 status changes written") {
		t.Errorf("write: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, want) {
		t.Error("written file differs from upstream/testdata/refresh/agentx.refreshed.jsx")
	}
	// API failure: exit 1, file untouched.
	os.WriteFile(file, src, 0o644)
	s.AddFault(&fakegithub.Fault{Path: `/actions/runs/`, Count: -1, Status: 500})
	if code, _, _ := cliRun(t, "upstream", "refresh", "--api-url", s.URL, "--retries", "0", "--write", file); code != 1 {
		t.Errorf("API failure: exit %d", code)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, src) {
		t.Error("failed refresh wrote the file")
	}
	bad := filepath.Join(t.TempDir(), "bad.jsx")
	os.WriteFile(bad, []byte("export const agentx = {\n \"a\": ,\n};\n"), 0o644)
	if code, _, errOut := cliRun(t, "upstream", "refresh", "--api-url", s.URL, bad); code != 2 || !strings.Contains(errOut, "snippet:2:") {
		t.Errorf("bad snippet: exit %d %s", code, errOut)
	}
}

// TestPRApplySavedPlan: `pr plan --format json > FILE` then `pr apply --plan FILE`.
func TestPRApplySavedPlan(t *testing.T) {
	s := cliFake(t)
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", cliToken) // the second variable is read too
	dir := t.TempDir()
	local := filepath.Join(dir, "qwen3.5.jsx")
	os.WriteFile(local, []byte(cliSnippetText("v1")), 0o644)
	code, out, errOut := cliRun(t, "pr", "plan", "--format", "json", "--api-url", s.URL, "--repo", cliRepo, "--model", "Qwen/qwen3.5", "--file", cliSnippet+"="+local)
	if code != 0 {
		t.Fatalf("plan: exit %d %s", code, errOut)
	}
	planFile := filepath.Join(dir, "plan.json")
	os.WriteFile(planFile, []byte(out), 0o644)
	code, out, errOut = cliRun(t, "pr", "apply", "--api-url", s.URL, "--plan", planFile, "--format", "json")
	var res struct {
		Action  string
		PR      int
		Created bool
		Commit  string
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || res.Action != "create" || res.PR != 1 || !res.Created || res.Commit == "" {
		t.Errorf("apply --plan: exit %d %+v\n%s%s", code, res, out, errOut)
	}
	// Applying the same saved plan again is a no-op (the live state is re-read).
	code, out, _ = cliRun(t, "pr", "apply", "--api-url", s.URL, "--plan", planFile)
	if code != 0 || !strings.HasPrefix(out, "none: ") || len(s.Repos[cliRepo].Pulls) != 1 {
		t.Errorf("second apply --plan: exit %d\n%s", code, out)
	}
	if code, _, _ := cliRun(t, "pr", "apply", "--api-url", s.URL, "--plan", planFile, "--repo", cliRepo); code != 2 {
		t.Errorf("--plan with --repo: exit %d", code)
	}
}

// TestPRPlanSaysRemovedCells: a plan whose snippet drops cells of the file
// upstream says how many and which before anything is pushed.
func TestPRPlanSaysRemovedCells(t *testing.T) {
	s := fakegithub.New()
	t.Cleanup(s.Close)
	s.Token = cliToken
	two := strings.Replace(cliSnippetText("v1"), "\n ]\n};", `,
  {
   "id": "agg-tp8",
   "label": "Agg TP8",
   "submitted": "sglang",
   "routers": {"sglang": {"blocks": [{"kind": "worker", "role": "agg", "cmd": "python3 -m sglang.launch_server", "args": [["--tp", "8"]]}]}},
   "points": [{"concs": [1], "kv": "none"}]
  }
 ]
};`, 1)
	s.AddRepo(cliRepo, "main", map[string]string{cliSnippet: two})
	t.Setenv("GH_TOKEN", cliToken)
	t.Setenv("GITHUB_TOKEN", "")
	local := filepath.Join(t.TempDir(), "qwen3.5.jsx")
	os.WriteFile(local, []byte(cliSnippetText("v2")), 0o644)
	code, out, errOut := cliRun(t, "pr", "plan", "--api-url", s.URL, "--retries", "0", "--repo", cliRepo, "--model", "Qwen/qwen3.5",
		"--file", cliSnippet+"="+local, "--inferencex-sha", "ceb50ba212080174e0563d2be1db9b0d654ab2ef")
	if code != 0 || !strings.Contains(out, "# "+cliSnippet+": removes 1 cell: agg-tp8\n") {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s", code, out, errOut)
	}
}

// TestHostileSavedPlanJSONPosition: a saved plan that is not valid JSON
// (or has a wrong type) is bad input with its line:col.
func TestHostileSavedPlanJSONPosition(t *testing.T) {
	t.Setenv("GH_TOKEN", cliToken)
	dir := t.TempDir()
	for _, c := range []struct{ data, want string }{
		{"{\n  \"branch\": \"x\",\n  \"files\": [}\n", "plan.json:3:13: invalid character '}'"},
		{"{\n  \"files\": 7\n}\n", "plan.json:2:12: json: cannot unmarshal number"},
		{"{\n  \"branch\": ", "plan.json:2:13: unexpected end of JSON input"},
	} {
		p := filepath.Join(dir, "plan.json")
		os.WriteFile(p, []byte(c.data), 0o644)
		code, _, errOut := cliRun(t, "pr", "apply", "--plan", p)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.data, code, errOut, c.want)
		}
	}
}
