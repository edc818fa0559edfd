package coverage

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/cookbook/pages"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// sglangFamily reports whether a master `framework` runs SGLang workers
// (InferenceX configs/*-master.yaml: sglang, sglang-disagg, dynamo-sglang;
// infx/validate.go lists the frameworks).
func sglangFamily(framework string) bool {
	switch framework {
	case "sglang", "sglang-disagg", "dynamo-sglang":
		return true
	}
	return false
}

// pagesMaxCompared bounds how many exact page matches one role is compared
// with (the best is kept). A selection shows one command per run mode
// (python, docker), and the rows a role does not depend on (reasoning /
// tool-call parsers, thinking) multiply the exact matches.
const pagesMaxCompared = 64

// pageCand is one worker role of a parsed page selection, with the
// settings a role is matched on.
type pageCand struct {
	sel *pages.Selection
	// dep is the selection's parsed command (pages.ParseCommand), nil once
	// thinned (thinCands): pageSide parses it again.
	dep  *launch.Deployment
	proc int // index in dep.Processes
	sig  roleSig
	ord  int // position in the selections (the page's order)
	// prose is set for a prose alternate of the selection (pageprose.go).
	prose *pageProse
	// image is the worker's image when dep was thinned (its own or the one
	// shareSelectionImage gave it).
	image string
}

// thinCands lets go of the parsed commands (pageCand.dep) of the page
// roles whose checkpoint family (modelFamily) is none of families — the
// families of the models the keys judged serve: no key asks for them but
// through a rendering that names another model, and pageSide parses such
// a role's command again when one does. A page shows many models (every
// checkpoint of a model card; in the main job four of five page roles
// serve a model no key serves), and their parsed commands were the pages
// part's largest live memory. Prose alternates (pageProse) are kept.
func thinCands(cs []pageCand, families map[string]bool) {
	for i := range cs {
		c := &cs[i]
		if c.dep == nil || c.prose != nil || families[modelFamily(c.sig.Model)] {
			continue
		}
		c.image = c.dep.Processes[c.proc].Image
		c.dep = nil
	}
}

// depOf is c's parsed command: dep, or for a thinned role its selection's
// command parsed again (pages.ParseCommand, deterministic: the deployment
// parseCands made) with the worker's image as shareSelectionImage left it.
// ok is false when that parse fails, which the first one did not.
func depOf(c *pageCand) (*launch.Deployment, bool) {
	if c.dep != nil {
		return c.dep, true
	}
	d, err := pages.ParseCommand("", c.sel)
	if err != nil || c.proc >= len(d.Processes) {
		return nil, false
	}
	d.Processes[c.proc].Image = c.image
	return d, true
}

// roleSig is what a page role and an InferenceX role are matched on.
type roleSig struct {
	Model     string // Hugging Face id
	Hardware  string // page hardware id / InferenceX runner SKU, lower case
	Precision string // fp4 | fp8 | bf16 | int8 | "" (unknown)
	Role      launch.Role
	TP, EP    int
	DPAttn    bool
	Nodes     int    // nodes one worker spans
	Spec      string // speculative algorithm (EAGLE, EAGLE3, …), "none"
}

// topology is the role's layout: "TP8", "DEP8" (DP attention with EP),
// "TEP8" (EP without DP attention), "TP8+DPA", "EP4" when EP differs from
// TP, "×2n" for a worker over 2 nodes, "+EAGLE" with spec decoding.
func (s roleSig) topology() string {
	var t string
	switch {
	case s.DPAttn && s.EP > 1:
		t = "DEP" + strconv.Itoa(s.TP)
	case s.DPAttn:
		t = "TP" + strconv.Itoa(s.TP) + "+DPA"
	case s.EP > 1:
		t = "TEP" + strconv.Itoa(s.TP)
	default:
		t = "TP" + strconv.Itoa(s.TP)
	}
	if s.EP > 1 && s.EP != s.TP {
		t += "(ep" + strconv.Itoa(s.EP) + ")"
	}
	if s.Nodes > 1 {
		t += "×" + strconv.Itoa(s.Nodes) + "n"
	}
	if s.Spec != "none" && s.Spec != "" {
		t += "+" + s.Spec
	}
	return t
}

// argInt is the integer value of the first of flags set in args (def when
// none is, or not a number).
func argInt(args []launch.Arg, def int, flags ...string) int {
	for _, f := range flags {
		if v, ok := launch.Lookup(args, f); ok && len(v) == 1 {
			if n, err := strconv.Atoi(v[0]); err == nil {
				return n
			}
		}
	}
	return def
}

