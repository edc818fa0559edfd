//go:build unix

package launch

import (
	"os"
	"syscall"
)

// openInputFlags opens without blocking: a FIFO swapped in for the file
// between ReadInput's Stat and its open (no writer) would otherwise block the
// open forever; O_NONBLOCK has no effect on a regular file, and ReadInput
// refuses whatever else it opened after its Fstat.
const openInputFlags = os.O_RDONLY | syscall.O_NONBLOCK
