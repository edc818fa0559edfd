package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
)

// A Handler evaluates one external command, by its base name, in place of
// running it (Config.Commands, and the sandbox's own table): it writes the
// command's output to c.Stdout() and returns nil for status 0, an
// interp.ExitStatus for another status, the error of c.Unsupported or
// c.End to end the run, or ErrUnhandled when this form of the command is
// not one it evaluates (the sandbox then asks its own table, then the text
// utilities of package infx/shellutil, and treats the command as unknown
// when none answers). A handler never starts a process or writes a file.
//
// To add a program (a helper a launcher runs): write a Handler for it and
// add it to the caller's Config.Commands; for InferenceX's programs that is
// infx's scriptCommands.
type Handler func(ctx context.Context, c *Call) error

// ErrUnhandled is what a Handler returns for a command it does not
// evaluate.
var ErrUnhandled = errors.New("command not handled")

// Use says how a command's status and output are used where it is written.
type Use byte

// The uses of a command.
const (
	// UsePlain: a statement whose status nothing tests.
	UsePlain Use = ctxPlain
	// UseCond: its status decides a branch (if/while/&&/||/!, a $? read).
	UseCond Use = ctxCond
	// UseValue: its output is used ($(…), <(…), the left of a pipe).
	UseValue Use = ctxValue
)

// Call is one external command a Handler evaluates.
type Call struct {
	// Args is the command's argv, wrappers (nohup, env NAME=value, …)
	// removed.
	Args []string
	// Pos is where the command is written, Use how its status and output
	// are used there.
	Pos Pos
	Use Use

	sb       *sandbox
	hc       interp.HandlerContext
	ctxDir   string // the interpreter's directory (relative operands; hc.Dir may be a job's)
	extraEnv []string
	site     callSite
	depth    int
	seq      int // the command's Command.Seq
}

// with is c for another command of the same call site: in the job
// environment hc, with extraEnv added to the exported environment (srun,
// docker run, a wrapper's assignments).
func (c *Call) with(hc interp.HandlerContext, args, extraEnv []string) *Call {
	d := *c
	d.hc, d.Args, d.extraEnv = hc, args, extraEnv
	return &d
}

// Stdout is the command's standard output.
func (c *Call) Stdout() io.Writer { return c.hc.Stdout }

// UnknownOutput marks what the command writes to its standard output as
// not known (why says so), when it goes to a file: a later read of the
// file is refused (the read rule) instead of finding what the handler
// printed. Output to the run's log is unaffected.
func (c *Call) UnknownOutput(why string) {
	unknownOutput(c.hc.Stdout, why)
}

// Stderr is the command's standard error.
func (c *Call) Stderr() io.Writer { return c.hc.Stderr }

// Stdin is the command's standard input (nil: none).
func (c *Call) Stdin() io.Reader {
	if c.sb.cfg.Holes && c.hc.Stdin != nil {
		return &holeReader{r: c.hc.Stdin, sb: c.sb, name: c.Args[0]}
	}
	return c.hc.Stdin
}

// Dir is the logical working directory of the command.
func (c *Call) Dir() string { return c.hc.Dir }

// Var is the value of a shell variable at the command and whether it is
// exported ("" and false when unset).
func (c *Call) Var(name string) (value string, exported bool) {
	v := c.hc.Env.Get(name)
	if c.sb.cfg.Holes {
		c.sb.holeIn("the variable "+name+" a command reads", v.String())
	}
	return v.String(), v.Exported
}

// Lookup is the value of a shell variable at the command and whether it
// is set (exported or not).
func (c *Call) Lookup(name string) (value string, set bool) {
	v := c.hc.Env.Get(name)
	if c.sb.cfg.Holes {
		c.sb.holeIn("the variable "+name+" a command reads", v.String())
	}
	return v.String(), v.IsSet()
}

// ExitStatus is what a Handler returns for a command that ends with
// status n (nil for 0).
func ExitStatus(n int) error {
	if n == 0 {
		return nil
	}
	return interp.ExitStatus(uint8(n))
}

