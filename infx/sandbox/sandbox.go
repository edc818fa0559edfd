package sandbox

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/syntaxwalk"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"mvdan.cc/sh/v3/syntax"
)

// absRoots are the read roots as absolute, cleaned paths.
func absRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		if a, err := filepath.Abs(r); err == nil {
			out = append(out, filepath.Clean(a))
		}
	}
	return out
}

// logicalTmp is the runner's temporary directory as scripts see it
// ($TMPDIR, mktemp's default, the default working directory): an empty
// directory of the sandbox's own that exists only in memory.
const logicalTmp = "/tmp"

// noTempDir is the TMPDIR the interpreter itself is given (mvdan.cc/sh/v3
// takes it for its process-substitution FIFOs and opens
// "$TMPDIR/sh-interp-*" with os.OpenFile, past the open handler): a path
// with a NUL byte, which no system call accepts, so the interpreter can
// neither create a FIFO nor open a file of a script's choosing. Scripts
// see logicalTmp (the run's first statement sets it back).
const noTempDir = "/\x00cookbook-sync-no-tmpdir"

// maxScriptDepth bounds how deeply scripts may start scripts.
const maxScriptDepth = 8

// runText is Run with the script's text: path is Trace.File, and the name in
// positions unless cfg.Name.
func runText(parent context.Context, path string, src []byte, cfg Config) (*Trace, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Steps <= 0 {
		cfg.Steps = DefaultSteps
	}
	name := cfg.Name
	if name == "" {
		name = path
	}
	cache := cfg.Cache
	if cache == nil {
		cache = &Cache{}
	}
	sb := &sandbox{file: path, name: name, cache: cache, base: make(map[string]string, 7+len(cfg.Env)), run: &Trace{File: path, Writes: map[string]string{}},
		steps: cfg.Steps, maxIters: cfg.Steps, funcs: map[string]bool{}, funcCalls: MaxFuncCalls, facts: cfg.Facts, prepared: map[string]string{},
		cfg: cfg, handlers: builtinHandlers()}
	sb.roots = absRoots(cfg.ReadRoots)
	sb.jail = newJail(sb.roots)
	sb.jail.files = cache.fixedFiles()
	defer sb.jail.close()
	sb.vdirs = map[string]bool{logicalTmp: true}
	if lib := cfg.Library; lib != nil && lib.Path != "" {
		var data []byte
		var err error
		if a, aerr := filepath.Abs(lib.Path); aerr == nil && sb.jail.contains(a) {
			data, err = sb.jail.readInput(a)
		} else {
			data, err = launch.ReadInput(lib.Path)
		}
		if err == nil {
			sb.lib = data
			sb.hasLib = true
		}
	}
	file, err := sb.parseScript(name, src)
	if err != nil {
		return nil, err
	}
	if cfg.Library != nil {
		for _, f := range cache.libraryStubFuncs(cfg.Library.Stubs) {
			sb.funcs[f] = true
		}
	}
	// Nothing of this machine is used: no temporary directory is made
	// (writes go to memory, process substitutions are rewritten into
	// in-memory files), the default working directory is the logical
	// logicalTmp, and the environment is only the one given (the tool's
	// own, with its tokens, is never read).
	dir := logicalTmp
	if cfg.Dir != "" {
		dir = cfg.Dir
		sb.startDir = filepath.Clean(cfg.Dir)
	}
	// HOME and TMPDIR are logical paths (what scripts derive from them
	// must not depend on this machine). UID/EUID/GID are a logical runner
	// user's, so that nothing of this machine (the interpreter would take
	// the host's) reaches the output.
	env := []string{"HOME=/home/runner", "PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + logicalTmp, "PWD=" + dir, "UID=1000", "EUID=1000", "GID=1000"}
	env = append(env, cfg.Env...)
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			sb.base[k] = v
		}
	}
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, cfg.Timeout)
	defer cancel()
	sb.cancel = cancel
	sb.aw = &arithWatch{w: &sb.out, stop: cancel, pos: func() Pos {
		sb.mu.Lock()
		defer sb.mu.Unlock()
		return sb.lastPos()
	}}
	status, err := sb.runFile(ctx, file, fileRun{name: name, env: env, dir: dir, params: cfg.Params})
	sb.mu.Lock()
	limit, stopR, bad := sb.limit, sb.stopReason, sb.badInput
	line, col, lfile := sb.lastLine, sb.lastCol, sb.lastFile
	endedAt := sb.run.EndedAt != 0
	sb.mu.Unlock()
	if what := sb.holeSeen(); what != "" {
		// whatever else ended the run, it looked at a hole: its outcome
		// is not the values' (holes.go)
		return nil, &HoleError{What: what, At: Pos{File: lfile, Line: line, Col: col}}
	}
	if endedAt {
		// Config.EndAt ended the run, which was not stopping then and
		// ran nothing beside the command (endAt): whatever stopped
		// after it is past the end, not followed
		stopR = nil
	}
	if bad != nil {
		return nil, bad
	}
	if limit != nil {
		return nil, &PosError{File: lfile, Line: line, Col: col, Err: limit}
	}
	if msg := sb.aw.limitMessage(); msg != "" && stopR == nil && !endedAt {
		return nil, &PosError{File: lfile, Line: line, Col: col, Err: limitf(LimitExpansion, "%s (bash would expand it)", msg)}
	}
	if msg, at := sb.aw.message(); msg != "" && stopR == nil && !endedAt {
		// An arithmetic expansion failed (bash: "1/0: division by 0"):
		// bash reports it and does not run the command it was part of, so
		// what the script launches is not what it means to launch. The run
		// is Unsupported where the expansion is written (markArith), in
		// its own file.
		stopR = &Unsupported{Pos: at, Msg: fmt.Sprintf("arithmetic expansion failed: %s (bash reports it and skips the command)", msg)}
		err = nil
	}
	sb.mu.Lock()
	ended := sb.run.End != nil || sb.run.EndedAt != 0
	sb.mu.Unlock()
	if ended && stopR == nil {
		// A handler ended the run (Call.End).
		err, status = nil, 0
	}
	if err != nil && stopR == nil {
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			if parent.Err() != nil {
				return nil, parent.Err()
			}
			return nil, &PosError{File: lfile, Line: line, Col: col, Err: &TimeLimit{After: cfg.Timeout}}
		}
		return nil, &PosError{File: lfile, Line: line, Col: col, Err: err}
	}
	cancel()
	sb.mu.Lock()
	defer sb.mu.Unlock()
	sb.closed = true
	for name, why := range sb.unknownWrites {
		if _, ok := sb.run.Writes[name]; ok {
			if sb.run.Unknown == nil {
				sb.run.Unknown = map[string]string{}
			}
			sb.run.Unknown[name] = why
		}
	}
	sb.run.Stop = stopR
	sb.run.Exit = status
	if status != 0 && sb.exitAt.Line > 0 {
		sb.run.ExitAt = sb.exitAt
	}
	sb.run.ExitMsg = sb.lastErrLine()
	return sb.run, nil
}

// fileRun is how runFile runs a file: as a new bash process named name,
// with env as its whole environment, in dir, with positional parameters
// params, at a nesting depth (0: the run's own script). Nil streams are
// the run's own output and stderr watch.
type fileRun struct {
	name   string
	env    []string
	dir    string
	params []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	depth  int
}

