package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// markerPrefix starts the word mark() puts in front of every simple
// command: "__cs@<file index>:<line>:<col>:<context>".
const markerPrefix = "__cs@"

// execCmd is what the call handler turns an external command into, so that
// the exec handler knows its position and context.
const execCmd = "__cs_exec"

// Call contexts: how a command's status and output are used.
const (
	ctxPlain = 'p' // a statement whose status nothing tests
	ctxCond  = 'c' // its status decides a branch (if/while/&&/||/!)
	ctxValue = 'v' // its output is used ($(…), <(…), the left of a pipe)
	ctxFunc  = 'f' // in a function body: the context of the call
)

// marker walks a parsed file and puts a marker word in front of every
// simple command, recording the command's file, position and context:
// "__cs@<context>:<line>:<col>:<file name>".
type marker struct{ name string }

func (m marker) stmts(list []*syntax.Stmt, ctx byte) {
	for i, st := range list {
		c := ctx
		if (ctx == ctxPlain || ctx == ctxFunc) && i+1 < len(list) && readsStatus(list[i+1]) {
			// `cmd; rc=$?`, `cmd; if [ $? -ne 0 ]`: the next statement
			// tests this one's status.
			c = ctxCond
		}
		m.stmt(st, c)
	}
}

// readsStatus reports whether a statement reads $? outside any nested
// command list of its own (a $(…), a function body).
func readsStatus(st *syntax.Stmt) bool {
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.FuncDecl:
			return false
		case *syntax.ParamExp:
			if x.Param != nil && x.Param.Value == "?" {
				found = true
			}
		}
		return !found
	})
	return found
}

func (m marker) stmt(st *syntax.Stmt, ctx byte) {
	if st == nil {
		return
	}
	if st.Negated {
		ctx = ctxCond
	}
	m.cmd(st.Cmd, ctx)
	for _, r := range st.Redirs {
		m.words(r.Word)
		m.words(r.Hdoc)
	}
}

func (m marker) words(n syntax.Node) {
	if n == nil {
		return
	}
	if w, ok := n.(*syntax.Word); ok && w == nil {
		return
	}
	syntax.Walk(n, func(x syntax.Node) bool {
		switch s := x.(type) {
		case *syntax.CmdSubst:
			m.stmts(s.Stmts, ctxValue)
			return false
		case *syntax.ProcSubst:
			m.stmts(s.Stmts, ctxValue)
			return false
		}
		return true
	})
}

func (m marker) cmd(c syntax.Command, ctx byte) {
	switch x := c.(type) {
	case nil:
	case *syntax.CallExpr:
		for _, a := range x.Assigns {
			m.words(a)
		}
		for _, w := range x.Args {
			m.words(w)
		}
		if len(x.Args) > 0 {
			pos := x.Args[0].Pos()
			lit := &syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: fmt.Sprintf("%s%c:%d:%d:%s", markerPrefix, ctx, pos.Line(), pos.Col(), m.name)}
			x.Args = append([]*syntax.Word{{Parts: []syntax.WordPart{lit}}}, x.Args...)
		}
	case *syntax.IfClause:
		for cl := x; cl != nil; cl = cl.Else {
			m.stmts(cl.Cond, ctxCond)
			m.stmts(cl.Then, ctx)
		}
	case *syntax.WhileClause:
		m.stmts(x.Cond, ctxCond)
		m.stmts(x.Do, bodyCtx(ctx))
	case *syntax.ForClause:
		m.words(x.Loop)
		m.stmts(x.Do, bodyCtx(ctx))
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.OrStmt:
			// `cmd || true`, `cmd || :`: nothing depends on cmd's status.
			if isTrueStmt(x.Y) {
				m.stmt(x.X, ctx)
			} else {
				m.stmt(x.X, ctxCond)
			}
			m.stmt(x.Y, ctx)
		case syntax.AndStmt:
			m.stmt(x.X, ctxCond)
			m.stmt(x.Y, ctx)
		default: // pipes: the left side's output feeds the right side
			m.stmt(x.X, ctxValue)
			m.stmt(x.Y, ctx)
		}
	case *syntax.Block:
		m.stmts(x.Stmts, ctx)
	case *syntax.Subshell:
		m.stmts(x.Stmts, ctx)
	case *syntax.FuncDecl:
		// A function's output and status are those of its call: its
		// commands take the context of the call at run time.
		m.stmt(x.Body, ctxFunc)
	case *syntax.CaseClause:
		m.words(x.Word)
		for _, it := range x.Items {
			for _, p := range it.Patterns {
				m.words(p)
			}
			m.stmts(it.Stmts, ctx)
		}
	case *syntax.TimeClause:
		m.stmt(x.Stmt, ctx)
	case *syntax.CoprocClause:
		m.stmt(x.Stmt, ctxPlain)
	default: // [[ ]], (( )), let, declare/local/export, test-decl
		m.words(c)
	}
}

// isTrueStmt reports whether a statement is the bare command `true` or
// `:` (which succeeds whatever came before).
func isTrueStmt(st *syntax.Stmt) bool {
	if st == nil || st.Negated || len(st.Redirs) > 0 {
		return false
	}
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) != 1 {
		return false
	}
	w := c.Args[0].Lit()
	return w == "true" || w == ":"
}

// bodyCtx is the context of a loop body: a function body's stays that of
// the call; elsewhere a loop's status is not what a script tests.
func bodyCtx(ctx byte) byte {
	if ctx == ctxFunc {
		return ctxFunc
	}
	return ctxPlain
}

// assocDeclRE finds the start of an associative array literal:
// `declare -A NAME=(` (also local/typeset, other flags with A).
var assocDeclRE = regexp.MustCompile(`^\s*(?:declare|local|typeset)\s+-[a-zA-Z]*A[a-zA-Z]*\s+[A-Za-z_][A-Za-z0-9_]*=\(`)

// assocNameRE finds the names declared associative.
var assocNameRE = regexp.MustCompile(`(?m)^\s*(?:declare|local|typeset)\s+-[a-zA-Z]*A[a-zA-Z]*\s+([A-Za-z_][A-Za-z0-9_]*)`)

// assocKeyRE is a bare subscript at the start of a literal's line.
var assocKeyRE = regexp.MustCompile(`^(\s*)\[([^\]"'$\x60]+)\]=`)

// quoteAssocKeys quotes the bare keys of associative array literals
// (`declare -A M=( [1024:4:false]=4 )`): bash reads them as strings, the
// parser (which cannot know the array is associative) as arithmetic, where
// `a:b` is a syntax error. Only such literal lines change, and only by the
// two quotes, so every line keeps its number.
func quoteAssocKeys(src []byte) []byte {
	if !bytes.Contains(src, []byte("-A")) {
		return src
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	in := false
	var names []string
	for _, m := range assocNameRE.FindAllSubmatch(src, -1) {
		names = append(names, regexp.QuoteMeta(string(m[1])))
	}
	var useRE *regexp.Regexp
	if len(names) > 0 {
		// ${NAME[key…]…} and NAME[key]= with a bare key: quote it.
		useRE = regexp.MustCompile(`(\$\{!?(?:` + strings.Join(names, "|") + `)\[|(?:^|[\s;])(?:` + strings.Join(names, "|") + `)\[)([^\]"'\x60@*][^\]"'\x60]*)\]`)
	}
	for i, l := range lines {
		if useRE != nil && !in {
			lines[i] = useRE.ReplaceAll(l, []byte(`${1}"${2}"]`))
			l = lines[i]
		}
		if !in {
			if loc := assocDeclRE.FindIndex(l); loc != nil {
				rest := l[loc[1]:]
				if !bytes.Contains(rest, []byte(")")) {
					in = true
				}
			}
			continue
		}
		if t := bytes.TrimSpace(l); bytes.HasPrefix(t, []byte(")")) {
			in = false
			continue
		}
		lines[i] = assocKeyRE.ReplaceAll(l, []byte(`${1}["${2}"]=`))
	}
	return bytes.Join(lines, nil)
}

// hostParams are the parameters the interpreter would answer from this
// machine's process; the sandbox gives fixed values (a script's output
// must not depend on where cookbook-sync runs): $$ 4242, $PPID 4241,
// $RANDOM 12345, $BASHPID 4242.
var hostParams = map[string]string{"$": "4242", "PPID": "4241", "RANDOM": "12345", "BASHPID": "4242"}

// fixHostParams replaces the plain expansions of hostParams ($$, ${PPID},
// …) by their fixed values.
func fixHostParams(f *syntax.File) {
	fix := func(parts []syntax.WordPart) {
		for i, p := range parts {
			pe, ok := p.(*syntax.ParamExp)
			if !ok || pe.Param == nil || pe.Excl || pe.Length || pe.Width || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Exp != nil || pe.Names != 0 {
				continue
			}
			if v, ok := hostParams[pe.Param.Value]; ok {
				parts[i] = &syntax.Lit{ValuePos: pe.Pos(), ValueEnd: pe.End(), Value: v}
			}
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Word:
			fix(x.Parts)
		case *syntax.DblQuoted:
			fix(x.Parts)
		}
		return true
	})
}

