package infx

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestHostileFailingRunsOnce: a launcher run that ends on a bound is the
// point's outcome at once; the other runner names of the label are not
// run again (each run of an endless loop costs the wall bound).
func TestHostileFailingRunsOnce(t *testing.T) {
	ws := copyLaunch(t, [3]string{"benchmarks/single_node/fixed_seq_len/m3_fp8_b200_vllm.sh", "vllm serve \"$MODEL\"", "while :; do sleep 1; done\nvllm serve \"$MODEL\""})
	p := pointAt(t, ws, "m3-fp8-b200-vllm", 0, 8)
	start := time.Now()
	_, err := ws.Render(context.Background(), p, Options{ScriptTimeout: 1500 * time.Millisecond, ScriptSteps: 1 << 30})
	took := time.Since(start)
	if !errors.Is(err, ErrScriptTimeLimit) {
		t.Fatalf("err = %v, want ErrScriptTimeLimit", err)
	}
	if took > 2900*time.Millisecond {
		t.Errorf("took %v: the failing script ran more than once", took)
	}
}

// TestHostileScriptOutcomes (issue 20 items 5 and 6, through a point's
// render): an arithmetic error after a library call, a value the sandbox
// cannot know, and a config file a program it does not evaluate wrote
// (which the server reads), make the point unsupported at the script's own
// file:line:col — never an error that ends the whole run under the
// library's name, never a render with an empty value.
func TestHostileScriptOutcomes(t *testing.T) {
	const script = "benchmarks/single_node/fixed_seq_len/m3_fp8_b200_vllm.sh"
	for _, c := range []struct{ name, edit, want string }{
		{"arithmetic", "source \"$(dirname \"$0\")/../../benchmark_lib.sh\"\nhf download \"$MODEL\"\nY=$(( 1 / 0 ))\n",
			script + ":4:3: arithmetic expansion failed: division by zero (bash reports it and skips the command)"},
		{"config written by an unknown program", "python3 gen.py > /tmp/cfg.yaml\nvllm serve \"$MODEL\" --config /tmp/cfg.yaml &\n",
			script + ":3:1: vllm serve reads /tmp/cfg.yaml, whose content is not known to the sandbox (python3 gen.py wrote it, which the sandbox does not evaluate)"},
		{"unknown read", "source \"$(dirname \"$0\")/../../benchmark_lib.sh\"\nX=$(cat /etc/hostname)\nvllm serve \"$MODEL\" --x \"$X\" &\n",
			script + ":3:5: a read of /etc/hostname: its content is not known to the sandbox (the runner's system files, devices and kernel state are not in the runner table)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := copyLaunch(t, [3]string{script, "vllm serve", c.edit + "vllm serve"})
			pe := renderErr(t, ws, "m3-fp8-b200-vllm", 0, 8)
			if pe.Status != StatusUnsupported || !strings.Contains(pe.Note, c.want) {
				t.Errorf("%s: %q\nwant %q", pe.Status, pe.Note, c.want)
			}
		})
	}
}
