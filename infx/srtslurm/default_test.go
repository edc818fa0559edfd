package srtslurm_test

import (
	"testing"

	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
)

// TestDefaultVersionIsNewest: the default srt-slurm version of infx, which
// is the default of every --srt-slurm-version flag (cmd/cookbook-sync
// render, coverage, generate), is the newest release of releases.yaml.
func TestDefaultVersionIsNewest(t *testing.T) {
	if infx.DefaultSrtSlurmVersion != srtslurm.Newest() || srtslurm.Newest() == "" {
		t.Errorf("infx.DefaultSrtSlurmVersion = %q, srtslurm.Newest() = %q", infx.DefaultSrtSlurmVersion, srtslurm.Newest())
	}
}
