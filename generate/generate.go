// Package generate writes SGLang cookbook AgentX snippets
// (sgl-project/sglang docs/src/snippets/agentx/<org>/<model>.jsx) from an
// InferenceX checkout: Run renders every agentic-coding point of a model's
// config keys (package infx), applies the exclusion list (package
// exclusions), builds the cells, points, routers and KV tiers, merges the
// result into the current upstream file when one is given, compresses the
// blocks into the page's delta forms and encodes the data (package
// cookbook), then decodes the bytes back and refuses output that does not
// reproduce every generated command (ErrVerify).
//
// Reading, decoding, encoding and validating snippets stay in package
// cookbook, which does not depend on InferenceX; this package is the only
// writer that does. Format: ../shared/spec/agentx-format.md, sections (a)
// (data model), (b) (decoding) and (c) (provenance).
package generate

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Options configure Run.
type Options struct {
	// Model is the InferenceX model prefix (master `model-prefix`, e.g.
	// "qwen3.5"); every config key with that prefix is generated unless
	// Keys is set.
	Model string
	// Keys, when set, are globs (path.Match syntax) over config keys; only
	// keys of Model matching one of them are generated.
	Keys []string
	// DisplayName is data.model ("Qwen3.5"); default: Model with its first
	// letter upper-cased.
	DisplayName string
	// GeneratedOn is data.generatedOn (YYYY-MM-DD). Required: the output
	// depends only on the inputs, never on the clock.
	GeneratedOn string
	// Source is the sync provenance (data.source): repo (default
	// https://github.com/SemiAnalysisAI/InferenceX), main sha (required) and
	// the open PRs mirrored.
	Source cookbook.SyncSource
	// Prov gives the provenance of each config key (cell.prov: sha, pr, run,
	// status, date, comment). A key without an entry gets {sha: the PR's sha
	// or Source.Main, pr: the only PR of Source.PRs if there is exactly one,
	// status: "in-progress"} — Run never claims a verification it was
	// not told about.
	Prov map[string]cookbook.Prov
	// Previous is the current upstream file, if any: its cell order, cell
	// ids, hardware/checkpoint order and source.prs order are kept, so the
	// upstream diff shows only real changes. The output is merged into it:
	// a previous cell that no generated cell replaces is carried over
	// unchanged (Result.Kept; every selection of it is verified to decode
	// as in Previous), unless DropCells is set.
	Previous *cookbook.File
	// DropCells removes, instead of keeping, the previous cells that no
	// generated cell replaces and whose config key is in the run's scope
	// (every key, or the keys matching Keys); they are listed in
	// Result.Removed. Cells of keys outside Keys are always kept.
	DropCells bool
	// Exclusions classifies settings; nil means exclusions.Default().
	Exclusions *exclusions.Set
	// RenderOptions are passed to infx Render.
	RenderOptions infx.Options
	// CellPerRow gives one cell per config key × search-space row (ids
	// "<key>#<row>"). By default rows of one config key that deploy the same
	// shape (same label, detail and block structure) share a cell, as in the
	// upstream files; the cell id is then "<key>#<lowest row>".
	CellPerRow bool

	// tamper, when set (tests only), rewrites the encoded bytes before the
	// verification pass, to prove that a bad encoding is refused.
	tamper func([]byte) []byte
}

// Skipped is a point Run could not publish, with the reason.
type Skipped struct {
	ConfigKey   string `json:"configKey"`
	Row         int    `json:"row"`
	Concurrency int    `json:"concurrency"`
	Reason      string `json:"reason"`
}

// Result is what Run gives: the data, its encoded bytes (verified),
// the points that were skipped, the settings left out by the exclusion
// list ("<configKey> row N: role: --flag (class: reason)"), the config keys
// left out for a prohibited setting (Refused), and the cells of
// Options.Previous no generated cell replaces: carried over (Kept)
// or, with DropCells, removed (Removed — what a plan publishing Bytes over
// Previous removes from the page).
type Result struct {
	Data    cookbook.Data
	Bytes   []byte
	Skipped []Skipped
	Dropped []string
	Refused []Refused
	Kept    []PreviousCell
	Removed []PreviousCell
}

// ErrVerify is returned (wrapped) when the encoded output does not decode
// back to what was generated; nothing must be written then.
var ErrVerify = errors.New("generated snippet does not decode back to the generated commands")

// ErrNothing is returned when no point of the selected keys can be rendered.
var ErrNothing = errors.New("no renderable point")

