package coverage

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// checkoutAt makes a work tree of the bare mirror gd at commit in a
// temporary directory (git clone --shared: no network, no copy of the
// objects).
func checkoutAt(t *testing.T, gd, commit string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "wt")
	for _, args := range [][]string{{"clone", "-q", "--shared", "--no-checkout", gd, dir}, {"-C", dir, "checkout", "-q", commit}} {
		cmd := exec.Command("git", args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
		}
	}
	return dir
}

// TestMirrorReplaySignoffs replays two real sign-offs at their commits with
// --policy pinned (issue 12): the InferenceX checkout states policy 2026-07
// (single-node keys, major server args), and the gap each sign-off missed
// is found — and only that gap.
//
//   - InferenceX PR #2224, dsv4-fp4-b200-vllm-agentic at InferenceX
//     455eabce against vllm-project/recipes 8bfd714e: the MoE backend
//     deep_gemm_amxf4_mega_moe (EP rows) and the FLASHINFER_MLA_SPARSE_DSV4
//     attention backend are not documented (nor the FP8 combine env var
//     VLLM_DSV4_MEGA_FP8_COMBINE of that MoE kernel, major by rule).
//   - PR #2337, minimaxm3-fp8-b200-vllm-mtp at 315b9a01 against recipes
//     5e93cbed: the EAGLE3-GQA draft vs the recipe's EAGLE3.
//
// Needs bare git mirrors of both repositories, named by
// INFX_MIRROR_GIT_DIR and VLLM_RECIPES_MIRROR_GIT_DIR, and git; skipped
// loudly without the variables.
func TestMirrorReplaySignoffs(t *testing.T) {
	ixGD := testutil.MirrorGitDir(t, testutil.MirrorInferenceX)
	rcGD := testutil.MirrorGitDir(t, testutil.MirrorVLLMRecipes)
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("the mirrors are set but git is absent: the sign-off replays cannot run")
	}
	cases := []struct {
		pr, infx, recipes, key string
		// want: every differing setting of the key's gap roles, with a
		// part of each side's value
		want map[string][2]string
	}{
		{"2224", "455eabce", "8bfd714e", "dsv4-fp4-b200-vllm-agentic", map[string][2]string{
			"--moe-backend":      {"deep_gemm_mega_moe", "deep_gemm_amxf4_mega_moe"},
			"--attention-config": {`"use_fp4_indexer_cache":true`, `"backend":"FLASHINFER_MLA_SPARSE_DSV4"`},
			// the FP8 combine of that MegaMoE kernel: a quantization choice
			// set by env var, major by rule under 2026-07 (issue 22 item 3,
			// like ROCM_QUICK_REDUCE_QUANTIZATION); rows already differ
			"env VLLM_DSV4_MEGA_FP8_COMBINE": {"(absent)", "1"},
		}},
		// --kv-cache-dtype fp8 is no gap: the recipe's prose says "Add
		// `--kv-cache-dtype fp8` to any command" (models/MiniMaxAI/
		// MiniMax-M3.yaml guide:, issue 22 item 5), and the compared
		// selection is that prose alternate (wantProse)
		{"2337", "315b9a01", "5e93cbed", "minimaxm3-fp8-b200-vllm-mtp", map[string][2]string{
			"--speculative-config": {`"model":"Inferact/MiniMax-M3-EAGLE3"`, `"model":"Inferact/MiniMax-M3-EAGLE3-GQA"`},
			// the attention kernel is a kernel-selection backend under 2026-07
			"--attention-config": {`"indexer_kv_dtype":"fp8"`, `"backend":"FLASHINFER"`},
		}},
	}
	wantProse := map[string]string{"2337": "add --kv-cache-dtype fp8"}
	for _, c := range cases {
		t.Run("PR"+c.pr, func(t *testing.T) {
			rep, err := Run(context.Background(), Options{InfxDir: checkoutAt(t, ixGD, c.infx), VLLMRecipesDir: checkoutAt(t, rcGD, c.recipes),
				ConfigKeys: []string{c.key}, Policy: "pinned"})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Policy.ID != "2026-07" || !strings.HasPrefix(rep.Policy.From, "pinned: .github/codeowner-signoff-verify-prompt.md sha256 ") {
				t.Errorf("policy %s from %q, want 2026-07 pinned from the checkout's prompt", rep.Policy.ID, rep.Policy.From)
			}
			if len(rep.VLLM) != 1 || rep.VLLM[0].Verdict != compare.Differs || !rep.Gap {
				t.Fatalf("key verdicts %+v (gap %v), want one differing key", rep.VLLM, rep.Gap)
			}
			got := map[string]bool{}
			for _, row := range rep.VLLM[0].Rows {
				for _, ro := range row.Roles {
					if ro.Result == nil || ro.Verdict != compare.Differs {
						continue // a role no recipe covers carries the nearest's evidence
					}
					if w := wantProse[c.pr]; w != "" && (ro.Recipe.Prose == nil || ro.Recipe.Prose.Setting != w) {
						t.Errorf("row %d %s: compared %s, want the prose alternate %q", row.Row, ro.Role, ro.Recipe.Where, w)
					}
					for _, d := range ro.Result.Differences {
						w, ok := c.want[d.Setting]
						switch {
						case !ok:
							t.Errorf("row %d %s: unexpected difference %s: upstream %s, inferencex %s", row.Row, ro.Role, d.Setting, compare.Shown(d.Upstream), compare.Shown(d.InferenceX))
						case !strings.Contains(compare.Shown(d.Upstream), w[0]) || !strings.Contains(compare.Shown(d.InferenceX), w[1]):
							t.Errorf("row %d %s: %s: upstream %s, inferencex %s; want %q / %q", row.Row, ro.Role, d.Setting, compare.Shown(d.Upstream), compare.Shown(d.InferenceX), w[0], w[1])
						}
						got[d.Setting] = true
					}
				}
			}
			for s := range c.want {
				if !got[s] {
					t.Errorf("the gap %s was not found", s)
				}
			}
			if h := report.Headline(rep); !strings.HasPrefix(h, "❌ Check 3: ") {
				t.Errorf("headline %q", h)
			}
		})
	}
}
