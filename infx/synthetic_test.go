package infx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// syntheticCheckout is a temporary checkout holding the complete
// InferenceX tree's injector (runners/inject_synthetic_acceptance.py and
// runners/synthetic_injectors/*.py of ../shared, copied at test time),
// with mutate applied to the files (relative path → text).
func syntheticCheckout(t *testing.T, mutate func(map[string][]byte)) string {
	t.Helper()
	src := testutil.UpstreamInferenceX(t)
	files := map[string][]byte{}
	for _, rel := range []string{"runners/inject_synthetic_acceptance.py", "runners/synthetic_injectors/__init__.py", "runners/synthetic_injectors/sglang.py", "runners/synthetic_injectors/vllm.py"} {
		b, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		files[rel] = b
	}
	if mutate != nil {
		mutate(files)
	}
	dir := t.TempDir()
	for rel, b := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const syntheticScript = `cd "$WS"
python3 "$WS/runners/inject_synthetic_acceptance.py" recipes/r.yaml "$FRAMEWORK" || exit 1
echo submitted
`

// TestCorpusSyntheticHandler: the sandbox runs the checkout's injector
// by its text — an opt-in run records its rewrite of the recipe (applied
// later with the real program's result), no opt-in records nothing, a
// changed byte in a backend is unsupported naming the file and its hash.
func TestCorpusSyntheticHandler(t *testing.T) {
	ws := syntheticCheckout(t, nil)
	script := filepath.Join(ws, "launch.sh")
	if err := os.WriteFile(script, []byte(syntheticScript), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"WS=" + ws, "FRAMEWORK=dynamo-vllm", "SYNTHETIC_ACCEPTANCE=true", "SYNTHETIC_ACCEPTANCE_LENGTH=2.5"}
	run, err := RunScript(script, ScriptOptions{Env: env, ReadRoots: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop != nil {
		t.Fatalf("stopped: %v", run.Stop)
	}
	if len(run.Edits) != 1 || run.Edits[0].Path != filepath.Join(ws, "recipes/r.yaml") || run.Edits[0].Program != syntheticProgram {
		t.Fatalf("edits %+v", run.Edits)
	}
	recipe := "backend:\n  vllm_config:\n    decode:\n      speculative-config: '{\"method\":\"mtp\",\"num_speculative_tokens\":2}'\n"
	out, err := applySynthetic([]byte(recipe), RecipeEdit{Kind: syntheticProgram, Text: run.Edits[0].Data})
	if err != nil {
		t.Fatal(err)
	}
	want := "backend:\n  vllm_config:\n    decode:\n      speculative-config: '{\"method\":\"mtp\",\"num_speculative_tokens\":2,\"rejection_sample_method\":\"synthetic\",\"synthetic_acceptance_length\":2.5}'\n"
	if string(out) != want {
		t.Errorf("rewritten:\n%s\nwant:\n%s", out, want)
	}
	// an sglang recipe with the vLLM framework: no speculative-config, so
	// the program exits 1 (the 843c6254 driver)
	if _, err := applySynthetic([]byte("backend:\n  prefill_environment:\n    A: 1\n"), RecipeEdit{Kind: syntheticProgram, Text: run.Edits[0].Data}); err == nil ||
		!strings.Contains(err.Error(), "exits 1: ERROR: SYNTHETIC_ACCEPTANCE=true but no speculative-config entries were found in recipes/r.yaml") {
		t.Errorf("no speculative-config: %v", err)
	}

	// no opt-in: nothing recorded, the script goes on
	run, err = RunScript(script, ScriptOptions{Env: []string{"WS=" + ws, "FRAMEWORK=dynamo-vllm"}, ReadRoots: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop != nil || len(run.Edits) != 0 || run.Exit != 0 {
		t.Errorf("no opt-in: stop %v, edits %d, exit %d", run.Stop, len(run.Edits), run.Exit)
	}

	// one changed byte in a backend: unknown text, named with its hash
	ws2 := syntheticCheckout(t, func(f map[string][]byte) {
		f["runners/synthetic_injectors/vllm.py"] = append(f["runners/synthetic_injectors/vllm.py"], '\n')
	})
	script2 := filepath.Join(ws2, "launch.sh")
	if err := os.WriteFile(script2, []byte(syntheticScript), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err = RunScript(script2, ScriptOptions{Env: append([]string{"WS=" + ws2}, env[1:]...), ReadRoots: []string{ws2}})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop == nil || !strings.Contains(run.Stop.Msg, "runners/synthetic_injectors/vllm.py (sha256 ") || !strings.Contains(run.Stop.Msg, "is not a known version of the program") {
		t.Errorf("changed backend: stop %v", run.Stop)
	}
}
