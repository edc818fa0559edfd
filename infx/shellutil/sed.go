package shellutil

import (
	"regexp"
	"strconv"
	"strings"
)

// This file is a GNU sed 4.9 subset: options -n -E/-r -e -u, addresses
// (line number, $, /re/ and \cREc with I, ranges A,B, !) and the commands
// s (flags g p N I), p, d, q [status], = and { } blocks. Everything else
// (in-place editing, hold space, branches, a/i/c text, w/r files, …) is
// unsupported.

type sedAddr struct {
	kind byte // 'n' line, '$' last, 'r' regex
	line int
	re   *regexp.Regexp
}

type sedCmd struct {
	a1, a2 *sedAddr
	neg    bool
	name   byte
	// s
	re     *regexp.Regexp
	repl   []replPart
	global bool
	nth    int
	print  bool
	// a, i, c: the text (GNU sed: `a\` + newline + text, or the one-line
	// `a\text` / `a text` forms)
	text string
	// q
	exit int
	// { … }
	block []*sedCmd
	// range state
	active bool
}

type replPart struct {
	lit   string
	group int // -1: literal; 0: whole match; 1–9: group
}

type sedParser struct {
	s   string
	i   int
	ere bool
	re  *Regexps // (nil: none)
}

func (p *sedParser) eof() bool { return p.i >= len(p.s) }

func (p *sedParser) skipSpace() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// delimited reads up to the unescaped delimiter d (not inside a bracket
// expression when isRE), converting \d to a literal d, \n to a newline.
// It returns the POSIX text and whether the delimiter was found.
func (p *sedParser) delimited(d byte, isRE bool) (string, bool) {
	var b strings.Builder
	inBracket := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		if isRE && inBracket {
			if c == ']' {
				inBracket = false
				b.WriteByte(c)
				p.i++
				continue
			}
			if c == '[' && p.i+1 < len(p.s) && (p.s[p.i+1] == ':' || p.s[p.i+1] == '=' || p.s[p.i+1] == '.') {
				end := strings.Index(p.s[p.i+2:], string(p.s[p.i+1])+"]")
				if end >= 0 {
					b.WriteString(p.s[p.i : p.i+2+end+2])
					p.i += 2 + end + 2
					continue
				}
			}
			if c == '\\' && p.i+1 < len(p.s) && (p.s[p.i+1] == 'n' || p.s[p.i+1] == 't') {
				if p.s[p.i+1] == 'n' {
					b.WriteByte('\n')
				} else {
					b.WriteByte('\t')
				}
				p.i += 2
				continue
			}
			b.WriteByte(c)
			p.i++
			continue
		}
		if c == d {
			p.i++
			return b.String(), true
		}
		if c == '\\' && p.i+1 < len(p.s) {
			e := p.s[p.i+1]
			p.i += 2
			switch {
			case e == d:
				if isRE {
					b.WriteString(literalPOSIX(d))
				} else {
					b.WriteByte(d)
				}
			case e == 'n':
				if isRE {
					b.WriteString(`\n`)
				} else {
					b.WriteString("\\n")
				}
			case e == 'x' && isRE && p.i+1 < len(p.s) && isHex(p.s[p.i]) && isHex(p.s[p.i+1]):
				// GNU sed's \xHH: the byte, as a literal.
				v, _ := strconv.ParseUint(p.s[p.i:p.i+2], 16, 8)
				p.i += 2
				if v >= 0x80 {
					b.WriteString(`\x`)
				} else {
					b.WriteString(literalPOSIX(byte(v)))
				}
			case e == '\n':
				b.WriteString("\\\n")
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
			continue
		}
		if isRE && c == '[' {
			inBracket = true
			b.WriteByte(c)
			p.i++
			if p.i < len(p.s) && p.s[p.i] == '^' {
				b.WriteByte('^')
				p.i++
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				b.WriteByte(']')
				p.i++
			}
			continue
		}
		b.WriteByte(c)
		p.i++
	}
	return b.String(), false
}

// literalPOSIX spells the character c as a literal in a BRE or ERE.
func literalPOSIX(c byte) string {
	switch c {
	case '^':
		return `\^`
	case '\\':
		return `\\`
	case ']':
		return `[]]`
	}
	return "[" + string(c) + "]"
}

func (p *sedParser) compile(pat string, icase bool) (*regexp.Regexp, error) {
	if pat == "" {
		return nil, unsup("empty regex (reuse of the last regex)")
	}
	fl := flavorBRE
	if p.ere {
		fl = flavorERE
	}
	return compilePOSIX(p.re, pat, fl, icase)
}

