package srtslurm

import "testing"

// TestProfileForCommits: a commit pin that is a release tag's commit (full
// or abbreviated) renders as the tag; a commit with a profile of its own
// renders as itself; anything else is not covered. The tag commits are
// checked against what InferenceX's launchers assert themselves
// (runners/launch_gb200-nv.sh: `test "$(git rev-parse HEAD)" =
// "e4019633…"` after cloning v1.0.50, "9d8d92b2…" for v1.0.45).
func TestProfileForCommits(t *testing.T) {
	for ref, want := range map[string]string{
		"c180328b98c3793ca84a1e24a030f90545eb7d5d": "v1.0.38",
		"c180328b": "v1.0.38",
		"c1b6b5c97f323baefad577d70c4e8392b6f537d9": "v1.0.29",
		"217f9438": "v1.0.53",
		"a98738de9b2233459b5456e9ed71af09ce893f92": "a98738de",
		"main":    "v1.0.68",
		"v1.0.44": "v1.0.44",
	} {
		if got, err := ProfileFor(ref); err != nil || got != want {
			t.Errorf("ProfileFor(%s) = %q, %v; want %q", ref, got, err, want)
		}
	}
	for _, ref := range []string{"deadbeef", "de59739b172e507e15ebf145bfe305f606e82fbf", "aflowers/gb200-dsv4-recipes"} {
		if got, err := ProfileFor(ref); err == nil {
			t.Errorf("ProfileFor(%s) = %q, want an error", ref, got)
		}
	}
	if TagCommit("v1.0.50") != "e4019633c9e2bc25f38c44b81edf52bb0504d937" || TagCommit("v1.0.45") != "9d8d92b20c350a5d42f0709f5a0b64e30eb37d33" || TagCommit("main") != "" {
		t.Errorf("TagCommit: %q %q %q", TagCommit("v1.0.50"), TagCommit("v1.0.45"), TagCommit("main"))
	}
}