// dropHighFDs removes the redirections of file descriptors above 2
// (`( flock -w 600 9 … ) 9>"$lock"`, `exec 3>file`, `>&3`): the
// interpreter supports only 0–2 and fails the whole command on any other,
// which a runner never does. Their only readers are lock tools (flock,
// modelled as succeeding) and writes to the runner's log; a duplication
// onto such a descriptor (>&3) is written to /dev/null.
func dropHighFDs(f *syntax.File) {
	high := func(s string) bool {
		if s == "" || s == "0" || s == "1" || s == "2" || s == "-" {
			return false
		}
		for _, r := range s {
			if r < '0' || r > '9' {
				return false
			}
		}
		return true
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		kept := st.Redirs[:0]
		for _, rd := range st.Redirs {
			if rd.N != nil && high(rd.N.Value) {
				continue
			}
			if (rd.Op == syntax.DplOut || rd.Op == syntax.DplIn) && rd.Word != nil && high(rd.Word.Lit()) {
				rd.Op = syntax.RdrOut
				if rd.Word != nil && len(rd.Word.Parts) == 1 {
					rd.Word = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: rd.Word.Pos(), ValueEnd: rd.Word.End(), Value: "/dev/null"}}}
				}
			}
			kept = append(kept, rd)
		}
		st.Redirs = kept
		return true
	})
}

// preparedFile is one parsed, marked file and the functions it declares.
type preparedFile struct {
	file  *syntax.File
	funcs []string
	err   error
}

// parseScript parses, marks and guards a script (cached by name and
// content), and registers the functions it declares.
func (sb *sandbox) parseScript(name string, src []byte) (*syntax.File, error) {
	key := name + "\x00" + string(src)
	c := sb.cache
	c.mu.Lock()
	pf, ok := c.files[key]
	c.mu.Unlock()
	if !ok {
		pf = prepareFile(name, src)
		c.mu.Lock()
		if c.files == nil {
			c.files = map[string]*preparedFile{}
		}
		if len(c.files) < 4096 {
			c.files[key] = pf
		}
		c.mu.Unlock()
	}
	if pf.err != nil {
		return nil, pf.err
	}
	sb.mu.Lock()
	for _, f := range pf.funcs {
		sb.funcs[f] = true
	}
	sb.mu.Unlock()
	return pf.file, nil
}

func prepareFile(name string, src []byte) *preparedFile {
	if i := bytes.IndexByte(src, '\r'); i >= 0 {
		// bash reads the CR as part of the line: `cmd --x 1\r` passes
		// "1\r", a line of its own fails with "$'\r': command not found".
		line := bytes.Count(src[:i], []byte("\n")) + 1
		col := i - bytes.LastIndexByte(src[:i], '\n')
		return &preparedFile{err: &PosError{File: name, Line: line, Col: col, Err: errors.New("carriage return (CRLF line endings): bash would read it as part of the line ($'\\r': command not found); convert the script to LF line endings")}}
	}
	if err := checkNesting(name, src); err != nil {
		return &preparedFile{err: err}
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(quoteAssocKeys(src)), name)
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return &preparedFile{err: &PosError{File: name, Line: int(pe.Pos.Line()), Col: int(pe.Pos.Col()), Err: errors.New(pe.Text)}}
		}
		return &preparedFile{err: &PosError{File: name, Err: err}}
	}
	pf := &preparedFile{file: file}
	var anon *syntax.FuncDecl
	syntax.Walk(file, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok {
			if fd.Name == nil {
				// `() ( : )`, `()00`: the parser takes an anonymous
				// function (zsh); bash reports a syntax error.
				if anon == nil {
					anon = fd
				}
				return true
			}
			pf.funcs = append(pf.funcs, fd.Name.Value)
		}
		return true
	})
	if anon != nil {
		return &preparedFile{err: &PosError{File: name, Line: int(anon.Pos().Line()), Col: int(anon.Pos().Col()), Err: errors.New("a function without a name: bash reports a syntax error near unexpected token `)'")}}
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
	rewriteProcSubst(file)
	marker{name: name}.stmts(file.Stmts, ctxPlain)
	guardAssignments(file)
	guardReplacements(file)
	countIterations(file, name)
	markTests(file, name)
	fixHostParams(file)
	dropHighFDs(file)
	return pf
}

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
	sb := &sandbox{file: path, name: name, cache: cache, base: map[string]string{}, run: &Trace{File: path, Writes: map[string]string{}},
		steps: cfg.Steps, maxIters: cfg.Steps, funcs: map[string]bool{}, funcCalls: MaxFuncCalls, facts: cfg.Facts, prepared: map[string]string{},
		cfg: cfg, handlers: builtinHandlers()}
	sb.roots = absRoots(cfg.ReadRoots)
	sb.jail = newJail(sb.roots)
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
		if lf, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cfg.Library.Stubs), "stub"); err == nil {
			syntax.Walk(lf, func(n syntax.Node) bool {
				if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
					sb.funcs[fd.Name.Value] = true
				}
				return true
			})
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
	sb.stop = cancel
	sb.aw = &arithWatch{w: &sb.out, stop: cancel}
	status, err := sb.runFile(ctx, file, fileRun{name: name, env: env, dir: dir, params: cfg.Params})
	sb.mu.Lock()
	limit, stopR, bad := sb.limit, sb.stopReason, sb.badInput
	line, col, lfile := sb.lastLine, sb.lastCol, sb.lastFile
	sb.mu.Unlock()
	if bad != nil {
		return nil, bad
	}
	if limit != nil {
		return nil, &PosError{File: lfile, Line: line, Col: col, Err: limit}
	}
	if msg := sb.aw.limitMessage(); msg != "" && stopR == nil {
		return nil, &PosError{File: lfile, Line: line, Col: col, Err: limitf(LimitExpansion, "%s (bash would expand it)", msg)}
	}
	if msg := sb.aw.message(); msg != "" && stopR == nil {
		// An arithmetic expansion failed (bash: "1/0: division by 0"):
		// bash reports it and does not run the command it was part of, so
		// what the script launches is not what it means to launch.
		l, c := arithErrPos(file, sb.lastVars, msg)
		f := name
		if l == 0 {
			l, c, f = line, col, lfile
		}
		return nil, &PosError{File: f, Line: l, Col: c, Err: fmt.Errorf("arithmetic expansion failed: %s (bash reports it and skips the command)", msg)}
	}
	sb.mu.Lock()
	ended := sb.run.End != nil
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
	ienv = append(ienv, "TMPDIR="+noTempDir)
	opts := []interp.RunnerOption{
		interp.Env(expand.ListEnviron(ienv...)),
		interp.Dir(startDir),
		interp.StdIO(stdin, &errTail{w: stdout, sb: sb}, &errTail{w: stderr, sb: sb}),
		interp.CallHandler(sb.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc {
			return func(ctx context.Context, args []string) error { return sb.exec(ctx, args, depth) }
		}),
		interp.OpenHandler(sb.open),
		interp.StatHandler(sb.stat),
		interp.AccessHandler(sb.access),
		interp.ReadDirHandler2(sb.readDir),
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
	if init, perr := syntax.NewParser().Parse(strings.NewReader(initText), name); perr == nil {
		if err := sb.runSafe(ctx, runner, init); err != nil {
			return 1, err
		}
	}
	err = sb.runSafe(ctx, runner, file)
	if depth == 0 {
		sb.mu.Lock()
		sb.lastVars = runner.Vars
		sb.mu.Unlock()
	}
	status := 0
	var es interp.ExitStatus
	if errors.As(err, &es) {
		status = int(es)
		err = nil
	}
	if err == nil && ctx.Err() == nil {
		// Let background statements (`( … ) &`) reach the exec handler;
		// one that never ends (a monitor loop) is abandoned, not an error.
		if wait, perr := syntax.NewParser().Parse(strings.NewReader("wait"), name); perr == nil {
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
	if sb.badInput == nil {
		sb.badInput = err
	}
	if sb.stopReason == nil {
		sb.stopReason = &Unsupported{Msg: err.Error()}
	}
	sb.mu.Unlock()
	sb.stop()
}

// errStopped ends a run at a command the sandbox cannot evaluate.
var errStopped = errors.New("stopped at a command the sandbox cannot evaluate")

// sandbox holds the handlers' state; background subshells call them from
// other goroutines, hence the mutex.
type sandbox struct {
	mu        sync.Mutex
	file      string
	roots     []string
	jail      *jail           // every read of the disk (jail.go)
	vdirs     map[string]bool // logical directories that exist only in memory (logicalTmp, git clones)
	startDir  string          // Config.Dir, cleaned
	iters     int             // loop iterations run (stepCmd)
	maxIters  int             // Config.Steps
	base      map[string]string
	run       *Trace
	steps     int
	funcs     map[string]bool // shell functions declared in any parsed file
	funcCalls int             // function calls left (MaxFuncCalls)
	limit     error           // a bound exceeded inside a subshell
	stop      func()          // cancels the run
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
	errLines          []string            // the last lines written to stderr
	fnCtx             byte                // context of the current outermost function call
	badInput          error               // a file of the checkout that does not parse (inputError)
	tmpCount          int                 // mktemp names made
	markers           map[string]callSite // decoded marker words (decodeMarker)
	fsmu              sync.Mutex          // guards mounts and archives (taken without mu)
	mounts            map[string]string   // logical directory → real directory (sandbox.mount)
	archives          map[string]string   // tar archive (as named) → the directory it holds
	lastVars          map[string]expand.Variable
	cloneDirs         []string        // logical directories standing for git clones (git.go)
	allocated         bool            // salloc / sbatch ran: the run has a Slurm job
	seq               int             // Command.Seq / WrittenFile.Seq counter (mu)
	made              map[string]bool // files a modelled command made or found (squash images)
}

// errTail passes output on and keeps the last lines a script printed
// (Trace.ExitMsg: the message before an exit, on stdout or stderr).
type errTail struct {
	w  io.Writer
	sb *sandbox
}

func (e *errTail) Write(b []byte) (int, error) {
	e.sb.mu.Lock()
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "+") {
			if len(l) > 300 {
				l = l[:300] + "…"
			}
			if n := len(e.sb.errLines); n > 0 && e.sb.errLines[n-1] == l {
				continue
			}
			e.sb.errLines = append(e.sb.errLines, l)
			if len(e.sb.errLines) > 4 {
				e.sb.errLines = e.sb.errLines[1:]
			}
		}
	}
	e.sb.mu.Unlock()
	return e.w.Write(b)
}