// RawArgs is the simple command written at c.Pos as it is written, before
// the shell expands it: the source text of each of its words (quotes,
// escapes, ${…} and $(…) as they are in the script), the command-name word
// first, leading assignments left out. The text is the file's, except
// that the sandbox quotes bare associative-array keys before parsing (two
// added quotes on such lines). ok is false when no simple command of a
// parsed source is written at c.Pos (a command eval runs from a string it
// made, `exec "${ARR[@]}"` of a wrapper, a command of the sandbox's own).
// Words are those of the command as written: a wrapper (nohup, env
// NAME=value, srun …) removed from c.Args is still among them, and one
// word may expand to several arguments or none. When the same position
// holds different text (a `bash -c` string that changes between runs of
// the same line), RawArgs gives the one parsed last.
//
// For a helper whose identity is its source text (package infx/helpers:
// an inline `python3 -c "…"` program is known by the hash of its word as
// written, before ${…} are substituted).
func (c *Call) RawArgs() ([]string, bool) {
	if !c.site.marked {
		return nil, false
	}
	c.sb.mu.Lock()
	defer c.sb.mu.Unlock()
	for i := len(c.sb.raws) - 1; i >= 0; i-- {
		if w, ok := c.sb.raws[i].raw[c.Pos]; ok {
			return append([]string(nil), w...), true
		}
	}
	return nil, false
}

// ReadFile reads a file as the script itself would (the one read rule of
// the sandbox, readKnown: what the run wrote, the runner's documented
// files, a regular file inside the read roots): name is absolute or
// relative to the command's directory. A read the sandbox cannot answer
// is an error that says why (never an empty file); a file that is not
// there is an error satisfying errors.Is(err, fs.ErrNotExist). ctx is the
// one the Handler was called with.
func (c *Call) ReadFile(ctx context.Context, name string) ([]byte, error) {
	if !filepath.IsAbs(name) {
		name = filepath.Join(c.ctxDir, name)
	}
	data, err := c.sb.readKnown(ctx, name)
	if data != nil && c.sb.jail.files != nil {
		// the jail may hand the same bytes to every reader: the
		// caller's copy is its own
		data = bytes.Clone(data)
	}
	return data, err
}

// Memo is make(input) made once per Cache (Config.Cache) for the same
// kind and input, shared by every run that uses the Cache: make must be
// a pure function of input (the same bytes always give the same value),
// and the value it returns must never be changed by anyone — callers of
// Memo receive the same value. Without a Cache, or past the Cache's
// bound on the input bytes it holds (32 MiB), make runs each time.
func (c *Call) Memo(kind string, input []byte, make func([]byte) any) any {
	return c.sb.cache.memoOf(kind, input, make)
}

// memoOf is Call.Memo on c.
func (c *Cache) memoOf(kind string, input []byte, make func([]byte) any) any {
	if c == nil {
		return make(input)
	}
	c.mu.Lock()
	v, ok := c.memo[memoKey{kind, string(input)}]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = make(input)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, had := c.memo[memoKey{kind, string(input)}]; had {
		return old // made at the same time by another run: one value for all
	}
	if c.memoBytes+len(input)+len(kind) <= memoMaxBytes {
		if c.memo == nil {
			c.memo = map[memoKey]any{}
		}
		c.memo[memoKey{kind, string(input)}] = v
		c.memoBytes += len(input) + len(kind)
	}
	return v
}

// Environ is the environment the command runs with ("NAME=value",
// sorted by name): the exported variables at the command, with what a
// wrapper or job launcher (srun --export, docker run -e) sets for it.
func (c *Call) Environ() []string {
	env := c.environ()
	if c.sb.cfg.Holes {
		// a program that reads its environment looks at it (holes.go)
		for _, kv := range env {
			c.sb.holeIn("the environment of "+c.Args[0], kv)
		}
	}
	return env
}

