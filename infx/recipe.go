package infx

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// renderRecipe loads the point's recipe (composed with its lane blocks in
// the new layout), picks the variant and renders it with the master entry's
// model and image; the files its flags name under /configs/ are read from
// cfg's checkout.
func (ws *Workspace) renderRecipe(p Point, version string, cfg srtConfigs, cache *recipeCache) ([]launch.Process, string, error) {
	rec, err := cache.load(ws, p)
	if err != nil {
		return nil, "", err
	}
	sel := p.Selector
	if rec.HasVariants() {
		// No selector, a whole zip group (zip_override_<g>) or a glob
		// (srtctl: fnmatch over the variant keys) names several variants:
		// the point's TP/CONC picks one.
		var cands []string
		for _, s := range rec.Selectors() {
			group, _, _ := strings.Cut(s, "[")
			switch {
			case sel == "":
				cands = append(cands, s)
			case strings.HasPrefix(sel, "zip_override_") && !strings.Contains(sel, "[") && group == sel:
				cands = append(cands, s)
			case strings.ContainsAny(sel, "*?"):
				if ok, _ := path.Match(sel, group); ok {
					cands = append(cands, s)
				}
			}
		}
		switch {
		case len(cands) == 1:
			sel = cands[0]
		case len(cands) > 1:
			if sel, err = ws.matchVariant(p, cands); err != nil {
				return nil, "", err
			}
		}
	}
	r, err := rec.Render(sel, srtslurm.Options{Version: version, Model: p.Model, Image: p.Image, SetupScript: p.setupScript, Containers: p.containers})
	if errors.Is(err, srtslurm.ErrNotRendered) {
		return nil, "", &PointError{Status: StatusUnsupported, Note: err.Error(), Pos: p.RefPos, Err: err}
	}
	if err != nil {
		// Errors without a recipe position (unknown selector, unknown
		// version) are placed at the master's reference to the recipe.
		var se *srtslurm.Error
		if errors.As(err, &se) && se.Line == 0 && p.RefPos.Line > 0 {
			return nil, "", &PosError{File: p.RefPos.File, Line: p.RefPos.Line, Col: p.RefPos.Col, Err: err}
		}
		return nil, "", err
	}
	markServedName(r)
	AttachSrtSlurmConfigs(r.Deployment.Processes, cfg.dir, cfg.version, cfg.runs)
	ws.markSynthetic(p, r.Deployment.Processes, version, cfg, cache)
	return r.Deployment.Processes, sel, nil
}

// markSynthetic notes, on every argument runners/inject_synthetic_acceptance.py
// rewrote in the recipe the launcher submits, the value the production path
// gives (launch.HarnessEdit): the point is rendered a second time with the
// launcher's other edits but not the injector's, and each worker's arguments
// are paired with that rendering's (launch.MarkHarness). A point the
// injector does not touch is left alone; when the second rendering fails
// or has other processes, nothing is marked (the harness value's
// production path is then taken to set nothing).
func (ws *Workspace) markSynthetic(p Point, procs []launch.Process, version string, cfg srtConfigs, cache *recipeCache) {
	var by []string
	var kept []RecipeEdit
	for _, e := range p.edits {
		if e.Kind == syntheticProgram {
			by = append(by, syntheticBy(e))
			continue
		}
		kept = append(kept, e)
	}
	if len(by) == 0 {
		return
	}
	prod := p
	prod.edits = kept
	pp, _, err := ws.renderRecipe(prod, version, cfg, cache)
	if err != nil || len(pp) != len(procs) {
		return
	}
	for i := range procs {
		if procs[i].Kind != pp[i].Kind || procs[i].Role != pp[i].Role {
			return
		}
	}
	for i := range procs {
		procs[i].Args = launch.MarkHarness(procs[i].Args, pp[i].Args, strings.Join(by, "; "))
	}
}

// ServedNameNote is appended (after "; ") to the Origin.Detail of an
// injected --served-model-name whose value srt-slurm took from the
// recipe's served-model-name rather than from the model path.
const (
	ServedNameReplaces = "value from the recipe's served-model-name, whose own flag srt-slurm drops"
	ServedNameKept     = "value from the recipe's served-model-name, whose own flag follows too"
)

