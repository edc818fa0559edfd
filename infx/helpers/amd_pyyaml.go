package helpers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/internal/pyfmt"
	"go.yaml.in/yaml/v3"
)

// This file holds what the models.yaml loader needs of Python: the values
// PyYAML 6's safe_load makes of a YAML document (YAML 1.1 scalar
// resolution, yaml/resolver.py and constructor.py), their str() text, and
// the loader's eval_formula arithmetic.

// amdValue is a Python value of a safe_load result. kind is "str", "int",
// "float", "bool", "null", "dict", "list" or "other" (a value whose
// Python text this package does not make: why says what it is).
type amdValue struct {
	kind string
	s    string
	i    *big.Int
	f    float64
	b    bool
	keys []amdValue // dict, in document order (a later duplicate wins on get)
	vals []amdValue
	why  string
}

// get is dict.get(key) for a str key ("" kinds other than dict: false).
func (v amdValue) get(key string) (amdValue, bool) {
	for i := len(v.keys) - 1; i >= 0; i-- {
		if k := v.keys[i]; k.kind == "str" && k.s == key {
			return v.vals[i], true
		}
	}
	return amdValue{}, false
}

// str is Python's str(v) (f-string {v}).
func (v amdValue) str() (string, error) {
	switch v.kind {
	case "str":
		return v.s, nil
	case "int":
		return v.i.String(), nil
	case "bool":
		return amdPyBool(v.b), nil
	case "null":
		return "None", nil
	case "float":
		return amdFloatRepr(v.f)
	case "other":
		return "", fmt.Errorf("%s: its Python value's text is not reproduced", v.why)
	}
	return "", fmt.Errorf("a %s: its Python repr is not reproduced", v.kind)
}

// amdFloatRepr is Python 3's repr of a finite float (pyfmt.FloatRepr); inf
// and nan are an error (their text in the loader's output is not
// reproduced).
func amdFloatRepr(f float64) (string, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("the float %v", f)
	}
	return pyfmt.FloatRepr(f), nil
}

// PyYAML 6 implicit resolvers (yaml/resolver.py, Resolver), YAML 1.1.
var (
	amdBoolRE  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	amdFloatRE = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	amdIntRE   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	amdNullRE  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	amdTimeRE  = regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)
	amdDecRE   = regexp.MustCompile(`^[-+]?(?:0|[1-9][0-9_]*)$`)
	amdPlainFl = regexp.MustCompile(`^[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?$|^\.[0-9_]+(?:[eE][-+][0-9]+)?$`)
)

// amdLoad is yaml.safe_load of a single-document models.yaml.
func amdLoad(data []byte) (amdValue, error) { return amdLoadFile("models.yaml", data) }

// amdMaxNodes bounds the values one load makes, aliases expanded (a
// sequence of aliases of sequences grows as a power).
const amdMaxNodes = 100000

// amdLoadFile is yaml.safe_load of a single-document file, name naming it
// in errors.
func amdLoadFile(name string, data []byte) (amdValue, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return amdValue{}, amdUnsupported("%s: %v (PyYAML's reading of it is not reproduced)", name, err)
	}
	// yaml.safe_load fails on a stream of more than one document
	// (ComposerError "expected a single document"): not reproduced.
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return amdValue{}, amdUnsupported("%s: more than one YAML document (PyYAML's safe_load refuses it)", name)
	}
	if doc.Kind == 0 {
		return amdValue{kind: "null"}, nil
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return amdValue{}, amdUnsupported("%s: not one YAML document", name)
	}
	l := amdLoader{name: name, budget: amdMaxNodes}
	return l.node(doc.Content[0], 0)
}

// amdLoader is one load: the file's name and the values it may still make.
type amdLoader struct {
	name   string
	budget int
}

