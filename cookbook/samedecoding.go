package cookbook

import "fmt"

// SameDecoding checks that every selection of a decodes exactly like the
// same selection of b (titles, kinds, roles, texts and copy-all text): the
// check that a re-encoded or generated snippet shows what the page showed.
// The error names the first selection that differs and how.
func SameDecoding(a, b *File) error {
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
