package coverage

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// PointQuery is what a cookbook point says about the InferenceX benchmark
// point it was measured as: the client concurrencies, the KV tier, the
// search-space index (AgentX point.item) and the topology of its worker.
// Source: shared/spec/agentx-format.md cell.points[j] (concs, kv, item) and
// the decoded worker's flags.
type PointQuery struct {
	Concs []int
	// KV is the measured KV tier: none, hicache or mooncake.
	KV string
	// Item is point.item, the index of the search-space entry.
	Item int
	// Topology is set when the cookbook worker's TP/EP/DP-attention and
	// speculative decoding are known.
	Topology bool
	TP, EP   int
	DPAttn   bool
	Spec     bool
}

// RowMatch is the outcome of MatchPoint: the chosen search-space row's
// points (one per queried concurrency, in query order), or a status and a
// message saying why none was chosen.
type RowMatch struct {
	Points  []infx.Point
	Status  report.Status // StatusCompared when Points is set
	Message string
	// Drift is set when no row lists the point's concurrencies but its
	// KV tier and worker topology select exactly one row: the points are
	// that row's at the cookbook point's concurrencies, and Drift says so
	// (the master config moved since the cookbook point was measured).
	Drift string
}

// MatchPoint finds the master-config point of config key that a cookbook
// point was measured as. A search-space row fits when it lists every
// concurrency of q and its KV offloading matches q.KV (none ↔
// kv-offloading none or unset; hicache/mooncake ↔ kv-offloading set with
// that kv-offload-backend, or no backend named). Several fitting rows are
// then narrowed, each step only when it leaves at least one row, by: the
// agentic-coding scenario, the worker topology (TP, EP, DP attention), spec
// decoding (spec-decoding none or not), and finally the row index q.Item.
// Results: StatusNoMatch (unknown key, no fitting row), StatusAmbiguous
// (several rows left), else the row's points with StatusCompared.
func MatchPoint(ws *infx.Workspace, key string, q PointQuery) RowMatch {
	if ws == nil {
		return RowMatch{Status: report.StatusNoMatch, Message: "the InferenceX checkout has no master config: the script's matrix point (TP, EP, CONC, …) is unknown"}
	}
	e, err := ws.Entry(key)
	if err != nil {
		return RowMatch{Status: report.StatusNoMatch, Message: fmt.Sprintf("config key %s is not in the master configs of the InferenceX checkout", key)}
	}
	pts, err := ws.Points(key)
	if err != nil {
		return RowMatch{Status: report.StatusNoMatch, Message: err.Error()}
	}
	byRow := map[int][]infx.Point{}
	var order []int
	for _, p := range pts {
		if _, ok := byRow[p.Row]; !ok {
			order = append(order, p.Row)
		}
		byRow[p.Row] = append(byRow[p.Row], p)
	}
	kv := q.KV
	if kv == "" {
		kv = launch.KVNone
	}
	fits := func(row int) bool {
		ps := byRow[row]
		for _, c := range q.Concs {
			if !slices.ContainsFunc(ps, func(p infx.Point) bool { return p.Concurrency == c }) {
				return false
			}
		}
		return fitsKV(e, row, ps[0], kv)
	}
	var cands []int
	for _, r := range order {
		if fits(r) {
			cands = append(cands, r)
		}
	}
	what := fmt.Sprintf("concurrency %s, KV tier %s", concs(q.Concs), kv)
	if len(cands) == 0 {
		// The concurrencies moved: a row that matches the KV tier and the
		// worker topology exactly (TP, EP, DP attention, spec decoding)
		// is compared at the cookbook point's concurrencies, as drift.
		if q.Topology {
			var same []int
			for _, r := range order {
				p := byRow[r][0]
				if fitsKV(e, r, p, kv) && p.TP == q.TP && max(p.EP, 1) == q.EP && p.DPAttn == q.DPAttn &&
					(p.SpecDecoding != "" && p.SpecDecoding != "none") == q.Spec {
					same = append(same, r)
				}
			}
			if len(same) == 1 {
				var out []infx.Point
				for _, c := range q.Concs {
					p := byRow[same[0]][0]
					p.Concurrency = c
					out = append(out, p)
				}
				rowConcs := make([]int, 0, len(byRow[same[0]]))
				for _, p := range byRow[same[0]] {
					rowConcs = append(rowConcs, p.Concurrency)
				}
				return RowMatch{Points: out, Status: report.StatusCompared, Drift: fmt.Sprintf(
					concDriftPrefix+"%s in the InferenceX checkout has concurrency %s; row %d (%s) has the same TP/EP/DP-attention/KV tier with concurrencies %s and is compared at %s",
					key, concs(q.Concs), same[0], relPosTo(ws.Root, byRow[same[0]][0].Pos), concs(rowConcs), concs(q.Concs))}
			}
		}
		return RowMatch{Status: report.StatusNoMatch, Message: fmt.Sprintf("no search-space row of %s has %s", key, what)}
	}
	narrow := func(keep func(p infx.Point) bool) {
		var next []int
		for _, r := range cands {
			if keep(byRow[r][0]) {
				next = append(next, r)
			}
		}
		if len(next) > 0 {
			cands = next
		}
	}
	narrow(func(p infx.Point) bool { return p.Scenario == "agentic-coding" })
	if q.Topology {
		what += fmt.Sprintf(", TP%d EP%d", q.TP, q.EP)
		if q.DPAttn {
			what += " DP-attention"
		}
		narrow(func(p infx.Point) bool { return p.TP == q.TP && max(p.EP, 1) == q.EP && p.DPAttn == q.DPAttn })
		narrow(func(p infx.Point) bool { return (p.SpecDecoding != "" && p.SpecDecoding != "none") == q.Spec })
	}
	narrow(func(p infx.Point) bool { return p.Row == q.Item })
	if len(cands) > 1 {
		rows := make([]string, len(cands))
		for i, r := range cands {
			rows[i] = fmt.Sprintf("%d (%s)", r, byRow[r][0].Pos)
		}
		return RowMatch{Status: report.StatusAmbiguous, Message: fmt.Sprintf("%d search-space rows of %s fit %s and item %d: rows %s",
			len(cands), key, what, q.Item, strings.Join(rows, ", "))}
	}
	var out []infx.Point
	for _, c := range q.Concs {
		for _, p := range byRow[cands[0]] {
			if p.Concurrency == c {
				out = append(out, p)
				break
			}
		}
	}
	return RowMatch{Points: out, Status: report.StatusCompared}
}

