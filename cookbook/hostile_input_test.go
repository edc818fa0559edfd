package cookbook

import (
	"errors"
	"strings"
	"testing"
)

// TestHostileNegativeCounts: a negative workers, count, count_nodes,
// nodes_per_worker (block) or gpus (cell) is bad input with file:line:col
// and its JSON path, never a deployment with a negative multiplicity.
func TestHostileNegativeCounts(t *testing.T) {
	const block = `{"kind": "worker", "role": "agg", "cmd": "python3 -m sglang.launch_server", "envRef": 0, "args": [["--port", "30000"]]}`
	cases := []struct {
		name, old, new string
		want           []string
	}{
		{"workers", block, strings.Replace(block, `"role": "agg"`, `"role": "agg", "workers": -2`, 1),
			[]string{"bad.jsx:14:40:", "cells[0].routers.sglang.blocks[0].workers", "negative workers -2"}},
		{"count", block, strings.Replace(block, `"role": "agg"`, `"role": "agg", "count": -1`, 1),
			[]string{"bad.jsx:14:40:", "cells[0].routers.sglang.blocks[0].count", "negative count -1"}},
		{"count_nodes", block, strings.Replace(block, `"role": "agg"`, `"role": "agg", "count_nodes": -3`, 1),
			[]string{"bad.jsx:14:40:", "blocks[0].count_nodes", "negative count_nodes -3"}},
		{"nodes_per_worker", block, strings.Replace(block, `"role": "agg"`, `"role": "agg", "nodes_per_worker": -1`, 1),
			[]string{"bad.jsx:14:40:", "blocks[0].nodes_per_worker", "negative nodes_per_worker -1"}},
		{"gpus", `{"id": "c0", "hw": "b200"`, `{"id": "c0", "gpus": -8, "hw": "b200"`,
			[]string{"bad.jsx:9:", "cells[0].gpus", "negative GPU count -8"}},
		{"delta override", `{"ref": [0, "sglang", 0]}`, `{"ref": [0, "sglang", 0], "workers": -1}`,
			[]string{"bad.jsx:20:32:", "cells[1].routers.sglang.blocks[0].workers", "negative workers -1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(minimal, c.old, c.new, 1)
			if src == minimal {
				t.Fatal("fixture not mutated")
			}
			_, err := Parse("bad.jsx", []byte(src))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v, want *Error", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// Zero (absent) and positive counts still parse.
	ok := strings.Replace(minimal, block, strings.Replace(block, `"role": "agg"`, `"role": "agg", "workers": 2, "count": 0`, 1), 1)
	if _, err := Parse("ok.jsx", []byte(ok)); err != nil {
		t.Errorf("positive counts: %v", err)
	}
}

// TestHostileANSIFileName: a snippet file name with terminal escapes is
// printed quoted in every error.
func TestHostileANSIFileName(t *testing.T) {
	_, err := Parse("evil\x1b[2J.jsx", []byte("export const agentx = [1];\n"))
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) || !strings.HasPrefix(err.Error(), `"evil\x1b[2J.jsx":1:23: `) {
		t.Errorf("error %q: want the name quoted, no raw ESC", err)
	}
}
