package recipes

import "sort"

// BlockCounts counts the launch blocks of one kind of file.
type BlockCounts struct {
	Launch       int // fenced blocks that launch a server
	WithHardware int // of those, with a hardware context (heading, tab label, <summary>)
	ProseOnly    int // of those, with hardware named only in the paragraph before
}

// ScanSummary totals what ScanDir found in a recipes tree: the figures
// `cookbook-sync recipes scan` prints.
type ScanSummary struct {
	Files      int            // files read, failed ones included
	ByKind     map[string]int // files per FileScan.Kind: markdown, recipe, config
	Failed     []error        // files that could not be decoded (ScanDir's errs)
	Renderings int            // site renderings of model YAML recipes (spec §9)
	Deploys    int            // launch.Deployments in all
	Commands   int            // shell commands in launch blocks
	Blocks     BlockCounts    // launch blocks of every kind
	// BlocksByKind splits Blocks by FileScan.Kind.
	BlocksByKind map[string]BlockCounts
	// Unparsable lists the reason of every block whose shell did not parse, sorted.
	Unparsable []string
}

// Summarize totals scans and errs as returned by ScanDir.
func Summarize(scans []*FileScan, errs []error) ScanSummary {
	s := ScanSummary{Files: len(scans) + len(errs), ByKind: map[string]int{}, Failed: errs, BlocksByKind: map[string]BlockCounts{}}
	for _, f := range scans {
		s.ByKind[f.Kind]++
		s.Renderings += len(f.Renderings)
		s.Deploys += len(f.Deployments)
		for _, b := range f.Blocks {
			switch {
			case b.Err != nil:
				s.Unparsable = append(s.Unparsable, b.Err.Error())
			case b.IsLaunch():
				k := s.BlocksByKind[f.Kind]
				k.Launch++
				s.Blocks.Launch++
				s.Commands += len(b.Shell.Commands)
				if len(b.HardwareWords) > 0 {
					k.WithHardware++
					s.Blocks.WithHardware++
				} else if len(b.ProseHardware) > 0 {
					k.ProseOnly++
					s.Blocks.ProseOnly++
				}
				s.BlocksByKind[f.Kind] = k
			}
		}
	}
	sort.Strings(s.Unparsable)
	return s
}
