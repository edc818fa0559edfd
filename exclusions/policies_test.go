package exclusions

import (
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestPoliciesLoad(t *testing.T) {
	var ids []string
	for _, p := range Policies() {
		ids = append(ids, p.ID)
	}
	if want := []string{"09813166", "2026-07", "2026-06-major", "2026-06-complete"}; !reflect.DeepEqual(ids, want) {
		t.Fatalf("policies %q, want %q", ids, want)
	}
	if DefaultPolicyID() != "09813166" {
		t.Errorf("default %q", DefaultPolicyID())
	}
	cur, err := PolicyByID("current")
	if err != nil || cur.ID != "09813166" || cur.Scope != ScopeAll || cur.Strictness != StrictAll {
		t.Errorf("current = %+v, %v", cur, err)
	}
	old, err := PolicyByID("2026-07")
	if err != nil || old.Scope != ScopeSingleNode || old.Strictness != StrictMajor || old.From != "2026-07-03" || old.Until != "2026-08-22" || len(old.Prompts) != 10 {
		t.Errorf("2026-07 = %+v, %v", old, err)
	}
	if !strings.Contains(old.Quote, "MAJOR, deployment-defining server args") || !strings.Contains(old.Quote, "`--chunked-prefill-size`") {
		t.Errorf("2026-07 quote %q", old.Quote)
	}
	if _, err := PolicyByID("2025-01"); err == nil || !strings.Contains(err.Error(), "known: 09813166, 2026-06-complete, 2026-06-major, 2026-07, current") {
		t.Errorf("unknown id: %v", err)
	}
}

func TestPolicyStrictnessAndScope(t *testing.T) {
	old, err := PolicyByID("2026-07")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := PolicyByID("09813166")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]bool{
		// MAJOR in the 2026-07 prompt's words
		"--model-path": true, "positional": true, "--tensor-parallel-size": true, "--data-parallel-size": true,
		"--enable-expert-parallel": true, "--enable-dp-attention": true, "--enable-dp-lm-head": true,
		"--quantization": true, "--kv-cache-dtype": true, "--attention-backend": true, "--moe-runner-backend": true,
		"--moe-backend": true, "--enable-flashinfer-allreduce-fusion": true, "--speculative-config": true,
		"--speculative-algorithm": true, "workers": true, "nodes-per-worker": true,
		"env VLLM_USE_DEEP_GEMM": true, // an env var that selects a kernel (kernel-library)
		// INFERENCEX-SPECIFIC examples and everything not MAJOR
		"--scheduler-recv-interval": false, "--chunked-prefill-size": false, "--disable-piecewise-cuda-graph": false,
		"env SGLANG_RADIX_FORCE_MISS": false, "image": false,
		"--speculative-config.synthetic_acceptance_length": false, "--max-num-seqs": false,
		"--max-num-batched-tokens": false, "--async-scheduling": false, "--mem-fraction-static": false,
		"--cuda-graph-max-bs": false, "--served-model-name": false, "--tool-call-parser": false,
	}
	for k, want := range counts {
		if got := old.Counts(k); got != want {
			t.Errorf("2026-07 Counts(%q) = %v, want %v", k, got, want)
		}
		if !cur.Counts(k) {
			t.Errorf("current Counts(%q) = false, want every setting", k)
		}
	}
	if !old.InScope(true) || old.InScope(false) || !cur.InScope(true) || !cur.InScope(false) {
		t.Errorf("InScope: 2026-07 %v/%v, current %v/%v", old.InScope(true), old.InScope(false), cur.InScope(true), cur.InScope(false))
	}
	if mj, _ := PolicyByID("2026-06-major"); !mj.InScope(false) || mj.Counts("--max-num-seqs") || !mj.Counts("--kv-cache-dtype") {
		t.Errorf("2026-06-major: scope all, major strictness; got %+v", mj)
	}
}

func TestForPolicyRules(t *testing.T) {
	def, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	old, err := ForPolicy("2026-07")
	if err != nil {
		t.Fatal(err)
	}
	st := Setting{Kind: KindFlag, Name: "--chunked-prefill-size", Value: "16384", Engine: "sglang", Role: "agg"}
	if r, ok := def.Match(st); ok {
		t.Errorf("current policy: --chunked-prefill-size matched %s, want compared", r.ID)
	}
	if r, ok := old.Match(st); !ok || r.ID != "judgment-2026-07-sweep-tuning" || r.Class != ClassJudgment || r.Policy != "prompt-2026-07" {
		t.Errorf("2026-07: --chunked-prefill-size matched %+v %v", r, ok)
	}
	// the rules both versions share still apply, prohibited included
	if r, ok := old.MatchProhibited(Setting{Kind: KindEnv, Name: "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", Value: "1"}); !ok || r.ID != "prohibited-nvfp4-ckpt-fp8-nextn-moe" {
		t.Errorf("2026-07 prohibited: %+v %v", r, ok)
	}
	if def.PolicyID() != "09813166" || old.PolicyID() != "2026-07" {
		t.Errorf("PolicyID %q %q", def.PolicyID(), old.PolicyID())
	}
	if got := old.PolicyVersion(); !strings.HasSuffix(got, "@16badaff..35d731a9)") {
		t.Errorf("2026-07 PolicyVersion %q", got)
	}
	if got := def.PolicyVersion(); !strings.HasSuffix(got, "codeowner-signoff-verify-prompt.md@09813166)") {
		t.Errorf("default PolicyVersion %q", got)
	}
	if len(old.Rules()) != len(def.Rules())+1 {
		t.Errorf("rules: 2026-07 %d, current %d; want one more (judgment-2026-07-sweep-tuning)", len(old.Rules()), len(def.Rules()))
	}
	if _, err := ForPolicy("nope"); err == nil {
		t.Error("ForPolicy(nope): no error")
	}
}

