package infx

import (
	"context"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
)

// This file configures the shell sandbox (package infx/sandbox) as an
// InferenceX runner: the programs of the InferenceX harness and of
// srt-slurm (scriptCommands), the server launches the scripts are read for
// (serverCommand), the benchmark library's stubs, the runner's documented
// device files, the model staging rule and srt-slurm's release tags.

// benchmarkLibStub follows benchmarks/benchmark_lib.sh when a script sources
// it: the helpers that wait for the server, drive the benchmark client, run
// evals, monitor GPUs or collect results become no-ops. None of them changes
// the server command (they run after it, or prepare the client); their real
// bodies poll the server with curl in loops the sandbox cannot answer.
// Every other function of the library runs as written.
// Source: SemiAnalysisAI/InferenceX benchmarks/benchmark_lib.sh (843c6254).
const benchmarkLibStub = `
check_env_vars() { :; }
wait_for_server_ready() { :; }
wait_for_ready() { :; }
run_benchmark_serving() { :; }
start_gpu_monitor() { :; }
stop_gpu_monitor() { :; }
wait_for_amd_gpu_clean() { :; }
run_eval() { :; }
run_lm_eval() { :; }
run_swebench_eval() { :; }
append_lm_eval_summary() { :; }
install_agentic_deps() { :; }
agentic_pip_install() { :; }
ensure_agentic_uv() { :; }
ensure_hf_cli() { :; }
resolve_trace_source() { :; }
build_replay_cmd() { :; }
run_agentic_benchmark() { :; }
run_agentic_replay_and_write_outputs() { :; }
write_agentic_result_json() { :; }
validate_required_agentic_server_metrics() { :; }
move_profile_trace_for_relay() { :; }
stop_background_process_tree() { :; }
`

// runnerHostFiles are the device-state files the scripts read whose
// content on a runner is documented, by runner SKU. Anything else under
// /sys, /proc or /dev is unknown to the sandbox.
//   - b300: /sys/class/infiniband/mlx5_0/ports/1/state is ACTIVE on a
//     healthy node: benchmarks/single_node/agentic/kimik3_fp4_b300_vllm_mtp.sh
//     (InferenceX 843c6254) picks the first ACTIVE rail starting at mlx5_0
//     "so a healthy node is unchanged" (mlx5_0 is down only on b300-016 and
//     b300-017). The kernel prints "<state number>: <state name>".
func runnerHostFiles(sku string) map[string]string {
	if sku == "b300" {
		return map[string]string{"/sys/class/infiniband/mlx5_0/ports/1/state": "4: ACTIVE\n"}
	}
	return nil
}

// ScriptOptions bound and configure one script run as an InferenceX
// runner runs it (RunScript).
type ScriptOptions struct {
	// ctx, when set, is the context of the rendering the run is part of
	// (Workspace.Render): the run stops when it is done.
	ctx context.Context
	// Env is the point's environment, "NAME=value" (MODEL, TP, EP_SIZE,
	// CONC, ISL, OSL, …). Nothing from the host environment is passed.
	Env []string
	// ReadRoots are directories the script may read (e.g. the checkout);
	// every write goes to an in-memory sink, reads elsewhere see no file.
	ReadRoots []string
	// Timeout is the wall-time backstop (default sandbox.DefaultTimeout):
	// a run it stops is ErrScriptTimeLimit.
	Timeout time.Duration
	// Steps bounds the number of simple commands run, builtins and
	// function calls included (default sandbox.DefaultSteps).
	Steps int
	// Lib, when set, is the checkout's benchmarks/benchmark_lib.sh: a
	// `source …/benchmark_lib.sh` loads it followed by the no-op stubs of
	// its benchmark-harness helpers (benchmarkLibStub). Empty: a sourced
	// benchmark_lib.sh is read from where the script names it, when it is
	// inside ReadRoots; the stubs follow it the same way.
	Lib string
	// Facts are the machine the hardware probes (nvidia-smi, amd-smi,
	// rocm-smi, nproc, free) describe; zero: probes are unknown commands.
	Facts shellutil.Facts
	// Dir is the working directory the script starts in (default: an
	// empty temporary directory).
	Dir string
	// Params are the script's positional parameters ($1 …).
	Params []string
	// Name is how the script is shown in positions (default: its path).
	Name string
	// Cache, when set, keeps prepared scripts across runs (a Workspace
	// shares one between its points).
	Cache *sandbox.Cache
	// commands, when set, replaces scriptCommands (an AMD batch job's
	// cluster, batchCluster.commands).
	commands map[string]sandbox.Handler
	// choose makes the run's undocumented facts with documented
	// alternatives choice points (sandbox.Config.Choose), answered by
	// choices, at most maxChoices of them (singlenode.go: the points are
	// rendered under every answer).
	choose     bool
	choices    []int
	maxChoices int
	// modelRoot, when set, is sandbox.Config.ModelRoot.
	modelRoot func(name string) bool
	// endAt, when set, is sandbox.Config.EndAt.
	endAt func(t *sandbox.Trace, c *sandbox.Command) bool
	// holes is sandbox.Config.Holes: Env holds holes (batchTask,
	// runnerHoleOutcomes); worlds sandbox.Config.Worlds.
	holes  bool
	worlds []*strings.Replacer
}

