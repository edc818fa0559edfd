package report

import (
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/compare"
)

func ip(i int) *int { return &i }

// agentxPoint is a compared AgentX point of key on row with concs.
func agentxPoint(key string, row *int, v compare.Verdict, concs ...int) PointResult {
	p := PointResult{File: "docs/src/snippets/agentx/org/m.jsx", CellID: key + "#0", ConfigKey: key, Concs: concs, Row: row,
		Status: StatusCompared, Verdict: v, Roles: []compare.Result{{Role: "agg", Verdict: v}}}
	if v == compare.Differs {
		p.Roles[0].Differences = []compare.Difference{{Setting: "--speculative-num-steps", Upstream: sp("5"), InferenceX: sp("3")}}
	}
	return p
}

// pageRow is a compared cookbook-page row.
func pageRow(row int, v compare.Verdict, concs ...int) RowResult {
	r := RowResult{Row: row, Concs: concs, Status: StatusCompared, Verdict: v,
		Roles: []RoleMatch{{Role: "agg", Verdict: v, Recipe: &RecipeRef{Where: "docs/cookbook/m.mdx § hw=b300"},
			Result: &compare.Result{Role: "agg", Verdict: v}}}}
	if v == compare.Differs {
		r.Roles[0].Result.Differences = []compare.Difference{{Setting: "--speculative-num-steps", Upstream: sp("3"), InferenceX: sp("5")}}
	}
	return r
}

func pagesKey(key string, rows ...RowResult) KeyResult {
	k := KeyResult{Source: SourcePages, ConfigKey: key, Framework: "sglang", Rows: rows}
	for _, r := range rows {
		k.Verdict = compare.Worse(k.Verdict, r.Verdict)
	}
	return k
}

