package compare

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

//go:embed normalize.yaml
var normalizeYAML []byte

// Rules is the normalization data (compare/normalize.yaml): flag aliases per
// engine (the shared table launch/aliases.yaml, see launch.CanonicalFlag,
// plus the file's own aliases section), JSON-valued flags, model-path
// flags, boolean and unset spellings, program spellings. Immutable after
// load.
type Rules struct {
	// Aliases is engine -> canonical flag -> other spellings: the shared
	// launch.FlagAliases table merged with the file's aliases section.
	Aliases     map[string]map[string][]string `yaml:"aliases"`
	JSONFlags   []string                       `yaml:"jsonFlags"`
	ModelFlags  []string                       `yaml:"modelFlags"`
	TrueValues  []string                       `yaml:"trueValues"`
	FalseValues []string                       `yaml:"falseValues"`
	UnsetValues []string                       `yaml:"unsetValues"`
	Programs    map[string]string              `yaml:"programs"`
	FileFlags   []string                       `yaml:"fileFlags"`
	JSONSplit   map[string][]string            `yaml:"jsonSplitKeys"`
	// JSONModels is JSON-valued flag -> the keys of its object that name a
	// model (--speculative-config: model, the draft): a staged local copy
	// on one side equals the Hugging Face id on the other
	// (alignJSONModels).
	JSONModels  map[string][]string          `yaml:"jsonModelKeys"`
	EnvInverted map[string]string            `yaml:"envInverted"`
	EnvPrefix   map[string]string            `yaml:"envPrefixAliases"`
	Defaults    map[string]map[string]string `yaml:"defaults"`
	// ValueAliases is engine -> canonical flag -> value spelling ->
	// canonical value: two spellings the engine treats as one value
	// (SGLang's ServerArgs rewrites --speculative-algorithm NEXTN to
	// EAGLE).
	ValueAliases map[string]map[string]map[string]string `yaml:"valueAliases"`

	canon map[string]map[string]string // engine -> spelling -> canonical
	json  map[string]bool
	model map[string]bool
	file  map[string]bool
	// envBool: canonical env names compared as booleans
	envBool map[string]bool
	truth   map[string]string // spelling -> "true" | "false" | "unset"
}

var defaultRules = sync.OnceValues(func() (*Rules, error) {
	return ParseRules("compare/normalize.yaml", normalizeYAML)
})

// DefaultRules returns the embedded normalization data, parsed once.
func DefaultRules() (*Rules, error) { return defaultRules() }

// ParseRules reads normalization data. The flag aliases are the shared
// table (launch.FlagAliases) plus the data's own aliases section. Errors:
// YAML syntax or unknown keys, an alias that is not a flag, a spelling
// claimed by two canonical flags (in the data or against the shared table).
func ParseRules(name string, data []byte) (*Rules, error) {
	var r Rules
	if err := decodeStrict(name, data, &r); err != nil {
		return nil, err
	}
	shared := launch.FlagAliases()
	for eng, m := range r.Aliases {
		if shared[eng] == nil {
			shared[eng] = map[string][]string{}
		}
		for canon, alts := range m {
			shared[eng][canon] = append(shared[eng][canon], alts...)
		}
	}
	r.Aliases = shared
	r.canon = map[string]map[string]string{}
	for eng, m := range r.Aliases {
		c := map[string]string{}
		for canon, alts := range m {
			if !strings.HasPrefix(canon, "-") {
				return nil, fmt.Errorf("%s: aliases.%s: %q is not a flag", name, eng, canon)
			}
			for _, a := range alts {
				if !strings.HasPrefix(a, "-") {
					return nil, fmt.Errorf("%s: aliases.%s.%s: %q is not a flag", name, eng, canon, a)
				}
				if prev, dup := c[a]; dup && prev != canon {
					return nil, fmt.Errorf("%s: aliases.%s: %q is an alias of both %s and %s", name, eng, a, prev, canon)
				}
				c[a] = canon
			}
		}
		r.canon[eng] = c
	}
	r.json = set(r.JSONFlags)
	r.model = set(r.ModelFlags)
	r.file = set(r.FileFlags)
	r.envBool = map[string]bool{}
	for _, to := range r.EnvInverted {
		r.envBool[to] = true
	}
	r.truth = map[string]string{}
	for _, v := range r.TrueValues {
		r.truth[v] = "true"
	}
	for _, v := range r.FalseValues {
		r.truth[v] = "false"
	}
	for _, v := range r.UnsetValues {
		r.truth[v] = "unset"
	}
	return &r, nil
}

