package infx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Default bounds for running a script (ScriptOptions zero values). The step
// bound is the deterministic one that ends an endless loop; the wall-time
// bound only backs it up (a loop of slow builtins), so it is generous enough
// that a normal script never meets it on a loaded machine.
const (
	DefaultScriptTimeout = 10 * time.Second
	DefaultScriptSteps   = 200000
)

// Bounds a script cannot change. Shell function calls nest (each call a
// deeper scope, so a deep recursion costs quadratic time) and variables can
// double without running a command (`s=$s$s`), so both are bounded apart
// from the step count; real benchmark scripts stay far below either.
const (
	// MaxScriptFuncCalls is the number of shell function calls one run may make.
	MaxScriptFuncCalls = 5000
	// MaxScriptBytes bounds, in bytes, the variables of a run taken together
	// and the arguments of any one command.
	MaxScriptBytes = 16 << 20
)

// sizeCheckCmd is the command guardAssignments puts in front of every
// assignment value; the call handler answers it (see sandbox.call).
const sizeCheckCmd = "__cookbook_sync_size_check"

// guardAssignments makes every assignment in the script check the size of
// the variables first: `x=VALUE` becomes `x=$(sizeCheckCmd)VALUE`. The
// command substitution prints nothing, and put first it leaves the status
// of the assignment (that of its last command substitution) as it was.
// Sourced files are not rewritten; the per-command argument bound still
// applies to them.
func guardAssignments(f *syntax.File) {
	guard := func(as []*syntax.Assign) {
		for _, a := range as {
			if a.Value == nil {
				continue
			}
			check := &syntax.CmdSubst{Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{
				Args: []*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: a.Pos(), ValueEnd: a.Pos(), Value: sizeCheckCmd}}}},
			}}}}
			a.Value.Parts = append([]syntax.WordPart{check}, a.Value.Parts...)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			guard(n.Assigns)
		case *syntax.DeclClause:
			guard(n.Args)
		}
		return true
	})
}

// funcNames lists the shell functions the script and the sourced library
// declare, so the call handler can tell a function call from a command.
func funcNames(file *syntax.File, lib string) map[string]bool {
	names := map[string]bool{}
	collect := func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok {
			names[fd.Name.Value] = true
		}
		return true
	}
	syntax.Walk(file, collect)
	if lf, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(lib), "benchmark_lib.sh"); err == nil {
		syntax.Walk(lf, collect)
	}
	return names
}

// ScriptOptions bound and configure one script run.
type ScriptOptions struct {
	// Env is the point's environment, "NAME=value" (MODEL, TP, EP_SIZE,
	// CONC, ISL, OSL, …). Nothing from the host environment is passed.
	Env []string
	// ReadRoots are directories the script may read (e.g. the checkout);
	// every write goes to an in-memory sink, reads elsewhere see no file.
	ReadRoots []string
	// Timeout bounds the wall time (default DefaultScriptTimeout).
	Timeout time.Duration
	// Steps bounds the number of simple commands run, builtins and
	// function calls included (default DefaultScriptSteps).
	Steps int
	// Lib, when set, is the checkout's benchmarks/benchmark_lib.sh: a
	// `source …/benchmark_lib.sh` loads it followed by the no-op stubs of
	// its waiting/benchmarking helpers. Empty: the stubs alone.
	Lib string
}

// Command is one external command the script would have run: its argv and
// the environment variables the script exported or set for it (the point's
// own environment left out), at a script position.
type Command struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env,omitempty"` // NAME=value, sorted by name
	Line int      `json:"line"`
	Col  int      `json:"col"`
}

// ScriptRun is what running a script recorded.
type ScriptRun struct {
	File string `json:"file"`
	// Commands are every external command in execution order (background
	// commands in the order the interpreter reached them).
	Commands []Command `json:"commands"`
	// Writes maps each file the script tried to write (absolute path as the
	// script named it) to what it wrote; nothing reaches the disk.
	Writes map[string]string `json:"writes,omitempty"`
}

