package recipes

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// SiteBase is the origin of the recipes.vllm.ai pages; a recipe page is
// SiteBase + "<hf_org>/<hf_repo>" (vllm-project/recipes src/app/[org]/…).
const SiteBase = "https://recipes.vllm.ai/"

// siteMaxNodes is the most nodes the site's builder offers for one
// deployment and per PD pool (vllm-project/recipes
// src/lib/command-synthesis.js MAX_NODES).
const siteMaxNodes = 16

// PoolPick is one PD pool's selection on the site: its parallelism pill
// (tp, tep or dep) and its node count.
type PoolPick struct {
	Mode  string // tp | tep | dep ("" = the recipe's default)
	Nodes int    // nodes of the pool (0 = the co-located half node of the JSON API)
}

// pdPick is the pools of a pd_cluster rendering chosen by the reader.
type pdPick struct{ Prefill, Decode PoolPick }

func (p *pdPick) pool(role string) PoolPick {
	if p == nil {
		return PoolPick{}
	}
	if role == "prefill" {
		return p.Prefill
	}
	if role == "decode" {
		return p.Decode
	}
	return PoolPick{}
}

// SiteQuery is the selection of the recipes.vllm.ai command builder that
// shows a rendering (vllm-project/recipes
// src/components/recipes/CommandBuilder.jsx state, mirrored in the page
// URL by syncUrl).
type SiteQuery struct {
	Page     string // recipe page, <hf_org>/<hf_repo> (the recipe hf_id)
	Hardware string // taxonomy hardware id
	Variant  string // variants.<key>
	Strategy string // serving strategy id (under Mooncake: the composed one)
	Nodes    int    // Nodes row: nodes per deployment (per instance under Mooncake)
	// Features lists every feature switched on, in YAML order; nil when
	// the rendering uses the site's default feature set.
	Features []string
	// FMode lists "key:mode" for each modal feature not in its default mode.
	FMode []string
	// Prefill and Decode are the PD pools (pd_cluster only).
	Prefill, Decode PoolPick
	// KVOffload is the KV Offload row's pick ("" = off): a kv_store_lb
	// strategy id (Mooncake) or a composing taxonomy kv_offload key
	// ("simple", "lmcache" …).
	KVOffload   string
	KVInstances int // Mooncake instances (0 = the topology default)

	// defaults the URL omits (syncUrl deletes a value equal to them)
	recommended    string
	defPrefill     PoolPick
	defDecode      PoolPick
	defKVInstances int
}