func (p *sedParser) addr() (*sedAddr, error) {
	if p.eof() {
		return nil, nil
	}
	c := p.s[p.i]
	switch {
	case c >= '0' && c <= '9':
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(p.s[p.i:j])
		p.i = j
		if !p.eof() && p.s[p.i] == '~' {
			return nil, unsup("first~step addresses")
		}
		if n == 0 {
			return nil, unsup("line address 0")
		}
		return &sedAddr{kind: 'n', line: n}, nil
	case c == '$':
		p.i++
		return &sedAddr{kind: '$'}, nil
	case c == '/' || c == '\\':
		d := byte('/')
		p.i++
		if c == '\\' {
			if p.eof() {
				return nil, unsup("unterminated address regex")
			}
			d = p.s[p.i]
			p.i++
		}
		pat, ok := p.delimited(d, true)
		if !ok {
			return nil, &sedError{"unterminated address regex"}
		}
		icase := false
		for !p.eof() && (p.s[p.i] == 'I' || p.s[p.i] == 'M') {
			if p.s[p.i] == 'M' {
				return nil, unsup("multi-line address flag M")
			}
			icase = true
			p.i++
		}
		re, err := p.compile(pat, icase)
		if err != nil {
			return nil, err
		}
		return &sedAddr{kind: 'r', re: re}, nil
	}
	return nil, nil
}

// sedError is a script the real sed rejects ("sed: -e expression #1,
// char N: …", status 1).
type sedError struct{ msg string }

func (e *sedError) Error() string { return e.msg }

func (p *sedParser) commands(inBlock bool) ([]*sedCmd, error) {
	var cmds []*sedCmd
	for {
		for !p.eof() && strings.IndexByte(" \t\n;", p.s[p.i]) >= 0 {
			p.i++
		}
		if p.eof() {
			if inBlock {
				return nil, &sedError{"unmatched `{'"}
			}
			return cmds, nil
		}
		if p.s[p.i] == '#' {
			for !p.eof() && p.s[p.i] != '\n' {
				p.i++
			}
			continue
		}
		if p.s[p.i] == '}' {
			if !inBlock {
				return nil, &sedError{"unexpected `}'"}
			}
			p.i++
			return cmds, nil
		}
		cmd := &sedCmd{}
		a1, err := p.addr()
		if err != nil {
			return nil, err
		}
		cmd.a1 = a1
		if a1 != nil && !p.eof() && p.s[p.i] == ',' {
			p.i++
			if !p.eof() && (p.s[p.i] == '+' || p.s[p.i] == '~') {
				return nil, unsup("addr,%cN ranges", p.s[p.i])
			}
			a2, err := p.addr()
			if err != nil {
				return nil, err
			}
			if a2 == nil {
				return nil, &sedError{"unexpected `,'"}
			}
			cmd.a2 = a2
		}
		p.skipSpace()
		for !p.eof() && p.s[p.i] == '!' {
			cmd.neg = true
			p.i++
			p.skipSpace()
		}
		if p.eof() {
			return nil, &sedError{"missing command"}
		}
		cmd.name = p.s[p.i]
		p.i++
		switch cmd.name {
		case '{':
			block, err := p.commands(true)
			if err != nil {
				return nil, err
			}
			cmd.block = block
			cmds = append(cmds, cmd)
			continue
		case 'p', 'd', '=':
		case 'q':
			p.skipSpace()
			j := p.i
			for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
				j++
			}
			if j > p.i {
				cmd.exit, _ = strconv.Atoi(p.s[p.i:j])
				p.i = j
			}
			if cmd.a2 != nil {
				return nil, &sedError{"command only uses one address"}
			}
		case 's':
			if err := p.subst(cmd); err != nil {
				return nil, err
			}
		case 'a', 'i', 'c':
			cmd.text = p.textArg()
			cmds = append(cmds, cmd)
			continue
		default:
			return nil, unsup("sed command %q", string(cmd.name))
		}
		p.skipSpace()
		if !p.eof() && strings.IndexByte(";\n}#", p.s[p.i]) < 0 {
			return nil, &sedError{"extra characters after command"}
		}
		cmds = append(cmds, cmd)
	}
}

