package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// fxVersion is the tool version the fixtures' SARIF logs are written with.
const fxVersion = "v1.2.3"

// fxSARIFOptions are the options the golden SARIF logs are printed with:
// a fixed tool version and the invocation the CLI would write for r (exit
// 2 for bad input, 1 for a gap, else 0).
func fxSARIFOptions(r *Report) SARIFOptions {
	inv := &Invocation{ExitCode: 0, Description: "success: no gap", Successful: true}
	switch {
	case r.Errors:
		inv = &Invocation{ExitCode: 2, Description: "bad input"}
	case r.Gap:
		inv = &Invocation{ExitCode: 1, Description: "gap found", Successful: true}
	}
	return SARIFOptions{ToolVersion: fxVersion, Invocation: inv}
}

// sarifSchema and validateSARIF are the shared test helpers'.
var (
	sarifSchema   = testutil.SARIFSchema
	validateSARIF = testutil.ValidateSARIF
)

// fixtureMany is fixtureVLLM and keys more vLLM keys whose one row
// differs in n settings each; the first of them also has a row that was
// not verified (a warning) and a superseded row that differs in up to 3
// settings (notes).
func fixtureMany(keys, n int) *Report {
	r := fixtureVLLM()
	diffs := make([]compare.Difference, n)
	for i := range diffs {
		diffs[i] = compare.Difference{Setting: fmt.Sprintf("--setting-%04d", i), Upstream: sp("1"), InferenceX: sp("2")}
	}
	ref := &RecipeRef{Kind: "yaml", File: "models/acme/M.yaml", Role: "agg", Topology: "TP8", Where: "models/acme/M.yaml role=agg"}
	row := func(i int, v compare.Verdict, ds []compare.Difference) RowResult {
		return RowResult{Row: i, Concs: []int{4 << i}, Status: StatusCompared, Verdict: v,
			Roles: []RoleMatch{{Role: "agg", Topology: "TP8", Recipe: ref, Verdict: v,
				Result: &compare.Result{Role: "agg", Verdict: v, Differences: ds}}}}
	}
	first := len(r.VLLM)
	for k := 0; k < keys; k++ {
		key := KeyResult{ConfigKey: fmt.Sprintf("big-%02d-vllm", k), Framework: "vllm", Master: fmt.Sprintf("%s:%d:3", fxMaster, 500+10*k),
			MasterFile: fxMaster, MasterLine: 500 + 10*k, Verdict: compare.Differs, Rows: []RowResult{row(0, compare.Differs, diffs)}}
		if k == 0 {
			key.Rows = append(key.Rows,
				RowResult{Row: 1, Concs: []int{64}, Status: StatusUnsupported, Verdict: compare.Unsupported, Message: "a construct the renderer does not model"},
				row(2, compare.Differs, diffs[:min(3, n)]))
		}
		r.VLLM = append(r.VLLM, key)
	}
	r.CombineKeys()
	if keys > 0 {
		r.VLLM[first].Rows[2].Superseded = "information: another source covers it"
	}
	r.Count()
	return r
}

// sarifLog is the part of a printed log the tests read.
type sarifLog struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Version string `json:"version"`
				Rules   []struct {
					ID string `json:"id"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Invocations []struct {
			ExecutionSuccessful bool   `json:"executionSuccessful"`
			ExitCode            *int   `json:"exitCode"`
			ExitCodeDescription string `json:"exitCodeDescription"`
			Notifications       []struct {
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Properties map[string]any `json:"properties"`
		Results    []sarifResult  `json:"results"`
	} `json:"runs"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI       string `json:"uri"`
			URIBaseID string `json:"uriBaseId"`
		} `json:"artifactLocation"`
		Region *struct {
			StartLine int `json:"startLine"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

// at is the location as "BASE uri:line" ("BASE uri" without a region).
func (l sarifLocation) at() string {
	s := l.PhysicalLocation.ArtifactLocation.URIBaseID + " " + l.PhysicalLocation.ArtifactLocation.URI
	if l.PhysicalLocation.Region != nil {
		s += fmt.Sprintf(":%d", l.PhysicalLocation.Region.StartLine)
	}
	return s
}

type sarifResult struct {
	RuleID  string `json:"ruleId"`
	Level   string `json:"level"`
	Message struct {
		Text string `json:"text"`
	} `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	RelatedLocations    []sarifLocation   `json:"relatedLocations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties"`
}

