//go:build unix

package sandbox

import "syscall"

// openNonBlock opens without waiting for a FIFO's writer (the jail refuses
// anything but a regular file right after).
const openNonBlock = syscall.O_NONBLOCK

// noOwnerStat is the Sys of every file the sandbox shows: uid and gid
// 4294967295, which no user has (mvdan.cc/sh/v3/interp's -O and -G
// compare them with the current user's).
func noOwnerStat() any {
	return &syscall.Stat_t{Uid: ^uint32(0), Gid: ^uint32(0)}
}
