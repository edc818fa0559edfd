package cookbook

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// mblock is a materialized block: a launch.Process under construction plus
// the keys the decoder needs that the launch model does not carry.
type mblock struct {
	p          launch.Process
	envRef     *int       // unresolved envRef (blocks used "as written")
	gpuPinning [][]string // note only, never rendered
}

// drop removes the key a `drop` entry names (a BlockEntry JSON key).
func (m *mblock) drop(key string) {
	switch key {
	case "kind":
		m.p.Kind = ""
	case "role":
		m.p.Role = ""
	case "workers":
		m.p.Workers = 0
	case "nodes_per_worker":
		m.p.NodesPerWorker = 0
	case "count":
		m.p.Count = 0
	case "count_nodes":
		m.p.CountNodes = 0
	case "ports":
		m.p.Ports = nil
	case "preamble":
		m.p.Preamble = nil
	case "gpu_pinning":
		m.gpuPinning = nil
	case "cmd":
		m.p.Program = ""
	case "env":
		m.p.Env = nil
	case "envRef":
		m.envRef = nil
	case "args":
		m.p.Args = nil
	}
}

// overlay copies the keys present on entry b (all but from/diff/drop/ref)
// over m: spec (b) step 1, "copy every sibling key of the entry".
func (m *mblock) overlay(b *BlockEntry, ok launch.OriginKind, path string) {
	if b.Kind != "" {
		m.p.Kind = launch.Kind(b.Kind)
	}
	if b.Role != "" {
		m.p.Role = launch.Role(b.Role)
	}
	if b.Workers != 0 {
		m.p.Workers = b.Workers
	}
	if b.NodesPerWorker != 0 {
		m.p.NodesPerWorker = b.NodesPerWorker
	}
	if b.Count != 0 {
		m.p.Count = b.Count
	}
	if b.CountNodes != 0 {
		m.p.CountNodes = b.CountNodes
	}
	if b.Ports != nil {
		m.p.Ports = b.Ports
	}
	if b.Preamble != nil {
		m.p.Preamble = b.Preamble
	}
	if b.GPUPinning != nil {
		m.gpuPinning = b.GPUPinning
	}
	if b.Cmd != "" {
		m.p.Program = b.Cmd
	}
	if b.Env != nil {
		m.p.Env = envVars(b.Env, ok, path+".env")
	}
	if b.EnvRef != nil {
		m.envRef = b.EnvRef
	}
	if b.Args != nil {
		m.p.Args = args(b.Args, ok, path+".args")
	}
}

// fromEntry builds an mblock from a full block written in the data, with
// every setting's origin under path.
func fromEntry(b *BlockEntry, ok launch.OriginKind, path string) mblock {
	m := mblock{p: launch.Process{Origin: launch.Origin{Kind: ok, Path: path}}}
	m.overlay(b, ok, path)
	return m
}

func args(a Args, ok launch.OriginKind, path string) []launch.Arg {
	out := make([]launch.Arg, len(a))
	for i, e := range a {
		out[i] = launch.Arg{Flag: e[0], Values: e[1:], Origin: launch.Origin{Kind: ok, Path: path + "[" + itoa(i) + "]"}}
	}
	return out
}

func envVars(e Env, ok launch.OriginKind, path string) []launch.EnvVar {
	out := make([]launch.EnvVar, len(e))
	for i, v := range e {
		out[i] = launch.EnvVar{Name: v.Name, Value: v.Value, Origin: launch.Origin{Kind: ok, Path: path + keyPath(v.Name)}}
	}
	return out
}

// keyPath renders one object key as a JSON path step.
func keyPath(k string) string {
	if plainKey(k) {
		return "." + k
	}
	return "[" + quoteKey(k) + "]"
}

func quoteKey(k string) string { return `"` + strings.ReplaceAll(k, `"`, `\"`) + `"` }

func itoa(i int) string { return strconv.Itoa(i) }

// leadFlags come first in a worker's args, in this order; every other flag
// follows in code-unit order (_agentx.jsx LEAD_FLAGS; spec (b) step 3).
var leadFlags = [...]string{
	"--model-path", "--served-model-name", "--host", "--port",
	"--disaggregation-mode", "--disaggregation-bootstrap-port",
	"--dist-init-addr", "--nnodes", "--node-rank", "--request-plane", "--kv-events-config",
}

func leadRank(flag string) int {
	switch flag {
	case "--model-path":
		return 0
	case "--served-model-name":
		return 1
	case "--host":
		return 2
	case "--port":
		return 3
	case "--disaggregation-mode":
		return 4
	case "--disaggregation-bootstrap-port":
		return 5
	case "--dist-init-addr":
		return 6
	case "--nnodes":
		return 7
	case "--node-rank":
		return 8
	case "--request-plane":
		return 9
	case "--kv-events-config":
		return 10
	}
	return len(leadFlags)
}

func cmpWorkerArgs(x, y launch.Arg) int {
	rx, ry := leadRank(x.Flag), leadRank(y.Flag)
	if rx != ry || rx < len(leadFlags) {
		return rx - ry
	}
	return strings.Compare(x.Flag, y.Flag)
}

// SortWorkerArgs sorts a worker's args in place, stably, in the order the
// page writes them (_agentx.jsx LEAD_FLAGS; spec agentx-format.md (b) step
// 3): --model-path, --served-model-name, --host, --port,
// --disaggregation-mode, --disaggregation-bootstrap-port, --dist-init-addr,
// --nnodes, --node-rank, --request-plane, --kv-events-config first, in that
// order, then every other flag in code-unit order. Generated worker blocks
// are written in this order so that they decode unchanged.
func SortWorkerArgs(a []launch.Arg) {
	if !slices.IsSortedFunc(a, cmpWorkerArgs) {
		slices.SortStableFunc(a, cmpWorkerArgs)
	}
}

// sortAppended sorts a stably with cmp when its first n elements are known
// to have been in order before the rest was appended: each appended element
// is inserted after every element that is not greater, which gives the same
// order as a stable sort of the whole slice.
func sortAppended[T any](a []T, n int, cmp func(x, y T) int) {
	if !slices.IsSortedFunc(a[:n], cmp) {
		slices.SortStableFunc(a, cmp)
		return
	}
	for i := n; i < len(a); i++ {
		x := a[i]
		j, _ := slices.BinarySearchFunc(a[:i], x, func(e, t T) int {
			if cmp(e, t) > 0 {
				return 1
			}
			return -1 // e <= t: keep searching to the right (upper bound)
		})
		copy(a[j+1:i+1], a[j:i])
		a[j] = x
	}
}

func cmpEnv(x, y launch.EnvVar) int { return strings.Compare(x.Name, y.Name) }

// SortEnv sorts env in place, stably, by name in code-unit order, the order
// the page gives every env map (spec agentx-format.md (b) step 3).
func SortEnv(e []launch.EnvVar) {
	cmp := func(x, y launch.EnvVar) int { return strings.Compare(x.Name, y.Name) }
	if !slices.IsSortedFunc(e, cmp) {
		slices.SortStableFunc(e, cmp)
	}
}

// applyDiff applies d to m (spec (b) step 3) and returns the result; m is
// not modified. d.Block replaces the block "as written". ok/path give the
// origin of the settings the diff sets.
func applyDiff(m mblock, d *Diff, ok launch.OriginKind, path string) mblock {
	if d == nil {
		return m
	}
	if d.Block != nil {
		return fromEntry(d.Block, ok, path+".block")
	}
	out := m
	// args: drop null-mapped flags, replace present ones, append new ones.
	na := make([]launch.Arg, 0, len(m.p.Args)+len(d.Args))
	for _, a := range m.p.Args {
		c := findArgChange(d.Args, a.Flag)
		switch {
		case c == nil:
			na = append(na, a)
		case c.Remove:
		default:
			na = append(na, launch.Arg{Flag: a.Flag, Values: c.Values, Origin: launch.Origin{Kind: ok, Path: path + ".args[" + quoteKey(a.Flag) + "]"}})
		}
	}
	for _, c := range d.Args {
		if c.Remove || hasFlag(m.p.Args, c.Flag) {
			continue
		}
		na = append(na, launch.Arg{Flag: c.Flag, Values: c.Values, Origin: launch.Origin{Kind: ok, Path: path + ".args[" + quoteKey(c.Flag) + "]"}})
	}
	if out.p.Kind == launch.KindWorker {
		SortWorkerArgs(na)
	}
	out.p.Args = na
	// env: keep non-null old keys, set new values, sort.
	ne := make([]launch.EnvVar, 0, len(m.p.Env)+len(d.Env))
	for _, e := range m.p.Env {
		c := findEnvChange(d.Env, e.Name)
		switch {
		case c == nil:
			ne = append(ne, e)
		case c.Remove:
		default:
			ne = append(ne, launch.EnvVar{Name: e.Name, Value: c.Value, Origin: launch.Origin{Kind: ok, Path: path + ".env" + keyPath(e.Name)}})
		}
	}
	for _, c := range d.Env {
		if c.Remove || hasEnv(m.p.Env, c.Name) || hasEnv(ne, c.Name) {
			continue
		}
		ne = append(ne, launch.EnvVar{Name: c.Name, Value: c.Value, Origin: launch.Origin{Kind: ok, Path: path + ".env" + keyPath(c.Name)}})
	}
	SortEnv(ne)
	out.p.Env = ne
	return out
}

// findArgChange returns the last change of flag (a JS object keeps the last
// value of a repeated key).
func findArgChange(cs []ArgChange, flag string) *ArgChange {
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Flag == flag {
			return &cs[i]
		}
	}
	return nil
}

