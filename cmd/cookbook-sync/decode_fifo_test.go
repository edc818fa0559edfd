//go:build unix

package main

import "syscall"

// mkfifo creates a named pipe at path (used to check that readers refuse
// non-regular files instead of blocking).
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
