package helpers

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/internal/pyfmt"
	"go.yaml.in/yaml/v3"
)

// This file is InferenceX runners/inject_synthetic_acceptance.py with its
// runners/synthetic_injectors/ backends: every version of their text in the
// InferenceX history since 2026-06-01 (all branches of the repository as
// fetched on 2026-12-02), each cited by the blob and a commit holding it.

// SyntheticDriverPath is the injector's path in an InferenceX checkout;
// SyntheticPackage the directory of its backends (imported from the
// driver's own directory: sys.path[0]).
const (
	SyntheticDriverPath = "runners/inject_synthetic_acceptance.py"
	SyntheticPackage    = "runners/synthetic_injectors"
)

// syntheticDriver is one version of the driver, by what it does.
type syntheticDriver struct {
	Program
	// standalone: the 2026-06 single-file version (no framework argument,
	// the vLLM rewrite built in, no backends imported).
	standalone bool
	// strictFlag: SYNTHETIC_ACCEPTANCE must equal "true" exactly; else
	// stripped and case-folded (_enabled).
	strictFlag bool
	// evalOnly: 0 the variable is not read, 1 EVAL_ONLY=true keeps the
	// recipe, 2 EVAL_ONLY=true runs the backend's rewrite_real.
	evalOnly int
	// zeroExits: no speculative-config rewritten is an error (sys.exit);
	// else a warning and the recipe unchanged.
	zeroExits bool
	// prefixes is MODEL_PREFIX_TO_YAML_KEY.
	prefixes map[string]string
}

var (
	prefixes0 = map[string]string{"dsv4": "deepseek-v4-pro", "dsr1": "deepseek-r1"}
	prefixes1 = map[string]string{"dsv4": "deepseek-v4-pro", "dsr1": "deepseek-r1", "dsv4dspark": "deepseek-v4-pro-0813", "dsv4dsparkprob": "deepseek-v4-pro-0813"}
)

// syntheticDrivers is every version of runners/inject_synthetic_acceptance.py.
func syntheticDrivers() []syntheticDriver {
	p := func(blob, sha string, commits ...string) Program {
		return Program{ID: "inject_synthetic_acceptance.py@" + blob, SHA256: sha, Path: SyntheticDriverPath, Commits: commits}
	}
	return []syntheticDriver{
		{Program: p("85feacf1", "a540d015637150766250a747d094590ba877c202bf2dc820d4c66acac901b60b", "7b6736f1"), standalone: true, strictFlag: true, prefixes: prefixes0},
		{Program: p("4bda75a9", "1a79167c05fe115e6c1e3f151cbcd9336ab391aab90d7f7edc2b75799153fdd3", "98b268c2", "205f217e", "a5c1d5f9"), strictFlag: true, prefixes: prefixes0},
		{Program: p("80d2740e", "120c33d9cf6754b86957b9935b7d9f922aea0a47c7e8b7a9e7900e8715d964a6", "de214eda", "4689d9bf", "6a9c6238"), evalOnly: 1, zeroExits: true, prefixes: prefixes0},
		{Program: p("bafda7a0", "f8a1bd715031b53feb17f4feae9df15e25b5634dc8f5dcb9dd8b58bbfbcaab9f", "8862c8f3", "b9c9f925", "843c6254"), evalOnly: 1, zeroExits: true, prefixes: prefixes1},
		{Program: p("1382454d", "131862e447e77fc9389b8f05b6b9e50910a63ab30526ffbf621ec47b89f81539", "15b08571", "34986b94", "ffe90545"), evalOnly: 2, zeroExits: true, prefixes: prefixes0},
		{Program: p("ab10bb11", "cb26851ed31f85c3f2f6291b639ad8727ddac085420f13ca507e2f1e4418b342", "35afef0b"), evalOnly: 2, zeroExits: true, prefixes: prefixes1},
	}
}

// syntheticInit is one version of synthetic_injectors/__init__.py: the
// backend modules it imports, in order.
type syntheticInit struct {
	Program
	modules []string
}

