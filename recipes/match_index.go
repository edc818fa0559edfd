package recipes

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/prose"
)

// ErrNotVLLM is returned by Match for a framework outside the vLLM family.
var ErrNotVLLM = errors.New("not a vLLM-family framework")

// VLLMFamily reports whether an InferenceX framework is served by vLLM:
// vllm, dynamo-vllm and llmd-vllm (Dynamo and llm-d are deployment layers
// around vLLM workers; their workers are checked against vLLM recipes).
func VLLMFamily(framework string) bool {
	switch strings.ToLower(framework) {
	case "vllm", "dynamo-vllm", "llmd-vllm", "vllm-disagg":
		return true
	}
	return false
}

// Query is one InferenceX role to find in the recipes: fields of an
// InferenceX master config entry (configs/*-master.yaml: model, precision,
// framework, runner) and one search-space point (tp, ep, dp-attn; prefill /
// decode for disagg).
type Query struct {
	ConfigKey string // for messages only
	Framework string // vllm | dynamo-vllm | llmd-vllm ("" = vllm)
	Model     string // Hugging Face id (required)
	Hardware  string // taxonomy id or InferenceX name (b200, gb200-nvl72, mi355x …)
	Precision string // fp4, fp8, bf16, nvfp4, mxfp4 … ("" = any)
	Role      launch.Role
	TP, EP    int
	DP        int  // explicit DP replicas (rare; 0 = 1)
	DPAttn    bool // dp-attn: data-parallel attention (vLLM DEP)
	Nodes     int  // nodes one worker spans (informational)
	// Topology, when set, is used instead of TP/EP/DP/DPAttn (e.g. read
	// from a rendered InferenceX worker's vLLM args with TopologyOf).
	Topology *Topology
	// Nearest is how many nearest candidates to return when nothing matches
	// (0 = 1).
	Nearest int
}

// Candidate is one recipe role a query was matched with.
type Candidate struct {
	Exact  bool     // model, precision, hardware, role and topology all match
	Misses []string // what differs when not Exact, e.g. "hardware: recipe h200, want b200"
	Score  int

	Kind        string // "yaml" (model recipe, site rendering) or "markdown" (legacy guide or YAML guide)
	File        string // recipe file, relative to the recipes root
	Section     string // Markdown heading chain (markdown only)
	Line        int    // Markdown fence line (markdown only)
	Variant     string // YAML variant key
	Strategy    string // YAML strategy id
	Recommended bool   // the site's recommended strategy for this hardware
	Model       string
	Hardware    string
	Precision   string
	Role        launch.Role
	Topology    Topology
	// Deployment is the full recipe deployment; Process indexes the matched
	// role's worker in it.
	Deployment launch.Deployment
	Process    int
	// Features are the recipe features (features.<key>, with the mode of a
	// modal one) whose args the matched model YAML rendering carries, in
	// YAML order; empty for Markdown.
	Features []Feature
	// URL is the recipes.vllm.ai page with the query of this selection
	// (SiteQuery.URL), "" for Markdown.
	URL string
	// Command is the command the site shows for the matched role
	// (RoleCommand.Command: "vllm serve <model> \\ …"), "" for Markdown.
	Command string
	// Query is the site selection of the rendering (zero for Markdown).
	Query SiteQuery
	// Checkpoint is the Hugging Face repo the candidate serves (the
	// rendering's model argument; the guide's model for Markdown).
	Checkpoint string
	// CustomFeatures is true when the features were chosen to match the
	// InferenceX worker (MatchDeployment: opt-in features such as
	// speculative decoding switched on or off, or another mode) instead of
	// the site's default feature set; the rendering is then the command the
	// site's feature toggles produce, not one of its JSON files.
	CustomFeatures bool
	// Prose, when set, is the statement of the recipe's prose this
	// candidate is an alternate for (guide_prose.go): the rendering or guide
	// command with the settings the sentence states.
	Prose *prose.Statement

	rendering *Rendering // yaml only
	roleIdx   int        // rendering role index (yaml only)
}

