package exclusions

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/syntax"
)

// harnessLeftCompared are env names the InferenceX launchers or
// benchmark_lib.sh put into a server's environment whose consumer is the
// serving stack itself, or not one consumer: they have no rule and stay
// compared (rules.yaml, "env the benchmark harness puts into a server's
// environment").
var harnessLeftCompared = map[string]string{
	"NCCL_IB_DISABLE":                  "NCCL transport (launch_rtx6000pro-lat.sh works around an RDMA segfault): read by NCCL in the engine",
	"NCCL_GRAPH_REGISTER":              "NCCL CUDA-graph buffer registration (launch_b200-dgxc.sh at f267602f): read by NCCL in the engine",
	"UCX_MEMTYPE_CACHE":                "UCX memory-type cache (launch_b200-dgxc.sh): transport tuning read by UCX under NIXL",
	"UCX_MEMTYPE_REG_WHOLE":            "UCX registration (launch_b200-dgxc.sh): transport tuning read by UCX under NIXL",
	"MORI_RDMA_TC":                     "RDMA traffic class (launch_mi355x-amds.sh): read by MoRI, the engine's transfer library",
	"SGLANG_TORCH_PROFILER_DIR":        "read by SGLang's profiler (set by profile.yml only)",
	"VLLM_TORCH_PROFILER_DIR":          "read by vLLM, which enables its profiler when set (profile.yml only)",
	"TILERT_WEIGHTS_DIR":               "read by the TileRT engine itself (out of Check 3's scope)",
	"CACHE_TRANSCEIVER_MAX_NUM_TOKENS": "TRT-LLM KV cache transceiver buffer (launch_gb200-nv.sh at 0027aad6)",
	"PATH":                             "which programs every process runs",
	"HOME":                             "every process's home (benchmark_lib.sh remaps it for Modal)",
	"PYTHONPATH":                       "every Python process's import path (benchmark_lib.sh adds an lm-eval sitecustomize)",
	"TMPDIR":                           "every process's scratch directory",
}

// harnessForwardedJudgment are env names the harness only forwards into a
// server's environment (docker run -e NAME, no value), with a value of its
// own only in profile.yml, never in a benchmark run, while the recipes and
// benchmark scripts set them: the value a measured server gets is the
// recipe author's, so the name keeps the class of that recipe setting in
// rules.yaml. The test checks both halves against the tree.
var harnessForwardedJudgment = map[string]string{
	"VLLM_RPC_TIMEOUT": "launch_h100-cr.sh, launch_mi325x-tw.sh and launch_rtx6000pro-lat.sh forward it for profile.yml (1800000, profiling runs only); " +
		"the srt-slurm vLLM recipes (VLLM_RPC_TIMEOUT: \"600000\") and single-node scripts (export VLLM_RPC_TIMEOUT=600000) set it: " +
		"a robustness timeout the recipe author chose, judgment-vllm-timeouts",
}

var envName = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)

// ghExpr is a GitHub Actions expression, replaced by a lower-case word (not
// an env name) before a run: script is parsed as shell. The names
// benchmark-multinode-tmpl.yml exports from inputs.*-additional-settings are
// master-config data, checked by TestHarnessEnvByConsumer.
var ghExpr = regexp.MustCompile(`\$\{\{[^}]*\}\}`)

