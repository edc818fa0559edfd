package coverage

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// TestCorpusPagesRun: both cookbook sources in one run (issue 13) — the
// AgentX snippets of ../shared/corpus/sglang judged point by point and the
// hand-written pages of ../shared/corpus/upstream/sglang-docs judged from
// every SGLang-family key of the InferenceX tree; every key of the four
// models with a page gets a verdict from the pages, none is dropped.
func TestCorpusPagesRun(t *testing.T) {
	infx, sglang := upstreamDirs(t)
	docs := testutil.SharedPath(t, "corpus/upstream/sglang-docs")
	rep, err := Run(context.Background(), Options{InfxDir: infx, CookbookDirs: []string{docs, sglang}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Points) == 0 || rep.PagesRepo == nil || len(rep.Pages) == 0 || len(rep.PageErrors) != 0 {
		t.Fatalf("points %d, pages repo %v, page keys %d, page errors %v", len(rep.Points), rep.PagesRepo, len(rep.Pages), rep.PageErrors)
	}
	compared := 0
	for _, k := range rep.Pages {
		if k.Source != report.SourcePages {
			t.Errorf("%s: source %q", k.ConfigKey, k.Source)
		}
		fam := strings.SplitN(k.ConfigKey, "-", 2)[0]
		if fam != "dsr1" && fam != "dsv4" && fam != "glm5.2" && fam != "qwen3.5" {
			continue
		}
		for _, row := range k.Rows {
			for _, ro := range row.Roles {
				switch {
				case ro.Verdict == compare.NotCovered && ro.Nearest != nil && len(ro.Misses) == 0:
					t.Errorf("%s row %d %s: no page covers it, but no miss is named", k.ConfigKey, row.Row, ro.Role)
				case ro.Recipe != nil && (ro.Recipe.Kind != "page" || !strings.HasPrefix(ro.Recipe.URL, "https://docs.sglang.io/cookbook/")):
					t.Errorf("%s row %d %s: page ref %+v", k.ConfigKey, row.Row, ro.Role, ro.Recipe)
				}
				if ro.Result != nil {
					compared++
				}
			}
		}
	}
	if compared == 0 {
		t.Errorf("no role of the page models was compared with a page selection")
	}
	t.Logf("page keys: %v; rows %v; roles %v", rep.Counts.Pages, rep.Counts.PagesRows, rep.Counts.PagesRoles)
	// a directory with neither kind is bad usage, naming it
	_, err = Run(context.Background(), Options{InfxDir: infx, CookbookDirs: []string{infx}})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Field != "CookbookDir" || !strings.Contains(oe.Msg, "has neither AgentX snippets") {
		t.Errorf("neither kind: %v", err)
	}
}
