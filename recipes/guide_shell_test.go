package recipes

import "testing"

// TestLaunchCommandEnvWrapper: `env -u NAME` and `env -i` before `vllm
// serve` change the served process's environment (never skipped).
func TestLaunchCommandEnvWrapper(t *testing.T) {
	base := []ShellEnv{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}
	sc, ok := launchCommand([]string{"env", "-u", "A", "C=3", "vllm", "serve", "org/m"}, base)
	if !ok || len(sc.Env) != 2 || sc.Env[0].Name != "B" || sc.Env[1].Name != "C" || sc.Env[1].Value != "3" {
		t.Errorf("env -u: %v %+v", ok, sc.Env)
	}
	sc, ok = launchCommand([]string{"env", "-i", "--", "vllm", "serve", "org/m"}, base)
	if !ok || len(sc.Env) != 0 {
		t.Errorf("env -i: %v %+v", ok, sc.Env)
	}
	if len(base) != 2 || base[0].Name != "A" {
		t.Errorf("the caller's env changed: %+v", base)
	}
}
