package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/report"
)

var (
	vllmInfx    = filepath.Join("..", "..", "coverage", "testdata", "vllm", "inferencex")
	vllmRecipes = filepath.Join("..", "..", "coverage", "testdata", "vllm", "recipes")
)

// coverage --infx --vllm-recipes on the coverage/testdata/vllm fixture: each
// vLLM-family key names its recipe place or the nearest candidate; a decode
// difference and an uncovered TP4 row make it exit 1.
func TestCoverageVLLMCLI(t *testing.T) {
	code, out, errs := runCoverageCLI(t, "--infx", vllmInfx, "--vllm-recipes", vllmRecipes)
	if code != exitGap || errs != "" {
		t.Fatalf("exit %d, stderr %q, want 1:\n%s", code, errs, out)
	}
	for _, want := range []string{
		"comet-fp8-gb200-dynamo-vllm   0    8      compared          decode   TP4   differs                  ",
		"models/acme/Comet-1.yaml variant=default strategy=pd_cluster hw=gb200 role=decode\n",
		"comet-fp8-h200-vllm-noscript  0    4      script not found  agg      TP8   matched (not compared)",
		"  comet-fp8-gb200-dynamo-vllm row 0 conc 8 decode (TP4): differs\n    upstream: models/acme/Comet-1.yaml variant=default strategy=pd_cluster hw=gb200 role=decode\n    site: https://recipes.vllm.ai/acme/Comet-1?hardware=gb200&strategy=pd_cluster\n    --max-num-batched-tokens: upstream (absent), inferencex 8192\n",
		"vLLM keys: script not found 1, no recipe covers this 1, differs 2\n",
		"  comet-fp8-gb200-dynamo-vllm   differs                          rows: upstream-only 1, differs 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "CELL") || strings.Contains(out, "Points:") {
		t.Errorf("no --cookbook, yet the cookbook table is printed:\n%s", out)
	}
	code, out, _ = runCoverageCLI(t, "--infx", vllmInfx, "--vllm-recipes", vllmRecipes, "--format", "json")
	var rep struct {
		SchemaVersion  int    `json:"schemaVersion"`
		SchemaRevision int    `json:"schemaRevision"`
		Verdict        string `json:"verdict"`
		VLLMRecipes    struct{ Dir string }
		VLLM           []struct {
			ConfigKey, Verdict string
			Rows               []struct {
				Status string
				Roles  []struct {
					Role, Verdict string
					Recipe        *struct{ File, Variant, Strategy, Where string }
					Nearest       *struct{ Where string }
					Result        *struct {
						Verdict     string
						Differences []struct {
							Setting    string  `json:"setting"`
							Upstream   *string `json:"upstream"`
							InferenceX *string `json:"inferencex"`
						} `json:"differences"`
					}
				}
			}
		} `json:"vllm"`
		Counts struct {
			VLLM       map[string]int
			Unverified int
		}
		Gap           bool
		UnverifiedGap bool
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitGap {
		t.Fatalf("json: exit %d %v\n%s", code, err, out)
	}
	if rep.SchemaVersion != 2 || rep.SchemaRevision != report.SchemaRevision || rep.Verdict != "differs" || rep.VLLMRecipes.Dir != absPath(t, vllmRecipes) || len(rep.VLLM) != 4 || !rep.Gap || rep.Counts.VLLM["differs"] != 2 ||
		rep.Counts.Unverified != 2 || !rep.UnverifiedGap {
		t.Errorf("json header %+v", rep)
	}
	// the vLLM-family comparison uses the neutral sides: upstream is the
	// vLLM recipe (absent here), inferencex the effective recipe
	if r := rep.VLLM[3].Rows[0].Roles[1]; r.Role != "decode" || r.Verdict != "differs" || r.Result == nil || r.Result.Verdict != "differs" || len(r.Result.Differences) != 1 {
		t.Errorf("json dynamo decode %+v", r)
	} else if d := r.Result.Differences[0]; d.Setting != "--max-num-batched-tokens" || d.Upstream != nil || d.InferenceX == nil || *d.InferenceX != "8192" {
		t.Errorf("json dynamo decode difference %+v", d)
	}
	if st := rep.VLLM[2].Rows[0].Status; st != "script not found" {
		t.Errorf("noscript row status %q", st)
	}
	if r := rep.VLLM[0].Rows[1].Roles[0]; r.Verdict != "no recipe covers this" || r.Nearest == nil || r.Recipe != nil {
		t.Errorf("json TP4 row %+v", r)
	}
	// Only the key whose script is not in the checkout: nothing verified,
	// a gap (exit 1) that --allow-unverified lists without failing (exit 0).
	if code, out, _ := runCoverageCLI(t, "--infx", vllmInfx, "--vllm-recipes", vllmRecipes, "--config-key", "*-noscript"); code != exitGap ||
		!strings.Contains(out, "Gaps of the keys judged from the InferenceX side:\n  comet-fp8-h200-vllm-noscript row 0 conc 4: not verified: script not found\n") {
		t.Errorf("noscript only: exit %d\n%s", code, out)
	}
	if code, out, _ := runCoverageCLI(t, "--infx", vllmInfx, "--vllm-recipes", vllmRecipes, "--config-key", "*-noscript", "--allow-unverified"); code != exitOK ||
		!strings.Contains(out, "Rows not verified (--allow-unverified: listed, not a gap):\n") {
		t.Errorf("noscript only, --allow-unverified: exit %d\n%s", code, out)
	}
	// A glob that matches no vLLM-family key: nothing compared, exit 2.
	if code, out, errs := runCoverageCLI(t, "--infx", vllmInfx, "--vllm-recipes", vllmRecipes, "--config-key", "qwen35*"); code != exitUsage || out != "" ||
		!strings.Contains(errs, "--config-key qwen35*: no vLLM-family config key (vllm, dynamo-vllm, llmd-vllm) of the InferenceX checkout "+vllmInfx+" matches: nothing was compared") {
		t.Errorf("no matching key: exit %d, stderr %q\n%s", code, errs, out)
	}
	code, out, _ = runCoverageCLI(t, "--infx", vllmInfx, "--vllm-recipes", vllmRecipes, "--format", "markdown")
	if code != exitGap {
		t.Errorf("markdown: exit %d, want 1", code)
	}
	checkMarkdown(t, out, "❌ Check 3: 4 gaps — differs 2, no recipe covers this 1, not verified 1 (of 4 config keys)", vllmInfx, vllmRecipes, "testdata")
	for _, want := range []string{
		"- Upstream: vLLM recipes `vllm-project/recipes` (not a git checkout: no commit)\n",
		"\n## Gaps\n",
		"### `comet-fp8-gb200-dynamo-vllm` — differs\n\n| role | setting | upstream | inferencex | points |\n|---|---|---|---|---|\n| decode TP4 vs `models/acme/Comet-1.yaml variant=default strategy=pd_cluster hw=gb200 role=decode` ([recipes.vllm.ai](https://recipes.vllm.ai/acme/Comet-1?hardware=gb200&strategy=pd_cluster)) | `--max-num-batched-tokens` | (absent) | `8192` | row 0 · conc 8 |\n",
		"- **agg TP4** no recipe covers this — nearest: `models/acme/Comet-1.yaml variant=default strategy=single_node_tp hw=h200 role=agg` ([recipes.vllm.ai](https://recipes.vllm.ai/acme/Comet-1?hardware=h200)) — misses: topology: recipe TP8, want TP4 (row 1 · conc 16)\n",
		"- **not verified: upstream-only** (row 1 · conc 64) — recipe recipes/vllm/comet/disagg-gb200-1p2d.yaml is not in the checkout: it lives in the NVIDIA/srt-slurm ref the launcher clones\n",
		"<details><summary><code>comet-fp8-gb200-dynamo-vllm</code> — 23 settings under 19 rules</summary>",
		"| harness-port | excluded | harness | `--port` | decode, prefill | per-process HTTP port chosen by the launcher | prompt-09813166 |\n",
		"<details><summary><code>comet-fp8-gb200-dynamo-vllm</code> (vLLM) — differs, 2 rows</summary>",
		"| 0 | 8 | `benchmarks/multi_node/srt-slurm-recipes/vllm/comet/disagg-gb200-1p1d.yaml` | decode TP4 | differs | 8 | `models/acme/Comet-1.yaml variant=default strategy=pd_cluster hw=gb200 role=decode` ([recipes.vllm.ai](https://recipes.vllm.ai/acme/Comet-1?hardware=gb200&strategy=pd_cluster)) |\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

// With --cookbook and --vllm-recipes both parts run.
func TestCoverageVLLMWithCookbook(t *testing.T) {
	_, cb := demoDirs(t)
	code, out, errs := runCoverageCLI(t, "--infx", vllmInfx, "--cookbook", cb, "--vllm-recipes", vllmRecipes)
	if code != exitGap {
		t.Fatalf("exit %d %s\n%s", code, errs, out)
	}
	for _, want := range []string{"CONFIG KEY  ", "recipe not found", "Config keys judged from the InferenceX side", "Points: ", "vLLM keys: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCoverageVLLMUsage(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no --infx", []string{"--vllm-recipes", vllmRecipes}, "--vllm-recipes needs --infx"},
		{"missing dir", []string{"--infx", vllmInfx, "--vllm-recipes", filepath.Join(vllmRecipes, "nope")}, "is not a directory"},
		{"no master configs", []string{"--infx", vllmRecipes, "--vllm-recipes", vllmRecipes}, "--infx"},
	} {
		code, _, errs := runCoverageCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.name, code, errs, c.want)
		}
	}
	// A malformed model YAML: exit 2 with file:line:col, no report.
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(vllmRecipes)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "models", "acme", "Broken.yaml"), []byte("meta:\n  title: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCoverageCLI(t, "--infx", vllmInfx, "--vllm-recipes", dir)
	if code != exitUsage || !strings.Contains(errs, "Broken.yaml:2:1") {
		t.Errorf("bad recipe: exit %d, stderr %q\n%s", code, errs, out)
	}
}

// absPath is p as an absolute path (the report names every checkout so).
func absPath(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
