package recipes

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// blockAt returns the block whose fence opens at line.
func blockAt(t *testing.T, fs *FileScan, line int) *Block {
	t.Helper()
	for _, b := range fs.Blocks {
		if b.Line == line {
			return b
		}
	}
	t.Fatalf("no block at line %d", line)
	return nil
}

func cmdOf(t *testing.T, b *Block, i int) ShellCommand {
	t.Helper()
	if b.Shell == nil || len(b.Shell.Commands) <= i {
		t.Fatalf("block %d: want command %d, have %+v (err %v)", b.Line, i, b.Shell, b.Err)
	}
	return b.Shell.Commands[i]
}

func envMapOf(env []ShellEnv) map[string]string {
	m := map[string]string{}
	for _, e := range env {
		m[e.Name] = e.Value
	}
	return m
}

// TestMarkdownEdgeCases runs the edge cases of spec vllm-recipes.md §5 (and
// the forms of §2.2) on testdata/md/edge.md.
func TestMarkdownEdgeCases(t *testing.T) {
	fs, err := ScanFile(filepath.Join("testdata", "md", "edge.md"))
	if err != nil {
		t.Fatal(err)
	}
	if u := fs.Unparsable(); len(u) > 0 {
		t.Fatalf("unparsable: %v", u[0].Err)
	}
	if got := len(fs.LaunchBlocks()); got != 10 {
		t.Errorf("launch blocks = %d, want 10", got)
	}

	// §5.1 + §2.2(8): pymdown tab, fence indented 4 spaces; tab = hardware;
	// §2.2(3) export lines with a trailing comment.
	b := blockAt(t, fs, 17)
	if b.Col != 5 || b.Tab != "4xMI300X/MI325X/MI355X" {
		t.Errorf("tab block: col %d tab %q", b.Col, b.Tab)
	}
	if !reflect.DeepEqual(b.Hardware, []string{"mi300x", "mi325x", "mi355x"}) {
		t.Errorf("tab hardware = %v", b.Hardware)
	}
	c := cmdOf(t, b, 0)
	if c.Model != "edge/Edge-72B" || !reflect.DeepEqual(envMapOf(c.Env), map[string]string{"CUDA_VISIBLE_DEVICES": "0,1,2,3", "VLLM_ROCM_USE_AITER": "1"}) {
		t.Errorf("tab command: model %q env %v", c.Model, c.Env)
	}
	if want := []string{"--tensor-parallel-size", "4", "--limit-mm-per-prompt", `{"image":2,"video":0}`}; !reflect.DeepEqual(c.Args, want) {
		t.Errorf("tab args = %q, want %q", c.Args, want)
	}

	// §5.1 1-space indented fence with "``` bash " info; §2.2(9) <summary>
	// hardware + vendor ("— CUDA" keeps h200 only); env prefix; trailing
	// comment after a placeholder on the last flag line.
	b = blockAt(t, fs, 30)
	if b.Lang != "bash" || b.Summary != "Tensor Parallel + Expert Parallel (TP8+EP) — CUDA" {
		t.Errorf("details block: lang %q summary %q", b.Lang, b.Summary)
	}
	if !reflect.DeepEqual(b.Hardware, []string{"h200"}) {
		t.Errorf("details hardware = %v", b.Hardware)
	}
	c = cmdOf(t, b, 0)
	if want := []string{"--trust-remote-code", "-tp=8", "--enable-expert-parallel", "--max-model-len", "<n_of_tokens>"}; !reflect.DeepEqual(c.Args, want) {
		t.Errorf("details args = %q, want %q", c.Args, want)
	}
	if envMapOf(c.Env)["CUDA_VISIBLE_DEVICES"] != "0,1,2,3,4,5,6,7" {
		t.Errorf("env prefix: %v", c.Env)
	}

	// §2.2(7) + §5.3: `# node 0/1` comments, --headless follower joins the
	// head's deployment.
	b = blockAt(t, fs, 42)
	if len(b.Shell.Commands) != 2 || b.Shell.Commands[1].Comments[0] != "node 1" {
		t.Errorf("multi-node: %+v", b.Shell.Commands)
	}
	deps := BlockDeployments(b)
	if len(deps) != 1 || len(deps[0].Processes) != 2 {
		t.Fatalf("multi-node deployments: %d", len(deps))
	}
	if v, _ := launch.Lookup(deps[0].Processes[0].Args, "--data-parallel-address"); v[0] != "$MASTER_IP" {
		t.Errorf("placeholder kept: %v", v)
	}

	// §5.4 `\ ` + trailing space, dangling `\`; §5.1 indented command;
	// §5.6 spelling variants, normalised.
	b = blockAt(t, fs, 51)
	if len(b.Shell.Fixes) != 2 || !strings.Contains(b.Shell.Fixes[0], "line 1: `\\` followed by trailing spaces") || !strings.Contains(b.Shell.Fixes[1], "line 8: dangling") {
		t.Errorf("fixes = %q", b.Shell.Fixes)
	}
	c = cmdOf(t, b, 0)
	norm, _ := NormalizeArgs(BlockDeployments(b)[0].Processes[0].Args)
	got := map[string]string{}
	for _, a := range norm {
		got[a.Flag] = strings.Join(a.Values, " ")
	}
	want := map[string]string{
		"--model": "edge/Edge-72B", "--block-size": "1", "--disable-chunked-mm-input": "",
		"--compilation-config": `{"pass_config":{"fuse_allreduce_rms":true}}`,
		"--speculative-config": `{"method":"mtp"}`, "--no-enable-prefix-caching": "", "--mm-encoder-tp-mode": "data",
	}
	if !reflect.DeepEqual(got, want) || len(norm) != len(want) {
		t.Errorf("normalised = %v\nwant %v", got, want)
	}

	// §5.5 column-0 flags after a continued env prefix with $(pwd), argparse
	// abbreviation; vendor sub-heading "AMD (ROCm)" under a B200 heading has
	// no NVIDIA hardware.
	b = blockAt(t, fs, 64)
	c = cmdOf(t, b, 0)
	if envMapOf(c.Env)["MIOPEN_USER_DB_PATH"] != "$(pwd)/miopen" || c.Args[0] != "--tensor-parallel" {
		t.Errorf("column-0: env %v args %q", c.Env, c.Args)
	}
	if f, _, _ := NormalizeFlag(c.Args[0]); f != "--tensor-parallel-size" {
		t.Errorf("abbreviation → %s", f)
	}
	if len(b.Hardware) != 0 || !reflect.DeepEqual(b.HardwareWords, []string{"AMD", "ROCM", "B200"}) {
		t.Errorf("AMD section hardware = %v words %v", b.Hardware, b.HardwareWords)
	}

	// §5.7 JSON: placeholder inside JSON (kept, invalid), escaped
	// double-quoted JSON with ${VAR} (§2.2(3) interpolation), multi-line
	// single-quoted JSON; §3
	// hardware only in the preceding prose.
	b = blockAt(t, fs, 76)
	c = cmdOf(t, b, 0)
	if c.Args[1] != `{"model": <eagle3_model_name>, "method": "eagle3"}` {
		t.Errorf("placeholder JSON = %q", c.Args[1])
	}
	// The block's `export KV_BYTES=1024` is expanded inside the double
	// quotes, as bash would; the placeholder inside single quotes is not.
	if c.Args[3] != `{"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use":1024}}` {
		t.Errorf("escaped JSON = %q", c.Args[3])
	}
	if _, ok := CanonicalJSON(c.Args[3]); !ok {
		t.Errorf("escaped JSON does not parse: %q", c.Args[3])
	}
	if j, ok := CanonicalJSON(c.Args[5]); !ok || j != `{"cudagraph_mode":"FULL_DECODE_ONLY","custom_ops":["all"]}` {
		t.Errorf("multi-line JSON = %q %v", j, ok)
	}
	if c.Args[7] != "${PORT:-8000}" || len(b.Hardware) != 0 || !reflect.DeepEqual(b.ProseHardware, []string{"b200"}) {
		t.Errorf("port %q hw %v prose %v", c.Args[7], b.Hardware, b.ProseHardware)
	}

	// §5.3 a commented-out command in a python block is ignored.
	if b := blockAt(t, fs, 89); b.Candidate || b.IsLaunch() {
		t.Errorf("python block taken as a launch")
	}

	// §2.2(4) docker forms (a) IMAGE MODEL with -e, (b) IMAGE --model,
	// (c) --entrypoint /bin/bash (no launch), (d) IMAGE vllm serve MODEL.
	b = blockAt(t, fs, 97)
	if len(b.Shell.Commands) != 3 {
		t.Fatalf("docker commands = %d, want 3", len(b.Shell.Commands))
	}
	a, bb, d := b.Shell.Commands[0], b.Shell.Commands[1], b.Shell.Commands[2]
	if a.Image != "vllm/vllm-openai:latest" || a.Model != "edge/Edge-72B" || envMapOf(a.Env)["VLLM_USE_V1"] != "1" ||
		!reflect.DeepEqual(a.Args, []string{"--tensor-parallel-size", "8"}) {
		t.Errorf("docker (a) = %+v", a)
	}
	if bb.Positional || bb.Model != "edge/Edge-72B" || bb.Image != "vllm/vllm-tpu:edge" {
		t.Errorf("docker (b) = %+v", bb)
	}
	if d.Model != "edge/Edge-72B" || !reflect.DeepEqual(d.Args, []string{"-dp", "8"}) {
		t.Errorf("docker (d) = %+v", d)
	}

	// §2.2(10) + §5.9 launch_server.sh: if/else, $(…), trailing &.
	b = blockAt(t, fs, 108)
	c = cmdOf(t, b, 0)
	if b.Label != "launch_server.sh" || !c.Background || c.Model != "edge/Edge-72B-$DTYPE" {
		t.Errorf("launch_server.sh: label %q bg %v model %q", b.Label, c.Background, c.Model)
	}
	if dep := BlockDeployments(b)[0]; dep.Model != "edge/Edge-72B-$DTYPE" {
		t.Errorf("DTYPE has two values; model must stay %q", dep.Model)
	}

	// §2.2(5) api_server with --model ${CHECKPOINT_PATH}, resolved from the export.
	b = blockAt(t, fs, 120)
	if dep := BlockDeployments(b)[0]; dep.Model != "edge/Edge-VL" || dep.Processes[0].Program != "python3 -m vllm.entrypoints.openai.api_server" {
		t.Errorf("api_server: %+v", dep)
	}

	// §5.12 vllm bench serve and lm_eval are not launches; §2.2(11) a flag
	// fragment is not a launch; an error log in a bash fence is not either.
	for _, line := range []int{130, 135, 145} {
		if blockAt(t, fs, line).IsLaunch() {
			t.Errorf("block %d taken as a launch", line)
		}
	}

	// A fence closed on the command line swallows the prose after it; the
	// launch statement is still read, and the repair is noted.
	b = blockAt(t, fs, 154)
	c = cmdOf(t, b, 0)
	if !reflect.DeepEqual(c.Args, []string{"-tp", "4"}) || !reflect.DeepEqual(b.Hardware, []string{"gb200"}) {
		t.Errorf("unclosed fence: %q %v", c.Args, b.Hardware)
	}
}

