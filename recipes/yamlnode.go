package recipes

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"

	"go.yaml.in/yaml/v3"
)

// This file holds small accessors over go.yaml.in/yaml/v3 nodes. The recipes
// site loads YAML with js-yaml (YAML 1.2 core schema, map order kept); the
// node tree keeps the same order and gives every value its line:column.

// deref follows aliases and unwraps a document node.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 64; i++ {
		switch n.Kind {
		case yaml.AliasNode:
			n = n.Alias
		case yaml.DocumentNode:
			if len(n.Content) == 0 {
				return nil
			}
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

// get returns the value of key in mapping n (the last one when a key
// repeats), or nil.
func get(n *yaml.Node, key string) *yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			out = deref(n.Content[i+1])
		}
	}
	return out
}

// getPath follows a chain of mapping keys.
func getPath(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		n = get(n, k)
		if n == nil {
			return nil
		}
	}
	return n
}

// pair is one key/value of a mapping in document order.
type pair struct {
	key string
	val *yaml.Node
	kn  *yaml.Node
}

// pairs returns the entries of mapping n in order; a repeated key keeps its
// first position and its last value (like a JavaScript object).
func pairs(n *yaml.Node) []pair {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]pair, 0, len(n.Content)/2)
	idx := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		v := deref(n.Content[i+1])
		if j, ok := idx[k]; ok {
			out[j].val = v
			continue
		}
		idx[k] = len(out)
		out = append(out, pair{key: k, val: v, kn: n.Content[i]})
	}
	return out
}

// seq returns the items of sequence n, or nil.
func seq(n *yaml.Node) []*yaml.Node {
	n = deref(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = deref(c)
	}
	return out
}

func isMap(n *yaml.Node) bool { n = deref(n); return n != nil && n.Kind == yaml.MappingNode }
func isSeq(n *yaml.Node) bool { n = deref(n); return n != nil && n.Kind == yaml.SequenceNode }

// isNull reports an absent value, `~`, `null` or an empty value.
func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// str returns the text of a string scalar.
func str(n *yaml.Node) (string, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return "", false
	}
	return n.Value, true
}

// strOr returns the string value of n or def.
func strOr(n *yaml.Node, def string) string {
	if s, ok := str(n); ok {
		return s
	}
	return def
}

// num returns a numeric scalar as float64.
func num(n *yaml.Node) (float64, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, false
	}
	switch n.ShortTag() {
	case "!!int":
		v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		if err != nil {
			return 0, false
		}
		return float64(v), true
	case "!!float":
		v, err := strconv.ParseFloat(n.Value, 64)
		if err != nil {
			return 0, false
		}
		return v, true
	}
	return 0, false
}

// truthy mirrors JavaScript truthiness of a loaded YAML value.
func truthy(n *yaml.Node) bool {
	n = deref(n)
	if isNull(n) {
		return false
	}
	if n.Kind != yaml.ScalarNode {
		return true
	}
	switch n.ShortTag() {
	case "!!str":
		return n.Value != ""
	case "!!bool":
		return n.Value == "true" || n.Value == "True" || n.Value == "TRUE"
	case "!!int", "!!float":
		v, ok := num(n)
		return ok && v != 0 && !math.IsNaN(v)
	}
	return true
}

// isFalse reports the boolean false.
func isFalse(n *yaml.Node) bool {
	n = deref(n)
	return n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" && !truthy(n)
}

// containsStr reports whether sequence n has the string s.
func containsStr(n *yaml.Node, s string) bool {
	for _, c := range seq(n) {
		if v, ok := str(c); ok && v == s {
			return true
		}
	}
	return false
}

// pos renders a node position as "file:line:col".
func pos(file string, n *yaml.Node) string {
	if n == nil {
		return file
	}
	return fmt.Sprintf("%s:%d:%d", file, n.Line, n.Column)
}

// parseYAML parses data into a node tree; errors carry file:line:col.
func parseYAML(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(file, data, err)
	}
	return &doc, nil
}

// yamlError rewrites a yaml.v3 error as a *launch.InputError at
// file:line:col (launch.YAMLErrorPos: the line yaml.v3 names, column 1;
// an unknown anchor at its alias, an unexpected end of stream without a
// line at the end of data; 1:1 when nothing places it).
func yamlError(file string, data []byte, err error) error {
	if ye, ok := err.(*yaml.TypeError); ok && len(ye.Errors) > 0 {
		return fmt.Errorf("%s: %s", launch.QuotePath(file), strings.Join(ye.Errors, "; "))
	}
	line, col, msg := launch.YAMLErrorPos(data, err.Error())
	if line == 0 {
		line, col = 1, 1
	}
	if strings.HasPrefix(strings.TrimPrefix(err.Error(), "yaml: "), "line ") {
		col = 1 // this package's convention for the lines yaml.v3 names
	}
	return &launch.InputError{File: file, Line: line, Col: col, Msg: msg}
}