// flagSet reports whether a bare flag is given (or set to true).
func flagSet(args []launch.Arg, flag string) bool {
	v, ok := launch.Lookup(args, flag)
	if !ok {
		return false
	}
	return len(v) == 0 || strings.EqualFold(v[0], "true") || v[0] == "1"
}

// sigOf reads the SGLang parallelism and speculative settings of a worker:
// --tp/--tp-size/--tensor-parallel-size (default 1), --ep/--ep-size/
// --expert-parallel-size (else TP when --enable-ep-moe,
// --enable-deepep-moe or an --moe-a2a-backend other than none is set: the
// experts are then spread over the TP ranks; sglang server_args.py),
// --enable-dp-attention, --speculative-algorithm (NEXTN is EAGLE, as
// sglang's ServerArgs rewrites it), nodes (NodesPerWorker, else --nnodes).
func sigOf(p *launch.Process) roleSig {
	s := roleSig{Role: p.Role}
	if s.Role == launch.RoleNone {
		s.Role = launch.RoleAgg
	}
	s.TP = argInt(p.Args, 1, "--tp", "--tp-size", "--tensor-parallel-size")
	s.EP = argInt(p.Args, 0, "--ep", "--ep-size", "--expert-parallel-size")
	if s.EP == 0 {
		s.EP = 1
		a2a, _ := launch.Lookup(p.Args, "--moe-a2a-backend")
		if flagSet(p.Args, "--enable-ep-moe") || flagSet(p.Args, "--enable-deepep-moe") || (len(a2a) == 1 && a2a[0] != "none") {
			s.EP = s.TP
		}
	}
	s.DPAttn = flagSet(p.Args, "--enable-dp-attention")
	s.Nodes = max(p.NodesPerWorker, argInt(p.Args, 1, "--nnodes"), 1)
	s.Spec = "none"
	for _, f := range []string{"--speculative-algorithm", "--speculative-algo"} {
		if v, ok := launch.Lookup(p.Args, f); ok && len(v) == 1 {
			s.Spec = specName(v[0])
		}
	}
	return s
}

func specName(v string) string {
	v = strings.ToUpper(strings.TrimSpace(v))
	switch v {
	case "", "NONE":
		return "none"
	case "NEXTN", "MTP":
		return "EAGLE"
	}
	return v
}

// precisionOf normalizes a precision / quantization id (nvfp4 and mxfp4 are
// fp4); "" when unknown.
func precisionOf(q string) string {
	q = strings.ToLower(q)
	switch {
	case strings.Contains(q, "fp4"):
		return "fp4"
	case strings.Contains(q, "fp8"):
		return "fp8"
	case q == "bf16" || q == "fp16" || q == "int8" || q == "int4" || q == "w4a8":
		return q
	}
	return ""
}

// pagePrecision is the selection's quantization (dimension quant, the
// generators' quantization row), else what the checkpoint name says
// ("…-FP8", "…-NVFP4"), else "" (not a miss).
func pagePrecision(sel *pages.Selection, model string) string {
	for _, k := range []string{"quant", "quantization"} {
		if s, ok := sel.Values[k].(string); ok {
			if p := precisionOf(s); p != "" {
				return p
			}
		}
	}
	return precisionOf(path.Base(model))
}

// hardwareAliases maps InferenceX runner SKUs to the pages' hardware ids
// where they differ (the pages' RTX PRO 6000 is "rtx6000").
var hardwareAliases = map[string]string{"rtx6000pro": "rtx6000"}

func pageHardware(hw string) string {
	hw = strings.ToLower(hw)
	if a, ok := hardwareAliases[hw]; ok {
		return a
	}
	return hw
}

// pageIndex is the parsed page selections, by lower-case model.
type pageIndex struct {
	byModel map[string][]pageCand
	models  []string // every model served, sorted
	// byFamily lists the lower-case models of each checkpoint family
	// (modelFamily), for the nearest page of a checkpoint no page serves.
	byFamily map[string][]string
}

// modelFamily is pages.ModelFamily: the checkpoints of one model.
func modelFamily(model string) string { return pages.ModelFamily(model) }

// indexPages parses every selection's command (parseCands) and indexes
// the worker roles (buildIndex); parse errors are returned with the index
// of what parsed.
func indexPages(sels []pages.Selection) (*pageIndex, []error) {
	cs, errs := parseCands(sels)
	return buildIndex(cs), errs
}

