//go:build !unix

package batchgc

import (
	"errors"
	"os"
)

// RestartWithSTW does not restart where execve(2) is not available: nil
// when GODEBUG already names gcstoptheworld, else an error saying the
// run goes on with the concurrent collector (set GODEBUG=gcstoptheworld=1
// before starting the program for STWSetting's collector).
func RestartWithSTW() error {
	if _, restart := stwEnviron(os.Environ()); !restart {
		return nil
	}
	return errors.New("the program cannot restart itself on this system: its collector runs concurrently (GODEBUG=" + STWSetting + " before starting it stops the world)")
}
