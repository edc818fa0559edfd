// Package exclusions is the classified list of settings that may differ
// between an InferenceX effective recipe and the upstream documentation that
// covers it, as data: an embedded YAML file (rules.yaml) whose every entry
// names the setting it matches, its class, a one-line reason and the policy
// version (verifier prompt or checklist revision) it follows.
//
// The classes are those of InferenceX's Check 3 ("Upstream recipe") as
// described in ../shared/spec/inferencex.md (d): H harness, C collection,
// S synthetic acceptance, N placement, J judgment, P prohibited. An env var
// is classified by name and by who consumes it (Consumer): the benchmark
// client, evals, the workflow, the cluster, model staging, the container's
// tooling or telemetry; one whose consumer cannot be named stays compared.
// Package compare decides what a match means; this package only loads,
// validates and matches.
package exclusions

import (
	_ "embed"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Class is what compare does with a setting a rule matches.
type Class string

// Exclusion classes. Source: SemiAnalysisAI/InferenceX
// .github/codeowner-signoff-verify-prompt.md (09813166…) Check 3(c) and the
// classification table of inferencex.md (d).
const (
	// ClassHarness (H): harness plumbing; not compared, listed with the reason.
	ClassHarness Class = "harness"
	// ClassCollection (C): client/result collection; not compared, listed.
	ClassCollection Class = "collection"
	// ClassSyntheticAcceptance (S): synthetic benchmark control; not compared, listed.
	ClassSyntheticAcceptance Class = "synthetic-acceptance"
	// ClassPlacement (N): ports, hosts, model path, node rank; normalized,
	// then compared only when the rule says MustMatch.
	ClassPlacement Class = "placement"
	// ClassJudgment (J): robustness timeouts and sweep-derived values;
	// compared, a difference is informational.
	ClassJudgment Class = "judgment"
	// ClassProhibited (P): a failure wherever it appears, never excluded.
	ClassProhibited Class = "prohibited"
)

// Valid reports whether c is one of the six classes.
func (c Class) Valid() bool {
	switch c {
	case ClassHarness, ClassCollection, ClassSyntheticAcceptance, ClassPlacement, ClassJudgment, ClassProhibited:
		return true
	}
	return false
}

// Excluded reports whether a difference in a setting of class c is left out
// of the comparison (harness, collection, synthetic acceptance).
func (c Class) Excluded() bool {
	return c == ClassHarness || c == ClassCollection || c == ClassSyntheticAcceptance
}

// Scope is what a rule's match takes out of a comparison: the setting on
// both sides (ScopePair) or only the value it matches, on the side that
// gives it (ScopeSide). Source: cookbook-sync issue 22 item 4 ("Exclusions
// act on their own side where they match a value"), after InferenceX
// .github/codeowner-signoff-verify-prompt.md (09813166…) Check 3(c): harness
// plumbing and synthetic-acceptance controls "may differ", production
// settings must match.
type Scope string

// Rule scopes.
const (
	// ScopePair (the default): a match on either side takes the setting out
	// of the comparison on both sides. For names that are plumbing whatever
	// value either side gives: ports, hosts, model paths, metrics and log
	// switches, placeholders such as @fabric.* that stand for the host's own
	// value of the same setting.
	ScopePair Scope = "pair"
	// ScopeSide: only the value the rule matches is taken out, on the side
	// that gives it; what the other side gives is still compared with this
	// side's production-path value (the value a harness step replaced, else
	// absent, which only an engine default cited in compare/defaults.yaml
	// equates with a pinned value). For values InferenceX's harness runs in
	// place of a production one: synthetic acceptance
	// (rejection_sample_method synthetic, SGLANG_SIMULATE_ACC_*).
	ScopeSide Scope = "side"
)

// Consumer is who reads an environment variable the benchmark harness puts
// into a server process's environment. Check 3(c) of InferenceX
// .github/codeowner-signoff-verify-prompt.md lets "harness plumbing such as
// … ports, result filenames" differ, and inferencex.md (d) forbids
// classifying "by name or by presence in a benchmark file"; hence the rule
// of cookbook-sync issue 8 item 1: an env var is excluded (harness,
// collection, placement) only with the consumer that reads it; one whose
// consumer cannot be named — or whose consumer is the serving engine itself
// (SGLANG_*, VLLM_*, NCCL_* tuning, TORCH_*, …) — has no rule and stays
// compared.
type Consumer string

// Consumers. Sources: SemiAnalysisAI/InferenceX@843c6254
// .github/workflows/benchmark-tmpl.yml, runners/launch_*.sh,
// benchmarks/benchmark_lib.sh, utils/.
const (
	// ConsumerBenchmarkClient: the load generator — utils/bench_serving,
	// aiperf — and its wrappers run_benchmark_serving / the agentic replay in
	// benchmarks/benchmark_lib.sh.
	ConsumerBenchmarkClient Consumer = "benchmark-client"
	// ConsumerEvals: the accuracy evals — lm-eval and SWE-bench
	// (mini-swe-agent, Modal) wrappers in benchmarks/benchmark_lib.sh, utils/evals.
	ConsumerEvals Consumer = "evals"
	// ConsumerWorkflow: the GitHub workflow and the benchmark scripts it
	// drives — matrix point, runner identity, result files read by
	// utils/process_result.py and the upload steps.
	ConsumerWorkflow Consumer = "workflow"
	// ConsumerCluster: the cluster the job runs on — Slurm, enroot/pyxis,
	// docker, devices, NICs, host paths, ports and addresses of this deployment.
	ConsumerCluster Consumer = "cluster"
	// ConsumerModelStaging: where the launcher stages the weights — local
	// model paths, the Hugging Face hub cache and token.
	ConsumerModelStaging Consumer = "model-staging"
	// ConsumerContainer: the container image's own tooling — pip, uv, the
	// Python site setup, JIT build targets.
	ConsumerContainer Consumer = "container"
	// ConsumerTelemetry: a log or metrics switch whose only effect is output
	// the harness collects (server logs, Prometheus/transfer metrics), not
	// how the server serves: NO_COLOR, PYTHONUNBUFFERED, DYN_LOG, MC_TE_METRIC.
	ConsumerTelemetry Consumer = "telemetry"
)

// Valid reports whether c is one of the consumers.
func (c Consumer) Valid() bool {
	switch c {
	case ConsumerBenchmarkClient, ConsumerEvals, ConsumerWorkflow, ConsumerCluster, ConsumerModelStaging, ConsumerContainer, ConsumerTelemetry:
		return true
	}
	return false
}

// consumerList is the closed set, for errors.
const consumerList = "benchmark-client, evals, workflow, cluster, model-staging, container or telemetry"

// SettingKind says what a Setting names.
type SettingKind string

// Setting kinds.
const (
	KindFlag  SettingKind = "flag"  // a command-line flag, normalized ("--tensor-parallel-size")
	KindEnv   SettingKind = "env"   // an environment variable name
	KindField SettingKind = "field" // a process or recipe field ("count", "slurm.time_limit")
)

// Setting is one setting of one process, as compare sees it after
// normalization.
type Setting struct {
	Kind   SettingKind
	Name   string // normalized flag, env name or field path
	Value  string // normalized value ("" for a bare flag)
	Engine string // workers: sglang | vllm | trtllm; frontends: dynamo | sglang-router | vllm-router; field "present": the frontend that ran or "none"
	Role   string // agg | prefill | decode | frontend | etcd | nats | nginx | mooncake | another service kind
}

// Match selects the settings a Rule applies to. Exactly one of Flag, Env and
// Field may be set (or none, when Value alone selects). Patterns are globs:
// '*' any run of characters, '?' one character, '{a,b}' alternatives.
type Match struct {
	Flag   string `yaml:"flag,omitempty" json:"flag,omitempty"`
	Env    string `yaml:"env,omitempty" json:"env,omitempty"`
	Field  string `yaml:"field,omitempty" json:"field,omitempty"`
	Engine string `yaml:"engine,omitempty" json:"engine,omitempty"`
	Role   string `yaml:"role,omitempty" json:"role,omitempty"`
	Value  string `yaml:"value,omitempty" json:"value,omitempty"`
}

// Policy is a revision of the rules a Rule follows: the verifier prompt
// commit or checklist version.
type Policy struct {
	ID      string `yaml:"-" json:"id"`
	Source  string `yaml:"source" json:"source"`
	Version string `yaml:"version" json:"version"`
	Note    string `yaml:"note,omitempty" json:"note,omitempty"`
}

// Rule is one classified exclusion.
type Rule struct {
	ID     string `yaml:"id" json:"id"`
	Match  Match  `yaml:"match" json:"match"`
	Class  Class  `yaml:"class" json:"class"`
	Reason string `yaml:"reason" json:"reason"`
	// Consumer is who reads the env var (required for an env rule of class
	// harness, collection or placement; see Consumer).
	Consumer Consumer `yaml:"consumer,omitempty" json:"consumer,omitempty"`
	// MustMatch (placement only): the normalized values must still be equal.
	MustMatch bool `yaml:"mustMatch,omitempty" json:"mustMatch,omitempty"`
	// WhenBoth (with MustMatch): the values must be equal only when both
	// sides state the setting; one side leaving it out (it derives from
	// settings compared elsewhere) is excluded.
	WhenBoth bool `yaml:"whenBoth,omitempty" json:"whenBoth,omitempty"`
	// Policy is the key of the policy this rule follows (default: the file's).
	Policy string `yaml:"policy,omitempty" json:"policy"`
	// Scope is what a match takes out: ScopePair (the default) or
	// ScopeSide. A rule with a value pattern must state it (a value may be
	// a harness substitute or a placeholder; Parse refuses to guess), and
	// only a rule of an excluded class (harness, collection, synthetic
	// acceptance) may be ScopeSide.
	Scope Scope `yaml:"scope,omitempty" json:"scope,omitempty"`

	name, value, role, engine *matcher
}

// Side reports whether the rule takes out only the value it matches, on
// the side that gives it (ScopeSide).
func (r *Rule) Side() bool { return r.Scope == ScopeSide }

// matcher matches a glob: a set of literal alternatives ("--a", "{A,B}")
// without a regexp, anything else with one.
type matcher struct {
	lit map[string]bool
	// segs, for a glob of literal text and '*' only (at least one), are
	// its literal parts: starMatch answers as re for a name that is
	// UTF-8 without a newline (re's '.' takes neither).
	segs []string
	re   *regexp.Regexp
}

// MatchString reports whether s matches the glob.
func (m *matcher) MatchString(s string) bool {
	if m.lit != nil {
		return m.lit[s]
	}
	if m.segs != nil && strings.IndexByte(s, '\n') < 0 && utf8.ValidString(s) {
		return starMatch(m.segs, s)
	}
	return m.re.MatchString(s)
}

// starMatch reports whether s is segs joined by any text (a glob's '*'s):
// s starts with the first, ends with the last, and holds the others in
// order between them (each found leftmost, which finds a match when there
// is one). len(segs) >= 2.
func starMatch(segs []string, s string) bool {
	first, last := segs[0], segs[len(segs)-1]
	if !strings.HasPrefix(s, first) {
		return false
	}
	s = s[len(first):]
	for _, seg := range segs[1 : len(segs)-1] {
		i := strings.Index(s, seg)
		if i < 0 {
			return false
		}
		s = s[i+len(seg):]
	}
	return strings.HasSuffix(s, last)
}

// Set is a validated, immutable list of rules. Safe for concurrent use.
type Set struct {
	name     string
	version  string
	policy   string
	policies map[string]Policy
	rules    []Rule
	// spec is the policy version (policies.yaml) the set was built for.
	spec string
	// prohibited indexes the prohibited rules (checked for every setting).
	prohibited []int
	// idx narrows Match to the rules that can apply (nil: every rule).
	idx *ruleIndex
}

// ruleIndex is the rules of a Set that can apply to a setting, by its kind
// and name, each list in rule order (indexes into Set.rules): a rule that
// names a flag, an env var or a field applies only to settings of that
// kind, and one whose name is a list of literal names only to those names.
type ruleIndex struct {
	// byName: the rules whose name is literal names, by kind and name.
	byName map[SettingKind]map[string][]int
	// rest: by kind, the rules of the kind whose name is a pattern and
	// the rules that name no kind, merged in rule order.
	rest map[SettingKind][]int
	// any: the rules that name no kind (for a kind no rule names).
	any []int
}

// index builds s.idx from s.rules.
func (s *Set) index() {
	idx := &ruleIndex{byName: map[SettingKind]map[string][]int{}, rest: map[SettingKind][]int{}}
	kinds := map[SettingKind]bool{}
	for i := range s.rules {
		if k, ok := s.rules[i].kind(); ok {
			kinds[k] = true
		}
	}
	for i := range s.rules {
		r := &s.rules[i]
		k, named := r.kind()
		switch {
		case !named:
			idx.any = append(idx.any, i)
			for kk := range kinds {
				idx.rest[kk] = append(idx.rest[kk], i)
			}
		case r.name != nil && r.name.lit != nil:
			if idx.byName[k] == nil {
				idx.byName[k] = map[string][]int{}
			}
			for n := range r.name.lit {
				idx.byName[k][n] = append(idx.byName[k][n], i)
			}
		default:
			idx.rest[k] = append(idx.rest[k], i)
		}
	}
	s.idx = idx
}

// kind is the kind of setting r names (a flag, an env var, a field); ok is
// false for a rule that names none.
func (r *Rule) kind() (SettingKind, bool) {
	switch {
	case r.Match.Flag != "":
		return KindFlag, true
	case r.Match.Env != "":
		return KindEnv, true
	case r.Match.Field != "":
		return KindField, true
	}
	return "", false
}

//go:embed rules.yaml
var rulesYAML []byte

var defaultSet = sync.OnceValues(func() (*Set, error) { return ForPolicy(DefaultPolicyID()) })

// Default returns the embedded rule set (exclusions/rules.yaml) for the
// default policy version (policies.yaml default, the current prompt
// 09813166): ForPolicy(DefaultPolicyID()), built once. An error means the
// embedded data is invalid (a build defect).
func Default() (*Set, error) { return defaultSet() }

type fileDoc struct {
	Version  string            `yaml:"version"`
	Policy   string            `yaml:"policy"`
	Policies map[string]Policy `yaml:"policies"`
	Rules    []Rule            `yaml:"rules"`
}

// Parse reads and validates a rule file. name is used in errors, which carry
// the YAML path and line ("rules.yaml:12: rules[3].class: unknown class
// \"harnes\""). Errors: YAML syntax, unknown keys, missing version/policy,
// a rule without id/reason/match, duplicate ids, unknown class, unknown
// policy, an unknown scope, a value pattern without a scope, scope side on
// a class that is not excluded, an unknown consumer, an env rule of class harness, collection or
// placement without a consumer, mustMatch on a non-placement rule, a bad
// glob pattern.
func Parse(name string, data []byte) (*Set, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty rule file", name)
	}
	var doc fileDoc
	dec := root.Content[0]
	if err := decodeStrict(dec, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &Set{name: name, version: doc.Version, policy: doc.Policy, policies: map[string]Policy{}}
	at := func(path string) string {
		if n := findPath(dec, path); n != nil {
			return fmt.Sprintf("%s:%d:%d: %s", name, n.Line, n.Column, path)
		}
		return name + ": " + path
	}
	if doc.Version == "" {
		return nil, fmt.Errorf("%s: version: missing", name)
	}
	for id, p := range doc.Policies {
		if p.Source == "" || p.Version == "" {
			return nil, fmt.Errorf("%s: source and version are required", at("policies."+id))
		}
		p.ID = id
		s.policies[id] = p
	}
	if _, ok := s.policies[doc.Policy]; !ok {
		return nil, fmt.Errorf("%s: unknown policy %q (known: %s)", at("policy"), doc.Policy, strings.Join(s.policyIDs(), ", "))
	}
	seen := map[string]int{}
	for i := range doc.Rules {
		r := doc.Rules[i]
		p := fmt.Sprintf("rules[%d]", i)
		if r.ID == "" {
			return nil, fmt.Errorf("%s: missing", at(p+".id"))
		}
		if j, dup := seen[r.ID]; dup {
			return nil, fmt.Errorf("%s: duplicate rule id %q (also rules[%d])", at(p+".id"), r.ID, j)
		}
		seen[r.ID] = i
		if !r.Class.Valid() {
			return nil, fmt.Errorf("%s: unknown class %q (want harness, collection, synthetic-acceptance, placement, judgment or prohibited)", at(p+".class"), r.Class)
		}
		if strings.TrimSpace(r.Reason) == "" {
			return nil, fmt.Errorf("%s: empty reason", at(p+".reason"))
		}
		if strings.Contains(strings.TrimSpace(r.Reason), "\n") {
			return nil, fmt.Errorf("%s: reason must be one line", at(p+".reason"))
		}
		if r.MustMatch && r.Class != ClassPlacement {
			return nil, fmt.Errorf("%s: mustMatch is only meaningful for class placement", at(p+".mustMatch"))
		}
		switch r.Scope {
		case "":
			if r.Match.Value != "" {
				return nil, fmt.Errorf("%s: missing: a rule with a value pattern states its scope (side: the value is a harness substitute for a production value, dropped on its own side; pair: the value stands for the same setting, dropped on both sides)", at(p+".scope"))
			}
			r.Scope = ScopePair
		case ScopePair:
		case ScopeSide:
			if !r.Class.Excluded() {
				return nil, fmt.Errorf("%s: scope side is only meaningful for class harness, collection or synthetic-acceptance, not %s", at(p+".scope"), r.Class)
			}
		default:
			return nil, fmt.Errorf("%s: unknown scope %q (want pair or side)", at(p+".scope"), r.Scope)
		}
		if r.Policy == "" {
			r.Policy = doc.Policy
		} else if _, ok := s.policies[r.Policy]; !ok {
			return nil, fmt.Errorf("%s: unknown policy %q", at(p+".policy"), r.Policy)
		}
		m := r.Match
		n := 0
		for _, v := range []string{m.Flag, m.Env, m.Field} {
			if v != "" {
				n++
			}
		}
		if n > 1 {
			return nil, fmt.Errorf("%s: set only one of flag, env, field", at(p+".match"))
		}
		if n == 0 && m.Value == "" {
			return nil, fmt.Errorf("%s: needs flag, env, field or value", at(p+".match"))
		}
		var err error
		field := ""
		switch {
		case m.Flag != "":
			field = "flag"
			if !strings.HasPrefix(m.Flag, "-") && !strings.HasPrefix(m.Flag, "{-") {
				return nil, fmt.Errorf("%s: flag pattern %q must start with '-'", at(p+".match.flag"), m.Flag)
			}
			r.name, err = compileGlob(m.Flag)
		case m.Env != "":
			field = "env"
			r.name, err = compileGlob(m.Env)
		case m.Field != "":
			field = "field"
			r.name, err = compileGlob(m.Field)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at(p+".match."+field), err)
		}
		for _, g := range []struct {
			key, pat string
			dst      **matcher
		}{{"value", m.Value, &r.value}, {"role", m.Role, &r.role}, {"engine", m.Engine, &r.engine}} {
			if g.pat == "" {
				continue
			}
			if *g.dst, err = compileGlob(g.pat); err != nil {
				return nil, fmt.Errorf("%s: %w", at(p+".match."+g.key), err)
			}
		}
		if r.Consumer != "" && !r.Consumer.Valid() {
			return nil, fmt.Errorf("%s: unknown consumer %q (want %s)", at(p+".consumer"), r.Consumer, consumerList)
		}
		if r.Match.Env != "" && r.Consumer == "" && (r.Class == ClassHarness || r.Class == ClassCollection || r.Class == ClassPlacement) {
			return nil, fmt.Errorf("%s: missing: an env var is %s only by the consumer that reads it (%s); one whose consumer cannot be named has no rule and stays compared", at(p+".consumer"), r.Class, consumerList)
		}
		if r.Class == ClassProhibited {
			s.prohibited = append(s.prohibited, len(s.rules))
		}
		s.rules = append(s.rules, r)
	}
	s.index()
	return s, nil
}

