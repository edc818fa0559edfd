package exclusions

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Scope of a policy version: which config keys Check 3 applies to.
const (
	// ScopeAll: every vLLM/SGLang deployment (single-node and multi-node,
	// aggregated and disaggregated).
	ScopeAll = "all"
	// ScopeSingleNode: single-node keys only; multi-node and disaggregated
	// keys are N/A (InferenceX PR #2030, prompt 32047a30…35d731a9).
	ScopeSingleNode = "single-node"
)

// Strictness of a policy version: which settings count.
const (
	// StrictAll: every production-useful setting counts (prompt 09813166).
	StrictAll = "all"
	// StrictMajor: only the MAJOR, deployment-defining server args count
	// (PolicySpec.Classes; InferenceX PR #1908).
	StrictMajor = "major"
)

// PromptVersion is one revision of the sign-off verifier prompt: the
// InferenceX commit that wrote it, the file it lives in and the sha256 of
// its text (PromptHash; empty when the text is not known).
type PromptVersion struct {
	Commit string `yaml:"commit" json:"commit"`
	Date   string `yaml:"date,omitempty" json:"date,omitempty"`
	File   string `yaml:"file" json:"file"`
	SHA256 string `yaml:"sha256,omitempty" json:"sha256,omitempty"`
}

// Markers identify a prompt by content when no hash matches: every All
// substring present and no None substring.
type Markers struct {
	All  []string `yaml:"all" json:"all"`
	None []string `yaml:"none,omitempty" json:"none,omitempty"`
}