// Where names the recipe place: "models/…yaml variant=… strategy=… hw=…" or
// "<file>:<line> § <section>".
func (c *Candidate) Where() string {
	if c.Kind == "yaml" {
		w := fmt.Sprintf("%s variant=%s strategy=%s hw=%s role=%s", c.File, c.Variant, c.Strategy, c.Hardware, c.Role)
		if c.CustomFeatures {
			fs := make([]string, len(c.Features))
			for i, f := range c.Features {
				fs[i] = f.String()
			}
			if len(fs) == 0 {
				fs = []string{"none"} // every feature switched off
			}
			w += " features=" + strings.Join(fs, ",")
		}
		if c.Query.KVOffload != "" && c.Query.KVOffload != c.Strategy {
			w += " kv_offload=" + c.Query.KVOffload
		}
		return w + c.proseWhere()
	}
	return fmt.Sprintf("%s:%d § %s", c.File, c.Line, c.Section) + c.proseWhere()
}

// proseWhere is " + prose <file>:<line> \"<sentence>\" (<setting>)" for a
// prose alternate, "" otherwise.
func (c *Candidate) proseWhere() string {
	if c.Prose == nil {
		return ""
	}
	return fmt.Sprintf(" + prose %s (%s)", c.Prose.Cite(), c.Prose.Summary())
}

// entry is one indexed recipe role.
type entry struct {
	kind        string
	file        string
	section     string
	line        int
	variant     string
	strategy    string
	recommended bool
	model       string // tree id / command model
	checkpoint  string // the served checkpoint (the command's model)
	family      string // parent recipe id (variant checkpoints map to it)
	space       bool   // a selection-space rendering (not a JSON API file)
	// kvLast: a kv_store strategy or a rendering with a composing
	// KV-offload option (ranked after the others by Match; read from the
	// rendering once, when the entry is made: a rendering never changes).
	kvLast    bool
	hardware  []string
	precision string
	role      launch.Role
	topo      Topology
	rendering *Rendering
	roleIdx   int // rendering role index
	block     *Block
	dep       *launch.Deployment // markdown only
	proc      int
	prose     *prose.Statement // a prose alternate (markdown; yaml: rendering.prose)
}

// Index is a searchable set of every vLLM recipe role under a recipes root:
// the site's renderings of every model YAML (variant × hw × strategy × role)
// and every launch command of the legacy Markdown and YAML guides.
type Index struct {
	Root    string
	site    *Site
	entries []entry
	family  map[string]string // lower-case checkpoint id → parent recipe id
	space   *spaceCache       // per-query selection-space renderings
	// prose holds each model YAML recipe's prose statements (relative
	// file → recipeProse), for the alternates of the selection space.
	prose map[string]*recipeProse
	// matches remembers Match's answers by query (nil: not remembered,
	// the zero Index).
	matches *matchMemo
}

// matchMemo is Match's answers by query (matchKey), for the Index's life:
// the points of a row's concurrencies and the parts of a run ask the same
// queries. Guarded by mu: the Index is shared.
type matchMemo struct {
	mu sync.Mutex
	m  map[matchKey][]Candidate
}

// matchKey is every field of a Query Match reads for its answer
// (ConfigKey is in its error messages only; a Topology by value).
type matchKey struct {
	framework, model, hardware, precision string
	role                                  launch.Role
	tp, ep, dp, nodes, nearest            int
	dpAttn, hasTopo                       bool
	topo                                  Topology
}

