package sandbox

import (
	"context"
	"path"
	"strings"
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

// Choose makes the command's answer a choice point (Config.Choose): a fact
// the sandbox does not know with the few answers listed (for a reader, in
// the order Config.Choices numbers them). It returns the answer the run
// takes; ok is false when choices are off (the caller treats the command
// as unknown) or the run is past Config.MaxChoices (it is stopped as
// Unsupported; the handler returns any error, the run has ended).
func (c *Call) Choose(fact string, answers []string) (k int, ok bool) {
	if !c.sb.cfg.Choose || len(answers) == 0 {
		return 0, false
	}
	c.sb.mu.Lock()
	k, ok = c.sb.choose(Choice{Pos: c.Pos, Command: strings.Join(ShortArgv(c.Args), " "), Fact: fact, Answers: answers})
	c.sb.mu.Unlock()
	return k, ok
}

// Seq is the command's Command.Seq.
func (c *Call) Seq() int { return c.seq }

// LastSeq is the Seq of the run's last command so far: a handler that
// runs a job step (Builtin) brackets the commands the step ran with Seq
// and LastSeq.
func (c *Call) LastSeq() int {
	c.sb.mu.Lock()
	defer c.sb.mu.Unlock()
	return c.sb.seq
}