// config is the sandbox configuration of a run: opt's bounds and inputs,
// and InferenceX's runner.
func (opt ScriptOptions) config() sandbox.Config {
	cmds := opt.commands
	if cmds == nil {
		cmds = scriptCommands()
	}
	return sandbox.Config{
		Name: opt.Name, Env: opt.Env, ReadRoots: opt.ReadRoots, Dir: opt.Dir, Params: opt.Params,
		Timeout: opt.Timeout, Steps: opt.Steps, Facts: opt.Facts, Cache: opt.Cache,
		Commands:  cmds,
		IsServer:  isServerLaunch,
		Library:   &sandbox.Library{Name: "benchmark_lib.sh", Path: opt.Lib, Stubs: benchmarkLibStub},
		HostFiles: runnerHostFiles(opt.Facts.SKU),
		ModelDir:  isModelDirVar,
		ModelRoot: opt.modelRoot,
		TagCommit: srtSlurmTagCommit,
		Choose:    opt.choose, Choices: opt.choices, MaxChoices: opt.maxChoices,
		EndAt: opt.endAt,
		Holes: opt.holes, Worlds: opt.worlds,
	}
}

// ScriptRun is what running a script recorded (sandbox.Trace), and the
// srtctl apply that ended it.
type ScriptRun struct {
	*sandbox.Trace
	// Srtctl is the srtctl apply that ended the run (multi-node
	// launchers), nil when it reached none.
	Srtctl *SrtctlApply
}

// RunScript runs the shell script at path in the sandbox (package
// infx/sandbox) as an InferenceX runner runs it, with opt.Env: see
// sandbox.Run. A run that reaches `srtctl apply` ends there
// (ScriptRun.Srtctl). Errors: a parse error (PosError file:line:col);
// ErrScriptLimit (a *sandbox.Limit) wrapped in a PosError when a step
// bound is exceeded, ErrScriptTimeLimit (a *sandbox.TimeLimit) when the
// wall-time backstop stopped it; the parent context's error when it ended.
// A non-zero exit status is not an error (ScriptRun.Exit).
func RunScript(path string, opt ScriptOptions) (*ScriptRun, error) {
	return runScript(path, nil, opt)
}

// runScript is RunScript of src (nil: read from path).
func runScript(path string, src []byte, opt ScriptOptions) (*ScriptRun, error) {
	ctx := opt.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	tr, err := sandbox.Run(ctx, sandbox.Script{Path: path, Src: src}, opt.config())
	if err != nil {
		return nil, err
	}
	return &ScriptRun{Trace: tr, Srtctl: srtctlApply(tr.End)}, nil
}

