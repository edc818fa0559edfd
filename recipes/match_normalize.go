package recipes

import (
	_ "embed"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

//go:embed vllm_flags.txt
var vllmFlagsTxt string

// vllmFlags is the embedded long-option list (immutable after init).
var vllmFlags = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range strings.Split(vllmFlagsTxt, "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.HasPrefix(l, "#") {
			m[l] = true
		}
	}
	return m
}()

// vllmFlagList is vllmFlags' names, sorted (immutable after init): the
// names a prefix starts are one run of it (NormalizeFlag).
var vllmFlagList = slices.Sorted(maps.Keys(vllmFlags))

// jsonFlags are the vLLM options whose value is a JSON object and is
// compared as JSON (key order and spacing ignored); see IsJSONFlag.
var jsonFlags = map[string]bool{
	"--speculative-config": true, "--kv-transfer-config": true, "--compilation-config": true,
	"--hf-overrides": true, "--limit-mm-per-prompt": true, "--attention-config": true,
	"--kv-events-config": true, "--eplb-config": true, "--mm-processor-kwargs": true,
	"--override-generation-config": true, "--structured-outputs-config": true,
	"--model-loader-extra-config": true, "--kernel-config": true, "--profiler-config": true,
}

// syntheticAcceptanceKeys are speculative-config keys that make vLLM
// simulate draft acceptance for benchmarks (InferenceX harness, class
// synthetic-acceptance; spec inferencex.md "vLLM speculative-config keys
// rejection_sample_method: synthetic, synthetic_acceptance_length").
var syntheticAcceptanceKeys = []string{"rejection_sample_method", "synthetic_acceptance_length", "synthetic_acceptance_rate"}

// IsJSONFlag reports whether the vLLM option flag (canonical long form,
// e.g. "--speculative-config") takes a JSON object compared as JSON.
func IsJSONFlag(flag string) bool { return jsonFlags[flag] }

// SyntheticAcceptanceKeys returns the speculative-config keys that make vLLM
// simulate draft acceptance for benchmarks (class synthetic-acceptance), in a
// new slice the caller may keep.
func SyntheticAcceptanceKeys() []string { return slices.Clone(syntheticAcceptanceKeys) }

// NormalizeFlag returns the canonical long form of a vLLM option and the
// dotted sub-key path, if any:
//
//	--tensor_parallel_size → --tensor-parallel-size
//	-tp → --tensor-parallel-size; -O3 → --optimization-level (value "3")
//	--tensor-parallel → --tensor-parallel-size (argparse prefix abbreviation,
//	  resolved against vLLM's option list when unique)
//	--compilation_config.pass_config.fuse_allreduce_rms →
//	  --compilation-config, "pass_config.fuse_allreduce_rms"
//
// inline is a value carried in the flag itself (-O3 → "3"), else "".
func NormalizeFlag(flag string) (canon, subPath, inline string) {
	if !strings.HasPrefix(flag, "-") {
		return flag, "", ""
	}
	base := flag
	if i := strings.Index(flag, "."); i > 0 {
		base, subPath = flag[:i], flag[i+1:]
	}
	if !strings.HasPrefix(base, "--") {
		// vLLM's short options (vllm/engine/arg_utils.py), from the shared
		// alias table
		if a := launch.CanonicalFlag("vllm", base); a != base {
			return a, subPath, ""
		}
		if strings.HasPrefix(base, "-O") && len(base) > 2 {
			return "--optimization-level", subPath, base[2:]
		}
		return base, subPath, ""
	}
	if strings.IndexByte(base, '_') >= 0 {
		base = "--" + strings.ReplaceAll(base[2:], "_", "-")
	}
	if vllmFlags[base] || strings.HasPrefix(base, "--no-") && vllmFlags["--"+strings.TrimPrefix(base, "--no-")] {
		return base, subPath, ""
	}
	// argparse's abbreviation: the one long option base starts (the
	// options it starts are a run of the sorted list)
	i, _ := slices.BinarySearch(vllmFlagList, base)
	if i < len(vllmFlagList) && strings.HasPrefix(vllmFlagList[i], base) {
		if i+1 < len(vllmFlagList) && strings.HasPrefix(vllmFlagList[i+1], base) {
			return base, subPath, "" // ambiguous
		}
		return vllmFlagList[i], subPath, ""
	}
	return base, subPath, ""
}