// benchmarkLibStub replaces benchmarks/benchmark_lib.sh: the helper
// functions the scripts call become no-ops (shared/spec/inferencex.md (c),
// extraction option 1).
const benchmarkLibStub = `
check_env_vars() { :; }
wait_for_server_ready() { :; }
run_benchmark_serving() { :; }
start_gpu_monitor() { :; }
stop_gpu_monitor() { :; }
run_eval() { :; }
append_lm_eval_summary() { :; }
install_agentic_deps() { :; }
run_agentic_benchmark() { :; }
`

// RunScript runs the shell script at path in mvdan.cc/sh/v3's interpreter
// with opt.Env and records every external command instead of executing it:
// no process is started, nothing is written to disk (writes go to
// ScriptRun.Writes), and files outside opt.ReadRoots look absent.
// `source …/benchmark_lib.sh` loads a stub with no-op helpers. Errors: a
// parse error (PosError file:line:col); ErrScriptLimit wrapped in a
// PosError at the last statement reached when the time or step bound is
// exceeded. A non-zero exit status is not an error.
func RunScript(path string, opt ScriptOptions) (*ScriptRun, error) {
	src, err := launch.ReadInput(path)
	if err != nil {
		return nil, err
	}
	return runScript(path, src, opt)
}

func runScript(path string, src []byte, opt ScriptOptions) (*ScriptRun, error) {
	if i := bytes.IndexByte(src, '\r'); i >= 0 {
		// bash reads the CR as part of the line: `cmd --x 1\r` passes
		// "1\r", a line of its own fails with "$'\r': command not found".
		line := bytes.Count(src[:i], []byte("\n")) + 1
		col := i - bytes.LastIndexByte(src[:i], '\n')
		return nil, &PosError{File: path, Line: line, Col: col, Err: errors.New("carriage return (CRLF line endings): bash would read it as part of the line ($'\\r': command not found); convert the script to LF line endings")}
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(src), path)
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return nil, &PosError{File: path, Line: int(pe.Pos.Line()), Col: int(pe.Pos.Col()), Err: errors.New(pe.Text)}
		}
		return nil, &PosError{File: path, Err: err}
	}
	// Simple commands sent to the background (`server … &`, `nohup
	// "${CMD[@]}" &`, `eval "$CMD" &`) run in place, so the recorded
	// order is the script's order rather than goroutine scheduling; no
	// command really runs, so nothing waits on them. Compound background
	// statements (monitor loops) stay in the background.
	syntax.Walk(file, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok && st.Background {
			if _, simple := st.Cmd.(*syntax.CallExpr); simple {
				st.Background = false
			}
		}
		return true
	})
	guardAssignments(file)
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultScriptTimeout
	}
	if opt.Steps <= 0 {
		opt.Steps = DefaultScriptSteps
	}
	sb := &sandbox{file: path, base: map[string]string{}, run: &ScriptRun{File: path, Writes: map[string]string{}}, steps: opt.Steps, lib: benchmarkLibStub}
	if opt.Lib != "" {
		if data, err := launch.ReadInput(opt.Lib); err == nil {
			sb.lib = string(data) + "\n" + benchmarkLibStub
		}
	}
	sb.funcs = funcNames(file, sb.lib)
	sb.funcCalls = MaxScriptFuncCalls
	for _, r := range opt.ReadRoots {
		if a, err := filepath.Abs(r); err == nil {
			sb.roots = append(sb.roots, a)
		}
	}
	tmp, err := os.MkdirTemp("", "infx-script-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	sb.tmp = tmp
	env := []string{"HOME=" + tmp, "PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + tmp, "PWD=" + tmp}
	env = append(env, opt.Env...)
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			sb.base[k] = v
		}
	}
	var out limitedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), opt.Timeout)
	defer cancel()
	sb.stop = cancel
	aw := &arithWatch{w: &out, stop: cancel}
	runner, err := interp.New(
		interp.Env(expand.ListEnviron(env...)),
		interp.Dir(tmp),
		interp.StdIO(nil, &out, aw),
		interp.CallHandler(sb.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return sb.exec }),
		interp.OpenHandler(sb.open),
		interp.StatHandler(sb.stat),
		interp.ReadDirHandler2(sb.readDir),
	)
	if err != nil {
		return nil, err
	}
	err = runner.Run(ctx, file)
	sb.mu.Lock()
	limit := sb.limit
	sb.mu.Unlock()
	if limit != nil {
		sb.mu.Lock()
		line, col := sb.lastLine, sb.lastCol
		sb.mu.Unlock()
		return nil, &PosError{File: path, Line: line, Col: col, Err: limit}
	}
	if msg := aw.message(); msg != "" {
		// An arithmetic expansion failed (bash: "1/0: division by 0"):
		// bash reports it and does not run the command it was part of, so
		// what the script launches is not what it means to launch.
		line, col := arithErrPos(file, runner.Vars, msg)
		if line == 0 {
			sb.mu.Lock()
			line, col = sb.lastLine, sb.lastCol
			sb.mu.Unlock()
		}
		return nil, &PosError{File: path, Line: line, Col: col, Err: fmt.Errorf("arithmetic expansion failed: %s (bash reports it and skips the command)", msg)}
	}
	if err == nil || isExit(err) {
		// Let background statements (`( … ) &`) reach the exec handler;
		// one that never ends (a monitor loop) is abandoned, not an error.
		if wait, perr := syntax.NewParser().Parse(strings.NewReader("wait"), path); perr == nil {
			wctx, wcancel := context.WithTimeout(ctx, min(opt.Timeout/4, 250*time.Millisecond))
			_ = runner.Run(wctx, wait)
			wcancel()
		}
		err = nil
	}
	if err != nil && !isExit(err) {
		sb.mu.Lock()
		line, col := sb.lastLine, sb.lastCol
		sb.mu.Unlock()
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return nil, &PosError{File: path, Line: line, Col: col, Err: fmt.Errorf("%w: still running after %v (endless loop?)", ErrScriptLimit, opt.Timeout)}
		}
		if errors.Is(err, ErrScriptLimit) {
			return nil, &PosError{File: path, Line: line, Col: col, Err: err}
		}
		return nil, &PosError{File: path, Line: line, Col: col, Err: err}
	}
	// Stop abandoned background statements and stop recording.
	cancel()
	sb.mu.Lock()
	defer sb.mu.Unlock()
	sb.closed = true
	return sb.run, nil
}

