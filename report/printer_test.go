package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

var update = testutil.Update

// localRoot is the fake absolute directory of every checkout in the
// fixtures: only PrintText and PrintJSON may print it.
const localRoot = "/home/someone/checkouts"

const (
	fxSnippet   = "docs/src/snippets/agentx/Qwen/qwen3.5.jsx"
	fxKey       = "qwen3.5-fp8-b200-sglang"
	fxCommitCB  = "0123456789abcdef0123456789abcdef01234567"
	fxCommitIX  = "fedcba9876543210fedcba9876543210fedcba98"
	fxCommitVR  = "1111111111222222222233333333334444444444"
	fxMaster    = "configs/nvidia-master.yaml"
	fxPolicyVer = "signoff@09813166"
)

func sp(s string) *string { return &s }

func fxPolicy() PolicyInfo {
	return PolicyInfo{Version: fxPolicyVer, Policies: []exclusions.Policy{{
		ID: "signoff", Source: "SemiAnalysisAI/InferenceX .github/codeowner-signoff-verify-prompt.md", Version: "09813166",
	}}}
}

func fxInferenceX() RepoInfo {
	return RepoInfo{Dir: localRoot + "/InferenceX", Repo: "SemiAnalysisAI/InferenceX", Commit: fxCommitIX}
}

// fixtureCookbook is a cookbook-only report: one compared point whose
// prefill role differs (two differences, one with a note, one value with
// ",", ":" and "%"; an excluded setting), whose decode role carries a
// prohibited setting and whose frontend is covered with exclusions; a
// point that was not verified (upstream-only); a point whose recipe did
// not load (an absolute path and a newline in the message); one upstream
// PR that is open and one that is merged.
func fixtureCookbook() *Report {
	r := &Report{
		SchemaVersion:  SchemaVersion,
		SchemaRevision: SchemaRevision,
		Policy:         fxPolicy(),
		Cookbook:       &RepoInfo{Dir: localRoot + "/sglang", Repo: "sgl-project/sglang", Commit: fxCommitCB},
		CookbookFiles: []FileInfo{{Path: fxSnippet, Commit: fxCommitCB,
			SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}},
		InferenceX: fxInferenceX(),
	}
	recipe := "benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp8.yaml"
	r.Points = []PointResult{
		{
			File: fxSnippet, Line: 42, Cell: 0, CellID: fxKey + "#0", ConfigKey: fxKey, Point: 0,
			Concs: []int{4, 8, 16, 32, 64}, Router: "round-robin", KV: "fp8",
			Recipe: recipe, Selector: "1p1d", RecipeFile: recipe, ProvSHA: "76ff8a6f", ProvStatus: "ok",
			Status: StatusCompared,
			Drift:  Drift{State: DriftChanged, Commit: fxCommitIX, Detail: "recipe changed since prov.sha 76ff8a6f"},
			Roles: []compare.Result{
				{Role: "prefill", Verdict: compare.Differs, Matched: 14,
					Differences: []compare.Difference{
						{Setting: "--mem-fraction-static", Upstream: sp("0.85"), InferenceX: sp("0.8"),
							Note: "possible commit drift: recipe changed since prov.sha 76ff8a6f"},
						{Setting: "--json-model-override-args", Upstream: sp(`{"rope": "yarn", "factor": "50%"}`), InferenceX: nil},
					},
					Excluded: []compare.Exclusion{{Setting: "--port", Upstream: sp("30000"), InferenceX: sp("8000"),
						Rule: "ports", Class: exclusions.ClassPlacement, Reason: "placement: ports differ per cluster", Policy: "signoff"}},
				},
				{Role: "decode", Verdict: compare.Prohibited, Matched: 12,
					Prohibited: []compare.Exclusion{{Setting: "--disable-cuda-graph", InferenceX: sp(""),
						Rule: "no-disable-cuda-graph", Class: exclusions.ClassProhibited,
						Reason: "CUDA graphs off is not a production setting", Policy: "signoff"}},
				},
				{Role: "frontend", Verdict: compare.CoveredWithExclusions, Matched: 3,
					Excluded: []compare.Exclusion{{Setting: "--host", Upstream: sp("0.0.0.0"), InferenceX: sp("127.0.0.1"),
						Rule: "hosts", Class: exclusions.ClassPlacement, Reason: "placement: hosts", Policy: "signoff"}},
				},
			},
			Verdict: compare.Prohibited,
		},
		{
			File: fxSnippet, Line: 88, Cell: 1, CellID: fxKey + "#1", ConfigKey: fxKey, Point: 0,
			Concs: []int{128}, Router: "none", KV: "bf16",
			Recipe: "recipes/qwen3.5/b200-bf16.yaml", Status: StatusUpstreamOnly,
			Message: "recipes/qwen3.5/b200-bf16.yaml lives in NVIDIA/srt-slurm, not in the InferenceX checkout",
			Drift:   Drift{State: DriftUnknown}, Verdict: compare.UpstreamOnly,
		},
		{
			File: fxSnippet, Line: 120, Cell: 2, CellID: fxKey + "#2", ConfigKey: fxKey, Point: 1,
			Concs: []int{256}, Router: "none", KV: "fp8",
			Recipe: "benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp4.yaml", Status: StatusError,
			Message: localRoot + "/InferenceX/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp4.yaml:12:3: mapping values are not allowed\n  in this context",
			Drift:   Drift{State: DriftUnknown}, Verdict: compare.Error,
		},
	}
	merged := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	r.CombineKeys()
	r.SetLinks([]Link{
		{URL: "https://github.com/sgl-project/sglang/pull/12345", Kind: "pr", State: "open",
			Repo: "sgl-project/sglang", Number: 12345, Title: "docs: Qwen3.5 B200 recipes"},
		{URL: "https://github.com/sgl-project/sglang/pull/12000", Kind: "pr", State: LinkMerged, MergedAt: &merged,
			Repo: "sgl-project/sglang", Number: 12000, Title: "docs: Qwen3.5 agentx snippet"},
	})
	return r
}