// runFile runs a parsed file in a new interpreter (a new bash process).
// It returns the exit status; errors are the bounds' and the stop's.
func (sb *sandbox) runFile(ctx context.Context, file *syntax.File, fr fileRun) (int, error) {
	name, env, dir, params, depth := fr.name, fr.env, fr.dir, fr.params, fr.depth
	stdin, stdout, stderr := fr.stdin, fr.stdout, fr.stderr
	if depth > maxScriptDepth {
		return 1, limitf(LimitNesting, "scripts nested more than %d deep", maxScriptDepth)
	}
	if stdout == nil {
		stdout = &sb.out
	}
	if stderr == nil {
		stderr = sb.aw
	}
	// The interpreter starts in a real directory (a directory of the
	// checkout, or the one the caller chose); a logical one (a
	// container's working directory, the logical temporary directory) is
	// entered from "/" with cd, which the stat handler resolves through
	// the mounts. The host is not asked about a directory a script names.
	startDir := dir
	if !filepath.IsAbs(dir) || !(sb.jail.isDir(dir) || depth == 0 && filepath.Clean(dir) == sb.startDir && isHostDir(dir)) {
		startDir = "/"
	}
	// The interpreter's own TMPDIR is noTempDir; the script's is set back
	// by the first statement.
	ienv := make([]string, 0, len(env)+1)
	tmpVal, hasTmp := "", false
	oldPWD, hasOldPWD := "", false
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "TMPDIR":
			tmpVal, hasTmp = v, true
			continue
		case "OLDPWD":
			oldPWD, hasOldPWD = v, true
		}
		ienv = append(ienv, kv)
	}
	// TMPDIR where a sorted list has it (newStartEnv then sorts nothing)
	tmp := "TMPDIR=" + noTempDir
	at := len(ienv)
	for i, kv := range ienv {
		if k, _, _ := strings.Cut(kv, "="); compareNameEq(k, "TMPDIR") > 0 {
			at = i
			break
		}
	}
	ienv = slices.Insert(ienv, at, tmp)
	opts := []interp.RunnerOption{
		interp.Env(newStartEnv(ienv)),
		interp.Dir(startDir),
		interp.StdIO(stdin, &errTail{w: stdout, sb: sb}, &errTail{w: stderr, sb: sb}),
		interp.CallHandler(sb.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error { return sb.exec(ctx, args, depth) }
		}),
		interp.OpenHandler(sb.open),
		interp.SourceParser(sb.parseSourced),
		// the guards put into every assignment and file test run without
		// a subshell (interp patch 8): they print nothing and answer ":"
		interp.QuietCalls(func(name string) bool { return name == sizeCheckCmd || name == posCmd }),
		interp.SkipFinalVars(), // the sandbox reads the trace, never Runner.Vars
		// `echo … | …` runs echo first, without a copy of every variable
		// for a stage running beside the next (interp patch 14)
		interp.SequentialPipes(seqPipeStage),
		// every runner of the run counts its goroutines in one place: 0
		// when nothing runs beside the command a handler answers (endAt;
		// interp patch 15)
		interp.Goroutines(&sb.goroutines),
		interp.Patterns(sb.cache.patternCache()),
		interp.StatHandler(sb.stat),
		interp.AccessHandler(sb.access),
		interp.ReadDirHandler2(sb.readDir),
	}
	if sb.cfg.Holes {
		opts = append(opts, interp.InspectHoles(sb.inspectHole))
		if len(sb.cfg.Worlds) > 0 {
			opts = append(opts, interp.HoleWorlds(sb.worlds))
		}
	}
	if len(params) > 0 {
		opts = append(opts, interp.Params(append([]string{"--"}, params...)...))
	}
	runner, err := interp.New(opts...)
	if err != nil {
		return 1, err
	}
	// bash sets BASH_SOURCE (the interpreter does not): the file running,
	// then the files that sourced it (withSource).
	initText := "BASH_SOURCE=(" + bashQuote(name) + ")"
	if hasTmp {
		initText += "\nexport TMPDIR=" + bashQuote(tmpVal)
	} else {
		initText += "\nunset TMPDIR"
	}
	if startDir != dir {
		initText += "\ncd " + bashQuote(dir) + " 2>/dev/null || true"
		if hasOldPWD {
			initText += "\nOLDPWD=" + bashQuote(oldPWD)
		} else {
			initText += "\nunset OLDPWD"
		}
	}
	if init := sb.cache.runParse(initText, name); init != nil {
		if err := sb.runSafe(ctx, runner, init); err != nil {
			return 1, err
		}
	}
	err = sb.runSafe(ctx, runner, file)
	status := 0
	var es interp.ExitStatus
	if errors.As(err, &es) {
		status = int(es)
		err = nil
	}
	if err == nil && ctx.Err() == nil {
		// Let background statements (`( … ) &`) reach the exec handler;
		// one that never ends (a monitor loop) is abandoned, not an error.
		if wait := sb.cache.runParse("wait", name); wait != nil {
			wctx, wcancel := context.WithTimeout(ctx, 250*time.Millisecond)
			_ = sb.runSafe(wctx, runner, wait) // a background statement still running is abandoned
			wcancel()
		}
	}
	sb.mu.Lock()
	stopped := sb.stopReason != nil
	sb.mu.Unlock()
	if stopped {
		return status, errStopped
	}
	return status, err
}

// runSafe runs a parsed file in runner. A panic of the interpreter (input
// it does not handle, such as `+=0[`, an assignment to an empty name) ends
// the run as Unsupported: the script cannot be followed, and no Go stack
// trace reaches the output. The position is the command last reached in
// f, or f's first statement when the interpreter failed before reaching
// any (the init text's positions say nothing of the script).
func (sb *sandbox) runSafe(ctx context.Context, runner *interp.Runner, f *syntax.File) (err error) {
	sb.mu.Lock()
	before := sb.lastPos()
	sb.mu.Unlock()
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		msg := "the shell interpreter (mvdan.cc/sh/v3) failed on this input"
		switch v := r.(type) {
		case string:
			msg += ": " + firstLine(v)
		case error:
			msg += ": " + firstLine(v.Error())
		}
		sb.mu.Lock()
		at := sb.lastPos()
		if at == before && len(f.Stmts) > 0 {
			p := f.Stmts[0].Pos()
			at = Pos{File: f.Name, Line: int(p.Line()), Col: int(p.Col())}
		}
		if sb.stopReason == nil {
			sb.stopReason = &Unsupported{Pos: at, Msg: msg}
		}
		sb.mu.Unlock()
		sb.stop()
		err = errStopped
	}()
	return runner.Run(ctx, f)
}

// firstLine is s up to its first newline, at most 200 bytes.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// inputError ends the run on bad input in a file of the checkout (a
// script or sourced file that does not parse): Run returns err.
func (sb *sandbox) inputError(err error) {
	sb.mu.Lock()
	if sb.badInput == nil && sb.run.EndedAt == 0 {
		sb.badInput = err
	}
	if sb.stopReason == nil {
		sb.stopReason = &Unsupported{Msg: err.Error()}
	}
	sb.mu.Unlock()
	sb.stop()
}

// stop cancels the run being followed: the whole run, or the fenced
// child script it is in (runFenced).
func (sb *sandbox) stop() {
	sb.stopMu.Lock()
	c := sb.cancel
	sb.stopMu.Unlock()
	if c != nil {
		c()
	}
}

// errStopped ends a run at a command the sandbox cannot evaluate.
var errStopped = errors.New("stopped at a command the sandbox cannot evaluate")

