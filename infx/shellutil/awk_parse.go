package shellutil

import (
	"fmt"
	"strconv"
	"strings"
)

// This file holds the awk lexer and parser: the POSIX awk grammar (as
// gawk 5 accepts it) minus user functions, getline, output redirection
// and pattern ranges, which are parsed far enough to be refused.

type tokKind int

const (
	tEOF tokKind = iota
	tNewline
	tNumber
	tString
	tRegex
	tName
	tBuiltin
	tFuncName // NAME immediately followed by '(' — a user function call
	tKeyword
	tPunct
)

type token struct {
	kind tokKind
	s    string // punctuation, name, keyword, string value or regex source
	n    float64
	pos  int
}

// awkSyntaxError is a program the real awk rejects with a syntax error:
// Run reports it as gawk does (status 1), not as unsupported.
type awkSyntaxError struct{ msg string }

func (e *awkSyntaxError) Error() string { return e.msg }

var awkKeywords = map[string]bool{
	"BEGIN": true, "END": true, "function": true, "func": true, "if": true, "else": true,
	"while": true, "for": true, "do": true, "break": true, "continue": true, "next": true,
	"nextfile": true, "exit": true, "return": true, "delete": true, "in": true,
	"getline": true, "print": true, "printf": true, "BEGINFILE": true, "ENDFILE": true,
}

var awkBuiltins = map[string]bool{
	"length": true, "substr": true, "index": true, "split": true, "sub": true, "gsub": true,
	"match": true, "sprintf": true, "tolower": true, "toupper": true, "int": true,
	"sqrt": true, "exp": true, "log": true, "sin": true, "cos": true, "atan2": true,
	"rand": true, "srand": true, "system": true, "close": true, "fflush": true,
	"gensub": true, "strftime": true, "systime": true, "mktime": true, "asort": true,
	"asorti": true, "patsplit": true, "and": true, "or": true, "xor": true,
	"lshift": true, "rshift": true, "compl": true, "strtonum": true, "typeof": true,
	"isarray": true, "mkbool": true,
}

type lexer struct {
	src  string
	i    int
	toks []token
}

// lexAwk splits an awk program into tokens. Whether '/' starts a regex
// depends on the previous token, as in every awk.
func lexAwk(src string) ([]token, error) {
	lx := &lexer{src: src}
	for {
		t, err := lx.next()
		if err != nil {
			return nil, err
		}
		lx.toks = append(lx.toks, t)
		if t.kind == tEOF {
			return lx.toks, nil
		}
	}
}

// divAllowed reports whether a '/' after the previous token is division.
func (lx *lexer) divAllowed() bool {
	if len(lx.toks) == 0 {
		return false
	}
	p := lx.toks[len(lx.toks)-1]
	switch p.kind {
	case tNumber, tString, tName, tBuiltin, tRegex:
		return true
	case tPunct:
		return p.s == ")" || p.s == "]" || p.s == "$" || p.s == "++" || p.s == "--"
	}
	return false
}

func (lx *lexer) syntax(format string, a ...any) error {
	return &awkSyntaxError{msg: fmt.Sprintf(format, a...)}
}

