package recipes

import (
	"go.yaml.in/yaml/v3"
)

// Feature is one entry of a recipe's `features` map whose args a rendering
// carries (vllm-project/recipes models/<org>/<repo>.yaml `features.<key>`;
// spec vllm-recipes.md §9.5).
type Feature struct {
	Key string // features.<key>, e.g. "spec_decoding"
	// Mode is the mode rendered for a modal feature (`modes.<mode>`), "" for
	// a plain feature.
	Mode string
	// Default is true when the site's default feature set (§9.2 step 9)
	// renders this feature with this mode: false for an opt-in feature
	// switched on, or a mode other than the one §9.5 picks.
	Default bool
}

// String is "key" or "key:mode".
func (f Feature) String() string {
	if f.Mode == "" {
		return f.Key
	}
	return f.Key + ":" + f.Mode
}

// featureOpt is one way a feature can add args on a build: an allowed mode
// of a modal feature, or the single arg list of a plain feature.
type featureOpt struct {
	mode string     // "" for a plain feature
	args *yaml.Node // the arg list (a sequence; may be nil or empty)
}

// featureChooser decides, for feature f of a build, whether it is on and
// which option it renders. toggle: f is opt-in here (opt_in_features or
// hardware_opt_in_features[hw]); inDefault: f is in the default feature
// set; def: the option §9.5 picks.
type featureChooser func(f string, toggle, inDefault bool, opts []featureOpt, def int) (on bool, pick int)

// featureOptions lists the options of feature f (node fn) on this build
// (in b.optBuf, valid until the next call), or none when the feature adds
// nothing here (§9.5: a `strategies` list
// without the serving strategy, a companion feature in a kv rendering, a
// modal feature with no allowed mode).
func (b *build) featureOptions(fn *yaml.Node) []featureOpt {
	if b.optBuf == nil {
		b.optBuf = b.optArr[:0]
	}
	out := b.optBuf[:0]
	defer func() { b.optBuf = out[:0] }()
	if st := seq(get(fn, "strategies")); len(st) > 0 && !containsStr(get(fn, "strategies"), b.S.name) {
		return nil
	}
	if b.K != nil && truthy(getPath(fn, "companion", "command")) {
		return nil
	}
	modes := get(fn, "modes")
	if modes == nil {
		if gb := b.s.genBlock(get(fn, "hardware_overrides"), b.hw); gb != nil && !isNull(get(gb, "args")) {
			out = append(out, featureOpt{args: get(gb, "args")})
		} else {
			out = append(out, featureOpt{args: get(fn, "args")})
		}
		return out
	}
	for _, p := range pairs(modes) {
		if vs := seq(get(p.val, "variants")); len(vs) > 0 && !containsStr(get(p.val, "variants"), b.v) {
			continue
		}
		hwm := get(p.val, "hardware")
		if strOr(get(hwm, b.hw.Gen()), "") == "unsupported" || strOr(get(hwm, b.hw.ID), "") == "unsupported" {
			continue
		}
		o := featureOpt{mode: p.key, args: get(p.val, "args")}
		if ho := hwKeyed(get(p.val, "hardware_overrides"), b.hw); ho != nil && !isNull(get(ho, "args")) {
			o.args = get(ho, "args")
		}
		out = append(out, o)
	}
	return out
}

// seqLen is the length of a YAML sequence (0 for anything else).
func seqLen(n *yaml.Node) int {
	if n = deref(n); n == nil || n.Kind != yaml.SequenceNode {
		return 0
	}
	return len(n.Content)
}

// defaultOption is the option §9.5 picks: the variant's default_modes.<f>,
// then the feature's default_mode, then the first allowed mode.
func (b *build) defaultOption(f string, fn *yaml.Node, opts []featureOpt) int {
	for _, n := range []*yaml.Node{getPath(b.vn, "default_modes", f), get(fn, "default_mode")} {
		if v, ok := str(n); ok {
			for i, o := range opts {
				if o.mode == v {
					return i
				}
			}
		}
	}
	return 0
}

// toggleable reports whether feature f is opt-in on this hardware
// (opt_in_features, hardware_opt_in_features.<hw>).
func (b *build) toggleable(f string) bool {
	return containsStr(get(b.r.root, "opt_in_features"), f) ||
		containsStr(get(get(b.r.root, "hardware_opt_in_features"), b.hw.ID), f)
}

// featureArgs appends §9.5 feature args and records the features applied
// (b.chosen). Without a chooser it renders the default feature set
// (b.features, §9.2 step 9). With one (a feature re-render), every feature
// of the recipe is offered to it in YAML order: the features are toggles
// that combine, each adding its own args (features add no env, §9.7).
func (b *build) featureArgs(l *[]rawTok) {
	rf := b.r.rel
	record := !b.recorded // every role of a rendering has the same features
	b.recorded = true
	feats := get(b.r.root, "features")
	keys := b.features
	if b.choose != nil {
		keys = nil
		for _, p := range pairs(feats) {
			if !contains(keys, p.key) { // a repeated key counts once (get: the last)
				keys = append(keys, p.key)
			}
		}
	}
	for _, f := range keys {
		fn := get(feats, f)
		inDefault := contains(b.features, f)
		if !inDefault && b.choose == nil {
			continue
		}
		opts := b.featureOptions(fn)
		if len(opts) == 0 {
			if record && inDefault {
				b.featOn = append(b.featOn, f)
			}
			continue
		}
		def := b.defaultOption(f, fn, opts)
		on, pick := inDefault, def
		if b.choose != nil {
			on, pick = b.choose(f, b.toggleable(f), inDefault, opts, def)
			if pick < 0 || pick >= len(opts) {
				pick = def
			}
			if record && (on != inDefault || on && pick != def) {
				b.custom = true
			}
		}
		if record && on {
			b.featOn = append(b.featOn, f)
			if pick != def && opts[pick].mode != "" {
				b.fmode = append(b.fmode, f+":"+opts[pick].mode)
			}
		}
		if !on {
			continue
		}
		o := opts[pick]
		b.add(l, rf, o.args)
		if record && seqLen(o.args) > 0 {
			if b.chosen == nil {
				b.chosen = make([]Feature, 0, len(keys))
			}
			b.chosen = append(b.chosen, Feature{Key: f, Mode: o.mode, Default: inDefault && pick == def})
		}
	}
}