func parseSARIF(t *testing.T, r *Report, o SARIFOptions) (sarifLog, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := PrintSARIF(&b, r, o); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs", len(log.Runs))
	}
	return log, b.Bytes()
}

// TestSARIFSchemaValid validates every SARIF log the printer writes for
// the fixtures — capped, with a run error, with AllowUnverified — against
// the OASIS SARIF 2.1.0 JSON schema (testdata/sarif-schema-2.1.0.json)
// with github.com/santhosh-tekuri/jsonschema/v6; the check is not vacuous:
// a level outside the schema's enum and a missing executionSuccessful fail.
func TestSARIFSchemaValid(t *testing.T) {
	sch := sarifSchema(t)
	type tc struct {
		name string
		r    *Report
		o    SARIFOptions
	}
	var cases []tc
	for _, fx := range fixtures() {
		cases = append(cases, tc{fx.name, fx.r(), fxSARIFOptions(fx.r())}, tc{fx.name + " no options", fx.r(), SARIFOptions{}})
	}
	allowed := fixtureFindings()
	allowed.AllowUnverified = true
	allowed.Count()
	cases = append(cases,
		tc{"findings", fixtureFindings(), fxSARIFOptions(fixtureFindings())},
		tc{"allowed", allowed, fxSARIFOptions(allowed)},
		tc{"capped", fixtureFindings(), SARIFOptions{MaxResults: 4, Invocation: &Invocation{ExitCode: 2}}},
		tc{"run error", runErrorReport(), SARIFOptions{RunError: runErrorMsg, Invocation: &Invocation{ExitCode: 2, Description: "bad usage or bad input"}}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := PrintSARIF(&b, c.r, c.o); err != nil {
				t.Fatal(err)
			}
			if err := validateSARIF(sch, b.Bytes()); err != nil {
				t.Fatal(err)
			}
		})
	}
	out := sarifOf(t, fixtureCookbook())
	for name, bad := range map[string]string{
		"level fatal":                 strings.Replace(out, `"level": "error"`, `"level": "fatal"`, 1),
		"no executionSuccessful":      strings.Replace(out, `"executionSuccessful": false,`, ``, 1),
		"startLine 0":                 strings.Replace(out, `"startLine": 42`, `"startLine": 0`, 1),
		"partialFingerprints integer": strings.Replace(out, `"cookbookSyncFinding/v1": "`, `"cookbookSyncFinding/v1": 1, "x": "`, 1),
	} {
		if bad == out {
			t.Fatalf("%s: the mutation did not apply", name)
		}
		if validateSARIF(sch, []byte(bad)) == nil {
			t.Errorf("a SARIF log with %s validated", name)
		}
	}
}

// TestSARIFLevels: a result's level is its finding's class's — gaps and
// errors "error", not verified and time limits "warning", allowed and
// superseded "note" — and the rules' default levels agree.
func TestSARIFLevels(t *testing.T) {
	for c, want := range map[Class]string{ClassGap: "error", ClassError: "error", ClassNotVerified: "warning",
		ClassTimeLimit: "warning", ClassAllowed: "note", ClassInfo: "note", ClassOK: "none", "a class from the future": "error"} {
		if got := c.Level(); got != want {
			t.Errorf("%s.Level() = %s, want %s", c, got, want)
		}
	}
	r := fixtureFindings()
	log, _ := parseSARIF(t, r, SARIFOptions{})
	got := map[string]int{}
	for _, res := range log.Runs[0].Results {
		got[res.RuleID+" "+res.Level]++
	}
	want := map[string]int{
		"check3/error error": 3, "check3/prohibited error": 1, "check3/differs error": 3, "check3/not-covered error": 2,
		"check3/link-not-merged error": 1, "check3/not-verified warning": 4, // 2 not verified, 1 content not known, 1 time limit
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("levels %v, want %v", got, want)
	}
	// worst first: every error before every warning
	seenWarning := false
	for _, res := range log.Runs[0].Results {
		seenWarning = seenWarning || res.Level != "error"
		if seenWarning && res.Level == "error" {
			t.Errorf("error %q after a warning", res.Message.Text)
		}
	}

	r.AllowUnverified = true
	r.Count()
	log, _ = parseSARIF(t, r, SARIFOptions{})
	got = map[string]int{}
	for _, res := range log.Runs[0].Results {
		if res.RuleID == RuleNotVerified {
			got[res.Level]++
		}
	}
	if got["note"] != 3 || got["warning"] != 1 { // the time limit is never allowed
		t.Errorf("allowed not-verified levels %v, want 3 notes and the time limit's warning", got)
	}

	// superseded: information, a note
	log, _ = parseSARIF(t, fixtureSources(), SARIFOptions{})
	notes := 0
	for _, res := range log.Runs[0].Results {
		if res.Properties["superseded"] != nil {
			notes++
			if res.Level != "note" {
				t.Errorf("superseded %q level %s", res.Message.Text, res.Level)
			}
		}
	}
	if notes == 0 {
		t.Error("fixtureSources has no superseded result")
	}
}