func (lx *lexer) next() (token, error) {
	src := lx.src
	for lx.i < len(src) {
		c := src[lx.i]
		if c == ' ' || c == '\t' || c == '\r' {
			lx.i++
			continue
		}
		if c == '\\' && lx.i+1 < len(src) && src[lx.i+1] == '\n' {
			lx.i += 2
			continue
		}
		if c == '\\' && lx.i+2 < len(src) && src[lx.i+1] == '\r' && src[lx.i+2] == '\n' {
			lx.i += 3
			continue
		}
		if c == '#' {
			for lx.i < len(src) && src[lx.i] != '\n' {
				lx.i++
			}
			continue
		}
		break
	}
	if lx.i >= len(src) {
		return token{kind: tEOF, pos: lx.i}, nil
	}
	start := lx.i
	c := src[lx.i]
	switch {
	case c == '\n':
		lx.i++
		return token{kind: tNewline, pos: start}, nil
	case c >= '0' && c <= '9' || c == '.' && lx.i+1 < len(src) && src[lx.i+1] >= '0' && src[lx.i+1] <= '9':
		j := lx.i
		for j < len(src) && src[j] >= '0' && src[j] <= '9' {
			j++
		}
		if j < len(src) && src[j] == '.' {
			j++
			for j < len(src) && src[j] >= '0' && src[j] <= '9' {
				j++
			}
		}
		if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
			k := j + 1
			if k < len(src) && (src[k] == '+' || src[k] == '-') {
				k++
			}
			if k < len(src) && src[k] >= '0' && src[k] <= '9' {
				for k < len(src) && src[k] >= '0' && src[k] <= '9' {
					k++
				}
				j = k
			}
		}
		text := src[lx.i:j]
		if text == "0" && j < len(src) && (src[j] == 'x' || src[j] == 'X') {
			// gawk accepts hexadecimal constants in program text.
			k := j + 1
			for k < len(src) && strings.IndexByte("0123456789abcdefABCDEF", src[k]) >= 0 {
				k++
			}
			if k > j+1 {
				v, err := strconv.ParseUint(src[j+1:k], 16, 64)
				if err != nil {
					return token{}, unsup("hexadecimal constant %q", src[lx.i:k])
				}
				lx.i = k
				return token{kind: tNumber, n: float64(v), s: src[start:k], pos: start}, nil
			}
		}
		n, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return token{}, unsup("number %q: %v", text, err)
		}
		if len(text) > 1 && text[0] == '0' && strings.Trim(text, "01234567") == "" {
			// gawk reads a leading-zero integer constant as octal.
			v, _ := strconv.ParseUint(text, 8, 64)
			n = float64(v)
		}
		lx.i = j
		return token{kind: tNumber, n: n, s: text, pos: start}, nil
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		j := lx.i
		for j < len(src) && (src[j] == '_' || isAlnum(src[j])) {
			j++
		}
		word := src[lx.i:j]
		lx.i = j
		switch {
		case awkKeywords[word]:
			return token{kind: tKeyword, s: word, pos: start}, nil
		case awkBuiltins[word]:
			return token{kind: tBuiltin, s: word, pos: start}, nil
		case j < len(src) && src[j] == '(':
			return token{kind: tFuncName, s: word, pos: start}, nil
		}
		return token{kind: tName, s: word, pos: start}, nil
	case c == '"':
		var b strings.Builder
		j := lx.i + 1
		for {
			if j >= len(src) || src[j] == '\n' {
				return token{}, lx.syntax("unterminated string")
			}
			if src[j] == '"' {
				break
			}
			if src[j] == '\\' && j+1 < len(src) {
				if src[j+1] == '\n' {
					j += 2
					continue
				}
				n, s := awkEscape(src[j+1:])
				b.WriteString(s)
				j += 1 + n
				continue
			}
			b.WriteByte(src[j])
			j++
		}
		lx.i = j + 1
		return token{kind: tString, s: b.String(), pos: start}, nil
	case c == '/' && !lx.divAllowed():
		var b strings.Builder
		j := lx.i + 1
		inBracket := false
		for {
			if j >= len(src) || src[j] == '\n' {
				return token{}, lx.syntax("unterminated regexp")
			}
			ch := src[j]
			if ch == '/' && !inBracket {
				break
			}
			if ch == '\\' && j+1 < len(src) {
				if src[j+1] == '/' {
					b.WriteByte('/')
				} else {
					b.WriteByte('\\')
					b.WriteByte(src[j+1])
				}
				j += 2
				continue
			}
			if ch == '[' && !inBracket {
				inBracket = true
				b.WriteByte(ch)
				j++
				if j < len(src) && src[j] == '^' {
					b.WriteByte('^')
					j++
				}
				if j < len(src) && src[j] == ']' {
					b.WriteByte(']')
					j++
				}
				continue
			}
			if inBracket && ch == '[' && j+1 < len(src) && src[j+1] == ':' {
				end := strings.Index(src[j:], ":]")
				if end > 0 {
					b.WriteString(src[j : j+end+2])
					j += end + 2
					continue
				}
			}
			if ch == ']' && inBracket {
				inBracket = false
			}
			b.WriteByte(ch)
			j++
		}
		lx.i = j + 1
		return token{kind: tRegex, s: b.String(), pos: start}, nil
	}
	for _, p := range []string{"**=", "&&", "||", "==", "<=", ">=", "!=", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", ">>", "!~", "**"} {
		if strings.HasPrefix(src[lx.i:], p) {
			lx.i += len(p)
			switch p {
			case "**":
				p = "^"
			case "**=":
				p = "^="
			}
			return token{kind: tPunct, s: p, pos: start}, nil
		}
	}
	if strings.IndexByte("{}()[];,+-*/%^!><|?:~$=", c) >= 0 {
		lx.i++
		return token{kind: tPunct, s: string(c), pos: start}, nil
	}
	return token{}, lx.syntax("invalid character %q in expression", c)
}