// TestCorpusUpstreamHarnessEnv: every env name the InferenceX harness can
// put into a server process's environment is classified by consumer or
// deliberately compared — the env blocks (and `export`s of run: scripts) of
// .github/workflows/benchmark*-tmpl.yml, and what runners/launch_*.sh and
// benchmarks/benchmark_lib.sh export or pass (export X, srun
// --export=ALL,X=…, docker run -e/--env X), in the complete tree
// ../shared/corpus/upstream/InferenceX. A name the harness only forwards
// while recipes set it (harnessForwardedJudgment) keeps the recipe
// setting's class.
func TestCorpusUpstreamHarnessEnv(t *testing.T) {
	root := testutil.UpstreamInferenceX(t)
	s, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string][]string{} // name → files
	add := func(file string, ns []string) {
		for _, n := range ns {
			if envName.MatchString(n) && !slices.Contains(names[n], file) {
				names[n] = append(names[n], file)
			}
		}
	}
	wfs, _ := filepath.Glob(filepath.Join(root, ".github", "workflows", "benchmark*-tmpl.yml"))
	if !slices.Contains(baseNames(wfs), "benchmark-tmpl.yml") {
		t.Fatalf("%s: no .github/workflows/benchmark-tmpl.yml", root)
	}
	for _, f := range wfs {
		ns, err := workflowEnv(f)
		if err != nil {
			t.Fatal(err)
		}
		add(filepath.Base(f), ns)
	}
	wfNames := len(names)
	// the corpus is InferenceX@843c6254
	want, min := []string{"MODEL", "CONC", "HF_TOKEN", "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "AIPERF_FAILED_REQUEST_THRESHOLD"}, 70
	for _, n := range want {
		if _, ok := names[n]; !ok {
			t.Errorf("workflow env lacks %s", n)
		}
	}
	if wfNames < min {
		t.Fatalf("workflow env: %d names, want at least %d", wfNames, min)
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "runners", "launch_*.sh"))
	if lib := filepath.Join(root, "benchmarks", "benchmark_lib.sh"); fileExists(lib) {
		scripts = append(scripts, lib)
	}
	if len(scripts) < 10 {
		t.Fatalf("%s: %d runners/launch_*.sh and benchmarks/benchmark_lib.sh: the complete tree has them all", root, len(scripts))
	}
	for _, f := range scripts {
		ns, err := shellEnv(f)
		if err != nil {
			t.Fatal(err)
		}
		add(filepath.Base(f), ns)
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	classified, forwarded := 0, 0
	for _, n := range sorted {
		r, ok := s.Match(Setting{Kind: KindEnv, Name: n, Value: "x", Engine: "sglang", Role: "agg"})
		if why, fwd := harnessForwardedJudgment[n]; fwd {
			if !ok || r.Class != ClassJudgment {
				t.Errorf("env %s: rule %s (%s), want a judgment rule: %s", n, r.ID, r.Class, why)
			}
			checkForwardedOnly(t, root, n, names[n], scripts)
			forwarded++
			continue
		}
		if why, kept := harnessLeftCompared[n]; kept {
			if ok {
				t.Errorf("env %s (%s): rule %s (%s) matches, but it is left compared: %s", n, strings.Join(names[n], " "), r.ID, r.Class, why)
			}
			continue
		}
		switch {
		case !ok:
			t.Errorf("env %s (%s): no rule; classify it by consumer in rules.yaml or add it to harnessLeftCompared", n, strings.Join(names[n], " "))
		case !r.Class.Excluded() && r.Class != ClassPlacement:
			t.Errorf("env %s: rule %s has class %s, want harness, collection or placement", n, r.ID, r.Class)
		case !r.Consumer.Valid():
			t.Errorf("env %s: rule %s names no consumer", n, r.ID)
		default:
			classified++
		}
	}
	t.Logf("%s: %d harness env names (%d from the workflows, %d shell files): %d classified by consumer, %d forwarded only (the recipe's class), %d left compared",
		root, len(sorted), wfNames, len(scripts), classified, forwarded, len(sorted)-classified-forwarded)
}

// checkForwardedOnly checks a harnessForwardedJudgment name against the
// tree: no benchmark workflow sets it, no harness file (launcher,
// benchmark_lib.sh) gives it a value, and a recipe or benchmark script
// under benchmarks/ does.
func checkForwardedOnly(t *testing.T, root, name string, files, harness []string) {
	t.Helper()
	for _, f := range files {
		if strings.HasSuffix(f, ".yml") {
			t.Errorf("env %s: set by the benchmark workflow %s, not only forwarded", name, f)
		}
	}
	valued := regexp.MustCompile(`(?m)(\b` + name + `=|^\s*` + name + `:\s*\S)`)
	for _, f := range harness {
		if b, err := os.ReadFile(f); err == nil && valued.Match(b) {
			t.Errorf("env %s: %s gives it a value (%s), not only forwards it", name, filepath.Base(f), valued.Find(b))
		}
	}
	var setBy []string
	filepath.WalkDir(filepath.Join(root, "benchmarks"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".sh") || strings.HasSuffix(p, ".yaml")) || slices.Contains(harness, p) {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && valued.Match(b) {
			setBy = append(setBy, p)
		}
		return nil
	})
	if len(setBy) == 0 {
		t.Errorf("env %s: no recipe or benchmark script under benchmarks/ sets it", name)
	}
	t.Logf("env %s: forwarded by %s; set by %d recipes and benchmark scripts", name, strings.Join(files, " "), len(setBy))
}

