package generate

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
)

// This file merges a generated snippet into the current upstream file
// (Options.Previous, sgl-project/sglang
// docs/src/snippets/agentx/<org>/<model>.jsx): nothing upstream is lost by
// our own hand (issue 10 item 7). A previous cell that no generated cell
// replaces is carried over — every selection of it decodes exactly as in the
// previous file — unless Options.DropCells is set and its config key
// is in the run's scope; then it is removed and listed in Result.Removed.

// Refused is a config key Run left out because a rendered point has a
// setting the exclusion list prohibits (exclusions/rules.yaml, class
// "prohibited"): nothing of the key is published.
type Refused struct {
	ConfigKey   string `json:"configKey"`
	Row         int    `json:"row"`
	Concurrency int    `json:"concurrency"`
	Rule        string `json:"rule"`    // exclusions rule id
	Setting     string `json:"setting"` // "decode worker: env NAME", "frontend: --flag"
	Reason      string `json:"reason"`  // the rule's reason
}

// String gives "<key>: left out: row R conc C: <setting> is prohibited
// (<rule>: <reason>)".
func (r Refused) String() string {
	return fmt.Sprintf("%s: left out: row %d conc %d: %s is prohibited (%s: %s)", r.ConfigKey, r.Row, r.Concurrency, r.Setting, r.Rule, r.Reason)
}

// PreviousCell is a cell of Options.Previous that no generated cell
// replaces, with the reason (Result.Kept, Result.Removed).
type PreviousCell struct {
	ID        string `json:"id"`
	ConfigKey string `json:"configKey"`
	Reason    string `json:"reason"`
}

// RemovedCells returns the ids of the cells of old (the upstream AgentX
// file, sgl-project/sglang docs/src/snippets/agentx/<org>/<model>.jsx) that
// have no cell with the same id in new, in old's order: the cells a plan
// replacing old by new removes from the page. Run keeps every previous
// cell it does not replace (ids included) unless Options.DropCells
// is set, so this is empty for its output without DropCells.
func RemovedCells(old, new *cookbook.File) []string {
	if old == nil {
		return nil
	}
	have := map[string]bool{}
	if new != nil {
		for i := range new.Cells {
			have[new.Cells[i].ID] = true
		}
	}
	var out []string
	for i := range old.Cells {
		if !have[old.Cells[i].ID] {
			out = append(out, old.Cells[i].ID)
		}
	}
	return out
}

// inScope reports whether config key k is in the run's scope: every key
// when opt.Keys is empty, else the keys matching one of its globs.
func (opt *Options) inScope(k string) bool {
	if len(opt.Keys) == 0 {
		return true
	}
	return slices.ContainsFunc(opt.Keys, func(g string) bool { ok, _ := path.Match(g, k); return ok })
}

// merge applies the previous file's cell order and ids to the generated
// cells (a generated cell takes the id of the previous cell with the same
// config key whose points share a search-space row; matched cells keep the
// previous order, new ones follow in the generated order) and carries every
// other previous cell over at its previous position, or — DropCells, key in
// scope — lists it in g.Removed. selected are the config keys the run
// rendered (refused ones included).
func merge(cells []*genCell, prev *cookbook.File, opt *Options, g *Result, selected []string) []*genCell {
	pos := map[*genCell]int{}
	taken := map[int]bool{}
	regenerated := map[string]bool{}
	for _, c := range cells {
		regenerated[c.key] = true
		rows := map[int]bool{}
		for _, p := range c.points {
			rows[p.row.p.Row] = true
		}
		pos[c] = len(prev.Cells)
		for i := range prev.Cells {
			pc := &prev.Cells[i]
			if taken[i] || pc.ConfigKey != c.key {
				continue
			}
			if slices.ContainsFunc(pc.Points, func(p cookbook.Point) bool { return rows[p.Item] }) {
				pos[c], taken[i] = i, true
				c.id = pc.ID
				break
			}
		}
	}
	refused := map[string]string{}
	for _, r := range g.Refused {
		refused[r.ConfigKey] = r.String()
	}
	skipped := map[string]int{}
	for _, s := range g.Skipped {
		skipped[s.ConfigKey]++
	}
	for i := range prev.Cells {
		if taken[i] {
			continue
		}
		pc := &prev.Cells[i]
		var why string
		switch k := pc.ConfigKey; {
		case !opt.inScope(k):
			why = "config key not selected"
		case refused[k] != "":
			why = "config key refused: " + refused[k]
		case regenerated[k]:
			var items []string
			for _, p := range pc.Points {
				items = append(items, strconv.Itoa(p.Item))
			}
			why = "no generated cell of its config key has its search-space rows (" + strings.Join(slices.Compact(items), ", ") + ")"
		case slices.Contains(selected, k):
			why = fmt.Sprintf("no point of its config key renders from this checkout (%d skipped)", skipped[k])
		default:
			why = fmt.Sprintf("no SGLang config key %q of model %q in this checkout", k, opt.Model)
		}
		pcell := PreviousCell{ID: pc.ID, ConfigKey: pc.ConfigKey, Reason: why}
		if opt.DropCells && opt.inScope(pc.ConfigKey) {
			g.Removed = append(g.Removed, pcell)
			continue
		}
		g.Kept = append(g.Kept, pcell)
		kc := keptCell(prev, i)
		pos[kc] = i
		cells = append(cells, kc)
	}
	slices.SortStableFunc(cells, func(a, b *genCell) int { return pos[a] - pos[b] })
	return cells
}