var posRe = regexp.MustCompile(`^[^:]+:\d+:\d+: `)

// TestMalformedInputs: malformed YAML, Markdown and shell give file:line:col
// errors and never panic.
func TestMalformedInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name, body string
		line, col  string
	}{
		{"bad.yaml", "model:\n  model_id: \"x\n  base_args: [\n", "", ""},
		{"tab.yaml", "model:\n\tmodel_id: x\n", "", ""},
		{"list.yaml", "- a\n- b\n", "1", "1"},
		{"shell.md", "# T\n\n## On H200\n\n```bash\nvllm serve org/m \\\n  --speculative-config '{\"a\": 1}\n```\n", "7", ""},
		{"guide.yaml", "meta:\n  title: x\nguide: |\n  # G\n\n  ```bash\n  vllm serve a/b --x \"unclosed\n  ```\n", "7", ""},
		{"subst.md", "```bash\nvllm serve a/b --x $(echo\n```\n", "2", ""},
	}
	for _, tc := range cases {
		p := write(tc.name, tc.body)
		_, err := DecodeFile(p)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, p+":") || !posRe.MatchString(strings.TrimPrefix(msg, filepath.Dir(p))) {
			t.Errorf("%s: error without file:line:col: %v", tc.name, err)
		}
		if tc.line != "" && !strings.HasPrefix(msg, p+":"+tc.line+":"+tc.col) {
			t.Errorf("%s: error %q, want line %s col %s", tc.name, msg, tc.line, tc.col)
		}
	}
	var se *ShellError
	if _, err := ParseShell("vllm serve a \\\n  --x '{\n"); !errors.As(err, &se) || se.Line != 2 {
		t.Errorf("ParseShell unclosed quote: %v", err)
	}
}

