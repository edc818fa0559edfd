package sandbox

import (
	"context"
	"path"
)

// Builtin evaluates c's command with the sandbox's own handler for it
// (srun, docker run, bash, …), skipping the caller's Config.Commands, with
// env ("NAME=value") added to the exported environment the command sees —
// what a caller's handler uses to run a job step as the sandbox does with
// the variables the scheduler sets for it (SLURM_PROCID, SLURMD_NODENAME).
// ErrUnhandled when the sandbox has no handler of that name.
func (c *Call) Builtin(ctx context.Context, env []string) error {
	h, ok := c.sb.handlers[path.Base(c.Args[0])]
	if !ok {
		return ErrUnhandled
	}
	return h(ctx, c.with(c.hc, c.Args, append(append([]string(nil), c.extraEnv...), env...)))
}
