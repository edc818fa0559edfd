package coverage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
)

// TestPolicyOption: Options.Policy picks the policy version — the current
// one by default, a named one, or the checkout's own (pinned) — and bad
// values are *OptionError on field Policy, never a guess.
func TestPolicyOption(t *testing.T) {
	for _, c := range []struct{ in, id, from string }{
		{"", exclusions.DefaultPolicyID(), "default"},
		{"current", exclusions.DefaultPolicyID(), "default"},
		{"2026-07", "2026-07", "named"},
	} {
		spec, from, err := resolvePolicy(c.in, ".")
		if err != nil || spec.ID != c.id || from != c.from {
			t.Errorf("resolvePolicy(%q) = %s, %q, %v; want %s, %q", c.in, spec.ID, from, err, c.id, c.from)
		}
	}
	var oe *OptionError
	if _, _, err := resolvePolicy("1999-01", "."); !errors.As(err, &oe) || oe.Field != "Policy" || !errors.Is(err, ErrUsage) {
		t.Errorf("unknown version: %v", err)
	}
	empty := t.TempDir()
	if _, _, err := resolvePolicy("pinned", empty); !errors.As(err, &oe) || !strings.Contains(oe.Msg, "no sign-off prompt") {
		t.Errorf("pinned without a prompt: %v", err)
	}
	// a prompt that is no known version is refused with its hash
	if err := os.MkdirAll(filepath.Join(empty, ".github"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, ".github", "codeowner-signoff-verify-prompt.md"), []byte("Check everything, somehow.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := resolvePolicy("pinned", empty); !errors.As(err, &oe) || !strings.Contains(oe.Msg, "is no known policy version") {
		t.Errorf("pinned with an unknown prompt: %v", err)
	}
}

// TestPolicyScopeAndStrictness: under 2026-07 (single-node keys, major
// server args) the fixture's multi-node key is not applicable, and a
// difference in a setting that is not deployment-defining is informational
// under the policy's rule.
func TestPolicyScopeAndStrictness(t *testing.T) {
	rep, err := Run(context.Background(), Options{InfxDir: vllmFixtureInfx, VLLMRecipesDir: vllmFixtureRecipes, Policy: "2026-07"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Policy.ID != "2026-07" || rep.Policy.Scope != exclusions.ScopeSingleNode || rep.Policy.Strictness != exclusions.StrictMajor || rep.Policy.From != "named" {
		t.Errorf("policy %+v", rep.Policy)
	}
	k := vllmKey(t, rep, "comet-fp8-gb200-dynamo-vllm")
	if k.Verdict != compare.NotApplicable || len(k.Rows) != 0 || !strings.Contains(k.Note, "single-node keys only") {
		t.Errorf("multi-node key under 2026-07: %s %q rows %d", k.Verdict, k.Note, len(k.Rows))
	}
	single := vllmKey(t, rep, "comet-fp8-h200-vllm")
	if single.Verdict == compare.NotApplicable || len(single.Rows) == 0 {
		t.Errorf("single-node key under 2026-07: %s", single.Verdict)
	}
	// the current policy compares the multi-node key
	cur, err := Run(context.Background(), Options{InfxDir: vllmFixtureInfx, VLLMRecipesDir: vllmFixtureRecipes})
	if err != nil {
		t.Fatal(err)
	}
	if vllmKey(t, cur, "comet-fp8-gb200-dynamo-vllm").Verdict != compare.Differs {
		t.Errorf("current policy: the multi-node key is %s, want differs", vllmKey(t, cur, "comet-fp8-gb200-dynamo-vllm").Verdict)
	}
	// strictness: --gpu-memory-utilization etc. are not major
	spec, _ := exclusions.PolicyByID("2026-07")
	for key, want := range map[string]bool{"--tensor-parallel-size": true, "--moe-backend": true, "--attention-config": true,
		"--max-num-seqs": false, "env VLLM_USE_V2_MODEL_RUNNER": false, "--chunked-prefill-size": false} {
		if got := spec.Counts(key); got != want {
			t.Errorf("2026-07 counts %s = %v, want %v", key, got, want)
		}
	}
}

// TestPolicyPinnedPromptFile: a prompt file that is there but cannot be
// read, or that links out of the checkout, is bad input naming the file —
// never a fall back to the workflow's prompt (another version).
func TestPolicyPinnedPromptFile(t *testing.T) {
	dir := t.TempDir()
	gh := filepath.Join(dir, ".github")
	if err := os.MkdirAll(filepath.Join(gh, "codeowner-signoff-verify-prompt.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	var oe *OptionError
	if _, _, err := resolvePolicy("pinned", dir); !errors.As(err, &oe) || !strings.Contains(oe.Msg, ".github/codeowner-signoff-verify-prompt.md") {
		t.Errorf("prompt is a directory: %v", err)
	}
	out := filepath.Join(t.TempDir(), "outside.md")
	if err := os.WriteFile(out, []byte("Production-useful recipe linked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(gh, "codeowner-signoff-verify-prompt.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(gh, "codeowner-signoff-verify-prompt.md")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := resolvePolicy("pinned", dir); !errors.As(err, &oe) || !strings.Contains(oe.Msg, "links outside the checkout") {
		t.Errorf("prompt links out of the checkout: %v", err)
	}
}
