package launch

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// MaxInputSize is the largest input file any reader accepts: 64 MiB, far
// above the largest real snippet, recipe or master config (hundreds of KiB).
const MaxInputSize = 64 << 20

// ReadInput reads the input file at path for a parser. It refuses what is not
// a regular file (a directory, a FIFO, a device such as /dev/zero) and a file
// larger than MaxInputSize, so hostile input can neither hang a reader nor
// exhaust memory. Errors are *InputError naming the file, or the os error of
// an unreadable file.
func ReadInput(path string) ([]byte, error) {
	// Stat before opening: opening a FIFO with no writer blocks.
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := notPseudo(path); err != nil {
		return nil, err
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, openInputFlags, 0)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // opened for reading: its Close loses nothing
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	if st.Size() > MaxInputSize {
		return nil, &InputError{File: path, Msg: fmt.Sprintf("file is %d bytes, larger than the %d-byte input limit", st.Size(), MaxInputSize)}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxInputSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxInputSize {
		return nil, &InputError{File: path, Msg: fmt.Sprintf("file grew past the %d-byte input limit while being read", MaxInputSize)}
	}
	return data, nil
}

// regular refuses what is not a regular file.
func regular(path string, st os.FileInfo) error {
	if st.Mode().IsRegular() {
		return nil
	}
	what := "not a regular file"
	if st.IsDir() {
		what = "a directory, want a file"
	}
	return &InputError{File: path, Msg: what}
}

// pseudoRoots are the kernel's pseudo file systems: their "regular" files
// (/proc/self/environ, /proc/self/cmdline, /sys/…) hold the running
// process's state, secrets included, never input.
var pseudoRoots = []string{"/proc", "/sys", "/dev"}

// notPseudo refuses a path that is, or resolves through symbolic links
// to, a file of a pseudo file system (a link committed in a checkout that
// points at /proc/self/environ): its content is never read.
func notPseudo(path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	if abs, err := filepath.Abs(real); err == nil {
		real = abs
	}
	for _, r := range pseudoRoots {
		if real == r || strings.HasPrefix(real, r+string(filepath.Separator)) {
			return &InputError{File: path, Msg: fmt.Sprintf("resolves to %s, a file of the kernel's %s pseudo file system: not read", real, r)}
		}
	}
	return nil
}
