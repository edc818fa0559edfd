package infx

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"go.yaml.in/yaml/v3"
)

// parseYAML parses data (the contents of file) into its document node. A
// syntax error becomes a PosError: go.yaml.in/yaml/v3 reports only the line,
// so the column is that of the line's first non-blank character.
func parseYAML(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, yamlError(file, data, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &PosError{File: file, Line: 1, Col: 1, Err: errors.New("empty YAML document")}
	}
	return doc.Content[0], nil
}

// yamlError turns a go.yaml.in/yaml/v3 error into a PosError, always
// positioned (launch.YAMLErrorPos: yaml.v3 reports only the line, so the
// column is that of the line's first non-blank character; an unknown
// anchor is placed at its alias, an unexpected end of stream at the end).
func yamlError(file string, data []byte, err error) error {
	line, col, msg := launch.YAMLErrorPos(data, err.Error())
	return &PosError{File: file, Line: line, Col: col, Err: fmt.Errorf("YAML: %s", msg)}
}

// mapGet returns the value node of key in mapping node m, or nil.
func mapGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// mapKey returns the key node of key in mapping node m, or nil.
func mapKey(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return nil
}

// resolveAlias follows YAML aliases.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// nodeStr reads a scalar as a string.
func nodeStr(file string, n *yaml.Node, what string) (string, error) {
	n = resolveAlias(n)
	if n == nil {
		return "", nil
	}
	if n.Kind != yaml.ScalarNode {
		return "", posErr(file, n, "%s: want a scalar, got a %s", what, kindName(n))
	}
	if n.Tag == "!!null" {
		return "", nil
	}
	return n.Value, nil
}

// nodeInt reads a scalar as an int.
func nodeInt(file string, n *yaml.Node, what string) (int, error) {
	n = resolveAlias(n)
	if n == nil {
		return 0, nil
	}
	if n.Kind != yaml.ScalarNode {
		return 0, posErr(file, n, "%s: want an integer, got a %s", what, kindName(n))
	}
	if n.Tag == "!!null" {
		return 0, nil
	}
	v, err := strconv.Atoi(strings.ReplaceAll(n.Value, "_", ""))
	if err != nil {
		return 0, posErr(file, n, "%s: want an integer, got %q", what, n.Value)
	}
	return v, nil
}

// nodeFloat reads a scalar as a float.
func nodeFloat(file string, n *yaml.Node, what string) (float64, error) {
	n = resolveAlias(n)
	if n == nil {
		return 0, nil
	}
	if n.Kind != yaml.ScalarNode {
		return 0, posErr(file, n, "%s: want a number, got a %s", what, kindName(n))
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil {
		return 0, posErr(file, n, "%s: want a number, got %q", what, n.Value)
	}
	return v, nil
}

// nodeBool reads a scalar as a bool (YAML 1.1 spellings accepted).
func nodeBool(file string, n *yaml.Node, what string) (bool, error) {
	n = resolveAlias(n)
	if n == nil {
		return false, nil
	}
	if n.Kind != yaml.ScalarNode {
		return false, posErr(file, n, "%s: want a boolean, got a %s", what, kindName(n))
	}
	switch strings.ToLower(n.Value) {
	case "true", "yes", "on", "y":
		return true, nil
	case "false", "no", "off", "n", "", "~", "null":
		return false, nil
	}
	return false, posErr(file, n, "%s: want a boolean, got %q", what, n.Value)
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}
