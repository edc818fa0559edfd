package pages

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Bounds of the command text ParseCommand accepts (our own rules: the page
// code is untrusted, and mvdan.cc/sh/v3/syntax's recursive descent
// overflows the goroutine stack on a few hundred thousand nested openers).
// The longest command of the cookbook pages at sglang @6c749811 is about
// 3 KiB, with no nesting beyond one quoted `bash -lc` script.
const (
	// MaxCommandSize is the largest command text parsed: 64 KiB.
	MaxCommandSize = 64 << 10
	// MaxCommandNesting is the most shell openers (`(`, `{`, `$(`,
	// backquotes) a command text may hold, counted before parsing.
	MaxCommandNesting = 200
)

// ErrNoCommand marks a page command that runs nothing: only comments
// (the generators' "# Error: This hardware only supports FP8 quantization"
// for a selection they do not support) or blank lines.
var ErrNoCommand = errors.New("the page shows no command for this selection (only comments)")

// CommandError is a page command ParseCommand cannot turn into processes:
// File and Selection ("k=v,…") name the selection, Line (1-based, in the
// command text) and Text the command line, Msg what is not understood. Err
// is ErrNoCommand for a comment-only text.
type CommandError struct {
	File, Selection string
	Line            int
	Text            string
	Msg             string
	Err             error
}

// Error is "<file> selection <k=v,…> line N: <msg>: <text>".
func (e *CommandError) Error() string {
	s := fmt.Sprintf("%s selection %s line %d: %s", e.File, e.Selection, e.Line, e.Msg)
	if e.Text != "" {
		s += ": " + strconv.Quote(e.Text)
	}
	return s
}

// Unwrap gives Err (ErrNoCommand or nil).
func (e *CommandError) Unwrap() error { return e.Err }

// SelectionText is the selection as "k=v,…" in the page's row order
// (Order; the keys sorted when Order is empty), a checkbox row's ticked ids
// joined by "+" ("strategy=tp+dp+mtp"; "" when none is ticked).
func SelectionText(sel *Selection) string {
	if sel == nil {
		return ""
	}
	keys := sel.Order
	if len(keys) == 0 {
		for k := range sel.Values {
			keys = append(keys, k)
		}
		sort.Strings(keys)
	}
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(valueText(sel.Values[k]))
	}
	return b.String()
}

func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []string:
		return strings.Join(x, "+")
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, fmt.Sprint(e))
		}
		return strings.Join(parts, "+")
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// SelectionHardware is the hardware id the selection picks (the config
// dimension "hw", the generators' row "hardware"; "b200", "mi355x"), ""
// when it has none.
func SelectionHardware(sel *Selection) string {
	for _, k := range []string{"hw", "hardware"} {
		if s, ok := sel.Values[k].(string); ok {
			return s
		}
	}
	return ""
}

// placeholderRe matches the pages' angle-bracket placeholders
// ("<node-rank>", "<your-node0-ip>", "<0|1>"), which a shell would read as
// redirections and pipes: they are set aside before parsing and kept as
// text.
var placeholderRe = regexp.MustCompile(`<([A-Za-z0-9][^<>\s'"|;&]*(?:\|[^<>\s'"|;&]+)*)>`)

const phOpen, phClose = "\u2039", "\u203a" // ‹ › stand-ins while parsing

