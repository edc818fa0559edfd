package coverage

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/report"
)

// TestCorpusMarkdownFits runs the main job on the complete InferenceX tree
// with the AgentX snippets (fail closed, as a sign-off runs it) and prints
// the Markdown for the whole run and for every config key alone (the
// report of `--config-key KEY`: its points, recounted): each is under
// report.DefaultMarkdownLimit with the verdict on its first line, each
// config key heading appears once, and no local directory (as given or
// absolute) appears anywhere (issue 11).
func TestCorpusMarkdownFits(t *testing.T) {
	infx, sglang := upstreamDirs(t)
	rep, err := Run(context.Background(), Options{InfxDir: infx, CookbookDirs: []string{sglang}})
	if err != nil {
		t.Fatal(err)
	}
	var locals []string
	for _, d := range []string{infx, sglang} {
		a, _ := filepath.Abs(d)
		locals = append(locals, a, filepath.Clean(d))
	}
	check := func(name string, r *report.Report) {
		t.Helper()
		var b bytes.Buffer
		if err := report.PrintMarkdown(&b, r, report.MarkdownOptions{JSONHint: "cookbook-sync coverage --format json"}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if b.Len() >= report.DefaultMarkdownLimit {
			t.Errorf("%s: %d bytes, want < %d", name, b.Len(), report.DefaultMarkdownLimit)
		}
		if first, _, _ := strings.Cut(out, "\n"); first != report.Headline(r) {
			t.Errorf("%s: first line %q, want the headline %q", name, first, report.Headline(r))
		}
		for _, l := range locals {
			if strings.Contains(out, l) {
				t.Errorf("%s: the local directory %s appears in the Markdown", name, l)
			}
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "### ") && strings.Count(out, "\n"+line+"\n") != 1 {
				t.Errorf("%s: heading %q repeated", name, line)
			}
		}
	}
	check("whole run", rep)
	keys := map[string][]report.PointResult{}
	var order []string
	for _, p := range rep.Points {
		if _, ok := keys[p.ConfigKey]; !ok {
			order = append(order, p.ConfigKey)
		}
		keys[p.ConfigKey] = append(keys[p.ConfigKey], p)
	}
	if len(order) < 20 {
		t.Fatalf("%d config keys with cited points, want the corpus's 20+", len(order))
	}
	for _, k := range order {
		one := *rep
		one.Points = keys[k]
		one.Count()
		check(k, &one)
	}
	t.Logf("%d points, %d config keys: every Markdown under %d bytes", len(rep.Points), len(order), report.DefaultMarkdownLimit)
}
