package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// exitWrite is the exit status of a command whose output could not be
// written: a failed write to stdout (a full disk, a closed pipe, /dev/full)
// or to an output file (-o, --write). It takes precedence over 1 (gap) and
// 3 (deadline), never over 2 (bad input found first): the report of a run
// whose output was lost is never exit 0 and never the bad-input code.
const exitWrite = 4

// checkedWriter is the command's stdout: it passes writes through to w and
// keeps the first error (a short write is io.ErrShortWrite); once a write
// failed, every later one fails with the same error without writing, so a
// report is never printed with a hole in it. runExit reads err after the
// command returned (exit 4).
type checkedWriter struct {
	w   io.Writer
	err error
}

// Write implements io.Writer.
func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		c.err = err
	}
	return n, err
}

// writeError is an output file that could not be written (exit 4): the
// temporary file could not be made, written, synced, closed or renamed over
// the file. A target that cannot be an output file (not a regular file, a
// dangling symlink) is bad usage instead (exit 2).
type writeError struct {
	path string
	err  error
}

func (e *writeError) Error() string { return fmt.Sprintf("writing %s: %v", e.path, e.err) }
func (e *writeError) Unwrap() error { return e.err }

// writeAtomic replaces the content of name with data, atomically and
// durably: through a temporary file in the directory of the file written —
// the symlink's final target when name is a symlink (or a chain of them), so
// every link stays a link — written, fsynced, renamed over the file, and the
// directory fsynced after the rename, so readers never see a partial file, a
// failure leaves the file untouched and a crash after success keeps the new
// content. An existing file keeps its mode (a new one is 0644). Errors: a
// target that is not a regular file or a symlink that cannot be resolved
// (bad usage, exit 2); a *writeError for every I/O failure (exit 4).
func writeAtomic(name string, data []byte) error {
	return writeThrough(name, data, (*os.File).Sync)
}

// writeThrough is writeAtomic with the fsync given (tests record it or make
// it fail).
func writeThrough(name string, data []byte, sync func(*os.File) error) error {
	target := name
	mode := os.FileMode(0o644)
	st, err := os.Lstat(name)
	switch {
	case err == nil:
		if st.Mode()&os.ModeSymlink != 0 {
			if target, err = filepath.EvalSymlinks(name); err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("%s: cannot resolve the symlink: %w", name, err)}
			}
			if st, err = os.Stat(target); err != nil {
				return &writeError{target, err}
			}
		}
		if !st.Mode().IsRegular() {
			return &exitError{code: exitUsage, err: fmt.Errorf("%s: not a regular file", target)}
		}
		mode = st.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return &writeError{name, err}
	}
	dir := filepath.Dir(target)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp*")
	if err != nil {
		return &writeError{target, err}
	}
	done := false
	defer func() {
		if !done {
			// the write failed already: the temporary file goes, whatever
			// its Close and Remove say
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return &writeError{target, err}
	}
	if err := tmp.Chmod(mode); err != nil {
		return &writeError{target, err}
	}
	if err := sync(tmp); err != nil {
		return &writeError{target, fmt.Errorf("%s: fsync: %w", tmp.Name(), err)}
	}
	if err := tmp.Close(); err != nil {
		return &writeError{target, err}
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return &writeError{target, err}
	}
	done = true
	if runtime.GOOS == "windows" { // directories cannot be opened for fsync there
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return &writeError{target, err}
	}
	serr := sync(d)
	cerr := d.Close()
	// a file system that cannot sync a directory (EINVAL, e.g. some network
	// mounts) is not an error: the rename is still atomic there
	if serr != nil && !errors.Is(serr, syscall.EINVAL) && !errors.Is(serr, errors.ErrUnsupported) {
		return &writeError{target, fmt.Errorf("%s: fsync of the directory: %w", dir, serr)}
	}
	if cerr != nil {
		return &writeError{target, cerr}
	}
	return nil
}

// exitFor is the exit status of a command that returned err having
// written to out: exit 4 when a write to out or to an output file failed
// (unless the command found bad input first: exit 2), else the code err
// carries (0 when nil, 2 for an error without one).
func exitFor(err error, out *checkedWriter) (int, error) {
	var ee *exitError
	hasCode := errors.As(err, &ee)
	if hasCode && ee.code == exitUsage {
		return exitUsage, ee.err
	}
	var we *writeError
	switch {
	case errors.As(err, &we):
		return exitWrite, we
	case out != nil && out.err != nil:
		return exitWrite, fmt.Errorf("writing the output: %w", out.err)
	case err == nil:
		return exitOK, nil
	case hasCode:
		if ee == errGap {
			return ee.code, nil
		}
		return ee.code, ee.err
	}
	return exitUsage, err
}

// warn prints "cookbook-sync: warning: <msg>" on stderr with every terminal
// control character of msg escaped (launch.EscapeControl): messages name
// files and values of checkouts written by strangers.
func warn(stderr io.Writer, msg string) {
	printStderr(stderr, "cookbook-sync: warning: "+launch.EscapeControl(msg))
}

// printStderr writes line and a newline to stderr. A failed write to
// stderr is not reported: there is nowhere left to report it, and the exit
// status still says what the command did.
func printStderr(stderr io.Writer, line string) {
	_, _ = io.WriteString(stderr, line+"\n")
}
