package infx

import (
	"os"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/batchgc"
)

// TestMain runs the tests with the collector set as the CLI sets it for a
// batch run (package batchgc): these tests run the renderers and the main
// job many times.
func TestMain(m *testing.M) {
	batchgc.Tune(os.Getenv)
	os.Exit(m.Run())
}