// Open indexes the vllm-project/recipes tree at root. Files that fail to
// decode are reported in the error (joined, file:line:col), together with
// the index of everything else.
func Open(root string) (*Index, error) {
	site, scans, errs := scanDir(root, false)
	if site == nil {
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		return nil, fmt.Errorf("%s: not a vllm-project/recipes tree (no taxonomy.yaml)", root)
	}
	ix := &Index{Root: root, site: site, family: map[string]string{}, space: &spaceCache{}, prose: map[string]*recipeProse{}, matches: &matchMemo{m: map[matchKey][]Candidate{}}}
	for _, r := range site.Recipes {
		ix.family[strings.ToLower(r.HFID)] = r.HFID
		if mid, ok := str(getPath(r.root, "model", "model_id")); ok {
			ix.family[strings.ToLower(mid)] = r.HFID
		}
		for _, p := range pairs(get(r.root, "variants")) {
			if mid, ok := str(get(p.val, "model_id")); ok && mid != "" {
				if _, dup := ix.family[strings.ToLower(mid)]; !dup {
					ix.family[strings.ToLower(mid)] = r.HFID
				}
			}
		}
	}
	for _, f := range scans {
		rel := f.File
		if r, err := filepath.Rel(root, f.File); err == nil {
			rel = filepath.ToSlash(r)
		}
		var rp *recipeProse
		if len(f.Prose) > 0 {
			rp = &recipeProse{}
			for _, st := range f.Prose {
				st.File = rel
				rp.stmts = append(rp.stmts, st)
			}
			for _, r := range f.Renderings {
				rp.addRendering(r)
			}
			ix.prose[rel] = rp
		}
		for _, r := range f.Renderings {
			ix.entries = append(ix.entries, renderingEntries(rel, r)...)
		}
		for _, r := range f.Renderings {
			// the prose alternates, after the site's own renderings
			for _, alt := range rp.proseAlts(r) {
				ix.entries = append(ix.entries, renderingEntries(rel, alt)...)
			}
		}
		for _, b := range f.LaunchBlocks() {
			deps := GuideDeployments(b)
			proseOf := map[int]*prose.Statement{}
			if rp != nil && len(deps) > 0 {
				hws := b.Hardware
				if len(hws) == 0 {
					hws = b.ProseHardware
				}
				n := len(deps) // the block's deployments, not its deltas' alternates
				if len(b.Deltas) > 0 && n == 1+len(b.Deltas) {
					n = 1
				}
				for si := range rp.stmts {
					for di := 0; di < n; di++ {
						if alt, ok := rp.guideProse(&rp.stmts[si], &deps[di], hws, deps[di].Model); ok {
							alt.Source.Section = deps[di].Source.Section
							if alt.Source.Section == "" {
								alt.Source.Section = b.Section()
							}
							alt.Source.Section += fmt.Sprintf(" [prose %s:%d]", rp.stmts[si].File, rp.stmts[si].Line)
							alt.Hardware = deps[di].Hardware
							deps = append(deps, alt)
							proseOf[len(deps)-1] = &rp.stmts[si]
						}
					}
				}
			}
			for di := range deps {
				d := &deps[di]
				hws := b.Hardware
				if len(hws) == 0 {
					hws = b.ProseHardware
				}
				if d.Hardware != "" && !slices.Contains(hws, d.Hardware) {
					hws = []string{d.Hardware} // a prose delta "on H100"
				}
				section := b.Section()
				if d.Source.Section != "" {
					section = d.Source.Section // alternates are told apart
				}
				for pi := range d.Processes {
					p := &d.Processes[pi]
					if pi > 0 && p.Role == d.Processes[0].Role {
						continue // follower rank
					}
					model := d.Model
					if _, ok := launch.Lookup(p.Args, "--model"); ok && model == "" {
						v, _ := launch.Lookup(p.Args, "--model")
						model = v[0]
					}
					ix.entries = append(ix.entries, entry{kind: "markdown", file: rel, section: section, line: b.Line,
						model: model, checkpoint: model, family: ix.familyOf(model), hardware: hws, role: p.Role,
						precision: precisionOf(model, b.Section()), topo: TopologyOf(p.Args), block: b, dep: d, proc: pi, prose: proseOf[di]})
				}
			}
		}
	}
	return ix, errors.Join(errs...)
}

// renderingEntries are the engine roles of one rendering (the head of a
// multi-node engine represents its followers), rel its recipe file.
func renderingEntries(rel string, r *Rendering) []entry {
	prec := strOr(getPath(r.Recipe.root, "variants", r.Variant, "precision"), "")
	var out []entry
	for i := range r.Roles {
		rc := &r.Roles[i]
		role := launch.RoleAgg
		switch rc.Name {
		case "prefill":
			role = launch.RolePrefill
		case "decode":
			role = launch.RoleDecode
		case "worker":
			continue // follower ranks: the head represents the engine
		}
		ck := ""
		if len(rc.Argv) > 2 {
			ck = rc.Argv[2].Text
		}
		out = append(out, entry{kind: "yaml", file: rel, variant: r.Variant, strategy: r.Strategy,
			recommended: r.Recommended, model: r.Tree, checkpoint: ck, family: r.Recipe.HFID, hardware: []string{r.Hardware},
			precision: prec, role: role, topo: topologyOfTokens(rc.Argv[2:]), rendering: r, roleIdx: i,
			kvLast: strings.HasPrefix(r.Strategy, "kv_store") || r.KVOffload != ""})
	}
	return out
}