// workflowEnv lists the env names of a workflow's top-level, job and step
// env blocks and the names its run: scripts export.
func workflowEnv(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var wf struct {
		Env  map[string]any `yaml:"env"`
		Jobs map[string]struct {
			Env   map[string]any `yaml:"env"`
			Steps []struct {
				Env map[string]any `yaml:"env"`
				Run string         `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		return nil, err
	}
	var out []string
	keys := func(m map[string]any) {
		for k := range m {
			out = append(out, k)
		}
	}
	keys(wf.Env)
	for _, j := range wf.Jobs {
		keys(j.Env)
		for _, st := range j.Steps {
			keys(st.Env)
			if st.Run == "" {
				continue
			}
			f, err := syntax.NewParser().Parse(strings.NewReader(ghExpr.ReplaceAllString(st.Run, "gh_expr")), file)
			if err != nil {
				return nil, err
			}
			out = append(out, exported(f)...)
		}
	}
	return out, nil
}

func shellEnv(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(string(b)), file)
	if err != nil {
		return nil, err
	}
	return exported(f), nil
}

// exported lists the names a shell file exports (export X[=v], not
// export -f / -n), passes to srun (--export=ALL,X=…) or to docker run
// (-e X[=v], --env X[=v], --env=X). Commands inside quoted bash -c strings
// are not parsed: they do not reach the benchmark script.
func exported(f *syntax.File) []string {
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.DeclClause:
			if x.Variant.Value != "export" {
				return true
			}
			for _, a := range x.Args {
				if a.Name == nil && a.Value != nil && strings.HasPrefix(litPrefix(a.Value), "-") &&
					strings.ContainsAny(litPrefix(a.Value), "fn") {
					return true // export -f FUNC / export -n NAME
				}
			}
			for _, a := range x.Args {
				if a.Name != nil {
					out = append(out, a.Name.Value)
				}
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			switch litPrefix(x.Args[0]) {
			case "srun":
				for _, w := range x.Args[1:] {
					if v, ok := strings.CutPrefix(litPrefix(w), "--export="); ok {
						for _, part := range strings.Split(v, ",") {
							name, _, _ := strings.Cut(part, "=")
							if name != "ALL" && name != "NONE" {
								out = append(out, name)
							}
						}
					}
				}
			case "docker":
				for i, w := range x.Args[1:] {
					lit := litPrefix(w)
					if v, ok := strings.CutPrefix(lit, "--env="); ok {
						name, _, _ := strings.Cut(v, "=")
						out = append(out, name)
						continue
					}
					if (lit == "-e" || lit == "--env") && i+2 < len(x.Args) {
						name, _, _ := strings.Cut(litPrefix(x.Args[i+2]), "=")
						out = append(out, name)
					}
				}
			}
		}
		return true
	})
	return out
}

// litPrefix is the literal text a word starts with (quotes removed), up to
// its first expansion.
func litPrefix(w *syntax.Word) string {
	var b strings.Builder
	var parts func([]syntax.WordPart) bool
	parts = func(ps []syntax.WordPart) bool {
		for _, p := range ps {
			switch x := p.(type) {
			case *syntax.Lit:
				b.WriteString(x.Value)
			case *syntax.SglQuoted:
				b.WriteString(x.Value)
			case *syntax.DblQuoted:
				if !parts(x.Parts) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	parts(w.Parts)
	return b.String()
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}

func baseNames(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = filepath.Base(p)
	}
	return out
}