// node is the value of n: mappings (a list or mapping as a key is
// PyYAML's "found unhashable key": not reproduced), sequences with their
// elements, scalars resolved as PyYAML's safe_load does.
func (l *amdLoader) node(n *yaml.Node, depth int) (amdValue, error) {
	l.budget--
	if l.budget < 0 {
		return amdValue{}, amdUnsupported("%s: more than %d values with its aliases expanded", l.name, amdMaxNodes)
	}
	if depth > 100 {
		return amdValue{}, amdUnsupported("%s: nested deeper than 100 levels", l.name)
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return amdValue{}, amdUnsupported("%s: an alias without an anchor", l.name)
		}
		return l.node(n.Alias, depth+1)
	}
	switch n.Kind {
	case yaml.MappingNode:
		if n.Tag != "!!map" && n.Style&yaml.TaggedStyle != 0 {
			return amdValue{kind: "other", why: "a mapping tagged " + n.Tag}, nil
		}
		v := amdValue{kind: "dict"}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.TaggedStyle) == 0 {
				return amdValue{}, amdUnsupported("%s:%d: a merge key (<<): PyYAML's flattening is not reproduced", l.name, k.Line)
			}
			kv, err := l.node(k, depth+1)
			if err != nil {
				return amdValue{}, err
			}
			if kv.kind == "list" || kv.kind == "dict" {
				return amdValue{}, amdUnsupported("%s:%d: a sequence or mapping as a key (PyYAML: found unhashable key)", l.name, k.Line)
			}
			vv, err := l.node(n.Content[i+1], depth+1)
			if err != nil {
				return amdValue{}, err
			}
			v.keys = append(v.keys, kv)
			v.vals = append(v.vals, vv)
		}
		return v, nil
	case yaml.SequenceNode:
		v := amdValue{kind: "list"}
		for _, c := range n.Content {
			e, err := l.node(c, depth+1)
			if err != nil {
				return amdValue{}, err
			}
			v.vals = append(v.vals, e)
		}
		return v, nil
	case yaml.ScalarNode:
		return amdScalar(n), nil
	}
	return amdValue{kind: "other", why: "a YAML node of kind " + strconv.Itoa(int(n.Kind))}, nil
}

// amdScalar resolves a scalar as PyYAML's safe_load does.
func amdScalar(n *yaml.Node) amdValue {
	if n.Style&yaml.TaggedStyle != 0 {
		if n.Tag == "!!str" {
			return amdValue{kind: "str", s: n.Value}
		}
		return amdValue{kind: "other", why: fmt.Sprintf("line %d: the explicitly tagged scalar %s %q", n.Line, n.Tag, n.Value)}
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return amdValue{kind: "str", s: n.Value}
	}
	s := n.Value
	switch {
	case amdBoolRE.MatchString(s):
		l := strings.ToLower(s)
		return amdValue{kind: "bool", b: l == "yes" || l == "true" || l == "on"}
	case amdFloatRE.MatchString(s):
		if amdPlainFl.MatchString(s) {
			f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
			if err == nil || amdIsRange(err) {
				return amdValue{kind: "float", f: f}
			}
		}
		return amdValue{kind: "other", why: fmt.Sprintf("line %d: the float %q (infinity, NaN or sexagesimal)", n.Line, s)}
	case amdIntRE.MatchString(s):
		if amdDecRE.MatchString(s) {
			i, ok := new(big.Int).SetString(strings.ReplaceAll(s, "_", ""), 10)
			if ok {
				return amdValue{kind: "int", i: i}
			}
		}
		return amdValue{kind: "other", why: fmt.Sprintf("line %d: the integer %q (binary, octal, hexadecimal or sexagesimal)", n.Line, s)}
	case amdNullRE.MatchString(s):
		return amdValue{kind: "null"}
	case amdTimeRE.MatchString(s):
		return amdValue{kind: "other", why: fmt.Sprintf("line %d: the timestamp %q", n.Line, s)}
	case s == "=":
		return amdValue{kind: "other", why: fmt.Sprintf("line %d: the value key =", n.Line)}
	}
	return amdValue{kind: "str", s: s}
}

