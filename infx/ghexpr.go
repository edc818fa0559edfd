package infx

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ghContext is the data a GitHub Actions expression reads: the contexts
// (inputs, env, matrix, runner, secrets, github, …) by name. Values are
// nil, bool, float64, string, map[string]any or []any, as JSON decodes them.
type ghContext map[string]any

// evalGHTemplate substitutes every `${{ expr }}` in s with the expression's
// value as GitHub Actions does for workflow text: null → "", booleans
// "true"/"false", numbers in their shortest decimal form, objects and
// arrays as "Object"/"Array". Errors: an expression that does not parse
// (with the offending text).
// Source: GitHub Actions "Expressions" documentation (operators, literals,
// functions, type conversion for == and for truthiness).
func evalGHTemplate(s string, ctx ghContext) (string, error) {
	if !strings.Contains(s, "${{") {
		return s, nil // (no copy of a text without expressions)
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.Index(s, "${{")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unterminated expression %q", s[i:])
		}
		b.WriteString(s[:i])
		v, err := evalGHExpr(s[i+3:i+j], ctx)
		if err != nil {
			return "", err
		}
		b.WriteString(ghString(v))
		s = s[i+j+2:]
	}
}

// evalGHExpr evaluates one expression (the text between `${{` and `}}`).
func evalGHExpr(src string, ctx ghContext) (any, error) {
	if v, ok := ghPath(src, ctx); ok {
		return v, nil
	}
	return parseGHExpr(src, ctx)
}

// parseGHExpr is evalGHExpr through the parser alone.
func parseGHExpr(src string, ctx ghContext) (any, error) {
	p := &ghParser{src: src, ctx: ctx}
	p.next()
	v, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != ghEOF {
		return nil, fmt.Errorf("expression %q: unexpected %q", strings.TrimSpace(src), p.tok.text)
	}
	return v, nil
}

// ghPath evaluates the commonest expression, a property path
// (`matrix.config.image`, `inputs.model-prefix`: identifiers joined by
// dots, no blank inside), as the parser does — the first identifier
// looked up in ctx, each next one read from the value by ghIndex —
// without lexing; ok is false for anything else (a literal true, false
// or null first, an operator, a call, a blank between the parts), which
// the parser evaluates (TestGHPathIsParser).
func ghPath(src string, ctx ghContext) (_ any, ok bool) {
	src = strings.Trim(src, " \t\r\n")
	var v any
	for i := 0; ; i++ {
		name, rest, more := strings.Cut(src, ".")
		if !ghIdentText(name) {
			return nil, false
		}
		if i == 0 {
			switch name {
			case "true", "false", "null":
				return nil, false
			}
			for n, x := range ctx {
				if strings.EqualFold(n, name) {
					v = x
					break
				}
			}
		} else {
			v = ghField(v, name)
		}
		if !more {
			return v, true
		}
		src = rest
	}
}

// ghIdentText reports whether s is one identifier as the lexer reads it
// (ghParser.next): a letter or _, then letters, digits, _ and -.
func ghIdentText(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c == '-' || c >= '0' && c <= '9'):
		default:
			return false
		}
	}
	return true
}

// ghString converts a value to a string as GitHub Actions does.
func ghString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case []any:
		return "Array"
	case map[string]any:
		return "Object"
	}
	return fmt.Sprint(v)
}

// ghTruthy: false, 0, -0, "", null and NaN are falsy.
func ghTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case float64:
		return x != 0 && !math.IsNaN(x)
	case string:
		return x != ""
	}
	return true
}

// ghNumber coerces to a number (GitHub's loose equality rules).
func ghNumber(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case bool:
		if x {
			return 1
		}
		return 0
	case float64:
		return x
	case string:
		s := strings.TrimSpace(x)
		if s == "" {
			return 0
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
		if strings.HasPrefix(s, "0x") {
			if n, err := strconv.ParseInt(s[2:], 16, 64); err == nil {
				return float64(n)
			}
		}
	}
	return math.NaN()
}

// ghEqual: same types compare directly (strings case-insensitively);
// different primitive types are compared as numbers; objects by identity
// (never equal here).
func ghEqual(a, b any) bool {
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return strings.EqualFold(x, y)
		}
	case bool:
		if y, ok := b.(bool); ok {
			return x == y
		}
	case nil:
		if b == nil {
			return true
		}
	case float64:
		if y, ok := b.(float64); ok {
			return x == y
		}
	case map[string]any, []any:
		return false
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return ghNumber(a) == ghNumber(b)
}

type ghKind int

const (
	ghEOF ghKind = iota
	ghIdent
	ghString_
	ghNum
	ghOp
)

type ghToken struct {
	kind ghKind
	text string
}

type ghParser struct {
	src string
	pos int
	tok ghToken
	ctx ghContext
}