// sandbox holds the handlers' state; background subshells call them from
// other goroutines, hence the mutex.
type sandbox struct {
	mu sync.Mutex
	// holeMu guards hole, the run's first look at a hole (holes.go).
	holeMu sync.Mutex
	hole   string
	// diffScope, diffVersion and diffKVs are the last envDiff (sb.mu):
	// the environment it read (interp.EnvironVersion) and its answer.
	diffScope   any
	diffVersion uint64
	diffKVs     []string
	// rootDiffs caches rootDiff; overlaidBuf is envDiffFast's listing,
	// kept for the next call (sb.mu).
	rootDiffs   map[rootBase][]int
	overlaidBuf []overlaid
	file        string
	roots       []string
	jail        *jail           // every read of the disk (jail.go)
	vdirs       map[string]bool // logical directories that exist only in memory (logicalTmp, git clones)
	startDir    string          // Config.Dir, cleaned
	iters       int             // loop iterations run (stepCmd)
	maxIters    int             // Config.Steps
	base        map[string]string
	run         *Trace
	steps       int
	// goroutines counts the interpreter goroutines of the run that are
	// running (background statements, pipeline stages beside the next):
	// interp.Goroutines, shared by every runner of the run.
	goroutines atomic.Int64
	funcs      map[string]bool    // shell functions declared in any parsed file
	funcCalls  int                // function calls left (MaxFuncCalls)
	limit      error              // a bound exceeded inside a subshell
	stopMu     sync.Mutex         // guards cancel
	cancel     context.CancelFunc // cancels the innermost run being followed (stop; a fenced child's, else the run's)
	// lastFile/lastLine/lastCol is the last marked command reached.
	lastFile          string
	lastLine, lastCol int
	exitAt            Pos
	name              string // the run's top-level script name
	cache             *Cache // prepared files
	lib               []byte // Config.Library's text
	hasLib            bool
	prepared          map[string]string // sourced .sh path → marked text
	facts             shellutil.Facts
	stopReason        *Unsupported
	cfg               Config             // the run's configuration
	handlers          map[string]Handler // builtinHandlers
	closed            bool               // the run is over: record nothing more
	out               limitedBuffer
	aw                *arithWatch
	errLines          []string               // the last lines written to stderr
	fnCtx             byte                   // context of the current outermost function call
	badInput          error                  // a file of the checkout that does not parse (inputError)
	tmpCount          int                    // mktemp names made
	fsmu              sync.Mutex             // guards mounts and archives (taken without mu)
	mounts            map[string]string      // logical directory → real directory (sandbox.mount)
	archives          map[string]string      // tar archive (as named) → the directory it holds
	cloneDirs         []string               // logical directories standing for git clones (git.go)
	allocated         bool                   // salloc / sbatch ran: the run has a Slurm job
	seq               int                    // Command.Seq / WrittenFile.Seq counter (mu)
	made              map[string]bool        // files a modelled command made or found (squash images)
	sourcing          string                 // the file the last `source` names (mu), prepared when opened
	unknownWrites     map[string]string      // written files whose content is not known (mu): why
	unknownDirs       map[string]bool        // directories entered with cd that the sandbox does not have (fsmu)
	raws              []*preparedFile        // source words of the simple commands of each file parsed, by position, the last parsed last (mu; Call.RawArgs)
	conds             []*condScope           // conditions being evaluated whose outcome may be a choice (mu; choice.go)
	bgRunning         int                    // background compound statements running (mu; bgCmd)
	bgStarts          []int                  // Seq at each open bgStartCmd (mu; bgjobs.go)
	jobs              map[int]*bgJob         // background jobs by pseudo PID (mu; bgjobs.go)
	colon             []string               // colonCmd's answer, made once (mu)
	factAnswers       map[string]int         // the answer each machine fact got (mu; chooseFact)
	assumed           []assumedCmd           // commands not evaluated that ran in a background job (mu; bgjobs.go)
	containerBases    []map[string]string    // the environment each container started with (mu; containerVar)
	afterUnfollowed   atomic.Pointer[string] // why no file is known after a fenced child stopped (fence.go)
	trapExit          bool                   // the exit being run follows an exit of its file from a function body (call)
}

// errTail passes output on and keeps the last lines a script printed
// (Trace.ExitMsg: the message before an exit, on stdout or stderr).
type errTail struct {
	w  io.Writer
	sb *sandbox
}

func (e *errTail) Write(b []byte) (int, error) {
	e.sb.mu.Lock()
	// line by line, without copying what is not kept: a line becomes a
	// string only when it is kept, the last four kept in place
	for rest := b; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '+' {
			continue
		}
		cut := len(line) > 300
		if cut {
			line = line[:300]
		}
		if n := len(e.sb.errLines); n > 0 && tailEquals(e.sb.errLines[n-1], line, cut) {
			continue
		}
		l := string(line)
		if cut {
			l += "…"
		}
		if len(e.sb.errLines) == 4 {
			copy(e.sb.errLines, e.sb.errLines[1:])
			e.sb.errLines = e.sb.errLines[:3]
		}
		e.sb.errLines = append(e.sb.errLines, l)
	}
	e.sb.mu.Unlock()
	return e.w.Write(b)
}

// tailEquals reports whether kept, a line errTail kept, is line (cut: its
// first 300 bytes, kept with "…" after them).
func tailEquals(kept string, line []byte, cut bool) bool {
	if cut {
		s, ok := strings.CutSuffix(kept, "…")
		return ok && s == string(line)
	}
	return kept == string(line)
}

func (sb *sandbox) lastErrLine() string {
	if len(sb.errLines) == 0 {
		return ""
	}
	return sb.errLines[len(sb.errLines)-1]
}

// call is the interpreter's call handler: every simple command, builtins
// and function calls included, passes here first (sb.mu held). It reads
// the command's marker (callSite), answers the sandbox's own guard
// commands (guardCmd), counts the command against the bounds (countCmd),
// answers or adjusts the builtins whose real behaviour would differ from
// a runner's or touch the host (shellBuiltin), and marks an external
// command for the exec handler with its position and context.
func (sb *sandbox) call(ctx context.Context, args []string) ([]string, error) {
	hc := interp.HandlerCtx(ctx)
	sb.mu.Lock()
	defer sb.mu.Unlock()
	at, kind, args := sb.callSite(hc, args)
	if len(args) == 0 {
		return sb.colonCmd(), nil
	}
	if args[0] == condBeginCmd || args[0] == condEndCmd || args[0] == bgCmd {
		return sb.condGuard(args)
	}
	if args[0] == bgStartCmd || args[0] == bgDoneCmd {
		return sb.bgGuard(args), nil
	}
	if handled, err := sb.guardCmd(hc, at, args); err != nil {
		return nil, err
	} else if handled {
		return sb.colonCmd(), nil
	}
	if args[0] == nameCheckCmd {
		return []string{"printf", "%s", nameOperand(args[1:])}, nil
	}
	args = nameArgs(args)
	if args[0] == "eval" && len(args) > 1 {
		// eval'd text gets the name guards a file gets (guardNames).
		text := strings.Join(args[1:], " ")
		if g := guardEvalText(text); g != text {
			args = []string{"eval", g}
		}
	}
	if err := sb.countCmd(args); err != nil {
		return nil, err
	}
	if err := sb.condCommand(at, args); err != nil {
		return nil, err
	}
	if args[0] == "exit" {
		// An exit in a function body after an exit of the same file (a
		// cleanup function of an EXIT trap: `trap cleanup EXIT` whose
		// body ends with `exit "$rc"`) is not where the script stopped:
		// the first exit stays Trace.ExitAt.
		sb.trapExit = kind == ctxFunc && sb.exitAt.Line > 0 && sb.exitAt.File == at.File
	}
	if kind == ctxFunc && !sb.funcs[args[0]] {
		// A command in a function body takes the context of the call.
		kind = sb.fnCtx
		if kind == 0 {
			kind = ctxPlain
		}
	}
	args, done, err := sb.shellBuiltin(ctx, hc, at, kind, args)
	if done {
		return args, err
	}
	if sb.funcs[args[0]] {
		// A call from outside any function sets the context its body's
		// commands take (ctxFunc); nested calls keep it.
		if kind != ctxFunc {
			sb.fnCtx = kind
		}
		return args, nil
	}
	if interp.IsBuiltin(args[0]) {
		return args, nil
	}
	if kind == ctxFunc {
		kind = sb.fnCtx
		if kind == 0 {
			kind = ctxPlain
		}
	}
	return append([]string{execCmd, sb.cache.siteWord(at, kind)}, args...), nil
}