// isServerLaunch reports whether argv is a server launch ScriptProcesses
// recognises: it succeeds in the sandbox wherever it is written.
func isServerLaunch(argv []string) bool {
	_, _, _, _, ok := serverCommand(argv)
	return ok
}

// isModelDirVar reports whether an environment variable holds a staged
// checkpoint directory: MODEL_PATH, any *_MODEL_PATH variable
// (DRAFT_MODEL_PATH) and MODEL (when it is a path). Model staging rule:
// each holds a complete checkpoint.
func isModelDirVar(name string) bool {
	return name == "MODEL_PATH" || name == "MODEL" || strings.HasSuffix(name, "_MODEL_PATH")
}

// srtSlurmTagCommit is the commit a release tag of NVIDIA/srt-slurm names
// (srtslurm.TagCommit); "" for other repositories.
func srtSlurmTagCommit(repo, tag string) string {
	if repo == SrtSlurmRepo {
		return srtslurm.TagCommit(tag)
	}
	return ""
}

// scriptCommands are the programs of the InferenceX harness and of
// srt-slurm the sandbox answers (sandbox.Config.Commands): each is
// installed on the runner. A known helper program a launcher or script
// runs is added here.
func scriptCommands() map[string]sandbox.Handler {
	return map[string]sandbox.Handler{
		"srtctl":          srtctlCmd,
		"make":            makeCmd,
		"curl":            curlCmd,
		"uv":              uvCmd,
		"hf":              hfCmd,
		"huggingface-cli": hfCmd,
		"python":          pythonCmd,
		"python3":         pythonCmd,
		"sbatch":          sbatchCmd,
	}
}

// srtctlCmd ends the run at `srtctl apply` (the job submission of a
// multi-node launcher: what it submits is rendered by package
// infx/srtslurm, so nothing after it changes what the job runs;
// srtctlApply reads it). Other srtctl commands are benign.
func srtctlCmd(_ context.Context, c *sandbox.Call) error {
	if len(c.Args) < 2 || c.Args[1] != "apply" {
		return nil
	}
	return c.End()
}

// makeCmd: srt-slurm's `make setup` (a launcher's clone) fetches the etcd /
// NATS binaries into configs/: it succeeds, printing nothing the launcher
// reads.
func makeCmd(_ context.Context, c *sandbox.Call) error {
	if len(c.Args) > 1 && c.Args[1] == "setup" {
		return nil
	}
	return sandbox.ErrUnhandled
}

// installers are the tool installers launchers pipe from curl into a
// shell: the sandbox models a successful install (the tool is then on the
// runner) and the script text is not fetched or run.
func installers(host string) bool {
	return host == "astral.sh" // uv: https://astral.sh/uv/install.sh (runners/launch_*.sh "Installing srtctl...")
}

// curlCmd: a curl command line that fetches a known tool installer
// succeeds, printing nothing the shell it pipes into runs; the install
// leaves what the installer documents (uvEnv).
func curlCmd(_ context.Context, c *sandbox.Call) error {
	for _, a := range c.Args[1:] {
		if u, err := url.Parse(a); err == nil && u.Scheme == "https" {
			if installers(u.Host) && strings.HasSuffix(u.Path, "/install.sh") {
				dir, text := uvEnv(c)
				c.WriteFile(path.Join(dir, "env"), text)
				return nil
			}
		}
	}
	return sandbox.ErrUnhandled
}

