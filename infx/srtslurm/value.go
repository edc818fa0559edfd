package srtslurm

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/internal/pyfmt"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"go.yaml.in/yaml/v3"
)

// Error is a recipe error with its position: the file, the 1-based line and
// column of the offending YAML node (0 when unknown) and the YAML path of the
// value (e.g. "base.resources.prefill_nodes").
type Error = launch.InputError

// src is where a value was written: its YAML path and position.
type src struct {
	Path      string
	Line, Col int // the value
	KLine     int // the key of a mapping entry
	KCol      int
}

// entry is one key of an ordered mapping.
type entry struct {
	Key string
	Val any
	Src src
}

// omap is an insertion-ordered mapping, like a Python dict loaded by PyYAML:
// a key set again keeps its first position.
type omap struct {
	entries []*entry
	idx     map[string]int
}

func newMap() *omap { return &omap{idx: map[string]int{}} }

func (m *omap) get(k string) (*entry, bool) {
	if m == nil {
		return nil, false
	}
	i, ok := m.idx[k]
	if !ok {
		return nil, false
	}
	return m.entries[i], true
}

func (m *omap) set(k string, v any, s src) {
	if i, ok := m.idx[k]; ok {
		m.entries[i].Val = v
		m.entries[i].Src = s
		return
	}
	m.idx[k] = len(m.entries)
	m.entries = append(m.entries, &entry{Key: k, Val: v, Src: s})
}

func (m *omap) del(k string) {
	i, ok := m.idx[k]
	if !ok {
		return
	}
	m.entries = append(m.entries[:i], m.entries[i+1:]...)
	delete(m.idx, k)
	for j := i; j < len(m.entries); j++ {
		m.idx[m.entries[j].Key] = j
	}
}

func (m *omap) len() int {
	if m == nil {
		return 0
	}
	return len(m.entries)
}

// bigInt is a Python int that does not fit in int64, kept as decimal text.
type bigInt string

// sexagesimal / int / float patterns of PyYAML's YAML 1.1 resolver
// (pyyaml lib/yaml/resolver.py, Resolver.add_implicit_resolver).
var (
	reInt   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	reFloat = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
)

// resolvePlain resolves a plain (unquoted, untagged) scalar the way PyYAML's
// SafeLoader does (YAML 1.1): null, bool, int (octal, hex, binary,
// sexagesimal, underscores), float (dot required, signed exponent), else str.
func resolvePlain(s string) any {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return nil
	case "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true
	case "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return false
	}
	// like PyYAML, only try the numeric resolvers for their first characters
	if !strings.ContainsRune("0123456789+-.", rune(s[0])) {
		return s
	}
	switch {
	case reInt.MatchString(s):
		return constructInt(s)
	case reFloat.MatchString(s):
		return constructFloat(s)
	case reTimestamp.MatchString(s):
		return constructTimestamp(s)
	}
	return s
}

// pyDate is a YAML 1.1 timestamp as Python's str() prints the
// datetime.date / datetime.datetime PyYAML constructs.
type pyDate string

var reTimestamp = regexp.MustCompile(`^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$`)

var reTimestampParts = regexp.MustCompile(`^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$`)

// constructTimestamp mirrors PyYAML construct_yaml_timestamp + str().
func constructTimestamp(s string) any {
	m := reTimestampParts.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	atoi := func(x string) int { n, _ := strconv.Atoi(x); return n }
	out := fmt.Sprintf("%04d-%02d-%02d", atoi(m[1]), atoi(m[2]), atoi(m[3]))
	if m[4] == "" {
		return pyDate(out)
	}
	out += fmt.Sprintf(" %02d:%02d:%02d", atoi(m[4]), atoi(m[5]), atoi(m[6]))
	if frac := m[7]; frac != "" {
		if len(frac) > 6 {
			frac = frac[:6]
		}
		frac += strings.Repeat("0", 6-len(frac))
		if frac != "000000" {
			out += "." + frac
		}
	}
	switch {
	case m[8] == "Z":
		out += "+00:00"
	case m[9] != "":
		out += fmt.Sprintf("%s%02d:%02d", m[9], atoi(m[10]), atoi(m[11]))
	}
	return pyDate(out)
}