// Run builds the AgentX data of one model from the effective recipes of
// an InferenceX checkout (package infx renders every point) and encodes it.
//
// Only agentic-coding search-space rows are published (the AgentX page is the
// agentic deployment guide); fixed-sequence rows are ignored.
//
// Cells: see Options.CellPerRow. A cell's points are the row's
// concurrencies; concurrencies whose launch (both routers) is identical share
// one point (`concs`), `item` is the search-space row, `override` the recipe
// selector. Point 0 is the lowest concurrency; later points are patches.
// Labels follow the upstream files ("Agg TP4", "Agg TP8 (2 nodes)",
// "Disagg 3P2D · prefill TP1 · decode DEP4"; see parallelLabel); the detail
// is the speculative-decoding setting ("MTP 6-1-7", "no spec"), and when
// several cells of one hardware and checkpoint share a label and detail, the
// first applicable of " · <configKey>" (twins from different keys),
// " · measured with HiCache" / " · measured with no KV offload" (twins that
// differ by measured KV tier) and " · row N" is appended.
//
// Cell order (no previous file): hardware gb300, gb200, b300, b200, h200,
// h100, then other ids in name order; then aggregated before disaggregated;
// then fewer GPUs first; then lower first concurrency; then id — "low latency
// (top) to high throughput (bottom)" as the page says.
//
// Routers: the submitted one (the rendered frontend: dynamo-frontend →
// "dynamo", sglang router or none → "sglang") is measured; the other is
// derived (blocks.go). KV tiers: the measured tier of each point;
// hicache is offered when a cell was measured with HiCache (its own
// --enable-hierarchical-cache/--hicache-* flags, --hicache-size excluded) or
// another generated cell has HiCache settings (first such cell in order, as
// donor); the settings are those of the cell's first point measured with
// HiCache, so a cell whose rows differ only by the KV tier (no offload at
// low concurrency, HiCache above) offers hicache on every point. mooncake is
// offered only when measured (no kvMooncake donor settings are generated;
// on points measured without it only when Previous has kvMooncake),
// otherwise listed in kv.unavailable with a reason. A derived tier is never
// offered without its donor settings (the page would throw).
//
// Disclosures: "synthetic-acceptance" when a synthetic-acceptance setting
// was left out or the row uses speculative decoding (InferenceX simulates the
// golden acceptance length for every agentic spec-decode point).
//
// Image: the master image; imageCommit is the trailing 8-hex SGLang commit
// of a nightly tag, else null; imageStatus "ok" (the registry is not
// queried).
//
// Prohibited settings (exclusions/rules.yaml class "prohibited"): a config
// key with one in any rendered point is left out whole and listed in
// Result.Refused with the rule; the other keys are generated.
//
// Previous: the output is merged into it (see merge, merge.go);
// kept cells are verified to decode, selection by selection, exactly as in
// Previous.
//
// Errors: bad options; ErrNothing (no key gave a renderable point; the
// message names the refused keys); ErrVerify when the encoded bytes do not
// decode back to every generated block of every point and router. Render
// errors of single points are not fatal: the point is listed in
// Result.Skipped.
//
// Cancellation: generation renders every point of every selected config key
// and then decodes the whole output back, which can take seconds per key.
// Run checks ctx before each config key, before each rendered point and
// before each cell is verified; once ctx is done it stops and returns
// ctx.Err() itself (not wrapped) and no result.
func Run(ctx context.Context, ws *infx.Workspace, opt Options) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ws == nil {
		return nil, errors.New("generate: no InferenceX workspace")
	}
	if opt.Model == "" {
		return nil, errors.New("generate: no model prefix")
	}
	if err := cookbook.CheckDate(opt.GeneratedOn); err != nil {
		return nil, fmt.Errorf("generate: generatedOn: %v", err)
	}
	if opt.Source.Main == "" {
		return nil, errors.New("generate: no InferenceX main sha (source.main)")
	}
	if err := checkProvenance(opt.Source, opt.Prov); err != nil {
		return nil, fmt.Errorf("generate: %v", err)
	}
	for _, g := range opt.Keys {
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("generate: key glob %q: %v", g, err)
		}
	}
	ex := opt.Exclusions
	if ex == nil {
		var err error
		if ex, err = exclusions.Default(); err != nil {
			return nil, err
		}
	}
	if opt.Source.Repo == "" {
		opt.Source.Repo = "https://github.com/SemiAnalysisAI/InferenceX"
	}
	if opt.DisplayName == "" {
		opt.DisplayName = strings.ToUpper(opt.Model[:1]) + opt.Model[1:]
	}
	var keys []string
	for _, k := range ws.ConfigKeys() {
		e, err := ws.Entry(k)
		if err != nil || e.ModelPrefix != opt.Model || !infx.InScope(e.Framework) || infx.Engine(e.Framework) != "sglang" {
			continue
		}
		if len(opt.Keys) > 0 && !slices.ContainsFunc(opt.Keys, func(g string) bool { ok, _ := path.Match(g, k); return ok }) {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	g := &Result{}
	var rows []*genRow
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		kr, err := renderKey(ctx, ws, k, ex, &opt)
		if err != nil {
			return nil, err
		}
		if kr.refused != nil {
			g.Refused = append(g.Refused, *kr.refused)
			continue
		}
		g.Skipped = append(g.Skipped, kr.skipped...)
		g.Dropped = append(g.Dropped, kr.dropped...)
		rows = append(rows, kr.rows...)
	}
	g.Dropped = uniqSorted(g.Dropped)
	if len(rows) == 0 {
		msg := fmt.Sprintf("%d points skipped", len(g.Skipped))
		for _, r := range g.Refused {
			msg += "; " + r.String()
		}
		return nil, fmt.Errorf("generate: model %q: %w (%s)", opt.Model, ErrNothing, msg)
	}
	cells := buildCells(rows, opt.CellPerRow)
	if opt.Previous != nil {
		cells = merge(cells, opt.Previous, &opt, g, keys)
	}
	data, err := assemble(cells, &opt)
	if err != nil {
		return nil, err
	}
	encOpts := []cookbook.EncodeOption{}
	if opt.Previous != nil {
		encOpts = append(encOpts, cookbook.WithPROrder(opt.Previous.PROrder()))
	}
	out, err := cookbook.Encode(data, encOpts...)
	if err != nil {
		return nil, err
	}
	if opt.tamper != nil {
		out = opt.tamper(out)
	}
	if err := verify(ctx, out, cells, opt.Previous); err != nil {
		return nil, err
	}
	g.Data = *data
	g.Bytes = out
	return g, nil
}

