package compare

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
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
		want   PointStatus
		msg    string
	}{
		{"recipes/qwen3.5/sglang/disagg.yaml", StatusUpstreamOnly, "recipe recipes/qwen3.5/sglang/disagg.yaml is not in the InferenceX checkout (--infx), nor its overlay under benchmarks/multi_node/srt-slurm-recipes/: it lives in the NVIDIA/srt-slurm ref the launcher clones"},
		{"benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/disagg.yaml", StatusRecipeNotFound, "recipe benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/disagg.yaml is not in the InferenceX checkout (--infx)"},
	} {
		if f, _ := resolveRecipe(dir, c.recipe); f != "" {
			t.Fatalf("%s found at %s", c.recipe, f)
		}
		pr := PointResult{Recipe: c.recipe}
		notFound(&pr, &cookbook.File{}, cookbook.Selection{}, nil, nil)
		if pr.Status != c.want || pr.Message != c.msg || !NotVerified(string(pr.Status)) {
			t.Errorf("%s: %q %q, want %q %q", c.recipe, pr.Status, pr.Message, c.want, c.msg)
		}
	}
}

// A --config-key glob that matches no cell compares nothing: bad usage,
// never an empty report that exits 0.
func TestCoverageConfigKeyMatchesNothing(t *testing.T) {
	ixDir, cbDir := scriptFixture()
	_, err := Coverage(CoverageOptions{InfxDir: ixDir, CookbookDir: cbDir, ConfigKey: "qwen35*"})
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), `no cookbook cell cites a config key matching "qwen35*"`) {
		t.Errorf("error %v", err)
	}
	// The retired key's cell exists; a glob matching it alone still
	// compares its points.
	rep, err := Coverage(CoverageOptions{InfxDir: ixDir, CookbookDir: cbDir, ConfigKey: "*-retired"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Points) == 0 || len(rep.Cookbook) != 1 {
		t.Errorf("*-retired: %d points, %d files", len(rep.Points), len(rep.Cookbook))
	}
}

// TestCorpusCoverageConfigKeyFiles: with --config-key the header lists only
// the snippet files with a matching cell (the pairs corpus has qwen3.5.jsx
// and glm-5.2.jsx; glm5.2-* keys are only in the second).
func TestCorpusCoverageConfigKeyFiles(t *testing.T) {
	infx, sglang, _ := corpusDirs(t)
	rep, err := Coverage(CoverageOptions{InfxDir: infx, CookbookDir: sglang, ConfigKey: "glm5.2-*"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cookbook) != 1 || rep.Cookbook[0].Path != "docs/src/snippets/agentx/zai-org/glm-5.2.jsx" {
		t.Errorf("files %+v, want only glm-5.2.jsx", rep.Cookbook)
	}
	for _, p := range rep.Points {
		if !strings.HasPrefix(p.ConfigKey, "glm5.2-") {
			t.Errorf("point of %s", p.ConfigKey)
		}
	}
	if !strings.Contains(rep.Text(), "Cookbook: docs/src/snippets/agentx/zai-org/glm-5.2.jsx (") || strings.Contains(rep.Text(), "Cookbook: docs/src/snippets/agentx/Qwen/") {
		t.Errorf("text header:\n%s", rep.Text())
	}
}

func sp(s string) *string { return &s }

// The text Gaps say which side carries a prohibited setting; the Markdown
// evidence lists judgment-class differences in their own table, never under
// "excluded setting"; points that were not verified are gaps, or listed
// apart with AllowUnverified.
func TestReportGapsText(t *testing.T) {
	prohibitedRule := Exclusion{Setting: "env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", Recipe: sp("1"), Rule: "prohibited-nvfp4-ckpt-fp8-nextn-moe",
		Class: exclusions.Class("prohibited"), Reason: "Check 13", Policy: "p"}
	both := prohibitedRule
	both.Cookbook = sp("1")
	rep := &Report{Points: []PointResult{
		{CellID: "k#0", ConfigKey: "k", Point: 0, Status: StatusCompared, Roles: []Result{
			{Role: "decode", Verdict: Prohibited, Prohibited: []Exclusion{prohibitedRule},
				Excluded: []Exclusion{{Setting: "--nccl-port", Recipe: sp("17500"), Rule: "harness-nccl-port", Class: "harness", Reason: "harness port", Policy: "p"}},
				Info:     []Exclusion{{Setting: "--cuda-graph-max-bs", Cookbook: sp("8"), Recipe: sp("16"), Rule: "judgment-cuda-graph-max-bs", Class: "judgment", Reason: "sweep-derived", Policy: "p"}}},
			{Role: "prefill", Verdict: Prohibited, Prohibited: []Exclusion{both}},
		}, Verdict: Prohibited},
		{CellID: "k#1", ConfigKey: "k", Point: 0, Status: StatusScriptNotFound, Message: "single-node script s.sh is not in the InferenceX checkout (--infx)"},
		{CellID: "k#1", ConfigKey: "k", Point: 1, Status: StatusScriptNotFound, Message: "single-node script s.sh is not in the InferenceX checkout (--infx)"},
	}}
	rep.count()
	if !rep.Gap || !rep.UnverifiedGap || rep.Counts.Unverified != 2 {
		t.Fatalf("gap %v unverified %v %d", rep.Gap, rep.UnverifiedGap, rep.Counts.Unverified)
	}
	txt := rep.Text()
	for _, w := range []string{
		"  k#0 point 0 decode: prohibited\n    env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE: PROHIBITED, set in recipe only (recipe 1) — prohibited-nvfp4-ckpt-fp8-nextn-moe: Check 13\n",
		"  k#0 point 0 prefill: prohibited\n    env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE: PROHIBITED, set in both cookbook and recipe (cookbook 1, recipe 1) — prohibited-nvfp4-ckpt-fp8-nextn-moe: Check 13\n",
		"  k#1 points 0,1: not verified: script not found\n    single-node script s.sh is not in the InferenceX checkout (--infx)\n",
		"Not verified: 2 (a gap: their settings were not compared; --allow-unverified lists them without failing)\n",
	} {
		if !strings.Contains(txt, w) {
			t.Errorf("text lacks %q:\n%s", w, txt)
		}
	}
	md := rep.Markdown()
	for _, w := range []string{
		"| excluded setting | cookbook | recipe | class | rule | reason | policy |\n|---|---|---|---|---|---|---|\n| `--nccl-port` | (absent) | `17500` | harness | harness-nccl-port | harness port | p |\n\n" +
			"| informational (judgment) | cookbook | recipe | class | rule | reason | policy |\n|---|---|---|---|---|---|---|\n| `--cuda-graph-max-bs` | `8` | `16` | judgment | judgment-cuda-graph-max-bs | sweep-derived | p |\n",
		"- Result: **script not found** (not verified) — single-node script s.sh",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("markdown lacks %q:\n%s", w, md)
		}
	}

	rep.AllowUnverified = true
	rep.count()
	if rep.UnverifiedGap || !rep.Gap { // still a gap: the prohibited settings
		t.Errorf("allowed: unverifiedGap %v gap %v", rep.UnverifiedGap, rep.Gap)
	}
	txt = rep.Text()
	if !strings.Contains(txt, "\nNot verified (--allow-unverified: listed, not a gap):\n  k#1 points 0,1: not verified: script not found\n") ||
		!strings.Contains(txt, "Not verified: 2 (listed, not a gap: --allow-unverified)\n") {
		t.Errorf("allowed text:\n%s", txt)
	}
}