func isExit(err error) bool {
	_, ok := interp.IsExitStatus(err)
	return ok
}

// sandbox holds the handlers' state; background subshells call them from
// other goroutines, hence the mutex.
type sandbox struct {
	mu                sync.Mutex
	file, tmp         string
	roots             []string
	base              map[string]string
	run               *ScriptRun
	steps             int
	funcs             map[string]bool // shell functions declared (funcNames)
	funcCalls         int             // function calls left (MaxScriptFuncCalls)
	limit             error           // a bound exceeded inside a subshell
	stop              func()          // cancels the run
	lastLine, lastCol int
	lib               string // what `source …/benchmark_lib.sh` reads
	closed            bool   // the run is over: record nothing more
}

func (sb *sandbox) call(ctx context.Context, args []string) ([]string, error) {
	hc := interp.HandlerCtx(ctx)
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if hc.Pos.IsValid() {
		sb.lastLine, sb.lastCol = int(hc.Pos.Line()), int(hc.Pos.Col())
	}
	if args[0] == sizeCheckCmd {
		total := 0
		hc.Env.Each(func(name string, v expand.Variable) bool {
			total += len(name) + len(v.Str)
			for _, e := range v.List {
				total += len(e)
			}
			for k, e := range v.Map {
				total += len(k) + len(e)
			}
			return total <= MaxScriptBytes
		})
		if total > MaxScriptBytes {
			// The check runs in a command substitution, whose failure
			// would not end the script: stop the whole run.
			err := fmt.Errorf("%w: variables hold more than %d bytes", ErrScriptLimit, MaxScriptBytes)
			if sb.limit == nil {
				sb.limit = err
			}
			sb.stop()
			return nil, err
		}
		return []string{":"}, nil
	}
	sb.steps--
	if sb.steps < 0 {
		return nil, fmt.Errorf("%w: more than the allowed number of commands (endless loop?)", ErrScriptLimit)
	}
	if sb.funcs[args[0]] {
		sb.funcCalls--
		if sb.funcCalls < 0 {
			return nil, fmt.Errorf("%w: more than %d shell function calls (endless recursion?)", ErrScriptLimit, MaxScriptFuncCalls)
		}
	}
	if n := argsSize(args); n > MaxScriptBytes {
		return nil, fmt.Errorf("%w: a command's arguments hold %d bytes, more than %d", ErrScriptLimit, n, MaxScriptBytes)
	}
	if args[0] == "printf" {
		out, _ := printfCompat(args)
		if len(out) > 3 && out[1] == "-v" {
			return printfV(out), nil
		}
		return out, nil
	}
	if args[0] == "set" {
		return relaxSet(args), nil
	}
	return args, nil
}