// colonCmd is the command ":" that the call handler answers for the
// sandbox's own guard commands: one slice per run, made once (the
// interpreter only reads it; sb.mu held).
func (sb *sandbox) colonCmd() []string {
	if sb.colon == nil {
		sb.colon = []string{":"}
	}
	return sb.colon
}

// callSite reads a command's marker word (mark): where the command is
// written and its context, made the last position reached. A command
// without one (an assignment's size check, eval'd text) is at the
// interpreter's position in the file last reached, in a plain context.
// rest is args without the marker.
func (sb *sandbox) callSite(hc interp.HandlerContext, args []string) (at Pos, kind byte, rest []string) {
	at, kind = Pos{File: sb.lastFile, Line: sb.lastLine, Col: sb.lastCol}, byte(ctxPlain)
	if strings.HasPrefix(args[0], markerPrefix) {
		at, kind = sb.decodeMarker(args[0])
		args = args[1:]
		sb.lastFile, sb.lastLine, sb.lastCol = at.File, at.Line, at.Col
	} else if hc.Pos.IsValid() {
		if sb.lastFile == "" {
			sb.lastFile = sb.name
		}
		sb.lastLine, sb.lastCol = int(hc.Pos.Line()), int(hc.Pos.Col())
		at = Pos{File: sb.lastFile, Line: sb.lastLine, Col: sb.lastCol}
	}
	return at, kind, args
}

// overLimit ends the run on a bound exceeded where the interpreter would
// not end it (a command substitution, a guard): the first such error is
// the run's (sb.mu held).
func (sb *sandbox) overLimit(err error) error {
	if sb.limit == nil && sb.run.EndedAt == 0 {
		sb.limit = err
	}
	sb.stop()
	return err
}

// guardCmd answers the commands the sandbox puts into scripts (the size
// check of assignments, the position and loop-iteration marks, the
// pattern-replacement check, the nameless assignment) and bounds eval'd
// text's nesting; handled reports one of its own commands (status 0).
func (sb *sandbox) guardCmd(hc interp.HandlerContext, at Pos, args []string) (handled bool, err error) {
	switch args[0] {
	case sizeCheckCmd:
		if len(args) > 1 && strings.HasPrefix(args[1], markerPrefix) {
			at, _ := sb.decodeMarker(args[1])
			sb.lastFile, sb.lastLine, sb.lastCol = at.File, at.Line, at.Col
		}
		// the run's start is counted once (startEnv.bytes), then what
		// the script set, each overlay keeping its own sum (interp patch
		// 9): the same sum as Each gives
		total := 0
		if root, set := interp.OverlayBytes(hc.Env); isStartEnv(root) {
			total = root.(*startEnv).bytes + set
		} else {
			hc.Env.Each(func(name string, v expand.Variable) bool {
				total += interp.VarBytes(name, v)
				return total <= MaxBytes
			})
		}
		if total > MaxBytes {
			// The check runs in a command substitution, whose failure
			// would not end the script: stop the whole run.
			return false, sb.overLimit(limitf(LimitBytes, "variables hold more than %d bytes", MaxBytes))
		}
		return true, nil
	case posCmd:
		if len(args) > 1 && strings.HasPrefix(args[1], markerPrefix) {
			at, _ := sb.decodeMarker(args[1])
			sb.lastFile, sb.lastLine, sb.lastCol = at.File, at.Line, at.Col
		}
		return true, nil
	case stepCmd:
		if len(args) > 1 && strings.HasPrefix(args[1], markerPrefix) {
			at, _ := sb.decodeMarker(args[1])
			sb.lastFile, sb.lastLine, sb.lastCol = at.File, at.Line, at.Col
		}
		// A loop iteration (countIterations): bounded like commands, so
		// a loop of no simple command ends at the step bound too.
		sb.iters++
		if sb.iters > sb.maxIters {
			return false, sb.overLimit(limitf(LimitIterations, "more than %d loop iterations (endless loop?)", sb.maxIters))
		}
		return true, nil
	case replCheckCmd:
		if sb.cfg.Holes {
			for _, a := range args[1:] {
				if HasHole(a) {
					// it counts the pattern's matches in the operand, as the
					// replacement it guards looks at them (holes.go)
					sb.inspectHole("a pattern replacement's guard")
					return false, errStopped
				}
			}
		}
		if err := replCheck(args[1:]); err != nil {
			return false, sb.overLimit(err)
		}
		return true, nil
	case namelessCmd:
		if sb.stopReason == nil {
			sb.stopReason = &Unsupported{Pos: at, Msg: namelessMsg}
		}
		sb.stop()
		return false, errStopped
	case declOptionCmd:
		if sb.stopReason == nil {
			sb.stopReason = &Unsupported{Pos: at, Command: strings.Join(args[1:], " "), Msg: declOptionMsg}
		}
		sb.stop()
		return false, errStopped
	case arithNameCmd:
		if len(args) > 1 && strings.HasPrefix(args[1], markerPrefix) {
			at, _ = sb.decodeMarker(args[1])
		}
		if sb.stopReason == nil {
			sb.stopReason = &Unsupported{Pos: at, Msg: arithNameMsg}
		}
		sb.stop()
		return false, errStopped
	case "eval":
		// The interpreter parses eval'd text itself: bound its nesting
		// first (checkNesting), as for a file.
		if err := checkNesting(at.String(), []byte(strings.Join(args[1:], " "))); err != nil {
			return false, sb.overLimit(err)
		}
	}
	return false, nil
}

// countCmd counts a command against the run's bounds: the steps, the
// shell function calls, the bytes of its arguments.
func (sb *sandbox) countCmd(args []string) error {
	sb.steps--
	if sb.steps < 0 {
		return limitf(LimitSteps, "more than the allowed number of commands (endless loop?)")
	}
	if sb.funcs[args[0]] {
		sb.funcCalls--
		if sb.funcCalls < 0 {
			return limitf(LimitFuncCalls, "more than %d shell function calls (endless recursion?)", MaxFuncCalls)
		}
	}
	if n := argsSize(args); n > MaxBytes {
		return limitf(LimitBytes, "a command's arguments hold %d bytes, more than %d", n, MaxBytes)
	}
	return nil
}

