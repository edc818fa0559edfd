//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
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
	// Every read of it is not known (the sandbox's read rule): the run
	// stops there, at once, with its position.
	for _, c := range []struct {
		src  string
		want Pos
	}{
		{"A=$(< benchmarks/fifo)", Pos{File: "benchmarks/x.sh", Line: 1, Col: 5}},
		{"B=$(cat benchmarks/fifo)", Pos{File: "benchmarks/x.sh", Line: 1, Col: 5}},
		{"C=$(grep x benchmarks/fifo)", Pos{File: "benchmarks/x.sh", Line: 1, Col: 5}},
		{"source benchmarks/fifo.sh", Pos{File: "benchmarks/x.sh", Line: 1, Col: 1}},
	} {
		run, took, err := runHostile(t, dir, c.src+"\nvllm serve m\n", Config{Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if took > 10*time.Second {
			t.Errorf("%s: took %v", c.src, took)
		}
		if run.Stop == nil || run.Stop.Pos != c.want || !strings.Contains(run.Stop.Msg, "not a regular file") {
			t.Errorf("%s: stop = %v, want not a regular file at %v", c.src, run.Stop, c.want)
		}
	}
	run, took, err := runHostile(t, dir, `bash benchmarks/fifo.sh
[[ -p benchmarks/fifo ]] && P=1
vllm serve m --p "${P:-0}"
`, Config{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if took > 10*time.Second {
		t.Errorf("took %v", took)
	}
	eqStrings(t, "argv", run.Commands[len(run.Commands)-1].Argv, []string{"vllm", "serve", "m", "--p", "1"})
	// The jail itself: a FIFO where a regular file was.
	j := newJail([]string{dir})
	defer j.close()
	if _, err := j.readFile(filepath.Join(dir, "benchmarks", "fifo"), 1<<20); err == nil {
		t.Error("jail read a FIFO")
	}
}