// TestSARIFCap: at most MaxResults results, the worst kept, and one last
// result (and run.properties) counting what was left out by level.
func TestSARIFCap(t *testing.T) {
	r := fixtureMany(6, 1000)
	total := len(Findings(r))
	levels := map[string]int{}
	for _, f := range Findings(r) {
		levels[f.Level]++
	}
	// fixtureVLLM's 4 errors and 6000 differences; 2 warnings; 3 notes
	if total != 6009 || levels["error"] != 6004 || levels["warning"] != 2 || levels["note"] != 3 {
		t.Fatalf("%d findings %v", total, levels)
	}
	log, out := parseSARIF(t, r, fxSARIFOptions(r))
	if err := validateSARIF(sarifSchema(t), out); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Results) != MaxSARIFResults {
		t.Fatalf("%d results, want %d", len(run.Results), MaxSARIFResults)
	}
	// the errors alone exceed the cap: only errors are kept
	for _, res := range run.Results[:MaxSARIFResults-1] {
		if res.Level != "error" {
			t.Fatalf("kept a %s: %s", res.Level, res.Message.Text)
		}
	}
	last := run.Results[len(run.Results)-1]
	const wantMsg = "1010 more findings left out of this log (at most 5000 results): 1005 errors, 2 warnings, 3 notes; the JSON report (--format json) lists every one"
	if last.RuleID != RuleResultsLeftOut || last.Level != "warning" || last.Message.Text != wantMsg || len(last.Locations) != 0 ||
		fmt.Sprint(last.Properties["resultsLeftOut"]) != "map[error:1005 note:3 warning:2]" {
		t.Errorf("last result %+v\nwant message %s", last, wantMsg)
	}
	if fmt.Sprint(run.Properties["resultsLeftOut"]) != "map[error:1005 note:3 warning:2]" || run.Properties["findings"] != float64(total) {
		t.Errorf("properties %v", run.Properties)
	}
	if ids := run.Tool.Driver.Rules; ids[len(ids)-1].ID != RuleResultsLeftOut {
		t.Errorf("rules %v", ids)
	}
	// breadth first: every key's first finding of each rule is in the
	// log, though one key's differences alone would fill it
	msgs := map[string]bool{}
	for _, res := range run.Results {
		msgs[res.Message.Text] = true
	}
	for _, m := range []string{
		"dsr1-fp4-gb200-dynamo-vllm row 0 prefill (TEP4): no recipe covers this; nearest upstream: models/deepseek-ai/DeepSeek-R1.yaml variant=fp4 strategy=disagg_tp hw=b200 role=prefill; misses: hardware: vllm-recipes b200, inferencex gb200; topology: vllm-recipes TP4, inferencex TEP4",
		"dsr1-fp4-gb200-dynamo-vllm row 0 decode (DEP8): no recipe covers this",
		"big-05-vllm row 0 agg (TP8): --setting-0000: upstream 1, inferencex 2",
		"big-05-vllm row 0 agg (TP8): --setting-0831: upstream 1, inferencex 2",
		"dsr1-fp8-h200-vllm row 1 agg (TP8): --max-num-seqs: upstream 256, inferencex 512",
		"vLLM recipe error: models/acme/Broken.yaml:3:1: top level is not a mapping",
	} {
		if !msgs[m] {
			t.Errorf("capped log lost %q", m)
		}
	}
	// 4999 kept: 16 in the first two rounds, then 6 keys' differences per
	// round: 832 of each key, 833 of the first three
	for m, want := range map[string]bool{
		"big-02-vllm row 0 agg (TP8): --setting-0832: upstream 1, inferencex 2": true,
		"big-03-vllm row 0 agg (TP8): --setting-0832: upstream 1, inferencex 2": false,
	} {
		if msgs[m] != want {
			t.Errorf("kept %q: %v, want %v", m, msgs[m], want)
		}
	}

	// under the cap: every finding, no left-out result
	log, _ = parseSARIF(t, fixtureAll(), SARIFOptions{})
	if n := len(log.Runs[0].Results); n != len(Findings(fixtureAll())) || log.Runs[0].Properties["resultsLeftOut"] != nil {
		t.Errorf("%d results for %d findings, properties %v", n, len(Findings(fixtureAll())), log.Runs[0].Properties)
	}
	// a small cap: 3 findings and the count of the rest
	log, _ = parseSARIF(t, fixtureFindings(), SARIFOptions{MaxResults: 4})
	res := log.Runs[0].Results
	if len(res) != 4 || res[0].RuleID != RuleError || res[3].Message.Text != "11 more findings left out of this log (at most 4 results): 7 errors, 4 warnings; the JSON report (--format json) lists every one" {
		t.Errorf("capped at 4: %+v", res)
	}
}

