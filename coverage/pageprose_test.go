package coverage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/cookbook/pages"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// proseSels are the selections of the fixture page
// testdata/prose/docs/cookbook/autoregressive/Acme/Comet.mdx, in the
// generators' shape.
func proseSels() []pages.Selection {
	mk := func(model, hw, quant, ckpt, tp string) pages.Selection {
		cmd := "sglang serve --model-path " + ckpt
		if tp != "" {
			cmd += " \\\n  --tp " + tp
		}
		return pages.Selection{File: "docs/src/snippets/autoregressive/comet-deployment.jsx", Page: "docs/cookbook/autoregressive/Acme/Comet.mdx",
			Kind: "generator", Cell: -1, Values: map[string]any{"model": model, "hardware": hw, "quantization": quant},
			Order: []string{"model", "hardware", "quantization"}, Command: cmd + "\n"}
	}
	return []pages.Selection{
		mk("397b", "mi355x", "fp4", "amd/Comet-397B-MXFP4", "2"),
		mk("397b", "mi355x", "fp8", "acme/Comet-397B-FP8", "2"),
		mk("35b", "mi355x", "fp8", "acme/Comet-35B-FP8", ""),
		mk("397b", "h200", "fp8", "acme/Comet-397B-FP8", "4"),
		mk("35b", "h200", "fp8", "acme/Comet-35B-FP8", ""),
	}
}

// TestPageProseAlternates: a page's prose statements are alternates of the
// selections they scope, and only of those.
func TestPageProseAlternates(t *testing.T) {
	sels := proseSels()
	cs, errs := parseCands(sels)
	if len(errs) > 0 || len(cs) != 5 {
		t.Fatalf("parse: %v %d", errs, len(cs))
	}
	alts := pageProseCands("testdata/prose", cs, &proseCache{})
	var got []string
	for _, a := range alts {
		got = append(got, fmt.Sprintf("%s %s %s:%d", a.sig.Model, a.sig.Hardware, a.prose.st.Summary(), a.prose.st.Line))
	}
	want := []string{
		// "**H200 397B FP8**: Add `--page-size 64`": the 397B only
		"acme/Comet-397B-FP8 h200 add --page-size 64:15",
		// "Add `--enable-metrics` to any command": every selection
		"amd/Comet-397B-MXFP4 mi355x add --enable-metrics:16",
		"acme/Comet-397B-FP8 mi355x add --enable-metrics:16",
		"acme/Comet-35B-FP8 mi355x add --enable-metrics:16",
		"acme/Comet-397B-FP8 h200 add --enable-metrics:16",
		"acme/Comet-35B-FP8 h200 add --enable-metrics:16",
		// "(use tp=4 for low concurrency). (MXFP4)": the MXFP4 checkpoint
		// on MI355X; "runs with tp=2" is the selection already
		"amd/Comet-397B-MXFP4 mi355x tp=4:21",
	}
	// not: the weight-loading tip (no hardware on a page with several),
	// "**H200 (FP8)**: Add `--enable-symm-mem`" and the FP8 "MI355X runs
	// with tp=4" (a precision alone on a page with several FP8
	// checkpoints on that hardware)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("alternates:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ix := buildIndex(cs, alts)
	// InferenceX TP4 on MI355X with the MXFP4 checkpoint: the alternate,
	// citing its sentence and qualifier
	want4 := roleSig{Model: "amd/Comet-397B-MXFP4", Hardware: "mi355x", Precision: "fp4", Role: launch.RoleAgg, TP: 4, EP: 1, Nodes: 1, Spec: "none"}
	exact, _, nm := ix.match(want4)
	if len(exact) != 1 || exact[0].prose == nil {
		t.Fatalf("TP4 mxfp4: %d exact, misses %v", len(exact), nm)
	}
	ref := pageRef(exact[0])
	if ref.Prose == nil || ref.Prose.Line != 21 || ref.Prose.Qualifier != "for low concurrency" || ref.Prose.Setting != "tp=4" ||
		!strings.HasSuffix(ref.Where, ` + prose docs/cookbook/autoregressive/Acme/Comet.mdx:21 "MI355X (288GB) runs with tp=2 (use tp=4 for low concurrency)." (qualifier "for low concurrency", taken at every concurrency) (tp=4)`) {
		t.Errorf("ref: %+v %+v", ref, ref.Prose)
	}
	a, _ := launch.Lookup(exact[0].dep.Processes[exact[0].proc].Args, "--tp")
	if len(a) != 1 || a[0] != "4" {
		t.Errorf("args: %+v", exact[0].dep.Processes[exact[0].proc].Args)
	}
	if pageSelKey(exact[0]) == pageSelKey(&cs[0]) {
		t.Error("the alternate shares its selection's key")
	}
	// the base selection is untouched
	if b, _ := launch.Lookup(cs[0].dep.Processes[cs[0].proc].Args, "--tp"); b[0] != "2" {
		t.Errorf("base changed: %v", b)
	}
	// TP4 of the 397B-FP8 on MI355X: the FP8 bullet names no model — not
	// covered (the nearest is the selection at TP2)
	want8 := want4
	want8.Model, want8.Precision = "acme/Comet-397B-FP8", "fp8"
	if exact, nearest, _ := ix.match(want8); len(exact) != 0 || nearest == nil || nearest.prose != nil && nearest.sig.TP == 4 {
		t.Errorf("TP4 fp8: %d exact", len(exact))
	}
}
