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

// runnersFile is what configs/runners.yaml says: the runner names of each
// label and the hardware records.
type runnersFile struct {
	file   string              // the file read ("" when the checkout has none)
	labels map[string][]string // label → runner names, in file order
	hw     map[string]runnerHW // label → hardware record
}

// loadRunners reads configs/runners.yaml (or .github/configs/runners.yaml
// before 2026-07-02) once: `labels:` (or, in older files, a flat mapping of
// label → runner names) and `hardware:` (label → available-cpu-dram-mib,
// gpus-per-node). A file that exists but does not parse, or whose labels
// are not lists of runner names, is an error with its position: it decides
// which launcher runs a script. No file gives empty maps.
// Source: InferenceX configs/runners.yaml; utils/matrix_logic reads it.
func loadRunners(base string) (runnersFile, error) {
	rf := runnersFile{labels: map[string][]string{}, hw: map[string]runnerHW{}}
	for _, p := range []string{filepath.Join(base, "configs", "runners.yaml"), filepath.Join(base, ".github", "configs", "runners.yaml")} {
		if !exists(p) {
			continue
		}
		rf.file = p
		data, err := launch.ReadInput(p)
		if err != nil {
			return rf, err
		}
		root, err := parseYAML(p, data)
		if err != nil {
			return rf, err
		}
		root = resolveAlias(root)
		if hw := resolveAlias(mapGet(root, "hardware")); hw != nil && hw.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(hw.Content); i += 2 {
				rec := resolveAlias(hw.Content[i+1])
				var r runnerHW
				if v, err := nodeInt(p, mapGet(rec, "available-cpu-dram-mib"), ""); err == nil && v > 0 {
					r.dramMiB = v
				}
				if v, err := nodeInt(p, mapGet(rec, "gpus-per-node"), ""); err == nil && v > 0 {
					r.gpusPerNode = v
				}
				rf.hw[hw.Content[i].Value] = r
			}
		}
		labels := resolveAlias(mapGet(root, "labels"))
		flat := labels == nil
		if flat {
			labels = root
		}
		if labels == nil || labels.Kind != yaml.MappingNode {
			return rf, posErr(p, labels, "runner labels: expected a mapping of label to runner names")
		}
		for i := 0; i+1 < len(labels.Content); i += 2 {
			k, n := labels.Content[i], resolveAlias(labels.Content[i+1])
			if flat && k.Value == "hardware" {
				continue
			}
			if n == nil || n.Kind != yaml.SequenceNode {
				return rf, posErr(p, n, "runner label %s: expected a list of runner names", k.Value)
			}
			var names []string
			for _, c := range n.Content {
				c = resolveAlias(c)
				if c.Kind != yaml.ScalarNode {
					return rf, posErr(p, c, "runner label %s: expected a runner name", k.Value)
				}
				names = append(names, c.Value)
			}
			rf.labels[k.Value] = names
		}
		return rf, nil
	}
	return rf, nil
}
