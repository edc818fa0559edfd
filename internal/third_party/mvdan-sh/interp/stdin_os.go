// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

//go:build !js

package interp

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// cookbook-sync patch (issue 24): the runner's pipes are in-process
// (pipe.go) instead of OS pipes — nothing this interpreter runs is a
// subprocess (every command is a handler) — and a reader with its own read
// deadline is used as stdin as it is. See PATCHES.md.

// stdinFile is the runner's standard input: an [*os.File], the read end of
// an in-process pipe, or any reader that supports a read deadline (which
// the read builtin sets to stop a blocked read when its context is done).
type stdinFile interface {
	io.ReadCloser
	SetReadDeadline(t time.Time) error
}

// newPipe returns an in-process pipe (pipe.go).
func newPipe() (stdinFile, io.WriteCloser, error) {
	r, w := newMemPipe()
	return r, w, nil
}

// newStdinFile converts a reader into the runner's stdin. A reader with a
// read deadline ([*os.File], a pipe's read end) is used as it is; any
// other is copied into an in-process pipe by a goroutine, so that a read
// of it can still be cancelled.
func newStdinFile(r io.Reader) (stdinFile, error) {
	switch r := r.(type) {
	case stdinFile:
		return r, nil
	case nil:
		return nil, nil
	default:
		pr, pw := newMemPipe()
		go func() {
			io.Copy(pw, r)
			pw.Close()
		}()
		return pr, nil
	}
}

// stdinTerminal returns the file descriptor of the shell's stdin
// if it is a terminal.
// Note that we only call [os.File.Fd] on character devices,
// as it stops [os.File.SetReadDeadline] from working,
// which [Runner.readLine] needs to cancel blocking reads.
func stdinTerminal(stdin stdinFile) (int, bool) {
	f, ok := stdin.(*os.File)
	if !ok || f == nil {
		return -1, false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return -1, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}
