package coverage

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// Options.Progress is told, part by part, how many units are judged:
// before each cookbook cell ("agentx") and each vLLM-family key
// ("vllm-recipes"), then once with done == total when the part is over.
func TestRunProgress(t *testing.T) {
	var calls []string
	record := func(done, total int, what string) { calls = append(calls, fmt.Sprintf("%d/%d %s", done, total, what)) }
	ixDir, cbDir := scriptFixture()
	rep, err := Run(context.Background(), Options{InfxDir: ixDir, CookbookDirs: []string{cbDir}, Progress: record})
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]bool{}
	for _, p := range rep.Points {
		cells[p.File+"\x00"+p.CellID] = true
	}
	if len(calls) < 2 || calls[len(calls)-1] != fmt.Sprintf("%d/%d agentx", len(calls)-1, len(calls)-1) {
		t.Fatalf("agentx progress: %q", calls)
	}
	for i, c := range calls[:len(calls)-1] {
		if !strings.HasPrefix(c, fmt.Sprintf("%d/%d agentx ", i, len(calls)-1)) {
			t.Errorf("call %d: %q", i, c)
		}
	}
	if n := len(calls) - 1; n < len(cells) {
		t.Errorf("%d cells announced, %d cells with cited points", n, len(cells))
	}

	calls = nil
	rep, err = Run(context.Background(), Options{InfxDir: vllmFixtureInfx, VLLMRecipesDir: vllmFixtureRecipes, Progress: record})
	if err != nil {
		t.Fatal(err)
	}
	n := len(rep.VLLM)
	var want []string
	for i, k := range rep.VLLM {
		want = append(want, fmt.Sprintf("%d/%d vllm-recipes %s", i, n, k.ConfigKey))
	}
	want = append(want, fmt.Sprintf("%d/%d vllm-recipes", n, n))
	if n == 0 || strings.Join(calls, "\n") != strings.Join(want, "\n") {
		t.Errorf("vllm-recipes progress:\n%s\nwant:\n%s", strings.Join(calls, "\n"), strings.Join(want, "\n"))
	}
}
