package recipes

import (
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/prose"
)

// gfxRe matches the AMD ISA names guides use for a GPU family ("For
// gfx950:", "MI300X/MI325X (gfx942)").
var graceRe = regexp.MustCompile(`(?i)\bgrace[- ](?:blackwell|hopper)\b`)

var gfxRe = regexp.MustCompile(`(?i)\bgfx(94[02]|950)\b`)

// gfxIDs maps an AMD ISA to taxonomy ids (gfx942: MI300X and MI325X, CDNA3;
// gfx950: MI350X and MI355X, CDNA4 — MI350X has no taxonomy profile; AMD
// ROCm documentation, "GPU hardware specifications").
var gfxIDs = map[string][]string{"940": {"mi300x"}, "942": {"mi300x", "mi325x"}, "950": {"mi355x"}}

// ProseHardware returns the taxonomy ids text names, for prose statements
// (package prose): "Grace-Blackwell" read as GB200/GB300, then GPU words (HardwareIDs), then GPU generations
// (GenerationIDs), then AMD ISA names (gfx942, gfx950), in that order,
// without duplicates.
func ProseHardware(text string) []string {
	// "Grace-Blackwell" / "Grace Blackwell" are the GB200 / GB300 trays,
	// not every Blackwell part; "Grace Hopper" (GH200) has no id
	text = graceRe.ReplaceAllStringFunc(text, func(m string) string {
		if strings.Contains(strings.ToLower(m), "blackwell") {
			return "GB200/GB300"
		}
		return "GH200"
	})
	out := HardwareIDs(text)
	for _, id := range GenerationIDs(text) {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	for _, m := range gfxRe.FindAllStringSubmatch(text, -1) {
		for _, id := range gfxIDs[strings.ToLower(m[1])] {
			if !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// Prose alternates of a model YAML recipe (issue 22, item 5): the settings
// the recipe's prose states — its `guide:` Markdown and each
// variants.<v>.description (package prose) — for the hardware / variant it
// names become alternates of the site's renderings (and, for "any
// command", of the guide's launch blocks), with the strictness of the
// guides' prose deltas (ProseDelta):
//
//   - a sentence right before or after a launch block is that block's
//     delta (ProseDelta), not a statement about the renderings;
//   - a recipe rendered on several hardware takes only a statement that
//     names hardware (or a vendor) or says "any command"; of the variants
//     rendered on that hardware, several take only a statement that names
//     a variant (precision, checkpoint) or says "any command";
//   - a parallel size (Size, AtLeast) applies to single-node renderings
//     without data parallelism whose node holds it, and sets
//     --tensor-parallel-size; AtLeast admits its size — the larger sizes the
//     selection space offers (the node's, multi-node TP) are renderings
//     already;
//   - settings (Add) apply to every vLLM role of the rendering, and to the
//     guide's launch commands in scope (a block's hardware and model);
//   - a statement that changes nothing adds nothing.
//
// The alternate rendering is the rendering with the settings changed
// (their origin the sentence, file:line), its Query and URL the
// selection's; feature re-renders keep the settings (renderFor,
// offloadFor); its Candidate.Prose cites the sentence.

// recipeProse is what the prose of one recipe file states, with the facts
// its scope rules read.
type recipeProse struct {
	stmts []prose.Statement
	hw    map[string]bool                        // hardware the recipe renders on
	vars  map[string]map[string]proseVariantFact // hardware → variant → facts
}

// proseVariantFact is what a variant is matched on: its checkpoint and
// precision words.
type proseVariantFact struct {
	checkpoint string
	precs      []string
}

// readRecipeProse reads the statements of a recipe's guide (text at
// firstLine of file) and of each variants.<v>.description (its variant
// named as context), dropping the sentences next to a launch block.
func readRecipeProse(file string, root *yaml.Node) []prose.Statement {
	opt := prose.Options{Hardware: ProseHardware}
	var out []prose.Statement
	keep := func(st []prose.Statement) {
		for _, s := range st {
			if !slices.ContainsFunc(s.NextToCode, launchRe.MatchString) {
				out = append(out, s)
			}
		}
	}
	if g := get(root, "guide"); g != nil {
		if text, ok := str(g); ok {
			first := g.Line
			if g.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				first = g.Line + 1
			}
			if st, _, err := prose.Read(file, []byte(text), first, opt); err == nil {
				keep(st)
			}
		}
	}
	for _, p := range pairs(get(root, "variants")) {
		d := get(p.val, "description")
		text, ok := str(d)
		if !ok || text == "" {
			continue
		}
		ctx := "variant " + p.key + " " + strOr(get(p.val, "precision"), "") + " " + strOr(get(p.val, "model_id"), "")
		o := opt
		o.Context = []string{ctx}
		if st, _, err := prose.Read(file, []byte(text), d.Line, o); err == nil {
			keep(st)
		}
	}
	return out
}

// addRendering records r's hardware and variant for the scope rules.
func (rp *recipeProse) addRendering(r *Rendering) {
	if rp.hw == nil {
		rp.hw, rp.vars = map[string]bool{}, map[string]map[string]proseVariantFact{}
	}
	rp.hw[r.Hardware] = true
	if rp.vars[r.Hardware] == nil {
		rp.vars[r.Hardware] = map[string]proseVariantFact{}
	}
	if _, ok := rp.vars[r.Hardware][r.Variant]; !ok {
		rp.vars[r.Hardware][r.Variant] = variantFact(r)
	}
}

func variantFact(r *Rendering) proseVariantFact {
	ck := r.Tree
	if rc := r.firstVLLM(); rc != nil && len(rc.Argv) > 2 {
		ck = rc.Argv[2].Text
	}
	prec := strOr(getPath(r.Recipe.root, "variants", r.Variant, "precision"), "")
	return proseVariantFact{checkpoint: ck, precs: prose.PrecisionWords(prec, r.Variant, ck)}
}

// firstVLLM is the first role that runs vllm serve.
func (r *Rendering) firstVLLM() *RoleCommand {
	for i := range r.Roles {
		if len(r.Roles[i].Argv) > 2 && r.Roles[i].Argv[0].Text == "vllm" {
			return &r.Roles[i]
		}
	}
	return nil
}

// inScope reports whether st applies to rendering r.
func (rp *recipeProse) inScope(st *prose.Statement, r *Rendering) bool {
	sc := st.Scope
	if sc.All {
		return true
	}
	if len(rp.hw) > 1 && !sc.NamesHardware() {
		return false
	}
	if sc.NamesHardware() && !sc.MatchesHardware(r.Hardware, prose.Vendor(r.Hardware)) {
		return false
	}
	f := variantFact(r)
	if !sc.MatchesVariant(f.checkpoint, f.precs) {
		return false
	}
	n := 0
	for _, v := range rp.vars[r.Hardware] {
		if sc.MatchesVariant(v.checkpoint, v.precs) {
			n++
		}
	}
	return n <= 1 || sc.NamesVariant()
}

// proseAlts are the alternates rp's statements make of r.
func (rp *recipeProse) proseAlts(r *Rendering) []*Rendering {
	if rp == nil || r.prose != nil {
		return nil
	}
	var out []*Rendering
	for i := range rp.stmts {
		st := &rp.stmts[i]
		if !rp.inScope(st, r) {
			continue
		}
		if alt := proseRendering(r, st); alt != nil {
			out = append(out, alt)
		}
	}
	return out
}

// proseRendering is r with st's settings, or nil when st does not apply
// to r's shape or changes nothing.
func proseRendering(r *Rendering, st *prose.Statement) *Rendering {
	size := st.Kind == prose.Size || st.Kind == prose.AtLeast
	if size && (r.DeployType != "single_node" || st.TP > max(r.GPUsPerNode, 1)) {
		return nil
	}
	o := st.Origin(launch.OriginRecipe)
	sets := st.Settings("vllm")
	alt := *r
	alt.Roles = make([]RoleCommand, len(r.Roles))
	changed := false
	for i, rc := range r.Roles {
		rc.Argv = slices.Clone(rc.Argv)
		rc.Env = slices.Clone(rc.Env)
		if len(rc.Argv) > 2 && rc.Argv[0].Text == "vllm" {
			args := argsFromTokens(rc.Argv[3:])
			if size {
				if _, dp := launch.Lookup(args, "--data-parallel-size"); dp {
					return nil
				}
			}
			na, ca := prose.ApplyArgs("vllm", args, sets, o)
			if ca {
				rc.Argv = append(rc.Argv[:3:3], tokensFromArgs(na)...)
			}
			env := envVars(rc.Env)
			ne, ce := prose.ApplyEnv(env, st, o)
			if ce {
				rc.Env = envEntries(ne)
			}
			changed = changed || ca || ce
		}
		alt.Roles[i] = rc
	}
	if !changed {
		return nil
	}
	alt.prose = st
	return &alt
}

// tokensFromArgs is the inverse of argsFromTokens.
func tokensFromArgs(args []launch.Arg) []Token {
	var out []Token
	for _, a := range args {
		if a.Flag != "" {
			out = append(out, Token{Text: a.Flag, Origin: a.Origin})
		}
		for _, v := range a.Values {
			out = append(out, Token{Text: v, Origin: a.Origin})
		}
	}
	return out
}

// envEntries turns env back into rendering env entries (string typed).
func envEntries(env []launch.EnvVar) []EnvEntry {
	out := make([]EnvEntry, 0, len(env))
	for _, e := range env {
		out = append(out, EnvEntry{Name: e.Name, Value: e.Value, Type: "string", Origin: e.Origin})
	}
	return out
}

// withProse is out (a re-render of r) with r's prose settings, if any.
func withProse(out, r *Rendering) *Rendering {
	if out == nil || r == nil || r.prose == nil {
		return out
	}
	if alt := proseRendering(out, r.prose); alt != nil {
		return alt
	}
	out.prose = r.prose // already holds the settings
	return out
}

// guideProse is d (a guide block's deployment on hardware hws, serving
// model) with st's settings, or false when st does not apply or changes
// nothing. Only settings (Add) apply to guide commands (a block's parallel
// size is its own, ProseDelta); the scope rules are inScope's, with the
// block's hardware and model.
func (rp *recipeProse) guideProse(st *prose.Statement, d *launch.Deployment, hws []string, model string) (launch.Deployment, bool) {
	if st.Kind != prose.Add {
		return launch.Deployment{}, false
	}
	sc := st.Scope
	if !sc.All {
		if len(rp.hw) > 1 && !sc.NamesHardware() || !sc.MatchesVariant(model, prose.PrecisionWords(model)) {
			return launch.Deployment{}, false
		}
		if sc.NamesHardware() && !slices.ContainsFunc(hws, func(h string) bool { return sc.MatchesHardware(h, prose.Vendor(h)) }) {
			return launch.Deployment{}, false
		}
		variants := map[string]bool{}
		for _, vs := range rp.vars {
			for v := range vs {
				variants[v] = true
			}
		}
		if len(variants) > 1 && !sc.NamesVariant() {
			return launch.Deployment{}, false
		}
	}
	o := st.Origin(launch.OriginRecipe)
	out := *d
	out.Processes = slices.Clone(d.Processes)
	changed := false
	for i := range out.Processes {
		p := &out.Processes[i]
		if p.Kind != launch.KindWorker {
			continue
		}
		na, ca := prose.ApplyArgs("vllm", p.Args, st.Settings("vllm"), o)
		ne, ce := prose.ApplyEnv(p.Env, st, o)
		p.Args, p.Env = na, ne
		changed = changed || ca || ce
	}
	if !changed {
		return launch.Deployment{}, false
	}
	out.Notes = append(slices.Clone(d.Notes), "prose alternate: "+st.Summary()+" as stated at "+st.Cite())
	return out, true
}