// uvEnv is where uv's installer (https://astral.sh/uv/install.sh, a
// cargo-dist installer) puts uv and the env script launchers source
// (`source $HOME/.local/bin/env`): $UV_INSTALL_DIR, else $XDG_BIN_HOME,
// else $HOME/.local/bin; the script puts that directory first on PATH
// unless it is there already (cargo-dist's env script; "Installing uv"
// in https://docs.astral.sh/uv/getting-started/installation/).
func uvEnv(c *sandbox.Call) (dir, text string) {
	for _, n := range []string{"UV_INSTALL_DIR", "XDG_BIN_HOME"} {
		if v, _ := c.Var(n); v != "" {
			dir = v
			break
		}
	}
	if dir == "" {
		home, _ := c.Var("HOME")
		dir = path.Join(home, ".local", "bin")
	}
	text = "#!/bin/sh\n# add binaries to PATH if they aren't added yet\n# affix colons on either side of $PATH to simplify matching\ncase \":${PATH}:\" in\n    *:\"" + dir + "\":*)\n        ;;\n    *)\n        # Prepending path in case a system-installed binary needs to be overridden\n        export PATH=\"" + dir + ":$PATH\"\n        ;;\nesac\n"
	return dir, text
}

// uvCmd: `uv venv [PATH]` makes a virtual environment (PATH, default
// .venv) whose bin/activate the launchers source before `uv pip install
// -e .` (runners/launch_*-slurm.sh, launch_gb200-nv.sh "Installing
// srtctl..."): activating it sets VIRTUAL_ENV and puts its bin directory
// first on PATH ("How venvs work",
// https://docs.python.org/3/library/venv.html; uv writes virtualenv's
// activate script). Other uv commands are the sandbox's (benign).
func uvCmd(_ context.Context, c *sandbox.Call) error {
	if len(c.Args) < 2 || c.Args[1] != "venv" {
		return sandbox.ErrUnhandled
	}
	dir := ".venv"
	for i := 2; i < len(c.Args); i++ {
		a := c.Args[i]
		switch {
		case a == "--python" || a == "-p" || a == "--prompt" || a == "--index-url" || a == "--extra-index-url" || a == "--cache-dir" || a == "--directory" || a == "--project":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			dir = a
		}
	}
	if !path.IsAbs(dir) {
		dir = path.Join(c.Dir(), dir)
	}
	c.WriteFile(path.Join(dir, "bin", "activate"), "VIRTUAL_ENV="+shellQuote(dir)+"\nexport VIRTUAL_ENV\nPATH=\"$VIRTUAL_ENV/bin:$PATH\"\nexport PATH\n")
	return nil
}

// shellQuote is s in single quotes.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// hfCmd: model staging: MODEL_PATH holds a complete checkpoint, so
// `hf download` succeeds and prints its local directory (--local-dir), or
// the repository id standing for the cache snapshot.
func hfCmd(_ context.Context, c *sandbox.Call) error {
	args := c.Args
	if len(args) > 2 && args[1] == "download" {
		local := ""
		for i := 2; i < len(args); i++ {
			if args[i] == "--local-dir" && i+1 < len(args) {
				local = args[i+1]
			} else if v, ok := strings.CutPrefix(args[i], "--local-dir="); ok {
				local = v
			}
		}
		if local == "" {
			for _, a := range args[2:] {
				if !strings.HasPrefix(a, "-") {
					local = a
					break
				}
			}
		}
		_, _ = io.WriteString(c.Stdout(), local+"\n") // a reader that stopped reading changes no status
	}
	return nil
}

// pythonCmd answers the Python programs of the harness: the inline
// programs of package infx/helpers, known by their text (inlineProgram),
// InferenceX runners/inject_synthetic_acceptance.py, InferenceX
// benchmarks/multi_node/amd_utils/sync.py (syncCmd: a file named sync.py
// is a known version or unsupported), and the scripts' checks of a staged
// checkpoint (checkpointProbe). Other programs are unknown.
func pythonCmd(ctx context.Context, c *sandbox.Call) error {
	if handled, err := inlineProgram(ctx, c); handled {
		return err
	}
	if mods, ok := importProbe(c); ok {
		return importChoice(c, mods)
	}
	args := c.Args
	if len(args) > 1 && path.Base(args[1]) == "inject_synthetic_acceptance.py" && c.IsFile(args[1]) {
		return syntheticCmd(ctx, c)
	}
	if len(args) > 1 && path.Base(args[1]) == "sync.py" && c.IsFile(args[1]) {
		return syncCmd(ctx, c)
	}
	if out, ok := checkpointProbe(c); ok {
		_, _ = io.WriteString(c.Stdout(), out) // a reader that stopped reading changes no status
		return nil
	}
	return sandbox.ErrUnhandled
}

