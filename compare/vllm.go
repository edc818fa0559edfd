package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/recipes"
)

// Outcomes of a vLLM-family row or role besides the role Verdicts
// (covered … prohibited) and the point statuses below.
const (
	// NotCovered: no vLLM recipe role matches the InferenceX role (model or
	// variant checkpoint, precision, hardware, role, topology); the nearest
	// candidate is named with what differs. A gap.
	NotCovered = "no recipe covers this"
	// Matched: a recipe role matches, but the InferenceX point could not be
	// rendered, so its settings were not compared (the row's Status says why).
	Matched = "matched (not compared)"
)

// vLLM-family row statuses (VLLMRow.Status), from infx.Point.Status/Kind;
// the same vocabulary as the cookbook point statuses (PointStatus). Every
// status but compared and error is "not verified" (NotVerified).
const (
	VLLMCompared          = string(StatusCompared)
	VLLMUpstreamOnly      = string(StatusUpstreamOnly)   // CONFIG_FILE=recipes/… lives in NVIDIA/srt-slurm, not in --infx
	VLLMRecipeMissing     = string(StatusRecipeNotFound) // a repository recipe path (srt-recipe, benchmarks/…) absent from --infx
	VLLMScriptUnavailable = string(StatusScriptNotFound) // single-node benchmark script absent from --infx
	VLLMUnsupported       = string(StatusUnsupported)    // a launcher format infx does not render (llm-d, AMD models.yaml)
	VLLMError             = string(StatusError)          // present but failed to render (bad input)
)

// VLLMKey is the coverage of one vLLM-family InferenceX config key
// (framework vllm, dynamo-vllm or llmd-vllm in configs/*-master.yaml)
// against vllm-project/recipes.
type VLLMKey struct {
	ConfigKey string `json:"configKey"`
	Framework string `json:"framework"`
	Model     string `json:"model"`    // master `model` (Hugging Face id)
	Hardware  string `json:"hardware"` // runner SKU (b200, gb200, mi355x …)
	Precision string `json:"precision"`
	Master    string `json:"master"` // file:line:col of the master entry
	// Verdict is the worst row outcome (see vllmRank).
	Verdict string    `json:"verdict"`
	Rows    []VLLMRow `json:"rows"`
}

// VLLMRow is one search-space row of a key (one entry per distinct
// rendering: concurrencies that render identically share it).
type VLLMRow struct {
	Row      int    `json:"row"`
	Concs    []int  `json:"concs"`
	Scenario string `json:"scenario"`
	// Recipe is the InferenceX recipe or script the row runs (relative to
	// --infx when present, else as referenced); Selector its variant.
	Recipe   string `json:"recipe,omitempty"`
	Selector string `json:"selector,omitempty"`
	// Status: compared, upstream-only, recipe not found, script not found,
	// unsupported or error; Message says why for the others.
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	// Verdict is the worst role outcome: a Verdict, NotCovered, or Matched.
	Verdict string     `json:"verdict"`
	Roles   []VLLMRole `json:"roles,omitempty"`
}

// VLLMRole is one worker role (agg, prefill, decode) of a row, matched with
// the vLLM recipes and, when the row rendered, compared setting by setting.
// Frontends and services are not compared: Dynamo and llm-d are deployment
// layers around vLLM workers (issue 4), and vLLM recipes document the
// engine.
type VLLMRole struct {
	Role string `json:"role"`
	// Topology is the InferenceX role's layout ("TP8", "DEP8", "TEP4"):
	// from the rendered worker's vLLM args, else from the master row.
	Topology string `json:"topology"`
	// Recipe is the recipe role compared (an exact match); Nearest the
	// closest candidate when none matches, with Misses saying what differs.
	Recipe  *RecipeRef `json:"recipe,omitempty"`
	Nearest *RecipeRef `json:"nearest,omitempty"`
	Misses  []string   `json:"misses,omitempty"`
	// Alternatives counts the other exact matches (the one compared is the
	// best by verdict, then fewest differences, then the index's order).
	Alternatives int `json:"alternatives,omitempty"`
	// Verdict: a compare Verdict, NotCovered or Matched.
	Verdict string `json:"verdict"`
	// Result is the comparison of the worker with Recipe (or, as evidence,
	// with Nearest): "cookbook" values are the vLLM recipe's (the upstream
	// documentation), "recipe" values InferenceX's.
	Result *Result `json:"result,omitempty"`
}

