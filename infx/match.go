package infx

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"go.yaml.in/yaml/v3"
)

var zipSelRE = regexp.MustCompile(`^(zip_override_[^\[\]]+)\[(\d+)\]$`)

// matchVariant picks the one variant of a bundle that fits a point whose
// row names no selector (new layout infx/srt_slurm/single_node.py: match by
// TP, CONC and KV_OFFLOADING): a variant fits when each of its effective
// values that is set agrees with the point. Errors: none or several fit.
func (ws *Workspace) matchVariant(p Point, sels []string) (string, error) {
	data, err := launch.ReadInput(p.Recipe)
	if err != nil {
		return "", refErr(p, err)
	}
	name := p.Recipe
	root, err := parseYAML(name, data)
	if err != nil {
		return "", err
	}
	kv := p.KVOffloading
	if kv == "" {
		kv = "none"
	}
	want := []struct {
		paths [][]string
		val   string
	}{
		{[][]string{{"benchmark", "env", "CONC"}}, strconv.Itoa(p.Concurrency)},
		{[][]string{{"benchmark", "env", "KV_OFFLOADING"}}, kv},
		{[][]string{
			{"roles", "agg", "args", "tensor-parallel-size"}, {"roles", "agg", "args", "tp-size"}, {"roles", "agg", "args", "tp"},
			{"backend", "sglang_config", "aggregated", "tensor-parallel-size"}, {"backend", "vllm_config", "aggregated", "tensor-parallel-size"},
		}, strconv.Itoa(p.TP)},
	}
	var fits []string
	for _, sel := range sels {
		ok := true
		for _, w := range want {
			if w.val == "0" {
				continue
			}
			for _, path := range w.paths {
				if v, set := variantValue(root, sel, path); set && v != w.val {
					ok = false
				}
			}
		}
		if ok {
			fits = append(fits, sel)
		}
	}
	if len(fits) != 1 && ws.Layout == LayoutOld {
		// srtctl apply -f FILE without a selector submits every variant
		// as its own job (NVIDIA/srt-slurm src/srtctl/cli/submit.py;
		// shared/spec/srt-slurm.md §8.1): not bad input, but the point
		// cannot be tied to one of them.
		return "", &PointError{Status: StatusAmbiguous, Pos: p.RefPos, Note: fmt.Sprintf(
			"CONFIG_FILE names no variant of %s, so srtctl apply submits each of its %d variants as a job, and %d of them fit TP=%d CONC=%d KV_OFFLOADING=%s: the point cannot be tied to one",
			ws.rel(name), len(sels), len(fits), p.TP, p.Concurrency, kv)}
	}
	if len(fits) != 1 {
		return "", &PosError{File: p.RefPos.File, Line: p.RefPos.Line, Col: p.RefPos.Col,
			Err: fmt.Errorf("%s: row names no variant and %d of %v fit TP=%d CONC=%d KV_OFFLOADING=%s (want exactly one; write file.yaml:<selector>)", name, len(fits), sels, p.TP, p.Concurrency, kv)}
	}
	return fits[0], nil
}

// variantValue is the scalar at path in variant sel of a bundle: the
// variant section's value (for zip_override_<g>[i] a list value gives its
// i-th element, a length-1 list or scalar broadcasts), else base's.
func variantValue(root *yaml.Node, sel string, path []string) (string, bool) {
	section, idx := sel, -1
	if m := zipSelRE.FindStringSubmatch(sel); m != nil {
		section = m[1]
		idx, _ = strconv.Atoi(m[2])
	}
	if n := lookupPath(mapGet(root, section), path); n != nil {
		if n.Kind == yaml.SequenceNode && idx >= 0 {
			switch {
			case len(n.Content) == 1:
				n = n.Content[0]
			case idx < len(n.Content):
				n = n.Content[idx]
			default:
				return "", false
			}
		}
		if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
			return strings.TrimSpace(n.Value), true
		}
		return "", false
	}
	if n := lookupPath(mapGet(root, "base"), path); n != nil && n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return strings.TrimSpace(n.Value), true
	}
	return "", false
}

func lookupPath(n *yaml.Node, path []string) *yaml.Node {
	for _, k := range path {
		n = resolveAlias(mapGet(resolveAlias(n), k))
		if n == nil {
			return nil
		}
	}
	return n
}
