package cookbook

import (
	"testing"
)

// TestFullBlocksRender: on every selection of testdata/features.jsx at its
// point's measured KV tier (no KV transform), the full blocks FullBlocks
// gives render (BlockEntry.Render) exactly as Decode shows them; out-of-range
// indexes give nil.
func TestFullBlocksRender(t *testing.T) {
	f, err := ReadFile("testdata/features.jsx")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range f.Selections() {
		if s.KV != f.Cells[s.Cell].Points[s.Point].KV {
			continue
		}
		d, err := f.Decode(s)
		if err != nil {
			t.Fatal(err)
		}
		full := f.FullBlocks(s.Cell, s.Point)[s.Router]
		if len(full) != len(d.Blocks) {
			t.Errorf("%+v: %d full blocks, Decode shows %d", s, len(full), len(d.Blocks))
			continue
		}
		for i := range full {
			if full[i].From != nil || full[i].Ref != nil || full[i].EnvRef != nil || full[i].Diff != nil {
				t.Errorf("%+v block %d is not in full form: %+v", s, i, full[i])
			}
			if got := full[i].Render(); got != d.Blocks[i] {
				t.Errorf("%+v block %d renders\n%+v\nDecode shows\n%+v", s, i, got, d.Blocks[i])
			}
		}
		checked++
	}
	if checked != 8 {
		t.Errorf("%d selections at their measured tier, want 8", checked)
	}
	if f.FullBlocks(-1, 0) != nil || f.FullBlocks(len(f.Cells), 0) != nil || f.FullBlocks(0, len(f.Cells[0].Points)) != nil {
		t.Error("out-of-range FullBlocks is not nil")
	}
}

// TestReproduces: a delta entry reproduces its target when its drop list,
// sibling keys and diff give the target exactly (worker args re-sorted in
// LEAD_FLAGS order, env by name), and not when one setting differs.
func TestReproduces(t *testing.T) {
	src := BlockEntry{Kind: "worker", Role: "prefill", Workers: 2, Cmd: "python3 -m sglang.launch_server",
		Env:  Env{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}},
		Args: Args{{"--model-path", "m"}, {"--port", "30000"}, {"--tp", "4"}}}
	target := BlockEntry{Kind: "worker", Role: "decode", Cmd: "python3 -m sglang.launch_server",
		Env:  Env{{Name: "A", Value: "1"}, {Name: "C", Value: "3"}},
		Args: Args{{"--model-path", "m"}, {"--host", "0.0.0.0"}, {"--port", "30000"}, {"--ep", "8"}, {"--tp", "8"}}}
	e := BlockEntry{Role: "decode", Drop: []string{"workers"}, Diff: &Diff{
		Args: []ArgChange{{Flag: "--tp", Values: []string{"8"}}, {Flag: "--host", Values: []string{"0.0.0.0"}}, {Flag: "--ep", Values: []string{"8"}}},
		Env:  []EnvChange{{Name: "B", Remove: true}, {Name: "C", Value: "3"}},
	}}
	if !Reproduces(&src, &e, &target) {
		t.Error("the delta does not reproduce its target")
	}
	wrong := e
	wrong.Diff = &Diff{Args: e.Diff.Args[:2], Env: e.Diff.Env}
	if Reproduces(&src, &wrong, &target) {
		t.Error("a delta missing --ep 8 reproduces the target")
	}
	keep := e
	keep.Drop = nil
	if Reproduces(&src, &keep, &target) {
		t.Error("a delta that keeps workers: 2 reproduces a target without it")
	}
}

// TestEncodedSize: an entry's size is that of its encoded text (one-space
// indent, arrays of args on one line each).
func TestEncodedSize(t *testing.T) {
	b := BlockEntry{Kind: "etcd", CountNodes: 1, Cmd: "etcd", Env: Env{}, Args: Args{{"--data-dir", "/tmp/etcd"}}}
	const want = "{\n \"kind\": \"etcd\",\n \"count_nodes\": 1,\n \"cmd\": \"etcd\",\n \"env\": {},\n \"args\": [\n  [\"--data-dir\", \"/tmp/etcd\"]\n ]\n}"
	if got := b.EncodedSize(); got != len(want) {
		t.Errorf("EncodedSize = %d, want %d (%q)", got, len(want), want)
	}
}
