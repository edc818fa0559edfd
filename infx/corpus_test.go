package infx

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// corpusDir is ../shared/corpus/inferencex (the old-layout corpus of real
// InferenceX files) joined with parts (testutil.SharedPath).
func corpusDir(t testing.TB, parts ...string) string {
	t.Helper()
	return filepath.Join(append([]string{testutil.SharedPath(t, "corpus/inferencex")}, parts...)...)
}

// TestCorpusRenderAll renders every point of every config key of both master
// configs at InferenceX 843c6254 (spec (g): 152 NVIDIA + 56 AMD keys, 162 in
// Check 3 scope; 465 CONFIG_FILE references).
func TestCorpusRenderAll(t *testing.T) {
	ws, err := Open(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	ws.SrtSlurmDir = corpusDir(t, "_external", "NVIDIA+srt-slurm")
	if ws.Layout != LayoutOld {
		t.Errorf("layout = %s, want old", ws.Layout)
	}
	keys := ws.ConfigKeys()
	if len(keys) != 208 {
		t.Errorf("keys = %d, want 208 (152 NVIDIA + 56 AMD)", len(keys))
	}
	inScope, refs := 0, 0
	for _, k := range keys {
		e, _ := ws.Entry(k)
		if InScope(e.Framework) {
			inScope++
		}
		for _, r := range e.Rows {
			if _, ok := r.setting("CONFIG_FILE"); ok {
				refs++
			}
		}
	}
	if inScope != 162 {
		t.Errorf("keys in Check 3 scope = %d, want 162", inScope)
	}
	if refs != 465 {
		t.Errorf("CONFIG_FILE references = %d, want 465", refs)
	}
	s, err := ws.RenderAll(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("keys %d, points %d, rendered %d, upstream-only %d, missing %d, unsupported %d, out of scope %d, errors %d",
		s.Keys, s.Points, s.Rendered, s.UpstreamOnly, s.Missing, s.Unsupported, s.OutOfScope, s.Errors)
	for _, f := range s.Failures {
		t.Errorf("render failure: %s", f)
	}
	if s.Rendered == 0 || s.UpstreamOnly == 0 {
		t.Errorf("nothing rendered or reported upstream-only: %+v", s)
	}
	if s.Rendered+s.UpstreamOnly+s.Missing+s.Unsupported+s.Ambiguous+s.OutOfScope+s.Errors != s.Points {
		t.Errorf("counts do not add up: %+v", s)
	}
}

// TestCorpusPair1 renders the upstream-only recipe of dsr1-fp4-b200-dynamo-sglang
// from the NVIDIA/srt-slurm copy: override_stp_tp4 removes the DP-attention flags
// of base and keeps the other prefill flags (spec (b), real example pair 1).
func TestCorpusPair1(t *testing.T) {
	ws, err := Open(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	pts, err := ws.Points("dsr1-fp4-b200-dynamo-sglang")
	if err != nil {
		t.Fatal(err)
	}
	var p *Point
	for i := range pts {
		if pts[i].Selector == "override_stp_tp4" {
			p = &pts[i]
			break
		}
	}
	if p == nil {
		t.Fatal("no override_stp_tp4 row")
	}
	if p.Status != StatusUpstreamOnly || p.RecipeRef != "recipes/b200-fp4/8k1k.yaml" {
		t.Errorf("without the srt-slurm checkout: status %s ref %s, want upstream-only", p.Status, p.RecipeRef)
	}
	ws.SrtSlurmDir = corpusDir(t, "_external", "NVIDIA+srt-slurm")
	pts, _ = ws.Points("dsr1-fp4-b200-dynamo-sglang")
	for _, q := range pts {
		if q.Row == p.Row && q.Concurrency == p.Concurrency {
			p = &q
			break
		}
	}
	d, err := ws.Render(context.Background(), *p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pre := d.Workers(launch.RolePrefill)
	if len(pre) == 0 {
		t.Fatal("no prefill worker")
	}
	args := pre[0].Args
	for _, f := range []string{"--enable-dp-attention", "--enable-dp-lm-head"} {
		if _, ok := launch.Lookup(args, f); ok {
			t.Errorf("prefill has %s, deleted by the override's null", f)
		}
	}
	for f, want := range map[string]string{"--quantization": "modelopt_fp4", "--attention-backend": "trtllm_mla", "--moe-runner-backend": "flashinfer_trtllm", "--data-parallel-size": "1"} {
		if v, ok := launch.Lookup(args, f); !ok || strings.Join(v, " ") != want {
			t.Errorf("prefill %s = %v, want %s", f, v, want)
		}
	}
	if d.Model != "deepseek-r1-fp4" && d.Model != "nvidia/DeepSeek-R1-0528-FP4" {
		t.Logf("model = %s", d.Model)
	}
}

// BenchmarkRenderAllKeys: open the corpus checkout and render every point of
// every config key of both master configs (the `render --all` run).
func BenchmarkRenderAllKeys(b *testing.B) {
	dir := corpusDir(b)
	b.ReportAllocs()
	for b.Loop() {
		ws, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		ws.SrtSlurmDir = corpusDir(b, "_external", "NVIDIA+srt-slurm")
		s, err := ws.RenderAll(context.Background(), nil, Options{})
		if err != nil || s.Errors != 0 {
			b.Fatal(err, s.Failures)
		}
	}
}

// TestCorpusPair2 is the new-layout oracle: the schema-2 bundle
// disagg-variants.yaml with override_tp4_tp4_c8 / override_tp2_tp2_c72 gives
// the same per-role args as the old layout's flat files (spec (b), pair 2).
func TestCorpusPair2(t *testing.T) {
	bundle := corpusDir(t, "_newer-layout", "inferencex-e2e", "benchmarks", "multi_node", "srt-slurm-recipes", "qwen3.5", "sglang", "gb300-fp4", "agentx", "disagg-variants.yaml")
	flat := filepath.Join("benchmarks", "multi_node", "srt-slurm-recipes", "sglang", "qwen3.5", "gb300-fp4", "agentic")
	for sel, file := range map[string]string{
		"override_tp4_tp4_c8":  "disagg-gb300-1p1d-tp4-tp4-c8-mtp-hicache-session-jid2530030.yaml",
		"override_tp2_tp2_c72": "disagg-gb300-1p1d-tp2-tp2-c72-mtp-hicache-session-jid2527415.yaml",
	} {
		nd, err := RenderRecipe(nil, bundle+":"+sel, Options{})
		if err != nil {
			t.Fatal(err)
		}
		od, err := RenderRecipe(nil, corpusDir(t, flat, file), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, role := range []launch.Role{launch.RolePrefill, launch.RoleDecode} {
			nw, ow := nd.Workers(role), od.Workers(role)
			if len(nw) != len(ow) || len(nw) == 0 {
				t.Fatalf("%s %s: %d vs %d workers", sel, role, len(nw), len(ow))
			}
			na, oa := recipeArgs(nw[0].Args), recipeArgs(ow[0].Args)
			if strings.Join(na, "\n") != strings.Join(oa, "\n") {
				t.Errorf("%s %s args differ:\nnew %q\nold %q", sel, role, na, oa)
			}
		}
	}
}

func recipeArgs(args []launch.Arg) []string {
	var out []string
	for _, a := range args {
		if a.Origin.Kind == launch.OriginRecipe {
			out = append(out, strings.TrimSpace(a.Flag+" "+strings.Join(a.Values, " ")))
		}
	}
	return out
}

// TestCorpusRenderCache: rendering through RenderAll's recipe cache gives
// the same deployments as rendering each point afresh.
func TestCorpusRenderCache(t *testing.T) {
	ws, err := Open(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	ws.SrtSlurmDir = corpusDir(t, "_external", "NVIDIA+srt-slurm")
	cache := &recipeCache{}
	n := 0
	for _, k := range ws.ConfigKeys() {
		pts, _ := ws.Points(k)
		for _, p := range pts {
			if p.Status != StatusOK {
				continue
			}
			a, errA := ws.render(p, Options{}, cache)
			b, errB := ws.Render(context.Background(), p, Options{})
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if (errA == nil) != (errB == nil) || string(ja) != string(jb) {
				t.Errorf("%s row %d conc %d: cached rendering differs", k, p.Row, p.Concurrency)
			}
			n++
		}
	}
	if n == 0 {
		t.Error("no point rendered")
	}
}

// TestCorpusRenderAllNewLayout renders every point of the only real
// new-layout master (an intermediate inferencex-e2e revision: srt-recipe
// for single-node rows, CONFIG_FILE=recipes/<prefix>/<engine>/… for
// multinode rows, `worker:` blocks for aggregated multinode rows).
func TestCorpusRenderAllNewLayout(t *testing.T) {
	ws, err := Open(testutil.SharedPath(t, "corpus/pairs/inferencex"))
	if err != nil {
		t.Fatal(err)
	}
	if ws.Layout != LayoutNew {
		t.Errorf("layout = %s", ws.Layout)
	}
	s, err := ws.RenderAll(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("keys %d, points %d, rendered %d, upstream-only %d, missing %d, unsupported %d, out of scope %d, errors %d",
		s.Keys, s.Points, s.Rendered, s.UpstreamOnly, s.Missing, s.Unsupported, s.OutOfScope, s.Errors)
	for _, f := range s.Failures {
		t.Errorf("render failure: %s", f)
	}
	if s.Keys != 149 || s.Rendered == 0 {
		t.Errorf("summary = %+v", s)
	}
}

// BenchmarkCorpusCompleteRenderAll is `render --all` on the complete
// InferenceX tree of ../shared with its srt-slurm checkout (issue 24).
func BenchmarkCorpusCompleteRenderAll(b *testing.B) {
	dir := testutil.UpstreamInferenceX(b)
	srt := testutil.SharedPath(b, "corpus/upstream/srt-slurm")
	b.ReportAllocs()
	for b.Loop() {
		ws, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		ws.SrtSlurmDir = srt
		ws.RememberRenders() // as the render command does
		if _, err := ws.RenderAll(context.Background(), nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCorpusStoredRenderingForm: every rendering of the complete trees
// (render --all) reads back from the cache's stored form exactly when its
// JSON decodes deeply equal to it, and reads back to itself
// (encodeDeployment, decodeDeployment: the check moved from storing to
// reading, issue 24).
func TestCorpusStoredRenderingForm(t *testing.T) {
	ws, err := Open(testutil.UpstreamInferenceX(t))
	if err != nil {
		t.Fatal(err)
	}
	ws.SrtSlurmDir = testutil.SharedPath(t, "corpus/upstream/srt-slurm")
	ws.RememberRenders()
	n := 0
	if _, err := ws.RenderAll(context.Background(), nil, Options{OnPoint: func(r PointResult, d *launch.Deployment) {
		if d != nil {
			n++
			checkStoredForm(t, r.ConfigKey, *d)
		}
	}}); err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Errorf("%d renderings checked, want the complete trees' (over 1,000)", n)
	}
}
