package shellutil

import (
	"math/big"
	"strconv"
	"strings"
)

// ---- expr ----

// exprVal is an expr operand: an integer when it looks like one.
type exprVal struct {
	s     string
	n     *big.Int
	isInt bool
}

func exprStr(s string) exprVal {
	v := exprVal{s: s}
	t := strings.TrimPrefix(s, "-")
	if t != "" && strings.Trim(t, "0123456789") == "" {
		v.n, _ = new(big.Int).SetString(s, 10)
		v.isInt = v.n != nil
	}
	return v
}

func exprInt(n *big.Int) exprVal { return exprVal{s: n.String(), n: n, isInt: true} }

// null reports expr's "null" value: the empty string or an integer zero.
func (v exprVal) null() bool {
	return v.s == "" || v.isInt && v.n.Sign() == 0
}

type exprErr struct {
	msg    string
	status int
}

func (e *exprErr) Error() string { return e.msg }

type exprParser struct {
	args []string
	p    int
}

func (e *exprParser) peek() (string, bool) {
	if e.p < len(e.args) {
		return e.args[e.p], true
	}
	return "", false
}

func (e *exprParser) syntax() error {
	if e.p < len(e.args) {
		return &exprErr{msg: "syntax error: unexpected argument '" + e.args[e.p] + "'", status: 2}
	}
	return &exprErr{msg: "syntax error: missing argument after '" + e.args[e.p-1] + "'", status: 2}
}

func (e *exprParser) or() (exprVal, error) {
	l, err := e.and()
	if err != nil {
		return l, err
	}
	for {
		if t, ok := e.peek(); !ok || t != "|" {
			return l, nil
		}
		e.p++
		r, err := e.and()
		if err != nil {
			return l, err
		}
		if l.null() {
			if r.null() {
				l = exprInt(big.NewInt(0))
			} else {
				l = r
			}
		}
	}
}

func (e *exprParser) and() (exprVal, error) {
	l, err := e.cmp()
	if err != nil {
		return l, err
	}
	for {
		if t, ok := e.peek(); !ok || t != "&" {
			return l, nil
		}
		e.p++
		r, err := e.cmp()
		if err != nil {
			return l, err
		}
		if l.null() || r.null() {
			l = exprInt(big.NewInt(0))
		}
	}
}

func (e *exprParser) cmp() (exprVal, error) {
	l, err := e.add()
	if err != nil {
		return l, err
	}
	for {
		t, ok := e.peek()
		if !ok || t != "<" && t != "<=" && t != "=" && t != "==" && t != "!=" && t != ">=" && t != ">" {
			return l, nil
		}
		e.p++
		r, err := e.add()
		if err != nil {
			return l, err
		}
		var c int
		if l.isInt && r.isInt {
			c = l.n.Cmp(r.n)
		} else {
			c = strings.Compare(l.s, r.s)
		}
		res := false
		switch t {
		case "<":
			res = c < 0
		case "<=":
			res = c <= 0
		case "=", "==":
			res = c == 0
		case "!=":
			res = c != 0
		case ">=":
			res = c >= 0
		case ">":
			res = c > 0
		}
		l = exprInt(big.NewInt(int64(btoi(res))))
	}
}

func (e *exprParser) add() (exprVal, error) {
	l, err := e.mul()
	if err != nil {
		return l, err
	}
	for {
		t, ok := e.peek()
		if !ok || t != "+" && t != "-" {
			return l, nil
		}
		e.p++
		r, err := e.mul()
		if err != nil {
			return l, err
		}
		if !l.isInt || !r.isInt {
			return l, &exprErr{msg: "non-integer argument", status: 2}
		}
		if t == "+" {
			l = exprInt(new(big.Int).Add(l.n, r.n))
		} else {
			l = exprInt(new(big.Int).Sub(l.n, r.n))
		}
	}
}