func syntheticInits() []syntheticInit {
	p := func(blob, sha string, commits ...string) Program {
		return Program{ID: "synthetic_injectors/__init__.py@" + blob, SHA256: sha, Path: SyntheticPackage + "/__init__.py", Commits: commits}
	}
	return []syntheticInit{
		{Program: p("9e4b949a", "a999ca40735c812c7a268c1abc255eaea50f787c3b53410e8d6c8aa21cd3b026", "98b268c2", "205f217e")},
		{Program: p("5bc4d8a3", "5d61f097b4915c71def94371298038fc6775a21071cdd5801ff90e429b458f94", "d89999e6", "a5c1d5f9", "4689d9bf"), modules: []string{"vllm"}},
		{Program: p("8836a46b", "c34a2b1460b50a1b9d5a93d1665404857dd673e39d8359acc23429c005191394", "248c1fed", "6a9c6238", "843c6254"), modules: []string{"sglang", "vllm"}},
	}
}

// syntheticBackend is one version of a backend module: the frameworks it
// registers and whether it has rewrite_real.
type syntheticBackend struct {
	Program
	module     string
	frameworks []string
	// version: 1 the first text, 2 with rewrite_real (and, for sglang,
	// existing SGLANG_SIMULATE_ACC_* replaced instead of refused).
	version int
}

func syntheticBackends() []syntheticBackend {
	p := func(module, blob, sha string, commits ...string) Program {
		return Program{ID: "synthetic_injectors/" + module + ".py@" + blob, SHA256: sha, Path: SyntheticPackage + "/" + module + ".py", Commits: commits}
	}
	return []syntheticBackend{
		{Program: p("vllm", "e71a5df2", "58c9ac49bd11f27f44a1b3fe3ff34f673d76d0e640d57c39f542d01c4bbcc49a", "d89999e6", "a5c1d5f9", "843c6254"), module: "vllm", frameworks: []string{"dynamo-vllm"}, version: 1},
		{Program: p("vllm", "d3674019", "f3ec89803b2242779d580837459febb2edd365d07c1f888c3ce944efba41a793", "15b08571", "35afef0b"), module: "vllm", frameworks: []string{"dynamo-vllm", "vllm"}, version: 2},
		{Program: p("sglang", "48fb1706", "2184323339ab410e23c9906f57361fdccf08bfb6ad44677aadf0dd240aea3d82", "248c1fed", "6a9c6238", "843c6254"), module: "sglang", frameworks: []string{"dynamo-sglang"}, version: 1},
		{Program: p("sglang", "ed581447", "b9d79b7a31ac3252fb1a490e96d2ba8476d19b5d1a9a0df3769308954d5b500c", "ffe90545", "35afef0b"), module: "sglang", frameworks: []string{"dynamo-sglang"}, version: 2},
	}
}

// SyntheticTable lists every known version of the injector's files (the
// driver, the package's __init__.py and its backends) for a reader: which
// texts are recognized, from where.
func SyntheticTable() []Program {
	var out []Program
	for _, d := range syntheticDrivers() {
		out = append(out, d.Program)
	}
	for _, i := range syntheticInits() {
		out = append(out, i.Program)
	}
	for _, b := range syntheticBackends() {
		out = append(out, b.Program)
	}
	return out
}

// UnknownProgram is a helper program (or one of its modules) whose text is
// in no table entry: it is not run, never guessed.
type UnknownProgram struct {
	Path   string // as the run names it
	SHA256 string // of the text read
	Why    string // "" or what else is wrong (missing module, …)
}

// Error names the program and its hash.
func (e *UnknownProgram) Error() string {
	if e.Why != "" {
		return fmt.Sprintf("%s: %s", e.Path, e.Why)
	}
	return fmt.Sprintf("%s (sha256 %s) is not a known version of the program: its effect is not modelled", e.Path, e.SHA256)
}

// Exit is the program ending with a non-zero status (sys.exit(msg), an
// uncaught exception): Msg is what it writes to stderr, in short.
type Exit struct {
	Status int
	Msg    string
}

// Error is the program's message.
func (e *Exit) Error() string { return fmt.Sprintf("exits %d: %s", e.Status, e.Msg) }

// NotModelled is an input on which the Go version cannot be sure it does
// what the Python text does (an exotic number syntax, a YAML shape the
// program would trip over): the caller reports it unsupported.
type NotModelled struct{ What string }

// Error says what is not modelled.
func (e *NotModelled) Error() string { return "not modelled: " + e.What }

// SyntheticSources are the texts the injector's run imports: the driver's,
// and under the package directory __init__.py and each module by name
// (absent from the map when the file is not there).
type SyntheticSources struct {
	Driver  []byte
	Init    []byte
	HasInit bool
	Modules map[string][]byte
}

