package recipes

import (
	"path/filepath"
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
	for _, f := range scans {
		if _, err := DecodeFile(f.File); err != nil {
			rel, _ := filepath.Rel(root, f.File)
			t.Errorf("DecodeFile(%s): %v", rel, err)
		}
	}
	sum := Summarize(scans, errs)
	t.Logf("files %d (legacy md %d, model YAML %d, --config YAML %d); renderings %d; deployments %d",
		sum.Files, sum.ByKind["markdown"], sum.ByKind["recipe"], sum.ByKind["config"], sum.Renderings, sum.Deploys)
	t.Logf("launch blocks %d (%d commands); with hardware context %d; hardware only in prose %d; unparsable %d",
		sum.Blocks.Launch, sum.Commands, sum.Blocks.WithHardware, sum.Blocks.ProseOnly, len(sum.Unparsable))
	for _, k := range []string{"markdown", "recipe"} {
		c := sum.BlocksByKind[k]
		t.Logf("  %s: launch blocks %d, with hardware context %d, hardware only in prose %d", k, c.Launch, c.WithHardware, c.ProseOnly)
	}
	for _, r := range sum.Unparsable {
		t.Logf("unparsable: %s", r)
	}
	if sum.ByKind["markdown"] == 0 || sum.ByKind["recipe"] == 0 {
		t.Fatalf("corpus scan found no files: %v", sum.ByKind)
	}
	// Every launch block's figures add up across kinds.
	var total BlockCounts
	for _, c := range sum.BlocksByKind {
		total.Launch += c.Launch
		total.WithHardware += c.WithHardware
		total.ProseOnly += c.ProseOnly
	}
	if total != sum.Blocks {
		t.Errorf("blocks by kind %+v do not add up to %+v", total, sum.Blocks)
	}
}
