package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/generate"
)

const generateFixture = "../../generate/testdata/ok"

func generateArgs(out string, extra ...string) []string {
	return append([]string{"generate", "--infx", generateFixture, "--model", "qwen9",
		"--main", "0123456789abcdef0123456789abcdef01234567", "--prs", "4242=89abcdef0123456789abcdef0123456789abcdef",
		"--date", "2026-11-30", "-o", out}, extra...)
}

// TestGenerateCLI: the file is written, parses, decodes, is the same on a
// second run, and the summary names what the exclusion list left out.
func TestGenerateCLI(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "qwen9.jsx")
	var stdout, errb bytes.Buffer
	if code := run(generateArgs(out), &stdout, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(stdout.String(), "wrote "+out+": 4 cells, 4 points,") ||
		!strings.Contains(stdout.String(), "agg: --enable-metrics (collection:") {
		t.Errorf("summary:\n%s", stdout.String())
	}
	first, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cookbook.Parse(out, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Cells) != 4 || f.GeneratedOn != "2026-11-30" || f.Source.PRs["4242"].SHA != "89abcdef0123456789abcdef0123456789abcdef" {
		t.Errorf("cells %d generatedOn %s prs %v", len(f.Cells), f.GeneratedOn, f.Source.PRs)
	}
	if bytes.Contains(first, []byte("--enable-metrics")) {
		t.Error("output contains --enable-metrics")
	}
	stdout.Reset()
	if code := run(generateArgs(out), &stdout, &errb); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errb.String())
	}
	second, _ := os.ReadFile(out)
	if !bytes.Equal(first, second) {
		t.Error("two runs differ")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	// --previous keeps the order and ids; decode the result.
	stdout.Reset()
	out2 := filepath.Join(dir, "again.jsx")
	if code := run(generateArgs(out2, "--previous", out), &stdout, &errb); code != 0 {
		t.Fatalf("--previous: exit %d: %s", code, errb.String())
	}
	third, _ := os.ReadFile(out2)
	if !bytes.Equal(first, third) {
		t.Error("regenerating over the previous output changed it")
	}
	stdout.Reset()
	if code := run([]string{"decode", out, "--cell", "qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#0"}, &stdout, &errb); code != 0 {
		t.Fatalf("decode: exit %d: %s", code, errb.String())
	}
	// decode's text output starts with the selection header, then the blocks.
	if !strings.HasPrefix(stdout.String(), "# "+out+" cell ") || !strings.Contains(stdout.String(), " qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#0 · point 0 (") ||
		!strings.Contains(stdout.String(), "\n\n# etcd — Dynamo control plane\n") {
		t.Errorf("decoded:\n%s", stdout.String())
	}
}

// TestGenerateCLIProvenanceFile: main, PRs and per-key provenance come from
// a YAML file.
func TestGenerateCLIProvenanceFile(t *testing.T) {
	dir := t.TempDir()
	prov := filepath.Join(dir, "prov.yaml")
	os.WriteFile(prov, []byte(`main: 0123456789abcdef0123456789abcdef01234567
generatedOn: 2026-10-08
prs:
  "4242": {sha: 89abcdef0123456789abcdef0123456789abcdef, run: "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/1", status: verified-pr}
keys:
  qwen9-fp4-gb300-sglang-agentic-agg: {sha: fedcba9876543210fedcba9876543210fedcba98, pr: "4100", run: "77/attempts/2", status: verified, date: "2026-10-01"}
`), 0o644)
	out := filepath.Join(dir, "q.jsx")
	var stdout, errb bytes.Buffer
	code := run([]string{"generate", "--infx", generateFixture, "--model", "qwen9", "--provenance", prov, "-o", out}, &stdout, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	f, err := cookbook.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if f.GeneratedOn != "2026-10-08" || f.Source.PRs["4242"].Status != "verified-pr" || f.Source.PRs["4242"].Run == "" {
		t.Errorf("source %+v generatedOn %s", f.Source, f.GeneratedOn)
	}
	for _, c := range f.Cells {
		if c.ConfigKey == "qwen9-fp4-gb300-sglang-agentic-agg" && (c.Prov.Status != "verified" || c.Prov.Run != "77/attempts/2" || c.Prov.PR != "4100") {
			t.Errorf("%s prov %+v", c.ID, c.Prov)
		}
	}
}

// TestGenerateCLIErrors: bad usage and refused input exit 2 and write
// nothing.
func TestGenerateCLIErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.jsx")
	for name, args := range map[string][]string{
		"no main":    {"generate", "--infx", generateFixture, "--model", "qwen9", "-o", out},
		"bad pr":     {"generate", "--infx", generateFixture, "--model", "qwen9", "--main", "abc", "--prs", "x1", "-o", out},
		"no output":  {"generate", "--infx", generateFixture, "--model", "qwen9", "--main", "abc"},
		"bad date":   generateArgs(out, "--date", "30/11/2026"),
		"prohibited": {"generate", "--infx", "../../generate/testdata/prohibited", "--model", "qwen9", "--main", "0123456", "--date", "2026-11-30", "-o", out},
		"no model":   {"generate", "--infx", generateFixture, "--model", "nope", "--main", "0123456", "--date", "2026-11-30", "-o", out},
	} {
		var stdout, errb bytes.Buffer
		if code := run(args, &stdout, &errb); code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", name, code, errb.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output written", name)
		}
	}
}