// keyRender is what one config key gave: its rows, or its refusal.
type keyRender struct {
	rows    []*genRow
	skipped []Skipped
	dropped []string
	refused *Refused
}

// renderKey renders every agentic-coding point of config key k. A point
// with a prohibited setting refuses the whole key (nothing of it is
// published); render errors of single points are Skipped. It returns
// ctx.Err() as soon as ctx is done (checked before each point).
func renderKey(ctx context.Context, ws *infx.Workspace, k string, ex *exclusions.Set, opt *Options) (*keyRender, error) {
	pts, err := ws.Points(k)
	if err != nil {
		return nil, err
	}
	e, _ := ws.Entry(k)
	kr := &keyRender{}
	byRow := map[int]*genRow{}
	for _, p := range pts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.Scenario != "agentic-coding" {
			continue // AgentX documents the agentic-coding scenario only
		}
		if p.Status != infx.StatusOK {
			kr.skipped = append(kr.skipped, Skipped{k, p.Row, p.Concurrency, string(p.Status) + ": " + p.Note})
			continue
		}
		d, err := ws.Render(ctx, p, opt.RenderOptions)
		if err != nil {
			kr.skipped = append(kr.skipped, Skipped{k, p.Row, p.Concurrency, err.Error()})
			continue
		}
		if why := unknownSetting(&d); why != "" {
			// a value the machine decides is never published as one
			kr.skipped = append(kr.skipped, Skipped{k, p.Row, p.Concurrency, why})
			continue
		}
		sh, err := shapeOf(&d, ex)
		if pe := (*ProhibitedError)(nil); errors.As(err, &pe) {
			return &keyRender{refused: &Refused{ConfigKey: k, Row: p.Row, Concurrency: p.Concurrency, Rule: pe.Rule, Setting: pe.Where + ": " + pe.Setting, Reason: pe.Reason}}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s row %d conc %d: %w", k, p.Row, p.Concurrency, err)
		}
		if sh.model == "" {
			sh.model = p.Model
		}
		if p.SpecDecoding != "" && p.SpecDecoding != "none" {
			// InferenceX injects the golden acceptance length into every
			// agentic spec-decode point at launch (infx/srt_slurm/
			// synthetic_acceptance.py; inferencex.md (b) step 5).
			sh.synthetic = true
		}
		for _, dr := range sh.dropped {
			kr.dropped = append(kr.dropped, fmt.Sprintf("%s row %d: %s", k, p.Row, dr))
		}
		r := byRow[p.Row]
		if r == nil {
			r = &genRow{p: p, router: e.Router}
			for i := range e.Rows {
				if e.Rows[i].Index == p.Row && e.Rows[i].Router != nil {
					r.router = e.Rows[i].Router
				}
			}
			byRow[p.Row] = r
			kr.rows = append(kr.rows, r)
		}
		r.concs = append(r.concs, genConc{conc: p.Concurrency, shape: sh, recipe: d.Source.File, selector: d.Source.Selector})
	}
	return kr, nil
}

