package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/upstream/fakegithub"
)

// hostilePR is a GET pulls/{n} answer.
func hostilePR(number int, repo, state string, merged bool, mergedAt string) string {
	return fmt.Sprintf(`{"number":%d,"state":%q,"merged":%v,"merged_at":%q,"title":"t","base":{"ref":"main","repo":{"full_name":%q}}}`,
		number, state, merged, mergedAt, repo)
}

// TestHostileMergeStateCLI: inconsistent or misdirected merge answers are
// "unknown" with the reason and fail closed, exit 1, in `upstream status`
// and in `coverage --upstream` (issue 10 item 5).
func TestHostileMergeStateCLI(t *testing.T) {
	const at = "2026-10-05T09:30:00Z"
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, hostilePR(45117, cliRepo, "closed", true, at))
	}))
	t.Cleanup(other.Close)
	cases := []struct {
		name   string
		fault  fakegithub.Fault
		reason string
	}{
		{"state open + merged_at", fakegithub.Fault{Status: 200, Body: hostilePR(45117, cliRepo, "open", false, at)}, "inconsistent answer: merged false with state \"open\""},
		{"merged false + merged_at", fakegithub.Fault{Status: 200, Body: hostilePR(45117, cliRepo, "closed", false, at)}, "merged false with state \"closed\""},
		{"other number", fakegithub.Fault{Status: 200, Body: hostilePR(45111, cliRepo, "closed", true, at)}, "about PR #45111, not #45117"},
		{"other repository", fakegithub.Fault{Status: 200, Body: hostilePR(45117, "evil/sglang", "closed", true, at)}, `a PR of "evil/sglang"`},
		{"missing merged_at", fakegithub.Fault{Status: 200, Body: strings.Replace(hostilePR(45117, cliRepo, "closed", true, at), `"merged_at":"`+at+`",`, "", 1)}, "no merged_at"},
		{"redirect to another host", fakegithub.Fault{Status: 302, Header: map[string]string{"Location": other.URL + "/repos/sgl-project/sglang/pulls/45117"}}, "refused"},
	}
	t.Setenv("GH_TOKEN", cliToken)
	t.Setenv("GITHUB_TOKEN", "")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := upstreamFake(t)
			f := tc.fault
			f.Path, f.Count = `/pulls/45117$`, -1
			s.AddFault(&f)
			code, out, errOut := cliRun(t, "upstream", "status", "--api-url", s.URL, "--retries", "0", prURL+"45111", prURL+"45117")
			if code != exitGap || !strings.Contains(out, "merged          "+prURL+"45111") ||
				!strings.Contains(out, "unknown         "+prURL+"45117") || !strings.Contains(out, tc.reason) {
				t.Errorf("upstream status: exit %d, want 1 with unknown and %q:\n%s%s", code, tc.reason, out, errOut)
			}
			code, out, errOut = coverageUp(t, s, "text", prURL+"45111", prURL+"45117")
			if code != exitGap || !strings.Contains(out, "unknown") || !strings.Contains(out, tc.reason) {
				t.Errorf("coverage --upstream: exit %d, want 1 with unknown and %q:\n%s%s", code, tc.reason, out, errOut)
			}
			if l := cliLeaks(out + errOut); len(l) > 0 {
				t.Errorf("token in output: %q", l)
			}
		})
	}
}

