package recipes

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/prose"
)

// siteDetail names the launcher whose rules this file ports.
const siteDetail = "recipes.vllm.ai command-synthesis (vllm-project/recipes src/lib/command-synthesis.js)"

// Token is one argv token with the place it came from.
type Token struct {
	Text   string
	Origin launch.Origin
}

// EnvType is the JSON type an env value keeps in the site's JSON (§9.7):
// "string", "number", "bool" or "null".
type EnvType string

// EnvEntry is one environment variable of a rendered role, in assignment
// order (a later assignment keeps the first position).
type EnvEntry struct {
	Name   string
	Value  string  // the value as text ("0" for the number 0)
	Type   EnvType // JSON type of the value in the site's JSON
	Origin launch.Origin
}

// RoleCommand is the command of one process of a rendering.
type RoleCommand struct {
	// Name is single, head, worker (Rank ≥ 1), prefill or decode; kv-store
	// renderings use the same names for the vLLM instance processes.
	Name string
	Rank int
	Argv []Token // "vllm", "serve", model id, then the kept units
	Env  []EnvEntry
	// pd pool meta (prefill/decode only), from the un-clamped mode (§9.9).
	Nodes       int
	Parallelism string
	TP          int
	DPLocal     int
	DPSize      int
	PoolGPUs    int
}

// Rendering is one command set the site renders for (tree, variant, hw,
// strategy) — one JSON rendering of vllm-project/recipes
// scripts/build-recipes-api.mjs renderCommand.
type Rendering struct {
	Tree            string // hf id of the tree (recipe or promoted variant checkpoint)
	Recipe          *Recipe
	Variant         string
	Hardware        string
	GPUsPerNode     int
	Strategy        string // strategy id, or the kv-store id
	ServingStrategy string // kv_store_lb only
	DeployType      string // single_node | multi_node | pd_cluster | kv_store_lb
	NodeCount       int
	Instances       int  // kv_store_lb only
	Recommended     bool // the hw's recommended rendering
	// Paths are the JSON files (relative to public/) that carry this rendering.
	Paths []string
	Env   []EnvEntry // top-level env ({} for pd_cluster)
	// DockerImage is the image the rendering's docker_command runs
	// (`docker_image`, §9.8; rctx.dockerImage): the engine build the
	// recipe documents for this hardware; "" when the site shows none.
	DockerImage string
	Roles       []RoleCommand
	Router      string // pd router / kv router command string ("" when none)
	// Master and Store are the Mooncake master and store-service commands of
	// a kv_store_lb rendering (the kv-store document's mooncake_master.command
	// and mooncake_store_config.command; "" when absent).
	Master, Store string
	// Features are the recipe features whose args this rendering's commands
	// carry (§9.5), in YAML order; see Feature.
	Features []Feature
	// CustomFeatures is true for a rendering whose features were chosen
	// (opt-in features switched on or off, or a non-default mode) instead
	// of the site's default feature set (§9.2 step 9); such a rendering is
	// not a JSON file of the site (Paths is empty), it is the command the
	// site's feature toggles produce.
	CustomFeatures bool
	// KVOffload is the composing KV-offload option of the rendering (a
	// taxonomy.yaml kv_offload key such as "simple" or "lmcache"; "" for
	// none): its args are appended after the feature args (so its
	// --kv-transfer-config wins the last-wins dedupe) and its env after the
	// strategy's (vllm-project/recipes src/lib/command-synthesis.js
	// resolveCommand, buildArgs step 8 and buildEnv). Such a rendering is
	// not a JSON file of the site (Paths is empty); the KV Offload row of
	// the builder shows it.
	KVOffload string
	// Companion is the option's companion command (kv_offload.<key>
	// .companion.command, end-trimmed: LMCache's `lmcache server …`, which
	// the site shows on its own tab to run before vllm serve); "" when none.
	Companion string
	// Query is the recipes.vllm.ai selection that shows this rendering and
	// URL the page link with it (SiteQuery.URL).
	Query SiteQuery
	URL   string

	ctx  *rctx   // the per-hw set it was rendered in (for feature re-renders)
	reqN int     // node count asked of renderStrategy
	pick *pdPick // the PD pools asked of renderStrategy (nil: the JSON API's)
	// spaceRole is the pool a selection-space rendering varies ("" = all roles).
	spaceRole string
	// prose is the statement whose settings this rendering carries (a
	// prose alternate, guide_prose.go); nil for the site's own.
	prose *prose.Statement
}

// Role returns the first role command named name, or nil.
func (r *Rendering) Role(name string) *RoleCommand {
	for i := range r.Roles {
		if r.Roles[i].Name == name {
			return &r.Roles[i]
		}
	}
	return nil
}

// Texts returns the argv as plain strings.
func (rc *RoleCommand) Texts() []string {
	out := make([]string, len(rc.Argv))
	for i, t := range rc.Argv {
		out[i] = t.Text
	}
	return out
}

// errNonString marks a rendering the site drops ("command synthesis failed").
var errNonString = errors.New("non-string arg token")

// rawTok is a token before finishing (§9.6).
type rawTok struct {
	node *yaml.Node // nil for computed tokens
	text string
	file string
}

// ---------------------------------------------------------------------------
// Lookup conventions (§9.1).

func (s *Site) genBlock(x *yaml.Node, hw *HardwareProfile) *yaml.Node {
	if b := get(x, hw.Gen()); b != nil && isMap(b) {
		return b
	}
	if hw.Brand == "NVIDIA" {
		if b := get(x, "nvidia"); !isNull(b) {
			return b
		}
	}
	return nil
}

func hwKeyed(m *yaml.Node, hw *HardwareProfile) *yaml.Node {
	m = deref(m)
	if isNull(m) {
		return nil
	}
	if !isMap(m) {
		return m
	}
	for _, k := range []string{hw.ID, hw.Gen(), strings.ToLower(hw.Brand), "default"} {
		if v := get(m, k); !isNull(v) {
			return v
		}
	}
	return nil
}

func numOr0(n *yaml.Node) float64 {
	v, _ := num(n)
	return v
}

// ---------------------------------------------------------------------------
// Enumeration (§9.2).

// treeSpec is one tree: a recipe rendered with one variant.
type treeSpec struct {
	id      string
	recipe  *Recipe
	variant string
}

// isOmni reports a recipe whose meta.tasks lists omni (never rendered).
func isOmni(r *Recipe) bool { return containsStr(getPath(r.root, "meta", "tasks"), "omni") }

