package srtslurm

import (
	"fmt"
	"os"
	"testing"
)

// TestDumpRender prints a rendering when SRT_DUMP=file[:selector] is set
// (a debugging aid; skipped otherwise).
func TestDumpRender(t *testing.T) {
	spec := os.Getenv("SRT_DUMP")
	if spec == "" {
		t.Skip("set SRT_DUMP=file[:selector] [SRT_DUMP_VERSION=ref]")
	}
	file, sel := spec, ""
	for i := len(spec) - 1; i > 1; i-- {
		if spec[i] == ':' {
			file, sel = spec[:i], spec[i+1:]
			break
		}
	}
	r, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render(sel, Options{Version: os.Getenv("SRT_DUMP_VERSION")})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Print(out.Text())
}