// environ is Environ without the hole rule.
func (c *Call) environ() []string {
	return visibleEnv(mergeEnv(exported(c.hc.Env), c.extraEnv, nil))
}

// Getenv is name's value in the environment the command runs with and
// whether it is there (Getenvs of name alone).
func (c *Call) Getenv(name string) (string, bool) {
	v, ok := c.Getenvs(name)[name]
	return v, ok
}

// Getenvs is the values of names in the environment the command runs
// with (Environ's, listed once; the last assignment of a name wins), by
// name, for those set: for a program that reads some of its variables,
// in a run with holes only those it reads are looked at (holes.go).
func (c *Call) Getenvs(names ...string) map[string]string {
	out := map[string]string{}
	for _, kv := range c.environ() {
		if k, v, _ := strings.Cut(kv, "="); slices.Contains(names, k) {
			out[k] = v
		}
	}
	if c.sb.cfg.Holes {
		for _, n := range names {
			c.sb.holeIn("the variable "+n+" a program reads", out[n])
		}
	}
	return out
}

// IsFile reports whether name (relative to the interpreter's directory,
// through the run's mounts) is a regular file the sandbox can read.
func (c *Call) IsFile(name string) bool {
	return c.sb.jail.isFile(c.sb.absIn(c.ctxDir, name))
}

// Unsupported ends the run at the command as Unsupported (Trace.Stop, if
// none is set yet): command names it, msg says why the sandbox cannot
// follow the script past it. The handler returns the error.
func (c *Call) Unsupported(command, msg string) error {
	c.sb.mu.Lock()
	if c.sb.stopReason == nil {
		c.sb.stopReason = &Unsupported{Pos: c.Pos, Command: command, Msg: msg}
	}
	c.sb.mu.Unlock()
	c.sb.stop()
	return errStopped
}

// End ends the run at the command, successfully: Trace.End records it
// (the first one, when background commands race) with the exported
// environment, and the run's status is 0. For a command after which
// nothing the script does matters (a job submission whose job is rendered
// from the Trace). The handler returns the error.
func (c *Call) End() error {
	c.sb.mu.Lock()
	if c.sb.run.End == nil {
		c.sb.run.End = &End{Argv: append([]string(nil), c.Args...), Dir: c.hc.Dir, At: c.Pos, Env: visibleEnv(exported(c.hc.Env))}
	}
	c.sb.mu.Unlock()
	c.sb.stop()
	return errEnded
}

