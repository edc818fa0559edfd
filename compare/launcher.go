package compare

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

//go:embed launcher.yaml
var launcherYAML []byte

// LauncherRule describes a process a launcher starts for every job, whatever
// the recipe asks for (compare/launcher.yaml): NATS started by srt-slurm's
// setup_head.py, the frontend srt-slurm always puts on port 8000. When such
// a process is on the recipe side only, the cookbook omitting it is
// informational unless a process of either deployment needs it (NeededBy)
// or it carries a recipe-set setting no exclusion rule classifies.
// Source: InferenceX Check 3(c) (harness plumbing is not required upstream;
// shared/spec/inferencex.md (d), (e)) and shared/spec/srt-slurm.md §6.
type LauncherRule struct {
	ID     string `yaml:"id"`
	Reason string `yaml:"reason"`
	Source string `yaml:"source"`
	// Policy is a key of exclusions' policies (the revision the rule follows).
	Policy string `yaml:"policy"`
	// Role is the compare role (nats, frontend, …); Kinds the process kinds
	// covered (empty = any).
	Role  string        `yaml:"role"`
	Kinds []launch.Kind `yaml:"kinds"`
	// Origins are the process origin kinds that mark it as started by the
	// launcher; OriginPaths, when set, the origin paths allowed.
	Origins     []launch.OriginKind `yaml:"origins"`
	OriginPaths []string            `yaml:"originPaths"`
	// MaxWorkers > 0 limits the rule to recipe deployments running at most
	// that many worker instances.
	MaxWorkers int `yaml:"maxWorkers"`
	// NeededBy lists settings that show a process uses this one.
	NeededBy []NeedMatch `yaml:"neededBy"`
}

// NeedMatch is one setting that shows a process needs a launcher-started
// one: a flag (normalized name) or an env var, with an optional value glob
// ('*' any text, '?' one character; matched against the raw and the
// normalized value) and origin kinds that do not count (e.g. "injected":
// NATS_SERVER exported by srt-slurm into every worker is not a use).
type NeedMatch struct {
	Flag       string              `yaml:"flag"`
	Env        string              `yaml:"env"`
	Value      string              `yaml:"value"`
	NotOrigins []launch.OriginKind `yaml:"notOrigins"`

	value *regexp.Regexp
}

// LauncherRules is the parsed launcher.yaml.
type LauncherRules struct {
	Rules []LauncherRule `yaml:"launcherProcesses"`
}

var defaultLauncherRules = sync.OnceValues(func() (*LauncherRules, error) {
	return ParseLauncherRules("compare/launcher.yaml", launcherYAML)
})

// DefaultLauncherRules returns the embedded launcher-process rules, parsed
// once.
func DefaultLauncherRules() (*LauncherRules, error) { return defaultLauncherRules() }

// ParseLauncherRules reads launcher-process rules. Errors: YAML syntax or
// unknown keys, a rule without id/role/reason/policy/origins, a neededBy
// entry with neither or both of flag and env, a bad value glob.
func ParseLauncherRules(name string, data []byte) (*LauncherRules, error) {
	var lr LauncherRules
	if err := decodeStrict(name, data, &lr); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range lr.Rules {
		r := &lr.Rules[i]
		where := fmt.Sprintf("%s: launcherProcesses[%d]", name, i)
		if r.ID == "" || r.Role == "" || r.Reason == "" || r.Policy == "" || len(r.Origins) == 0 {
			return nil, fmt.Errorf("%s: id, role, reason, policy and origins are required", where)
		}
		if seen[r.ID] {
			return nil, fmt.Errorf("%s: duplicate id %q", where, r.ID)
		}
		seen[r.ID] = true
		for j := range r.NeededBy {
			n := &r.NeededBy[j]
			if (n.Flag == "") == (n.Env == "") {
				return nil, fmt.Errorf("%s.neededBy[%d]: want exactly one of flag and env", where, j)
			}
			if n.Value != "" {
				re, err := regexp.Compile("^" + strings.NewReplacer(`\*`, ".*", `\?`, ".").Replace(regexp.QuoteMeta(n.Value)) + "$")
				if err != nil {
					return nil, fmt.Errorf("%s.neededBy[%d]: value %q: %v", where, j, n.Value, err)
				}
				n.value = re
			}
		}
	}
	return &lr, nil
}

// check verifies that every rule's policy is one of ex's.
func (lr *LauncherRules) check(ex *exclusions.Set) error {
	for _, r := range lr.Rules {
		if _, ok := ex.Policy(r.Policy); !ok {
			return fmt.Errorf("compare/launcher.yaml: rule %s: unknown policy %q", r.ID, r.Policy)
		}
	}
	return nil
}

// applies finds the rule for a process p of role that is only in rc.
func (lr *LauncherRules) applies(role string, p *launch.Process, rc *launch.Deployment) *LauncherRule {
	for i := range lr.Rules {
		r := &lr.Rules[i]
		if r.Role != role || (len(r.Kinds) > 0 && !slices.Contains(r.Kinds, p.Kind)) ||
			!slices.Contains(r.Origins, p.Origin.Kind) {
			continue
		}
		if len(r.OriginPaths) > 0 && p.Origin.Kind != launch.OriginInjected && !slices.Contains(r.OriginPaths, p.Origin.Path) {
			continue
		}
		if r.MaxWorkers > 0 && workerInstances(rc) > r.MaxWorkers {
			continue
		}
		return r
	}
	return nil
}

// workerInstances counts the worker instances of d (Workers, 0 = 1).
func workerInstances(d *launch.Deployment) int {
	n := 0
	for i := range d.Processes {
		if p := &d.Processes[i]; p.Kind == launch.KindWorker {
			n += max(p.Workers, 1)
		}
	}
	return n
}

// needs lists what makes the launcher-started process p necessary: settings
// of any process of cb or rc matching the rule's neededBy, and settings of p
// itself that the recipe asked for (origin not injected) and that no
// exclusion rule classifies. Empty: p is launcher plumbing.
func (r *LauncherRule) needs(rules *Rules, ex *exclusions.Set, cb, rc *launch.Deployment, p *launch.Process, role string) []string {
	return r.needsIn(rules, ex, []side{{"cookbook", cb}, {"recipe", rc}}, rc, p, role)
}

// side is a named deployment ("cookbook", "recipe").
type side struct {
	name string
	d    *launch.Deployment
}

// needsIn is needs over the deployments sides (p belongs to rc).
func (r *LauncherRule) needsIn(rules *Rules, ex *exclusions.Set, sides []side, rc *launch.Deployment, p *launch.Process, role string) []string {
	var out []string
	for _, side := range sides {
		for i := range side.d.Processes {
			q := &side.d.Processes[i]
			engine := engineOf(side.d, q)
			where := side.name + " " + roleOf(q)
			for _, a := range q.Args {
				flag, vals := a.Flag, a.Values
				if j := strings.IndexByte(flag, '='); j > 0 && strings.HasPrefix(flag, "-") {
					vals = append([]string{flag[j+1:]}, vals...)
					flag = flag[:j]
				}
				if flag == "" {
					continue
				}
				flag = rules.Flag(engine, flag)
				v := strings.Join(vals, " ")
				for _, n := range r.NeededBy {
					if n.Flag != "" && n.Flag == flag && n.match(v, rules.Value(flag, v), a.Origin.Kind) {
						out = append(out, fmt.Sprintf("%s %s %s", where, flag, v))
					}
				}
			}
			for _, e := range q.Env {
				name, v := rules.Env(e.Name, e.Value)
				for _, n := range r.NeededBy {
					if n.Env != "" && (n.Env == e.Name || n.Env == name) && n.match(e.Value, v, e.Origin.Kind) {
						out = append(out, fmt.Sprintf("%s env %s=%s", where, e.Name, e.Value))
					}
				}
			}
		}
	}
	// the process's own recipe-set settings
	engine := engineOf(rc, p)
	norm := rules.NormalizeProcess(p, engine, hfOf(rc))
	for _, k := range norm.Order {
		s := norm.Settings[k]
		if s.Kind == "field" && s.Parent == "" || allInjected(s.Origins) {
			continue // the process's shape (program, count), or launcher plumbing
		}
		rule, ok := ex.Match(exSetting(s, s.Value, engine, role))
		if ok && rule.Class != exclusions.ClassProhibited && !(rule.Class == exclusions.ClassPlacement && rule.MustMatch) {
			continue
		}
		out = append(out, fmt.Sprintf("recipe sets %s %s on it", k, s.Value))
	}
	return out
}

func (n *NeedMatch) match(raw, norm string, origin launch.OriginKind) bool {
	if slices.Contains(n.NotOrigins, origin) {
		return false
	}
	return n.value == nil || n.value.MatchString(strings.TrimSpace(raw)) || n.value.MatchString(norm)
}

func allInjected(os []launch.Origin) bool {
	for _, o := range os {
		if o.Kind != launch.OriginInjected {
			return false
		}
	}
	return len(os) > 0
}