// ParseCommand turns the command text a page shows for sel (sel.Command
// when cmd is "") into a Deployment: one Process per program it starts
// (workers, the sglang_router router, the Dynamo frontend), in text order.
//
// The text is read as bash (mvdan.cc/sh/v3/syntax): `\` continuations,
// comments, `VAR=x cmd` env prefixes (the process's Env), `export VAR=x`
// (Env of every later process, and expanded in later words; so are plain
// `VAR=x` lines), `exec`/`nohup`/`env` wrappers, `docker run [options]
// IMAGE CMD…` (docker mode: Process.Image, `--env`/`-e` into Env, the
// container options in Deployment.Notes), `bash -c|-lc 'SETUP && exec CMD
// "$@"' -- ARGS…` (the setup as Process.Preamble), and `A && B` chains
// whose other commands are setup (`pip install`, `python -m pip`, `cd`,
// `mkdir`, `ulimit`). Programs: `sglang serve`, `python[3] -m
// sglang.launch_server` / `sglang_router.launch_server` (workers), `python[3]
// -m sglang_router.launch_router` (router), `python[3] -m dynamo.frontend`
// (frontend), `python[3] -m dynamo.sglang[.…]` (workers). Arguments become
// launch.Arg values with `--flag=value` split; `<placeholder>` words stay as
// written.
//
// A worker's Role is its `--disaggregation-mode` (prefill, decode), else the
// selection's pdMode (configs with prefill / decode roles render one role
// per selection, sglang docs/src/snippets/_deployment.jsx renderCommand),
// else agg. Multi-node (`--nnodes N`): the commands of one role for node
// ranks 0..N-1 (or one command with a placeholder rank) are one Process,
// node 0's command as the representative, with NodesPerWorker N.
// Deployment.Model is the first worker's --model-path (--model), Engine
// "sglang", Hardware the selection's hw / hardware id. Origins are
// launch.OriginCookbook with Path "<file> selection <k=v,…> line N".
//
// Errors (*CommandError naming the line): a comment-only text
// (ErrNoCommand), text over the bounds, shell syntax errors, control flow
// (if, for, pipes, subshells, redirections, command substitution), an
// unknown program — a part that is not understood is never dropped.
func ParseCommand(cmd string, sel *Selection) (d *launch.Deployment, err error) {
	if sel == nil {
		sel = &Selection{}
	}
	defer func() {
		if r := recover(); r != nil { // the shell parser panicked on the page's text
			d, err = nil, &CommandError{File: sel.File, Selection: SelectionText(sel), Line: 1, Msg: fmt.Sprintf("the shell parser panicked on this text: %v", r)}
		}
	}()
	if cmd == "" {
		cmd = sel.Command
	}
	p := &cmdParser{sel: sel, selText: SelectionText(sel), lines: strings.Split(cmd, "\n"), vars: map[string]string{}}
	if len(cmd) > MaxCommandSize {
		return nil, p.errf(1, "command text is %d bytes, over the %d-byte limit", len(cmd), MaxCommandSize)
	}
	if n := strings.Count(cmd, "(") + strings.Count(cmd, "{") + strings.Count(cmd, "`"); n > MaxCommandNesting {
		return nil, p.errf(1, "command text has %d shell openers, over the limit of %d", n, MaxCommandNesting)
	}
	src := placeholderRe.ReplaceAllStringFunc(cmd, func(m string) string {
		p.placeholders = append(p.placeholders, m)
		return phOpen + strconv.Itoa(len(p.placeholders)-1) + phClose
	})
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		line := 1
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			line = int(pe.Pos.Line())
		}
		return nil, p.errf(line, "shell syntax: %v", err)
	}
	if len(f.Stmts) == 0 {
		e := p.errf(1, "%v", ErrNoCommand)
		e.Err, e.Text = ErrNoCommand, firstLine(cmd)
		return nil, e
	}
	for _, st := range f.Stmts {
		if err := p.stmt(st, 0, nil); err != nil {
			return nil, err
		}
	}
	if len(p.procs) == 0 {
		return nil, p.errf(1, "no server command (sglang serve, python3 -m sglang.launch_server, …) in the text")
	}
	return p.deployment()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

type cmdParser struct {
	sel      *Selection
	selText  string
	lines    []string
	vars     map[string]string // shell variables (exported or not)
	exported []launch.EnvVar   // export VAR=x, for every later process
	preamble []string          // setup commands run before the next server
	notes    []string
	procs    []proc
	image    string // the container of a bash -c script run by docker run
	// placeholders are the "<…>" texts replaced by ‹N› before parsing
	placeholders []string
	// origins are the Origin.Path texts made so far, by line (origin):
	// every argument of a line shares one string.
	origins map[int]string
}

// proc is one server command as written, before multi-node grouping.
type proc struct {
	p        launch.Process
	line     int
	nnodes   int
	nodeRank string
}