// TestSARIFFingerprints: every result has partialFingerprints whose value
// is the documented hash; it is the same in another run, when lines move
// and values change, distinct for distinct findings, and never depends on
// the order or the cap.
func TestSARIFFingerprints(t *testing.T) {
	prints := func(r *Report, o SARIFOptions) map[string]string {
		log, _ := parseSARIF(t, r, o)
		m := map[string]string{}
		for _, res := range log.Runs[0].Results {
			fp := res.PartialFingerprints[FingerprintKey]
			if fp == "" {
				t.Fatalf("%q has no fingerprint", res.Message.Text)
			}
			if _, dup := m[fp]; dup {
				t.Errorf("fingerprint %s twice", fp)
			}
			m[fp] = res.RuleID + " " + fmt.Sprint(res.Properties["configKey"]) + " " + fmt.Sprint(res.Properties["setting"])
		}
		return m
	}
	a := prints(fixtureFindings(), SARIFOptions{})
	if b := prints(fixtureFindings(), fxSARIFOptions(fixtureFindings())); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("another run:\n%v\n%v", a, b)
	}
	moved := fixtureFindings()
	moved.Points[0].Line += 7
	moved.Points[0].Roles[0].Differences[0].Upstream = sp("0.9")
	moved.VLLM[0].MasterLine += 30
	moved.VLLM[1].MasterLine += 30
	moved.VLLMRecipeErrors[0] = strings.Replace(moved.VLLMRecipeErrors[0], ":3:1:", ":9:1:", 1)
	if b := prints(moved, SARIFOptions{}); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("lines moved, a value changed:\n%v\n%v", a, b)
	}
	// the documented identity of the first difference
	sum := sha256.Sum256([]byte("rule=check3/differs\nsource=cookbook\nkey=" + fxKey + "\nfile=" + fxSnippet +
		"\ncell=" + fxKey + "#0\npoint=0\nrole=prefill\nsetting=--mem-fraction-static\n"))
	want := hex.EncodeToString(sum[:16]) + ":1"
	if got := a[want]; got != "check3/differs "+fxKey+" --mem-fraction-static" {
		t.Errorf("fingerprint %s is %q, want the prefill --mem-fraction-static difference (all: %v)", want, got, a)
	}
	// a row's identity: source, key, row, concurrencies, role, topology
	sum = sha256.Sum256([]byte("rule=check3/not-covered\nsource=vllm-recipes\nkey=dsr1-fp4-gb200-dynamo-vllm\nrow=0\nconcs=1024\nrole=decode\ntopology=DEP8\n"))
	if got := a[hex.EncodeToString(sum[:16])+":1"]; got != "check3/not-covered dsr1-fp4-gb200-dynamo-vllm <nil>" {
		t.Errorf("not-covered decode fingerprint: %q", got)
	}
	// capped: the kept results keep their fingerprints
	for fp := range prints(fixtureFindings(), SARIFOptions{MaxResults: 5}) {
		if _, ok := a[fp]; !ok && !strings.HasPrefix(fp, hashFields(RuleResultsLeftOut)) {
			t.Errorf("capped log: fingerprint %s not in the full log", fp)
		}
	}
	// two findings with one identity: the occurrence tells them apart
	if got := fingerprints([]Finding{{Rule: RuleError, Input: InputPage, Message: "cookbook page error: a.jsx:1:1: x"}, {Rule: RuleError, Input: InputPage, Message: "cookbook page error: a.jsx:2:1: x"}}); got[0] == got[1] ||
		!strings.HasSuffix(got[0], ":1") || !strings.HasSuffix(got[1], ":2") || got[0][:32] != got[1][:32] {
		t.Errorf("duplicate identities: %v", got)
	}
}