// SyntheticProgram is a recognized version of the injector: the driver
// with the backends its package registers.
type SyntheticProgram struct {
	driver   syntheticDriver
	init     *syntheticInit
	backends map[string]syntheticBackend // framework → backend (last registration wins)
	// IDs are the versions recognized, driver first.
	IDs []string
}

// ModulesOf returns the backend modules the package's __init__.py of the
// given text imports (nil when the text is unknown or imports none): what
// the caller must read next.
func ModulesOf(init []byte) []string {
	h := Hash(init)
	for _, i := range syntheticInits() {
		if i.SHA256 == h {
			return i.modules
		}
	}
	return nil
}

// IdentifySynthetic recognizes the injector from its sources. Errors:
// *UnknownProgram naming the first file whose text is unknown (or a
// module the package imports that is missing: Python's ImportError).
func IdentifySynthetic(src SyntheticSources) (*SyntheticProgram, error) {
	h := Hash(src.Driver)
	var prog *SyntheticProgram
	for _, d := range syntheticDrivers() {
		if d.SHA256 != "" && d.SHA256 == h {
			prog = &SyntheticProgram{driver: d, backends: map[string]syntheticBackend{}, IDs: []string{d.ID}}
		}
	}
	if prog == nil {
		return nil, &UnknownProgram{Path: SyntheticDriverPath, SHA256: h}
	}
	if prog.driver.standalone {
		return prog, nil
	}
	if !src.HasInit {
		return nil, &UnknownProgram{Path: SyntheticPackage + "/__init__.py", Why: "missing: the driver's `from synthetic_injectors import get_injector` fails (ModuleNotFoundError), so it exits 1"}
	}
	ih := Hash(src.Init)
	for _, i := range syntheticInits() {
		if i.SHA256 == ih {
			prog.init = &i
		}
	}
	if prog.init == nil {
		return nil, &UnknownProgram{Path: SyntheticPackage + "/__init__.py", SHA256: ih}
	}
	prog.IDs = append(prog.IDs, prog.init.ID)
	for _, m := range prog.init.modules {
		text, ok := src.Modules[m]
		if !ok {
			return nil, &UnknownProgram{Path: SyntheticPackage + "/" + m + ".py", Why: "missing: the package's `from . import " + m + "` fails (ImportError), so the driver exits 1"}
		}
		mh := Hash(text)
		var found *syntheticBackend
		for _, b := range syntheticBackends() {
			if b.module == m && b.SHA256 == mh {
				found = &b
			}
		}
		if found == nil {
			return nil, &UnknownProgram{Path: SyntheticPackage + "/" + m + ".py", SHA256: mh}
		}
		prog.IDs = append(prog.IDs, found.ID)
		for _, f := range found.frameworks {
			prog.backends[f] = *found
		}
	}
	return prog, nil
}

// SyntheticInput is the injector's invocation: its argv after the program
// path, the environment variables it reads (absent = unset), and the
// reference acceptance-length YAML (benchmarks/speedbench-reference-al.yaml
// next to the driver's directory; RefFound false when it is not a file).
type SyntheticInput struct {
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env,omitempty"`
	RefPath  string            `json:"refPath,omitempty"`
	RefYAML  string            `json:"refYaml,omitempty"`
	RefFound bool              `json:"refFound,omitempty"`
}

// SyntheticEnv names the environment variables the injector reads (every
// version): what a caller puts in SyntheticInput.Env.
var SyntheticEnv = []string{"EVAL_ONLY", "FRAMEWORK", "MODEL_PREFIX", "NUM_SPEC_TOKENS", "SYNTHETIC_ACCEPTANCE", "SYNTHETIC_ACCEPTANCE_LENGTH", "THINKING_MODE"}

// Touches reports whether the run reads or writes the recipe at all
// (otherwise it returns 0 before opening it): the driver's opt-in checks,
// which need no recipe text. Errors: *Exit for a wrong argument count.
func (p *SyntheticProgram) Touches(in SyntheticInput) (bool, error) {
	if err := p.argc(in); err != nil {
		return false, err
	}
	d := p.driver
	if d.evalOnly > 0 && enabled(in.Env, "EVAL_ONLY") {
		if d.evalOnly == 1 {
			return false, nil
		}
		b, ok := p.backends[p.framework(in)]
		return ok && b.version >= 2, nil
	}
	if d.strictFlag {
		return in.Env["SYNTHETIC_ACCEPTANCE"] == "true", nil
	}
	return enabled(in.Env, "SYNTHETIC_ACCEPTANCE"), nil
}