func set(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// Flag returns the canonical spelling of a flag for engine: "_" becomes "-"
// (after the leading dashes) and a known alias becomes its canonical flag
// ("--tp" -> "--tensor-parallel-size" for sglang).
func (r *Rules) Flag(engine, flag string) string {
	lead := len(flag) - len(strings.TrimLeft(flag, "-"))
	f := flag[:lead] + strings.ReplaceAll(flag[lead:], "_", "-")
	if lead == 0 && f != "" {
		// a recipe key ("tensor_parallel_size") without dashes
		f = "--" + f
	}
	if c, ok := r.canon[engine][f]; ok {
		return c
	}
	return f
}

// Env returns the canonical name and normalized value of an environment
// variable: a deprecated prefix is rewritten (SGL_ -> SGLANG_), an inverted
// name becomes its ENABLE_ twin with the boolean value flipped, and the
// value is normalized like a flag value.
func (r *Rules) Env(name, value string) (string, string) {
	for from, to := range r.EnvPrefix {
		if rest, ok := strings.CutPrefix(name, from); ok {
			name = to + rest
			break
		}
	}
	v := r.Value("", value)
	if to, ok := r.EnvInverted[name]; ok {
		if b, ok := envBool(v); ok {
			return to, strconv.FormatBool(!b)
		}
		return to, "not(" + v + ")"
	}
	if r.envBool[name] {
		if b, ok := envBool(v); ok {
			return name, strconv.FormatBool(b)
		}
	}
	return name, v
}

// envBool reads an SGLang boolean env value (get_bool_env_var: "true"/"1"
// are true, "false"/"0" false).
func envBool(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "1", "true", "yes":
		return true, true
	case "0", "false", "no", "":
		return false, true
	}
	return false, false
}

// Program normalizes a launcher command ("python -m x" -> "python3 -m x",
// runs of spaces collapsed).
func (r *Rules) Program(p string) string {
	p = strings.Join(strings.Fields(p), " ")
	froms := make([]string, 0, len(r.Programs))
	for from := range r.Programs {
		froms = append(froms, from)
	}
	// longest prefix first ("python -m dynamo.vllm " before "python -m ")
	sort.Slice(froms, func(i, j int) bool {
		if len(froms[i]) != len(froms[j]) {
			return len(froms[i]) > len(froms[j])
		}
		return froms[i] < froms[j]
	})
	for _, from := range froms {
		if strings.HasPrefix(p+" ", from) {
			return strings.TrimSpace(r.Programs[from] + strings.TrimPrefix(p+" ", from))
		}
	}
	return p
}