// trees lists the trees of the loaded recipes in build order.
func (s *Site) trees() []treeSpec {
	var out []treeSpec
	idx := map[string]int{}
	put := func(t treeSpec) {
		if i, ok := idx[t.id]; ok {
			out[i] = t
			return
		}
		idx[t.id] = len(out)
		out = append(out, t)
	}
	for _, r := range s.Recipes {
		if isOmni(r) {
			continue
		}
		put(treeSpec{id: r.HFID, recipe: r, variant: "default"})
		for _, p := range pairs(get(r.root, "variants")) {
			mid, ok := str(get(p.val, "model_id"))
			if !ok || !strings.Contains(mid, "/") || s.recipeIDs[mid] {
				continue
			}
			put(treeSpec{id: mid, recipe: r, variant: p.key})
		}
	}
	return out
}

type constraint struct{ brand, gen string }

func variantConstraint(vn *yaml.Node) *constraint {
	if ph := get(vn, "precision_hardware"); isMap(ph) {
		return &constraint{brand: strOr(get(ph, "brand"), ""), gen: strOr(get(ph, "generation"), "")}
	}
	switch strOr(get(vn, "precision"), "") {
	case "nvfp4", "fp4":
		return &constraint{brand: "NVIDIA", gen: "blackwell"}
	}
	return nil
}

func (c *constraint) match(hw *HardwareProfile) bool {
	if c == nil {
		return true
	}
	if c.brand != "" && c.brand != hw.Brand {
		return false
	}
	if c.gen != "" {
		for _, g := range hw.Generations {
			if g == c.gen {
				return true
			}
		}
		return false
	}
	return true
}

func supportedHW(vn *yaml.Node, hw string) bool {
	l := seq(get(vn, "supported_hardware"))
	return len(l) == 0 || containsStr(get(vn, "supported_hardware"), hw)
}

func fits(vn *yaml.Node, hw *HardwareProfile) bool {
	v := numOr0(get(vn, "vram_minimum_gb"))
	return v == 0 || hw.VRAMGB == 0 || v <= hw.VRAMGB
}

// Renderings renders every tree of the loaded recipes, in build order. A
// rendering the site would drop (a non-string token) is left out.
//
// The trees are rendered on every CPU (eachIndex), each goroutine with its
// own memo of node origins (a function of the node), all sharing one
// tokenInterner; the renderings are listed tree by tree in build order.
func (s *Site) Renderings() []*Rendering {
	ts := s.trees()
	toks := &tokenInterner{}
	pcs := make([]posCache, workersFor(len(ts)))
	for w := range pcs {
		pcs[w] = posCache{site: s, m: map[*yaml.Node]launch.Origin{}, toks: toks}
	}
	per := make([][]*Rendering, len(ts))
	eachIndex(len(ts), len(pcs), func(w, i int) { per[i] = s.renderTree(ts[i], pcs[w]) })
	var out []*Rendering
	for _, rs := range per {
		out = append(out, rs...)
	}
	return out
}

// posCache memoises the Origin of each YAML node for one Renderings call:
// Path is the node's YAML path in its file (e.g.
// "variants.nvfp4.extra_args[1]"), Detail is "file:line:col".
type posCache struct {
	site *Site
	m    map[*yaml.Node]launch.Origin
	// toks, when set, shares equal command token lists among the
	// renderings of the call (tokenInterner).
	toks *tokenInterner
}

// tokenInterner hands out one slice for equal token lists (every Text and
// Origin equal, in order): most renderings of a recipe tree repeat the
// same command on other hardware or strategies, and a Rendering's tokens
// are only read (a caller that edits a role's Argv clones it first,
// guide_prose.go), and an append to a shared slice copies it (its capacity
// ends at its length). Safe for concurrent use (the trees of one
// Renderings call are rendered at once); which of two equal lists is kept
// does not matter, they are equal.
type tokenInterner struct {
	mu   sync.Mutex
	seed maphash.Seed
	m    map[uint64][][]Token
}

// intern returns the kept slice equal to toks, keeping toks when there is
// none; t nil returns toks.
func (t *tokenInterner) intern(toks []Token) []Token {
	if t == nil || len(toks) == 0 {
		return toks
	}
	return t.keep(toks, false)
}

// internCopy is intern of a scratch list the caller reuses: a copy of
// toks (capacity at its length) is what is kept and returned when no
// equal list is kept; t nil returns a copy.
func (t *tokenInterner) internCopy(toks []Token) []Token {
	if t == nil || len(toks) == 0 {
		return slices.Clone(toks)[:len(toks):len(toks)]
	}
	return t.keep(toks, true)
}

// keep is intern and internCopy (clone: keep a copy of toks) for a
// non-nil t and a non-empty toks.
func (t *tokenInterner) keep(toks []Token, clone bool) []Token {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[uint64][][]Token{}
		t.seed = maphash.MakeSeed()
	}
	var h maphash.Hash
	h.SetSeed(t.seed)
	for _, tk := range toks {
		h.WriteString(tk.Text)
		h.WriteByte(0)
		h.WriteString(string(tk.Origin.Kind))
		h.WriteByte(0)
		h.WriteString(tk.Origin.Path)
		h.WriteByte(0)
		h.WriteString(tk.Origin.Detail)
		h.WriteByte(1)
	}
	k := h.Sum64()
	for _, kept := range t.m[k] {
		if slices.Equal(kept, toks) {
			return kept
		}
	}
	if clone {
		toks = slices.Clone(toks)
	}
	toks = toks[:len(toks):len(toks)]
	t.m[k] = append(t.m[k], toks)
	return toks
}

func (pc posCache) origin(file string, n *yaml.Node) launch.Origin {
	if o, ok := pc.m[n]; ok {
		return o
	}
	o := launch.Origin{Kind: launch.OriginRecipe, Path: file, Detail: pos(file, n)}
	if d := pc.site.docs[file]; d != nil {
		if p, ok := d.paths[n]; ok {
			o.Path = p
		}
	}
	pc.m[n] = o
	return o
}

