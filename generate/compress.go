package generate

import (
	"slices"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
)

// This file compresses generated full blocks into the delta forms the page
// decodes (spec agentx-format.md (a) "Blocks — delta forms", "point.patch",
// "envs"):
//
//   - patches: point p ≥ 1 of a cell stores, per router, null when its blocks
//     equal point 0's, else an array aligned with point 0's blocks (null =
//     unchanged, a diff of args/env, or {"block": full} when no diff
//     reproduces the block), trailing nulls left out; {"replace": [...]} when
//     the block count differs;
//   - base blocks: each block of point 0 is written as the smallest of: the
//     full block; `from` (other router only: a block of the same cell's
//     submitted router, with the cmd override the page's data always
//     carries); `ref` to a block of an earlier cell on the same router — each
//     delta with sibling-key overrides, `drop` and a `diff`, kept only when
//     applying it (the decoder's own applyDiff) gives the block exactly;
//   - envs: an env map of two or more variables carried by two or more full
//     blocks is stored once in `envs` (first-use order) and referenced by
//     `envRef`.

// compress rewrites d's cells in place: routers' blocks to delta forms,
// point patches, and the envs table.
func compress(d *cookbook.Data, cells []*genCell) {
	for ci, c := range cells {
		cell := &d.Cells[ci]
		routers := cell.RouterOrder()
		// Patches (relative to the full point-0 blocks).
		for pi := 1; pi < len(c.points); pi++ {
			var patch cookbook.Patch
			changed := false
			for _, r := range routers {
				rp := routerPatch(r, c.points[0].blocks[r], c.points[pi].blocks[r])
				changed = changed || !rp.Null
				patch = append(patch, rp)
			}
			if changed {
				cell.Points[pi].Patch = patch
			}
		}
		// Base blocks.
		for _, r := range routers {
			full := c.points[0].blocks[r]
			out := make([]cookbook.BlockEntry, len(full))
			for bi := range full {
				target := &full[bi]
				best := cloneBlock(target)
				bestSize := best.EncodedSize()
				try := func(e cookbook.BlockEntry, src *cookbook.BlockEntry) {
					if !cookbook.Reproduces(src, &e, target) {
						return
					}
					if n := e.EncodedSize(); n < bestSize {
						best, bestSize = e, n
					}
				}
				if r != cell.Submitted {
					sub := c.points[0].blocks[cell.Submitted]
					for k := range sub {
						if e, ok := deltaOf(&sub[k], target, true); ok {
							k := k
							e.From = &k
							try(e, &sub[k])
						}
					}
				}
				for cj := 0; cj < ci; cj++ {
					prev := cells[cj].points[0].blocks[r]
					for k := range prev {
						if prev[k].Kind != target.Kind || prev[k].Role != target.Role {
							continue
						}
						if e, ok := deltaOf(&prev[k], target, false); ok {
							e.Ref = &cookbook.Ref{Cell: cj, Router: r, Block: k}
							try(e, &prev[k])
						}
					}
				}
				out[bi] = best
			}
			rt := cell.Routers[r]
			rt.Blocks = out
			cell.Routers[r] = rt
		}
	}
	// envs: shared env maps of full base blocks.
	count := map[string]int{}
	each := func(fn func(b *cookbook.BlockEntry)) {
		for ci := range d.Cells {
			cell := &d.Cells[ci]
			for _, r := range cell.RouterOrder() {
				for bi := range cell.Routers[r].Blocks {
					b := &cell.Routers[r].Blocks[bi]
					if b.From == nil && b.Ref == nil && len(b.Env) >= 2 {
						fn(b)
					}
				}
			}
		}
	}
	each(func(b *cookbook.BlockEntry) {
		count[envKey(b.Env)]++
	})
	index := map[string]int{}
	each(func(b *cookbook.BlockEntry) {
		k := envKey(b.Env)
		if count[k] < 2 {
			return
		}
		i, ok := index[k]
		if !ok {
			i = len(d.Envs)
			index[k] = i
			d.Envs = append(d.Envs, slices.Clone(b.Env))
		}
		b.Env = nil
		b.EnvRef = &i
	})
}

func envKey(e cookbook.Env) string {
	var b strings.Builder
	for _, v := range e {
		b.WriteString(v.Name)
		b.WriteByte(0)
		b.WriteString(v.Value)
		b.WriteByte(0)
	}
	return b.String()
}

func cloneBlock(b *cookbook.BlockEntry) cookbook.BlockEntry {
	c := *b
	c.Env = slices.Clone(b.Env)
	c.Args = slices.Clone(b.Args)
	return c
}

