package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

const featuresJSX = "../../cookbook/testdata/features.jsx"

func TestDecodeCLIText(t *testing.T) {
	var out, errb bytes.Buffer
	// Default selection: cell 0, point 0, measured router and tier
	// (sglang, mooncake) of the fixture.
	if code := run([]string{"decode", featuresJSX}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// The header: cell 0 tiny-mooncake#0, its point 0 (concs [1]), the
	// submitted router sglang and the point's kv mooncake.
	want := "# " + featuresJSX + " cell 0 tiny-mooncake#0 · point 0 (conc 1) · router sglang (measured) · KV mooncake (measured)\n\n" +
		"# Mooncake master\nmooncake_master \\\n  --port 8700\n\n" +
		"# Mooncake store\nulimit -n 1048576\nulimit -l unlimited\nMC_X=1 \\\nMOONCAKE_MASTER=\"$MOONCAKE_MASTER_IP:8700\" \\\npython -m mooncake.mooncake_store_service \\\n  --port 8800\n\n" +
		"# Worker\nA_VAR=1 \\\nB_VAR=2 \\\npython3 -m sglang.launch_server \\\n  --model-path org/Tiny-FP8 \\\n  --host 0.0.0.0 \\\n  --port 30000 \\\n  --enable-unified-cache-external-linker \\\n  --mem-fraction-static 0.9 \\\n  --trust-remote-code\n"
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}

	out.Reset()
	if code := run([]string{"decode", featuresJSX, "--cell", "tiny-disagg#0", "--router", "sglang", "--kv", "none"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// tiny-disagg#0 submitted dynamo; its point 0 measured kv none.
	if !strings.HasPrefix(out.String(), "# "+featuresJSX+" cell 1 tiny-disagg#0 · point 0 (conc 4) · router sglang (derived; measured dynamo) · KV none (measured)\n\n# Prefill worker\npython3 -m sglang.launch_server \\\n") ||
		!strings.Contains(out.String(), "\n\n# SGLang router (OpenAI API)\n") {
		t.Errorf("cell by id:\n%s", out.String())
	}
}

// TestDecodeCLIJSON: --format json is always an array of oracle objects:
// one element for one selection, one per selection with --all (the same
// objects, in the same order, as --all --format jsonl).
func TestDecodeCLIJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"decode", featuresJSX, "--cell", "1", "--format", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	if !strings.HasPrefix(s, "[\n  {\n    \"file\": ") || !strings.HasSuffix(s, "\n  }\n]\n") {
		t.Errorf("one selection is not a one-element array:\n%s", s)
	}
	for _, w := range []string{`"cellId": "tiny-disagg#0"`, `"router": "dynamo"`, `"kv": "none"`, `"measured": true`,
		`"role": null`, `"copyAll": "# Set per node before running the commands below\nexport ETCD_IP=<node running etcd>`} {
		if !strings.Contains(s, w) {
			t.Errorf("json output lacks %s:\n%s", w, s)
		}
	}
	var one []struct {
		CellID, Router, KV string
		Cell, Point        int
		Measured           bool
	}
	if err := json.Unmarshal(out.Bytes(), &one); err != nil {
		t.Fatalf("not a JSON array: %v", err)
	}
	if len(one) != 1 || one[0].CellID != "tiny-disagg#0" || one[0].Cell != 1 || one[0].Point != 0 ||
		one[0].Router != "dynamo" || one[0].KV != "none" || !one[0].Measured {
		t.Errorf("one selection: %+v", one)
	}

	out.Reset()
	if code := run([]string{"decode", featuresJSX, "--all", "--format", "jsonl"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 18 {
		t.Errorf("--all jsonl: %d lines, want 18", len(lines))
	}
	out.Reset()
	if code := run([]string{"decode", featuresJSX, "--all", "--format", "json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var all []json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &all); err != nil {
		t.Fatalf("--all json is not a JSON array: %v", err)
	}
	if len(all) != len(lines) {
		t.Fatalf("--all json: %d elements, jsonl %d lines", len(all), len(lines))
	}
	for i := range all {
		var compact bytes.Buffer
		if err := json.Compact(&compact, all[i]); err != nil {
			t.Fatal(err)
		}
		if compact.String() != lines[i] {
			t.Errorf("--all json element %d differs from jsonl line %d:\n%s\n%s", i, i, compact.String(), lines[i])
		}
	}
}

func TestDecodeCLIBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsx")
	if err := os.WriteFile(bad, []byte("// x\nexport const agentz = {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"decode", bad},
		{"decode", filepath.Join(dir, "missing.jsx")},
		{"decode", featuresJSX, "--format", "yaml"},
		{"decode", featuresJSX, "--router", "vllm"},
		{"decode", featuresJSX, "--kv", "disk"},
		{"decode", featuresJSX, "--cell", "99"},
		{"decode", featuresJSX, "--cell", "no-such-cell"},
		{"decode", featuresJSX, "--cell", "#0"}, // two cells end in #0
		{"decode", featuresJSX, "--cell", "#1"},
		{"decode", featuresJSX, "--point", "7"},
		{"decode", featuresJSX, "--kv", "hicache"}, // unavailable for cell 0
		{"decode", featuresJSX, "--all", "--cell", "1"},
		{"decode"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if out.Len() != 0 {
			t.Errorf("%v: wrote output on error: %q", args, out.String())
		}
	}
	// Both cells of the fixture end in #0: the suffix is ambiguous.
	var out, errb bytes.Buffer
	run([]string{"decode", featuresJSX, "--cell", "#0"}, &out, &errb)
	if want := `--cell "#0" is ambiguous: tiny-mooncake#0 (index 0), tiny-disagg#0 (index 1); give the full cell id or the index`; !strings.Contains(errb.String(), want) {
		t.Errorf("ambiguous suffix: %q, want %q", errb.String(), want)
	}
	errb.Reset()
	run([]string{"decode", featuresJSX, "--cell", "#1"}, &out, &errb)
	if want := `--cell "#1": no cell id ends in #1 (cells: tiny-mooncake#0, tiny-disagg#0)`; !strings.Contains(errb.String(), want) {
		t.Errorf("unknown suffix: %q, want %q", errb.String(), want)
	}
	errb.Reset()
	run([]string{"decode", bad}, &out, &errb)
	if !strings.Contains(errb.String(), "bad.jsx:2:14:") {
		t.Errorf("error lacks file:line:col: %q", errb.String())
	}
}

// TestGoldenDecodeCLI: `decode --all --format jsonl FILE` equals the golden
// file byte for byte, for every golden under ../shared/golden/agentx.
func TestGoldenDecodeCLI(t *testing.T) {
	golden := testutil.SharedPath(t, "golden/agentx")
	snip := testutil.SharedPath(t, "corpus/sglang/docs/src/snippets/agentx")
	files, err := filepath.Glob(filepath.Join(golden, "*", "*.jsx.golden.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no goldens: %v", err)
	}
	for _, g := range files {
		rel, _ := filepath.Rel(golden, strings.TrimSuffix(g, ".golden.jsonl"))
		want, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := run([]string{"decode", "--all", "--format", "jsonl", filepath.Join(snip, rel)}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", rel, code, errb.String())
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: output differs from the golden file", rel)
		}
	}
}

// TestGoldenDecodeCLITextHeader: `decode --cell '#6'` on the corpus
// qwen3.5.jsx picks the only cell whose id ends in #6, and the text output
// is the header naming the oracle's measured selection of that cell
// (cell, cellId, point 0, router, kv) followed by the oracle's blocks.
func TestGoldenDecodeCLITextHeader(t *testing.T) {
	snip := testutil.SharedPath(t, "corpus/sglang/docs/src/snippets/agentx/Qwen/qwen3.5.jsx")
	golden, err := os.ReadFile(testutil.SharedPath(t, "golden/agentx/Qwen/qwen3.5.jsx.golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	type block struct{ Title, Text string }
	var want *struct {
		File, CellID, Router, KV string
		Cell, Point              int
		Measured                 bool
		Blocks                   []block
	}
	for _, line := range bytes.Split(golden, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var g struct {
			File, CellID, Router, KV string
			Cell, Point              int
			Measured                 bool
			Blocks                   []block
		}
		if err := json.Unmarshal(line, &g); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(g.CellID, "#6") && g.Point == 0 && g.Measured {
			want = &g
			break
		}
	}
	if want == nil {
		t.Fatal("golden has no measured point 0 of a cell ending in #6")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"decode", snip, "--cell", "#6"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// concs [72]: cells[19].points[0] of the corpus file.
	head := fmt.Sprintf("# %s cell %d %s · point 0 (conc 72) · router %s (measured) · KV %s (measured)\n\n", want.File, want.Cell, want.CellID, want.Router, want.KV)
	var blocks []string
	for _, b := range want.Blocks {
		blocks = append(blocks, "# "+b.Title+"\n"+b.Text)
	}
	if exp := head + strings.Join(blocks, "\n\n") + "\n"; out.String() != exp {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), exp)
	}
}

// TestDecodeCLIHostileInput: a patch-entry key typo is an input error with
// file:line:col and JSON path (exit 2, nothing on stdout); a FIFO is refused
// without blocking (launch.ReadInput); a files key whose hash does not match
// its content is a warning on stderr and the commands are still printed
// (exit 0).
func TestDecodeCLIHostileInput(t *testing.T) {
	src, err := os.ReadFile(featuresJSX)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.jsx")
	const old = `{"args": {"--mem-fraction-static": ["0.8"]`
	if !bytes.Contains(src, []byte(old)) {
		t.Fatal("fixture changed")
	}
	bad := bytes.Replace(src, []byte(old), []byte(`{"argz": {"--mem-fraction-static": ["0.8"]`), 1)
	if err := os.WriteFile(typo, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	// Line and column of the "argz" key, computed from the fixture text.
	line := bytes.Count(bad[:bytes.Index(bad, []byte(`"argz"`))], []byte("\n")) + 1
	col := bytes.Index(bad, []byte(`"argz"`)) - bytes.LastIndexByte(bad[:bytes.Index(bad, []byte(`"argz"`))], '\n')
	var out, errb bytes.Buffer
	if code := run([]string{"decode", "--point", "2", typo}, &out, &errb); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	want := fmt.Sprintf("cookbook-sync: %s:%d:%d: cells[0].points[2].patch.sglang[2].argz: unknown diff key \"argz\" (want args and/or env, or block)\n", typo, line, col)
	if errb.String() != want || out.Len() != 0 {
		t.Errorf("stderr %q\nwant   %q\nstdout %q", errb.String(), want, out.String())
	}

	fifo := filepath.Join(dir, "fifo.jsx")
	if err := mkfifo(fifo); err == nil {
		out.Reset()
		errb.Reset()
		if code := run([]string{"decode", fifo}, &out, &errb); code != 2 || errb.String() != "cookbook-sync: "+fifo+": not a regular file\n" {
			t.Errorf("fifo: exit %d, stderr %q", code, errb.String())
		}
	}

	// Break the hash of the first files key.
	i := bytes.Index(src, []byte(`"files": {`))
	j := bytes.IndexByte(src[i:], '#') + i + 1
	hashed := append(append(bytes.Clone(src[:j]), "00000000"...), src[j+8:]...)
	key := string(hashed[bytes.LastIndexByte(hashed[:j], '"')+1 : j+8])
	hf := filepath.Join(dir, "hash.jsx")
	if err := os.WriteFile(hf, hashed, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"decode", hf}, &out, &errb); code != 0 || out.Len() == 0 {
		t.Fatalf("bad hash: exit %d, stdout %d bytes, stderr %s", code, out.Len(), errb.String())
	}
	if !strings.HasPrefix(errb.String(), "cookbook-sync: warning: "+hf+":") ||
		!strings.Contains(errb.String(), fmt.Sprintf(`files[%q]: hash "00000000" does not match the content`, key)) {
		t.Errorf("bad hash warning: %q", errb.String())
	}
}

// TestHelpExitStatus: decode, generate and recipes document their exit
// status (0/1/2 as in main.go; these commands never exit 1).
func TestHelpExitStatus(t *testing.T) {
	for _, cmd := range [][]string{{"decode", "--help"}, {"generate", "--help"}, {"recipes", "--help"}, {"recipes", "decode", "--help"}} {
		var out, errb bytes.Buffer
		if code := run(cmd, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d", cmd, code)
		}
		s := out.String()
		i := strings.Index(s, "\nExit status:\n  0  ")
		if i < 0 || !strings.Contains(s[i:], "\n  2  bad ") {
			t.Errorf("%v: no Exit status section with 0 and 2:\n%s", cmd, s)
		}
	}
}

// pagesFixture writes a tiny hand-written sglang docs checkout (a
// deployment component in the shape of _deployment.jsx: option buttons,
// run-mode tabs, badge, command; one config; one page passing it) into a
// temp dir.
func pagesFixture(t *testing.T, config string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"docs/src/snippets/_deployment.jsx": `export const Deployment = ({ config }) => {
  const overlayDimSpecs = config.overlayDims || [];
  const optionVisible = (o, s) => typeof o.showWhen !== "function" || o.showWhen(s);
  const findCell = (cells, sel) => cells.find((c) => c.match.hw === sel.hw);
  const renderCommand = (cell, sel, mode) => {
    const flags = overlayDimSpecs.flatMap((spec) => {
      const o = spec.options.find((x) => x.id === sel[spec.id]);
      return (o && o.flags) || [];
    });
    const cmd = "sglang serve " + [...cell.flags, ...flags].join(" ");
    return mode === "docker" ? "docker run img \\\n  " + cmd : cmd;
  };
  const initial = () => {
    const sel = { hw: config.cells[0].match.hw };
    for (const spec of overlayDimSpecs) sel[spec.id] = spec.options[0].id;
    return sel;
  };
  const [sel, setSel] = useState(() => initial());
  const [runMode, setRunMode] = useState("python");
  const cell = findCell(config.cells, sel);
  const button = (dim, id) => (
    <label key={id} onClick={() => setSel((prev) => ({ ...prev, [dim]: id }))}>
      <input type="radio" checked={sel[dim] === id} readOnly />
      <span>{id}</span>
    </label>
  );
  return (
    <div>
      <div>{config.cells.map((c) => button("hw", c.match.hw))}</div>
      {overlayDimSpecs.map((spec) => (
        <div key={spec.id}>{spec.options.filter((o) => optionVisible(o, sel)).map((o) => button(spec.id, o.id))}</div>
      ))}
      {cell && (
        <div>
          <div>
            <div>{cell.verified ? "Verified" : "Not Verified"}</div>
            <div role="tablist">
              {["python", "docker"].map((m) => <span key={m} role="tab" onClick={() => setRunMode(m)}>{m}</span>)}
            </div>
          </div>
          <pre>{renderCommand(cell, sel, runMode)}</pre>
        </div>
      )}
    </div>
  );
};
`,
		"docs/src/snippets/configs/acme/m.jsx":    config,
		"docs/cookbook/autoregressive/Acme/M.mdx": "import { config } from \"/src/snippets/configs/acme/m.jsx\";\n\n<Deployment config={config} />\n",
	}
	for n, d := range files {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDecodePages(t *testing.T) {
	dir := pagesFixture(t, `export const config = { cells: [
  { match: { hw: "h100" }, verified: true, flags: ["--tp 1"] },
  { match: { hw: "b200" }, flags: ["--tp 2"] },
] };
`)
	page := filepath.Join(dir, "docs/cookbook/autoregressive/Acme/M.mdx")
	code, out, errs := runCLI("decode", page)
	want := "# docs/src/snippets/configs/acme/m.jsx · hw=h100 · cell 0 · verified · python\n" +
		"# https://docs.sglang.io/cookbook/autoregressive/Acme/M#hw=h100\n" +
		"sglang serve --tp 1\n\n" +
		"# docs/src/snippets/configs/acme/m.jsx · hw=h100 · cell 0 · verified · docker\n" +
		"# https://docs.sglang.io/cookbook/autoregressive/Acme/M#hw=h100\n" +
		"docker run img \\\n  sglang serve --tp 1\n"
	if code != 0 || out != want || errs != "" {
		t.Fatalf("default: %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = runCLI("decode", "--all", "--format", "jsonl", filepath.Join(dir, "docs/src/snippets/configs/acme/m.jsx"))
	wantL := `{"file":"docs/src/snippets/configs/acme/m.jsx","kind":"config","cell":1,"selection":{"hw":"b200"},"verified":"unverified","mode":"python","command":"sglang serve --tp 2"}`
	if code != 0 || strings.Count(out, "\n") != 4 || !strings.Contains(out, wantL+"\n") {
		t.Fatalf("--all jsonl: %d\n%s", code, out)
	}
	code, out, _ = runCLI("decode", "--selection", "hw=b200", "--format", "json", page)
	if code != 0 || !strings.Contains(out, `"url": "https://docs.sglang.io/cookbook/autoregressive/Acme/M#hw=b200"`) || strings.Count(out, `"mode"`) != 2 {
		t.Fatalf("--selection json: %d\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--selection", "hw=x"}, `--selection "hw=x" matches no selection: hw=x is not an option (h100, b200) (e.g. hw=h100)`},
		{[]string{"--selection", "hw"}, `--selection "hw": want k=v`},
		{[]string{"--all", "--selection", "hw=h100"}, "cannot be combined with --selection"},
		{[]string{"--cell", "0"}, "--cell is for AgentX snippets"},
	} {
		code, out, errs := runCLI(append(append([]string{"decode"}, c.args...), page)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: %d %q %q", c.args, code, out, errs)
		}
	}
}

func TestDecodePagesBadInput(t *testing.T) {
	dir := pagesFixture(t, "export const config = { cells: [] };\n\nthrow new Error(\"bad page\");\n")
	code, out, errs := runCLI("decode", filepath.Join(dir, "docs/cookbook/autoregressive/Acme/M.mdx"))
	if code != 2 || out != "" || !strings.Contains(errs, "docs/src/snippets/configs/acme/m.jsx:3:") || !strings.Contains(errs, "bad page") {
		t.Fatalf("throwing config: %d %q %q", code, out, errs)
	}
	code, _, errs = runCLI("decode", filepath.Join(t.TempDir(), "x.mdx"))
	if code != 2 || !strings.Contains(errs, "not inside an sglang checkout") {
		t.Fatalf("outside a checkout: %d %q", code, errs)
	}
}