func (s *Site) renderTree(t treeSpec, pc posCache) []*Rendering {
	r := t.recipe
	vn := get(get(r.root, "variants"), t.variant)
	c := variantConstraint(vn)
	metaHW := getPath(r.root, "meta", "hardware")
	var cands []*HardwareProfile
	isCand := map[string]bool{}
	for _, hw := range s.Hardware {
		if !c.match(hw) || strOr(get(metaHW, hw.ID), "") == "unsupported" || !supportedHW(vn, hw.ID) {
			continue
		}
		if hw.Restricted && get(metaHW, hw.ID) == nil {
			continue
		}
		cands = append(cands, hw)
		isCand[hw.ID] = true
	}
	def := ""
	if d, ok := str(getPath(r.root, "meta", "default_hardware")); ok && isCand[d] {
		def = d
	}
	if def == "" && c != nil && c.gen == "blackwell" {
		for _, h := range []string{"b200", "gb200"} {
			if isCand[h] {
				def = h
				break
			}
		}
	}
	if def == "" && isCand["h200"] {
		def = "h200"
	}
	if def == "" {
		sorted := append([]*HardwareProfile(nil), cands...)
		rank := func(h *HardwareProfile) int {
			switch h.Brand {
			case "NVIDIA":
				return 0
			case "AMD":
				return 1
			}
			return 2
		}
		sort.SliceStable(sorted, func(i, j int) bool {
			if rank(sorted[i]) != rank(sorted[j]) {
				return rank(sorted[i]) < rank(sorted[j])
			}
			return sorted[i].ID < sorted[j].ID
		})
		if len(sorted) > 0 {
			def = sorted[0].ID
		} else {
			def = "h200"
		}
	}
	hwList := []string{def}
	for _, h := range cands {
		if h.ID != def {
			hwList = append(hwList, h.ID)
		}
	}
	var out []*Rendering
	for i, h := range hwList {
		hw := s.hwByID[h]
		if hw == nil {
			if i == 0 {
				return nil
			}
			continue
		}
		set := s.renderHW(t, hw, i == 0, pc)
		if len(set) == 0 && i == 0 {
			return nil
		}
		out = append(out, set...)
	}
	return out
}

// rctx carries one per-hw rendering set's parameters.
type rctx struct {
	s        *Site
	t        treeSpec
	r        *Recipe
	v        string
	vn       *yaml.Node
	hw       *HardwareProfile
	offered  []string
	features []string
	pc       posCache
	// choose, when set, replaces the default feature set (site_features.go).
	choose featureChooser
	// kvOpts is taxonomy.yaml kv_offload (the composing KV-offload options;
	// nil: none are rendered).
	kvOpts *yaml.Node
}

// finishScratch holds build.finish's working lists between calls (kept
// in Site.finish, a pool: renderings of one site run on several
// goroutines); only the interned result leaves finish (issue 24: they
// were 2.5% of a coverage run's allocation).
type finishScratch struct {
	toks  []Token
	units []finishUnit
	last  map[string]int
	out   []Token
}

// takeFinish is a scratch for build.finish: one of s.finish, or a new
// one (empty lists, an empty map).
func (s *Site) takeFinish() *finishScratch {
	if s.finish != nil {
		if sc, ok := s.finish.Get().(*finishScratch); ok {
			return sc
		}
	}
	return &finishScratch{last: map[string]int{}}
}

// giveFinish empties sc (no strings kept alive by it) and puts it back in
// s.finish.
func (s *Site) giveFinish(sc *finishScratch) {
	clear(sc.toks)
	clear(sc.units)
	clear(sc.out)
	clear(sc.last)
	sc.toks, sc.units, sc.out = sc.toks[:0], sc.units[:0], sc.out[:0]
	if s.finish != nil {
		s.finish.Put(sc)
	}
}

// finishUnit is a flag and its value (or a lone token) of finish's
// tokens: toks[start:end].
type finishUnit struct {
	flag       string
	start, end int
}

func (x *rctx) offeredHas(id string) bool {
	for _, o := range x.offered {
		if o == id {
			return true
		}
	}
	return false
}

func (s *Site) isKV(id string) bool {
	sd := s.stratByID[id]
	return sd != nil && sd.deployType == "kv_store_lb"
}

func (s *Site) renderHW(t treeSpec, hw *HardwareProfile, isDefault bool, pc posCache) []*Rendering {
	r := t.recipe
	x := &rctx{s: s, t: t, r: r, v: t.variant, hw: hw, pc: pc}
	variants := get(r.root, "variants")
	x.vn = get(variants, x.v)
	// 1. Variant substitution.
	if !hw.Scalable && !fits(x.vn, hw) {
		best, bestV := "", -1.0
		for _, p := range pairs(variants) {
			if !variantConstraint(p.val).match(hw) || !supportedHW(p.val, hw.ID) || !(hw.Scalable || fits(p.val, hw)) {
				continue
			}
			if v := numOr0(get(p.val, "vram_minimum_gb")); v > bestV {
				best, bestV = p.key, v
			}
		}
		if best == "" {
			return nil
		}
		x.v, x.vn = best, get(variants, best)
	}
	list := x.setup()
	// 5. Node count.
	baseNodes := 1
	if !fits(x.vn, hw) && hw.Scalable {
		for _, id := range list {
			if strings.HasPrefix(id, "multi_node_") {
				baseNodes = 2
				break
			}
		}
	}
	return x.renderSet(list, baseNodes, isDefault)
}

// setup fills the offered strategies and the default feature set of x
// (§9.2 steps 2 and 9) and returns the strategy list (step 3).
func (x *rctx) setup() []string {
	s, r, hw := x.s, x.r, x.hw
	// 2. Offered strategies.
	compat := get(r.root, "compatible_strategies")
	for _, c := range seq(compat) {
		if v, ok := str(c); ok {
			x.offered = append(x.offered, v)
		}
	}
	for _, p := range pairs(get(r.root, "strategy_hardware")) {
		if containsStr(compat, p.key) {
			continue
		}
		for _, q := range pairs(p.val) {
			if strOr(q.val, "") == "supported" {
				x.offered = append(x.offered, p.key)
				break
			}
		}
	}
	// 3. Strategy list.
	var list []string
	seen := map[string]bool{}
	cands := append([]string(nil), x.offered...)
	for _, sd := range s.strategies {
		if sd.deployType == "kv_store_lb" {
			cands = append(cands, sd.name)
		}
	}
	for _, id := range cands {
		if seen[id] {
			continue
		}
		seen[id] = true
		if x.keepStrategy(id) {
			list = append(list, id)
		}
	}
	// 9. Features.
	opt := get(r.root, "opt_in_features")
	hwOpt := get(get(r.root, "hardware_opt_in_features"), hw.ID)
	forced := get(x.vn, "default_modes")
	for _, p := range pairs(get(r.root, "features")) {
		if (containsStr(opt, p.key) || containsStr(hwOpt, p.key)) && get(forced, p.key) == nil {
			continue
		}
		x.features = append(x.features, p.key)
	}
	return list
}