// fixtureVLLM is a vLLM-only report: a vllm key with a covered row (a
// Markdown recipe block) and a row whose agg role differs from a YAML
// recipe; a dynamo-vllm key whose prefill role no recipe covers (with the
// nearest candidate and its misses), whose decode role no recipe covers
// (no candidate), and a row whose recipe is not found; one vLLM recipe
// that failed to decode (an absolute path in the message).
func fixtureVLLM() *Report {
	r := &Report{
		SchemaVersion:  SchemaVersion,
		SchemaRevision: SchemaRevision,
		Policy:         fxPolicy(),
		InferenceX:     fxInferenceX(),
	}
	addVLLM(r)
	r.CombineKeys()
	r.Count()
	return r
}

func addVLLM(r *Report) {
	r.VLLMRecipes = &RepoInfo{Dir: localRoot + "/recipes", Repo: "vllm-project/recipes", Commit: fxCommitVR}
	r.VLLMRecipeErrors = []string{localRoot + "/recipes/models/acme/Broken.yaml:3:1: top level is not a mapping"}
	md := &RecipeRef{Kind: "markdown", File: "DeepSeek/DeepSeek-R1.md", Section: "Serving on 8xH200", Line: 57,
		Role: "agg", Topology: "TP8", Where: "DeepSeek/DeepSeek-R1.md:57 § Serving on 8xH200"}
	yml := &RecipeRef{Kind: "yaml", File: "models/deepseek-ai/DeepSeek-R1.yaml", Variant: "default",
		Strategy: "single_node_tp", Hardware: "h200", Model: "deepseek-ai/DeepSeek-R1-0528", Role: "agg", Topology: "TP8",
		Where: "models/deepseek-ai/DeepSeek-R1.yaml variant=default strategy=single_node_tp hw=h200 role=agg"}
	near := &RecipeRef{Kind: "yaml", File: "models/deepseek-ai/DeepSeek-R1.yaml", Variant: "fp4",
		Strategy: "disagg_tp", Hardware: "b200", Model: "nvidia/DeepSeek-R1-FP4", Role: "prefill", Topology: "TP4",
		Where: "models/deepseek-ai/DeepSeek-R1.yaml variant=fp4 strategy=disagg_tp hw=b200 role=prefill"}
	r.VLLM = []KeyResult{
		{
			ConfigKey: "dsr1-fp8-h200-vllm", Framework: "vllm", Model: "deepseek-ai/DeepSeek-R1-0528",
			Hardware: "h200", Precision: "fp8", Master: fxMaster + ":120:3", MasterFile: fxMaster, MasterLine: 120,
			Verdict: compare.Differs,
			Rows: []RowResult{
				{Row: 0, Concs: []int{4, 8, 16, 32, 64}, Scenario: "1k1k", Recipe: "benchmarks/single_node/dsr1_fp8_h200.sh",
					Status: StatusCompared, Verdict: compare.Covered,
					Roles: []RoleMatch{{Role: "agg", Topology: "TP8", Recipe: md, Verdict: compare.Covered,
						Result: &compare.Result{Role: "agg", Verdict: compare.Covered, Matched: 11}}}},
				{Row: 1, Concs: []int{128, 256}, Scenario: "8k1k", Recipe: "benchmarks/single_node/dsr1_fp8_h200.sh",
					Status: StatusCompared, Verdict: compare.Differs,
					Roles: []RoleMatch{{Role: "agg", Topology: "TP8", Recipe: yml, Alternatives: 1, Verdict: compare.Differs,
						Result: &compare.Result{Role: "agg", Verdict: compare.Differs, Matched: 9,
							Differences: []compare.Difference{{Setting: "--max-num-seqs", Upstream: sp("256"), InferenceX: sp("512")}},
							Excluded: []compare.Exclusion{{Setting: "--port", Upstream: sp("8000"), InferenceX: sp("8888"),
								Rule: "ports", Class: exclusions.ClassPlacement, Reason: "placement: ports differ per cluster", Policy: "signoff"}},
						}}}},
			},
		},
		{
			ConfigKey: "dsr1-fp4-gb200-dynamo-vllm", Framework: "dynamo-vllm", Model: "nvidia/DeepSeek-R1-FP4",
			Hardware: "gb200", Precision: "fp4", Master: fxMaster + ":340:3", MasterFile: fxMaster, MasterLine: 340,
			Verdict: compare.NotCovered,
			Rows: []RowResult{
				{Row: 0, Concs: []int{1024}, Scenario: "1k1k",
					Recipe: "benchmarks/multi_node/srt-slurm-recipes/dsr1/gb200-fp4.yaml", Selector: "1p2d",
					Status: StatusCompared, Verdict: compare.NotCovered,
					Roles: []RoleMatch{
						{Role: "prefill", Topology: "TEP4", Nearest: near, Verdict: compare.NotCovered,
							Misses: []string{"hardware: vllm-recipes b200, inferencex gb200", "topology: vllm-recipes TP4, inferencex TEP4"}},
						{Role: "decode", Topology: "DEP8", Verdict: compare.NotCovered},
					}},
				{Row: 1, Concs: []int{2048}, Scenario: "8k1k",
					Recipe: "benchmarks/multi_node/srt-slurm-recipes/dsr1/gb200-fp4-8k.yaml",
					Status: StatusRecipeNotFound, Verdict: compare.RecipeNotFound,
					Message: "benchmarks/multi_node/srt-slurm-recipes/dsr1/gb200-fp4-8k.yaml is not in the InferenceX checkout"},
			},
		},
	}
}