func (ix *Index) familyOf(model string) string {
	if f, ok := ix.family[strings.ToLower(model)]; ok {
		return f
	}
	return model
}

// Len is the number of indexed recipe roles.
func (ix *Index) Len() int { return len(ix.entries) }

// Match finds the recipe roles covering q. Exact candidates (same model or
// variant checkpoint of it, precision, hardware, role and topology) come
// first, model YAML before Markdown, recommended before alternatives,
// kv-store renderings and those with a composing KV-offload option
// (Simple, LMCache …) last. When nothing matches exactly, the q.Nearest
// (default 1) best-scoring candidates are returned with Exact false and
// Misses set. It returns an error for a query without a model or a
// framework outside the vLLM family.
func (ix *Index) Match(q Query) ([]Candidate, error) {
	if ix.matches == nil {
		return ix.match(q)
	}
	k := matchKey{framework: q.Framework, model: q.Model, hardware: q.Hardware, precision: q.Precision, role: q.Role,
		tp: q.TP, ep: q.EP, dp: q.DP, nodes: q.Nodes, nearest: q.Nearest, dpAttn: q.DPAttn, hasTopo: q.Topology != nil}
	if q.Topology != nil {
		k.topo = *q.Topology
	}
	ix.matches.mu.Lock()
	cs, ok := ix.matches.m[k]
	ix.matches.mu.Unlock()
	if !ok {
		var err error
		if cs, err = ix.match(q); err != nil {
			return nil, err // (names the query's config key: never kept)
		}
		ix.matches.mu.Lock()
		ix.matches.m[k] = cs
		ix.matches.mu.Unlock()
	}
	return cloneCandidates(cs), nil
}

// cloneCandidates copies a remembered answer for a caller, as deep as a
// new Match made it: the slice, and in each candidate its Misses, Features
// and Deployment (launch.Deployment.Clone): a caller that edits its answer
// edits no other's.
func cloneCandidates(cs []Candidate) []Candidate {
	if cs == nil {
		return nil
	}
	out := slices.Clone(cs)
	for i := range out {
		out[i].Misses = slices.Clone(out[i].Misses)
		out[i].Features = slices.Clone(out[i].Features)
		out[i].Deployment = out[i].Deployment.Clone()
	}
	return out
}

