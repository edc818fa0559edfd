package coverage

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// The recipe and config key of the "compare by content" issue: the cookbook
// point (../shared/corpus/sglang, zai-org/glm-5.2.jsx cell
// glm5.2-fp8-h200-dynamo-sglang-agentic-mtp-2p2d#0) cites this recipe of
// InferenceX 843c6254 (../shared/corpus/upstream/InferenceX).
const (
	glm52Recipe = "benchmarks/multi_node/srt-slurm-recipes/sglang/glm5.2/agentic/disagg-h200-2p2d-pcp8-tp8-dp8-mtp.yaml"
	glm52Key    = "glm5.2-fp8-h200-dynamo-sglang-agentic-mtp-2p2d"
)

// TestCorpusContentRegressions changes one production setting of the
// recipe at a time, in a copy of it in t.TempDir() (an InferenceX tree
// holding only that recipe: it is rendered with srt-slurm's default
// version), and checks the role, the difference and the verdict coverage
// reports. Before services were compared like workers and files by
// content, the nginx and NATS changes came out covered.
func TestCorpusContentRegressions(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join(testutil.UpstreamInferenceX(t), filepath.FromSlash(glm52Recipe)))
	if err != nil {
		t.Fatal(err)
	}
	cookbookDir := testutil.SharedPath(t, "corpus/sglang")
	edit := func(t *testing.T, old, new string) string {
		t.Helper()
		if old == "" {
			return string(orig)
		}
		if strings.Count(string(orig), old) != 1 {
			t.Fatalf("recipe: %q is not there exactly once", old)
		}
		return strings.Replace(string(orig), old, new, 1)
	}
	type want struct {
		role, setting, upstream, inferencex string
		verdict                             compare.Verdict
	}
	for _, c := range []struct {
		name, old, new string
		want           []want // roles of point 0 checked; every other role must not be a gap
	}{
		{name: "unchanged", want: []want{
			{role: "nginx", verdict: compare.CoveredWithExclusions},
			{role: "nats", verdict: compare.Covered},
			{role: "etcd", verdict: compare.Covered},
			{role: "frontend", verdict: compare.CoveredWithExclusions},
		}},
		{name: "router temperature on the frontend",
			old: `DYN_ROUTER_TEMPERATURE: "10000000"`, new: `DYN_ROUTER_TEMPERATURE: "0.0"`,
			want: []want{{"frontend", "env DYN_ROUTER_TEMPERATURE", "10000000", "0", compare.Differs}}},
		{name: "router temperature added to the prefill workers",
			old: "  prefill_environment:\n", new: "  prefill_environment:\n    DYN_ROUTER_TEMPERATURE: \"0.0\"\n",
			want: []want{{"prefill", "env DYN_ROUTER_TEMPERATURE", "", "0", compare.Differs}}},
		{name: "nginx session affinity off",
			old: "nginx_session_affinity: true", new: "nginx_session_affinity: false",
			want: []want{{"nginx", "nginx.balance", `hash $http_x_correlation_id consistent (map: "" → $request_id)`, "round robin", compare.Differs}}},
		{name: "nginx affinity header",
			old: "nginx_session_affinity_header: X-Correlation-ID", new: "nginx_session_affinity_header: X-Dynamo-Session-ID",
			want: []want{{"nginx", "nginx.balance", `hash $http_x_correlation_id consistent (map: "" → $request_id)`,
				`hash $http_x_dynamo_session_id consistent (map: "" → $request_id)`, compare.Differs}}},
		{name: "nginx keepalive",
			old: "  nginx_session_affinity: true\n", new: "  nginx_session_affinity: true\n  nginx_keepalive_timeout: 1200s\n",
			want: []want{{"nginx", "nginx.http.keepalive_timeout", "600s", "1200s", compare.Differs}}},
		{name: "NATS max payload",
			old: "nats_max_payload_mb: 32", new: "nats_max_payload_mb: 64",
			want: []want{{"nats", "nats.max_payload", "33554432", "67108864", compare.Differs}}},
		{name: "NATS max payload not asked for: nothing rides on srt-slurm's NATS",
			old: "  nats_max_payload_mb: 32\n", new: "",
			want: []want{{role: "nats", verdict: compare.CoveredWithExclusions}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			infx := t.TempDir()
			p := filepath.Join(infx, filepath.FromSlash(glm52Recipe))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(edit(t, c.old, c.new)), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Run(context.Background(), Options{InfxDir: infx, CookbookDirs: []string{cookbookDir}, ConfigKeys: []string{glm52Key}, AllowUnverified: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Points) == 0 || rep.Points[0].Status != report.StatusCompared {
				t.Fatalf("points %+v", rep.Points)
			}
			roles := map[string]compare.Result{}
			for _, r := range rep.Points[0].Roles {
				roles[r.Role] = r
			}
			checked := map[string]bool{}
			gap := false
			for _, w := range c.want {
				checked[w.role] = true
				r, ok := roles[w.role]
				if !ok {
					t.Fatalf("no %s role", w.role)
				}
				if r.Verdict != w.verdict {
					t.Errorf("%s: verdict %s, want %s (differences %v)", w.role, r.Verdict, w.verdict, diffText(r))
				}
				gap = gap || w.verdict.Gap()
				if w.setting == "" {
					if len(r.Differences) != 0 {
						t.Errorf("%s: differences %v, want none", w.role, diffText(r))
					}
					continue
				}
				found := false
				for _, d := range r.Differences {
					if d.Setting == w.setting {
						found = true
						if compare.Shown(d.Upstream) != orAbsent(w.upstream) || compare.Shown(d.InferenceX) != orAbsent(w.inferencex) {
							t.Errorf("%s %s: upstream %s inferencex %s, want %s / %s", w.role, w.setting, compare.Shown(d.Upstream), compare.Shown(d.InferenceX), orAbsent(w.upstream), orAbsent(w.inferencex))
						}
					}
				}
				if !found {
					t.Errorf("%s: no difference %s in %v", w.role, w.setting, diffText(r))
				}
			}
			for _, r := range rep.Points[0].Roles {
				if !checked[r.Role] && r.Verdict.Gap() {
					t.Errorf("%s: %s, want no gap (differences %v, note %q)", r.Role, r.Verdict, diffText(r), r.Note)
				}
			}
			if rep.Gap != gap {
				t.Errorf("report gap %v, want %v", rep.Gap, gap)
			}
			// the text report reads like a worker difference
			if gap {
				w := c.want[0]
				line := w.setting + ": upstream " + orAbsent(w.upstream) + ", inferencex " + orAbsent(w.inferencex)
				if txt := textOf(rep); !strings.Contains(txt, glm52Key+"#0 point 0 "+w.role+": differs\n    "+line) {
					t.Errorf("text report lacks %q:\n%s", line, txt)
				}
			}
		})
	}
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}
