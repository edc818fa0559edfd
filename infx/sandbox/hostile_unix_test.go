//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestHostileFIFO: a FIFO in the checkout (committed, or swapped in for a
// regular file after a check) never blocks a read: the jail opens
// non-blocking and refuses anything but a regular file, by every path a
// script reads by.
func TestHostileFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "benchmarks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"fifo", "fifo.sh"} {
		if err := syscall.Mkfifo(filepath.Join(dir, "benchmarks", n), 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
	}
	run, took, err := runHostile(t, dir, `A=$(< benchmarks/fifo)
B=$(cat benchmarks/fifo)
C=$(grep x benchmarks/fifo)
source benchmarks/fifo.sh
bash benchmarks/fifo.sh
[[ -p benchmarks/fifo ]] && P=1
vllm serve m --a "$A$B$C" --p "${P:-0}"
`, Config{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if took > 10*time.Second {
		t.Errorf("took %v", took)
	}
	eqStrings(t, "argv", run.Commands[len(run.Commands)-1].Argv, []string{"vllm", "serve", "m", "--a", "", "--p", "1"})
	// The jail itself: a FIFO where a regular file was.
	j := newJail([]string{dir})
	defer j.close()
	if _, err := j.readFile(filepath.Join(dir, "benchmarks", "fifo"), 1<<20); err == nil {
		t.Error("jail read a FIFO")
	}
}