// awkEscape decodes the escape sequence after a backslash in an awk string
// (s starts after the backslash). It returns the bytes consumed and the
// decoded text.
func awkEscape(s string) (int, string) {
	if s == "" {
		return 0, "\\"
	}
	switch s[0] {
	case 'n':
		return 1, "\n"
	case 't':
		return 1, "\t"
	case 'r':
		return 1, "\r"
	case '\\':
		return 1, "\\"
	case '"':
		return 1, "\""
	case '/':
		return 1, "/"
	case 'a':
		return 1, "\a"
	case 'b':
		return 1, "\b"
	case 'f':
		return 1, "\f"
	case 'v':
		return 1, "\v"
	}
	if s[0] >= '0' && s[0] <= '7' {
		n, v := 0, 0
		for n < 3 && n < len(s) && s[n] >= '0' && s[n] <= '7' {
			v = v*8 + int(s[n]-'0')
			n++
		}
		return n, string([]byte{byte(v)})
	}
	// gawk keeps an unknown escape as the character itself (with a
	// warning).
	return 1, s[:1]
}

// awkUnescape applies awkEscape to a whole string (a -v value).
func awkUnescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			n, d := awkEscape(s[i+1:])
			b.WriteString(d)
			i += n
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ---- syntax tree ----

type expr interface{}

type (
	numLit   struct{ v float64 }
	strLit   struct{ v string }
	regexLit struct{ src string } // bare /re/: $0 ~ /re/
	varRef   struct{ name string }
	fieldRef struct{ idx expr }
	indexRef struct {
		name string
		keys []expr
	}
	assignExpr struct {
		op  string // "=", "+=", …
		lhs expr   // varRef, fieldRef or indexRef
		rhs expr
	}
	condExpr struct{ c, a, b expr }
	binExpr  struct {
		op   string
		l, r expr
	}
	unaryExpr struct {
		op string // "!", "-", "+"
		x  expr
	}
	incdecExpr struct {
		op   string // "++" or "--"
		post bool
		lv   expr
	}
	matchExpr struct {
		neg bool
		l   expr
		re  expr
	}
	inExpr struct {
		keys []expr
		arr  string
	}
	callExpr struct {
		fn   string
		args []expr
	}
	groupExpr struct{ x expr } // parenthesized: (a) is never a redirection target
)

type stmt interface{}

type (
	exprStmt  struct{ x expr }
	printStmt struct {
		printf bool
		args   []expr
	}
	ifStmt struct {
		c    expr
		then []stmt
		els  []stmt
	}
	whileStmt struct {
		c    expr
		body []stmt
		do   bool
	}
	forStmt struct {
		init, post stmt
		c          expr
		body       []stmt
	}
	forInStmt struct {
		v, arr string
		body   []stmt
	}
	blockStmt    struct{ body []stmt }
	nextStmt     struct{}
	exitStmt     struct{ x expr }
	breakStmt    struct{}
	continueStmt struct{}
	deleteStmt   struct {
		arr  string
		keys []expr // nil: the whole array
	}
)

type awkItem struct {
	pat    expr // nil: every record
	action []stmt
	hasAct bool
}

type awkProgram struct {
	begin, end [][]stmt
	items      []awkItem
}

// ---- parser ----

type parser struct {
	toks []token
	p    int
	// noGT: a top-level '>' ends the expression (print redirection).
	noGT bool
	// noIn: a top-level 'in' is not membership (for (x in a) header).
	noIn bool
}

