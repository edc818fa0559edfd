package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestDefaultPGOIsACPUProfile: default.pgo, the profile go build
// optimizes the CLI with (-pgo=auto; made by .ci/pgo), is a CPU profile
// of this program's own work: it parses, samples CPU time, and its
// heaviest code includes the shell sandbox, the page runner and the vLLM
// recipes index (a profile of something else would optimize nothing of
// ours, silently).
func TestDefaultPGOIsACPUProfile(t *testing.T) {
	f, err := os.Open("default.pgo")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("default.pgo: %v", err)
	}
	cpu := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" && st.Unit == "nanoseconds" {
			cpu = i
		}
	}
	if cpu < 0 || len(p.Sample) == 0 {
		t.Fatalf("default.pgo: no CPU samples (sample types %v, %d samples)", p.SampleType, len(p.Sample))
	}
	var total int64
	byPkg := map[string]int64{}
	for _, s := range p.Sample {
		total += s.Value[cpu]
		seen := map[string]bool{}
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				for _, pkg := range []string{"/infx/sandbox.", "/cookbook/pages.", "/recipes."} {
					if ln.Function != nil && strings.Contains(ln.Function.Name, "cookbook-sync"+pkg) && !seen[pkg] {
						seen[pkg] = true
						byPkg[pkg] += s.Value[cpu]
					}
				}
			}
		}
	}
	if total < 10e9 {
		t.Errorf("default.pgo: %.1f s of CPU samples, want at least 10 s (a profile of the complete trees)", float64(total)/1e9)
	}
	for _, pkg := range []string{"/infx/sandbox.", "/cookbook/pages.", "/recipes."} {
		if share := float64(byPkg[pkg]) / float64(total); share < 0.02 {
			t.Errorf("default.pgo: %s code in %.1f%% of the samples, want at least 2%%", pkg, 100*share)
		}
	}
}