// constructInt mirrors PyYAML SafeConstructor.construct_yaml_int.
func constructInt(s string) any {
	v := strings.ReplaceAll(s, "_", "")
	sign := 1
	if v != "" && (v[0] == '-' || v[0] == '+') {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	n := new(big.Int)
	switch {
	case v == "0":
	case strings.HasPrefix(v, "0b"):
		n.SetString(v[2:], 2)
	case strings.HasPrefix(v, "0x"):
		n.SetString(v[2:], 16)
	case strings.HasPrefix(v, "0"):
		n.SetString(v[1:], 8)
	case strings.Contains(v, ":"):
		base := big.NewInt(1)
		parts := strings.Split(v, ":")
		for i := len(parts) - 1; i >= 0; i-- {
			d, _ := new(big.Int).SetString(parts[i], 10)
			n.Add(n, new(big.Int).Mul(d, base))
			base.Mul(base, big.NewInt(60))
		}
	default:
		n.SetString(v, 10)
	}
	if sign < 0 {
		n.Neg(n)
	}
	if n.IsInt64() {
		return n.Int64()
	}
	return bigInt(n.String())
}

// constructFloat mirrors PyYAML SafeConstructor.construct_yaml_float.
func constructFloat(s string) any {
	v := strings.ToLower(strings.ReplaceAll(s, "_", ""))
	sign := 1.0
	if v != "" && (v[0] == '-' || v[0] == '+') {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	switch {
	case v == ".inf":
		return sign * math.Inf(1)
	case v == ".nan":
		return math.NaN()
	case strings.Contains(v, ":"):
		parts := strings.Split(v, ":")
		base := 1.0
		val := 0.0
		for i := len(parts) - 1; i >= 0; i-- {
			d, _ := strconv.ParseFloat(parts[i], 64)
			val += d * base
			base *= 60
		}
		return sign * val
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		// Python's float() accepts "1." and ".5"; ParseFloat accepts them too,
		// so this only happens on overflow, where Python gives inf.
		if strings.Contains(err.Error(), "range") {
			return sign * math.Inf(1)
		}
		return s
	}
	return sign * f
}

// decoder turns a yaml.v3 node tree into PyYAML-equivalent values.
type decoder struct {
	file  string
	depth int
	nodes int // values built so far (bounds alias expansion)
}

// maxValues bounds the values one document may expand to (aliases can
// make a small file expand exponentially).
const maxValues = 1_000_000

func (d *decoder) errf(n *yaml.Node, path, format string, args ...any) error {
	return &Error{File: d.file, Line: n.Line, Col: n.Column, Path: path, Msg: fmt.Sprintf(format, args...)}
}

func joinPath(base, key string) string {
	if base == "" {
		return key
	}
	return base + "." + key
}

// value converts node n at YAML path p.
func (d *decoder) value(n *yaml.Node, p string) (any, error) {
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > 200 {
		return nil, d.errf(n, p, "YAML nested too deeply")
	}
	d.nodes++
	if d.nodes > maxValues {
		return nil, d.errf(n, p, "YAML document expands to more than %d values (alias expansion?)", maxValues)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return d.value(n.Content[0], p)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, d.errf(n, p, "unknown alias")
		}
		return d.value(n.Alias, p)
	case yaml.ScalarNode:
		return d.scalar(n, p)
	case yaml.SequenceNode:
		if n.Tag != "" && n.Tag != "!!seq" && n.Tag != "!" {
			return nil, d.errf(n, p, "unsupported tag %s on a sequence", n.Tag)
		}
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := d.value(c, fmt.Sprintf("%s[%d]", p, i))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		if n.Tag != "" && n.Tag != "!!map" && n.Tag != "!" {
			return nil, d.errf(n, p, "unsupported tag %s on a mapping", n.Tag)
		}
		m := newMap()
		// merge keys (<<) first give defaults, explicit keys win.
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, vn := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Style == 0 && (k.Tag == "" || k.Tag == "!!merge") {
				if err := d.merge(m, vn, p); err != nil {
					return nil, err
				}
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, vn := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Value == "<<" && k.Style == 0 && (k.Tag == "" || k.Tag == "!!merge") {
				continue
			}
			if k.Kind != yaml.ScalarNode {
				return nil, d.errf(k, p, "mapping key must be a scalar")
			}
			kv, err := d.scalar(k, p)
			if err != nil {
				return nil, err
			}
			key := pyStr(kv)
			cp := joinPath(p, key)
			v, err := d.value(vn, cp)
			if err != nil {
				return nil, err
			}
			m.set(key, v, src{Path: cp, Line: vn.Line, Col: vn.Column, KLine: k.Line, KCol: k.Column})
		}
		return m, nil
	}
	return nil, d.errf(n, p, "unsupported YAML node")
}

func (d *decoder) merge(m *omap, vn *yaml.Node, p string) error {
	var srcs []*yaml.Node
	if vn.Kind == yaml.AliasNode {
		vn = vn.Alias
	}
	switch vn.Kind {
	case yaml.MappingNode:
		srcs = []*yaml.Node{vn}
	case yaml.SequenceNode:
		srcs = vn.Content
	default:
		return d.errf(vn, p, "merge key << needs a mapping or a list of mappings")
	}
	for _, s := range srcs {
		v, err := d.value(s, p)
		if err != nil {
			return err
		}
		sm, ok := v.(*omap)
		if !ok {
			return d.errf(s, p, "merge key << needs a mapping or a list of mappings")
		}
		for _, e := range sm.entries {
			if _, has := m.get(e.Key); !has {
				m.set(e.Key, e.Val, e.Src)
			}
		}
	}
	return nil
}

func (d *decoder) scalar(n *yaml.Node, p string) (any, error) {
	if n.Style&yaml.TaggedStyle != 0 {
		switch n.Tag {
		case "!!str", "!":
			return n.Value, nil
		case "!!null":
			return nil, nil
		case "!!bool":
			if v, ok := resolvePlain(n.Value).(bool); ok {
				return v, nil
			}
		case "!!int":
			if reInt.MatchString(n.Value) {
				return constructInt(n.Value), nil
			}
		case "!!float":
			if reFloat.MatchString(n.Value) || reInt.MatchString(n.Value) {
				return constructFloat(n.Value), nil
			}
		default:
			return n.Value, nil
		}
		return nil, d.errf(n, p, "cannot read %q as %s", n.Value, n.Tag)
	}
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return n.Value, nil
	}
	return resolvePlain(n.Value), nil
}

