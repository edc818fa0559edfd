package infx

import (
	"context"
	"errors"
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
