package sandbox

import (
	"slices"
	"testing"
)

// TestEnvWrapperOps: `env -u NAME`, `--unset=NAME` and `env -i` in front
// of a command change its environment; they are never skipped as options
// (a dropped variable would still be seen as set). A nested shell sees the
// same environment (mergeEnv).
func TestEnvWrapperOps(t *testing.T) {
	base := []string{"A=1", "SGLANG_USE_AITER=1", "B=2"}
	for _, c := range []struct {
		argv, cmd, want []string
	}{
		{[]string{"env", "-u", "SGLANG_USE_AITER", "python3", "-m", "sglang.launch_server", "--tp", "8"}, []string{"python3", "-m", "sglang.launch_server", "--tp", "8"}, []string{"A=1", "B=2"}},
		{[]string{"env", "--unset=B", "C=3", "tool"}, []string{"tool"}, []string{"A=1", "SGLANG_USE_AITER=1", "C=3"}},
		{[]string{"exec", "env", "-uA", "--", "sglang", "serve"}, []string{"sglang", "serve"}, []string{"SGLANG_USE_AITER=1", "B=2"}},
		{[]string{"env", "-i", "PATH=/usr/bin", "tool"}, []string{"tool"}, []string{"PATH=/usr/bin"}},
		{[]string{"nohup", "timeout", "-s", "KILL", "10", "env", "A=9", "tool", "-x"}, []string{"tool", "-x"}, []string{"A=9", "SGLANG_USE_AITER=1", "B=2"}},
	} {
		cmd, ops := Unwrap(c.argv)
		if !slices.Equal(cmd, c.cmd) {
			t.Errorf("%v: command %v, want %v", c.argv, cmd, c.cmd)
		}
		if got := ApplyEnvOps(base, ops); !slices.Equal(got, c.want) {
			t.Errorf("%v: env %v, want %v", c.argv, got, c.want)
		}
	}
	if got := mergeEnv(base, []string{envUnset + "A", "D=4"}, []string{"B"}); !slices.Equal(got, []string{"SGLANG_USE_AITER=1", "D=4"}) {
		t.Errorf("mergeEnv: %v", got)
	}
}