// TestHostileRefuseSecretOutputCLI: pr plan and pr apply refuse a file that
// carries a token-shaped string or a (transformed) secret of the process —
// exit 2, the message names the file, line:col and the kind, never the
// value, and nothing is written upstream (issue 10 item 4).
func TestHostileRefuseSecretOutputCLI(t *testing.T) {
	const cloud = "hostileCLOUDsecret4f9a1cQ"
	foreign := "ghs_" + strings.Repeat("Ot7", 12)
	t.Setenv("GH_TOKEN", cliToken)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("HOSTILE_CLOUD_SECRET_KEY", cloud)
	t.Setenv("HOSTILE_PLAIN", "plain-value-not-secret")
	cases := []struct{ name, inject, kind string }{
		{"token of another run", foreign, "a GitHub token-shaped string (ghs_…)"},
		{"GH_TOKEN hex", hex.EncodeToString([]byte(cliToken)), "the value of GH_TOKEN (hex-encoded"},
		{"GH_TOKEN shifted", cliToken[3:17], "the value of GH_TOKEN (in any letter case, whole or a fragment of 12+ characters)"},
		{"cloud key base64", base64.StdEncoding.EncodeToString([]byte(cloud)), "the value of HOSTILE_CLOUD_SECRET_KEY (base64-encoded"},
		{"cloud key upper", strings.ToUpper(cloud), "the value of HOSTILE_CLOUD_SECRET_KEY"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := cliFake(t)
			local := filepath.Join(t.TempDir(), "qwen3.5.jsx")
			text := strings.Replace(cliSnippetText("v1"), `"python3 -m sglang.launch_server"`, `"python3 -m sglang.launch_server --chat-template `+tc.inject+`"`, 1)
			os.WriteFile(local, []byte(text), 0o644)
			for _, verb := range []string{"plan", "apply"} {
				code, out, errOut := cliRun(t, "pr", verb, "--api-url", s.URL, "--repo", cliRepo, "--model", "Qwen/qwen3.5",
					"--file", cliSnippet+"="+local)
				if code != exitUsage || !strings.Contains(errOut, "file "+cliSnippet+":8:128: contains ") || !strings.Contains(errOut, tc.kind) {
					t.Errorf("pr %s: exit %d, want 2 naming the file and %q:\n%s%s", verb, code, tc.kind, out, errOut)
				}
				for _, v := range []string{cliToken, cloud, foreign, tc.inject} {
					for k := 0; k+8 <= len(v); k++ {
						if strings.Contains(out+errOut, v[k:k+8]) {
							t.Fatalf("pr %s: output carries a secret fragment %q:\n%s%s", verb, v[k:k+8], out, errOut)
						}
					}
				}
			}
			for _, r := range s.Recorded() {
				if r.Method != http.MethodGet {
					t.Errorf("write sent: %s %s", r.Method, r.URL)
				}
			}
			if len(s.Repos[cliRepo].Pulls) != 0 || len(s.Branches(cliRepo)) != 1 {
				t.Errorf("something was pushed")
			}
		})
	}
	// An ordinary variable's value is no secret: the same file with it is
	// planned.
	s := cliFake(t)
	local := filepath.Join(t.TempDir(), "qwen3.5.jsx")
	os.WriteFile(local, []byte(strings.Replace(cliSnippetText("v1"), "launch_server", "launch_server --x plain-value-not-secret", 1)), 0o644)
	if code, out, errOut := cliRun(t, "pr", "plan", "--api-url", s.URL, "--repo", cliRepo, "--model", "Qwen/qwen3.5", "--file", cliSnippet+"="+local); code != 0 ||
		!strings.Contains(out, "plain-value-not-secret") {
		t.Errorf("ordinary value: exit %d\n%s%s", code, out, errOut)
	}
}

// refreshFixture clears the token variables and returns the fake
// InferenceX of upstream/testdata/refresh with that directory's snippet
// (agentx.jsx) and its expected refresh (agentx.refreshed.jsx).
func refreshFixture(t *testing.T) (s *fakegithub.Server, src, want []byte) {
	t.Helper()
	t.Setenv("GH_TOKEN", "")
	t.Setenv("GITHUB_TOKEN", "")
	src, err := os.ReadFile("../../upstream/testdata/refresh/agentx.jsx")
	if err != nil {
		t.Fatal(err)
	}
	want, err = os.ReadFile("../../upstream/testdata/refresh/agentx.refreshed.jsx")
	if err != nil {
		t.Fatal(err)
	}
	return refreshFake(t), src, want
}

// refreshFake is the fake InferenceX of upstream/testdata/refresh.
func refreshFake(t *testing.T) *fakegithub.Server {
	t.Helper()
	s := fakegithub.New()
	t.Cleanup(s.Close)
	ix := "SemiAnalysisAI/InferenceX"
	s.AddRepo(ix, "main", nil)
	merged := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	s.AddPull(ix, &fakegithub.Pull{Number: 101, State: "closed", Merged: true, MergedAt: &merged, Head: "a", Base: "main"})
	for _, n := range []int{102, 103, 104} {
		s.AddPull(ix, &fakegithub.Pull{Number: n, State: "open", Head: "b", Base: "main"})
	}
	s.AddRun(ix, &fakegithub.Run{ID: 9001, Status: "completed", Conclusion: "success", Attempts: map[int]*fakegithub.Run{2: {Status: "completed", Conclusion: "success"}}})
	s.AddRun(ix, &fakegithub.Run{ID: 9002, Status: "completed", Conclusion: "success"})
	s.AddRun(ix, &fakegithub.Run{ID: 9004, Status: "completed", Conclusion: "failure"})
	return s
}

