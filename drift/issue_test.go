package drift

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// bigResult is a result of n drifted items, each with a long change.
func bigResult(n int) *Result {
	res := &Result{Counts: map[State]int{InfxMoved: n}, Deployments: n, Failed: true, Failing: n, New: n}
	for i := range n {
		res.Items = append(res.Items, Item{ID: fmt.Sprintf("agentx:docs/src/snippets/agentx/org/model-%04d.jsx#key-%04d#0/0", i, i), Source: SourceAgentX,
			ConfigKey: fmt.Sprintf("model-fp8-b200-sglang-%04d", i), File: "docs/src/snippets/agentx/org/model.jsx", Line: i + 1, State: InfxMoved,
			Head: compare.Differs, Pinned: compare.Covered, Changes: []string{"agg: --mem-fraction-static: 0.85 → 0.9", strings.Repeat("decode: env X: a → b; ", 20)}, New: true, Fails: true})
	}
	return res
}

// TestIssueBody: the body starts with the marker, fits GitHub's limit
// however many rows there are (the rest counted on a last line), and its
// hidden state reads back as the run's snapshot; a body without a block or
// with a broken one is said so, never trusted.
func TestIssueBody(t *testing.T) {
	for _, n := range []int{3, 2000} {
		res := bigResult(n)
		body, err := IssueBody(res, "Drift", 65536)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(body, IssueMarker+"\n## Drift\n\n") || len([]rune(body)) > 65536 {
			t.Fatalf("%d items: body of %d characters:\n%.300s", n, len([]rune(body)), body)
		}
		if n > 100 && !strings.Contains(body, "more rows: see the run's JSON output.") {
			t.Errorf("%d items: no count of the rows left out", n)
		}
		back, err := StateFromIssue(body)
		if err != nil {
			t.Fatal(err)
		}
		want := res.Snapshot()
		if len(back.Items) != len(want.Items) || back.Items[n-1] != want.Items[n-1] {
			t.Fatalf("%d items: state read back %d items", n, len(back.Items))
		}
		again, _ := IssueBody(res, "Drift", 65536)
		if again != body {
			t.Error("the body is not the same for the same run (an unchanged issue would be written)")
		}
	}
	if _, err := StateFromIssue("a hand-written issue"); !errors.Is(err, ErrNoIssueState) {
		t.Errorf("no block: %v", err)
	}
	if _, err := StateFromIssue(stateOpen + "\n!!!not base64\n" + stateClose); err == nil || !strings.HasPrefix(err.Error(), "the tracking issue's state: ") {
		t.Errorf("broken block: %v", err)
	}
	if _, err := StateFromIssue(stateOpen + "\nH4sI\n"); err == nil {
		t.Error("unclosed block: no error")
	}
	// a state too large to hide: keep a --state file
	if _, err := IssueBody(bigResult(60000), "Drift", 65536); err == nil || !strings.Contains(err.Error(), "keep it in a state file instead") {
		t.Errorf("huge state: %v", err)
	}
}

// TestPrintSARIF: the drift log is valid SARIF 2.1.0; a failing item is an
// error in its snippet, a known one a warning, an in-sync one no result.
func TestPrintSARIF(t *testing.T) {
	res := bigResult(2)
	res.Items[1].Fails, res.Items[1].New = false, false
	res.Items = append(res.Items, Item{ID: "vllm-recipes:k", Source: SourceVLLM, ConfigKey: "k", File: "configs/nvidia-master.yaml", Line: 12, State: NotCovered},
		Item{ID: "agentx:x#c/0", Source: SourceAgentX, State: InSync})
	var b strings.Builder
	if err := PrintSARIF(&b, res, "v9"); err != nil {
		t.Fatal(err)
	}
	if err := testutil.ValidateSARIF(testutil.SARIFSchema(t), []byte(b.String())); err != nil {
		t.Fatalf("not valid SARIF: %v\n%s", err, b.String())
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string } `json:"artifactLocation"`
						Region           struct{ StartLine int }         `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(b.String()), &log); err != nil {
		t.Fatal(err)
	}
	rs := log.Runs[0].Results
	if len(rs) != 3 || rs[0].Level != "error" || rs[1].Level != "warning" || rs[2].RuleID != "drift/not-covered" ||
		rs[0].Locations[0].PhysicalLocation.ArtifactLocation.URIBaseID != "COOKBOOK" || rs[2].Locations[0].PhysicalLocation.ArtifactLocation.URIBaseID != "INFERENCEX" ||
		rs[2].Locations[0].PhysicalLocation.Region.StartLine != 12 {
		t.Errorf("results %+v", rs)
	}
}