// origin is where an argument on line of the selection's command is
// written: the page file, the selection and the line.
func (p *cmdParser) origin(line int) launch.Origin {
	path, ok := p.origins[line]
	if !ok {
		path = fmt.Sprintf("%s selection %s line %d", p.sel.File, p.selText, line)
		if p.origins == nil {
			p.origins = map[int]string{}
		}
		p.origins[line] = path
	}
	return launch.Origin{Kind: launch.OriginCookbook, Path: path}
}

func (p *cmdParser) errf(line int, format string, args ...any) *CommandError {
	text := ""
	if line >= 1 && line <= len(p.lines) {
		text = strings.TrimSpace(p.lines[line-1])
	}
	return &CommandError{File: p.sel.File, Selection: p.selText, Line: line, Text: text, Msg: fmt.Sprintf(format, args...)}
}

// word is one expanded shell word with its line in the command text.
type word struct {
	s    string
	line int
}

// stmt handles one statement; lineOff is added to positions (a bash -c
// script's lines are those of its word), dollarAt the "$@" words of a bash
// -c script.
func (p *cmdParser) stmt(st *syntax.Stmt, lineOff int, dollarAt []word) error {
	line := int(st.Pos().Line()) + lineOff
	switch {
	case st.Negated, st.Background, st.Coprocess, st.Disown:
		return p.errf(line, "shell control (!, &) is not a launch command")
	case len(st.Redirs) > 0:
		return p.errf(line, "redirection is not part of a launch command")
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			// VAR=x: a shell variable for later words
			for _, a := range c.Assigns {
				name, val, err := p.assign(a, lineOff)
				if err != nil {
					return err
				}
				p.vars[name] = val
			}
			return nil
		}
		return p.call(c, line, lineOff, dollarAt)
	case *syntax.DeclClause:
		if c.Variant.Value != "export" {
			return p.errf(line, "%s is not a launch command", c.Variant.Value)
		}
		for _, a := range c.Args {
			name, val, err := p.assign(a, lineOff)
			if err != nil {
				return err
			}
			if a.Naked {
				val = p.vars[name]
			}
			p.vars[name] = val
			p.exported = setEnv(p.exported, launch.EnvVar{Name: name, Value: val, Origin: p.origin(int(a.Pos().Line()) + lineOff)})
		}
		return nil
	case *syntax.BinaryCmd:
		if c.Op != syntax.AndStmt {
			return p.errf(line, "shell operator %s is not a launch command", c.Op)
		}
		// A && B: setup commands, then the server
		if err := p.stmt(c.X, lineOff, dollarAt); err != nil {
			return err
		}
		return p.stmt(c.Y, lineOff, dollarAt)
	}
	return p.errf(line, "shell control flow (%T) is not a launch command", st.Cmd)
}

func (p *cmdParser) assign(a *syntax.Assign, lineOff int) (string, string, error) {
	line := int(a.Pos().Line()) + lineOff
	if a.Name == nil || a.Index != nil || a.Array != nil || a.Append {
		return "", "", p.errf(line, "only NAME=value assignments are understood")
	}
	val := ""
	if a.Value != nil {
		ws, err := p.expand(a.Value, lineOff, nil)
		if err != nil {
			return "", "", err
		}
		if len(ws) > 0 {
			val = ws[0].s
		}
	}
	return a.Name.Value, val, nil
}

// expand expands one shell word: quotes removed, $VAR / ${VAR} from the
// variables set so far (kept as written when unset), "$@" to dollarAt.
func (p *cmdParser) expand(w *syntax.Word, lineOff int, dollarAt []word) ([]word, error) {
	line := int(w.Pos().Line()) + lineOff
	if len(w.Parts) == 1 {
		if isDollarAt(w.Parts[0]) {
			return dollarAt, nil
		}
		if dq, ok := w.Parts[0].(*syntax.DblQuoted); ok && len(dq.Parts) == 1 && isDollarAt(dq.Parts[0]) {
			return dollarAt, nil
		}
	}
	var b strings.Builder
	if err := p.parts(&b, w.Parts, false, line); err != nil {
		return nil, err
	}
	return []word{{p.restore(b.String()), line}}, nil
}