// RecipeRef names one vLLM recipe role: a model YAML rendering (file,
// variant, strategy, hardware) or a Markdown launch block (file, line,
// heading chain).
type RecipeRef struct {
	Kind     string `json:"kind"` // yaml | markdown
	File     string `json:"file"` // relative to --vllm-recipes
	Section  string `json:"section,omitempty"`
	Line     int    `json:"line,omitempty"`
	Variant  string `json:"variant,omitempty"`
	Strategy string `json:"strategy,omitempty"`
	Hardware string `json:"hardware,omitempty"`
	Model    string `json:"model,omitempty"`
	Role     string `json:"role"`
	Topology string `json:"topology"`
	// Where is the place as one string ("models/…yaml variant=… strategy=…
	// hw=… role=…" or "<file>:<line> § <section>").
	Where string `json:"where"`
}

func recipeRef(c *recipes.Candidate) *RecipeRef {
	return &RecipeRef{Kind: c.Kind, File: c.File, Section: c.Section, Line: c.Line, Variant: c.Variant, Strategy: c.Strategy,
		Hardware: c.Hardware, Model: c.Model, Role: string(c.Role), Topology: c.Topology.String(), Where: c.Where()}
}

// vllmRank orders row/key outcomes from best to worst: covered <
// covered-with-exclusions < not verified (Matched and the unrendered row
// statuses: NotVerified) < missing = no recipe covers this < differs <
// prohibited < error. A key's verdict is its worst row's, a row's its worst
// role's; of equal rank the first (in row and role order) is kept.
func vllmRank(v string) int {
	switch v {
	case string(Covered):
		return 0
	case string(CoveredWithExclusions):
		return 1
	case string(Missing), NotCovered:
		return 3
	case string(Differs):
		return 4
	case string(Prohibited):
		return 5
	case VLLMError:
		return 6
	}
	return 2 // not verified
}

func vllmWorse(a, b string) string {
	if a == "" || vllmRank(b) > vllmRank(a) {
		return b
	}
	return a
}

// vllmGap reports whether an outcome fails Check 3.
func vllmGap(v string) bool {
	return Verdict(v).Gap() || v == NotCovered
}

// maxCompared bounds how many exact recipe matches one role is compared
// with (the best is kept).
const maxCompared = 8