func parseAwk(src string) (*awkProgram, error) {
	toks, err := lexAwk(src)
	if err != nil {
		return nil, err
	}
	ps := &parser{toks: toks}
	prog := &awkProgram{}
	ps.skipTerms()
	for !ps.at(tEOF, "") {
		switch {
		case ps.at(tKeyword, "BEGIN"):
			ps.p++
			body, err := ps.block()
			if err != nil {
				return nil, err
			}
			prog.begin = append(prog.begin, body)
		case ps.at(tKeyword, "END"):
			ps.p++
			body, err := ps.block()
			if err != nil {
				return nil, err
			}
			prog.end = append(prog.end, body)
		case ps.at(tKeyword, "function") || ps.at(tKeyword, "func"):
			return nil, unsup("user-defined functions are not implemented")
		case ps.at(tKeyword, "BEGINFILE") || ps.at(tKeyword, "ENDFILE"):
			return nil, unsup("%s is not implemented", ps.peek().s)
		default:
			it := awkItem{}
			if !ps.at(tPunct, "{") {
				pat, err := ps.expr()
				if err != nil {
					return nil, err
				}
				if ps.at(tPunct, ",") {
					return nil, unsup("range patterns are not implemented")
				}
				it.pat = pat
			}
			if ps.at(tPunct, "{") {
				body, err := ps.block()
				if err != nil {
					return nil, err
				}
				it.action, it.hasAct = body, true
			}
			prog.items = append(prog.items, it)
		}
		if !ps.at(tEOF, "") && !ps.at(tNewline, "") && !ps.at(tPunct, ";") && !ps.prevIs("}") {
			return nil, ps.syntaxErr()
		}
		ps.skipTerms()
	}
	return prog, nil
}

func (ps *parser) peek() token { return ps.toks[ps.p] }

func (ps *parser) at(k tokKind, s string) bool {
	t := ps.toks[ps.p]
	return t.kind == k && (s == "" || t.s == s)
}

func (ps *parser) prevIs(s string) bool {
	return ps.p > 0 && ps.toks[ps.p-1].kind == tPunct && ps.toks[ps.p-1].s == s
}

func (ps *parser) syntaxErr() error {
	t := ps.peek()
	if t.kind == tEOF {
		return &awkSyntaxError{msg: "syntax error: unexpected end of program"}
	}
	return &awkSyntaxError{msg: fmt.Sprintf("syntax error at offset %d", t.pos)}
}

func (ps *parser) expect(s string) error {
	if !ps.at(tPunct, s) {
		return ps.syntaxErr()
	}
	ps.p++
	return nil
}

func (ps *parser) skipNewlines() {
	for ps.at(tNewline, "") {
		ps.p++
	}
}

func (ps *parser) skipTerms() {
	for ps.at(tNewline, "") || ps.at(tPunct, ";") {
		ps.p++
	}
}

func (ps *parser) block() ([]stmt, error) {
	ps.skipNewlines()
	if err := ps.expect("{"); err != nil {
		return nil, err
	}
	var body []stmt
	for {
		ps.skipTerms()
		if ps.at(tPunct, "}") {
			ps.p++
			return body, nil
		}
		if ps.at(tEOF, "") {
			return nil, ps.syntaxErr()
		}
		s, err := ps.stmt()
		if err != nil {
			return nil, err
		}
		body = append(body, s)
	}
}

// endSimple checks the terminator after a simple statement: ';', newline,
// or a following '}' (left for the block).
func (ps *parser) endSimple() error {
	switch {
	case ps.at(tPunct, ";") || ps.at(tNewline, ""):
		ps.p++
		return nil
	case ps.at(tPunct, "}") || ps.at(tEOF, ""):
		return nil
	}
	return ps.syntaxErr()
}

// body parses the statement controlled by if/while/for: a block or a
// single statement, after optional newlines.
func (ps *parser) body() ([]stmt, error) {
	ps.skipNewlines()
	if ps.at(tPunct, ";") {
		ps.p++
		return nil, nil
	}
	s, err := ps.stmt()
	if err != nil {
		return nil, err
	}
	if b, ok := s.(blockStmt); ok {
		return b.body, nil
	}
	return []stmt{s}, nil
}

