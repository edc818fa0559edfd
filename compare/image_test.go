package compare

import (
	"slices"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TestCompareWorkerImage: an engine worker's image is compared when both
// sides state one; a digest counts only when both give one; a side that
// states none leaves it uncompared.
func TestCompareWorkerImage(t *testing.T) {
	w := func(img string) launch.Process {
		return launch.Process{Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "python3 -m sglang.launch_server", Image: img,
			Args: args("--tensor-parallel-size", "8")}
	}
	for _, c := range []struct {
		cb, rc  string
		verdict Verdict
		diffs   []string
	}{
		{"lmsysorg/sglang:v0.5.16-cu130", "lmsysorg/sglang:v0.5.16-cu130", Covered, nil},
		{"lmsysorg/sglang:v0.5.16-cu130@sha256:abc", "lmsysorg/sglang:v0.5.16-cu130", Covered, nil},
		{"docker://lmsysorg/sglang:v0.5.16-cu130", "lmsysorg/sglang:v0.5.16-cu130", Covered, nil},
		{"lmsysorg/sglang:v0.5.16-cu130@sha256:abc", "lmsysorg/sglang:v0.5.16-cu130@sha256:def", Differs,
			[]string{"image: upstream lmsysorg/sglang:v0.5.16-cu130@sha256:abc, inferencex lmsysorg/sglang:v0.5.16-cu130@sha256:def"}},
		{"lmsysorg/sglang:v0.5.16-cu130", "dynamo-sglang-mut", Differs,
			[]string{"image: upstream lmsysorg/sglang:v0.5.16-cu130, inferencex dynamo-sglang-mut:latest"}},
		{"lmsysorg/sglang:v0.5.16-cu130", "", Covered, nil},
		{"", "lmsysorg/sglang:v0.5.17-cu130", Covered, nil},
	} {
		r := service(t, w(c.cb), w(c.rc), "agg")
		if got := diffText(r); r.Verdict != c.verdict || !slices.Equal(got, c.diffs) {
			t.Errorf("%q vs %q: verdict %s, diffs %q; want %s %q", c.cb, c.rc, r.Verdict, got, c.verdict, c.diffs)
		}
	}
}