// fixtureAll is fixtureCookbook and fixtureVLLM in one report.
func fixtureAll() *Report {
	r := fixtureCookbook()
	addVLLM(r)
	r.CombineKeys()
	r.SetLinks(r.Upstream)
	return r
}

// fixtureSources is one verdict per key from every source: a key an
// AgentX cell covers while the cookbook page's selection differs (the
// page's value shown as information), a key the page covers while the
// AgentX point differs, and a key whose second concurrency no source
// covers (the page's row decides it).
func fixtureSources() *Report {
	r := &Report{
		SchemaVersion:  SchemaVersion,
		SchemaRevision: SchemaRevision,
		Policy:         fxPolicy(),
		Cookbook:       &RepoInfo{Dir: localRoot + "/sglang", Repo: "sgl-project/sglang", Commit: fxCommitCB},
		CookbookFiles:  []FileInfo{{Path: "docs/src/snippets/agentx/zai-org/glm-5.2.jsx", Commit: fxCommitCB}},
		InferenceX:     fxInferenceX(),
		PagesRepo:      &RepoInfo{Dir: localRoot + "/sglang", Repo: "sgl-project/sglang", Commit: fxCommitCB},
	}
	glm, qwen := "glm5.2-fp4-b300-sglang-agentic-mtp", "qwen3.5-fp8-h200-sglang-agentic-mtp"
	row0 := 0
	spec := func(up, ix string) []compare.Difference {
		return []compare.Difference{{Setting: "--speculative-num-steps", Upstream: sp(up), InferenceX: sp(ix)}}
	}
	excl := []compare.Exclusion{{Setting: "env SGLANG_SIMULATE_ACC_LEN", InferenceX: sp("2.99"), Rule: "synthetic-acceptance",
		Class: exclusions.ClassSyntheticAcceptance, Reason: "synthetic acceptance pins the acceptance length", Policy: "signoff"}}
	point := func(key, file string, line, pt int, v compare.Verdict, diffs []compare.Difference, concs ...int) PointResult {
		return PointResult{File: file, Line: line, CellID: key + "#0", ConfigKey: key, Point: pt, Concs: concs, Router: "sglang", KV: "hicache",
			Recipe: "benchmarks/single_node/agentic/x.sh", RecipeFile: "benchmarks/single_node/agentic/x.sh", Row: &row0,
			RowPos: fxMaster + ":8773:9", Status: StatusCompared, Drift: Drift{State: DriftNone}, Verdict: v,
			Roles: []compare.Result{{Role: "agg", Verdict: v, Matched: 31, Differences: diffs, Excluded: excl}}}
	}
	page := func(where string, v compare.Verdict, diffs []compare.Difference, concs ...int) RowResult {
		file, _, _ := strings.Cut(where, " § ")
		ref := &RecipeRef{Kind: "page", File: file, Role: "agg", Topology: "TP8+EAGLE", Where: where}
		ro := RoleMatch{Role: "agg", Topology: "TP8+EAGLE", Verdict: v, Result: &compare.Result{Role: "agg", Verdict: v, Matched: 28, Differences: diffs}}
		if v == compare.NotCovered {
			ro.Nearest, ro.Misses, ro.Result = ref, []string{"hardware: page b200, inferencex h200"}, nil
		} else {
			ro.Recipe = ref
		}
		return RowResult{Row: 0, Concs: concs, Scenario: "agentic-coding", Recipe: "benchmarks/single_node/agentic/x.sh",
			Status: StatusCompared, Verdict: v, Roles: []RoleMatch{ro}}
	}
	snip := "docs/src/snippets/agentx/zai-org/glm-5.2.jsx"
	r.Points = []PointResult{
		point(glm, snip, 12, 0, compare.CoveredWithExclusions, nil, 1),
		point(glm, snip, 12, 1, compare.CoveredWithExclusions, nil, 4),
		point(qwen, "docs/src/snippets/agentx/Qwen/qwen3.5.jsx", 40, 0, compare.Differs, spec("2", "3"), 8),
		point(qwen, "docs/src/snippets/agentx/Qwen/qwen3.5.jsx", 40, 1, compare.CoveredWithExclusions, nil, 16),
	}
	r.Pages = []KeyResult{
		{Source: SourcePages, ConfigKey: glm, Framework: "sglang", Model: "nvidia/GLM-5.2-NVFP4", Hardware: "b300", Precision: "fp4",
			Master: fxMaster + ":8773:1", MasterFile: fxMaster, MasterLine: 8773, Verdict: compare.Differs,
			Rows: []RowResult{page("docs/cookbook/autoregressive/GLM/GLM-5.2.mdx § hw=b300,strategy=low-latency", compare.Differs, spec("5", "3"), 1, 4)}},
		{Source: SourcePages, ConfigKey: qwen, Framework: "sglang", Model: "Qwen/Qwen3.5-397B-A17B-FP8", Hardware: "h200", Precision: "fp8",
			Master: fxMaster + ":9001:1", MasterFile: fxMaster, MasterLine: 9001, Verdict: compare.NotCovered,
			Rows: []RowResult{
				page("docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx § hw=h200", compare.Covered, nil, 8),
				page("docs/cookbook/autoregressive/Qwen/Qwen3.5.mdx § hw=b200", compare.NotCovered, nil, 32),
			}},
	}
	r.CombineKeys()
	r.Count()
	return r
}

