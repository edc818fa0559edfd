package generate

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
)

// TestHostileGenerateMixedKVCell (issue 10 item 7): rows of one key that
// deploy one shape and differ only by the KV tier (row 0 no offload, row 1
// HiCache) share a cell whose point 0 has no HiCache flags. The cell used
// to offer hicache without kv.hicache, so the output failed its own
// decode-back check ("cells[0].kv: KV tier hicache is offered but
// kv.hicache is missing"); the settings now come from the first point
// measured with them.
func TestHostileGenerateMixedKVCell(t *testing.T) {
	opt := fixtureOptions()
	opt.Keys = []string{"*-agg"}
	g, err := Run(t.Context(), openFixture(t, "mixed"), opt)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cookbook.Parse("generated.jsx", g.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Cells) != 1 {
		t.Fatalf("%d cells, want 1", len(f.Cells))
	}
	c := &f.Cells[0]
	var kvs []string
	for _, p := range c.Points {
		kvs = append(kvs, p.KV)
	}
	if !slices.Equal(kvs, []string{"none", "hicache"}) || !slices.Equal(c.KV.Available, []string{"none", "hicache"}) {
		t.Fatalf("points measured %v, available %v; want [none hicache] both", kvs, c.KV.Available)
	}
	h := c.KV.HiCache
	want := cookbook.Args{{"--enable-hierarchical-cache"}, {"--hicache-ratio", "2"}, {"--hicache-write-policy", "write_through"}}
	if h == nil || h.Donor != "qwen9-fp4-gb300-sglang-agentic-agg" || h.DonorHardware != "gb300" ||
		!slices.EqualFunc(h.Args, want, slices.Equal[[]string]) {
		t.Fatalf("kv.hicache = %+v, want own settings %v (no --hicache-size)", h, want)
	}
	// Point 0 (measured without offload) on the derived hicache tier gets
	// the flags; on its measured tier it has none.
	for _, kv := range []string{"hicache", "none"} {
		d, err := f.Decode(cookbook.Selection{Cell: 0, Point: 0, Router: "sglang", KV: kv})
		if err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(d.CopyAll, "--hicache-ratio 2") && strings.Contains(d.CopyAll, "--enable-hierarchical-cache")
		if has != (kv == "hicache") || strings.Contains(d.CopyAll, "--hicache-size") {
			t.Errorf("point 0 at %s:\n%s", kv, d.CopyAll)
		}
	}
	for _, s := range f.Selections() {
		if _, err := f.Decode(s); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

// TestGenerateProhibitedKeyLeftOut (issue 10 item 7): a key with a
// prohibited setting is left out whole and named with the rule; the other
// keys of the model are written. When it is the only key, nothing is
// written and the error names it.
func TestGenerateProhibitedKeyLeftOut(t *testing.T) {
	g, err := Run(t.Context(), openFixture(t, "mixed"), fixtureOptions())
	if err != nil {
		t.Fatal(err)
	}
	const bad = "qwen9-fp4-gb300-sglang-agentic-nextn"
	if len(g.Refused) != 1 {
		t.Fatalf("refused %+v, want the nextn key", g.Refused)
	}
	r := g.Refused[0]
	if r.ConfigKey != bad || r.Rule != "prohibited-nvfp4-ckpt-fp8-nextn-moe" || r.Setting != "agg worker: env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE" || r.Row != 0 || r.Concurrency != 1 {
		t.Errorf("refused %+v", r)
	}
	if s := r.String(); !strings.HasPrefix(s, bad+": left out: row 0 conc 1: agg worker: env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE is prohibited (prohibited-nvfp4-ckpt-fp8-nextn-moe: Check 13") {
		t.Errorf("String() = %q", s)
	}
	if len(g.Data.Cells) != 1 || g.Data.Cells[0].ConfigKey != "qwen9-fp4-gb300-sglang-agentic-agg" {
		t.Errorf("cells %+v, want only the agg key's", g.Data.Cells)
	}
	if bytes.Contains(g.Bytes, []byte("NEXTN_MOE")) || bytes.Contains(g.Bytes, []byte(bad)) {
		t.Error("output mentions the refused key or its setting")
	}
	for _, s := range g.Skipped {
		if s.ConfigKey == bad {
			t.Errorf("refused key listed as skipped: %+v", s)
		}
	}
	// Only a prohibited key: ErrNothing, naming the rule.
	_, err = Run(t.Context(), openFixture(t, "prohibited"), fixtureOptions())
	if !errors.Is(err, ErrNothing) || !strings.Contains(err.Error(), "qwen9-fp4-gb300-sglang-agentic-agg: left out: row 0 conc 1: agg worker: env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE is prohibited (prohibited-nvfp4-ckpt-fp8-nextn-moe:") {
		t.Errorf("err = %v", err)
	}
}

// previousOf parses b as the previous upstream file, after edit (which may
// change its data; it is re-encoded).
func previousOf(t *testing.T, b []byte, edit func(d *cookbook.Data)) *cookbook.File {
	t.Helper()
	f, err := cookbook.Parse("previous.jsx", b)
	if err != nil {
		t.Fatal(err)
	}
	if edit == nil {
		return f
	}
	// Full blocks everywhere, so that edits cannot break refs.
	d := f.Data
	d.Envs = []cookbook.Env{}
	d.Cells = slices.Clone(d.Cells)
	for ci := range d.Cells {
		c := &d.Cells[ci]
		c.Routers = map[string]cookbook.Router{}
		full := f.FullBlocks(ci, 0)
		for r, rt := range f.Cells[ci].Routers {
			rt.Blocks = full[r]
			c.Routers[r] = rt
		}
		c.Points = slices.Clone(c.Points)
		for pi := range c.Points {
			c.Points[pi].Patch = nil
		}
		c.Points = c.Points[:1] // one point per cell: no patches to keep consistent
	}
	edit(&d)
	out, err := cookbook.Encode(&d)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cookbook.Parse("previous.jsx", out)
	if err != nil {
		t.Fatalf("edited previous: %v", err)
	}
	return p
}

// TestGenerateKeysKeepsPreviousCells (issue 10 item 7): a --keys run merges
// into --previous and never drops its other cells; cells it does not
// replace are carried over exactly (every selection decodes as in the
// previous file), and only DropCells removes those in scope.
func TestGenerateKeysKeepsPreviousCells(t *testing.T) {
	full, _ := generateFixture(t, fixtureOptions())
	const disagg0 = "qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#0"
	prev := previousOf(t, full.Bytes, func(d *cookbook.Data) {
		for ci := range d.Cells {
			c := &d.Cells[ci]
			if c.ID != disagg0 {
				continue
			}
			// Upstream's own value and PR (not what the checkout renders):
			// must survive a run that does not select the key.
			prov := *c.Prov
			prov.PR, prov.SHA = "777", "7777777"
			c.Prov = &prov
			d.Source.PRs = map[string]cookbook.SyncPR{"4242": d.Source.PRs["4242"], "777": {SHA: "7777777", Status: "in-progress"}}
			for r := range c.Routers {
				for bi := range c.Routers[r].Blocks {
					b := &c.Routers[r].Blocks[bi]
					for ai := range b.Args {
						if b.Args[ai][0] == "--watchdog-timeout" {
							b.Args[ai] = []string{"--watchdog-timeout", "4242"}
						}
					}
				}
			}
		}
		// A cell of the agg key whose row the checkout no longer has, and
		// one of a key the checkout does not have.
		stale := d.Cells[slices.IndexFunc(d.Cells, func(c cookbook.Cell) bool { return c.ID == "qwen9-fp4-gb300-sglang-agentic-agg#0" })]
		stale.ID, stale.Points = "qwen9-fp4-gb300-sglang-agentic-agg#7", []cookbook.Point{{Concs: []int{512}, Item: 7, KV: "none"}}
		gone := stale
		gone.ID, gone.ConfigKey = "qwen9-fp4-gb300-sglang-agentic-gone#0", "qwen9-fp4-gb300-sglang-agentic-gone"
		d.Cells = append(d.Cells, stale, gone)
	})
	if pi, _ := prev.CellIndex(disagg0); true {
		d, err := prev.Decode(prev.Measured(pi, 0))
		if err != nil || !strings.Contains(d.CopyAll, "--watchdog-timeout 4242") {
			t.Fatalf("fixture: previous %s lacks --watchdog-timeout 4242 (%v)", disagg0, err)
		}
	}
	ids := func(f *cookbook.Data) []string {
		var out []string
		for _, c := range f.Cells {
			out = append(out, c.ID)
		}
		return out
	}
	prevIDs := ids(&prev.Data)
	if len(prevIDs) != 6 {
		t.Fatalf("fixture: previous has %v", prevIDs)
	}

	for _, tc := range []struct {
		name        string
		keys        []string
		drop        bool
		wantKept    []string // reasons' prefixes, by id
		wantRemoved []string
	}{
		{name: "keys", keys: []string{"*-agg"}, wantKept: []string{
			disagg0 + ": config key not selected",
			"qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#1: config key not selected",
			"qwen9-fp4-gb300-sglang-agentic-agg#7: no generated cell of its config key has its search-space rows (7)",
			"qwen9-fp4-gb300-sglang-agentic-gone#0: config key not selected",
		}},
		{name: "keys+drop", keys: []string{"*-agg"}, drop: true, wantKept: []string{
			disagg0 + ": config key not selected",
			"qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#1: config key not selected",
			"qwen9-fp4-gb300-sglang-agentic-gone#0: config key not selected",
		}, wantRemoved: []string{"qwen9-fp4-gb300-sglang-agentic-agg#7: no generated cell"}},
		{name: "all", wantKept: []string{
			"qwen9-fp4-gb300-sglang-agentic-agg#7: no generated cell",
			"qwen9-fp4-gb300-sglang-agentic-gone#0: no SGLang config key \"qwen9-fp4-gb300-sglang-agentic-gone\" of model \"qwen9\" in this checkout",
		}},
		{name: "all+drop", drop: true, wantRemoved: []string{
			"qwen9-fp4-gb300-sglang-agentic-agg#7: no generated cell",
			"qwen9-fp4-gb300-sglang-agentic-gone#0: no SGLang config key",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := fixtureOptions()
			opt.Keys, opt.DropCells, opt.Previous = tc.keys, tc.drop, prev
			g, err := Run(t.Context(), openFixture(t, "ok"), opt)
			if err != nil {
				t.Fatal(err)
			}
			f, err := cookbook.Parse("merged.jsx", g.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, got []PreviousCell, want []string) {
				t.Helper()
				if len(got) != len(want) {
					t.Errorf("%s: %+v, want %q", what, got, want)
					return
				}
				for i := range want {
					if s := got[i].ID + ": " + got[i].Reason; !strings.HasPrefix(s, want[i]) {
						t.Errorf("%s[%d] = %q, want %q…", what, i, s, want[i])
					}
				}
			}
			check("kept", g.Kept, tc.wantKept)
			check("removed", g.Removed, tc.wantRemoved)
			// Every previous cell is there, in the previous order, unless
			// removed; RemovedCells (what `pr plan` reports) agrees.
			var wantIDs, removed []string
			for _, id := range prevIDs {
				if !slices.ContainsFunc(g.Removed, func(c PreviousCell) bool { return c.ID == id }) {
					wantIDs = append(wantIDs, id)
				} else {
					removed = append(removed, id)
				}
			}
			if got := ids(&f.Data); !slices.Equal(got[:len(wantIDs)], wantIDs) {
				t.Errorf("cells %v, want the previous ones first: %v", got, wantIDs)
			}
			if got := RemovedCells(prev, f); !slices.Equal(got, removed) {
				t.Errorf("RemovedCells = %v, want %v", got, removed)
			}
			// The previous disagg#0 keeps upstream's value unless regenerated.
			ci, err := f.CellIndex(disagg0)
			if err != nil {
				t.Fatal(err)
			}
			d, err := f.Decode(f.Measured(ci, 0))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := f.Source.PRs["777"]; ok != (tc.keys != nil) || len(f.Source.PRs) != 1+len(tc.keys) {
				t.Errorf("source.prs %v: want 777 (the kept cell's PR) only when disagg#0 is kept", f.Source.PRs)
			}
			kept := strings.Contains(d.CopyAll, "--watchdog-timeout 4242")
			if kept != (tc.keys != nil) {
				t.Errorf("disagg#0 --watchdog-timeout 4242 present=%v, want %v:\n%s", kept, tc.keys != nil, d.CopyAll)
			}
			// Kept cells decode exactly as in the previous file.
			for _, k := range g.Kept {
				ci, _ := f.CellIndex(k.ID)
				pi, _ := prev.CellIndex(k.ID)
				for _, s := range prev.Selections() {
					if s.Cell != pi {
						continue
					}
					want, _ := prev.Decode(s)
					s.Cell = ci
					got, err := f.Decode(s)
					if err != nil || got.CopyAll != want.CopyAll {
						t.Errorf("kept %s %+v: decodes differently (%v)", k.ID, s, err)
					}
				}
			}
		})
	}
	// A kept cell that would not decode as in the previous file is refused.
	opt := fixtureOptions()
	opt.Keys, opt.Previous = []string{"*-agg"}, prev
	called := false
	opt.tamper = func(b []byte) []byte {
		out := bytes.Replace(b, []byte(`"--watchdog-timeout", "4242"`), []byte(`"--watchdog-timeout", "4243"`), 1)
		called = !bytes.Equal(out, b)
		return out
	}
	if g, err := Run(t.Context(), openFixture(t, "ok"), opt); !called || !errors.Is(err, ErrVerify) || g != nil ||
		!strings.Contains(err.Error(), "kept cell "+disagg0) {
		t.Errorf("tampered kept cell: called %v, err %v", called, err)
	}
}