// match is Match without the memo.
func (ix *Index) match(q Query) ([]Candidate, error) {
	if strings.TrimSpace(q.Model) == "" {
		return nil, fmt.Errorf("query %s: no model", q.ConfigKey)
	}
	if q.Framework != "" && !VLLMFamily(q.Framework) {
		return nil, fmt.Errorf("query %s: framework %q: %w", q.ConfigKey, q.Framework, ErrNotVLLM)
	}
	role := q.Role
	if role == "" {
		role = launch.RoleAgg
	}
	hw := queryHardware(q.Hardware)
	qt := QueryTopology(q.TP, q.EP, q.DP, q.DPAttn)
	if q.Topology != nil {
		qt = *q.Topology
	}
	qfam := ix.familyOf(q.Model)
	type scored struct {
		e     *entry
		score int
		miss  uint8   // bit set of missed keys
		dist  float64 // topology distance (topoDistance), breaks score ties
		rank  int
	}
	const (
		missModel = 1 << iota
		missCheckpoint
		missHardware
		missRole
		missTopology
	)
	checkTopo := q.TP > 0 || q.EP > 0 || q.DP > 0 || q.Topology != nil
	var extra []entry
	if hw != "" {
		extra = ix.spaceEntries(q.Model, hw)
	}
	less := func(a, b scored) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		return a.rank < b.rank
	}
	// One pass keeps the exact entries and, while there is none, the
	// best q.Nearest of the rest (partial selection, stable: earlier wins
	// ties); those are only read when nothing is exact.
	var exact, best []scored
	nearest := max(q.Nearest, 1)
	// the last precision compared, and its answer (entries of one recipe
	// come together)
	lastPrec, lastPrecOK := "", false
	for i := range len(ix.entries) + len(extra) {
		var e *entry
		if i < len(ix.entries) {
			e = &ix.entries[i]
		} else {
			e = &extra[i-len(ix.entries)]
		}
		var miss uint8
		score := 0
		// The variant is chosen by the checkpoint InferenceX serves;
		// precision only breaks ties.
		if strings.EqualFold(e.model, q.Model) || strings.EqualFold(e.family, qfam) {
			score += 22
			if strings.EqualFold(e.checkpoint, q.Model) {
				score += 10
			} else {
				miss |= missCheckpoint
			}
		} else {
			miss |= missModel
		}
		if q.Precision == "" || e.precision == "" {
			score += 4 // below the checkpoint: precision only breaks ties
		} else {
			if e.precision != lastPrec {
				lastPrec, lastPrecOK = e.precision, PrecisionMatches(q.Precision, e.precision)
			}
			if lastPrecOK {
				score += 4
			}
		}
		hwOK := q.Hardware == ""
		for _, h := range e.hardware {
			if h == hw {
				hwOK = true
			}
		}
		if hwOK {
			score += 16
		} else {
			miss |= missHardware
		}
		if e.role == role {
			score += 8
		} else {
			miss |= missRole
		}
		if checkTopo {
			if e.topo.Mode == qt.Mode {
				score += 2
			}
			if e.topo.GPUs == qt.GPUs {
				score += 2
			}
			if !e.topo.Same(qt) {
				miss |= missTopology
			}
		}
		rank := 0
		if e.kind == "markdown" {
			rank += 4
		}
		if !e.recommended {
			rank++
		}
		if e.kvLast {
			rank += 2
		}
		if e.space {
			rank++
		}
		dist := 0.0
		if checkTopo {
			dist = topoDistance(e.topo, qt)
		}
		s := scored{e: e, score: score, miss: miss, dist: dist, rank: rank}
		if miss == 0 {
			exact = append(exact, s)
			continue
		}
		if len(exact) > 0 {
			continue
		}
		pos := len(best)
		for pos > 0 && less(s, best[pos-1]) {
			pos--
		}
		if pos >= nearest {
			continue
		}
		best = append(best, scored{})
		copy(best[pos+1:], best[pos:])
		best[pos] = s
		if len(best) > nearest {
			best = best[:nearest]
		}
	}
	var all []scored
	if len(exact) == 0 {
		all = best
	} else {
		sort.SliceStable(exact, func(i, j int) bool { return less(exact[i], exact[j]) })
		all = exact
	}
	misses := func(s scored) []string {
		e := s.e
		var out []string
		if s.miss&missModel != 0 {
			out = append(out, fmt.Sprintf("model: recipe %s, want %s", e.model, q.Model))
		}
		if s.miss&missCheckpoint != 0 {
			out = append(out, fmt.Sprintf("checkpoint: recipe variant %s serves %s, want %s", e.variant, e.checkpoint, q.Model))
		}
		if s.miss&missHardware != 0 {
			h := strings.Join(e.hardware, "/")
			if h == "" {
				h = "unstated"
			}
			out = append(out, fmt.Sprintf("hardware: recipe %s, want %s", h, hw))
		}
		if s.miss&missRole != 0 {
			out = append(out, fmt.Sprintf("role: recipe %s, want %s", e.role, role))
		}
		if s.miss&missTopology != 0 {
			out = append(out, fmt.Sprintf("topology: recipe %s, want %s", e.topo, qt))
		}
		return out
	}
	var out []Candidate
	for _, s := range all {
		if s.miss != 0 {
			break
		}
		out = append(out, ix.candidate(s.e, true, s.score, nil))
	}
	if len(out) > 0 {
		return out, nil
	}
	n := q.Nearest
	if n <= 0 {
		n = 1
	}
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, ix.candidate(all[i].e, false, all[i].score, misses(all[i])))
	}
	return out, nil
}

