//go:build !unix

package batchgc

import "errors"

// RestartWithSTW does not restart where execve(2) is not available: the
// run goes on with the concurrent collector (set GODEBUG=gcstoptheworld=1
// before starting it for STWSetting's collector).
func RestartWithSTW() error {
	return errors.New("the program cannot restart itself on this system: GODEBUG=" + STWSetting + " is not set")
}