// TestGenerateCLIProvenanceChecks: the provenance generate writes is
// validated first — sha 7–40 lower-case hex, a real calendar date, PR
// numbers 1..2^31, statuses of agentx-format.md (a)/(c), provenance keys
// that are config keys of the model, a known srt-slurm version — each an
// exit 2 naming the flag or file:line:col + YAML path, with nothing
// written.
func TestGenerateCLIProvenanceChecks(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.jsx")
	prov := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const main = "main: 0123456789abcdef0123456789abcdef01234567\n"
	status := prov("status.yaml", main+"prs:\n  \"3840\": {sha: 5948cad, status: teleported}\n")
	key := prov("key.yaml", main+"keys:\n  qwen9-fp4-gb300-sglang-agentic-agg: {status: verified}\n  no-such-key: {sha: 0123456, status: verified}\n")
	date := prov("date.yaml", main+"generatedOn: 2026-02-30\n")
	keyDate := prov("keydate.yaml", main+"keys:\n  qwen9-fp4-gb300-sglang-agentic-agg: {date: \"2026-13-45\"}\n")
	pr := prov("pr.yaml", main+"prs:\n  \"0\": {sha: 5948cad}\n")
	gen := []string{"generate", "--infx", generateFixture, "--model", "qwen9", "-o", out}
	okMain := []string{"--main", "0123456789abcdef0123456789abcdef01234567"}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--main", "$(id)"}, `--main: "$(id)" is not a commit sha (want 7 to 40 lower-case hex digits)`},
		{[]string{"--main", "ABCDEF0"}, `--main: "ABCDEF0" is not a commit sha (want 7 to 40 lower-case hex digits)`},
		{append(okMain, "--date", "2026-13-45"), `--date: "2026-13-45" is not a calendar date (want YYYY-MM-DD)`},
		{append(okMain, "--date", "2026-02-30"), `--date: "2026-02-30" is not a calendar date (want YYYY-MM-DD)`},
		{append(okMain, "--prs", "0"), `--prs "0": "0" is not a PR number (want 1 to 2147483648)`},
		{append(okMain, "--prs", "2147483649"), `--prs "2147483649": "2147483649" is not a PR number (want 1 to 2147483648)`},
		{append(okMain, "--prs", "99999999999999999999"), `--prs "99999999999999999999": "99999999999999999999" is not a PR number (want 1 to 2147483648)`},
		{[]string{"--provenance", status}, status + `:3:34: prs.3840.status: "teleported" is not a provenance status (want verified, verified-pr, in-progress)`},
		{[]string{"--provenance", date}, date + `:2:14: generatedOn: "2026-02-30" is not a calendar date (want YYYY-MM-DD)`},
		{[]string{"--provenance", keyDate}, keyDate + `:3:46: keys.qwen9-fp4-gb300-sglang-agentic-agg.date: "2026-13-45" is not a calendar date (want YYYY-MM-DD)`},
		{[]string{"--provenance", pr}, pr + `:3:3: prs.0: "0" is not a PR number (want 1 to 2147483648)`},
		{[]string{"--provenance", key}, key + `:4:3: keys.no-such-key: no config key "no-such-key" of model "qwen9" in ` + generateFixture},
	}
	for _, c := range cases {
		var stdout, errb bytes.Buffer
		if code := run(append(append([]string{}, gen...), c.args...), &stdout, &errb); code != 2 || errb.String() != "cookbook-sync: "+c.want+"\n" {
			t.Errorf("%v: exit %d, stderr\n  %q\nwant\n  %q", c.args, code, errb.String(), "cookbook-sync: "+c.want+"\n")
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: output written", c.args)
		}
	}
	// An unknown srt-slurm version is named as such (it used to say "no
	// renderable point (N points skipped)").
	var stdout, errb bytes.Buffer
	if code := run(generateArgs(out, "--srt-slurm-version", "v0.0.0"), &stdout, &errb); code != 2 ||
		!strings.HasPrefix(errb.String(), `cookbook-sync: --srt-slurm-version "v0.0.0": `) || !strings.Contains(errb.String(), `"v0.0.0"`) {
		t.Errorf("version: exit %d, stderr %q", code, errb.String())
	}
}