// topoDistance is how far a recipe layout r is from the wanted one q
// beyond the mode and GPU count Match scores: the sum, over TP, DP and PP,
// of |log2(r/q)| (a factor of two is 1; a size that is a placeholder, 0,
// counts 4), plus 1 when expert parallelism disagrees. It orders
// candidates of equal score only, so among the selections that miss the
// topology the one whose sizes are nearest comes first: a TP4×DEP4 worker
// (tp 4, dp 4, EP) is nearest to multi_node_tp_dp's TP4×DP4 (distance 1:
// EP), not to multi_node_tp_pp's TP4(pp4) of the same GPU count (distance
// 5), and a TP8×DEP4 worker to TP8×DP2 (2) before a single-node TP8 (3).
// Strategies: vllm-project/recipes strategies/multi_node_tp_dp.yaml
// (parallelism tp_dp: TP within each node, DP across nodes),
// strategies/multi_node_tp_pp.yaml (tp_pp).
func topoDistance(r, q Topology) float64 {
	d := 0.0
	for _, p := range [][2]int{{r.TP, q.TP}, {r.DP, q.DP}, {r.PP, q.PP}} {
		switch {
		case p[0] == p[1]:
		case p[0] <= 0 || p[1] <= 0:
			d += 4
		default:
			d += math.Abs(math.Log2(float64(p[0]) / float64(p[1])))
		}
	}
	if r.EP != q.EP {
		d++
	}
	return d
}

func (ix *Index) candidate(e *entry, exact bool, score int, misses []string) Candidate {
	c := Candidate{Exact: exact, Misses: misses, Score: score, Kind: e.kind, File: e.file, Section: e.section, Line: e.line,
		Variant: e.variant, Strategy: e.strategy, Recommended: e.recommended, Model: e.model,
		Precision: e.precision, Role: e.role, Topology: e.topo}
	if len(e.hardware) > 0 {
		c.Hardware = e.hardware[0]
	}
	c.Checkpoint = e.checkpoint
	c.Prose = e.prose
	if e.rendering != nil {
		c.Prose = e.rendering.prose
	}
	if e.rendering != nil {
		c.rendering, c.roleIdx = e.rendering, e.roleIdx
		c.URL, c.Query = e.rendering.URL, e.rendering.Query
		c.Command = e.rendering.Roles[e.roleIdx].Command()
		c.Features = e.rendering.Features
		c.Deployment = e.rendering.Deployment()
		for i, p := range c.Deployment.Processes {
			if p.Kind == launch.KindWorker && p.Role == e.role {
				c.Process = i
				break
			}
		}
	} else if e.dep != nil {
		c.Deployment = *e.dep
		c.Process = e.proc
	}
	return c
}

// RoleMatch is the result of matching one worker role of a deployment.
type RoleMatch struct {
	Role       launch.Role
	Process    int // index of the deployment's first worker of Role
	Query      Query
	Candidates []Candidate // exact ones, or the nearest (Exact false)
}

// Covered reports whether some recipe role matches exactly.
func (m *RoleMatch) Covered() bool { return len(m.Candidates) > 0 && m.Candidates[0].Exact }

// MatchDeployment matches every worker role (agg, prefill, decode) of an
// InferenceX deployment (vllm, dynamo-vllm or llmd-vllm; the workers' args
// are vLLM engine args whatever the launcher) against the recipes: model
// d.Model, hardware d.Hardware, the given precision (InferenceX master
// config `precision`, "" = any) and the topology read from the first
// worker of each role with TopologyOf.
//
// Recipe features are matched to what the worker runs: a model YAML
// candidate whose opt-in features (opt_in_features,
// hardware_opt_in_features.<hw>) the worker uses — every option of the
// feature's args set, e.g. --speculative-config for spec_decoding — is
// preceded by its re-render with those features on (and opt-in features
// the worker does not use off), modal features in the mode that best
// matches the worker, marked CustomFeatures. Candidates whose speculative
// decoding agrees with the worker's (SpecDecoding) come first.
func (ix *Index) MatchDeployment(d *launch.Deployment, framework, precision string) ([]RoleMatch, error) {
	var out []RoleMatch
	seen := map[launch.Role]bool{}
	for i := range d.Processes {
		p := &d.Processes[i]
		if p.Kind != launch.KindWorker || seen[p.Role] {
			continue
		}
		seen[p.Role] = true
		topo := TopologyOf(p.Args)
		role := p.Role
		if role == launch.RoleNone {
			role = launch.RoleAgg
		}
		q := Query{ConfigKey: d.Source.ConfigKey, Framework: framework, Model: d.Model, Hardware: d.Hardware,
			Precision: precision, Role: role, Topology: &topo}
		cs, err := ix.Match(q)
		if err != nil {
			return nil, err
		}
		cs = ix.withFeatures(cs, p.Args)
		out = append(out, RoleMatch{Role: role, Process: i, Query: q, Candidates: cs})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: deployment has no worker process", d.Source.File)
	}
	return out, nil
}
