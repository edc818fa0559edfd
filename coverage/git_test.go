package coverage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/report"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Drift is knowable only in a git checkout: the recipe rendered is compared
// with the same path at the cell's prov.sha.
func TestDrift(t *testing.T) {
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	rel := "benchmarks/multi_node/srt-slurm-recipes/x/agg.yaml"
	write := func(content string) string {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add(rel); err != nil {
			t.Fatal(err)
		}
		h, err := wt.Commit("c", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(0, 0)}})
		if err != nil {
			t.Fatal(err)
		}
		return h.String()
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	wt.Add("README")
	c0, err := wt.Commit("c0", &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(0, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	c1 := write("a: 1\n")
	c2 := write("a: 2\n")

	// A subdirectory of a checkout is not a checkout of its own: the
	// commit of the enclosing repository says nothing about it.
	if openRepo(filepath.Join(dir, "benchmarks")) != nil {
		t.Fatal("a subdirectory of a git work tree taken for a checkout")
	}
	g := openRepo(dir)
	if g == nil {
		t.Fatal("not detected as a git checkout")
	}
	sub := "benchmarks/multi_node/srt-slurm-recipes/x/agg.yaml"
	for _, c := range []struct{ sha, state, detail string }{
		{c2, report.DriftNone, "recipe identical to prov.sha " + c2[:12]},
		{c1, report.DriftChanged, "recipe changed since prov.sha " + c1[:12]},
		{c0.String(), report.DriftChanged, "recipe did not exist at prov.sha"},
		{strings.Repeat("ab", 20), report.DriftUnknown, "is not in the checkout"},
		{"5948cad5", report.DriftUnknown, "not a full commit id"},
	} {
		d := g.drift(sub, c.sha)
		if d.State != c.state || !strings.Contains(d.Detail, c.detail) || d.Commit != c2 {
			t.Errorf("drift at %s = %+v, want %s (%s) at HEAD %s", c.sha[:8], d, c.state, c.detail, c2[:8])
		}
	}
	var none *gitRepo
	if d := none.drift(sub, c1); d.State != report.DriftUnknown || d.Detail != "the InferenceX directory is not a git checkout" {
		t.Errorf("no checkout: %+v", d)
	}
	if openRepo(t.TempDir()) != nil {
		t.Error("a plain directory is not a checkout")
	}
}

func TestResolveRecipe(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{
		"benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml",
		"inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml",
	} {
		f := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, []byte("x: 1\n"), 0o644)
	}
	for _, c := range []struct{ dir, cited, want string }{
		{dir, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml", "benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml"},
		{dir, "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml", "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml"},
		// new-layout path cited relative to inferencex-e2e
		{dir, "benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml", "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml"},
		// --infx is the inferencex-e2e tree itself
		{filepath.Join(dir, "inferencex-e2e"), "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml", "benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml"},
		{dir, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/absent.yaml", ""},
		{dir, "../../etc/passwd", ""},
	} {
		_, rel := resolveRecipe(c.dir, c.cited)
		if rel != c.want {
			t.Errorf("resolveRecipe(%s) = %q, want %q", c.cited, rel, c.want)
		}
	}
}