func (sb *sandbox) lastErrLine() string {
	if len(sb.errLines) == 0 {
		return ""
	}
	return sb.errLines[len(sb.errLines)-1]
}

// decodeMarker reads a marker word: file name, line, col, context.
func (sb *sandbox) decodeMarker(w string) (Pos, byte) {
	if m, ok := sb.markers[w]; ok {
		return m.at, m.kind
	}
	at, kind := parseMarker(w)
	if sb.markers == nil {
		sb.markers = map[string]callSite{}
	}
	sb.markers[w] = callSite{at: at, kind: kind}
	return at, kind
}

func parseMarker(w string) (Pos, byte) {
	parts := strings.SplitN(strings.TrimPrefix(w, markerPrefix), ":", 4)
	if len(parts) != 4 || len(parts[0]) != 1 {
		return Pos{}, ctxPlain
	}
	line, _ := strconv.Atoi(parts[1])
	col, _ := strconv.Atoi(parts[2])
	return Pos{File: parts[3], Line: line, Col: col}, parts[0][0]
}

func (sb *sandbox) call(ctx context.Context, args []string) ([]string, error) {
	hc := interp.HandlerCtx(ctx)
	sb.mu.Lock()
	defer sb.mu.Unlock()
	at, kind := Pos{File: sb.lastFile, Line: sb.lastLine, Col: sb.lastCol}, byte(ctxPlain)
	if strings.HasPrefix(args[0], markerPrefix) {
		at, kind = sb.decodeMarker(args[0])
		args = args[1:]
		sb.lastFile, sb.lastLine, sb.lastCol = at.File, at.Line, at.Col
	} else if hc.Pos.IsValid() {
		// An assignment's size check or eval'd text: the interpreter's
		// position, in the file last reached.
		if sb.lastFile == "" {
			sb.lastFile = sb.name
		}
		sb.lastLine, sb.lastCol = int(hc.Pos.Line()), int(hc.Pos.Col())
		at = Pos{File: sb.lastFile, Line: sb.lastLine, Col: sb.lastCol}
	}
	if len(args) == 0 {
		return []string{":"}, nil
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
			return total <= MaxBytes
		})
		if total > MaxBytes {
			// The check runs in a command substitution, whose failure
			// would not end the script: stop the whole run.
			err := limitf(LimitBytes, "variables hold more than %d bytes", MaxBytes)
			if sb.limit == nil {
				sb.limit = err
			}
			sb.stop()
			return nil, err
		}
		return []string{":"}, nil
	}
	switch args[0] {
	case posCmd:
		if len(args) > 1 && strings.HasPrefix(args[1], markerPrefix) {
			at, _ := sb.decodeMarker(args[1])
			sb.lastFile, sb.lastLine, sb.lastCol = at.File, at.Line, at.Col
		}
		return []string{":"}, nil
	case stepCmd:
		if len(args) > 1 && strings.HasPrefix(args[1], markerPrefix) {
			at, _ := sb.decodeMarker(args[1])
			sb.lastFile, sb.lastLine, sb.lastCol = at.File, at.Line, at.Col
		}
		// A loop iteration (countIterations): bounded like commands, so
		// a loop of no simple command ends at the step bound too.
		sb.iters++
		if sb.iters > sb.maxIters {
			err := limitf(LimitIterations, "more than %d loop iterations (endless loop?)", sb.maxIters)
			if sb.limit == nil {
				sb.limit = err
			}
			sb.stop()
			return nil, err
		}
		return []string{":"}, nil
	case replCheckCmd:
		if err := replCheck(args[1:]); err != nil {
			if sb.limit == nil {
				sb.limit = err
			}
			sb.stop()
			return nil, err
		}
		return []string{":"}, nil
	case "eval":
		// The interpreter parses eval'd text itself: bound its nesting
		// first (checkNesting), as for a file.
		if err := checkNesting(at.String(), []byte(strings.Join(args[1:], " "))); err != nil {
			if sb.limit == nil {
				sb.limit = err
			}
			sb.stop()
			return nil, err
		}
	}
	sb.steps--
	if sb.steps < 0 {
		return nil, limitf(LimitSteps, "more than the allowed number of commands (endless loop?)")
	}
	if sb.funcs[args[0]] {
		sb.funcCalls--
		if sb.funcCalls < 0 {
			return nil, limitf(LimitFuncCalls, "more than %d shell function calls (endless recursion?)", MaxFuncCalls)
		}
	}
	if n := argsSize(args); n > MaxBytes {
		return nil, limitf(LimitBytes, "a command's arguments hold %d bytes, more than %d", n, MaxBytes)
	}
	if kind == ctxFunc && !sb.funcs[args[0]] {
		// A command in a function body takes the context of the call.
		kind = sb.fnCtx
		if kind == 0 {
			kind = ctxPlain
		}
	}
	switch args[0] {
	case "printf":
		out, _ := printfCompat(args)
		if len(out) > 3 && out[1] == "-v" {
			return printfV(out), nil
		}
		return out, nil
	case "set":
		return relaxSet(args), nil
	case "exit":
		sb.exitAt = at
	case "command", "type", "hash":
		if args[0] == "command" && (len(args) < 2 || !strings.HasPrefix(args[1], "-v") && !strings.HasPrefix(args[1], "-V")) {
			break // `command NAME …` runs NAME
		}
		if out, status, known := sb.lookup(args); known {
			// hc.Stdout (errTail) takes sb.mu itself.
			sb.mu.Unlock()
			say(hc.Stdout, out)
			sb.mu.Lock()
			if status != 0 {
				return []string{"false"}, nil
			}
			return []string{":"}, nil
		} else if kind != ctxPlain {
			why := fmt.Sprintf("%s in %s: whether %s is installed on the runner is not known to the sandbox", strings.Join(ShortArgv(args), " "), ctxWord(kind), args[len(args)-1])
			if sb.stopReason == nil {
				sb.stopReason = &Unsupported{Pos: at, Command: args[0], Msg: why}
			}
			sb.stop()
			return nil, errStopped
		} else {
			// Not known and nothing depends on the answer: not found,
			// without asking this machine (the interpreter's own lookup
			// would search the host's PATH).
			return []string{"false"}, nil
		}
	case "kill":
		// Processes the script started are running in the sandbox's model
		// (nothing dies: `kill -0 $PID` succeeds) and no signal reaches
		// anything (kill never touches the host's processes).
		return []string{":"}, nil
	case "source", ".":
		if len(args) > 1 && args[1] != "" && !strings.Contains(args[1], "/") {
			// bash looks a bare name up in PATH first; the interpreter
			// would ask this machine, so the lookup is made here, in the
			// sandbox's view, and the name passed on as a path.
			found := "./" + args[1]
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
		if n := sb.libName(); n != "" && len(args) > 1 && strings.HasSuffix(args[1], n) && !sb.hasLib {
			// Read from where the script names it (inside the roots).
			if p := sb.abs(ctx, args[1]); sb.jail.isFile(p) {
				if data, err := sb.jail.readInput(p); err == nil {
					sb.lib, sb.hasLib = data, true
				}
			}
		}
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
	return append([]string{execCmd, fmt.Sprintf("%s\x00%d\x00%d\x00%c", at.File, at.Line, at.Col, kind)}, args...), nil
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
func (sb *sandbox) lookup(args []string) (out string, status int, known bool) {
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
			inst, k := shellutil.Installed(n, sb.facts)
			switch {
			case k && !inst:
				status = 1
			case k && inst, evaluated[n], sb.onRunner(n):
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
}

func (sb *sandbox) exec(ctx context.Context, args []string, depth int) error {
	hc := interp.HandlerCtx(ctx)
	site := callSite{kind: ctxPlain}
	if len(args) >= 2 && args[0] == execCmd {
		f := strings.Split(args[1], "\x00")
		if len(f) == 4 && len(f[3]) == 1 {
			l, _ := strconv.Atoi(f[1])
			c, _ := strconv.Atoi(f[2])
			site = callSite{at: Pos{File: f[0], Line: l, Col: c}, kind: f[3][0]}
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
	sb.mu.Unlock()
	return sb.external(ctx, hc, args, nil, site, depth)
}

// envDiff lists the exported variables that differ from the run's starting
// environment, NAME=value sorted.
func (sb *sandbox) envDiff(env expand.Environ) []string {
	var out []string
	for _, kv := range exported(env) {
		k, v, _ := strings.Cut(kv, "=")
		if old, ok := sb.base[k]; ok && old == v {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// exported is the whole exported environment, NAME=value sorted by name.
// Each name is looked up once: the interpreter's scopes can list a name
// more than once (an outer value a later assignment shadows).
func exported(env expand.Environ) []string {
	seen := map[string]bool{}
	var names []string
	env.Each(func(name string, v expand.Variable) bool {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
		return true
	})
	sort.Strings(names)
	var out []string
	for _, name := range names {
		if v := env.Get(name); v.IsSet() && v.Exported && v.Kind == expand.String {
			out = append(out, name+"="+v.Str)
		}
	}
	return out
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
func (sb *sandbox) external(ctx context.Context, hc interp.HandlerContext, args []string, extraEnv []string, site callSite, depth int) error {
	name := path.Base(args[0])
	if _, ok := wrapperValueOpts[name]; ok && !(name == "env" && len(args) == 1) {
		inner, env := unwrap(name, args[1:])
		if len(inner) == 0 {
			return nil
		}
		return sb.external(ctx, hc, inner, append(extraEnv, env...), site, depth)
	}
	if sb.cfg.IsServer != nil && sb.cfg.IsServer(args) {
		return nil
	}
	c := &Call{Args: args, Pos: site.at, Use: Use(site.kind), sb: sb, hc: hc, ctxDir: interp.HandlerCtx(ctx).Dir, extraEnv: extraEnv, site: site, depth: depth}
	for _, table := range []map[string]Handler{sb.cfg.Commands, sb.handlers} {
		if h, ok := table[name]; ok {
			if err := h(ctx, c); !errors.Is(err, ErrUnhandled) {
				return err
			}
		}
	}
	stdin := []byte(nil)
	if readsStdin[name] && hc.Stdin != nil {
		// A read error ends the input like its end does (the pipe closed).
		stdin, _ = io.ReadAll(io.LimitReader(hc.Stdin, 1<<20))
	}
	res, handled, reason := shellutil.RunFiles(args, stdin, sb.facts, func(name string) ([]byte, error) {
		return sb.readFile(ctx, name)
	})
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
		return nil
	}
	why := fmt.Sprintf("%s in %s: the sandbox does not evaluate it", strings.Join(ShortArgv(args), " "), ctxWord(site.kind))
	if reason != "" {
		why += " (" + reason + ")"
	}
	return c.Unsupported(name, why)
}

// ls lists what the sandbox can see: a staged checkpoint directory (model
// staging rule), or a file or directory inside the read roots; anything
// else does not exist here, as on a runner without it (status 2).
func (sb *sandbox) ls(ctx context.Context, hc interp.HandlerContext, args []string) error {
	var paths []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" {
			paths = append(paths, a)
		}
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	status := 0
	for _, a := range paths {
		entries, err := sb.readDir(ctx, a)
		if err == nil {
			for _, e := range entries {
				say(hc.Stdout, fmt.Sprintln(e.Name()))
			}
			continue
		}
		if st, err := sb.stat(ctx, a, true); err == nil && !st.IsDir() {
			say(hc.Stdout, fmt.Sprintln(a))
			continue
		}
		say(hc.Stderr, fmt.Sprintf("ls: cannot access '%s': No such file or directory\n", a))
		status = 2
	}
	if status != 0 {
		return interp.ExitStatus(status)
	}
	return nil
}

// find walks what the sandbox can see (the read roots; the container
// image's own files, such as /usr/local/cuda, do not exist here) with the
// predicates the scripts use: -type f|d, -name/-iname GLOB, -perm (any),
// -maxdepth N, -print, -quit. ok=false for anything else (an unknown
// command). A start path that does not exist is reported as find does
// (status 1).
func (sb *sandbox) find(ctx context.Context, hc interp.HandlerContext, args []string) (error, bool) {
	var starts []string
	i := 0
	for ; i < len(args) && !strings.HasPrefix(args[i], "-") && args[i] != "(" && args[i] != "!"; i++ {
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	typ, quit, maxDepth := byte(0), false, -1
	var names []string
	var inames []string
	for ; i < len(args); i++ {
		switch args[i] {
		case "-type":
			if i+1 >= len(args) || len(args[i+1]) != 1 {
				return nil, false
			}
			typ = args[i+1][0]
			i++
		case "-name", "-iname":
			if i+1 >= len(args) {
				return nil, false
			}
			if args[i] == "-name" {
				names = append(names, args[i+1])
			} else {
				inames = append(inames, strings.ToLower(args[i+1]))
			}
			i++
		case "-perm":
			i++
		case "-maxdepth":
			if i+1 >= len(args) {
				return nil, false
			}
			n, err := strconv.Atoi(args[i+1])
			if err != nil {
				return nil, false
			}
			maxDepth = n
			i++
		case "-print":
		case "-quit":
			quit = true
		default:
			return nil, false
		}
	}
	status := 0
	found := 0
	for _, st := range starts {
		root := sb.abs(ctx, st)
		if _, err := sb.jail.stat(root, true); err != nil {
			sb.refused(st, err)
			say(hc.Stderr, fmt.Sprintf("find: '%s': No such file or directory\n", st))
			status = 1
			continue
		}
		_ = sb.jail.walk(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == root {
					say(hc.Stderr, fmt.Sprintf("find: '%s': No such file or directory\n", st))
					status = 1
				}
				return nil
			}
			if quit && found > 0 {
				return filepath.SkipAll
			}
			depth := 0
			if rel, err := filepath.Rel(root, p); err == nil && rel != "." {
				depth = strings.Count(rel, string(filepath.Separator)) + 1
			}
			if maxDepth >= 0 && depth > maxDepth {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if typ == 'f' && !d.Type().IsRegular() || typ == 'd' && !d.IsDir() {
				return nil
			}
			for _, n := range names {
				if ok, _ := filepath.Match(n, d.Name()); !ok {
					return nil
				}
			}
			for _, n := range inames {
				if ok, _ := filepath.Match(n, strings.ToLower(d.Name())); !ok {
					return nil
				}
			}
			shown := st + strings.TrimPrefix(p, root)
			say(hc.Stdout, fmt.Sprintln(shown))
			found++
			if found > 10000 {
				return filepath.SkipAll
			}
			return nil
		})
	}
	if status != 0 {
		return interp.ExitStatus(status), true
	}
	return nil, true
}

// realpath answers `realpath [-e|-m|-s|-q] PATH…` and `readlink -f|-m
// PATH…`: the absolute, cleaned path as the script names it. The sandbox's
// world has no symbolic links (paths in the checkout are shown as the
// script names them, never as the host resolves them), and a path outside
// the sandbox is taken to exist as named (a runner's squash file, model
// directory). ok=false for other forms (readlink without -f, -e on a path
// the sandbox knows is absent).
func (sb *sandbox) realpath(ctx context.Context, args []string) (string, bool) {
	name := path.Base(args[0])
	var ops []string
	mustExist := false
	canon := name == "realpath"
	for _, a := range args[1:] {
		switch {
		case a == "-f" || a == "-m" || a == "--canonicalize" || a == "--canonicalize-missing":
			canon = true
		case a == "-e" || a == "--canonicalize-existing":
			canon, mustExist = true, true
		case a == "-s" || a == "-q" || a == "-z" || a == "--no-symlinks" || a == "--quiet":
		case strings.HasPrefix(a, "-"):
			return "", false
		default:
			ops = append(ops, a)
		}
	}
	if !canon || len(ops) == 0 {
		return "", false
	}
	var b strings.Builder
	for _, o := range ops {
		p := o
		if !filepath.IsAbs(p) {
			p = filepath.Join(interp.HandlerCtx(ctx).Dir, p)
		}
		p = filepath.Clean(p)
		if mustExist {
			if _, err := sb.stat(ctx, p, true); err != nil {
				return "", false
			}
		}
		b.WriteString(p + "\n")
	}
	return b.String(), true
}

// mktemp creates (in memory) and prints a temporary file or directory
// name: the template's trailing X's become digits of a counter, so runs are
// deterministic; the default template is $TMPDIR/tmp.XXXXXXXXXX.
func (sb *sandbox) mktemp(hc interp.HandlerContext, args []string) error {
	dir, tmpl, isDir := "", "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-d" || a == "--directory":
			isDir = true
		case a == "-p" || a == "--tmpdir":
			if i+1 < len(args) {
				dir = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--tmpdir="):
			dir = strings.TrimPrefix(a, "--tmpdir=")
		case a == "-t" || a == "-q" || a == "-u" || a == "--dry-run" || a == "--quiet":
		case strings.HasPrefix(a, "-"):
		default:
			tmpl = a
		}
	}
	if tmpl == "" {
		tmpl = "tmp.XXXXXXXXXX"
		if dir == "" {
			dir = hc.Env.Get("TMPDIR").String()
		}
	}
	if dir != "" && !strings.HasPrefix(tmpl, "/") {
		tmpl = filepath.Join(dir, tmpl)
	}
	sb.mu.Lock()
	sb.tmpCount++
	n := sb.tmpCount
	sb.mu.Unlock()
	// The last run of X's (GNU mktemp: at least 3, anywhere before a suffix).
	end := strings.LastIndex(tmpl, "XXX")
	if end < 0 {
		say(hc.Stderr, fmt.Sprintf("mktemp: too few X's in template '%s'\n", tmpl))
		return interp.ExitStatus(1)
	}
	start := end
	for start > 0 && tmpl[start-1] == 'X' {
		start--
	}
	for end < len(tmpl) && tmpl[end] == 'X' {
		end++
	}
	name := tmpl[:start] + fmt.Sprintf("%0*d", end-start, n) + tmpl[end:]
	if !isDir {
		sb.mu.Lock()
		if !sb.closed {
			sb.run.Writes[name] = ""
		}
		sb.mu.Unlock()
	}
	say(hc.Stdout, fmt.Sprintln(name))
	return nil
}

// errHostState: a read of the runner's device or kernel state.
var errHostState = errors.New("the runner's system files, devices and kernel state are not in the runner table")

// systemPath reports whether p is a file of the runner's or the image's
// system (not the checkout, a staged model or the job's storage):
// /etc, /usr, /opt, /lib*, /bin, /sbin, /var, /root, /boot, /run, /sys,
// /proc and /dev (except the standard streams).
func systemPath(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr":
		return false
	}
	for _, d := range []string{"/etc", "/usr", "/opt", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/var", "/root", "/boot", "/run", "/sys", "/proc", "/dev"} {
		if within(p, d) {
			return true
		}
	}
	return false
}

// readsStdin are the commands given their standard input.
var readsStdin = map[string]bool{
	"awk": true, "gawk": true, "mawk": true, "grep": true, "egrep": true, "sed": true, "head": true, "tail": true,
	"cut": true, "tr": true, "wc": true, "sort": true, "uniq": true, "xargs": true, "jq": true, "numfmt": true, "bc": true,
}

// readFile reads a file operand of a text utility as the sandbox sees it:
// what the script wrote, else a regular file inside the read roots (at
// most 1 MiB); anything else does not exist.
func (sb *sandbox) readFile(ctx context.Context, name string) ([]byte, error) {
	sb.mu.Lock()
	data, written := sb.run.Writes[name]
	sb.mu.Unlock()
	if written {
		return []byte(data), nil
	}
	p := sb.abs(ctx, name)
	if v, ok := sb.cfg.HostFiles[p]; ok {
		return []byte(v), nil
	}
	if systemPath(p) && !sb.jail.contains(p) {
		// The runner's (or the image's) own files, its devices and kernel
		// state: not in the runner table, so unknown rather than absent.
		return nil, &os.PathError{Op: "open", Path: name, Err: errHostState}
	}
	b, err := sb.jail.readFile(p, 1<<20)
	if err != nil {
		sb.refused(name, err)
		return nil, &os.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return b, nil
}

// refused ends the run when err is the jail's refusal of a path that
// resolves outside the checkout (errJailEscape): the script sees no file,
// and the run reports the path, at the command last reached.
func (sb *sandbox) refused(name string, err error) {
	if !errors.Is(err, errJailEscape) {
		return
	}
	sb.mu.Lock()
	if sb.stopReason == nil {
		sb.stopReason = &Unsupported{Pos: sb.lastPos(), Command: "read",
			Msg: fmt.Sprintf("a read of %s: %v", name, errJailEscape)}
	}
	sb.mu.Unlock()
	sb.stop()
}

// lastPos is the last command reached (sb.mu held); before any, the
// run's script.
func (sb *sandbox) lastPos() Pos {
	if sb.lastFile == "" {
		return Pos{File: sb.name}
	}
	return Pos{File: sb.lastFile, Line: sb.lastLine, Col: sb.lastCol}
}

// isHostDir reports whether the caller's working directory
// (Config.Dir) is a directory on this machine.
func isHostDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// bash runs `bash [opts] FILE args…`, `bash -c STRING [name args…]` or
// `bash` reading its script from stdin, in the same sandbox, as a new
// process: it sees the exported environment plus extraEnv (minus unset).
func (sb *sandbox) bash(ctx context.Context, hc interp.HandlerContext, args []string, extraEnv, unset []string, site callSite, depth int) error {
	cmdString, haveC := "", false
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		if strings.Contains(a, "c") && !strings.HasPrefix(a, "--") {
			haveC = true
		}
		if a == "-o" || a == "+o" {
			if len(args) > 0 {
				args = args[1:]
			}
		}
	}
	env := mergeEnv(exported(hc.Env), extraEnv, unset)
	startIdx := -1
	var src []byte
	name, params := "", []string(nil)
	switch {
	case haveC:
		if len(args) == 0 {
			return nil
		}
		cmdString, args = args[0], args[1:]
		src = []byte(cmdString)
		name = fmt.Sprintf("bash -c at %s", site.at)
		if len(args) > 0 {
			params = args[1:]
		}
	case len(args) == 0:
		if hc.Stdin == nil {
			return nil
		}
		data, _ := io.ReadAll(io.LimitReader(hc.Stdin, 1<<20))
		src, name = data, fmt.Sprintf("bash stdin at %s", site.at)
	default:
		p := sb.abs(ctx, args[0])
		data, err := sb.jail.readInput(p)
		if err != nil {
			sb.refused(args[0], err)
			sb.mu.Lock()
			sb.run.Scripts = append(sb.run.Scripts, ScriptStart{File: p, At: site.at, Missing: true, Exit: 127})
			sb.mu.Unlock()
			say(hc.Stderr, fmt.Sprintf("bash: %s: No such file or directory\n", args[0]))
			return interp.ExitStatus(127)
		}
		// ("./runners/x.sh" is named "runners/x.sh" in positions: the same
		// file, as the rest of the output names it)
		src, name, params = data, path.Clean(args[0]), args[1:]
		sb.mu.Lock()
		st := ScriptStart{File: p, At: site.at, Unset: unset}
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			if old, ok := sb.base[k]; !ok || old != v {
				st.Env = append(st.Env, kv)
			}
		}
		sort.Strings(st.Env)
		startIdx = len(sb.run.Scripts)
		sb.run.Scripts = append(sb.run.Scripts, st)
		sb.exitAt = Pos{}
		sb.mu.Unlock()
	}
	file, err := sb.parseScript(name, src)
	if err != nil {
		if startIdx >= 0 {
			// A script of the checkout that bash could not read is bad
			// input: the run ends with its file:line:col.
			sb.inputError(err)
			return errStopped
		}
		say(hc.Stderr, fmt.Sprintf("%v\n", err))
		return interp.ExitStatus(2)
	}
	status, err := sb.runFile(ctx, file, fileRun{name: name, env: env, dir: hc.Dir, params: params, stdin: hc.Stdin, stdout: hc.Stdout, stderr: hc.Stderr, depth: depth + 1})
	if startIdx >= 0 {
		sb.mu.Lock()
		st := &sb.run.Scripts[startIdx]
		st.Exit = status
		if status != 0 && sb.exitAt.Line > 0 {
			st.ExitAt = sb.exitAt
		}
		st.ExitMsg = sb.lastErrLine()
		sb.mu.Unlock()
	}
	if err != nil {
		return err
	}
	if status != 0 {
		return interp.ExitStatus(status)
	}
	return nil
}

// mergeEnv applies NAME=value assignments and removals to an environment.
func mergeEnv(base, set, unset []string) []string {
	out := ApplyEnvOps(base, set)
	if len(unset) > 0 {
		drop := map[string]bool{}
		for _, k := range unset {
			drop[k] = true
		}
		kept := out[:0]
		for _, kv := range out {
			k, _, _ := strings.Cut(kv, "=")
			if !drop[k] {
				kept = append(kept, kv)
			}
		}
		out = kept
	}
	return out
}

// srunValueOpts are srun's short options that take a separate value.
const srunValueOpts = "ACDJLNQSWcdeiklmnoprstuwxGB"

// srun runs its command in the job allocation: `--export=ALL,NAME=value,…`
// adds variables (NAME alone passes the current value), `--export=NONE`
// starts from nothing; `--container-workdir` with `--container-mounts`
// mapping the checkout sets the directory. A bare `srun` with no command
// succeeds.
func (sb *sandbox) srun(ctx context.Context, hc interp.HandlerContext, args []string, extraEnv []string, site callSite, depth int) error {
	var set []string
	none := false
	workdir := ""
	var mounts []string
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		args = args[1:]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") {
			k, v, hasV := strings.Cut(a, "=")
			switch k {
			case "--export":
				for _, e := range strings.Split(v, ",") {
					switch {
					case e == "ALL" || e == "":
					case e == "NONE" || e == "NIL":
						none = true
					case strings.Contains(e, "="):
						set = append(set, e)
					default:
						if vv := hc.Env.Get(e); vv.IsSet() {
							set = append(set, e+"="+vv.String())
						}
					}
				}
			case "--container-workdir":
				workdir = v
			case "--container-mounts":
				mounts = strings.Split(v, ",")
			}
			if !hasV && srunLongTakesValue(k) && len(args) > 0 {
				args = args[1:]
			}
			continue
		}
		if len(a) == 2 && strings.IndexByte(srunValueOpts, a[1]) >= 0 && len(args) > 0 {
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return nil
	}
	hc2 := hc
	sb.mountAll(hc, mounts)
	if workdir != "" {
		hc2.Dir = filepath.Clean(workdir)
	}
	var unset []string
	if none {
		hc.Env.Each(func(name string, v expand.Variable) bool {
			if v.Exported {
				unset = append(unset, name)
			}
			return true
		})
	}
	set = append(append([]string(nil), extraEnv...), set...)
	return sb.jobCommand(ctx, hc2, args, set, unset, site, depth)
}

// jobCommand runs the command of an srun or docker run: a script (`bash
// FILE`, `FILE.sh`, `bash -c …`) in the sandbox as a new process, anything
// else as an external command, with the job's environment changes.
func (sb *sandbox) jobCommand(ctx context.Context, hc interp.HandlerContext, cmd, set, unset []string, site callSite, depth int) error {
	if name := path.Base(cmd[0]); name == "bash" || name == "sh" {
		return sb.bash(ctx, hc, cmd[1:], set, unset, site, depth)
	}
	if strings.HasSuffix(cmd[0], ".sh") {
		return sb.bash(ctx, hc, cmd, set, unset, site, depth)
	}
	return sb.external(ctx, hc, cmd, set, site, depth)
}

// srunLongTakesValue: srun long options written with a separate value.
func srunLongTakesValue(k string) bool {
	switch k {
	case "--jobid", "--partition", "--nodes", "--ntasks", "--job-name", "--account", "--time", "--gres", "--nodelist",
		"--container-image", "--container-mounts", "--container-workdir", "--container-name", "--mpi", "--overlap-nodes",
		"--cpus-per-task", "--mem", "--exclude", "--output", "--error", "--ntasks-per-node", "--gpus", "--gpus-per-node":
		return true
	}
	return false
}

// mountAll applies `HOST:CONTAINER[:flags]` mounts (srun
// --container-mounts, docker -v): the container path shows the host path
// (itself resolved through earlier mounts).
func (sb *sandbox) mountAll(hc interp.HandlerContext, mounts []string) {
	for _, m := range mounts {
		parts := strings.Split(m, ":")
		if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
			continue
		}
		host := parts[0]
		if !filepath.IsAbs(host) {
			host = filepath.Join(hc.Dir, host)
		}
		sb.mount(parts[1], sb.real(filepath.Clean(host)))
	}
}

// tar records what archives hold and where they are unpacked, so that a
// launcher that stages the checkout (`tar -C $GITHUB_WORKSPACE -czf X .`,
// `sbcast X Y`, `tar -C DIR -xzf Y`) runs the scripts of the checkout from
// DIR. Nothing is written.
func (sb *sandbox) tar(ctx context.Context, args []string) {
	dir, file, mode := "", "", byte(0)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "--directory":
			if i+1 < len(args) {
				dir = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--directory="):
			dir = strings.TrimPrefix(a, "--directory=")
		case a == "-f" || a == "--file":
			if i+1 < len(args) {
				file = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--file="):
			file = strings.TrimPrefix(a, "--file=")
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") || i == 0 && !strings.HasPrefix(a, "-"):
			flags := strings.TrimPrefix(a, "-")
			if strings.ContainsAny(flags, "cx") {
				if strings.Contains(flags, "c") {
					mode = 'c'
				} else {
					mode = 'x'
				}
				// -czf FILE: f takes the next word
				if strings.HasSuffix(flags, "f") && i+1 < len(args) {
					file = args[i+1]
					i++
				}
			}
		}
	}
	if file == "" || file == "-" {
		return
	}
	switch mode {
	case 'c':
		src := "."
		if dir != "" {
			src = dir
		}
		sb.fsmu.Lock()
		if sb.archives == nil {
			sb.archives = map[string]string{}
		}
		sb.fsmu.Unlock()
		real := sb.abs(ctx, src)
		sb.fsmu.Lock()
		sb.archives[file] = real
		sb.fsmu.Unlock()
	case 'x':
		sb.fsmu.Lock()
		from, ok := sb.archives[file]
		sb.fsmu.Unlock()
		if ok && dir != "" {
			at := dir
			if !filepath.IsAbs(at) {
				at = filepath.Join(interp.HandlerCtx(ctx).Dir, at)
			}
			sb.mount(at, from)
		}
	}
}

// dockerRun runs `docker run [opts] IMAGE [CMD…]`'s command with only the
// variables -e/--env name (NAME alone passes the current value), in the
// directory -w/--workdir maps back to through -v mounts.
func (sb *sandbox) dockerRun(ctx context.Context, hc interp.HandlerContext, args []string, site callSite, depth int) error {
	var set []string
	var mounts []string
	workdir := ""
	valued := map[string]bool{"-e": true, "--env": true, "-v": true, "--volume": true, "-w": true, "--workdir": true, "--name": true,
		"--network": true, "--ipc": true, "--shm-size": true, "--gpus": true, "--device": true, "--group-add": true, "--cap-add": true,
		"--security-opt": true, "-u": true, "--user": true, "--entrypoint": true, "--ulimit": true, "-p": true, "--publish": true,
		"--runtime": true, "--env-file": true, "--label": true, "-l": true, "--mount": true, "--memory": true, "--cpus": true, "--pid": true, "-h": true, "--hostname": true}
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		args = args[1:]
		k, v, hasV := strings.Cut(a, "=")
		if !hasV && valued[k] && len(args) > 0 {
			v, args = args[0], args[1:]
		}
		switch k {
		case "-e", "--env":
			if strings.Contains(v, "=") {
				set = append(set, v)
			} else if vv := hc.Env.Get(v); vv.IsSet() {
				set = append(set, v+"="+vv.String())
			}
		case "-v", "--volume":
			mounts = append(mounts, v)
		case "-w", "--workdir":
			workdir = v
		}
	}
	if len(args) < 2 {
		return nil // image only: its own entrypoint
	}
	cmd := args[1:]
	var unset []string
	hc.Env.Each(func(name string, v expand.Variable) bool {
		if v.Exported {
			unset = append(unset, name)
		}
		return true
	})
	base := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/root"}
	hc2 := hc
	sb.mountAll(hc, mounts)
	if workdir != "" {
		hc2.Dir = filepath.Clean(workdir)
	}
	return sb.jobCommand(ctx, hc2, cmd, append(base, set...), unset, site, depth)
}

func (sb *sandbox) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	if path == "/dev/null" {
		return nopRW{}, nil
	}
	if path == "/dev/stderr" || path == "/dev/stdout" {
		return nopRW{}, nil
	}
	p := sb.abs(ctx, path)
	if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) != 0 {
		lp := path
		if !filepath.IsAbs(lp) {
			lp = filepath.Join(interp.HandlerCtx(ctx).Dir, lp)
		}
		return &sink{sb: sb, name: path, logical: lp, appendMode: flag&os.O_APPEND != 0}, nil
	}
	sb.mu.Lock()
	data, written := sb.run.Writes[path]
	sb.mu.Unlock()
	if written {
		return readOnly{strings.NewReader(data)}, nil
	}
	if n := sb.libName(); n != "" && filepath.Base(p) == n {
		// The library as the script names it (or Library.Path), marked
		// like a script, followed by its stubs.
		text, err := sb.prepare(p, true)
		if err != nil {
			return nil, err
		}
		return readOnly{strings.NewReader(withSource(path, text))}, nil
	}
	if strings.HasSuffix(p, ".sh") && sb.jail.isFile(p) {
		// A sourced script: marked so its commands carry their file:line
		// and context.
		text, err := sb.prepare(p, false)
		if err == nil {
			return readOnly{strings.NewReader(withSource(path, text))}, nil
		}
	}
	// Through the jail: a regular file inside a read root (a FIFO or
	// device would block or never end; a link out of the root is
	// refused and ends the run).
	f, err := sb.jail.open(p)
	if err != nil {
		sb.refused(path, err)
		var pe *os.PathError
		if errors.As(err, &pe) && errors.Is(pe.Err, errNotRegular) {
			return nil, &os.PathError{Op: "open", Path: path, Err: fs.ErrInvalid}
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	}
	return readOnlyFile{f}, nil
}