// checkpointProbe answers the scripts' python3 checks of a staged
// checkpoint: a program (`python3 -c CODE …`, or `python3 - ARGS` reading
// it from stdin) that reads a checkpoint's config.json, *.safetensors or
// safetensors index. Model staging rule: MODEL_PATH holds a complete
// checkpoint, so the check succeeds; a program that prints the snapshot it
// found prints its first path argument's HF-cache snapshot
// (<dir>/snapshots/main: the staged cache's refs/main names revision
// "main"). Anything else is left to the caller (an unknown command).
func checkpointProbe(c *sandbox.Call) (string, bool) {
	args := c.Args
	code, rest := "", []string(nil)
	switch {
	case len(args) >= 3 && args[1] == "-c":
		code, rest = args[2], args[3:]
	case len(args) >= 2 && args[1] == "-" && c.Stdin() != nil:
		// A read error ends the program text like its end does.
		data, _ := io.ReadAll(io.LimitReader(c.Stdin(), 1<<20))
		code, rest = string(data), args[2:]
	default:
		return "", false
	}
	if !(strings.Contains(code, "safetensors") || strings.Contains(code, "config.json") || strings.Contains(code, "index.json")) {
		return "", false
	}
	if strings.Contains(code, "print(snapshot") && len(rest) > 0 {
		return strings.TrimRight(rest[0], "/") + "/snapshots/main\n", true
	}
	return "", true
}

// SrtctlApply is the `srtctl apply -f FILE[:selector]` that ends a
// multi-node launcher's run in the sandbox: what it submits is rendered by
// package infx/srtslurm, so the run stops there (nothing after it changes
// what the job runs).
type SrtctlApply struct {
	Argv []string `json:"argv"`
	// File is the -f value as written (FILE[:selector]); Dir the logical
	// working directory it is relative to.
	File string `json:"file"`
	Dir  string `json:"dir"`
	At   Pos    `json:"at"`
	// Env is the exported environment at the call (NAME=value, sorted).
	Env []string `json:"env,omitempty"`
	// SetupScript is the setup script override the job gets: --setup-script,
	// else SRTCTL_SETUP_SCRIPT exported by the launcher (sbatch passes the
	// environment on; srtctl do_sweep reads it).
	SetupScript string `json:"setupScript,omitempty"`
}

// srtctlApply reads the srtctl apply a run ended at (srtctlCmd); nil when
// it ended at none.
func srtctlApply(end *sandbox.End) *SrtctlApply {
	if end == nil || len(end.Argv) < 2 || path.Base(end.Argv[0]) != "srtctl" {
		return nil
	}
	args := end.Argv
	file := ""
	for j := 2; j < len(args); j++ {
		switch a := args[j]; {
		case (a == "-f" || a == "--file" || a == "--config") && j+1 < len(args):
			file = args[j+1]
			j++
		case strings.HasPrefix(a, "--file="), strings.HasPrefix(a, "-f="):
			_, file, _ = strings.Cut(a, "=")
		}
	}
	setup := ""
	for j := 2; j < len(args); j++ {
		if args[j] == "--setup-script" && j+1 < len(args) {
			setup = args[j+1]
		} else if v, ok := strings.CutPrefix(args[j], "--setup-script="); ok {
			setup = v
		}
	}
	if setup == "" {
		for _, kv := range end.Env {
			if v, ok := strings.CutPrefix(kv, "SRTCTL_SETUP_SCRIPT="); ok && v != "" {
				setup = v
			}
		}
	}
	return &SrtctlApply{Argv: args, File: file, Dir: end.Dir, At: end.At, Env: end.Env, SetupScript: setup}
}

// within reports whether the path p is dir or inside it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}