// renderSet renders the recommended rendering and the alternatives of one
// hardware (§9.2 steps 6–8).
func (x *rctx) renderSet(list []string, baseNodes int, isDefault bool) []*Rendering {
	s, t, hw := x.s, x.t, x.hw
	// 6. Recommended strategy.
	rec := x.recommend(baseNodes)
	if !contains(list, rec) {
		alt := ""
		for _, id := range list {
			if !s.isKV(id) && id != "pd_cluster" {
				alt = id
				break
			}
		}
		if alt == "" {
			for _, id := range list {
				if !s.isKV(id) {
					alt = id
					break
				}
			}
		}
		if alt != "" {
			rec = alt
		}
	}
	// 7. Recommended rendering.
	recN := baseNodes
	if sd := s.stratByID[rec]; sd != nil && sd.deployType == "multi_node" && recN < 2 {
		recN = 2
	}
	if n := x.nodesFor(rec); n > recN {
		recN = n
	}
	recR, ok := x.renderStrategy(rec, recN)
	if !ok {
		return nil
	}
	recR.Recommended = true
	recR.Paths = []string{t.id + "/hw/" + hw.ID + ".json"}
	if isDefault {
		recR.Paths = append(recR.Paths, t.id+".json")
	}
	out := []*Rendering{recR}
	defer func() { x.pc = posCache{} }() // renderings keep x for feature re-renders, not the cache
	// 8. Alternatives.
	for _, id := range list {
		if id == rec {
			continue
		}
		n := x.nodesFor(id)
		if sd := s.stratByID[id]; sd != nil && sd.deployType == "multi_node" && n < 2 {
			n = 2
		}
		if id == "pd_cluster" {
			n = 1
		}
		alt, ok := x.renderStrategy(id, n)
		if !ok {
			continue
		}
		if isDefault {
			alt.Paths = []string{t.id + "/strategies/" + id + ".json"}
		} else {
			alt.Paths = []string{t.id + "/hw/" + hw.ID + "/strategies/" + id + ".json"}
		}
		out = append(out, alt)
	}
	return out
}

