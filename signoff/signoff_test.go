package signoff

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/coverage"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/report"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// newHistory is an InferenceX history in a temporary directory.
func newHistory(t *testing.T) *history { return &history{testutil.NewHistory(t, "InferenceX")} }

// history names the shared helper's methods as these tests call them.
type history struct{ *testutil.History }

func (h *history) write(files map[string]string) { h.T.Helper(); h.Write(files) }
func (h *history) commit(msg string) string      { h.T.Helper(); return h.Commit(msg) }

func readFixture(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const fixtureKey = "qwen3.5-fp8-b200-sglang-agentic-mtp"

// TestSignoffHistory builds an InferenceX history — a base; a PR commit
// that adds a changelog entry (a glob for the key, a glob that matches
// nothing, an upstream PR link) and changes the key's script; a commit
// that edits benchmark_lib.sh only — and signs off each commit.
func TestSignoffHistory(t *testing.T) {
	script := readFixture(t, "../coverage/testdata/script/inferencex/benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh")
	lib := readFixture(t, "../infx/testdata/old/benchmarks/benchmark_lib.sh")
	h := newHistory(t)
	const scriptPath = "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh"
	h.write(map[string]string{
		"configs/nvidia-master.yaml":  readFixture(t, "../coverage/testdata/script/inferencex/configs/nvidia-master.yaml"),
		scriptPath:                    script,
		"benchmarks/benchmark_lib.sh": lib,
		ChangelogFile:                 "- config-keys:\n    - " + fixtureKey + "\n  description:\n    - \"First run\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/9000\n",
	})
	h.commit("Add Qwen3.5 B200 AgentX (#9000)")
	h.write(map[string]string{
		scriptPath: strings.Replace(script, "--mem-fraction-static 0.85", "--mem-fraction-static 0.9", 1),
		ChangelogFile: "- config-keys:\n    - " + fixtureKey + "\n  description:\n    - \"First run\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/9000\n" +
			"\n- config-keys:\n    - qwen3.5-fp8-b200-*\n    - nosuch-*\n  description:\n    - \"Raise the memory fraction; cookbook: https://github.com/sgl-project/sglang/pull/12345\"\n  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/9101\n",
	})
	pr := h.commit("Raise the Qwen3.5 B200 memory fraction (#9101)")
	h.write(map[string]string{"benchmarks/benchmark_lib.sh": lib + "\n# a comment\n"})
	libCommit := h.commit("benchmark_lib: comment")

	cb := "../coverage/testdata/script/sglang"
	var asked []string
	links := func(_ context.Context, urls []string) ([]report.Link, error) {
		asked = append(asked, urls...)
		var out []report.Link
		for _, u := range urls {
			out = append(out, report.Link{URL: u, Kind: "pr", State: "open", Repo: "sgl-project/sglang", Number: 12345})
		}
		return out, nil
	}
	ctx := context.Background()
	res, err := Run(ctx, Options{Coverage: coverage.Options{InfxDir: h.Dir, CookbookDirs: []string{cb}}, Head: pr, Links: links})
	if err != nil {
		t.Fatal(err)
	}
	if res.Head.PR != 9101 || res.Head.Hash != pr || len(res.Changed) != 2 {
		t.Errorf("head %+v, changed %v: want PR 9101, 2 paths", res.Head, res.Changed)
	}
	if len(res.Entries) != 1 || res.Entries[0].Index != 1 || !slices.Equal(res.Entries[0].Matched["qwen3.5-fp8-b200-*"], []string{fixtureKey}) {
		t.Errorf("entries %+v: want the added entry 1 matching the key", res.Entries)
	}
	if len(res.Unmatched) != 1 || !strings.HasPrefix(res.Unmatched[0], "nosuch-* (changelog entry 1") {
		t.Errorf("unmatched %v", res.Unmatched)
	}
	if len(res.Keys) != 1 {
		t.Fatalf("keys %+v: want the one key", res.Keys)
	}
	k := res.Keys[0]
	if k.ConfigKey != fixtureKey || !slices.Equal(k.Why, []string{"changelog entry 1 (qwen3.5-fp8-b200-*)", "render changed"}) ||
		!slices.Contains(k.Changes, "agg: --mem-fraction-static 0.85 → 0.9") {
		t.Errorf("key %+v", k)
	}
	// the AgentX cells show 0.85: the PR's 0.9 differs
	if k.Verdict != compare.Differs || k.Final != compare.Differs || !res.Gap || res.Verdict != compare.Differs {
		t.Errorf("verdict %q final %q gap %v result %q: want differs", k.Verdict, k.Final, res.Gap, res.Verdict)
	}
	if res.Coverage == nil || len(res.Coverage.Keys) != 1 {
		t.Fatalf("coverage %+v", res.Coverage)
	}
	if res.Coverage.InferenceX.Commit != pr {
		t.Errorf("coverage commit %q, want the head %s", res.Coverage.InferenceX.Commit, pr)
	}
	var b bytes.Buffer
	if err := PrintMarkdown(&b, res, 0, report.MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(b.String(), h.Dir, "<InferenceX>")
	if b.Len() >= DefaultCommentLimit {
		t.Errorf("comment %d bytes", b.Len())
	}
	golden := filepath.Join("testdata", "pr9101.md")
	if *testutil.Update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("comment differs from %s (-update rewrites it):\n%s", golden, got)
	}

	// benchmark_lib.sh only: the key renders the same — counted, not judged
	res, err = Run(ctx, Options{Coverage: coverage.Options{InfxDir: h.Dir, CookbookDirs: []string{cb}}, Head: libCommit})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Keys) != 0 || res.SameRender != 1 || res.Verdict != NoKeys || res.Gap || res.Coverage != nil {
		t.Errorf("benchmark_lib commit: keys %+v same %d verdict %q gap %v", res.Keys, res.SameRender, res.Verdict, res.Gap)
	}

	// an out-of-scope (TRT) key's own script only: never rendered, still
	// its own file — no key is judged and none is rendered again at base.
	// (Here the point names its script; a checkout whose runner launcher
	// picks the script at run time names it only by the launchers' rule,
	// infx.Workspace.ScriptCandidates: TestScriptCandidates. Before, such a
	// file counted as shared by every key: #2685 on the real history
	// re-rendered 162 keys.)
	master := readFixture(t, "../coverage/testdata/script/inferencex/configs/nvidia-master.yaml")
	trt := "\nminimaxm3-fp4-b300-trt-agentic-mtp:\n  image: nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc23\n  model: nvidia/MiniMax-M3-NVFP4\n  model-prefix: minimaxm3\n  runner: cluster:b300-nv\n  precision: fp4\n  framework: trt\n  multinode: false\n  scenarios:\n    agentic-coding:\n    - dram-utilization: 0.80\n      search-space:\n      - { tp: 2, spec-decoding: mtp, kv-offloading: none, conc-list: [20] }\n"
	const trtScript = "benchmarks/single_node/agentic/minimaxm3_fp4_b300_trt_mtp.sh"
	h.write(map[string]string{"configs/nvidia-master.yaml": master + trt, trtScript: "#!/bin/bash\ntrtllm-serve serve \"$MODEL\" --tp_size 2\n"})
	h.commit("Add MiniMax-M3 B300 TRT (#9102)")
	h.write(map[string]string{trtScript: "#!/bin/bash\ntrtllm-serve serve \"$MODEL\" --tp_size 2 --stream_interval 20\n"})
	trtCommit := h.commit("Refresh MiniMax-M3 B300 TRT (#9103)")
	res, err = Run(ctx, Options{Coverage: coverage.Options{InfxDir: h.Dir, CookbookDirs: []string{cb}}, Head: trtCommit})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Keys) != 0 || res.SameRender != 0 || res.Verdict != NoKeys || res.Gap {
		t.Errorf("out-of-scope script commit: keys %+v same %d %v verdict %q gap %v", res.Keys, res.SameRender, res.SameRenderKeys, res.Verdict, res.Gap)
	}
	if len(res.OutOfScope) != 1 || res.OutOfScope[0].ConfigKey != "minimaxm3-fp4-b300-trt-agentic-mtp" || !slices.Equal(res.OutOfScope[0].Why, []string{"its script or recipe changed"}) {
		t.Errorf("out of scope: %+v, want the TRT key, its script changed", res.OutOfScope)
	}

	// a bad range
	if _, err := Run(ctx, Options{Coverage: coverage.Options{InfxDir: h.Dir}, Head: "nosuch"}); err == nil || !strings.Contains(err.Error(), "bad commit range") {
		t.Errorf("unknown head: %v", err)
	}
	if _, err := Run(ctx, Options{Coverage: coverage.Options{InfxDir: h.Dir}, Head: pr, Base: pr}); err == nil {
		t.Error("base = head: no error")
	}
	if _, err := Run(ctx, Options{Coverage: coverage.Options{InfxDir: t.TempDir()}}); err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Errorf("not a repository: %v", err)
	}
}

