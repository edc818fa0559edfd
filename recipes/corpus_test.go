package recipes

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestCorpusDecodeAll decodes every .md and .yaml recipe of the vllm-recipes
// corpus and reports launch blocks found, blocks with hardware context and
// unparsable blocks with their reasons. Every file must decode.
func TestCorpusDecodeAll(t *testing.T) {
	root := recipesRoot(t)
	scans, errs := ScanDir(root)
	for _, err := range errs {
		t.Errorf("decode: %v", err)
	}
	var files, md, recipes, configs, launch, withHW, proseHW, cmds, unparsable, renderings, deps int
	byKind := map[string][3]int{} // launch blocks, with hardware, prose only
	var reasons []string
	for _, f := range scans {
		files++
		switch f.Kind {
		case "markdown":
			md++
		case "recipe":
			recipes++
		case "config":
			configs++
		}
		renderings += len(f.Renderings)
		deps += len(f.Deployments)
		for _, b := range f.Blocks {
			if b.Err != nil {
				unparsable++
				reasons = append(reasons, b.Err.Error())
				continue
			}
			if !b.IsLaunch() {
				continue
			}
			launch++
			k := byKind[f.Kind]
			k[0]++
			cmds += len(b.Shell.Commands)
			if len(b.HardwareWords) > 0 {
				withHW++
				k[1]++
			} else if len(b.ProseHardware) > 0 {
				proseHW++
				k[2]++
			}
			byKind[f.Kind] = k
		}
		if _, err := DecodeFile(f.File); err != nil {
			rel, _ := filepath.Rel(root, f.File)
			t.Errorf("DecodeFile(%s): %v", rel, err)
		}
	}
	sort.Strings(reasons)
	t.Logf("files %d (legacy md %d, model YAML %d, --config YAML %d); renderings %d; deployments %d", files, md, recipes, configs, renderings, deps)
	t.Logf("launch blocks %d (%d commands); with hardware context %d; hardware only in prose %d; unparsable %d", launch, cmds, withHW, proseHW, unparsable)
	for _, k := range []string{"markdown", "recipe"} {
		t.Logf("  %s: launch blocks %d, with hardware context %d, hardware only in prose %d", k, byKind[k][0], byKind[k][1], byKind[k][2])
	}
	for _, r := range reasons {
		t.Logf("unparsable: %s", r)
	}
	if md == 0 || recipes == 0 {
		t.Fatalf("corpus scan found no files: %s", fmt.Sprint(md, recipes))
	}
	_ = strings.TrimSpace
}