func (p *ghParser) next() {
	for p.pos < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.pos]) >= 0 {
		p.pos++
	}
	if p.pos >= len(p.src) {
		p.tok = ghToken{kind: ghEOF}
		return
	}
	c := p.src[p.pos]
	switch {
	case c == '\'':
		var b strings.Builder
		i := p.pos + 1
		for i < len(p.src) {
			if p.src[i] == '\'' {
				if i+1 < len(p.src) && p.src[i+1] == '\'' {
					b.WriteByte('\'')
					i += 2
					continue
				}
				break
			}
			b.WriteByte(p.src[i])
			i++
		}
		p.pos = i + 1
		p.tok = ghToken{kind: ghString_, text: b.String()}
	case c >= '0' && c <= '9' || (c == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] >= '0' && p.src[p.pos+1] <= '9'):
		i := p.pos + 1
		for i < len(p.src) && (strings.IndexByte("0123456789.eExXabcdefABCDEF+", p.src[i]) >= 0) {
			i++
		}
		p.tok = ghToken{kind: ghNum, text: p.src[p.pos:i]}
		p.pos = i
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		i := p.pos + 1
		for i < len(p.src) && (p.src[i] == '_' || p.src[i] == '-' || p.src[i] >= 'a' && p.src[i] <= 'z' || p.src[i] >= 'A' && p.src[i] <= 'Z' || p.src[i] >= '0' && p.src[i] <= '9') {
			i++
		}
		p.tok = ghToken{kind: ghIdent, text: p.src[p.pos:i]}
		p.pos = i
	default:
		// the operators, two-character ones first: == != <= >= && || ! < >
		// ( ) [ ] . , * (any other character is an operator of its own,
		// which the grammar then refuses)
		if p.pos+1 < len(p.src) {
			switch two := p.src[p.pos : p.pos+2]; two {
			case "==", "!=", "<=", ">=", "&&", "||":
				p.tok = ghToken{kind: ghOp, text: two}
				p.pos += 2
				return
			}
		}
		p.tok = ghToken{kind: ghOp, text: string(rune(c))}
		p.pos++
	}
}

func (p *ghParser) is(op string) bool { return p.tok.kind == ghOp && p.tok.text == op }

func (p *ghParser) or() (any, error) {
	v, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.is("||") {
		p.next()
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		if !ghTruthy(v) {
			v = r
		}
	}
	return v, nil
}

func (p *ghParser) and() (any, error) {
	v, err := p.cmp()
	if err != nil {
		return nil, err
	}
	for p.is("&&") {
		p.next()
		r, err := p.cmp()
		if err != nil {
			return nil, err
		}
		if ghTruthy(v) {
			v = r
		}
	}
	return v, nil
}

func (p *ghParser) cmp() (any, error) {
	v, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.tok.kind == ghOp {
		op := p.tok.text
		if op != "==" && op != "!=" && op != "<" && op != "<=" && op != ">" && op != ">=" {
			break
		}
		p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		switch op {
		case "==":
			v = ghEqual(v, r)
		case "!=":
			v = !ghEqual(v, r)
		default:
			a, b := ghNumber(v), ghNumber(r)
			sa, aok := v.(string)
			sb, bok := r.(string)
			if aok && bok {
				c := strings.Compare(strings.ToLower(sa), strings.ToLower(sb))
				a, b = float64(c), 0
			}
			switch op {
			case "<":
				v = a < b
			case "<=":
				v = a <= b
			case ">":
				v = a > b
			case ">=":
				v = a >= b
			}
		}
	}
	return v, nil
}

func (p *ghParser) unary() (any, error) {
	if p.is("!") {
		p.next()
		v, err := p.unary()
		if err != nil {
			return nil, err
		}
		return !ghTruthy(v), nil
	}
	return p.postfix()
}

func (p *ghParser) postfix() (any, error) {
	v, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.is("."):
			p.next()
			if p.is("*") {
				p.next()
				v = ghStar(v)
				continue
			}
			if p.tok.kind != ghIdent {
				return nil, fmt.Errorf("expression %q: property name expected after '.'", strings.TrimSpace(p.src))
			}
			v = ghField(v, p.tok.text)
			p.next()
		case p.is("["):
			p.next()
			if p.is("*") {
				p.next()
				v = ghStar(v)
			} else {
				k, err := p.or()
				if err != nil {
					return nil, err
				}
				v = ghIndex(v, k)
			}
			if !p.is("]") {
				return nil, fmt.Errorf("expression %q: ']' expected", strings.TrimSpace(p.src))
			}
			p.next()
		default:
			return v, nil
		}
	}
}

// ghIndex reads a property (case-insensitively, as GitHub does) or an
// array element; anything missing is null.
func ghIndex(v, k any) any {
	switch x := v.(type) {
	case map[string]any:
		return ghField(x, ghString(k))
	case []any:
		// (f compared as a float first: int(+Inf) is no index)
		if f := ghNumber(k); f >= 0 && f < float64(len(x)) && f == math.Trunc(f) {
			return x[int(f)]
		}
		// Property filter on an array (a.*.b written a[*].b is handled by ghStar).
	}
	return nil
}

