package infx

import (
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"go.yaml.in/yaml/v3"
)

// compose merges the point's lane blocks (configs/srt-recipes/…) under the
// recipe fragment and binds their ${…} placeholders, as the new layout's
// infx/srt_slurm/workload.py does before srtctl sees the recipe: mappings
// merge recursively, anything else (lists included) is taken from the
// fragment; for a bundle (top-level base:) the blocks go under base. It
// returns the composed YAML.
func (ws *Workspace) compose(p Point, name string, fragment []byte) ([]byte, error) {
	frag, err := parseYAML(name, fragment)
	if err != nil {
		return nil, err
	}
	if frag.Kind != yaml.MappingNode {
		return nil, posErr(name, frag, "recipe: want a mapping, got a %s", kindName(frag))
	}
	target := frag
	if b := resolveAlias(mapGet(frag, "base")); b != nil && b.Kind == yaml.MappingNode {
		target = b
	}
	vars := map[string]string{
		"MODEL": p.Model, "IMAGE": p.Image, "PRECISION": p.Precision,
		"ISL": strconv.Itoa(p.ISL), "OSL": strconv.Itoa(p.OSL), "CONC": strconv.Itoa(p.Concurrency),
		"CONCURRENCIES": strconv.Itoa(p.Concurrency), "CONC_LIST": strconv.Itoa(p.Concurrency),
	}
	for _, lb := range p.LaneBlocks {
		data, err := launch.ReadInput(lb)
		if err != nil {
			return nil, err
		}
		block, err := parseYAML(lb, data)
		if err != nil {
			return nil, err
		}
		if block.Kind != yaml.MappingNode {
			return nil, posErr(lb, block, "lane block: want a mapping, got a %s", kindName(block))
		}
		bind(block, vars)
		mergeUnder(target, block)
	}
	return yaml.Marshal(frag)
}

// mergeUnder adds to dst every key of under that dst lacks; keys both have
// are merged recursively when both values are mappings, else dst wins.
func mergeUnder(dst, under *yaml.Node) {
	for i := 0; i+1 < len(under.Content); i += 2 {
		k, v := under.Content[i], under.Content[i+1]
		cur := mapGet(dst, k.Value)
		switch {
		case cur == nil:
			dst.Content = append(dst.Content, k, v)
		case cur.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
			mergeUnder(cur, v)
		}
	}
}

// bind replaces ${NAME} in scalar values with vars[NAME].
func bind(n *yaml.Node, vars map[string]string) {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${") {
		for k, v := range vars {
			n.Value = strings.ReplaceAll(n.Value, "${"+k+"}", v)
		}
		return
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			continue
		}
		bind(c, vars)
	}
}
