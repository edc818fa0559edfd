package helpers

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// syntheticSourcesAt reads the injector's sources from an InferenceX
// checkout (read(path) returns the file or an error when absent).
func syntheticSourcesAt(read func(string) ([]byte, error)) (SyntheticSources, error) {
	var s SyntheticSources
	var err error
	if s.Driver, err = read(SyntheticDriverPath); err != nil {
		return s, err
	}
	if b, err := read(SyntheticPackage + "/__init__.py"); err == nil {
		s.Init, s.HasInit = b, true
	}
	s.Modules = map[string][]byte{}
	for _, m := range ModulesOf(s.Init) {
		if b, err := read(SyntheticPackage + "/" + m + ".py"); err == nil {
			s.Modules[m] = b
		}
	}
	return s, nil
}

// TestCorpusSyntheticRecipes runs the injector of the complete InferenceX
// tree of ../shared (843c6254) on every real recipe with a speculative
// config or a worker environment block, for both backends, and compares
// with what the real program did to them (testdata/synthetic/corpus.tsv,
// made by gen_corpus.py).
func TestCorpusSyntheticRecipes(t *testing.T) {
	infx := testutil.UpstreamInferenceX(t)
	src, err := syntheticSourcesAt(func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(infx, p)) })
	if err != nil {
		t.Fatal(err)
	}
	prog, err := IdentifySynthetic(src)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(prog.IDs, " "); got != "inject_synthetic_acceptance.py@bafda7a0 synthetic_injectors/__init__.py@8836a46b synthetic_injectors/sglang.py@48fb1706 synthetic_injectors/vllm.py@e71a5df2" {
		t.Errorf("versions %s", got)
	}
	b, err := os.ReadFile("testdata/synthetic/corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	n, changed := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		g := strings.Split(line, "\t")
		recipe, err := os.ReadFile(filepath.Join(infx, g[0]))
		if err != nil {
			t.Fatal(err)
		}
		in := SyntheticInput{Args: []string{"recipe.yaml", g[1]}, Env: map[string]string{"SYNTHETIC_ACCEPTANCE": "true", "SYNTHETIC_ACCEPTANCE_LENGTH": "2.27"}}
		out, err := prog.Apply(in, recipe)
		status := 0
		var ex *Exit
		if errors.As(err, &ex) {
			status, out = ex.Status, recipe
		} else if err != nil {
			t.Errorf("%s %s: %v", g[0], g[1], err)
			continue
		}
		if strconv.Itoa(status) != g[2] || Hash(out) != g[3] {
			t.Errorf("%s %s: status %d, sha256 %s; the program: %s %s", g[0], g[1], status, Hash(out), g[2], g[3])
		}
		if status == 0 && Hash(out) != Hash(recipe) {
			changed++
		}
		n++
	}
	if n != 930 || changed != 496 {
		t.Errorf("compared %d runs (%d rewrote the recipe), want 930 (496)", n, changed)
	}
}

// TestMirrorSyntheticTable checks the table against the fetched history:
// every version's text hashes to its SHA256 at each commit it cites, and
// each commit of gen.py's combinations is recognized as those versions.
// With COOKBOOK_SYNC_LIVE_PYTHON=1 and python3 on PATH it also reruns gen.py's fixtures at every version
// (the extra, live check).
func TestMirrorSyntheticTable(t *testing.T) {
	dir := testutil.MirrorGitDir(t, testutil.MirrorInferenceX)
	show := func(commit, p string) ([]byte, error) {
		return exec.Command("git", "--git-dir", dir, "show", commit+":"+p).Output()
	}
	for _, p := range SyntheticTable() {
		for _, c := range p.Commits {
			b, err := show(c, p.Path)
			if err != nil {
				t.Errorf("%s: %s not at %s", p.ID, p.Path, c)
				continue
			}
			if Hash(b) != p.SHA256 {
				t.Errorf("%s: %s at %s hashes to %s", p.ID, p.Path, c, Hash(b))
			}
		}
	}
	for commit, combo := range syntheticCombos {
		src, err := syntheticSourcesAt(func(p string) ([]byte, error) { return show(commit, p) })
		if err != nil {
			t.Fatal(err)
		}
		prog, err := IdentifySynthetic(src)
		if err != nil {
			t.Errorf("%s: %v", commit, err)
			continue
		}
		want := syntheticByBlobs(combo[0], combo[1], combo[2:]...)
		if strings.Join(prog.IDs, " ") != strings.Join(want.IDs, " ") {
			t.Errorf("%s: recognized %v, want %v", commit, prog.IDs, want.IDs)
		}
	}
	if os.Getenv("COOKBOOK_SYNC_LIVE_PYTHON") == "" {
		t.Log("COOKBOOK_SYNC_LIVE_PYTHON not set: the live rerun of gen.py (1,600 python3 runs, minutes) is skipped")
		return
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Log("python3 not on PATH: the live rerun of gen.py is skipped")
		return
	}
	out, err := exec.Command("python3", "testdata/synthetic/gen.py", dir).Output()
	if err != nil {
		t.Fatalf("gen.py: %v", err)
	}
	want, _ := os.ReadFile("testdata/synthetic/golden.tsv")
	if string(out) != string(want) {
		t.Errorf("gen.py today differs from testdata/synthetic/golden.tsv:\n%s", testutil.LineDiff(out, want))
	}
}

// TestSyntheticUnknownText: a driver or backend whose text is not in the
// table is named with its hash, never run; a missing module is Python's
// import failure.
func TestSyntheticUnknownText(t *testing.T) {
	_, err := IdentifySynthetic(SyntheticSources{Driver: []byte("print('hi')\n")})
	var u *UnknownProgram
	if !errors.As(err, &u) || u.Path != SyntheticDriverPath || u.SHA256 != Hash([]byte("print('hi')\n")) {
		t.Fatalf("unknown driver: %v", err)
	}
	// the 843c6254 driver with a package whose vllm.py is missing
	prog := syntheticByBlobs("bafda7a0", "8836a46b")
	if prog == nil || prog.init == nil {
		t.Fatal("no program")
	}
	if len(ModulesOf([]byte("x"))) != 0 {
		t.Error("ModulesOf of an unknown text")
	}
}