func (ps *parser) stmt() (stmt, error) {
	t := ps.peek()
	if t.kind == tPunct && t.s == "{" {
		b, err := ps.block()
		return blockStmt{body: b}, err
	}
	if t.kind == tKeyword {
		switch t.s {
		case "if":
			ps.p++
			if err := ps.expect("("); err != nil {
				return nil, err
			}
			c, err := ps.expr()
			if err != nil {
				return nil, err
			}
			if err := ps.expect(")"); err != nil {
				return nil, err
			}
			then, err := ps.body()
			if err != nil {
				return nil, err
			}
			// An else may follow after terminators.
			save := ps.p
			ps.skipTerms()
			if ps.at(tKeyword, "else") {
				ps.p++
				els, err := ps.body()
				if err != nil {
					return nil, err
				}
				return ifStmt{c: c, then: then, els: els}, nil
			}
			ps.p = save
			return ifStmt{c: c, then: then}, nil
		case "while":
			ps.p++
			if err := ps.expect("("); err != nil {
				return nil, err
			}
			c, err := ps.expr()
			if err != nil {
				return nil, err
			}
			if err := ps.expect(")"); err != nil {
				return nil, err
			}
			if ps.at(tPunct, ";") {
				ps.p++
				return whileStmt{c: c}, nil
			}
			body, err := ps.body()
			return whileStmt{c: c, body: body}, err
		case "do":
			ps.p++
			body, err := ps.body()
			if err != nil {
				return nil, err
			}
			ps.skipTerms()
			if !ps.at(tKeyword, "while") {
				return nil, ps.syntaxErr()
			}
			ps.p++
			if err := ps.expect("("); err != nil {
				return nil, err
			}
			c, err := ps.expr()
			if err != nil {
				return nil, err
			}
			if err := ps.expect(")"); err != nil {
				return nil, err
			}
			return whileStmt{c: c, body: body, do: true}, ps.endSimple()
		case "for":
			ps.p++
			if err := ps.expect("("); err != nil {
				return nil, err
			}
			// for (NAME in ARRAY)
			if ps.at(tName, "") && ps.toks[ps.p+1].kind == tKeyword && ps.toks[ps.p+1].s == "in" &&
				ps.toks[ps.p+2].kind == tName && ps.toks[ps.p+3].kind == tPunct && ps.toks[ps.p+3].s == ")" {
				v, arr := ps.toks[ps.p].s, ps.toks[ps.p+2].s
				ps.p += 4
				body, err := ps.body()
				return forInStmt{v: v, arr: arr, body: body}, err
			}
			var f forStmt
			if !ps.at(tPunct, ";") {
				x, err := ps.simpleStmt()
				if err != nil {
					return nil, err
				}
				f.init = x
			}
			if err := ps.expect(";"); err != nil {
				return nil, err
			}
			ps.skipNewlines()
			if !ps.at(tPunct, ";") {
				c, err := ps.expr()
				if err != nil {
					return nil, err
				}
				f.c = c
			}
			if err := ps.expect(";"); err != nil {
				return nil, err
			}
			ps.skipNewlines()
			if !ps.at(tPunct, ")") {
				x, err := ps.simpleStmt()
				if err != nil {
					return nil, err
				}
				f.post = x
			}
			if err := ps.expect(")"); err != nil {
				return nil, err
			}
			if ps.at(tPunct, ";") {
				ps.p++
				return f, nil
			}
			body, err := ps.body()
			f.body = body
			return f, err
		case "next":
			ps.p++
			return nextStmt{}, ps.endSimple()
		case "nextfile":
			return nil, unsup("nextfile is not implemented")
		case "exit":
			ps.p++
			var x expr
			if !ps.at(tPunct, ";") && !ps.at(tNewline, "") && !ps.at(tPunct, "}") && !ps.at(tEOF, "") {
				e, err := ps.expr()
				if err != nil {
					return nil, err
				}
				x = e
			}
			return exitStmt{x: x}, ps.endSimple()
		case "break":
			ps.p++
			return breakStmt{}, ps.endSimple()
		case "continue":
			ps.p++
			return continueStmt{}, ps.endSimple()
		case "return":
			return nil, unsup("return outside a function")
		case "getline":
			return nil, unsup("getline is not implemented")
		case "delete":
			ps.p++
			if !ps.at(tName, "") {
				return nil, ps.syntaxErr()
			}
			d := deleteStmt{arr: ps.peek().s}
			ps.p++
			if ps.at(tPunct, "[") {
				ps.p++
				keys, err := ps.exprList("]")
				if err != nil {
					return nil, err
				}
				d.keys = keys
			}
			return d, ps.endSimple()
		}
	}
	s, err := ps.simpleStmt()
	if err != nil {
		return nil, err
	}
	return s, ps.endSimple()
}

