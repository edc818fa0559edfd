package helpers

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// This file implements the models.yaml loader of InferenceX's AMD
// multi-node SGLang server script: benchmarks/multi_node/amd_utils/
// server_sglang.sh line 79, `eval "$(python3 -c "…")"`, an inline Python
// program that reads ${MODELS_YAML} (amd_utils/models.yaml) for
// ${MODEL_NAME} and prints shell assignments (MODEL_BASE_FLAGS=…,
// PREFILL_MEM_FRACTION_STATIC=…, …) that the script evals.

// AMDModelsPath is where the models.yaml loader is written, in
// SemiAnalysisAI/InferenceX.
const AMDModelsPath = "benchmarks/multi_node/amd_utils/server_sglang.sh"

// amdModelsVersion is one version of the loader's program text and what
// it prints.
type amdModelsVersion struct {
	Program
	// agentic: the version picks the '<model>-AgentX' / '<model>-DI'
	// entry by IS_AGENTIC and prints "Selected models.yaml entry"
	// (InferenceX bba56ea5 on); before, the entry is MODEL_NAME itself.
	agentic bool
	items   []amdItem
}

// amdItem is one print of the program: NAME="{value}", where value is
// section.get(key, default) of the selected entry, or a range end of it.
type amdItem struct {
	name    string
	section string // "" (the entry), "prefill", "decode", "prefill.dp", "decode.ep_only", …
	key     string
	def     amdValue
	how     byte // 'v' str(value), 'f' eval_formula(value), 's'/'e' parse_range start/end
	rdef    [2]int
}

// The items of the loader, in print order, by the version that added them.
func amdItemsOf(v int) []amdItem {
	str := func(s string) amdValue { return amdValue{kind: "str", s: s} }
	num := func(n int64) amdValue { return amdValue{kind: "int", i: big.NewInt(n)} }
	flt := func(f float64) amdValue { return amdValue{kind: "float", f: f} }
	boo := func(b bool) amdValue { return amdValue{kind: "bool", b: b} }
	it := func(name, sec, key string, def amdValue) amdItem {
		return amdItem{name: name, section: sec, key: key, def: def, how: 'v'}
	}
	fo := func(name, sec string) amdItem {
		return amdItem{name: name, section: sec, key: "chunked_prefill_size", def: num(262144), how: 'f'}
	}
	rg := func(name, sec string, start bool, d string, a, b int) amdItem {
		h := byte('e')
		if start {
			h = 's'
		}
		return amdItem{name: name, section: sec, key: "cuda_graph_bs_range", def: str(d), how: h, rdef: [2]int{a, b}}
	}
	var out []amdItem
	add := func(since int, items ...amdItem) {
		if v >= since {
			out = append(out, items...)
		}
	}
	add(1, it("MODEL_BASE_FLAGS", "", "base_flags", str("")),
		it("MODEL_MTP_FLAGS", "", "mtp_flags", str("")),
		it("MODEL_DP_FLAGS", "", "dp_flags", str("")))
	add(2, it("MODEL_EP_FLAGS", "", "ep_flags", str("")))
	add(1, it("PREFILL_MEM_FRACTION_STATIC", "prefill", "mem_fraction_static", flt(0.8)),
		it("PREFILL_DISABLE_RADIX_CACHE", "prefill", "disable_radix_cache", boo(true)))
	add(2, it("PREFILL_DISABLE_CUDA_GRAPH", "prefill", "disable_cuda_graph", boo(false)))
	add(1, it("PREFILL_MAX_RUNNING_REQUESTS_DP", "prefill.dp", "max_running_requests", num(24)),
		fo("PREFILL_CHUNKED_PREFILL_SIZE_DP", "prefill.dp"),
		it("PREFILL_CUDA_GRAPH_BS_DP", "prefill.dp", "cuda_graph_bs", str("1 2 3")),
		it("PREFILL_CONTEXT_LENGTH_DP", "prefill.dp", "context_length", str("")),
		it("PREFILL_MAX_TOTAL_TOKENS_DP", "prefill.dp", "max_total_tokens", str("")),
		it("PREFILL_ENABLE_TWO_BATCH_OVERLAP_DP", "prefill.dp", "enable_two_batch_overlap", boo(false)),
		it("PREFILL_MAX_RUNNING_REQUESTS_NO_DP", "prefill.no_dp", "max_running_requests", num(128)),
		fo("PREFILL_CHUNKED_PREFILL_SIZE_NO_DP", "prefill.no_dp"))
	add(2, it("PREFILL_CONTEXT_LENGTH_NO_DP", "prefill.no_dp", "context_length", str("")),
		it("PREFILL_MAX_TOTAL_TOKENS_NO_DP", "prefill.no_dp", "max_total_tokens", str("")))
	add(1, rg("PREFILL_CUDA_GRAPH_BS_NO_DP_START", "prefill.no_dp", true, "1-128", 1, 128),
		rg("PREFILL_CUDA_GRAPH_BS_NO_DP_END", "prefill.no_dp", false, "1-128", 1, 128),
		it("DECODE_MEM_FRACTION_STATIC", "decode", "mem_fraction_static", flt(0.85)),
		it("DECODE_PREFILL_ROUND_ROBIN_BALANCE", "decode", "prefill_round_robin_balance", boo(true)))
	add(3, it("DECODE_DISAGG_ENABLE_RADIX_CACHE", "decode", "disagg_decode_enable_radix_cache", boo(false)))
	add(1, it("DECODE_MAX_RUNNING_REQUESTS_DP", "decode.dp", "max_running_requests", num(4096)),
		fo("DECODE_CHUNKED_PREFILL_SIZE_DP", "decode.dp"))
	add(4, it("DECODE_CONTEXT_LENGTH_DP", "decode.dp", "context_length", str("")))
	add(1, rg("DECODE_CUDA_GRAPH_BS_DP_START", "decode.dp", true, "1-160", 1, 160),
		rg("DECODE_CUDA_GRAPH_BS_DP_END", "decode.dp", false, "1-160", 1, 160),
		it("DECODE_MAX_RUNNING_REQUESTS_EP_ONLY", "decode.ep_only", "max_running_requests", num(256)),
		fo("DECODE_CHUNKED_PREFILL_SIZE_EP_ONLY", "decode.ep_only"))
	add(4, it("DECODE_CONTEXT_LENGTH_EP_ONLY", "decode.ep_only", "context_length", str("")))
	add(1, rg("DECODE_CUDA_GRAPH_BS_EP_ONLY_START", "decode.ep_only", true, "1-256", 1, 256),
		rg("DECODE_CUDA_GRAPH_BS_EP_ONLY_END", "decode.ep_only", false, "1-256", 1, 256),
		it("DECODE_MAX_RUNNING_REQUESTS_NO_DP", "decode.no_dp", "max_running_requests", num(128)),
		fo("DECODE_CHUNKED_PREFILL_SIZE_NO_DP", "decode.no_dp"))
	add(4, it("DECODE_CONTEXT_LENGTH_NO_DP", "decode.no_dp", "context_length", str("")))
	add(1, rg("DECODE_CUDA_GRAPH_BS_NO_DP_START", "decode.no_dp", true, "1-128", 1, 128),
		rg("DECODE_CUDA_GRAPH_BS_NO_DP_END", "decode.no_dp", false, "1-128", 1, 128))
	return out
}

