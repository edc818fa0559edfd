//go:build unix

package batchgc

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// restartChildEnv marks TestRestartWithSTW's child: this test binary run
// again to call RestartWithSTW.
const restartChildEnv = "BATCHGC_RESTART_CHILD"

// TestRestartWithSTW runs this test binary as a child that prints its PID
// and GODEBUG, then calls RestartWithSTW: the child starts again in the
// same process (the same PID) with GODEBUG=<the child's>,gcstoptheworld=1,
// runs the test again, and there RestartWithSTW returns nil (the setting
// is there); nothing of the first start runs on after the call. With
// GODEBUG=gcstoptheworld=0 the child does not restart.
func TestRestartWithSTW(t *testing.T) {
	if os.Getenv(restartChildEnv) != "" {
		fmt.Printf("start pid=%d GODEBUG=%q\n", os.Getpid(), os.Getenv("GODEBUG"))
		err := RestartWithSTW()
		fmt.Printf("returned pid=%d err=%v\n", os.Getpid(), err)
		return
	}
	for _, c := range []struct {
		godebug, want string
		restarts      bool
	}{
		{"gctrace=0", "gctrace=0,gcstoptheworld=1", true},
		{"gcstoptheworld=0", "gcstoptheworld=0", false},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRestartWithSTW$", "-test.count=1")
		// the environment but its own GODEBUG (a process reads the first)
		cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GODEBUG=") })
		cmd.Env = append(cmd.Env, restartChildEnv+"=1", "GODEBUG="+c.godebug)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GODEBUG=%s: child: %v\n%s", c.godebug, err, out)
		}
		var starts, returns []string
		for line := range strings.Lines(string(out)) {
			switch {
			case strings.HasPrefix(line, "start "):
				starts = append(starts, strings.TrimSpace(line))
			case strings.HasPrefix(line, "returned "):
				returns = append(returns, strings.TrimSpace(line))
			}
		}
		pid := fmt.Sprintf("pid=%d", cmd.Process.Pid)
		wantStarts := []string{fmt.Sprintf("start %s GODEBUG=%q", pid, c.godebug)}
		if c.restarts {
			wantStarts = append(wantStarts, fmt.Sprintf("start %s GODEBUG=%q", pid, c.want))
		}
		wantReturns := []string{fmt.Sprintf("returned %s err=<nil>", pid)}
		if strings.Join(starts, "\n") != strings.Join(wantStarts, "\n") || strings.Join(returns, "\n") != strings.Join(wantReturns, "\n") {
			t.Errorf("GODEBUG=%s: child printed\n%s\nwant starts %q, returns %q", c.godebug, out, wantStarts, wantReturns)
		}
	}
}