func (p *SyntheticProgram) argc(in SyntheticInput) error {
	n := len(in.Args) + 1 // argv[0] is the program
	if p.driver.standalone {
		if n != 2 {
			return &Exit{1, "Usage: inject_synthetic_acceptance.py CONFIG_FILE"}
		}
		return nil
	}
	if n != 2 && n != 3 {
		return &Exit{1, "Usage: inject_synthetic_acceptance.py CONFIG_FILE [FRAMEWORK]"}
	}
	return nil
}

func (p *SyntheticProgram) framework(in SyntheticInput) string {
	if len(in.Args) == 2 {
		return in.Args[1]
	}
	return in.Env["FRAMEWORK"]
}

// enabled is _enabled: os.environ.get(name, "false").strip().lower() == "true"
// (str.strip: Python's whitespace, \x1c-\x1f included).
func enabled(env map[string]string, name string) bool {
	v, ok := env[name]
	if !ok {
		v = "false"
	}
	return strings.ToLower(pyStrip(v)) == "true"
}

// Apply runs the injector on the recipe text it reads (Python's text mode:
// universal newlines) and returns what the file holds after it: the same
// bytes when it leaves the file alone. Errors: *Exit when the program
// fails (its message), *NotModelled for inputs the Go version refuses.
func (p *SyntheticProgram) Apply(in SyntheticInput, recipe []byte) ([]byte, error) {
	touch, err := p.Touches(in)
	if err != nil || !touch {
		return recipe, err
	}
	if !utf8.Valid(recipe) {
		return nil, &NotModelled{"the recipe is not UTF-8 text"}
	}
	content := strings.ReplaceAll(strings.ReplaceAll(string(recipe), "\r\n", "\n"), "\r", "\n")
	d := p.driver
	var b syntheticBackend
	if !d.standalone {
		fw := p.framework(in)
		var ok bool
		b, ok = p.backends[fw]
		if d.evalOnly == 2 && enabled(in.Env, "EVAL_ONLY") {
			// Touches: the backend has rewrite_real.
			out, n, err := b.rewriteReal(content)
			if err != nil || n == 0 {
				return recipe, err
			}
			return []byte(out), nil
		}
		if !ok {
			return nil, &Exit{1, fmt.Sprintf("ERROR: SYNTHETIC_ACCEPTANCE=true but no synthetic-acceptance injector is registered for FRAMEWORK='%s'", fw)}
		}
	} else {
		b = syntheticBackend{module: "vllm", version: 1}
	}
	al, err := p.resolveAL(in, content, b)
	if err != nil {
		return nil, err
	}
	out, n, err := b.rewrite(content, al)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		if d.zeroExits {
			return nil, &Exit{1, fmt.Sprintf("ERROR: SYNTHETIC_ACCEPTANCE=true but no speculative-config entries were found in %s", in.Args[0])}
		}
		return recipe, nil // a warning, the file untouched
	}
	return []byte(out), nil
}

// resolveAL is _resolve_al.
func (p *SyntheticProgram) resolveAL(in SyntheticInput, content string, b syntheticBackend) (float64, error) {
	if explicit := pyStrip(in.Env["SYNTHETIC_ACCEPTANCE_LENGTH"]); explicit != "" {
		return parseFloatPy(explicit)
	}
	if !in.RefFound {
		return 0, &Exit{1, "ERROR: SYNTHETIC_ACCEPTANCE_LENGTH not set and reference YAML not found: " + in.RefPath}
	}
	data, err := loadRefYAML(in.RefYAML)
	if err != nil {
		return 0, err
	}
	if data.kind != "dict" {
		return 0, &NotModelled{"the reference YAML is not a mapping (data.get fails)"}
	}
	key := in.Env["MODEL_PREFIX"]
	if k, ok := p.driver.prefixes[key]; ok {
		key = k
	}
	block := data.get(func(k *refNode) bool { return k.kind == "str" && k.s == key })
	if block == nil || block.kind == "null" {
		return 0, &Exit{1, fmt.Sprintf("ERROR: model key \"%s\" not found in %s", key, in.RefPath)}
	}
	var nst int64
	if env := pyStrip(in.Env["NUM_SPEC_TOKENS"]); env != "" {
		n, err := parseIntPy(env)
		if err != nil {
			return 0, err
		}
		nst = n
	} else {
		n, ok, err := b.specTokens(content)
		if err != nil {
			return 0, err
		}
		if !ok || (n == 0 && !p.driver.standalone) {
			n = 2 // `or 2` (the standalone version looks up what it read: int(0.5) is 0)
		}
		nst = n
	}
	al, found, err := p.lookupAL(in, block, nst)
	if err != nil {
		return 0, err
	}
	if !found {
		return 0, &Exit{1, fmt.Sprintf("ERROR: num_spec_tokens=%d not found for %s in %s", nst, key, in.RefPath)}
	}
	return al, nil
}

