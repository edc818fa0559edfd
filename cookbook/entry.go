package cookbook

import (
	"bytes"
	"slices"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// This file gives writers of AgentX data (package generate) what they need
// of the decoder without reaching into it: a full block's decoded text, the
// check that a delta entry materializes to a given block, the encoded size
// of an entry, and a cell's blocks in full form.

// Render gives the block full (non-delta) entry b shows when a selection
// needs no KV transform: its title (Title), kind, role and shell text
// (launch.Format), as Decode writes each block (spec agentx-format.md (b)
// steps 5–6). EnvRef is not resolved: an entry with EnvRef and no Env shows
// no env lines.
func (b *BlockEntry) Render() Block {
	m := fromEntry(b, launch.OriginCookbook, "")
	return Block{Title: Title(m.p.Kind, m.p.Role), Kind: string(m.p.Kind), Role: string(m.p.Role), Text: launch.Format(&m.p)}
}

// Reproduces reports whether delta entry e applied to the full block src
// gives the full block target, the way the page materializes a `from` /
// `ref` entry (spec agentx-format.md (b) step 1): src, then e's drop list,
// then e's sibling keys, then e's diff (worker args in LEAD_FLAGS order,
// env sorted). e's From, Ref and EnvRef are ignored; src and target must
// not use EnvRef. The comparison covers kind, role, cmd, counts, ports,
// preamble, args and env (in order) and gpu_pinning; origins are ignored.
func Reproduces(src, e, target *BlockEntry) bool {
	m := fromEntry(src, launch.OriginCookbook, "")
	for _, k := range e.Drop {
		m.drop(k)
	}
	m.overlay(e, launch.OriginCookbook, "")
	m.envRef = nil
	m = applyDiff(m, e.Diff, launch.OriginCookbook, "")
	want := fromEntry(target, launch.OriginCookbook, "")
	return processEqual(&m.p, &want.p) && slices.EqualFunc(m.gpuPinning, want.gpuPinning, slices.Equal[[]string])
}

// EncodedSize is the number of bytes Encode writes for entry b as a
// top-level value (indent 0): the cost a writer minimizes when it chooses
// between a full block and its delta forms.
func (b *BlockEntry) EncodedSize() int {
	var buf bytes.Buffer
	writeJSON(&buf, blockNode(b), 0)
	return buf.Len()
}

// FullBlocks returns the blocks of every router of cells[cell].points[point]
// in full form (no from, ref, envRef or diff; env and args as materialized,
// so in page order): the cell's base blocks (spec agentx-format.md (b) step
// 1) with the point's patch applied (steps 2–3), before any KV transform
// (step 4). Keys are router names. Nil when cell or point is out of range.
// Writing these blocks back (with no patches) decodes exactly as f does.
func (f *File) FullBlocks(cell, point int) map[string][]BlockEntry {
	if cell < 0 || cell >= len(f.Cells) || point < 0 || point >= len(f.Cells[cell].Points) || cell >= len(f.base) {
		return nil
	}
	out := map[string][]BlockEntry{}
	for r, base := range f.base[cell] {
		bs := base
		if pb, ok := f.pointBlocks[routerPoint{cell, point, r}]; ok {
			bs = pb
		}
		full := make([]BlockEntry, len(bs))
		for i := range bs {
			full[i] = fullEntry(&bs[i])
		}
		out[r] = full
	}
	return out
}

// fullEntry turns a materialized block back into a full block entry.
func fullEntry(m *mblock) BlockEntry {
	b := BlockEntry{Kind: string(m.p.Kind), Role: string(m.p.Role), Workers: m.p.Workers, NodesPerWorker: m.p.NodesPerWorker,
		Count: m.p.Count, CountNodes: m.p.CountNodes, Ports: slices.Clone(m.p.Ports), Preamble: slices.Clone(m.p.Preamble),
		Cmd: m.p.Program}
	for _, g := range m.gpuPinning {
		b.GPUPinning = append(b.GPUPinning, slices.Clone(g))
	}
	if m.p.Env != nil {
		b.Env = Env{}
		for _, e := range m.p.Env {
			b.Env = append(b.Env, EnvVar{e.Name, e.Value})
		}
	}
	if m.p.Args != nil {
		b.Args = Args{}
		for _, a := range m.p.Args {
			b.Args = append(b.Args, append([]string{a.Flag}, a.Values...))
		}
	}
	return b
}

// processEqual compares two processes ignoring origins.
func processEqual(a, b *launch.Process) bool {
	if a.Kind != b.Kind || a.Role != b.Role || a.Program != b.Program || a.Workers != b.Workers ||
		a.NodesPerWorker != b.NodesPerWorker || a.Count != b.Count || a.CountNodes != b.CountNodes ||
		!slices.Equal(a.Ports, b.Ports) || !slices.Equal(a.Preamble, b.Preamble) ||
		len(a.Args) != len(b.Args) || len(a.Env) != len(b.Env) {
		return false
	}
	for i := range a.Args {
		if a.Args[i].Flag != b.Args[i].Flag || !slices.Equal(a.Args[i].Values, b.Args[i].Values) {
			return false
		}
	}
	for i := range a.Env {
		if a.Env[i].Name != b.Env[i].Name || a.Env[i].Value != b.Env[i].Value {
			return false
		}
	}
	return true
}