// amdIsRange reports a strconv range error (the value is ±Inf or 0, as
// Python's float() makes it).
func amdIsRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// amdEvalFormula is the loader's eval_formula: an int or float value is
// int(value); another value's str() is evaluated as a Python expression
// over the integer-valued environment variables, and its int() printed;
// when Python raises (a name that is not such a variable, a division by
// zero), the program warns on stderr and the value itself is printed.
// Expressions beyond integer literals, names, parentheses, unary + and -,
// and binary + - * // % are not reproduced.
func amdEvalFormula(v amdValue, getenv func(string) (string, bool), stderr *strings.Builder) (string, error) {
	switch v.kind {
	case "int":
		return v.i.String(), nil
	case "bool":
		if v.b {
			return "1", nil
		}
		return "0", nil
	case "float":
		if math.IsInf(v.f, 0) || math.IsNaN(v.f) {
			return "", fmt.Errorf("int() of the float %v raises outside the program's try", v.f)
		}
		bf := new(big.Float).SetFloat64(math.Trunc(v.f))
		i, _ := bf.Int(nil)
		return i.String(), nil
	}
	s, err := v.str()
	if err != nil {
		return "", err
	}
	ev := amdExpr{src: s, getenv: getenv}
	n, perr, err := ev.parse()
	if err != nil {
		return "", err
	}
	if perr != "" {
		fmt.Fprintf(stderr, "echo \"WARNING: Cannot evaluate formula: %s (%s)\"\n", s, perr)
		return s, nil
	}
	return n.String(), nil
}

// amdExpr evaluates the arithmetic subset of Python expressions
// amdEvalFormula reproduces.
type amdExpr struct {
	src string
	pos int
	// getenv looks a name up in the environment (nil: none is set)
	getenv func(string) (string, bool)
	perr   string // the Python exception raised while evaluating ("" none)
}

// parse evaluates the whole text: the value, the message of the
// exception Python raises ("" none), or an error for a text outside the
// subset (Python's answer to it is not reproduced).
func (e *amdExpr) parse() (*big.Int, string, error) {
	if strings.ContainsAny(e.src, "\n\r\f\v") {
		return nil, "", fmt.Errorf("the formula %q spans lines", e.src)
	}
	v, err := e.sum()
	if err != nil {
		return nil, "", err
	}
	e.space()
	if e.pos != len(e.src) {
		return nil, "", fmt.Errorf("the formula %q: %q is outside the arithmetic reproduced", e.src, e.src[e.pos:])
	}
	if e.perr != "" {
		return nil, e.perr, nil
	}
	return v, "", nil
}

func (e *amdExpr) space() {
	for e.pos < len(e.src) && (e.src[e.pos] == ' ' || e.src[e.pos] == '\t') {
		e.pos++
	}
}

func (e *amdExpr) sum() (*big.Int, error) {
	v, err := e.product()
	if err != nil {
		return nil, err
	}
	for {
		e.space()
		if e.pos >= len(e.src) || (e.src[e.pos] != '+' && e.src[e.pos] != '-') {
			return v, nil
		}
		op := e.src[e.pos]
		e.pos++
		w, err := e.product()
		if err != nil {
			return nil, err
		}
		if v != nil && w != nil {
			if op == '+' {
				v = new(big.Int).Add(v, w)
			} else {
				v = new(big.Int).Sub(v, w)
			}
		} else {
			v = nil
		}
	}
}

func (e *amdExpr) product() (*big.Int, error) {
	v, err := e.unary()
	if err != nil {
		return nil, err
	}
	for {
		e.space()
		rest := e.src[e.pos:]
		var op string
		switch {
		case strings.HasPrefix(rest, "**"), strings.HasPrefix(rest, "*="), strings.HasPrefix(rest, "/="):
			return nil, fmt.Errorf("the formula %q: %q is outside the arithmetic reproduced", e.src, rest)
		case strings.HasPrefix(rest, "//"):
			op = "//"
		case strings.HasPrefix(rest, "*"), strings.HasPrefix(rest, "%"):
			op = rest[:1]
		case strings.HasPrefix(rest, "/"):
			return nil, fmt.Errorf("the formula %q: true division (a float) is outside the arithmetic reproduced", e.src)
		default:
			return v, nil
		}
		e.pos += len(op)
		w, err := e.unary()
		if err != nil {
			return nil, err
		}
		if v == nil || w == nil {
			v = nil
			continue
		}
		switch op {
		case "*":
			v = new(big.Int).Mul(v, w)
		default:
			if w.Sign() == 0 {
				if e.perr == "" {
					e.perr = "integer division or modulo by zero"
				}
				v = nil
				continue
			}
			// Python floors (// toward -inf; % takes the divisor's sign).
			q, m := new(big.Int).DivMod(v, w, new(big.Int))
			if m.Sign() != 0 && w.Sign() < 0 {
				q.Sub(q, big.NewInt(1))
				m.Add(m, w)
			}
			if op == "//" {
				v = q
			} else {
				v = m
			}
		}
	}
}