func (e *exprParser) mul() (exprVal, error) {
	l, err := e.colon()
	if err != nil {
		return l, err
	}
	for {
		t, ok := e.peek()
		if !ok || t != "*" && t != "/" && t != "%" {
			return l, nil
		}
		e.p++
		r, err := e.colon()
		if err != nil {
			return l, err
		}
		if !l.isInt || !r.isInt {
			return l, &exprErr{msg: "non-integer argument", status: 2}
		}
		if t != "*" && r.n.Sign() == 0 {
			return l, &exprErr{msg: "division by zero", status: 2}
		}
		switch t {
		case "*":
			l = exprInt(new(big.Int).Mul(l.n, r.n))
		case "/":
			l = exprInt(new(big.Int).Quo(l.n, r.n))
		default:
			l = exprInt(new(big.Int).Rem(l.n, r.n))
		}
		if l.n.BitLen() > 4096 {
			return l, unsup("expr integer too large")
		}
	}
}

func (e *exprParser) colon() (exprVal, error) {
	l, err := e.primary()
	if err != nil {
		return l, err
	}
	for {
		if t, ok := e.peek(); !ok || t != ":" {
			return l, nil
		}
		e.p++
		r, err := e.primary()
		if err != nil {
			return l, err
		}
		if l, err = exprMatch(l.s, r.s); err != nil {
			return l, err
		}
	}
}

// exprMatch is STRING : REGEXP — a BRE anchored at the start; the first
// group's text when the RE has a group, else the match length.
func exprMatch(s, pat string) (exprVal, error) {
	tr, err := posixToRE2(pat, flavorBRE)
	if err != nil {
		return exprVal{}, err
	}
	re, err := compileAnchored(tr)
	if err != nil {
		return exprVal{}, err
	}
	m := re.FindStringSubmatchIndex(s)
	if re.NumSubexp() > 0 {
		if m == nil || m[2] < 0 {
			return exprStr(""), nil
		}
		return exprStr(s[m[2]:m[3]]), nil
	}
	if m == nil {
		return exprInt(big.NewInt(0)), nil
	}
	return exprInt(big.NewInt(int64(m[1]))), nil
}

func (e *exprParser) primary() (exprVal, error) {
	t, ok := e.peek()
	if !ok {
		return exprVal{}, e.syntax()
	}
	e.p++
	switch t {
	case "(":
		v, err := e.or()
		if err != nil {
			return v, err
		}
		if t, ok := e.peek(); !ok || t != ")" {
			if !ok {
				return v, &exprErr{msg: "syntax error: expecting ')' after '" + e.args[e.p-1] + "'", status: 2}
			}
			return v, &exprErr{msg: "syntax error: expecting ')' instead of '" + t + "'", status: 2}
		}
		e.p++
		return v, nil
	case "+":
		// "+ TOKEN": TOKEN as a string even if it is a keyword.
		t, ok := e.peek()
		if !ok {
			return exprVal{}, e.syntax()
		}
		e.p++
		return exprStr(t), nil
	case "length", "match", "substr", "index":
		if e.p >= len(e.args) {
			return exprStr(t), nil
		}
		switch t {
		case "length":
			a, err := e.primary()
			if err != nil {
				return a, err
			}
			return exprInt(big.NewInt(int64(len(a.s)))), nil
		case "match":
			a, err := e.primary()
			if err != nil {
				return a, err
			}
			b, err := e.primary()
			if err != nil {
				return b, err
			}
			return exprMatch(a.s, b.s)
		case "index":
			a, err := e.primary()
			if err != nil {
				return a, err
			}
			b, err := e.primary()
			if err != nil {
				return b, err
			}
			return exprInt(big.NewInt(int64(strings.IndexAny(a.s, b.s) + 1))), nil
		default:
			a, err := e.primary()
			if err != nil {
				return a, err
			}
			p, err := e.primary()
			if err != nil {
				return p, err
			}
			n, err := e.primary()
			if err != nil {
				return n, err
			}
			pos, err1 := strconv.Atoi(p.s)
			ln, err2 := strconv.Atoi(n.s)
			if err1 != nil || err2 != nil || pos < 1 || ln < 1 || pos > len(a.s) {
				return exprStr(""), nil
			}
			end := min(len(a.s), pos-1+ln)
			return exprStr(a.s[pos-1 : end]), nil
		}
	case ")":
		e.p--
		return exprVal{}, e.syntax()
	}
	return exprStr(t), nil
}

