package coverage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/recipes"
	"github.com/cookbook-sync/cookbook-sync/report"
)

func recipeRef(c *recipes.Candidate) *report.RecipeRef {
	ref := &report.RecipeRef{Kind: c.Kind, File: c.File, Section: c.Section, Line: c.Line, Variant: c.Variant, Strategy: c.Strategy,
		Hardware: c.Hardware, Model: c.Model, Role: string(c.Role), Topology: c.Topology.String(), Where: c.Where(),
		Checkpoint: c.Checkpoint, URL: c.URL, Command: c.Command}
	if c.Prose != nil {
		ref.Prose = proseRef(c.Prose)
	}
	return ref
}

// maxCompared bounds how many exact recipe matches one role is compared
// with (the best is kept).
const maxCompared = 8

// vllmCoverage covers every vLLM-family key of the master configs in ws
// (optionally filtered by the configKey glob) against the recipes index.
func (c *run) vllmCoverage(ix *recipes.Index) ([]report.KeyResult, error) {
	recipesDir := c.opt.VLLMRecipesDir
	optOuts := map[string]map[string]string{} // recipe file -> meta.hardware
	entries, err := c.familyEntries(recipes.VLLMFamily)
	if err != nil {
		return nil, err
	}
	out, err := c.judgeKeys(report.SourceVLLMRecipes, entries, func(row *report.RowResult, d *launch.Deployment, p infx.Point, r *infx.Row) error {
		if d != nil {
			c.vllmCompareRow(row, d, p, ix)
		} else {
			vllmMatchRow(row, p, r, ix)
		}
		return nil
	}, c.releaseQueries(entries, ix.Release))
	if err != nil {
		return nil, err
	}
	for k := range out {
		vk := &out[k]
		for i := range vk.Rows {
			for j := range vk.Rows[i].Roles {
				if m := hardwareOptOut(recipesDir, &vk.Rows[i].Roles[j], vk.Hardware, optOuts); m != "" {
					vk.Rows[i].Roles[j].Misses = append(vk.Rows[i].Roles[j].Misses, m)
				}
			}
		}
	}
	return out, nil
}

// releaseQueries is judgeKeys' done of the vLLM part: once no entry left
// to judge has a point serving a model on a hardware (Point.Model and
// Point.Hardware, what its queries ask: vllmCompareRow, vllmMatchRow),
// release is called with them (lower case) — recipes.Index.Release, which
// lets go of the selection-space renderings and remembered matches of the
// model on the hardware. Memory then follows the keys being judged, never
// an answer: a query asked again is answered again, the same.
func (c *run) releaseQueries(entries []*infx.Entry, release func(model, hardware string)) func(*infx.Entry) {
	type served struct{ model, hardware string }
	left := map[served]int{} // entries not yet judged, by what they serve
	of := map[*infx.Entry][]served{}
	for _, e := range entries {
		pts, _ := c.ws.Points(e.Key)
		seen := map[served]bool{}
		for _, p := range pts {
			s := served{strings.ToLower(p.Model), strings.ToLower(p.Hardware)}
			if !seen[s] {
				seen[s] = true
				of[e] = append(of[e], s)
				left[s]++
			}
		}
	}
	var mu sync.Mutex
	return func(e *infx.Entry) {
		var free []served
		mu.Lock()
		for _, s := range of[e] {
			if left[s]--; left[s] == 0 {
				free = append(free, s)
			}
		}
		mu.Unlock()
		for _, s := range free {
			release(s.model, s.hardware)
		}
	}
}

func vllmStatus(p infx.Point) report.Status { return statusOf(p.Status, p.Kind) }

// vllmRecipePath names what the point runs, relative to infxDir when found.
func vllmRecipePath(p infx.Point, infxDir string) string {
	f := p.Recipe
	if f == "" {
		f = p.Script
	}
	if f != "" {
		if rel, err := filepath.Rel(infxDir, f); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
		return f
	}
	if p.RecipeRef != "" {
		return p.RecipeRef
	}
	if len(p.Scripts) > 0 {
		return p.Scripts[0]
	}
	return ""
}