func (s *Set) policyIDs() []string {
	var ids []string
	for id := range s.policies {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// decodeStrict decodes n into v, rejecting unknown keys.
func decodeStrict(n *yaml.Node, v any) error {
	b, err := yaml.Marshal(n)
	if err != nil {
		return err
	}
	d := yaml.NewDecoder(strings.NewReader(string(b)))
	d.KnownFields(true)
	return d.Decode(v)
}

// findPath returns the node at a dotted path with [i] indexes ("rules[3].class").
func findPath(n *yaml.Node, path string) *yaml.Node {
	cur := n
	for _, part := range strings.Split(path, ".") {
		key, idx := part, -1
		if i := strings.IndexByte(part, '['); i >= 0 && strings.HasSuffix(part, "]") {
			key = part[:i]
			if n, err := strconv.Atoi(part[i+1 : len(part)-1]); err == nil {
				idx = n
			}
		}
		if cur == nil || cur.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(cur.Content); i += 2 {
			if cur.Content[i].Value == key {
				next = cur.Content[i+1]
				break
			}
		}
		if next == nil {
			// report the parent when the key is absent (e.g. a missing reason)
			return cur
		}
		cur = next
		if idx >= 0 {
			if cur.Kind != yaml.SequenceNode || idx >= len(cur.Content) {
				return nil
			}
			cur = cur.Content[idx]
		}
	}
	return cur
}

// compileGlob turns a glob ('*', '?', '{a,b}') into a matcher.
func compileGlob(g string) (*matcher, error) {
	re, err := globRegexp(g)
	if err != nil {
		return nil, err
	}
	if !strings.ContainsAny(g, "*?") && strings.Count(g, "{") <= 1 {
		alts := []string{g}
		if i := strings.IndexByte(g, '{'); i >= 0 {
			j := strings.IndexByte(g, '}')
			alts = nil
			for _, a := range strings.Split(g[i+1:j], ",") {
				alts = append(alts, g[:i]+a+g[j+1:])
			}
		}
		m := &matcher{lit: map[string]bool{}}
		for _, a := range alts {
			m.lit[a] = true
		}
		return m, nil
	}
	m := &matcher{re: re}
	if !strings.ContainsAny(g, "?{},") && utf8.ValidString(g) {
		m.segs = strings.Split(g, "*")
	}
	return m, nil
}

// globRegexp turns a glob ('*', '?', '{a,b}') into an anchored regexp.
func globRegexp(g string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	depth := 0
	for _, r := range g {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '{':
			depth++
			if depth > 1 {
				return nil, fmt.Errorf("bad pattern %q: nested '{'", g)
			}
			b.WriteString("(?:")
		case '}':
			if depth == 0 {
				return nil, fmt.Errorf("bad pattern %q: unmatched '}'", g)
			}
			depth--
			b.WriteString(")")
		case ',':
			if depth > 0 {
				b.WriteString("|")
			} else {
				b.WriteString(",")
			}
		case '[', ']', '\\':
			return nil, fmt.Errorf("bad pattern %q: %q is not supported (use '*', '?' or '{a,b}')", g, r)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("bad pattern %q: unmatched '{'", g)
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// Match returns the first rule (in file order) that applies to st; the
// returned Rule is shared and must not be modified. A rule's
// role "worker" matches agg, prefill and decode; "service" matches every
// other role but the frontend (etcd, nats, nginx, mooncake, any other
// service kind); an empty engine/role/value matches anything.
func (s *Set) Match(st Setting) (*Rule, bool) {
	if s == nil {
		return nil, false
	}
	if s.idx == nil {
		for i := range s.rules {
			r := &s.rules[i]
			if r.matches(st) {
				return r, true
			}
		}
		return nil, false
	}
	// the candidates in rule order: the two lists merged
	lits := s.idx.byName[st.Kind][st.Name]
	rest, ok := s.idx.rest[st.Kind]
	if !ok {
		rest = s.idx.any
	}
	for len(lits) > 0 || len(rest) > 0 {
		var i int
		if len(rest) == 0 || len(lits) > 0 && lits[0] < rest[0] {
			i, lits = lits[0], lits[1:]
		} else {
			i, rest = rest[0], rest[1:]
		}
		if r := &s.rules[i]; r.matches(st) {
			return r, true
		}
	}
	return nil, false
}

// MatchProhibited returns the first prohibited rule that applies to st: the
// check every setting needs, equal on both sides or not.
func (s *Set) MatchProhibited(st Setting) (*Rule, bool) {
	if s == nil {
		return nil, false
	}
	for _, i := range s.prohibited {
		if r := &s.rules[i]; r.matches(st) {
			return r, true
		}
	}
	return nil, false
}

func (r *Rule) matches(st Setting) bool {
	m := r.Match
	switch {
	case m.Flag != "":
		if st.Kind != KindFlag || !r.name.MatchString(st.Name) {
			return false
		}
	case m.Env != "":
		if st.Kind != KindEnv || !r.name.MatchString(st.Name) {
			return false
		}
	case m.Field != "":
		if st.Kind != KindField || !r.name.MatchString(st.Name) {
			return false
		}
	}
	if r.value != nil && !r.value.MatchString(st.Value) {
		return false
	}
	if r.engine != nil && !r.engine.MatchString(st.Engine) {
		return false
	}
	if r.role != nil && !r.role.MatchString(st.Role) {
		switch {
		case r.role.MatchString("worker") && (st.Role == "agg" || st.Role == "prefill" || st.Role == "decode"):
		case r.role.MatchString("service") && isServiceRole(st.Role):
		default:
			return false
		}
	}
	return true
}

// isServiceRole reports whether role is a service's: any role but the
// workers' (agg, prefill, decode) and the frontend's — etcd, nats, nginx,
// mooncake, and any kind a launcher's services registry starts
// (NVIDIA/srt-slurm src/srtctl/services/config.py kinds; spec/srt-slurm.md
// §10b).
func isServiceRole(role string) bool {
	switch role {
	case "", "agg", "prefill", "decode", "frontend":
		return false
	}
	return true
}

// Rules returns a copy of the rules in file order.
func (s *Set) Rules() []Rule {
	out := make([]Rule, len(s.rules))
	copy(out, s.rules)
	return out
}

// Policy returns the policy with key id.
func (s *Set) Policy(id string) (Policy, bool) {
	p, ok := s.policies[id]
	return p, ok
}

// Policies returns every policy, sorted by key.
func (s *Set) Policies() []Policy {
	var out []Policy
	for _, id := range s.policyIDs() {
		out = append(out, s.policies[id])
	}
	return out
}

// PolicyVersion identifies the rules a report was judged against:
// "<list version> (<policy source>@<policy version>)", e.g.
// "2026-12-01.5 (SemiAnalysisAI/InferenceX .github/codeowner-signoff-verify-prompt.md@09813166)".
func (s *Set) PolicyVersion() string {
	p := s.policies[s.policy]
	return fmt.Sprintf("%s (%s@%s)", s.version, p.Source, p.Version)
}