// TestSARIFStartLine: a result whose finding has a position has
// region.startLine — the upstream line when known, else the InferenceX
// one, the other place a related location.
func TestSARIFStartLine(t *testing.T) {
	log, _ := parseSARIF(t, fixtureFindings(), SARIFOptions{})
	at := map[string]string{}
	for _, res := range log.Runs[0].Results {
		if len(res.Locations) > 1 {
			t.Errorf("%q: %d locations", res.Message.Text, len(res.Locations))
		}
		s := ""
		if len(res.Locations) == 1 {
			s = res.Locations[0].at()
			if res.Locations[0].PhysicalLocation.Region == nil && res.RuleID != RuleNotVerified {
				t.Errorf("%q at %s: no startLine", res.Message.Text, s)
			}
		}
		for _, l := range res.RelatedLocations {
			s += " | " + l.at()
		}
		at[res.Message.Text] = s
	}
	for msg, want := range map[string]string{
		// a cookbook point: the snippet line, the recipe it cites in InferenceX
		"qwen3.5-fp8-b200-sglang#0 point 0 decode: --disable-cuda-graph: PROHIBITED, set in inferencex only (inferencex (set)) — no-disable-cuda-graph: CUDA graphs off is not a production setting": "COOKBOOK " + fxSnippet + ":42 | INFERENCEX benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp8.yaml",
		// a point error at its recipe's line
		"qwen3.5-fp8-b200-sglang#2 point 1: error: benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp4.yaml:12:3: mapping values are not allowed\n  in this context": "COOKBOOK " + fxSnippet + ":120 | INFERENCEX benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp4.yaml:12",
		// a YAML recipe has no line: the master config's, the recipe related
		"dsr1-fp8-h200-vllm row 1 agg (TP8): --max-num-seqs: upstream 256, inferencex 512": "INFERENCEX " + fxMaster + ":120 | VLLM_RECIPES models/deepseek-ai/DeepSeek-R1.yaml",
		// no recipe covers this: the master config only
		"dsr1-fp4-gb200-dynamo-vllm row 0 decode (DEP8): no recipe covers this":                                                    "INFERENCEX " + fxMaster + ":340",
		"vLLM recipe error: models/acme/Broken.yaml:3:1: top level is not a mapping":                                               "VLLM_RECIPES models/acme/Broken.yaml:3",
		"cookbook page error: docs/src/snippets/configs/acme/m.jsx:3:1: ReferenceError: x is not defined":                          "SGLANG_PAGES docs/src/snippets/configs/acme/m.jsx:3",
		"upstream link https://github.com/sgl-project/sglang/pull/12345: open (Check 3 (b) needs a merged PR or a published page)": "",
	} {
		got, ok := at[msg]
		if !ok {
			t.Errorf("no result %q", msg)
		} else if got != want {
			t.Errorf("%q at\n %s, want\n %s", msg, got, want)
		}
	}
	// a recipe role's upstream place: a Markdown block's line, else a
	// prose alternate's sentence, else the file alone
	for _, c := range []struct {
		ref  RecipeRef
		want string
	}{
		{RecipeRef{File: "DeepSeek/DeepSeek-R1.md", Line: 57}, "DeepSeek/DeepSeek-R1.md:57"},
		{RecipeRef{File: "models/x.yaml", Prose: &ProseRef{File: "DeepSeek/DeepSeek-R1.md", Line: 12}}, "DeepSeek/DeepSeek-R1.md:12"},
		{RecipeRef{File: "models/x.yaml"}, "models/x.yaml:0"},
	} {
		if f, l := c.ref.place(); fmt.Sprintf("%s:%d", f, l) != c.want {
			t.Errorf("place of %+v = %s:%d, want %s", c.ref, f, l, c.want)
		}
	}
	// a script point: the search-space row its script was run for
	log, _ = parseSARIF(t, fixtureSources(), SARIFOptions{})
	for _, res := range log.Runs[0].Results {
		if strings.HasPrefix(res.Message.Text, "qwen3.5-fp8-h200-sglang-agentic-mtp#0 point 0 agg: --speculative-num-steps") {
			if got := res.Locations[0].at() + " | " + res.RelatedLocations[0].at(); got != "COOKBOOK docs/src/snippets/agentx/Qwen/qwen3.5.jsx:40 | INFERENCEX "+fxMaster+":8773" {
				t.Errorf("script point at %s", got)
			}
		}
		if len(res.Locations) == 1 && res.Locations[0].PhysicalLocation.Region == nil {
			t.Errorf("%q has no startLine", res.Message.Text)
		}
	}
}