// ghField is ghIndex with the string key ks (v.ks): an object's property,
// its name matched without case; nil for anything else (an array has
// no named property).
func ghField(v any, ks string) any {
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x[ks]; ok {
			return r
		}
		for name, r := range x {
			if strings.EqualFold(name, ks) {
				return r
			}
		}
	}
	return nil
}

// ghStar is the object filter `.*`: the values of an object or array.
func ghStar(v any) any {
	switch x := v.(type) {
	case []any:
		return x
	case map[string]any:
		out := make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, r)
		}
		return out
	}
	return []any{}
}

func (p *ghParser) primary() (any, error) {
	t := p.tok
	switch t.kind {
	case ghString_:
		p.next()
		return t.text, nil
	case ghNum:
		p.next()
		f := ghNumber(t.text)
		if math.IsNaN(f) {
			return nil, fmt.Errorf("expression %q: bad number %q", strings.TrimSpace(p.src), t.text)
		}
		return f, nil
	case ghIdent:
		p.next()
		switch t.text {
		case "true":
			return true, nil
		case "false":
			return false, nil
		case "null":
			return nil, nil
		}
		if p.is("(") {
			return p.call(t.text)
		}
		for name, v := range p.ctx {
			if strings.EqualFold(name, t.text) {
				return v, nil
			}
		}
		return nil, nil
	case ghOp:
		if t.text == "(" {
			p.next()
			v, err := p.or()
			if err != nil {
				return nil, err
			}
			if !p.is(")") {
				return nil, fmt.Errorf("expression %q: ')' expected", strings.TrimSpace(p.src))
			}
			p.next()
			return v, nil
		}
	}
	if t.kind == ghEOF {
		return nil, fmt.Errorf("expression %q: unexpected end", strings.TrimSpace(p.src))
	}
	return nil, fmt.Errorf("expression %q: unexpected %q", strings.TrimSpace(p.src), t.text)
}

// call evaluates the functions workflow text uses: format, contains,
// startsWith, endsWith, join, toJSON, fromJSON; status functions
// (success, always, cancelled, failure) answer as for a running job.
func (p *ghParser) call(name string) (any, error) {
	p.next() // (
	var args []any
	for !p.is(")") {
		v, err := p.or()
		if err != nil {
			return nil, err
		}
		args = append(args, v)
		if p.is(",") {
			p.next()
			continue
		}
		if !p.is(")") {
			return nil, fmt.Errorf("expression %q: ',' or ')' expected in %s()", strings.TrimSpace(p.src), name)
		}
	}
	p.next()
	arg := func(i int) any {
		if i < len(args) {
			return args[i]
		}
		return nil
	}
	switch strings.ToLower(name) {
	case "format":
		f := ghString(arg(0))
		var b strings.Builder
		for i := 0; i < len(f); i++ {
			switch {
			case strings.HasPrefix(f[i:], "{{"):
				b.WriteByte('{')
				i++
			case strings.HasPrefix(f[i:], "}}"):
				b.WriteByte('}')
				i++
			case f[i] == '{':
				j := strings.IndexByte(f[i:], '}')
				if j < 0 {
					return nil, fmt.Errorf("format(%q): unterminated {", f)
				}
				n, err := strconv.Atoi(f[i+1 : i+j])
				if err != nil {
					return nil, fmt.Errorf("format(%q): bad index", f)
				}
				b.WriteString(ghString(arg(n + 1)))
				i += j
			default:
				b.WriteByte(f[i])
			}
		}
		return b.String(), nil
	case "contains":
		if arr, ok := arg(0).([]any); ok {
			for _, e := range arr {
				if ghEqual(e, arg(1)) {
					return true, nil
				}
			}
			return false, nil
		}
		return strings.Contains(strings.ToLower(ghString(arg(0))), strings.ToLower(ghString(arg(1)))), nil
	case "startswith":
		return strings.HasPrefix(strings.ToLower(ghString(arg(0))), strings.ToLower(ghString(arg(1)))), nil
	case "endswith":
		return strings.HasSuffix(strings.ToLower(ghString(arg(0))), strings.ToLower(ghString(arg(1)))), nil
	case "join":
		sep := ","
		if len(args) > 1 {
			sep = ghString(arg(1))
		}
		if arr, ok := arg(0).([]any); ok {
			parts := make([]string, len(arr))
			for i, e := range arr {
				parts[i] = ghString(e)
			}
			return strings.Join(parts, sep), nil
		}
		return ghString(arg(0)), nil
	case "tojson":
		b, err := json.MarshalIndent(arg(0), "", "  ")
		if err != nil {
			return nil, err
		}
		return string(b), nil
	case "fromjson":
		var v any
		if err := json.Unmarshal([]byte(ghString(arg(0))), &v); err != nil {
			return nil, fmt.Errorf("fromJSON: %v", err)
		}
		return v, nil
	case "success", "always":
		return true, nil
	case "cancelled", "failure":
		return false, nil
	}
	return nil, fmt.Errorf("expression %q: unknown function %s()", strings.TrimSpace(p.src), name)
}