func contains(l []string, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

// keepStrategy is the §9.2 step 3 filter.
func (x *rctx) keepStrategy(id string) bool {
	s, hw := x.s, x.hw
	sd := s.stratByID[id]
	if sd == nil {
		return false
	}
	if sd.deployType == "kv_store_lb" {
		if !hw.Scalable || (hw.Brand != "NVIDIA" && hw.Brand != "AMD") {
			return false
		}
		return strOr(getPath(x.r.root, "kv_cache_strategy_hardware", id, hw.ID), "") != "unsupported"
	}
	// (a) supported here.
	if v := hwKeyed(get(get(x.r.root, "strategy_hardware"), id), hw); v != nil {
		if strOr(v, "") == "unsupported" {
			return false
		}
	} else if !containsStr(get(x.r.root, "compatible_strategies"), id) {
		return false
	}
	// (b) reachable.
	avail := hw.GPUCount
	if sd.deployType == "multi_node" || sd.deployType == "pd_cluster" {
		avail = 16 * hw.GPUCount
	}
	if avail < x.minGPUs(id) {
		return false
	}
	// (c) scalable.
	if !hw.Scalable && (strings.HasPrefix(id, "multi_node_") || id == "pd_cluster") {
		return false
	}
	return true
}

func blockAnswer(b *yaml.Node, key string) int {
	b = deref(b)
	if isNull(b) {
		return 0
	}
	if v, ok := num(b); ok {
		return int(v)
	}
	for _, k := range []string{key, "multi_node_" + key, "single_node_" + key} {
		if v := get(b, k); !isNull(v) {
			n, _ := num(v)
			return int(n)
		}
	}
	return 0
}

// minGPUs is §9.2 step 4 min_gpus(key).
func (x *rctx) minGPUs(key string) int {
	m := get(x.r.root, "strategy_min_gpus")
	if isNull(m) {
		return 0
	}
	if v, ok := num(m); ok {
		return int(v)
	}
	a := blockAnswer(m, key)
	if b := blockAnswer(get(m, x.hw.ID), key); b > a {
		a = b
	}
	return a
}

func (x *rctx) nodesFor(key string) int {
	n := int(math.Ceil(float64(x.minGPUs(key)) / float64(x.hw.GPUCount)))
	if n < 1 {
		n = 1
	}
	return n
}

// recommend is §9.2 recommend(n) over the offered strategies.
func (x *rctx) recommend(n int) string {
	if ds, ok := str(get(x.r.root, "default_strategy")); ok && x.offeredHas(ds) {
		if n > 1 && strings.HasPrefix(ds, "single_node_") {
			if sib := "multi_node_" + strings.TrimPrefix(ds, "single_node_"); x.offeredHas(sib) {
				return sib
			}
		} else {
			return ds
		}
	}
	if n > 1 {
		for _, c := range []string{"multi_node_tp", "multi_node_dep", "multi_node_tep"} {
			if x.offeredHas(c) {
				return c
			}
		}
	}
	if x.offeredHas("single_node_tp") {
		return "single_node_tp"
	}
	if len(x.offered) > 0 {
		return x.offered[0]
	}
	return "single_node_tp"
}

// ---------------------------------------------------------------------------
// One rendering.

// build carries one rendering's inputs (§9.3).
type build struct {
	*rctx
	sid       string
	S         *strategyDoc
	so        *yaml.Node
	N         int
	K         *strategyDoc // kv rendering only
	kvo       string       // composing KV-offload option key ("" = off)
	kvoNode   *yaml.Node   // taxonomy kv_offload.<kvo>
	instances int
	pdNodes   map[string]int
	modelID   string
	modelNode *yaml.Node
	modelFile string
	// chosen/custom are the features featureArgs applied (the same for
	// every role of the rendering) and whether they differ from the default.
	chosen   []Feature
	custom   bool
	recorded bool
	// featOn and fmode are the site's features / fmode selection of the
	// rendering (every feature switched on, in YAML order; "key:mode" of
	// each modal feature not in its default mode).
	featOn []string
	fmode  []string
	pick   *pdPick
	optBuf []featureOpt // featureOptions' reused buffer
	optArr [4]featureOpt
	rawBuf []rawTok // argv's reused buffer
}

// maxNodes bounds node, pool and instance counts so hostile input cannot
// make a rendering allocate without limit; no recipe comes near it.
const maxNodes = 4096

func (x *rctx) renderStrategy(id string, n int) (*Rendering, bool) {
	return x.renderPick(id, n, nil)
}

// renderPick renders strategy id on n nodes; for pd_cluster, pick (when
// not nil) sets each pool's mode and node count as the site's PD pool pills
// do (CommandBuilder.jsx pdNodes → command-synthesis.js resolveCommand).
func (x *rctx) renderPick(id string, n int, pick *pdPick) (*Rendering, bool) {
	return x.renderOffload(id, n, pick, "")
}

// renderOffload is renderPick with the composing KV-offload option kvo
// (a taxonomy kv_offload key, "" = off) selected on the KV Offload row; it
// fails when the site does not offer kvo for this selection (kvOption).
func (x *rctx) renderOffload(id string, n int, pick *pdPick, kvo string) (*Rendering, bool) {
	sd := x.s.stratByID[id]
	if sd == nil || n > maxNodes {
		return nil, false
	}
	b := &build{rctx: x, sid: id, S: sd, N: n, pick: pick}
	if kvo != "" {
		if b.kvoNode = x.kvOption(kvo, id); b.kvoNode == nil {
			return nil, false
		}
		b.kvo = kvo
	}
	b.modelFile = x.r.rel
	if mn := get(x.vn, "model_id"); truthy(mn) {
		b.modelNode = mn
	} else {
		b.modelNode = getPath(x.r.root, "model", "model_id")
	}
	if mn := deref(b.modelNode); mn != nil {
		b.modelID = mn.Value
	} else {
		b.modelID = x.r.HFID
	}
	out := &Rendering{Tree: x.t.id, Recipe: x.r, Variant: x.v, Hardware: x.hw.ID, GPUsPerNode: x.hw.GPUCount, Strategy: id, DeployType: sd.deployType, NodeCount: n,
		DockerImage: x.dockerImage(), ctx: x, reqN: n, pick: pick}
	var err error
	switch sd.deployType {
	case "single_node", "multi_node":
		b.so = get(get(x.r.root, "strategy_overrides"), id)
		err = b.renderServing(out, "")
	case "pd_cluster":
		b.so = get(get(x.r.root, "strategy_overrides"), id)
		if !b.pdNodesCalc() {
			return nil, false
		}
		err = b.renderPD(out)
	case "kv_store_lb":
		if !b.kvPick(out) {
			return nil, false
		}
		err = b.renderServing(out, "vllm")
	default:
		return nil, false
	}
	if err != nil {
		return nil, false
	}
	out.Features, out.CustomFeatures = b.chosen, b.custom
	if b.kvoNode != nil {
		out.KVOffload = b.kvo
		out.Companion = strings.TrimRight(strOr(getPath(b.kvoNode, "companion", "command"), ""), " \t\n\r")
	}
	out.Query = b.siteQuery(out)
	out.URL = out.Query.URL()
	return out, true
}

// renderServing renders a single/multi node layout (also a kv instance).
func (b *build) renderServing(out *Rendering, _ string) error {
	multi := b.S.deployType == "multi_node" && b.N > 1
	env := b.env("", 0)
	out.Env = env
	if !multi {
		argv, err := b.argv("", 0)
		if err != nil {
			return err
		}
		out.Roles = []RoleCommand{{Name: "single", Argv: argv, Env: env}}
		if b.K != nil {
			out.Router = b.kvRouter()
		}
		return nil
	}
	for r := 0; r < b.N; r++ {
		argv, err := b.argv("", r)
		if err != nil {
			return err
		}
		name := "head"
		if r > 0 {
			name = "worker"
		}
		out.Roles = append(out.Roles, RoleCommand{Name: name, Rank: r, Argv: argv, Env: env})
	}
	if b.K != nil {
		out.Router = b.kvRouter()
	}
	return nil
}

// kvPick is the §9.2 kv-store serving pick.
func (b *build) kvPick(out *Rendering) bool {
	x := b.rctx
	suits := func(id string, n int) bool {
		sd := x.s.stratByID[id]
		if sd == nil || sd.deployType == "pd_cluster" || sd.deployType == "kv_store_lb" {
			return false
		}
		return (sd.deployType == "multi_node") == (n > 1)
	}
	pick := func(n int) string {
		if r := x.recommend(n); suits(r, n) {
			return r
		}
		for _, o := range x.offered {
			if suits(o, n) {
				return o
			}
		}
		return ""
	}
	n := 1
	if !fits(x.vn, x.hw) {
		n = 2
	}
	serving := pick(n)
	if serving == "" && n == 2 {
		n = 1
		serving = pick(1)
	}
	if serving == "" {
		return false
	}
	S := x.s.stratByID[serving]
	if S.deployType == "multi_node" {
		if f := x.nodesFor(serving); f > n {
			n = f
		}
	}
	if n > maxNodes {
		return false
	}
	b.K = b.S
	b.S = S
	b.N = n
	b.so = get(get(x.r.root, "strategy_overrides"), serving)
	b.instances = 2
	if v, ok := num(get(b.K.root, "default_instances")); ok && v != 0 {
		b.instances = int(v)
	}
	if b.instances > maxNodes || b.instances < 1 {
		return false
	}
	out.Master = strOr(getPath(b.K.root, "mooncake_master", "command"), "")
	out.Store = strOr(getPath(b.K.root, "mooncake_store_config", "command"), "")
	out.ServingStrategy = serving
	out.NodeCount = n
	out.Instances = b.instances
	return true
}

func (b *build) kvRouter() string {
	if b.instances <= 1 {
		return ""
	}
	policy := strOr(getPath(b.K.root, "router", "policy"), "cache_aware")
	port := "8000"
	if v := getPath(b.K.root, "vllm", "port"); truthy(v) {
		port = deref(v).Value
	}
	lines := []string{"vllm-router --policy " + policy + " \\"}
	for i := 1; i <= b.instances; i++ {
		lines = append(lines, fmt.Sprintf("    --backend-url http://$VLLM_INSTANCE_%d:%s \\", i, port))
	}
	lines = append(lines, "    --host $ROUTER_HOST \\", "    --port $ROUTER_PORT \\",
		"    --cache-threshold 0.5 \\", "    --balance-abs-threshold 4 \\", "    --balance-rel-threshold 1.1")
	return strings.Join(lines, "\n")
}

// ---------------------------------------------------------------------------
// pd_cluster.

// unclampedMode is the role's authored parallelism.
func (b *build) unclampedMode(role string) string {
	if m := b.pick.pool(role).Mode; m != "" {
		return m
	}
	if m, ok := str(get(get(b.so, role), "parallelism")); ok && m != "" {
		return m
	}
	if m, ok := str(get(get(b.S.root, role), "parallelism")); ok && m != "" {
		return m
	}
	return "tp"
}

// clampedMode applies the pool modes of §9.4 (command-synthesis.js: a
// resolved mode not in pdPoolModes snaps to its first entry).
func (b *build) clampedMode(role string) string {
	m := b.unclampedMode(role)
	modes := b.poolModes()
	if contains(modes, m) {
		return m
	}
	return modes[0]
}

// pdNodesCalc is §9.2 pd_nodes; false when pd is dropped for this hw.
func (b *build) pdNodesCalc() bool {
	if b.pick != nil {
		b.pdNodes = map[string]int{"prefill": b.pick.Prefill.Nodes, "decode": b.pick.Decode.Nodes}
		return b.pick.Prefill.Nodes <= maxNodes && b.pick.Decode.Nodes <= maxNodes
	}
	G := b.hw.GPUCount
	vmin := numOr0(get(b.vn, "vram_minimum_gb"))
	vram := b.hw.VRAMGB
	b.pdNodes = map[string]int{}
	if G >= 2 && (vmin == 0 || vram == 0 || vram >= 2*vmin) {
		b.pdNodes["prefill"], b.pdNodes["decode"] = 0, 0
		return true
	}
	k := int(math.Ceil(vmin / vram))
	if k > 4 {
		return false
	}
	for _, role := range []string{"prefill", "decode"} {
		n := k
		if f := b.nodesFor(b.unclampedMode(role)); f > n {
			n = f
		}
		if n > maxNodes {
			return false
		}
		b.pdNodes[role] = n
	}
	return true
}

func (b *build) roleTP(role string) (int, bool) {
	for _, n := range []*yaml.Node{get(get(b.so, role), "tp"), get(get(b.S.root, role), "tp")} {
		if truthy(n) {
			v, _ := num(n)
			return int(v), true
		}
	}
	return 0, false
}

func (b *build) renderPD(out *Rendering) error {
	out.Env = []EnvEntry{}
	G := b.hw.GPUCount
	for _, role := range []string{"prefill", "decode"} {
		argv, err := b.argv(role, 0)
		if err != nil {
			return err
		}
		P := b.pdNodes[role]
		rc := RoleCommand{Name: role, Argv: argv, Env: b.env(role, 0), Nodes: P}
		m := b.unclampedMode(role)
		rc.Parallelism = m
		rc.PoolGPUs = P * G
		if P == 0 {
			rc.PoolGPUs = G / 2
		}
		rc.TP, rc.DPSize = rc.PoolGPUs, 1
		if m == "dep" {
			t, ok := b.roleTP(role)
			if !ok {
				t = 1
			}
			rc.TP = t
			rc.DPLocal = max(1, G/t)
			rc.DPSize = max(1, P) * rc.DPLocal
		}
		out.Roles = append(out.Roles, rc)
	}
	policy := strOr(getPath(b.S.root, "router", "policy"), "round_robin")
	lines := []string{"vllm-router --policy " + policy + " \\", "    --vllm-pd-disaggregation \\"}
	for i, role := range []string{"prefill", "decode"} {
		rc := out.Roles[i]
		k := 1
		if rc.Parallelism == "dep" {
			k = max(1, rc.Nodes)
		}
		port := 8001 + i
		for j := 1; j <= k; j++ {
			lines = append(lines, fmt.Sprintf("    --%s http://$%s_NODE_%d:%d \\", role, strings.ToUpper(role), j, port))
		}
	}
	x := ""
	if v := getPath(b.so, "router", "intra_node_data_parallel_size"); truthy(v) {
		x = deref(v).Value
	} else {
		x = strconv.Itoa(max(1, out.Roles[0].DPLocal, out.Roles[1].DPLocal))
	}
	lines = append(lines, "    --host $ROUTER_HOST \\", "    --port $ROUTER_PORT \\", "    --intra-node-data-parallel-size "+x)
	out.Router = strings.Join(lines, "\n")
	return nil
}

// ---------------------------------------------------------------------------
// Arguments (§9.3–§9.6).

func (b *build) add(list *[]rawTok, file string, n *yaml.Node) {
	for _, c := range seq(n) {
		*list = append(*list, rawTok{node: c, file: file})
	}
}

func (b *build) lit(list *[]rawTok, texts ...string) {
	for _, t := range texts {
		*list = append(*list, rawTok{text: t})
	}
}

func (b *build) argv(role string, rank int) ([]Token, error) {
	rf := b.r.rel
	sf := b.S.rel
	pd := role == "prefill" || role == "decode"
	// The raw list is scratch (finish copies what it keeps): one buffer
	// per build, reused by each role's argv.
	l := b.rawBuf[:0]
	if l == nil {
		l = make([]rawTok, 0, 32)
	}
	defer func() { b.rawBuf = l[:0] }()
	// 1, 2.
	b.add(&l, rf, getPath(b.r.root, "model", "base_args"))
	b.add(&l, rf, get(b.vn, "extra_args"))
	b.add(&l, rf, getPath(b.vn, "hardware_overrides", b.hw.ID, "extra_args"))
	// 3.
	if pd {
		b.add(&l, sf, getPath(b.S.root, role, "vllm_args"))
	} else {
		b.add(&l, sf, get(b.S.root, "vllm_args"))
	}
	b.parallel(&l, role, rank)
	// 4.
	if pd {
		b.add(&l, rf, getPath(b.so, role, "extra_args"))
		b.add(&l, rf, getPath(b.so, role, "vllm_args"))
	} else {
		b.add(&l, rf, get(b.so, "extra_args"))
		b.add(&l, rf, get(b.so, "vllm_args"))
	}
	// 5.
	if gb := b.s.genBlock(get(b.so, "hardware_overrides"), b.hw); gb != nil {
		b.add(&l, rf, get(gb, "extra_args"))
	} else {
		b.add(&l, rf, get(b.s.genBlock(get(b.r.root, "hardware_overrides"), b.hw), "extra_args"))
		b.add(&l, rf, get(b.s.genBlock(get(b.vn, "hardware_overrides"), b.hw), "extra_args"))
	}
	b.add(&l, rf, getPath(b.so, "hardware_overrides", b.hw.ID, "extra_args"))
	if pd {
		b.add(&l, rf, getPath(b.so, role, "hardware_overrides", b.hw.ID, "extra_args"))
	}
	// 6.
	b.featureArgs(&l)
	// 6b. The composing KV-offload option (buildArgs step 8).
	if b.kvoNode != nil {
		b.add(&l, taxonomyFile, get(b.kvoNode, "args"))
	}
	// 7.
	if b.K != nil {
		b.add(&l, b.K.rel, getPath(b.K.root, "vllm", "vllm_args"))
	}
	return b.finish(l)
}

// parallel appends the §9.4 parallelism tokens.
func (b *build) parallel(l *[]rawTok, role string, rank int) {
	G, N := b.hw.GPUCount, b.N
	T := G * max(1, N)
	addr := "$HEAD_IP"
	if b.K != nil && b.instances > 1 {
		addr = "$VLLM_INSTANCE_1"
	}
	pflag := strOr(get(b.S.root, "parallel_flag"), "--tensor-parallel-size")
	par := strOr(get(b.S.root, "parallelism"), "")
	multi := b.S.deployType == "multi_node" && N > 1
	itoa := strconv.Itoa
	switch {
	case multi && pflag == "--data-parallel-size":
		b.lit(l, "--data-parallel-size", itoa(T), "--data-parallel-size-local", itoa(G), "--data-parallel-address", addr)
		if rank > 0 {
			L := G
			var src []*yaml.Node
			src = append(src, seq(get(b.so, "vllm_args"))...)
			src = append(src, seq(get(b.so, "extra_args"))...)
			src = append(src, seq(get(b.s.genBlock(get(b.so, "hardware_overrides"), b.hw), "extra_args"))...)
			src = append(src, seq(getPath(b.so, "hardware_overrides", b.hw.ID, "extra_args"))...)
			for i := 0; i+1 < len(src); i++ {
				if strOr(src[i], "") == "--data-parallel-size-local" {
					if v, err := strconv.Atoi(strings.TrimSpace(deref(src[i+1]).Value)); err == nil {
						L = v
					}
				}
			}
			b.lit(l, "--data-parallel-start-rank", itoa(rank*L))
		}
	case multi && par == "tp_pp":
		b.lit(l, "--tensor-parallel-size", itoa(G), "--pipeline-parallel-size", itoa(N), "--nnodes", itoa(N), "--node-rank", itoa(rank), "--master-addr", addr)
		if rank > 0 {
			b.lit(l, "--headless")
		}
	case multi && par == "tp_dp":
		b.lit(l, "--tensor-parallel-size", itoa(G), "--data-parallel-size", itoa(N), "--data-parallel-size-local", "1", "--data-parallel-address", addr)
		if rank > 0 {
			b.lit(l, "--data-parallel-start-rank", itoa(rank))
		}
	case multi:
		b.lit(l, "--tensor-parallel-size", itoa(T), "--nnodes", itoa(N), "--node-rank", itoa(rank), "--master-addr", addr)
		if rank > 0 {
			b.lit(l, "--headless")
		}
	case role == "prefill" || role == "decode":
		P := b.pdNodes[role]
		node := "$" + strings.ToUpper(role) + "_NODE_1"
		switch b.clampedMode(role) {
		case "dep":
			t, ok := b.roleTP(role)
			tt := 1
			if ok {
				tt = t
			}
			dl := max(1, G/tt)
			if ok {
				b.lit(l, "--tensor-parallel-size", itoa(t))
			}
			b.lit(l, "--data-parallel-size", itoa(max(1, P)*dl), "--data-parallel-size-local", itoa(dl),
				"--data-parallel-start-rank", "0", "--data-parallel-address", node,
				"--data-parallel-rpc-port", "$"+strings.ToUpper(role)+"_DP_RPC_PORT")
			if P > 1 {
				b.lit(l, "--data-parallel-hybrid-lb")
			}
			b.lit(l, "--enable-expert-parallel")
		default:
			m := b.clampedMode(role)
			flag := ""
			for _, n := range []*yaml.Node{getPath(b.so, role, "parallel_flag"), getPath(b.S.root, role, "parallel_flag"), get(b.S.root, "parallel_flag")} {
				if v, ok := str(n); ok && v != "" {
					flag = v
					break
				}
			}
			if flag == "" {
				flag = "--tensor-parallel-size"
			}
			pool := P * G
			if P == 0 {
				pool = G / 2
			}
			b.lit(l, flag, itoa(max(1, pool)))
			if m == "tep" {
				b.lit(l, "--enable-expert-parallel")
			}
			if P > 1 {
				b.lit(l, "--nnodes", itoa(P), "--node-rank", "0", "--master-addr", node)
			}
		}
	default:
		tp := G
		if b.sid == "single_node_tp" || (b.K != nil && b.S.name == "single_node_tp") {
			tp = b.singleTP()
		}
		b.lit(l, pflag, itoa(tp))
	}
}

// singleTP is the single_node_tp TP size of §9.4.
func (b *build) singleTP() int {
	G := b.hw.GPUCount
	capG := func(v int) int {
		if b.hw.Gen() != "cpu" && v > G {
			return G
		}
		return v
	}
	for _, n := range []*yaml.Node{hwKeyed(get(b.vn, "tp"), b.hw), hwKeyed(getPath(b.r.root, "strategy_overrides", "single_node_tp", "tp"), b.hw)} {
		if v, ok := num(n); ok && v > 0 {
			return capG(int(v))
		}
	}
	vmin := numOr0(get(b.vn, "vram_minimum_gb"))
	if vmin != 0 && b.hw.VRAMGB != 0 {
		if vmin <= b.hw.VRAMGB/float64(G) {
			return 1
		}
	}
	return G
}

// finish is §9.6: drop empty tokens, group units, last wins.
func (b *build) finish(l []rawTok) ([]Token, error) {
	sc := b.s.takeFinish()
	defer b.s.giveFinish(sc)
	toks := sc.toks
	defer func() { sc.toks = toks }() // (grown: kept for the next call)
	for _, t := range l {
		if t.node == nil {
			toks = append(toks, Token{Text: t.text, Origin: launch.Origin{Kind: launch.OriginInjected, Detail: siteDetail}})
			continue
		}
		if !truthy(t.node) {
			continue
		}
		s, ok := str(t.node)
		if !ok {
			return nil, fmt.Errorf("%s: %w", pos(t.file, t.node), errNonString)
		}
		toks = append(toks, Token{Text: s, Origin: b.pc.origin(t.file, t.node)})
	}
	// A unit is a flag and its value (or a lone token): toks[start:end].
	units := sc.units
	defer func() { sc.units = units }()
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if strings.HasPrefix(t.Text, "-") {
			u := finishUnit{flag: t.Text, start: i, end: i + 1}
			if i+1 < len(toks) && !strings.HasPrefix(toks[i+1].Text, "-") {
				u.end++
				i++
			}
			units = append(units, u)
			continue
		}
		units = append(units, finishUnit{start: i, end: i + 1})
	}
	last := sc.last
	for i, u := range units {
		if u.flag != "" {
			last[u.flag] = i
		}
	}
	n := 3
	for i, u := range units {
		if u.flag == "" || last[u.flag] == i {
			n += u.end - u.start
		}
	}
	inj := launch.Origin{Kind: launch.OriginInjected, Detail: siteDetail}
	out := slices.Grow(sc.out, n)
	defer func() { sc.out = out }()
	out = append(out, Token{Text: "vllm", Origin: inj}, Token{Text: "serve", Origin: inj},
		Token{Text: b.modelID, Origin: b.pc.origin(b.modelFile, b.modelNode)})
	for i, u := range units {
		if u.flag != "" && last[u.flag] != i {
			continue
		}
		out = append(out, toks[u.start:u.end]...)
	}
	return b.pc.toks.internCopy(out), nil
}