// amdModelsVersions are the versions of the loader's text in the
// InferenceX history since 2026-06-01 (`git log --since=2026-06-01 --
// benchmarks/multi_node/amd_utils/server_sglang.sh` and the version in
// effect on that day), oldest first. Each entry's Commits are the commits
// that wrote the file with that text (the first one introduced it).
//
// The table is built once per process (amdModelsTable) and only read:
// nothing changes an item or its default after it is made.
func amdModelsVersions() []amdModelsVersion { return amdModelsTable() }

// amdModelsTable builds amdModelsVersions' table once: a loader run asks
// for it to find its version by hash, and building it for every run of the
// loader cost a third of a GB per coverage run of the complete trees.
var amdModelsTable = sync.OnceValue(buildAMDModelsVersions)

func buildAMDModelsVersions() []amdModelsVersion {
	mk := func(v int, sum string, agentic bool, commits ...string) amdModelsVersion {
		return amdModelsVersion{
			Program: Program{ID: fmt.Sprintf("amd_utils/server_sglang.sh models.yaml loader v%d", v), SHA256: sum, Path: AMDModelsPath, Commits: commits},
			agentic: agentic, items: amdItemsOf(v),
		}
	}
	return []amdModelsVersion{
		// In effect on 2026-06-01 (written by 466be35db, 2026-05-28);
		// unchanged by e7915589a (2026-06-21).
		mk(1, "63d1e808cbe0a3754d92e70ec282b852bc7f99ce408b1c7689c85c35aa5c4cea", false, "466be35db", "e7915589a"),
		// + ep_flags, prefill disable_cuda_graph, no_dp context_length /
		// max_total_tokens.
		mk(2, "a615e91561c7929ff17238c4f79ceddfd2ad9826f0dbe6f5c309733b042fe1ae", false, "bba56ea52"),
		// + the IS_AGENTIC entry selection, decode
		// disagg_decode_enable_radix_cache.
		mk(3, "96a71a8369c5fd85e6ec7bd2f1c5cf48223f4d6bbfdcbfa9cba7ba41b74e29d4", true, "a141bfcb0"),
		// + decode dp / ep_only / no_dp context_length; unchanged through
		// 843c6254.
		mk(4, "71605af491908ad8545cc993969d228eece04949c9427c3d83fc932a1bf959e6", true, "89696c5ea", "9e61bece8", "c9bef91b3", "59833c43d", "ddeb02eb9", "ce8a34e4d", "23f879df2", "843c6254f"),
	}
}