// fitsKV reports whether a row's KV offloading matches the measured KV
// tier: none ↔ kv-offloading none or unset; hicache/mooncake ↔
// kv-offloading set with that kv-offload-backend, or no backend named.
func fitsKV(e *infx.Entry, row int, p infx.Point, kv string) bool {
	off := p.KVOffloading
	if off == "" || off == "none" {
		return kv == launch.KVNone
	}
	if kv == launch.KVNone {
		return false
	}
	if row < len(e.Rows) && e.Rows[row].KVOffloadBackend != nil && e.Rows[row].KVOffloadBackend.Name != "" {
		return e.Rows[row].KVOffloadBackend.Name == kv
	}
	return true
}

// queryOf reads the PointQuery of a cookbook point from its provenance and
// its decoded deployment (the first worker's normalized flags; defaults TP
// 1, EP 1).
func queryOf(f *cookbook.File, sel cookbook.Selection, d *launch.Deployment, rules *compare.Rules) PointQuery {
	pt := &f.Cells[sel.Cell].Points[sel.Point]
	q := PointQuery{Concs: pt.Concs, KV: sel.KV, Item: pt.Item}
	for i := range d.Processes {
		p := &d.Processes[i]
		if p.Kind != launch.KindWorker {
			continue
		}
		n := rules.NormalizeIn(d, p)
		num := func(k string) int {
			if s, ok := n.Settings[k]; ok {
				if v, err := strconv.Atoi(s.Value); err == nil {
					return v
				}
			}
			return 1
		}
		q.Topology = true
		q.TP, q.EP = num("--tensor-parallel-size"), num("--expert-parallel-size")
		_, q.DPAttn = n.Settings["--enable-dp-attention"]
		_, q.Spec = n.Settings["--speculative-algorithm"]
		break
	}
	return q
}

