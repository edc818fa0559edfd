package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
)

const generateFixture = "../../cookbook/testdata/generate/ok"

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
		"prohibited": {"generate", "--infx", "../../cookbook/testdata/generate/prohibited", "--model", "qwen9", "--main", "abc", "--date", "2026-11-30", "-o", out},
		"no model":   {"generate", "--infx", generateFixture, "--model", "nope", "--main", "abc", "--date", "2026-11-30", "-o", out},
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