// restore puts the placeholders ParseCommand set aside back into s.
func (p *cmdParser) restore(s string) string {
	if !strings.Contains(s, phOpen) {
		return s
	}
	return phRe.ReplaceAllStringFunc(s, func(m string) string {
		i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(m, phOpen), phClose))
		if err != nil || i >= len(p.placeholders) {
			return m
		}
		return p.placeholders[i]
	})
}

var phRe = regexp.MustCompile(phOpen + `[0-9]+` + phClose)

func isDollarAt(wp syntax.WordPart) bool {
	pe, ok := wp.(*syntax.ParamExp)
	return ok && pe.Param != nil && pe.Param.Value == "@" && simpleParam(pe)
}

func simpleParam(pe *syntax.ParamExp) bool {
	return pe.Param != nil && pe.Flags == nil && !pe.Excl && !pe.Length && !pe.Width && !pe.IsSet &&
		pe.NestedParam == nil && pe.Index == nil && len(pe.Modifiers) == 0 && pe.Slice == nil &&
		pe.Repl == nil && pe.Names == 0 && pe.Exp == nil
}

func (p *cmdParser) parts(b *strings.Builder, parts []syntax.WordPart, inDbl bool, line int) error {
	for _, wp := range parts {
		switch x := wp.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value, inDbl))
		case *syntax.SglQuoted:
			if x.Dollar {
				return p.errf(line, "$'…' quoting is not understood")
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return p.errf(line, "$\"…\" quoting is not understood")
			}
			if err := p.parts(b, x.Parts, true, line); err != nil {
				return err
			}
		case *syntax.ParamExp:
			if !simpleParam(x) {
				return p.errf(line, "parameter expansion beyond $NAME / ${NAME} is not understood")
			}
			if v, ok := p.vars[x.Param.Value]; ok {
				b.WriteString(v)
			} else if x.Short {
				b.WriteString("$" + x.Param.Value)
			} else {
				b.WriteString("${" + x.Param.Value + "}")
			}
		default:
			return p.errf(line, "shell expansion %T is not understood", wp)
		}
	}
	return nil
}

