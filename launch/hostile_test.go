package launch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileQuotePath: file names and messages with terminal control
// characters are escaped; clean ones are unchanged.
func TestHostileQuotePath(t *testing.T) {
	for _, c := range []struct{ in, path, msg string }{
		{"configs/nvidia-master.yaml", "configs/nvidia-master.yaml", "configs/nvidia-master.yaml"},
		{"dir with space/é.yaml", "dir with space/é.yaml", "dir with space/é.yaml"},
		{"evil\x1b[31mred.yaml", `"evil\x1b[31mred.yaml"`, `evil\x1b[31mred.yaml`},
		{"a\rb", `"a\rb"`, `a\x0db`},
		{"bidi\u202egnp.yaml", `"bidi\u202egnp.yaml"`, `bidi\u202egnp.yaml`},
		{"bad\xffbyte", `"bad\xffbyte"`, `bad\xffbyte`},
		{"csi\u009b2J", `"csi\u009b2J"`, `csi\x9b2J`},
		{"line1\nline2\ttab", `"line1\nline2\ttab"`, "line1\nline2\ttab"},
	} {
		if got := QuotePath(c.in); got != c.path {
			t.Errorf("QuotePath(%q) = %s, want %s", c.in, got, c.path)
		}
		if got := EscapeControl(c.in); got != c.msg {
			t.Errorf("EscapeControl(%q) = %s, want %s", c.in, got, c.msg)
		}
	}
	e := &InputError{File: "x\x1b]0;title\x07.yaml", Line: 3, Col: 2, Path: "k\x1b", Msg: "bad \x1b[2J"}
	if got, want := e.Error(), `"x\x1b]0;title\a.yaml":3:2: k\x1b: bad \x1b[2J`; got != want {
		t.Errorf("InputError = %s, want %s", got, want)
	}
}

// TestHostileYAMLErrorPos: every yaml.v3 parse error gets a position, also
// those yaml.v3 reports without one.
func TestHostileYAMLErrorPos(t *testing.T) {
	for _, c := range []struct {
		data, msg string
		line, col int
		text      string
	}{
		{"a: 1\nb: *nope\n", "yaml: unknown anchor 'nope' referenced", 2, 4, "unknown anchor 'nope' referenced"},
		{"a: [*x, *x]\nb: &x 1\n", "yaml: unknown anchor 'x' referenced", 1, 5, "unknown anchor 'x' referenced"},
		{"a: \"abc", "yaml: found unexpected end of stream", 1, 8, "found unexpected end of stream"},
		{"a: \"x\n\n", "yaml: line 3: found unexpected end of stream", 3, 1, "found unexpected end of stream"},
		{"a: 1\nb: [\n", "yaml: line 9: did not find expected node content", 3, 1, "did not find expected node content"},
		{"a: 1\n  b: [2\n", "yaml: line 2: did not find expected ',' or ']'", 2, 3, "did not find expected ',' or ']'"},
		{"a: 1\nb: x\x01y\n", "yaml: control characters are not allowed", 2, 5, "control characters are not allowed"},
		{"a: 1\nb: \xff\n", "yaml: invalid leading UTF-8 octet", 2, 4, "invalid leading UTF-8 octet"},
	} {
		l, col, text := YAMLErrorPos([]byte(c.data), c.msg)
		if l != c.line || col != c.col || text != c.text {
			t.Errorf("%q %q: %d:%d %q, want %d:%d %q", c.data, c.msg, l, col, text, c.line, c.col, c.text)
		}
	}
}

// TestHostileReadInputFIFOOpen: the open ReadInput makes does not block on
// a FIFO without a writer (one swapped in after the Stat), and what it
// opened is refused by the Fstat that follows.
func TestHostileReadInputFIFOOpen(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "m.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, openInputFlags, 0)
		if err == nil {
			var st os.FileInfo
			if st, err = f.Stat(); err == nil {
				err = regular(fifo, st)
			}
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("err %v, want not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("open of a FIFO without writer blocked")
	}
}

// TestHostileReadInputPseudoFS: a link to /proc/self/environ (or any file
// of /proc, /sys, /dev) is refused, its content never read.
func TestHostileReadInputPseudoFS(t *testing.T) {
	dir := t.TempDir()
	for _, target := range []string{"/proc/self/environ", "/proc/self/cmdline", "/sys/kernel/address_bits", "/dev/null"} {
		if _, err := os.Stat(target); err != nil {
			continue // not on this machine
		}
		l := filepath.Join(dir, filepath.Base(target)+".yaml")
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
		data, err := ReadInput(l)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "pseudo file system: not read") || data != nil {
			t.Errorf("%s: %v (%d bytes)", target, err, len(data))
		}
	}
	if _, err := ReadInput("/proc/self/environ"); err == nil {
		t.Error("/proc/self/environ read")
	}
}