// simpleStmt is a print/printf or an expression statement.
func (ps *parser) simpleStmt() (stmt, error) {
	if ps.at(tKeyword, "print") || ps.at(tKeyword, "printf") {
		isPrintf := ps.peek().s == "printf"
		ps.p++
		var args []expr
		oldGT := ps.noGT
		ps.noGT = true
		defer func() { ps.noGT = oldGT }()
		if !ps.at(tPunct, ";") && !ps.at(tNewline, "") && !ps.at(tPunct, "}") && !ps.at(tEOF, "") &&
			!ps.at(tPunct, ">") && !ps.at(tPunct, ">>") && !ps.at(tPunct, "|") {
			// print (a, b) — a parenthesized list is the argument list.
			if ps.at(tPunct, "(") {
				save := ps.p
				ps.p++
				ps.noGT = false
				list, err := ps.exprList(")")
				ps.noGT = true
				if err == nil && (ps.at(tPunct, ";") || ps.at(tNewline, "") || ps.at(tPunct, "}") || ps.at(tEOF, "") ||
					ps.at(tPunct, ">") || ps.at(tPunct, ">>") || ps.at(tPunct, "|")) {
					args = list
				} else {
					ps.p = save
				}
			}
			if args == nil {
				list, err := ps.exprListOpen()
				if err != nil {
					return nil, err
				}
				args = list
			}
		}
		if ps.at(tPunct, ">") || ps.at(tPunct, ">>") || ps.at(tPunct, "|") {
			return nil, unsup("output redirection (print %s …) is not implemented", ps.peek().s)
		}
		if isPrintf && len(args) == 0 {
			return nil, ps.syntaxErr()
		}
		return printStmt{printf: isPrintf, args: args}, nil
	}
	x, err := ps.expr()
	if err != nil {
		return nil, err
	}
	return exprStmt{x: x}, nil
}

// exprList parses "e, e, …" up to the closing punctuation, which it
// consumes.
func (ps *parser) exprList(close string) ([]expr, error) {
	var list []expr
	ps.skipNewlines()
	if ps.at(tPunct, close) {
		ps.p++
		return list, nil
	}
	for {
		ps.skipNewlines()
		x, err := ps.expr()
		if err != nil {
			return nil, err
		}
		list = append(list, x)
		ps.skipNewlines()
		if ps.at(tPunct, ",") {
			ps.p++
			continue
		}
		if err := ps.expect(close); err != nil {
			return nil, err
		}
		return list, nil
	}
}

// exprListOpen parses "e, e, …" with no brackets (print arguments).
func (ps *parser) exprListOpen() ([]expr, error) {
	var list []expr
	for {
		x, err := ps.expr()
		if err != nil {
			return nil, err
		}
		list = append(list, x)
		if !ps.at(tPunct, ",") {
			return list, nil
		}
		ps.p++
		ps.skipNewlines()
	}
}

func (ps *parser) expr() (expr, error) { return ps.ternary() }

func isLvalue(x expr) bool {
	switch x.(type) {
	case varRef, fieldRef, indexRef:
		return true
	}
	return false
}

func (ps *parser) ternary() (expr, error) {
	c, err := ps.or()
	if err != nil {
		return nil, err
	}
	if t := ps.peek(); t.kind == tPunct {
		switch t.s {
		case "=", "+=", "-=", "*=", "/=", "%=", "^=":
			if isLvalue(c) {
				ps.p++
				ps.skipNewlines()
				rhs, err := ps.ternary()
				if err != nil {
					return nil, err
				}
				return assignExpr{op: t.s, lhs: c, rhs: rhs}, nil
			}
		}
	}
	if ps.at(tPunct, "?") {
		ps.p++
		ps.skipNewlines()
		a, err := ps.ternary()
		if err != nil {
			return nil, err
		}
		ps.skipNewlines()
		if err := ps.expect(":"); err != nil {
			return nil, err
		}
		ps.skipNewlines()
		b, err := ps.ternary()
		if err != nil {
			return nil, err
		}
		return condExpr{c: c, a: a, b: b}, nil
	}
	return c, nil
}

func (ps *parser) or() (expr, error) {
	l, err := ps.and()
	if err != nil {
		return nil, err
	}
	for ps.at(tPunct, "||") {
		ps.p++
		ps.skipNewlines()
		r, err := ps.and()
		if err != nil {
			return nil, err
		}
		l = binExpr{op: "||", l: l, r: r}
	}
	return l, nil
}