// runErrorMsg is a run error naming a local directory.
const runErrorMsg = "--infx " + localRoot + "/InferenceX: --config-key nope-*: matches no config key\n(the keys are listed by render --list)"

// runErrorReport is the report the CLI prints a run error with: nothing
// judged, the run's directories to remove from messages.
func runErrorReport() *Report {
	return &Report{SchemaVersion: SchemaVersion, SchemaRevision: SchemaRevision, Verdict: compare.Error, Errors: true,
		InferenceX: RepoInfo{Dir: localRoot + "/InferenceX"}, LocalDirs: []string{localRoot + "/InferenceX"}}
}

// TestSARIFInvocation: tool.driver.version, the invocation, and a run
// error as the first result and a notification.
func TestSARIFInvocation(t *testing.T) {
	log, _ := parseSARIF(t, fixtureAll(), fxSARIFOptions(fixtureAll()))
	run := log.Runs[0]
	if run.Tool.Driver.Version != fxVersion || len(run.Invocations) != 1 {
		t.Fatalf("version %q, invocations %+v", run.Tool.Driver.Version, run.Invocations)
	}
	if inv := run.Invocations[0]; inv.ExitCode == nil || *inv.ExitCode != 2 || inv.ExecutionSuccessful || inv.ExitCodeDescription != "bad input" {
		t.Errorf("invocation %+v", inv)
	}
	log, _ = parseSARIF(t, fixtureVLLM(), SARIFOptions{Invocation: &Invocation{ExitCode: 1, Description: "gap found", Successful: true}})
	if run := log.Runs[0]; run.Tool.Driver.Version != "(devel)" || !run.Invocations[0].ExecutionSuccessful || *run.Invocations[0].ExitCode != 1 {
		t.Errorf("version %q, invocation %+v", run.Tool.Driver.Version, run.Invocations)
	}
	log, _ = parseSARIF(t, fixtureVLLM(), SARIFOptions{})
	if n := len(log.Runs[0].Invocations); n != 0 {
		t.Errorf("%d invocations without one given", n)
	}

	log, out := parseSARIF(t, runErrorReport(), SARIFOptions{RunError: runErrorMsg, Invocation: &Invocation{ExitCode: 2, Description: "bad usage or bad input"}})
	run = log.Runs[0]
	const want = "run error: --infx inferencex: --config-key nope-*: matches no config key (the keys are listed by render --list)"
	if len(run.Results) != 1 || run.Results[0].RuleID != RuleError || run.Results[0].Level != "error" || run.Results[0].Message.Text != want {
		t.Errorf("run error results %+v", run.Results)
	}
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful || *inv.ExitCode != 2 || len(inv.Notifications) != 1 || inv.Notifications[0].Message.Text != want || inv.Notifications[0].Level != "error" {
		t.Errorf("run error invocation %+v", inv)
	}
	if run.Properties["headline"] != "❌ Check 3: error — the run stopped: --infx inferencex: --config-key nope-*: matches no config key (the keys are listed by render --list)" ||
		run.Properties["verdict"] != "error" {
		t.Errorf("properties %v", run.Properties)
	}
	if bytes.Contains(out, []byte(localRoot)) {
		t.Error("the run error's local directory is printed")
	}
}

