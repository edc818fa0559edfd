package infx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// resolveTree writes files (slash paths) under a new temporary directory
// and creates dirs as directories.
func resolveTree(t *testing.T, files, dirs []string) string {
	t.Helper()
	root := t.TempDir()
	for _, p := range files {
		f := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("x: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range dirs {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(p)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestResolveRecipeCitation(t *testing.T) {
	root := resolveTree(t, []string{
		"ix/benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml",
		"ix/inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml",
		"ix/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/agg.yaml",
	}, []string{"ix/benchmarks/multi_node/srt-slurm-recipes/sglang/m/dir.yaml"})
	dir := filepath.Join(root, "ix")
	for _, c := range []struct{ dir, cited, want string }{
		{dir, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml", "benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml"},
		{dir, "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml", "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml"},
		// a new-layout path cited relative to inferencex-e2e
		{dir, "benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml", "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml"},
		// dir is the inferencex-e2e tree itself
		{filepath.Join(dir, "inferencex-e2e"), "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml", "benchmarks/multi_node/srt-slurm-recipes/m/sglang/b.yaml"},
		// srt-slurm recipes/<file> at the launcher's overlay
		{dir, "recipes/qwen3.5/sglang/agg.yaml", "benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/agg.yaml"},
		{dir, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/absent.yaml", ""},
		// a directory is not a cited recipe; ".." stays inside dir
		{dir, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/dir.yaml", ""},
		{dir, "../ix/benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml", ""},
	} {
		r := ResolveRecipe(c.dir, c.cited, ResolveOptions{Form: FormCitation})
		if r.Rel != c.want || r.Found() != (c.want != "") {
			t.Errorf("ResolveRecipe(%s) = %q, want %q", c.cited, r.Rel, c.want)
		}
		if c.want != "" && (r.Root != c.dir || r.File != filepath.Join(c.dir, filepath.FromSlash(c.want))) {
			t.Errorf("ResolveRecipe(%s): root %q file %q", c.cited, r.Root, r.File)
		}
	}
	r := ResolveRecipe(dir, "recipes/qwen3.5/sglang/disagg.yaml", ResolveOptions{Form: FormCitation, SrtSlurmDir: root})
	if r.Found() || !r.Upstream() || r.SrtSlurm != "qwen3.5/sglang/disagg.yaml" || len(r.Tried) != 4 {
		t.Errorf("upstream citation: %+v", r)
	}
	r = ResolveRecipe(dir, "/inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/absent.yaml", ResolveOptions{Form: FormCitation})
	if r.Path != "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/m/sglang/absent.yaml" || !r.NewLayout || r.Upstream() {
		t.Errorf("absent new-layout citation: %+v", r)
	}
}

func TestResolveRecipeConfigFile(t *testing.T) {
	root := resolveTree(t, []string{
		"ix/benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml",
		"ix/recipes/sglang/m/shadow.yaml", // not where the launcher looks
		"srt/recipes/sglang/m/up.yaml",
	}, []string{"ix/benchmarks/multi_node/srt-slurm-recipes/sglang/m/dir.yaml"})
	dir, srt := filepath.Join(root, "ix"), filepath.Join(root, "srt")
	for _, c := range []struct {
		ref, srtDir, root, rel string
		upstream               bool
	}{
		{"recipes/sglang/m/a.yaml", srt, dir, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml", false},
		{"benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml", srt, dir, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml", false},
		{"recipes/sglang/m/up.yaml", srt, srt, "recipes/sglang/m/up.yaml", false},
		{"recipes/sglang/m/up.yaml", "", "", "", true},
		{"recipes/sglang/m/shadow.yaml", "", "", "", true},
		// a directory is taken, so reading it reports the error
		{"recipes/sglang/m/dir.yaml", "", dir, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/dir.yaml", false},
		{"benchmarks/absent.yaml", srt, "", "", false},
	} {
		r := ResolveRecipe(dir, c.ref, ResolveOptions{SrtSlurmDir: c.srtDir})
		if r.Root != c.root || r.Rel != c.rel || r.Upstream() != c.upstream {
			t.Errorf("%s (srt %q): root %q rel %q upstream %v", c.ref, c.srtDir, r.Root, r.Rel, r.Upstream())
		}
	}
	r := ResolveRecipe(dir, "recipes/sglang/m/none.yaml", ResolveOptions{SrtSlurmDir: srt})
	want := []string{filepath.Join(dir, "benchmarks", "multi_node", "srt-slurm-recipes", "sglang", "m", "none.yaml"), filepath.Join(srt, "recipes", "sglang", "m", "none.yaml")}
	if strings.Join(r.Tried, "|") != strings.Join(want, "|") {
		t.Errorf("tried %q, want %q", r.Tried, want)
	}
}

func TestResolveRecipeSrtRecipe(t *testing.T) {
	dir := resolveTree(t, []string{
		"benchmarks/single_node/srt-slurm-recipes/lane/m/x.yaml",
		"benchmarks/multi_node/srt-slurm-recipes/lane/m/x.yaml",
		"benchmarks/multi_node/srt-slurm-recipes/m/y.yaml",
		"benchmarks/single_node/srt-slurm-recipes/z.yaml",
		"top/w.yaml",
	}, nil)
	for _, c := range []struct {
		ref, recipeDir string
		multinode      bool
		want           string
	}{
		{"m/x.yaml", "lane", false, "benchmarks/single_node/srt-slurm-recipes/lane/m/x.yaml"},
		{"m/x.yaml", "lane", true, "benchmarks/multi_node/srt-slurm-recipes/lane/m/x.yaml"},
		{"recipes/m/y.yaml", "", false, "benchmarks/multi_node/srt-slurm-recipes/m/y.yaml"},
		{"m/y.yaml", "lane", false, "benchmarks/multi_node/srt-slurm-recipes/m/y.yaml"},
		{"z.yaml", "", true, "benchmarks/single_node/srt-slurm-recipes/z.yaml"},
		{"top/w.yaml", "lane", true, "top/w.yaml"},
		{"m/absent.yaml", "lane", true, ""},
	} {
		r := ResolveRecipe(dir, c.ref, ResolveOptions{Form: FormSrtRecipe, SrtRecipeDir: c.recipeDir, Multinode: c.multinode})
		if r.Rel != c.want {
			t.Errorf("%s (dir %q, multinode %v) = %q, want %q", c.ref, c.recipeDir, c.multinode, r.Rel, c.want)
		}
	}
}

func TestResolveRecipeUser(t *testing.T) {
	root := resolveTree(t, []string{
		"ix/benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml",
		"ix/benchmarks/single_node/srt-slurm-recipes/sglang/m/s.yaml",
		"srt/recipes/sglang/m/up.yaml",
	}, nil)
	dir, srt := filepath.Join(root, "ix"), filepath.Join(root, "srt")
	for _, c := range []struct{ ref, root, rel string }{
		{"recipes/sglang/m/a.yaml", dir, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml"},
		// a bare path is taken as an srt-slurm recipes/ path too
		{"sglang/m/a.yaml", dir, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml"},
		{"sglang/m/s.yaml", dir, "benchmarks/single_node/srt-slurm-recipes/sglang/m/s.yaml"},
		{"sglang/m/up.yaml", srt, "recipes/sglang/m/up.yaml"},
		{"benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml", dir, "benchmarks/multi_node/srt-slurm-recipes/sglang/m/a.yaml"},
		{"sglang/m/none.yaml", "", ""},
	} {
		r := ResolveRecipe(dir, c.ref, ResolveOptions{Form: FormUser, SrtSlurmDir: srt})
		if r.Root != c.root || r.Rel != c.rel {
			t.Errorf("%s: root %q rel %q", c.ref, r.Root, r.Rel)
		}
	}
	if r := ResolveRecipe(dir, "sglang/m/none.yaml", ResolveOptions{Form: FormUser, SrtSlurmDir: srt}); len(r.Tried) != 4 || r.Upstream() {
		t.Errorf("not found: %+v", r)
	}
}

func TestSrtSlurmPathAndNewLayout(t *testing.T) {
	for _, c := range []struct {
		in, file string
		ok       bool
	}{
		{"recipes/sglang/a.yaml", "sglang/a.yaml", true},
		{"/recipes/x/../a.yaml", "a.yaml", true},
		{"../recipes/a.yaml", "a.yaml", true},
		{"benchmarks/multi_node/srt-slurm-recipes/a.yaml", "benchmarks/multi_node/srt-slurm-recipes/a.yaml", false},
	} {
		if f, ok := SrtSlurmPath(c.in); f != c.file || ok != c.ok {
			t.Errorf("SrtSlurmPath(%q) = %q, %v", c.in, f, ok)
		}
	}
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"inferencex-e2e/benchmarks/x.yaml", true},
		{"benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/agg.yaml", true},
		{"benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5/agg.yaml", false},
		{"benchmarks/multi_node/srt-slurm-recipes/qwen3.5/agg.yaml", false},
		{"recipes/qwen3.5/sglang/agg.yaml", false},
	} {
		if got := NewLayoutPath(c.in); got != c.want {
			t.Errorf("NewLayoutPath(%q) = %v", c.in, got)
		}
	}
}