// AMDModelsTable is the table of the models.yaml loader's versions (see
// amdModelsVersions), for listing and for Lookup.
func AMDModelsTable() []Program {
	vs := amdModelsVersions()
	out := make([]Program, len(vs))
	for i, v := range vs {
		out[i] = v.Program
	}
	return out
}

// AMDModelsInput is one run of the loader, as the shell starts it:
// `python3 -c WORD` with WORD written Raw and expanded to Expanded.
type AMDModelsInput struct {
	// Raw is the source text of the -c word as written in the script,
	// quotes included, before the shell expands it (its hash identifies
	// the version).
	Raw string
	// Expanded is the program text python3 received (the word after
	// expansion): it must be Raw expanded with Var, else the run is not
	// the one the implementation models.
	Expanded string
	// Var is the shell variable lookup at the command: value and whether
	// it is set. The loader's text names ${MODELS_YAML}, ${MODEL_NAME} and
	// ${IS_AGENTIC:-0}.
	Var func(name string) (string, bool)
	// Getenv is the Python process's environment (the shell's exported
	// variables): a name's value and whether it is set. eval_formula
	// evaluates a string chunked_prefill_size with the integer-valued
	// variables; only the names a formula uses are asked (a run with
	// holes looks at those only: infx/sandbox Call.Getenvs).
	Getenv func(name string) (string, bool)
	// ReadFile reads the file the program opens (its config_path). An
	// error whose file is absent makes Python's open fail (a traceback,
	// status 1, no output); any other error is returned as it is.
	ReadFile func(name string) ([]byte, error)
	// Memo, when set, keeps what a load of a file's bytes made, for the
	// next run that reads the same bytes (infx/sandbox Call.Memo): it
	// returns make(input), made once per kind and input. The values kept
	// are never changed. nil: every run loads its file.
	Memo func(kind string, input []byte, make func([]byte) any) any
}

// ErrNoSuchFile is what an AMDModelsInput.ReadFile returns (wrapped or
// not) for a file that does not exist.
var ErrNoSuchFile = errors.New("no such file")

// AMDModelsOutput is what the program printed and its exit status.
type AMDModelsOutput struct {
	Stdout string
	// Stderr holds the warnings the program prints there (their text is
	// not compared with Python's: nothing reads it).
	Stderr string
	Status int
	// Program is the version that ran.
	Program Program
}

// AMDModelsUnsupported is a run the implementation does not reproduce
// exactly (a value whose Python text it does not make, a formula outside
// the arithmetic it evaluates, a section that is not a mapping, …): the
// caller reports it, never guesses.
type AMDModelsUnsupported struct{ Msg string }

func (e *AMDModelsUnsupported) Error() string { return e.Msg }

func amdUnsupported(format string, args ...any) error {
	return &AMDModelsUnsupported{Msg: fmt.Sprintf(format, args...)}
}

// UnknownAMDModels is a -c word whose text is in no version of the table:
// it names the hash of the text.
type UnknownAMDModels struct{ SHA256 string }

func (e *UnknownAMDModels) Error() string {
	return "python3 -c program (sha256 " + e.SHA256 + ") is not a known version of the models.yaml loader of " + AMDModelsPath
}

// IsAMDModels reports whether raw (a -c word's source text) is a known
// version of the loader.
func IsAMDModels(raw string) bool {
	_, ok := amdVersionOf(raw)
	return ok
}

func amdVersionOf(raw string) (amdModelsVersion, bool) {
	h := Hash([]byte(raw))
	for _, v := range amdModelsVersions() {
		if v.SHA256 == h {
			return v, true
		}
	}
	return amdModelsVersion{}, false
}

// RunAMDModels runs the loader version whose text is in.Raw, as python3
// (with PyYAML 6) would: Errors: *UnknownAMDModels (the text is in no
// version), *AMDModelsUnsupported (this run is not reproduced exactly),
// or ReadFile's error.
func RunAMDModels(in AMDModelsInput) (AMDModelsOutput, error) {
	v, ok := amdVersionOf(in.Raw)
	if !ok {
		return AMDModelsOutput{}, &UnknownAMDModels{SHA256: Hash([]byte(in.Raw))}
	}
	return v.run(in)
}

