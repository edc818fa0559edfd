package testutil

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// Update is the -update flag of every test binary that imports testutil:
// golden and ledger files in testdata/ are rewritten instead of compared.
// (A package whose tests import testutil must not define its own.)
var Update = flag.Bool("update", false, "rewrite the golden and ledger files in testdata/")

// Shared is the absolute path of ../shared, the upstream material beside
// the checkout (a sibling of the module root). The test is skipped, loudly,
// under -short (the short lane reads nothing of ../shared) and when
// ../shared is absent; those are the only two reasons a TestCorpus… or
// TestGolden… test may skip.
func Shared(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(ModuleRoot()), "shared")
	if testing.Short() {
		t.Skipf("SKIP: -short: %s is read by the full lane only", dir)
	}
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		t.Skipf("SKIP: ../shared absent (%s): %s did not run; put the shared corpus beside the checkout", dir, t.Name())
	}
	return dir
}

// SharedPath is the absolute path of rel (slash-separated, relative to
// ../shared), e.g. SharedPath(t, "corpus/upstream/InferenceX"). It skips as
// Shared does; a path missing from a present ../shared fails the test (the
// corpus is incomplete, which is never a reason to skip).
func SharedPath(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Shared(t), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("../shared is present but %s is not: %v", rel, err)
	}
	return p
}

// SharedWhenFuzzing is the absolute path of rel (relative to ../shared)
// and true when the test binary is fuzzing (go test -fuzz=…) and rel
// exists: real upstream files as extra seeds of a fuzz target. A plain test
// run, in either lane, reads nothing of ../shared through it (only
// TestCorpus… and TestGolden… tests read ../shared). It never skips.
func SharedWhenFuzzing(rel string) (string, bool) {
	if f := flag.Lookup("test.fuzz"); f == nil || f.Value.String() == "" {
		return "", false
	}
	p := filepath.Join(filepath.Dir(ModuleRoot()), "shared", filepath.FromSlash(rel))
	_, err := os.Stat(p)
	return p, err == nil
}

// UpstreamInferenceX is the complete InferenceX tree of ../shared
// (corpus/upstream/InferenceX, SemiAnalysisAI/InferenceX at 843c6254 with
// every shell script), as SharedPath gives it.
func UpstreamInferenceX(t testing.TB) string {
	t.Helper()
	return SharedPath(t, "corpus/upstream/InferenceX")
}

// Mirror environment variables: the git directories (bare mirrors) of
// fetched upstream histories that TestMirror… tests read. They are read
// only from the environment, never from a built-in path.
const (
	// MirrorInferenceX names a bare mirror of SemiAnalysisAI/InferenceX.
	MirrorInferenceX = "INFX_MIRROR_GIT_DIR"
	// MirrorVLLMRecipes names a bare mirror of vllm-project/recipes.
	MirrorVLLMRecipes = "VLLM_RECIPES_MIRROR_GIT_DIR"
)

// MirrorGitDir is the git directory named by the environment variable env
// (MirrorInferenceX, MirrorVLLMRecipes). Without it the test is skipped
// loudly, naming the variable; a variable naming no git directory fails
// the test. Under -short the test is skipped too.
func MirrorGitDir(t testing.TB, env string) string {
	t.Helper()
	d := os.Getenv(env)
	if testing.Short() {
		t.Skipf("SKIP: -short: %s reads a fetched git history (%s) in the full lane only", t.Name(), env)
	}
	if d == "" {
		t.Skipf("SKIP: %s not set: %s did not run (set it to a bare git mirror; see README.md, Environment)", env, t.Name())
	}
	for _, marker := range []string{"objects", filepath.Join(".git", "objects")} {
		if st, err := os.Stat(filepath.Join(d, marker)); err == nil && st.IsDir() {
			return d
		}
	}
	t.Fatalf("%s=%s is not a git directory (no objects/)", env, d)
	return ""
}

// CheckLedger compares counted outcomes with the ledger file (one
// "count<TAB>what" line per entry, sorted by what): every entry must have
// exactly the count the file states, so an entry that grows, shrinks,
// appears or disappears fails the test. A lower count is progress that must
// be recorded on purpose: rerun the test with -update, which rewrites the
// file from got. Entries with a zero count are left out.
func CheckLedger(t testing.TB, file string, got map[string]int) {
	t.Helper()
	var keys []string
	for k, n := range got {
		if n != 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if *Update {
		var b strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&b, "%d\t%s\n", got[k], k)
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("-update: wrote %s (%d entries)", file, len(keys))
		return
	}
	want, err := ReadLedger(file)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	for _, k := range keys {
		switch w, ok := want[k]; {
		case !ok:
			t.Errorf("%s: new entry, %d: %s", file, got[k], k)
		case got[k] > w:
			t.Errorf("%s: %d, was %d: %s", file, got[k], w, k)
		case got[k] < w:
			t.Errorf("%s: %d, the ledger says %d (fewer: record it with -update): %s", file, got[k], w, k)
		}
	}
	var gone []string
	for k := range want {
		if got[k] == 0 {
			gone = append(gone, k)
		}
	}
	sort.Strings(gone)
	for _, k := range gone {
		t.Errorf("%s: 0, the ledger says %d (gone: record it with -update): %s", file, want[k], k)
	}
}

// ReadLedger reads a ledger file CheckLedger writes.
func ReadLedger(file string) (map[string]int, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if line == "" {
			continue
		}
		c, what, ok := strings.Cut(line, "\t")
		n, err := strconv.Atoi(c)
		if !ok || err != nil || n <= 0 {
			return nil, fmt.Errorf("%s:%d: want \"count<TAB>what\", got %q", file, i+1, line)
		}
		if _, dup := out[what]; dup {
			return nil, fmt.Errorf("%s:%d: %q listed twice", file, i+1, what)
		}
		out[what] = n
	}
	return out, nil
}
