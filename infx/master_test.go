package infx

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/fuzzbound"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

func openNew(t testing.TB) *Workspace {
	t.Helper()
	ws, err := Open("testdata/new")
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestOpenLayouts(t *testing.T) {
	old := openOld(t)
	if old.Layout != LayoutOld || old.Base != "testdata/old" {
		t.Errorf("old: layout %s base %s", old.Layout, old.Base)
	}
	eqStrings(t, "old keys", old.ConfigKeys(), []string{
		"qwen3.5-fp8-mi355x-sglang-disagg", // amd-master.yaml sorts first
		"dsr1-fp8-h200-sglang", "qwen3.5-fp8-h200-vllm", "qwen3.5-fp8-h200-sglang-agentic-mtp",
		"glm5.2-fp8-h200-sglang", "loop-fp8-h200-sglang", "kimik3-fp4-h200-sglang",
		"dsr1-fp4-gb200-dynamo-sglang", "dsr1-fp4-gb200-dynamo-trt", "dsr1-fp4-b200-trt",
	})
	nw := openNew(t)
	if nw.Layout != LayoutNew || nw.Base != filepath.Join("testdata", "new", "inferencex-e2e") {
		t.Errorf("new: layout %s base %s", nw.Layout, nw.Base)
	}
	// Opening the inferencex-e2e directory itself is the new layout too.
	ws, err := Open("testdata/new/inferencex-e2e")
	if err != nil || ws.Layout != LayoutNew {
		t.Errorf("inferencex-e2e root: %v %v", ws, err)
	}
	if _, err := Open("testdata/none"); err == nil {
		t.Error("no master config: no error")
	}
}

func TestPointsOldLayout(t *testing.T) {
	ws := openOld(t)
	pts, err := ws.Points("dsr1-fp8-h200-sglang")
	if err != nil {
		t.Fatal(err)
	}
	// conc-start 4 .. conc-end 16 doubles: 4, 8, 16; then conc-list [64].
	var got []string
	for _, p := range pts {
		got = append(got, p.Scenario+" "+itoa(p.Row)+" "+itoa(p.Concurrency)+" "+string(p.Kind)+" "+string(p.Status))
	}
	eqStrings(t, "points", got, []string{
		"fixed-seq-len 0 4 script ok", "fixed-seq-len 0 8 script ok", "fixed-seq-len 0 16 script ok", "fixed-seq-len 1 64 script ok",
	})
	p := pts[0]
	if p.Hardware != "h200" || p.Engine != "sglang" || !p.InScope || p.ISL != 8192 || p.OSL != 1024 || p.Image != "lmsysorg/sglang:v0.5.12-cu129" {
		t.Errorf("point = %+v", p)
	}

	pts, _ = ws.Points("dsr1-fp4-gb200-dynamo-sglang")
	type want struct {
		ref, sel string
		status   Status
	}
	wants := []want{
		{"recipes/sglang/dsr1/gb200-fp4/8k1k/disagg-1p1d.yaml", "", StatusOK},
		{"recipes/sglang/dsr1/gb200-fp4/8k1k/disagg-1p1d.yaml", "", StatusOK},
		{"recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml", "zip_override_lowlat[1]", StatusOK},
		{"recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml", "override_maxtpt", StatusOK},
		{"recipes/gb200-fp4/8k1k.yaml", "override_stp_tp4", StatusUpstreamOnly},
		{"recipes/gb200-fp4/8k1k.yaml", "override_stp_tp4", StatusUpstreamOnly},
	}
	if len(pts) != len(wants) {
		t.Fatalf("points = %d, want %d", len(pts), len(wants))
	}
	for i, w := range wants {
		if pts[i].RecipeRef != w.ref || pts[i].Selector != w.sel || pts[i].Status != w.status || pts[i].Kind != KindRecipe {
			t.Errorf("point %d = %s %s %s, want %+v", i, pts[i].RecipeRef, pts[i].Selector, pts[i].Status, w)
		}
	}
	up := pts[4]
	if up.RefPos.Line != 145 || up.RefPos.Col != 13 || !strings.Contains(up.Note, "NVIDIA/srt-slurm") {
		t.Errorf("upstream-only point: pos %v note %q", up.RefPos, up.Note)
	}
	_, err = ws.Render(context.Background(), up, Options{})
	if !errors.Is(err, ErrNotRenderable) || !strings.Contains(err.Error(), "nvidia-master.yaml:145:13: ") || !strings.Contains(err.Error(), "upstream-only") {
		t.Errorf("render upstream-only: %v", err)
	}

	pts, _ = ws.Points("dsr1-fp4-gb200-dynamo-trt")
	if pts[0].InScope || pts[0].Engine != "trtllm" || pts[0].Status != StatusUpstreamOnly {
		t.Errorf("trt point = %+v", pts[0])
	}
	pts, _ = ws.Points("qwen3.5-fp8-mi355x-sglang-disagg")
	if pts[0].Status != StatusUnsupported || !pts[0].InScope || !strings.Contains(pts[0].Note, "no launcher of runner label mi355x-disagg") {
		t.Errorf("amd disagg point = %+v", pts[0])
	}
	if _, err := ws.Points("nope"); !errors.Is(err, ErrUnknownKey) {
		t.Errorf("unknown key: %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestRenderOldRecipes(t *testing.T) {
	ws := openOld(t)
	// override_maxtpt: null deletes enable-dp-attention from prefill, the
	// list gives repeated values, decode TP 8 on 2 nodes.
	d := renderOne(t, ws, pointAt(t, ws, "dsr1-fp4-gb200-dynamo-sglang", 2, 128), Options{})
	if d.Source.Selector != "override_maxtpt" || d.Source.Recipe != "recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml" ||
		d.Source.File != "benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml" || d.Model != "nvidia/DeepSeek-R1-0528-FP4" {
		t.Errorf("source = %+v model %s", d.Source, d.Model)
	}
	pre, dec := d.Workers(launch.RolePrefill), d.Workers(launch.RoleDecode)
	if len(pre) != 1 || len(dec) != 1 {
		t.Fatalf("workers: %d prefill, %d decode", len(pre), len(dec))
	}
	if _, ok := launch.Lookup(pre[0].Args, "--enable-dp-attention"); ok {
		t.Error("prefill keeps --enable-dp-attention deleted by null")
	}
	if v, _ := launch.Lookup(dec[0].Args, "--tensor-parallel-size"); strings.Join(v, " ") != "8" {
		t.Errorf("decode tp = %v", v)
	}
	if v, _ := launch.Lookup(dec[0].Args, "--cuda-graph-bs"); strings.Join(v, " ") != "1 2 4" {
		t.Errorf("decode cuda-graph-bs = %v", v)
	}
	// zip_override_lowlat[1]: decode cuda-graph-max-bs 32, two decode workers.
	d = renderOne(t, ws, pointAt(t, ws, "dsr1-fp4-gb200-dynamo-sglang", 1, 64), Options{})
	dec = d.Workers(launch.RoleDecode)
	if v, _ := launch.Lookup(dec[0].Args, "--cuda-graph-max-bs"); strings.Join(v, " ") != "32" {
		t.Errorf("zip[1] decode cuda-graph-max-bs = %v", v)
	}
	if n := dec[0].Workers; n != 2 && len(dec) != 2 {
		t.Errorf("zip[1] decode workers = %d (%d processes)", n, len(dec))
	}
	// Recipe args are marked recipe, injected ones injected.
	var kinds = map[launch.OriginKind]bool{}
	for _, a := range dec[0].Args {
		kinds[a.Origin.Kind] = true
	}
	if !kinds[launch.OriginRecipe] || !kinds[launch.OriginInjected] {
		t.Errorf("origins = %v", kinds)
	}
	// Selector base: the base block itself.
	d, err := RenderRecipe(ws, "recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml:base", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := launch.Lookup(d.Workers(launch.RolePrefill)[0].Args, "--enable-dp-attention"); !ok || d.Source.Selector != "base" {
		t.Errorf("base: prefill lacks --enable-dp-attention (selector %q)", d.Source.Selector)
	}
	// A bundle named without a selector has several variants: an error.
	if _, err := RenderRecipe(ws, "recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml", Options{}); err == nil || !strings.Contains(err.Error(), "override_maxtpt, zip_override_lowlat[0], zip_override_lowlat[1]") {
		t.Errorf("no selector: %v", err)
	}
	// An unknown srt-slurm version is an error placed at the reference.
	_, err = ws.Render(context.Background(), pointAt(t, ws, "dsr1-fp4-gb200-dynamo-sglang", 0, 4), Options{SrtSlurmVersion: "v9.9.9"})
	if err == nil || !strings.Contains(err.Error(), "nvidia-master.yaml:117:13") {
		t.Errorf("unknown version: %v", err)
	}
}

func TestRenderNewLayout(t *testing.T) {
	ws := openNew(t)
	pts, err := ws.Points("qwen3.5-fp4-gb300-dynamo-sglang-agentic-disagg")
	if err != nil {
		t.Fatal(err)
	}
	if pts[0].RecipeRef != "qwen3.5/sglang/gb300-fp4/agentx/disagg-variants.yaml" || pts[0].Selector != "override_tp4_tp4_c8" ||
		len(pts[0].LaneBlocks) != 1 || filepath.Base(pts[0].LaneBlocks[0]) != "agentic-multi.yaml" {
		t.Errorf("point 0 = %+v", pts[0])
	}
	d := renderOne(t, ws, pts[1], Options{})
	pre, dec := d.Workers(launch.RolePrefill), d.Workers(launch.RoleDecode)
	if len(pre) != 1 || len(dec) != 1 {
		t.Fatalf("workers: %d prefill, %d decode", len(pre), len(dec))
	}
	if v, _ := launch.Lookup(pre[0].Args, "--tensor-parallel-size"); strings.Join(v, " ") != "2" {
		t.Errorf("prefill tp = %v", v)
	}
	if v, _ := launch.Lookup(dec[0].Args, "--max-running-requests"); strings.Join(v, " ") != "80" {
		t.Errorf("decode max-running-requests = %v", v)
	}
	if pre[0].GPUsPerNode != 2 && pre[0].GPUsPerNode != 0 {
		t.Errorf("prefill gpus/node = %d", pre[0].GPUsPerNode)
	}
	// Unknown selector: named at the master's srt-recipe, line:col.
	_, err = ws.Render(context.Background(), pts[2], Options{})
	if err == nil || !strings.Contains(err.Error(), "inferencex-e2e/configs/nvidia-master.yaml:35:21: ") || !strings.Contains(err.Error(), "override_tp8_tp8_c16") {
		t.Errorf("unknown selector: %v", err)
	}
	// A reference to a recipe that is not checked in.
	if pts[3].Status != StatusMissing || pts[3].RefPos.Line != 40 {
		t.Errorf("missing recipe point = %s %v", pts[3].Status, pts[3].RefPos)
	}

	// Single-node srt-slurm recipe: rows without a selector match the one
	// zip variant with their TP and CONC.
	pts, _ = ws.Points("qwen3.5-fp8-b200-sglang-mtp")
	var sels []string
	for _, p := range pts {
		d := renderOne(t, ws, p, Options{})
		agg := d.Workers(launch.RoleAgg)
		if len(agg) != 1 {
			t.Fatalf("agg workers = %d", len(agg))
		}
		tp, _ := launch.Lookup(agg[0].Args, "--tensor-parallel-size")
		mrr, _ := launch.Lookup(agg[0].Args, "--max-running-requests")
		sels = append(sels, d.Source.Selector+" tp"+strings.Join(tp, "")+" mrr"+strings.Join(mrr, ""))
	}
	eqStrings(t, "single-node variants", sels, []string{
		"zip_override_tp8_ep1[0] tp8 mrr4",
		"zip_override_tp4_ep1[0] tp4 mrr4", "zip_override_tp4_ep1[1] tp4 mrr8", "zip_override_tp4_ep1[2] tp4 mrr16",
		"zip_override_tp4_ep1[3] tp4 mrr32",
		"zip_override_tp4_ep1[2] tp4 mrr16", // the whole group, matched by CONC
		"zip_override_tp4_ep1[1] tp4 mrr8",  // a glob
	})

	// The agentic script that remains in the new layout.
	pts, _ = ws.Points("glm5.2-fp8-b200-sglang-agentic-mtp")
	d = renderOne(t, ws, pts[1], Options{})
	eqStrings(t, "script args", argsText(d.Processes[0].Args), []string{
		"--model-path zai-org/GLM-5.2-FP8", "--tp 8", "--speculative-algorithm EAGLE", "--cuda-graph-max-bs 8", "--port 8888",
	})

	s, err := ws.RenderAll(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The dynamo-trt point counts as out of scope, not also as missing.
	if s.Keys != 4 || s.Points != 14 || s.Rendered != 11 || s.Missing != 1 || s.OutOfScope != 1 || s.Errors != 1 {
		t.Errorf("summary = %+v", s)
	}
}

func TestMasterYAMLErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"syntax", "a:\n  image: x\n  model: [1,\n", "m.yaml:3:3: YAML: did not find expected node content"},
		{"tab", "k:\n\timage: x\n", "m.yaml:2:2: YAML: found character that cannot start any token"},
		{"not a mapping", "- a\n- b\n", "m.yaml:1:1: master config: want a mapping"},
		{"scalar entry", "k: 3\n", "m.yaml:1:4: config key \"k\": want a mapping"},
		{"missing model", "k:\n  image: i\n  framework: sglang\n  scenarios: {}\n", "m.yaml:1:1: config key \"k\": missing field \"model\""},
		{"bad conc", "k:\n  image: i\n  model: m\n  framework: sglang\n  scenarios:\n    fixed-seq-len:\n    - isl: 1\n      osl: 1\n      search-space:\n      - { tp: 8, conc-list: [4, x] }\n  model-prefix: p\n  runner: cluster:r\n  precision: fp8\n  multinode: false\n", "m.yaml:10:33: k.scenarios.fixed-seq-len[0].search-space[0].conc-list[1]: want an integer"},
		{"no conc", "k:\n  image: i\n  model: m\n  framework: sglang\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - { tp: 8 }\n  model-prefix: p\n  runner: cluster:r\n  precision: fp8\n  multinode: false\n", "m.yaml:8:9: k.scenarios.agentic-coding[0].search-space[0]: no concurrency"},
		{"bad scenario", "k:\n  image: i\n  model: m\n  framework: sglang\n  scenarios:\n    fixed: []\n  model-prefix: p\n  runner: cluster:r\n  precision: fp8\n  multinode: false\n", "m.yaml:6:5: k.scenarios: unknown scenario"},
		{"bad setting", "k:\n  image: i\n  model: m\n  framework: sglang\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - conc-list: [1]\n        prefill:\n          num-worker: 1\n          additional-settings: [\"CONFIG_FILE\"]\n  model-prefix: p\n  runner: cluster:r\n  precision: fp8\n  multinode: true\n", "m.yaml:11:33: k.scenarios.agentic-coding[0].search-space[0].prefill.additional-settings[0]: want NAME=value"},
		{"dup key", "k:\n  image: i\n  model: m\n  framework: sglang\n  scenarios: {}\n  model-prefix: p\n  runner: cluster:r\n  precision: fp8\n  multinode: false\nk:\n  image: i\n", "m.yaml:10:1: config key \"k\" already defined at line 1"},
		{"bad bool", "k:\n  image: i\n  model: m\n  framework: f\n  multinode: maybe\n  scenarios: {}\n", "m.yaml:5:14: k.multinode: want a boolean"},
	}
	for _, c := range cases {
		err := masterProblem("m.yaml", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want prefix %q", c.name, err, c.want)
		}
	}
	// Through Open: the error names the master file.
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "configs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "configs", "nvidia-master.yaml"), []byte("k:\n  image: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	var pe *PosError
	if !errors.As(err, &pe) || pe.File != filepath.Join(dir, "configs", "nvidia-master.yaml") || pe.Line == 0 || pe.Col == 0 {
		t.Errorf("Open: %v", err)
	}
}

func TestSplitSelector(t *testing.T) {
	for in, want := range map[string][2]string{
		"recipes/a/b.yaml":                            {"recipes/a/b.yaml", ""},
		"recipes/a/b.yaml:base":                       {"recipes/a/b.yaml", "base"},
		"recipes/a/b.yaml:zip_override_mtp_lowlat[0]": {"recipes/a/b.yaml", "zip_override_mtp_lowlat[0]"},
		"b.yaml:override_tp4":                         {"b.yaml", "override_tp4"},
	} {
		f, s := splitSelector(in)
		if f != want[0] || s != want[1] {
			t.Errorf("%s: %s %s", in, f, s)
		}
	}
	for in, want := range map[string]string{"cluster:gb300-nv": "gb300", "b200-multinode": "b200", "mi355x": "mi355x", "rtx6000pro-lat": "rtx6000pro"} {
		if got := Hardware(in); got != want {
			t.Errorf("Hardware(%s) = %s", in, got)
		}
	}
}

// masterProblem is parseMaster's file error, else the first config key's
// problem, else nil.
func masterProblem(file string, data []byte) error {
	its, err := parseMaster(file, data)
	if err != nil {
		return err
	}
	for _, it := range its {
		if it.err != nil {
			return it.err
		}
	}
	return nil
}

func FuzzParseMaster(f *testing.F) {
	for _, s := range []string{
		"k:\n  image: i\n  model: m\n  framework: sglang\n  scenarios:\n    fixed-seq-len:\n    - isl: 1\n      osl: 1\n      search-space:\n      - { tp: 8, conc-start: 1, conc-end: 64 }\n",
		"k:\n  image: i\n  model: m\n  framework: f\n  scenarios:\n    agentic-coding:\n    - search-space:\n      - conc-list: [1]\n        prefill: {additional-settings: [\"CONFIG_FILE=recipes/x.yaml:base\"]}\n",
		"a: &x {b: *x}\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := fuzzbound.Within(fuzzbound.Bound, func() error {
			its, err := parseMaster("fuzz.yaml", data)
			if err != nil {
				return nil
			}
			ws := &Workspace{Root: ".", Base: "."}
			ws.setItems(its)
			for _, k := range ws.ConfigKeys() {
				if _, err := ws.Points(k); err != nil {
					return err
				}
			}
			// A key that did not load is a warning and, asked for, an error.
			for _, w := range ws.Warnings() {
				var pe *PosError
				if _, err := ws.Points(w.Key); !errors.As(err, &pe) {
					return fmt.Errorf("broken key %q: Points error %v", w.Key, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%v\ninput: %q", err, data)
		}
	})
}

// TestScriptCandidates: a single-node key's rows name their scripts by the
// launchers' rule (framework-tagged first, then the legacy name; the
// scenario's directory, then benchmarks/single_node/), each once,
// repository-relative; a multi-node key or an unknown one names none.
func TestScriptCandidates(t *testing.T) {
	dir := t.TempDir()
	master := "m1-fp4-b300-trt-agentic-mtp:\n  image: img\n  model: org/M1\n  model-prefix: m1\n  runner: cluster:b300-nv\n  precision: fp4\n  framework: trt\n  multinode: false\n  scenarios:\n    agentic-coding:\n    - dram-utilization: 0.80\n      search-space:\n      - { tp: 2, spec-decoding: mtp, kv-offloading: none, conc-list: [20] }\n      - { tp: 4, spec-decoding: mtp, kv-offloading: none, conc-list: [20] }\n"
	if err := os.MkdirAll(filepath.Join(dir, "configs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "configs", "nvidia-master.yaml"), []byte(master), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := ws.ScriptCandidates("m1-fp4-b300-trt-agentic-mtp")
	want := []string{
		"benchmarks/single_node/agentic/m1_fp4_b300_trt_mtp.sh",
		"benchmarks/single_node/m1_fp4_b300_trt_mtp.sh",
	}
	if !slices.Equal(got, want) {
		t.Errorf("candidates %q, want %q", got, want)
	}
	if got := ws.ScriptCandidates("nosuch"); got != nil {
		t.Errorf("unknown key: %q", got)
	}
}