// shellBuiltin answers or adjusts the builtins whose interpreter behaviour
// would differ from bash's on a runner or ask the host: printf's C
// conversions, `set -e/-u/-x` relaxed, `command -v` / `type` / `hash`
// from the sandbox's view, kill, a bare `source NAME` looked up in the
// sandbox's PATH (and the library it names read); `exit` notes its
// position. done: out (the replacement command) is final, with err; else
// out is args, possibly rewritten, for the rest of call.
func (sb *sandbox) shellBuiltin(ctx context.Context, hc interp.HandlerContext, at Pos, kind byte, args []string) (out []string, done bool, err error) {
	if sb.cfg.Holes {
		if what := holeShellBuiltin(args); what != "" {
			sb.inspectHole(what)
			return nil, true, errStopped
		}
	}
	switch args[0] {
	case "printf":
		if why := printfUnknown(args); why != "" {
			// Go's fmt would print %!(NOVERB) where bash prints the
			// field: the output is not known.
			if sb.stopReason == nil {
				sb.stopReason = &Unsupported{Pos: at, Command: "printf", Msg: why}
			}
			sb.stop()
			return nil, true, errStopped
		}
		out, _ := printfCompat(args)
		if len(out) > 3 && out[1] == "-v" {
			return printfV(out), true, nil
		}
		return out, true, nil
	case "set":
		return relaxSet(args), true, nil
	case "exit":
		if !sb.trapExit {
			sb.exitAt = at
		}
	case "command", "type", "hash":
		if args[0] == "command" && (len(args) < 2 || !strings.HasPrefix(args[1], "-v") && !strings.HasPrefix(args[1], "-V")) {
			break // `command NAME …` runs NAME
		}
		if out, status, known := sb.lookup(at, args); known {
			// hc.Stdout (errTail) takes sb.mu itself.
			sb.mu.Unlock()
			say(hc.Stdout, out)
			sb.mu.Lock()
			if status != 0 {
				return []string{"false"}, true, nil
			}
			return []string{":"}, true, nil
		} else if kind != ctxPlain {
			why := fmt.Sprintf("%s in %s: whether %s is installed on the runner is not known to the sandbox", strings.Join(ShortArgv(args), " "), ctxWord(kind), args[len(args)-1])
			if sb.stopReason == nil {
				sb.stopReason = &Unsupported{Pos: at, Command: args[0], Msg: why}
			}
			sb.stop()
			return nil, true, errStopped
		}
		// Not known and nothing depends on the answer: not found,
		// without asking this machine (the interpreter's own lookup
		// would search the host's PATH).
		return []string{"false"}, true, nil
	case "cd", "pushd":
		if why := sb.enterUnknown(ctx, hc, args); why != "" && kind != ctxPlain {
			// Whether the directory exists on the runner decides a
			// branch: not known.
			if sb.stopReason == nil {
				sb.stopReason = &Unsupported{Pos: at, Command: args[0], Msg: fmt.Sprintf("%s in %s: whether %s exists on the runner is not known to the sandbox (%s)", strings.Join(ShortArgv(args), " "), ctxWord(kind), args[len(args)-1], why)}
			}
			sb.stop()
			return nil, true, errStopped
		}
	case "kill":
		// A background job's PID is answered from the job model
		// (bgjobs.go). Any other process the script names is running in
		// the sandbox's model (nothing dies: `kill -0 $PID` succeeds) and
		// no signal reaches anything (kill never touches the host's
		// processes).
		if out, msg, ok := sb.killJobs(args); ok {
			if out == nil {
				if sb.stopReason == nil {
					sb.stopReason = &Unsupported{Pos: at, Command: "kill", Msg: msg}
				}
				sb.stop()
				return nil, true, errStopped
			}
			if msg != "" {
				sb.mu.Unlock()
				say(hc.Stderr, msg)
				sb.mu.Lock()
			}
			return out, true, nil
		}
		return []string{":"}, true, nil
	case "wait":
		if out, why, ok := sb.waitJobs(args); ok {
			if why != "" {
				if sb.stopReason == nil {
					sb.stopReason = &Unsupported{Pos: at, Command: "wait", Msg: why}
				}
				sb.stop()
				return nil, true, errStopped
			}
			return out, true, nil
		}
	case "source", ".":
		if len(args) > 1 && args[1] != "" && !strings.Contains(args[1], "/") {
			// bash looks a bare name up in PATH first; the interpreter
			// would ask this machine, so the lookup is made here, in the
			// sandbox's view, and the name passed on as a path.
			found := "./" + args[1]
			if sb.cfg.Holes {
				sb.holeIn("PATH", hc.Env.Get("PATH").String())
			}
			for _, d := range filepath.SplitList(hc.Env.Get("PATH").String()) {
				if d == "" {
					continue
				}
				c := filepath.Join(d, args[1])
				if !filepath.IsAbs(c) {
					c = filepath.Join(hc.Dir, c)
				}
				if sb.jail.isFile(sb.real(c)) {
					found = c
					break
				}
			}
			args = append([]string{args[0], found}, args[2:]...)
		}
		if len(args) > 1 {
			// Whatever its name, the file sourced is prepared like a
			// script (marked and guarded) when the open handler reads it.
			sb.sourcing = sb.abs(ctx, args[1])
		}
		if n := sb.libName(); n != "" && len(args) > 1 && strings.HasSuffix(args[1], n) && !sb.hasLib {
			// Read from where the script names it (inside the roots).
			if p := sb.abs(ctx, args[1]); sb.jail.isFile(p) {
				if data, err := sb.jail.readInput(p); err == nil {
					sb.lib, sb.hasLib = data, true
				}
			}
		}
	}
	return args, false, nil
}

// onRunner are the commands a runner's job environment has besides the
// ones the sandbox evaluates (shellutil.Commands), the shell's own and the
// caller's (Config.Commands): the image's Python and package tools and the
// Slurm/enroot client tools the launchers call.
var onRunner = map[string]bool{
	"python3": true, "python": true, "pip": true, "pip3": true, "uv": true, "git": true, "bash": true, "sh": true,
	"curl": true, "tar": true, "cat": true, "tee": true, "ls": true, "find": true, "mktemp": true, "realpath": true,
	"readlink": true, "mkdir": true, "rm": true, "cp": true, "mv": true, "ln": true, "chmod": true, "touch": true,
	"sleep": true, "env": true, "timeout": true, "nohup": true, "flock": true,
	"srun": true, "salloc": true, "sbatch": true, "squeue": true, "scancel": true, "scontrol": true, "sinfo": true,
	"enroot": true, "unsquashfs": true, "sbcast": true,
}

// lookup answers `command -v|-V NAME…`, `type [-P|-p|-t] NAME…` and `hash
// NAME…` from the sandbox's view: functions and builtins as the shell
// knows them, the GPU probes from the runner table (shellutil.Installed),
// the commands the sandbox evaluates and onRunner as installed at
// /usr/bin. known=false when a name is none of these: whether it is
// installed is not known.
func (sb *sandbox) lookup(at Pos, args []string) (out string, status int, known bool) {
	var names []string
	verbose := false
	for _, a := range args[1:] {
		switch {
		case a == "-V":
			verbose = true
		case strings.HasPrefix(a, "-"):
		default:
			names = append(names, a)
		}
	}
	if len(names) == 0 || args[0] == "command" && len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		return "", 0, false // `command NAME`: runs NAME (not a lookup)
	}
	evaluated := map[string]bool{}
	for _, c := range shellutil.Commands() {
		evaluated[c] = true
	}
	var b strings.Builder
	for _, n := range names {
		switch {
		case sb.funcs[n]:
			b.WriteString(n + "\n")
			if verbose {
				b.Reset()
				b.WriteString(n + " is a function\n")
			}
		case interp.IsBuiltin(n):
			b.WriteString(n + "\n")
		default:
			facts := sb.facts
			if fc, ok := shellutil.ChoiceFor([]string{n}, facts); ok && sb.cfg.Choose {
				// Whether it is installed is a machine fact with
				// documented alternatives: a choice point.
				k, more := sb.chooseFact(at, strings.Join(ShortArgv(args), " "), fc)
				if !more {
					return "", 0, false
				}
				facts = fc.Machines[k]
			}
			inst, k := shellutil.Installed(n, facts)
			switch {
			case k && !inst:
				status = 1
			case k && inst, evaluated[n] && !shellutil.NeedsFact(n), sb.onRunner(n):
				b.WriteString("/usr/bin/" + n + "\n")
			default:
				return "", 0, false
			}
		}
	}
	return b.String(), status, true
}

// ctxWord names a call context for a message.
func ctxWord(kind byte) string {
	if kind == ctxValue {
		return "a value the script uses"
	}
	return "a condition"
}

// callSite is where an external command is written and how it is used.
type callSite struct {
	at   Pos
	kind byte
	// marked: at is the position of the command itself (its marker
	// word), not the last marked command reached (eval'd text, exec).
	marked bool
}