// TestMergeState: a checkout of the upstream repository whose HEAD is on
// origin's default branch is merged; a PR branch is not, unless a merged
// PR link says so; a link whose state is unknown fails closed.
func TestMergeState(t *testing.T) {
	mk := func(onMain bool) string {
		h := newHistory(t)
		h.write(map[string]string{"docs/a.md": "a\n"})
		first := h.commit("docs")
		h.write(map[string]string{"docs/a.md": "b\n"})
		second := h.commit("docs: PR branch")
		if _, err := h.Repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{"https://github.com/sgl-project/sglang.git"}}); err != nil {
			t.Fatal(err)
		}
		tip := first
		if onMain {
			tip = second
		}
		if err := h.Repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewRemoteReferenceName("origin", "main"), plumbing.NewHash(tip))); err != nil {
			t.Fatal(err)
		}
		return h.Dir
	}
	merged := time.Date(2026, 8, 20, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		onMain bool
		links  []report.Link
		want   bool
		why    string
	}{
		{"on main", true, nil, true, "on origin/main"},
		{"PR branch", false, nil, false, "is not on origin/main"},
		{"PR branch, merged link", false, []report.Link{{URL: "https://github.com/sgl-project/sglang/pull/1", State: report.LinkMerged, MergedAt: &merged, Repo: "sgl-project/sglang"}}, true, "is merged"},
		{"PR branch, unknown link", false, []report.Link{{URL: "https://github.com/sgl-project/sglang/pull/1", State: report.LinkUnknown, Error: "offline", Repo: "sgl-project/sglang"}}, false, "is unknown (offline)"},
		{"PR branch, merged link of another repository", false, []report.Link{{URL: "https://github.com/vllm-project/recipes/pull/1", State: report.LinkMerged, MergedAt: &merged, Repo: "vllm-project/recipes"}}, false, "is not on origin/main"},
	} {
		rep := &report.Report{Cookbook: &report.RepoInfo{Dir: mk(c.onMain)}}
		m := mergeState(report.SourceAgentX, rep, c.links)
		if m.Merged != c.want || !strings.Contains(m.Why, c.why) {
			t.Errorf("%s: merged %v (%s), want %v containing %q", c.name, m.Merged, m.Why, c.want, c.why)
		}
	}
	// not a checkout
	m := mergeState(report.SourceAgentX, &report.Report{Cookbook: &report.RepoInfo{Dir: t.TempDir()}}, nil)
	if m.Merged || !strings.Contains(m.Why, "is not a git checkout") {
		t.Errorf("plain directory: %+v", m)
	}
}

// TestPositionsLeftOut: the outcome of a point that did not render is
// compared without positions — a launcher edited above the line that
// decides (PR 2663 moved runners/launch_gb300-nv.sh:411 to :421) leaves it
// the same.
func TestPositionsLeftOut(t *testing.T) {
	a := "upstream-only (recipe recipes/gb300-fp4/8k1k/low_latency.yaml is not copied from the checkout: the launcher submits the file of its srt-slurm clone NVIDIA/srt-slurm@sa-submission-q2-2026 (runners/launch_gb300-nv.sh:411:5))"
	b := strings.Replace(a, ":411:5", ":421:5", 1)
	if positionRe.ReplaceAllString(a, "") != positionRe.ReplaceAllString(b, "") {
		t.Error("positions kept")
	}
	if got := positionRe.ReplaceAllString("x.yaml:12 and y.sh:3:4 but ratio 1:2", ""); got != "x.yaml and y.sh but ratio 1" {
		t.Errorf("%q", got)
	}
}
