package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hostileChildEnv carries the CLI arguments (JSON) to a child run of this
// test binary: TestHostileCLI then acts as the command itself, so every case
// is a real process with a real environment (/proc/self/environ shows what
// was exec'd, not what os.Setenv changed) that can be killed when it hangs.
const hostileChildEnv = "COOKBOOK_SYNC_HOSTILE_CLI_ARGS"

// Secret and ordinary values in the child's environment: none may reach
// any output, whatever a script of the checkout reads.
const (
	hostileToken  = "ghp_H0stileT0kenValue0123456789abcdefABCD"
	hostileSecret = "hostile-cloud-secret-4f9a1c"
	hostilePlain  = "hostile-plain-canary-77b3e0"
)

// hostileBound is how long one CLI run may take before it counts as a hang.
const hostileBound = 5 * time.Second

// hostileMaster is a master config with one single-node agentic key whose
// script (benchmarks/single_node/agentic/<prefix>_fp8_h200_sglang.sh) the
// cases write.
func hostileMaster(prefix string) string {
	return prefix + "-fp8-h200-sglang-agentic:\n  image: lmsysorg/sglang:v0.5.12\n  model: org/M\n" +
		"  model-prefix: " + prefix + "\n  runner: h200\n  precision: fp8\n  framework: sglang\n  multinode: false\n" +
		"  scenarios:\n    agentic-coding:\n    - search-space:\n      - { tp: 8, kv-offloading: none, conc-list: [4] }\n"
}

// hostileCase is one CLI run over a hostile tree built in dir. Every case
// also checks: the run ends within hostileBound, no output (stdout, stderr,
// a written file) holds a secret or the environment, no output holds a
// raw ESC or BEL, a failing run says why, and the run leaves nothing in its
// $TMPDIR.
type hostileCase struct {
	name string
	// setup builds the tree in dir and returns the CLI arguments; cookbook
	// is an extracted demo cookbook (sgl-project/sglang layout).
	setup func(t *testing.T, dir, cookbook string) []string
	code  int    // wanted exit status; -1: 0 or 1 (a verdict, not bad input)
	want  string // wanted in stderr ("DIR" stands for dir)
	// wantOut is wanted in stdout (the case still reaches what it tests).
	wantOut string
	// pending names the issue-10 part whose fix this case waits for: while
	// it fails the case is skipped LOUDLY with the failure; once it passes,
	// the mark must go (the test says so).
	pending string
	check   func(t *testing.T, dir string)
}

func writeHostile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hostileInterpName is a file name in mvdan.cc/sh's process-substitution
// FIFO pattern (sh-interp-…) that a script tries to create.
const hostileInterpName = "sh-interp-cookbook-sync-hostile-test"

// noInterpFile: the script's write did not reach /tmp.
func noInterpFile(t *testing.T, _ string) {
	p := filepath.Join("/tmp", hostileInterpName)
	if _, err := os.Lstat(p); err == nil {
		os.Remove(p)
		t.Errorf("the script created %s", p)
	}
}

const brokenMaster = "k:\n  image: x\n  model: [1,\n"