// URL is the page link with the query the site's syncUrl would write for
// this selection: hardware, variant (omitted for "default"), strategy
// (omitted when it is the recommended one for the node count), nodes
// (omitted for 1), features (omitted for the default set), fmode,
// prefill_mode / prefill_nodes / decode_mode / decode_nodes (omitted when the
// recipe's default), kv_offload and kv_instances; values form-encoded as
// URLSearchParams does.
func (q SiteQuery) URL() string {
	if q.Page == "" {
		return ""
	}
	// Selections no URL reaches (CommandBuilder.jsx): every feature
	// switched off (featuresToUrl writes "" and syncUrl drops the param, so
	// the page opens with the default features), and more than 2 nodes
	// (useState keeps ?nodes only when it is 1 or 2). A reader gets there
	// only by hand; no link is better than a link to another command.
	if q.Features != nil && len(q.Features) == 0 {
		return ""
	}
	if q.Strategy != "pd_cluster" && q.Nodes > 2 {
		return ""
	}
	var ps [][2]string
	add := func(k, v string) {
		// syncUrl: a value is set when truthy and neither "default" nor
		// the recommended strategy.
		if v != "" && v != "default" && v != q.recommended {
			ps = append(ps, [2]string{k, v})
		}
	}
	itoa := func(n int) string {
		if n <= 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	add("hardware", q.Hardware)
	add("variant", q.Variant)
	add("strategy", q.Strategy)
	pd := q.Strategy == "pd_cluster"
	if !pd && q.Nodes != 1 {
		add("nodes", itoa(q.Nodes))
	}
	add("features", strings.Join(q.Features, ","))
	add("fmode", strings.Join(q.FMode, ","))
	if pd {
		if q.Prefill.Mode != q.defPrefill.Mode {
			add("prefill_mode", q.Prefill.Mode)
		}
		if q.Prefill.Nodes != q.defPrefill.Nodes {
			add("prefill_nodes", itoa(q.Prefill.Nodes))
		}
		if q.Decode.Mode != q.defDecode.Mode {
			add("decode_mode", q.Decode.Mode)
		}
		if q.Decode.Nodes != q.defDecode.Nodes {
			add("decode_nodes", itoa(q.Decode.Nodes))
		}
	}
	add("kv_offload", q.KVOffload)
	if q.KVInstances != q.defKVInstances {
		add("kv_instances", itoa(q.KVInstances))
	}
	var b strings.Builder
	b.WriteString(SiteBase + q.Page)
	for i, p := range ps {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(launch.FormEncode(p[0]) + "=" + launch.FormEncode(p[1]))
	}
	return b.String()
}

// siteQuery is the builder selection that shows out.
func (b *build) siteQuery(out *Rendering) SiteQuery {
	x := b.rctx
	q := SiteQuery{Page: x.r.HFID, Hardware: x.hw.ID, Variant: x.v, Strategy: b.sid, Nodes: max(b.N, 1), FMode: b.fmode}
	if b.K != nil {
		q.Strategy, q.KVOffload, q.Nodes = out.ServingStrategy, b.K.name, out.NodeCount
		q.KVInstances, q.defKVInstances = out.Instances, out.Instances
	}
	if b.kvo != "" {
		q.KVOffload = b.kvo
	}
	q.recommended = x.recommend(q.Nodes)
	if b.choose != nil && !sameSet(b.featOn, x.features) {
		q.Features = b.featOn
		if q.Features == nil {
			q.Features = []string{}
		}
	}
	if b.S.deployType == "pd_cluster" && b.K == nil {
		q.Nodes = 1
		for i, role := range []string{"prefill", "decode"} {
			p := PoolPick{Mode: b.unclampedMode(role), Nodes: b.pdNodes[role]}
			d := b.pdDefault(role)
			if b.pick == nil {
				d = p // the JSON API's pools are the page's own rendering
			}
			if i == 0 {
				q.Prefill, q.defPrefill = p, d
			} else {
				q.Decode, q.defDecode = p, d
			}
		}
	}
	return q
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, v := range a {
		if !contains(b, v) {
			return false
		}
	}
	return true
}

// familyEnd reports whether the strategy name o ends in one of the
// words, whole: the word is o, or o ends in "_" + word — the pool-mode
// families of command-synthesis.js pdPoolModes, /(^|_)dep$/, /(^|_)tep$/,
// /(^|_)tp(_pp|_dp)?$/, without a regular expression (they ran for every
// strategy of every rendering: 0.07 CPU-s of the main job).
func familyEnd(o string, words ...string) bool {
	for _, w := range words {
		if o == w || strings.HasSuffix(o, "_"+w) {
			return true
		}
	}
	return false
}

// poolModes is the site's pdPoolModes (vllm-project/recipes
// src/lib/command-synthesis.js): the tp/tep/dep families of the offered
// strategies by name ((^|_)dep$, (^|_)tep$, (^|_)tp(_pp|_dp)?$), in the
// order tp, tep, dep ([tp] when none), narrowed by
// strategy_overrides.pd_cluster.pool_modes unless that leaves nothing.
func (x *rctx) poolModes() []string {
	have := map[string]bool{}
	for _, o := range x.offered {
		if o == "pd_cluster" {
			continue
		}
		switch {
		case familyEnd(o, "dep"):
			have["dep"] = true
		case familyEnd(o, "tep"):
			have["tep"] = true
		case familyEnd(o, "tp", "tp_pp", "tp_dp"):
			have["tp"] = true
		}
	}
	var modes []string
	for _, k := range []string{"tp", "tep", "dep"} {
		if have[k] {
			modes = append(modes, k)
		}
	}
	if len(modes) == 0 {
		modes = []string{"tp"}
	}
	pm := getPath(x.r.root, "strategy_overrides", "pd_cluster", "pool_modes")
	if len(seq(pm)) > 0 {
		var kept []string
		for _, m := range modes {
			if containsStr(pm, m) {
				kept = append(kept, m)
			}
		}
		if len(kept) > 0 {
			modes = kept
		}
	}
	return modes
}

// pdDefault is the pool the page opens with for role (CommandBuilder.jsx
// pdDefaultPar, pdDefaults, floored by nodesForStrategy).
func (b *build) pdDefault(role string) PoolPick {
	x := b.rctx
	so := getPath(x.r.root, "strategy_overrides", "pd_cluster", role)
	m, _ := str(get(so, "parallelism"))
	if m == "" {
		m, _ = str(getPath(x.s.stratByID["pd_cluster"].root, role, "parallelism"))
	}
	if m == "" {
		m = "tp"
	}
	modes := x.poolModes()
	if !contains(modes, m) {
		m = modes[0]
	}
	n := 1
	if vmin, vram := numOr0(get(x.vn, "vram_minimum_gb")), x.hw.VRAMGB; vmin > 0 && vram > 0 {
		n = max(1, int(ceilDiv(vmin, vram)))
	}
	ov := deref(get(so, "nodes"))
	if v, ok := num(ov); ok {
		n = int(v)
	} else if isMap(ov) {
		if v, ok := num(get(ov, x.hw.ID)); ok {
			n = int(v)
		} else if v, ok := num(get(ov, "default")); ok {
			n = int(v)
		}
	}
	return PoolPick{Mode: m, Nodes: max(n, x.nodesFor(m))}
}

func ceilDiv(a, b float64) float64 {
	q := a / b
	if float64(int(q)) < q {
		return float64(int(q) + 1)
	}
	return q
}

// variantCheckpoint is the Hugging Face repo a variant serves: its
// model_id, else model.model_id, else the recipe id (CommandBuilder.jsx
// variantModelId).
func variantCheckpoint(r *Recipe, vn *yaml.Node) string {
	if v, ok := str(get(vn, "model_id")); ok && v != "" {
		return v
	}
	if v, ok := str(getPath(r.root, "model", "model_id")); ok && v != "" {
		return v
	}
	return r.HFID
}

// variantOn reports whether the site offers hardware hw with variant vn of
// r (§9.2 candidate hardware: precision constraint, meta.hardware opt-out,
// supported_hardware, restricted profiles).
func (s *Site) variantOn(r *Recipe, vn *yaml.Node, hw *HardwareProfile) bool {
	metaHW := getPath(r.root, "meta", "hardware")
	if !variantConstraint(vn).match(hw) || strOr(get(metaHW, hw.ID), "") == "unsupported" || !supportedHW(vn, hw.ID) {
		return false
	}
	return !hw.Restricted || get(metaHW, hw.ID) != nil
}

// nodeOptions is the site's Nodes row: 1, 2 and the largest strategy floor
// when above 2 (CommandBuilder.jsx nodeOptions).
func (x *rctx) nodeOptions() []int {
	need := 0
	for _, o := range x.offered {
		need = max(need, x.nodesFor(o))
	}
	if need > 2 && need <= siteMaxNodes {
		return []int{1, 2, need}
	}
	return []int{1, 2}
}

// taxonomyFile is the taxonomy document the KV-offload options come from.
const taxonomyFile = "taxonomy.yaml"

// kvOption is taxonomy kv_offload.<key> when the site offers that
// composing option for serving strategy id on this recipe, variant and
// hardware, else nil. The gates are the site's (CommandBuilder.jsx
// kvOptAllowed, command-synthesis.js isKvOffloadAllowedForStrategy,
// isKvOffloadSupportedForRecipe, isKvOffloadBrandSupported): not on Intel
// XPU (generation "xpu"); never under pd_cluster or kv_store_lb (they own
// --kv-transfer-config); only on the option's `strategies` when it lists
// some (LMCache: single_node_tp/tep/dep); not when the recipe's
// kv_offload_support.<key> is "unsupported", and for a `requires_opt_in`
// option only when it is "verified"; only on the option's `brands` when it
// lists some.
func (x *rctx) kvOption(key, id string) *yaml.Node {
	opt := deref(get(x.kvOpts, key))
	if key == "" || opt == nil || isNull(opt) || !truthy(opt) {
		return nil
	}
	if len(x.hw.Generations) == 1 && x.hw.Generations[0] == "xpu" {
		return nil
	}
	sd := x.s.stratByID[id]
	if sd == nil || sd.deployType == "pd_cluster" || sd.deployType == "kv_store_lb" {
		return nil
	}
	if al := get(opt, "strategies"); isSeq(al) && len(seq(al)) > 0 && !containsStr(al, id) {
		return nil
	}
	support := strOr(getPath(x.r.root, "kv_offload_support", key), "")
	if support == "unsupported" || truthy(get(opt, "requires_opt_in")) && support != "verified" {
		return nil
	}
	if br := get(opt, "brands"); isSeq(br) && len(seq(br)) > 0 && !containsStr(br, x.hw.Brand) {
		return nil
	}
	return opt
}

// kvOffloadKeys lists the taxonomy kv_offload keys in YAML order.
func (x *rctx) kvOffloadKeys() []string {
	var keys []string
	for _, p := range pairs(x.kvOpts) {
		if !contains(keys, p.key) {
			keys = append(keys, p.key)
		}
	}
	return keys
}

// withOffload appends to out r and, for each composing KV-offload option
// the site offers on r's selection (kvOption), r re-rendered with it.
func (x *rctx) withOffload(out []*Rendering, r *Rendering) []*Rendering {
	out = append(out, r)
	for _, k := range x.kvOffloadKeys() {
		if kr, ok := x.renderOffload(r.Strategy, r.reqN, r.pick, k); ok {
			out = append(out, kr)
		}
	}
	return out
}

// selections renders every builder selection of x (one variant on one
// hardware) that changes a worker: each serving strategy on each node
// count the Nodes row offers (floored by the strategy's minimum), each of
// them also with every composing KV-offload option offered there (x.kvOpts:
// Simple, LMCache …), and for pd_cluster every pool mode × pool size
// (1 … 16 nodes) of each role with the other pool at its default.
// Features stay the default set (feature toggles are applied per worker by
// MatchDeployment). Mooncake renderings are the JSON API's.
func (x *rctx) selections(list []string) []*Rendering {
	var out []*Rendering
	s, hw := x.s, x.hw
	for _, id := range list {
		sd := s.stratByID[id]
		switch sd.deployType {
		case "single_node":
			if r, ok := x.renderStrategy(id, 1); ok {
				out = x.withOffload(out, r)
			}
		case "multi_node":
			if !hw.Scalable {
				continue
			}
			done := map[int]bool{}
			for _, n := range x.nodeOptions() {
				if n < 2 {
					continue
				}
				n = max(n, x.nodesFor(id))
				if n > siteMaxNodes || done[n] {
					continue
				}
				done[n] = true
				if r, ok := x.renderStrategy(id, n); ok {
					out = x.withOffload(out, r)
				}
			}
		case "pd_cluster":
			if !hw.Scalable {
				continue
			}
			b := &build{rctx: x, sid: id, S: sd}
			var modes []string
			for _, m := range x.poolModes() {
				if siteMaxNodes*hw.GPUCount >= x.minGPUs(m) {
					modes = append(modes, m)
				}
			}
			if len(modes) == 0 {
				continue
			}
			def := [2]PoolPick{b.pdDefault("prefill"), b.pdDefault("decode")}
			for i := range def {
				if !contains(modes, def[i].Mode) {
					def[i].Mode = modes[0]
					def[i].Nodes = max(def[i].Nodes, x.nodesFor(modes[0]))
				}
			}
			for ri := range 2 {
				for _, m := range modes {
					for n := max(1, x.nodesFor(m)); n <= siteMaxNodes; n++ {
						p := pdPick{Prefill: def[0], Decode: def[1]}
						if ri == 0 {
							p.Prefill = PoolPick{Mode: m, Nodes: n}
						} else {
							p.Decode = PoolPick{Mode: m, Nodes: n}
						}
						if r, ok := x.renderPick(id, 1, &p); ok {
							r.spaceRole = []string{"prefill", "decode"}[ri]
							out = append(out, r)
						}
					}
				}
			}
		}
	}
	return out
}
