package signoff

import (
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
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

// TestFileChanges: a changed file a process reads is named with its first
// differing line; added and removed files by path; long lines clipped at a
// character boundary.
func TestFileChanges(t *testing.T) {
	a := []launch.FileContent{{Path: "/b/recipes/mooncake.yaml", Content: "a: 1\nglobal_segment_size: 20gb\n"}, {Path: "/b/old.yaml", Content: "x"}}
	b := []launch.FileContent{{Path: "/h/recipes/mooncake.yaml", Content: "a: 1\nglobal_segment_size: 40gb\n"}, {Path: "/h/new.yaml", Content: "y"}}
	got := fileChanges("agg", a, b, "/b", "/h")
	want := []string{
		"agg: file recipes/mooncake.yaml: global_segment_size: 20gb → global_segment_size: 40gb",
		"agg: file new.yaml added",
		"agg: file old.yaml removed",
	}
	if !slices.Equal(got, want) {
		t.Errorf("changes:\n%q\nwant\n%q", got, want)
	}
	if c := report.ClipEnd(strings.Repeat("é", 100), 121); c != strings.Repeat("é", 60)+"…" {
		t.Errorf("clip: %q", c)
	}
}
