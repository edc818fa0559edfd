// Package testutil holds the helpers several packages' tests share. It is
// imported by _test.go files only.
package testutil

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
)

// ModuleRoot is the repository root (the directory holding go.mod), found
// from this file's place in the source tree.
func ModuleRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testutil: no caller")
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// LineDiff describes the first differing line of got and want ("line N:
// got …, want …"), or "no difference".
func LineDiff(got, want []byte) string {
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w []byte
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if !bytes.Equal(g, w) {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, g, w)
		}
	}
	return "no difference"
}