func (sb *sandbox) exec(ctx context.Context, args []string, depth int) error {
	hc := interp.HandlerCtx(ctx)
	site := callSite{kind: ctxPlain}
	if len(args) == 2 && args[0] == condStatusCmd {
		// The status of a condition (condGuard).
		n, _ := strconv.Atoi(args[1])
		return interp.ExitStatus(uint8(n))
	}
	if len(args) >= 2 && args[0] == execCmd {
		if m, ok := sb.cache.execSite(args[1]); ok {
			site = m
		}
		args = args[2:]
	} else {
		// `exec cmd`, `command cmd`, eval'd text: no marker.
		sb.mu.Lock()
		site.at = Pos{File: sb.lastFile, Line: sb.lastLine, Col: sb.lastCol}
		sb.mu.Unlock()
	}
	if len(args) == 0 {
		return nil
	}
	c := Command{Argv: append([]string(nil), args...), File: site.at.File, Line: site.at.Line, Col: site.at.Col, Dir: hc.Dir}
	c.Env = sb.envDiff(hc.Env)
	sb.mu.Lock()
	if sb.closed || sb.stopReason != nil {
		sb.mu.Unlock()
		return interp.ExitStatus(1)
	}
	sb.seq++
	c.Seq = sb.seq
	sb.run.Commands = append(sb.run.Commands, c)
	if sb.endAt(&sb.run.Commands[len(sb.run.Commands)-1]) {
		sb.mu.Unlock()
		sb.stop()
		return errEnded
	}
	sb.mu.Unlock()
	return sb.external(ctx, &Call{Args: args, Pos: site.at, Use: Use(site.kind), sb: sb, hc: hc, ctxDir: hc.Dir, site: site, depth: depth, seq: c.Seq})
}

// endAt reports whether Config.EndAt ends the run at c, the command just
// recorded, and marks the run ended there (Trace.EndedAt) when it does.
// sb.mu held.
func (sb *sandbox) endAt(c *Command) bool {
	if sb.cfg.EndAt == nil || sb.run.EndedAt != 0 || sb.limit != nil || sb.badInput != nil || sb.stopReason != nil {
		// (a run already stopping ends as it stops)
		return false
	}
	if sb.goroutines.Load() != 0 {
		// Something of the run runs beside this command (a background
		// statement, a pipeline stage, or this command is in one): where
		// it is at the end would depend on scheduling, so the run is
		// followed on. With nothing beside it, everything before the
		// command ran in one order, on every machine.
		return false
	}
	if !sb.cfg.EndAt(sb.run, c) {
		return false
	}
	sb.run.EndedAt = c.Seq
	return true
}

// envDiff lists the exported variables that differ from the run's starting
// environment, NAME=value sorted.
func (sb *sandbox) envDiff(env expand.Environ) []string {
	// Commands run one after another in an unchanged environment (no
	// assignment between them, or only in subshells that are gone) see
	// the same variables: the answer of the last call is reused while the
	// interpreter says the environment is the one it read
	// (interp.EnvironVersion, a patch: PATCHES.md).
	scope, version, known := interp.EnvironVersion(env)
	if known {
		sb.mu.Lock()
		if sb.diffScope == scope && sb.diffVersion == version {
			// shared, not copied: a Command's Env is only read, and its
			// capacity ends at its length (an append copies it)
			out := sb.diffKVs
			sb.mu.Unlock()
			return out
		}
		sb.mu.Unlock()
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	out, fast := sb.envDiffFast(env)
	if !fast {
		out = sb.diffEnv(exported(env))
	}
	out = out[:len(out):len(out)]
	if known {
		sb.diffScope, sb.diffVersion, sb.diffKVs = scope, version, out
	}
	return out
}

// containerVar marks the environment of a container's command (docker
// run): its value indexes sb.containerBases, the environment the
// container started with, against which what its commands run with is
// told (diffEnv). It is not a variable of the script: the environments
// the sandbox hands out drop it (visibleEnv).
const containerVar = "__cookbook_sync_container"

// diffEnv lists the NAME=value of kvs that differ from the environment
// they started from: the run's (Config.Env), or, in a container, the
// image defaults docker run gave it (PATH, HOME) — a container starts
// with a fresh environment, so a variable its scripts export, or its -e
// options set, is its own even where the batch job outside had the same
// value. sb.mu held.
func (sb *sandbox) diffEnv(kvs []string) []string {
	base := sb.base
	for _, kv := range kvs {
		if v, ok := strings.CutPrefix(kv, containerVar+"="); ok {
			sb.holeIn("the container marker", v) // a number (holes.go)
			if i, err := strconv.Atoi(v); err == nil && i >= 0 && i < len(sb.containerBases) {
				base = sb.containerBases[i]
			}
		}
	}
	var out []string
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		if k == containerVar {
			continue
		}
		if old, ok := base[k]; ok && old == v {
			continue
		} else if ok {
			sb.unequalInWorlds(old, v)
		}
		out = append(out, kv)
	}
	return out
}

