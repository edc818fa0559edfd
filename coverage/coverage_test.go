package coverage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// A cited srt-slurm recipes/<file> path (the CONFIG_FILE form) is found at
// the launcher's overlay benchmarks/multi_node/srt-slurm-recipes/<file>;
// when the overlay is absent too it is upstream-only (infx/points.go: it
// lives in the NVIDIA/srt-slurm ref the launcher clones), while an absent
// repository path stays "recipe not found".
func TestCitedRecipeStatus(t *testing.T) {
	dir := t.TempDir()
	overlay := filepath.Join(dir, "benchmarks", "multi_node", "srt-slurm-recipes", "qwen3.5", "sglang", "agg.yaml")
	if err := os.MkdirAll(filepath.Dir(overlay), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(overlay, []byte("name: agg\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if file, rel := resolveRecipe(dir, "recipes/qwen3.5/sglang/agg.yaml"); file != overlay || rel != "benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/agg.yaml" {
		t.Errorf("overlay: %q %q", file, rel)
	}
	for _, c := range []struct {
		recipe string
		want   report.Status
		msg    string
	}{
		{"recipes/qwen3.5/sglang/disagg.yaml", report.StatusUpstreamOnly, "recipe recipes/qwen3.5/sglang/disagg.yaml is not in the InferenceX checkout, nor its overlay under benchmarks/multi_node/srt-slurm-recipes/: it lives in the NVIDIA/srt-slurm ref the launcher clones"},
		{"benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/disagg.yaml", report.StatusRecipeNotFound, "recipe benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/disagg.yaml is not in the InferenceX checkout"},
	} {
		if f, _ := resolveRecipe(dir, c.recipe); f != "" {
			t.Fatalf("%s found at %s", c.recipe, f)
		}
		pr := report.PointResult{Recipe: c.recipe}
		(&run{ctx: context.Background(), rep: &report.Report{}}).notFound(&pr, &cookbook.File{}, cookbook.Selection{})
		if pr.Status != c.want || pr.Message != c.msg || !pr.Status.NotVerified() {
			t.Errorf("%s: %q %q, want %q %q", c.recipe, pr.Status, pr.Message, c.want, c.msg)
		}
	}
}

// A --config-key glob that matches no cell compares nothing: bad usage,
// never an empty report that exits 0.
func TestCoverageConfigKeyMatchesNothing(t *testing.T) {
	ixDir, cbDir := scriptFixture()
	_, err := Run(context.Background(), Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}, ConfigKeys: []string{"qwen35*"}})
	var oe *OptionError
	if !errors.Is(err, ErrUsage) || !errors.As(err, &oe) || oe.Field != "ConfigKey" || oe.Value != "qwen35*" ||
		oe.Msg != "no cookbook cell cites a config key matching it: nothing was compared" {
		t.Errorf("error %v", err)
	}
	// The retired key's cell exists; a glob matching it alone still
	// compares its points.
	rep, err := Run(context.Background(), Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}, ConfigKeys: []string{"*-retired"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Points) == 0 || len(rep.CookbookFiles) != 1 {
		t.Errorf("*-retired: %d points, %d files", len(rep.Points), len(rep.CookbookFiles))
	}
}