// lookupAL is _lookup_al for the YAML shapes it handles; other shapes are
// not modelled.
func (p *SyntheticProgram) lookupAL(in SyntheticInput, block *refNode, n int64) (float64, bool, error) {
	switch block.kind {
	case "list":
		for _, item := range block.items {
			if item.kind != "dict" {
				return 0, false, &NotModelled{"a reference-YAML list item that is not a mapping"}
			}
			v, err := item.getN(n)
			if err != nil || v != nil {
				return alValue(v, err)
			}
		}
		return 0, false, nil
	case "dict":
		thinking := false
		for _, k := range block.keys {
			if k.kind == "str" && strings.HasPrefix(k.s, "thinking") {
				thinking = true
			}
		}
		if thinking {
			mode := pyStrip(envOr(in.Env, "THINKING_MODE", "thinking_on"))
			if mode == "" {
				mode = "thinking_on"
			}
			mb := block.get(func(k *refNode) bool { return k.kind == "str" && k.s == mode })
			if mb == nil || mb.kind == "null" {
				return 0, false, &Exit{1, fmt.Sprintf("ERROR: THINKING_MODE='%s' not found in reference YAML", mode)}
			}
			if mb.kind != "dict" {
				return 0, false, &NotModelled{"a thinking-mode block that is not a mapping"}
			}
			block = mb
		}
		v, err := block.getN(n)
		if err != nil || v != nil {
			return alValue(v, err)
		}
		return 0, false, nil
	}
	return 0, false, nil
}

func envOr(env map[string]string, k, def string) string {
	if v, ok := env[k]; ok {
		return v
	}
	return def
}

// alValue is float(al) for a YAML number or bool (a null is "not
// found"); other values are not modelled.
func alValue(v *refNode, err error) (float64, bool, error) {
	if err != nil {
		return 0, false, err
	}
	switch v.kind {
	case "null":
		return 0, false, nil
	case "float":
		return v.f, true, nil
	case "bool":
		if v.b {
			return 1, true, nil
		}
		return 0, true, nil
	case "int":
		if v.i.IsInt64() && v.i.Int64() <= 1<<53 && v.i.Int64() >= -(1<<53) {
			return float64(v.i.Int64()), true, nil
		}
	}
	return 0, false, &NotModelled{"a reference acceptance length that is not a plain number"}
}

// refNode is a value of yaml.safe_load of the reference YAML, PyYAML's
// YAML 1.1 resolution (amdScalar): a scalar (kind str, int, float, bool,
// null, or other: a number PyYAML reads whose value is not reproduced), a
// dict (keys in document order) or a list.
type refNode struct {
	amdValue
	keys  []*refNode
	vals  []*refNode
	items []*refNode
}

// get is dict.get for the last key match holds for (a later duplicate
// wins), nil when none.
func (r *refNode) get(match func(*refNode) bool) *refNode {
	for i := len(r.keys) - 1; i >= 0; i-- {
		if match(r.keys[i]) {
			return r.vals[i]
		}
	}
	return nil
}

// getN is dict.get(n) for a Python int n: the keys equal to it are ints,
// floats and bools of exactly its value (3 == 3.0, 1 == True), the last
// one wins; a key whose value is not reproduced is not modelled.
func (r *refNode) getN(n int64) (*refNode, error) {
	want := big.NewInt(n)
	for i := len(r.keys) - 1; i >= 0; i-- {
		k := r.keys[i]
		eq := false
		switch k.kind {
		case "int":
			eq = k.i.Cmp(want) == 0
		case "float":
			if !math.IsInf(k.f, 0) && !math.IsNaN(k.f) {
				eq = new(big.Float).SetFloat64(k.f).Cmp(new(big.Float).SetInt(want)) == 0
			}
		case "bool":
			eq = (k.b && n == 1) || (!k.b && n == 0)
		case "other":
			return nil, &NotModelled{"a reference-YAML key that PyYAML reads as a number not reproduced: " + k.why}
		}
		if eq {
			return r.vals[i], nil
		}
	}
	return nil, nil
}

