package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/cookbook-sync/cookbook-sync/coverage"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/runcache"
)

// outputsLedger records the SHA-256 of every command's output on the
// complete trees of ../shared (paths normalized): the byte-identity gate of
// refactors. A change of output on purpose is recorded with -update.
const outputsLedger = "testdata/outputs.sha256"

// outputsDiffEnv names a directory that TestCorpusOutputsUnchanged writes
// each output into (normalized, one file per case) when set: diff two runs'
// directories to see what changed.
const outputsDiffEnv = "COOKBOOK_SYNC_OUTPUTS_DIR"

// TestCorpusOutputsUnchanged hashes what the commands print on the complete
// trees of ../shared — coverage (the main job, every source) in every format,
// render --all (text and JSON), decode of every AgentX snippet and every
// cookbook-page snippet (default selection as text, every selection as
// JSONL), generate of the corpus models — and compares each hash with
// testdata/outputs.sha256. The coverage report is computed once and printed
// in each format by the command's own printer (printReport), with options
// parsed from the command line as the CLI parses them.
func TestCorpusOutputsUnchanged(t *testing.T) {
	shared := testutil.Shared(t)
	t.Setenv("COLUMNS", "")
	infxDir := filepath.Join(shared, "corpus/upstream/InferenceX")
	docs := filepath.Join(shared, "corpus/upstream/sglang-docs")
	agentx := filepath.Join(shared, "corpus/sglang")
	srt := filepath.Join(shared, "corpus/upstream/srt-slurm")
	vllm := filepath.Join(shared, "corpus/vllm-recipes")
	for _, d := range []string{infxDir, docs, agentx, srt, vllm} {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("../shared is present but %s is not: %v", d, err)
		}
	}
	norm := func(s string) string {
		s = strings.ReplaceAll(s, shared, "<shared>")
		return s
	}
	got := map[string]string{}
	record := func(name, out string) {
		out = norm(out)
		sum := sha256.Sum256([]byte(out))
		got[name] = hex.EncodeToString(sum[:])
		if dir := os.Getenv(outputsDiffEnv); dir != "" {
			p := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(name))
			if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
				t.Errorf("%s: %v", outputsDiffEnv, err)
			}
		}
	}

	// coverage: the main job once, printed in every format.
	covArgs := []string{"--infx", infxDir, "--cookbook", docs, "--cookbook", agentx, "--srt-slurm-dir", srt, "--vllm-recipes", vllm}
	var o coverageOptions
	cmd := newCoverageCmdWith(func(_ *cobra.Command, parsed coverageOptions) error { o = parsed; return nil })
	cmd.SetArgs(covArgs)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	// through a new empty cache, then again from it (issue 24: cold and
	// warm print the same bytes in every format)
	cache, err := runcache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var stats coverage.CacheStats
	lib := o.libOptions()
	lib.Cache, lib.CacheStats = cache, &stats
	rep, err := coverage.Run(context.Background(), lib)
	if err != nil {
		t.Fatal(err)
	}
	if !stats.Stored {
		t.Errorf("the main job's report was not cached: %+v", stats)
	}
	warm, err := coverage.Run(context.Background(), lib)
	if err != nil {
		t.Fatal(err)
	}
	if !stats.Hit {
		t.Errorf("the second run did not read the cache: %+v", stats)
	}
	for _, f := range []string{"text", "markdown", "json", "sarif", "github"} {
		o.format = f
		var b, w bytes.Buffer
		if err := printReport(&b, rep, o); err != nil {
			t.Fatalf("coverage --format %s: %v", f, err)
		}
		if err := printReport(&w, warm, o); err != nil {
			t.Fatalf("coverage --format %s (warm): %v", f, err)
		}
		if b.String() != w.String() {
			t.Errorf("coverage --format %s: the warm run (from the cache) prints differently from the cold run", f)
		}
		record("coverage --format "+f, b.String())
	}

	cli := func(name string, args ...string) string {
		t.Helper()
		code, out, errs := runCLI(args...)
		record(name, fmt.Sprintf("exit %d\n%s\n-- stderr --\n%s", code, out, errs))
		return out
	}
	for _, f := range []string{"text", "json"} {
		cli("render --all --format "+f, "render", "--all", "--infx", infxDir, "--srt-slurm-dir", srt, "--format", f)
	}
	cli("render --list", "render", "--list", "--infx", infxDir)

	var snippets []string
	for _, root := range []string{filepath.Join(agentx, "docs/src/snippets/agentx"), filepath.Join(docs, "docs/src/snippets/configs"), filepath.Join(docs, "docs/src/snippets/autoregressive")} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsx") {
				snippets = append(snippets, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(snippets)
	if len(snippets) < 70 {
		t.Fatalf("%d snippets under ../shared: want the 2 AgentX snippets and every page snippet", len(snippets))
	}
	for _, p := range snippets {
		rel := strings.TrimPrefix(p, shared+"/")
		cli("decode "+rel, "decode", p)
		cli("decode --all --format jsonl "+rel, "decode", "--all", "--format", "jsonl", p)
	}

	for _, g := range []struct{ model, previous string }{
		{"qwen3.5", filepath.Join(agentx, "docs/src/snippets/agentx/Qwen/qwen3.5.jsx")},
		{"glm5.2", filepath.Join(agentx, "docs/src/snippets/agentx/zai-org/glm-5.2.jsx")},
	} {
		out := filepath.Join(t.TempDir(), "out.jsx")
		norm0 := norm
		norm = func(s string) string { return strings.ReplaceAll(norm0(s), out, "<out>") }
		cli("generate --model "+g.model, "generate", "--infx", infxDir, "--srt-slurm-dir", srt, "--model", g.model,
			"--main", "843c6254ff69", "--date", "2026-11-30", "--previous", g.previous, "-o", out)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Errorf("generate --model %s: %v", g.model, err)
		}
		norm = norm0
		record("generate --model "+g.model+" (file)", string(data))
	}

	checkOutputsLedger(t, got)
}

// checkOutputsLedger compares got (case name → SHA-256) with outputsLedger,
// or rewrites it under -update. Lines: "<sha256>  <case name>".
func checkOutputsLedger(t *testing.T, got map[string]string) {
	t.Helper()
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	if *testutil.Update {
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "%s  %s\n", got[n], n)
		}
		if err := os.WriteFile(outputsLedger, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(outputsLedger)
	if err != nil {
		t.Fatalf("%v (record it with -update)", err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if ok {
			want[name] = sum
		}
	}
	for _, n := range names {
		switch w, ok := want[n]; {
		case !ok:
			t.Errorf("%s: not in %s (record it with -update)", n, outputsLedger)
		case w != got[n]:
			t.Errorf("%s: output changed: sha256 %s, recorded %s (set %s=DIR to write the outputs and diff them)", n, got[n], w, outputsDiffEnv)
		}
	}
	for n := range want {
		if _, ok := got[n]; !ok {
			t.Errorf("%s: recorded in %s but not produced", n, outputsLedger)
		}
	}
}
