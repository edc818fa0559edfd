package coverage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
	"go.yaml.in/yaml/v3"
)

// upstreamDirs gives the complete InferenceX tree of ../shared
// (corpus/upstream/InferenceX at 843c6254) and the AgentX snippets
// (corpus/sglang).
func upstreamDirs(t testing.TB) (infx, sglang string) {
	t.Helper()
	return testutil.UpstreamInferenceX(t), testutil.SharedPath(t, "corpus/sglang")
}

// workflowEnv lists the env names of the checkout's benchmark workflow
// (jobs' and steps' env blocks of .github/workflows/benchmark-tmpl.yml).
func workflowEnv(t *testing.T, infx string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(infx, ".github", "workflows", "benchmark-tmpl.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Env  map[string]any `yaml:"env"`
		Jobs map[string]struct {
			Env   map[string]any `yaml:"env"`
			Steps []struct {
				Env map[string]any `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for k := range doc.Env {
		out[k] = true
	}
	for _, j := range doc.Jobs {
		for k := range j.Env {
			out[k] = true
		}
		for _, s := range j.Steps {
			for k := range s.Env {
				out[k] = true
			}
		}
	}
	return out
}

// TestCorpusUpstreamCoverage runs the main job on the complete InferenceX
// tree with the AgentX snippets (--allow-unverified): no point is an error,
// and no difference is an env var the harness sets — neither one the
// workflow's env blocks give every script nor one a runner launcher sets
// (those are classified by consumer and excluded, or stay out of the
// process env).
func TestCorpusUpstreamCoverage(t *testing.T) {
	infx, sglang := upstreamDirs(t)
	rep, err := Run(context.Background(), Options{InfxDir: infx, CookbookDirs: []string{sglang}, AllowUnverified: true})
	if err != nil {
		t.Fatal(err)
	}
	harness := workflowEnv(t, infx)
	if len(harness) < 20 {
		t.Fatalf("workflow env: %d names, want the benchmark-tmpl.yml env blocks", len(harness))
	}
	compared, differs := 0, 0
	for _, p := range rep.Points {
		if p.Status == report.StatusError {
			t.Errorf("%s point %d: error: %s", p.CellID, p.Point, p.Message)
		}
		if p.Status == report.StatusCompared {
			compared++
		}
		for _, r := range p.Roles {
			if r.Verdict == compare.Differs {
				differs++
			}
			for _, d := range r.Differences {
				name, isEnv := strings.CutPrefix(d.Setting, "env ")
				if isEnv && harness[name] {
					t.Errorf("%s point %d %s: difference on workflow env %s", p.CellID, p.Point, r.Role, name)
				}
				for _, o := range d.Origins {
					if o.Kind == launch.OriginLauncher {
						t.Errorf("%s point %d %s: difference %s set by the launcher %s", p.CellID, p.Point, r.Role, d.Setting, o.Path)
					}
				}
			}
		}
	}
	t.Logf("points %d, compared %d, roles that differ %d; counts %v", len(rep.Points), compared, differs, rep.Counts.Points)
	if compared == 0 {
		t.Error("nothing compared")
	}
}