// vllmMatchRow matches the roles of a point that could not be rendered,
// with the topology the master row declares (tp, ep, dp-attn of the row, or
// of its prefill/decode blocks).
func vllmMatchRow(row *report.RowResult, p infx.Point, r *infx.Row, ix *recipes.Index) {
	type q struct {
		role       launch.Role
		tp, ep, pp int
		dpAttn     bool
	}
	var qs []q
	block := func(role launch.Role, w *infx.WorkerBlock) q { return q{role, w.TP, w.EP, w.PP, w.DPAttn} }
	switch {
	case r != nil && r.Worker != nil:
		qs = []q{block(launch.RoleAgg, r.Worker)}
	case r != nil && r.Prefill != nil && r.Decode != nil && p.Disagg:
		qs = []q{block(launch.RolePrefill, r.Prefill), block(launch.RoleDecode, r.Decode)}
	case r != nil && r.Prefill != nil && r.Decode != nil:
		// an aggregated multinode row (disagg: false) names its workers in
		// the block with num-worker > 0 (prefill; decode has 0)
		w := r.Prefill
		if w.NumWorker == 0 && r.Decode.NumWorker > 0 {
			w = r.Decode
		}
		qs = []q{block(launch.RoleAgg, w)}
	default:
		qs = []q{{launch.RoleAgg, p.TP, p.EP, 0, p.DPAttn}}
	}
	var roles []*report.RoleMatch
	var keys [][]string
	var cands [][]recipes.Candidate
	for _, x := range qs {
		topo := recipes.QueryTopology(x.tp, x.ep, 0, x.dpAttn)
		if x.pp > 1 {
			topo.PP, topo.GPUs = x.pp, topo.GPUs*x.pp
		}
		query := recipes.Query{ConfigKey: p.ConfigKey, Framework: p.Framework, Model: p.Model, Hardware: p.Hardware,
			Precision: p.Precision, Role: x.role, Topology: &topo}
		vr := report.RoleMatch{Role: string(x.role), Topology: topo.String()}
		cs, err := ix.Match(query) // (remembered by query: recipes.Index)
		if err != nil {
			row.Status, row.Message = report.StatusError, err.Error()
			row.Verdict = compare.Error
			return
		}
		setMatch(&vr, cs)
		var ks []string
		if vr.Recipe != nil {
			vr.Verdict = compare.MatchedNotCompared
			for i := range cs {
				if cs[i].Exact {
					ks = append(ks, recipeSelKey(&cs[i]))
				}
			}
		}
		roles, keys, cands = append(roles, &vr), append(keys, ks), append(cands, cs)
	}
	matchedJoint(roles, keys, func(r, i int) *report.RecipeRef { return recipeRef(&cands[r][i]) })
	for _, vr := range roles {
		row.Verdict = compare.Worse(row.Verdict, vr.Verdict)
		row.Roles = append(row.Roles, *vr)
	}
	if row.Verdict == compare.MatchedNotCompared {
		// every role has a recipe; the row is as good as its status says
		row.Verdict = row.Status.Verdict()
	}
}

