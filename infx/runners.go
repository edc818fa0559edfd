package infx

import (
	"path/filepath"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"go.yaml.in/yaml/v3"
)

// loadRunnerDRAM reads configs/runners.yaml `hardware:` (runner label →
// {available-cpu-dram-mib, gpus-per-node}) and returns the DRAM per runner
// label in MiB. A missing or unreadable file gives an empty map: the DRAM
// budget is only an input to agentic scripts (TOTAL_CPU_DRAM_GB).
func loadRunnerDRAM(base string) map[string]int {
	out := map[string]int{}
	p := filepath.Join(base, "configs", "runners.yaml")
	data, err := launch.ReadInput(p)
	if err != nil {
		return out
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
		if v, err := nodeInt(p, mapGet(resolveAlias(hw.Content[i+1]), "available-cpu-dram-mib"), ""); err == nil && v > 0 {
			out[hw.Content[i].Value] = v
		}
	}
	return out
}
