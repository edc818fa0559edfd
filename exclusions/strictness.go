package exclusions

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Setting classes of a "major server args" policy (PolicySpec.Classes).
const (
	// StrictClassMajor: a difference in the setting counts against
	// coverage.
	StrictClassMajor = "major"
	// StrictClassInformational: a difference in the setting is listed as
	// information only (compare.StrictnessRule).
	StrictClassInformational = "informational"
)

// StrictClasses states which settings count under a policy of strictness
// StrictMajor, as rules over setting names and values, each citing the
// sentence of the policy text (PolicySpec.Quote) it implements, plus a
// fixed list of exceptions, each with its reason.
//
// A setting is classified by the first of: the exception naming its key;
// the first rule, in file order, that matches it; else it is
// informational ("not major": the policy counts only the settings it
// names). The order of the rules is the precedence: a rule that names a
// setting the policy text itself calls InferenceX-specific comes before
// the major rules, and catch-alls ("SGLANG_RADIX_FORCE_MISS and similar
// env toggles") come after them, so an env var that selects a kernel,
// backend, fusion or quantization is major although the policy calls env
// toggles informational.
type StrictClasses struct {
	Rules      []StrictRule      `yaml:"rules" json:"rules"`
	Exceptions []StrictException `yaml:"exceptions,omitempty" json:"exceptions,omitempty"`
}

// StrictRule is one rule of StrictClasses: a setting matches when its kind
// has a name glob that matches its name (Flags for command-line flags,
// including a JSON option's "<flag>.<key>" parts; Env for environment
// variables, by name; Fields for the other compare keys: "workers",
// "nodes-per-worker", "positional", "image", "program") and, when Values is
// set, one of the setting's values matches a value glob (a JSON object
// value is matched leaf by leaf, "pass_config.fuse_allreduce_rms=false",
// and for a difference between two objects only the leaves that differ:
// valueParts). Globs: '*' any
// run, '?' one character, '{a,b}' alternatives; case-sensitive, anchored.
type StrictRule struct {
	// ID names the rule in reports ("kernel-backend").
	ID string `yaml:"id" json:"id"`
	// Class is StrictClassMajor or StrictClassInformational.
	Class string `yaml:"class" json:"class"`
	// Quote is the words of the policy text the rule implements; it must
	// occur in the policy's Quote (whitespace-insensitive).
	Quote string `yaml:"quote" json:"quote"`
	// Why says, when the rule reads the policy's words beyond their letter
	// (which names stand for "and similar"), how.
	Why    string   `yaml:"why,omitempty" json:"why,omitempty"`
	Flags  []string `yaml:"flags,omitempty" json:"flags,omitempty"`
	Env    []string `yaml:"env,omitempty" json:"env,omitempty"`
	Fields []string `yaml:"fields,omitempty" json:"fields,omitempty"`
	Values []string `yaml:"values,omitempty" json:"values,omitempty"`

	flags, env, fields, values []*matcher
}

// StrictException fixes the class of one setting (its compare key:
// "--flag", "env NAME", "image") against the rules, with the reason.
type StrictException struct {
	Setting string `yaml:"setting" json:"setting"`
	Class   string `yaml:"class" json:"class"`
	Reason  string `yaml:"reason" json:"reason"`
}

// StrictClass is how a policy classifies one setting (PolicySpec.Classify).
type StrictClass struct {
	// Major: a difference in the setting counts against coverage.
	Major bool
	// Rule is the id of the StrictRule that decided, "exception" for a
	// StrictException, "" when nothing matched (informational: not a
	// setting the policy names) or the policy counts every setting.
	Rule string
	// Quote is the policy text the deciding rule cites; for an exception
	// its reason; for no match the first sentence of the policy's quote.
	Quote string
}

// Explain is a one-line reason for a report: the class under policy
// (the policy id), the deciding rule and the policy text it cites.
func (c StrictClass) Explain(policy string) string {
	switch {
	case c.Major && c.Rule == "exception":
		return fmt.Sprintf("major under policy %s (exception): %s", policy, c.Quote)
	case c.Major:
		return fmt.Sprintf("major under policy %s (rule %s): %q", policy, c.Rule, c.Quote)
	case c.Rule == "exception":
		return fmt.Sprintf("not a major, deployment-defining server arg under policy %s (exception): %s", policy, c.Quote)
	case c.Rule != "":
		return fmt.Sprintf("not a major, deployment-defining server arg under policy %s (rule %s): %q", policy, c.Rule, c.Quote)
	}
	return fmt.Sprintf("not a major, deployment-defining server arg under policy %s: %q", policy, c.Quote)
}

// splitKey splits a compare setting key into kind and name: "env NAME" is
// an env var, a key starting with "-" a flag (a JSON option's part
// "--speculative-config.method" included), anything else a field.
func splitKey(key string) (kind SettingKind, name string) {
	switch {
	case strings.HasPrefix(key, "env "):
		return KindEnv, strings.TrimPrefix(key, "env ")
	case strings.HasPrefix(key, "-"):
		return KindFlag, key
	}
	return KindField, key
}

func (r *StrictRule) matches(kind SettingKind, name string, values []string) bool {
	var ms []*matcher
	switch kind {
	case KindEnv:
		ms = r.env
	case KindFlag:
		ms = r.flags
	default:
		ms = r.fields
	}
	if !anyMatch(ms, name) {
		return false
	}
	if len(r.values) == 0 {
		return true
	}
	for _, v := range valueParts(values) {
		if anyMatch(r.values, v) {
			return true
		}
	}
	return false
}