// One verdict per key: a unit is covered by one source's selection; the
// others are information.
func TestCombineKeys(t *testing.T) {
	t.Run("a row that failed before it was placed", func(t *testing.T) {
		bad := RowResult{Row: -1, Status: StatusError, Verdict: compare.Error}
		rep := &Report{Pages: []KeyResult{pagesKey("k", bad)}}
		rep.CombineKeys()
		rep.Count()
		if len(rep.Keys) != 1 || rep.Keys[0].Verdict != compare.Error || len(rep.Keys[0].Units) != 1 || rep.Keys[0].Units[0].Row != nil {
			t.Fatalf("keys %+v: want one error unit", rep.Keys)
		}
		// beside a compared row the failure still decides the key
		rep = &Report{Pages: []KeyResult{pagesKey("k", pageRow(0, compare.Covered, 1), bad)}}
		rep.CombineKeys()
		if rep.Keys[0].Verdict != compare.Error || len(rep.Keys[0].Units) != 2 {
			t.Fatalf("keys %+v: want covered + error units, key error", rep.Keys)
		}
	})
	t.Run("agentx covers, page differs", func(t *testing.T) {
		rep := &Report{
			Points: []PointResult{agentxPoint("k", ip(0), compare.CoveredWithExclusions, 1), agentxPoint("k", ip(0), compare.CoveredWithExclusions, 4)},
			Pages:  []KeyResult{pagesKey("k", pageRow(0, compare.Differs, 1, 4))},
		}
		rep.CombineKeys()
		rep.Count()
		if len(rep.Keys) != 1 {
			t.Fatalf("keys %+v", rep.Keys)
		}
		k := rep.Keys[0]
		if k.Verdict != compare.CoveredWithExclusions || k.Source != SourceAgentX || len(k.Units) != 1 || *k.Units[0].Row != 0 ||
			len(k.Units[0].Concs) != 2 || k.Units[0].Selection != "docs/src/snippets/agentx/org/m.jsx § k#0" {
			t.Fatalf("key %+v", k)
		}
		o := k.Units[0].Others
		if len(o) != 1 || o[0].Source != SourcePages || o[0].Verdict != compare.Differs ||
			len(o[0].Shows) != 1 || o[0].Shows[0] != "agg: --speculative-num-steps 3 (inferencex: 5)" {
			t.Fatalf("others %+v", o)
		}
		row := rep.Pages[0].Rows[0]
		if !strings.HasPrefix(row.Superseded, "information: the key's row 0 concurrency 1 takes agentx ") {
			t.Errorf("page row superseded %q", row.Superseded)
		}
		if rep.Gap || rep.Verdict != compare.CoveredWithExclusions || rep.Counts.Keys["covered-with-exclusions"] != 1 {
			t.Errorf("gap %v verdict %s counts %v", rep.Gap, rep.Verdict, rep.Counts.Keys)
		}
		if h := Headline(rep); h != "✅ Check 3: covered — covered-with-exclusions 1" {
			t.Errorf("headline %q", h)
		}
		var info int
		for _, f := range Findings(rep) {
			if f.Class != ClassInfo || f.Level != "note" {
				t.Errorf("finding %s %s: %s", f.Class, f.Level, f.Message)
			}
			info++
		}
		if info != 1 {
			t.Errorf("%d findings, want the page's difference as information", info)
		}
	})
	t.Run("a unit agentx does not cover", func(t *testing.T) {
		rep := &Report{
			Points: []PointResult{agentxPoint("k", ip(0), compare.Covered, 1)},
			Pages:  []KeyResult{pagesKey("k", pageRow(0, compare.Differs, 1, 4))},
		}
		rep.CombineKeys()
		rep.Count()
		k := rep.Keys[0]
		if k.Verdict != compare.Differs || k.Source != "" || len(k.Units) != 2 || k.Units[1].Source != SourcePages || k.Units[1].Concs[0] != 4 {
			t.Fatalf("key %+v", k)
		}
		if rep.Pages[0].Rows[0].Superseded != "" || rep.Points[0].Superseded != "" || !rep.Gap {
			t.Errorf("superseded %q %q gap %v", rep.Pages[0].Rows[0].Superseded, rep.Points[0].Superseded, rep.Gap)
		}
		if h := Headline(rep); h != "❌ Check 3: 1 gap — differs 1 (of 1 config key)" {
			t.Errorf("headline %q", h)
		}
	})
	t.Run("page covers, agentx differs", func(t *testing.T) {
		rep := &Report{
			Points: []PointResult{agentxPoint("k", ip(0), compare.Differs, 1)},
			Pages:  []KeyResult{pagesKey("k", pageRow(0, compare.Covered, 1))},
		}
		rep.CombineKeys()
		rep.Count()
		if k := rep.Keys[0]; k.Verdict != compare.Covered || k.Source != SourcePages {
			t.Fatalf("key %+v", k)
		}
		if rep.Points[0].Superseded == "" || rep.Gap {
			t.Errorf("point superseded %q gap %v", rep.Points[0].Superseded, rep.Gap)
		}
	})
	t.Run("a compared gap says more than not verified", func(t *testing.T) {
		nf := PointResult{File: "f.jsx", CellID: "k#0", ConfigKey: "k", Concs: []int{1}, Row: ip(0), Status: StatusRecipeNotFound, Verdict: compare.RecipeNotFound}
		rep := &Report{Points: []PointResult{nf}, Pages: []KeyResult{pagesKey("k", pageRow(0, compare.Differs, 1))}}
		rep.CombineKeys()
		rep.Count()
		if k := rep.Keys[0]; k.Verdict != compare.Differs || k.Source != SourcePages {
			t.Fatalf("key %+v", k)
		}
		if rep.Counts.Unverified != 0 || !rep.Gap {
			t.Errorf("unverified %d gap %v", rep.Counts.Unverified, rep.Gap)
		}
	})
	t.Run("a point the master config no longer runs", func(t *testing.T) {
		rep := &Report{
			Points: []PointResult{agentxPoint("k", ip(0), compare.Covered, 1), agentxPoint("k", ip(0), compare.Differs, 48),
				{File: "f.jsx", CellID: "k#1", ConfigKey: "k", Concs: []int{2}, Status: StatusRecipeNotFound, Verdict: compare.RecipeNotFound}},
			Pages: []KeyResult{pagesKey("k", pageRow(0, compare.Differs, 1))},
		}
		rep.CombineKeys()
		rep.Count()
		if k := rep.Keys[0]; k.Verdict != compare.Covered || len(k.Units) != 1 {
			t.Fatalf("key %+v", k)
		}
		if !strings.Contains(rep.Points[1].Superseded, "no longer runs") || !strings.Contains(rep.Points[2].Superseded, "placed on no master-config row (recipe not found)") {
			t.Errorf("superseded %q / %q", rep.Points[1].Superseded, rep.Points[2].Superseded)
		}
		if rep.Gap || rep.Counts.Unverified != 0 {
			t.Errorf("gap %v unverified %d", rep.Gap, rep.Counts.Unverified)
		}
	})
	t.Run("agentx only", func(t *testing.T) {
		rep := &Report{Points: []PointResult{
			agentxPoint("k", ip(0), compare.Covered, 1),
			{File: "f.jsx", CellID: "k#1", ConfigKey: "k", Concs: []int{2, 4}, Status: StatusScriptNotFound, Verdict: compare.ScriptNotFound},
		}}
		rep.CombineKeys()
		rep.Count()
		k := rep.Keys[0]
		if k.Verdict != compare.ScriptNotFound || len(k.Units) != 2 || k.Units[1].Row != nil || len(k.Units[1].Concs) != 2 {
			t.Fatalf("key %+v", k)
		}
		if !rep.UnverifiedGap || rep.Points[1].Superseded != "" {
			t.Errorf("unverified gap %v superseded %q", rep.UnverifiedGap, rep.Points[1].Superseded)
		}
	})
	t.Run("errors always count", func(t *testing.T) {
		bad := pageRow(0, compare.Error, 1)
		bad.Status, bad.Roles = StatusError, nil
		rep := &Report{Points: []PointResult{agentxPoint("k", ip(0), compare.Covered, 1)}, Pages: []KeyResult{pagesKey("k", bad)}}
		rep.CombineKeys()
		rep.Count()
		if rep.Pages[0].Rows[0].Superseded != "" || !rep.Errors || rep.Verdict != compare.Error {
			t.Errorf("superseded %q errors %v verdict %s", rep.Pages[0].Rows[0].Superseded, rep.Errors, rep.Verdict)
		}
	})
	t.Run("not applicable", func(t *testing.T) {
		rep := &Report{Pages: []KeyResult{{Source: SourcePages, ConfigKey: "k", Verdict: compare.NotApplicable, Note: "multi-node: not in scope"}}}
		rep.CombineKeys()
		rep.Count()
		if k := rep.Keys[0]; k.Verdict != compare.NotApplicable || k.Note != "multi-node: not in scope" || rep.Gap {
			t.Fatalf("key %+v gap %v", k, rep.Gap)
		}
	})
}

