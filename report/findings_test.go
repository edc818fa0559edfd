package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
)

// fixtureFindings is fixtureAll with what only some printers used to show:
// a role whose only problem is a setting whose content is not known, a
// cookbook page error and a unit a time limit stopped.
func fixtureFindings() *Report {
	r := fixtureAll()
	r.Points = append(r.Points, PointResult{
		File: fxSnippet, Line: 200, Cell: 3, CellID: fxKey + "#3", ConfigKey: fxKey, Point: 0, Concs: []int{8},
		Router: "none", KV: "fp8", Recipe: "benchmarks/single_node/x.sh", Status: StatusCompared,
		Roles: []compare.Result{{Role: "agg", Verdict: compare.ContentNotKnown, Matched: 4,
			Unknown: []compare.Difference{{Setting: "--chunked-prefill-size", Upstream: sp("8192"), InferenceX: sp("$(nproc)")}}}},
		Verdict: compare.ContentNotKnown,
	})
	r.PageErrors = []string{"docs/src/snippets/configs/acme/m.jsx:3:1: ReferenceError: x is not defined"}
	r.TimeLimits = []string{"docs/src/snippets/configs/acme/slow.jsx: time limit — re-run"}
	r.Count()
	return r
}

// TestFindingsOneList: Findings classes every outcome once, and every
// printer shows each failing finding: SARIF one result per finding, the
// annotations every message, text and Markdown the unit.
func TestFindingsOneList(t *testing.T) {
	r := fixtureFindings()
	fs := Findings(r)
	classes := map[Class]int{}
	for _, f := range fs {
		classes[f.Class]++
		n := 0
		for _, u := range []bool{f.Point != nil, f.Row != nil, f.Input != "", f.Link != nil} {
			if u {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%q: belongs to %d units, want 1", f.Message, n)
		}
		wantLevel := "error" // nothing is allowed in this report
		if f.Class == ClassNotVerified || f.Class == ClassTimeLimit {
			wantLevel = "warning"
		}
		if f.Level != wantLevel {
			t.Errorf("%q: class %s level %q, want %s", f.Message, f.Class, f.Level, wantLevel)
		}
	}
	want := map[Class]int{ClassGap: 7, ClassNotVerified: 3, ClassError: 3, ClassTimeLimit: 1}
	for c, n := range want {
		if classes[c] != n {
			t.Errorf("class %s: %d findings, want %d (all: %v)", c, classes[c], n, classes)
		}
	}
	if len(classes) != len(want) {
		t.Errorf("classes %v, want only %v", classes, want)
	}

	var sarifOut, ann, text, md bytes.Buffer
	if err := PrintSARIF(&sarifOut, r, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(sarifOut.String(), `"ruleId"`); got != len(fs) {
		t.Errorf("SARIF: %d results, want one per finding (%d)", got, len(fs))
	}
	// every finding: no cap of a step's annotations
	if err := PrintAnnotations(&ann, r, AnnotationOptions{Max: 100}); err != nil {
		t.Fatal(err)
	}
	if err := PrintText(&text, r, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := PrintMarkdown(&md, r, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"--chunked-prefill-size", "ReferenceError: x is not defined", "slow.jsx: time limit"} {
		for name, out := range map[string]string{"annotations": ann.String(), "text": text.String(), "sarif": sarifOut.String(), "markdown": md.String()} {
			if !strings.Contains(out, s) {
				t.Errorf("%s does not show %q", name, s)
			}
		}
	}
	if !strings.Contains(text.String(), "--chunked-prefill-size: not verified: content not known (upstream 8192, inferencex $(nproc))") {
		t.Errorf("text: the setting whose content is not known is not in Gaps:\n%s", text.String())
	}

	// allowed: the not-verified findings turn to notes, the time limit
	// stays a warning
	r.AllowUnverified = true
	r.Count()
	for _, f := range Findings(r) {
		wantLevel := "error"
		switch f.Class {
		case ClassAllowed:
			wantLevel = "note"
		case ClassTimeLimit:
			wantLevel = "warning"
		}
		if f.Class == ClassNotVerified || f.Level != wantLevel {
			t.Errorf("allowed: %q class %s level %s", f.Message, f.Class, f.Level)
		}
		if f.Input == InputTimeLimit && f.Class != ClassTimeLimit {
			t.Errorf("a time limit is never allowed: %s", f.Class)
		}
	}
}

// TestClassOf: one decision for every verdict.
func TestClassOf(t *testing.T) {
	r := &Report{}
	allowed := &Report{AllowUnverified: true}
	for _, c := range []struct {
		v              compare.Verdict
		strict, allows Class
	}{
		{"", ClassOK, ClassOK},
		{compare.Covered, ClassOK, ClassOK},
		{compare.CoveredWithExclusions, ClassOK, ClassOK},
		{compare.NotApplicable, ClassOK, ClassOK},
		{compare.UpstreamOnly, ClassNotVerified, ClassAllowed},
		{compare.ContentNotKnown, ClassNotVerified, ClassAllowed},
		{compare.TimeLimit, ClassTimeLimit, ClassTimeLimit},
		{compare.Differs, ClassGap, ClassGap},
		{compare.NotCovered, ClassGap, ClassGap},
		{compare.Error, ClassError, ClassError},
		{"a verdict from the future", ClassError, ClassError},
	} {
		if got := r.ClassOf(c.v); got != c.strict {
			t.Errorf("ClassOf(%q) = %s, want %s", c.v, got, c.strict)
		}
		if got := allowed.ClassOf(c.v); got != c.allows {
			t.Errorf("allowed ClassOf(%q) = %s, want %s", c.v, got, c.allows)
		}
	}
}