// loadRefYAML is yaml.safe_load of the reference YAML, for the documents
// on which PyYAML and this reading agree: one document, no explicit tags,
// no merge keys (<<), scalar keys, no timestamp and no value key "="
// (which safe_load may fail to construct); others are not modelled.
// Aliases are followed.
func loadRefYAML(text string) (*refNode, error) {
	dec := yaml.NewDecoder(strings.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, &NotModelled{"the reference YAML is empty or does not parse: " + err.Error()}
	}
	var more yaml.Node
	if err := dec.Decode(&more); err != io.EOF {
		return nil, &NotModelled{"the reference YAML is not a single document (safe_load refuses a stream of several)"}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, &NotModelled{"the reference YAML is not one document"}
	}
	return refFromNode(doc.Content[0], 0)
}

func refFromNode(n *yaml.Node, depth int) (*refNode, error) {
	if depth > 100 {
		return nil, &NotModelled{"the reference YAML is nested deeper than 100 levels"}
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return nil, &NotModelled{"a reference-YAML alias without an anchor"}
		}
		return refFromNode(n.Alias, depth+1)
	}
	if n.Style&yaml.TaggedStyle != 0 {
		return nil, &NotModelled{fmt.Sprintf("the reference YAML's explicitly tagged node %s (line %d)", n.Tag, n.Line)}
	}
	switch n.Kind {
	case yaml.MappingNode:
		r := &refNode{amdValue: amdValue{kind: "dict"}}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.AliasNode && k.Alias != nil {
				k = k.Alias
			}
			if k.Kind != yaml.ScalarNode {
				return nil, &NotModelled{fmt.Sprintf("a reference-YAML key that is not a scalar (line %d)", k.Line)}
			}
			if k.Value == "<<" && k.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle|yaml.TaggedStyle) == 0 {
				return nil, &NotModelled{fmt.Sprintf("a merge key (<<) in the reference YAML (line %d)", k.Line)}
			}
			kv, err := refFromNode(k, depth+1)
			if err != nil {
				return nil, err
			}
			vv, err := refFromNode(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			r.keys = append(r.keys, kv)
			r.vals = append(r.vals, vv)
		}
		return r, nil
	case yaml.SequenceNode:
		r := &refNode{amdValue: amdValue{kind: "list"}}
		for _, c := range n.Content {
			v, err := refFromNode(c, depth+1)
			if err != nil {
				return nil, err
			}
			r.items = append(r.items, v)
		}
		return r, nil
	case yaml.ScalarNode:
		if n.Style == 0 && (n.Value == "=" || amdTimeRE.MatchString(n.Value)) {
			return nil, &NotModelled{fmt.Sprintf("the reference-YAML scalar %q (line %d): a timestamp or the value key, which safe_load may fail to construct", n.Value, n.Line)}
		}
		return &refNode{amdValue: amdScalar(n)}, nil
	}
	return nil, &NotModelled{"a reference-YAML node of kind " + strconv.Itoa(int(n.Kind))}
}

// pyStrip is str.strip() (Unicode whitespace).
func pyStrip(s string) string {
	return strings.TrimFunc(s, isPySpace)
}

// isPySpace is Python's str.isspace / the \s class of a str pattern.
func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// pyWS is the \s class of a Python str pattern, for Go's regexp.
const pyWS = `[\t\n\v\f\r \x{1c}-\x{1f}\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]`

var decimalFloat = regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// parseFloatPy is float(s) for a stripped s in the syntax both agree on
// (underscores, inf/nan spellings and non-ASCII digits are not modelled);
// a text float() rejects is ValueError.
func parseFloatPy(s string) (float64, error) {
	if !decimalFloat.MatchString(s) {
		low := strings.ToLower(strings.TrimLeft(s, "+-"))
		switch low {
		case "inf", "infinity", "nan":
			return 0, &NotModelled{fmt.Sprintf("SYNTHETIC_ACCEPTANCE_LENGTH=%q", s)}
		}
		for _, r := range s {
			if r == '_' || r > 127 {
				return 0, &NotModelled{fmt.Sprintf("SYNTHETIC_ACCEPTANCE_LENGTH=%q", s)}
			}
		}
		return 0, &Exit{1, fmt.Sprintf("ValueError: could not convert string to float: '%s'", s)}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0, &NotModelled{fmt.Sprintf("SYNTHETIC_ACCEPTANCE_LENGTH=%q", s)}
	}
	return f, nil
}