func TestPromptHashTolerance(t *testing.T) {
	a := PromptHash([]byte("## Check 3\nline  \n\n"))
	for _, v := range []string{"## Check 3\nline", "## Check 3\r\nline\t\r\n\n\n", "## Check 3 \nline\n"} {
		if PromptHash([]byte(v)) != a {
			t.Errorf("PromptHash(%q) differs from the trimmed text's", v)
		}
	}
	if PromptHash([]byte("## Check 3\n line\n")) == a {
		t.Error("leading whitespace must count")
	}
}

func TestIdentifyPromptByMarkers(t *testing.T) {
	cases := map[string]string{
		"## Check 3 — Production-useful recipe linked, MERGED, AND complete\n":                                   "09813166",
		"## Check 3 — Recipe linked AND complete (SINGLE-NODE recipes only)\n- (c) MAJOR SERVER ARGS MATCH: …\n": "2026-07",
		"## Check 3 — Recipe linked AND complete\n- (b) MAJOR SERVER ARGS MATCH: …\n":                            "2026-06-major",
		"## Check 3 — Recipe linked AND complete\n- (b) RECIPE COMPLETE: …\n":                                    "2026-06-complete",
	}
	for text, want := range cases {
		m, ok := MatchPrompt([]byte(text))
		if !ok || m.Policy != want || m.By != "markers" || m.SHA256 != PromptHash([]byte(text)) {
			t.Errorf("MatchPrompt(%q) = %+v %v, want %s by markers", text, m, ok, want)
		}
	}
	if id, ok := IdentifyPrompt([]byte("You are an automated merge-gate auditor.\n")); ok {
		t.Errorf("unknown prompt identified as %s", id)
	}
}

func TestPromptFromWorkflow(t *testing.T) {
	wf := `on: issue_comment
jobs:
  gate:
    steps:
      - uses: actions/checkout@v4
  verify:
    steps:
      - uses: anthropics/claude-code-action@v1
        with:
          prompt: |
            REPO: ${{ github.repository }}

            ## Check 3 — Recipe linked AND complete (SINGLE-NODE recipes only)
            - (c) MAJOR SERVER ARGS MATCH: compare.
      - uses: actions/github-script@v9
        with:
          script: |
            console.log("no prompt")
`
	got, err := PromptFromWorkflow([]byte(wf))
	if err != nil {
		t.Fatal(err)
	}
	want := "REPO: ${{ github.repository }}\n\n## Check 3 — Recipe linked AND complete (SINGLE-NODE recipes only)\n- (c) MAJOR SERVER ARGS MATCH: compare.\n"
	if string(got) != want {
		t.Errorf("prompt %q, want %q", got, want)
	}
	if id, ok := IdentifyPrompt(got); !ok || id != "2026-07" {
		t.Errorf("IdentifyPrompt = %q %v", id, ok)
	}
	if _, err := PromptFromWorkflow([]byte("jobs: {a: {steps: [{run: x}]}}")); err == nil {
		t.Error("no prompt: no error")
	}
}

// TestCorpusIdentifyPrompt: the prompt of the InferenceX checkout in the
// corpus (843c6254, 2026-08-22; the file last changed at 35d731a9) is the
// 2026-07 policy, by content hash, also with trailing whitespace added; an
// edited copy is still identified, by its markers.
func TestCorpusIdentifyPrompt(t *testing.T) {
	text, err := os.ReadFile(testutil.SharedPath(t, "corpus/upstream/InferenceX/.github/codeowner-signoff-verify-prompt.md"))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := MatchPrompt(text)
	if !ok || !reflect.DeepEqual(m, PromptMatch{Policy: "2026-07", By: "sha256", SHA256: "7c549a6119bf8ab07cd07c9e100e58a4604c62bb4d932f9765d58877cdbb35e3", Commit: "35d731a9e"}) {
		t.Errorf("MatchPrompt = %+v %v", m, ok)
	}
	// the words of two versions: ambiguous, never a guess
	both := string(text) + "\nProduction-useful recipe linked\n"
	if m3, ok := MatchPrompt([]byte(both)); ok || len(m3.Ambiguous) != 2 {
		t.Errorf("two versions' markers: %+v %v", m3, ok)
	}
	padded := strings.ReplaceAll(string(text), "\n", "  \r\n") + "\n\n"
	if m2, ok := MatchPrompt([]byte(padded)); !ok || m2.By != "sha256" || m2.Policy != "2026-07" {
		t.Errorf("with trailing whitespace: %+v %v", m2, ok)
	}
	edited := strings.Replace(string(text), "## Check 3", "## Check 3 (edited)", 1)
	if m3, ok := MatchPrompt([]byte(edited)); !ok || m3.By != "markers" || m3.Policy != "2026-07" {
		t.Errorf("edited: %+v %v", m3, ok)
	}
}