func uniqSorted(s []string) []string {
	sort.Strings(s)
	return slices.Compact(s)
}

// genConc is one rendered concurrency of a row.
type genConc struct {
	conc     int
	shape    *renderedShape
	recipe   string
	selector string
}

// genRow is one search-space row with its rendered concurrencies.
type genRow struct {
	p      infx.Point
	router *infx.NameVersion // master router (row's, else the entry's)
	concs  []genConc
}

// genPoint is one point of a cell: concurrencies sharing one launch.
type genPoint struct {
	row      *genRow
	concs    []int
	shape    *renderedShape
	recipe   string
	selector string
	blocks   map[string][]cookbook.BlockEntry // full blocks per router
}

// genCell is one cell under construction.
type genCell struct {
	key, id, hw, ckpt, label, spec, detail string
	image                                  string
	submitted                              string
	minRow                                 int
	gpus                                   int
	disagg                                 bool
	points                                 []*genPoint
	// kept is the previous file's cell carried over unchanged (merge), at
	// index keptIndex there; nil for generated cells.
	kept      *cookbook.Cell
	keptIndex int
}

// sameBlocks reports whether two router → blocks maps are equal.
func sameBlocks(a, b map[string][]cookbook.BlockEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for r, x := range a {
		y, ok := b[r]
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !blockEqual(&x[i], &y[i]) {
				return false
			}
		}
	}
	return true
}

func routerBlocks(sh *renderedShape) map[string][]cookbook.BlockEntry {
	return map[string][]cookbook.BlockEntry{"sglang": sh.blocks("sglang"), "dynamo": sh.blocks("dynamo")}
}

// structure is a cell's block structure: kinds and roles per router.
func structure(bs map[string][]cookbook.BlockEntry) string {
	var b strings.Builder
	for _, r := range []string{"dynamo", "sglang"} {
		b.WriteString(r)
		for _, x := range bs[r] {
			b.WriteString("|" + x.Kind + "/" + x.Role + "/" + strconv.Itoa(x.Workers) + "/" + strconv.Itoa(x.NodesPerWorker) + "/" + strconv.Itoa(x.Count))
		}
	}
	return b.String()
}