// WriteFile records that the command wrote data to the file name (an
// absolute path, or relative to the command's directory) — in memory, as
// the script's own writes are (Trace.Writes, Trace.Written): a program
// whose documented effect is a file the script then reads (an installer's
// env script) makes that file known to later reads.
func (c *Call) WriteFile(name, data string) {
	sb := c.sb
	lp := name
	if !filepath.IsAbs(lp) {
		lp = filepath.Join(c.hc.Dir, lp)
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.closed {
		return
	}
	lp = filepath.Clean(lp)
	sb.run.Writes[lp] = data
	delete(sb.unknownWrites, lp)
	sb.noteWrite(lp, data, false, false)
}

// EditFile records that the command changes the file name (an absolute
// path, or relative to the command's directory) in a way its handler
// describes but cannot apply here, because the file's content is not known
// to the run (a recipe in a clone srtctl reads later): Trace.Edits gets
// {Path, At, Seq, Program, Data} in execution order (Seq is the
// command's, Command.Seq), for the caller that knows the file to apply.
// program names the handler's model of the program, data is its input as
// the handler encodes it.
func (c *Call) EditFile(name, program, data string) {
	sb := c.sb
	lp := name
	if !filepath.IsAbs(lp) {
		lp = filepath.Join(c.hc.Dir, lp)
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.closed {
		return
	}
	sb.run.Edits = append(sb.run.Edits, FileEdit{Path: filepath.Clean(lp), At: c.Pos, Seq: c.seq, Program: program, Data: data})
}

// errEnded ends a run at a handler's Call.End.
var errEnded = errors.New("the run ended at a command a handler ends it at")

// onRunner reports whether a command is installed on the runner besides
// the ones the sandbox evaluates: onRunner, or a name of Config.Commands.
func (sb *sandbox) onRunner(name string) bool {
	if onRunner[name] {
		return true
	}
	_, ok := sb.cfg.Commands[name]
	return ok
}

// builtinHandlers is the sandbox's own table of external commands: the
// shell's process and file tools as a runner has them (bash, cat, tee, ls,
// find, mktemp, realpath, which, env, cp, sed -i on written files, git
// clone/checkout), the job tools of a Slurm cluster as a granted
// allocation (srun, salloc, sbatch, squeue, …) and containers (docker /
// podman run, enroot), and the checkout staging of launchers (tar,
// sbcast). Made per run: its handlers run scripts, which reach the table.
func builtinHandlers() map[string]Handler {
	t := map[string]Handler{
		"bash": hBash, "sh": hBash,
		"srun":   hSrun,
		"docker": hDocker, "podman": hDocker,
		"salloc":     hSalloc,
		"sbatch":     hSbatch,
		"squeue":     hSqueue,
		"unsquashfs": hSquash, "enroot": hSquash,
		"git":      func(ctx context.Context, c *Call) error { return c.sb.git(ctx, c.hc, c.Args, c.site) },
		"cp":       hCp,
		"findmnt":  hFindmnt,
		"sed":      hSed,
		"tar":      hTar,
		"sbcast":   hSbcast,
		"which":    hWhich,
		"cat":      hCat,
		"ls":       hLs,
		"mktemp":   func(_ context.Context, c *Call) error { return c.sb.mktemp(c.hc, c.Args[1:]) },
		"realpath": hRealpath, "readlink": hRealpath,
		"find": hFind,
		"env":  hEnv, "printenv": hEnv,
		"tee": hTee,
		"ps":  hPs,
	}
	t["scancel"] = func(context.Context, *Call) error { return nil }
	for _, n := range []string{"flock", "scontrol", "sinfo"} {
		t[n] = hQuiet
	}
	return t
}

// hQuiet answers a cluster or lock tool as succeeding and printing
// nothing — a lock granted, a query whose answer nothing reads — except
// where the script uses what it prints (or, for flock, runs a command
// under the lock: `flock FILE -c CMD`, `flock FILE CMD …`, whose output
// and status are the command's): that is not known (ErrUnhandled: the
// unknown-command rule makes it Unsupported).
func hQuiet(_ context.Context, c *Call) error {
	if path.Base(c.Args[0]) != "flock" {
		if c.Use == UseValue {
			return ErrUnhandled
		}
		return nil
	}
	if c.Use != UsePlain {
		ops := 0
		for i := 1; i < len(c.Args); i++ {
			a := c.Args[i]
			switch {
			case a == "-c" || a == "--command":
				return ErrUnhandled
			case a == "-w" || a == "--timeout" || a == "-E" || a == "--conflict-exit-code":
				i++
			case strings.HasPrefix(a, "-"):
			default:
				ops++
			}
		}
		if ops > 1 {
			return ErrUnhandled
		}
	}
	return nil
}

func hBash(ctx context.Context, c *Call) error {
	return c.sb.bash(ctx, c, c.Args[1:], nil)
}

func hSrun(ctx context.Context, c *Call) error {
	return c.sb.srun(ctx, c)
}

func hDocker(ctx context.Context, c *Call) error {
	if len(c.Args) > 1 && c.Args[1] == "run" {
		return c.sb.dockerRun(ctx, c)
	}
	return nil
}

func hSalloc(_ context.Context, c *Call) error {
	c.sb.fsmu.Lock()
	c.sb.allocated = true
	c.sb.fsmu.Unlock()
	say(c.hc.Stderr, fmt.Sprintln("salloc: Granted job allocation 1"))
	say(c.hc.Stderr, fmt.Sprintln("salloc: Nodes node-1 are ready for job"))
	return nil
}

func hSbatch(_ context.Context, c *Call) error {
	c.sb.fsmu.Lock()
	c.sb.allocated = true
	c.sb.fsmu.Unlock()
	say(c.hc.Stdout, fmt.Sprintln("Submitted batch job 1"))
	return nil
}

// hSqueue prints an allocation's id when asked for ids by name once the
// run has one (salloc / sbatch); the job list is empty otherwise (a job
// waited on has ended, and before its own allocation a run's stale-job
// cleanup finds none). The name asked about is not read (squeueAsked):
// every job the run allocated is the one it asks about.
func hSqueue(_ context.Context, c *Call) error {
	joined := squeueAsked(c.Args)
	c.sb.fsmu.Lock()
	allocated := c.sb.allocated
	c.sb.fsmu.Unlock()
	if allocated && !strings.Contains(joined, "-j") && !strings.Contains(joined, "--job") && (strings.Contains(joined, "%A") || strings.Contains(joined, "%i")) {
		say(c.hc.Stdout, fmt.Sprintln("1"))
	}
	return nil
}

// squeueAsked is squeue's arguments (args[1:]) joined by spaces without
// the job names they give (squeueName): `--name=NAME` is kept as
// `--name=`, a separate NAME is left out. What hSqueue reads of its
// arguments (a -j or --jobs option, a %A or %i format) is never a name's
// text: a job named "x-job" is asked about by name, not by id.
func squeueAsked(args []string) string {
	var b strings.Builder
	for i := 1; i < len(args); i++ {
		a := args[i]
		if squeueName(args, i) {
			if k, _, ok := strings.Cut(a, "="); ok {
				a = k + "="
			} else {
				continue
			}
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a)
	}
	return b.String()
}

// hSquash: a squash file the run imports (`enroot import -o FILE`) or
// finds valid (`unsquashfs -l FILE` succeeds here) exists from then on.
func hSquash(ctx context.Context, c *Call) error {
	sb := c.sb
	if f := squashOperand(c.Args); f != "" {
		p := sb.abs(ctx, f) // takes fsmu itself
		sb.fsmu.Lock()
		if sb.made == nil {
			sb.made = map[string]bool{}
		}
		sb.made[p] = true
		sb.fsmu.Unlock()
	}
	return nil
}

func hCp(ctx context.Context, c *Call) error {
	c.sb.cpInto(ctx, c.hc, c.Args, c.site)
	return nil
}

// hFindmnt answers `findmnt -n -o FSTYPE -T DIR` of the workspace from the
// runner facts (Facts.WorkspaceFS).
func hFindmnt(_ context.Context, c *Call) error {
	args, hc := c.Args, c.hc
	if fs := c.sb.facts.WorkspaceFS; fs != "" && len(args) >= 2 {
		target, fstype := "", false
		for j := 1; j < len(args); j++ {
			switch {
			case args[j] == "-T" && j+1 < len(args):
				target = args[j+1]
				j++
			case args[j] == "-o" && j+1 < len(args):
				fstype = args[j+1] == "FSTYPE"
				j++
			}
		}
		c.sb.holeIn("GITHUB_WORKSPACE", hc.Env.Get("GITHUB_WORKSPACE").String())
		if ws := hc.Env.Get("GITHUB_WORKSPACE").String(); fstype && target != "" && ws != "" && within(filepath.Clean(target), filepath.Clean(ws)) {
			say(hc.Stdout, fmt.Sprintln(fs))
			return nil
		}
	}
	return ErrUnhandled
}

// hSed edits in memory, as sed would on disk, `sed -i EXPR FILE` of a file
// the run wrote (a heredoc'd srtslurm.yaml); other forms are the text
// utility's.
//
// `sed -i` of files of the container image (outside the checkout and the
// read roots) in a statement whose status nothing tests is recorded as a
// patch (Trace.Patches): the run does not know their content, and nothing
// it runs reads them back here.
func hSed(ctx context.Context, c *Call) error {
	if c.sb.sedInPlace(c.Args) {
		return nil
	}
	if c.Use == UsePlain && c.sb.imagePatch(ctx, c) {
		return nil
	}
	return ErrUnhandled
}

func hTar(ctx context.Context, c *Call) error {
	c.sb.tar(ctx, c.Args[1:])
	return nil
}

// hSbcast: sbcast [opts] SOURCE DEST: DEST holds what SOURCE holds.
func hSbcast(_ context.Context, c *Call) error {
	var ops []string
	for _, a := range c.Args[1:] {
		if !strings.HasPrefix(a, "-") {
			ops = append(ops, a)
		}
	}
	if len(ops) == 2 {
		c.sb.fsmu.Lock()
		if from, ok := c.sb.archives[ops[0]]; ok {
			c.sb.archives[ops[1]] = from
		}
		c.sb.fsmu.Unlock()
	}
	return nil
}

func hWhich(_ context.Context, c *Call) error {
	c.sb.mu.Lock()
	out, status, known := c.sb.lookup(c.Pos, append([]string{"type", "-P"}, c.Args[1:]...))
	c.sb.mu.Unlock()
	if known {
		_, _ = io.WriteString(c.hc.Stdout, out) // a reader that stopped reading changes no status
		if status != 0 {
			return interp.ExitStatus(1)
		}
		return nil
	}
	return ErrUnhandled
}

// hLs lists what the sandbox can see (sandbox.ls); a listing of a
// directory it does not have (outside the checkout and the read roots,
// one entered above the checkout) is not known: Unsupported where the
// output or status is used (the read rule, readKnown).
func hLs(ctx context.Context, c *Call) error {
	if c.Use != UsePlain {
		ops := []string{}
		for _, a := range c.Args[1:] {
			if !strings.HasPrefix(a, "-") {
				ops = append(ops, a)
			}
		}
		if len(ops) == 0 {
			ops = []string{"."}
		}
		for _, a := range ops {
			if why := c.sb.unknownDir(ctx, c.hc, c.sb.abs(ctx, a)); why != "" {
				return c.Unsupported("ls", fmt.Sprintf("a listing of %s: it is not known to the sandbox (%s)", a, why))
			}
		}
	}
	return c.sb.ls(ctx, c.hc, c.Args[1:])
}

func hCat(ctx context.Context, c *Call) error {
	return c.sb.cat(ctx, c, c.Args[1:])
}

func hRealpath(ctx context.Context, c *Call) error {
	if out, ok := c.sb.realpath(ctx, c.Args); ok {
		_, _ = io.WriteString(c.hc.Stdout, out) // a reader that stopped reading changes no status
		return nil
	}
	return ErrUnhandled
}

func hFind(ctx context.Context, c *Call) error {
	if err, ok := c.sb.find(ctx, c.hc, c.Args[1:]); ok {
		return err
	}
	return ErrUnhandled
}

// hEnv: `env` alone and `printenv [NAME…]` print the exported
// environment (`env NAME=value CMD` is a wrapper, removed before).
func hEnv(_ context.Context, c *Call) error {
	args, hc := c.Args, c.hc
	if len(args) == 1 {
		for _, kv := range visibleEnv(exported(hc.Env)) {
			say(hc.Stdout, fmt.Sprintln(kv))
		}
		return nil
	}
	if path.Base(args[0]) == "printenv" {
		st := 0
		for _, k := range args[1:] {
			if v := hc.Env.Get(k); v.IsSet() && v.Exported {
				say(hc.Stdout, fmt.Sprintln(v.String()))
			} else {
				st = 1
			}
		}
		if st != 0 {
			return interp.ExitStatus(1)
		}
		return nil
	}
	return ErrUnhandled
}

func hTee(_ context.Context, c *Call) error {
	c.sb.tee(c.hc, c.Args[1:])
	return nil
}