// hardwareOptOut says, for a role no recipe covers whose nearest candidate
// is a model YAML recipe of the same model that misses only on hardware
// among model/hardware, whether that recipe explicitly opts the wanted
// hardware out: "hardware: <file> marks <hw> unsupported
// (meta.hardware.<hw>)", else "". Source: vllm-project/recipes
// models/<org>/<repo>.yaml meta.hardware.<hw> = unsupported (spec
// vllm-recipes.md: "the value unsupported opts that hw out"). hw is the
// InferenceX runner SKU (normalized with recipes.NormalizeHardware); cache
// holds each file's meta.hardware. A file that cannot be read adds nothing
// (the index already reported it).
func hardwareOptOut(dir string, ro *report.RoleMatch, hw string, cache map[string]map[string]string) string {
	n := ro.Nearest
	if ro.Verdict != compare.NotCovered || n == nil || !strings.HasPrefix(n.File, "models/") || !strings.HasSuffix(n.File, ".yaml") || dir == "" {
		return ""
	}
	hwMiss := false
	for _, m := range ro.Misses {
		if strings.HasPrefix(m, "model:") {
			return ""
		}
		hwMiss = hwMiss || strings.HasPrefix(m, "hardware:")
	}
	if !hwMiss {
		return ""
	}
	meta, ok := cache[n.File]
	if !ok {
		var doc struct {
			Meta struct {
				Hardware map[string]any `yaml:"hardware"`
			} `yaml:"meta"`
		}
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(n.File))); err == nil && yaml.Unmarshal(b, &doc) == nil {
			meta = map[string]string{}
			for k, v := range doc.Meta.Hardware {
				if s, ok := v.(string); ok {
					meta[k] = s
				}
			}
		}
		cache[n.File] = meta
	}
	id := recipes.NormalizeHardware(hw)
	if id == "" {
		id = strings.ToLower(hw)
	}
	if meta[id] != "unsupported" {
		return ""
	}
	return fmt.Sprintf("hardware: %s marks %s unsupported (meta.hardware.%s)", n.File, id, id)
}

// setMatch records the first exact candidate (Recipe, Alternatives) or the
// nearest one (Nearest, Misses, Verdict NotCovered).
func setMatch(vr *report.RoleMatch, cs []recipes.Candidate) {
	exact := 0
	for i := range cs {
		if cs[i].Exact {
			exact++
		}
	}
	switch {
	case exact > 0:
		vr.Recipe = recipeRef(&cs[0])
		vr.Alternatives = exact - 1
	case len(cs) > 0:
		vr.Nearest = recipeRef(&cs[0])
		vr.Misses = cs[0].Misses
		vr.Verdict = compare.NotCovered
	default:
		vr.Verdict = compare.NotCovered
		vr.Misses = []string{"no vLLM recipe in the recipes checkout"}
	}
}

// vllmCompareRow matches every worker role of a rendered InferenceX
// deployment with the recipes (recipes.Index.MatchDeployment) and compares
// the worker with each exact match, keeping the best.
func (c *run) vllmCompareRow(row *report.RowResult, d *launch.Deployment, p infx.Point, ix *recipes.Index) {
	opts := c.options()
	if d.Model == "" || !launch.LooksHF(d.Model) {
		d.Model = p.Model
	}
	if d.Hardware == "" {
		d.Hardware = p.Hardware
	}
	rms, err := ix.MatchDeployment(d, p.Framework, p.Precision)
	if err != nil {
		row.Status, row.Message, row.Verdict = report.StatusError, err.Error(), compare.Error
		return
	}
	// the roles of the row agree on one selection (jointRoles): of a role's
	// exact candidates only those of a selection every role has are compared
	var keys [][]string
	for _, rm := range rms {
		var ks []string
		for i := range rm.Candidates {
			if rm.Candidates[i].Exact {
				ks = append(ks, recipeSelKey(&rm.Candidates[i]))
			}
		}
		keys = append(keys, ks)
	}
	common := commonKeys(keys)
	var roles []*report.RoleMatch
	var choices [][]selChoice
	for _, rm := range rms {
		ixp := &d.Processes[rm.Process]
		vr := &report.RoleMatch{Role: string(rm.Role), Topology: recipes.TopologyOf(ixp.Args).String()}
		setMatch(vr, rm.Candidates)
		if vr.Recipe == nil && len(rm.Candidates) > 0 {
			// evidence: how the nearest candidate differs (still not covered)
			c := &rm.Candidates[0]
			res, err := compare.Compare(vllmSide(&c.Deployment, &c.Deployment.Processes[c.Process], rm.Role, c.Model), vllmSide(d, ixp, rm.Role, d.Model), opts)
			if err == nil {
				vr.Result = workerResult(res)
			}
		}
		var cs []selChoice
		if vr.Recipe != nil {
			ixDep := vllmSide(d, ixp, rm.Role, d.Model)
			n := 0
			for pass := 0; pass < 2 && n == 0; pass++ {
				// first the candidates of a common selection; when there is
				// none, the role's own (evidence for splitSelections)
				for i := range rm.Candidates {
					c := &rm.Candidates[i]
					if !c.Exact || n == maxCompared {
						break
					}
					if pass == 0 && len(rms) > 1 && !common[recipeSelKey(c)] {
						continue
					}
					n++
					upDep := vllmSide(&c.Deployment, &c.Deployment.Processes[c.Process], rm.Role, c.Model)
					upDep.Source.Recipe, upDep.Source.Variant, upDep.Source.Strategy = c.File, c.Variant, c.Strategy
					res, err := compare.Compare(upDep, ixDep, opts)
					if err != nil {
						row.Status, row.Message, row.Verdict = report.StatusError, err.Error(), compare.Error
						return
					}
					cs = append(cs, selChoice{key: recipeSelKey(c), res: workerResult(res), ref: recipeRef(c)})
				}
			}
			cs[bestChoice(cs)].set(vr)
		}
		roles = append(roles, vr)
		choices = append(choices, cs)
	}
	jointRoles(roles, choices)
	for _, vr := range roles {
		row.Verdict = compare.Worse(row.Verdict, vr.Verdict)
		row.Roles = append(row.Roles, *vr)
	}
}

