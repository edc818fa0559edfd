package recipes

import (
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
	mu   sync.Mutex
	m    map[string][]entry
	seen map[string]bool // fingerprints of the JSON API's yaml entries
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
		c.seen = map[string]bool{}
		for i := range ix.entries {
			if e := &ix.entries[i]; e.kind == "yaml" {
				c.seen[entryPrint(e)] = true
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
					fp := entryPrint(&e)
					if c.seen[fp] {
						continue
					}
					c.seen[fp] = true
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

// entryPrint identifies a yaml entry's worker: file, variant, hardware,
// role and the role's command and env.
func entryPrint(e *entry) string {
	rc := &e.rendering.Roles[e.roleIdx]
	var b strings.Builder
	b.WriteString(e.file + "\x00" + e.variant + "\x00" + e.hardware[0] + "\x00" + string(e.role) + "\x00" + strings.Join(rc.Texts(), "\x00"))
	for _, v := range rc.Env {
		b.WriteString("\x00" + v.Name + "=" + v.Value)
	}
	return b.String()
}
