package recipes

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/prose"
)

const proseSite = "testdata/prose-site"

// exactProse returns the exact candidates of q and the one whose prose
// alternate cites line (nil when none).
func exactProse(t *testing.T, ix *Index, q Query, line int) ([]Candidate, *Candidate) {
	t.Helper()
	cs, err := ix.Match(q)
	if err != nil {
		t.Fatal(err)
	}
	var hit *Candidate
	for i := range cs {
		if cs[i].Exact && cs[i].Prose != nil && cs[i].Prose.Line == line {
			hit = &cs[i]
		}
	}
	return cs, hit
}

func argValue(d *launch.Deployment, proc int, flag string) (string, bool) {
	v, ok := launch.Lookup(d.Processes[proc].Args, flag)
	if !ok || len(v) == 0 {
		return "", ok
	}
	return v[0], true
}

// TestRecipeProseAlternates: the statements of a model YAML's prose
// (guide: and variant descriptions) are alternates of the renderings they
// scope, and only those.
func TestRecipeProseAlternates(t *testing.T) {
	ix, err := Open(proseSite)
	if err != nil {
		t.Fatal(err)
	}
	const file = "models/acme/Comet-1.yaml"
	// "**AMD:** MI355X (gfx950) … the MXFP8 variant runs from TP=4" (line
	// 34): TP4 of the MXFP8 variant on MI355X, citing the sentence.
	_, c := exactProse(t, ix, Query{Model: "acme/Comet-1-MXFP8", Hardware: "mi355x", TP: 4}, 34)
	if c == nil {
		t.Fatal("mxfp8 mi355x TP4: no prose alternate")
	}
	if c.Variant != "mxfp8" || c.Hardware != "mi355x" || c.Topology.String() != "TP4" || c.Prose.Kind != prose.AtLeast ||
		!strings.Contains(c.Where(), " + prose "+file+":34 \"BF16 needs TP=8; the MXFP8 variant runs from TP=4.\"") {
		t.Errorf("mxfp8 mi355x TP4: %s", c.Where())
	}
	if v, _ := argValue(&c.Deployment, c.Process, "--tensor-parallel-size"); v != "4" {
		t.Errorf("mxfp8 TP4 args: %v", c.Deployment.Processes[c.Process].Args)
	}
	for _, a := range c.Deployment.Processes[c.Process].Args {
		if a.Flag == "--tensor-parallel-size" && (a.Origin.Path != file+":34" || !strings.HasPrefix(a.Origin.Detail, "prose: ")) {
			t.Errorf("origin of the prose setting: %+v", a.Origin)
		}
	}
	if !strings.Contains(c.Command, "--tensor-parallel-size 4") {
		t.Errorf("command: %s", c.Command)
	}
	// The larger size the space offers is the site's own rendering (TP8).
	cs, _ := ix.Match(Query{Model: "acme/Comet-1-MXFP8", Hardware: "mi355x", TP: 8})
	if len(cs) == 0 || !cs[0].Exact || cs[0].Prose != nil {
		t.Errorf("mxfp8 mi355x TP8: %+v", cs)
	}
	// Below the bound, another variant, other hardware: no alternate.
	for _, q := range []Query{
		{Model: "acme/Comet-1-MXFP8", Hardware: "mi355x", TP: 2},
		{Model: "acme/Comet-1", Hardware: "mi355x", TP: 4},     // BF16 "needs TP=8": no cue
		{Model: "acme/Comet-1-MXFP8", Hardware: "h200", TP: 4}, // the bound is for AMD
	} {
		cs, _ := ix.Match(q)
		if len(cs) > 0 && cs[0].Exact {
			t.Errorf("%s %s TP%d: exact %s", q.Model, q.Hardware, q.TP, cs[0].Where())
		}
	}
	// Rejected shapes add nothing: "Use TP=2 if you see OOM", "for long
	// context", "for lower latency"; the sentence after the launch block
	// (line 59) is that block's delta, not a rendering's.
	cs, _ = ix.Match(Query{Model: "acme/Comet-1", Hardware: "h200", TP: 2})
	for _, c := range cs {
		if c.Exact && (c.Kind != "markdown" || c.Prose != nil) {
			t.Errorf("h200 TP2: %s", c.Where())
		}
	}
	if len(cs) == 0 || !cs[0].Exact || cs[0].Kind != "markdown" {
		t.Errorf("h200 TP2: the block delta: %+v", cs)
	}
	// The variant description "runs with TP=4 on H200" (line 23) scopes
	// the default variant.
	if _, c := exactProse(t, ix, Query{Model: "acme/Comet-1", Hardware: "h200", TP: 4}, 23); c == nil || c.Variant != "default" {
		t.Errorf("default h200 TP4: %+v", c)
	}
	// "Add `--kv-cache-dtype fp8` to any command" (line 42): every
	// rendering, and the guide's launch command, once each.
	for _, q := range []Query{{Model: "acme/Comet-1", Hardware: "h200", TP: 8}, {Model: "acme/Comet-1-MXFP8", Hardware: "mi355x", TP: 8}} {
		cs, _ := exactProse(t, ix, q, 42)
		n, md := 0, 0
		for i := range cs {
			c := &cs[i]
			if !c.Exact || c.Prose == nil || c.Prose.Line != 42 {
				continue
			}
			n++
			if c.Kind == "markdown" {
				md++
			}
			if v, _ := argValue(&c.Deployment, c.Process, "--kv-cache-dtype"); v != "fp8" {
				t.Errorf("%s: %v", c.Where(), c.Deployment.Processes[c.Process].Args)
			}
		}
		if n == 0 {
			t.Errorf("%s %s: no kv-cache alternate", q.Model, q.Hardware)
		}
		if q.Hardware == "h200" && md != 1 {
			t.Errorf("guide block alternates: %d", md)
		}
	}
}