// workerResult is the single worker Result of a one-worker comparison.
func workerResult(rs []compare.Result) *compare.Result {
	for i := range rs {
		if rs[i].Role == "agg" || rs[i].Role == "prefill" || rs[i].Role == "decode" {
			return &rs[i]
		}
	}
	r := compare.Result{Verdict: compare.Missing, Note: "no worker compared"}
	return &r
}

func betterResult(a, b *compare.Result) bool {
	if a.Verdict.Rank() != b.Verdict.Rank() {
		return a.Verdict.Rank() < b.Verdict.Rank()
	}
	if len(a.Differences) != len(b.Differences) {
		return len(a.Differences) < len(b.Differences)
	}
	return a.Matched > b.Matched
}

// vllmSide is a one-worker deployment for comparing one role: the worker's
// vLLM args in canonical form (recipes.NormalizeArgs: --flag=value split,
// aliases and abbreviations resolved, the model positional argument as
// --model, dotted sub-keys merged into their JSON option, JSON values
// canonical), with the synthetic-acceptance keys NormalizeArgs strips put
// back into --speculative-config so that compare splits them into
// "--speculative-config.<key>" settings the exclusion rules list (class
// synthetic-acceptance; normalize.yaml jsonSplitKeys).
//
// An argument a harness step rewrote (launch.Arg.Harness: InferenceX's
// synthetic-acceptance injector) keeps its production value, normalized
// the same way, on the normalized argument (launch.MarkHarness).
func vllmSide(d *launch.Deployment, p *launch.Process, role launch.Role, model string) *launch.Deployment {
	w := *p
	w.Kind, w.Role = launch.KindWorker, role
	args := vllmArgs(p.Args)
	if prod, by, ok := launch.ProductionArgs(p.Args); ok {
		args = launch.MarkHarness(args, vllmArgs(prod), by)
	}
	w.Args = args
	return &launch.Deployment{Source: d.Source, Engine: "vllm", Model: model, Hardware: d.Hardware, Processes: []launch.Process{w}}
}

// vllmArgs is vllmSide's normalization of one worker's arguments.
func vllmArgs(raw []launch.Arg) []launch.Arg {
	args, _ := recipes.NormalizeArgs(raw)
	if syn := syntheticKeys(raw); len(syn) > 0 {
		for i := range args {
			if args[i].Flag != "--speculative-config" || len(args[i].Values) != 1 {
				continue
			}
			dec := json.NewDecoder(bytes.NewReader([]byte(args[i].Values[0])))
			dec.UseNumber()
			var m map[string]any
			if dec.Decode(&m) != nil || m == nil {
				continue
			}
			for k, v := range syn {
				m[k] = v
			}
			b, _ := json.Marshal(m)
			args[i].Values = []string{string(b)}
		}
	}
	return args
}