// parseCands parses every selection's command (pages.ParseCommand) into
// its worker roles, in selection order; a comment-only command
// (pages.ErrNoCommand) starts nothing and is left out, other parse errors
// are returned with the roles of what parsed.
func parseCands(sels []pages.Selection) ([]pageCand, []error) {
	var out []pageCand
	var errs []error
	for i := range sels {
		sel := &sels[i]
		d, err := pages.ParseCommand("", sel)
		if errors.Is(err, pages.ErrNoCommand) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for j := range d.Processes {
			p := &d.Processes[j]
			if p.Kind != launch.KindWorker {
				continue
			}
			model := d.Model
			if v, ok := launch.Lookup(p.Args, "--model-path"); ok && len(v) == 1 {
				model = v[0]
			}
			s := sigOf(p)
			s.Model, s.Hardware, s.Precision = model, pageHardware(d.Hardware), pagePrecision(sel, model)
			out = append(out, pageCand{sel: sel, dep: d, proc: j, sig: s})
		}
	}
	shareSelectionImage(out)
	return out, errs
}

// shareSelectionImage gives the workers of a selection's command that runs
// in no container (the python run mode: `sglang serve …`) the image the
// same selection's docker run mode runs (`docker run … IMAGE sglang serve
// …`): sgl-project/sglang docs/src/snippets/_deployment.jsx renders one
// cell's flags in both tabs (renderCommand, mode python or docker, the
// image from config.dockerImages by hw|quant|strategy, else
// lmsysorg/sglang:dev), so the image is the selection's, not the tab's —
// without it the python tab, which names none, would always be the
// better match and the page's image never compared. A selection is its
// file, cell and selection values; a role keeps its own image.
func shareSelectionImage(cs []pageCand) {
	key := func(c *pageCand) string {
		return c.sel.File + "\x00" + strconv.Itoa(c.sel.Cell) + "\x00" + pages.SelectionText(c.sel) + "\x00" + string(c.sig.Role)
	}
	img := map[string]string{}
	for i := range cs {
		if p := &cs[i].dep.Processes[cs[i].proc]; p.Image != "" {
			if _, ok := img[key(&cs[i])]; !ok {
				img[key(&cs[i])] = p.Image
			}
		}
	}
	for i := range cs {
		if p := &cs[i].dep.Processes[cs[i].proc]; p.Image == "" {
			p.Image = img[key(&cs[i])]
		}
	}
}

// buildIndex indexes page roles by model and family, keeping their order
// (lists in turn, each in its order).
func buildIndex(lists ...[]pageCand) *pageIndex {
	ix := &pageIndex{byModel: map[string][]pageCand{}, byFamily: map[string][]string{}}
	n := 0
	for _, l := range lists {
		for _, c := range l {
			k := strings.ToLower(c.sig.Model)
			if _, ok := ix.byModel[k]; !ok {
				ix.models = append(ix.models, c.sig.Model)
				ix.byFamily[modelFamily(c.sig.Model)] = append(ix.byFamily[modelFamily(c.sig.Model)], k)
			}
			c.ord = n
			n++
			ix.byModel[k] = append(ix.byModel[k], c)
		}
	}
	sort.Strings(ix.models)
	return ix
}

// misses lists how a page role differs from the wanted InferenceX role
// ("hardware: page b200, want gb200", "tp: page 8, want 4", …), most
// significant first; none for an exact match. A precision the page does
// not state is not a miss, nor is a precision label when both serve the
// same checkpoint (the checkpoint is the precision; a page's quant pill
// may name the kernel path, e.g. fp4 MoE kernels on the FP8 checkpoint).
func misses(page, want roleSig) []string {
	var m []string
	if !strings.EqualFold(page.Model, want.Model) {
		m = append(m, fmt.Sprintf("model: page %s, want %s", page.Model, want.Model))
	}
	if page.Hardware != want.Hardware {
		m = append(m, fmt.Sprintf("hardware: page %s, want %s", page.Hardware, want.Hardware))
	}
	if page.Precision != "" && want.Precision != "" && page.Precision != want.Precision && !strings.EqualFold(page.Model, want.Model) {
		m = append(m, fmt.Sprintf("precision: page %s, want %s", page.Precision, want.Precision))
	}
	if page.Role != want.Role {
		m = append(m, fmt.Sprintf("role: page %s, want %s", page.Role, want.Role))
	}
	if page.TP != want.TP {
		m = append(m, fmt.Sprintf("tp: page %d, want %d", page.TP, want.TP))
	}
	if page.EP != want.EP {
		m = append(m, fmt.Sprintf("ep: page %d, want %d", page.EP, want.EP))
	}
	if page.DPAttn != want.DPAttn {
		m = append(m, fmt.Sprintf("dp-attention: page %t, want %t", page.DPAttn, want.DPAttn))
	}
	if page.Nodes != want.Nodes {
		m = append(m, fmt.Sprintf("nodes: page %d, want %d", page.Nodes, want.Nodes))
	}
	if page.Spec != want.Spec {
		m = append(m, fmt.Sprintf("speculative: page %s, want %s", page.Spec, want.Spec))
	}
	return m
}