func fixtures() []struct {
	name string
	r    func() *Report
} {
	return []struct {
		name string
		r    func() *Report
	}{{"cookbook", fixtureCookbook}, {"vllm", fixtureVLLM}, {"all", fixtureAll}, {"sources", fixtureSources}}
}

// golden compares got with testdata/<name>, or rewrites the file with
// -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run TestPrinter -update)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs from the golden file at line %d (-update rewrites it):\n got: %q\nwant: %q", path, i+1, g, w)
		}
	}
	t.Fatalf("%s differs from the golden file (-update rewrites it)", path)
}

// printers lists every printer with the golden-file extension of its
// output and whether it may print local directories (RepoInfo.Dir).
func printers() []struct {
	ext      string
	localDir bool
	print    func(*bytes.Buffer, *Report) error
} {
	type p = struct {
		ext      string
		localDir bool
		print    func(*bytes.Buffer, *Report) error
	}
	return []p{
		{"sarif", false, func(b *bytes.Buffer, r *Report) error { return PrintSARIF(b, r, fxSARIFOptions(r)) }},
		{"annotations", false, func(b *bytes.Buffer, r *Report) error { return PrintAnnotations(b, r, AnnotationOptions{}) }},
		{"json", true, func(b *bytes.Buffer, r *Report) error { return PrintJSON(b, r) }},
		{"txt", true, func(b *bytes.Buffer, r *Report) error { return PrintText(b, r, TextOptions{}) }},
		{"w80.txt", true, func(b *bytes.Buffer, r *Report) error { return PrintText(b, r, TextOptions{Width: 80}) }},
		{"md", false, func(b *bytes.Buffer, r *Report) error {
			return PrintMarkdown(b, r, MarkdownOptions{JSONHint: "cookbook-sync coverage --format json"})
		}},
	}
}

func printGolden(t *testing.T, ext string) {
	t.Helper()
	for _, p := range printers() {
		if p.ext != ext {
			continue
		}
		for _, fx := range fixtures() {
			t.Run(fx.name, func(t *testing.T) {
				var b bytes.Buffer
				if err := p.print(&b, fx.r()); err != nil {
					t.Fatal(err)
				}
				golden(t, fx.name+"."+ext, b.Bytes())
			})
		}
		return
	}
	t.Fatalf("no printer %q", ext)
}

func TestPrinterSARIFGolden(t *testing.T)       { printGolden(t, "sarif") }
func TestPrinterAnnotationsGolden(t *testing.T) { printGolden(t, "annotations") }
func TestPrinterJSONGolden(t *testing.T)        { printGolden(t, "json") }
func TestPrinterTextGolden(t *testing.T)        { printGolden(t, "txt") }
func TestPrinterTextWidth80Golden(t *testing.T) { printGolden(t, "w80.txt") }
func TestPrinterMarkdownGolden(t *testing.T)    { printGolden(t, "md") }