// vllmCoverage covers every vLLM-family key of the master configs in ws
// (optionally filtered by the configKey glob) against the recipes index.
func vllmCoverage(ws *infx.Workspace, ix *recipes.Index, infxDir, recipesDir, configKey string, ex *exclusions.Set, rules *Rules) []VLLMKey {
	var out []VLLMKey
	optOuts := map[string]map[string]string{} // recipe file -> meta.hardware
	// matches caches Index.Match by query (many rows and keys ask the same)
	var matches map[string][]recipes.Candidate
	for _, key := range ws.ConfigKeys() {
		e, err := ws.Entry(key)
		if err != nil || !recipes.VLLMFamily(e.Framework) {
			continue
		}
		if configKey != "" {
			if ok, _ := path.Match(configKey, key); !ok {
				continue
			}
		}
		vk := VLLMKey{ConfigKey: key, Framework: e.Framework, Model: e.Model, Hardware: infx.Hardware(e.Runner),
			Precision: e.Precision, Master: e.Pos.String()}
		pts, err := ws.Points(key)
		if err != nil {
			vk.Rows = append(vk.Rows, VLLMRow{Row: -1, Status: VLLMError, Message: err.Error(), Verdict: VLLMError})
		}
		if err == nil && len(pts) == 0 {
			vk.Rows = append(vk.Rows, VLLMRow{Row: -1, Status: VLLMError, Message: "config key has no search-space point", Verdict: VLLMError})
		}
		rows := map[int]*infx.Row{}
		for i := range e.Rows {
			rows[e.Rows[i].Index] = &e.Rows[i]
		}
		seen := map[string]int{} // row + status/rendering fingerprint -> index in vk.Rows
		if matches == nil {
			matches = map[string][]recipes.Candidate{}
		}
		for _, p := range pts {
			st := vllmStatus(p)
			var d launch.Deployment
			var rerr error
			fp := fmt.Sprintf("%d\x00%s\x00%s\x00%s", p.Row, st, p.Recipe+p.Script, p.Selector)
			if st == VLLMCompared {
				d, rerr = ws.Render(p, infx.Options{})
				var pe *infx.PointError
				if errors.As(rerr, &pe) {
					// A status (unsupported, ambiguous, missing): the
					// point is not verified, with the reason.
					p.Status, p.Note, rerr = pe.Status, pe.Note, nil
					st = vllmStatus(p)
					fp += "\x00" + pe.Note
				} else if rerr != nil {
					st = VLLMError
					fp += "\x00" + rerr.Error()
				} else {
					b, _ := json.Marshal(d.Processes)
					fp += "\x00" + string(b)
				}
			}
			if i, ok := seen[fp]; ok {
				vk.Rows[i].Concs = append(vk.Rows[i].Concs, p.Concurrency)
				continue
			}
			seen[fp] = len(vk.Rows)
			row := VLLMRow{Row: p.Row, Concs: []int{p.Concurrency}, Scenario: p.Scenario, Selector: p.Selector, Status: st}
			row.Recipe = vllmRecipePath(p, infxDir)
			switch st {
			case VLLMError:
				row.Message = rerr.Error()
				row.Verdict = VLLMError
			case VLLMCompared:
				vllmCompareRow(&row, &d, p, ix, ex, rules)
			default:
				row.Message = p.Note
				vllmMatchRow(&row, p, rows[p.Row], ix, matches)
			}
			vk.Rows = append(vk.Rows, row)
		}
		for i := range vk.Rows {
			for j := range vk.Rows[i].Roles {
				if m := hardwareOptOut(recipesDir, &vk.Rows[i].Roles[j], vk.Hardware, optOuts); m != "" {
					vk.Rows[i].Roles[j].Misses = append(vk.Rows[i].Roles[j].Misses, m)
				}
			}
			vk.Verdict = vllmWorse(vk.Verdict, vk.Rows[i].Verdict)
		}
		out = append(out, vk)
	}
	return out
}