// TestHostileCLI runs the CLI over checkouts written by a stranger
// (issue 10): broken master configs are bad input (exit 2, file:line:col),
// a link to /proc/self/environ leaks nothing, control characters in file
// names never reach the terminal raw, and nothing hangs.
func TestHostileCLI(t *testing.T) {
	if args := os.Getenv(hostileChildEnv); args != "" {
		var argv []string
		if err := json.Unmarshal([]byte(args), &argv); err != nil {
			os.Stderr.WriteString("bad " + hostileChildEnv + ": " + err.Error() + "\n")
			os.Exit(99)
		}
		os.Exit(run(argv, os.Stdout, os.Stderr))
	}
	_, cookbook := demoDirs(t)
	master := func(dir string) string { return filepath.Join(dir, "configs", "nvidia-master.yaml") }
	// environScript writes a key whose script reads read (a shell word)
	// into --chat-template and its own secret variables into
	// --tokenizer-path; the checkout holds links to /proc/self/environ in
	// the script's directory and in benchmarks/evil/. Scripts run in a
	// scratch directory, so the links are named by absolute path.
	environScript := func(t *testing.T, dir string, read func(sdir string) string) {
		sdir := filepath.Join(dir, "benchmarks", "single_node", "agentic")
		writeHostile(t, filepath.Join(sdir, "evil_fp8_h200_sglang.sh"), "#!/usr/bin/env bash\n"+
			"E="+read(sdir)+"\n"+
			"python3 -m sglang.launch_server --model-path \"$MODEL\" --tp \"$TP\" --port 8888 "+
			"--chat-template \"e${E}e\" --tokenizer-path \"t${GH_TOKEN}${GITHUB_TOKEN}${HOSTILE_CLOUD_SECRET_KEY}${HOSTILE_PLAIN}t\"\n")
		for _, l := range []string{filepath.Join(sdir, "environ_link"), filepath.Join(dir, "benchmarks", "evil", "environ_link")} {
			if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("/proc/self/environ", l); err != nil {
				t.Skip("no symlinks:", err)
			}
		}
		writeHostile(t, master(dir), hostileMaster("evil"))
	}
	viaLink := func(sdir string) string { return "$(< " + filepath.Join(sdir, "environ_link") + ")" }
	viaOtherLink := func(sdir string) string {
		return "$(cat " + filepath.Join(sdir, "..", "..", "evil", "environ_link") + " | tr '\\0' ' ')"
	}
	viaProc := func(string) string { return "$(< /proc/self/environ)" }
	// escapeTmp writes where mvdan.cc/sh puts its process-substitution
	// FIFOs (the tool's $TMPDIR and /tmp) and leaves substitutions unread.
	escapeTmp := func(string) string {
		return "$(echo x > \"$TMPDIR/" + hostileInterpName + "\"; echo x > /tmp/" + hostileInterpName + "; : <(true); echo ok)"
	}
	viaVars := func(string) string { return "\"$GH_TOKEN$(env)$(printenv)$(set)\"" }
	// A refused read is named, with the link, and nothing is rendered;
	// generate writes nothing.
	refusedLink := "a symbolic link resolves outside the checkout"
	generate := func(read func(string) string) func(t *testing.T, dir, _ string) []string {
		return func(t *testing.T, dir, _ string) []string {
			environScript(t, dir, read)
			if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
				t.Fatal(err)
			}
			return []string{"generate", "--infx", dir, "--model", "evil", "--main", "843c6254ff69", "-o", filepath.Join(dir, "out", "evil.jsx")}
		}
	}
	render := func(read func(string) string) func(t *testing.T, dir, _ string) []string {
		return func(t *testing.T, dir, _ string) []string {
			environScript(t, dir, read)
			return []string{"render", "--infx", dir, "--config-key", "evil-fp8-h200-sglang-agentic"}
		}
	}
	nothingWritten := func(t *testing.T, dir string) {
		if ents, _ := os.ReadDir(filepath.Join(dir, "out")); len(ents) != 0 {
			t.Errorf("generate failed but left %s in out/", ents[0].Name())
		}
	}
	written := func(t *testing.T, dir string) {
		data, err := os.ReadFile(filepath.Join(dir, "out", "evil.jsx"))
		if err != nil {
			t.Fatalf("generate wrote nothing: %v", err)
		}
		checkNoSecret(t, "evil.jsx", string(data))
		if !strings.Contains(string(data), "--chat-template") {
			t.Errorf("evil.jsx lacks the script's --chat-template (the case no longer reaches the read):\n%s", data)
		}
	}
	cases := []hostileCase{
		{name: "coverage corrupted master", code: exitUsage, want: "DIR/configs/nvidia-master.yaml:3:",
			setup: func(t *testing.T, dir, cookbook string) []string {
				writeHostile(t, master(dir), brokenMaster)
				return []string{"coverage", "--infx", dir, "--cookbook", cookbook}
			}},
		{name: "coverage --config-key corrupted master", code: exitUsage, want: "DIR/configs/nvidia-master.yaml:3:",
			setup: func(t *testing.T, dir, cookbook string) []string {
				writeHostile(t, master(dir), brokenMaster)
				return []string{"coverage", "--infx", dir, "--cookbook", cookbook, "--config-key", "qwen3.5*"}
			}},
		{name: "render --list corrupted master", code: exitUsage, want: "DIR/configs/nvidia-master.yaml:3:3: ",
			setup: func(t *testing.T, dir, _ string) []string {
				writeHostile(t, master(dir), brokenMaster)
				return []string{"render", "--infx", dir, "--list"}
			}},
		{name: "render corrupted master, unknown anchor", code: exitUsage, want: "DIR/configs/nvidia-master.yaml:2:",
			setup: func(t *testing.T, dir, _ string) []string {
				writeHostile(t, master(dir), "k:\n  image: *nope\n")
				return []string{"render", "--infx", dir, "--list"}
			}},
		{name: "render corrupted master, binary garbage", code: exitUsage, want: "DIR/configs/nvidia-master.yaml",
			setup: func(t *testing.T, dir, _ string) []string {
				writeHostile(t, master(dir), "\x00\xff\xfe\x01k: [\n")
				return []string{"render", "--infx", dir, "--list"}
			}},
		{name: "coverage missing master (dangling link)", code: exitUsage, want: "DIR/configs/nvidia-master.yaml",
			setup: func(t *testing.T, dir, cookbook string) []string {
				if err := os.MkdirAll(filepath.Join(dir, "configs"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("gone.yaml", master(dir)); err != nil {
					t.Skip("no symlinks:", err)
				}
				return []string{"coverage", "--infx", dir, "--cookbook", cookbook}
			}},
		{name: "render missing master (dangling link)", code: exitUsage, want: "DIR/configs/nvidia-master.yaml",
			setup: func(t *testing.T, dir, _ string) []string {
				if err := os.MkdirAll(filepath.Join(dir, "configs"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("gone.yaml", master(dir)); err != nil {
					t.Skip("no symlinks:", err)
				}
				return []string{"render", "--infx", dir, "--list"}
			}},
		{name: "coverage FIFO master", code: exitUsage, want: "DIR/configs/nvidia-master.yaml",
			setup: func(t *testing.T, dir, cookbook string) []string {
				if err := os.MkdirAll(filepath.Join(dir, "configs"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := mkfifo(master(dir)); err != nil {
					t.Skip(err)
				}
				return []string{"coverage", "--infx", dir, "--cookbook", cookbook}
			}},
		{name: "render FIFO master", code: exitUsage, want: "DIR/configs/nvidia-master.yaml",
			setup: func(t *testing.T, dir, _ string) []string {
				if err := os.MkdirAll(filepath.Join(dir, "configs"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := mkfifo(master(dir)); err != nil {
					t.Skip(err)
				}
				return []string{"render", "--infx", dir, "--list"}
			}},
		{name: "coverage empty --infx", code: exitUsage, want: "DIR: no InferenceX master config",
			setup: func(_ *testing.T, dir, cookbook string) []string {
				return []string{"coverage", "--infx", dir, "--cookbook", cookbook}
			}},
		{name: "render empty --infx", code: exitUsage, want: "DIR: no InferenceX master config",
			setup: func(_ *testing.T, dir, _ string) []string { return []string{"render", "--infx", dir, "--list"} }},
		{name: "render environ link in the script dir", code: exitGap, wantOut: "environ_link: " + refusedLink, setup: render(viaLink)},
		{name: "render environ link in another dir", code: exitGap, wantOut: "environ_link: " + refusedLink, setup: render(viaOtherLink)},
		{name: "render proc self environ", code: -1, setup: render(viaProc)},
		{name: "render secret variables", code: exitOK, wantOut: "--chat-template", setup: render(viaVars)},
		{name: "render writes to the interpreter's FIFO name", code: exitOK, wantOut: "--chat-template eoke", setup: render(escapeTmp), check: noInterpFile},
		{name: "generate environ link in the script dir", code: exitUsage, want: "no renderable point", setup: generate(viaLink), check: nothingWritten},
		// a pseudo-file the sandbox cannot know: the point is unsupported (the
		// one read rule, issue 20 item 6), so nothing renders or is written
		{name: "generate proc self environ", code: exitUsage, want: "no renderable point", setup: generate(viaProc), check: nothingWritten},
		{name: "generate secret variables", code: exitOK, setup: generate(viaVars), check: written},
		{name: "ANSI in a master config name", code: exitUsage, want: "-master.yaml",
			setup: func(t *testing.T, dir, _ string) []string {
				writeHostile(t, filepath.Join(dir, "configs", "nvidia\x1b[2J\x1b[31m-master.yaml"), brokenMaster)
				return []string{"render", "--infx", dir, "--list"}
			}},
		{name: "ANSI in a script name", code: -1,
			setup: func(t *testing.T, dir, _ string) []string {
				prefix := "ev\x1b]0;pwned\x07il\x1b[2J"
				writeHostile(t, master(dir), strings.Replace(hostileMaster("evil"), "model-prefix: evil", "model-prefix: \"ev\\e]0;pwned\\ail\\e[2J\"", 1))
				writeHostile(t, filepath.Join(dir, "benchmarks", "single_node", "agentic", prefix+"_fp8_h200_sglang.sh"),
					"python3 -m sglang.launch_server --model-path \"$MODEL\" --tp \"$TP\"\n")
				return []string{"render", "--infx", dir, "--config-key", "evil-fp8-h200-sglang-agentic"}
			}},
		{name: "ANSI in a snippet name", code: exitUsage, want: ".jsx",
			setup: func(t *testing.T, dir, cookbook string) []string {
				writeHostile(t, filepath.Join(dir, "sglang", "docs", "src", "snippets", "agentx", "Qwen", "q\x1b[2J\x1b[31m.jsx"), "export const agentx = {\n")
				return []string{"coverage", "--infx", filepath.Join(filepath.Dir(cookbook), "inferencex"), "--cookbook", filepath.Join(dir, "sglang")}
			}},
	}
	start := time.Now()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := c.setup(t, dir, cookbook)
			tmp := t.TempDir()
			code, out, errs, err := runHostileChild(t, args, tmp)
			failures := hostileFailures(c, dir, code, out, errs, err)
			// Nothing a run writes outlives it in $TMPDIR (issue 10 item 2).
			if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
				failures = append(failures, "the run left "+ents[0].Name()+" in $TMPDIR")
			}
			if c.check != nil && len(failures) == 0 {
				c.check(t, dir)
			}
			switch {
			case len(failures) > 0 && c.pending != "":
				t.Skipf("PENDING on %s — fails today:\n%s", c.pending, strings.Join(failures, "\n"))
			case len(failures) > 0:
				t.Error(strings.Join(failures, "\n"))
			case c.pending != "":
				t.Errorf("passes now: remove its pending mark (%s)", c.pending)
			}
		})
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the hostile table took %v, want < 10s", d)
	}
}

// hostileFailures lists what is wrong with one run: a hang, the exit
// status, the message, a secret or a raw ESC in the output, a silent
// failure.
func hostileFailures(c hostileCase, dir string, code int, out, errs string, err error) []string {
	var f []string
	if err != nil {
		return []string{err.Error()}
	}
	if c.code >= 0 && code != c.code || c.code < 0 && code != exitOK && code != exitGap {
		f = append(f, "exit "+strconv.Itoa(code)+", want "+wantCode(c.code)+"; stderr:\n"+errs)
	}
	if w := strings.ReplaceAll(c.want, "DIR", dir); w != "" && !strings.Contains(errs, w) {
		f = append(f, "stderr lacks "+strconv.QuoteToASCII(w)+":\n"+errs)
	}
	if c.wantOut != "" && !strings.Contains(out, c.wantOut) {
		f = append(f, "stdout lacks "+strconv.QuoteToASCII(c.wantOut)+":\n"+out)
	}
	if code != exitOK && strings.TrimSpace(out+errs) == "" {
		f = append(f, "exit "+strconv.Itoa(code)+" without a word")
	}
	for name, s := range map[string]string{"stdout": out, "stderr": errs} {
		if strings.ContainsRune(s, '\x1b') || strings.ContainsRune(s, '\a') {
			f = append(f, name+" holds a raw control character: "+strconv.QuoteToASCII(s))
		}
		f = append(f, secretFailures(name, s)...)
	}
	return f
}

// secretFailures names the secrets, and the signs of the tool's own
// environment (an ordinary variable's value, the child marker's name), that
// text holds. HOME= or PATH= are no sign: scripts see the harness's own.
func secretFailures(name, text string) []string {
	var f []string
	for _, s := range []string{hostileToken, hostileToken[:12], strings.ToUpper(hostileToken), hostileSecret, hostilePlain, hostileChildEnv} {
		if strings.Contains(text, s) {
			f = append(f, name+" holds "+strconv.QuoteToASCII(s))
		}
	}
	return f
}

func checkNoSecret(t *testing.T, name, text string) {
	t.Helper()
	for _, e := range secretFailures(name, text) {
		t.Error(e)
	}
}

// runHostileChild runs the CLI in a child process with the secrets in its
// environment and tmp as its $TMPDIR; err reports a hang (the child is killed after hostileBound).
func runHostileChild(t *testing.T, args []string, tmp string) (code int, stdout, stderr string, err error) {
	t.Helper()
	argv, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), hostileBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostileCLI$", "-test.count=1")
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "GH_TOKEN" && k != "GITHUB_TOKEN" && k != "TMPDIR" && k != hostileChildEnv {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, hostileChildEnv+"="+string(argv), "GH_TOKEN="+hostileToken, "GITHUB_TOKEN="+hostileToken,
		"HOSTILE_CLOUD_SECRET_KEY="+hostileSecret, "HOSTILE_PLAIN="+hostilePlain, "TMPDIR="+tmp)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return 0, out.String(), errb.String(), errors.New("hang: no exit within " + hostileBound.String() + " (killed); stderr so far: " + strconv.QuoteToASCII(errb.String()))
	}
	var ee *exec.ExitError
	switch {
	case runErr == nil:
		return 0, out.String(), errb.String(), nil
	case errors.As(runErr, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode(), out.String(), errb.String(), nil
	default:
		return 0, out.String(), errb.String(), errors.New("child: " + runErr.Error() + "; stderr: " + strconv.QuoteToASCII(errb.String()))
	}
}

func wantCode(c int) string {
	if c < 0 {
		return "0 or 1"
	}
	return strconv.Itoa(c)
}
