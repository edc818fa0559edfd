package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
)

// TestTimeLimitNeverHidden: a row the wall-clock backstop stopped, or a
// page snippet it stopped, makes the report TimeLimit (the CLI exits 3),
// ranks with the not-verified outcomes, is named in the headline and the
// printers, and --allow-unverified does not hide it (it hides the other
// not-verified outcomes).
func TestTimeLimitNeverHidden(t *testing.T) {
	for _, allow := range []bool{false, true} {
		r := fixtureVLLM()
		r.VLLMRecipeErrors = nil
		r.VLLM = r.VLLM[:1]
		r.VLLM[0].Rows = append(r.VLLM[0].Rows, RowResult{Row: 2, Concs: []int{4}, Status: StatusTimeLimit, Verdict: compare.TimeLimit,
			Message: "benchmarks/single_node/x.sh:3:1: time limit — re-run: the script ran past the sandbox's wall-clock backstop"})
		r.VLLM[0].Rows[1].Verdict, r.VLLM[0].Rows[1].Roles[0].Verdict = compare.Covered, compare.Covered
		r.VLLM[0].Rows[1].Roles[0].Result.Verdict = compare.Covered
		r.VLLM[0].Verdict = compare.TimeLimit
		r.AllowUnverified = allow
		r.CombineKeys()
		r.Count()
		if !r.TimeLimit || !r.Gap || r.Errors || r.Verdict != compare.TimeLimit {
			t.Errorf("allow=%v: timeLimit %v gap %v errors %v verdict %q", allow, r.TimeLimit, r.Gap, r.Errors, r.Verdict)
		}
		if h := Headline(r); !strings.Contains(h, "time limit — re-run 1") || !strings.HasPrefix(h, "❌") {
			t.Errorf("allow=%v: headline %q", allow, h)
		}
		var b bytes.Buffer
		if err := PrintMarkdown(&b, r, MarkdownOptions{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "time limit — re-run") {
			t.Errorf("allow=%v: markdown does not name the time limit:\n%s", allow, b.String())
		}
	}
	// a page snippet the backstop stopped, with nothing else failing
	r := fixtureVLLM()
	r.VLLMRecipeErrors, r.VLLM = nil, r.VLLM[:1]
	r.VLLM[0].Rows = r.VLLM[0].Rows[:1]
	r.VLLM[0].Verdict = compare.Covered
	r.TimeLimits = []string{"docs/src/snippets/autoregressive/x-deployment.jsx: time limit — re-run: page code ran past the wall-clock backstop"}
	r.CombineKeys()
	r.Count()
	if !r.TimeLimit || r.Errors || r.Verdict != compare.TimeLimit {
		t.Errorf("page time limit: timeLimit %v errors %v verdict %q", r.TimeLimit, r.Errors, r.Verdict)
	}
	var b bytes.Buffer
	if err := PrintText(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "x-deployment.jsx: time limit — re-run") {
		t.Errorf("text does not list the stopped snippet:\n%s", b.String())
	}
	if !compare.TimeLimit.NotVerified() || compare.TimeLimit.Allowable() || !compare.Unsupported.Allowable() {
		t.Error("time limit: not verified, never allowable")
	}
}