// run is the version's program on in (in.Raw is not checked against the
// version's hash: tests run fixtures written in each version's shape).
func (v amdModelsVersion) run(in AMDModelsInput) (AMDModelsOutput, error) {
	vals, err := amdExpandWord(in.Raw, in.Var)
	if err != nil {
		return AMDModelsOutput{}, err
	}
	if vals.text != in.Expanded {
		return AMDModelsOutput{}, amdUnsupported("the program python3 received is not the script's text expanded with the variables it names")
	}
	for _, n := range []string{"MODELS_YAML", "MODEL_NAME", "IS_AGENTIC"} {
		if s, ok := vals.vars[n]; ok && !amdLiteralSafe(s) {
			return AMDModelsOutput{}, amdUnsupported("%s=%q changes the Python program's text (a quote, backslash, control or non-ASCII character inside a '…' literal)", n, s)
		}
	}
	out := AMDModelsOutput{Program: v.Program}
	var so, se strings.Builder
	modelName := vals.vars["MODEL_NAME"]
	data, err := in.ReadFile(vals.vars["MODELS_YAML"])
	if err != nil {
		if errors.Is(err, ErrNoSuchFile) {
			out.Stderr = "FileNotFoundError: [Errno 2] No such file or directory: '" + vals.vars["MODELS_YAML"] + "'\n"
			out.Status = 1
			return out, nil
		}
		return AMDModelsOutput{}, err
	}
	models, err := in.load("models.yaml", data)
	if err != nil {
		return AMDModelsOutput{}, err
	}
	if models.kind != "dict" {
		return AMDModelsOutput{}, amdUnsupported("models.yaml is a %s, not a mapping (`model_key not in models` on it is not reproduced)", models.kind)
	}
	key := modelName
	isAgentic := false
	if v.agentic {
		isAgentic = amdIsTrueish(vals.vars["IS_AGENTIC"])
		if isAgentic {
			key = modelName + "-AgentX"
		} else {
			key = modelName + "-DI"
		}
		if _, ok := models.get(key); !ok {
			if _, ok := models.get(modelName); ok {
				key = modelName
			} else {
				so.WriteString("echo \"ERROR: Model " + key + " not in models.yaml\"; exit 1\n")
				out.Stdout = so.String()
				return out, nil
			}
		}
	} else if _, ok := models.get(key); !ok {
		so.WriteString("echo \"ERROR: Model " + key + " not in models.yaml\"; exit 1\n")
		out.Stdout = so.String()
		return out, nil
	}
	m, _ := models.get(key)
	if v.agentic {
		so.WriteString("echo \"Selected models.yaml entry: " + key + " (IS_AGENTIC=" + amdPyBool(isAgentic) + ")\"\n")
	}
	for _, it := range v.items {
		sec, err := amdSection(m, it.section, key)
		if err != nil {
			return AMDModelsOutput{}, err
		}
		val, ok := sec.get(it.key)
		if !ok {
			val = it.def
		}
		var text string
		switch it.how {
		case 'v':
			text, err = val.str()
		case 'f':
			text, err = amdEvalFormula(val, in.Getenv, &se)
		case 's', 'e':
			var s, e string
			s, e, err = amdParseRange(val, it.rdef)
			text = s
			if it.how == 'e' {
				text = e
			}
		}
		if err != nil {
			return AMDModelsOutput{}, amdUnsupported("%s %s.%s: %v", key, it.section, it.key, err)
		}
		so.WriteString(it.name + "=\"" + text + "\"\n")
	}
	out.Stdout, out.Stderr = so.String(), se.String()
	return out, nil
}

// amdSection is the mapping the program's .get reads for section ("" the
// entry itself; "prefill.dp": m.get('prefill', {}).get('dp', {})).
func amdSection(m amdValue, section, key string) (amdValue, error) {
	cur := m
	where := key
	if cur.kind != "dict" {
		return amdValue{}, amdUnsupported("models.yaml entry %s is a %s, not a mapping (the program's .get fails)", key, cur.kind)
	}
	if section == "" {
		return cur, nil
	}
	for _, part := range strings.Split(section, ".") {
		next, ok := cur.get(part)
		where += "." + part
		if !ok {
			next = amdValue{kind: "dict"}
		}
		if next.kind != "dict" {
			return amdValue{}, amdUnsupported("models.yaml %s is a %s, not a mapping (the program's .get fails)", where, next.kind)
		}
		cur = next
	}
	return cur, nil
}

