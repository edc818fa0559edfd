package launch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadInput(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.yaml")
	if err := os.WriteFile(ok, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadInput(ok); err != nil || string(got) != "a: 1\n" {
		t.Fatalf("ReadInput(ok) = %q, %v", got, err)
	}

	var ie *InputError
	if _, err := ReadInput(dir); !errors.As(err, &ie) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: err = %v, want an InputError naming a directory", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		// No writer ever opens it: ReadInput must not block on the open.
		if _, err := ReadInput(fifo); !errors.As(err, &ie) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("fifo: err = %v, want not a regular file", err)
		}
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadInput("/dev/zero"); !errors.As(err, &ie) {
			t.Errorf("/dev/zero: err = %v, want an InputError", err)
		}
	}
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxInputSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadInput(big); !errors.As(err, &ie) || !strings.Contains(err.Error(), "input limit") {
		t.Errorf("big: err = %v, want the size limit", err)
	}
	if _, err := ReadInput(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent: err = %v, want ErrNotExist", err)
	}
}