// PolicySpec is one policy version of InferenceX Check 3 (exclusions/policies.yaml):
// the prompts that state it, its scope (which keys Check 3 applies to), its
// strictness (which settings count) and the exclusion rules that apply.
type PolicySpec struct {
	ID      string   `yaml:"id" json:"id"`
	Aliases []string `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	Title   string   `yaml:"title" json:"title"`
	// Source names the file(s) of SemiAnalysisAI/InferenceX the prompt was
	// read from.
	Source string `yaml:"source" json:"source"`
	// From and Until bound the dates (YYYY-MM-DD) the prompt was in force on
	// main; empty when unknown.
	From    string          `yaml:"from,omitempty" json:"from,omitempty"`
	Until   string          `yaml:"until,omitempty" json:"until,omitempty"`
	Prompts []PromptVersion `yaml:"prompts" json:"prompts"`
	Markers Markers         `yaml:"markers" json:"markers"`
	// Scope is ScopeAll or ScopeSingleNode.
	Scope string `yaml:"scope" json:"scope"`
	// Strictness is StrictAll or StrictMajor.
	Strictness string `yaml:"strictness" json:"strictness"`
	// Quote is the prompt's own words for what must match.
	Quote string `yaml:"quote" json:"quote"`
	// Classes states, under StrictMajor, which settings count: rules over
	// setting names and values, each citing the policy text, and a fixed
	// list of exceptions (StrictClasses). Required with StrictMajor, not
	// allowed with StrictAll.
	Classes *StrictClasses `yaml:"classes,omitempty" json:"classes,omitempty"`
	// Rules lists the rules.yaml policy keys whose rules apply.
	Rules []string `yaml:"rules" json:"rules"`
	// RulePolicy is the rules.yaml policy the version's rule set reports
	// (Set.PolicyVersion).
	RulePolicy string `yaml:"rulePolicy" json:"rulePolicy"`
}

// Counts reports whether a difference in the setting with compare key
// settingKey ("--attention-backend", "env SGLANG_X", "workers", "image")
// and the sides' values counts against coverage under this policy: always
// under StrictAll; under StrictMajor when Classify calls it major. A
// setting that does not count is informational.
func (p *PolicySpec) Counts(settingKey string, values ...string) bool {
	return p.Classify(settingKey, values...).Major
}

// PolicyName is the policy id (compare.Strictness).
func (p *PolicySpec) PolicyName() string { return p.ID }

// InScope reports whether Check 3 applies to a config key under this
// policy: every key under ScopeAll, single-node keys only under
// ScopeSingleNode. singleNode is false for a multi-node or disaggregated
// key (master config multinode: true or disagg: true).
func (p *PolicySpec) InScope(singleNode bool) bool {
	return p.Scope != ScopeSingleNode || singleNode
}

// Describe is a one-line name of the policy for reports: "2026-07 (Check 3:
// … ; scope single-node, strictness major)".
func (p *PolicySpec) Describe() string {
	return fmt.Sprintf("%s (%s; scope %s, strictness %s)", p.ID, p.Title, p.Scope, p.Strictness)
}

//go:embed policies.yaml
var policiesYAML []byte

type policiesDoc struct {
	Default  string       `yaml:"default"`
	Policies []PolicySpec `yaml:"policies"`
}

type policyTable struct {
	def   string
	specs []PolicySpec
	byID  map[string]int // ids and aliases
	bySum map[string]int
}

var defaultPolicies = sync.OnceValues(func() (*policyTable, error) {
	return parsePolicies("exclusions/policies.yaml", policiesYAML, rulesYAML)
})

// parsePolicies reads and validates a policy table against the rule file
// whose policy keys it names.
func parsePolicies(name string, data, rules []byte) (*policyTable, error) {
	var doc policiesDoc
	d := yaml.NewDecoder(bytes.NewReader(data))
	d.KnownFields(true)
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var rf struct {
		Policies map[string]yaml.Node `yaml:"policies"`
	}
	if err := yaml.Unmarshal(rules, &rf); err != nil {
		return nil, fmt.Errorf("%s: rules: %w", name, err)
	}
	t := &policyTable{def: doc.Default, specs: doc.Policies, byID: map[string]int{}, bySum: map[string]int{}}
	for i := range t.specs {
		p := &t.specs[i]
		at := fmt.Sprintf("%s: policies[%d] %q", name, i, p.ID)
		if p.ID == "" || p.Title == "" || p.Source == "" || p.Quote == "" {
			return nil, fmt.Errorf("%s: id, title, source and quote are required", at)
		}
		for _, id := range append([]string{p.ID}, p.Aliases...) {
			if _, dup := t.byID[id]; dup {
				return nil, fmt.Errorf("%s: duplicate id or alias %q", at, id)
			}
			t.byID[id] = i
		}
		if p.Scope != ScopeAll && p.Scope != ScopeSingleNode {
			return nil, fmt.Errorf("%s: scope %q (want %s or %s)", at, p.Scope, ScopeAll, ScopeSingleNode)
		}
		switch p.Strictness {
		case StrictAll:
			if p.Classes != nil {
				return nil, fmt.Errorf("%s: classes are only meaningful with strictness %s", at, StrictMajor)
			}
		case StrictMajor:
			if err := p.compileClasses(); err != nil {
				return nil, fmt.Errorf("%s: %w", at, err)
			}
		default:
			return nil, fmt.Errorf("%s: strictness %q (want %s or %s)", at, p.Strictness, StrictAll, StrictMajor)
		}
		if len(p.Rules) == 0 {
			return nil, fmt.Errorf("%s: rules: empty", at)
		}
		for _, k := range append(append([]string(nil), p.Rules...), p.RulePolicy) {
			if _, ok := rf.Policies[k]; !ok {
				return nil, fmt.Errorf("%s: rule policy %q is not in the rule file's policies", at, k)
			}
		}
		if len(p.Markers.All) == 0 {
			return nil, fmt.Errorf("%s: markers.all: empty", at)
		}
		for _, pv := range p.Prompts {
			if pv.Commit == "" || pv.File == "" {
				return nil, fmt.Errorf("%s: prompts: commit and file are required", at)
			}
			if pv.SHA256 == "" {
				continue
			}
			if len(pv.SHA256) != 64 {
				return nil, fmt.Errorf("%s: prompts %s: sha256 %q is not 64 hex digits", at, pv.Commit, pv.SHA256)
			}
			if j, dup := t.bySum[pv.SHA256]; dup && j != i {
				return nil, fmt.Errorf("%s: sha256 %s also identifies %q", at, pv.SHA256, t.specs[j].ID)
			}
			t.bySum[pv.SHA256] = i
		}
	}
	if _, ok := t.byID[t.def]; !ok {
		return nil, fmt.Errorf("%s: default %q is not a policy", name, t.def)
	}
	return t, nil
}

// Policies returns the policy versions of exclusions/policies.yaml in file
// order (the current one first). Errors mean the embedded data is invalid
// (a build defect); the result is then nil.
func Policies() []PolicySpec {
	t, err := defaultPolicies()
	if err != nil {
		return nil
	}
	return append([]PolicySpec(nil), t.specs...)
}

// DefaultPolicyID is the id of the policy used when none is named: the
// current one ("09813166").
func DefaultPolicyID() string {
	t, err := defaultPolicies()
	if err != nil {
		return ""
	}
	return t.def
}

// PolicyByID returns the policy with id or alias id ("09813166",
// "current", "2026-07"). Errors: invalid embedded data, an unknown id
// (the message lists the known ones).
func PolicyByID(id string) (PolicySpec, error) {
	t, err := defaultPolicies()
	if err != nil {
		return PolicySpec{}, err
	}
	i, ok := t.byID[id]
	if !ok {
		var ids []string
		for k := range t.byID {
			ids = append(ids, k)
		}
		sort.Strings(ids)
		return PolicySpec{}, fmt.Errorf("unknown policy %q (known: %s)", id, strings.Join(ids, ", "))
	}
	return t.specs[i], nil
}

// PromptHash is the sha256 (hex) a prompt is identified by: the text with
// CRLF turned into LF, trailing spaces and tabs cut from every line and
// trailing blank lines dropped, plus one final newline.
func PromptHash(text []byte) string {
	s := strings.ReplaceAll(string(text), "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n") + "\n"))
	return hex.EncodeToString(sum[:])
}

// PromptMatch says how a prompt text was identified.
type PromptMatch struct {
	// Policy is the policy id.
	Policy string `json:"policy"`
	// By is "sha256" (the text is a known revision) or "markers" (its
	// content has the policy's marker phrases).
	By string `json:"by"`
	// SHA256 is the text's PromptHash.
	SHA256 string `json:"sha256"`
	// Commit is the InferenceX commit of the matching revision (By sha256
	// only; the first one listed when several share the text).
	Commit string `json:"commit,omitempty"`
	// Ambiguous lists the versions whose markers all matched when more
	// than one did (no match then).
	Ambiguous []string `json:"ambiguous,omitempty"`
}

// MatchPrompt identifies the policy of a sign-off verifier prompt text (the
// .github/codeowner-signoff-verify-prompt.md template, or the prompt
// PromptFromWorkflow extracts from an older workflow): by PromptHash
// first, else by the policies' content markers (the first policy, in file
// order, whose markers all hold). ok is false when neither identifies it.
func MatchPrompt(text []byte) (PromptMatch, bool) {
	t, err := defaultPolicies()
	if err != nil {
		return PromptMatch{}, false
	}
	sum := PromptHash(text)
	if i, ok := t.bySum[sum]; ok {
		m := PromptMatch{Policy: t.specs[i].ID, By: "sha256", SHA256: sum}
		for _, pv := range t.specs[i].Prompts {
			if pv.SHA256 == sum {
				m.Commit = pv.Commit
				break
			}
		}
		return m, true
	}
	s := string(text)
	var found []string
	for _, p := range t.specs {
		if hasMarkers(s, p.Markers) {
			found = append(found, p.ID)
		}
	}
	if len(found) == 1 {
		return PromptMatch{Policy: found[0], By: "markers", SHA256: sum}, true
	}
	// no version's markers, or several (an edited prompt carrying the
	// words of two versions): unknown, never a guess
	return PromptMatch{SHA256: sum, Ambiguous: found}, false
}

func hasMarkers(s string, m Markers) bool {
	if len(m.All) == 0 {
		return false
	}
	for _, a := range m.All {
		if !strings.Contains(s, a) {
			return false
		}
	}
	for _, n := range m.None {
		if strings.Contains(s, n) {
			return false
		}
	}
	return true
}

// IdentifyPrompt returns the id of the policy a sign-off verifier prompt
// text states (MatchPrompt: by content hash, tolerant to trailing
// whitespace, else by marker phrases); ok is false when unknown.
func IdentifyPrompt(text []byte) (id string, ok bool) {
	m, ok := MatchPrompt(text)
	return m.Policy, ok
}

// PromptFromWorkflow extracts the verifier prompt embedded in a GitHub
// workflow (.github/workflows/codeowner-signoff-verify.yml before
// InferenceX a2b54b81, 2026-07-10, moved it to
// .github/codeowner-signoff-verify-prompt.md): the longest `with.prompt`
// of any step of any job. From a2b54b81 on the workflow's prompt is a short
// pointer to the rendered template: read the .md file instead. Errors:
// YAML syntax, no step with a prompt.
func PromptFromWorkflow(data []byte) ([]byte, error) {
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				With map[string]any `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return nil, fmt.Errorf("workflow: %w", err)
	}
	best := ""
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			if p, ok := s.With["prompt"].(string); ok && len(p) > len(best) {
				best = p
			}
		}
	}
	if best == "" {
		return nil, fmt.Errorf("workflow: no step has a with.prompt")
	}
	return []byte(best), nil
}