// textArg reads the text of an a, i or c command up to the end of its
// line, as GNU sed does: after `\` (and an optional newline) the text keeps
// its leading whitespace; in the one-line form without `\` leading
// whitespace is skipped. \n and \t are a newline and a tab, a backslash
// escapes any other character (a backslash-newline continues the text on
// the next line).
func (p *sedParser) textArg() string {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
	if !p.eof() && p.s[p.i] == '\\' {
		p.i++
		if !p.eof() && p.s[p.i] == '\n' {
			p.i++
		}
	}
	var b strings.Builder
	for !p.eof() {
		c := p.s[p.i]
		if c == '\n' {
			p.i++
			break
		}
		if c == '\\' && p.i+1 < len(p.s) {
			switch e := p.s[p.i+1]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(e)
			}
			p.i += 2
			continue
		}
		b.WriteByte(c)
		p.i++
	}
	return b.String()
}

func (p *sedParser) subst(cmd *sedCmd) error {
	if p.eof() {
		return &sedError{"unterminated `s' command"}
	}
	d := p.s[p.i]
	if d == '\n' || d == '\\' {
		return &sedError{"unterminated `s' command"}
	}
	p.i++
	pat, ok := p.delimited(d, true)
	if !ok {
		return &sedError{"unterminated `s' command"}
	}
	replSrc, ok := p.delimited(d, false)
	if !ok {
		return &sedError{"unterminated `s' command"}
	}
	icase := false
	for !p.eof() {
		c := p.s[p.i]
		switch {
		case c == 'g':
			cmd.global = true
		case c == 'p':
			cmd.print = true
		case c == 'i' || c == 'I':
			icase = true
		case c >= '0' && c <= '9':
			j := p.i
			for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
				j++
			}
			cmd.nth, _ = strconv.Atoi(p.s[p.i:j])
			if cmd.nth == 0 {
				return &sedError{"number option to `s' command may not be zero"}
			}
			p.i = j
			continue
		case c == 'w' || c == 'e' || c == 'm' || c == 'M':
			return unsup("s flag %c", c)
		default:
			goto done
		}
		p.i++
	}
done:
	re, err := p.compile(pat, icase)
	if err != nil {
		return err
	}
	cmd.re = re
	repl, err := parseRepl(replSrc, re.NumSubexp())
	if err != nil {
		return err
	}
	cmd.repl = repl
	return nil
}

func parseRepl(s string, groups int) ([]replPart, error) {
	var parts []replPart
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, replPart{lit: lit.String(), group: -1})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '&':
			flush()
			parts = append(parts, replPart{group: 0})
		case c == '\\' && i+1 < len(s):
			i++
			e := s[i]
			switch {
			case e >= '0' && e <= '9':
				n := int(e - '0')
				if n > groups {
					return nil, &sedError{"invalid reference \\" + string(e) + " on `s' command's RHS"}
				}
				flush()
				parts = append(parts, replPart{group: n})
			case e == 'n':
				lit.WriteByte('\n')
			case e == 't':
				lit.WriteByte('\t')
			case e == '\n':
				lit.WriteByte('\n')
			case e == 'L' || e == 'U' || e == 'l' || e == 'u' || e == 'E':
				return nil, unsup("case conversion \\%c in replacement", e)
			case e == 'a' || e == 'f' || e == 'v' || e == 'r' || e == 'c' || e == 'd' || e == 'o' || e == 'x':
				return nil, unsup("escape \\%c in replacement", e)
			default:
				lit.WriteByte(e)
			}
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return parts, nil
}

func (cmd *sedCmd) substitute(ps string) (string, bool) {
	matches := cmd.re.FindAllStringSubmatchIndex(ps, -1)
	if len(matches) == 0 {
		return ps, false
	}
	var b strings.Builder
	last := 0
	done := false
	n := 0
	for _, m := range matches {
		n++
		if n < max(cmd.nth, 1) {
			continue
		}
		b.WriteString(ps[last:m[0]])
		for _, part := range cmd.repl {
			if part.group < 0 {
				b.WriteString(part.lit)
				continue
			}
			if s, e := m[2*part.group], m[2*part.group+1]; s >= 0 {
				b.WriteString(ps[s:e])
			}
		}
		last = m[1]
		done = true
		if !cmd.global {
			break
		}
	}
	if !done {
		return ps, false
	}
	b.WriteString(ps[last:])
	return b.String(), true
}

type sedRun struct {
	c       *call
	quiet   bool
	lineNo  int
	isLast  bool
	noEOL   bool
	missing bool // the last output lacked its newline
	quit    bool
	status  int
	// appended is the text the a commands queued for the end of the cycle.
	appended []string
}

func (r *sedRun) emit(s string, noEOL bool) {
	if r.missing {
		r.c.out.WriteString("\n")
		r.missing = false
	}
	r.c.out.WriteString(s)
	if noEOL {
		r.missing = true
	} else {
		r.c.out.WriteString("\n")
	}
}