// ---------------------------------------------------------------------------
// Environment (§9.7).

type envMap struct {
	list []EnvEntry
	idx  map[string]int
	pc   posCache
}

func (e *envMap) set(v EnvEntry) {
	if e.idx == nil {
		e.idx = map[string]int{}
	}
	if i, ok := e.idx[v.Name]; ok {
		e.list[i].Value, e.list[i].Type, e.list[i].Origin = v.Value, v.Type, v.Origin
		return
	}
	e.idx[v.Name] = len(e.list)
	e.list = append(e.list, v)
}

func (e *envMap) del(name string) {
	i, ok := e.idx[name]
	if !ok {
		return
	}
	e.list = append(e.list[:i], e.list[i+1:]...)
	e.idx = map[string]int{}
	for j, v := range e.list {
		e.idx[v.Name] = j
	}
}

func (e *envMap) addMap(file string, m *yaml.Node) {
	for _, p := range pairs(m) {
		v := EnvEntry{Name: p.key, Origin: e.pc.origin(file, p.kn)}
		n := deref(p.val)
		switch {
		case isNull(n):
			v.Type = "null"
			v.Value = "null"
		case n.Kind != yaml.ScalarNode:
			v.Type = "string"
			v.Value = fmt.Sprint(n.Value)
		case n.ShortTag() == "!!str":
			v.Type, v.Value = "string", n.Value
		case n.ShortTag() == "!!int" || n.ShortTag() == "!!float":
			f, _ := num(n)
			v.Type, v.Value = "number", strconv.FormatFloat(f, 'f', -1, 64)
		case n.ShortTag() == "!!bool":
			v.Type = "bool"
			v.Value = strconv.FormatBool(truthy(n))
		default:
			v.Type, v.Value = "string", n.Value
		}
		e.set(v)
	}
}