// TestGenerateCLISymlinkOutput: -o naming a symlink writes through to the
// link's target (atomically, temporary file beside the target); the link
// stays a link and the target keeps its mode.
func TestGenerateCLISymlinkOutput(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(real, "qwen9.jsx")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsx")
	if err := os.Symlink(filepath.Join("real", "qwen9.jsx"), link); err != nil {
		t.Skip("no symlinks:", err)
	}
	var stdout, errb bytes.Buffer
	if code := run(generateArgs(link), &stdout, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	st, err := os.Lstat(link)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", st.Mode(), err)
	}
	data, err := os.ReadFile(target)
	if err != nil || !bytes.HasPrefix(data, []byte("// GENERATED")) {
		t.Errorf("target not written: %q %v", data[:min(len(data), 40)], err)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v, want 0600", st.Mode().Perm())
	}
	for _, d := range []string{dir, real} {
		entries, _ := os.ReadDir(d)
		if len(entries) != map[string]int{dir: 2, real: 1}[d] {
			t.Errorf("%s: leftover files %v", d, entries)
		}
	}
}

const mixedFixture = "../../generate/testdata/mixed"

// TestHostileGenerateCLIKeysKeepsPrevious (issue 10 item 7): a --keys run
// merges into --previous and keeps every other cell (listed as kept);
// --drop-cells needs --previous; a prohibited key is left out and named
// with its rule while the rest is written.
func TestHostileGenerateCLIKeysKeepsPrevious(t *testing.T) {
	dir := t.TempDir()
	prev := filepath.Join(dir, "prev.jsx")
	var stdout, errb bytes.Buffer
	if code := run(generateArgs(prev), &stdout, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	out := filepath.Join(dir, "out.jsx")
	stdout.Reset()
	if code := run(generateArgs(out, "--previous", prev, "--keys", "*-agg"), &stdout, &errb); code != 0 {
		t.Fatalf("--keys: exit %d: %s", code, errb.String())
	}
	want := "kept 2 cells of " + prev + " unchanged (not regenerated; --drop-cells removes those in scope):\n" +
		"  qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#0: config key not selected\n" +
		"  qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#1: config key not selected\n"
	if !strings.Contains(stdout.String(), want) || !strings.HasPrefix(stdout.String(), "wrote "+out+": 4 cells,") {
		t.Errorf("summary:\n%s", stdout.String())
	}
	pf, err := cookbook.ReadFile(prev)
	if err != nil {
		t.Fatal(err)
	}
	of, err := cookbook.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if rm := generate.RemovedCells(pf, of); len(rm) != 0 {
		t.Errorf("cells removed: %v", rm)
	}
	// --drop-cells: the unselected key's cells are still kept (out of scope).
	stdout.Reset()
	if code := run(generateArgs(out, "--previous", prev, "--keys", "*-agg", "--drop-cells"), &stdout, &errb); code != 0 {
		t.Fatalf("--drop-cells: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(stdout.String(), want) || strings.Contains(stdout.String(), "removed ") {
		t.Errorf("--drop-cells summary:\n%s", stdout.String())
	}
	// --drop-cells without --previous.
	errb.Reset()
	if code := run(generateArgs(filepath.Join(dir, "x.jsx"), "--drop-cells"), &stdout, &errb); code != 2 || !strings.Contains(errb.String(), "--drop-cells needs --previous") {
		t.Errorf("--drop-cells alone: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "x.jsx")); !os.IsNotExist(err) {
		t.Error("file written on a usage error")
	}
	// A prohibited key: left out, named; the other key written.
	stdout.Reset()
	mixed := filepath.Join(dir, "mixed.jsx")
	args := generateArgs(mixed)
	args[2] = mixedFixture
	if code := run(args, &stdout, &errb); code != 0 {
		t.Fatalf("mixed: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(stdout.String(), "left out 1 config keys (prohibited setting, never published):\n"+
		"  qwen9-fp4-gb300-sglang-agentic-nextn: left out: row 0 conc 1: agg worker: env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE is prohibited (prohibited-nvfp4-ckpt-fp8-nextn-moe: ") {
		t.Errorf("mixed summary:\n%s", stdout.String())
	}
	if b, _ := os.ReadFile(mixed); bytes.Contains(b, []byte("NEXTN_MOE")) || !bytes.Contains(b, []byte("qwen9-fp4-gb300-sglang-agentic-agg#0")) {
		t.Error("mixed output: refused key published or the other key missing")
	}
}

// TestHostileGenerateCLISecretRefused (issue 10 item 4, generate's part):
// output carrying the value of a secret environment variable is refused:
// exit 2, no file, and the message names the variable, never the value.
func TestHostileGenerateCLISecretRefused(t *testing.T) {
	const secret = "example/Qwen9-FP4" // the checkpoint id: every generated worker prints it
	t.Setenv("HOSTILE_API_KEY", secret)
	dir := t.TempDir()
	out := filepath.Join(dir, "qwen9.jsx")
	var stdout, errb bytes.Buffer
	code := run(generateArgs(out), &stdout, &errb)
	if code != 2 || !strings.Contains(errb.String(), out+":") || !strings.Contains(errb.String(), "HOSTILE_API_KEY") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(errb.String()+stdout.String(), secret) {
		t.Error("the secret is printed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

// TestHostileGenerateCLIWriteThroughLinks (issue 10 item 6): -o through a
// chain of symlinks writes the final target and keeps both links; a
// dangling link is refused (exit 2) and nothing is created.
func TestHostileGenerateCLIWriteThroughLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "qwen9.jsx")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	l2, l1 := filepath.Join(dir, "l2.jsx"), filepath.Join(dir, "l1.jsx")
	if err := os.Symlink("qwen9.jsx", l2); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Symlink("l2.jsx", l1); err != nil {
		t.Fatal(err)
	}
	var stdout, errb bytes.Buffer
	if code := run(generateArgs(l1), &stdout, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, l := range []string{l1, l2} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link", l)
		}
	}
	if b, _ := os.ReadFile(target); !bytes.HasPrefix(b, []byte("// GENERATED")) {
		t.Errorf("target not written: %.40q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("leftover files: %v", entries)
	}
	dangling := filepath.Join(dir, "dangling.jsx")
	if err := os.Symlink("missing/nowhere.jsx", dangling); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run(generateArgs(dangling), &stdout, &errb); code != 2 || !strings.Contains(errb.String(), "cannot resolve the symlink") {
		t.Errorf("dangling: exit %d: %s", code, errb.String())
	}
	if _, err := os.Lstat(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Error("dangling link: something was created")
	}
}

// TestGenerateCanceled: generate passes the command's context to
// generate.Run: under a cancelled context it stops with context.Canceled,
// writes nothing and prints no summary.
func TestGenerateCanceled(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "qwen9.jsx")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	c := newGenerateCmd()
	var stdout bytes.Buffer
	c.SetOut(&stdout)
	c.SetErr(&stdout)
	c.SetArgs(generateArgs(out)[1:])
	if err := c.ExecuteContext(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
	if strings.Contains(stdout.String(), "wrote") {
		t.Errorf("summary printed: %q", stdout.String())
	}
}