// compareScript compares a point that cites a single-node script present at
// file: it matches the cookbook point with the config key's master-config
// point (MatchPoint), runs the script for each of the point's
// concurrencies in infx's sandbox (Workspace.Render) and compares role by
// role. When the concurrencies launch differently, the worst comparison is
// kept and Message says so.
func (c *run) compareScript(pr *report.PointResult, f *cookbook.File, sel cookbook.Selection, file string) {
	ws, cache, rules := c.ws, c.renders, c.rules
	dec, err := f.Decode(sel)
	if err != nil {
		pr.Status, pr.Message = report.StatusError, err.Error()
		return
	}
	attachCookbookFiles(&dec.Deployment, f, sel)
	m := MatchPoint(ws, pr.ConfigKey, queryOf(f, sel, &dec.Deployment, rules))
	if m.Status != report.StatusCompared {
		pr.Status, pr.Message = m.Status, m.Message
		return
	}
	row := m.Points[0].Row
	pr.Row, pr.RowPos = &row, c.relPos(m.Points[0].Pos)
	type run struct {
		conc int
		d    *launch.Deployment
		res  []compare.Result
	}
	var runs []run
	var notes []string
	for _, p := range m.Points {
		p.Kind, p.Status, p.Script, p.Note = infx.KindScript, infx.StatusOK, file, ""
		key := "script\x00" + file + "\x00" + pr.ConfigKey + "\x00" + strconv.Itoa(p.Row) + "\x00" + strconv.Itoa(p.Concurrency)
		rr, ok := cache[key]
		if !ok {
			d, err := ws.Render(c.ctx, p, infx.Options{})
			rr = renderResult{d: &d, err: err}
			cache[key] = rr
		}
		if rr.err != nil {
			pr.Status, pr.Message = report.StatusError, rr.err.Error()
			var pe *infx.PointError
			switch {
			case errors.As(rr.err, &pe):
				pr.Status, pr.Message = statusOf(pe.Status, infx.KindScript), pe.Note
			case errors.Is(rr.err, infx.ErrNotRenderable):
				pr.Status = report.StatusNoMatch
			}
			return
		}
		notes = rr.d.Notes
		rc := *rr.d
		rc.Source.Recipe = pr.RecipeFile
		res, err := compare.Compare(&dec.Deployment, &rc, c.options())
		if err != nil {
			pr.Status, pr.Message = report.StatusError, err.Error()
			return
		}
		runs = append(runs, run{conc: p.Concurrency, d: rr.d, res: res})
	}
	best := 0
	same := true
	for i := 1; i < len(runs); i++ {
		if !reflect.DeepEqual(runs[i].d.Processes, runs[0].d.Processes) {
			same = false
		}
		if compare.Summary(runs[i].res).Rank() > compare.Summary(runs[best].res).Rank() {
			best = i
		}
	}
	pr.Status = report.StatusCompared
	pr.Roles = runs[best].res
	pr.Verdict = compare.Summary(pr.Roles)
	msg := fmt.Sprintf("script run for %s row %d (%s), concurrency %d", pr.ConfigKey, row, pr.RowPos, runs[best].conc)
	if !same {
		msg += fmt.Sprintf("; concurrencies %s launch differently, the worst comparison is shown", concs(pr.Concs))
	}
	if len(notes) > 0 {
		msg += "; " + strings.Join(notes, "; ")
	}
	if m.Drift != "" {
		msg += "; " + m.Drift
		pr.Drift = report.Drift{State: report.DriftChanged, Commit: pr.Drift.Commit, Detail: m.Drift}
	}
	pr.Message = msg
}

// statusOf maps an infx point status (infx/points.go: ok, upstream-only,
// missing, unsupported, ambiguous) to the report's: missing is told apart
// by what is absent (a script, else a recipe). A status this package does
// not know is unsupported: not verified, never covered, never "bad input".
func statusOf(s infx.Status, kind infx.Kind) report.Status {
	switch s {
	case infx.StatusOK:
		return report.StatusCompared
	case infx.StatusUpstreamOnly:
		return report.StatusUpstreamOnly
	case infx.StatusMissing:
		if kind == infx.KindScript {
			return report.StatusScriptNotFound
		}
		return report.StatusRecipeNotFound
	case infx.StatusAmbiguous:
		return report.StatusAmbiguous
	case infx.StatusTimeLimit:
		return report.StatusTimeLimit
	}
	return report.StatusUnsupported
}

// concs prints concurrencies as "1,2,4".
func concs(cs []int) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// concDriftPrefix starts the Drift detail of a script point whose
// concurrency no master-config row runs (MatchPoint compares it with the
// row of the same topology: possible commit drift).
const concDriftPrefix = "possible commit drift: no row of "

// ConcurrencyDrift reports whether p, a cookbook point citing a
// single-node script, was compared with a row that does not run its
// concurrency: no row of its key runs it in the InferenceX checkout
// (RowMatch.Drift), so the comparison is of a neighbour, not of the point.
func ConcurrencyDrift(p *report.PointResult) bool {
	return p.Drift.State == report.DriftChanged && strings.HasPrefix(p.Drift.Detail, concDriftPrefix)
}