// parseYAML parses src as one YAML document into PyYAML-equivalent values.
func parseYAML(file string, data []byte) (any, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil && err != io.EOF {
		return nil, yamlSyntaxError(file, data, err)
	}
	// PyYAML safe_load accepts exactly one document.
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, &Error{File: file, Line: next.Line, Col: next.Column, Msg: "expected a single YAML document, found another one"}
	} else if err != io.EOF {
		return nil, yamlSyntaxError(file, data, err)
	}
	if root.Kind == 0 {
		return nil, nil // empty document: PyYAML gives None
	}
	d := &decoder{file: file}
	return d.value(&root, "")
}

var reYAMLLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlSyntaxError places a go.yaml.in/yaml/v3 error: its "line N" (the
// column is that of the line's first non-blank character, yaml.v3 gives
// none), or, for an encoding error, which yaml.v3 reports without a line,
// the first byte that is not UTF-8.
func yamlSyntaxError(file string, data []byte, err error) error {
	msg := err.Error()
	if m := reYAMLLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: file, Line: line, Col: firstNonBlank(data, line), Msg: "YAML syntax error: " + m[2]}
	}
	msg = "YAML syntax error: " + strings.TrimPrefix(msg, "yaml: ")
	if line, col, ok := launch.InvalidUTF8(data); ok {
		return &Error{File: file, Line: line, Col: col, Msg: msg}
	}
	return &Error{File: file, Msg: msg}
}

// firstNonBlank is the 1-based column of the first non-blank character of
// 1-based line (1 when the line is blank or out of range).
func firstNonBlank(data []byte, line int) int {
	lines := bytes.SplitN(data, []byte("\n"), line+1)
	if line < 1 || line > len(lines) {
		return 1
	}
	l := lines[line-1]
	return utf8.RuneCount(l[:len(l)-len(bytes.TrimLeft(l, " \t"))]) + 1
}

// ---- Python str() / repr() of loaded values ----

// pyStr is Python's str(v) for a PyYAML-loaded value.
func pyStr(v any) string {
	switch x := v.(type) {
	case string:
		return x
	default:
		return pyRepr(v)
	}
}

// pyRepr is Python's repr(v).
func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case bigInt:
		return string(x)
	case pyDate:
		return string(x)
	case float64:
		return pyFloat(x)
	case string:
		return pyStrRepr(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *omap:
		parts := make([]string, 0, x.len())
		for _, e := range x.entries {
			parts = append(parts, pyStrRepr(e.Key)+": "+pyRepr(e.Val))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// pyFloat is Python's repr(float) (pyfmt.FloatRepr).
var pyFloat = pyfmt.FloatRepr

// pyStrRepr is Python's repr(str).
func pyStrRepr(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, "\"") {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// deepCopy copies maps and lists (scalars are immutable).
func deepCopy(v any) any {
	switch x := v.(type) {
	case *omap:
		m := &omap{entries: make([]*entry, 0, len(x.entries)), idx: make(map[string]int, len(x.entries))}
		for _, e := range x.entries {
			m.set(e.Key, deepCopy(e.Val), e.Src)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// deepMerge merges over into base in place (base must be a private copy):
// dicts merge recursively, everything else (lists included) replaces, a
// null deletes the key, new keys are appended. Source: NVIDIA/srt-slurm
// src/srtctl/core/config.py deep_merge.
func deepMerge(base, over *omap) {
	for _, e := range over.entries {
		if e.Val == nil {
			base.del(e.Key)
			continue
		}
		if om, ok := e.Val.(*omap); ok {
			if be, ok := base.get(e.Key); ok {
				if bm, ok := be.Val.(*omap); ok {
					deepMerge(bm, om)
					continue
				}
			}
		}
		base.set(e.Key, deepCopy(e.Val), e.Src)
	}
}