// withSource brackets a sourced file's text with the BASH_SOURCE updates
// bash makes: the file's name (as the script named it) in front while it
// runs, removed after.
func withSource(name, text string) string {
	return "BASH_SOURCE=(" + bashQuote(name) + " \"${BASH_SOURCE[@]}\")\n" + text + "\nBASH_SOURCE=(\"${BASH_SOURCE[@]:1}\")\n"
}

// libName is Config.Library's base name, "" without a library.
func (sb *sandbox) libName() string {
	if sb.cfg.Library == nil {
		return ""
	}
	return sb.cfg.Library.Name
}

// prepare returns the marked text of a sourced script (cached): parsed,
// marked, printed back. lib: Config.Library, read from its Path when
// given, with its Stubs appended; a library that is not there gives the
// stubs alone.
func (sb *sandbox) prepare(p string, lib bool) (string, error) {
	sb.mu.Lock()
	if t, ok := sb.prepared[p]; ok {
		sb.mu.Unlock()
		return t, nil
	}
	var src []byte
	if lib && sb.hasLib {
		src = sb.lib
	}
	sb.mu.Unlock()
	if src == nil {
		if sb.jail.isFile(p) {
			data, err := sb.jail.readInput(p)
			if err != nil {
				sb.refused(p, err)
				return "", err
			}
			src = data
		}
	}
	name := sb.displayName(p)
	tkey := name + "\x00" + string(src)
	if lib {
		tkey += "\x00lib\x00" + sb.cfg.Library.Stubs
	}
	sb.cache.mu.Lock()
	if t, ok := sb.cache.texts[tkey]; ok {
		sb.cache.mu.Unlock()
		// The functions it declares (parseScript registered them when
		// the text was made).
		if len(src) > 0 {
			if _, err := sb.parseScript(name, src); err != nil {
				return "", err
			}
		}
		sb.mu.Lock()
		sb.prepared[p] = t
		sb.mu.Unlock()
		return t, nil
	}
	sb.cache.mu.Unlock()
	var b strings.Builder
	if len(src) > 0 {
		file, err := sb.parseScript(name, src)
		if err != nil {
			sb.inputError(err)
			return "", err
		}
		if err := syntax.NewPrinter().Print(&b, file); err != nil {
			return "", err
		}
	}
	if lib {
		b.WriteString("\n" + sb.cfg.Library.Stubs)
	}
	sb.mu.Lock()
	sb.prepared[p] = b.String()
	sb.mu.Unlock()
	sb.cache.mu.Lock()
	if sb.cache.texts == nil {
		sb.cache.texts = map[string]string{}
	}
	if len(sb.cache.texts) < 4096 {
		sb.cache.texts[tkey] = b.String()
	}
	sb.cache.mu.Unlock()
	return b.String(), nil
}

