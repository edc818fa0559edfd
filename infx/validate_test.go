package infx

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestMasterValidation: each fixture in testdata/invalid breaks one rule of
// the master schema (shared/spec/inferencex.md (a): extra='forbid' field
// names, enums, counts, concurrency ranges, recipe paths; the union of
// InferenceX's schemas of 2026-06-01 … 2026-08-22, validate.go) in its one
// key "k". Read next to a valid master, the contract is: Open-style
// loading succeeds, the valid keys load, asking for "k" (Entry, Points)
// gives exactly this positioned error, and Warnings reports the same
// problem for k. (agentic-runner, disagg-no-kvp2p and disagg-single-node
// are no longer here: each was valid before its rule appeared in the
// period; see TestHistoryUnionAccepted.)
func TestMasterValidation(t *testing.T) {
	want := map[string]string{
		"conc-both":               `20:9: k.scenarios.fixed-seq-len[0].search-space[0]: give either conc-list or conc-start/conc-end, not both`,
		"conc-list-big":           `19:24: k.scenarios.fixed-seq-len[0].search-space[0].conc-list[1]: concurrency must be in 1..1048576, got 2000000`,
		"conc-list-long":          `19:20: k.scenarios.fixed-seq-len[0].search-space[0].conc-list: 65 concurrencies, more than the 64 points a row may have`,
		"concrange-huge":          `20:19: k.scenarios.fixed-seq-len[0].search-space[0].conc-end: concurrency must be in 1..1048576, got 4611686018427387905`,
		"concrange-reversed":      `20:19: k.scenarios.fixed-seq-len[0].search-space[0].conc-end: 1 is below conc-start 1024`,
		"concrange-zero":          `19:21: k.scenarios.fixed-seq-len[0].search-space[0].conc-start: concurrency must be in 1..1048576, got 0`,
		"config-file-absolute":    `26:13: k.scenarios.fixed-seq-len[0].search-space[0].prefill.additional-settings[0]: CONFIG_FILE: path "/etc/passwd" is absolute, want a path inside the checkout`,
		"config-file-empty":       `26:13: k.scenarios.fixed-seq-len[0].search-space[0].prefill.additional-settings[0]: CONFIG_FILE: empty path`,
		"config-file-escape":      `26:13: k.scenarios.fixed-seq-len[0].search-space[0].prefill.additional-settings[0]: CONFIG_FILE: path "recipes/../../../../etc/passwd" escapes the checkout root`,
		"dram-utilization":        `16:25: k.scenarios.agentic-coding[0].dram-utilization: want a fraction in (0, 1], got 1.5`,
		"framework":               `9:14: k.framework: unknown value "quantum" (want one of: sglang, vllm, trt, atom, dynamo-sglang, dynamo-vllm, dynamo-trt, sglang-disagg, atom-disagg, llmd-vllm, tilert, vllm-disagg)`,
		"kv-offload-backend":      `20:37: k.scenarios.agentic-coding[0].search-space[0].kv-offload-backend.name: unknown value "floppy" (want one of: hicache, lmcache, mooncake, vllm-simple, native, vllm-native)`,
		"kv-offload-backend-bare": `20:29: k.scenarios.agentic-coding[0].search-space[0].kv-offload-backend: unknown value "floppy" (want one of: hicache, lmcache, mooncake, vllm-simple, native, vllm-native)`,
		"kv-offloading-fixed":     `20:9: k.scenarios.fixed-seq-len[0].search-space[0]: kv-offloading is only allowed in agentic-coding rows`,
		"kv-p2p":                  `11:20: k.kv-p2p-transfer: unknown value "carrier-pigeon" (want one of: nixl, mooncake, mori, ucx, moriio)`,
		"kv-p2p-twice":            `20:9: k.scenarios.fixed-seq-len[0].search-space[0]: kv-p2p-transfer is set on the entry too; give it on the entry or on the rows, never both`,
		"missing-runner":          `3:1: config key "k": missing field "runner"`,
		"neg-tp":                  `22:15: k.scenarios.fixed-seq-len[0].search-space[0].prefill.tp: want an integer ≥ 1, got -4`,
		"offloading-fixed":        `20:9: k.scenarios.fixed-seq-len[0].search-space[0]: offloading is only allowed in agentic-coding rows`,
		"offloading-mixed":        `19:9: k.scenarios.agentic-coding[0].search-space[0]: kv-offloading replaced offloading on 2026-07-02 (InferenceX 303669b0e); give one or the other`,
		"precision":               `8:14: k.precision: unknown value "fp3" (want one of: fp4, fp8, bf16, int4)`,
		"router-scalar":           `10:11: k.router: want {name, version}, got a scalar`,
		"router-twice":            `20:9: k.scenarios.fixed-seq-len[0].search-space[0]: router is set on the entry too; give it on the entry or on the rows, never both`,
		"spec-decoding":           `20:24: k.scenarios.fixed-seq-len[0].search-space[0].spec-decoding: unknown value "warp" (want one of: mtp, draft_model, none)`,
		"unknown-entry-field":     `9:3: k: unknown field "bogus-field" (allowed: image, model, model-prefix, runner, precision, framework, multinode, disagg, router, kv-p2p-transfer, srt-recipe-dir, scenarios)`,
		"unknown-router-field":    `10:52: k.router: unknown field "mode" (allowed: name, version)`,
		"unknown-row-field":       `20:9: k.scenarios.fixed-seq-len[0].search-space[0]: unknown field "bogus-row" (allowed: tp, ep, dp-attn, pp, dcp-size, pcp-size, spec-decoding, conc-start, conc-end, conc-list, router, kv-p2p-transfer, kv-offloading, kv-offload-backend, offloading, power, require-power, prefill, decode, worker, num-nodes, srt-recipe, eval-srt-recipe)`,
		"unknown-worker-field":    `22:11: k.scenarios.fixed-seq-len[0].search-space[0].prefill: unknown field "gpus" (allowed: num-worker, tp, ep, dp-attn, pp, dcp-size, pcp-size, hardware, additional-settings)`,
	}
	// The valid neighbour: its keys load whatever k holds.
	const good = "testdata/old/configs/nvidia-master.yaml"
	ref := &Workspace{Root: "testdata/old", Base: "testdata/old"}
	if err := ref.load([]string{good}); err != nil || len(ref.Warnings()) != 0 {
		t.Fatalf("%s: %v %v", good, err, ref.Warnings())
	}
	goodKeys := ref.ConfigKeys()
	files, _ := filepath.Glob("testdata/invalid/*.yaml")
	if len(files) != len(want) {
		t.Errorf("%d fixtures, %d expected errors", len(files), len(want))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".yaml")
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: no expected error", name)
			continue
		}
		ws := &Workspace{Root: "testdata/old", Base: "testdata/old"}
		if err := ws.load([]string{f, good}); err != nil {
			t.Errorf("%s: load: %v", name, err)
			continue
		}
		eqStrings(t, name+": loaded keys", ws.ConfigKeys(), goodKeys)
		full := f + ":" + w
		_, err := ws.Entry("k")
		if err == nil || err.Error() != full {
			t.Errorf("%s: Entry:\n got %v\nwant %s", name, err, full)
		}
		var pe *PosError
		if !errors.As(err, &pe) {
			t.Errorf("%s: not a PosError: %T", name, err)
			continue
		}
		if _, perr := ws.Points("k"); perr == nil || perr.Error() != full {
			t.Errorf("%s: Points: %v", name, perr)
		}
		ws0 := ws.Warnings()
		if len(ws0) != 1 || ws0[0].Key != "k" || ws0[0].String() != full || ws0[0].Pos.File != f || ws0[0].Pos.Line != pe.Line || ws0[0].Pos.Col != pe.Col {
			t.Errorf("%s: warnings = %+v", name, ws0)
		}
	}
}