// markServedName notes on the injected --served-model-name of each worker
// where its value came from. srt-slurm injects --served-model-name with the
// first served-model-name the recipe sets (prefill → agg → decode), or the
// basename of the host model path when none does, and (every profile but
// sa-submission) drops the recipe's own key (shared/spec/srt-slurm.md §4.1;
// NVIDIA/srt-slurm src/srtctl/backends/sglang.py). A value other than that
// basename therefore came from the recipe; the note says whether the
// recipe's flag is dropped or kept after the injected prefix.
func markServedName(r *srtslurm.Rendering) {
	host := "/models/" + r.Model
	if m, ok := strings.CutPrefix(r.Model, "hf:"); ok {
		host = m
	}
	def := path.Base(host)
	for i := range r.Deployment.Processes {
		p := &r.Deployment.Processes[i]
		inj, kept := -1, false
		for j, a := range p.Args {
			if a.Flag != "--served-model-name" {
				continue
			}
			switch a.Origin.Kind {
			case launch.OriginInjected:
				if inj < 0 && len(a.Values) == 1 && a.Values[0] != def {
					inj = j
				}
			case launch.OriginRecipe:
				kept = true
			}
		}
		if inj < 0 || strings.Contains(p.Args[inj].Origin.Detail, "served-model-name") {
			continue // not from the recipe, or already noted (shared Args)
		}
		note := ServedNameReplaces
		if kept {
			note = ServedNameKept
		}
		o := &p.Args[inj].Origin
		if o.Detail != "" {
			o.Detail += "; "
		}
		o.Detail += note
	}
}

// recipeCache holds loaded recipes by file (and, for composed recipes, by
// the values bound into them); nil disables caching. Safe for concurrent
// use (RenderAll's loop and its stream share one); a loaded recipe is only
// read by the renderings that share it.
type recipeCache struct {
	mu sync.Mutex
	m  map[string]cachedRecipe
}

type cachedRecipe struct {
	rec *srtslurm.Recipe
	err error
}

func (c *recipeCache) load(ws *Workspace, p Point) (*srtslurm.Recipe, error) {
	if c == nil {
		return ws.loadRecipe(p)
	}
	key := p.Recipe
	if len(p.edits) > 0 {
		for _, e := range p.edits {
			key += "\x00" + e.String()
		}
	}
	if len(p.LaneBlocks) > 0 {
		key = fmt.Sprint(p.Recipe, p.LaneBlocks, p.Model, p.Image, p.Precision, p.ISL, p.OSL, p.Concurrency)
	}
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return e.rec, e.err
	}
	rec, err := ws.loadRecipe(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok {
		return e.rec, e.err // loaded at the same time: one recipe for all
	}
	if c.m == nil {
		c.m = map[string]cachedRecipe{}
	}
	c.m[key] = cachedRecipe{rec, err}
	return rec, err
}

// loadRecipe reads the recipe; with lane blocks it is composed first
// (the plain file is parsed first so syntax errors point into it).
func (ws *Workspace) loadRecipe(p Point) (*srtslurm.Recipe, error) {
	data, err := launch.ReadInput(p.Recipe)
	if err != nil {
		return nil, refErr(p, err)
	}
	name := p.Recipe
	if len(p.edits) > 0 {
		if data, err = applyEdits(data, p.edits); err != nil {
			return nil, &PointError{Status: StatusUnsupported, Pos: p.RefPos, Note: fmt.Sprintf("the launcher edits the recipe in place before srtctl reads it, and the sandbox cannot evaluate the edit: %v", err), Err: err}
		}
	}
	rec, err := ws.parseRecipe(p.ConfigKey, name, data)
	if err != nil || len(p.LaneBlocks) == 0 {
		return rec, err
	}
	composed, err := ws.compose(p, name, data)
	if err != nil {
		return nil, err
	}
	return srtslurm.Parse(name, composed)
}

// parsedRecipe is one srtslurm.Parse outcome (Workspace.parsed).
type parsedRecipe struct {
	rec *srtslurm.Recipe
	err error
}

