// Package compare pairs the upstream documentation's Deployment (an SGLang
// cookbook snippet or page, a vLLM recipe) with the effective InferenceX
// recipe's Deployment role by role and judges InferenceX Check 3 coverage:
// for every role (agg, prefill and decode workers, the router/frontend, and the services etcd, NATS,
// nginx and Mooncake) it normalizes both processes' settings (see
// normalize.yaml), compares them, classifies every difference with the
// exclusion rules (package exclusions) and gives a Verdict.
//
// Rules implemented: SemiAnalysisAI/InferenceX
// .github/codeowner-signoff-verify-prompt.md (09813166…) Check 3(c)
// "Settings match" and its normalization notes, as summarized in
// ../shared/spec/inferencex.md (d) and (e).
package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Difference is a production-useful setting that is missing on one side or
// has different values. The sides are named neutrally for every source:
// Upstream is the upstream documentation's value (an SGLang cookbook page or
// AgentX snippet, a vLLM recipe), InferenceX the effective InferenceX
// recipe's. A side is nil when the setting is absent there; "" is a bare
// flag.
type Difference struct {
	Setting    string          `json:"setting"`
	Upstream   *string         `json:"upstream"`
	InferenceX *string         `json:"inferencex"`
	Origins    []launch.Origin `json:"origins,omitempty"`
	// Diff is a character diff of the two values ("[-old-]{+new+}"), set when
	// both are present and long (JSON, lists).
	Diff string `json:"diff,omitempty"`
	// Note qualifies the difference for a reader, e.g. "possible commit
	// drift: prov.sha 76ff8a6f is not in --infx".
	Note string `json:"note,omitempty"`
}

// Exclusion is a setting a rule took out of the comparison (Excluded), a
// judgment-class difference (Info) or a prohibited setting (Prohibited).
type Exclusion struct {
	Setting    string           `json:"setting"`
	Upstream   *string          `json:"upstream"`
	InferenceX *string          `json:"inferencex"`
	Rule       string           `json:"rule"`
	Class      exclusions.Class `json:"class"`
	Reason     string           `json:"reason"`
	// Policy is the key of the policy revision the rule follows
	// (Report.Policy.Policies).
	Policy  string          `json:"policy"`
	Origins []launch.Origin `json:"origins,omitempty"`
}

// Result is the comparison of one role of one (upstream documentation,
// effective InferenceX recipe) pair of deployments.
type Result struct {
	Upstream   launch.Source `json:"-"`
	InferenceX launch.Source `json:"-"`
	// Role is agg, prefill, decode, frontend, etcd, nats, nginx,
	// mooncake-master or mooncake-store; Index numbers several processes of
	// one role (0-based, in launch order).
	Role  string `json:"role"`
	Index int    `json:"index,omitempty"`
	// Verdict is the role's judgement.
	Verdict Verdict `json:"verdict"`
	// Matched counts settings equal on both sides (after normalization).
	Matched     int          `json:"matched"`
	Differences []Difference `json:"differences,omitempty"`
	Excluded    []Exclusion  `json:"excluded,omitempty"`
	Info        []Exclusion  `json:"info,omitempty"`
	Prohibited  []Exclusion  `json:"prohibited,omitempty"`
	// Unknown are the settings whose value is not known on one side (an
	// srt-slurm /configs/ file without the srt-slurm checkout): not
	// compared, so the role is at best ContentNotKnown (not verified).
	Unknown []Difference `json:"unknown,omitempty"`
	// Note explains a missing role ("only in the InferenceX recipe").
	Note string `json:"note,omitempty"`
}

// Options tunes Compare.
type Options struct {
	// Exclusions classifies differences; nil means exclusions.Default().
	Exclusions *exclusions.Set
	// Rules is the normalization data; nil means DefaultRules().
	Rules *Rules
	// Launcher lists the processes a launcher starts for every job
	// (compare/launcher.yaml); nil means DefaultLauncherRules().
	Launcher *LauncherRules
	// Strictness, when set, is the policy version's test of which settings
	// count (exclusions.PolicySpec.Counts: under a "major server args"
	// policy only deployment-defining ones): a difference no rule
	// classifies in a setting that does not count is informational
	// (StrictnessRule), not a gap. nil: every setting counts.
	Strictness Strictness
	// OnSetting, when set, is called once for every setting of every role
	// pair compared (after normalization and the file pass, before any
	// rule classifies it), in comparison order: an inventory of what a run
	// compares (the policy class table, exclusions/testdata). It must not
	// keep the Seen's pointers.
	OnSetting func(Seen)
}