// missWeight orders near misses: hardware and precision weigh more than a
// layout setting. It is the weight of misses(page, want), computed without
// formatting them (0: an exact match).
func missWeight(page, want roleSig) int {
	w := 0
	sameModel := strings.EqualFold(page.Model, want.Model)
	if !sameModel {
		w += 1000
	}
	if page.Hardware != want.Hardware {
		w += 100
	}
	if page.Precision != "" && want.Precision != "" && page.Precision != want.Precision && !sameModel {
		w += 20
	}
	if page.Role != want.Role {
		w += 20
	}
	for _, differs := range []bool{page.TP != want.TP, page.EP != want.EP, page.DPAttn != want.DPAttn, page.Nodes != want.Nodes, page.Spec != want.Spec} {
		if differs {
			w++
		}
	}
	return w
}

// match returns the exact page roles for want (in page order, python
// mode before docker mode of one selection), or none and the nearest
// with its misses: among the page roles of the same checkpoint, else of
// the same checkpoint family (modelFamily: another quantization or
// revision of the model), else none.
func (ix *pageIndex) match(want roleSig) (exact []*pageCand, nearest *pageCand, nm []string) {
	cs := ix.byModel[strings.ToLower(want.Model)]
	if len(cs) == 0 {
		for _, k := range ix.byFamily[modelFamily(want.Model)] {
			cs = append(cs, ix.byModel[k]...)
		}
	}
	best := -1
	for i := range cs {
		c := &cs[i]
		w := missWeight(c.sig, want)
		if w == 0 {
			exact = append(exact, c)
			continue
		}
		if best < 0 || w < best {
			best, nearest = w, c
		}
	}
	if len(exact) > 0 {
		return exact, nil, nil
	}
	if nearest != nil {
		nm = misses(nearest.sig, want)
	}
	return nil, nearest, nm
}

// pageRef records one page role.
func pageRef(c *pageCand) *report.RecipeRef {
	selText := pages.SelectionText(c.sel)
	place := c.sel.Page
	if place == "" {
		place = c.sel.File
	}
	ref := &report.RecipeRef{Kind: "page", File: c.sel.File, Section: c.sel.Page, Variant: selText, Hardware: c.sig.Hardware,
		Model: c.sig.Model, Role: string(c.sig.Role), Topology: c.sig.topology(), Where: place + " § " + selText,
		Checkpoint: c.sig.Model, URL: c.sel.URL, Command: c.sel.Command}
	if c.sel.Mode != "" {
		ref.Where += " (" + c.sel.Mode + ")"
	}
	if c.prose != nil {
		ref.Where += proseWhere(c.prose.st)
		ref.Prose = proseRef(c.prose.st)
	}
	return ref
}

// pageSide is the one-worker deployment of a page role, for comparing
// role with an InferenceX worker.
func pageSide(c *pageCand, role launch.Role) *launch.Deployment {
	dep, ok := depOf(c)
	if !ok {
		// (never: the selection's command parsed before)
		return &launch.Deployment{Engine: "sglang", Model: c.sig.Model, Notes: []string{"the page's command no longer parses"}}
	}
	w := dep.Processes[c.proc]
	w.Kind, w.Role = launch.KindWorker, role
	src := dep.Source
	return &launch.Deployment{Source: src, Engine: "sglang", Model: c.sig.Model, Hardware: dep.Hardware, Processes: []launch.Process{w}, Notes: dep.Notes}
}