// TestConfigIndirection: `--config ${YAML_CONFIG}` with one value per
// if/else branch expands to one deployment per sibling config file, the
// model variable paired by branch, command-line flags winning (§5.9, §5.10).
func TestConfigIndirection(t *testing.T) {
	deps, err := DecodeFile(filepath.Join("testdata", "config", "Rocket.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(deps) != 2 {
		t.Fatalf("deployments = %d, want 2", len(deps))
	}
	want := []struct{ model, section, argv string }{
		{"acme/Rocket-FP4", "[--config Rocket_Blackwell.yaml]",
			`vllm serve acme/Rocket-FP4 --kv-cache-dtype fp8 --compilation-config {"pass_config":{"fuse_allreduce_rms":true}} --async-scheduling --no-enable-prefix-caching --max-num-batched-tokens 8192 --tensor-parallel-size 1 --max-num-batched-tokens 4096`},
		{"acme/Rocket-FP8", "[--config Rocket_Hopper.yaml]",
			`vllm serve acme/Rocket-FP8 --kv-cache-dtype fp8 --async-scheduling --no-enable-prefix-caching --max-num-batched-tokens 8192 --tensor-parallel-size 1 --max-num-batched-tokens 4096`},
	}
	for i, w := range want {
		d := deps[i]
		if d.Model != w.model || !strings.HasSuffix(d.Source.Section, w.section) {
			t.Errorf("%d: model %s section %q", i, d.Model, d.Source.Section)
		}
		if got := strings.Join(d.Processes[0].Argv(), " "); got != w.argv {
			t.Errorf("%d:\n got %s\nwant %s", i, got, w.argv)
		}
		norm, _ := NormalizeArgs(d.Processes[0].Args)
		if v, _ := launch.Lookup(norm, "--max-num-batched-tokens"); v[0] != "4096" {
			t.Errorf("%d: command line must win: %v", i, v)
		}
	}
	if o := deps[0].Processes[0].Args[1].Origin; o.Path != "kv-cache-dtype" || !strings.HasSuffix(o.Detail, "Rocket_Blackwell.yaml:1:1") {
		t.Errorf("config origin %v", o)
	}
}