// syntheticKeys returns the recipes.SyntheticAcceptanceKeys() set by the last
// --speculative-config value or by its dotted sub-keys
// (--speculative-config.synthetic_acceptance_length 2.5), as JSON values.
func syntheticKeys(args []launch.Arg) map[string]any {
	vals := map[string]any{}
	for _, a := range args {
		flag, vs := a.Flag, a.Values
		if flag == "" {
			continue
		}
		if i := strings.IndexByte(flag, '='); i > 0 && len(vs) == 0 {
			flag, vs = flag[:i], []string{flag[i+1:]}
		}
		canon, sub, _ := recipes.NormalizeFlag(flag)
		if canon != "--speculative-config" || len(vs) == 0 {
			continue
		}
		if sub != "" {
			for _, k := range recipes.SyntheticAcceptanceKeys() {
				if sub == k {
					vals[k] = vs[0]
				}
			}
			continue
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(vs[0])))
		dec.UseNumber()
		var m map[string]any
		if dec.Decode(&m) != nil {
			continue
		}
		for _, k := range recipes.SyntheticAcceptanceKeys() {
			delete(vals, k) // a later full value replaces earlier keys
			if x, ok := m[k]; ok {
				vals[k] = x
			}
		}
	}
	return vals
}

// openVLLM opens the recipes index; files that fail to decode are bad input.
func openVLLM(dir string) (*recipes.Index, error) {
	ix, err := recipes.Open(dir)
	if err != nil {
		if ix == nil {
			return nil, fmt.Errorf("vLLM recipes %s: %w", launch.QuotePath(dir), err)
		}
		return ix, fmt.Errorf("vLLM recipes %s: %w", launch.QuotePath(dir), err)
	}
	return ix, nil
}

// renderRow renders one master-config point for a key judged from the
// InferenceX side and says what came of it: its status (compared, or the
// not-verified status infx gives, or error), the deployment, the render
// error, and a fingerprint of the rendering (points that render the same
// share a row). p's Status and Note are updated from a *infx.PointError.
func (c *run) renderRow(p *infx.Point) (st report.Status, d launch.Deployment, fp string, rerr error) {
	st = vllmStatus(*p)
	fp = fmt.Sprintf("%d\x00%s\x00%s\x00%s", p.Row, st, p.Recipe+p.Script, p.Selector)
	if st != report.StatusCompared {
		return st, d, fp, nil
	}
	d, rerr = c.ws.Render(c.ctx, *p, infx.Options{})
	var pe *infx.PointError
	switch {
	case errors.As(rerr, &pe):
		// a status (unsupported, ambiguous, missing): the point is not
		// verified, with the reason
		p.Status, p.Note, rerr = pe.Status, pe.Note, nil
		st = vllmStatus(*p)
		fp += "\x00" + pe.Note
	case rerr != nil:
		st = report.StatusError
		fp += "\x00" + rerr.Error()
	default:
		b, _ := json.Marshal(d.Processes)
		fp += "\x00" + string(b)
	}
	return st, d, fp, rerr
}

// keyHeader starts the entry of a config key judged from the InferenceX
// side: its master-config facts and place (relative to the checkout), and
// its points. done: the key is complete as it is — not applicable under
// the run's policy (Note says why), or its points could not be listed (an
// error row).
func (c *run) keyHeader(key string, e *infx.Entry) (vk report.KeyResult, pts []infx.Point, done bool) {
	vk = report.KeyResult{ConfigKey: key, Framework: e.Framework, Model: e.Model, Hardware: infx.Hardware(e.Runner), Precision: e.Precision}
	mf, ml := c.relPath(e.Pos.File), e.Pos.Line
	vk.MasterFile, vk.MasterLine, vk.Master = mf, ml, fmt.Sprintf("%s:%d:%d", mf, ml, e.Pos.Col)
	if ok, why := c.inScope(key); !ok {
		vk.Verdict, vk.Note, vk.Rows = compare.NotApplicable, why, []report.RowResult{}
		return vk, nil, true
	}
	pts, err := c.ws.Points(key)
	switch {
	case err != nil:
		vk.Rows = append(vk.Rows, report.RowResult{Row: -1, Status: report.StatusError, Message: err.Error(), Verdict: compare.Error})
	case len(pts) == 0:
		vk.Rows = append(vk.Rows, report.RowResult{Row: -1, Status: report.StatusError, Message: "config key has no search-space point", Verdict: compare.Error})
	}
	return vk, pts, false
}

