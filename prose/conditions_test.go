package prose

import (
	"os"
	"testing"
)

// TestReadRejectsFeatureConditions: a clause that qualifies its setting by
// a deployment feature or layout the page's selections tell apart
// (speculative decoding, DP attention, a scenario, a GPU count) states a
// condition, not an alternate of every selection on the named hardware
// (issue 22 item 5: "Any other condition is rejected"). Found by
// mutation: each of these bullets, added to DeepSeek-R1.mdx § 3.3, turned
// dsr1-fp8-mi355x-sglang row 1 (no MTP, no DP attention, 8 GPUs,
// scenario=low-latency) from differs into covered-with-exclusions. Line
// 13 is the control: no condition, accepted.
func TestReadRejectsFeatureConditions(t *testing.T) {
	data, err := os.ReadFile("testdata/conditions.mdx")
	if err != nil {
		t.Fatal(err)
	}
	st, fs, err := Read("conditions.mdx", data, 1, Options{Hardware: testHW})
	if err != nil {
		t.Fatal(err)
	}
	if f := finding(fs, 13, "--num-continuous-decode-steps"); f == nil || !f.Accepted {
		t.Fatalf("line 13 (no condition): %+v, want accepted", f)
	}
	for line := 14; line <= 20; line++ {
		f := finding(fs, line, "--num-continuous-decode-steps")
		if f == nil {
			t.Errorf("line %d: no finding", line)
			continue
		}
		if f.Accepted {
			t.Errorf("line %d accepted (%q): a condition, want rejected", line, f.Sentence)
		}
	}
	// lines 21–24: a feature the statement's own flags turn on is its
	// purpose; "built-in" holds no preposition; "every recipe" names no
	// recipe; a GPU count the statement's own TP states is no condition
	for line, flag := range map[int]string{21: "--speculative-algorithm", 22: "--num-continuous-decode-steps",
		23: "--num-continuous-decode-steps", 24: "--enable-dp-attention"} {
		if f := finding(fs, line, flag); f == nil || !f.Accepted {
			t.Errorf("line %d: %+v, want accepted", line, f)
		}
	}
	if len(st) != 5 {
		t.Errorf("%d statements, want 5 (lines 13, 21–24)", len(st))
	}
	if f := finding(fs, 19, "--num-continuous-decode-steps"); f == nil || f.Reason != "a condition on the GPU count (4 GPUs)" {
		t.Errorf("line 19 reason: %+v", f)
	}
	if f := finding(fs, 14, "--num-continuous-decode-steps"); f == nil || f.Reason != "a condition on a deployment feature or layout (with MTP)" {
		t.Errorf("line 14 reason: %+v", f)
	}
}