func (e *envMap) lit(name, value string) {
	e.set(EnvEntry{Name: name, Value: value, Type: "string", Origin: launch.Origin{Kind: launch.OriginInjected, Detail: siteDetail}})
}

func gpuList(from, to int) string {
	var parts []string
	for i := from; i < to; i++ {
		parts = append(parts, strconv.Itoa(i))
	}
	return strings.Join(parts, ",")
}

func (b *build) env(role string, _ int) []EnvEntry {
	rf := b.r.rel
	pd := role == "prefill" || role == "decode"
	e := envMap{pc: b.pc}
	e.addMap(rf, getPath(b.r.root, "model", "base_env"))
	e.addMap(rf, get(b.vn, "extra_env"))
	e.addMap(rf, getPath(b.vn, "hardware_overrides", b.hw.ID, "extra_env"))
	if pd {
		e.addMap(b.S.rel, getPath(b.S.root, role, "env"))
	} else {
		e.addMap(b.S.rel, get(b.S.root, "env"))
	}
	if b.kvoNode != nil { // composing-option env, after the strategy's
		e.addMap(taxonomyFile, get(b.kvoNode, "env"))
	}
	if b.K != nil {
		e.addMap(b.K.rel, getPath(b.K.root, "vllm", "env"))
	}
	if pd {
		G := b.hw.GPUCount
		P := b.pdNodes[role]
		if P >= 1 {
			e.lit("CUDA_VISIBLE_DEVICES", gpuList(0, G))
			if P >= 2 {
				e.lit("GLOO_SOCKET_IFNAME", "$IFACE_NAME")
				e.lit("NCCL_SOCKET_IFNAME", "$IFACE_NAME")
			}
		} else if h := G / 2; h > 0 {
			if role == "prefill" {
				e.lit("CUDA_VISIBLE_DEVICES", gpuList(0, h))
			} else {
				e.lit("CUDA_VISIBLE_DEVICES", gpuList(h, G))
			}
		}
	}
	e.addMap(rf, get(b.so, "env"))
	if pd {
		e.addMap(rf, getPath(b.so, role, "env"))
	} else {
		e.addMap(rf, get(b.so, "extra_env"))
	}
	if gb := b.s.genBlock(get(b.so, "hardware_overrides"), b.hw); gb != nil {
		e.addMap(rf, get(gb, "extra_env"))
	} else {
		e.addMap(rf, get(b.s.genBlock(get(b.r.root, "hardware_overrides"), b.hw), "extra_env"))
		e.addMap(rf, get(b.s.genBlock(get(b.vn, "hardware_overrides"), b.hw), "extra_env"))
	}
	e.addMap(rf, getPath(b.so, "hardware_overrides", b.hw.ID, "extra_env"))
	if pd {
		e.addMap(rf, getPath(b.so, role, "hardware_overrides", b.hw.ID, "extra_env"))
		if b.hw.ID != "gb200" && b.hw.ID != "gb300" {
			for _, k := range []string{"VLLM_USE_NCCL_SYMM_MEM", "NCCL_CUMEM_ENABLE", "NCCL_MNNVL_ENABLE", "NCCL_NVLS_ENABLE", "UCX_NET_DEVICES"} {
				e.del(k)
			}
		}
	}
	if e.list == nil {
		return []EnvEntry{}
	}
	// The list lives as long as its rendering (the selection-space memo
	// keeps many): drop the spare capacity append left.
	if cap(e.list) > len(e.list) {
		return slices.Clone(e.list)
	}
	return e.list
}