// relaxSet drops errexit and nounset from a `set` call: recorded commands
// print nothing, so values a script computes with $(…) can be empty, and
// the script should still reach its launch command.
func relaxSet(args []string) []string {
	out := []string{args[0]}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "-o" || a == "+o") && i+1 < len(args) {
			if args[i+1] == "errexit" || args[i+1] == "nounset" {
				i++
				continue
			}
			out = append(out, a, args[i+1])
			i++
			continue
		}
		if len(a) > 1 && a[0] == '-' {
			a = strings.NewReplacer("e", "", "u", "").Replace(a)
			if a == "-" {
				continue
			}
		}
		out = append(out, a)
	}
	if len(out) == 1 {
		// A bare `set` prints the variables; keep it harmless.
		return []string{"set", "+e"}
	}
	return out
}

// printfCompat rewrites `printf [-v VAR] FMT ARGS…` whose format uses what
// the interpreter's printf lacks (mvdan.cc/sh/v3 expand.Format knows only
// %s %b %c %d %i %u %o %x with flags and width: no precision, no '#', no
// %X %e %f %g, no %q) into a printf of %s conversions whose arguments are
// formatted here the way bash's printf (C printf) does: %q quotes like
// bash (backslash before shell-special characters; scripts save the server
// command with printf '%q ' "${CMD[@]}"), floats and precisions as C does.
// As in bash the format is reused while arguments remain, and missing
// arguments count as "" or 0. It returns false, leaving the call alone,
// when the format needs nothing of this or has what it does not handle
// (a '*' width, %a).
func printfCompat(args []string) ([]string, bool) {
	fi := 1
	if len(args) > 3 && args[1] == "-v" {
		fi = 3
	}
	if len(args) <= fi {
		return args, false
	}
	format := args[fi]
	type spec struct {
		start, end int    // format[start:end] is the whole %… spec
		flags      string // between % and the verb
		verb       byte
	}
	var specs []spec
	rewrite := false
	for i := 0; i < len(format); i++ {
		if format[i] == '\\' {
			i++
			continue
		}
		if format[i] != '%' || i+1 >= len(format) {
			continue
		}
		if format[i+1] == '%' {
			i++
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.*", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			return args, false
		}
		sp := spec{start: i, end: j + 1, flags: format[i+1 : j], verb: format[j]}
		switch {
		case strings.Contains(sp.flags, "*") || sp.verb == 'a' || sp.verb == 'A':
			return args, false
		case strings.IndexByte("sbcdiuox", sp.verb) < 0 || strings.ContainsAny(sp.flags, ".#"):
			rewrite = true
		}
		specs = append(specs, sp)
		i = j
	}
	if !rewrite {
		return args, false
	}
	var nf strings.Builder
	last := 0
	for _, sp := range specs {
		nf.WriteString(format[last:sp.start])
		if sp.verb == 'b' {
			nf.WriteString("%b")
		} else {
			nf.WriteString("%s")
		}
		last = sp.end
	}
	nf.WriteString(format[last:])
	out := append(append([]string(nil), args[:fi]...), nf.String())
	rest := args[fi+1:]
	n := max(len(specs), (len(rest)+len(specs)-1)/len(specs)*len(specs))
	for i := 0; i < n; i++ {
		a, given := "", i < len(rest)
		if given {
			a = rest[i]
		}
		out = append(out, cFormat(specs[i%len(specs)].flags, specs[i%len(specs)].verb, a, given))
	}
	return out, true
}

var shellNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?$`)

// printfV runs `printf -v VAR FMT ARGS…` (which the interpreter's printf
// lacks) as `eval VAR='…'`: the assignment happens in the caller's scope,
// as bash's printf -v does. A bad name or format is left to the
// interpreter to report.
func printfV(args []string) []string {
	name, format, rest := args[2], args[3], args[4:]
	if !shellNameRE.MatchString(name) {
		return args
	}
	var b strings.Builder
	for {
		s, n, err := expand.Format(&expand.Config{}, format, rest)
		if err != nil {
			return args
		}
		b.WriteString(s)
		rest = rest[n:]
		if n == 0 || len(rest) == 0 {
			break
		}
	}
	return []string{"eval", name + "='" + strings.ReplaceAll(b.String(), "'", `'"'"'`) + "'"}
}

// cFormat formats one argument for a %<flags><verb> conversion the way C's
// printf (and so bash's) does.
func cFormat(flags string, verb byte, arg string, given bool) string {
	num := func() int64 {
		a := strings.TrimSpace(arg)
		if len(a) > 1 && (a[0] == '\'' || a[0] == '"') {
			return int64(a[1]) // bash: the leading character's code
		}
		v, _ := strconv.ParseInt(a, 0, 64)
		return v
	}
	switch verb {
	case 'b':
		return arg
	case 'q':
		if !given {
			return ""
		}
		return fmt.Sprintf("%"+flags+"s", bashQuote(arg))
	case 's':
		return fmt.Sprintf("%"+flags+"s", arg)
	case 'c':
		if arg != "" {
			arg = arg[:1]
		}
		return fmt.Sprintf("%"+flags+"s", arg)
	case 'd', 'i':
		return fmt.Sprintf("%"+flags+"d", num())
	case 'u':
		return fmt.Sprintf("%"+flags+"d", uint64(num()))
	case 'o', 'x', 'X':
		return fmt.Sprintf("%"+flags+string(verb), uint64(num()))
	case 'f', 'F', 'e', 'E', 'g', 'G':
		v, _ := strconv.ParseFloat(strings.TrimSpace(arg), 64)
		if (verb == 'g' || verb == 'G') && !strings.Contains(flags, ".") {
			flags += ".6" // C's default precision; Go's %g is the shortest
		}
		return fmt.Sprintf("%"+flags+string(verb), v)
	}
	return arg
}