// Several ConfigKeys patterns: a key is in scope when any matches, in every
// part of the run (cookbook cells, vLLM-family keys); each pattern that
// matches no key of the run is its own usage error naming it, never a
// silently smaller run.
func TestCoverageConfigKeysEachMustMatch(t *testing.T) {
	_, cbDir := scriptFixture()
	base := Options{InfxDir: vllmFixtureInfx, CookbookDirs: []string{cbDir}, VLLMRecipesDir: vllmFixtureRecipes}
	opt := base
	opt.ConfigKeys = []string{"*-retired", "comet-fp8-h200-vllm"}
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, p := range rep.Points {
		keys = append(keys, "cookbook "+p.CellID+"·p"+strconv.Itoa(p.Point))
	}
	for _, k := range rep.VLLM {
		keys = append(keys, "vllm "+k.ConfigKey)
	}
	if want := []string{"cookbook qwen3.5-fp8-b200-sglang-agentic-mtp-retired#0·p0", "vllm comet-fp8-h200-vllm"}; !slices.Equal(keys, want) {
		t.Errorf("keys judged %q, want %q", keys, want)
	}

	opt.ConfigKeys = []string{"*-retired", "nomatch*", "comet-*", "qwen9-?"}
	_, err = Run(context.Background(), opt)
	if !errors.Is(err, ErrUsage) {
		t.Fatalf("error %v, want ErrUsage", err)
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("error %T %v: want one error per pattern", err, err)
	}
	msg := "no cookbook cell cites a config key matching it; no vLLM-family config key (vllm, dynamo-vllm, llmd-vllm) of the InferenceX checkout " +
		launch.QuotePath(vllmFixtureInfx) + " matches: nothing was compared"
	var got []string
	for _, e := range j.Unwrap() {
		var oe *OptionError
		if !errors.As(e, &oe) || oe.Field != "ConfigKey" || oe.Msg != msg {
			t.Errorf("error %v", e)
			continue
		}
		got = append(got, oe.Value)
	}
	if want := []string{"nomatch*", "qwen9-?"}; !slices.Equal(got, want) {
		t.Errorf("patterns named %q, want %q", got, want)
	}

	for _, c := range []struct {
		pattern string
		want    string
	}{
		{"", "ConfigKey: an empty pattern matches no config key"},
		{"qwen[", "ConfigKey qwen[: syntax error in pattern"},
	} {
		opt.ConfigKeys = []string{"*-retired", c.pattern}
		_, err := Run(context.Background(), opt)
		var oe *OptionError
		if !errors.Is(err, ErrUsage) || !errors.As(err, &oe) || oe.Field != "ConfigKey" || oe.Value != c.pattern || err.Error() != c.want {
			t.Errorf("pattern %q: error %v, want %q", c.pattern, err, c.want)
		}
	}
}

func TestOptionsKeyInScope(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		key      string
		want     bool
	}{
		{nil, "anything", true},
		{[]string{"qwen3.5-*"}, "qwen3.5-fp8-b200-sglang", true},
		{[]string{"qwen3.5-*"}, "dsr1-fp8-h200-vllm", false},
		{[]string{"qwen3.5-*", "dsr1-*-vllm"}, "dsr1-fp8-h200-vllm", true},
		{[]string{"qwen3.5-*", "dsr1-*-vllm"}, "dsr1-fp8-h200-sglang", false},
		{[]string{"dsr1-fp8-h200-vllm"}, "dsr1-fp8-h200-vllm", true},
		{[]string{"dsr1-fp8-h200-vllm"}, "dsr1-fp8-h200-vllm-mtp", false},
		{[]string{"qwen["}, "qwen[", false}, // malformed: matches nothing
	} {
		if got := (Options{ConfigKeys: c.patterns}).KeyInScope(c.key); got != c.want {
			t.Errorf("%q KeyInScope(%q) = %v, want %v", c.patterns, c.key, got, c.want)
		}
	}
}