var (
	shellVarRe  = regexp.MustCompile(`^\$[A-Z_][A-Z0-9_]*$`)
	shellSafeRe = regexp.MustCompile(`^[A-Za-z0-9_./=:@,+%-]+$`)
)

// siteQuote is the site's q(v) (§9.6 step 5): bare for a shell variable or
// a safe word, otherwise single-quoted, an embedded single quote closed,
// escaped with a backslash and reopened.
func siteQuote(v string) string {
	if shellVarRe.MatchString(v) || shellSafeRe.MatchString(v) {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

// Command is the role's shell command as the site prints it (§9.6 step 5):
// "vllm serve <model>", then one " \\\n  " line per flag unit, values quoted
// with the site's q(v).
func (rc *RoleCommand) Command() string {
	if len(rc.Argv) < 3 {
		return strings.Join(rc.Texts(), " ")
	}
	var b strings.Builder
	b.WriteString("vllm serve " + rc.Argv[2].Text)
	tail := rc.Argv[3:]
	for i := 0; i < len(tail); i++ {
		line := tail[i].Text
		if strings.HasPrefix(line, "-") && i+1 < len(tail) && !strings.HasPrefix(tail[i+1].Text, "-") {
			line += " " + siteQuote(tail[i+1].Text)
			i++
		}
		b.WriteString(" \\\n  " + line)
	}
	return b.String()
}
