package coverage

import (
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/batchgc"
)

// TestMain: the collector as the CLI sets it (package batchgc).
func TestMain(m *testing.M) { batchgc.Main(m) }
