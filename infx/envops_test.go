package infx

import (
	"slices"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
)

// TestEnvWrapperOps: `env -u NAME`, `--unset=NAME` and `env -i` before a
// server launch change the launched process's environment; they are never
// skipped as options (a dropped variable would still be compared as set).
func TestEnvWrapperOps(t *testing.T) {
	base := []string{"A=1", "SGLANG_USE_AITER=1", "B=2"}
	for _, c := range []struct {
		argv []string
		want []string
	}{
		{[]string{"env", "-u", "SGLANG_USE_AITER", "python3", "-m", "sglang.launch_server", "--tp", "8"}, []string{"A=1", "B=2"}},
		{[]string{"env", "--unset=B", "C=3", "python3", "-m", "sglang.launch_server"}, []string{"A=1", "SGLANG_USE_AITER=1", "C=3"}},
		{[]string{"exec", "env", "-uA", "--", "sglang", "serve"}, []string{"SGLANG_USE_AITER=1", "B=2"}},
		{[]string{"env", "-i", "PATH=/usr/bin", "python3", "-m", "sglang.launch_server"}, []string{"PATH=/usr/bin"}},
		{[]string{"env", "A=9", "python3", "-m", "sglang.launch_server"}, []string{"A=9", "SGLANG_USE_AITER=1", "B=2"}},
	} {
		prog, _, ops, _, ok := serverCommand(c.argv)
		if !ok || len(prog) == 0 {
			t.Fatalf("%v: not a server launch", c.argv)
		}
		if got := sandbox.ApplyEnvOps(base, ops); !slices.Equal(got, c.want) {
			t.Errorf("%v: env %v, want %v", c.argv, got, c.want)
		}
	}
}
