package helpers

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

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

// enabled is _enabled: os.environ.get(name, "false").strip().lower() == "true".
func enabled(env map[string]string, name string) bool {
	v, ok := env[name]
	if !ok {
		v = "false"
	}
	return strings.ToLower(strings.TrimSpace(v)) == "true"
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
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(in.RefYAML), &root); err != nil {
		return 0, &NotModelled{"the reference YAML does not parse: " + err.Error()}
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return 0, &NotModelled{"the reference YAML is not a mapping (data.get fails)"}
	}
	key := in.Env["MODEL_PREFIX"]
	if k, ok := p.driver.prefixes[key]; ok {
		key = k
	}
	block := mapGet(root.Content[0], func(k *yaml.Node) bool { return k.Kind == yaml.ScalarNode && k.Tag == "!!str" && k.Value == key })
	if block == nil || block.Tag == "!!null" {
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
		if !ok || n == 0 {
			n = 2 // `or 2`
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
func (p *SyntheticProgram) lookupAL(in SyntheticInput, block *yaml.Node, n int64) (float64, bool, error) {
	isN := func(k *yaml.Node) bool {
		v, ok := yamlNumber(k)
		return ok && v == float64(n)
	}
	switch block.Kind {
	case yaml.SequenceNode:
		for _, item := range block.Content {
			if item.Kind != yaml.MappingNode {
				return 0, false, &NotModelled{"a reference-YAML list item that is not a mapping"}
			}
			if v := mapGet(item, isN); v != nil {
				return alValue(v)
			}
		}
		return 0, false, nil
	case yaml.MappingNode:
		thinking := false
		for i := 0; i+1 < len(block.Content); i += 2 {
			k := block.Content[i]
			if k.Kind != yaml.ScalarNode {
				return 0, false, &NotModelled{"a reference-YAML key that is not a scalar"}
			}
			if strings.HasPrefix(k.Value, "thinking") && k.Tag == "!!str" {
				thinking = true
			}
		}
		if thinking {
			mode := pyStrip(envOr(in.Env, "THINKING_MODE", "thinking_on"))
			if mode == "" {
				mode = "thinking_on"
			}
			mb := mapGet(block, func(k *yaml.Node) bool { return k.Tag == "!!str" && k.Value == mode })
			if mb == nil {
				return 0, false, &Exit{1, fmt.Sprintf("ERROR: THINKING_MODE='%s' not found in reference YAML", mode)}
			}
			if mb.Kind != yaml.MappingNode {
				return 0, false, &NotModelled{"a thinking-mode block that is not a mapping"}
			}
			block = mb
		}
		if v := mapGet(block, isN); v != nil {
			return alValue(v)
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

// alValue is float(al) for a YAML number (a null is "not found").
func alValue(v *yaml.Node) (float64, bool, error) {
	if v.Tag == "!!null" {
		return 0, false, nil
	}
	f, ok := yamlNumber(v)
	if !ok {
		return 0, false, &NotModelled{fmt.Sprintf("a reference acceptance length %q that is not a plain decimal number", v.Value)}
	}
	return f, true, nil
}

// plainNumber is the YAML number syntax on which PyYAML (YAML 1.1) and a
// plain decimal reading agree.
var plainNumber = regexp.MustCompile(`^[-+]?([0-9]+|[0-9]*\.[0-9]+|[0-9]+\.[0-9]*)$`)

func yamlNumber(n *yaml.Node) (float64, bool) {
	if n.Kind != yaml.ScalarNode || n.Style != 0 || (n.Tag != "!!int" && n.Tag != "!!float") || !plainNumber.MatchString(n.Value) {
		return 0, false
	}
	if n.Tag == "!!int" && len(strings.TrimLeft(n.Value, "+-")) > 1 && strings.HasPrefix(strings.TrimLeft(n.Value, "+-"), "0") {
		return 0, false // PyYAML reads 010 as octal
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	return f, err == nil
}

// mapGet is the value of the first key for which match holds; with
// duplicate keys PyYAML keeps the last, so the last match wins.
func mapGet(m *yaml.Node, match func(*yaml.Node) bool) *yaml.Node {
	var v *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if match(m.Content[i]) {
			v = m.Content[i+1]
		}
	}
	return v
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
		if err != nil {
			continue // json.JSONDecodeError: skipped
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
				return 0, false, &NotModelled{"num_speculative_tokens " + pyFloatRepr(n.Float)}
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
		if err != nil {
			return "", 0, &Exit{1, err.Error()}
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