// bashQuote quotes s like bash's printf %q (sh_backslash_quote).
func bashQuote(s string) string {
	if s == "" {
		return "''"
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case strings.ContainsRune(" \t\n'\"\\|&;()<>!{}*[]?^$`,", r):
			b.WriteByte('\\')
		case i == 0 && (r == '#' || r == '~'):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (sb *sandbox) exec(ctx context.Context, args []string) error {
	hc := interp.HandlerCtx(ctx)
	c := Command{Argv: append([]string(nil), args...)}
	if hc.Pos.IsValid() {
		c.Line, c.Col = int(hc.Pos.Line()), int(hc.Pos.Col())
	}
	hc.Env.Each(func(name string, v expand.Variable) bool {
		if !v.Exported || v.Kind != expand.String {
			return true
		}
		if old, ok := sb.base[name]; ok && old == v.Str {
			return true
		}
		c.Env = append(c.Env, name+"="+v.Str)
		return true
	})
	sort.Strings(c.Env)
	sb.mu.Lock()
	if sb.closed {
		sb.mu.Unlock()
		return interp.NewExitStatus(1)
	}
	sb.run.Commands = append(sb.run.Commands, c)
	sb.mu.Unlock()
	// A few pure text utilities answer, so that paths built with them
	// (source "$(dirname "$0")/…") come out right; everything else prints
	// nothing and succeeds.
	switch args[0] {
	case "bash", "sh":
		// bash -c STRING: run STRING in this interpreter, so that the
		// commands inside are recorded too.
		if len(args) > 2 && args[1] == "-c" {
			return hc.Builtin(ctx, []string{"eval", args[2]})
		}
	case "hf", "huggingface-cli":
		// `hf download <repo>` prints the local path; the repo id stands
		// for it (Check 3 compares the model as the HF id).
		if len(args) > 2 && args[1] == "download" {
			for _, a := range args[2:] {
				if !strings.HasPrefix(a, "-") {
					fmt.Fprintln(hc.Stdout, a)
					break
				}
			}
		}
	case "cat":
		sb.cat(ctx, hc, args[1:])
	case "tee":
		sb.tee(hc, args[1:])
	case "dirname":
		if len(args) > 1 {
			fmt.Fprintln(hc.Stdout, filepath.Dir(args[len(args)-1]))
		}
	case "basename":
		if len(args) > 1 {
			b := filepath.Base(args[1])
			if len(args) > 2 {
				b = strings.TrimSuffix(b, args[2])
			}
			fmt.Fprintln(hc.Stdout, b)
		}
	}
	return nil
}

// cat copies its files (or stdin, e.g. a heredoc) to stdout, so that
// `cat > config.yaml <<EOF … EOF` leaves the file's text in Writes. Files
// the script wrote are read back from Writes; others only inside the
// readable roots.
func (sb *sandbox) cat(ctx context.Context, hc interp.HandlerContext, files []string) {
	var names []string
	for _, f := range files {
		if !strings.HasPrefix(f, "-") || f == "-" {
			names = append(names, f)
		}
	}
	if len(names) == 0 {
		names = []string{"-"}
	}
	for _, f := range names {
		if f == "-" {
			if hc.Stdin != nil {
				io.Copy(hc.Stdout, io.LimitReader(hc.Stdin, 1<<20))
			}
			continue
		}
		sb.mu.Lock()
		data, ok := sb.run.Writes[f]
		sb.mu.Unlock()
		if ok {
			io.WriteString(hc.Stdout, data)
			continue
		}
		if p := abs(ctx, f); sb.readable(p) && isFile(p) {
			if fh, err := os.Open(p); err == nil {
				io.Copy(hc.Stdout, io.LimitReader(fh, 1<<20))
				fh.Close()
			}
		}
	}
}

// tee copies stdin to stdout and into each named file's Writes entry.
func (sb *sandbox) tee(hc interp.HandlerContext, args []string) {
	appendMode := false
	var files []string
	for _, a := range args {
		switch {
		case a == "-a" || a == "--append":
			appendMode = true
		case strings.HasPrefix(a, "-"):
		default:
			files = append(files, a)
		}
	}
	var buf bytes.Buffer
	if hc.Stdin != nil {
		io.Copy(&buf, io.LimitReader(hc.Stdin, 1<<20))
	}
	hc.Stdout.Write(buf.Bytes())
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.closed {
		return
	}
	for _, f := range files {
		if appendMode {
			sb.run.Writes[f] += buf.String()
		} else {
			sb.run.Writes[f] = buf.String()
		}
	}
}

// abs resolves p against the interpreter's directory.
func abs(ctx context.Context, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(interp.HandlerCtx(ctx).Dir, p)
	}
	return filepath.Clean(p)
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

func (sb *sandbox) readable(p string) bool {
	if within(p, sb.tmp) {
		return true
	}
	for _, r := range sb.roots {
		if within(p, r) {
			return true
		}
	}
	return false
}

func (sb *sandbox) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	if path == "/dev/null" {
		return nopRW{}, nil
	}
	p := abs(ctx, path)
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) != 0 {
		return &sink{sb: sb, name: path, appendMode: flag&os.O_APPEND != 0}, nil
	}
	if filepath.Base(p) == "benchmark_lib.sh" {
		return readOnly{strings.NewReader(sb.lib)}, nil
	}
	sb.mu.Lock()
	data, written := sb.run.Writes[path]
	sb.mu.Unlock()
	if written {
		return readOnly{strings.NewReader(data)}, nil
	}
	if !sb.readable(p) {
		return nil, &os.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	if st, err := os.Stat(p); err == nil && !st.Mode().IsRegular() {
		// A FIFO or device would block or never end (launch.ReadInput's rule).
		return nil, &os.PathError{Op: "open", Path: path, Err: fs.ErrInvalid}
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	return readOnlyFile{f}, nil
}

func (sb *sandbox) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	p := abs(ctx, name)
	if !sb.readable(p) {
		return nil, &os.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	if follow {
		return os.Stat(p)
	}
	return os.Lstat(p)
}

func (sb *sandbox) readDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	p := abs(ctx, name)
	if !sb.readable(p) {
		return nil, &os.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return os.ReadDir(p)
}

// sink collects what the script writes to one file.
type sink struct {
	sb         *sandbox
	name       string
	appendMode bool
	buf        bytes.Buffer
}

func (s *sink) Read([]byte) (int, error) { return 0, io.EOF }
func (s *sink) Write(b []byte) (int, error) {
	if s.buf.Len() < 1<<20 {
		s.buf.Write(b)
	}
	return len(b), nil
}
func (s *sink) Close() error {
	s.sb.mu.Lock()
	defer s.sb.mu.Unlock()
	if s.sb.closed {
		return nil
	}
	if s.appendMode {
		s.sb.run.Writes[s.name] += s.buf.String()
	} else {
		s.sb.run.Writes[s.name] = s.buf.String()
	}
	return nil
}

type nopRW struct{}

func (nopRW) Read([]byte) (int, error)    { return 0, io.EOF }
func (nopRW) Write(b []byte) (int, error) { return len(b), nil }
func (nopRW) Close() error                { return nil }

type readOnly struct{ r io.Reader }

func (r readOnly) Read(b []byte) (int, error) { return r.r.Read(b) }
func (readOnly) Write([]byte) (int, error)    { return 0, fs.ErrPermission }
func (readOnly) Close() error                 { return nil }

type readOnlyFile struct{ f *os.File }

func (r readOnlyFile) Read(b []byte) (int, error) { return r.f.Read(b) }
func (readOnlyFile) Write([]byte) (int, error)    { return 0, fs.ErrPermission }
func (r readOnlyFile) Close() error               { return r.f.Close() }

// arithWatch passes the interpreter's stderr on to w and notices the
// errors of mvdan.cc/sh/v3/expand.Arithm (which the interpreter prints and
// then goes on), stopping the run at the first one.
type arithWatch struct {
	w    io.Writer
	stop context.CancelFunc
	mu   sync.Mutex
	msg  string
}

func (a *arithWatch) Write(b []byte) (int, error) {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); isArithErr(l) {
			a.mu.Lock()
			if a.msg == "" {
				a.msg = l
				a.stop()
			}
			a.mu.Unlock()
		}
	}
	return a.w.Write(b)
}

