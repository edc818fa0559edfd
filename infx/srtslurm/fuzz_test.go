package srtslurm

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/fuzzbound"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// FuzzParseRender feeds arbitrary YAML to Parse and renders every selector
// with a few versions: errors are fine, panics and hangs are not. Seeds:
// the testdata recipes, and, when fuzzing, the real ones of ../shared.
func FuzzParseRender(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	if dir, ok := testutil.SharedWhenFuzzing("corpus/srt-slurm"); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "benchmarks/multi_node/srt-slurm-recipes/*/*/*/*.yaml"))
		more2, _ := filepath.Glob(filepath.Join(dir, "benchmarks/multi_node/srt-slurm-recipes/*/*/*/*/*.yaml"))
		seeds = append(append(seeds, more...), more2...)
	}
	for _, s := range seeds {
		if data, err := os.ReadFile(s); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("base: {name: n}\nzip_override_z: {resources: {agg_nodes: [1, 2]}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := fuzzbound.Within(fuzzbound.Bound, func() error {
			r, err := Parse("fuzz.yaml", data)
			if err != nil {
				return nil
			}
			sels := append(r.Selectors(), "base")
			if len(sels) > 8 {
				sels = sels[:8]
			}
			for _, sel := range sels {
				for _, v := range []string{"", "sa-submission-q2-2026", "v1.0.31", "aflowers/vllm-gb200-v0.20.0"} {
					out, err := r.Render(sel, Options{Version: v})
					if err == nil {
						_ = out.Text()
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%v\ninput: %q", err, data)
		}
	})
}
