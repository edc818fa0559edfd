package coverage

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/cookbook/pages"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// goldenPageSelections reads the golden cookbook-pages rows
// (../shared/golden/cookbook-pages/sglang-docs.golden.jsonl) as
// selections, with the published URL of configs' pages left empty (the
// golden has none); testutil.SharedPath skips it as it says.
func goldenPageSelections(t testing.TB) []pages.Selection {
	t.Helper()
	f, err := os.Open(testutil.SharedPath(t, "golden/cookbook-pages/sglang-docs.golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []pages.Selection
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var s pages.Selection
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// pagesRun is a coverage run over the InferenceX checkout dir (no
// cookbook, no recipes), for calling pagesCoverage directly.
func pagesRun(t testing.TB, dir string) *run {
	t.Helper()
	ws, err := infx.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := exclusions.Default()
	if err != nil {
		t.Fatal(err)
	}
	rules, err := compare.DefaultRules()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := exclusions.PolicyByID(exclusions.DefaultPolicyID())
	if err != nil {
		t.Fatal(err)
	}
	return &run{ctx: context.Background(), opt: Options{InfxDir: dir}, ws: ws, ex: ex, rules: rules, render: srtSlurmRenderer(),
		renders: map[string]renderResult{}, rep: &report.Report{}, policy: spec}
}

// pageModelKey reports whether a config key is of a model with a cookbook
// page at sglang @6c749811: dsr1 (DeepSeek-R1 generators), dsv4
// (configs/deepseek-ai/deepseek-v4.jsx), glm5.2 (configs/zai-org/glm-5.2.jsx),
// qwen3.5 (autoregressive/qwen35-deployment.jsx).
func pageModelKey(k string) bool {
	for _, p := range []string{"dsr1-", "dsv4-", "glm5.2-", "qwen3.5-"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// TestCorpusPagesCoverage covers every SGLang-family key of the upstream
// InferenceX checkout with the golden cookbook-pages selections: every key
// of a model with a page gets, in every row, roles that are compared or
// not covered with a concrete miss (never a silent skip).
func TestCorpusPagesCoverage(t *testing.T) {
	sels := goldenPageSelections(t)
	dir := testutil.UpstreamInferenceX(t)
	c := pagesRun(t, dir)
	keys, err := c.pagesCoverage(sels)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]report.KeyResult{}
	keyVerdicts, roleVerdicts, rowStatus := map[string]int{}, map[string]int{}, map[string]int{}
	for _, k := range keys {
		if !sglangFamily(k.Framework) {
			t.Errorf("%s: framework %s", k.ConfigKey, k.Framework)
		}
		byKey[k.ConfigKey] = k
		if !pageModelKey(k.ConfigKey) {
			continue
		}
		keyVerdicts[string(k.Verdict)]++
		if len(k.Rows) == 0 {
			t.Errorf("%s: no rows", k.ConfigKey)
		}
		for _, r := range k.Rows {
			rowStatus[string(r.Status)]++
			if r.Status == report.StatusError {
				t.Logf("%s row %d: error %s", k.ConfigKey, r.Row, r.Message)
				continue
			}
			if len(r.Roles) == 0 {
				t.Errorf("%s row %d: no roles (%s)", k.ConfigKey, r.Row, r.Status)
			}
			for _, ro := range r.Roles {
				roleVerdicts[string(ro.Verdict)]++
				switch {
				case ro.Recipe != nil:
					if ro.Recipe.Kind != "page" || ro.Recipe.Variant == "" || ro.Recipe.Command == "" || !strings.Contains(ro.Recipe.Where, " § ") {
						t.Errorf("%s row %d %s: recipe ref %+v", k.ConfigKey, r.Row, ro.Role, ro.Recipe)
					}
					if r.Status == report.StatusCompared && (ro.Result == nil || ro.Verdict == compare.NotCovered) {
						t.Errorf("%s row %d %s: exact page but not compared", k.ConfigKey, r.Row, ro.Role)
					}
				case ro.Verdict == compare.NotCovered:
					if len(ro.Misses) == 0 || ro.Misses[0] == "" {
						t.Errorf("%s row %d %s: not covered without a miss", k.ConfigKey, r.Row, ro.Role)
					}
				default:
					t.Errorf("%s row %d %s: verdict %s without a page", k.ConfigKey, r.Row, ro.Role, ro.Verdict)
				}
			}
		}
	}
	var want []string
	for _, k := range c.ws.ConfigKeys() {
		if e, _ := c.ws.Entry(k); sglangFamily(e.Framework) {
			want = append(want, k)
		}
	}
	if len(keys) != len(want) {
		t.Errorf("%d keys reported, want every SGLang-family key (%d)", len(keys), len(want))
	}
	t.Logf("InferenceX %s: %d SGLang-family keys; keys of page models by verdict %v; rows by status %v; roles by verdict %v",
		dir, len(keys), keyVerdicts, rowStatus, roleVerdicts)

	// a few keys in full, for the log
	var names []string
	for k := range byKey {
		if pageModelKey(k) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		k := byKey[n]
		for _, r := range k.Rows {
			for _, ro := range r.Roles {
				place, ms := "", strings.Join(ro.Misses, "; ")
				if ro.Recipe != nil {
					place = ro.Recipe.Where
				} else if ro.Nearest != nil {
					place = "nearest " + ro.Nearest.Where
				}
				nd := 0
				if ro.Result != nil {
					nd = len(ro.Result.Differences)
				}
				t.Logf("%-44s row %-2d %-8s %-7s %-14s %-20s diffs=%-2d %s %s", n, r.Row, r.Status, ro.Role, ro.Topology, ro.Verdict, nd, place, ms)
				break
			}
			break
		}
	}

	// real values
	role0 := func(key string) report.RoleMatch {
		t.Helper()
		k, ok := byKey[key]
		if !ok || len(k.Rows) == 0 || len(k.Rows[0].Roles) == 0 {
			t.Fatalf("%s: no role (%+v)", key, k)
		}
		return k.Rows[0].Roles[0]
	}
	// dsr1 fp8 h200: the DeepSeek-R1 basic page has an H200 FP8 TP8 command
	if ro := role0("dsr1-fp8-h200-sglang"); ro.Recipe == nil || !strings.Contains(ro.Recipe.File, "autoregressive/deepseek-r1-") ||
		ro.Recipe.Hardware != "h200" || ro.Result == nil || ro.Verdict == compare.NotCovered {
		t.Errorf("dsr1-fp8-h200-sglang: %+v", ro)
	}
	// a GB200 disaggregated Dynamo key: no page has a prefill role
	if ro := role0("dsr1-fp8-gb200-dynamo-sglang"); ro.Verdict != compare.NotCovered || !hasMiss(ro.Misses, "role: page agg, want prefill") {
		t.Errorf("dsr1-fp8-gb200-dynamo-sglang: %s %q", ro.Verdict, ro.Misses)
	}
	// qwen3.5 on RTX PRO 6000: the qwen35 generator has no such hardware
	if ro := role0("qwen3.5-fp4-rtx6000pro-sglang"); ro.Verdict != compare.NotCovered || !hasMiss(ro.Misses, "hardware: page ") {
		t.Errorf("qwen3.5-fp4-rtx6000pro-sglang: %s %q", ro.Verdict, ro.Misses)
	}
}

func hasMiss(ms []string, prefix string) bool {
	for _, m := range ms {
		if strings.HasPrefix(m, prefix) {
			return true
		}
	}
	return false
}

func TestPagesSigAndMisses(t *testing.T) {
	sel := pages.Selection{File: "docs/src/snippets/configs/deepseek-ai/deepseek-v4.jsx", Page: "docs/cookbook/autoregressive/DeepSeek/DeepSeek-V4.mdx", Kind: "config",
		Values: map[string]any{"hw": "b200", "quant": "fp4", "strategy": "balanced"}, Order: []string{"hw", "quant", "strategy"}, Mode: "python",
		URL:     "https://docs.sglang.io/cookbook/autoregressive/DeepSeek/DeepSeek-V4#hw=b200&quant=fp4&strategy=balanced",
		Command: "sglang serve \\\n  --model-path deepseek-ai/DeepSeek-V4-Pro \\\n  --tp 8 \\\n  --dp 8 \\\n  --enable-dp-attention \\\n  --moe-a2a-backend deepep \\\n  --speculative-algorithm NEXTN"}
	ix, errs := indexPages([]pages.Selection{sel, {File: "x.jsx", Values: map[string]any{}, Command: "# Error: no\n"}})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	cs := ix.byModel["deepseek-ai/deepseek-v4-pro"]
	if len(cs) != 1 {
		t.Fatalf("%d candidates", len(cs))
	}
	s := cs[0].sig
	want := roleSig{Model: "deepseek-ai/DeepSeek-V4-Pro", Hardware: "b200", Precision: "fp4", Role: launch.RoleAgg, TP: 8, EP: 8, DPAttn: true, Nodes: 1, Spec: "EAGLE"}
	if s != want {
		t.Errorf("sig %+v, want %+v", s, want)
	}
	if s.topology() != "DEP8+EAGLE" {
		t.Errorf("topology %q", s.topology())
	}
	q := want
	q.Hardware, q.TP, q.Spec = "gb200", 4, "none"
	exact, near, ms := ix.match(q)
	if len(exact) != 0 || near == nil || strings.Join(ms, "; ") != "hardware: page b200, want gb200; tp: page 8, want 4; speculative: page EAGLE, want none" {
		t.Errorf("misses %q", ms)
	}
	ref := pageRef(near)
	if ref.Kind != "page" || ref.Where != "docs/cookbook/autoregressive/DeepSeek/DeepSeek-V4.mdx § hw=b200,quant=fp4,strategy=balanced (python)" || ref.URL != sel.URL ||
		ref.Variant != "hw=b200,quant=fp4,strategy=balanced" || ref.Checkpoint != "deepseek-ai/DeepSeek-V4-Pro" || ref.Topology != "DEP8+EAGLE" {
		t.Errorf("ref %+v", ref)
	}
	if exact, _, _ := ix.match(want); len(exact) != 1 {
		t.Errorf("exact match: %d", len(exact))
	}
	if _, near, _ := ix.match(roleSig{Model: "moonshotai/Kimi-K2"}); near != nil {
		t.Errorf("a model without a page has no nearest")
	}
	// another checkpoint of the family: nearest, with the model miss first
	q = want
	q.Model = "nvidia/DeepSeek-V4-Pro-NVFP4-v2"
	if exact, near, ms := ix.match(q); len(exact) != 0 || near == nil || len(ms) != 1 || ms[0] != "model: page deepseek-ai/DeepSeek-V4-Pro, want nvidia/DeepSeek-V4-Pro-NVFP4-v2" {
		t.Errorf("family nearest: %v %q", near, ms)
	}
	if f := modelFamily("nvidia/Qwen3.5-397B-A17B-NVFP4-V2"); f != "qwen3.5-397b-a17b" || modelFamily("Qwen/Qwen3.5-397B-A17B-FP8") != f {
		t.Errorf("family %q", f)
	}
}

// TestPagesSelectionImage: a config page's selection shows its command in
// a python and a docker tab (sgl-project/sglang
// docs/src/snippets/_deployment.jsx renderCommand); the docker tab's image
// is the selection's, so the python tab's worker runs in it too and the
// page's image is compared whichever tab matches best. A selection
// without a docker tab names no image.
func TestPagesSelectionImage(t *testing.T) {
	const file = "docs/src/snippets/configs/zai-org/glm-5.2.jsx"
	const img = "lmsysorg/sglang-rocm:v0.5.13.post1-rocm720-mi35x-20260618"
	flags := "  --model-path zai-org/GLM-5.2-FP8 \\\n  --tp 8 \\\n  --dsa-prefill-backend tilelang \\\n  --host 0.0.0.0 \\\n  --port 30000"
	sel := func(cell int, strategy, mode, command string) pages.Selection {
		return pages.Selection{File: file, Page: "docs/cookbook/autoregressive/GLM/GLM-5.2.mdx", Kind: "config", Cell: cell, Mode: mode,
			Values: map[string]any{"hw": "mi355x", "quant": "fp8", "strategy": strategy}, Order: []string{"hw", "quant", "strategy"}, Command: command}
	}
	sels := []pages.Selection{
		sel(33, "low-latency", "python", "sglang serve \\\n"+flags),
		sel(33, "low-latency", "docker", "docker run \\\n  --device=/dev/kfd --device=/dev/dri \\\n  --group-add video \\\n  --shm-size 32g \\\n  -p 30000:30000 \\\n  --ipc=host \\\n  "+img+" \\\n  sglang serve \\\n"+strings.ReplaceAll(flags, "  --", "    --")),
		sel(34, "balanced", "python", "sglang serve \\\n"+flags),
	}
	cs, errs := parseCands(sels)
	if len(errs) != 0 || len(cs) != 3 {
		t.Fatalf("candidates %d, errors %v", len(cs), errs)
	}
	for i, want := range []string{img, img, ""} {
		if got := cs[i].dep.Processes[cs[i].proc].Image; got != want {
			t.Errorf("%s (%s): image %q, want %q", pages.SelectionText(cs[i].sel), cs[i].sel.Mode, got, want)
		}
	}
	// InferenceX runs another pinned ROCm build: engine-version drift,
	// informational under the default policy (judgment-image-version)
	ixp := cs[0].dep.Processes[cs[0].proc]
	ixp.Image = "lmsysorg/sglang-rocm:v0.5.16-rocm720-mi35x-20260730"
	ix := &launch.Deployment{Engine: "sglang", Model: "zai-org/GLM-5.2-FP8", Processes: []launch.Process{ixp}}
	res, err := compare.Compare(pageSide(&cs[0], launch.RoleAgg), ix, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := workerResult(res)
	if r.Verdict != compare.CoveredWithExclusions || len(r.Info) != 1 || r.Info[0].Setting != "image" || r.Info[0].Rule != "judgment-image-version" ||
		!strings.HasSuffix(r.Info[0].Reason, "engine-version drift: upstream v0.5.13.post1-rocm720-mi35x-20260618, InferenceX v0.5.16-rocm720-mi35x-20260730") {
		t.Errorf("python tab vs InferenceX: %s %+v", r.Verdict, r.Info)
	}
	// thinned (no key serves the GLM family), each role's side of a
	// comparison is the one its parsed command gave, the shared image
	// included; a family a key serves keeps its commands
	var want []*launch.Deployment
	for i := range cs {
		want = append(want, pageSide(&cs[i], launch.RoleAgg))
	}
	kept := slices.Clone(cs)
	thinCands(kept, map[string]bool{modelFamily("zai-org/GLM-5.2-FP8"): true})
	thinCands(cs, map[string]bool{"deepseek-v4-pro": true})
	for i := range cs {
		if cs[i].dep != nil || kept[i].dep == nil {
			t.Fatalf("role %d: thinned %t, kept %t", i, cs[i].dep == nil, kept[i].dep != nil)
		}
		if got := pageSide(&cs[i], launch.RoleAgg); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("role %d thinned:\n%+v\nwant\n%+v", i, got, want[i])
		}
	}
}

// TestMissWeight: missWeight weighs exactly the misses that misses lists
// (model 1000, hardware 100, precision and role 20, a layout setting 1),
// zero just when there are none, over every combination of the fields
// that agree or not (a precision unstated on either side, the same model
// in another case).
func TestMissWeight(t *testing.T) {
	want := roleSig{Model: "deepseek-ai/DeepSeek-R1", Hardware: "b200", Precision: "fp8", Role: launch.RoleDecode, TP: 8, EP: 8, DPAttn: true, Nodes: 1, Spec: "none"}
	weigh := func(ms []string) int {
		w := 0
		for _, m := range ms {
			switch {
			case strings.HasPrefix(m, "model:"):
				w += 1000
			case strings.HasPrefix(m, "hardware:"):
				w += 100
			case strings.HasPrefix(m, "precision:"), strings.HasPrefix(m, "role:"):
				w += 20
			default:
				w++
			}
		}
		return w
	}
	n := 0
	for bits := 0; bits < 1<<10; bits++ {
		page := want
		on := func(i int) bool { return bits&(1<<i) != 0 }
		if on(0) {
			page.Model = "deepseek-ai/DeepSeek-V3"
		} else if on(9) {
			page.Model = "DEEPSEEK-AI/deepseek-r1"
		}
		if on(1) {
			page.Hardware = "gb200"
		}
		if on(2) {
			page.Precision = "fp4"
		} else if on(9) {
			page.Precision = ""
		}
		if on(3) {
			page.Role = launch.RolePrefill
		}
		if on(4) {
			page.TP = 4
		}
		if on(5) {
			page.EP = 1
		}
		if on(6) {
			page.DPAttn = false
		}
		if on(7) {
			page.Nodes = 2
		}
		if on(8) {
			page.Spec = "EAGLE"
		}
		ms := misses(page, want)
		if got := missWeight(page, want); got != weigh(ms) || (got == 0) != (len(ms) == 0) {
			t.Fatalf("page %+v: weight %d, misses %q weigh %d", page, got, ms, weigh(ms))
		}
		if len(ms) == 0 {
			n++
		}
	}
	// the same role; the model in other case with no precision stated; and
	// each with another precision label on the same checkpoint
	if n != 4 {
		t.Errorf("%d exact combinations, want 4", n)
	}
}
