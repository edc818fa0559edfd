package helpers

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"mvdan.cc/sh/v3/syntax"
)

// pythonCWords returns the source text of every `python3 -c WORD` word of
// a script, with its line.
func pythonCWords(t testing.TB, src []byte) (words []string, lines []int) {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), "")
	if err != nil {
		t.Fatal(err)
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) >= 3 && strings.HasPrefix(ce.Args[0].Lit(), "python") && ce.Args[1].Lit() == "-c" {
			w := ce.Args[2]
			words = append(words, string(src[w.Pos().Offset():w.End().Offset()]))
			lines = append(lines, int(w.Pos().Line()))
		}
		return true
	})
	return words, lines
}

type amdGolden struct {
	Env            map[string]string `json:"env"`
	ExpandedSHA256 string            `json:"expanded_sha256"`
	Stdout         string            `json:"stdout"`
	Stderr         string            `json:"stderr"`
	Status         int               `json:"status"`
}

func readFileOf(path string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if name != path {
			return nil, ErrNoSuchFile
		}
		return os.ReadFile(path)
	}
}

// TestGoldenAMDModels runs the loader of server_sglang.sh at 843c6254 on
// the real models.yaml of ../shared and compares with what the real
// program printed under python3 + PyYAML 6 (testdata/amd_models/
// golden.jsonl, made by testdata/amd_models/gen.py: its docstring has the
// command).
func TestGoldenAMDModels(t *testing.T) {
	root := testutil.UpstreamInferenceX(t)
	utils := filepath.Join(root, "benchmarks", "multi_node", "amd_utils")
	src, err := os.ReadFile(filepath.Join(utils, "server_sglang.sh"))
	if err != nil {
		t.Fatal(err)
	}
	words, lines := pythonCWords(t, src)
	var raw string
	for i, w := range words {
		if lines[i] == 79 {
			raw = w
		}
	}
	if !IsAMDModels(raw) {
		t.Fatalf("server_sglang.sh:79: the loader's text (sha256 %s) is not in the table", Hash([]byte(raw)))
	}
	models := filepath.Join(utils, "models.yaml")
	f, err := os.Open(filepath.Join("testdata", "amd_models", "golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	var memo testMemo
	for sc.Scan() {
		var g amdGolden
		if err := json.Unmarshal(sc.Bytes(), &g); err != nil {
			t.Fatal(err)
		}
		n++
		env := map[string]string{}
		for k, v := range g.Env {
			env[k] = v
		}
		env["MODELS_YAML"] = models
		var environ []string
		for k, v := range env {
			environ = append(environ, k+"="+v)
		}
		sort.Strings(environ)
		lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
		w, err := amdExpandWord(raw, lookup)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(strings.ReplaceAll(w.text, models, "models.yaml")))
		if got := hex.EncodeToString(sum[:]); got != g.ExpandedSHA256 {
			t.Errorf("%v: the expansion of the -c word differs from bash's (sha256 %s, bash %s)", g.Env, got, g.ExpandedSHA256)
		}
		in := AMDModelsInput{Raw: raw, Expanded: w.text, Var: lookup, Getenv: envLookup(environ), ReadFile: readFileOf(models)}
		out, err := RunAMDModels(in)
		if err != nil {
			t.Errorf("%v: %v", g.Env, err)
			continue
		}
		// the same run with one load kept for every case: the same output
		in.Memo = memo.of
		if kept, err := RunAMDModels(in); err != nil || !reflect.DeepEqual(kept, out) {
			t.Errorf("%v: with Memo %+v, %v; without %+v", g.Env, kept, err, out)
		}
		if out.Stdout != g.Stdout || out.Status != g.Status {
			t.Errorf("%v:\n got status %d stdout\n%s\nwant status %d stdout\n%s", g.Env, out.Status, out.Stdout, g.Status, g.Stdout)
		}
		if (out.Stderr == "") != (g.Stderr == "") {
			t.Errorf("%v: stderr %q, python's %q", g.Env, out.Stderr, g.Stderr)
		}
	}
	if n == 0 {
		t.Fatal("no golden cases")
	}
	if memo.made != 1 || memo.calls != n {
		t.Errorf("Memo: %d loads made for %d runs of one models.yaml, want 1 for %d", memo.made, memo.calls, n)
	}
}

// testMemo is an AMDModelsInput.Memo: a map, counting calls and values
// made.
type testMemo struct {
	kept        map[string]any
	calls, made int
}

func (m *testMemo) of(kind string, input []byte, make func([]byte) any) any {
	m.calls++
	if v, ok := m.kept[kind+"\x00"+string(input)]; ok {
		return v
	}
	if m.kept == nil {
		m.kept = map[string]any{}
	}
	m.made++
	v := make(input)
	m.kept[kind+"\x00"+string(input)] = v
	return v
}

// fixtureWord is a -c word in the shape of the loader's text (not the
// upstream text: its hash is in no version).
const fixtureWord = `"
import yaml
config_path = '${MODELS_YAML}'
model_name = '${MODEL_NAME}'
is_agentic = '${IS_AGENTIC:-0}'.strip().lower() in ('1', 'true')
print(f'X=\"{m.get(\"base_flags\", \"\")}\"')
"`

// TestAMDModelsVersions runs every version on a fixture models.yaml
// written in the shape of the file of its time: each prints its own
// variables in its order, the older ones without the entry selection.
func TestAMDModelsVersions(t *testing.T) {
	yml := `
M:
  base_flags: "--a 1"
  mtp_flags: "--m"
  dp_flags: "--dp"
  ep_flags: "--ep"
  prefill:
    mem_fraction_static: 0.7
    disable_radix_cache: false
    dp:
      chunked_prefill_size: "A * B"
      cuda_graph_bs: "1 2"
    no_dp:
      cuda_graph_bs_range: "2-64"
      context_length: 9000
  decode:
    mem_fraction_static: 1e-05
    dp:
      cuda_graph_bs_range: 5
      chunked_prefill_size: "(A + 1) // -B % 7"
    ep_only:
      context_length: 12_000
M-DI:
  base_flags: "--di"
`
	read := func(name string) ([]byte, error) {
		if name != "/m.yaml" {
			return nil, ErrNoSuchFile
		}
		return []byte(yml), nil
	}
	vars := map[string]string{"MODELS_YAML": "/m.yaml", "MODEL_NAME": "M"}
	lookup := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	w, err := amdExpandWord(fixtureWord, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.text, "model_name = 'M'") || !strings.Contains(w.text, "'0'.strip()") || !strings.Contains(w.text, `print(f'X="{m.get("base_flags", "")}"')`) {
		t.Fatalf("expansion:\n%s", w.text)
	}
	in := AMDModelsInput{Raw: fixtureWord, Expanded: w.text, Var: lookup, Getenv: envLookup([]string{"A=7", "B=3"}), ReadFile: read}
	want := map[int][]string{
		1: {`MODEL_BASE_FLAGS="--a 1"`, `MODEL_DP_FLAGS="--dp"`, `PREFILL_MEM_FRACTION_STATIC="0.7"`, `PREFILL_DISABLE_RADIX_CACHE="False"`,
			`PREFILL_CHUNKED_PREFILL_SIZE_DP="21"`, `PREFILL_CUDA_GRAPH_BS_DP="1 2"`, `PREFILL_CUDA_GRAPH_BS_NO_DP_START="2"`,
			`DECODE_MEM_FRACTION_STATIC="1e-05"`, `DECODE_CHUNKED_PREFILL_SIZE_DP="4"`, `DECODE_CUDA_GRAPH_BS_DP_START="1"`, `DECODE_CUDA_GRAPH_BS_DP_END="160"`},
		2: {`MODEL_EP_FLAGS="--ep"`, `PREFILL_DISABLE_CUDA_GRAPH="False"`, `PREFILL_CONTEXT_LENGTH_NO_DP="9000"`},
		3: {`echo "Selected models.yaml entry: M-DI (IS_AGENTIC=False)"`, `MODEL_BASE_FLAGS="--di"`, `DECODE_DISAGG_ENABLE_RADIX_CACHE="False"`},
		4: {`DECODE_CONTEXT_LENGTH_EP_ONLY=""`, `DECODE_CONTEXT_LENGTH_DP=""`},
	}
	absent := map[int][]string{
		1: {"MODEL_EP_FLAGS", "PREFILL_DISABLE_CUDA_GRAPH", "PREFILL_CONTEXT_LENGTH_NO_DP", "Selected", "DECODE_DISAGG_ENABLE_RADIX_CACHE", "DECODE_CONTEXT_LENGTH_DP"},
		2: {"Selected", "DECODE_DISAGG_ENABLE_RADIX_CACHE", "DECODE_CONTEXT_LENGTH_DP"},
		3: {"DECODE_CONTEXT_LENGTH_DP", "DECODE_CONTEXT_LENGTH_EP_ONLY"},
	}
	for i, v := range amdModelsVersions() {
		out, err := v.run(in)
		if err != nil {
			t.Fatalf("v%d: %v", i+1, err)
		}
		for _, l := range want[i+1] {
			if !strings.Contains(out.Stdout, l+"\n") {
				t.Errorf("v%d: no line %s in\n%s", i+1, l, out.Stdout)
			}
		}
		for _, l := range absent[i+1] {
			if strings.Contains(out.Stdout, l) {
				t.Errorf("v%d: %s printed:\n%s", i+1, l, out.Stdout)
			}
		}
		if v.agentic && strings.Contains(out.Stdout, `DECODE_CONTEXT_LENGTH_EP_ONLY="12000"`) {
			t.Errorf("v%d: the -DI entry has no decode section", i+1)
		}
	}
	// v4 on the bare entry (no -AgentX entry: falls back to M).
	vars["IS_AGENTIC"] = "true"
	w, _ = amdExpandWord(fixtureWord, lookup)
	in.Expanded = w.text
	out, err := amdModelsVersions()[3].run(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{`echo "Selected models.yaml entry: M (IS_AGENTIC=True)"`, `DECODE_CONTEXT_LENGTH_EP_ONLY="12000"`, `PREFILL_MEM_FRACTION_STATIC="0.7"`} {
		if !strings.Contains(out.Stdout, l+"\n") {
			t.Errorf("agentic fallback: no line %s in\n%s", l, out.Stdout)
		}
	}
}

// TestAMDModelsRefuses: what the implementation does not reproduce is an
// error, never a guess.
func TestAMDModelsRefuses(t *testing.T) {
	v := amdModelsVersions()[3]
	run := func(yml string, vars map[string]string, environ []string, expanded func(string) string) error {
		lookup := func(n string) (string, bool) { x, ok := vars[n]; return x, ok }
		w, err := amdExpandWord(fixtureWord, lookup)
		if err != nil {
			return err
		}
		text := w.text
		if expanded != nil {
			text = expanded(text)
		}
		_, err = v.run(AMDModelsInput{Raw: fixtureWord, Expanded: text, Var: lookup, Getenv: envLookup(environ), ReadFile: func(string) ([]byte, error) { return []byte(yml), nil }})
		return err
	}
	base := map[string]string{"MODELS_YAML": "/m", "MODEL_NAME": "M"}
	cases := map[string]error{
		"formula with **":   run("M:\n  prefill:\n    dp:\n      chunked_prefill_size: 'A ** 2'\n", base, []string{"A=2"}, nil),
		"section not a map": run("M:\n  prefill: null\n", base, nil, nil),
		"float inf":         run("M:\n  prefill:\n    mem_fraction_static: .inf\n", base, nil, nil),
		"hex int":           run("M:\n  decode:\n    dp:\n      max_running_requests: 0x10\n", base, nil, nil),
		"quote in name":     run("M: {}\n", map[string]string{"MODELS_YAML": "/m", "MODEL_NAME": "M'x"}, nil, nil),
		"other expansion":   run("M: {}\n", base, nil, func(s string) string { return s + " " }),
		"merge key":         run("a: &a {x: 1}\nM:\n  <<: *a\n", base, nil, nil),
		"bad range":         run("M:\n  decode:\n    dp:\n      cuda_graph_bs_range: '1-2-3'\n", base, nil, nil),
		"list value":        run("M:\n  base_flags: [a]\n", base, nil, nil),
		"two documents":     run("M: {}\n---\nM: {}\n", base, nil, nil),
	}
	for name, err := range cases {
		var u *AMDModelsUnsupported
		if !errors.As(err, &u) {
			t.Errorf("%s: %v, want *AMDModelsUnsupported", name, err)
		}
	}
	// A name that is not an integer variable takes the NameError path (a
	// warning and the formula itself).
	lookup := func(n string) (string, bool) { x, ok := base[n]; return x, ok }
	w, _ := amdExpandWord(fixtureWord, lookup)
	out, err := v.run(AMDModelsInput{Raw: fixtureWord, Expanded: w.text, Var: lookup, Getenv: envLookup([]string{"A=x"}),
		ReadFile: func(string) ([]byte, error) {
			return []byte("M:\n  prefill:\n    dp:\n      chunked_prefill_size: 'A * 2'\n"), nil
		}})
	if err != nil || !strings.Contains(out.Stdout, `PREFILL_CHUNKED_PREFILL_SIZE_DP="A * 2"`) || !strings.Contains(out.Stderr, "name 'A' is not defined") {
		t.Errorf("NameError path: %v\n%s\n%s", err, out.Stdout, out.Stderr)
	}
	// an unknown text is named by its hash
	_, err = RunAMDModels(AMDModelsInput{Raw: fixtureWord})
	var unk *UnknownAMDModels
	if !errors.As(err, &unk) || unk.SHA256 != Hash([]byte(fixtureWord)) || !strings.Contains(err.Error(), unk.SHA256) {
		t.Errorf("unknown text: %v", err)
	}
	// a missing file: Python's FileNotFoundError, status 1, no output
	out, err = v.run(AMDModelsInput{Raw: fixtureWord, Expanded: w.text, Var: lookup, ReadFile: func(string) ([]byte, error) { return nil, ErrNoSuchFile }})
	if err != nil || out.Status != 1 || out.Stdout != "" {
		t.Errorf("missing file: %v %+v", err, out)
	}
}

// TestAMDModelsFloatRepr: Python 3's repr of floats.
func TestAMDModelsFloatRepr(t *testing.T) {
	for f, want := range map[float64]string{0.8: "0.8", 0.85: "0.85", 1: "1.0", 1e-05: "1e-05", 0.0001: "0.0001", 1e16: "1e+16", 123456789012345.6: "123456789012345.6", -0.5: "-0.5", 1.5e300: "1.5e+300", 100: "100.0"} {
		if got, err := amdFloatRepr(f); err != nil || got != want {
			t.Errorf("repr(%v) = %q %v, want %q", f, got, err, want)
		}
	}
}

// TestMirrorAMDModels: every version of the loader's text in the
// InferenceX history since 2026-06-01 (and the one in effect that day) is
// in the table, its version prints the variables the text prints, in the
// same order, and runs on that commit's models.yaml for every entry.
func TestMirrorAMDModels(t *testing.T) {
	_, git := mirrorGit(t)
	commits := strings.Fields(string(git("log", "--since=2026-06-01", "--format=%H", "843c6254", "--", AMDModelsPath)))
	if len(commits) == 0 {
		t.Fatal("no commits")
	}
	first := strings.TrimSpace(string(git("log", "-1", "--format=%H", commits[len(commits)-1]+"^", "--", AMDModelsPath)))
	commits = append(commits, first)
	seen := map[string]bool{}
	for _, c := range commits {
		src := git("show", c+":"+AMDModelsPath)
		words, lines := pythonCWords(t, src)
		found := false
		for i, raw := range words {
			if !strings.Contains(raw, "models.yaml") {
				continue
			}
			found = true
			v, ok := amdVersionOf(raw)
			if !ok {
				t.Errorf("%s %s:%d: the loader's text (sha256 %s) is in no version of the table", c[:9], AMDModelsPath, lines[i], Hash([]byte(raw)))
				continue
			}
			seen[v.ID] = true
			// the prints of the text, in order
			var names []string
			for _, l := range strings.Split(raw, "\n") {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "print(f'") && strings.Contains(l, `=\"{`) {
					n := strings.TrimPrefix(l, "print(f'")
					names = append(names, n[:strings.Index(n, "=")])
				}
			}
			var have []string
			for _, it := range v.items {
				have = append(have, it.name)
			}
			if strings.Join(names, " ") != strings.Join(have, " ") {
				t.Errorf("%s: %s prints\n%v\nthe text prints\n%v", c[:9], v.ID, have, names)
			}
			ymlPath := "benchmarks/multi_node/amd_utils/models.yaml"
			yml := git("show", c+":"+ymlPath)
			models, err := amdLoad(yml)
			if err != nil {
				t.Errorf("%s: %v", c[:9], err)
				continue
			}
			for _, k := range models.keys {
				vars := map[string]string{"MODELS_YAML": "/m", "MODEL_NAME": k.s}
				lookup := func(n string) (string, bool) { x, ok := vars[n]; return x, ok }
				w, err := amdExpandWord(raw, lookup)
				if err != nil {
					t.Fatal(err)
				}
				out, err := v.run(AMDModelsInput{Raw: raw, Expanded: w.text, Var: lookup, Getenv: envLookup([]string{"MORI_MAX_DISPATCH_TOKENS_PREFILL=8192", "PREFILL_TP_SIZE=8", "MORI_MAX_DISPATCH_TOKENS_DECODE=64", "DECODE_TP_SIZE=8"}),
					ReadFile: func(string) ([]byte, error) { return yml, nil }})
				if err != nil || out.Status != 0 || strings.Contains(out.Stdout, "ERROR") {
					t.Errorf("%s %s: %v %+v", c[:9], k.s, err, out)
				}
			}
		}
		if !found {
			t.Errorf("%s: %s has no models.yaml loader", c[:9], AMDModelsPath)
		}
	}
	for _, v := range amdModelsVersions() {
		if !seen[v.ID] {
			t.Errorf("%s is in the table but in no commit since 2026-06-01", v.ID)
		}
	}
}

// mirrorGit is the fetched InferenceX mirror (testutil.MirrorInferenceX;
// the test skips without it) and a runner of git on it that fails the
// test on error.
func mirrorGit(t *testing.T) (string, func(args ...string) []byte) {
	t.Helper()
	gitDir := testutil.MirrorGitDir(t, testutil.MirrorInferenceX)
	return gitDir, func(args ...string) []byte {
		t.Helper()
		out, err := exec.Command("git", append([]string{"--git-dir", gitDir}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return out
	}
}

// envLookup is a Getenv over env ("NAME=value", the last one wins).
func envLookup(env []string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		value, ok := "", false
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				value, ok = v, true
			}
		}
		return value, ok
	}
}