// pagesCoverage covers every SGLang-family key (sglangFamily) of the
// master configs in c.ws (optionally filtered by the configKey glob) with
// the cookbook page selections sels: every point is rendered, each worker
// role (agg, prefill, decode: the first worker of the role) is matched with
// the page roles that serve the same model (Hugging Face id, case-
// insensitive; compare.Model resolves local paths), hardware (the page's hw
// id against the runner SKU), precision, TP / EP / DP attention, nodes and
// speculative algorithm, and compared (compare.Compare, the run's
// exclusions and rules) with each exact match, the best kept. No exact
// match: compare.NotCovered with the nearest page role and its misses; no
// page serving the model at all: NotCovered with a "model:" miss. Points
// that cannot be rendered are matched on their master row's layout
// (compare.MatchedNotCompared when a page matches). Errors: the context
// ends, or a selection's command cannot be parsed (pages.ParseCommand; a
// comment-only command is skipped).
func (c *run) pagesCoverage(sels []pages.Selection) ([]report.KeyResult, error) {
	ix, errs := indexPages(sels)
	for _, e := range errs {
		// a command the parser does not understand is reported (bad
		// input), the other selections still count
		c.rep.PageErrors = append(c.rep.PageErrors, e.Error())
	}
	if c.ws == nil {
		return nil, nil
	}
	entries, err := c.familyEntries(sglangFamily)
	if err != nil {
		return nil, err
	}
	return c.pagesJudge(entries, func(string) *pageIndex { return ix })
}

// pagesJudge judges the entries against the page index of each key
// (indexFor, by config key).
func (c *run) pagesJudge(entries []*infx.Entry, indexFor func(key string) *pageIndex) ([]report.KeyResult, error) {
	return c.judgeKeys(report.SourcePages, entries, func(row *report.RowResult, d *launch.Deployment, p infx.Point, r *infx.Row) error {
		ix := indexFor(p.ConfigKey)
		if d != nil {
			return c.pagesCompareRow(row, d, p, ix)
		}
		pagesMatchRow(row, p, r, ix)
		return nil
	}, nil)
}

// wantSig is the InferenceX side of a role: the point's model (the
// rendered model when it is a Hugging Face id, compare.Model resolving a
// local path against the master's), hardware and precision.
func wantSig(s roleSig, d *launch.Deployment, p infx.Point) roleSig {
	model := compare.Model(d.Model, p.Model)
	if !launch.LooksHF(model) {
		model = p.Model
	}
	s.Model, s.Hardware, s.Precision = model, pageHardware(p.Hardware), precisionOf(p.Precision)
	return s
}

// pagesCompareRow matches and compares every worker role of a rendered
// point. The roles of a row (prefill and decode) are covered by one page
// selection only (bestJoint): when the roles' exact matches share no
// selection, every role is "no recipe covers this" (splitSelections).
func (c *run) pagesCompareRow(row *report.RowResult, d *launch.Deployment, p infx.Point, ix *pageIndex) error {
	opts := c.options()
	done := map[launch.Role]bool{}
	var roles []*report.RoleMatch
	var choices [][]selChoice
	for i := range d.Processes {
		ixp := &d.Processes[i]
		if ixp.Kind != launch.KindWorker {
			continue
		}
		want := wantSig(sigOf(ixp), d, p)
		if done[want.Role] {
			continue // the first worker of a role stands for the role
		}
		done[want.Role] = true
		vr := &report.RoleMatch{Role: string(want.Role), Topology: want.topology()}
		exact, nearest, nm := ix.match(want)
		ixDep := &launch.Deployment{Source: d.Source, Engine: "sglang", Model: want.Model, Hardware: d.Hardware,
			Processes: []launch.Process{*ixp}, Inherited: d.Inherited, Notes: d.Notes}
		ixDep.Processes[0].Role = want.Role
		var cs []selChoice
		switch {
		case len(exact) > 0:
			for n, pc := range exact {
				if n == pagesMaxCompared {
					break
				}
				res, err := compare.Compare(pageSide(pc, want.Role), ixDep, opts)
				if err != nil {
					return err
				}
				cs = append(cs, selChoice{key: pageSelKey(pc), res: workerResult(res), ref: pageRef(pc)})
			}
			cs[bestChoice(cs)].set(vr)
			vr.Alternatives = len(exact) - 1
		default:
			vr.Verdict = compare.NotCovered
			if nearest == nil {
				vr.Misses = []string{noPage(want.Model, ix)}
				break
			}
			vr.Nearest, vr.Misses = pageRef(nearest), nm
			if res, err := compare.Compare(pageSide(nearest, want.Role), ixDep, opts); err == nil {
				vr.Result = workerResult(res) // evidence; still not covered
			}
		}
		roles = append(roles, vr)
		choices = append(choices, cs)
	}
	jointRoles(roles, choices)
	for _, vr := range roles {
		row.Verdict = compare.Worse(row.Verdict, vr.Verdict)
		row.Roles = append(row.Roles, *vr)
	}
	if len(row.Roles) == 0 {
		row.Status, row.Message, row.Verdict = report.StatusError, "the rendered point has no SGLang worker", compare.Error
	}
	return nil
}