// ForPolicy returns the rule set of policy id (an id or alias, see
// PolicyByID): the rules of exclusions/rules.yaml whose policy key the
// version lists, reporting the version's rule policy (PolicyVersion).
// Errors: invalid embedded data, an unknown id.
func ForPolicy(id string) (*Set, error) {
	spec, err := PolicyByID(id)
	if err != nil {
		return nil, err
	}
	all, err := allRules()
	if err != nil {
		return nil, err
	}
	return all.forPolicy(spec), nil
}

var allRules = sync.OnceValues(func() (*Set, error) { return Parse("exclusions/rules.yaml", rulesYAML) })

// forPolicy filters s to the rules spec lists.
func (s *Set) forPolicy(spec PolicySpec) *Set {
	keep := map[string]bool{}
	for _, k := range spec.Rules {
		keep[k] = true
	}
	out := &Set{name: s.name, version: s.version, policy: spec.RulePolicy, policies: s.policies, spec: spec.ID}
	for _, r := range s.rules {
		if !keep[r.Policy] {
			continue
		}
		if r.Class == ClassProhibited {
			out.prohibited = append(out.prohibited, len(out.rules))
		}
		out.rules = append(out.rules, r)
	}
	out.index()
	return out
}

// PolicyID returns the id of the policy version the set was built for
// (ForPolicy, Default), "" for a set read with Parse.
func (s *Set) PolicyID() string { return s.spec }

// DefaultPolicy returns the rules.yaml policy key rules without their own
// follow in this set (the version's rule policy for ForPolicy and Default).
func (s *Set) DefaultPolicy() string { return s.policy }
