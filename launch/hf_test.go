package launch

import "testing"

// TestStagedCopyOf: a model argument names a Hugging Face repository when
// it is the id, a hub cache entry of it, or a local path whose last
// element is the repository's name (case-insensitive); a sibling
// repository whose name only shares a prefix is another model.
func TestStagedCopyOf(t *testing.T) {
	const gqa = "Inferact/MiniMax-M3-EAGLE3-GQA"
	for _, c := range []struct {
		v, id string
		want  bool
	}{
		{gqa, gqa, true},
		{"inferact/minimax-m3-eagle3-gqa", gqa, true},
		{"/scratch/fsw/models/MiniMax-M3-EAGLE3-GQA", gqa, true},
		{"/data/models/minimax-m3-eagle3-gqa/", gqa, true},
		{"$MODEL_DIR/MiniMax-M3-EAGLE3-GQA", gqa, true},
		{"./MiniMax-M3-EAGLE3-GQA", gqa, true},
		{"/hf/hub/models--Inferact--MiniMax-M3-EAGLE3-GQA/snapshots/abc", gqa, true},
		// the MHA sibling is another repository
		{"/scratch/fsw/models/MiniMax-M3-EAGLE3-GQA", "Inferact/MiniMax-M3-EAGLE3", false},
		{"/scratch/fsw/models/MiniMax-M3-EAGLE3", gqa, false},
		{"/hf/hub/models--Other--MiniMax-M3-EAGLE3-GQA/snapshots/abc", gqa, false},
		// another org's repository of the same name is not a local copy
		{"Other/MiniMax-M3-EAGLE3-GQA", gqa, false},
		{"/", gqa, false},
		{"", gqa, false},
		{"/scratch/MiniMax-M3-EAGLE3-GQA", "/not/an/id", false},
	} {
		if got := StagedCopyOf(c.v, c.id); got != c.want {
			t.Errorf("StagedCopyOf(%q, %q) = %v, want %v", c.v, c.id, got, c.want)
		}
	}
}
