package generate

import (
	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// lineDiff describes the first differing line of got and want.
func lineDiff(got, want []byte) string { return testutil.LineDiff(got, want) }

// sameDecoding is cookbook.SameDecoding.
func sameDecoding(a, b *cookbook.File) error { return cookbook.SameDecoding(a, b) }