// Seen is one setting of a compared role pair (Options.OnSetting): the
// normalized key ("--attention-backend", "env NAME", "workers"), its kind
// (flag | env | field) and name, and each side's normalized value (nil:
// absent on that side). ConfigKey is the InferenceX master-config key of
// the comparison when either deployment's Source names it ("" otherwise).
type Seen struct {
	ConfigKey  string
	Role       string
	Key        string
	Kind, Name string
	Upstream   *string
	InferenceX *string
}

// Strictness is a policy version's strictness. Classify says whether a
// difference in the setting with normalized key key ("--attention-backend",
// "env NAME", "workers", "image") and the sides' normalized values counts
// against coverage (major) or is informational, naming the policy rule that
// decided and the sentence of the policy text it implements; PolicyName
// names the version. exclusions.PolicySpec implements it.
type Strictness interface {
	Classify(key string, values ...string) exclusions.StrictClass
	PolicyName() string
}

// StrictnessRule is the rule id of a difference a policy version does not
// count (Options.Strictness).
const StrictnessRule = "policy-not-major"

// roleOrder is the order results are returned in.
func roleOrder() []string {
	return []string{"agg", "prefill", "decode", "frontend", "etcd", "nats", "nginx", "mooncake-master", "mooncake-store"}
}

// rolesOf is roleOrder followed by every other role present on either
// side (a service kind the launcher starts that compare has no place for:
// the schema-2 services registry's generic services, exporters, …), sorted:
// a role is never left out of the comparison.
func rolesOf(a, b map[string][]*launch.Process) []string {
	out := roleOrder()
	known := map[string]bool{}
	for _, r := range out {
		known[r] = true
	}
	var extra []string
	for _, m := range []map[string][]*launch.Process{a, b} {
		for r := range m {
			if !known[r] {
				known[r] = true
				extra = append(extra, r)
			}
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

func roleOf(p *launch.Process) string {
	switch {
	case p.Kind == launch.KindWorker:
		if p.Role == launch.RoleNone {
			return string(launch.RoleAgg)
		}
		return string(p.Role)
	case p.Kind.IsFrontend():
		return "frontend"
	}
	return string(p.Kind)
}

// ruleRole is the role name the exclusion rules use ("mooncake" for both
// Mooncake kinds).
func ruleRole(role string) string {
	if strings.HasPrefix(role, "mooncake") {
		return "mooncake"
	}
	return role
}

func engineOf(d *launch.Deployment, p *launch.Process) string {
	switch p.Kind {
	case launch.KindWorker:
		if d.Engine != "" {
			return d.Engine
		}
		return "sglang"
	case launch.KindDynamoFrontend:
		return "dynamo"
	case launch.KindSGLangRouter:
		return "sglang-router"
	case launch.KindVLLMRouter:
		return "vllm-router"
	}
	return string(p.Kind)
}

// withInherited returns the recipe deployment with the harness env every
// process inherits (Deployment.Inherited) added to each worker's env where
// the worker does not set it, except the variables an excluding rule
// classifies (harness, collection, synthetic acceptance, placement, each
// with its consumer): those are the same plumbing for every point and stay
// out of the comparison and the report. A production setting the workflow
// gives every script is thus compared like one the script sets.
func withInherited(rc *launch.Deployment, ex *exclusions.Set) *launch.Deployment {
	if len(rc.Inherited) == 0 {
		return rc
	}
	out := *rc
	out.Processes = append([]launch.Process(nil), rc.Processes...)
	for i := range out.Processes {
		p := &out.Processes[i]
		if p.Kind != launch.KindWorker {
			continue
		}
		set := map[string]bool{}
		for _, e := range p.Env {
			set[e.Name] = true
		}
		env := append([]launch.EnvVar(nil), p.Env...)
		for _, e := range rc.Inherited {
			if set[e.Name] {
				continue
			}
			if r, ok := ex.Match(exclusions.Setting{Kind: exclusions.KindEnv, Name: e.Name, Value: e.Value, Engine: engineOf(rc, p), Role: roleOf(p)}); ok &&
				(r.Class.Excluded() || r.Class == exclusions.ClassPlacement) {
				continue
			}
			env = append(env, e)
		}
		p.Env = env
	}
	return &out
}

// Compare pairs up (the upstream documentation's deployment: the measured
// cookbook selection, a vLLM recipe role) with ix (the effective InferenceX
// recipe's deployment) by role and returns one Result per role present on
// either side, in the order agg, prefill, decode, frontend, etcd, nats,
// nginx, mooncake-master, mooncake-store. Errors only when the embedded
// exclusion or normalization data is invalid.
func Compare(up, ix *launch.Deployment, opt Options) ([]Result, error) {
	cb, rc := up, ix
	ex := opt.Exclusions
	if ex == nil {
		var err error
		if ex, err = exclusions.Default(); err != nil {
			return nil, err
		}
	}
	rules := opt.Rules
	if rules == nil {
		var err error
		if rules, err = DefaultRules(); err != nil {
			return nil, err
		}
	}
	lr := opt.Launcher
	if lr == nil {
		var err error
		if lr, err = DefaultLauncherRules(); err != nil {
			return nil, err
		}
	}
	if err := lr.check(ex); err != nil {
		return nil, err
	}
	group := func(d *launch.Deployment) map[string][]*launch.Process {
		m := map[string][]*launch.Process{}
		for i := range d.Processes {
			p := &d.Processes[i]
			m[roleOf(p)] = append(m[roleOf(p)], p)
		}
		return m
	}
	rc = withInherited(rc, ex)
	cbRoles, rcRoles := group(cb), group(rc)
	// The request entry point decides which services a deployment uses
	// (etcd/NATS only behind Dynamo); the recipe's is what ran.
	fe := frontendEngine(rc)
	if fe == "" {
		fe = frontendEngine(cb)
	}
	if fe == "" {
		fe = "none" // workers serve directly (single-node SGLang)
	}
	var out []Result
	for _, role := range rolesOf(cbRoles, rcRoles) {
		cs, rs := cbRoles[role], rcRoles[role]
		for i := 0; i < max(len(cs), len(rs)); i++ {
			res := Result{Upstream: cb.Source, InferenceX: rc.Source, Role: role, Index: i}
			switch {
			case i >= len(cs):
				res.Note = fmt.Sprintf("%s: only in the InferenceX recipe (%s)", role, strings.TrimSpace(rs[i].Program))
				missing(&res, ex, fe, false)
				if res.Verdict == Missing {
					launcherProcess(&res, lr, rules, ex, cb, rc, rs[i])
				}
				// a prohibited setting on the recipe side is still reported
				checkProhibited(&res, rules.NormalizeProcess(rs[i], engineOf(rc, rs[i]), hfOf(rc)), false, engineOf(rc, rs[i]), ex)
			case i >= len(rs):
				res.Note = fmt.Sprintf("%s: only in the upstream documentation (%s)", role, strings.TrimSpace(cs[i].Program))
				missing(&res, ex, fe, true)
				checkProhibited(&res, rules.NormalizeProcess(cs[i], engineOf(cb, cs[i]), hfOf(cb)), true, engineOf(cb, cs[i]), ex)
			default:
				comparePair(&res, rules, ex, opt, cb, cs[i], rc, rs[i])
				unusedService(&res, lr, rules, ex, cb, rc, rs[i])
			}
			out = append(out, res)
		}
	}
	return out, nil
}

// frontendEngine names the first frontend of d ("dynamo", "sglang-router",
// …), "" when d has none.
func frontendEngine(d *launch.Deployment) string {
	for i := range d.Processes {
		if p := &d.Processes[i]; p.Kind.IsFrontend() {
			return engineOf(d, p)
		}
	}
	return ""
}

// missing judges a role present on one side only: Missing, unless a rule
// classifies the role's presence (field "present", engine = the frontend
// that ran), e.g. etcd/NATS that srtctl starts but the SGLang router never
// uses.
func missing(res *Result, ex *exclusions.Set, frontend string, cookbookSide bool) {
	res.Verdict = Missing
	yes := "yes"
	st := exclusions.Setting{Kind: exclusions.KindField, Name: "present", Value: yes, Engine: frontend, Role: ruleRole(res.Role)}
	r, ok := ex.Match(st)
	if !ok || r.Class == exclusions.ClassProhibited || r.Class == exclusions.ClassPlacement && r.MustMatch {
		return
	}
	e := Exclusion{Setting: "present", Rule: r.ID, Class: r.Class, Reason: r.Reason, Policy: r.Policy}
	if cookbookSide {
		e.Upstream = &yes
	} else {
		e.InferenceX = &yes
	}
	if r.Class == exclusions.ClassJudgment {
		res.Info = append(res.Info, e)
	} else {
		res.Excluded = append(res.Excluded, e)
	}
	res.Verdict = CoveredWithExclusions
}

// launcherProcess judges a process only in the recipe that the launcher
// starts for every job (compare/launcher.yaml): informational (judgment,
// covered-with-exclusions) when nothing needs it, else still Missing with
// the note naming what needs it.
func launcherProcess(res *Result, lr *LauncherRules, rules *Rules, ex *exclusions.Set, cb, rc *launch.Deployment, p *launch.Process) {
	r := lr.applies(res.Role, p, rc)
	if r == nil {
		return
	}
	if needs := r.needs(rules, ex, cb, rc, p, res.Role); len(needs) > 0 {
		res.Note += "; started by the launcher but needed: " + strings.Join(needs, "; ")
		return
	}
	yes := "yes"
	res.Info = append(res.Info, Exclusion{Setting: "present", InferenceX: &yes, Rule: r.ID, Class: exclusions.ClassJudgment,
		Reason: r.Reason, Policy: r.Policy, Origins: []launch.Origin{p.Origin}})
	res.Verdict = CoveredWithExclusions
}

func hfOf(d *launch.Deployment) string {
	if looksHF(d.Model) {
		return d.Model
	}
	return ""
}

func checkProhibited(res *Result, n *Normalized, cookbookSide bool, engine string, ex *exclusions.Set) {
	for _, k := range n.Order {
		s := n.Settings[k]
		r, ok := ex.MatchProhibited(exSetting(s, s.Value, engine, res.Role))
		if !ok {
			continue
		}
		e := Exclusion{Setting: k, Rule: r.ID, Class: r.Class, Reason: r.Reason, Policy: r.Policy, Origins: s.Origins}
		v := s.Value
		if cookbookSide {
			e.Upstream = &v
		} else {
			e.InferenceX = &v
		}
		res.Prohibited = append(res.Prohibited, e)
		res.Verdict = Prohibited
	}
}

func exSetting(s *Setting, value, engine, role string) exclusions.Setting {
	return exclusions.Setting{Kind: exclusions.SettingKind(s.Kind), Name: s.Name, Value: value, Engine: engine, Role: ruleRole(role)}
}

// configKeyOf is the master-config key either deployment's Source names
// (the InferenceX side first), "" when neither does.
func configKeyOf(cb, rc *launch.Deployment) string {
	if rc.Source.ConfigKey != "" {
		return rc.Source.ConfigKey
	}
	return cb.Source.ConfigKey
}

// presentValues lists the values of the sides that have the setting.
func presentValues(cv, rv *string) []string {
	var out []string
	for _, v := range []*string{cv, rv} {
		if v != nil {
			out = append(out, *v)
		}
	}
	return out
}

func comparePair(res *Result, rules *Rules, ex *exclusions.Set, opt Options, cb *launch.Deployment, cp *launch.Process, rc *launch.Deployment, rp *launch.Process) {
	strict := opt.Strictness
	// Resolve model paths on each side with the other side's id when a side
	// does not know its own (a recipe's /model/ and no served name).
	cbHF, rcHF := hfOf(cb), hfOf(rc)
	cn := rules.NormalizeProcess(cp, engineOf(cb, cp), cbHF)
	rn := rules.NormalizeProcess(rp, engineOf(rc, rp), rcHF)
	rules.alignJSONModels(cn, rn)
	engine := engineOf(cb, cp)
	addDynamoInstall(res, cn, rn, cp, rp)
	addImage(cn, rn, cp, rp)

	keys := append([]string(nil), cn.Order...)
	for _, k := range rn.Order {
		if _, ok := cn.Settings[k]; !ok {
			keys = append(keys, k)
		}
	}
	// Services are compared like workers: program, arguments, env, count
	// (spec/srt-slurm.md §10b); addresses and ports are placement rules.
	byName := filePass(res, cn, rn, keys)
	verdict := Covered
	for _, k := range keys {
		c, r := cn.Settings[k], rn.Settings[k]
		if c == nil && r == nil {
			continue // dropped by filePass
		}
		if c != nil && r != nil && c.Value == r.Value && !c.Unknown && !r.Unknown && !byName[k] && k != imageKey && opt.OnSetting == nil {
			// the common case, first and without copies: both sides set,
			// known and equal — a match unless prohibited, as the steps
			// below would find (the image is judged by its own rules)
			if _, bad := matchProhibited(ex, r, &c.Value, &r.Value, engine, res.Role); !bad {
				res.Matched++
				continue
			}
		}
		var cv, rv *string
		var origins []launch.Origin
		var s *Setting
		if c != nil {
			v := c.Value
			if byName[k] {
				v = c.File
			}
			cv, s = &v, c
			origins = append(origins, c.Origins...)
		}
		if r != nil {
			v := r.Value
			if byName[k] {
				v = r.File
			}
			rv, s = &v, r
			origins = append(origins, r.Origins...)
		}
		if opt.OnSetting != nil {
			opt.OnSetting(Seen{ConfigKey: configKeyOf(cb, rc), Role: res.Role, Key: k, Kind: s.Kind, Name: s.Name, Upstream: cv, InferenceX: rv})
		}
		// prohibited wherever it appears, equal or not
		if rule, ok := matchProhibited(ex, s, cv, rv, engine, res.Role); ok {
			res.Prohibited = append(res.Prohibited, Exclusion{Setting: k, Upstream: cv, InferenceX: rv, Rule: rule.ID, Class: rule.Class, Reason: rule.Reason, Policy: rule.Policy, Origins: origins})
			verdict = Worse(verdict, Prohibited)
			continue
		}
		if c != nil && c.Unknown || r != nil && r.Unknown {
			// a value that is not known is neither a match nor a gap
			why := ""
			if c != nil && c.UnknownWhy != "" {
				why = c.UnknownWhy
			} else if r != nil {
				why = r.UnknownWhy
			}
			res.Unknown = append(res.Unknown, Difference{Setting: k, Upstream: cv, InferenceX: rv, Origins: origins, Note: why})
			verdict = Worse(verdict, ContentNotKnown)
			continue
		}
		note, ruleS := "", s
		if k == imageKey && c != nil && r != nil {
			// the worker's image: repository, tag and digest (image.go)
			iv := judgeImage(ParseImage(c.Raw), ParseImage(r.Raw), engine)
			switch iv.judgement {
			case imageSame:
				res.Matched++
				continue
			case imageInfo:
				pol := ""
				if ex != nil {
					pol = ex.DefaultPolicy()
				}
				res.Info = append(res.Info, Exclusion{Setting: k, Upstream: cv, InferenceX: rv, Rule: iv.rule, Class: exclusions.ClassJudgment,
					Reason: iv.text, Policy: pol, Origins: origins})
				verdict = Worse(verdict, CoveredWithExclusions)
				continue
			}
			note = iv.text
			if iv.field != imageKey {
				// classified as its own field (image.version: the build
				// of one repository), reported as the image
				cp := *s
				cp.Name = iv.field
				ruleS = &cp
			}
		}
		same := func(cv, rv *string) bool {
			return cv != nil && rv != nil && (*cv == *rv || !s.Literal && !(c != nil && c.Literal) && Equal(*cv, *rv) || rules.sameModel(k, *cv, *rv))
		}
		if same(cv, rv) {
			res.Matched++
			continue
		}
		// a rule of scope side takes out only the value it matches; what
		// is left is compared with that side's production path
		if sd, ok := dropSides(ex, s, r, cv, rv, engine, res.Role); ok {
			res.Excluded = append(res.Excluded, Exclusion{Setting: k, Upstream: sd.upstream, InferenceX: sd.inferencex, Rule: sd.rule.ID, Class: sd.rule.Class,
				Reason: sd.rule.Reason, Policy: sd.rule.Policy, Origins: origins})
			verdict = Worse(verdict, CoveredWithExclusions)
			cv, rv = sd.cv, sd.rv
			if note == "" {
				note = sd.note
			} else if sd.note != "" {
				note += "; " + sd.note
			}
			if cv == nil && rv == nil {
				continue
			}
			if same(cv, rv) {
				res.Matched++
				continue
			}
		}
		// a flag at its cited engine default on one side, absent on the other (defaults.go)
		if e, ok := citedDefault(ex, engine, s, k, cv, rv, origins, cp, rp); ok {
			if note != "" {
				e.Reason = note + "; " + e.Reason
			}
			res.Info = append(res.Info, e)
			verdict = Worse(verdict, CoveredWithExclusions)
			continue
		}
		// --quantization on one side equal to what the other side's
		// checkpoint implies (checkpoint_quant.go)
		if e, ok := checkpointQuantization(ex, engine, k, cv, rv, origins, cp, rp, cn, rn, cbHF, rcHF); ok {
			res.Info = append(res.Info, e)
			verdict = Worse(verdict, CoveredWithExclusions)
			continue
		}
		rule, ruled := matchEither(ex, ruleS, cv, rv, engine, res.Role)
		if !ruled && strict != nil {
			sc := strict.Classify(k, presentValues(cv, rv)...)
			why := sc.Explain(strict.PolicyName())
			if note != "" {
				why = note + "; " + why
			}
			if !sc.Major {
				// the policy version compares deployment-defining settings only
				res.Info = append(res.Info, Exclusion{Setting: k, Upstream: cv, InferenceX: rv, Rule: StrictnessRule, Class: exclusions.ClassJudgment,
					Reason: why, Policy: strict.PolicyName(), Origins: origins})
				verdict = Worse(verdict, CoveredWithExclusions)
				continue
			}
			note = why
		}
		if !ruled {
			res.Differences = append(res.Differences, Difference{Setting: k, Upstream: cv, InferenceX: rv, Origins: origins, Diff: textDiff(cv, rv), Note: note})
			verdict = Worse(verdict, Differs)
			continue
		}
		e := Exclusion{Setting: k, Upstream: cv, InferenceX: rv, Rule: rule.ID, Class: rule.Class, Reason: joinNote(rule.Reason, note), Policy: rule.Policy, Origins: origins}
		switch {
		case rule.Class == exclusions.ClassPlacement && rule.MustMatch && !(rule.WhenBoth && (cv == nil || rv == nil)):
			res.Differences = append(res.Differences, Difference{Setting: k, Upstream: cv, InferenceX: rv, Origins: origins, Diff: textDiff(cv, rv), Note: note})
			verdict = Worse(verdict, Differs)
		case rule.Class == exclusions.ClassJudgment:
			res.Info = append(res.Info, e)
			verdict = Worse(verdict, CoveredWithExclusions)
		default:
			res.Excluded = append(res.Excluded, e)
			verdict = Worse(verdict, CoveredWithExclusions)
		}
	}
	res.Verdict = verdict
	sortDiffs(res)
}

// sideDrop is what the exclusions of scope side (exclusions.ScopeSide) leave
// of a setting's two values: cv and rv, the values still compared; upstream
// and inferencex, the values taken out (nil for a side left as it was);
// rule, the rule that took them out (InferenceX's when both sides matched);
// note, for the reader, what InferenceX's value was compared as.
type sideDrop struct {
	cv, rv               *string
	upstream, inferencex *string
	rule                 *exclusions.Rule
	note                 string
}

// dropSides applies the exclusions of scope side to one setting (cookbook-
// sync issue 22 item 4): a side whose value the first matching rule of s
// matches with scope side loses that value, and InferenceX's is replaced by
// its production-path value — the value a harness step replaced
// (Setting.Production, when r.HarnessBy is set) unless that value is itself
// taken out by a side rule, else absent. The upstream side has no other
// value than the one it documents: a dropped upstream value leaves it
// absent. ok is false when no side rule matches either side (rules of scope
// pair are applied later, to the pair: matchEither).
func dropSides(ex *exclusions.Set, s, r *Setting, cv, rv *string, engine, role string) (sideDrop, bool) {
	side := func(v *string) *exclusions.Rule {
		if v == nil {
			return nil
		}
		if rule, ok := ex.Match(exSetting(s, *v, engine, role)); ok && rule.Side() {
			return rule
		}
		return nil
	}
	d := sideDrop{cv: cv, rv: rv}
	if rule := side(cv); rule != nil {
		d.upstream, d.cv, d.rule = cv, nil, rule
		d.note = fmt.Sprintf("the upstream documents %s, harness-only (%s, excluded)", Shown(cv), rule.ID)
	}
	if rule := side(rv); rule != nil {
		d.inferencex, d.rule = rv, rule
		d.rv = nil
		prod := "which does not set it"
		if r != nil && r.HarnessBy != "" {
			if r.Production != nil && side(r.Production) == nil {
				d.rv = r.Production
				prod = "which sets " + Shown(r.Production)
			}
			prod += " (before " + r.HarnessBy + ")"
		}
		ixNote := fmt.Sprintf("InferenceX runs %s for the benchmark, harness-only (%s, excluded); compared with its production path, %s", Shown(rv), rule.ID, prod)
		if d.note != "" {
			ixNote = d.note + "; " + ixNote
		}
		d.note = ixNote
	}
	return d, d.rule != nil
}

// joinNote appends a qualifying note to a reason ("; " between them).
func joinNote(reason, note string) string {
	if note == "" {
		return reason
	}
	return reason + "; " + note
}

func matchProhibited(ex *exclusions.Set, s *Setting, cv, rv *string, engine, role string) (*exclusions.Rule, bool) {
	for _, v := range []*string{rv, cv} {
		if v == nil {
			continue
		}
		if r, ok := ex.MatchProhibited(exSetting(s, *v, engine, role)); ok {
			return r, true
		}
	}
	return nil, false
}

// matchEither finds the rule for a setting, trying the recipe value then the
// cookbook value (value-selected rules such as @fabric.* match either side).
func matchEither(ex *exclusions.Set, s *Setting, cv, rv *string, engine, role string) (*exclusions.Rule, bool) {
	for _, v := range []*string{rv, cv} {
		if v == nil {
			continue
		}
		if r, ok := ex.Match(exSetting(s, *v, engine, role)); ok {
			return r, true
		}
	}
	return nil, false
}

// sortDiffs keeps flags first, then env, then fields; stable within a group
// (command order).
func sortDiffs(res *Result) {
	rank := func(k string) int {
		switch {
		case strings.HasPrefix(k, "-"):
			return 1
		case strings.HasPrefix(k, "env "):
			return 2
		}
		return 0
	}
	sort.SliceStable(res.Differences, func(i, j int) bool { return rank(res.Differences[i].Setting) < rank(res.Differences[j].Setting) })
	for _, xs := range [][]Exclusion{res.Excluded, res.Info, res.Prohibited} {
		sort.SliceStable(xs, func(i, j int) bool { return rank(xs[i].Setting) < rank(xs[j].Setting) })
	}
}

// textDiff renders a character diff of two long values with sergi/go-diff:
// deletions as [-text-], insertions as {+text+}.
func textDiff(a, b *string) string {
	if a == nil || b == nil || max(len(*a), len(*b)) < 40 {
		return ""
	}
	dmp := diffmatchpatch.New()
	ds := dmp.DiffCleanupSemantic(dmp.DiffMain(*a, *b, false))
	var sb strings.Builder
	for _, d := range ds {
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			sb.WriteString(d.Text)
		case diffmatchpatch.DiffDelete:
			sb.WriteString("[-" + d.Text + "-]")
		case diffmatchpatch.DiffInsert:
			sb.WriteString("{+" + d.Text + "+}")
		}
	}
	return sb.String()
}

// NormalizeIn normalizes process p of deployment d as Compare does: with
// p's engine (d.Engine for workers, the frontend's kind otherwise) and d's
// Hugging Face model id (model paths resolve to it).
func (r *Rules) NormalizeIn(d *launch.Deployment, p *launch.Process) *Normalized {
	return r.NormalizeProcess(p, engineOf(d, p), hfOf(d))
}

// Shown is a side's value as reports print it: "(absent)" when the
// setting is not set on that side (nil), "(set)" for a bare flag (""),
// else the value.
func Shown(v *string) string {
	switch {
	case v == nil:
		return "(absent)"
	case *v == "":
		return "(set)"
	}
	return *v
}