func (r *sedRun) matchAddr(a *sedAddr, ps string) bool {
	switch a.kind {
	case 'n':
		return r.lineNo == a.line
	case '$':
		return r.isLast
	}
	return a.re.MatchString(ps)
}

func (r *sedRun) selected(cmd *sedCmd, ps string) bool {
	var sel bool
	switch {
	case cmd.a1 == nil:
		sel = true
	case cmd.a2 == nil:
		sel = r.matchAddr(cmd.a1, ps)
	case cmd.active:
		sel = true
		switch cmd.a2.kind {
		case 'n':
			if r.lineNo >= cmd.a2.line {
				cmd.active = false
			}
		default:
			if r.matchAddr(cmd.a2, ps) {
				cmd.active = false
			}
		}
	default:
		if r.matchAddr(cmd.a1, ps) {
			sel = true
			switch cmd.a2.kind {
			case 'n':
				cmd.active = cmd.a2.line > r.lineNo
			case '$':
				cmd.active = !r.isLast
			default:
				cmd.active = true
			}
		}
	}
	return sel != cmd.neg
}

// exec runs cmds on the pattern space; deleted reports a d command.
func (r *sedRun) exec(cmds []*sedCmd, ps *string) (deleted bool) {
	for _, cmd := range cmds {
		if !r.selected(cmd, *ps) {
			continue
		}
		switch cmd.name {
		case '{':
			if r.exec(cmd.block, ps) || r.quit {
				return true
			}
		case 'p':
			r.emit(*ps, r.noEOL)
		case 'd':
			return true
		case 'a':
			r.appended = append(r.appended, cmd.text)
		case 'i':
			r.emit(cmd.text, false)
		case 'c':
			// With a range, the text replaces its last line only.
			if cmd.a2 == nil || !cmd.active {
				r.emit(cmd.text, false)
			}
			return true
		case '=':
			r.emit(strconv.Itoa(r.lineNo), false)
		case 'q':
			r.quit = true
			r.status = cmd.exit
			return false
		case 's':
			if out, ok := cmd.substitute(*ps); ok {
				*ps = out
				if cmd.print {
					r.emit(*ps, r.noEOL)
				}
			}
		}
		if r.quit {
			return false
		}
	}
	return false
}

// runSed evaluates `sed [-n] [-E|-r] [-u] [-e SCRIPT]… [SCRIPT] [FILE…]`.
func runSed(c *call) (int, error) {
	opts, operands, err := getopt(c.args, optSpec{short: "nErue:", long: map[string]longOpt{
		"quiet": {"n", false}, "silent": {"n", false}, "regexp-extended": {"E", false},
		"unbuffered": {"u", false}, "expression": {"e", true},
	}})
	if err != nil {
		return 0, err
	}
	r := &sedRun{c: c}
	var scripts []string
	ere := false
	for _, o := range opts {
		switch o.key {
		case "n":
			r.quiet = true
		case "E", "r":
			ere = true
		case "e":
			scripts = append(scripts, o.val)
		}
	}
	if len(scripts) == 0 {
		if len(operands) == 0 {
			c.errb.WriteString("Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n")
			return 1, nil
		}
		scripts = []string{operands[0]}
		operands = operands[1:]
	}
	p := &sedParser{s: strings.Join(scripts, "\n"), ere: ere, re: c.re}
	cmds, err := p.commands(false)
	if err != nil {
		if se, ok := err.(*sedError); ok {
			c.errorf("-e expression #1, char %d: %s", p.i, se.msg)
			return 1, nil
		}
		return 0, err
	}
	ins, err := c.inputs(operands)
	if err != nil {
		return 0, err
	}
	type line struct {
		s     string
		noEOL bool
	}
	var lines []line
	status := 0
	for _, in := range ins {
		if in.missing {
			c.errorf("can't read %s: No such file or directory", in.name)
			status = 2
			continue
		}
		ls, noEOL := splitLines(in.data)
		for i, l := range ls {
			lines = append(lines, line{s: l, noEOL: noEOL && i == len(ls)-1})
		}
	}
	for i, l := range lines {
		r.lineNo = i + 1
		r.isLast = i == len(lines)-1
		r.noEOL = l.noEOL
		ps := l.s
		deleted := r.exec(cmds, &ps)
		if !deleted && !r.quiet {
			r.emit(ps, l.noEOL && len(r.appended) == 0)
		}
		for _, t := range r.appended {
			r.emit(t, false)
		}
		r.appended = r.appended[:0]
		if r.quit {
			return r.status, nil
		}
		if c.out.over {
			return 0, unsup("output exceeds %d bytes", MaxOutput)
		}
	}
	return status, nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
