package cookbook

import (
	"path/filepath"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// corpusFile reads a snippet of ../shared/corpus/sglang
// (testutil.SharedPath).
func corpusFile(t *testing.T, rel string) *File {
	t.Helper()
	f, err := ReadFile(filepath.Join(testutil.SharedPath(t, "corpus/sglang/docs/src/snippets/agentx"), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCorpusProvenance: both data generations give the same provenance
// record (values quoted in spec agentx-format.md (a) "cells[i]" and (c)).
func TestCorpusProvenance(t *testing.T) {
	q := corpusFile(t, "Qwen/qwen3.5.jsx")
	if q.Rel != "Qwen/qwen3.5.jsx" || q.RepoPath != "docs/src/snippets/agentx/Qwen/qwen3.5.jsx" {
		t.Errorf("paths = %q %q", q.Rel, q.RepoPath)
	}
	if len(q.Cells) != 50 || q.Model != "Qwen3.5" || q.Source.Main != "ceb50ba212080174e0563d2be1db9b0d654ab2ef" {
		t.Errorf("qwen3.5: %d cells, model %q, main %q", len(q.Cells), q.Model, q.Source.Main)
	}
	if pr := q.Source.PRs["3840"]; pr.Run != "" || pr.Status != "in-progress" || pr.SHA != "5948cad58f35cca9629151255e0be59d913144e7" {
		t.Errorf("source.prs[3840] = %+v", pr)
	}
	p := q.Provenance(0, 0)
	if p.SHA != "5948cad58f35cca9629151255e0be59d913144e7" || p.PR != "3840" || p.Status != "in-progress" ||
		p.Recipe != "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/gb300-fp8/agentx/agg-gb300-tp4-c1-b1-mtp-hicache-nightly-20260913.yaml" ||
		p.Item != 1 || p.Run != "" {
		t.Errorf("qwen3.5 cell 0 point 0 provenance = %+v", p)
	}
	if c := q.Cells[0]; c.ID != "qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg-midcurve#0" || c.Submitted != "sglang" || c.Points[0].KV != "hicache" ||
		c.KV.HiCache == nil || c.KV.HiCache.Donor != "qwen3.5-fp4-gb300-dynamo-sglang-agentic-agg" {
		t.Errorf("qwen3.5 cell 0 = %+v", c)
	}

	if err := q.CheckFileKeys(); err != nil {
		t.Error(err)
	}
	g := corpusFile(t, "zai-org/glm-5.2.jsx")
	if err := g.CheckFileKeys(); err != nil {
		t.Error(err)
	}
	if g.Checkpoints[0] != (Checkpoint{ID: "nvidia/GLM-5.2-NVFP4", Precision: "fp4"}) || g.Cells[0].Prov != nil {
		t.Errorf("glm-5.2: checkpoint %+v, prov %+v", g.Checkpoints[0], g.Cells[0].Prov)
	}
	p = g.Provenance(0, 0)
	want := Provenance{
		SHA:        "e79239bab1e1cb487dc74e27d693110f03384d41",
		Recipe:     "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/glm5.2/sglang/gb300-fp4/agentx/agg-tp8-c1-mtp.yaml",
		PR:         "3659",
		Status:     "verified-pr",
		Run:        "36997573694",
		Comment:    "5987483060",
		RecipeURL:  "https://github.com/SemiAnalysisAI/InferenceX/blob/e79239bab1e1cb487dc74e27d693110f03384d41/inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/glm5.2/sglang/gb300-fp4/agentx/agg-tp8-c1-mtp.yaml",
		RunURL:     "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/36997573694",
		PRURL:      "https://github.com/SemiAnalysisAI/InferenceX/pull/3659",
		CommentURL: "https://github.com/SemiAnalysisAI/InferenceX/pull/3659#issuecomment-5987483060",
	}
	if p != want {
		t.Errorf("glm-5.2 cell 0 point 0 provenance:\n got %+v\nwant %+v", p, want)
	}
}

// TestCorpusDeployment: on every selection of the corpus files, each
// process of the Deployment prints as its block text, and every setting
// carries an origin with a JSON path.
func TestCorpusDeployment(t *testing.T) {
	for _, rel := range []string{"Qwen/qwen3.5.jsx", "zai-org/glm-5.2.jsx"} {
		f := corpusFile(t, rel)
		n := 0
		for _, s := range f.Selections() {
			d, err := f.Decode(s)
			if err != nil {
				t.Fatal(err)
			}
			dep := &d.Deployment
			if dep.Engine != "sglang" || dep.Model != f.Cells[s.Cell].Ckpt || dep.Hardware != f.Cells[s.Cell].HW ||
				dep.Source.CellID != f.Cells[s.Cell].ID || dep.Source.Router != s.Router || dep.Source.KV != s.KV {
				t.Fatalf("%s %+v: deployment header %+v", rel, s, dep.Source)
			}
			for i := range dep.Processes {
				p := &dep.Processes[i]
				if got := launch.Format(p); got != d.Blocks[i].Text {
					t.Fatalf("%s %+v process %d prints\n%s\nblock text\n%s", rel, s, i, got, d.Blocks[i].Text)
				}
				for _, a := range p.Args {
					if a.Origin.Kind == "" || a.Origin.Path == "" {
						t.Fatalf("%s %+v: arg %s has no origin", rel, s, a.Flag)
					}
				}
				for _, e := range p.Env {
					if e.Origin.Kind == "" || e.Origin.Path == "" {
						t.Fatalf("%s %+v: env %s has no origin", rel, s, e.Name)
					}
				}
				n++
			}
		}
		t.Logf("%s: %d processes checked", rel, n)
	}
}