// TestRecipeProseFeatureRerender: a feature re-render of a prose alternate
// keeps the sentence's settings.
func TestRecipeProseFeatureRerender(t *testing.T) {
	ix, err := Open(proseSite)
	if err != nil {
		t.Fatal(err)
	}
	d := launch.Deployment{Model: "acme/Comet-1-MXFP8", Hardware: "mi355x", Processes: []launch.Process{{Kind: launch.KindWorker, Role: launch.RoleAgg,
		Program: "vllm serve", Args: []launch.Arg{{Flag: "--tensor-parallel-size", Values: []string{"4"}}, {Flag: "--kv-cache-dtype", Values: []string{"fp8"}}}}}}
	rms, err := ix.MatchDeployment(&d, "vllm", "fp8")
	if err != nil || len(rms) != 1 || !rms[0].Covered() {
		t.Fatalf("MatchDeployment: %v %+v", err, rms)
	}
	found := false
	for _, c := range rms[0].Candidates {
		if c.Exact && c.CustomFeatures && c.Prose != nil && c.Prose.Line == 34 {
			found = true
			if v, _ := argValue(&c.Deployment, c.Process, "--tensor-parallel-size"); v != "4" {
				t.Errorf("re-render lost the prose size: %s", c.Command)
			}
			if _, ok := argValue(&c.Deployment, c.Process, "--reasoning-parser"); ok {
				t.Errorf("re-render kept the feature the worker does not use: %s", c.Command)
			}
		}
	}
	if !found {
		var ws []string
		for _, c := range rms[0].Candidates {
			ws = append(ws, c.Where())
		}
		t.Errorf("no re-rendered prose alternate: %s", strings.Join(ws, "\n"))
	}
}

// TestRecipeProseStatements lists what the fixture's prose states.
func TestRecipeProseStatements(t *testing.T) {
	f, err := ScanFile(proseSite + "/models/acme/Comet-1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range f.Prose {
		got = append(got, st.Summary()+" @"+strings.TrimPrefix(st.File, proseSite+"/")+":"+strconv.Itoa(st.Line))
	}
	want := []string{"tp=4 @models/acme/Comet-1.yaml:23", "tp>=4 @models/acme/Comet-1.yaml:34", "add --kv-cache-dtype fp8 @models/acme/Comet-1.yaml:42"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("statements:\n got %q\nwant %q", got, want)
	}
}