func (a *arithWatch) message() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.msg
}

// isArithErr reports whether msg is one of expand.Arithm's errors
// (mvdan.cc/sh/v3 expand/arith.go).
func isArithErr(msg string) bool {
	return msg == "division by zero" || msg == "exponent less than 0" ||
		strings.HasPrefix(msg, "unsupported unary arithmetic operator") ||
		strings.HasPrefix(msg, "unsupported binary arithmetic operator")
}

// arithErrPos finds the first arithmetic expression of file ($((…)),
// ((…)), let) that fails with msg when evaluated with the variables the run
// ended with; 0, 0 when none does (say, a function's local operand).
func arithErrPos(file *syntax.File, vars map[string]expand.Variable, msg string) (line, col int) {
	cfg := &expand.Config{Env: varsEnviron(vars)}
	syntax.Walk(file, func(n syntax.Node) bool {
		if line > 0 {
			return false
		}
		var exprs []syntax.ArithmExpr
		switch x := n.(type) {
		case *syntax.ArithmExp:
			exprs = []syntax.ArithmExpr{x.X}
		case *syntax.ArithmCmd:
			exprs = []syntax.ArithmExpr{x.X}
		case *syntax.LetClause:
			exprs = x.Exprs
		}
		for _, e := range exprs {
			if e == nil {
				continue
			}
			if _, err := expand.Arithm(cfg, e); err != nil && err.Error() == msg {
				line, col = int(n.Pos().Line()), int(n.Pos().Col())
				return false
			}
		}
		return true
	})
	return line, col
}

// varsEnviron is a read-only expand.Environ over a runner's variables.
type varsEnviron map[string]expand.Variable

func (v varsEnviron) Get(name string) expand.Variable { return v[name] }

func (v varsEnviron) Each(f func(name string, vr expand.Variable) bool) {
	for k, vr := range v {
		if !f(k, vr) {
			return
		}
	}
}

// limitedBuffer keeps the first 64 KiB of the script's output.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *limitedBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() < 64<<10 {
		l.buf.Write(b)
	}
	return len(b), nil
}

// argsSize is the number of bytes in args.
func argsSize(args []string) int {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	return n
}
