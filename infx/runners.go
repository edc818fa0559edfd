package infx

import (
	"path/filepath"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"go.yaml.in/yaml/v3"
)

// runnerHW is one runners.yaml `hardware:` record.
type runnerHW struct {
	dramMiB     int // available-cpu-dram-mib
	gpusPerNode int // gpus-per-node
}

// loadRunnerDRAM reads configs/runners.yaml `hardware:` (runner label →
// {available-cpu-dram-mib, gpus-per-node}) and returns the DRAM per runner
// label in MiB. A missing or unreadable file gives an empty map: the DRAM
// budget is only an input to agentic scripts (TOTAL_CPU_DRAM_GB).
func loadRunnerDRAM(base string) map[string]int {
	out := map[string]int{}
	for k, v := range loadRunnerHW(base) {
		if v.dramMiB > 0 {
			out[k] = v.dramMiB
		}
	}
	return out
}

// loadRunnerHW reads configs/runners.yaml (or .github/configs/runners.yaml
// before 2026-07-02) `hardware:` records by runner label.
func loadRunnerHW(base string) map[string]runnerHW {
	out := map[string]runnerHW{}
	for _, p := range []string{filepath.Join(base, "configs", "runners.yaml"), filepath.Join(base, ".github", "configs", "runners.yaml")} {
		data, err := launch.ReadInput(p)
		if err != nil {
			continue
		}
		root, err := parseYAML(p, data)
		if err != nil {
			return out
		}
		hw := resolveAlias(mapGet(root, "hardware"))
		if hw == nil || hw.Kind != yaml.MappingNode {
			return out
		}
		for i := 0; i+1 < len(hw.Content); i += 2 {
			rec := resolveAlias(hw.Content[i+1])
			var r runnerHW
			if v, err := nodeInt(p, mapGet(rec, "available-cpu-dram-mib"), ""); err == nil && v > 0 {
				r.dramMiB = v
			}
			if v, err := nodeInt(p, mapGet(rec, "gpus-per-node"), ""); err == nil && v > 0 {
				r.gpusPerNode = v
			}
			out[hw.Content[i].Value] = r
		}
		return out
	}
	return out
}