// buildCells turns rows into cells (one per row, or rows of one key grouped
// by shape) and orders them.
func buildCells(rows []*genRow, perRow bool) []*genCell {
	var cells []*genCell
	byShape := map[string]*genCell{}
	for _, r := range rows {
		slices.SortFunc(r.concs, func(a, b genConc) int { return a.conc - b.conc })
		var pts []*genPoint
		for _, c := range r.concs {
			bs := routerBlocks(c.shape)
			if n := len(pts); n > 0 && sameBlocks(pts[n-1].blocks, bs) && pts[n-1].recipe == c.recipe {
				pts[n-1].concs = append(pts[n-1].concs, c.conc)
				continue
			}
			pts = append(pts, &genPoint{row: r, concs: []int{c.conc}, shape: c.shape, recipe: c.recipe, selector: c.selector, blocks: bs})
		}
		sh := pts[0].shape
		disagg := false
		for _, w := range sh.workers {
			disagg = disagg || w.role != "agg"
		}
		cell := &genCell{
			key: r.p.ConfigKey, hw: r.p.Hardware, ckpt: r.p.Model, label: sh.label(), spec: sh.specDetail(),
			image: r.p.Image, submitted: sh.front.submitted, minRow: r.p.Row, gpus: sh.gpus(), disagg: disagg, points: pts,
		}
		sig := cell.key + "\x00" + cell.label + "\x00" + cell.spec + "\x00" + cell.submitted + "\x00" + structure(pts[0].blocks)
		if prev, ok := byShape[sig]; ok && !perRow {
			prev.points = append(prev.points, pts...)
			prev.minRow = min(prev.minRow, cell.minRow)
			continue
		}
		byShape[sig] = cell
		cells = append(cells, cell)
	}
	for _, c := range cells {
		slices.SortStableFunc(c.points, func(a, b *genPoint) int {
			return cmp.Or(a.concs[0]-b.concs[0], a.row.p.Row-b.row.p.Row)
		})
		c.id = c.key + "#" + strconv.Itoa(c.minRow)
	}
	// Twins: same hw, ckpt, label and spec detail.
	twins := map[string][]*genCell{}
	for _, c := range cells {
		k := c.hw + "\x00" + c.ckpt + "\x00" + c.label + "\x00" + c.spec
		twins[k] = append(twins[k], c)
	}
	for _, c := range cells {
		c.detail = c.spec
		group := twins[c.hw+"\x00"+c.ckpt+"\x00"+c.label+"\x00"+c.spec]
		if len(group) < 2 {
			continue
		}
		keys, kvs := map[string]bool{}, map[string]bool{}
		for _, t := range group {
			keys[t.key] = true
			kvs[t.points[0].shape.measuredKV()] = true
		}
		switch {
		case len(keys) > 1:
			c.detail += " · " + c.key
		case len(kvs) > 1:
			if c.points[0].shape.measuredKV() == launch.KVNone {
				c.detail += " · measured with no KV offload"
			} else {
				c.detail += " · measured with HiCache"
			}
		default:
			c.detail += " · row " + strconv.Itoa(c.minRow)
		}
	}
	slices.SortStableFunc(cells, func(a, b *genCell) int {
		return cmp.Or(
			cmp.Compare(hwRank(a.hw), hwRank(b.hw)), strings.Compare(a.hw, b.hw),
			cmp.Compare(boolInt(a.disagg), boolInt(b.disagg)),
			cmp.Compare(a.gpus, b.gpus),
			cmp.Compare(a.points[0].concs[0], b.points[0].concs[0]),
			strings.Compare(a.id, b.id))
	})
	return cells
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kvTiers are the KV tiers in the page's button order (_agentx.jsx: none,
// hicache, mooncake), the order kv.available lists them.
var kvTiers = [...]string{launch.KVNone, launch.KVHiCache, launch.KVMooncake}

var hwOrder = []string{"gb300", "gb200", "b300", "b200", "h200", "h100"}

func hwRank(hw string) int {
	if i := slices.Index(hwOrder, hw); i >= 0 {
		return i
	}
	return len(hwOrder)
}

var nightlyCommit = regexp.MustCompile(`nightly[^:@]*-([0-9a-f]{8})(?:@|$)`)

// assemble builds the Data (full blocks, then compressed) from the cells.
func assemble(cells []*genCell, opt *Options) (*cookbook.Data, error) {
	// Ids must be unique (a previous id may coincide with a new cell's);
	// a kept cell keeps its id.
	used := map[string]bool{}
	for _, c := range cells {
		if c.kept != nil {
			used[c.id] = true
		}
	}
	for _, c := range cells {
		if c.kept != nil {
			continue
		}
		if used[c.id] {
			c.id += "@row" + strconv.Itoa(c.minRow)
		}
		used[c.id] = true
	}
	d := &cookbook.Data{Model: opt.DisplayName, GeneratedOn: opt.GeneratedOn, Source: opt.Source}
	d.Source.PRs = maps.Clone(opt.Source.PRs)
	if d.Source.PRs == nil {
		d.Source.PRs = map[string]cookbook.SyncPR{}
	}
	// A kept cell's PRs stay listed in source.prs (a verified-pr or
	// in-progress status names an open PR listed there, spec (c)).
	for _, c := range cells {
		if c.kept != nil {
			keepPRs(d.Source.PRs, c.kept, opt.Previous)
		}
	}
	// hardware and checkpoints: previous order first, then first appearance.
	var hwIDs, ckpts []string
	if opt.Previous != nil {
		for _, h := range opt.Previous.Hardware {
			hwIDs = append(hwIDs, h.ID)
		}
		for _, c := range opt.Previous.Checkpoints {
			ckpts = append(ckpts, c.ID)
		}
	}
	usedHW, usedCk := map[string]bool{}, map[string]bool{}
	for _, c := range cells {
		usedHW[c.hw], usedCk[c.ckpt] = true, true
		if !slices.Contains(hwIDs, c.hw) {
			hwIDs = append(hwIDs, c.hw)
		}
		if !slices.Contains(ckpts, c.ckpt) {
			ckpts = append(ckpts, c.ckpt)
		}
	}
	// Labels (and precisions) as in the previous file.
	prevHW, prevCk := map[string]cookbook.Hardware{}, map[string]cookbook.Checkpoint{}
	if opt.Previous != nil {
		for _, h := range opt.Previous.Hardware {
			prevHW[h.ID] = h
		}
		for _, c := range opt.Previous.Checkpoints {
			prevCk[c.ID] = c
		}
	}
	for _, h := range hwIDs {
		if usedHW[h] {
			hw, ok := prevHW[h]
			if !ok {
				hw = cookbook.Hardware{ID: h, Label: strings.ToUpper(h)}
			}
			d.Hardware = append(d.Hardware, hw)
		}
	}
	for _, c := range ckpts {
		if usedCk[c] {
			ck, ok := prevCk[c]
			if !ok {
				ck = cookbook.Checkpoint{ID: c}
			}
			d.Checkpoints = append(d.Checkpoints, ck)
		}
	}
	// HiCache donor: the first generated cell with a point measured with
	// HiCache settings.
	var donor *genCell
	var donorArgs cookbook.Args
	for _, c := range cells {
		if a := c.hicacheArgs(); a != nil {
			donor, donorArgs = c, a
			break
		}
	}
	files := map[string]cookbook.FileEntry{}
	addFile := func(name, content string) string {
		sum := sha256.Sum256([]byte(content))
		k := name + "#" + hex.EncodeToString(sum[:])[:8]
		files[k] = cookbook.FileEntry{Key: k, Name: name, Content: content}
		return k
	}
	mooncakeDerived := false
	for _, c := range cells {
		if c.kept != nil {
			cell := keptData(c)
			for _, r := range cell.Routers {
				for _, k := range r.Files {
					if fe, ok := opt.Previous.Files.Lookup(k); ok {
						files[k] = fe
					}
				}
			}
			mooncakeDerived = mooncakeDerived || offersDerived(&cell, launch.KVMooncake)
			d.Cells = append(d.Cells, cell)
			continue
		}
		cell := cookbook.Cell{
			ID: c.id, HW: c.hw, Ckpt: c.ckpt, Label: c.label, Detail: c.detail, GPUs: c.gpus, ConfigKey: c.key,
			Image: c.image, ImageStatus: "ok", Submitted: c.submitted, Setup: []cookbook.SetupStep{}, Disclosures: []string{},
		}
		if m := nightlyCommit.FindStringSubmatch(c.image); m != nil {
			cell.ImageCommit = m[1]
		}
		// KV tiers.
		cell.KV.Unavailable = map[string]string{}
		avail := map[string]bool{launch.KVNone: true}
		own := c.hicacheArgs()
		switch {
		case own != nil:
			avail[launch.KVHiCache] = true
			cell.KV.HiCache = &cookbook.KVHiCache{Args: own, Donor: c.key, DonorHardware: c.hw}
		case donor != nil:
			avail[launch.KVHiCache] = true
			cell.KV.HiCache = &cookbook.KVHiCache{Args: donorArgs, Donor: donor.key, DonorHardware: donor.hw}
		default:
			cell.KV.Unavailable[launch.KVHiCache] = "no verified HiCache settings for this model yet"
		}
		synthetic := false
		for _, p := range c.points {
			avail[p.shape.measuredKV()] = true
			synthetic = synthetic || p.shape.synthetic
		}
		if avail[launch.KVHiCache] && cell.KV.HiCache == nil && !allMeasured(c, launch.KVHiCache) {
			// Measured with HiCache (on decode workers only) but no
			// settings to derive the tier for the other points.
			delete(avail, launch.KVHiCache)
		}
		if !avail[launch.KVMooncake] {
			cell.KV.Unavailable[launch.KVMooncake] = "no verified Mooncake settings for this model yet"
		} else if !allMeasured(c, launch.KVMooncake) && (opt.Previous == nil || opt.Previous.KVMooncake == nil) {
			// No kvMooncake donor settings to derive the tier for the
			// points measured without it: offered only where measured
			// (the page offers each point its measured tier).
			delete(avail, launch.KVMooncake)
			cell.KV.Unavailable[launch.KVMooncake] = "measured with Mooncake on some points only; no verified Mooncake settings to derive it for the others"
		}
		for _, t := range kvTiers {
			if avail[t] {
				cell.KV.Available = append(cell.KV.Available, t)
			}
		}
		if synthetic {
			cell.Disclosures = append(cell.Disclosures, "synthetic-acceptance")
		}
		mooncakeDerived = mooncakeDerived || offersDerived(&cell, launch.KVMooncake)
		// Provenance.
		prov := provFor(c.key, opt)
		recipes := map[string]bool{}
		for _, p := range c.points {
			recipes[p.recipe] = true
		}
		if len(recipes) == 1 && c.points[0].recipe != "" {
			prov.Recipe = c.points[0].recipe
		}
		cell.Prov = &prov
		for _, p := range c.points {
			pt := cookbook.Point{Concs: p.concs, Item: p.row.p.Row, KV: p.shape.measuredKV(), Override: p.selector}
			if len(recipes) > 1 {
				pt.Recipe = p.recipe
			}
			for _, s := range p.row.p.Settings {
				if s.Name == "SYNTHETIC_ACCEPTANCE_LENGTH" {
					pt.GoldenAL = s.Value
				}
			}
			cell.Points = append(cell.Points, pt)
		}
		// Routers: install lines and files.
		cell.Routers = map[string]cookbook.Router{}
		for _, r := range []string{"sglang", "dynamo"} {
			rt := cookbook.Router{Install: []string{}, Files: []string{}, Blocks: c.points[0].blocks[r]}
			if r == "dynamo" {
				if nv := dynamoVersion(c); nv != "" {
					rt.Install = append(rt.Install, nv)
				}
				for _, b := range rt.Blocks {
					switch b.Kind {
					case "nats":
						rt.Files = append(rt.Files, addFile("nats.conf", natsConf))
					case "dynamo-frontend":
						if b.Count > 1 {
							rt.Files = append(rt.Files, addFile("nginx.conf", nginxConf(b.Count)))
						}
					}
				}
			}
			cell.Routers[r] = rt
		}
		d.Cells = append(d.Cells, cell)
	}
	if mooncakeDerived && opt.Previous != nil {
		d.KVMooncake = opt.Previous.KVMooncake // the donor settings the kept / mooncake cells derive from
	}
	for _, k := range slices.Sorted(maps.Keys(files)) {
		d.Files = append(d.Files, files[k])
	}
	if d.Files == nil {
		d.Files = cookbook.Files{}
	}
	if d.Envs == nil {
		d.Envs = []cookbook.Env{}
	}
	compress(d, cells)
	return d, nil
}

// dynamoVersion gives the dynamo router's install line from the master
// `router` entry: a commit → "# Dynamo built from source at
// https://github.com/ai-dynamo/dynamo/commit/<sha>", a version → the pip
// install of ai-dynamo-runtime and ai-dynamo at that version.
func dynamoVersion(c *genCell) string {
	rv := c.points[0].row.router
	if rv == nil || rv.Version == "" {
		return ""
	}
	v := rv.Version
	if regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(v) {
		return "# Dynamo built from source at https://github.com/ai-dynamo/dynamo/commit/" + v
	}
	return `pip install --pre --extra-index-url https://pypi.nvidia.com "ai-dynamo-runtime==` + v + `" "ai-dynamo==` + v + `"`
}

// provFor gives the cell provenance of a config key.
func provFor(key string, opt *Options) cookbook.Prov {
	if p, ok := opt.Prov[key]; ok {
		return p
	}
	p := cookbook.Prov{SHA: opt.Source.Main, Status: "in-progress"}
	if len(opt.Source.PRs) == 1 {
		for n, pr := range opt.Source.PRs {
			p.PR = n
			if pr.SHA != "" {
				p.SHA = pr.SHA
			}
		}
	}
	return p
}

// blockEqual compares two full blocks field by field.
func blockEqual(a, b *cookbook.BlockEntry) bool {
	return a.Kind == b.Kind && a.Role == b.Role && a.Workers == b.Workers && a.NodesPerWorker == b.NodesPerWorker &&
		a.Count == b.Count && a.CountNodes == b.CountNodes && slices.Equal(a.Ports, b.Ports) &&
		slices.Equal(a.Preamble, b.Preamble) && a.Cmd == b.Cmd && slices.Equal(a.Env, b.Env) &&
		slices.EqualFunc(a.Args, b.Args, slices.Equal[[]string]) &&
		slices.EqualFunc(a.GPUPinning, b.GPUPinning, slices.Equal[[]string]) &&
		(a.Env == nil) == (b.Env == nil) && (a.Args == nil) == (b.Args == nil)
}

// verify parses the encoded bytes and decodes every point of every cell on
// every router at its measured KV tier, comparing each block (title, kind,
// role, shell text) with the generated full block; then decodes every other
// selection the page offers, which must not fail.
func verify(ctx context.Context, out []byte, cells []*genCell, prev *cookbook.File) error {
	f, err := cookbook.Parse("generated.jsx", out)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrVerify, err)
	}
	if len(f.Cells) != len(cells) {
		return fmt.Errorf("%w: %d cells, generated %d", ErrVerify, len(f.Cells), len(cells))
	}
	for ci, c := range cells {
		if err := ctx.Err(); err != nil {
			return err
		}
		if c.kept != nil {
			if err := verifyKept(f, ci, c, prev); err != nil {
				return err
			}
			continue
		}
		if len(f.Cells[ci].Points) != len(c.points) {
			return fmt.Errorf("%w: cell %s: %d points, generated %d", ErrVerify, c.id, len(f.Cells[ci].Points), len(c.points))
		}
		for pi, p := range c.points {
			for _, r := range []string{"sglang", "dynamo"} {
				sel := cookbook.Selection{Cell: ci, Point: pi, Router: r, KV: f.Cells[ci].Points[pi].KV}
				dec, err := f.Decode(sel)
				if err != nil {
					return fmt.Errorf("%w: %s point %d %s: %v", ErrVerify, c.id, pi, r, err)
				}
				want := p.blocks[r]
				if len(dec.Blocks) != len(want) {
					return fmt.Errorf("%w: %s point %d %s: %d blocks, generated %d", ErrVerify, c.id, pi, r, len(dec.Blocks), len(want))
				}
				for bi := range want {
					exp := want[bi].Render()
					if dec.Blocks[bi] != exp {
						return fmt.Errorf("%w: %s point %d %s block %d:\n%s\n--- generated ---\n%s", ErrVerify, c.id, pi, r, bi, dec.Blocks[bi].Text, exp.Text)
					}
				}
			}
		}
	}
	for _, s := range f.Selections() {
		if _, err := f.Decode(s); err != nil {
			return fmt.Errorf("%w: %v", ErrVerify, err)
		}
	}
	return nil
}

