package pages

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

// tinyRoot extracts testdata/tiny.txtar (plus extra files) into a temp dir.
func tinyRoot(t testing.TB, extra map[string]string) string {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/tiny.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range ar.Files {
		write(f.Name, string(f.Data))
	}
	for n, d := range extra {
		write(n, d)
	}
	return dir
}

func TestLoadTiny(t *testing.T) {
	root := tinyRoot(t, nil)
	set, err := Load(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Errors) > 0 {
		t.Fatalf("errors: %v", set.Errors)
	}
	wantFiles := []string{"docs/src/snippets/autoregressive/tiny-deployment.jsx", "docs/src/snippets/configs/acme/tiny.jsx"}
	if strings.Join(set.Files, " ") != strings.Join(wantFiles, " ") {
		t.Fatalf("files %q, want %q", set.Files, wantFiles)
	}
	cfg := set.Selections["docs/src/snippets/configs/acme/tiny.jsx"]
	var got []string
	for _, s := range cfg {
		got = append(got, s.Hash()+" "+s.Mode)
	}
	want := []string{
		"hw=h100&variant=base&spec=off python", "hw=h100&variant=base&spec=off docker",
		"hw=h100&variant=base&spec=mtp python", "hw=h100&variant=base&spec=mtp docker",
		"hw=mi300x&variant=base&spec=off python", "hw=mi300x&variant=base&spec=off docker",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("config selections:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s := cfg[2]
	if s.Command != "sglang serve \\\n  --model-path acme/Tiny \\\n  --tp 1 \\\n  --speculative-algorithm EAGLE" ||
		s.Cell != 0 || s.Verified != "verified" || s.Kind != "config" ||
		s.Page != "docs/cookbook/autoregressive/Acme/Tiny.mdx" ||
		s.URL != "https://docs.sglang.io/cookbook/autoregressive/Acme/Tiny#hw=h100&variant=base&spec=mtp" {
		t.Errorf("selection 2: %+v", s)
	}
	if cfg[4].Cell != 1 || cfg[4].Verified != "unverified" {
		t.Errorf("mi300x: cell %d %q", cfg[4].Cell, cfg[4].Verified)
	}
	gj, err := s.GoldenJSON()
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"file":"docs/src/snippets/configs/acme/tiny.jsx","kind":"config","cell":0,"selection":{"hw":"h100","variant":"base","spec":"mtp"},"verified":"verified","mode":"python","command":"sglang serve \\\n  --model-path acme/Tiny \\\n  --tp 1 \\\n  --speculative-algorithm EAGLE"}`
	if string(gj) != wantJSON {
		t.Errorf("golden JSON\n%s\nwant\n%s", gj, wantJSON)
	}

	gen := set.Selections["docs/src/snippets/autoregressive/tiny-deployment.jsx"]
	got = nil
	for _, s := range gen {
		got = append(got, s.Hash()+" | "+s.Command)
	}
	want = []string{
		"hardware=h100&quantization=bf16&extras=tools | sglang serve --hw h100 --quant bf16 --extras tools",
		"hardware=h100&quantization=bf16&extras=tools%2Creasoning | sglang serve --hw h100 --quant bf16 --extras tools+reasoning",
		"hardware=b200&quantization=bf16&extras=tools | sglang serve --hw b200 --quant bf16 --extras tools",
		"hardware=b200&quantization=bf16&extras=tools%2Creasoning | sglang serve --hw b200 --quant bf16 --extras tools+reasoning",
		"hardware=b200&quantization=fp4&extras=tools | sglang serve --hw b200 --quant fp4 --extras tools",
		"hardware=b200&quantization=fp4&extras=tools%2Creasoning | sglang serve --hw b200 --quant fp4 --extras tools+reasoning",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("generator selections:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if gen[0].Cell != -1 || gen[0].URL != "https://docs.sglang.io/cookbook/autoregressive/Acme/Tiny-Gen#hardware=h100&quantization=bf16&extras=tools" {
		t.Errorf("generator row 0: %+v", gen[0])
	}
	if ps := set.Pages["docs/cookbook/autoregressive/Acme/Tiny.mdx"]; len(ps) != 1 || ps[0] != "docs/src/snippets/configs/acme/tiny.jsx" {
		t.Errorf("pages: %v", set.Pages)
	}
}

func TestDecodeFileLayouts(t *testing.T) {
	root := tinyRoot(t, nil)
	ctx := context.Background()
	// the .mdx page, given relative to the repository root
	sels, err := DecodeFile(ctx, root, "docs/cookbook/autoregressive/Acme/Tiny.mdx", Options{})
	if err != nil || len(sels) != 6 || sels[0].Page != "docs/cookbook/autoregressive/Acme/Tiny.mdx" {
		t.Fatalf("mdx: %d %v", len(sels), err)
	}
	// the docs/ directory as root, the snippet as an absolute path
	sels, err = DecodeFile(ctx, filepath.Join(root, "docs"), filepath.Join(root, "docs/src/snippets/autoregressive/tiny-deployment.jsx"), Options{})
	if err != nil || len(sels) != 6 || sels[0].File != "docs/src/snippets/autoregressive/tiny-deployment.jsx" ||
		sels[0].Page != "docs/cookbook/autoregressive/Acme/Tiny-Gen.mdx" {
		t.Fatalf("docs-dir root: %d %v %+v", len(sels), err, sels)
	}
	if _, err := DecodeFile(ctx, t.TempDir(), "x.jsx", Options{}); err == nil {
		t.Error("a directory that is no checkout: no error")
	}
	if _, err := DecodeFile(ctx, root, "docs/src/snippets/configs/acme/tiny-benchmarks.jsx", Options{}); err == nil ||
		!strings.Contains(err.Error(), "not a deployment snippet") {
		t.Errorf("benchmarks file: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := DecodeFile(cctx, root, "docs/src/snippets/configs/acme/tiny.jsx", Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ctx: %v", err)
	}
}

// TestHostilePages: page code that loops, throws, allocates without bound
// or reaches for the host is contained: each such file is an error naming
// it, and the other files still decode.
func TestHostilePages(t *testing.T) {
	const cfg = "docs/src/snippets/configs/evil/"
	const gen = "docs/src/snippets/autoregressive/"
	files := map[string]string{
		cfg + "loop.jsx":            "export const config = { cells: [] };\nwhile (true) {}\n",
		cfg + "throws.jsx":          "export const config = { cells: [] };\n\nthrow new Error(\"boom\");\n",
		cfg + "getter.jsx":          "export const config = { get cells() { return null.x; } };\n",
		cfg + "bigstring.jsx":       "const s = \"x\".repeat(1 << 30);\nexport const config = { cells: [] };\n",
		cfg + "bigarray.jsx":        "const a = [];\nwhile (true) a.push(new Array(1 << 16).fill(\"yyyyyyyy\"));\nexport const config = { cells: [] };\n",
		cfg + "doubling.jsx":        "let s = \"x\";\nwhile (true) s += s;\nexport const config = { cells: [] };\n",
		cfg + "require.jsx":         "const fs = require('fs');\nexport const config = { cells: [] };\n",
		cfg + "import.jsx":          "import fs from 'fs';\nexport const config = { cells: fs.readdirSync('/') };\n",
		cfg + "process.jsx":         "process.exit(1);\nexport const config = { cells: [] };\n",
		cfg + "fetch.jsx":           "fetch('http://127.0.0.1:1/');\nexport const config = { cells: [] };\n",
		cfg + "global.jsx":          "const g = globalThis.constructor.constructor('return this')();\ng.process.mainModule.require('child_process');\nexport const config = { cells: [] };\n",
		cfg + "recurse.jsx":         "const f = (n) => f(n + 1) + 1;\nf(0);\nexport const config = { cells: [] };\n",
		cfg + "showwhen.jsx":        "export const config = { overlayDims: [{ id: 'x', options: [{ id: 'a', showWhen: () => { for (;;) {} } }] }], cells: [{ match: { hw: 'h100', variant: 'base' }, flags: [] }] };\n",
		gen + "evil-deployment.jsx": "export const EvilDeployment = () => {\n  const options = { a: { name: 'a', items: [{ id: 'x' }] } };\n  const [values] = useState({ a: 'x' });\n  const generateCommand = () => { while (true) {} };\n  return (\n    <div/>\n  );\n};\n",
	}
	files[cfg+"evalcall.jsx"] = "eval('while (true) {}');\nexport const config = { cells: [] };\n"
	files[cfg+"newfunc.jsx"] = "const f = (function* () {}).constructor('while (true) {}');\nexport const config = { cells: [] };\n"
	// sloppy-mode code (a generator body is not strict): with is refused
	files[gen+"with-deployment.jsx"] = "export const WithDeployment = () => {\nwith ({}) { }\n  return (\n    <div/>\n  );\n};\n"
	files[cfg+"with.jsx"] = "export const config = { cells: [] };\nwith ({}) {}\n"
	// the step counter can be neither replaced nor deleted
	files[cfg+"counter.jsx"] = "for (const k of Object.getOwnPropertyNames(globalThis)) { try { globalThis[k] = () => {}; } catch (e) {} try { delete globalThis[k]; } catch (e) {} }\nlet n = 0; for (;;) n++;\nexport const config = { cells: [] };\n"
	// recursion through expression-bodied arrows counts steps too
	files[cfg+"arrowloop.jsx"] = "const f = (n) => n > 0 ? f(n - 1) + f(n - 1) : 0;\nf(40);\nexport const config = { cells: [] };\n"
	files[cfg+"dynimport.jsx"] = "const p = import('fs');\nexport const config = { cells: [] };\n"
	root := tinyRoot(t, files)
	start := time.Now()
	// (a 32 MB memory bound, a backstop only: bigarray.jsx is refused by
	// its count first, 1 Mi asked of the builtins, some 8 MB; doubling.jsx
	// by the guarded + at 32 Mi units)
	set, err := Load(context.Background(), root, Options{MaxSteps: 2_000_000, MaxHeapGrowth: 32 << 20, MaxAllocation: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("hostile run took %v", time.Since(start))
	for _, e := range set.Errors {
		t.Logf("contained: %v", e)
	}
	want := map[string]string{
		"loop.jsx":      "loop.jsx: page code ran out of steps: more than 2000000 steps",
		"throws.jsx":    "throws.jsx:3:",
		"getter.jsx":    "TypeError",
		"bigstring.jsx": "over the sandbox bound",
		"bigarray.jsx":  "bigarray.jsx:2:20: page code asked for more memory than the sandbox allows: Array(n) brings what the file asked of the builtins to 1114112 elements",
		"doubling.jsx":  "doubling.jsx:2:13: page code asked for more memory than the sandbox allows: + of a string of 33554432 units, over the bound of 16777216 (Options.MaxString)",
		"require.jsx":   `import of "fs" is not available to page code`,
		"import.jsx":    `import of "fs" is not available to page code`,
		"process.jsx":   "ReferenceError: process is not defined",
		"fetch.jsx":     "ReferenceError: fetch is not defined",
		"global.jsx":    "EvalError: code compiled at run time is not available to page code",
		"evalcall.jsx":  "EvalError: code compiled at run time is not available to page code",
		"newfunc.jsx":   "EvalError: code compiled at run time is not available to page code",
		"with.jsx":      "with.jsx:2:1: With statements cannot be used in an ECMAScript module",
		"counter.jsx":   "counter.jsx: page code ran out of steps",
		"arrowloop.jsx": "arrowloop.jsx: page code ran out of steps",
		"recurse.jsx":   "recurse.jsx",
		"showwhen.jsx":  "showwhen.jsx: page code ran out of steps",
	}
	for name, sub := range want {
		e := set.Errors[cfg+name]
		if e == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		var fe *FileError
		if !errors.As(e, &fe) || fe.File != cfg+name {
			t.Errorf("%s: error %v does not name the file", name, e)
		}
		if !strings.Contains(e.Error(), sub) {
			t.Errorf("%s: error %q, want it to contain %q", name, e, sub)
		}
	}
	// a generateCommand that loops: the interrupt cannot be caught by the
	// page's (or the driver's) try/catch, so the file is an error
	if e := set.Errors[gen+"evil-deployment.jsx"]; e == nil || e.Error() != gen+"evil-deployment.jsx: page code ran out of steps: more than 2000000 steps (loop iterations and function calls)" {
		t.Errorf("evil generator: %v", e)
	}
	if e := set.Errors[gen+"with-deployment.jsx"]; e == nil || !errors.Is(e, ErrWith) || !strings.HasPrefix(e.Error(), gen+"with-deployment.jsx:2") {
		t.Errorf("with in a generator: %v", e)
	}
	// import('x'): goja has no dynamic import; the file is an error, named
	if e := set.Errors[cfg+"dynimport.jsx"]; e == nil || !strings.HasPrefix(e.Error(), cfg+"dynimport.jsx: ") {
		t.Errorf("dynimport: %v", e)
	}
	// the well-behaved files still decode
	if n := len(set.Selections["docs/src/snippets/configs/acme/tiny.jsx"]); n != 6 {
		t.Errorf("tiny config: %d selections, want 6", n)
	}
	if n := len(set.Selections[gen+"tiny-deployment.jsx"]); n != 6 {
		t.Errorf("tiny generator: %d selections, want 6", n)
	}
}

// BenchmarkDecodeAllPages decodes every snippet file of the corpus checkout
// (79 at sglang docs @6c749811).
func BenchmarkDecodeAllPages(b *testing.B) {
	_, root := goldenPaths(b)
	for b.Loop() {
		set, err := Load(context.Background(), root, Options{})
		if err != nil || len(set.Errors) > 0 {
			b.Fatal(err, set.Errors)
		}
		b.ReportMetric(float64(len(set.Files)), "files")
	}
}

// TestStepsCountWork: the step count of a file is a property of the file —
// the same whether files run one at a time or several at once, and
// whatever else runs — and a file whose work is long but inside its budget
// decodes exactly like a fast one.
func TestStepsCountWork(t *testing.T) {
	const slow = "docs/src/snippets/configs/acme/slow.jsx"
	tiny, err := os.ReadFile("testdata/tiny.txtar")
	if err != nil {
		t.Fatal(err)
	}
	ar := txtar.Parse(tiny)
	var cfgSrc string
	for _, f := range ar.Files {
		if f.Name == "docs/src/snippets/configs/acme/tiny.jsx" {
			cfgSrc = string(f.Data)
		}
	}
	// the tiny config, after a loop of 300,000 iterations, and as is (no
	// page imports either: both rendered with {config})
	const fast = "docs/src/snippets/configs/acme/fast.jsx"
	root := tinyRoot(t, map[string]string{slow: "let n = 0;\nfor (let i = 0; i < 300000; i++) n += i;\n" + cfgSrc, fast: cfgSrc})
	a, err := Load(context.Background(), root, Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Load(context.Background(), root, Options{Parallel: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Errors)+len(b.Errors) > 0 {
		t.Fatalf("errors: %v %v", a.Errors, b.Errors)
	}
	for _, f := range a.Files {
		if a.Steps[f] == 0 || a.Steps[f] != b.Steps[f] {
			t.Errorf("%s: %d steps alone, %d in parallel", f, a.Steps[f], b.Steps[f])
		}
	}
	if d := a.Steps[slow] - a.Steps[fast]; d < 300000 || d > 300010 {
		t.Errorf("the loop of 300,000 iterations cost %d more steps", d)
	}
	if len(a.Selections[slow]) != 6 {
		t.Errorf("slow config: %d selections, want 6", len(a.Selections[slow]))
	}
	// one step short of what the file needs: out of steps, on every machine
	c, err := Load(context.Background(), root, Options{MaxSteps: a.Steps[slow] - 1})
	if err != nil {
		t.Fatal(err)
	}
	if e := c.Errors[slow]; !errors.Is(e, ErrSteps) {
		t.Errorf("budget one short: %v", e)
	}
	if _, ok := c.Errors["docs/src/snippets/configs/acme/tiny.jsx"]; ok {
		t.Errorf("the tiny config needs fewer steps, yet: %v", c.Errors)
	}
}

// TestBackstopIsTimeLimit: the wall-clock backstop is its own outcome,
// ErrTimeLimit, never ErrSteps or another page error.
func TestBackstopIsTimeLimit(t *testing.T) {
	const loop = "docs/src/snippets/configs/evil/loop.jsx"
	root := tinyRoot(t, map[string]string{loop: "export const config = { cells: [] };\nwhile (true) {}\n"})
	set, err := Load(context.Background(), root, Options{Backstop: 20 * time.Millisecond, MaxSteps: 1 << 62})
	if err != nil {
		t.Fatal(err)
	}
	e := set.Errors[loop]
	if !errors.Is(e, ErrTimeLimit) || errors.Is(e, ErrSteps) || !strings.HasPrefix(e.Error(), loop+": time limit — re-run") {
		t.Errorf("backstop: %v", e)
	}
}

// TestFilesChoosesWhatRuns: Options.Files decides which snippets run; the
// others are NotRun, with neither selections nor errors, and none of their
// code runs (a file that would loop is not an error when not chosen).
func TestFilesChoosesWhatRuns(t *testing.T) {
	const loop = "docs/src/snippets/configs/evil/loop.jsx"
	root := tinyRoot(t, map[string]string{loop: "export const config = { cells: [] };\nwhile (true) {}\n"})
	var (
		mu    sync.Mutex // Files is called from Load's workers, several at once
		asked []string
	)
	set, err := Load(context.Background(), root, Options{Files: func(fi FileInfo) bool {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, fi.Rel+" "+strings.Join(fi.Pages, ","))
		return !strings.Contains(fi.Rel, "/evil/")
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Errors) != 0 || strings.Join(set.NotRun, " ") != loop || len(set.Files) != 2 {
		t.Errorf("errors %v, not run %v, files %v", set.Errors, set.NotRun, set.Files)
	}
	want := "docs/src/snippets/autoregressive/tiny-deployment.jsx docs/cookbook/autoregressive/Acme/Tiny-Gen.mdx|" +
		"docs/src/snippets/configs/acme/tiny.jsx docs/cookbook/autoregressive/Acme/Tiny.mdx|" + loop + " "
	sort.Strings(asked) // asked in the order the workers reach the files
	if got := strings.Join(asked, "|"); got != want {
		t.Errorf("asked:\n%s\nwant:\n%s", got, want)
	}
}

// TestCacheKeyedByContent: a Load with a Cache gives what a Load without
// one gives; a file whose content changed is decoded anew, and a result the
// backstop cut short is not kept.
func TestCacheKeyedByContent(t *testing.T) {
	const cfg = "docs/src/snippets/configs/acme/tiny.jsx"
	const loop = "docs/src/snippets/configs/evil/loop.jsx"
	root := tinyRoot(t, map[string]string{loop: "export const config = { cells: [] };\nwhile (true) {}\n"})
	cache := &Cache{}
	plain, err := Load(context.Background(), root, Options{MaxSteps: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := Load(context.Background(), root, Options{Cache: cache, MaxSteps: 1_000_000})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Selections[cfg]) != 6 || got.Steps[cfg] != plain.Steps[cfg] || got.Selections[cfg][0].URL != plain.Selections[cfg][0].URL ||
			!errors.Is(got.Errors[loop], ErrSteps) || !slices.Equal(got.Info[cfg].Models, plain.Info[cfg].Models) {
			t.Fatalf("cached load: %d selections, %d steps (want %d), loop %v", len(got.Selections[cfg]), got.Steps[cfg], plain.Steps[cfg], got.Errors[loop])
		}
	}
	// the content changes: decoded anew (one selection's worth more steps)
	p := filepath.Join(root, filepath.FromSlash(cfg))
	src, _ := os.ReadFile(p)
	if err := os.WriteFile(p, append([]byte("for (let i = 0; i < 1000; i++) {}\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(context.Background(), root, Options{Cache: cache, MaxSteps: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if got.Steps[cfg] != plain.Steps[cfg]+1000 {
		t.Errorf("changed file: %d steps, want %d", got.Steps[cfg], plain.Steps[cfg]+1000)
	}
	// a backstop result is not kept: with steps to spare the next load
	// gives the step error
	c2 := &Cache{}
	// (a backstop the tiny files, rendered through their component, end
	// well within)
	if set, _ := Load(context.Background(), root, Options{Cache: c2, Backstop: 500 * time.Millisecond, MaxSteps: 1 << 62}); !errors.Is(set.Errors[loop], ErrTimeLimit) {
		t.Fatalf("backstop: %v", set.Errors[loop])
	}
	if set, _ := Load(context.Background(), root, Options{Cache: c2, MaxSteps: 1 << 62, Backstop: 200 * time.Millisecond}); !errors.Is(set.Errors[loop], ErrTimeLimit) {
		t.Errorf("second backstop: %v", set.Errors[loop])
	}
	if len(c2.m) != 2 {
		t.Errorf("cache holds %d results, want the 2 that ended by themselves", len(c2.m))
	}
}