// TestCorpusCoverageConfigKeyFiles: with --config-key the header lists only
// the snippet files with a matching cell (the pairs corpus has qwen3.5.jsx
// and glm-5.2.jsx; glm5.2-* keys are only in the second).
func TestCorpusCoverageConfigKeyFiles(t *testing.T) {
	infx, sglang, _ := corpusDirs(t)
	rep, err := Run(context.Background(), Options{InfxDir: infx, CookbookDirs: []string{sglang}, ConfigKeys: []string{"glm5.2-*"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.CookbookFiles) != 1 || rep.CookbookFiles[0].Path != "docs/src/snippets/agentx/zai-org/glm-5.2.jsx" {
		t.Errorf("files %+v, want only glm-5.2.jsx", rep.CookbookFiles)
	}
	for _, p := range rep.Points {
		if !strings.HasPrefix(p.ConfigKey, "glm5.2-") {
			t.Errorf("point of %s", p.ConfigKey)
		}
	}
	if !strings.Contains(textOf(rep), "Cookbook: docs/src/snippets/agentx/zai-org/glm-5.2.jsx (") || strings.Contains(textOf(rep), "Cookbook: docs/src/snippets/agentx/Qwen/") {
		t.Errorf("text header:\n%s", textOf(rep))
	}
}

func sp(s string) *string { return &s }

// resolveRecipe is where comparePoint finds a cited recipe path in the
// InferenceX checkout dir (infx.ResolveRecipe, citation form): the file and
// its checkout-relative path, or "" "" when absent.
func resolveRecipe(dir, recipe string) (file, rel string) {
	r := infx.ResolveRecipe(dir, recipe, infx.ResolveOptions{Form: infx.FormCitation})
	return r.File, r.Rel
}

// The text Gaps say which side carries a prohibited setting; the Markdown
// evidence lists judgment-class differences in their own table, never under
// "excluded setting"; points that were not verified are gaps, or listed
// apart with AllowUnverified.
func TestReportGapsText(t *testing.T) {
	prohibitedRule := compare.Exclusion{Setting: "env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", InferenceX: sp("1"), Rule: "prohibited-nvfp4-ckpt-fp8-nextn-moe",
		Class: exclusions.Class("prohibited"), Reason: "Check 13", Policy: "p"}
	both := prohibitedRule
	both.Upstream = sp("1")
	rep := &report.Report{Points: []report.PointResult{
		{CellID: "k#0", ConfigKey: "k", Point: 0, Status: report.StatusCompared, Roles: []compare.Result{
			{Role: "decode", Verdict: compare.Prohibited, Prohibited: []compare.Exclusion{prohibitedRule},
				Excluded: []compare.Exclusion{{Setting: "--nccl-port", InferenceX: sp("17500"), Rule: "harness-nccl-port", Class: "harness", Reason: "harness port", Policy: "p"}},
				Info:     []compare.Exclusion{{Setting: "--cuda-graph-max-bs", Upstream: sp("8"), InferenceX: sp("16"), Rule: "judgment-cuda-graph-max-bs", Class: "judgment", Reason: "sweep-derived", Policy: "p"}}},
			{Role: "prefill", Verdict: compare.Prohibited, Prohibited: []compare.Exclusion{both}},
		}, Verdict: compare.Prohibited},
		{CellID: "k#1", ConfigKey: "k", Point: 0, Status: report.StatusScriptNotFound, Verdict: compare.ScriptNotFound, Message: "single-node script s.sh is not in the InferenceX checkout"},
		{CellID: "k#1", ConfigKey: "k", Point: 1, Status: report.StatusScriptNotFound, Verdict: compare.ScriptNotFound, Message: "single-node script s.sh is not in the InferenceX checkout"},
	}}
	rep.Count()
	if !rep.Gap || !rep.UnverifiedGap || rep.Counts.Unverified != 2 {
		t.Fatalf("gap %v unverified %v %d", rep.Gap, rep.UnverifiedGap, rep.Counts.Unverified)
	}
	txt := textOf(rep)
	for _, w := range []string{
		"  k#0 point 0 decode: prohibited\n    env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE: PROHIBITED, set in inferencex only (inferencex 1) — prohibited-nvfp4-ckpt-fp8-nextn-moe: Check 13\n",
		"  k#0 point 0 prefill: prohibited\n    env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE: PROHIBITED, set in both upstream and inferencex (upstream 1, inferencex 1) — prohibited-nvfp4-ckpt-fp8-nextn-moe: Check 13\n",
		"  k#1 points 0,1: not verified: script not found\n    single-node script s.sh is not in the InferenceX checkout\n",
		"Not verified: 2 (a gap: their settings were not compared; --allow-unverified lists them without failing)\n",
	} {
		if !strings.Contains(txt, w) {
			t.Errorf("text lacks %q:\n%s", w, txt)
		}
	}
	// The Markdown printer has its own golden tests (package report); here
	// only: it names the verdicts.
	md := markdownOf(rep)
	for _, w := range []string{string(compare.Prohibited), "not verified"} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}
	if first, _, _ := strings.Cut(txt, "\n"); first != report.Headline(rep) || first != "❌ Check 3: 3 gaps — prohibited 1, not verified 2" {
		t.Errorf("headline %q (Headline %q)", first, report.Headline(rep))
	}

	rep.AllowUnverified = true
	rep.Count()
	if rep.UnverifiedGap || !rep.Gap { // still a gap: the prohibited settings
		t.Errorf("allowed: unverifiedGap %v gap %v", rep.UnverifiedGap, rep.Gap)
	}
	txt = textOf(rep)
	if !strings.Contains(txt, "\nNot verified (--allow-unverified: listed, not a gap):\n  k#1 points 0,1: not verified: script not found\n") ||
		!strings.Contains(txt, "Not verified: 2 (listed, not a gap: --allow-unverified)\n") {
		t.Errorf("allowed text:\n%s", txt)
	}
}