// TestRecipeRefDirectory: a CONFIG_FILE naming a directory of the checkout
// is a render error at the master's reference (not an upstream-only
// recipe); "a/../b" references are cleaned and render.
func TestRecipeRefDirectory(t *testing.T) {
	ws, err := Open("testdata/refdir")
	if err != nil {
		t.Fatal(err)
	}
	pts, err := ws.Points("dirref")
	if err != nil || len(pts) != 2 {
		t.Fatalf("points: %v %d", err, len(pts))
	}
	if pts[0].Status != StatusOK {
		t.Errorf("directory reference status = %s (%s)", pts[0].Status, pts[0].Note)
	}
	_, err = ws.Render(context.Background(), pts[0], Options{})
	want := "testdata/refdir/configs/nvidia-master.yaml:23:13: recipe recipes/sglang/dsr1/8k1k: testdata/refdir/benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/8k1k: a directory, want a file"
	if err == nil || err.Error() != want {
		t.Errorf("render directory:\n got %v\nwant %s", err, want)
	}
	if pts[1].RecipeRef != "recipes/sglang/dsr1/8k1k/disagg-1p1d.yaml" {
		t.Errorf("cleaned ref = %s", pts[1].RecipeRef)
	}
	if _, err := ws.Render(context.Background(), pts[1], Options{}); err != nil {
		t.Errorf("render cleaned ref: %v", err)
	}
	s, err := ws.RenderAll(context.Background(), nil, Options{})
	if err != nil || s.Errors != 1 || s.Rendered != 1 || s.UpstreamOnly != 0 {
		t.Errorf("RenderAll: %v %+v", err, s)
	}
}

// TestMasterNotUTF8: yaml.v3 reports an encoding error without a line; the
// error points at the first byte that is not UTF-8.
func TestMasterNotUTF8(t *testing.T) {
	_, err := parseMaster("m.yaml", []byte("k:\n  image: \"ab\xffc\"\n"))
	if want := "m.yaml:2:13: YAML: invalid leading UTF-8 octet"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