// runExpr evaluates GNU expr (integers of any size, BRE ':').
func runExpr(c *call) (int, error) {
	args := c.args
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		c.usageError("missing operand")
		return 2, nil
	}
	e := &exprParser{args: args}
	v, err := e.or()
	if err == nil && e.p < len(args) {
		err = e.syntax()
	}
	if err != nil {
		if ee, ok := err.(*exprErr); ok {
			c.errorf("%s", ee.msg)
			return ee.status, nil
		}
		return 0, err
	}
	c.out.WriteString(v.s + "\n")
	if v.null() {
		return 1, nil
	}
	return 0, nil
}

// ---- bc ----

// bcNum is a decimal: v / 10^scale.
type bcNum struct {
	v     *big.Int
	scale int
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// rescale truncates or extends n to scale s.
func (n bcNum) rescale(s int) bcNum {
	switch {
	case s == n.scale:
		return n
	case s > n.scale:
		return bcNum{v: new(big.Int).Mul(n.v, pow10(s-n.scale)), scale: s}
	}
	return bcNum{v: new(big.Int).Quo(n.v, pow10(n.scale-s)), scale: s}
}

// String prints n as GNU bc does (no leading 0 before the point, lines
// of 68 characters continued with a backslash).
func (n bcNum) String() string {
	if n.v.Sign() == 0 {
		return "0"
	}
	neg := n.v.Sign() < 0
	abs := new(big.Int).Abs(n.v).String()
	var s string
	if n.scale == 0 {
		s = abs
	} else {
		for len(abs) <= n.scale {
			abs = "0" + abs
		}
		ip, fp := abs[:len(abs)-n.scale], abs[len(abs)-n.scale:]
		if ip == "0" {
			ip = ""
		}
		s = ip + "." + fp
	}
	if neg && n.v.Sign() != 0 {
		s = "-" + s
	}
	var b strings.Builder
	for len(s) > 69 {
		b.WriteString(s[:68] + "\\\n")
		s = s[68:]
	}
	b.WriteString(s)
	return b.String()
}

type bcParser struct {
	src  string
	i    int
	vars map[string]bcNum
	out  *outBuf
	// dry parses a line without effects: run-time errors yield 0.
	dry bool
}

// runtime returns a run-time error, or nil and a zero result in a dry
// run (which only looks for syntax errors).
func (p *bcParser) runtime(msg string) error {
	if p.dry {
		return nil
	}
	return &bcRuntime{msg: msg}
}

func (p *bcParser) skipSpace() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t' || p.src[p.i] == '\r' ||
		p.src[p.i] == '\\' && p.i+1 < len(p.src) && p.src[p.i+1] == '\n') {
		if p.src[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
}

func (p *bcParser) scale() int {
	s, ok := p.vars["scale"]
	if !ok {
		return 0
	}
	return int(s.rescale(0).v.Int64())
}

type bcSyntax struct{}

func (bcSyntax) Error() string { return "syntax error" }

type bcRuntime struct{ msg string }

func (e *bcRuntime) Error() string { return e.msg }

func (p *bcParser) peekByte() byte {
	p.skipSpace()
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

func (p *bcParser) name() string {
	p.skipSpace()
	j := p.i
	for j < len(p.src) && (p.src[j] >= 'a' && p.src[j] <= 'z' || p.src[j] == '_' || j > p.i && p.src[j] >= '0' && p.src[j] <= '9') {
		j++
	}
	return p.src[p.i:j]
}

// statement parses one statement; it reports whether the statement was
// an expression to print.
func (p *bcParser) statement() error {
	save := p.i
	if n := p.name(); n != "" {
		p.i += len(n)
		switch n {
		case "quit", "halt":
			return errBcQuit
		case "print", "if", "while", "for", "define", "return", "break", "continue", "auto", "read", "limits", "warranty", "last", "ibase", "obase":
			if n == "ibase" || n == "obase" || n == "last" {
				return unsup("bc %s", n)
			}
			return unsup("bc statement %s", n)
		}
		if p.peekByte() == '=' && !strings.HasPrefix(p.src[p.i:], "==") {
			p.i++
			v, err := p.expr()
			if err != nil {
				return err
			}
			if n == "scale" {
				if v.v.Sign() < 0 {
					if err := p.runtime("negative scale"); err != nil {
						return err
					}
					v = bcNum{v: big.NewInt(0)}
				}
				v = v.rescale(0)
				if v.v.Cmp(big.NewInt(1000)) > 0 {
					return unsup("bc scale above 1000")
				}
			}
			p.vars[n] = v
			return nil
		}
		if c := p.peekByte(); (c == '+' || c == '-' || c == '*' || c == '/' || c == '%' || c == '^') && p.i+1 < len(p.src) && p.src[p.i+1] == '=' ||
			strings.HasPrefix(p.src[p.i:], "++") || strings.HasPrefix(p.src[p.i:], "--") {
			return unsup("bc compound assignment")
		}
		p.i = save
	}
	v, err := p.expr()
	if err != nil {
		return err
	}
	p.out.WriteString(v.String() + "\n")
	return nil
}

var errBcQuit = &bcRuntime{msg: "quit"}

func (p *bcParser) expr() (bcNum, error) {
	l, err := p.add()
	if err != nil {
		return l, err
	}
	p.skipSpace()
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if strings.HasPrefix(p.src[p.i:], op) {
			p.i += len(op)
			r, err := p.add()
			if err != nil {
				return l, err
			}
			c := l.rescale(max(l.scale, r.scale)).v.Cmp(r.rescale(max(l.scale, r.scale)).v)
			res := false
			switch op {
			case "==":
				res = c == 0
			case "!=":
				res = c != 0
			case "<=":
				res = c <= 0
			case ">=":
				res = c >= 0
			case "<":
				res = c < 0
			case ">":
				res = c > 0
			}
			return bcNum{v: big.NewInt(int64(btoi(res)))}, nil
		}
	}
	if strings.HasPrefix(p.src[p.i:], "&&") || strings.HasPrefix(p.src[p.i:], "||") || p.peekByte() == '!' {
		return l, unsup("bc boolean operators")
	}
	return l, nil
}

func (p *bcParser) add() (bcNum, error) {
	l, err := p.mul()
	if err != nil {
		return l, err
	}
	for {
		c := p.peekByte()
		if c != '+' && c != '-' || p.i+1 < len(p.src) && p.src[p.i+1] == '=' {
			return l, nil
		}
		p.i++
		r, err := p.mul()
		if err != nil {
			return l, err
		}
		s := max(l.scale, r.scale)
		a, b := l.rescale(s).v, r.rescale(s).v
		if c == '+' {
			l = bcNum{v: new(big.Int).Add(a, b), scale: s}
		} else {
			l = bcNum{v: new(big.Int).Sub(a, b), scale: s}
		}
	}
}

func (p *bcParser) mul() (bcNum, error) {
	l, err := p.power()
	if err != nil {
		return l, err
	}
	for {
		c := p.peekByte()
		if c != '*' && c != '/' && c != '%' || p.i+1 < len(p.src) && p.src[p.i+1] == '=' {
			return l, nil
		}
		p.i++
		r, err := p.power()
		if err != nil {
			return l, err
		}
		switch c {
		case '*':
			s := min(l.scale+r.scale, max(p.scale(), l.scale, r.scale))
			prod := bcNum{v: new(big.Int).Mul(l.v, r.v), scale: l.scale + r.scale}
			l = prod.rescale(s)
		case '/':
			if r.v.Sign() == 0 {
				if err := p.runtime("Divide by zero"); err != nil {
					return l, err
				}
				l = bcNum{v: big.NewInt(0)}
				continue
			}
			l = bcDiv(l, r, p.scale())
		case '%':
			if r.v.Sign() == 0 {
				if err := p.runtime("Modulo by zero"); err != nil {
					return l, err
				}
				l = bcNum{v: big.NewInt(0)}
				continue
			}
			q := bcDiv(l, r, p.scale())
			qr := bcNum{v: new(big.Int).Mul(q.v, r.v), scale: q.scale + r.scale}
			s := max(p.scale()+r.scale, l.scale)
			l = bcNum{v: new(big.Int).Sub(l.rescale(s).v, qr.rescale(s).v), scale: s}
		}
		if l.v.BitLen() > 1<<14 {
			return l, unsup("bc number too large")
		}
	}
}

// bcDiv divides truncating to scale s.
func bcDiv(a, b bcNum, s int) bcNum {
	// a/b = (a.v/10^as) / (b.v/10^bs); result scaled by 10^s.
	num := new(big.Int).Mul(a.v, pow10(s+b.scale))
	den := new(big.Int).Mul(b.v, pow10(a.scale))
	return bcNum{v: new(big.Int).Quo(num, den), scale: s}
}

// unary is bc's unary minus, which binds tighter than ^ (-2^2 is 4).
func (p *bcParser) unary() (bcNum, error) {
	if p.peekByte() == '-' {
		p.i++
		v, err := p.unary()
		if err != nil {
			return v, err
		}
		return bcNum{v: new(big.Int).Neg(v.v), scale: v.scale}, nil
	}
	return p.primary()
}

func (p *bcParser) power() (bcNum, error) {
	base, err := p.unary()
	if err != nil {
		return base, err
	}
	if p.peekByte() != '^' || p.i+1 < len(p.src) && p.src[p.i+1] == '=' {
		return base, nil
	}
	p.i++
	exp, err := p.power()
	if err != nil {
		return base, err
	}
	if exp.scale != 0 && exp.rescale(0).rescale(exp.scale).v.Cmp(exp.v) != 0 {
		return base, unsup("bc non-integer exponent")
	}
	e := exp.rescale(0).v
	if !e.IsInt64() || e.Int64() > 10000 || e.Int64() < -10000 {
		return base, unsup("bc exponent out of range")
	}
	n := e.Int64()
	if int64(base.v.BitLen())*max(n, -n) > 1<<14 {
		return base, unsup("bc number too large")
	}
	if n < 0 {
		pos := bcNum{v: new(big.Int).Exp(base.v, big.NewInt(-n), nil), scale: base.scale * int(-n)}
		if pos.v.Sign() == 0 {
			return bcNum{v: big.NewInt(0)}, p.runtime("divide by zero")
		}
		return bcDiv(bcNum{v: big.NewInt(1)}, pos, p.scale()), nil
	}
	r := bcNum{v: new(big.Int).Exp(base.v, big.NewInt(n), nil), scale: base.scale * int(n)}
	if r.v.BitLen() > 1<<14 {
		return base, unsup("bc number too large")
	}
	return r.rescale(min(base.scale*int(n), max(p.scale(), base.scale))), nil
}

func (p *bcParser) primary() (bcNum, error) {
	c := p.peekByte()
	switch {
	case c == '(':
		p.i++
		v, err := p.expr()
		if err != nil {
			return v, err
		}
		if p.peekByte() != ')' {
			return v, bcSyntax{}
		}
		p.i++
		return v, nil
	case c >= '0' && c <= '9' || c == '.':
		j := p.i
		for j < len(p.src) && (p.src[j] >= '0' && p.src[j] <= '9' || p.src[j] == '.' || p.src[j] == '\\' && j+1 < len(p.src) && p.src[j+1] == '\n') {
			j++
		}
		text := strings.ReplaceAll(p.src[p.i:j], "\\\n", "")
		p.i = j
		ip, fp, _ := strings.Cut(text, ".")
		if strings.Contains(fp, ".") {
			return bcNum{}, bcSyntax{}
		}
		if ip == "" {
			ip = "0"
		}
		v, ok := new(big.Int).SetString(ip+fp, 10)
		if !ok {
			return bcNum{}, bcSyntax{}
		}
		return bcNum{v: v, scale: len(fp)}, nil
	case c >= 'a' && c <= 'z':
		n := p.name()
		p.i += len(n)
		if p.peekByte() == '(' {
			p.i++
			arg, err := p.expr()
			if err != nil {
				return arg, err
			}
			if p.peekByte() != ')' {
				return arg, bcSyntax{}
			}
			p.i++
			switch n {
			case "length":
				digits := len(new(big.Int).Abs(arg.v).String())
				if arg.v.Sign() == 0 {
					digits = max(1, arg.scale)
				}
				return bcNum{v: big.NewInt(int64(max(digits, arg.scale)))}, nil
			case "scale":
				return bcNum{v: big.NewInt(int64(arg.scale))}, nil
			case "sqrt":
				if arg.v.Sign() < 0 {
					return bcNum{v: big.NewInt(0)}, p.runtime("Square root of a negative number")
				}
				s := max(p.scale(), arg.scale)
				// floor(sqrt(arg * 10^(2s))) / 10^s
				x := new(big.Int).Mul(arg.v, pow10(2*s-arg.scale))
				return bcNum{v: new(big.Int).Sqrt(x), scale: s}, nil
			}
			return arg, unsup("bc function %s()", n)
		}
		switch n {
		case "ibase", "obase", "last":
			return bcNum{}, unsup("bc %s", n)
		case "scale":
			return bcNum{v: big.NewInt(int64(p.scale()))}, nil
		}
		if v, ok := p.vars[n]; ok {
			return v, nil
		}
		return bcNum{v: big.NewInt(0)}, nil
	case c == '"':
		return bcNum{}, unsup("bc strings")
	}
	return bcNum{}, bcSyntax{}
}

// runBc evaluates a POSIX bc program on stdin: decimal numbers of any
// size, variables, scale, + - * / % ^, comparisons, sqrt/length/scale,
// with GNU bc's scale rules and output layout. Control flow, functions,
// ibase/obase and strings are unsupported. Like GNU bc it exits 0 after a
// syntax or run-time error, which it reports on stderr.
func runBc(c *call) (int, error) {
	for _, a := range c.args {
		if a != "-q" && a != "-l" {
			return 0, unsup("bc %s", a)
		}
		if a == "-l" {
			return 0, unsup("bc -l (math library)")
		}
	}
	src := string(c.stdin)
	if strings.Contains(src, "/*") || strings.Contains(src, "#") || strings.Contains(src, "{") {
		return 0, unsup("bc comments or blocks")
	}
	vars := map[string]bcNum{}
	lineNo := 0
	for len(src) > 0 {
		// A logical line; backslash-newline continues it.
		end := 0
		for end < len(src) && (src[end] != '\n' || end > 0 && src[end-1] == '\\') {
			end++
		}
		line := src[:end]
		if end < len(src) {
			end++
		}
		src = src[end:]
		lineNo += 1 + strings.Count(line, "\\\n")
		// bc compiles a whole line before running it: a syntax error
		// anywhere drops the line.
		scratch := map[string]bcNum{}
		for k, v := range vars {
			scratch[k] = v
		}
		dry := &bcParser{src: line, vars: scratch, out: &outBuf{}, dry: true}
		if err := dry.statements(); err != nil {
			if _, ok := err.(bcSyntax); ok {
				c.errb.WriteString("(standard_in) " + strconv.Itoa(lineNo) + ": syntax error\n")
				continue
			}
			if err != errBcQuit {
				return 0, err
			}
		}
		p := &bcParser{src: line, vars: vars, out: &c.out}
		err := p.statements()
		if err == errBcQuit {
			return 0, nil
		}
		if e, ok := err.(*bcRuntime); ok {
			c.errb.WriteString("Runtime error (func=(main), adr=0): " + e.msg + "\n")
		} else if err != nil {
			return 0, err
		}
		if c.out.over {
			return 0, unsup("output exceeds %d bytes", MaxOutput)
		}
	}
	return 0, nil
}

// statements runs the ';'-separated statements of one line.
func (p *bcParser) statements() error {
	for {
		p.skipSpace()
		if p.i >= len(p.src) {
			return nil
		}
		if p.src[p.i] == ';' {
			p.i++
			continue
		}
		if err := p.statement(); err != nil {
			return err
		}
		p.skipSpace()
		if p.i < len(p.src) && p.src[p.i] != ';' {
			return bcSyntax{}
		}
	}
}