// TestHostileRefreshSecret: refresh --write refuses to write an update that
// carries a secret (exit 2, file untouched, the kind named).
func TestHostileRefreshSecret(t *testing.T) {
	s, src, _ := refreshFixture(t)
	foreign := "github_pat_11AAAAAAA0" + strings.Repeat("hostile_", 8)
	src = bytes.Replace(src, []byte("// Test fixture"), []byte("// "+foreign+"\n// Test fixture"), 1)
	file := filepath.Join(t.TempDir(), "qwen3.5.jsx")
	os.WriteFile(file, src, 0o644)
	code, out, errOut := cliRun(t, "upstream", "refresh", "--api-url", s.URL, "--write", file)
	if code != exitUsage || !strings.Contains(errOut, file+":2:4: contains a GitHub token-shaped string (github_pat_…)") ||
		!strings.Contains(errOut, "nothing written") || strings.Contains(out+errOut, foreign[11:30]) {
		t.Errorf("exit %d, want 2 naming the kind:\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, src) {
		t.Error("the file was written")
	}
}

// TestHostileRefreshSymlink: refresh --write through a symlinked snippet
// updates the target and keeps the link (like generate -o), leaves no
// temporary file, keeps the mode, and fsyncs the file before the rename and
// its directory after it (issue 10 item 6).
func TestHostileRefreshSymlink(t *testing.T) {
	s, src, want := refreshFixture(t)
	root := t.TempDir()
	real := filepath.Join(root, "sglang", "docs", "src", "snippets", "agentx", "Fixture")
	os.MkdirAll(real, 0o755)
	target := filepath.Join(real, "fixture.jsx")
	os.WriteFile(target, src, 0o640)
	work := filepath.Join(root, "work")
	os.MkdirAll(work, 0o755)
	link := filepath.Join(work, "snippet.jsx")
	chain := filepath.Join(work, "chain.jsx")
	if err := os.Symlink("../sglang/docs/src/snippets/agentx/Fixture/fixture.jsx", link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	os.Symlink("snippet.jsx", chain) // a link to a link
	code, out, errOut := cliRun(t, "upstream", "refresh", "--api-url", s.URL, "--write", chain)
	if code != 0 || !strings.Contains(out, "5 status changes written") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, l := range []string{link, chain} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink: %v", l, err)
		}
	}
	if b, _ := os.ReadFile(target); !bytes.Equal(b, want) {
		t.Error("the target does not hold the refreshed text")
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", st.Mode().Perm())
	}
	for _, d := range []string{real, work} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if strings.Contains(e.Name(), ".tmp") {
				t.Errorf("temporary file left: %s", filepath.Join(d, e.Name()))
			}
		}
	}
	// The order of the fsyncs: the temporary file (target still old), then
	// the directory of the target (target already new).
	os.WriteFile(target, src, 0o640)
	var events []string
	sync := func(f *os.File) error {
		cur, _ := os.ReadFile(target)
		events = append(events, fmt.Sprintf("%s new=%v", f.Name(), bytes.Equal(cur, want)))
		return f.Sync()
	}
	if err := writeThrough(chain, want, sync); err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 || !strings.HasPrefix(events[0], filepath.Join(real, ".fixture.jsx.tmp")) || !strings.HasSuffix(events[0], "new=false") ||
		events[1] != real+" new=true" {
		t.Errorf("fsyncs %q: want the temporary file in %s before the rename, then the directory", events, real)
	}
	// A failing fsync leaves the file untouched and no temporary file.
	os.WriteFile(target, src, 0o640)
	if err := writeThrough(link, want, func(*os.File) error { return fmt.Errorf("EIO") }); err == nil || !strings.Contains(err.Error(), "fsync") {
		t.Errorf("failing fsync: %v", err)
	}
	if b, _ := os.ReadFile(target); !bytes.Equal(b, src) {
		t.Error("a failed write changed the file")
	}
	if ents, _ := os.ReadDir(real); len(ents) != 1 {
		t.Errorf("%d entries in the target directory after a failed write", len(ents))
	}
	// A symlink to something that is not a regular file is refused.
	fifoish := filepath.Join(work, "dir.jsx")
	os.Symlink(real, fifoish)
	if err := writeAtomic(fifoish, want); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("symlink to a directory: %v", err)
	}
}