// visibleEnv is kvs without the sandbox's own marker (containerVar).
func visibleEnv(kvs []string) []string {
	out := kvs[:0:0]
	for _, kv := range kvs {
		if !strings.HasPrefix(kv, containerVar+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// exported is the whole exported environment, NAME=value sorted by name.
// It runs for every command a script starts, so it makes one pass, no
// lookups and sorts only what the script set: the interpreter's
// environments list every scope's variables, outer scopes first
// (expand.Environ.Each of interp's overlay: parent, then its own), the
// outermost being the run's start (expand.ListEnviron: sorted by "NAME=",
// names unique); where a name is listed more than once — an outer value a
// later assignment shadows, unsets or unexports — the last one listed is
// the visible one (TestExportedMatchesLookups checks this against a lookup
// of each name).
func exported(env expand.Environ) []string {
	se, ok := interp.EachOverlay(env, func(string, expand.Variable) bool { return false }).(*startEnv)
	if !ok {
		return exportedListed(env)
	}
	// the run's start (split once, sorted by "NAME=", every one an
	// exported string) and what the overlays show, one entry per name in
	// the same order (interp patch 7): merged, an overlay's entry hiding
	// the start's
	// (merged as the overlays list them: no list of what they show made)
	out := make([]string, 0, len(se.names)+8)
	i := 0
	interp.EachVisibleOverlay(env, func(name string, v expand.Variable) bool {
		for i < len(se.names) && compareNameEq(se.names[i], name) < 0 {
			out = append(out, se.pairs[i])
			i++
		}
		if i < len(se.names) && se.names[i] == name {
			i++ // the overlay's entry hides the start's
		}
		if v.IsSet() && v.Exported && v.Kind == expand.String {
			out = append(out, name+"="+v.Str)
		}
		return true
	})
	out = append(out, se.pairs[i:]...)
	sortByName(out)
	return out
}

// sortByName sorts NAME=value pairs by name ("A=" after "A9=", "A" before
// "A9"), when they are not sorted so already.
func sortByName(out []string) {
	byName := func(a, b string) int {
		return strings.Compare(a[:strings.IndexByte(a, '=')], b[:strings.IndexByte(b, '=')])
	}
	if !slices.IsSortedFunc(out, byName) {
		slices.SortFunc(out, byName)
	}
}

// exportedListed is exported for an environment whose root is not a
// startEnv: every variable listed (outer scopes first), the last listing
// of a name the visible one.
func exportedListed(env expand.Environ) []string {
	type listed struct {
		name, value string
		at          int  // order listed
		ok          bool // an exported string
	}
	var all []listed
	env.Each(func(name string, v expand.Variable) bool {
		all = append(all, listed{name: name, value: v.Str, at: len(all), ok: v.IsSet() && v.Exported && v.Kind == expand.String})
		return true
	})
	byKey := func(a, b listed) int {
		if c := compareNameEq(a.name, b.name); c != 0 {
			return c
		}
		return a.at - b.at
	}
	// the sorted, unique head (a root as expand.ListEnviron lists it),
	// then a short tail, sorted and merged in
	head := 1
	for head < len(all) && compareNameEq(all[head-1].name, all[head].name) < 0 {
		head++
	}
	if head < len(all) {
		slices.SortFunc(all[head:], byKey)
		merged := make([]listed, 0, len(all))
		i, j := 0, head
		for i < head || j < len(all) {
			if j == len(all) || i < head && byKey(all[i], all[j]) <= 0 {
				merged = append(merged, all[i])
				i++
			} else {
				merged = append(merged, all[j])
				j++
			}
		}
		all = merged
	}
	out := make([]string, 0, len(all))
	for i, e := range all {
		if i+1 < len(all) && all[i+1].name == e.name {
			continue // a later scope's entry wins
		}
		if e.ok {
			out = append(out, e.name+"="+e.value)
		}
	}
	sortByName(out)
	return out
}

// startEnv is a run's starting environment as the interpreter sees it
// (interp.Env, the root below every overlay: never written), split once:
// expand.ListEnviron's variables (sorted by "NAME=", names unique, every one
// an exported string) as names and NAME=value pairs (a value is the rest of
// its pair: value), and their size. Each lists them without splitting each
// pair again, as exported and the size check do for every command.
type startEnv struct {
	names, pairs []string
	bytes        int // sum of len(name)+len(value)
}

// value is the value of variable i (pairs[i] after "NAME=").
func (e *startEnv) value(i int) string { return e.pairs[i][len(e.names[i])+1:] }

// newStartEnv is the startEnv of the NAME=value pairs, by ListEnviron's
// rules (expand/environ.go listEnviron_): sorted by "NAME=" (stable), a
// pair without "=" or with an empty name dropped, a name given twice keeps
// its last value. The pairs are kept as given; names and values are their
// substrings (TestStartEnvIsListEnviron).
func newStartEnv(kvs []string) *startEnv {
	prefix := func(kv string) string {
		if i := strings.IndexByte(kv, '='); i >= 0 {
			return kv[:i+1]
		}
		return ""
	}
	byPrefix := func(a, b string) int { return strings.Compare(prefix(a), prefix(b)) }
	list := kvs
	sorted := slices.IsSortedFunc(list, byPrefix)
	if !sorted {
		// (sorted already, as a child script's environment mostly is,
		// it is read as it is: nothing below writes to list)
		list = slices.Clone(kvs)
		slices.SortStableFunc(list, byPrefix)
	}
	if sorted && cleanPairs(list) {
		// every pair kept as given: kvs is the pairs (runFile's own list,
		// never written after)
		e := &startEnv{names: make([]string, len(list)), pairs: list[:len(list):len(list)]}
		for i, kv := range list {
			n, v, _ := strings.Cut(kv, "=")
			e.names[i] = n
			e.bytes += len(n) + len(v)
		}
		return e
	}
	e := &startEnv{names: make([]string, 0, len(list)), pairs: make([]string, 0, len(list))}
	for _, kv := range list {
		name, value, ok := strings.Cut(kv, "=")
		if name == "" || !ok {
			continue
		}
		if n := len(e.names); n > 0 && e.names[n-1] == name {
			e.bytes -= len(e.pairs[n-1]) - 1
			e.names, e.pairs = e.names[:n-1], e.pairs[:n-1]
		}
		e.names = append(e.names, name)
		e.pairs = append(e.pairs, kv)
		e.bytes += len(name) + len(value)
	}
	return e
}

// cleanPairs reports whether newStartEnv keeps every pair of the sorted
// list as it is: each has "=" after a non-empty name, and no name comes
// twice (a later one would replace the earlier).
func cleanPairs(list []string) bool {
	prev := ""
	for i, kv := range list {
		n, _, ok := strings.Cut(kv, "=")
		if n == "" || !ok || i > 0 && n == prev {
			return false
		}
		prev = n
	}
	return true
}

// isStartEnv reports whether env is a run's start (a *startEnv).
func isStartEnv(env expand.Environ) bool {
	_, ok := env.(*startEnv)
	return ok
}

// Get is the variable name (expand.Environ).
func (e *startEnv) Get(name string) expand.Variable {
	i, ok := slices.BinarySearchFunc(e.names, name, compareNameEq)
	if !ok {
		return expand.Variable{}
	}
	return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: e.value(i)}
}

// Each lists the variables in ListEnviron's order (expand.Environ).
func (e *startEnv) Each(f func(name string, v expand.Variable) bool) {
	for i, n := range e.names {
		if !f(n, expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: e.value(i)}) {
			return
		}
	}
}

// compareNameEq compares a+"=" with b+"=" (expand.ListEnviron's order)
// without building them.
func compareNameEq(a, b string) int {
	if len(a) > 0 && len(b) > 0 && a[0] != b[0] {
		return cmp.Compare(a[0], b[0]) // (most names differ in their first byte)
	}
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	switch {
	case len(a) == len(b):
		return 0
	case len(a) < len(b):
		return cmp.Compare('=', b[n])
	default:
		return cmp.Compare(a[n], '=')
	}
}

// benign are commands whose only effect is on files, processes or the
// network and that succeed in the sandbox as they would on a runner: their
// status is 0 and they print nothing the scripts read.
var benign = map[string]bool{
	"mkdir": true, "rm": true, "rmdir": true, "cp": true, "mv": true, "ln": true, "chmod": true, "chown": true,
	"touch": true, "sleep": true, "pkill": true, "sync": true,
	"pip": true, "pip3": true, "uv": true, "git": true, "apt-get": true, "apt": true, "wget": true,
	"tar": true, "unzip": true, "ldconfig": true, "logger": true, "renice": true,
}

// external evaluates one external command (after the call handler): it
// never starts a process. Wrappers (nohup, timeout, env …) are removed
// first; a server launch (Config.IsServer) succeeds; then the caller's
// table (Config.Commands), the sandbox's own (builtinHandlers) and the
// text utilities (package infx/shellutil) are asked in turn. A command
// none of them answers succeeds when its status and output are not used
// (or it is benign), and ends the run as Unsupported otherwise.
func (sb *sandbox) external(ctx context.Context, c *Call) error {
	hc, args, site := c.hc, c.Args, c.site
	name := path.Base(args[0])
	if _, ok := wrapperValueOpts[name]; ok && !(name == "env" && len(args) == 1) {
		inner, env := unwrap(name, args[1:])
		if sb.cfg.Holes {
			// the wrapper's own operands: an assignment NAME=VALUE copies
			// its value, anything else (an option, --unset=NAME, a name, a
			// duration) is read
			for _, a := range args[:len(args)-len(inner)] {
				if k, _, ok := strings.Cut(a, "="); HasHole(a) && (!ok || HasHole(k) || strings.HasPrefix(a, "-")) {
					sb.inspectHole("an operand of " + name)
					return errStopped
				}
			}
		}
		if len(inner) == 0 {
			return nil
		}
		return sb.external(ctx, c.with(hc, inner, append(c.extraEnv, env...)))
	}
	if sb.holeArgs(args) {
		return errStopped
	}
	if sb.cfg.IsServer != nil && sb.cfg.IsServer(args) {
		return nil
	}
	if strings.Contains(args[0], "/") && sb.shellScript(ctx, args[0]) {
		// An executable script run by its path: the kernel starts the
		// interpreter its #! line names, a shell here.
		return sb.bash(ctx, c, args, nil)
	}
	for _, table := range []map[string]Handler{sb.cfg.Commands, sb.handlers} {
		if h, ok := table[name]; ok {
			if err := h(ctx, c); !errors.Is(err, ErrUnhandled) {
				return err
			}
		}
	}
	stdin := []byte(nil)
	holed := false // the input holds holes whose worlds decide (filterWorlds)
	if readsStdin[name] && hc.Stdin != nil {
		// A read error ends the input like its end does (the pipe closed).
		stdin, _ = io.ReadAll(io.LimitReader(hc.Stdin, maxRead+1))
		if sb.cfg.Holes && hasHoleBytes(stdin) {
			if len(sb.cfg.Worlds) == 0 {
				sb.inspectHole("the input of " + name)
			} else {
				holed = true
			}
		}
		if len(stdin) > maxRead {
			// Input cut short gives output that is not known.
			if site.kind == ctxPlain {
				return nil
			}
			return c.Unsupported(name, fmt.Sprintf("%s in %s: its input is larger than the %d bytes the sandbox reads", strings.Join(ShortArgv(args), " "), ctxWord(site.kind), maxRead))
		}
	}
	facts, chosen, stopped := sb.probeChoice(c)
	if stopped {
		return errStopped
	}
	if holed {
		res, ok := sb.filterWorlds(args, stdin, facts)
		if !ok {
			sb.inspectHole("the input of " + name)
			return errStopped
		}
		_, _ = hc.Stdout.Write(res.Stdout)
		_, _ = hc.Stderr.Write(res.Stderr)
		if res.Status != 0 {
			return interp.ExitStatus(res.Status)
		}
		return nil
	}
	var unk *unknownRead
	res, handled, reason := shellutil.RunCached(args, stdin, facts, func(name string) ([]byte, error) {
		b, err := sb.readKnown(ctx, name)
		var u *unknownRead
		if errors.As(err, &u) {
			if unk == nil {
				unk = u
			}
			return nil, unknownPathError(name, u)
		}
		return b, err
	}, &sb.cache.regexps)
	if !handled && chosen {
		why := fmt.Sprintf("%s in %s: the sandbox does not evaluate it", strings.Join(ShortArgv(args), " "), ctxWord(site.kind))
		if reason != "" {
			why += " (" + reason + ")"
		}
		return c.Unsupported(name, why)
	}
	if !handled && unk != nil && sb.coverUnknown(c.Pos, strings.Join(ShortArgv(args), " "), unk) {
		// In a condition whose outcome becomes a choice: what the command
		// prints and its status are not known, and not used.
		return interp.ExitStatus(1)
	}
	if handled {
		// A reader that stopped reading (`| head -1`) does not change the
		// command's status.
		_, _ = hc.Stdout.Write(res.Stdout)
		_, _ = hc.Stderr.Write(res.Stderr)
		if res.Status != 0 {
			return interp.ExitStatus(res.Status)
		}
		return nil
	}
	if site.kind == ctxPlain || benign[name] {
		// Nothing uses its status or output — unless the output goes to a
		// file, which is then not known (readKnown), or it runs in a
		// background job whose status the script may ask (bgjobs.go).
		if !benign[name] {
			sb.mu.Lock()
			if len(sb.bgStarts) > 0 {
				sb.assumed = append(sb.assumed, assumedCmd{seq: c.seq, at: c.Pos, command: strings.Join(ShortArgv(args), " ")})
			}
			sb.mu.Unlock()
		}
		unknownOutput(hc.Stdout, strings.Join(ShortArgv(args), " ")+" wrote it, which the sandbox does not evaluate")
		return nil
	}
	why := fmt.Sprintf("%s in %s: the sandbox does not evaluate it", strings.Join(ShortArgv(args), " "), ctxWord(site.kind))
	if reason != "" {
		why += " (" + reason + ")"
	}
	return c.Unsupported(name, why)
}

// shellScript reports whether name is a file of the read roots whose
// first line is a bash or sh #! line (#!/bin/bash, #!/usr/bin/env bash,
// #!/bin/sh, with options).
func (sb *sandbox) shellScript(ctx context.Context, name string) bool {
	data, err := sb.jail.readInput(sb.abs(ctx, name))
	if err != nil {
		return false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(strings.TrimPrefix(line, "#!"))
	if !strings.HasPrefix(line, "#!") || len(f) == 0 {
		return false
	}
	prog := f[0]
	if path.Base(prog) == "env" && len(f) > 1 {
		prog = f[1]
	}
	switch path.Base(prog) {
	case "bash", "sh":
		return true
	}
	return false
}

// readsStdin are the commands given their standard input.
var readsStdin = map[string]bool{
	"awk": true, "gawk": true, "mawk": true, "grep": true, "egrep": true, "sed": true, "head": true, "tail": true,
	"cut": true, "tr": true, "wc": true, "sort": true, "uniq": true, "xargs": true, "jq": true, "numfmt": true, "bc": true, "paste": true, "fgrep": true,
}

// lastPos is the last command reached (sb.mu held); before any, the
// run's script.
func (sb *sandbox) lastPos() Pos {
	if sb.lastFile == "" {
		return Pos{File: sb.name}
	}
	return Pos{File: sb.lastFile, Line: sb.lastLine, Col: sb.lastCol}
}

// seqPipeStage reports whether a pipeline's left stage may run to its end
// before the stage it feeds starts (interp.SequentialPipes): a plain call
// of a program the sandbox evaluates in the process and that ends by
// itself once its input ends, writing only its output (seqPipePrograms:
// echo, printf, env, the text filters) — no assignment, redirection,
// negation or background, no command or process substitution in its words
// (one may wait on the next stage, stop the run before the next stage's
// commands are recorded, or record its own commands in another order),
// the program not a function of the shell — or a pipeline of such stages:
// running it first is what running the stages side by side gives, and
// its commands are recorded in the stages' order on every machine
// (side by side, `env | grep -E '^SGLANG_' | sort` recorded sort, grep
// and env in the order the goroutines reached them). A loop of `echo "$x"
// | grep …` then makes no copy of the script's variables for each stage.
func seqPipeStage(st *syntax.Stmt, isFunc func(string) bool) bool {
	if st.Background || st.Coprocess || st.Negated || st.Disown || len(st.Redirs) > 0 {
		return false
	}
	if bc, ok := st.Cmd.(*syntax.BinaryCmd); ok {
		return bc.Op == syntax.Pipe && seqPipeStage(bc.X, isFunc) && seqPipeStage(bc.Y, isFunc)
	}
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 {
		return false
	}
	subst := false
	syntaxwalk.Walk(ce, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			subst = true
		}
		return !subst
	})
	if subst {
		return false
	}
	for i, w := range ce.Args {
		l := w.Lit()
		if strings.HasPrefix(l, markerPrefix) {
			continue
		}
		if !seqPipePrograms[l] || isFunc(l) {
			return false
		}
		for _, a := range ce.Args[i+1:] {
			if seqPipeRefused(l, a) {
				return false
			}
		}
		return true
	}
	return false
}

