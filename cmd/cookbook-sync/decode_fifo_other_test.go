//go:build !unix

package main

import "errors"

// mkfifo is unavailable off unix; the FIFO check is skipped.
func mkfifo(string) error { return errors.New("no FIFOs") }
