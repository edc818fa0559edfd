package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// brokenAggMaster defines the demo's agg key with a bad multinode value
// (line 8) and another key with its own problem (line 11).
const brokenAggMaster = `qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg:
  image: lmsysorg/sglang:v0.5.12
  model: Qwen/Qwen3.5
  model-prefix: qwen3.5
  runner: gb300
  precision: fp8
  framework: dynamo-sglang
  multinode: maybe
other-key:
  image: x
  multinode: perhaps
`

// TestHostileBrokenInputCLI: broken input is exit 2 with its position in
// every command, never a silent exit 1 (or 0 with --config-key): a master
// config that cannot be read or parsed, a requested or compared config key
// that does not load, an empty --infx; a broken key nobody asked for stays
// a warning; file names with terminal escapes are printed escaped.
func TestHostileBrokenInputCLI(t *testing.T) {
	master := func(name, content string) func(t *testing.T, infx string) {
		return func(t *testing.T, infx string) {
			dir := filepath.Join(infx, "configs")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	const m = "configs/nvidia-master.yaml"
	cov := func(extra ...string) []string {
		return append([]string{"coverage", "--infx", "$INFX", "--cookbook", "$CB"}, extra...)
	}
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, infx string)
		args  []string
		code  int
		want  string // in stderr, after "$INFX/" when it starts with configs/
	}{
		{"corrupted master", master("nvidia-master.yaml", "a: [\n"), cov(), exitUsage, m + ":1:1: YAML: did not find expected node content"},
		{"corrupted master, --config-key", master("nvidia-master.yaml", "a: [\n"), cov("--config-key", "*-agentic-agg"), exitUsage, m + ":1:1: YAML: did not find expected node content"},
		{"unknown anchor", master("nvidia-master.yaml", "k:\n  image: *nope\n"), cov(), exitUsage, m + ":2:10: YAML: unknown anchor 'nope' referenced"},
		{"end of stream", master("nvidia-master.yaml", "k:\n  image: 'x"), cov(), exitUsage, m + ":2:3: YAML: found unexpected end of stream"},
		{"truncated to nothing", master("nvidia-master.yaml", ""), cov(), exitUsage, m + ":1:1: empty YAML document"},
		{"missing (dangling link)", func(t *testing.T, infx string) {
			os.MkdirAll(filepath.Join(infx, "configs"), 0o755)
			if err := os.Symlink("/nonexistent/x", filepath.Join(infx, m)); err != nil {
				t.Skip(err)
			}
		}, cov(), exitUsage, m + ": master config cannot be read: no such file or directory"},
		{"fifo", func(t *testing.T, infx string) {
			os.MkdirAll(filepath.Join(infx, "configs"), 0o755)
			if err := syscall.Mkfifo(filepath.Join(infx, m), 0o644); err != nil {
				t.Skip(err)
			}
		}, cov("--config-key", "*-agentic-agg"), exitUsage, m + ": not a regular file"},
		{"vllm part, corrupted master", master("nvidia-master.yaml", "a: *x\n"), []string{"coverage", "--infx", "$INFX", "--vllm-recipes", "$INFX"}, exitUsage, m + ":1:4: YAML: unknown anchor 'x' referenced"},
		{"render, corrupted master", master("nvidia-master.yaml", "a: *x\n"), []string{"render", "--infx", "$INFX", "--config-key", "k"}, exitUsage, m + ":1:4: YAML: unknown anchor 'x' referenced"},
		{"empty --infx", func(t *testing.T, infx string) {
			if err := os.RemoveAll(infx); err != nil {
				t.Fatal(err)
			}
			os.Mkdir(infx, 0o755)
		}, cov(), exitUsage, "is not an InferenceX checkout (no configs/, benchmarks/, runners/, inferencex-e2e/ or .github/)"},
		{"requested key broken", master("nvidia-master.yaml", brokenAggMaster), cov("--config-key", "*-agentic-agg"), exitUsage,
			m + `:8:14: qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg.multinode: want a boolean, got "maybe"`},
		{"compared key broken", master("nvidia-master.yaml", brokenAggMaster), cov(), exitUsage,
			m + `:8:14: qwen3.5-fp8-gb300-dynamo-sglang-agentic-agg.multinode: want a boolean, got "maybe"`},
		{"other keys broken: warnings", master("nvidia-master.yaml", brokenAggMaster), cov("--config-key", "*-disagg"), exitGap,
			"cookbook-sync: warning: $INFX/" + m + `:11:14: other-key.multinode: want a boolean, got "perhaps"`},
		{"ANSI in the master's name", master("a\x1b[31m\x1b]0;pwned\x07-master.yaml", "a: [\n"), cov(), exitUsage,
			`configs/a\x1b[31m\x1b]0;pwned\a-master.yaml":1:1: YAML: did not find expected node content`},
	} {
		t.Run(c.name, func(t *testing.T) {
			infx, cb := demoDirs(t)
			c.setup(t, infx)
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.NewReplacer("$INFX", infx, "$CB", cb).Replace(a)
			}
			var out, errb bytes.Buffer
			code := run(args, &out, &errb)
			want := strings.ReplaceAll(c.want, "$INFX", infx)
			if strings.HasPrefix(want, "configs/") {
				want = infx + "/" + want
			}
			if code != c.code || !strings.Contains(errb.String(), want) || strings.ContainsRune(errb.String()+out.String(), 0x1b) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, errb.String(), c.code, want)
			}
			if c.code == exitUsage && out.Len() != 0 {
				t.Errorf("a report on bad input: %q", out.String())
			}
		})
	}
}

// TestHostileErrorPrinter: whatever error reaches the CLI, its control
// characters are escaped before they reach the terminal.
func TestHostileErrorPrinter(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"decode", "/nonexistent/\x1b[2Jx.jsx"}, &out, &errb)
	if code != exitUsage || strings.ContainsRune(errb.String(), 0x1b) || !strings.Contains(errb.String(), `\x1b[2Jx.jsx`) {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
