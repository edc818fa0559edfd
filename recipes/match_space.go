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
	// api holds the JSON API's yaml entries by the hash of their
	// fingerprint (printRef.print), made at the first query; a hash hit
	// counts only when the full fingerprints are equal, so entries are
	// told apart exactly as by the fingerprint itself, while the set keeps
	// a hash and a reference to the (live, never changed) rendering role
	// instead of the fingerprint text for each entry. A query's own
	// entries are told apart from them and from each other (spaceEntries);
	// two queries' never meet: an entry's fingerprint holds its hardware
	// and variant, and a variant serves one checkpoint.
	api map[uint64][]printRef
	h   maphash.Hash // the fingerprints' hash (one seed for the cache's life)
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

// add records p in seen unless an entry with the same fingerprint is in
// the JSON API's (api) or in seen; it reports whether p was new. c.mu
// held.
func (c *spaceCache) add(seen map[uint64][]printRef, p printRef) bool {
	c.h.Reset()
	p.write(&c.h)
	k := c.h.Sum64()
	if len(c.api[k]) > 0 || len(seen[k]) > 0 {
		fp := p.print()
		for _, refs := range [2][]printRef{c.api[k], seen[k]} {
			for _, q := range refs {
				if q.print() == fp {
					return false
				}
			}
		}
	}
	seen[k] = append(seen[k], p)
	return true
}

// spaceKey is spaceEntries' key of a query of model on hardware id hw.
func spaceKey(model, hw string) string { return strings.ToLower(model) + "\x00" + hw }

// queryHardware is the hardware id a query's hardware is matched as
// (Index.match): its taxonomy id, else the name lower-cased.
func queryHardware(name string) string {
	if hw := NormalizeHardware(name); hw != "" {
		return hw
	}
	return strings.ToLower(name)
}

// Release drops what the index keeps for the queries of model on
// hardware (a name Match takes: NormalizeHardware): the selection-space
// renderings spaceEntries made for them and the Match answers remembered.
// A caller that is done with them (coverage, once no key left to judge
// serves model on hardware) calls it so that memory follows the queries in
// hand; a later query renders and matches them again, to the same answer.
// Safe for concurrent use.
func (ix *Index) Release(model, hardware string) {
	hw := queryHardware(hardware)
	if ix.space != nil {
		ix.space.mu.Lock()
		delete(ix.space.m, spaceKey(model, hw))
		ix.space.mu.Unlock()
	}
	if ix.matches != nil {
		ix.matches.mu.Lock()
		for k := range ix.matches.m {
			if strings.EqualFold(k.model, model) && queryHardware(k.hardware) == hw {
				delete(ix.matches.m, k)
			}
		}
		ix.matches.mu.Unlock()
	}
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
	key := spaceKey(model, hw)
	c.mu.Lock()
	defer c.mu.Unlock()
	if es, ok := c.m[key]; ok {
		return es
	}
	if c.api == nil {
		c.api = map[uint64][]printRef{}
		c.h.SetSeed(maphash.MakeSeed())
		for i := range ix.entries {
			if e := &ix.entries[i]; e.kind == "yaml" {
				c.add(c.api, refOf(e))
			}
		}
	}
	seen := map[uint64][]printRef{} // this query's entries
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
					if !c.add(seen, refOf(&e)) {
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
