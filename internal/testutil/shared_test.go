package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Errorf/Fatalf messages.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatalf(f string, a ...any) { r.errs = append(r.errs, "FATAL "+fmt.Sprintf(f, a...)) }

// TestCheckLedger: equal counts pass; a count that grows or shrinks, an
// entry that appears or disappears each fail with its own message; a lower
// count asks for -update. ReadLedger refuses malformed and repeated lines.
func TestCheckLedger(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.ledger")
	if err := os.WriteFile(file, []byte("3\ta: why\n2\tb: why\n1\tc: why\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  map[string]int
		want []string
	}{
		{"same", map[string]int{"a: why": 3, "b: why": 2, "c: why": 1, "zero": 0}, nil},
		{"more", map[string]int{"a: why": 4, "b: why": 2, "c: why": 1}, []string{file + ": 4, was 3: a: why"}},
		{"fewer", map[string]int{"a: why": 3, "b: why": 1, "c: why": 1}, []string{file + ": 1, the ledger says 2 (fewer: record it with -update): b: why"}},
		{"new and gone", map[string]int{"a: why": 3, "b: why": 2, "d: new": 5}, []string{
			file + ": new entry, 5: d: new",
			file + ": 0, the ledger says 1 (gone: record it with -update): c: why",
		}},
	} {
		r := &recorder{TB: t}
		CheckLedger(r, file, c.got)
		if !reflect.DeepEqual(r.errs, c.want) {
			t.Errorf("%s: %q, want %q", c.name, r.errs, c.want)
		}
	}
	for _, bad := range []string{"x\ta\n", "3 a\n", "0\ta\n", "1\ta\n2\ta\n"} {
		if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadLedger(file); err == nil || !strings.Contains(err.Error(), file+":") {
			t.Errorf("%q: err = %v, want a positioned error", bad, err)
		}
	}
}