func sarifOf(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := PrintSARIF(&b, r, fxSARIFOptions(r)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestPrinterSARIFContent checks the run's tool, rules, base URIs,
// provenance and the results of fixtureAll.
func TestPrinterSARIFContent(t *testing.T) {
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name           string `json:"name"`
					InformationURI string `json:"informationUri"`
					Rules          []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			OriginalURIBaseIDs map[string]struct {
				URI string `json:"uri"`
			} `json:"originalUriBaseIds"`
			VersionControlProvenance []struct {
				RepositoryURI string `json:"repositoryUri"`
				RevisionID    string `json:"revisionId"`
				MappedTo      struct {
					URIBaseID string `json:"uriBaseId"`
				} `json:"mappedTo"`
			} `json:"versionControlProvenance"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct {
					Text string `json:"text"`
				} `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
						Region *struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Properties map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(sarifOf(t, fixtureAll())), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if d := run.Tool.Driver; d.Name != "cookbook-sync" || d.InformationURI != "https://github.com/cookbook-sync/cookbook-sync" {
		t.Errorf("driver %q %q", d.Name, d.InformationURI)
	}
	var ids []string
	for _, ru := range run.Tool.Driver.Rules {
		ids = append(ids, ru.ID)
	}
	if got, want := strings.Join(ids, " "), "check3/differs check3/missing check3/prohibited check3/not-covered check3/not-verified check3/error check3/link-not-merged cookbook-sync/results-left-out"; got != want {
		t.Errorf("rules %s, want %s", got, want)
	}
	wantBases := map[string]string{
		"COOKBOOK":     "https://github.com/sgl-project/sglang/blob/" + fxCommitCB + "/",
		"INFERENCEX":   "https://github.com/SemiAnalysisAI/InferenceX/blob/" + fxCommitIX + "/",
		"VLLM_RECIPES": "https://github.com/vllm-project/recipes/blob/" + fxCommitVR + "/",
	}
	if len(run.OriginalURIBaseIDs) != len(wantBases) {
		t.Errorf("originalUriBaseIds %v", run.OriginalURIBaseIDs)
	}
	for k, v := range wantBases {
		if run.OriginalURIBaseIDs[k].URI != v {
			t.Errorf("originalUriBaseIds[%s] = %q, want %q", k, run.OriginalURIBaseIDs[k].URI, v)
		}
	}
	if len(run.VersionControlProvenance) != 3 || run.VersionControlProvenance[0].RepositoryURI != "https://github.com/sgl-project/sglang" ||
		run.VersionControlProvenance[0].RevisionID != fxCommitCB || run.VersionControlProvenance[0].MappedTo.URIBaseID != "COOKBOOK" {
		t.Errorf("versionControlProvenance %+v", run.VersionControlProvenance)
	}
	// one result per finding, worst first: errors, then warnings; one of
	// each rule and key before a second; by rule (bad input, prohibited,
	// differs, not covered, link, not verified); then in report order
	var got []string
	for _, res := range run.Results {
		if run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %s has ruleIndex %d", res.RuleID, res.RuleIndex)
		}
		got = append(got, res.RuleID+" "+res.Level)
	}
	want := []string{
		"check3/error error",       // point error
		"check3/error error",       // vLLM recipe decode error
		"check3/prohibited error",  // decode
		"check3/differs error",     // prefill --mem-fraction-static
		"check3/differs error",     // vllm row 1 agg
		"check3/not-covered error", // dynamo row 0 prefill
		"check3/link-not-merged error",
		"check3/differs error",        // prefill --json-model-override-args: a second of its key
		"check3/not-covered error",    // dynamo row 0 decode
		"check3/not-verified warning", // point upstream-only (fails closed)
		"check3/not-verified warning", // dynamo row 1 recipe not found
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	first := run.Results[3]
	if first.Message.Text != "qwen3.5-fp8-b200-sglang#0 point 0 prefill: --mem-fraction-static: upstream 0.85, inferencex 0.8 (possible commit drift: recipe changed since prov.sha 76ff8a6f)" {
		t.Errorf("message %q", first.Message.Text)
	}
	loc := first.Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != fxSnippet || loc.ArtifactLocation.URIBaseID != "COOKBOOK" || loc.Region == nil || loc.Region.StartLine != 42 {
		t.Errorf("location %+v", loc)
	}
	for k, v := range map[string]any{"configKey": fxKey, "cellId": fxKey + "#0", "point": 0.0, "role": "prefill",
		"verdict": "differs", "setting": "--mem-fraction-static", "policyVersion": fxPolicyVer} {
		if first.Properties[k] != v {
			t.Errorf("properties[%s] = %v, want %v", k, first.Properties[k], v)
		}
	}
	// vLLM difference: a YAML rendering has no line, so at the master
	// config (TestSARIFStartLine: the recipe is the related location)
	if l := run.Results[4].Locations[0].PhysicalLocation; l.ArtifactLocation.URI != fxMaster ||
		l.ArtifactLocation.URIBaseID != "INFERENCEX" || l.Region == nil || l.Region.StartLine != 120 {
		t.Errorf("vLLM difference location %+v", l)
	}
	// no recipe covers this: at the InferenceX master config
	nc := run.Results[5]
	if l := nc.Locations[0].PhysicalLocation; l.ArtifactLocation.URI != fxMaster || l.ArtifactLocation.URIBaseID != "INFERENCEX" || l.Region.StartLine != 340 {
		t.Errorf("not-covered location %+v", l)
	}
	if !strings.Contains(nc.Message.Text, "nearest upstream: models/deepseek-ai/DeepSeek-R1.yaml variant=fp4") ||
		!strings.Contains(nc.Message.Text, "misses: hardware: vllm-recipes b200, inferencex gb200; topology") {
		t.Errorf("not-covered message %q", nc.Message.Text)
	}
	// the recipe error's position, its local directory removed
	if re := run.Results[1]; re.Message.Text != "vLLM recipe error: models/acme/Broken.yaml:3:1: top level is not a mapping" ||
		re.Locations[0].PhysicalLocation.ArtifactLocation.URI != "models/acme/Broken.yaml" || re.Locations[0].PhysicalLocation.Region.StartLine != 3 {
		t.Errorf("recipe error %+v", re)
	}
	if l := run.Results[6]; len(l.Locations) != 0 || !strings.HasPrefix(l.Message.Text, "upstream link https://github.com/sgl-project/sglang/pull/12345: open") {
		t.Errorf("link result %+v", l)
	}
}

// TestPrinterSARIFNoCommit: without Repo and Commit a repository's base
// id is still defined (every uriBaseId a result uses is) but has no URI,
// there is no provenance, and its directory is still not printed.
func TestPrinterSARIFNoCommit(t *testing.T) {
	r := fixtureCookbook()
	r.Cookbook.Commit = ""
	r.InferenceX.Repo = ""
	out := sarifOf(t, r)
	var doc struct {
		Runs []struct {
			Bases map[string]struct {
				URI         string                `json:"uri"`
				Description struct{ Text string } `json:"description"`
			} `json:"originalUriBaseIds"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"COOKBOOK", "INFERENCEX"} {
		b, ok := doc.Runs[0].Bases[id]
		if !ok || b.URI != "" || !strings.Contains(b.Description.Text, "no commit to link") {
			t.Errorf("%s base without Repo+Commit: %+v (defined %v)", id, b, ok)
		}
	}
	if strings.Contains(out, "versionControlProvenance\": [\n") {
		t.Errorf("provenance without Repo+Commit:\n%s", out)
	}
	if strings.Contains(out, localRoot) {
		t.Errorf("local directory printed")
	}
	if !strings.Contains(out, `"uriBaseId": "COOKBOOK"`) {
		t.Errorf("results lost their uriBaseId")
	}
}

// TestPrinterAllowUnverified: with AllowUnverified, points and rows that
// were not verified are SARIF notes and "::notice" annotations.
func TestPrinterAllowUnverified(t *testing.T) {
	r := fixtureAll()
	r.AllowUnverified = true
	r.Count()
	// the not-verified rule's default level and its two results are notes;
	// the one warning is the default level of results-left-out
	if out := sarifOf(t, r); strings.Count(out, `"level": "warning"`) != 1 || strings.Count(out, `"level": "note"`) != 3 {
		t.Errorf("SARIF levels with AllowUnverified:\n%s", out)
	}
	var b bytes.Buffer
	if err := PrintAnnotations(&b, r, AnnotationOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "::warning") ||
		!strings.Contains(out, "::notice title=Check 3 not verified::docs/src/snippets/agentx/Qwen/qwen3.5.jsx:88: qwen3.5-fp8-b200-sglang#1 point 0: not verified: upstream-only: ") {
		t.Errorf("annotations with AllowUnverified:\n%s", out)
	}
}

// TestPrinterAnnotations checks the commands, the places, the escaping
// and the final summary of fixtureAll.
func TestPrinterAnnotations(t *testing.T) {
	var b bytes.Buffer
	if err := PrintAnnotations(&b, fixtureAll(), AnnotationOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	// 11 findings in 9 annotations, worst first, and a summary
	if len(lines) != 10 {
		t.Fatalf("%d lines, want 9 annotations and a summary:\n%s", len(lines), b.String())
	}
	for i, want := range map[int]string{
		// errors (bad input) first, at the line of the recipe in
		// InferenceX, the snippet's place in the message, the local
		// directory removed, the newline a space
		0: "::error file=benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp4.yaml,line=12,title=Check 3 error::docs/src/snippets/agentx/Qwen/qwen3.5.jsx:120: qwen3.5-fp8-b200-sglang#2 point 1: error: benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp4.yaml:12:3: mapping values are not allowed in this context",
		1: "::error file=benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp8.yaml,title=Check 3 prohibited setting::docs/src/snippets/agentx/Qwen/qwen3.5.jsx:42: qwen3.5-fp8-b200-sglang#0 point 0 decode: --disable-cuda-graph: PROHIBITED, set in inferencex only (inferencex (set)) — no-disable-cuda-graph: CUDA graphs off is not a production setting",
		// two differences of one key are one annotation, cut at 300
		// characters
		2: `::error file=benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp8.yaml,title=Check 3 differs::docs/src/snippets/agentx/Qwen/qwen3.5.jsx:42: 2 findings: qwen3.5-fp8-b200-sglang#0 point 0 prefill: --mem-fraction-static: upstream 0.85, inferencex 0.8 (possible commit drift: recipe changed since prov.sha 76ff8a6f); qwen3.5-fp8-b200-sglang#0 point 0 prefill: --json-model-override-args: upstream…`,
		// no location: no file=
		4: "::error title=Check 3 link not merged::upstream link https://github.com/sgl-project/sglang/pull/12345: open (Check 3 (b) needs a merged PR or a published page)",
		// a file of another repository: in the message, not file=
		5: "::error title=Check 3 error::vLLM recipe error: models/acme/Broken.yaml:3:1: top level is not a mapping",
		6: "::error file=configs/nvidia-master.yaml,line=120,title=Check 3 differs::models/deepseek-ai/DeepSeek-R1.yaml: dsr1-fp8-h200-vllm row 1 agg (TP8): --max-num-seqs: upstream 256, inferencex 512",
		// not verified last, warnings (they still fail closed: exit 1)
		7: "::warning title=Check 3 not verified::docs/src/snippets/agentx/Qwen/qwen3.5.jsx:88: qwen3.5-fp8-b200-sglang#1 point 0: not verified: upstream-only: recipes/qwen3.5/b200-bf16.yaml lives in NVIDIA/srt-slurm, not in the InferenceX checkout",
		8: "::warning file=configs/nvidia-master.yaml,line=340,title=Check 3 not verified::dsr1-fp4-gb200-dynamo-vllm row 1 conc 2048: not verified: recipe not found: benchmarks/multi_node/srt-slurm-recipes/dsr1/gb200-fp4-8k.yaml is not in the InferenceX checkout",
		9: "::notice title=cookbook-sync::❌ Check 3: 5 gaps — error 2, differs 1, no recipe covers this 1, link not merged 1 (of 3 config keys); every finding is annotated",
	} {
		if lines[i] != want {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], want)
		}
	}
	// "%" is escaped in a message, ":" and "," are not
	b.Reset()
	if err := PrintAnnotations(&b, fixtureAll(), AnnotationOptions{MaxMessage: 1000}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `--json-model-override-args: upstream {"rope": "yarn", "factor": "50%25"}, inferencex (absent)`) {
		t.Errorf("escaping:\n%s", b.String())
	}
}

func TestPrinterEscape(t *testing.T) {
	if got, want := escapeData("50% a:b,c\r\nd"), "50%25 a:b,c%0D%0Ad"; got != want {
		t.Errorf("escapeData = %q, want %q", got, want)
	}
	if got, want := escapeProperty("50% a:b,c\r\nd"), "50%25 a%3Ab%2Cc%0D%0Ad"; got != want {
		t.Errorf("escapeProperty = %q, want %q", got, want)
	}
}

// TestPrinterNoLocalDir: only PrintText and PrintJSON may print a
// checkout's local directory (RepoInfo.Dir); SARIF and annotations name
// repositories by Repo and Commit and remove local directories from
// messages (scrubDirs). (PrintMarkdown joins printers() with its golden
// test.)
func TestPrinterNoLocalDir(t *testing.T) {
	for _, fx := range fixtures() {
		for _, p := range printers() {
			var b bytes.Buffer
			if err := p.print(&b, fx.r()); err != nil {
				t.Fatal(err)
			}
			has := strings.Contains(b.String(), "/home/someone")
			switch {
			case has && !p.localDir:
				t.Errorf("%s.%s prints a local directory", fx.name, p.ext)
			case !has && p.ext == "json":
				t.Errorf("%s.%s lost RepoInfo.Dir", fx.name, p.ext)
			}
		}
	}
}

// TestPrinterMarkdownShape checks what a reviewer relies on in the
// Markdown: the verdict on the first line, each key's gaps once (no key
// heading repeated), the exclusions once per key, and the cap with its
// pointer to the JSON.
func TestPrinterMarkdownShape(t *testing.T) {
	var b bytes.Buffer
	if err := PrintMarkdown(&b, fixtureAll(), MarkdownOptions{JSONHint: "cookbook-sync coverage --format json"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	first, _, _ := strings.Cut(out, "\n")
	if first != Headline(fixtureAll()) || !strings.HasPrefix(first, "❌ Check 3: ") {
		t.Errorf("first line %q", first)
	}
	for _, h := range []string{"## Gaps", "## Exclusions (once per config key)", "## Evidence"} {
		if strings.Count(out, "\n"+h+"\n") != 1 {
			t.Errorf("%q appears %d times", h, strings.Count(out, "\n"+h+"\n"))
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "### ") && strings.Count(out, line+"\n") != 1 {
			t.Errorf("heading %q repeated", line)
		}
	}
	// cap: a limit that leaves room for the gaps only
	b.Reset()
	if err := PrintMarkdown(&b, fixtureAll(), MarkdownOptions{Limit: len(out) / 2, JSONHint: "cookbook-sync coverage --format json"}); err != nil {
		t.Fatal(err)
	}
	if b.Len() > len(out)/2 || !strings.Contains(b.String(), "✂️ Cut to stay under") || !strings.Contains(b.String(), "`cookbook-sync coverage --format json`") {
		t.Errorf("capped output (%d bytes, limit %d):\n%s", b.Len(), len(out)/2, b.String())
	}
	if !strings.HasPrefix(b.String(), first+"\n") {
		t.Errorf("capped output lost the headline")
	}
}

// TestPrinterHeadline covers the verdict line: covered, covered with
// unverified points allowed, and gaps counted worst first.
func TestPrinterHeadline(t *testing.T) {
	ok := &Report{Points: []PointResult{{Status: StatusCompared, Verdict: compare.Covered}, {Status: StatusCompared, Verdict: compare.CoveredWithExclusions}}}
	ok.Count()
	if got := Headline(ok); got != "✅ Check 3: covered — covered 1, covered-with-exclusions 1" {
		t.Errorf("covered: %q", got)
	}
	allowed := &Report{AllowUnverified: true, Points: []PointResult{{Status: StatusCompared, Verdict: compare.Covered}, {Status: StatusUpstreamOnly, Verdict: compare.UpstreamOnly}}}
	allowed.Count()
	if got := Headline(allowed); got != "✅ Check 3: no gaps — covered 1, not verified (allowed) 1" || allowed.Gap {
		t.Errorf("allowed: %q gap %v", got, allowed.Gap)
	}
	// nothing compared: never "covered"
	none := &Report{AllowUnverified: true, Points: []PointResult{{Status: StatusRecipeNotFound, Verdict: compare.RecipeNotFound}}}
	none.Count()
	if got := Headline(none); got != "✅ Check 3: no gaps, nothing compared — not verified (allowed) 1" || strings.Contains(got, "covered") {
		t.Errorf("nothing compared: %q", got)
	}
	// a differing role under a prohibited point is named
	hidden := &Report{Points: []PointResult{{Status: StatusCompared, Verdict: compare.Prohibited,
		Roles: []compare.Result{{Role: "decode", Verdict: compare.Prohibited}, {Role: "nginx", Verdict: compare.Differs}}}}}
	hidden.Count()
	if got := Headline(hidden); got != "❌ Check 3: 1 gap — prohibited 1 (roles: prohibited 1, differs 1)" {
		t.Errorf("hidden role gap: %q", got)
	}
	gaps := &Report{Points: []PointResult{
		{Status: StatusCompared, Verdict: compare.Differs}, {Status: StatusRecipeNotFound, Verdict: compare.RecipeNotFound},
		{Status: StatusCompared, Verdict: compare.Differs}, {Status: StatusCompared, Verdict: compare.Prohibited},
	}}
	gaps.Count()
	if got := Headline(gaps); got != "❌ Check 3: 4 gaps — prohibited 1, differs 2, not verified 1" {
		t.Errorf("gaps: %q", got)
	}
	if gaps.Verdict != compare.Prohibited {
		t.Errorf("report verdict %s", gaps.Verdict)
	}
}

// BenchmarkPrintMarkdown prints the all-sources fixture as Markdown.
func BenchmarkPrintMarkdown(b *testing.B) {
	r := fixtureAll()
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := PrintMarkdown(&buf, r, MarkdownOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPrinterTextFitsWidth: with a terminal width, every table line fits
// it (optional columns dropped first, identifying columns never cut), and
// without one nothing is dropped.
func TestPrinterTextFitsWidth(t *testing.T) {
	for _, fx := range fixtures() {
		var b bytes.Buffer
		if err := PrintText(&b, fx.r(), TextOptions{Width: 80}); err != nil {
			t.Fatal(err)
		}
		inTable := false
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, "CONFIG KEY") {
				inTable = true
			}
			if l == "" {
				inTable = false
			}
			if inTable && utf8.RuneCountInString(l) > 80 {
				t.Errorf("%s: table line of %d runes: %q", fx.name, utf8.RuneCountInString(l), l)
			}
		}
		b.Reset()
		if err := PrintText(&b, fx.r(), TextOptions{}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "CONFIG KEY") && !strings.Contains(b.String(), "MATCHED") {
			t.Errorf("%s: a column was dropped without a width", fx.name)
		}
	}
}

// TestPrinterMarkdownHostile: identifiers and messages from the checkouts
// (cell ids, config keys, recipe paths, error text) cannot form Markdown
// or HTML in the sign-off comment — no heading, link, image, tag, table
// cell, emphasis or @mention — and the verdict stays the first line.
func TestPrinterMarkdownHostile(t *testing.T) {
	evil := "x`\n\n</details>\n\n# INJECTED | a | b\n<img src=https://evil.example/x.png> [click](https://evil.example) **APPROVED** @octocat"
	r := &Report{
		Points: []PointResult{
			{File: "docs/a.jsx", CellID: "k#0" + evil, ConfigKey: "k" + evil, Status: StatusRecipeNotFound, Verdict: compare.RecipeNotFound,
				Recipe: "benchmarks/" + evil + ".yaml", Message: "recipe benchmarks/" + evil + " is not in the InferenceX checkout"},
			{File: "docs/a.jsx", CellID: "k#1", ConfigKey: "k2" + evil, Status: StatusCompared, Verdict: compare.Differs,
				Roles: []compare.Result{{Role: "agg", Verdict: compare.Differs, Differences: []compare.Difference{{Setting: "--x" + evil, Upstream: ptr("1" + evil), InferenceX: ptr("2")}},
					Excluded: []compare.Exclusion{{Setting: "--port" + evil, Rule: "r", Class: "harness", Reason: "because " + evil, Policy: "p"}}}}},
		},
		VLLMRecipeErrors: []string{"models/x.yaml:1:1: " + evil},
		Upstream:         []Link{{URL: "https://github.com/o/r/pull/1", State: "open", Error: evil}},
	}
	r.Count()
	var b bytes.Buffer
	if err := PrintMarkdown(&b, r, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if first, _, _ := strings.Cut(out, "\n"); first != Headline(r) {
		t.Errorf("first line %q", first)
	}
	// code spans are inert (GitHub renders them literally, no mention, no
	// HTML): look at what is outside them
	var outside strings.Builder
	for i, part := range strings.Split(strings.ReplaceAll(out, "\\`", ""), "`") {
		if i%2 == 0 {
			outside.WriteString(part)
		}
	}
	// outside code spans, an active construct is one not backslash-escaped
	for _, bad := range []string{`(^|[^\\])<img`, `[^\\]\]\(https://evil`, `(^|[^\\])\*\*APPROVED`, `@octocat`, `\n#+ INJECTED`} {
		if regexp.MustCompile(bad).MatchString(outside.String()) {
			t.Errorf("hostile text reached the Markdown as %s:\n%s", bad, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "## ") && !strings.HasPrefix(line, "### ") {
			t.Errorf("a heading the printer did not write: %q", line)
		}
		if strings.HasPrefix(line, "| ") && strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != strings.Count(line[:0]+tableHeaderFor(out, line), "|") {
			t.Errorf("table row with extra cells: %q", line)
		}
	}
}

// tableHeaderFor returns the header line of the table a row belongs to.
func tableHeaderFor(out, row string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if l == row {
			for j := i; j >= 0; j-- {
				if j+1 < len(lines) && strings.HasPrefix(lines[j+1], "|---") {
					return lines[j]
				}
			}
		}
	}
	return row
}

func ptr(s string) *string { return &s }

// TestScrubBoundaries: a local directory is removed only where it begins a
// path, never from the middle of another path, and "./dir" forms count.
func TestScrubBoundaries(t *testing.T) {
	r := &Report{LocalDirs: []string{"sglang", "/home/u/ix"}, InferenceX: RepoInfo{Dir: "/home/u/ix", Repo: "SemiAnalysisAI/InferenceX"}}
	for in, want := range map[string]string{
		"sglang/docs/a.jsx: bad":                         "docs/a.jsx: bad",
		"recipe srt-slurm-recipes/sglang/qwen3.5/x.yaml": "recipe srt-slurm-recipes/sglang/qwen3.5/x.yaml",
		"error: /home/u/ix/configs/m.yaml:3:1":           "error: configs/m.yaml:3:1",
		"in /home/u/ix, nothing":                         "in SemiAnalysisAI/InferenceX, nothing",
		"/home/u/ixy/other":                              "/home/u/ixy/other",
	} {
		if got := r.Scrub(in); got != want {
			t.Errorf("Scrub(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPrinterTextNoWorkflowCommand: a cell id carrying a newline cannot
// start a GitHub Actions workflow command in the text report.
func TestPrinterTextNoWorkflowCommand(t *testing.T) {
	r := &Report{Points: []PointResult{{File: "a.jsx", CellID: "k#0\n::error file=x.go,line=1::INJ", ConfigKey: "k", Status: StatusRecipeNotFound, Verdict: compare.RecipeNotFound, Message: "m\n::warning::INJ2"}}}
	r.Count()
	var b bytes.Buffer
	if err := PrintText(&b, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "::") {
			t.Errorf("a line starts a workflow command: %q", l)
		}
	}
	if !strings.Contains(b.String(), "INJ2") {
		t.Errorf("the message was dropped, not neutralized:\n%s", b.String())
	}
}
