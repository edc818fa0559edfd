package recipes

import (
	"encoding/json"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// This file re-renders a matched site rendering with the features an
// InferenceX worker uses (the site's feature toggles, site_features.go).

// featureUse is what an InferenceX worker's vLLM args say about the
// recipe features it runs: its options in NormalizeArgs form, with
// Dynamo's worker spellings (ai-dynamo/dynamo
// components/src/dynamo/vllm/args.py --dyn-tool-call-parser,
// --dyn-reasoning-parser) also counted as vLLM's --tool-call-parser and
// --reasoning-parser.
type featureUse struct {
	vals map[string][]string
}

// dynamoParserFlags maps Dynamo worker options to the vLLM options they
// stand for.
var dynamoParserFlags = [][2]string{
	{"--dyn-tool-call-parser", "--tool-call-parser"},
	{"--dyn-reasoning-parser", "--reasoning-parser"},
}

func newFeatureUse(args []launch.Arg) *featureUse {
	n, _ := NormalizeArgs(args)
	u := &featureUse{vals: make(map[string][]string, len(n))}
	for _, a := range n {
		if a.Flag != "" {
			u.vals[a.Flag] = a.Values
		}
	}
	for _, d := range dynamoParserFlags {
		if v, ok := u.vals[d[0]]; ok {
			if _, has := u.vals[d[1]]; !has {
				u.vals[d[1]] = v
			}
		}
	}
	return u
}

// SpecDecoding reports whether vLLM args run speculative decoding
// (`--speculative-config`, also as `--speculative_config`,
// `--speculative-config=…` or dotted sub-keys; vllm-project/vllm
// vllm/engine/arg_utils.py EngineArgs.speculative_config).
func SpecDecoding(args []launch.Arg) bool {
	n, _ := NormalizeArgs(args)
	_, ok := launch.Lookup(n, "--speculative-config")
	return ok
}

// score rates how well one feature option matches the worker: for each
// option of the feature's args, 1 when the worker sets it, 2 more when the
// value is the same (JSON compared as JSON), and for a JSON object value 1
// per top-level key with an equal value (so an equal value always
// outscores a partly equal one). all is false when the feature has no option or
// the worker lacks one of them.
func (u *featureUse) score(args *yaml.Node) (score int, all bool) {
	var toks []Token
	for _, n := range seq(args) {
		if s, ok := str(n); ok && s != "" {
			toks = append(toks, Token{Text: s})
		}
	}
	norm, _ := NormalizeArgs(argsFromTokens(toks))
	flags := 0
	for _, a := range norm {
		if a.Flag == "" || a.Flag == "--model" {
			continue
		}
		flags++
		got, ok := u.vals[a.Flag]
		if !ok {
			return score, false
		}
		score++
		if strings.Join(got, "\x00") == strings.Join(a.Values, "\x00") {
			score += 2
		}
		if len(got) == 1 && len(a.Values) == 1 {
			score += jsonKeysEqual(got[0], a.Values[0])
		}
	}
	return score, flags > 0
}

// jsonKeysEqual counts the top-level keys two JSON objects share with
// equal values (0 when either is not an object). A "model" value (the
// draft model of --speculative-config: vllm-project/vllm
// vllm/config/speculative.py SpeculativeConfig.model, a Hugging Face id or
// a local path) that is a staged copy of the other side's Hugging Face id
// (launch.StagedCopyOf: a local path whose last element is the
// repository's name) is equal, so a worker that stages
// Inferact/MiniMax-M3-EAGLE3-GQA under /scratch/…/MiniMax-M3-EAGLE3-GQA
// matches the mode serving that repository and not a sibling mode whose
// draft is another repository.
func jsonKeysEqual(a, b string) int {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal([]byte(a), &ma) != nil || json.Unmarshal([]byte(b), &mb) != nil {
		return 0
	}
	n := 0
	for k, va := range ma {
		if vb, ok := mb[k]; ok {
			ca, _ := CanonicalJSON(string(va))
			cb, _ := CanonicalJSON(string(vb))
			if ca == cb || k == "model" && sameModelValue(va, vb) {
				n++
			}
		}
	}
	return n
}

// sameModelValue reports whether two JSON string values name the same
// model repository, one possibly a staged local copy of the other.
func sameModelValue(a, b json.RawMessage) bool {
	var sa, sb string
	if json.Unmarshal(a, &sa) != nil || json.Unmarshal(b, &sb) != nil {
		return false
	}
	return launch.StagedCopyOf(sa, sb) || launch.StagedCopyOf(sb, sa)
}

// choose is the featureChooser of a worker: a feature — opt-in or in the
// default set, as the site lets a reader switch either — is on exactly when
// the worker sets every option of one of its allowed modes (so spec
// decoding is on ⇔ the worker runs --speculative-config, tool calling off
// when it sets no --tool-call-parser); a feature that adds no option keeps
// its default state. An on modal feature renders the
// allowed mode that best matches the worker (ties: the §9.5 pick).
func (u *featureUse) choose(_ string, toggle, inDefault bool, opts []featureOpt, def int) (bool, int) {
	best, bestScore := -1, -1
	flags := false
	for i, o := range opts {
		sc, all := u.score(o.args)
		flags = flags || seqLen(o.args) > 0
		if !all {
			continue
		}
		if sc > bestScore || sc == bestScore && i == def {
			best, bestScore = i, sc
		}
	}
	// Every feature is a toggle on the site, default-on ones included
	// (CommandBuilder.jsx toggleFeature); one that adds no option keeps
	// its default state.
	on := inDefault
	if toggle || flags {
		on = best >= 0
	}
	if best < 0 {
		best = def
	}
	return on, best
}

// renderFor re-renders r (same tree, variant, hardware, strategy, node
// count and KV-offload option) with the features chosen for the worker use describes, as the
// site's feature toggles would produce it (with r's prose settings, when r
// is a prose alternate). It returns nil when that choice
// is the default feature set (r itself is the answer) or r cannot be
// re-rendered.
func (s *Site) renderFor(r *Rendering, use *featureUse) *Rendering {
	if r == nil || r.ctx == nil {
		return nil
	}
	x := *r.ctx
	x.pc = posCache{site: s, m: map[*yaml.Node]launch.Origin{}}
	x.choose = use.choose
	out, ok := x.renderOffload(r.Strategy, r.reqN, r.pick, r.KVOffload)
	if !ok || !out.CustomFeatures {
		return nil
	}
	out.Recommended = r.Recommended
	out.ctx = nil
	return withProse(out, r)
}

// withFeatures adds, before each model YAML candidate, its re-render with
// the features the InferenceX worker (args) uses when that differs from
// the site's default feature set, then orders the candidates so those
// whose speculative decoding agrees with the worker's come first, and
// within each group those whose KV-offload connector agrees with the
// worker's (offloadConnector: a worker without one prefers renderings
// without a KV Offload pick) — stable: otherwise the Match order.
func (ix *Index) withFeatures(cs []Candidate, args []launch.Arg) []Candidate {
	if len(cs) == 0 {
		return cs
	}
	use := newFeatureUse(args)
	_, spec := use.vals["--speculative-config"]
	conns := ix.offloadConnectors()
	wantConn := offloadConnector(use.vals["--kv-transfer-config"], conns)
	out := make([]Candidate, 0, len(cs)+len(cs)/2)
	for _, c := range cs {
		// A nearest (inexact) candidate has no KV-offload twin in the
		// list: re-render it with the worker's offload option so the
		// evidence compares like with like.
		if !c.Exact && wantConn != "" && c.rendering != nil && c.rendering.KVOffload == "" {
			if alt := ix.offloadFor(c.rendering, use, wantConn); alt != nil {
				out = append(out, candidateFrom(c, alt))
			}
		}
		if alt := ix.site.renderFor(c.rendering, use); alt != nil {
			out = append(out, candidateFrom(c, alt))
		}
		out = append(out, c)
	}
	// disagree ranks a candidate: 0 when both its speculative decoding
	// and its offload connector agree with the worker's, 1 when only the
	// spec decoding does, 2 and 3 likewise when the spec decoding does not;
	// -1 drops a rendering with a KV Offload pick whose connector is not
	// the worker's (a worker without an offload connector, or with
	// another one, is compared with the renderings without it).
	disagree := func(c *Candidate) int {
		if c.Process < 0 || c.Process >= len(c.Deployment.Processes) {
			n := 0
			if spec {
				n += 2
			}
			if wantConn != "" {
				n++
			}
			return n
		}
		// one NormalizeArgs for both readings (SpecDecoding is the
		// lookup of --speculative-config in it)
		norm, _ := NormalizeArgs(c.Deployment.Processes[c.Process].Args)
		n := 0
		if _, ok := launch.Lookup(norm, "--speculative-config"); ok != spec {
			n += 2
		}
		var kv []string
		if len(norm) > 0 {
			kv, _ = launch.Lookup(norm, "--kv-transfer-config")
		}
		if offloadConnector(kv, conns) != wantConn {
			if c.rendering != nil && c.rendering.KVOffload != "" {
				return -1
			}
			n++
		}
		return n
	}
	rank := make([]int, len(out))
	kept := 0
	for i := range out {
		if rank[i] = disagree(&out[i]); rank[i] >= 0 {
			kept++
		}
	}
	sorted := make([]Candidate, 0, len(out))
	for want := range 4 {
		for i := range out {
			if rank[i] == want || kept == 0 && rank[i] < 0 && want == 3 {
				sorted = append(sorted, out[i])
			}
		}
	}
	return sorted
}

// offloadFor re-renders r with the features use describes and the
// composing KV-offload option whose connector is conn (of those the site
// offers on r's selection, the one whose args best match the worker's);
// nil when none is offered or r cannot be re-rendered.
func (ix *Index) offloadFor(r *Rendering, use *featureUse, conn string) *Rendering {
	if r.ctx == nil {
		return nil
	}
	x := *r.ctx
	x.kvOpts = ix.site.kvOffload
	best, bestScore := "", -1
	for _, p := range pairs(ix.site.kvOffload) {
		opt := x.kvOption(p.key, r.Strategy)
		if opt == nil || offloadConnector(argValues(get(opt, "args"), "--kv-transfer-config"), map[string]bool{conn: true}) == "" {
			continue
		}
		if sc, _ := use.score(get(opt, "args")); sc > bestScore {
			best, bestScore = p.key, sc
		}
	}
	if best == "" {
		return nil
	}
	x.pc = posCache{site: ix.site, m: map[*yaml.Node]launch.Origin{}}
	x.choose = use.choose
	out, ok := x.renderOffload(r.Strategy, r.reqN, r.pick, best)
	if !ok {
		return nil
	}
	out.ctx = nil
	return withProse(out, r)
}

// argValues is the value following flag in a YAML arg list (nil when the
// flag is absent or last).
func argValues(args *yaml.Node, flag string) []string {
	toks := seq(args)
	for i := 0; i+1 < len(toks); i++ {
		if f, _ := str(toks[i]); f == flag {
			return []string{strOr(toks[i+1], "")}
		}
	}
	return nil
}

// kvConnectorRe finds the kv_connector of a --kv-transfer-config value,
// also in a value that is not valid JSON (an InferenceX script's shell
// expansion inside it).
var kvConnectorRe = regexp.MustCompile(`"kv_connector"\s*:\s*"([^"]*)"`)

// kvConnector is the kv_connector a --kv-transfer-config value names ("" when
// none).
func kvConnector(v string) string {
	if m := kvConnectorRe.FindStringSubmatch(v); m != nil {
		return m[1]
	}
	return ""
}

// offloadConnectors is the set of kv_connector names of the taxonomy's
// composing KV-offload options (kv_offload.<key>.args
// --kv-transfer-config): SimpleCPUOffloadConnector, LMCacheMPConnector …
func (ix *Index) offloadConnectors() map[string]bool {
	out := map[string]bool{}
	for _, p := range pairs(ix.site.kvOffload) {
		if v := argValues(get(p.val, "args"), "--kv-transfer-config"); len(v) > 0 {
			if c := kvConnector(v[0]); c != "" {
				out[c] = true
			}
		}
	}
	return out
}

// offloadConnector is the connector of a --kv-transfer-config option's
// values vals (the JSON is the first) when it is one of the KV-offload
// connectors conns, else "" (no config, or a disaggregation or Mooncake
// connector).
func offloadConnector(vals []string, conns map[string]bool) string {
	if len(vals) == 0 {
		return ""
	}
	if c := kvConnector(vals[0]); conns[c] {
		return c
	}
	return ""
}

// candidateFrom is c for the feature re-render r of its rendering.
func candidateFrom(c Candidate, r *Rendering) Candidate {
	c.rendering = r
	c.Prose = r.prose
	c.Features, c.CustomFeatures = r.Features, r.CustomFeatures
	c.Deployment = r.Deployment()
	c.URL, c.Query = r.URL, r.Query
	if c.roleIdx < len(r.Roles) {
		c.Command = r.Roles[c.roleIdx].Command()
	}
	c.Process = 0
	for i, p := range c.Deployment.Processes {
		if p.Kind == launch.KindWorker && p.Role == c.Role {
			c.Process = i
			c.Topology = TopologyOf(p.Args)
			break
		}
	}
	return c
}