// annotationLines prints r's annotations and splits them into lines.
func annotationLines(t *testing.T, r *Report, o AnnotationOptions) []string {
	t.Helper()
	var b bytes.Buffer
	if err := PrintAnnotations(&b, r, o); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "\n") {
		t.Fatalf("no final newline: %q", b.String())
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// TestAnnotationsCap: at most 10 annotations, worst first (errors, then
// warnings, then notices; one of each rule before a second), then exactly
// one summary line counting the findings left out by level.
func TestAnnotationsCap(t *testing.T) {
	r := fixtureMany(12, 2)
	lines := annotationLines(t, r, AnnotationOptions{})
	if len(lines) != MaxAnnotations+1 {
		t.Fatalf("%d lines, want %d annotations and a summary:\n%s", len(lines), MaxAnnotations, strings.Join(lines, "\n"))
	}
	var cmds []string
	shown := 0
	for _, l := range lines[:MaxAnnotations] {
		cmd, _, _ := strings.Cut(l, " ")
		_, title, _ := strings.Cut(l, "title=")
		title, msg, _ := strings.Cut(title, "::")
		_, key, _ := strings.Cut(msg, ": ")
		key, _, _ = strings.Cut(strings.TrimPrefix(key, "2 findings: "), " ")
		cmds = append(cmds, cmd+" "+title+" "+key)
		if strings.Contains(msg, "2 findings: ") {
			shown += 2
		} else {
			shown++
		}
	}
	want := []string{
		// one of each rule first: the recipe error (bad input), a
		// difference, a role no recipe covers
		"::error Check 3 error models/acme/Broken.yaml:3:1:",
		"::error Check 3 differs dsr1-fp8-h200-vllm",
		"::error Check 3 no recipe covers this dsr1-fp4-gb200-dynamo-vllm",
		// then one annotation per key, in report order
		"::error Check 3 differs big-00-vllm",
		"::error Check 3 differs big-01-vllm",
		"::error Check 3 differs big-02-vllm",
		"::error Check 3 differs big-03-vllm",
		"::error Check 3 differs big-04-vllm",
		"::error Check 3 differs big-05-vllm",
		"::error Check 3 differs big-06-vllm",
	}
	if got := strings.Join(cmds, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("annotations:\n%s\nwant:\n%s\n(all:\n%s)", got, strings.Join(want, "\n"), strings.Join(lines, "\n"))
	}
	// 32 findings: 28 errors (24 + 4 of fixtureVLLM), 2 warnings, 2 notes
	if total := len(Findings(r)); total != 32 || shown != 18 {
		t.Errorf("%d findings, %d shown", total, shown)
	}
	if got, want := lines[MaxAnnotations], "::notice title=cookbook-sync::"+Headline(r)+"; 14 more findings: 10 errors, 2 warnings, 2 notices (not annotated: --format sarif or json lists every one)"; got != want {
		t.Errorf("summary\n %s\nwant\n %s", got, want)
	}

	// warnings before notices
	lines = annotationLines(t, fixtureMany(1, 2), AnnotationOptions{})
	var kinds []string
	for _, l := range lines {
		cmd, _, _ := strings.Cut(l, " ")
		kinds = append(kinds, cmd)
	}
	if got := strings.Join(kinds, " "); got != "::error ::error ::error ::error ::warning ::warning ::notice ::notice" {
		t.Errorf("levels %s:\n%s", got, strings.Join(lines, "\n"))
	}

	// all notices: at most 9, so the summary notice is the 10th
	many := fixtureMany(12, 2)
	many.AllowUnverified = true
	for i := range many.VLLM {
		for j := range many.VLLM[i].Rows {
			many.VLLM[i].Rows[j].Superseded = "information: another source covers it"
		}
	}
	many.VLLMRecipeErrors = nil
	many.Count()
	lines = annotationLines(t, many, AnnotationOptions{})
	for _, l := range lines {
		if !strings.HasPrefix(l, "::notice ") {
			t.Errorf("not a notice: %s", l)
		}
	}
	if len(lines) != MaxAnnotations || !strings.Contains(lines[len(lines)-1], "title=cookbook-sync::") {
		t.Errorf("%d notices:\n%s", len(lines), strings.Join(lines, "\n"))
	}

	// few findings: all annotated, and the summary says so
	lines = annotationLines(t, fixtureVLLM(), AnnotationOptions{})
	if last := lines[len(lines)-1]; !strings.HasSuffix(last, "; every finding is annotated") {
		t.Errorf("summary %s", last)
	}
}

// TestAnnotationsLines: each message is one line of at most
// MaxAnnotationMessage runes; file= names only files of the checkout
// being judged (InferenceX), and a place in another repository is said in
// the message.
func TestAnnotationsLines(t *testing.T) {
	r := fixtureFindings()
	long := strings.Repeat("a value that goes on\nand on ", 500) // 14 KB with line breaks
	r.Points[0].Roles[0].Differences[0].Upstream = &long
	r.Count()
	lines := annotationLines(t, r, AnnotationOptions{})
	for _, l := range lines {
		head, msg, ok := strings.Cut(strings.TrimPrefix(l, "::"), "::")
		if !ok {
			t.Fatalf("not a workflow command: %s", l)
		}
		raw := strings.NewReplacer("%0A", "\n", "%0D", "\r", "%25", "%").Replace(msg)
		if n := utf8.RuneCountInString(raw); n > MaxAnnotationMessage || strings.ContainsAny(raw, "\r\n") {
			t.Errorf("message of %d runes (line breaks: %v): %s", n, strings.ContainsAny(raw, "\r\n"), l)
		}
		if len(l) > 600 {
			t.Errorf("line of %d bytes: %s", len(l), l)
		}
		if _, file, ok := strings.Cut(head, "file="); ok {
			file, _, _ = strings.Cut(file, ",")
			if !strings.HasPrefix(file, "configs/") && !strings.HasPrefix(file, "benchmarks/") {
				t.Errorf("file= outside the InferenceX checkout: %s", l)
			}
		}
	}
	joined := strings.Join(lines, "\n")
	for _, want := range []string{
		// the long difference, cut, at the recipe the point cites
		"::error file=benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp8.yaml,title=Check 3 differs::" + fxSnippet + ":42: 2 findings: qwen3.5-fp8-b200-sglang#0 point 0 prefill: --mem-fraction-static: upstream a value that goes on and on a value",
		// the point error at its recipe's line, the newline a space
		"::error file=benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp4.yaml,line=12,title=Check 3 error::" + fxSnippet + ":120: qwen3.5-fp8-b200-sglang#2 point 1: error: benchmarks/multi_node/srt-slurm-recipes/qwen3.5/b200-fp4.yaml:12:3: mapping values are not allowed in this context\n",
		// a vLLM recipe's place in the message, the row at the master config
		"::error file=configs/nvidia-master.yaml,line=120,title=Check 3 differs::models/deepseek-ai/DeepSeek-R1.yaml: dsr1-fp8-h200-vllm row 1 agg (TP8): --max-num-seqs: upstream 256, inferencex 512\n",
		// an input of another repository: no file=, the path is in the message
		"::error title=Check 3 error::vLLM recipe error: models/acme/Broken.yaml:3:1: top level is not a mapping\n",
	} {
		if !strings.Contains(joined+"\n", want) {
			t.Errorf("annotations lack\n%s\nin\n%s", want, joined)
		}
	}
	if strings.Contains(joined, "…") == false {
		t.Error("the long message was not cut")
	}
	// another checkout: the cookbook snippet's lines are file=
	lines = annotationLines(t, fixtureCookbook(), AnnotationOptions{Checkout: BaseCookbook})
	if !strings.HasPrefix(lines[0], "::error file="+fxSnippet+",line=120,title=Check 3 error::") {
		t.Errorf("checkout COOKBOOK: %s", lines[0])
	}
}

// TestAnnotationsRunError: a run error is the first annotation and the
// summary says the run stopped.
func TestAnnotationsRunError(t *testing.T) {
	lines := annotationLines(t, runErrorReport(), AnnotationOptions{RunError: runErrorMsg})
	want := []string{
		"::error title=Check 3 error::run error: --infx inferencex: --config-key nope-*: matches no config key (the keys are listed by render --list)",
		"::notice title=cookbook-sync::❌ Check 3: error — the run stopped: --infx inferencex: --config-key nope-*: matches no config key (the keys are listed by render --list); every finding is annotated",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// beside findings it comes first
	lines = annotationLines(t, fixtureAll(), AnnotationOptions{RunError: "the GitHub API could not be asked"})
	if lines[0] != "::error title=Check 3 error::run error: the GitHub API could not be asked" {
		t.Errorf("first annotation %s", lines[0])
	}
}
