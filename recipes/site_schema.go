package recipes

import (
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// This file checks the shape of the fields of a model recipe YAML that
// command synthesis reads (spec vllm-recipes.md §9.1 "Fields that synthesis
// reads"; vllm-project/recipes models/<org>/<repo>.yaml). The site would
// coerce a wrong shape silently (a nested list in base_args, an env value
// that is a list, `tp: eight`); we report it instead, so no deployment
// vanishes without a trace. Fields synthesis does not read, and unknown
// keys, are not checked: the format grows there ("Everything else is
// ignored").

// maxParallel bounds a TP size or GPU count: far above any node or cluster
// the recipes describe, far below int overflow.
const maxParallel = 1 << 16

// SchemaError is a recipe field of the wrong shape: File:Line:Col and the
// YAML Path of the value (`variants.default.tp`), and what was expected.
type SchemaError struct {
	File      string
	Line, Col int
	Path      string
	Msg       string
}

// Error is "file:line:col: yaml.path: message".
func (e *SchemaError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", e.File, e.Line, e.Col, e.Path, e.Msg)
}

// schemaCheck walks one recipe, keeping the first error.
type schemaCheck struct {
	file string
	err  *SchemaError
}

func (c *schemaCheck) fail(n *yaml.Node, path, format string, args ...any) {
	if c.err != nil {
		return
	}
	e := &SchemaError{File: c.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	c.err = e
}

// kindName names a node's shape for messages.
func kindName(n *yaml.Node) string {
	n = deref(n)
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.ShortTag() == "!!str":
		v := n.Value
		if len(v) > 40 {
			v = v[:37] + "..."
		}
		return "the string " + strconv.Quote(v)
	}
	return n.Value
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// mapping checks that n is null or a mapping and returns its pairs.
func (c *schemaCheck) mapping(n *yaml.Node, path string) []pair {
	if isNull(n) {
		return nil
	}
	if !isMap(n) {
		c.fail(deref(n), path, "want a mapping, got %s", kindName(n))
		return nil
	}
	return pairs(n)
}

// list checks that n is null or a list and returns its items.
func (c *schemaCheck) list(n *yaml.Node, path string) []*yaml.Node {
	if isNull(n) {
		return nil
	}
	if !isSeq(n) {
		c.fail(deref(n), path, "want a list, got %s", kindName(n))
		return nil
	}
	return seq(n)
}

// scalar checks that n is null or a scalar (string, number, boolean).
func (c *schemaCheck) scalar(n *yaml.Node, path string) {
	if isNull(n) {
		return
	}
	if d := deref(n); d.Kind != yaml.ScalarNode {
		c.fail(d, path, "want a scalar, got %s", kindName(d))
	}
}

// args checks an argument list: a list of scalar tokens (§9.3; every token
// is a string at HEAD).
func (c *schemaCheck) args(n *yaml.Node, path string) {
	for i, t := range c.list(n, path) {
		if !isNull(t) && t.Kind != yaml.ScalarNode {
			c.fail(t, fmt.Sprintf("%s[%d]", path, i), "want an argument token (a string), got %s", kindName(t))
		}
	}
}

// env checks an env object: NAME → scalar value (§9.7).
func (c *schemaCheck) env(n *yaml.Node, path string) {
	for _, p := range c.mapping(n, path) {
		if !isNull(p.val) && p.val.Kind != yaml.ScalarNode {
			c.fail(p.val, join(path, p.key), "want an env value (a string), got %s", kindName(p.val))
		}
	}
}

// count checks a TP size / GPU count: an integer in 1..maxParallel.
func (c *schemaCheck) count(n *yaml.Node, path string, min int) {
	if isNull(n) {
		return
	}
	d := deref(n)
	if d.Kind != yaml.ScalarNode || (d.ShortTag() != "!!int" && d.ShortTag() != "!!float") {
		c.fail(d, path, "want an integer, got %s", kindName(d))
		return
	}
	v, ok := num(d)
	if !ok || math.IsNaN(v) || v != math.Trunc(v) || v < float64(min) || v > maxParallel {
		c.fail(d, path, "want an integer from %d to %d, got %s", min, maxParallel, d.Value)
	}
}

// hwCount checks a value that is a count or a hw-keyed map of counts
// (§9.1 "Hw-keyed value of a map": variant tp, strategy_overrides tp).
func (c *schemaCheck) hwCount(n *yaml.Node, path string) {
	if isMap(n) {
		for _, p := range pairs(n) {
			c.count(p.val, join(path, p.key), 1)
		}
		return
	}
	c.count(n, path, 1)
}

// overrides checks a hardware_overrides map: key → {extra_args, extra_env}
// (argsKey "args" for feature overrides).
func (c *schemaCheck) overrides(n *yaml.Node, path, argsKey string) {
	for _, p := range c.mapping(n, path) {
		pp := join(path, p.key)
		c.mapping(p.val, pp)
		c.args(get(p.val, argsKey), join(pp, argsKey))
		c.env(get(p.val, "extra_env"), join(pp, "extra_env"))
	}
}

// checkRecipe checks the shape of every synthesis input of one model
// recipe (root: its top-level mapping). The error is a *SchemaError.
func checkRecipe(file string, root *yaml.Node) error {
	c := &schemaCheck{file: file}
	c.dupKeys(root, "", 0)
	c.mapping(get(root, "meta"), "meta")
	c.list(getPath(root, "meta", "tasks"), "meta.tasks")
	c.mapping(getPath(root, "meta", "hardware"), "meta.hardware")
	c.scalar(getPath(root, "meta", "default_hardware"), "meta.default_hardware")

	m := get(root, "model")
	c.mapping(m, "model")
	c.scalar(get(m, "model_id"), "model.model_id")
	c.args(get(m, "base_args"), "model.base_args")
	c.env(get(m, "base_env"), "model.base_env")

	for _, f := range c.mapping(get(root, "features"), "features") {
		fp := join("features", f.key)
		c.mapping(f.val, fp)
		c.args(get(f.val, "args"), join(fp, "args"))
		c.overrides(get(f.val, "hardware_overrides"), join(fp, "hardware_overrides"), "args")
		c.list(get(f.val, "strategies"), join(fp, "strategies"))
		for _, md := range c.mapping(get(f.val, "modes"), join(fp, "modes")) {
			mp := join(join(fp, "modes"), md.key)
			c.mapping(md.val, mp)
			c.args(get(md.val, "args"), join(mp, "args"))
			c.list(get(md.val, "variants"), join(mp, "variants"))
			c.mapping(get(md.val, "hardware"), join(mp, "hardware"))
			c.overrides(get(md.val, "hardware_overrides"), join(mp, "hardware_overrides"), "args")
		}
	}
	c.list(get(root, "opt_in_features"), "opt_in_features")
	for _, p := range c.mapping(get(root, "hardware_opt_in_features"), "hardware_opt_in_features") {
		c.list(p.val, join("hardware_opt_in_features", p.key))
	}

	for _, v := range c.mapping(get(root, "variants"), "variants") {
		vp := join("variants", v.key)
		c.mapping(v.val, vp)
		c.scalar(get(v.val, "model_id"), join(vp, "model_id"))
		c.scalar(get(v.val, "precision"), join(vp, "precision"))
		c.hwCount(get(v.val, "tp"), join(vp, "tp"))
		if vm := get(v.val, "vram_minimum_gb"); !isNull(vm) {
			if _, ok := num(vm); !ok {
				c.fail(vm, join(vp, "vram_minimum_gb"), "want a number, got %s", kindName(vm))
			}
		}
		c.list(get(v.val, "supported_hardware"), join(vp, "supported_hardware"))
		c.args(get(v.val, "extra_args"), join(vp, "extra_args"))
		c.env(get(v.val, "extra_env"), join(vp, "extra_env"))
		c.mapping(get(v.val, "default_modes"), join(vp, "default_modes"))
		c.overrides(get(v.val, "hardware_overrides"), join(vp, "hardware_overrides"), "extra_args")
	}

	c.list(get(root, "compatible_strategies"), "compatible_strategies")
	c.scalar(get(root, "default_strategy"), "default_strategy")
	c.mapping(get(root, "strategy_hardware"), "strategy_hardware")
	c.minGPUs(get(root, "strategy_min_gpus"), "strategy_min_gpus")
	c.overrides(get(root, "hardware_overrides"), "hardware_overrides", "extra_args")

	for _, s := range c.mapping(get(root, "strategy_overrides"), "strategy_overrides") {
		sp := join("strategy_overrides", s.key)
		c.mapping(s.val, sp)
		c.stratBlock(s.val, sp)
		c.list(get(s.val, "pool_modes"), join(sp, "pool_modes"))
		c.mapping(get(s.val, "router"), join(sp, "router"))
		for _, role := range []string{"prefill", "decode"} {
			rp := join(sp, role)
			c.mapping(get(s.val, role), rp)
			c.stratBlock(get(s.val, role), rp)
		}
	}
	if c.err != nil {
		return c.err
	}
	return nil
}

// stratBlock checks the args/env/tp of a strategy_overrides entry or of
// its prefill/decode role.
func (c *schemaCheck) stratBlock(n *yaml.Node, path string) {
	c.args(get(n, "extra_args"), join(path, "extra_args"))
	c.args(get(n, "vllm_args"), join(path, "vllm_args"))
	c.env(get(n, "env"), join(path, "env"))
	c.env(get(n, "extra_env"), join(path, "extra_env"))
	c.hwCount(get(n, "tp"), join(path, "tp"))
	c.scalar(get(n, "parallel_flag"), join(path, "parallel_flag"))
	c.overrides(get(n, "hardware_overrides"), join(path, "hardware_overrides"), "extra_args")
}

// minGPUs checks strategy_min_gpus: a count, or a map (strategy key or hw
// id) of counts or of such maps (§9.2 step 4).
func (c *schemaCheck) minGPUs(n *yaml.Node, path string) {
	if isMap(n) {
		for _, p := range pairs(n) {
			c.minGPUs(p.val, join(path, p.key))
		}
		return
	}
	c.count(n, path, 0)
}

// dupKeys reports a mapping key that repeats: the site loads recipes with
// js-yaml, whose load() throws "duplicated mapping key", so such a file
// never builds. Aliases are not followed (their target is checked where it
// is defined).
func (c *schemaCheck) dupKeys(n *yaml.Node, path string, depth int) {
	if n == nil || c.err != nil || depth > 200 {
		return
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, x := range n.Content {
			c.dupKeys(x, path, depth+1)
		}
	case yaml.SequenceNode:
		for i, x := range n.Content {
			c.dupKeys(x, fmt.Sprintf("%s[%d]", path, i), depth+1)
		}
	case yaml.MappingNode:
		seen := make(map[string]*yaml.Node, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if prev, dup := seen[k.Value]; dup && k.Kind == yaml.ScalarNode {
				c.fail(k, join(path, k.Value), "duplicated mapping key (first at line %d; the site's YAML loader refuses the file)", prev.Line)
				return
			}
			seen[k.Value] = k
			c.dupKeys(n.Content[i+1], join(path, k.Value), depth+1)
		}
	}
}
