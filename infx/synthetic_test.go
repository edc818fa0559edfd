package infx

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
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

// TestCorpusMultinodeSynthetic runs testdata/multinode's launcher with the
// complete tree's injector (copied at test time) before srtctl apply: the
// rewrite reaches the rendered workers, a recipe it cannot rewrite is the
// program's own failure, a rewrite of another file of the clone is not
// modelled, and an unknown driver text is named by its hash.
func TestCorpusMultinodeSynthetic(t *testing.T) {
	src := testutil.UpstreamInferenceX(t)
	const recipe = "benchmarks/multi_node/srt-slurm-recipes/sglang/m1/agentic/disagg-1p1d.yaml"
	copyInjector := func(withEnvBlock bool, driver string) func(dir string) error {
		return func(dir string) error {
			for _, rel := range []string{"runners/inject_synthetic_acceptance.py", "runners/synthetic_injectors/__init__.py", "runners/synthetic_injectors/sglang.py", "runners/synthetic_injectors/vllm.py"} {
				b, err := os.ReadFile(filepath.Join(src, rel))
				if err != nil {
					return err
				}
				if rel == "runners/inject_synthetic_acceptance.py" && driver != "" {
					b = []byte(driver)
				}
				if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
					return err
				}
			}
			if !withEnvBlock {
				return nil
			}
			p := filepath.Join(dir, recipe)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b = []byte(strings.Replace(string(b), "  sglang_config:\n", "  prefill_environment:\n    KEPT: \"1\"\n  sglang_config:\n", 1))
			return os.WriteFile(p, b, 0o644)
		}
	}
	const inject = `SYNTHETIC_ACCEPTANCE=true SYNTHETIC_ACCEPTANCE_LENGTH=2.5 python3 "$GITHUB_WORKSPACE/runners/inject_synthetic_acceptance.py" `
	d, err := renderWithLine(t, copyInjector(true, ""), inject+`"$CONFIG_PATH" dynamo-sglang || exit 1`)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range d.Processes {
		if p.Role == launch.RolePrefill {
			for _, e := range p.Env {
				got[e.Name+"="+e.Value] = true
			}
		}
	}
	for _, want := range []string{"KEPT=1", "SGLANG_SIMULATE_ACC_LEN=2.5", "SGLANG_SIMULATE_ACC_METHOD=match-expected", "SGLANG_SIMULATE_ACC_TOKEN_MODE=real-draft-token"} {
		if !got[want] {
			t.Errorf("prefill worker lacks %s (has %v)", want, got)
		}
	}
	for _, c := range []struct{ name, setupDriver, line, unsup string }{
		{"no env block", "", inject + `"$CONFIG_PATH" dynamo-sglang || exit 1`, "exits 1: ERROR: SYNTHETIC_ACCEPTANCE=true but no speculative-config entries were found"},
		{"another clone file", "", inject + `recipes/other.yaml dynamo-sglang || exit 1`, "a file of the srt-slurm clone that is not the recipe it submits"},
		{"unknown driver", "print('x')\n", inject + `"$CONFIG_PATH" dynamo-sglang || exit 1`, "is not a known version of the program"},
	} {
		withBlock := c.name != "no env block"
		_, err := renderWithLine(t, copyInjector(withBlock, c.setupDriver), c.line)
		var pe *PointError
		if !errors.As(err, &pe) || pe.Status != StatusUnsupported || !strings.Contains(pe.Note, c.unsup) {
			t.Errorf("%s: got %v, want unsupported with %q", c.name, err, c.unsup)
		}
	}
}

// TestCorpusMultinodeSyntheticProduction: where the injector rewrites a
// speculative-config the recipe commits, the rendered worker runs the
// rewrite and its argument carries the committed value as the production
// path's (launch.Arg.Harness, for package compare's side exclusions); the
// arguments the injector leaves alone carry none.
func TestCorpusMultinodeSyntheticProduction(t *testing.T) {
	src := testutil.UpstreamInferenceX(t)
	const recipe = "benchmarks/multi_node/srt-slurm-recipes/sglang/m1/agentic/disagg-1p1d.yaml"
	const committed = `{"method":"mtp","num_speculative_tokens":2,"rejection_sample_method":"block"}`
	setup := func(dir string) error {
		for _, rel := range []string{"runners/inject_synthetic_acceptance.py", "runners/synthetic_injectors/__init__.py", "runners/synthetic_injectors/sglang.py", "runners/synthetic_injectors/vllm.py"} {
			b, err := os.ReadFile(filepath.Join(src, rel))
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, rel), b, 0o644); err != nil {
				return err
			}
		}
		p := filepath.Join(dir, recipe)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b = []byte(strings.Replace(string(b), "      disaggregation-mode: \"decode\"\n", "      disaggregation-mode: \"decode\"\n      speculative-config: '"+committed+"'\n", 1))
		return os.WriteFile(p, b, 0o644)
	}
	const inject = `SYNTHETIC_ACCEPTANCE=true SYNTHETIC_ACCEPTANCE_LENGTH=2.5 python3 "$GITHUB_WORKSPACE/runners/inject_synthetic_acceptance.py" "$CONFIG_PATH" dynamo-vllm || exit 1`
	d, err := renderWithLine(t, setup, inject)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range d.Processes {
		for _, a := range p.Args {
			switch {
			case a.Flag == "--speculative-config":
				found = true
				if p.Role != launch.RoleDecode || len(a.Values) != 1 || !strings.Contains(a.Values[0], `"rejection_sample_method":"synthetic"`) ||
					a.Harness == nil || !reflect.DeepEqual(a.Harness.Values, []string{committed}) ||
					!strings.HasPrefix(a.Harness.By, "runners/inject_synthetic_acceptance.py (inject_synthetic_acceptance.py@") || !strings.Contains(a.Harness.By, ") at runners/launch_h200-x.sh:") {
					t.Errorf("%s %s %q: harness %+v", p.Role, a.Flag, a.Values, a.Harness)
				}
			case a.Harness != nil:
				t.Errorf("%s %s: harness %+v on an argument the injector leaves alone", p.Role, a.Flag, a.Harness)
			}
		}
	}
	if !found {
		t.Fatalf("no --speculative-config rendered: %+v", d.Processes)
	}
	// no injection: nothing marked
	d, err = renderWithLine(t, setup, "true")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Processes {
		for _, a := range p.Args {
			if a.Harness != nil {
				t.Errorf("without the injector: %s %s marked %+v", p.Role, a.Flag, a.Harness)
			}
		}
	}
}