// noPage is the miss of a model no page serves.
func noPage(model string, ix *pageIndex) string {
	return fmt.Sprintf("model: no cookbook page serves %s (%d models have a page)", model, len(ix.models))
}

// pagesMatchRow matches the roles of a point that could not be rendered on
// its master row's layout (tp, ep, dp-attn of the row or of its worker /
// prefill / decode blocks, nodes of multi-node blocks, spec-decoding).
func pagesMatchRow(row *report.RowResult, p infx.Point, r *infx.Row, ix *pageIndex) {
	spec := "none"
	if p.SpecDecoding != "" && p.SpecDecoding != "none" {
		spec = specName(p.SpecDecoding)
	}
	base := roleSig{Model: p.Model, Hardware: pageHardware(p.Hardware), Precision: precisionOf(p.Precision), Spec: spec, Nodes: 1}
	block := func(role launch.Role, w *infx.WorkerBlock) roleSig {
		s := base
		s.Role, s.TP, s.EP, s.DPAttn = role, max(w.TP, 1), max(w.EP, 1), w.DPAttn
		// a worker spans the nodes its TP ranks need (GB200/GB300 trays
		// hold 4 GPUs, the other SKUs 8)
		s.Nodes = nodesFor(s.TP, base.Hardware)
		return s
	}
	var qs []roleSig
	switch {
	case r != nil && r.Worker != nil:
		s := block(launch.RoleAgg, r.Worker)
		if r.Worker.NumWorker > 0 && r.NumNodes > 0 {
			s.Nodes = max(r.NumNodes/r.Worker.NumWorker, 1)
		}
		qs = []roleSig{s}
	case r != nil && r.Prefill != nil && r.Decode != nil && p.Disagg:
		qs = []roleSig{block(launch.RolePrefill, r.Prefill), block(launch.RoleDecode, r.Decode)}
	case r != nil && r.Prefill != nil && r.Decode != nil:
		w := r.Prefill
		if w.NumWorker == 0 && r.Decode.NumWorker > 0 {
			w = r.Decode
		}
		qs = []roleSig{block(launch.RoleAgg, w)}
	default:
		s := base
		s.Role, s.TP, s.EP, s.DPAttn = launch.RoleAgg, max(p.TP, 1), max(p.EP, 1), p.DPAttn
		qs = []roleSig{s}
	}
	var roles []*report.RoleMatch
	var keys [][]string
	var exacts [][]*pageCand
	for _, q := range qs {
		vr := &report.RoleMatch{Role: string(q.Role), Topology: q.topology()}
		exact, nearest, nm := ix.match(q)
		var ks []string
		switch {
		case len(exact) > 0:
			vr.Recipe, vr.Alternatives, vr.Verdict = pageRef(exact[0]), len(exact)-1, compare.MatchedNotCompared
			for _, pc := range exact {
				ks = append(ks, pageSelKey(pc))
			}
		case nearest != nil:
			vr.Nearest, vr.Misses, vr.Verdict = pageRef(nearest), nm, compare.NotCovered
		default:
			vr.Misses, vr.Verdict = []string{noPage(q.Model, ix)}, compare.NotCovered
		}
		roles, keys, exacts = append(roles, vr), append(keys, ks), append(exacts, exact)
	}
	matchedJoint(roles, keys, func(r, i int) *report.RecipeRef { return pageRef(exacts[r][i]) })
	for _, vr := range roles {
		row.Verdict = compare.Worse(row.Verdict, vr.Verdict)
		row.Roles = append(row.Roles, *vr)
	}
	if row.Verdict == compare.MatchedNotCompared {
		row.Verdict = row.Status.Verdict()
	}
}

// nodesFor is how many nodes a worker of tp GPUs spans on hardware (the
// master row does not say; srt-slurm recipes place a worker on
// ceil(tp / gpus_per_node) nodes): GB200 and GB300 are 4-GPU trays, the
// other SKUs 8-GPU nodes.
func nodesFor(tp int, hardware string) int {
	gpn := 8
	switch hardware {
	case "gb200", "gb300":
		gpn = 4
	}
	return max(1, (tp+gpn-1)/gpn)
}