// amdIsTrueish is `'…'.strip().lower() in ('1', 'true')` (ASCII text:
// amdLiteralSafe holds).
func amdIsTrueish(s string) bool {
	s = strings.ToLower(strings.TrimFunc(s, isPySpace))
	return s == "1" || s == "true"
}

func amdPyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// amdLiteralSafe reports whether s, put between the program's single
// quotes, is a Python string literal whose value is s: printable ASCII
// without a quote or backslash.
func amdLiteralSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '\'' || c == '\\' {
			return false
		}
	}
	return true
}

// amdWord is a -c word expanded: its text and the variables it named.
type amdWord struct {
	text string
	vars map[string]string
}

// amdExpandWord expands the raw -c word the way bash does for the forms
// the loader's text uses: one double-quoted string of literal text
// (backslash escapes of ", \, $, ` and newline) and parameter expansions
// ${NAME} and ${NAME:-literal}. Any other form is unsupported.
func amdExpandWord(raw string, lookup func(string) (string, bool)) (amdWord, error) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	var words []*syntax.Word
	var err error
	for w, werr := range p.WordsSeq(strings.NewReader(raw)) {
		if werr != nil {
			err = werr
			break
		}
		words = append(words, w)
	}
	if err != nil || len(words) != 1 || len(words[0].Parts) != 1 {
		return amdWord{}, amdUnsupported("the -c word is not one double-quoted string")
	}
	dq, ok := words[0].Parts[0].(*syntax.DblQuoted)
	if !ok || dq.Dollar {
		return amdWord{}, amdUnsupported("the -c word is not one double-quoted string")
	}
	out := amdWord{vars: map[string]string{}}
	var b strings.Builder
	for _, part := range dq.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(amdUnescapeDQ(x.Value))
		case *syntax.ParamExp:
			if x.Param == nil || x.Excl || x.Length || x.Width || x.Index != nil || x.Slice != nil || x.Repl != nil || x.Names != 0 || x.Short {
				return amdWord{}, amdUnsupported("a parameter expansion of a form the loader's text does not use")
			}
			val, set := lookup(x.Param.Value)
			if x.Exp != nil {
				if x.Exp.Op != syntax.DefaultUnsetOrNull {
					return amdWord{}, amdUnsupported("a parameter expansion of a form the loader's text does not use")
				}
				def := ""
				if x.Exp.Word != nil {
					lit := x.Exp.Word.Lit()
					if lit == "" && len(x.Exp.Word.Parts) > 0 {
						return amdWord{}, amdUnsupported("a default value that is not literal text")
					}
					def = lit
				}
				if !set || val == "" {
					val = def
				}
			}
			out.vars[x.Param.Value] = val
			b.WriteString(val)
		default:
			return amdWord{}, amdUnsupported("an expansion of a form the loader's text does not use")
		}
	}
	out.text = b.String()
	return out, nil
}

// amdUnescapeDQ is the text of a literal inside double quotes: a
// backslash before ", \, $, ` quotes it, before a newline removes both;
// elsewhere it stays.
func amdUnescapeDQ(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '"', '\\', '$', '`':
				b.WriteByte(s[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// amdParseRange is the program's parse_range: `if '-' in str(r): s, e =
// str(r).split('-')` (exactly two parts, else ValueError), else the
// defaults.
func amdParseRange(v amdValue, def [2]int) (string, string, error) {
	s, err := v.str()
	if err != nil {
		return "", "", err
	}
	if !strings.Contains(s, "-") {
		return strconv.Itoa(def[0]), strconv.Itoa(def[1]), nil
	}
	parts := strings.Split(s, "-")
	if len(parts) != 2 {
		return "", "", fmt.Errorf("cuda_graph_bs_range %q: split('-') gives %d parts, the program's unpacking fails", s, len(parts))
	}
	return parts[0], parts[1], nil
}

// amdLoaded is one kept load (AMDModelsInput.Memo).
type amdLoaded struct {
	v   amdValue
	err error
}

// load is amdLoadFile(name, data), through in.Memo when set: a loaded
// value is only read (get, str, items), so one load serves every run.
func (in AMDModelsInput) load(name string, data []byte) (amdValue, error) {
	if in.Memo == nil {
		return amdLoadFile(name, data)
	}
	r, ok := in.Memo("helpers.safe_load/"+name, data, func(b []byte) any {
		v, err := amdLoadFile(name, b)
		return amdLoaded{v, err}
	}).(amdLoaded)
	if !ok { // a Memo that kept something else under this kind
		return amdLoadFile(name, data)
	}
	return r.v, r.err
}