// valueParts are the strings a rule's Values globs are matched against:
// for a JSON object value its leaves, "path.to.key=value" (a list is one
// leaf, its JSON); for two JSON objects (both sides of a difference) only
// the leaves that differ, so that what the two sides share (a fusion pass
// both enable) does not make a difference elsewhere in the object major;
// any other value as it is.
func valueParts(values []string) []string {
	leaves := make([]map[string]bool, len(values))
	for i, v := range values {
		leaves[i] = jsonLeaves(v)
	}
	if len(values) == 2 && leaves[0] != nil && leaves[1] != nil {
		var out []string
		for i, j := range [2]int{1, 0} {
			for l := range leaves[i] {
				if !leaves[j][l] {
					out = append(out, l)
				}
			}
		}
		sort.Strings(out)
		return out
	}
	var out []string
	for i, v := range values {
		if leaves[i] == nil {
			out = append(out, v)
			continue
		}
		for l := range leaves[i] {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// jsonLeaves flattens a JSON object into "path=value" leaves (value as
// JSON, a string unquoted); nil when v is not a JSON object.
func jsonLeaves(v string) map[string]bool {
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(v))
	d.UseNumber()
	if err := d.Decode(&m); err != nil || m == nil {
		return nil
	}
	out := map[string]bool{}
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
		if o, ok := x.(map[string]any); ok && len(o) > 0 {
			for k, y := range o {
				p := k
				if prefix != "" {
					p = prefix + "." + k
				}
				walk(p, y)
			}
			return
		}
		s, ok := x.(string)
		if !ok {
			b, _ := json.Marshal(x)
			s = string(b)
		}
		out[prefix+"="+s] = true
	}
	walk("", m)
	return out
}

func anyMatch(ms []*matcher, s string) bool {
	for _, m := range ms {
		if m.MatchString(s) {
			return true
		}
	}
	return false
}

// Classify classifies the setting with compare key key ("--linear-backend",
// "env VLLM_ROCM_USE_AITER_MOE", "workers", "image") and the normalized
// values of the sides that set it (a rule with Values needs them) under
// the policy: every setting is major under StrictAll; under StrictMajor
// see StrictClasses for the order.
func (p *PolicySpec) Classify(key string, values ...string) StrictClass {
	if p.Strictness != StrictMajor || p.Classes == nil {
		return StrictClass{Major: true}
	}
	for _, e := range p.Classes.Exceptions {
		if e.Setting == key {
			return StrictClass{Major: e.Class == StrictClassMajor, Rule: "exception", Quote: e.Reason}
		}
	}
	kind, name := splitKey(key)
	for i := range p.Classes.Rules {
		r := &p.Classes.Rules[i]
		if r.matches(kind, name, values) {
			return StrictClass{Major: r.Class == StrictClassMajor, Rule: r.ID, Quote: r.Quote}
		}
	}
	return StrictClass{Quote: p.firstSentence()}
}

// firstSentence is the policy quote up to its first ". ".
func (p *PolicySpec) firstSentence() string {
	q := p.Quote
	if i := strings.Index(q, ". "); i > 0 {
		q = q[:i+1]
	}
	return q
}

// compileClasses checks and compiles the classes of a StrictMajor policy:
// every rule has an id (unique), a class, a quote found in the policy
// quote and at least one name glob; every exception a setting (unique),
// a class and a reason.
func (p *PolicySpec) compileClasses() error {
	c := p.Classes
	if c == nil || len(c.Rules) == 0 {
		return fmt.Errorf("strictness %s needs classes.rules", StrictMajor)
	}
	quote := squeeze(p.Quote)
	ids := map[string]bool{}
	for i := range c.Rules {
		r := &c.Rules[i]
		at := fmt.Sprintf("classes.rules[%d] %q", i, r.ID)
		if r.ID == "" || r.ID == "exception" || ids[r.ID] {
			return fmt.Errorf("%s: id is required, unique and not \"exception\"", at)
		}
		ids[r.ID] = true
		if r.Class != StrictClassMajor && r.Class != StrictClassInformational {
			return fmt.Errorf("%s: class %q (want %s or %s)", at, r.Class, StrictClassMajor, StrictClassInformational)
		}
		if r.Quote == "" || !strings.Contains(quote, squeeze(r.Quote)) {
			return fmt.Errorf("%s: quote %q is not words of the policy quote", at, r.Quote)
		}
		if len(r.Flags)+len(r.Env)+len(r.Fields) == 0 {
			return fmt.Errorf("%s: no flags, env or fields", at)
		}
		for _, g := range []struct {
			globs []string
			out   *[]*matcher
		}{{r.Flags, &r.flags}, {r.Env, &r.env}, {r.Fields, &r.fields}, {r.Values, &r.values}} {
			*g.out = nil
			for _, s := range g.globs {
				m, err := compileGlob(s)
				if err != nil {
					return fmt.Errorf("%s: %w", at, err)
				}
				*g.out = append(*g.out, m)
			}
		}
	}
	seen := map[string]bool{}
	for i, e := range c.Exceptions {
		at := fmt.Sprintf("classes.exceptions[%d] %q", i, e.Setting)
		if e.Setting == "" || seen[e.Setting] || e.Reason == "" {
			return fmt.Errorf("%s: setting (unique) and reason are required", at)
		}
		seen[e.Setting] = true
		if e.Class != StrictClassMajor && e.Class != StrictClassInformational {
			return fmt.Errorf("%s: class %q (want %s or %s)", at, e.Class, StrictClassMajor, StrictClassInformational)
		}
	}
	return nil
}

// squeeze collapses every run of white space to one space.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }
