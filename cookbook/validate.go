package cookbook

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// kvTiers are the KV tiers the page knows, in its button order
// (_agentx.jsx: none, hicache, mooncake).
var kvTiers = [...]string{launch.KVNone, launch.KVHiCache, launch.KVMooncake}

func knownTier(t string) bool { return slices.Contains(kvTiers[:], t) }

// validate checks the structure the decoder relies on, naming the JSON path
// of the first problem.
func (f *File) validate() error {
	// Statuses (spec (a) "source", (c)): the page picks its badge by them,
	// so a value outside the set cannot be shown truthfully.
	for _, n := range slices.Sorted(maps.Keys(f.Source.PRs)) {
		if err := checkStatusAt(f.Source.PRs[n].Status); err != nil {
			return f.errPath(jpath{"source", "prs", n, "status"}, "%v", err)
		}
	}
	for ci := range f.Cells {
		c := &f.Cells[ci]
		if c.Prov != nil {
			if err := checkStatusAt(c.Prov.Status); err != nil {
				return f.errPath(jpath{"cells", ci, "prov", "status"}, "%v", err)
			}
		}
		for pi := range c.Points {
			if err := checkStatusAt(c.Points[pi].Status); err != nil {
				return f.errPath(jpath{"cells", ci, "points", pi, "status"}, "%v", err)
			}
		}
	}
	for i := range f.Envs {
		if err := f.checkEnv(jpath{"envs", i}, f.Envs[i]); err != nil {
			return err
		}
	}
	if m := f.KVMooncake; m != nil {
		p := jpath{"kvMooncake"}
		if err := f.checkArgs(p.with("args"), m.Args); err != nil {
			return err
		}
		if err := f.checkEnv(p.with("env"), m.Env); err != nil {
			return err
		}
		if err := f.checkEnv(p.with("decode_env"), m.DecodeEnv); err != nil {
			return err
		}
		for r, b := range m.Master {
			if err := f.checkBlock(p.with("master", r), &b, false); err != nil {
				return err
			}
		}
	}
	if len(f.Cells) == 0 {
		return f.errPath(jpath{"cells"}, "no cells")
	}
	ids := make(map[string]int, len(f.Cells))
	for ci := range f.Cells {
		c := &f.Cells[ci]
		cp := jpath{"cells", ci}
		// spec (a) "cells[i]": id is an opaque *unique* key (the page keys
		// its cell menu and URL state on it).
		if prev, dup := ids[c.ID]; dup {
			return f.errPath(cp.with("id"), "duplicate cell id %q (also cells[%d].id)", c.ID, prev)
		}
		ids[c.ID] = ci
		if c.GPUs < 0 {
			// a count of GPUs the page prints; our own rule (issue 10)
			return f.errPath(cp.with("gpus"), "negative GPU count %d", c.GPUs)
		}
		// spec (a) "cell.points[j]": point 0 never has a patch (the
		// routers' blocks are point 0's launch); the page ignores it.
		if len(c.Points) > 0 && c.Points[0].Patch != nil {
			return f.errPath(cp.with("points", 0, "patch"), "point 0 cannot have a patch (the cell's blocks are point 0's launch)")
		}
		if len(c.Routers) == 0 {
			return f.errPath(cp.with("routers"), "no routers")
		}
		if _, ok := c.Routers[c.Submitted]; !ok {
			return f.errPath(cp.with("submitted"), "submitted router %q is not a key of routers", c.Submitted)
		}
		for i, t := range c.KV.Available {
			if !knownTier(t) {
				return f.errPath(cp.with("kv", "available", i), "unknown KV tier %q (want none, hicache or mooncake)", t)
			}
		}
		if c.KV.HiCache != nil {
			if err := f.checkArgs(cp.with("kv", "hicache", "args"), c.KV.HiCache.Args); err != nil {
				return err
			}
		}
		if len(c.Points) == 0 {
			return f.errPath(cp.with("points"), "no points")
		}
		for _, r := range sortedRouters(c) {
			rt := c.Routers[r]
			for bi := range rt.Blocks {
				if err := f.checkBlock(cp.with("routers", r, "blocks", bi), &rt.Blocks[bi], true); err != nil {
					return err
				}
			}
		}
		for pi := range c.Points {
			pt := &c.Points[pi]
			pp := cp.with("points", pi)
			if !knownTier(pt.KV) {
				return f.errPath(pp.with("kv"), "unknown KV tier %q (want none, hicache or mooncake)", pt.KV)
			}
			// A derived tier needs its donor settings (the page would throw).
			if pt.KV != launch.KVHiCache && slices.Contains(c.KV.Available, launch.KVHiCache) && c.KV.HiCache == nil {
				return f.errPath(cp.with("kv"), "KV tier hicache is offered but kv.hicache is missing")
			}
			if pt.KV != launch.KVMooncake && slices.Contains(c.KV.Available, launch.KVMooncake) {
				for _, r := range sortedRouters(c) {
					if f.KVMooncake == nil {
						return f.errPath(jpath{"kvMooncake"}, "KV tier mooncake is offered (%s) but kvMooncake is missing", cp.with("kv"))
					}
					if _, ok := f.KVMooncake.Master[r]; !ok {
						return f.errPath(jpath{"kvMooncake", "master"}, "no mooncake master for router %q (needed by %s)", r, cp)
					}
				}
			}
			for _, rp := range pt.Patch {
				rpp := pp.with("patch", rp.Router)
				if rp.bad != "" {
					if rp.Router == "" {
						rpp = pp.with("patch")
					} else if rp.badKey != "" {
						rpp = rpp.with(rp.badKey)
					}
					return f.errPath(rpp, "%s", rp.bad)
				}
				if _, ok := c.Routers[rp.Router]; !ok {
					return f.errPath(rpp, "patch for router %q, which the cell does not have", rp.Router)
				}
				for k, d := range rp.Blocks {
					if d == nil {
						continue
					}
					if err := f.checkDiff(rpp.with(k), d); err != nil {
						return err
					}
				}
				for k := range rp.Replace {
					if err := f.checkBlock(rpp.with("replace", k), &rp.Replace[k], false); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// checkBlock validates one block entry; deltas are allowed only in a
// router's block list.
func (f *File) checkBlock(p jpath, b *BlockEntry, deltaOK bool) error {
	if b.bad != "" {
		if b.badKey != "" {
			return f.errPath(p.with(b.badKey), "%s", b.bad)
		}
		return f.errPath(p, "%s", b.bad)
	}
	if b.isDelta() && !deltaOK {
		return f.errPath(p, "from/ref are not allowed here (want a full block)")
	}
	if b.From != nil && b.Ref != nil {
		return f.errPath(p, "block has both from and ref")
	}
	if b.Ref != nil && b.Ref.bad != "" {
		return f.errPath(p.with("ref"), "%s", b.Ref.bad)
	}
	// Counts are absent (0) or positive: the page multiplies them into the
	// launch (spec (a) "Blocks — full form"); a negative one is bad input.
	for _, n := range []struct {
		key string
		v   int
	}{{"workers", b.Workers}, {"nodes_per_worker", b.NodesPerWorker}, {"count", b.Count}, {"count_nodes", b.CountNodes}} {
		if n.v < 0 {
			return f.errPath(p.with(n.key), "negative %s %d", n.key, n.v)
		}
	}
	if !b.isDelta() {
		if b.Kind == "" {
			return f.errPath(p, "block has no kind")
		}
		if b.Cmd == "" {
			return f.errPath(p, "block has no cmd")
		}
	}
	if err := f.checkArgs(p.with("args"), b.Args); err != nil {
		return err
	}
	if err := f.checkEnv(p.with("env"), b.Env); err != nil {
		return err
	}
	if b.EnvRef != nil && b.Env != nil {
		// spec (f) 7: env and envRef are mutually exclusive in the data.
		return f.errPath(p.with("envRef"), "block has both env and envRef (they are mutually exclusive)")
	}
	for i, k := range b.Drop {
		if !slices.Contains(blockKeys, k) {
			return f.errPath(p.with("drop", i), "drop names unknown block key %q", k)
		}
	}
	if b.EnvRef != nil && (*b.EnvRef < 0 || *b.EnvRef >= len(f.Envs)) {
		return f.errPath(p.with("envRef"), "index %d out of range (%d envs)", *b.EnvRef, len(f.Envs))
	}
	if b.Diff != nil {
		if err := f.checkDiff(p.with("diff"), b.Diff); err != nil {
			return err
		}
	}
	return nil
}

func (f *File) checkDiff(p jpath, d *Diff) error {
	if d.bad != "" {
		if d.badKey != "" {
			return f.errPath(p.with(d.badKey), "%s", d.bad)
		}
		return f.errPath(p, "%s", d.bad)
	}
	if d.Block != nil {
		return f.checkBlock(p.with("block"), d.Block, false)
	}
	return nil
}

func (f *File) checkArgs(p jpath, a Args) error {
	for i, e := range a {
		if len(e) == 0 || e[0] == "" {
			return f.errPath(p.with(i), "empty arg entry (want [flag, value…])")
		}
	}
	return nil
}

func (f *File) checkEnv(p jpath, e Env) error {
	for _, v := range e {
		if strings.HasPrefix(v.Value, badValue) {
			if v.Name == "" {
				return f.errPath(p, "want an object of strings, got %s", strings.TrimPrefix(v.Value, badValue))
			}
			return f.errPath(p.with(v.Name), "env value must be a string, got %s", strings.TrimPrefix(v.Value, badValue))
		}
	}
	return nil
}

// sortedRouters returns the cell's router names in the page's order
// (Object.keys(cell.routers).sort(): code-unit order, dynamo before sglang).
func sortedRouters(c *Cell) []string {
	rs := make([]string, 0, len(c.Routers))
	for r := range c.Routers {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return rs
}

// CheckFileKeys verifies the integrity of the top-level `files` map: each
// key must be "<name>#<h>" where name is the entry's name and h the first 8
// hex digits of SHA-256 of its content (spec agentx-format.md (a) "files";
// the generator's rule, verified on every known data file). Parse does not
// call it, as the page itself never checks the keys; the error names the
// first bad key with its JSON path.
func (f *File) CheckFileKeys() error {
	for _, e := range f.Files {
		name, h, ok := strings.Cut(e.Key, "#")
		if !ok || name != e.Name {
			return f.errPath(jpath{"files", e.Key}, "key does not start with the file name %q + \"#\"", e.Name)
		}
		sum := sha256.Sum256([]byte(e.Content))
		if want := hex.EncodeToString(sum[:4]); h != want {
			return f.errPath(jpath{"files", e.Key}, "hash %q does not match the content (sha256 prefix %s)", h, want)
		}
	}
	return nil
}

// checkStatusAt is CheckStatus for an optional status ("" = not given).
func checkStatusAt(s string) error {
	if s == "" {
		return nil
	}
	return CheckStatus(s)
}
