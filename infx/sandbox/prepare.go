package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/syntaxwalk"
)

// This file prepares a script for the sandbox: parsed, every simple
// command marked with its position and context, guarded, and the
// constructs the interpreter differs from bash on rewritten.

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
type marker struct {
	name string
	// src is the text parsed (offsets of the syntax tree); raw collects
	// the source text of every simple command's words by the command's
	// position (collect; Call.RawArgs).
	src []byte
	raw map[Pos][]string
}

// collect records the source words of every simple command of list
// (m.raw) without marking anything.
func (m marker) collect(list []*syntax.Stmt) {
	for _, st := range list {
		syntaxwalk.Walk(st, func(n syntax.Node) bool {
			if x, ok := n.(*syntax.CallExpr); ok && len(x.Args) > 0 {
				if words, ok := rawWords(m.src, x.Args); ok {
					pos := x.Args[0].Pos()
					m.raw[Pos{File: m.name, Line: int(pos.Line()), Col: int(pos.Col())}] = words
				}
			}
			return true
		})
	}
}

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
	syntaxwalk.Walk(st, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.FuncDecl:
			return false
		case *syntax.CallExpr:
			// markConditions' guard reads the status of its own
			// condition, rewriteBackground's that of its own job.
			if len(x.Args) > 0 && (x.Args[0].Lit() == condEndCmd || x.Args[0].Lit() == bgDoneCmd) {
				return false
			}
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
	for _, r := range st.Redirs {
		if r.Op == syntax.RdrOut && r.Word != nil && strings.HasPrefix(r.Word.Lit(), procSubstPrefix) {
			// A process substitution's list (rewriteProcSubst): what it
			// prints is read by the command that names it.
			ctx = ctxValue
		}
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
	syntaxwalk.Walk(n, func(x syntax.Node) bool {
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
			lit := &syntax.Lit{ValuePos: pos, ValueEnd: pos, Value: markerWord(ctx, pos, m.name)}
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

// assocNameRE finds the names declared associative, tried at line starts
// (assocNames).
var assocNameRE = regexp.MustCompile(`^\s*(?:declare|local|typeset)\s+-[a-zA-Z]*A[a-zA-Z]*\s+([A-Za-z_][A-Za-z0-9_]*)`)

// assocKeyRE is a bare subscript at the start of a literal's line.
var assocKeyRE = regexp.MustCompile(`^(\s*)\[([^\]"'$\x60]+)\]=`)

// isRESpace is the \s of Go's regexps: [\t\n\f\r ].
func isRESpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// declStart reports whether b, past its \s characters, starts with a
// keyword assocDeclRE and assocNameRE begin with (declare, local,
// typeset): where neither can match, neither is run.
func declStart(b []byte) bool {
	i := 0
	for i < len(b) && isRESpace(b[i]) {
		i++
	}
	b = b[i:]
	return bytes.HasPrefix(b, []byte("declare")) || bytes.HasPrefix(b, []byte("local")) || bytes.HasPrefix(b, []byte("typeset"))
}

// assocNames are the names src declares associative, in order: what
// `(?m)` + assocNameRE's FindAllSubmatch gives (leftmost matches, none
// overlapping), tried only at the line starts a keyword follows (the
// unanchored search tried every byte of a script).
func assocNames(src []byte) []string {
	var names []string
	for p := 0; p < len(src); {
		if p == 0 || src[p-1] == '\n' {
			if declStart(src[p:]) {
				if m := assocNameRE.FindSubmatchIndex(src[p:]); m != nil {
					names = append(names, string(src[p+m[2]:p+m[3]]))
					p += max(m[1], 1)
					continue
				}
			}
		}
		i := bytes.IndexByte(src[p:], '\n')
		if i < 0 {
			break
		}
		p += i + 1
	}
	return names
}

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
	var names, quoted []string
	for _, n := range assocNames(src) {
		names = append(names, regexp.QuoteMeta(n))
		quoted = append(quoted, n+"[")
	}
	var useRE *regexp.Regexp
	if len(names) > 0 {
		// ${NAME[key…]…} and NAME[key]= with a bare key: quote it.
		useRE = regexp.MustCompile(`(\$\{!?(?:` + strings.Join(names, "|") + `)\[|(?:^|[\s;])(?:` + strings.Join(names, "|") + `)\[)([^\]"'\x60@*][^\]"'\x60]*)\]`)
	}
	for i, l := range lines {
		if useRE != nil && !in && slices.ContainsFunc(quoted, func(q string) bool { return bytes.Contains(l, []byte(q)) }) {
			// (a line without NAME[ has nothing useRE matches)
			lines[i] = useRE.ReplaceAll(l, []byte(`${1}"${2}"]`))
			l = lines[i]
		}
		if !in {
			if !declStart(l) {
				continue
			}
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
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
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
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
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
	// raw holds the source text of every simple command's words, by the
	// command's position (Call.RawArgs).
	raw map[Pos][]string
	// use is the Cache's bookkeeping of the entry (treecache.go).
	use treeUse
}

// rawWords is the source text of words, as parsed (src is the text the
// parser read); false when a word has no source span (one the sandbox
// made).
func rawWords(src []byte, words []*syntax.Word) ([]string, bool) {
	out := make([]string, len(words))
	for i, w := range words {
		if !w.Pos().IsValid() || !w.End().IsValid() {
			return nil, false
		}
		a, b := int(w.Pos().Offset()), int(w.End().Offset())
		if a < 0 || b > len(src) || b <= a {
			return nil, false
		}
		out[i] = string(src[a:b])
	}
	return out, true
}

// parseScript parses, marks and guards a script (cached by name and
// content), and registers the functions it declares.
func (sb *sandbox) parseScript(name string, src []byte) (*syntax.File, error) {
	if sb.cfg.Holes && hasHoleBytes(src) {
		sb.inspectHole("text run as a script")
	}
	c := sb.cache
	c.mu.Lock()
	pf, ok := c.files[name][string(src)]
	if ok {
		c.touch(&pf.use)
	}
	c.mu.Unlock()
	if !ok {
		pf = prepareFile(name, src)
		c.mu.Lock()
		if c.files == nil {
			c.files = map[string]map[string]*preparedFile{}
		}
		if c.files[name] == nil {
			c.files[name] = map[string]*preparedFile{}
		}
		if _, had := c.files[name][string(src)]; !had && c.n < cacheMax {
			c.files[name][string(src)] = pf
			c.keep(&pf.use, len(name)+len(src))
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
	// the file's source words, kept by reference (the prepared file's
	// map is never written once made): the last parsed wins a position,
	// as copying them in did
	if n := len(sb.raws); len(pf.raw) > 0 && (n == 0 || sb.raws[n-1] != pf) {
		sb.raws = slices.DeleteFunc(sb.raws, func(p *preparedFile) bool { return p == pf })
		sb.raws = append(sb.raws, pf)
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
	parsed := quoteAssocKeys(src)
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(bytes.NewReader(parsed), name)
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return &preparedFile{err: &PosError{File: name, Line: int(pe.Pos.Line()), Col: int(pe.Pos.Col()), Err: errors.New(pe.Text)}}
		}
		return &preparedFile{err: &PosError{File: name, Err: err}}
	}
	pf := &preparedFile{file: file, raw: map[Pos][]string{}}
	// The words as written, before any rewriting below moves them.
	marker{name: name, src: parsed, raw: pf.raw}.collect(file.Stmts)
	var anon *syntax.FuncDecl
	syntaxwalk.Walk(file, func(n syntax.Node) bool {
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
	// order is the script's order rather than goroutine scheduling; $!,
	// kill, wait and ps see the job the model has (bgjobs.go). Compound
	// background statements (monitor loops) stay in the background.
	rewriteBackground(file)
	markConditions(file, name)
	rewriteProcSubst(file)
	guardNamelessAssigns(file)
	guardDeclOptions(file)
	guardNames(file)
	guardArithNames(file, name)
	marker{name: name}.stmts(file.Stmts, ctxPlain)
	guardAssignments(file, name)
	guardReplacements(file)
	markArith(file, name)
	countIterations(file, name)
	markTests(file, name)
	markFileSubsts(file, name)
	fixHostParams(file)
	dropHighFDs(file)
	return pf
}

// decodeMarker reads a marker word: file name, line, col, context.
func (sb *sandbox) decodeMarker(w string) (Pos, byte) {
	m := sb.cache.marker(w)
	return m.at, m.kind
}

// marker is parseMarker(w), kept for every run of c (a marker word is
// the same position and kind in any run); at most markersMax words.
func (c *Cache) marker(w string) callSite {
	return c.keptSite(&c.markers, w, func(w string) callSite {
		at, kind := parseMarker(w)
		return callSite{at: at, kind: kind}
	})
}

// execSite decodes the site word of an execCmd command ("file\x00line\x00col\x00kind"),
// kept for every run of c like marker: ok false for a word of another shape.
func (c *Cache) execSite(w string) (callSite, bool) {
	m := c.keptSite(&c.sites, w, func(w string) callSite {
		f := strings.Split(w, "\x00")
		if len(f) != 4 || len(f[3]) != 1 {
			return callSite{}
		}
		l, _ := strconv.Atoi(f[1])
		col, _ := strconv.Atoi(f[2])
		return callSite{at: Pos{File: f[0], Line: l, Col: col}, kind: f[3][0], marked: true}
	})
	return m, m.marked
}

// siteWord is the execCmd site word of a command at at in context kind
// ("file\x00line\x00col\x00kind", execSite's input), kept for every run of
// c like marker: at most markersMax words.
func (c *Cache) siteWord(at Pos, kind byte) string {
	k := siteKey{at: at, kind: kind}
	c.markMu.RLock()
	w, ok := c.siteWords[k]
	c.markMu.RUnlock()
	if ok {
		return w
	}
	w = fmt.Sprintf("%s\x00%d\x00%d\x00%c", at.File, at.Line, at.Col, kind)
	c.markMu.Lock()
	defer c.markMu.Unlock()
	if len(c.siteWords) < markersMax {
		if c.siteWords == nil {
			c.siteWords = map[siteKey]string{}
		}
		c.siteWords[k] = w
	}
	return w
}

// keptSite is decode(w), kept in *m (under c.markMu, at most markersMax
// words): decode is a pure function of the word.
func (c *Cache) keptSite(m *map[string]callSite, w string, decode func(string) callSite) callSite {
	c.markMu.RLock()
	site, ok := (*m)[w]
	c.markMu.RUnlock()
	if ok {
		return site
	}
	site = decode(w)
	c.markMu.Lock()
	defer c.markMu.Unlock()
	if len(*m) < markersMax {
		if *m == nil {
			*m = map[string]callSite{}
		}
		(*m)[w] = site
	}
	return site
}

// markersMax bounds the marker words and the site words a Cache keeps
// (each).
const markersMax = 1 << 16

func parseMarker(w string) (Pos, byte) {
	parts := strings.SplitN(strings.TrimPrefix(w, markerPrefix), ":", 4)
	if len(parts) != 4 || len(parts[0]) != 1 {
		return Pos{}, ctxPlain
	}
	line, _ := strconv.Atoi(parts[1])
	col, _ := strconv.Atoi(parts[2])
	name, err := url.PathUnescape(parts[3])
	if err != nil {
		name = parts[3]
	}
	return Pos{File: name, Line: line, Col: col}, parts[0][0]
}

// libraryStubFuncs is the names of the functions stubs (Library.Stubs)
// defines, in order, parsed once per Cache (none when it does not parse).
func (c *Cache) libraryStubFuncs(stubs string) []string {
	c.mu.Lock()
	names, ok := c.stubFuncs[stubs]
	c.mu.Unlock()
	if ok {
		return names
	}
	names = []string{}
	if lf, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(stubs), "stub"); err == nil {
		syntaxwalk.Walk(lf, func(n syntax.Node) bool {
			if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
				names = append(names, fd.Name.Value)
			}
			return true
		})
	}
	c.mu.Lock()
	if c.stubFuncs == nil {
		c.stubFuncs = map[string][]string{}
	}
	if len(c.stubFuncs) < 64 { // one text per tool; a bound all the same
		c.stubFuncs[stubs] = names
	}
	c.mu.Unlock()
	return names
}