// rowJudge fills one row of a key (report.RowResult; Status, Recipe,
// Concs already set): d is the point's rendering when the row is
// StatusCompared, nil when the point could not be rendered (r is then the
// master row the point comes from, nil when unknown, and row.Message the
// point's note). An error stops the run.
type rowJudge func(row *report.RowResult, d *launch.Deployment, p infx.Point, r *infx.Row) error

// judgeKeys renders every point of each entry (keyHeader, renderRow),
// folds points whose row, status and rendering are the same into one row
// (their concurrencies listed), has judge fill each row that rendered or
// could not be rendered (a render error is the row's verdict), and rolls
// the rows' verdicts up into the key's (compare.Worse). Keys come out in
// entry order. done, when set, is called with each entry once it is
// judged, from the goroutine that judged it.
func (c *run) judgeKeys(part string, entries []*infx.Entry, judge rowJudge, done func(*infx.Entry)) ([]report.KeyResult, error) {
	if c.win == nil {
		// no background prerendering paced by the judges: the entries'
		// points are rendered on every CPU first
		c.prerender(entries)
	}
	type judged struct {
		vk   report.KeyResult
		err  error
		done chan struct{}
	}
	res := make([]judged, len(entries))
	for i := range res {
		res[i].done = make(chan struct{})
	}
	// Keys are judged on every CPU (each key's work is its own: renderings
	// from the Workspace's memo, the indexes safe for concurrent use) and
	// taken in entry order: the report is the one a run on one CPU makes.
	// A caller's OnSetting is told of settings from one goroutine, so
	// with it keys are judged one at a time.
	workers := 1
	if c.opt.OnSetting == nil {
		workers = max(1, min(runtime.GOMAXPROCS(0), len(entries)))
	}
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(entries) || stop.Load() {
					return
				}
				c.win.took(entries[i].Key) // the prerendering may go on past it
				res[i].vk, res[i].err = c.judgeKey(entries[i], judge)
				// no later part renders this key's points: what the
				// Workspace keeps of them goes (memory follows the keys
				// being judged)
				c.ws.Forget(entries[i].Key)
				if done != nil {
					done(entries[i])
				}
				close(res[i].done)
			}
		})
	}
	defer wg.Wait()
	var out []report.KeyResult
	for i, e := range entries {
		c.progress(part, i, len(entries), e.Key)
		<-res[i].done
		if res[i].err != nil {
			stop.Store(true)
			return nil, res[i].err
		}
		out = append(out, res[i].vk)
	}
	c.progress(part, len(entries), len(entries), "")
	return out, nil
}

// judgeKey is judgeKeys' work for one entry: its header, its points
// rendered and folded into rows, each row judged, the verdict rolled up.
func (c *run) judgeKey(e *infx.Entry, judge rowJudge) (report.KeyResult, error) {
	vk, pts, done := c.keyHeader(e.Key, e)
	if done {
		return vk, nil
	}
	rows := rowsByIndex(e)
	seen := map[string]int{} // row + status/rendering fingerprint -> index in vk.Rows
	for _, p := range pts {
		st, d, fp, rerr := c.renderRow(&p)
		if i, ok := seen[fp]; ok {
			vk.Rows[i].Concs = append(vk.Rows[i].Concs, p.Concurrency)
			continue
		}
		seen[fp] = len(vk.Rows)
		row := report.RowResult{Row: p.Row, Concs: []int{p.Concurrency}, Scenario: p.Scenario, Selector: p.Selector, Status: st,
			Recipe: vllmRecipePath(p, c.opt.InfxDir)}
		var err error
		switch st {
		case report.StatusError:
			row.Message, row.Verdict = rerr.Error(), compare.Error
		case report.StatusCompared:
			err = judge(&row, &d, p, nil)
		default:
			row.Message = p.Note
			err = judge(&row, nil, p, rows[p.Row])
		}
		if err != nil {
			return vk, err
		}
		vk.Rows = append(vk.Rows, row)
	}
	for i := range vk.Rows {
		vk.Verdict = compare.Worse(vk.Verdict, vk.Rows[i].Verdict)
	}
	return vk, nil
}