// displayName shows a path relative to the first read root containing it.
func (sb *sandbox) displayName(p string) string {
	for _, r := range sb.roots {
		if rel, err := filepath.Rel(r, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return p
}

// stagedDirs are the staged checkpoint directories of the current
// environment: the absolute paths held by the variables Config.ModelDir
// names. Model staging rule: each holds a complete checkpoint.
func (sb *sandbox) stagedDirs(env expand.Environ) []string {
	if sb.cfg.ModelDir == nil {
		return nil
	}
	var out []string
	env.Each(func(name string, v expand.Variable) bool {
		if sb.cfg.ModelDir(name) {
			if s := v.String(); strings.HasPrefix(s, "/") {
				out = append(out, filepath.Clean(s))
			}
		}
		return true
	})
	return out
}

// stagedFiles are what a staged checkpoint directory holds for probes.
var stagedFiles = []string{"config.json", "model-00001-of-00001.safetensors", "model.safetensors.index.json", "tokenizer.json", "tokenizer_config.json"}

func (sb *sandbox) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	p := sb.abs(ctx, name)
	if dir, base := filepath.Split(p); dir == "/usr/bin/" && (sb.onRunner(base) || isEvaluated(base)) {
		// The commands the sandbox answers `command -v` for as installed
		// at /usr/bin (lookup) are there for a test too.
		return stagedInfo{name: base, exec: true}, nil
	}
	sb.fsmu.Lock()
	made := sb.made[p]
	sb.fsmu.Unlock()
	if made {
		// A squash image the run imported or found valid (squashOperand).
		return stagedInfo{name: filepath.Base(p)}, nil
	}
	if sb.vdirs[p] || sb.isCloneDir(p) {
		return stagedInfo{name: filepath.Base(p), dir: true}, nil
	}
	if systemPath(p) && !sb.jail.contains(p) {
		// The runner's (or the image's) own files: whether they exist is
		// not known here, so a test of one cannot be answered.
		sb.mu.Lock()
		if sb.stopReason == nil {
			sb.stopReason = &Unsupported{Pos: sb.lastPos(), Command: "test",
				Msg: fmt.Sprintf("a test of %s: the runner's system files are not in the sandbox", name)}
		}
		sb.mu.Unlock()
		sb.stop()
		return nil, &os.PathError{Op: "stat", Path: name, Err: errHostState}
	}
	if !sb.jail.contains(p) {
		if sb.inClone(p) {
			// A file of a git clone the run made: its content is the
			// repository's at the ref, not known here, but a launcher's
			// test that it exists holds (the caller resolves what it is).
			return stagedInfo{name: filepath.Base(p)}, nil
		}
		for _, mp := range sb.stagedDirs(interp.HandlerCtx(ctx).Env) {
			// Model staging: a Config.ModelDir directory holds a complete checkpoint.
			if p == mp {
				return stagedInfo{name: filepath.Base(p), dir: true}, nil
			}
			if within(p, mp) {
				return stagedInfo{name: filepath.Base(p)}, nil
			}
		}
		return nil, &os.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	st, err := sb.jail.stat(p, follow)
	if err != nil {
		sb.refused(name, err)
		return nil, &os.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return st, nil
}

// access answers test -r/-w/-x and cd's permission check from the
// sandbox's view: what exists here (the read roots through the mounts, the
// staged checkpoints, the temporary directory) is readable, writable (into
// memory) and searchable; nothing else exists. The host is never asked.
func (sb *sandbox) access(ctx context.Context, name string, mode interp.AccessMode) error {
	if _, err := sb.stat(ctx, name, true); err != nil {
		return err
	}
	return nil
}

func (sb *sandbox) readDir(ctx context.Context, name string) ([]fs.DirEntry, error) {
	p := sb.abs(ctx, name)
	if sb.vdirs[p] || sb.isCloneDir(p) {
		return nil, nil // an empty directory of the run's own
	}
	if !sb.jail.contains(p) {
		for _, mp := range sb.stagedDirs(interp.HandlerCtx(ctx).Env) {
			if p == mp {
				var out []fs.DirEntry
				for _, f := range stagedFiles {
					out = append(out, fs.FileInfoToDirEntry(stagedInfo{name: f}))
				}
				return out, nil
			}
		}
		return nil, &os.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	ents, err := sb.jail.readDir(p)
	if err != nil {
		sb.refused(name, err)
		return nil, &os.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return ents, nil
}

// stagedInfo is a file or directory of a staged checkpoint.
type stagedInfo struct {
	name string
	dir  bool
	exec bool
}

func (s stagedInfo) Name() string { return s.name }
func (s stagedInfo) Size() int64  { return 1 << 20 }
func (s stagedInfo) Mode() fs.FileMode {
	if s.dir {
		return fs.ModeDir | 0o755
	}
	if s.exec {
		return 0o755
	}
	return 0o644
}
func (s stagedInfo) ModTime() time.Time { return time.Unix(0, 0) }
func (s stagedInfo) IsDir() bool        { return s.dir }
func (s stagedInfo) Sys() any           { return noOwnerStat() }

// isEvaluated reports whether shellutil evaluates the command name.
func isEvaluated(name string) bool {
	for _, c := range shellutil.Commands() {
		if c == name {
			return true
		}
	}
	return false
}

// squashOperand is the squash file of `unsquashfs -l FILE` or `enroot
// import -o FILE …`, "" for other forms.
func squashOperand(args []string) string {
	switch path.Base(args[0]) {
	case "unsquashfs":
		if len(args) >= 3 && args[1] == "-l" {
			return args[len(args)-1]
		}
	case "enroot":
		if len(args) >= 2 && args[1] == "import" {
			for i := 2; i+1 < len(args); i++ {
				if args[i] == "-o" || args[i] == "--output" {
					return args[i+1]
				}
			}
		}
	}
	return ""
}

// sedInPlace evaluates `sed -i [-e] EXPR… FILE…` when every FILE is one the
// run wrote (Trace.Writes): their text is replaced by sed's output.
// It reports false (not handled) otherwise, or when sed cannot evaluate the
// expression.
func (sb *sandbox) sedInPlace(args []string) bool {
	exprs, files, inPlace, ok := SedArgs(args)
	if !ok || !inPlace || len(files) == 0 {
		return false
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	out := map[string]string{}
	for _, f := range files {
		text, ok := sb.run.Writes[f]
		if !ok {
			return false
		}
		res, handled, _ := shellutil.RunFiles(append([]string{"sed"}, exprs...), []byte(text), sb.facts, nil)
		if !handled || res.Status != 0 {
			return false
		}
		out[f] = string(res.Stdout)
	}
	for f, t := range out {
		sb.run.Writes[f] = t
	}
	return true
}