// seqPipePrograms are the programs seqPipeStage lets run to their end
// before the next stage: the sandbox evaluates each in the process
// (builtins and package shellutil), each ends once its input ends and
// writes nothing but its output (but for the options seqPipeRefused
// names).
var seqPipePrograms = map[string]bool{
	"echo": true, "printf": true, "env": true, "printenv": true, "cat": true,
	"grep": true, "egrep": true, "fgrep": true, "sort": true, "uniq": true, "head": true, "tail": true,
	"cut": true, "tr": true, "wc": true, "sed": true, "basename": true, "dirname": true,
}

// seqPipeRefused reports whether argument a keeps a stage of program prog
// beside the stage it feeds: an option that makes it wait for more input
// (tail -f) or write a file (sed -i, sort -o), an operand that makes env
// run a command (which may wait on the next stage), and, for these four
// programs, a word the run expands (it may be such an option).
func seqPipeRefused(prog string, a *syntax.Word) bool {
	o := a.Lit()
	switch prog {
	case "env":
		return o == "" || o[0] != '-'
	case "sed":
		return o == "" || strings.HasPrefix(o, "-i") || strings.HasPrefix(o, "--in-place") || o == "-s" || strings.HasPrefix(o, "--separate") ||
			len(o) > 1 && o[0] == '-' && o[1] != '-' && strings.ContainsAny(o[1:], "i") && !strings.ContainsAny(o[1:], "ef")
	case "sort":
		return o == "" || strings.HasPrefix(o, "-o") || strings.HasPrefix(o, "--output") ||
			len(o) > 1 && o[0] == '-' && o[1] != '-' && strings.Contains(o[1:], "o")
	case "tail":
		return o == "" || o == "--follow" || strings.HasPrefix(o, "--follow=") || o == "-F" ||
			len(o) > 1 && o[0] == '-' && o[1] != '-' && strings.ContainsAny(o[1:], "fF")
	}
	return false
}