// A prohibited setting InferenceX runs is the deployment's, whichever
// source covers it.
func TestCombineKeysProhibited(t *testing.T) {
	p := agentxPoint("k", ip(0), compare.Prohibited, 8)
	p.Roles[0].Prohibited = []compare.Exclusion{{Setting: "env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", Upstream: sp("1"), InferenceX: sp("1"), Rule: "prohibited-nvfp4-ckpt-fp8-nextn-moe"}}
	nc := RowResult{Row: 0, Concs: []int{8}, Status: StatusCompared, Verdict: compare.NotCovered,
		Roles: []RoleMatch{{Role: "decode", Verdict: compare.NotCovered, Nearest: &RecipeRef{Where: "p.mdx § hw=b200"}}}}
	rep := &Report{Points: []PointResult{p}, Pages: []KeyResult{pagesKey("k", nc)}}
	rep.CombineKeys()
	rep.Count()
	if k := rep.Keys[0]; k.Verdict != compare.Prohibited || k.Source != SourceAgentX {
		t.Fatalf("key %+v", k)
	}
	if rep.Points[0].Superseded != "" || rep.Pages[0].Rows[0].Superseded == "" {
		t.Errorf("superseded: point %q row %q", rep.Points[0].Superseded, rep.Pages[0].Rows[0].Superseded)
	}
	// the page's nearest selection saw it too (as evidence): the point
	// that judged it decides
	nc.Roles[0].Result = &compare.Result{Role: "decode", Verdict: compare.Prohibited, Prohibited: p.Roles[0].Prohibited}
	rep = &Report{Points: []PointResult{p}, Pages: []KeyResult{pagesKey("k", nc)}}
	rep.CombineKeys()
	rep.Count()
	if k := rep.Keys[0]; k.Verdict != compare.Prohibited || k.Source != SourceAgentX || rep.Verdict != compare.Prohibited {
		t.Fatalf("evidence on both: key %+v run %s", k, rep.Verdict)
	}
	// only the page's evidence saw it: the deployment is prohibited all the same
	rep = &Report{Pages: []KeyResult{pagesKey("k", nc)}}
	rep.CombineKeys()
	rep.Count()
	if k := rep.Keys[0]; k.Verdict != compare.Prohibited || k.Units[0].Source != SourcePages || rep.Verdict != compare.Prohibited || !rep.Gap {
		t.Fatalf("page evidence only: key %+v run %s", k, rep.Verdict)
	}
	// prohibited on the upstream side only: that selection is not used
	q := agentxPoint("k", ip(0), compare.Prohibited, 8)
	q.Roles[0].Prohibited = []compare.Exclusion{{Setting: "env X", Upstream: sp("1"), Rule: "prohibited-x"}}
	rep = &Report{Points: []PointResult{q}, Pages: []KeyResult{pagesKey("k", pageRow(0, compare.Covered, 8))}}
	rep.CombineKeys()
	if k := rep.Keys[0]; k.Verdict != compare.Covered || k.Source != SourcePages {
		t.Fatalf("upstream-only prohibited: key %+v", k)
	}
}