// unescape removes the shell's backslash escapes from literal text
// (outside quotes every `\c` is c; inside double quotes only \$ \` \" \\
// and \newline are escapes).
func unescape(s string, inDbl bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		switch {
		case n == '\n':
			i++
		case !inDbl || strings.IndexByte("$`\"\\", n) >= 0:
			b.WriteByte(n)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// setupPrograms are commands a page may run before the server in a `&&`
// chain (kept as Process.Preamble).
var setupPrograms = map[string]bool{"pip": true, "pip3": true, "cd": true, "mkdir": true, "ulimit": true, "uv": true}

func (p *cmdParser) call(c *syntax.CallExpr, line, lineOff int, dollarAt []word) error {
	var env []launch.EnvVar
	for _, a := range c.Assigns {
		name, val, err := p.assign(a, lineOff)
		if err != nil {
			return err
		}
		env = setEnv(env, launch.EnvVar{Name: name, Value: val, Origin: p.origin(int(a.Pos().Line()) + lineOff)})
	}
	var argv []word
	for _, w := range c.Args {
		ws, err := p.expand(w, lineOff, dollarAt)
		if err != nil {
			return err
		}
		argv = append(argv, ws...)
	}
	return p.argv(argv, env, line, "")
}

// argv recognises the program of argv (after env prefixes env) and records
// the server process, the setup command or the docker wrapper.
func (p *cmdParser) argv(argv []word, env []launch.EnvVar, line int, image string) error {
	for len(argv) > 0 {
		switch path.Base(argv[0].s) {
		case "exec", "nohup":
			argv = argv[1:]
			continue
		case "env":
			argv = argv[1:]
			for len(argv) > 0 && strings.Contains(argv[0].s, "=") && !strings.HasPrefix(argv[0].s, "-") {
				k, v, _ := strings.Cut(argv[0].s, "=")
				env = setEnv(env, launch.EnvVar{Name: k, Value: v, Origin: p.origin(argv[0].line)})
				argv = argv[1:]
			}
			continue
		}
		break
	}
	if len(argv) == 0 {
		return p.errf(line, "no program after the wrappers")
	}
	prog := path.Base(argv[0].s)
	words := strs(argv)
	switch {
	case prog == "sglang" && len(argv) >= 2 && argv[1].s == "serve":
		return p.server(launch.KindWorker, "sglang serve", argv[2:], env, line, image)
	case strings.HasPrefix(prog, "python") && len(argv) >= 3 && argv[1].s == "-m":
		mod := argv[2].s
		program := argv[0].s + " -m " + mod
		switch {
		case mod == "sglang.launch_server", mod == "sglang_router.launch_server":
			return p.server(launch.KindWorker, program, argv[3:], env, line, image)
		case mod == "sglang_router.launch_router":
			return p.server(launch.KindSGLangRouter, program, argv[3:], env, line, image)
		case mod == "dynamo.frontend":
			return p.server(launch.KindDynamoFrontend, program, argv[3:], env, line, image)
		case mod == "dynamo.sglang" || strings.HasPrefix(mod, "dynamo.sglang."):
			return p.server(launch.KindWorker, program, argv[3:], env, line, image)
		case mod == "pip":
			p.preamble = append(p.preamble, strings.Join(words, " "))
			return nil
		}
		return p.errf(line, "unknown program %q", strings.Join(words[:3], " "))
	case setupPrograms[prog]:
		p.preamble = append(p.preamble, strings.Join(words, " "))
		return nil
	case prog == "docker" && len(argv) >= 2 && argv[1].s == "run":
		if image != "" {
			return p.errf(line, "docker run inside a container")
		}
		return p.docker(argv[2:], env, line)
	case prog == "bash" || prog == "sh":
		return p.shellC(argv, env, line, image)
	}
	return p.errf(line, "unknown program %q", argv[0].s)
}

func strs(ws []word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.s
	}
	return out
}

// shellC reads `bash -c|-lc SCRIPT [NAME ARGS…]`: the script's statements
// with "$@" the words after NAME (`--` in the pages).
func (p *cmdParser) shellC(argv []word, env []launch.EnvVar, line int, image string) error {
	i := 1
	script := -1
	for ; i < len(argv); i++ {
		a := argv[i].s
		if !strings.HasPrefix(a, "-") {
			break
		}
		if strings.Contains(a, "c") {
			script = i + 1
			break
		}
		if a != "-l" && a != "--login" && a != "-e" && a != "-x" {
			return p.errf(argv[i].line, "%s option %q is not understood", argv[0].s, a)
		}
	}
	if script < 0 || script >= len(argv) {
		return p.errf(line, "%s without -c SCRIPT is not a launch command", argv[0].s)
	}
	var dollarAt []word
	if script+1 < len(argv) {
		dollarAt = argv[script+2:] // argv[script+1] is $0
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(argv[script].s), "")
	if err != nil {
		return p.errf(argv[script].line, "shell syntax of the %s -c script: %v", argv[0].s, err)
	}
	if len(f.Stmts) == 0 {
		return p.errf(argv[script].line, "empty %s -c script", argv[0].s)
	}
	sub := &cmdParser{sel: p.sel, selText: p.selText, lines: p.lines, vars: map[string]string{}, exported: p.exported, image: image, placeholders: p.placeholders}
	for k, v := range p.vars {
		sub.vars[k] = v
	}
	for _, e := range env {
		sub.vars[e.Name] = e.Value
		sub.exported = setEnv(sub.exported, e)
	}
	lineOff := argv[script].line - 1
	for _, st := range f.Stmts {
		if err := sub.stmt(st, lineOff, dollarAt); err != nil {
			return err
		}
	}
	if len(sub.procs) == 0 {
		return p.errf(argv[script].line, "the %s -c script starts no server", argv[0].s)
	}
	for _, pr := range sub.procs {
		pr.p.Preamble = append(append([]string(nil), p.preamble...), pr.p.Preamble...)
		p.procs = append(p.procs, pr)
	}
	p.preamble = nil
	p.notes = append(p.notes, sub.notes...)
	return nil
}

// dockerValueOpts are the `docker run` options that take a value (the
// options the pages use, and the common others); dockerBoolOpts those that
// do not. Source: docker run --help.
var dockerValueOpts = map[string]bool{
	"-v": true, "--volume": true, "-p": true, "--publish": true, "-e": true, "--env": true, "--env-file": true,
	"--shm-size": true, "--gpus": true, "--ipc": true, "--network": true, "--net": true, "--device": true,
	"--group-add": true, "--cap-add": true, "--cap-drop": true, "--security-opt": true, "--ulimit": true,
	"--name": true, "--runtime": true, "--entrypoint": true, "-w": true, "--workdir": true, "--mount": true,
	"-u": true, "--user": true, "--hostname": true, "--pid": true, "--memory": true, "-m": true,
}
var dockerBoolOpts = map[string]bool{"--rm": true, "-it": true, "-ti": true, "-i": true, "-t": true, "-d": true,
	"--detach": true, "--privileged": true, "--init": true, "--interactive": true, "--tty": true}

// docker reads `docker run [OPTIONS] IMAGE CMD…` (argv after "run").
func (p *cmdParser) docker(argv []word, env []launch.EnvVar, line int) error {
	var opts []string
	i := 0
	for ; i < len(argv); i++ {
		a := argv[i].s
		if !strings.HasPrefix(a, "-") {
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case dockerBoolOpts[name] && !hasVal:
			opts = append(opts, a)
			continue
		case !dockerValueOpts[name]:
			return p.errf(argv[i].line, "docker run option %q is not understood", a)
		}
		if !hasVal {
			if i+1 >= len(argv) {
				return p.errf(argv[i].line, "docker run option %q without its value", a)
			}
			i++
			val = argv[i].s
		}
		if name == "-e" || name == "--env" {
			k, v, ok := strings.Cut(val, "=")
			if !ok {
				v = p.vars[k]
			}
			env = setEnv(env, launch.EnvVar{Name: k, Value: v, Origin: p.origin(argv[i].line)})
			continue
		}
		opts = append(opts, name+" "+val)
	}
	if i >= len(argv) {
		return p.errf(line, "docker run without an image")
	}
	image := argv[i].s
	if i+1 >= len(argv) {
		return p.errf(argv[i].line, "docker run %s without a command (the image's entrypoint is not known)", image)
	}
	p.notes = append(p.notes, fmt.Sprintf("docker run %s (%s line %d)", strings.Join(opts, " "), p.sel.File, line))
	return p.argv(argv[i+1:], env, argv[i+1].line, image)
}

// server records one server process.
func (p *cmdParser) server(kind launch.Kind, program string, rest []word, env []launch.EnvVar, line int, image string) error {
	if image == "" {
		image = p.image
	}
	pr := launch.Process{Kind: kind, Program: program, Image: image, Origin: p.origin(line)}
	for _, e := range p.exported {
		pr.Env = setEnv(pr.Env, e)
	}
	for _, e := range env {
		pr.Env = setEnv(pr.Env, e)
	}
	pr.Args = p.args(rest)
	pr.Preamble, p.preamble = p.preamble, nil
	x := proc{p: pr, line: line, nnodes: 1}
	if kind == launch.KindWorker {
		pr := &x.p
		pr.Role = launch.RoleAgg
		if v, ok := launch.Lookup(pr.Args, "--disaggregation-mode"); ok && len(v) == 1 {
			switch v[0] {
			case "prefill":
				pr.Role = launch.RolePrefill
			case "decode":
				pr.Role = launch.RoleDecode
			case "null":
			default:
				return p.errf(line, "--disaggregation-mode %q is not prefill or decode", v[0])
			}
		} else if m, _ := p.sel.Values["pdMode"].(string); m == "prefill" || m == "decode" {
			pr.Role = launch.Role(m)
		}
		if v, ok := launch.Lookup(pr.Args, "--nnodes"); ok && len(v) == 1 {
			n, err := strconv.Atoi(v[0])
			if err != nil || n < 1 {
				return p.errf(line, "--nnodes %q is not a node count", v[0])
			}
			x.nnodes = n
		}
		if v, ok := launch.Lookup(pr.Args, "--node-rank"); ok && len(v) == 1 {
			x.nodeRank = v[0]
		}
	}
	p.procs = append(p.procs, x)
	return nil
}

// args splits server argument words into flags with their values:
// "--flag=value" gives one value, "--flag v1 v2" takes the words up to the
// next flag, words before the first flag are positionals (Flag "").
func (p *cmdParser) args(ws []word) []launch.Arg {
	var out []launch.Arg
	for _, w := range ws {
		switch {
		case isFlag(w.s):
			a := launch.Arg{Flag: w.s, Origin: p.origin(w.line)}
			if strings.HasPrefix(w.s, "--") {
				if f, v, ok := strings.Cut(w.s, "="); ok {
					a.Flag, a.Values = f, []string{v}
				}
			}
			out = append(out, a)
		case len(out) > 0 && out[len(out)-1].Flag != "":
			out[len(out)-1].Values = append(out[len(out)-1].Values, w.s)
		default:
			out = append(out, launch.Arg{Values: []string{w.s}, Origin: p.origin(w.line)})
		}
	}
	return out
}

// isFlag reports whether a word starts a flag (not a negative number, not
// a lone "-").
func isFlag(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	return true
}

func setEnv(env []launch.EnvVar, e launch.EnvVar) []launch.EnvVar {
	for i := range env {
		if env[i].Name == e.Name {
			out := slices.Clone(env)
			out[i] = e
			return out
		}
	}
	return append(slices.Clone(env), e)
}

// placeholderRank reports whether a --node-rank value is a placeholder
// the reader fills in ("<node-rank>", "{{NODE_RANK}}", "$NODE_RANK").
func placeholderRank(v string) bool {
	return strings.ContainsAny(v, "<{$")
}

// deployment groups the processes (multi-node ranks of one role into one)
// and builds the Deployment.
func (p *cmdParser) deployment() (*launch.Deployment, error) {
	if len(p.preamble) > 0 {
		return nil, p.errf(len(p.lines), "setup commands after the last server command: %s", strings.Join(p.preamble, "; "))
	}
	d := &launch.Deployment{Engine: "sglang", Hardware: SelectionHardware(p.sel), Notes: p.notes,
		Source: launch.Source{File: p.sel.File, Section: p.sel.Page, Variant: p.selText}}
	if p.sel.Kind == "config" {
		d.Source.Cell = p.sel.Cell
	}
	type group struct {
		idx   int // index in d.Processes
		ranks map[string]int
		n     int
	}
	groups := map[launch.Role]*group{}
	for _, x := range p.procs {
		if x.p.Kind != launch.KindWorker || x.nnodes <= 1 {
			d.Processes = append(d.Processes, x.p)
			continue
		}
		g := groups[x.p.Role]
		if g == nil {
			g = &group{idx: len(d.Processes), ranks: map[string]int{}, n: x.nnodes}
			groups[x.p.Role] = g
			x.p.NodesPerWorker = x.nnodes
			d.Processes = append(d.Processes, x.p)
		}
		if x.nnodes != g.n {
			return nil, p.errf(x.line, "--nnodes %d, but an earlier %s command of the same text has --nnodes %d", x.nnodes, x.p.Role, g.n)
		}
		if prev, dup := g.ranks[x.nodeRank]; dup && !placeholderRank(x.nodeRank) {
			return nil, p.errf(x.line, "--node-rank %s again (first at line %d): several %s workers of %d nodes are not understood", x.nodeRank, prev, x.p.Role, g.n)
		}
		g.ranks[x.nodeRank] = x.line
		if x.nodeRank == "0" || placeholderRank(x.nodeRank) {
			// node 0 (or the command every node runs) is the representative
			x.p.NodesPerWorker = x.nnodes
			d.Processes[g.idx] = x.p
		}
	}
	for role, g := range groups {
		if len(g.ranks) > g.n {
			return nil, p.errf(1, "%d %s commands for %d nodes", len(g.ranks), role, g.n)
		}
	}
	for _, pr := range d.Processes {
		if pr.Kind != launch.KindWorker {
			continue
		}
		for _, f := range []string{"--model-path", "--model"} {
			if v, ok := launch.Lookup(pr.Args, f); ok && len(v) == 1 {
				d.Model = v[0]
				break
			}
		}
		if d.Model != "" {
			break
		}
	}
	return d, nil
}