func (e *amdExpr) unary() (*big.Int, error) {
	e.space()
	if e.pos < len(e.src) && (e.src[e.pos] == '-' || e.src[e.pos] == '+') {
		op := e.src[e.pos]
		e.pos++
		v, err := e.unary()
		if err != nil || v == nil {
			return v, err
		}
		if op == '-' {
			return new(big.Int).Neg(v), nil
		}
		return v, nil
	}
	return e.atom()
}

func (e *amdExpr) atom() (*big.Int, error) {
	e.space()
	if e.pos >= len(e.src) {
		return nil, fmt.Errorf("the formula %q ends early (a SyntaxError is not reproduced)", e.src)
	}
	c := e.src[e.pos]
	switch {
	case c == '(':
		e.pos++
		v, err := e.sum()
		if err != nil {
			return nil, err
		}
		e.space()
		if e.pos >= len(e.src) || e.src[e.pos] != ')' {
			return nil, fmt.Errorf("the formula %q: unbalanced parentheses", e.src)
		}
		e.pos++
		return v, nil
	case c >= '0' && c <= '9':
		start := e.pos
		for e.pos < len(e.src) && e.src[e.pos] >= '0' && e.src[e.pos] <= '9' {
			e.pos++
		}
		lit := e.src[start:e.pos]
		if e.pos < len(e.src) && (amdIdentByte(e.src[e.pos]) || e.src[e.pos] == '.') || (len(lit) > 1 && lit[0] == '0') {
			return nil, fmt.Errorf("the formula %q: the number at %q is outside the arithmetic reproduced", e.src, e.src[start:])
		}
		v, _ := new(big.Int).SetString(lit, 10)
		return v, nil
	case c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
		start := e.pos
		for e.pos < len(e.src) && amdIdentByte(e.src[e.pos]) {
			e.pos++
		}
		name := e.src[start:e.pos]
		switch name {
		case "True", "False", "None", "and", "or", "not", "in", "is", "if", "else", "lambda", "await", "yield":
			return nil, fmt.Errorf("the formula %q: %s is outside the arithmetic reproduced", e.src, name)
		}
		e.space()
		if e.pos < len(e.src) && (e.src[e.pos] == '(' || e.src[e.pos] == '.' || e.src[e.pos] == '[') {
			return nil, fmt.Errorf("the formula %q: a call, attribute or subscript is outside the arithmetic reproduced", e.src)
		}
		val, ok := "", false
		if e.getenv != nil {
			val, ok = e.getenv(name)
		}
		if !ok {
			if e.perr == "" {
				e.perr = "name '" + name + "' is not defined"
			}
			return nil, nil
		}
		n, isInt, err := amdPyInt(val)
		if err != nil {
			return nil, fmt.Errorf("the formula %q: %s=%q: %v", e.src, name, val, err)
		}
		if !isInt {
			// not in the namespace: int() of it raised ValueError
			if e.perr == "" {
				e.perr = "name '" + name + "' is not defined"
			}
			return nil, nil
		}
		return n, nil
	}
	return nil, fmt.Errorf("the formula %q: %q is outside the arithmetic reproduced", e.src, e.src[e.pos:])
}

func amdIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// amdPyInt is Python's int(s) of an environment value: whitespace
// around, a sign, decimal digits with single underscores between them
// (leading zeros allowed). isInt false: int() raises ValueError. Error: s
// holds non-ASCII text (Unicode digits and spaces are not reproduced).
func amdPyInt(s string) (*big.Int, bool, error) {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return nil, false, fmt.Errorf("non-ASCII text (Python's int() of it is not reproduced)")
		}
	}
	t := strings.Trim(s, " \t\n\r\v\f\x1c\x1d\x1e\x1f")
	sign := ""
	if t != "" && (t[0] == '+' || t[0] == '-') {
		sign, t = t[:1], t[1:]
	}
	if t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return nil, false, nil
	}
	for i := 0; i < len(t); i++ {
		if (t[i] < '0' || t[i] > '9') && t[i] != '_' {
			return nil, false, nil
		}
	}
	n, ok := new(big.Int).SetString(sign+strings.ReplaceAll(t, "_", ""), 10)
	return n, ok, nil
}
