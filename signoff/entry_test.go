package signoff

import (
	"testing"

	"github.com/cookbook-sync/cookbook-sync/infx"
)

// TestCanonicalEntryLeavesPositionsOut: a master entry read from two
// materialized commits (two directories) is the same entry when only the
// positions differ — the entry's and its worker blocks' settings' — and a
// different one when a value differs (before, every multi-node key with
// additional-settings was re-rendered at base for any commit).
func TestCanonicalEntryLeavesPositionsOut(t *testing.T) {
	entry := func(dir, value string, line int) *infx.Entry {
		pos := infx.Pos{File: dir + "/configs/nvidia-master.yaml", Line: line, Col: 3}
		return &infx.Entry{Key: "k", Framework: "dynamo-sglang", Multinode: true, Pos: pos,
			Rows: []infx.Row{{Index: 0, Concurrencies: []int{4}, Prefill: &infx.WorkerBlock{NumWorker: 1,
				AdditionalSettings: []infx.Setting{{Name: "CONFIG_FILE", Value: value, Pos: pos}}}}}}
	}
	a := canonicalEntry(entry("/tmp/base/InferenceX", "recipes/a.yaml", 10))
	b := canonicalEntry(entry("/tmp/head/InferenceX", "recipes/a.yaml", 12))
	if a != b {
		t.Errorf("same entry, other directory and line:\n%s\n%s", a, b)
	}
	if c := canonicalEntry(entry("/tmp/head/InferenceX", "recipes/b.yaml", 10)); c == a {
		t.Errorf("a changed setting value left the entry equal: %s", c)
	}
}