func findEnvChange(cs []EnvChange, name string) *EnvChange {
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

func hasFlag(a []launch.Arg, flag string) bool {
	for _, x := range a {
		if x.Flag == flag {
			return true
		}
	}
	return false
}

func hasEnv(e []launch.EnvVar, name string) bool {
	for _, x := range e {
		if x.Name == name {
			return true
		}
	}
	return false
}

// resolveEnvRef replaces m's envRef by envs[envRef], keys sorted.
func (f *File) resolveEnvRef(m *mblock) {
	if m.envRef == nil {
		return
	}
	n := *m.envRef
	m.p.Env = envVars(f.Envs[n], launch.OriginCookbook, "envs["+itoa(n)+"]")
	SortEnv(m.p.Env)
	m.envRef = nil
}

type routerKey struct {
	cell   int
	router string
}

// materializeAll computes every cell's base blocks for every router
// (spec (b) step 1), then checks each point's patch against them.
func (f *File) materializeAll() error {
	memo := map[routerKey][]mblock{}
	busy := map[routerKey]bool{}
	f.base = make([]map[string][]mblock, len(f.Cells))
	for ci := range f.Cells {
		f.base[ci] = map[string][]mblock{}
		for _, r := range sortedRouters(&f.Cells[ci]) {
			bs, err := f.materialize(ci, r, memo, busy)
			if err != nil {
				return err
			}
			f.base[ci][r] = bs
		}
	}
	for ci := range f.Cells {
		c := &f.Cells[ci]
		for pi := 1; pi < len(c.Points); pi++ {
			for _, rp := range c.Points[pi].Patch {
				if n := len(f.base[ci][rp.Router]); rp.Blocks != nil && len(rp.Blocks) > n {
					return f.errPath(jpath{"cells", ci, "points", pi, "patch", rp.Router, n},
						"patch has %d entries but router %q has %d blocks", len(rp.Blocks), rp.Router, n)
				}
			}
		}
	}
	return nil
}

func (f *File) materialize(ci int, r string, memo map[routerKey][]mblock, busy map[routerKey]bool) ([]mblock, error) {
	key := routerKey{ci, r}
	if bs, ok := memo[key]; ok {
		return bs, nil
	}
	c := &f.Cells[ci]
	rt, ok := c.Routers[r]
	if !ok {
		return nil, f.errPath(jpath{"cells", ci, "routers"}, "no router %q", r)
	}
	if busy[key] {
		return nil, f.errPath(jpath{"cells", ci, "routers", r}, "ref/from cycle through cells[%d].routers.%s", ci, r)
	}
	busy[key] = true
	defer delete(busy, key)
	out := make([]mblock, len(rt.Blocks))
	for bi := range rt.Blocks {
		e := &rt.Blocks[bi]
		bp := jpath{"cells", ci, "routers", r, "blocks", bi}
		path := bp.String()
		var m mblock
		switch {
		case e.Ref != nil:
			rf := e.Ref
			if rf.Cell < 0 || rf.Cell >= len(f.Cells) {
				return nil, f.errPath(bp.with("ref"), "cell index %d out of range (%d cells)", rf.Cell, len(f.Cells))
			}
			// spec (a) "Blocks — delta forms" 2 and (f) 6: a ref points at
			// another, earlier cell (refs always point backwards).
			if rf.Cell >= ci {
				return nil, f.errPath(bp.with("ref"), "ref to cells[%d] from cells[%d]: a ref must point to an earlier cell", rf.Cell, ci)
			}
			if _, ok := f.Cells[rf.Cell].Routers[rf.Router]; !ok {
				return nil, f.errPath(bp.with("ref"), "cells[%d] has no router %q", rf.Cell, rf.Router)
			}
			src, err := f.materialize(rf.Cell, rf.Router, memo, busy)
			if err != nil {
				return nil, err
			}
			if rf.Block < 0 || rf.Block >= len(src) {
				return nil, f.errPath(bp.with("ref"), "block index %d out of range (cells[%d].routers.%s has %d blocks)", rf.Block, rf.Cell, rf.Router, len(src))
			}
			m = src[rf.Block]
		case e.From != nil:
			if r == c.Submitted {
				return nil, f.errPath(bp.with("from"), "from in the submitted router %q (from refers to the submitted router)", r)
			}
			src, err := f.materialize(ci, c.Submitted, memo, busy)
			if err != nil {
				return nil, err
			}
			if *e.From < 0 || *e.From >= len(src) {
				return nil, f.errPath(bp.with("from"), "index %d out of range (router %q has %d blocks)", *e.From, c.Submitted, len(src))
			}
			m = src[*e.From]
		default:
			m = fromEntry(e, launch.OriginCookbook, path)
		}
		if e.isDelta() {
			for _, k := range e.Drop {
				m.drop(k)
			}
			m.overlay(e, launch.OriginCookbook, path)
			m.p.Origin = launch.Origin{Kind: launch.OriginCookbook, Path: path}
			m = applyDiff(m, e.Diff, launch.OriginCookbook, path+".diff")
		}
		f.resolveEnvRef(&m)
		if m.p.Kind == "" || m.p.Program == "" {
			return nil, f.errPath(bp, "materialized block has no kind or cmd")
		}
		out[bi] = m
	}
	memo[key] = out
	return out, nil
}