var decimalInt = regexp.MustCompile(`^[-+]?[0-9]+$`)

// parseIntPy is int(s) for a stripped s of ASCII digits.
func parseIntPy(s string) (int64, error) {
	if !decimalInt.MatchString(s) {
		for _, r := range s {
			if r == '_' || r > 127 {
				return 0, &NotModelled{fmt.Sprintf("NUM_SPEC_TOKENS=%q", s)}
			}
		}
		return 0, &Exit{1, fmt.Sprintf("ValueError: invalid literal for int() with base 10: '%s'", s)}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, &NotModelled{fmt.Sprintf("NUM_SPEC_TOKENS=%q", s)}
	}
	return n, nil
}

// The backends' regular expressions (runners/synthetic_injectors/*.py),
// with Python's \s spelled out.
var (
	reSpecConfig = regexp.MustCompile(`speculative-config:` + pyWS + `*'([^']+)'`)
	reSpecSteps  = regexp.MustCompile(`(?m)^` + pyWS + `+speculative-num-steps:` + pyWS + `*([0-9]+)` + pyWS + `*$`)
	reEnvBlock   = regexp.MustCompile(`(?m)^(  (?:aggregated|prefill|decode)_environment:` + pyWS + `*)$`)
	reSimulated  = regexp.MustCompile(`(?m)^[ \t]+SGLANG_SIMULATE_ACC_(?:LEN|METHOD|TOKEN_MODE):[^\n]*(?:\n|$)`)
)

// specTokens is the backend's spec_tokens_from_recipe (ok false = None).
func (b syntheticBackend) specTokens(content string) (int64, bool, error) {
	if b.module == "sglang" {
		m := reSpecSteps.FindStringSubmatch(content)
		if m == nil {
			return 0, false, nil
		}
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return 0, false, &NotModelled{"speculative-num-steps " + m[1]}
		}
		return n, true, nil
	}
	for _, m := range reSpecConfig.FindAllStringSubmatch(content, -1) {
		spec, err := pyLoads(m[1])
		var jerr *errJSONDecode
		if errors.As(err, &jerr) {
			continue // json.JSONDecodeError: skipped
		} else if err != nil {
			return 0, false, err
		}
		if spec.Kind != pyDict {
			return 0, false, &Exit{1, "AttributeError: a speculative-config JSON that is not an object has no .get"}
		}
		n, ok := spec.get("num_speculative_tokens")
		if !ok {
			continue
		}
		switch n.Kind {
		case pyNull:
			continue
		case pyBool:
			if n.Bool {
				return 1, true, nil
			}
			continue
		case pyInt:
			if n.Int.Sign() == 0 {
				continue
			}
			if !n.Int.IsInt64() {
				return 0, false, &NotModelled{"num_speculative_tokens " + n.Int.String()}
			}
			return n.Int.Int64(), true, nil
		case pyFloat:
			if n.Float == 0 {
				continue
			}
			if math.IsNaN(n.Float) || math.IsInf(n.Float, 0) || math.Abs(n.Float) > 1<<53 {
				return 0, false, &NotModelled{"num_speculative_tokens " + pyfmt.FloatRepr(n.Float)}
			}
			return int64(n.Float), true, nil
		default:
			return 0, false, &NotModelled{"num_speculative_tokens that is not a number"}
		}
	}
	return 2, true, nil
}

// rewrite is the backend's rewrite(content, al): the text after and the
// number of entries modified.
func (b syntheticBackend) rewrite(content string, al float64) (string, int, error) {
	if b.module == "sglang" {
		if b.version == 1 {
			if strings.Contains(content, "SGLANG_SIMULATE_ACC_LEN") {
				return "", 0, &Exit{1, "ValueError: recipe already contains SGLANG_SIMULATE_ACC_* variables"}
			}
		} else {
			content = reSimulated.ReplaceAllLiteralString(content, "")
		}
		vars := "\n    SGLANG_SIMULATE_ACC_LEN: \"" + pyFormatG(al) + "\"" +
			"\n    SGLANG_SIMULATE_ACC_METHOD: \"match-expected\"" +
			"\n    SGLANG_SIMULATE_ACC_TOKEN_MODE: \"real-draft-token\""
		n := 0
		out := reEnvBlock.ReplaceAllStringFunc(content, func(m string) string {
			n++
			return m + vars
		})
		return out, n, nil
	}
	alv := &pyValue{Kind: pyFloat, Float: al}
	return replaceSpecConfigs(content, func(spec *pyValue) (bool, error) {
		spec.set("rejection_sample_method", &pyValue{Kind: pyStr, Str: []rune("synthetic")})
		spec.set("synthetic_acceptance_length", alv)
		return true, nil
	})
}