// CanonicalJSON returns v in launch.CanonicalJSON's canonical form (sorted
// keys, no spacing, numbers as written so 1.0 and 1 stay distinct, no HTML
// escaping), and whether v was exactly one JSON value. Invalid JSON (a
// `<placeholder>` inside, trailing text) comes back unchanged.
func CanonicalJSON(v string) (string, bool) {
	if c, ok := launch.CanonicalJSON(v); ok {
		return c, true
	}
	return v, false
}

// decodeJSON decodes s, exactly one JSON value, into x with numbers as
// json.Number (kept as written when re-encoded, as launch.CanonicalJSON
// does; Python's json.loads keeps 1.0 a float and 1 an int). Errors:
// invalid JSON, a type mismatch, trailing data.
func decodeJSON(s string, x any) error {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(x); err != nil {
		return err
	}
	if strings.TrimLeft(s[d.InputOffset():], " \t\r\n") != "" {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// encodeJSON encodes x and returns it in CanonicalJSON's form.
func encodeJSON(x any) string {
	b, _ := json.Marshal(x)
	c, _ := CanonicalJSON(string(b))
	return c
}

// StripSyntheticAcceptance removes SyntheticAcceptanceKeys from a
// speculative-config JSON value; it returns the canonical rest and the keys
// removed. Non-JSON values come back unchanged.
func StripSyntheticAcceptance(v string) (string, []string) {
	var m map[string]any
	if decodeJSON(v, &m) != nil {
		return v, nil
	}
	var removed []string
	for _, k := range syntheticAcceptanceKeys {
		if _, ok := m[k]; ok {
			delete(m, k)
			removed = append(removed, k)
		}
	}
	return encodeJSON(m), removed
}

// setPath sets dotted path p in m to v.
func setPath(m map[string]any, p string, v any) {
	parts := strings.Split(p, ".")
	for _, k := range parts[:len(parts)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

// dottedValue types a dotted-flag value the way vLLM does: JSON when it
// parses, True/False as booleans, else the string.
func dottedValue(s string) any {
	switch s {
	case "True", "true":
		return true
	case "False", "false":
		return false
	}
	var x any
	if decodeJSON(s, &x) == nil {
		return x
	}
	return s
}

// NormalizeArgs returns vLLM args in a canonical form for comparison:
//   - `--flag=value` is split into flag and value;
//   - flag names go through NormalizeFlag (aliases, underscores,
//     abbreviations);
//   - the model positional argument becomes `--model <id>`;
//   - dotted sub-keys (`--speculative-config.method mtp`) are merged into
//     the JSON value of their option;
//   - IsJSONFlag values are canonical JSON, and SyntheticAcceptanceKeys are
//     removed from --speculative-config (they are returned as
//     "--speculative-config.<key>", class synthetic-acceptance);
//   - a repeated option keeps its last value at its last position
//     (argparse "last wins");
//   - Dynamo's `--dyn-tool-call-parser X` (ai-dynamo/dynamo
//     components/src/dynamo/vllm/args.py) implies auto tool choice: the
//     Dynamo frontend parses tool calls with that parser for tool_choice
//     "auto" and has no switch of its own, where vLLM's OpenAI server needs
//     `--enable-auto-tool-choice --tool-call-parser X`
//     (vllm/entrypoints/openai/cli_args.py). So `--enable-auto-tool-choice`
//     is added right after it when absent (origin: the Dynamo option).
//     The option itself keeps its name (package compare aliases it).
//
// Origins are kept.
func NormalizeArgs(args []launch.Arg) (out []launch.Arg, synthetic []string) {
	type dotted struct {
		path string
		val  string
		o    launch.Origin
	}
	var dots map[string][]dotted // made at the first dotted sub-key
	tmp := make([]launch.Arg, 0, len(args))
	// The flags' values are copied (the caller's slices are never
	// shared) into windows of one buffer, each capped at its length.
	nvals := 0
	for i := range args {
		if args[i].Flag != "" {
			nvals += len(args[i].Values)
		}
	}
	vbuf := make([]string, 0, nvals)
	modelSeen := false
	for _, a := range args {
		if a.Flag == "" {
			if !modelSeen && len(a.Values) == 1 {
				modelSeen = true
				tmp = append(tmp, launch.Arg{Flag: "--model", Values: a.Values, Origin: a.Origin})
				continue
			}
			tmp = append(tmp, a)
			continue
		}
		flag, vals := a.Flag, []string(nil)
		if len(a.Values) > 0 {
			k := len(vbuf)
			vbuf = append(vbuf, a.Values...)
			vals = vbuf[k:len(vbuf):len(vbuf)]
		}
		if i := strings.Index(flag, "="); i > 0 && len(vals) == 0 {
			flag, vals = flag[:i], []string{flag[i+1:]}
		}
		canon, sub, inline := NormalizeFlag(flag)
		if inline != "" && len(vals) == 0 {
			vals = []string{inline}
		}
		if sub != "" {
			v := "true"
			if len(vals) > 0 {
				v = vals[0]
			}
			if dots == nil {
				dots = map[string][]dotted{}
			}
			dots[canon] = append(dots[canon], dotted{sub, v, a.Origin})
			if _, ok := findArg(tmp, canon); !ok {
				tmp = append(tmp, launch.Arg{Flag: canon, Values: []string{"{}"}, Origin: a.Origin})
			}
			continue
		}
		tmp = append(tmp, launch.Arg{Flag: canon, Values: vals, Origin: a.Origin})
	}
	// Last wins.
	last := make(map[string]int, len(tmp))
	n := 0 // the args kept: positional ones, each flag's last, the added one
	for i, a := range tmp {
		if a.Flag != "" {
			last[a.Flag] = i
		} else {
			n++
		}
	}
	n += len(last)
	if _, ok := last[dynToolCallParser]; ok {
		if _, ok := last[autoToolChoice]; !ok {
			n++
		}
	}
	if n == 0 {
		return nil, nil
	}
	out = make([]launch.Arg, 0, n)
	for i, a := range tmp {
		if a.Flag != "" && last[a.Flag] != i {
			continue
		}
		if ds := dots[a.Flag]; len(ds) > 0 {
			m := map[string]any{}
			if len(a.Values) > 0 {
				_ = decodeJSON(a.Values[0], &m)
				if m == nil {
					m = map[string]any{}
				}
			}
			for _, d := range ds {
				setPath(m, d.path, dottedValue(d.val))
			}
			a.Values = []string{encodeJSON(m)}
		}
		if jsonFlags[a.Flag] && len(a.Values) == 1 {
			if a.Flag == "--speculative-config" {
				v, removed := StripSyntheticAcceptance(a.Values[0])
				for _, k := range removed {
					synthetic = append(synthetic, "--speculative-config."+k)
				}
				a.Values = []string{v}
			}
			if c, ok := CanonicalJSON(a.Values[0]); ok {
				a.Values = []string{c}
			}
		}
		out = append(out, a)
		if a.Flag == dynToolCallParser && len(a.Values) > 0 && a.Values[0] != "" {
			if _, ok := last[autoToolChoice]; !ok {
				out = append(out, launch.Arg{Flag: autoToolChoice, Origin: a.Origin})
			}
		}
	}
	return out, synthetic
}

const (
	dynToolCallParser = "--dyn-tool-call-parser"
	autoToolChoice    = "--enable-auto-tool-choice"
)

func findArg(args []launch.Arg, flag string) (int, bool) {
	for i, a := range args {
		if a.Flag == flag {
			return i, true
		}
	}
	return -1, false
}

// Topology is the parallel layout of one vLLM engine, read from its args.
// Modes follow the recipes.vllm.ai strategy names (vllm-project/recipes
// strategies/*.yaml): tp (Tensor Parallel), tep (Tensor + Expert Parallel),
// dep (Data + Expert Parallel: DP attention, TP 1), dp (data-parallel
// replicas, TP 1), tp_dp (TP + Data Parallel) and tp_dep (TP attention
// inside each DP rank, with expert parallel — DP + EP over TP groups, not the
// site's DEP).
type Topology struct {
	TP, DP, PP int    // sizes (1 when absent; 0 when a placeholder)
	EP         bool   // --enable-expert-parallel
	GPUs       int    // TP × DP × PP: GPUs of one engine (0 = unknown)
	Mode       string // tp | tep | dep | dp | tp_dp | tp_dep
}

// Same reports whether two layouts are the same engine: TP, DP, PP, EP and
// the GPU count all equal (on one hardware the GPU count fixes the nodes).
func (t Topology) Same(o Topology) bool {
	return t.TP == o.TP && t.DP == o.DP && t.PP == o.PP && t.EP == o.EP && t.GPUs == o.GPUs
}

// String gives the layout as "TP8", "DEP16", "TEP4(pp2)", "TP4×DP2",
// "TP2×DEP8" (TP 2 inside each of 8 DP ranks, with EP); "tp?" when a size is
// a placeholder.
func (t Topology) String() string {
	if t.GPUs == 0 {
		return t.Mode + "?"
	}
	var s string
	switch t.Mode {
	case "tp_dp":
		s = "TP" + strconv.Itoa(t.TP) + "×DP" + strconv.Itoa(t.DP)
	case "tp_dep":
		s = "TP" + strconv.Itoa(t.TP) + "×DEP" + strconv.Itoa(t.DP)
	default:
		s = strings.ToUpper(t.Mode) + strconv.Itoa(t.GPUs/max(t.PP, 1))
	}
	if t.PP > 1 {
		s += "(pp" + strconv.Itoa(t.PP) + ")"
	}
	return s
}

// modeOf names a layout's mode from its sizes (see Topology).
func modeOf(tp, dp int, ep bool) string {
	switch {
	case dp > 1 && ep && tp > 1:
		return "tp_dep"
	case dp > 1 && ep:
		return "dep"
	case ep:
		return "tep"
	case dp > 1 && tp > 1:
		return "tp_dp"
	case dp > 1:
		return "dp"
	}
	return "tp"
}

// TopologyOf reads TP/DP/PP/EP from (normalized or raw) vLLM args.
//
// It reads the four options as NormalizeArgs would leave them (flag
// spelling through NormalizeFlag, `--flag=value`, inline values, dotted
// sub-keys, last wins) without building the normalized list: it only
// keeps, per option, whether it is present, whether a dotted sub-key
// made its value JSON, and its last plain value.
func TopologyOf(args []launch.Arg) Topology {
	var tv topoVals
	for i := range args {
		a := &args[i]
		if a.Flag == "" {
			continue // positional (NormalizeArgs: --model or kept as is)
		}
		first := ""
		if len(a.Values) > 0 {
			first = a.Values[0]
		}
		tv.add(a.Flag, first, len(a.Values))
	}
	return tv.topology()
}

// topologyOfTokens is TopologyOf(argsFromTokens(toks)) without building
// the args: the same unit rule (a flag takes the next token when it does
// not start with "-").
func topologyOfTokens(toks []Token) Topology {
	var tv topoVals
	for i := 0; i < len(toks); i++ {
		t := toks[i].Text
		if !strings.HasPrefix(t, "-") {
			continue // positional
		}
		if i+1 < len(toks) && !strings.HasPrefix(toks[i+1].Text, "-") {
			tv.add(t, toks[i+1].Text, 1)
			i++
			continue
		}
		tv.add(t, "", 0)
	}
	return tv.topology()
}

// Indices of the options topoVals follows.
const (
	topoTP = iota
	topoDP
	topoPP
	topoEP
	topoFlags
)

// topoVal is what NormalizeArgs leaves of one option: present, its value
// made a JSON object by a dotted sub-key (dotted), else the first of the
// last occurrence's values (n of them).
type topoVal struct {
	present, dotted bool
	first           string
	n               int
}

// topoVals follows the options TopologyOf reads through a list of args.
type topoVals [topoFlags]topoVal

// add is one non-positional arg (flag, its first value, its value count),
// canonicalized as NormalizeArgs does.
func (tv *topoVals) add(flag, first string, n int) {
	if i := strings.Index(flag, "="); i > 0 && n == 0 {
		flag, first, n = flag[:i], flag[i+1:], 1
	}
	canon, sub, inline := NormalizeFlag(flag)
	var v *topoVal
	switch canon {
	case "--tensor-parallel-size":
		v = &tv[topoTP]
	case "--data-parallel-size":
		v = &tv[topoDP]
	case "--pipeline-parallel-size":
		v = &tv[topoPP]
	case "--enable-expert-parallel":
		v = &tv[topoEP]
	default:
		return
	}
	v.present = true
	if sub != "" {
		// NormalizeArgs merges the sub-keys into a JSON object value
		v.dotted = true
		return
	}
	if inline != "" && n == 0 {
		first, n = inline, 1
	}
	v.first, v.n = first, n
}

func (tv *topoVals) topology() Topology {
	num := func(v *topoVal) int {
		switch {
		case !v.present:
			return 1
		case v.dotted:
			return 0 // a JSON object is no number
		case v.n == 0:
			return 1
		}
		x, err := strconv.Atoi(v.first)
		if err != nil {
			return 0
		}
		return x
	}
	t := Topology{TP: num(&tv[topoTP]), DP: num(&tv[topoDP]), PP: num(&tv[topoPP]), EP: tv[topoEP].present}
	t.GPUs = t.TP * t.DP * t.PP
	t.Mode = modeOf(t.TP, t.DP, t.EP)
	return t
}

// QueryTopology maps an InferenceX search-space point (tp, ep, dp-attn,
// optional dp) to a Topology: dp-attn → dep (TP 1) over max(tp, ep, dp)
// GPUs; ep > 1 → tep over max(tp, ep) (× dp replicas: tp_dep); else tp
// (× dp replicas: tp_dp).
func QueryTopology(tp, ep, dp int, dpAttn bool) Topology {
	tp, ep, dp = max(tp, 1), max(ep, 1), max(dp, 1)
	var t Topology
	switch {
	case dpAttn && tp > 1 && ep > tp && ep%tp == 0 && dp <= 1:
		// more experts' ranks than the TP size: TP inside DP ranks
		// (InferenceX agg-h200-tp16dp2ep32: tp 16, ep 32, dp-attn), the
		// GPU count is the EP size
		t = Topology{TP: tp, DP: ep / tp, PP: 1, EP: true, GPUs: ep}
	case dpAttn:
		w := max(tp, ep, dp)
		t = Topology{TP: 1, DP: w, PP: 1, EP: true, GPUs: w}
	case ep > 1:
		w := max(tp, ep)
		t = Topology{TP: w, DP: dp, PP: 1, EP: true, GPUs: w * dp}
	default:
		t = Topology{TP: tp, DP: dp, PP: 1, GPUs: tp * dp}
	}
	t.Mode = modeOf(t.TP, t.DP, t.EP)
	return t
}

var precisionFamily = map[string]string{
	"fp4": "fp4", "nvfp4": "fp4", "mxfp4": "fp4", "w4a16": "int4",
	"fp8": "fp8", "mxfp8": "fp8", "w8a8": "fp8",
	"bf16": "bf16", "fp16": "bf16", "bfloat16": "bf16", "float16": "bf16",
	"int4": "int4", "awq": "int4", "gptq": "int4", "int8": "int8", "int2/4/8": "int4",
}

// PrecisionMatches reports whether an InferenceX precision (fp4, fp8, bf16,
// …) covers a recipe variant precision (nvfp4, mxfp4, fp8, bf16, int4, …).
// fp4 covers nvfp4 and mxfp4; fp8 covers mxfp8.
func PrecisionMatches(query, recipe string) bool {
	q, r := strings.ToLower(query), strings.ToLower(recipe)
	if q == r {
		return true
	}
	fq, ok1 := precisionFamily[q]
	fr, ok2 := precisionFamily[r]
	return ok1 && ok2 && fq == fr
}

// precisionOf guesses a checkpoint's precision from its name or context
// words (-FP8, -NVFP4, -MXFP4, -FP4, -AWQ, -GPTQ, -Int4, -BF16), or "".
func precisionOf(texts ...string) string {
	for _, t := range texts {
		u := strings.ToUpper(t)
		for _, p := range []struct{ w, p string }{{"NVFP4", "nvfp4"}, {"MXFP4", "mxfp4"}, {"MXFP8", "mxfp8"}, {"FP4", "fp4"}, {"FP8", "fp8"}, {"AWQ", "int4"}, {"GPTQ", "int4"}, {"INT4", "int4"}, {"INT8", "int8"}, {"BF16", "bf16"}} {
			if strings.Contains(u, p.w) {
				return p.p
			}
		}
	}
	return ""
}
