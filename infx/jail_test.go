package infx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLauncherLinkPlaceholder: a runner launcher that is a git link checked
// out as a plain file (InferenceX's runners/launch_b200-dgxc-slurm.sh →
// launch_b200-dgxc.sh) runs the launcher it names: with launch_b200-cw.sh
// made a link to launch_b200-dgxc.sh, both runners of m2 pick
// m2_fp8_b200.sh and the point renders (the real files disagree:
// TestLaunchersDisagree).
func TestLauncherLinkPlaceholder(t *testing.T) {
	ws := copyLaunch(t)
	if err := os.WriteFile(filepath.Join(ws.Root, "runners", "launch_b200-cw.sh"), []byte("launch_b200-dgxc.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := renderOne(t, ws, pointAt(t, ws, "m2-fp8-b200-sglang", 0, 16), Options{})
	if d.Source.File != "benchmarks/single_node/fixed_seq_len/m2_fp8_b200.sh" {
		t.Errorf("script = %q, want the one launch_b200-dgxc.sh picks", d.Source.File)
	}
	if len(d.Notes) == 0 || !strings.Contains(d.Notes[0], "runners/launch_b200-cw.sh, runners/launch_b200-dgxc.sh") {
		t.Errorf("notes = %q", d.Notes)
	}
}