// rewriteReal is the backend's rewrite_real(content) (version 2).
func (b syntheticBackend) rewriteReal(content string) (string, int, error) {
	if b.module == "sglang" {
		n := len(reSimulated.FindAllStringIndex(content, -1))
		return reSimulated.ReplaceAllLiteralString(content, ""), n, nil
	}
	return replaceSpecConfigs(content, func(spec *pyValue) (bool, error) {
		m, ok := spec.get("rejection_sample_method")
		synthetic := ok && m.Kind == pyStr && string(m.Str) == "synthetic"
		if _, has := spec.get("synthetic_acceptance_length"); !synthetic && !has {
			return false, nil
		}
		spec.set("rejection_sample_method", &pyValue{Kind: pyStr, Str: []rune("block")})
		spec.pop("synthetic_acceptance_length")
		return true, nil
	})
}

// replaceSpecConfigs is _SPEC_CONFIG_RE.subn with a callback that edits
// the decoded JSON object: entries edit reports as changed are dumped
// back (json.dumps, compact separators), the others kept as written. An
// entry that is not a JSON object ends the program (an uncaught
// exception).
func replaceSpecConfigs(content string, edit func(*pyValue) (bool, error)) (string, int, error) {
	var b strings.Builder
	n, last := 0, 0
	for _, m := range reSpecConfig.FindAllStringSubmatchIndex(content, -1) {
		spec, err := pyLoads(content[m[2]:m[3]])
		var jerr *errJSONDecode
		if errors.As(err, &jerr) {
			return "", 0, &Exit{1, err.Error()}
		} else if err != nil {
			return "", 0, err
		}
		if spec.Kind != pyDict {
			return "", 0, &Exit{1, "TypeError: a speculative-config JSON that is not an object cannot take keys"}
		}
		changed, err := edit(spec)
		if err != nil {
			return "", 0, err
		}
		b.WriteString(content[last:m[0]])
		if changed {
			n++
			b.WriteString("speculative-config: '" + pyDumps(spec) + "'")
		} else {
			b.WriteString(content[m[0]:m[1]])
		}
		last = m[1]
	}
	b.WriteString(content[last:])
	return b.String(), n, nil
}

// syntheticByBlobs is the program made of the versions with these blob
// abbreviations (driver, then __init__.py and backends): for tests that
// replay a commit's combination without its sources.
func syntheticByBlobs(driver, init string, backends ...string) *SyntheticProgram {
	var prog *SyntheticProgram
	for _, d := range syntheticDrivers() {
		if strings.HasSuffix(d.ID, "@"+driver) {
			prog = &SyntheticProgram{driver: d, backends: map[string]syntheticBackend{}, IDs: []string{d.ID}}
		}
	}
	if prog == nil {
		return nil
	}
	for _, i := range syntheticInits() {
		if strings.HasSuffix(i.ID, "@"+init) {
			prog.init = &i
			prog.IDs = append(prog.IDs, i.ID)
		}
	}
	for _, want := range backends {
		for _, b := range syntheticBackends() {
			if strings.HasSuffix(b.ID, "@"+want) {
				prog.IDs = append(prog.IDs, b.ID)
				for _, f := range b.frameworks {
					prog.backends[f] = b
				}
			}
		}
	}
	return prog
}

// SyntheticFromIDs is the program a run recognized (SyntheticProgram.IDs),
// for applying its recorded rewrite later. Errors: an ID in no table entry.
func SyntheticFromIDs(ids []string) (*SyntheticProgram, error) {
	if len(ids) == 0 {
		return nil, fmt.Errorf("no injector version named")
	}
	blob := func(id string) string {
		_, b, _ := strings.Cut(id, "@")
		return b
	}
	init := ""
	var backends []string
	for _, id := range ids[1:] {
		if strings.HasPrefix(id, "synthetic_injectors/__init__.py@") {
			init = blob(id)
		} else {
			backends = append(backends, blob(id))
		}
	}
	p := syntheticByBlobs(blob(ids[0]), init, backends...)
	if p == nil || strings.Join(p.IDs, " ") != strings.Join(ids, " ") {
		return nil, fmt.Errorf("injector versions %v are not in the table", ids)
	}
	return p, nil
}