// checkProvenance validates the provenance Run writes: source.main,
// the PRs of source.prs (number, sha, status) and every per-key Prov (sha,
// pr, status, date). The error names the field.
func checkProvenance(src cookbook.SyncSource, prov map[string]cookbook.Prov) error {
	if err := cookbook.CheckSHA(src.Main); err != nil {
		return fmt.Errorf("source.main: %v", err)
	}
	for _, n := range slices.Sorted(maps.Keys(src.PRs)) {
		p := src.PRs[n]
		if err := cookbook.CheckPR(n); err != nil {
			return fmt.Errorf("source.prs: %v", err)
		}
		if p.SHA != "" {
			if err := cookbook.CheckSHA(p.SHA); err != nil {
				return fmt.Errorf("source.prs.%s.sha: %v", n, err)
			}
		}
		if err := cookbook.CheckStatus(p.Status); err != nil {
			return fmt.Errorf("source.prs.%s.status: %v", n, err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(prov)) {
		p := prov[k]
		if p.SHA != "" {
			if err := cookbook.CheckSHA(p.SHA); err != nil {
				return fmt.Errorf("prov %s: sha: %v", k, err)
			}
		}
		if p.PR != "" {
			if err := cookbook.CheckPR(p.PR); err != nil {
				return fmt.Errorf("prov %s: pr: %v", k, err)
			}
		}
		if p.Status != "" {
			if err := cookbook.CheckStatus(p.Status); err != nil {
				return fmt.Errorf("prov %s: status: %v", k, err)
			}
		}
		if p.Date != "" {
			if err := cookbook.CheckDate(p.Date); err != nil {
				return fmt.Errorf("prov %s: date: %v", k, err)
			}
		}
	}
	return nil
}

// unknownSetting names the first setting of d whose value is not known
// (launch.Arg.Unknown / launch.EnvVar.Unknown: it depends on a fact of the
// machine the render could not know), "" when none is: such a point is
// skipped, never published with one answer's value.
func unknownSetting(d *launch.Deployment) string {
	for _, p := range d.Processes {
		for _, e := range p.Env {
			if e.Unknown != "" {
				return fmt.Sprintf("%s: env %s is not known: %s", blockName(&p), e.Name, e.Unknown)
			}
		}
		for _, a := range p.Args {
			if a.Unknown != "" {
				return fmt.Sprintf("%s: %s is not known: %s", blockName(&p), a.Flag, a.Unknown)
			}
		}
	}
	return ""
}

// blockName names a process for a reason: "prefill worker", "frontend".
func blockName(p *launch.Process) string {
	if p.Kind == launch.KindWorker {
		if p.Role != "" {
			return string(p.Role) + " worker"
		}
		return "worker"
	}
	return string(p.Kind)
}