// prerender has the Workspace render the points of entries that
// renderRow will render on every CPU first (infx.Workspace.Prerender):
// judgeKeys then takes each rendering from the memo in entry order, so the
// report is the same as a run on one CPU.
func (c *run) prerender(entries []*infx.Entry) {
	var todo []infx.Point
	for _, e := range entries {
		todo = append(todo, c.comparedPoints(e.Key)...)
	}
	c.ws.Prerender(c.ctx, todo, infx.Options{})
}

// comparedPoints are the points of key a part compares (vllmStatus
// compared), none when the key is out of the policy's scope or its points
// cannot be listed.
func (c *run) comparedPoints(key string) []infx.Point {
	if ok, _ := c.inScope(key); !ok {
		return nil
	}
	pts, err := c.ws.Points(key)
	if err != nil {
		return nil
	}
	var out []infx.Point
	for _, p := range pts {
		if vllmStatus(p) == report.StatusCompared {
			out = append(out, p)
		}
	}
	return out
}

// familyPoints are comparedPoints of every key of the master configs
// whose framework is of a family (inFamily) and that Options.KeyInScope
// asks for, in master order (not counted for Options.ConfigKeys).
func (c *run) familyPoints(inFamily func(framework string) bool) []infx.Point {
	var out []infx.Point
	for _, key := range c.ws.ConfigKeys() {
		e, err := c.ws.Entry(key)
		if err != nil || !inFamily(e.Framework) || !c.opt.KeyInScope(key) {
			continue
		}
		out = append(out, c.comparedPoints(key)...)
	}
	return out
}

// renderBeforeIndex renders the points the vLLM part will compare (the
// compared points of the vLLM-family keys asked for and in the policy's
// scope) on every CPU, then releases what the Workspace keeps for
// rendering more (infx.Workspace.ReleaseScripts): the recipes index is
// built after, so the two largest things of a run — the sandbox's
// prepared scripts and launcher runs, the index's renderings — are never
// held together. The part then takes the renderings from the memo. Issue
// 24 (main job, complete trees, every source, 2 cores): live heap peak
// 235–257 → 163–182 MB, same wall time, byte-identical report.
func (c *run) renderBeforeIndex() {
	if c.ws == nil {
		return
	}
	c.ws.PrerenderEvery(c.ctx, c.familyPoints(recipes.VLLMFamily), infx.Options{})
	c.ws.ReleaseScripts()
}

// familyEntries lists the master-config entries of one framework family
// (inFamily of the framework) whose config key is in scope
// (Options.KeyInScope; counted for Options.ConfigKeys, run.keyAsked),
// in master order: the keys judged from the InferenceX side. Entries that
// do not load are left to the warnings (Run). Errors: ctx.Err().
func (c *run) familyEntries(inFamily func(framework string) bool) ([]*infx.Entry, error) {
	var out []*infx.Entry
	for _, key := range c.ws.ConfigKeys() {
		if err := c.ctx.Err(); err != nil {
			return nil, err
		}
		e, err := c.ws.Entry(key)
		if err != nil || !inFamily(e.Framework) {
			continue
		}
		if !c.keyAsked(key) {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// rowsByIndex maps each search-space row of e by its index.
func rowsByIndex(e *infx.Entry) map[int]*infx.Row {
	rows := map[int]*infx.Row{}
	for i := range e.Rows {
		rows[e.Rows[i].Index] = &e.Rows[i]
	}
	return rows
}
