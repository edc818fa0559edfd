package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

func runCoverageCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"coverage"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// demoDirs extracts the embedded demo workspace for tests that pass flags.
func demoDirs(t *testing.T) (infx, cookbook string) {
	t.Helper()
	dir, err := extractDemo()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "inferencex"), filepath.Join(dir, "sglang")
}

const demoSnippet = "docs/src/snippets/agentx/Qwen/qwen3.5-demo.jsx"

// The demo workspace: the agg cell is covered with exclusions (srtctl's
// injected --nccl-port, --enable-metrics, …), the disagg cell's decode
// worker differs on --mem-fraction-static (cookbook 0.8, recipe 0.75: the
// values written in demo/), etcd/NATS are covered, nginx covered with
// exclusions (the cookbook's nginx.conf balances 2 frontends, srt-slurm's 1:
// judgment and placement), one cell cites a
// shell script that is not in the demo tree ("script not found") and one a
// recipe that is not in the tree ("recipe not found"): both not verified,
// listed under Gaps (fail closed).
func TestCoverageDemoText(t *testing.T) {
	code, out, errs := runCoverageCLI(t)
	if code != exitGap {
		t.Fatalf("exit %d, want 1 (a gap): %s\n%s", code, errs, out)
	}
	if errs != "" {
		t.Errorf("stderr %q, want nothing for a gap", errs)
	}
	if first, _, _ := strings.Cut(out, "\n"); first != "❌ Check 3: 3 gaps — differs 1, not verified 2 (of 3 config keys)" {
		t.Errorf("first line %q, want the headline", first)
	}
	for _, want := range []string{
		"qwen3.5-fp8-gb300-dynamo-sglang-agentic-disagg  #0    0   dynamo  none  decode    differs",
		"qwen3.5-fp8-gb300-dynamo-sglang-agentic-disagg  #0    0   dynamo  none  etcd      covered ",
		"qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg     #0    0   sglang  none  agg       covered-with-exclusions",
		"qwen3.5-fp8-b200-sglang-agentic-mtp             #0    0   sglang  none  -         script not found",
		"qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg     #1    0   sglang  none  -         recipe not found",
		"\nGaps:\n  qwen3.5-fp8-gb300-dynamo-sglang-agentic-disagg#0 point 0 decode: differs\n",
		"    --mem-fraction-static: upstream 0.8, inferencex 0.75 (possible commit drift: the InferenceX checkout is not a git checkout, so prov.sha 222222222222 cannot be compared)\n",
		"  qwen3.5-fp8-b200-sglang-agentic-mtp#0 point 0: not verified: script not found\n    single-node script benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh is not in the InferenceX checkout\n",
		"  qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg#1 point 0: not verified: recipe not found\n    recipe inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/gb300-fp8/agentx/agg-tp8-c1.yaml is not in the InferenceX checkout\n",
		"Cookbook: " + demoSnippet + " (sha256:",
		"InferenceX: (embedded demo)/inferencex (not a git checkout: commit drift unknown)\n",
		"Roles: covered 2, covered-with-exclusions 7, differs 1\n",
		"Points: covered-with-exclusions 2, recipe not found 1, script not found 1, differs 1\n",
		"Not verified: 2 (a gap: their settings were not compared; --allow-unverified lists them without failing)\n",
		"Exclusion policy: 2026-12-01.5 (SemiAnalysisAI/InferenceX .github/codeowner-signoff-verify-prompt.md@09813166)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCoverageDemoJSON(t *testing.T) {
	code, out, errs := runCoverageCLI(t, "--format", "json")
	if code != exitGap {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		SchemaVersion int    `json:"schemaVersion"`
		Verdict       string `json:"verdict"`
		Cookbook      *struct {
			Dir, Repo, Commit string
		} `json:"cookbook"`
		CookbookFiles []struct {
			Path, SHA256, Commit string
		} `json:"cookbookFiles"`
		InferenceX struct{ Dir string } `json:"inferencex"`
		Points     []struct {
			CellID   string `json:"cellId"`
			Point    int    `json:"point"`
			Router   string `json:"router"`
			KV       string `json:"kv"`
			Selector string `json:"selector"`
			Status   string `json:"status"`
			Verdict  string `json:"verdict"`
			Drift    struct{ State string }
			Roles    []struct {
				Role        string `json:"role"`
				Verdict     string `json:"verdict"`
				Matched     int    `json:"matched"`
				Differences []struct {
					Setting    string  `json:"setting"`
					Upstream   *string `json:"upstream"`
					InferenceX *string `json:"inferencex"`
				} `json:"differences"`
				Excluded []struct {
					Setting, Rule, Class, Reason string
				} `json:"excluded"`
			} `json:"roles"`
		} `json:"points"`
		Gap           bool `json:"gap"`
		UnverifiedGap bool `json:"unverifiedGap"`
		Counts        struct {
			Unverified int `json:"unverified"`
		} `json:"counts"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !rep.UnverifiedGap || rep.Counts.Unverified != 2 {
		t.Errorf("unverifiedGap %v, counts.unverified %d: want the script and the recipe not in the demo tree", rep.UnverifiedGap, rep.Counts.Unverified)
	}
	if rep.SchemaVersion != 2 || rep.Verdict != "differs" || !rep.Gap || len(rep.Points) != 5 ||
		len(rep.CookbookFiles) != 1 || rep.CookbookFiles[0].Path != demoSnippet || len(rep.CookbookFiles[0].SHA256) != 64 {
		t.Fatalf("report header: %+v", rep)
	}
	// the demo workspace is named, not its temporary copy; not a git checkout: no commit
	if rep.Cookbook == nil || rep.Cookbook.Dir != "(embedded demo)/sglang" || rep.Cookbook.Commit != "" || rep.InferenceX.Dir != "(embedded demo)/inferencex" {
		t.Errorf("cookbook %+v, inferencex %+v", rep.Cookbook, rep.InferenceX)
	}
	p := rep.Points[0]
	if p.CellID != "qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg#0" || p.Selector != "override_c4" || p.Router != "sglang" || p.KV != "none" ||
		p.Status != "compared" || p.Verdict != "covered-with-exclusions" || p.Drift.State != "unknown" {
		t.Errorf("point 0: %+v", p)
	}
	// The agg worker's exclusions name the rule and reason of each setting.
	rules := map[string]string{}
	for _, x := range p.Roles[0].Excluded {
		rules[x.Setting] = x.Rule + "/" + x.Class
	}
	for k, v := range map[string]string{
		"--enable-metrics": "collection-enable-metrics/collection",
		"--nccl-port":      "harness-nccl-port/harness",
		"--port":           "harness-port/harness",
		"env HEAD_NODE_IP": "harness-head-node-ip/harness",
	} {
		if rules[k] != v {
			t.Errorf("agg exclusion %s = %q, want %q", k, rules[k], v)
		}
	}
	d := rep.Points[2]
	if d.Verdict != "differs" || d.Roles[1].Role != "decode" || d.Roles[1].Verdict != "differs" || len(d.Roles[1].Differences) != 1 {
		t.Fatalf("disagg point: %+v", d)
	}
	diff := d.Roles[1].Differences[0]
	if diff.Setting != "--mem-fraction-static" || diff.Upstream == nil || *diff.Upstream != "0.8" || diff.InferenceX == nil || *diff.InferenceX != "0.75" {
		t.Errorf("decode difference %+v", diff)
	}
	if rep.Points[3].Status != "script not found" || rep.Points[4].Status != "recipe not found" ||
		rep.Points[3].Verdict != "script not found" || rep.Points[4].Verdict != "recipe not found" {
		t.Errorf("statuses %q %q, verdicts %q %q", rep.Points[3].Status, rep.Points[4].Status, rep.Points[3].Verdict, rep.Points[4].Verdict)
	}
}

// checkMarkdown asserts what every Markdown report carries: the headline
// first, no local path (the temporary directories the test made, or any
// /tmp/ path), and the 60,000-byte cap of a PR comment.
func checkMarkdown(t *testing.T, out, headline string, localDirs ...string) {
	t.Helper()
	if first, _, _ := strings.Cut(out, "\n"); first != headline {
		t.Errorf("markdown first line %q, want %q", first, headline)
	}
	if len(out) >= 60000 {
		t.Errorf("markdown is %d bytes, want under 60,000", len(out))
	}
	for _, d := range append(localDirs, "/tmp/", os.TempDir()) {
		if d != "" && strings.Contains(out, d) {
			t.Errorf("markdown names the local path %q", d)
		}
	}
}

func TestCoverageDemoMarkdown(t *testing.T) {
	code, out, _ := runCoverageCLI(t, "--format", "markdown")
	if code != exitGap {
		t.Fatalf("exit %d", code)
	}
	checkMarkdown(t, out, "❌ Check 3: 3 gaps — differs 1, not verified 2 (of 3 config keys)")
	for _, want := range []string{
		"- Exclusion policy: `2026-12-01.5 (SemiAnalysisAI/InferenceX .github/codeowner-signoff-verify-prompt.md@09813166)`",
		"- Upstream: SGLang cookbook `sgl-project/sglang` (not a git checkout: no commit), 1 AgentX snippet: `qwen3.5-demo.jsx` sha256 `",
		"- InferenceX: `SemiAnalysisAI/InferenceX` (not a git checkout: no commit): commit drift since each cell's prov.sha is unknown\n",
		"- Cookbook points: covered-with-exclusions 2, recipe not found 1, script not found 1, differs 1 · roles: covered 2, covered-with-exclusions 7, differs 1\n",
		"- Not verified: 2 (a gap: their settings were not compared; --allow-unverified lists them without failing)\n",
		// Gaps: key → role → setting, with the point label and its concurrencies
		"\n## Gaps\n\n### `qwen3.5-fp8-gb300-dynamo-sglang-agentic-disagg` — differs\n\n| role | setting | upstream | inferencex | points |\n|---|---|---|---|---|\n",
		"| decode | `--mem-fraction-static`<br>possible commit drift: the InferenceX checkout is not a git checkout, so prov.sha 222222222222 cannot be compared | `0.8` | `0.75` | #\u034f0·p0 · conc 8 |\n",
		"### `qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg` — recipe not found\n\n- **not verified: recipe not found** (#\u034f1·p0 · conc 1) — recipe inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/gb300-fp8/agentx/agg-tp8-c1.yaml is not in the InferenceX checkout\n",
		"- **not verified: script not found** (#\u034f0·p0 · conc 1) — single-node script benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh is not in the InferenceX checkout\n",
		// Exclusions: once per config key, one row per rule
		"\n## Exclusions (once per config key)\n",
		"<details><summary><code>qwen3.5-fp8-gb300-dynamo-sglang-agentic-disagg</code> — 13 settings under 13 rules</summary>",
		"| collection-enable-metrics | excluded | collection | `--enable-metrics` | decode, prefill | Prometheus metrics for result collection (AIPERF_REQUIRED_SERVER_METRIC_PREFIX); no effect on serving | seed-signoff |\n",
		// judgment-class differences are informational, not excluded
		"| judgment-frontend-count | informational | judgment | `count` | frontend | number of frontend replicas behind nginx scales with the benchmark's request rate | prompt-09813166 |\n",
		// Evidence: per key, one row per point (variant, roles, drift, upstream place)
		"\n## Evidence\n",
		"| #\u034f0·p0 | 8 | dynamo | none | `benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5/gb300-fp8/agentic/disagg-gb300-1p1d-tp4-tp4-c8.yaml` | differs | prefill covered* (23), decode differs (25), frontend covered* (7), etcd covered (5), nats covered (5), nginx covered* (20) | unknown: the InferenceX directory is not a git checkout | `" + demoSnippet + ":309` |\n",
		"| #\u034f1·p0 | 1 | sglang | none | `inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/gb300-fp8/agentx/agg-tp8-c1.yaml` | recipe not found | see Gaps | unknown: recipe not in the InferenceX checkout | `" + demoSnippet + ":703` |\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	// the Gaps come before the exclusions and the evidence
	if g, x, e := strings.Index(out, "\n## Gaps\n"), strings.Index(out, "\n## Exclusions"), strings.Index(out, "\n## Evidence\n"); g < 0 || !(g < x && x < e) {
		t.Errorf("section order: gaps %d, exclusions %d, evidence %d", g, x, e)
	}
}

func TestCoverageExitCodes(t *testing.T) {
	infx, cb := demoDirs(t)
	// Only the agg config key: every compared role covered (with
	// exclusions), but its cell #1 cites a recipe that is not in the tree:
	// not verified, a gap (1) unless --allow-unverified (0).
	code, out, errs := runCoverageCLI(t, "--infx", infx, "--cookbook", cb, "--config-key", "*-agentic-agg")
	if code != exitGap || !strings.Contains(out, "Points: covered-with-exclusions 2, recipe not found 1\n") ||
		!strings.Contains(out, "\nGaps:\n  qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg#1 point 0: not verified: recipe not found\n") {
		t.Errorf("agg only: exit %d, want 1: %s\n%s", code, errs, out)
	}
	code, out, errs = runCoverageCLI(t, "--infx", infx, "--cookbook", cb, "--config-key", "*-agentic-agg", "--allow-unverified")
	if code != exitOK || strings.Contains(out, "Gaps:") ||
		!strings.Contains(out, "\nNot verified (--allow-unverified: listed, not a gap):\n  qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg#1 point 0: not verified: recipe not found\n") {
		t.Errorf("agg only, --allow-unverified: exit %d, want 0: %s\n%s", code, errs, out)
	}
	// The demo's differs gap stays a gap with --allow-unverified.
	if code, out, _ := runCoverageCLI(t, "--allow-unverified"); code != exitGap || !strings.Contains(out, "Not verified: 2 (listed, not a gap: --allow-unverified)\n") {
		t.Errorf("demo --allow-unverified: exit %d, want 1\n%s", code, out)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"bad format", []string{"--format", "yaml"}, `--format "yaml": want text, markdown, json, sarif or github`},
		{"infx alone", []string{"--infx", infx}, "--infx and --cookbook go together"},
		{"cookbook alone", []string{"--cookbook", cb}, "--infx and --cookbook go together"},
		{"missing dir", []string{"--infx", filepath.Join(infx, "nope"), "--cookbook", cb}, "is not a directory"},
		{"not an sglang checkout", []string{"--infx", infx, "--cookbook", infx}, "has neither AgentX snippets (docs/src/snippets/agentx) nor cookbook pages"},
		{"bad glob", []string{"--infx", infx, "--cookbook", cb, "--config-key", "["}, "--config-key [: syntax error in pattern"},
		{"glob matches no cell", []string{"--config-key", "qwen35*"}, "--config-key qwen35*: no cookbook cell cites a config key matching it: nothing was compared"},
		{"glob matches no cell (flags)", []string{"--infx", infx, "--cookbook", cb, "--config-key", "dsv4-*"}, "--config-key dsv4-*: no cookbook cell cites a config key matching it: nothing was compared"},
		{"upstream not a URL", []string{"--upstream", "not-a-url"}, `--upstream "not-a-url": not a URL`},
		{"upstream no host", []string{"--upstream", "https:///pull/1"}, `--upstream "https:///pull/1": not a URL`},
		{"extra arg", []string{"x"}, "unknown command"},
		{"srt-slurm-dir not a directory", []string{"--srt-slurm-dir", filepath.Join(infx, "nope")}, "--srt-slurm-dir: "},
		{"unknown srt-slurm version", []string{"--srt-slurm-version", "v9.9.9"}, `--srt-slurm-version: unknown srt-slurm version "v9.9.9"`},
		{"empty srt-slurm version", []string{"--srt-slurm-version", ""}, "--srt-slurm-version: empty (default v1.0.68)"},
	} {
		code, _, errs := runCoverageCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.name, code, errs, c.want)
		}
	}
}