// Value normalizes one flag or env value: a number in canonical form
// ("0.80" -> "0.8"), a boolean spelling to "true"/"false", a JSON object or
// array (for JSON-valued flags, or any value starting with '{' / '[' that
// parses) re-encoded with sorted keys and no spaces.
func (r *Rules) Value(flag, v string) string {
	v = strings.TrimSpace(v)
	if t, ok := r.truth[v]; ok && t != "unset" {
		return t
	}
	if (r.json[flag] || strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[")) && v != "" {
		if c, ok := launch.CanonicalJSON(v); ok {
			return c
		}
	}
	if (r.file[flag] || r.json[flag]) && strings.Contains(v, "/") && !strings.HasPrefix(v, "{") && !strings.HasPrefix(v, "[") {
		return path.Base(v)
	}
	if isNumber(v) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	return v
}

// isNumber reports whether v is a decimal number as written in a command
// line: the regexp `^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$` (ASCII
// digits), matched by hand (a setting's value is tested on every
// comparison).
func isNumber(v string) bool {
	i := 0
	digits := func() int {
		j := i
		for i < len(v) && '0' <= v[i] && v[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < len(v) && (v[i] == '-' || v[i] == '+') {
		i++
	}
	if digits() > 0 {
		if i < len(v) && v[i] == '.' {
			i++
			digits()
		}
	} else if i < len(v) && v[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		return false
	}
	if i < len(v) && (v[i] == 'e' || v[i] == 'E') {
		i++
		if i < len(v) && (v[i] == '-' || v[i] == '+') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(v)
}

// Model resolves a model path to a Hugging Face model id: "hf:<id>" -> id;
// "/model", "/model/", "/models" (the llm-d job's model mount,
// InferenceX benchmarks/multi_node/llm-d/job.slurm), "$MODEL",
// "$MODEL_PATH", and any staged copy of hfID (launch.StagedCopyOf: a hub
// cache entry, a local path whose last element equals the last element of
// hfID) -> hfID. Other values are returned unchanged. hfID may be empty
// (unknown).
func Model(v, hfID string) string {
	v = strings.TrimSpace(v)
	if s, ok := strings.CutPrefix(v, "hf:"); ok {
		return s
	}
	if hfID == "" {
		return v
	}
	switch strings.Trim(v, "\"'{}") {
	case "/model", "/model/", "/models", "/models/", "$MODEL", "$MODEL_PATH", "MODEL", "MODEL_PATH":
		return hfID
	}
	if !strings.EqualFold(v, hfID) && launch.StagedCopyOf(v, hfID) {
		// Hugging Face repository names are case-insensitive: a staged
		// /lustre/…/deepseek-v4-pro is deepseek-ai/DeepSeek-V4-Pro
		return hfID
	}
	return v
}

// looksHF reports whether s has the shape of a Hugging Face model id (org/name).
func looksHF(s string) bool {
	return s != "" && !strings.HasPrefix(s, "/") && !strings.HasPrefix(s, ".") && !strings.HasPrefix(s, "$") &&
		strings.Count(s, "/") == 1 && !strings.Contains(s, " ")
}

// Setting is one normalized setting of one process: a flag, an env var or a
// process field ("workers", "nodes-per-worker", "count", "program").
type Setting struct {
	Key     string // "--attention-backend", "env SGLANG_ENABLE_SPEC_V2", "workers"
	Kind    string // flag | env | field
	Name    string // the flag, env name or field name
	Value   string // normalized; "" for a bare flag
	Raw     string // as written (first occurrence)
	Origins []launch.Origin

	// File is the name (last path element) of the file a flag's value
	// names: a file flag's path, a file the process lists
	// (launch.Process.Files) or carries (FileContents). Content: the value
	// is the file's content (contentValue), not its path; Expanded: the
	// content was read into settings of their own (nginx.conf, nats.conf),
	// each with Parent = this flag's key. Path is the path as written.
	File     string
	Content  bool
	Expanded bool
	Path     string
	// Parent is, for a setting read from a config file, the key of the
	// flag that names the file ("-c").
	Parent string
	// Literal: compare the values exactly, not with placeholders
	// ("$http_x_session_id" is an nginx variable).
	Literal bool
	// Unknown: the value is not known (srt-slurm's own /configs/ file
	// without an srt-slurm checkout; a flag or env var a script sets only
	// on some machines, launch.Arg.Unknown / launch.EnvVar.Unknown): never
	// a match, never a difference — the setting is not verified
	// (Result.Unknown). UnknownWhy, when set, says why
	// (Difference.Note).
	Unknown    bool
	UnknownWhy string
	// HarnessBy, when set, names the harness step that rewrote the
	// argument this setting comes from for the benchmark run
	// (launch.Arg.Harness); Production is then the setting's normalized
	// value on the production path, nil when that path does not set it.
	// Compare uses it where an exclusion of scope side takes the run's
	// value out (exclusions.ScopeSide).
	HarnessBy  string
	Production *string
}

// Normalized is the settings of one process by key, plus the key order.
type Normalized struct {
	Settings map[string]*Setting
	Order    []string
}

func (n *Normalized) add(s *Setting, lastWins bool) {
	if prev, ok := n.Settings[s.Key]; ok {
		if lastWins {
			// argparse: a repeated option keeps its last value
			prev.Value, prev.Raw = s.Value, prev.Raw+" ; "+s.Raw
			prev.Origins = append(prev.Origins, s.Origins...)
			return
		}
		// a repeated flag of an append option: keep every occurrence, in order
		prev.Value += " ; " + s.Value
		prev.Raw += " ; " + s.Raw
		prev.Origins = append(prev.Origins, s.Origins...)
		return
	}
	n.Settings[s.Key] = s
	n.Order = append(n.Order, s.Key)
}

// NormalizeProcess turns one process into normalized settings. engine keys
// the alias table ("sglang", "vllm"; frontends use "dynamo"/"sglang-router"
// which have no aliases); hfID is the deployment's Hugging Face model id
// used to resolve model paths (may be empty). When a harness step rewrote
// some of p's arguments (launch.Arg.Harness), the process is normalized a
// second time with the production values (launch.ProductionArgs), and
// every setting whose value differs there gets HarnessBy and Production.
func (r *Rules) NormalizeProcess(p *launch.Process, engine, hfID string) *Normalized {
	n := r.normalizeProcess(p, engine, hfID)
	prodArgs, by, ok := launch.ProductionArgs(p.Args)
	if !ok {
		return n
	}
	q := *p
	q.Args = prodArgs
	prod := r.normalizeProcess(&q, engine, hfID)
	for _, k := range n.Order {
		s := n.Settings[k]
		ps, has := prod.Settings[k]
		switch {
		case !has:
			s.HarnessBy = by
		case ps.Value != s.Value:
			v := ps.Value
			s.HarnessBy, s.Production = by, &v
		}
	}
	return n
}

// settingSlab hands out the Settings of one normalization and their
// one-origin lists from blocks sized once (a flag or env var is one
// setting; a Normalized lives for one comparison): two allocations
// instead of two per setting. An Origins list it gives ends at its length,
// so a repeated setting's append (Normalized.add) copies it.
type settingSlab struct {
	s []Setting
	o []launch.Origin
}

func newSettingSlab(n int) settingSlab {
	return settingSlab{s: make([]Setting, 0, n), o: make([]launch.Origin, 0, n)}
}

// new returns a Setting holding v, with Origins [o].
func (b *settingSlab) new(v Setting, o launch.Origin) *Setting {
	if len(b.s) == cap(b.s) {
		v.Origins = []launch.Origin{o}
		return &v
	}
	b.o = append(b.o, o)
	v.Origins = b.o[len(b.o)-1 : len(b.o) : len(b.o)]
	b.s = append(b.s, v)
	return &b.s[len(b.s)-1]
}

func (r *Rules) normalizeProcess(p *launch.Process, engine, hfID string) *Normalized {
	size := len(p.Args) + len(p.Env) + 8 // the args, the env, a few fields
	n := &Normalized{Settings: make(map[string]*Setting, size), Order: make([]string, 0, size)}
	slab := newSettingSlab(len(p.Args) + len(p.Env))
	// Engine workers parse flags with argparse (store: the last value
	// wins); routers take repeated --prefill/--decode/--worker-urls.
	last := p.Kind == launch.KindWorker
	if hfID == "" {
		// the served name is the HF id in every srt-slurm recipe seen
		if v, ok := launch.Lookup(p.Args, "--served-model-name"); ok && len(v) == 1 && looksHF(v[0]) {
			hfID = v[0]
		}
	}
	prog, args := r.Program(p.Program), p.Args
	svc := isService(p.Kind)
	if svc {
		// a service is compared like a worker (program, args, env, count;
		// spec/srt-slurm.md §10b): its command may carry arguments
		// ("nats-server -c nats.conf") and a launcher's mount directory
		// ("/configs/etcd")
		var extra []launch.Arg
		prog, extra = serviceProgram(p.Program)
		prog = r.Program(prog)
		if len(extra) > 0 {
			for i := range extra {
				extra[i].Origin = p.Origin
			}
			args = append(extra, args...)
		}
	}
	n.add(&Setting{Key: "program", Kind: "field", Name: "program", Value: prog, Raw: p.Program, Origins: []launch.Origin{p.Origin}}, false)
	for _, a := range args {
		flag, vals := a.Flag, a.Values
		if a.Unknown != "" && flag != "" {
			// present or valued only on some machines: not normalized
			// away (a default, a false), never compared
			f := r.Flag(engine, strings.SplitN(flag, "=", 2)[0])
			raw := strings.TrimSpace(flag + " " + strings.Join(vals, " "))
			n.add(&Setting{Key: f, Kind: "flag", Name: f, Value: raw, Raw: raw, Origins: []launch.Origin{a.Origin}, Literal: true, Unknown: true, UnknownWhy: a.Unknown}, last)
			continue
		}
		if flag == "" {
			// positional (vllm serve <model>)
			n.add(&Setting{Key: "positional", Kind: "field", Name: "positional", Value: Model(strings.Join(vals, " "), hfID), Raw: strings.Join(vals, " "), Origins: []launch.Origin{a.Origin}}, false)
			continue
		}
		if i := strings.IndexByte(flag, '='); i > 0 && strings.HasPrefix(flag, "-") {
			vals = append([]string{flag[i+1:]}, vals...)
			flag = flag[:i]
		}
		raw := strings.TrimSpace(flag + " " + strings.Join(vals, " "))
		if p.Kind == launch.KindNATS {
			if name, ok := natsFlag[flag]; ok {
				v := "enabled"
				if name != "jetstream" {
					v = natsSize(strings.Join(vals, " "))
				}
				n.add(&Setting{Key: "nats." + name, Kind: "field", Name: "nats." + name, Value: v, Raw: raw, Origins: []launch.Origin{a.Origin}}, true)
				continue
			}
		}
		flag = r.Flag(engine, flag)
		if len(vals) == 1 {
			if s, subs, ok := r.fileSetting(p, flag, vals[0], raw, a.Origin); ok {
				for _, sub := range subs {
					// nats-server: a later key wins; nginx: a repeated
					// directive (proxy_set_header) adds
					n.add(sub, p.Kind != launch.KindNginx)
				}
				n.add(s, last)
				continue
			}
		}
		var val string
		switch {
		case len(vals) == 0:
			val = ""
		case len(vals) == 1:
			t := r.truth[strings.TrimSpace(vals[0])]
			if t == "false" || t == "unset" {
				continue // false and None mean "not set"
			}
			if t == "true" {
				val = ""
				break
			}
			val = r.Value(flag, vals[0])
			if r.model[flag] {
				val = Model(vals[0], hfID)
			}
		default:
			vs := make([]string, len(vals))
			for i, v := range vals {
				vs[i] = r.Value(flag, v)
			}
			val = strings.Join(vs, " ")
		}
		if c, ok := r.ValueAliases[engine][flag][val]; ok {
			val = c
		}
		if d, ok := r.Defaults[engine][flag]; ok && d == val {
			continue // the engine default, same as absent
		}
		if keys := r.JSONSplit[flag]; len(keys) > 0 {
			var parts []*Setting
			val, parts = splitJSON(flag, val, keys, a.Origin)
			for _, ps := range parts {
				n.add(ps, last)
			}
		}
		n.add(slab.new(Setting{Key: flag, Kind: "flag", Name: flag, Value: val, Raw: raw}, a.Origin), last)
	}
	for k, d := range r.Defaults[engine] {
		// a config-file setting at the program's default (nats.max_payload
		// 1 MiB) is the same as absent
		if st, ok := n.Settings[k]; ok && st.Parent != "" && st.Value == d {
			n.remove(k)
		}
	}
	r.derive(n, engine, hfID)
	for _, e := range p.Env {
		name, v := r.Env(e.Name, e.Value)
		s := slab.new(Setting{Key: "env " + name, Kind: "env", Name: name, Value: v, Raw: e.Name + "=" + e.Value}, e.Origin)
		if e.Unknown != "" {
			s.Literal, s.Unknown, s.UnknownWhy = true, true, e.Unknown
		}
		n.add(s, true)
	}
	field := func(name string, v int) {
		if v <= 0 {
			v = 1
		}
		n.add(&Setting{Key: name, Kind: "field", Name: name, Value: strconv.Itoa(v), Raw: strconv.Itoa(v), Origins: []launch.Origin{p.Origin}}, true)
	}
	switch {
	case p.Kind == launch.KindWorker:
		field("workers", p.Workers)
		field("nodes-per-worker", p.NodesPerWorker)
	case p.Kind.IsFrontend():
		field("count", p.Count)
	case svc:
		c := p.CountNodes
		if len(p.Ports) > 1 {
			c = max(c, 1) * len(p.Ports)
		}
		field("count", c)
	}
	return n
}

// isService reports whether k is a service (any process that is neither a
// worker nor a request entry point: etcd, NATS, nginx, Mooncake, and any
// other kind a launcher starts, e.g. the schema-2 services registry's).
func isService(k launch.Kind) bool {
	return k != launch.KindWorker && !k.IsFrontend()
}

// remove drops the setting with key k.
func (n *Normalized) remove(k string) {
	if _, ok := n.Settings[k]; !ok {
		return
	}
	delete(n.Settings, k)
	for i, o := range n.Order {
		if o == k {
			n.Order = append(n.Order[:i:i], n.Order[i+1:]...)
			break
		}
	}
}

// fileSetting reads a flag whose value names a file: a file or JSON flag
// given a path, a file the process lists (Files) or one it carries
// (FileContents). With the content, the value is the content
// (contentValue), or, for nginx and NATS config files, the flag stands for
// the settings read from the file (nginxConfig, natsConfig), returned as
// subs with Parent = flag. Without it, the value is the file's name. ok is
// false when the value does not name a file.
func (r *Rules) fileSetting(p *launch.Process, flag, v, raw string, o launch.Origin) (*Setting, []*Setting, bool) {
	v = strings.TrimSpace(v)
	if v == "" || strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
		return nil, nil, false
	}
	base := path.Base(strings.TrimRight(v, "/"))
	fc, has := p.FileContent(v)
	if !has && !r.file[flag] && !(r.json[flag] && strings.Contains(v, "/")) && !slices.Contains(p.Files, base) && !slices.Contains(p.Files, v) {
		return nil, nil, false
	}
	s := &Setting{Key: flag, Kind: "flag", Name: flag, Value: base, Raw: raw, Origins: []launch.Origin{o}, File: base, Path: v}
	if !has {
		return s, nil, true
	}
	s.Content = true
	s.Origins = append(s.Origins, fc.Origin)
	var fs []fileSetting
	var err error
	switch p.Kind {
	case launch.KindNginx:
		fs, err = nginxConfig(fc.Content)
	case launch.KindNATS:
		fs, err = natsConfig(fc.Content)
	}
	if err != nil || fs == nil {
		s.Value = contentValue(r, flag, base, fc.Content)
		return s, nil, true
	}
	s.Expanded = true
	subs := make([]*Setting, 0, len(fs))
	for _, f := range fs {
		subs = append(subs, &Setting{Key: f.name, Kind: "field", Name: f.name, Value: f.value, Raw: base + ": " + f.name + " " + f.value,
			Origins: []launch.Origin{fc.Origin}, Parent: flag, Literal: f.literal})
	}
	return s, subs, true
}

// splitJSON takes keys out of a canonical JSON object value: it returns the
// rest of the object and one "<flag>.<key>" setting per key present.
func splitJSON(flag, v string, keys []string, o launch.Origin) (string, []*Setting) {
	d := json.NewDecoder(strings.NewReader(v))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil {
		return v, nil
	}
	var out []*Setting
	for _, k := range keys {
		x, ok := m[k]
		if !ok {
			continue
		}
		delete(m, k)
		b, _ := json.Marshal(x)
		kv := string(b)
		if s, ok := x.(string); ok {
			kv = s
		}
		name := flag + "." + k
		out = append(out, &Setting{Key: name, Kind: "flag", Name: name, Value: kv, Raw: k + "=" + kv, Origins: []launch.Origin{o}})
	}
	if len(out) == 0 {
		return v, nil
	}
	rest, _ := launch.CanonicalJSON(mustJSON(m))
	return rest, out
}

// alignJSONModels makes the model keys of a JSON-valued flag set on both
// sides (r.JSONModels: --speculative-config's draft "model") compare like
// model paths do (Model): when one side's value is a staged local copy of
// the Hugging Face id the other side names (launch.StagedCopyOf: a local
// path whose last element is the repository's name, or a hub cache entry),
// that side's value is rewritten to the id and its JSON re-canonicalised.
// InferenceX stages draft heads (benchmarks/single_node/agentic/
// minimaxm3_fp4_b200_mtp.sh: `hf download "$DRAFT_MODEL" --local-dir
// …/${DRAFT_MODEL##*/}`) and passes the path in --speculative-config
// (vllm-project/vllm vllm/config/speculative.py SpeculativeConfig.model:
// "the name of the draft model, eagle head, or additional weights").
// Settings whose value is unknown or not an object are left alone.
func (r *Rules) alignJSONModels(a, b *Normalized) {
	for _, flag := range sortedKeys(r.JSONModels) {
		sa, sb := a.Settings[flag], b.Settings[flag]
		if sa == nil || sb == nil || sa.Unknown || sb.Unknown || sa.Value == sb.Value {
			continue
		}
		ma, mb := jsonObject(sa.Value), jsonObject(sb.Value)
		if ma == nil || mb == nil {
			continue
		}
		ca, cb := false, false
		for _, k := range r.JSONModels[flag] {
			va, ok1 := ma[k].(string)
			vb, ok2 := mb[k].(string)
			switch {
			case !ok1 || !ok2 || va == vb:
			case launch.LooksHF(vb) && !launch.LooksHF(va) && launch.StagedCopyOf(va, vb):
				ma[k], ca = vb, true
			case launch.LooksHF(va) && !launch.LooksHF(vb) && launch.StagedCopyOf(vb, va):
				mb[k], cb = va, true
			}
		}
		if ca {
			sa.Value, _ = launch.CanonicalJSON(mustJSON(ma))
		}
		if cb {
			sb.Value, _ = launch.CanonicalJSON(mustJSON(mb))
		}
	}
}

// jsonObject decodes a JSON object keeping numbers as written; nil when v
// is not one.
func jsonObject(v string) map[string]any {
	d := json.NewDecoder(strings.NewReader(v))
	d.UseNumber()
	var m map[string]any
	if d.Decode(&m) != nil {
		return nil
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// placeholderRe finds placeholders: $NAME, ${NAME}, {name} (srt-slurm
// templates) and <name>.
var placeholderRe = regexp.MustCompile(`\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{[a-z_][a-z0-9_.]*\}|<[a-z][a-z0-9 _-]*>`)

// hasPlaceholder is placeholderRe.MatchString(s), the regexp run only
// on a text with a "$", "{" or "<" (each match starts with one).
func hasPlaceholder(s string) bool {
	return strings.ContainsAny(s, "${<") && placeholderRe.MatchString(s)
}

// Equal reports whether two normalized values are the same setting value.
// Values are equal when identical; when one side holds placeholders
// ($ETCD_IP, {head_ip}), each placeholder stands for any non-empty text
// ("http://$ETCD_IP:2379" equals "http://10.0.0.1:2379"); when both do,
// placeholder names are ignored.
func Equal(a, b string) bool {
	if a == b {
		return true
	}
	pa, pb := hasPlaceholder(a), hasPlaceholder(b)
	switch {
	case pa && pb:
		return placeholderRe.ReplaceAllString(a, "\x00") == placeholderRe.ReplaceAllString(b, "\x00")
	case pa:
		return templateRe(a).MatchString(b)
	case pb:
		return templateRe(b).MatchString(a)
	}
	return false
}

func templateRe(t string) *regexp.Regexp {
	var sb strings.Builder
	sb.WriteString("^")
	last := 0
	for _, m := range placeholderRe.FindAllStringIndex(t, -1) {
		sb.WriteString(regexp.QuoteMeta(t[last:m[0]]))
		sb.WriteString(`\S+?`)
		last = m[1]
	}
	sb.WriteString(regexp.QuoteMeta(t[last:]))
	sb.WriteString("$")
	return regexp.MustCompile(sb.String())
}

// derive applies the engine's own rules for settings that follow from
// others, so a side that states the derived value and a side that leaves
// it to the engine compare equal:
//   - SGLang: --tokenizer-path equal to the model path is the default
//     (ServerArgs: tokenizer_path = model_path when unset);
//   - SGLang: with an all-to-all MoE backend (--moe-a2a-backend other than
//     none) and no --expert-parallel-size, the experts are split over the
//     TP ranks (ServerArgs: "the expert parallel size is adjusted to be
//     the same as the tensor parallel size").
//
// Source: sgl-project/sglang python/sglang/srt/server_args.py (ServerArgs
// __post_init__), as the SGLang cookbook pages' commands rely on it.
func (r *Rules) derive(n *Normalized, engine, hfID string) {
	if engine != "sglang" {
		return
	}
	if tok, ok := n.Settings["--tokenizer-path"]; ok {
		if m, ok := n.Settings["--model-path"]; ok && strings.EqualFold(tok.Value, m.Value) {
			n.remove("--tokenizer-path")
		}
	}
	a2a, ok := n.Settings["--moe-a2a-backend"]
	_, hasEP := n.Settings["--expert-parallel-size"]
	tp, hasTP := n.Settings["--tensor-parallel-size"]
	if ok && a2a.Value != "none" && a2a.Value != "" && !hasEP && hasTP {
		n.add(&Setting{Key: "--expert-parallel-size", Kind: "flag", Name: "--expert-parallel-size", Value: tp.Value,
			Raw: "(derived: --moe-a2a-backend " + a2a.Value + " splits experts over the TP ranks)", Origins: a2a.Origins}, false)
	}
}

// sameModel reports whether two values of a model path flag name the same
// Hugging Face repository: the Hub resolves repository ids
// case-insensitively ("…-FP4-v2" is "…-FP4-V2").
func (r *Rules) sameModel(key, a, b string) bool {
	return r.model[key] && launch.LooksHF(a) && launch.LooksHF(b) && strings.EqualFold(a, b)
}

// decodeStrict decodes one embedded YAML table (name its file) into v,
// refusing unknown keys. Errors: "name: " and the YAML error (line:col).
func decodeStrict(name string, data []byte, v any) error {
	d := yaml.NewDecoder(bytes.NewReader(data))
	d.KnownFields(true)
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