// keptCell turns cell ci of the previous file into a genCell carrying it
// over: its data verbatim (kept), its blocks materialized per point and
// router in full form (the merged file's encoding re-compresses them).
func keptCell(prev *cookbook.File, ci int) *genCell {
	pc := &prev.Cells[ci]
	c := &genCell{key: pc.ConfigKey, id: pc.ID, hw: pc.HW, ckpt: pc.Ckpt, label: pc.Label, detail: pc.Detail,
		image: pc.Image, submitted: pc.Submitted, gpus: pc.GPUs, kept: pc, keptIndex: ci}
	for pi := range pc.Points {
		c.points = append(c.points, &genPoint{concs: pc.Points[pi].Concs, blocks: prev.FullBlocks(ci, pi)})
	}
	return c
}

// keptData is the kept cell's data with fresh points and routers (the
// encoding rewrites their patches and blocks), files and all else as in
// the previous file.
func keptData(c *genCell) cookbook.Cell {
	cell := *c.kept
	cell.ID = c.id
	cell.Points = slices.Clone(c.kept.Points)
	for pi := range cell.Points {
		cell.Points[pi].Patch = nil
	}
	cell.Routers = map[string]cookbook.Router{}
	for r, rt := range c.kept.Routers {
		cell.Routers[r] = cookbook.Router{Install: rt.Install, Files: rt.Files, Blocks: c.points[0].blocks[r]}
	}
	return cell
}

// verifyKept checks that every selection of a kept cell decodes in the
// merged file f exactly as cell kept.keptIndex of prev: same blocks (title,
// kind, role, text) and the same copy-all text.
func verifyKept(f *cookbook.File, ci int, c *genCell, prev *cookbook.File) error {
	for _, s := range f.Selections() {
		if s.Cell != ci {
			continue
		}
		got, err := f.Decode(s)
		if err != nil {
			return fmt.Errorf("%w: kept cell %s: %v", ErrVerify, c.id, err)
		}
		ps := s
		ps.Cell = c.keptIndex
		want, err := prev.Decode(ps)
		if err != nil {
			return fmt.Errorf("%w: kept cell %s: %+v is not a selection of the previous file: %v", ErrVerify, c.id, s, err)
		}
		if !slices.Equal(got.Blocks, want.Blocks) || got.CopyAll != want.CopyAll {
			return fmt.Errorf("%w: kept cell %s point %d %s kv %s: decodes differently from the previous file:\n%s\n--- previous ---\n%s",
				ErrVerify, c.id, s.Point, s.Router, s.KV, got.CopyAll, want.CopyAll)
		}
	}
	n := 0
	for _, s := range prev.Selections() {
		if s.Cell == c.keptIndex {
			n++
		}
	}
	m := 0
	for _, s := range f.Selections() {
		if s.Cell == ci {
			m++
		}
	}
	if n != m {
		return fmt.Errorf("%w: kept cell %s: %d selections, the previous file has %d", ErrVerify, c.id, m, n)
	}
	return nil
}

// hicacheArgs returns the HiCache settings of the first point of a generated
// cell measured with them (renderedShape.hicacheArgs), nil when none is or
// the cell is kept. A cell whose rows of one shape differ only by the KV
// tier (kv-offloading none at low concurrency, hicache above) offers the
// hicache tier on every point from these settings.
func (c *genCell) hicacheArgs() cookbook.Args {
	if c.kept != nil {
		return nil
	}
	for _, p := range c.points {
		if a := p.shape.hicacheArgs(); a != nil {
			return a
		}
	}
	return nil
}

// allMeasured reports whether every point of a generated cell was measured
// at KV tier t.
func allMeasured(c *genCell, t string) bool {
	for _, p := range c.points {
		if p.shape.measuredKV() != t {
			return false
		}
	}
	return true
}

// offersDerived reports whether cell offers tier t on a point measured at
// another tier (the page then needs the tier's donor settings).
func offersDerived(cell *cookbook.Cell, t string) bool {
	if !slices.Contains(cell.KV.Available, t) {
		return false
	}
	return slices.ContainsFunc(cell.Points, func(p cookbook.Point) bool { return p.KV != t })
}

// keepPRs adds to prs the previous file's source.prs entries of the PRs
// cell's provenance names (cell.prov.pr, points[].pr) that prs lacks.
func keepPRs(prs map[string]cookbook.SyncPR, cell *cookbook.Cell, prev *cookbook.File) {
	add := func(n string) {
		if n == "" {
			return
		}
		if _, ok := prs[n]; ok {
			return
		}
		if p, ok := prev.Source.PRs[n]; ok {
			prs[n] = p
		}
	}
	if cell.Prov != nil {
		add(cell.Prov.PR)
	}
	for _, p := range cell.Points {
		add(p.PR)
	}
}