func (ps *parser) and() (expr, error) {
	l, err := ps.in()
	if err != nil {
		return nil, err
	}
	for ps.at(tPunct, "&&") {
		ps.p++
		ps.skipNewlines()
		r, err := ps.in()
		if err != nil {
			return nil, err
		}
		l = binExpr{op: "&&", l: l, r: r}
	}
	return l, nil
}

func (ps *parser) in() (expr, error) {
	l, err := ps.match()
	if err != nil {
		return nil, err
	}
	for !ps.noIn && ps.at(tKeyword, "in") {
		ps.p++
		if !ps.at(tName, "") {
			return nil, ps.syntaxErr()
		}
		l = inExpr{keys: []expr{l}, arr: ps.peek().s}
		ps.p++
	}
	return l, nil
}

func (ps *parser) match() (expr, error) {
	l, err := ps.comparison()
	if err != nil {
		return nil, err
	}
	for ps.at(tPunct, "~") || ps.at(tPunct, "!~") {
		neg := ps.peek().s == "!~"
		ps.p++
		r, err := ps.comparison()
		if err != nil {
			return nil, err
		}
		l = matchExpr{neg: neg, l: l, re: r}
	}
	return l, nil
}

func (ps *parser) comparison() (expr, error) {
	l, err := ps.concat()
	if err != nil {
		return nil, err
	}
	t := ps.peek()
	if t.kind == tPunct {
		switch t.s {
		case "<", "<=", "==", "!=", ">=", ">":
			if t.s == ">" && ps.noGT {
				return l, nil
			}
			ps.p++
			r, err := ps.concat()
			if err != nil {
				return nil, err
			}
			return binExpr{op: t.s, l: l, r: r}, nil
		case "|":
			return nil, unsup("pipes (… | getline) are not implemented")
		}
	}
	return l, nil
}

// startsOperand reports whether the current token can begin a
// concatenated operand.
func (ps *parser) startsOperand() bool {
	t := ps.peek()
	switch t.kind {
	case tNumber, tString, tRegex, tName, tBuiltin, tFuncName:
		return true
	case tPunct:
		return t.s == "$" || t.s == "!" || t.s == "(" || t.s == "-" || t.s == "+" || t.s == "++" || t.s == "--"
	case tKeyword:
		return t.s == "getline"
	}
	return false
}

func (ps *parser) concat() (expr, error) {
	l, err := ps.additive()
	if err != nil {
		return nil, err
	}
	for ps.startsOperand() {
		t := ps.peek()
		// "a -1" and "a +1" are subtraction/addition, handled in
		// additive; "a !b" is not a concatenation in gawk either.
		if t.kind == tPunct && (t.s == "-" || t.s == "+" || t.s == "!") {
			break
		}
		if t.kind == tKeyword && t.s == "getline" {
			return nil, unsup("getline is not implemented")
		}
		r, err := ps.additive()
		if err != nil {
			return nil, err
		}
		l = binExpr{op: "concat", l: l, r: r}
	}
	return l, nil
}

func (ps *parser) additive() (expr, error) {
	l, err := ps.multiplicative()
	if err != nil {
		return nil, err
	}
	for ps.at(tPunct, "+") || ps.at(tPunct, "-") {
		op := ps.peek().s
		ps.p++
		r, err := ps.multiplicative()
		if err != nil {
			return nil, err
		}
		l = binExpr{op: op, l: l, r: r}
	}
	return l, nil
}

func (ps *parser) multiplicative() (expr, error) {
	l, err := ps.unary()
	if err != nil {
		return nil, err
	}
	for ps.at(tPunct, "*") || ps.at(tPunct, "/") || ps.at(tPunct, "%") {
		op := ps.peek().s
		ps.p++
		r, err := ps.unary()
		if err != nil {
			return nil, err
		}
		l = binExpr{op: op, l: l, r: r}
	}
	return l, nil
}

func (ps *parser) unary() (expr, error) {
	if ps.at(tPunct, "!") || ps.at(tPunct, "-") || ps.at(tPunct, "+") {
		op := ps.peek().s
		ps.p++
		x, err := ps.unary()
		if err != nil {
			return nil, err
		}
		return unaryExpr{op: op, x: x}, nil
	}
	return ps.power()
}