// parseRecipe is srtslurm.Parse(name, data), parsed once for the points
// of config key configKey (a Recipe is only read once parsed: RenderAll's
// recipeCache shares one among points too) until Forget(configKey), when
// the Workspace remembers renders (RememberRenders: a run over fixed
// trees that forgets each key it is done with, as coverage's; a caller
// that edits the files between renders would keep every version); a key
// Forget dropped, or a Workspace that does not remember, parses every
// time.
func (ws *Workspace) parseRecipe(configKey, name string, data []byte) (*srtslurm.Recipe, error) {
	if !ws.remember.Load() {
		return srtslurm.Parse(name, data)
	}
	k := name + "\x00" + string(data)
	ws.parsedMu.Lock()
	pr, ok := ws.parsed[configKey][k]
	ws.parsedMu.Unlock()
	if ok {
		return pr.rec, pr.err
	}
	rec, err := srtslurm.Parse(name, data)
	if ws.isForgotten(configKey) {
		return rec, err
	}
	ws.parsedMu.Lock()
	defer ws.parsedMu.Unlock()
	if pr, ok := ws.parsed[configKey][k]; ok {
		return pr.rec, pr.err // parsed at the same time: one recipe for all
	}
	if ws.parsed == nil {
		ws.parsed = map[string]map[string]parsedRecipe{}
	}
	if ws.parsed[configKey] == nil {
		ws.parsed[configKey] = map[string]parsedRecipe{}
	}
	ws.parsed[configKey][k] = parsedRecipe{rec, err}
	return rec, err
}

// refErr places an error reading the point's recipe (a directory, a FIFO,
// an oversized or unreadable file) at the master's reference to it.
func refErr(p Point, err error) error {
	if p.RefPos.Line == 0 {
		return err
	}
	return &PosError{File: p.RefPos.File, Line: p.RefPos.Line, Col: p.RefPos.Col,
		Msg: fmt.Sprintf("recipe %s: %v", p.RecipeRef, err), Err: err}
}

// RenderRecipe renders a recipe named directly as "FILE[:selector]", with
// no master entry (model and image stay the recipe's aliases). FILE is
// tried as given, then, when ws is not nil, relative to the workspace base,
// as a CONFIG_FILE path (recipes/… under benchmarks/multi_node/
// srt-slurm-recipes/ and under SrtSlurmDir), and under the single- and
// multi-node srt-slurm-recipes/ trees. A bundle needs a selector (base or
// one of its variants) unless it has a single variant, which is then
// rendered. Errors: file not found; recipe errors with
// file:line:col.
func RenderRecipe(ws *Workspace, ref string, opt Options) (launch.Deployment, error) {
	file, sel := splitSelector(ref)
	cands := []string{file}
	path := firstFile(cands)
	if ws != nil && path == "" {
		r := ResolveRecipe(ws.Base, file, ResolveOptions{Form: FormUser, SrtSlurmDir: ws.SrtSlurmDir})
		cands = append(cands, r.Tried...)
		path = r.File
	}
	if path == "" {
		return launch.Deployment{}, fmt.Errorf("%s: recipe not found (tried %s)", file, strings.Join(cands, ", "))
	}
	rec, err := srtslurm.Load(path)
	if err != nil {
		return launch.Deployment{}, err
	}
	if sel == "" && rec.HasVariants() {
		sels := rec.Selectors()
		if len(sels) != 1 {
			// base is a selector too (srtctl renders the base alone), as the
			// unknown-selector error of srtslurm offers it.
			return launch.Deployment{}, fmt.Errorf("%s: the recipe has base and %d variants, name one as FILE:<selector> (base, %s)", path, len(sels), strings.Join(sels, ", "))
		}
		sel = sels[0]
	}
	version := opt.SrtSlurmVersion
	if version == "" {
		version = DefaultSrtSlurmVersion
	}
	r, err := rec.Render(sel, srtslurm.Options{Version: version})
	if err != nil {
		return launch.Deployment{}, err
	}
	markServedName(r)
	d := r.Deployment
	d.Source.File, d.Source.Recipe, d.Source.Selector = path, file, sel
	if ws != nil {
		d.Source.File = ws.rel(path)
	}
	return d, nil
}
