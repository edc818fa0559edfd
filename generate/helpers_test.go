package generate

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
)

// moduleRoot returns the repository root (the directory holding go.mod).
func moduleRoot(t testing.TB) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Dir(filepath.Dir(file))
}

// lineDiff describes the first differing line of got and want.
func lineDiff(got, want []byte) string {
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

// sameDecoding checks that every selection of a decodes exactly like the
// same selection of b (titles, kinds, roles, texts and copy-all text).
func sameDecoding(a, b *cookbook.File) error {
	sa, sb := a.Selections(), b.Selections()
	if len(sa) != len(sb) {
		return fmt.Errorf("%d selections, want %d", len(sb), len(sa))
	}
	for i, s := range sa {
		if sb[i] != s {
			return fmt.Errorf("selection %d is %+v, want %+v", i, sb[i], s)
		}
		da, err := a.Decode(s)
		if err != nil {
			return err
		}
		db, err := b.Decode(s)
		if err != nil {
			return err
		}
		if da.CopyAll != db.CopyAll {
			return fmt.Errorf("%+v: copy-all differs:\n%s\n--- want ---\n%s", s, db.CopyAll, da.CopyAll)
		}
		if len(da.Blocks) != len(db.Blocks) {
			return fmt.Errorf("%+v: %d blocks, want %d", s, len(db.Blocks), len(da.Blocks))
		}
		for j := range da.Blocks {
			if da.Blocks[j] != db.Blocks[j] {
				return fmt.Errorf("%+v block %d: %+v, want %+v", s, j, db.Blocks[j], da.Blocks[j])
			}
		}
	}
	return nil
}
