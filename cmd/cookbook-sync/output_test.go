package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// failAfter is a stdout that takes n bytes and then fails every write with
// ENOSPC, as a full disk does.
type failAfter struct {
	n   int
	got bytes.Buffer
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.got.Len()+len(p) > f.n {
		k := max(f.n-f.got.Len(), 0)
		f.got.Write(p[:k])
		return k, syscall.ENOSPC
	}
	return f.got.Write(p)
}

// TestWriteErrorExit4: a command whose stdout fails (at once or part-way)
// exits 4 with "writing the output" on stderr, whatever it would have
// exited with (0 or 1); nothing after the failure is written.
func TestWriteErrorExit4(t *testing.T) {
	out := filepath.Join(t.TempDir(), "qwen9.jsx")
	cases := map[string][]string{
		"coverage":      {"coverage"}, // the embedded demo
		"coverage json": {"coverage", "--format", "json"},
		"coverage md":   {"coverage", "--format", "markdown"},
		"render":        {"render", "--infx", infxFixtures + "/old", "--config-key", "dsr1-fp8-h200-sglang", "--row", "0", "--conc", "8"},
		"render --all":  {"render", "--all", "--infx", infxFixtures + "/old"},
		"decode":        {"decode", featuresJSX},
		"decode --all":  {"decode", "--all", "--format", "jsonl", featuresJSX},
		"generate":      generateArgs(out),
	}
	for name, args := range cases {
		// the exit status with a working stdout
		var ok, okErr bytes.Buffer
		want := run(args, &ok, &okErr)
		if want != exitOK && want != exitGap {
			t.Fatalf("%s: exit %d with a working stdout: %s", name, want, okErr.String())
		}
		for _, n := range []int{0, ok.Len() / 2} {
			w := &failAfter{n: n}
			var errb bytes.Buffer
			code := run(args, w, &errb)
			if code != exitWrite {
				t.Errorf("%s, stdout failing after %d bytes: exit %d, want 4 (exit %d when it works); stderr: %s", name, n, code, want, errb.String())
			}
			if !strings.Contains(errb.String(), "writing the output: no space left on device") {
				t.Errorf("%s: stderr %q, want the write error named", name, errb.String())
			}
			if w.got.Len() > n || !bytes.HasPrefix(ok.Bytes(), w.got.Bytes()) {
				t.Errorf("%s: %d bytes written past the failure, or not the output's start", name, w.got.Len())
			}
		}
	}
}

// TestWriteErrorOutputFile: an output file that cannot be written (its
// directory is gone) is exit 4 naming the file; a target that cannot be an
// output file (a directory) stays bad usage, exit 2.
func TestWriteErrorOutputFile(t *testing.T) {
	dir := t.TempDir()
	var stdout, errb bytes.Buffer
	code := run(generateArgs(filepath.Join(dir, "gone", "qwen9.jsx")), &stdout, &errb)
	if code != exitWrite || !strings.Contains(errb.String(), "writing "+filepath.Join(dir, "gone", "qwen9.jsx")) {
		t.Errorf("-o in a missing directory: exit %d, stderr %q; want 4 naming the file", code, errb.String())
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	errb.Reset()
	if code := run(generateArgs(filepath.Join(dir, "d")), &stdout, &errb); code != exitUsage || !strings.Contains(errb.String(), "not a regular file") {
		t.Errorf("-o a directory: exit %d, stderr %q; want 2", code, errb.String())
	}
}

// TestExitForPrecedence: 4 outranks a gap and a plain error, never an
// explicit bad-input error.
func TestExitForPrecedence(t *testing.T) {
	failed := &checkedWriter{err: syscall.EPIPE}
	fine := &checkedWriter{}
	for _, c := range []struct {
		err  error
		out  *checkedWriter
		want int
	}{
		{nil, fine, exitOK},
		{nil, failed, exitWrite},
		{errGap, failed, exitWrite},
		{errGap, fine, exitGap},
		{errors.New("write |1: broken pipe"), failed, exitWrite},
		{&exitError{code: exitUsage, err: errors.New("bad yaml")}, failed, exitUsage},
		{&exitError{code: exitDeadline, err: errors.New("late")}, failed, exitWrite},
		{&writeError{"x", syscall.EIO}, fine, exitWrite},
		{errors.New("plain"), fine, exitUsage},
	} {
		if got, _ := exitFor(c.err, c.out); got != c.want {
			t.Errorf("exitFor(%v, out.err=%v) = %d, want %d", c.err, c.out.err, got, c.want)
		}
	}
}

// TestCoverageFormatsOneTable: every format of the table is accepted, named
// in the usage line, the flag's help and the Formats section with how it
// escapes, and prints the embedded demo; a name outside it is exit 2
// listing them all.
func TestCoverageFormatsOneTable(t *testing.T) {
	_, help, _ := runCLI("coverage", "--help")
	for _, f := range coverageFormats() {
		if f.escape == "" || !strings.Contains(help, "  "+f.name+" ") || !strings.Contains(help, f.help) || !strings.Contains(help, "|"+f.name) && f.name != "text" {
			t.Errorf("format %s: not in the usage, the --format help and the Formats section with its escaping:\n%s", f.name, help)
		}
		code, out, errs := runCLI("coverage", "--format", f.name)
		if code != exitGap || out == "" {
			t.Errorf("coverage --format %s on the demo: exit %d (want 1: the demo has a gap), %d bytes; %s", f.name, code, len(out), errs)
		}
	}
	code, _, errs := runCLI("coverage", "--format", "xml")
	if code != exitUsage || !strings.Contains(errs, "want "+formatNames(" or ")) {
		t.Errorf("--format xml: exit %d, %q", code, errs)
	}
}