func vllmStatus(p infx.Point) string {
	switch p.Status {
	case infx.StatusOK:
		return VLLMCompared
	case infx.StatusUpstreamOnly:
		return VLLMUpstreamOnly
	case infx.StatusUnsupported:
		return VLLMUnsupported
	case infx.StatusMissing:
		if p.Kind == infx.KindScript {
			return VLLMScriptUnavailable
		}
		return VLLMRecipeMissing
	case infx.StatusAmbiguous:
		return string(StatusAmbiguous)
	}
	return string(p.Status)
}

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
func vllmMatchRow(row *VLLMRow, p infx.Point, r *infx.Row, ix *recipes.Index, cache map[string][]recipes.Candidate) {
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
	for _, x := range qs {
		topo := recipes.QueryTopology(x.tp, x.ep, 0, x.dpAttn)
		if x.pp > 1 {
			topo.PP, topo.GPUs = x.pp, topo.GPUs*x.pp
		}
		query := recipes.Query{ConfigKey: p.ConfigKey, Framework: p.Framework, Model: p.Model, Hardware: p.Hardware,
			Precision: p.Precision, Role: x.role, Topology: &topo}
		vr := VLLMRole{Role: string(x.role), Topology: topo.String()}
		ck := fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s\x00%+v", p.Framework, p.Model, p.Hardware, p.Precision, x.role, topo)
		cs, ok := cache[ck]
		if !ok {
			var err error
			if cs, err = ix.Match(query); err != nil {
				row.Status, row.Message = VLLMError, err.Error()
				row.Verdict = VLLMError
				return
			}
			cache[ck] = cs
		}
		setMatch(&vr, cs)
		if vr.Recipe != nil {
			vr.Verdict = Matched
		}
		row.Verdict = vllmWorse(row.Verdict, vr.Verdict)
		row.Roles = append(row.Roles, vr)
	}
	if row.Verdict == Matched {
		// every role has a recipe; the row is as good as its status says
		row.Verdict = row.Status
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
func hardwareOptOut(dir string, ro *VLLMRole, hw string, cache map[string]map[string]string) string {
	n := ro.Nearest
	if ro.Verdict != NotCovered || n == nil || n.Kind != "yaml" || dir == "" {
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
func setMatch(vr *VLLMRole, cs []recipes.Candidate) {
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
		vr.Verdict = NotCovered
	default:
		vr.Verdict = NotCovered
		vr.Misses = []string{"no vLLM recipe in --vllm-recipes"}
	}
}

// vllmCompareRow matches every worker role of a rendered InferenceX
// deployment with the recipes (recipes.Index.MatchDeployment) and compares
// the worker with each exact match, keeping the best.
func vllmCompareRow(row *VLLMRow, d *launch.Deployment, p infx.Point, ix *recipes.Index, ex *exclusions.Set, rules *Rules) {
	if d.Model == "" || !looksHF(d.Model) {
		d.Model = p.Model
	}
	if d.Hardware == "" {
		d.Hardware = p.Hardware
	}
	rms, err := ix.MatchDeployment(d, p.Framework, p.Precision)
	if err != nil {
		row.Status, row.Message, row.Verdict = VLLMError, err.Error(), VLLMError
		return
	}
	for _, rm := range rms {
		ixp := &d.Processes[rm.Process]
		vr := VLLMRole{Role: string(rm.Role), Topology: recipes.TopologyOf(ixp.Args).String()}
		setMatch(&vr, rm.Candidates)
		if vr.Recipe == nil && len(rm.Candidates) > 0 {
			// evidence: how the nearest candidate differs (still not covered)
			c := &rm.Candidates[0]
			res, err := Compare(vllmSide(&c.Deployment, &c.Deployment.Processes[c.Process], rm.Role, c.Model), vllmSide(d, ixp, rm.Role, d.Model), Options{Exclusions: ex, Rules: rules})
			if err == nil {
				vr.Result = workerResult(res)
			}
		}
		if vr.Recipe != nil {
			ixDep := vllmSide(d, ixp, rm.Role, d.Model)
			var best *Result
			var bestC *recipes.Candidate
			n := 0
			for i := range rm.Candidates {
				c := &rm.Candidates[i]
				if !c.Exact || n == maxCompared {
					break
				}
				n++
				upDep := vllmSide(&c.Deployment, &c.Deployment.Processes[c.Process], rm.Role, c.Model)
				upDep.Source.Recipe, upDep.Source.Variant, upDep.Source.Strategy = c.File, c.Variant, c.Strategy
				res, err := Compare(upDep, ixDep, Options{Exclusions: ex, Rules: rules})
				if err != nil {
					row.Status, row.Message, row.Verdict = VLLMError, err.Error(), VLLMError
					return
				}
				r := workerResult(res)
				if best == nil || betterResult(r, best) {
					best, bestC = r, c
				}
			}
			vr.Recipe = recipeRef(bestC)
			vr.Result = best
			vr.Verdict = string(best.Verdict)
		}
		row.Verdict = vllmWorse(row.Verdict, vr.Verdict)
		row.Roles = append(row.Roles, vr)
	}
}

// workerResult is the single worker Result of a one-worker comparison
// (Sides: vllm-recipes, inferencex).
func workerResult(rs []Result) *Result {
	sides := Sides{Cookbook: SideVLLMRecipes, Recipe: SideInferenceX}
	for i := range rs {
		if rs[i].Role == "agg" || rs[i].Role == "prefill" || rs[i].Role == "decode" {
			rs[i].Sides = &sides
			return &rs[i]
		}
	}
	r := Result{Verdict: Missing, Note: "no worker compared", Sides: &sides}
	return &r
}

func betterResult(a, b *Result) bool {
	if a.Verdict.rank() != b.Verdict.rank() {
		return a.Verdict.rank() < b.Verdict.rank()
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
func vllmSide(d *launch.Deployment, p *launch.Process, role launch.Role, model string) *launch.Deployment {
	w := *p
	w.Kind, w.Role = launch.KindWorker, role
	args, _ := recipes.NormalizeArgs(p.Args)
	if syn := syntheticKeys(p.Args); len(syn) > 0 {
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
	w.Args = args
	return &launch.Deployment{Source: d.Source, Engine: "vllm", Model: model, Hardware: d.Hardware, Processes: []launch.Process{w}}
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
			return nil, fmt.Errorf("--vllm-recipes %s: %w", dir, err)
		}
		return ix, fmt.Errorf("--vllm-recipes %s: %w", dir, err)
	}
	return ix, nil
}