func (ps *parser) power() (expr, error) {
	l, err := ps.postfix()
	if err != nil {
		return nil, err
	}
	if ps.at(tPunct, "^") {
		ps.p++
		// Right associative; the exponent may carry a unary sign.
		var r expr
		if ps.at(tPunct, "-") || ps.at(tPunct, "+") || ps.at(tPunct, "!") {
			r, err = ps.unary()
		} else {
			r, err = ps.power()
		}
		if err != nil {
			return nil, err
		}
		return binExpr{op: "^", l: l, r: r}, nil
	}
	return l, nil
}

func (ps *parser) postfix() (expr, error) {
	if ps.at(tPunct, "++") || ps.at(tPunct, "--") {
		op := ps.peek().s
		ps.p++
		x, err := ps.postfix()
		if err != nil {
			return nil, err
		}
		if !isLvalue(x) {
			return nil, ps.syntaxErr()
		}
		return incdecExpr{op: op, lv: x}, nil
	}
	x, err := ps.primary()
	if err != nil {
		return nil, err
	}
	if isLvalue(x) && (ps.at(tPunct, "++") || ps.at(tPunct, "--")) {
		op := ps.peek().s
		ps.p++
		return incdecExpr{op: op, post: true, lv: x}, nil
	}
	return x, nil
}

func (ps *parser) primary() (expr, error) {
	t := ps.peek()
	switch t.kind {
	case tNumber:
		ps.p++
		return numLit{v: t.n}, nil
	case tString:
		ps.p++
		return strLit{v: t.s}, nil
	case tRegex:
		ps.p++
		return regexLit{src: t.s}, nil
	case tFuncName:
		return nil, unsup("call of user function %s", t.s)
	case tName:
		ps.p++
		if ps.at(tPunct, "[") {
			ps.p++
			oldGT, oldIn := ps.noGT, ps.noIn
			ps.noGT, ps.noIn = false, false
			keys, err := ps.exprList("]")
			ps.noGT, ps.noIn = oldGT, oldIn
			if err != nil {
				return nil, err
			}
			return indexRef{name: t.s, keys: keys}, nil
		}
		return varRef{name: t.s}, nil
	case tBuiltin:
		ps.p++
		if !ps.at(tPunct, "(") {
			if t.s == "length" {
				return callExpr{fn: "length"}, nil
			}
			return nil, ps.syntaxErr()
		}
		ps.p++
		oldGT, oldIn := ps.noGT, ps.noIn
		ps.noGT, ps.noIn = false, false
		args, err := ps.exprList(")")
		ps.noGT, ps.noIn = oldGT, oldIn
		if err != nil {
			return nil, err
		}
		return callExpr{fn: t.s, args: args}, nil
	case tKeyword:
		if t.s == "getline" {
			return nil, unsup("getline is not implemented")
		}
	case tPunct:
		switch t.s {
		case "$":
			ps.p++
			// $ binds tighter than everything but grouping: $NF, $(i+1),
			// $i++ is ($i)++, and $-1 is an error at run time.
			var idx expr
			var err error
			switch {
			case ps.at(tPunct, "++") || ps.at(tPunct, "--"):
				idx, err = ps.postfix()
			case ps.at(tPunct, "-") || ps.at(tPunct, "+") || ps.at(tPunct, "!"):
				op := ps.peek().s
				ps.p++
				var x expr
				x, err = ps.primary()
				idx = unaryExpr{op: op, x: x}
			default:
				idx, err = ps.primary()
			}
			if err != nil {
				return nil, err
			}
			return fieldRef{idx: idx}, nil
		case "(":
			ps.p++
			oldGT, oldIn := ps.noGT, ps.noIn
			ps.noGT, ps.noIn = false, false
			list, err := ps.exprList(")")
			ps.noGT, ps.noIn = oldGT, oldIn
			if err != nil {
				return nil, err
			}
			if len(list) == 0 {
				return nil, ps.syntaxErr()
			}
			if len(list) > 1 {
				if !ps.at(tKeyword, "in") {
					return nil, ps.syntaxErr()
				}
				ps.p++
				if !ps.at(tName, "") {
					return nil, ps.syntaxErr()
				}
				arr := ps.peek().s
				ps.p++
				return inExpr{keys: list, arr: arr}, nil
			}
			return groupExpr{x: list[0]}, nil
		}
	}
	return nil, ps.syntaxErr()
}
