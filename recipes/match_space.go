package recipes

import (
	"hash/maphash"
	"io"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// This file adds to the index, per query, the site renderings of the
// builder's whole selection space (site_space.go) that the JSON API lacks.

// spaceCache holds the per-query renderings of the site's selection space
// (Index.spaceEntries), keyed by lower-case checkpoint and hardware id.
type spaceCache struct {
	mu sync.Mutex
	m  map[string][]entry
	// seen holds the yaml entries already indexed (the JSON API's, then
	// each one spaceEntries adds) by the hash of their fingerprint
	// (printRef.print); a hash hit counts only when the full fingerprints are
	// equal, so entries are told apart exactly as by the
	// fingerprint itself, while the memo keeps a hash and a reference to
	// the (live, never changed) rendering role instead of the fingerprint
	// text for each entry.
	seen map[uint64][]printRef
	h    maphash.Hash // seen's hash (one seed for the cache's life)
}

// printRef is what a yaml entry's fingerprint (print) reads of it.
type printRef struct {
	file, variant, hw string
	role              launch.Role
	rc                *RoleCommand
}

func refOf(e *entry) printRef {
	return printRef{file: e.file, variant: e.variant, hw: e.hardware[0], role: e.role, rc: &e.rendering.Roles[e.roleIdx]}
}

// print is the entry's fingerprint: it identifies a yaml entry's worker
// by file, variant, hardware, role and the role's command and env.
func (p printRef) print() string {
	var b strings.Builder
	p.write(&b)
	return b.String()
}

// write writes the fingerprint: file, variant, hardware, role and the
// role's command and env, "\x00"-separated. w is a strings.Builder or a
// maphash.Hash, whose writes never fail.
func (p printRef) write(w io.StringWriter) {
	put := func(ss ...string) {
		for _, s := range ss {
			_, _ = w.WriteString(s)
		}
	}
	for _, s := range []string{p.file, p.variant, p.hw, string(p.role)} {
		put(s, "\x00")
	}
	for i, t := range p.rc.Argv {
		if i > 0 {
			put("\x00")
		}
		put(t.Text)
	}
	for _, v := range p.rc.Env {
		put("\x00", v.Name, "=", v.Value)
	}
}

// add records p unless an entry with the same fingerprint is recorded;
// it reports whether p was new.
func (c *spaceCache) add(p printRef) bool {
	c.h.Reset()
	p.write(&c.h)
	k := c.h.Sum64()
	if refs := c.seen[k]; len(refs) > 0 {
		fp := p.print()
		for _, q := range refs {
			if q.print() == fp {
				return false
			}
		}
	}
	c.seen[k] = append(c.seen[k], p)
	return true
}

// spaceEntries renders, once per (checkpoint, hardware), every builder
// selection of every variant serving model on hardware hw (a taxonomy id)
// that the JSON API does not already hold, and the prose alternates of
// each (guide_prose.go), as index entries.
func (ix *Index) spaceEntries(model, hw string) []entry {
	if ix.space == nil || ix.site == nil {
		return nil
	}
	c := ix.space
	key := strings.ToLower(model) + "\x00" + hw
	c.mu.Lock()
	defer c.mu.Unlock()
	if es, ok := c.m[key]; ok {
		return es
	}
	if c.seen == nil {
		c.seen = map[uint64][]printRef{}
		c.h.SetSeed(maphash.MakeSeed())
		for i := range ix.entries {
			if e := &ix.entries[i]; e.kind == "yaml" {
				c.add(refOf(e))
			}
		}
	}
	var out []entry
	s := ix.site
	h := s.hwByID[hw]
	fam := ix.familyOf(model)
	for _, r := range s.Recipes {
		if h == nil || !strings.EqualFold(r.HFID, fam) || isOmni(r) {
			continue
		}
		pc := posCache{site: s, m: map[*yaml.Node]launch.Origin{}}
		for _, p := range pairs(get(r.root, "variants")) {
			if !strings.EqualFold(variantCheckpoint(r, p.val), model) || !s.variantOn(r, p.val, h) {
				continue
			}
			x := &rctx{s: s, t: treeSpec{id: r.HFID, recipe: r, variant: p.key}, r: r, v: p.key, vn: p.val, hw: h, pc: pc, kvOpts: ix.site.kvOffload}
			list := x.setup()
			var rends []*Rendering
			for _, rd := range x.selections(list) {
				rd.Recommended = rd.Strategy == x.recommend(rd.NodeCount) && rd.pick == nil && rd.KVOffload == ""
				rends = append(rends, rd)
			}
			// the prose alternates of the selections, after them
			rp := ix.prose[r.File]
			n := len(rends)
			for i := 0; i < n; i++ {
				rends = append(rends, rp.proseAlts(rends[i])...)
			}
			for _, rd := range rends {
				for _, e := range renderingEntries(r.File, rd) {
					if rd.spaceRole != "" && string(e.role) != rd.spaceRole {
						continue
					}
					if !c.add(refOf(&e)) {
						continue
					}
					e.space = true
					out = append(out, e)
				}
			}
			x.pc = posCache{}
		}
	}
	if c.m == nil {
		c.m = map[string][]entry{}
	}
	c.m[key] = out
	return out
}