// routerPatch gives router r's patch of a point whose full blocks are to,
// relative to the point-0 blocks base.
func routerPatch(r string, base, to []cookbook.BlockEntry) cookbook.RouterPatch {
	if len(base) != len(to) {
		rep := make([]cookbook.BlockEntry, len(to))
		for i := range to {
			rep[i] = cloneBlock(&to[i])
		}
		return cookbook.RouterPatch{Router: r, Replace: rep}
	}
	ds := make([]*cookbook.Diff, len(to))
	last := -1
	for i := range to {
		if blockEqual(&base[i], &to[i]) {
			continue
		}
		last = i
		if e, ok := deltaOf(&base[i], &to[i], false); ok && e.Diff != nil && siblingsEmpty(&e) && cookbook.Reproduces(&base[i], &e, &to[i]) {
			ds[i] = e.Diff
			continue
		}
		blk := cloneBlock(&to[i])
		ds[i] = &cookbook.Diff{Block: &blk}
	}
	if last < 0 {
		return cookbook.RouterPatch{Router: r, Null: true}
	}
	return cookbook.RouterPatch{Router: r, Blocks: ds[:last+1]}
}

func siblingsEmpty(e *cookbook.BlockEntry) bool {
	return e.Drop == nil && e.Kind == "" && e.Role == "" && e.Workers == 0 && e.NodesPerWorker == 0 &&
		e.Count == 0 && e.CountNodes == 0 && e.Ports == nil && e.Preamble == nil && e.Cmd == "" && e.GPUPinning == nil
}

// deltaOf builds the delta entry turning block a into block b: drop for keys
// b lacks, sibling overrides for keys that differ (cmd always when
// forceCmd), and a diff of args/env. ok is false when b has a repeated flag
// whose entries differ (a diff cannot express it).
func deltaOf(a, b *cookbook.BlockEntry, forceCmd bool) (cookbook.BlockEntry, bool) {
	var e cookbook.BlockEntry
	if a.Role != b.Role {
		if b.Role == "" {
			e.Drop = append(e.Drop, "role")
		} else {
			e.Role = b.Role
		}
	}
	if a.Kind != b.Kind {
		e.Kind = b.Kind
	}
	setInt := func(x, y int, name string, dst *int) {
		if x != y {
			if y == 0 {
				e.Drop = append(e.Drop, name)
			} else {
				*dst = y
			}
		}
	}
	setInt(a.Workers, b.Workers, "workers", &e.Workers)
	setInt(a.NodesPerWorker, b.NodesPerWorker, "nodes_per_worker", &e.NodesPerWorker)
	setInt(a.Count, b.Count, "count", &e.Count)
	setInt(a.CountNodes, b.CountNodes, "count_nodes", &e.CountNodes)
	if !slices.Equal(a.Ports, b.Ports) {
		if b.Ports == nil {
			e.Drop = append(e.Drop, "ports")
		} else {
			e.Ports = b.Ports
		}
	}
	if !slices.Equal(a.Preamble, b.Preamble) {
		if b.Preamble == nil {
			e.Drop = append(e.Drop, "preamble")
		} else {
			e.Preamble = b.Preamble
		}
	}
	if !slices.EqualFunc(a.GPUPinning, b.GPUPinning, slices.Equal[[]string]) {
		if b.GPUPinning == nil {
			e.Drop = append(e.Drop, "gpu_pinning")
		} else {
			e.GPUPinning = b.GPUPinning
		}
	}
	if forceCmd || a.Cmd != b.Cmd {
		e.Cmd = b.Cmd
	}
	// args
	var d cookbook.Diff
	first := func(args cookbook.Args, flag string) []string {
		for _, x := range args {
			if x[0] == flag {
				return x
			}
		}
		return nil
	}
	seen := map[string]bool{}
	for _, x := range b.Args {
		if seen[x[0]] {
			if !slices.Equal(first(b.Args, x[0]), x) {
				return e, false
			}
			continue
		}
		seen[x[0]] = true
	}
	for _, x := range a.Args {
		if !seen[x[0]] && findArgChange(d.Args, x[0]) == nil {
			d.Args = append(d.Args, cookbook.ArgChange{Flag: x[0], Remove: true})
		}
	}
	for _, x := range b.Args {
		if findArgChange(d.Args, x[0]) != nil {
			continue
		}
		if old := first(a.Args, x[0]); old != nil && slices.Equal(old, x) {
			continue
		}
		d.Args = append(d.Args, cookbook.ArgChange{Flag: x[0], Values: slices.Clone(x[1:])})
	}
	// env
	for _, v := range a.Env {
		if !slices.ContainsFunc(b.Env, func(w cookbook.EnvVar) bool { return w.Name == v.Name }) {
			d.Env = append(d.Env, cookbook.EnvChange{Name: v.Name, Remove: true})
		}
	}
	for _, v := range b.Env {
		if i := slices.IndexFunc(a.Env, func(w cookbook.EnvVar) bool { return w.Name == v.Name }); i >= 0 && a.Env[i].Value == v.Value {
			continue
		}
		d.Env = append(d.Env, cookbook.EnvChange{Name: v.Name, Value: v.Value})
	}
	if d.Args != nil || d.Env != nil {
		e.Diff = &d
	}
	return e, true
}

// findArgChange returns the last change of flag in cs (a JS object keeps
// the last value of a repeated key), nil when there is none.
func findArgChange(cs []cookbook.ArgChange, flag string) *cookbook.ArgChange {
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Flag == flag {
			return &cs[i]
		}
	}
	return nil
}
