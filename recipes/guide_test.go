package recipes

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// envOrigins maps a process's env names to "value@origin".
func envOrigins(p launch.Process) map[string]string {
	m := map[string]string{}
	for _, e := range p.Env {
		m[e.Name] = e.Value + "@" + e.Origin.String()
	}
	return m
}

func guideFixture(t *testing.T) *FileScan {
	t.Helper()
	fs, err := ScanFile(filepath.Join("testdata", "guides", "guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestGuideSectionExports: export-only blocks reach the launch blocks of
// their section (and its sub-sections, before or after), never a sibling
// section or another tab; the command's own export wins; docker gets only
// pass-through names.
func TestGuideSectionExports(t *testing.T) {
	fs := guideFixture(t)
	const f = "testdata/guides/guide.md"
	src := " (export block at " + f + ":7, same section)"
	cases := []struct {
		line int
		want map[string]string
	}{
		{15, map[string]string{"VLLM_COMET_GRAPH": "0@recipe " + f + ":9" + src, "VLLM_ROCM_USE_AITER": "1@recipe " + f + ":10" + src}},
		// own export (line 23) wins over the section's
		{22, map[string]string{"VLLM_COMET_GRAPH": "0@recipe " + f + ":9" + src, "VLLM_ROCM_USE_AITER": "0@recipe " + f + ":23"}},
		// docker: only the -e pass-through name
		{31, map[string]string{"VLLM_COMET_GRAPH": "0@recipe " + f + ":9" + src, "HF_TOKEN": "x@recipe " + f + ":32"}},
		// export block after the launch block, same section
		{38, map[string]string{"VLLM_COMET_NV": "1@recipe " + f + ":45 (export block at " + f + ":44, same section)"}},
		// Tab B gets the section's export, not Tab A's
		{56, map[string]string{"VLLM_COMET_NV": "1@recipe " + f + ":45 (export block at " + f + ":44, same section)"}},
		// sibling sections get nothing
		{62, map[string]string{}},
		{78, map[string]string{}},
	}
	for _, c := range cases {
		b := blockAt(t, fs, c.line)
		deps := GuideDeployments(b)
		if len(deps) != 1 {
			t.Fatalf("block %d: %d deployments", c.line, len(deps))
		}
		if got := envOrigins(deps[0].Processes[0]); !reflect.DeepEqual(got, c.want) {
			t.Errorf("block %d env:\n got %v\nwant %v", c.line, got, c.want)
		}
	}
	// The command env carries them too (From "section", fence-relative line).
	c := cmdOf(t, blockAt(t, fs, 15), 0)
	if want := []ShellEnv{{"VLLM_COMET_GRAPH", "0", -6, "section"}, {"VLLM_ROCM_USE_AITER", "1", -5, "section"}}; !reflect.DeepEqual(c.Env, want) {
		t.Errorf("block 15 command env = %+v", c.Env)
	}
	if b := blockAt(t, fs, 7); !reflect.DeepEqual(b.exports, []GuideEnv{{"VLLM_COMET_GRAPH", "0", 9, 7}, {"VLLM_ROCM_USE_AITER", "1", 10, 7}}) {
		t.Errorf("export block = %+v", b.exports)
	}
	for _, text := range []string{"export A=1\necho hi\n", "# only a comment\n", "export A\n", "export A=1 &\n"} {
		if got := exportOnly(text, 1); got != nil {
			t.Errorf("exportOnly(%q) = %v, want nil", text, got)
		}
	}
}

// TestGuideHardware: generation names in headings, bold labels, vendor
// filtering and consumer Blackwell.
func TestGuideHardware(t *testing.T) {
	fs := guideFixture(t)
	cases := []struct {
		line int
		hw   []string
		from string
	}{
		{15, []string{"mi355x"}, "context"},
		{62, []string{"b200", "b300", "gb200", "gb300"}, "generation"},
		{68, nil, ""}, // AMD sub-heading under a Blackwell heading
		{78, []string{"h200"}, "bold"},
		{83, nil, ""}, // **CUDA** replaces **H200** and names no part
		{88, []string{"h100", "h200", "b200", "b300", "gb200", "gb300"}, "bold"},
		{96, nil, ""}, // consumer Blackwell
		{105, []string{"mi300x", "mi325x"}, "generation"},
		// a generation heading whose text names the part: B200 only
		// (MiniMax-M3.yaml "launch the tested B200 baseline directly"),
		// also for the next block whose paragraph names none
		{123, []string{"b200"}, "generation+prose"},
		{129, []string{"b200"}, "generation+prose"},
		// prose naming a part of another generation narrows nothing
		{135, []string{"b200", "b300", "gb200", "gb300"}, "generation"},
		// a new heading starts over: "On B300" under Hopper and Blackwell Ultra
		{143, []string{"b300"}, "generation+prose"},
		// parts a heading names are not narrowed by "verified on MI300X"
		{151, []string{"mi300x", "mi325x"}, "context"},
	}
	for _, c := range cases {
		b := blockAt(t, fs, c.line)
		if !reflect.DeepEqual(b.Hardware, c.hw) || b.HardwareFrom != c.from {
			t.Errorf("block %d (%s): hardware %v from %q, want %v %q", c.line, b.Section(), b.Hardware, b.HardwareFrom, c.hw, c.from)
		}
	}
	if d := GuideDeployments(blockAt(t, fs, 62))[0]; d.Hardware != "b200" {
		t.Errorf("Blackwell deployment hardware = %q", d.Hardware)
	}
	for text, want := range map[string][]string{
		"Blackwell Ultra":        {"b300", "gb300"},
		"CDNA4 (MI355X)":         {"mi355x"},
		"Ampere":                 {"a100"},
		"Blackwell (sm120)":      nil,
		"RTX PRO 6000 Blackwell": nil,
	} {
		if got := GenerationIDs(text); !reflect.DeepEqual(got, want) {
			t.Errorf("GenerationIDs(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestGuideProseDeltas: the supported sentence forms become alternates
// citing the sentence; negations, ranges, same values, prose words and
// other checkpoints do not.
func TestGuideProseDeltas(t *testing.T) {
	fs := guideFixture(t)
	b := blockAt(t, fs, 105)
	type d struct {
		flag, val string
		line      int
		hw        []string
	}
	var got []d
	for _, x := range b.Deltas {
		got = append(got, d{x.Flag, x.Value, x.Line, x.Hardware})
	}
	want := []d{
		{"--tensor-parallel-size", "4", 102, nil},
		{"--max-model-len", "32768", 111, []string{"h100"}},
		{"--tensor-parallel-size", "2", 114, nil},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("deltas = %+v\nwant %+v", got, want)
	}
	deps := GuideDeployments(b)
	if len(deps) != 4 {
		t.Fatalf("deployments = %d, want base + 3 alternates", len(deps))
	}
	base, tp4, mml, tp2 := deps[0], deps[1], deps[2], deps[3]
	if v, _ := launch.Lookup(base.Processes[0].Args, "--tensor-parallel-size"); v[0] != "8" {
		t.Errorf("base changed: %v", v)
	}
	a, _ := lookupArg(tp4.Processes[0].Args, "--tensor-parallel-size")
	if a.Values[0] != "4" || a.Origin.Path != "testdata/guides/guide.md:102" || a.Origin.Detail != "prose delta: For 4 GPUs use --tensor-parallel-size 4." {
		t.Errorf("TP4 alternate arg = %+v", a)
	}
	if tp4.Source.Section != "Comet Usage Guide > CDNA3 tuning [--tensor-parallel-size 4]" || tp4.Hardware != "mi300x" || len(tp4.Notes) != 1 ||
		!strings.Contains(tp4.Notes[0], `guide.md:102: "For 4 GPUs use --tensor-parallel-size 4."`) {
		t.Errorf("TP4 alternate = %q %q %q", tp4.Source.Section, tp4.Hardware, tp4.Notes)
	}
	if v, _ := launch.Lookup(mml.Processes[0].Args, "--max-model-len"); v[0] != "32768" || mml.Hardware != "h100" {
		t.Errorf("max-model-len alternate: %v on %s", v, mml.Hardware)
	}
	if v, _ := launch.LookupEnv(tp2.Processes[0].Env, "HIP_VISIBLE_DEVICES"); v != "0,1" {
		t.Errorf("TP2 alternate env = %v", tp2.Processes[0].Env)
	}
	if n := len(base.Processes[0].Args); n != 3 || len(tp4.Processes[0].Args) != 3 {
		t.Errorf("args count base %d alt %d", n, len(tp4.Processes[0].Args))
	}
	// Blocks without an adjacent delta sentence have none.
	for _, line := range []int{15, 62, 78} {
		if b := blockAt(t, fs, line); len(b.Deltas) != 0 {
			t.Errorf("block %d deltas %+v", line, b.Deltas)
		}
	}
	for s, ok := range map[string]bool{
		"Avoid TP=2 on this model.":                                false,
		"Prefer TP=1~2 with DP.":                                   false,
		"Use TP=2 or TP=4.":                                        false,
		"Use --max-model-len <n>.":                                 false,
		"Set --tensor-parallel-size to the number of GPUs.":        false,
		"Use the FP8 variant acme/Comet-1-FP8 with TP 2.":          false,
		"You can run with tensor parallel size 2.":                 true,
		"Use -tp 2 on H100/H200.":                                  true,
		"The --reasoning-parser flag specifies the parser to use.": false,
	} {
		p := &mdPara{lines: []string{s}, at: []int{1}}
		blk := &Block{Shell: &ShellResult{Commands: []ShellCommand{{Args: []string{"--tensor-parallel-size", "8"}}}}, before: p}
		if got := len(proseDeltas(blk)) == 1; got != ok {
			t.Errorf("%q: delta %v, want %v", s, got, ok)
		}
	}
}

func lookupArg(args []launch.Arg, flag string) (launch.Arg, bool) {
	for _, a := range args {
		if a.Flag == flag {
			return a, true
		}
	}
	return launch.Arg{}, false
}

// TestCorpusGuides checks the guide rules on the vllm-recipes corpus: the
// MiniMax-M3 MI355X serve commands carry the section's export with its
// origin, heading/bold hardware counts, and the documented TP deltas.
func TestCorpusGuides(t *testing.T) {
	root := recipesRoot(t)
	path := filepath.Join(root, "models", "MiniMaxAI", "MiniMax-M3.yaml")
	fs, err := ScanFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []int{364, 378, 393} {
		b := blockAt(t, fs, line)
		if !reflect.DeepEqual(b.Hardware, []string{"mi355x", "mi300x", "mi325x"}) {
			t.Errorf("MiniMax-M3 block %d hardware %v", line, b.Hardware)
		}
		deps := GuideDeployments(b)
		if len(deps) != 1 {
			t.Fatalf("block %d: %d deployments", line, len(deps))
		}
		want := map[string]string{"VLLM_USE_BREAKABLE_CUDAGRAPH": "0@recipe " + path + ":356 (export block at " + path + ":355, same section)"}
		if got := envOrigins(deps[0].Processes[0]); !reflect.DeepEqual(got, want) {
			t.Errorf("MiniMax-M3 block %d env %v, want %v", line, got, want)
		}
	}
	// The NVIDIA blocks of the sibling section get nothing.
	if b := blockAt(t, fs, 316); len(b.SectionEnv) != 0 || len(cmdOf(t, b, 0).Env) != 0 {
		t.Errorf("NVIDIA block got %v", b.SectionEnv)
	}
	// The InferenceX MI355X sweep block: eight exports from the block at 724.
	b := blockAt(t, fs, 743)
	env := envMapOf(cmdOf(t, b, 0).Env)
	if len(env) != 8 || env["VLLM_ROCM_QUICK_REDUCE_QUANTIZATION"] != "INT4" || env["VLLM_ENGINE_READY_TIMEOUT_S"] != "3600" {
		t.Errorf("MI355X sweep env = %v", env)
	}
	// Own export (VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT=1) beats the later
	// export block's 0.
	if v := envMapOf(cmdOf(t, blockAt(t, fs, 603), 0).Env)["VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT"]; v != "1" {
		t.Errorf("own export lost: %q", v)
	}

	scans, _ := ScanDir(root)
	from := map[string]int{}
	withEnv, deltas := 0, 0
	var deltaAt []string
	for _, f := range scans {
		for _, b := range f.LaunchBlocks() {
			from[b.HardwareFrom]++
			if len(b.SectionEnv) > 0 {
				withEnv++
			}
			for _, d := range b.Deltas {
				deltas++
				rel, _ := filepath.Rel(root, b.File)
				deltaAt = append(deltaAt, rel+":"+d.Flag+"="+d.Value)
			}
		}
	}
	t.Logf("launch blocks by hardware source %v; with section exports %d; prose deltas %d %v", from, withEnv, deltas, deltaAt)
	if from["generation"] != 6 || from["generation+prose"] != 3 || from["bold"] != 1 || withEnv != 12 {
		t.Errorf("hardware from generation %d (want 6), generation+prose %d (want 3), bold %d (want 1); blocks with section exports %d (want 12)",
			from["generation"], from["generation+prose"], from["bold"], withEnv)
	}
	// MiniMax-M3 "Quantized Variant (NVFP4 on Blackwell)": the text says
	// the commands are the tested B200 baseline and its EAGLE3 / GQA
	// pairings, so they are B200's, not B300's or the GB trays'.
	for _, line := range []int{644, 659, 672} {
		if b := blockAt(t, fs, line); !reflect.DeepEqual(b.Hardware, []string{"b200"}) {
			t.Errorf("MiniMax-M3 NVFP4 block %d hardware %v, want [b200]", line, b.Hardware)
		}
	}
	if want := []string{"models/deepseek-ai/DeepSeek-V4-Flash.yaml:--tensor-parallel-size=8", "models/zai-org/GLM-5.2.yaml:--tensor-parallel-size=4"}; !reflect.DeepEqual(deltaAt, want) {
		t.Errorf("deltas %v, want %v", deltaAt, want)
	}
	// DeepSeek-V4-Flash MI355X: "you can run with --tensor-parallel-size 8".
	fs, err = ScanFile(filepath.Join(root, "models", "deepseek-ai", "DeepSeek-V4-Flash.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	deps := GuideDeployments(blockAt(t, fs, 799))
	if len(deps) != 2 {
		t.Fatalf("V4-Flash MI355X deployments %d", len(deps))
	}
	a, _ := lookupArg(deps[1].Processes[0].Args, "--tensor-parallel-size")
	if a.Values[0] != "8" || !strings.HasSuffix(a.Origin.Path, "DeepSeek-V4-Flash.yaml:797") || deps[1].Hardware != "mi355x" {
		t.Errorf("V4-Flash alternate: %+v on %s", a, deps[1].Hardware)
	}
}

// TestGuideDockerImage: a guide's `docker run … IMAGE MODEL …` worker runs
// in IMAGE (compared with the InferenceX worker's image); a plain
// `vllm serve` names none.
func TestGuideDockerImage(t *testing.T) {
	fs := guideFixture(t)
	for line, want := range map[int]string{31: "vllm/vllm-openai-rocm:latest", 38: ""} {
		deps := GuideDeployments(blockAt(t, fs, line))
		if len(deps) != 1 || len(deps[0].Processes) == 0 {
			t.Fatalf("block %d: %+v", line, deps)
		}
		if got := deps[0].Processes[0].Image; got != want {
			t.Errorf("block %d: image %q, want %q", line, got, want)
		}
	}
}