func TestCoverageBadInput(t *testing.T) {
	infx, cb := demoDirs(t)
	snip := filepath.Join(cb, filepath.FromSlash(demoSnippet))
	data, err := os.ReadFile(snip)
	if err != nil {
		t.Fatal(err)
	}
	// A truncated snippet: exit 2 with file:line:col, no report.
	if err := os.WriteFile(snip, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCoverageCLI(t, "--infx", infx, "--cookbook", cb)
	if code != exitUsage || out != "" || !strings.Contains(errs, "qwen3.5-demo.jsx:") {
		t.Errorf("truncated snippet: exit %d, stdout %d bytes, stderr %q", code, len(out), errs)
	}
	if err := os.WriteFile(snip, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// A recipe with a YAML error: the point reports it, the run exits 2.
	rec := filepath.Join(infx, "benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5/gb300-fp8/agentic/disagg-gb300-1p1d-tp4-tp4-c8.yaml")
	if err := os.WriteFile(rec, []byte("name: x\nresources: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCoverageCLI(t, "--infx", infx, "--cookbook", cb)
	if code != exitUsage || !strings.Contains(errs, "could not be rendered") || !strings.Contains(out, "disagg-gb300-1p1d-tp4-tp4-c8.yaml:") {
		t.Errorf("bad recipe: exit %d, stderr %q\n%s", code, errs, out)
	}
}

// A cookbook whose points cite no InferenceX recipe compares nothing: exit
// 2, never an empty report that exits 0.
func TestCoverageNothingCited(t *testing.T) {
	infx, cb := demoDirs(t)
	snip := filepath.Join(cb, filepath.FromSlash(demoSnippet))
	data, err := os.ReadFile(snip)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), `"recipe": `) {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(snip, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCoverageCLI(t, "--infx", infx, "--cookbook", cb)
	if code != exitUsage || out != "" || !strings.Contains(errs, "--cookbook "+cb+": no cookbook point cites an InferenceX recipe (prov.recipe, point.recipe, recipeUrl): nothing was compared") {
		t.Errorf("exit %d, stderr %q\n%s", code, errs, out)
	}
	code, out, errs = runCoverageCLI(t, "--infx", infx, "--cookbook", cb, "--config-key", "*-agentic-agg")
	if code != exitUsage || out != "" || !strings.Contains(errs, "--config-key *-agentic-agg: no point of the 2 cookbook cell(s) with a config key matching it cites an InferenceX recipe (prov.recipe, point.recipe, recipeUrl): nothing was compared") {
		t.Errorf("glob: exit %d, stderr %q\n%s", code, errs, out)
	}
}

// With --cookbook a git checkout, the evidence names the commit (go-git).
func TestCoverageCookbookGitCommit(t *testing.T) {
	infx, cb := demoDirs(t)
	h := commitDemoCookbook(t, cb)
	_, out, _ := runCoverageCLI(t, "--infx", infx, "--cookbook", cb, "--format", "markdown")
	checkMarkdown(t, out, "❌ Check 3: 3 gaps — differs 1, not verified 2 (of 3 config keys)", infx, cb)
	for _, want := range []string{
		"- Upstream: SGLang cookbook [`sgl-project/sglang@" + h.String()[:12] + "`](https://github.com/sgl-project/sglang/tree/" + h.String() + "), 1 AgentX snippet: `qwen3.5-demo.jsx` sha256 `",
		// the evidence links the cookbook point at that commit
		"(https://github.com/sgl-project/sglang/blob/" + h.String() + "/" + demoSnippet + "#L309)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = runCoverageCLI(t, "--infx", infx, "--cookbook", cb, "--format", "json")
	var rep struct {
		Cookbook      struct{ Dir, Repo, Commit string } `json:"cookbook"`
		CookbookFiles []struct {
			Path, Commit string
			Dirty        bool
		} `json:"cookbookFiles"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Cookbook.Dir != cb || rep.Cookbook.Repo != "sgl-project/sglang" || rep.Cookbook.Commit != h.String() ||
		len(rep.CookbookFiles) != 1 || rep.CookbookFiles[0].Path != demoSnippet || rep.CookbookFiles[0].Commit != h.String() || rep.CookbookFiles[0].Dirty {
		t.Errorf("json cookbook %+v, files %+v; want commit %s", rep.Cookbook, rep.CookbookFiles, h)
	}
}

// TestCoverageBadNetworkFlags: out-of-range --retries / --timeout are bad
// usage (exit 2) even without --upstream, instead of being ignored.
func TestCoverageBadNetworkFlags(t *testing.T) {
	for _, tc := range []struct{ flag, value, want string }{
		{"--retries", "-1", "--retries -1: want 0..10"},
		{"--retries", "1000000", "--retries 1000000: want 0..10"},
		{"--timeout", "-5s", "--timeout -5s: want more than 0"},
	} {
		code, out, errOut := runCoverageCLI(t, tc.flag, tc.value)
		if code != 2 || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%s %s: exit %d, stderr %q, stdout %d bytes; want 2 and %q", tc.flag, tc.value, code, errOut, len(out), tc.want)
		}
	}
}

// TestCoverageSrtSlurmDir: a cookbook point citing a recipes/… path of the
// srt-slurm clone is upstream-only without --srt-slurm-dir and compared
// from the srt-slurm checkout with it (the note names the directory's
// version); --srt-slurm-version names that version.
func TestCoverageSrtSlurmDir(t *testing.T) {
	infxDir, cb := demoDirs(t)
	const rel = "sglang/qwen3.5/gb300-fp8/agentic/disagg-gb300-1p1d-tp4-tp4-c8.yaml"
	snip := filepath.Join(cb, demoSnippet)
	text, err := os.ReadFile(snip)
	if err != nil {
		t.Fatal(err)
	}
	text = bytes.ReplaceAll(text, []byte("benchmarks/multi_node/srt-slurm-recipes/"+rel), []byte("recipes/"+rel))
	if err := os.WriteFile(snip, text, 0o644); err != nil {
		t.Fatal(err)
	}
	srt := t.TempDir()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(srt, "recipes", rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(infxDir, "benchmarks/multi_node/srt-slurm-recipes", rel)
	if err := os.Rename(src, filepath.Join(srt, "recipes", rel)); err != nil {
		t.Fatal(err)
	}
	statuses := func(out string) map[string]int {
		var rep struct {
			Points []struct {
				Recipe, Status, Message string
			} `json:"points"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		m := map[string]int{}
		for _, p := range rep.Points {
			if p.Recipe == "recipes/"+rel {
				m[p.Status]++
				if p.Status == "compared" && p.Message != "recipe recipes/"+rel+` read from the given srt-slurm checkout (version "v1.0.53"); no launcher of the checkout says which srt-slurm ref runs it` {
					t.Errorf("message %q", p.Message)
				}
			}
		}
		return m
	}
	_, out, _ := runCoverageCLI(t, "--infx", infxDir, "--cookbook", cb, "--format", "json", "--allow-unverified")
	if got := statuses(out); got["upstream-only"] == 0 || got["compared"] != 0 {
		t.Errorf("without --srt-slurm-dir: %v, want upstream-only", got)
	}
	_, out, errs := runCoverageCLI(t, "--infx", infxDir, "--cookbook", cb, "--format", "json", "--allow-unverified", "--srt-slurm-dir", srt, "--srt-slurm-version", "v1.0.53")
	if got := statuses(out); got["compared"] == 0 || got["upstream-only"] != 0 {
		t.Errorf("with --srt-slurm-dir: %v (stderr %s), want compared", got, errs)
	}
}

// commitDemoCookbook makes the demo cookbook checkout cb a git repository
// with the demo snippet committed (go-git, a fixed author and time) and
// returns the commit.
func commitDemoCookbook(t *testing.T, cb string) plumbing.Hash {
	t.Helper()
	r, err := git.PlainInit(cb, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add(demoSnippet); err != nil {
		t.Fatal(err)
	}
	h, err := wt.Commit("demo", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(0, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestCoverageTextStoresInBackground: the text format prints while the
// report is stored (coverage.Options.StoreInBackground); the entry it
// leaves is the report a json run then prints, byte for byte what a run
// without the cache prints. (Under -race: the printing and the store
// only read the report.)
func TestCoverageTextStoresInBackground(t *testing.T) {
	ix, cb := demoDirs(t)
	cache := t.TempDir()
	args := []string{"--infx", ix, "--cookbook", cb, "--config-key", "qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg", "--allow-unverified"}
	code, text, errs := runCoverageCLI(t, append(args, "--cache-dir", cache)...)
	if code != 0 || errs != "" || !strings.HasPrefix(text, "✅ Check 3: no gaps") {
		t.Fatalf("text run: exit %d, stderr %q, stdout %.80q", code, errs, text)
	}
	entries := 0
	_ = filepath.WalkDir(cache, func(_ string, d fs.DirEntry, _ error) error {
		if d != nil && d.Type().IsRegular() && d.Name() != "trim.txt" {
			entries++
		}
		return nil
	})
	if entries == 0 {
		t.Fatal("the text run stored nothing")
	}
	code, want, errs := runCoverageCLI(t, append(args, "--no-cache", "--format", "json")...)
	if code != 0 || errs != "" {
		t.Fatalf("json run without the cache: exit %d, %s", code, errs)
	}
	for i := range 2 {
		code, got, errs := runCoverageCLI(t, append(args, "--cache-dir", cache, "--format", "json")...)
		if code != 0 || errs != "" || got != want {
			t.Errorf("json run %d from the text run's cache: exit %d, stderr %q, same output %v", i, code, errs, got == want)
		}
	}
}
