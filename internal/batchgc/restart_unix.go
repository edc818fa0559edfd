//go:build unix

package batchgc

import (
	"os"
	"syscall"
)

// RestartWithSTW starts the running program again in the same process —
// execve(2): the same PID, arguments, standard streams, working directory and
// environment — with STWSetting added to GODEBUG, which the runtime reads
// only when a program starts. It returns only when it does not restart,
// nil when GODEBUG already names gcstoptheworld (the restarted process,
// or a user's choice: GODEBUG=gcstoptheworld=0 keeps the concurrent
// collector), else the error of finding or executing the program (the run
// then goes on with the concurrent collector). Call it first thing in
// main, before any goroutine, file or signal handler of the program's own
// (the process image is replaced). The executable is /proc/self/exe where
// there is one (the file that was started, even if it was replaced since),
// else os.Executable.
func RestartWithSTW() error {
	env, restart := stwEnviron(os.Environ())
	if !restart {
		return nil
	}
	exe := "/proc/self/exe"
	if _, err := os.Stat(exe); err != nil {
		if exe, err = os.Executable(); err != nil {
			return err
		}
	}
	return syscall.Exec(exe, os.Args, env)
}
