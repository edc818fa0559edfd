package prose

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// testHW maps the GPU words of the fixtures to ids (the real vocabulary is
// recipes.ProseHardware).
func testHW(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`(?i)\b(H100|H200|B200|B300|GB200|GB300|MI300X|MI325X|MI355X)\b`).FindAllString(text, -1) {
		if id := strings.ToLower(m); !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func readFixture(t *testing.T) ([]Statement, []Finding) {
	t.Helper()
	data, err := os.ReadFile("testdata/page.mdx")
	if err != nil {
		t.Fatal(err)
	}
	st, fs, err := Read("page.mdx", data, 1, Options{Hardware: testHW})
	if err != nil {
		t.Fatal(err)
	}
	return st, fs
}

// finding is the finding of line whose clause holds sub.
func finding(fs []Finding, line int, sub string) *Finding {
	for i := range fs {
		if fs[i].Line == line && strings.Contains(fs[i].Clause, sub) {
			return &fs[i]
		}
	}
	return nil
}

// TestReadAccepted: the accepted shapes, each with the scope its sentence,
// label, enclosing items and headings name.
func TestReadAccepted(t *testing.T) {
	st, _ := readFixture(t)
	type want struct {
		line      int
		summary   string
		kind      Kind
		hw        []string
		precs     []string
		ckpts     []string
		sizes     []string
		qualifier string
	}
	wants := []want{
		{14, "add --enable-flashinfer-allreduce-fusion --page-size 64", Add, []string{"b200"}, []string{"fp8"}, nil, nil, ""},
		{19, "add --chunked-prefill-size 131072 --watchdog-timeout 1200 --dsa-prefill-backend tilelang --dsa-decode-backend tilelang", Add,
			[]string{"mi300x", "mi355x"}, nil, nil, nil, ""},
		{23, "tp=8", Size, []string{"h200"}, []string{"bf16"}, nil, []string{"397b"}, ""},
		{25, "tp=2", Size, []string{"mi355x"}, []string{"fp8"}, nil, nil, ""},
		{27, "tp=2", Size, []string{"mi355x"}, []string{"mxfp4"}, nil, nil, ""},
		{27, "tp=4", Size, []string{"mi355x"}, []string{"mxfp4"}, nil, nil, "for low concurrency"},
		{28, "tp=2", Size, []string{"b300"}, []string{"nvfp4"}, nil, nil, ""},
		{33, "add --tp 4 --ep 4", Add, []string{"gb200"}, nil, nil, nil, ""},
		{34, "tp>=4", AtLeast, []string{"mi355x"}, []string{"mxfp8"}, nil, nil, ""},
		{34, "tp=8", Size, []string{"mi355x"}, []string{"mxfp8"}, nil, nil, "at 1M context"},
	}
	if len(st) != len(wants) {
		for _, s := range st {
			t.Logf("%d %s %+v %q", s.Line, s.Summary(), s.Scope, s.Qualifier)
		}
		t.Fatalf("%d statements, want %d", len(st), len(wants))
	}
	for i, w := range wants {
		s := st[i]
		if s.Line != w.line || s.Summary() != w.summary || s.Kind != w.kind || s.Qualifier != w.qualifier ||
			!slices.Equal(s.Scope.Hardware, w.hw) || !slices.Equal(s.Scope.Precisions, w.precs) ||
			!slices.Equal(s.Scope.Checkpoints, w.ckpts) || !slices.Equal(s.Scope.Sizes, w.sizes) {
			t.Errorf("statement %d: got line %d %q %s hw %v prec %v ckpt %v sizes %v qual %q", i, s.Line, s.Summary(), s.Kind,
				s.Scope.Hardware, s.Scope.Precisions, s.Scope.Checkpoints, s.Scope.Sizes, s.Qualifier)
		}
	}
	// the MXFP4 line: the variant from the label sentence "(MXFP4)", the
	// parent item's checkpoints are not needed
	if s := st[5]; s.Scope.VariantFrom != "paragraph" || s.Scope.HardwareFrom != "sentence" {
		t.Errorf("MXFP4 scope from: %q %q", s.Scope.HardwareFrom, s.Scope.VariantFrom)
	}
	if c := st[5].Cite(); c != `page.mdx:27 "MI355X (288GB) runs with tp=2 (use tp=4 for low concurrency)." (qualifier "for low concurrency", taken at every concurrency)` {
		t.Errorf("cite: %s", c)
	}
}

// TestReadRejected: the shapes the rule refuses, each with its reason.
func TestReadRejected(t *testing.T) {
	_, fs := readFixture(t)
	cases := []struct {
		line      int
		clause    string
		reasonHas string
	}{
		{13, "--enable-symm-mem", "a condition other than concurrency or sequence length"},
		{15, "", ""}, // no setting: no finding at all
		{16, "--mem-fraction-static", "a flag that needs a value names none"},
		{17, "--mm-attention-backend", "several values for --mm-attention-backend"},
		{18, "--tp", "a condition (when)"},
		{22, "tp=16", "several parallel sizes"},
		{28, "use tp=4 for long context", "a sequence-length condition without a value"},
		{29, "use tp=8 for lower latency", "a condition other than concurrency or sequence length (for lower latency)"},
		{30, "tp=2 or tp=4", "several parallel sizes"},
		{31, "tp=1~2", "a range of parallel sizes"},
		{32, "", ""}, // "TP must be ≤ 4" states no size
		{38, "--tp 8", "a heading about benchmarks or tests"},
	}
	for _, c := range cases {
		f := finding(fs, c.line, c.clause)
		if c.reasonHas == "" {
			if f != nil {
				t.Errorf("line %d: unexpected finding %+v", c.line, f)
			}
			continue
		}
		if f == nil {
			t.Errorf("line %d %q: no finding", c.line, c.clause)
			continue
		}
		if f.Accepted || !strings.Contains(f.Reason, c.reasonHas) {
			t.Errorf("line %d %q: accepted %t reason %q, want %q", c.line, c.clause, f.Accepted, f.Reason, c.reasonHas)
		}
	}
}

// TestReadGuide: the MiniMax-M3 guide shapes (a YAML guide: text starts at
// its line in the file).
func TestReadGuide(t *testing.T) {
	guide := "## Prerequisites\n\n" +
		"- **AMD:** MI350X/MI355X (gfx950), MI300X/MI325X (gfx942), ROCm 7.2+. BF16\n  needs TP=8; the MXFP8 variant runs from TP=4.\n\n" +
		"## FP8 KV Cache\n\n" +
		"Add `--kv-cache-dtype fp8` to any command for ~1.5× the KV pool — lossless\nin our testing across the full native context. Especially worth it for high\nconcurrency or long context, where KV is the binding constraint.\n\n" +
		"To save GPU memory, you can optionally cap the context with\n`--max-model-len`:\n\n" +
		"```bash\nvllm serve acme/Comet-1 --max-model-len 131072\n```\n\n" +
		"Use `--max-model-len 65536` on H200.\n"
	st, fs, err := Read("models/acme/Comet-1.yaml", []byte(guide), 200, Options{Hardware: testHW})
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 3 || len(st[2].NextToCode) != 1 {
		t.Fatalf("statements: %+v\n%s", st, Describe(fs))
	}
	// the bullet's label is "AMD:": every AMD part
	if s := st[0]; s.Kind != AtLeast || s.TP != 4 || s.Line != 202 || !slices.Equal(s.Scope.Vendors, []string{"amd"}) ||
		!slices.Equal(s.Scope.Precisions, []string{"mxfp8"}) || s.Scope.All {
		t.Errorf("runs from: %+v", s)
	}
	if s := st[1]; s.Kind != Add || !s.Scope.All || s.Line != 207 || s.Summary() != "add --kv-cache-dtype fp8" || s.Qualifier != "" || s.Scope.NamesVariant() {
		t.Errorf("any command: %+v", s)
	}
	if f := finding(fs, 202, "BF16"); f == nil || f.Accepted || !strings.Contains(f.Reason, "no cue") {
		t.Errorf("BF16 needs TP=8: %+v", f)
	}
	if f := finding(fs, 211, "--max-model-len"); f == nil || f.Accepted || !strings.Contains(f.Reason, "an option") {
		t.Errorf("you can optionally: %+v", f)
	}
	// next to a fence: read, and marked so (a guide block's own delta)
	if f := finding(fs, 218, "--max-model-len 65536"); f == nil || !f.Accepted {
		t.Errorf("after the block: %+v", f)
	}
}

// TestReadNextToCode: a statement right after a fence says so.
func TestReadNextToCode(t *testing.T) {
	src := "```bash\nvllm serve m --tensor-parallel-size 8\n```\n\nUse TP=4 on H200.\n"
	st, _, err := Read("g.md", []byte(src), 1, Options{Hardware: testHW})
	if err != nil || len(st) != 1 || len(st[0].NextToCode) != 1 || !strings.Contains(st[0].NextToCode[0], "vllm serve") {
		t.Fatalf("%v %+v", err, st)
	}
}

// TestReadBounds: oversized text is refused, hostile text never panics.
func TestReadBounds(t *testing.T) {
	if _, _, err := Read("big.md", make([]byte, MaxSize+1), 1, Options{}); err == nil || !strings.Contains(err.Error(), "big.md:1:1") {
		t.Errorf("oversize: %v", err)
	}
	for _, src := range []string{"(((((`", "- **", "Use `--tp", "use tp=99999999999999999999", strings.Repeat("- ", 500) + "use tp=4"} {
		if _, _, err := Read("h.md", []byte(src), 1, Options{Hardware: testHW}); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// TestApplyArgs: settings replace any spelling of the flag, drop later
// duplicates, append what is missing, and report no change for the same
// value.
func TestApplyArgs(t *testing.T) {
	o := launch.Origin{Kind: launch.OriginCookbook, Path: "p.mdx:3"}
	args := []launch.Arg{{Flag: "--tp", Values: []string{"2"}}, {Flag: "--page-size", Values: []string{"16"}}, {Flag: "--tp-size", Values: []string{"2"}}}
	st := Statement{Kind: Size, TP: 4}
	got, changed := ApplyArgs("sglang", args, st.Settings("sglang"), o)
	if !changed || len(got) != 2 || got[0].Flag != "--tp" || got[0].Values[0] != "4" || got[0].Origin != o || got[1].Flag != "--page-size" {
		t.Errorf("size: %+v", got)
	}
	if args[0].Values[0] != "2" {
		t.Errorf("input changed: %+v", args)
	}
	st = Statement{Kind: Add, Flags: []Flag{{Name: "--page-size", Value: "16"}, {Name: "--enable-symm-mem"}}}
	got, changed = ApplyArgs("sglang", args, st.Settings("sglang"), o)
	if !changed || len(got) != 4 || got[3].Flag != "--enable-symm-mem" || len(got[3].Values) != 0 {
		t.Errorf("add: %+v", got)
	}
	st = Statement{Kind: Add, Flags: []Flag{{Name: "--page-size", Value: "16"}}}
	if _, changed = ApplyArgs("sglang", args, st.Settings("sglang"), o); changed {
		t.Errorf("same value: changed")
	}
	env, ch := ApplyEnv([]launch.EnvVar{{Name: "A", Value: "1"}}, &Statement{Env: []Env{{"A", "1"}, {"B", "2"}}}, o)
	if !ch || len(env) != 2 || env[1].Name != "B" {
		t.Errorf("env: %+v", env)
	}
}

// TestScopeMatching: variant and hardware matching.
func TestScopeMatching(t *testing.T) {
	sc := Scope{Precisions: []string{"mxfp4"}}
	if !sc.MatchesVariant("amd/Comet-397B-MXFP4", PrecisionWords("fp4", "Comet-397B-MXFP4")) {
		t.Error("mxfp4")
	}
	if sc.MatchesVariant("nvidia/Comet-397B-NVFP4", PrecisionWords("fp4", "Comet-397B-NVFP4")) {
		t.Error("nvfp4 is not mxfp4")
	}
	sc = Scope{Sizes: []string{"397b"}}
	if !sc.MatchesVariant("Qwen/Qwen3.5-397B-A17B", nil) || sc.MatchesVariant("Qwen/Qwen3.5-35B-A3B", nil) || sc.MatchesVariant("x/M-1397B", nil) {
		t.Error("sizes")
	}
	sc = Scope{Vendors: []string{"amd"}}
	if !sc.MatchesHardware("mi355x", Vendor("mi355x")) || sc.MatchesHardware("b200", Vendor("b200")) {
		t.Error("vendor")
	}
}
