package launch

import (
	"errors"
	"strings"
	"testing"
)

// TestHostileReaderPanic: a reader that panics on an input (here: a nil map
// write and a panic value carrying a terminal escape) fails the unit with
// an InputError naming the file, wrapping ErrReaderPanic, its message
// escaped; a reader that returns normally keeps its own result.
func TestHostileReaderPanic(t *testing.T) {
	read := func(file string, fail bool) (n int, err error) {
		defer RecoverInput(file, &err)
		if fail {
			var m map[string]int
			//lint:ignore SA5000 the write to a nil map is the reader's panic under test
			m["x"] = 1
		}
		return 7, nil
	}
	if n, err := read("ok.yaml", false); n != 7 || err != nil {
		t.Fatalf("read = %d, %v", n, err)
	}
	_, err := read("evil.yaml", true)
	var ie *InputError
	if !errors.As(err, &ie) || !errors.Is(err, ErrReaderPanic) || ie.File != "evil.yaml" {
		t.Fatalf("err = %#v", err)
	}
	if got := err.Error(); got != "evil.yaml: the reader failed on this input (assignment to entry in nil map): not supported" {
		t.Errorf("message %q", got)
	}
	escape := func() (err error) {
		defer RecoverInput("x.jsx", &err)
		panic("bad \x1b[2J::error::x")
	}
	if got := escape().Error(); strings.ContainsRune(got, 0x1b) || !strings.Contains(got, `\x1b[2J`) {
		t.Errorf("panic value printed raw: %q", got)
	}
}
