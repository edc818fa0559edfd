package infx

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"go.yaml.in/yaml/v3"
)

// EnvVar is one environment variable a harness layer gives a script, with
// where it was set (workflow file:line, launcher file:line).
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Pos   Pos    `json:"pos"`
}

// Harness is what InferenceX's benchmark workflow gives a single-node point
// before the runner's launcher runs: the job's and the launch step's env
// (every `${{ … }}` evaluated for the point), and the launch step's `run:`
// text, which runs `bash ./runners/launch_${RUNNER_NAME%%_*}.sh`.
// Source: SemiAnalysisAI/InferenceX .github/workflows/benchmark-tmpl.yml
// (jobs.benchmark env + the step whose run calls runners/launch_), with the
// inputs .github/workflows/run-sweep.yml passes from the sweep matrix entry
// (jobs.*.with for the benchmark-tmpl.yml jobs), both read from the
// checkout at hand.
type Harness struct {
	// Workflow is the workflow file (repository-relative).
	Workflow string `json:"workflow"`
	// Env is the job env then the step env, in file order.
	Env []EnvVar `json:"env"`
	// Run is the launch step's script with its expressions evaluated;
	// RunPos the position of its first line.
	Run    string `json:"-"`
	RunPos Pos    `json:"runPos"`
	// Inputs are the workflow_call inputs the point gave (after defaults).
	Inputs map[string]any `json:"-"`
	// pairs are Env as NAME=value, made once with Env (harnessFor): a
	// point's launcher runs, each answer and runner name, start from them.
	pairs []string
}

// envPairs is h.Env as NAME=value, in order (h.pairs when made).
func (h *Harness) envPairs() []string {
	if h.pairs != nil || len(h.Env) == 0 {
		return h.pairs
	}
	out := make([]string, len(h.Env))
	for i, e := range h.Env {
		out[i] = e.Name + "=" + e.Value
	}
	return out
}

// workflowDoc is a parsed workflow file (only what harness needs).
type workflowDoc struct {
	file string // filesystem path
	rel  string // repository-relative
	root *yaml.Node
	// envs counts the entries of every env: mapping of the file (the
	// workflow's, its jobs', their steps'): at least what a harness
	// lists, the room harnessFor makes at once.
	envs int
}

// countEnvs is workflowDoc.envs of root.
func countEnvs(root *yaml.Node) int {
	n := 0
	count := func(m *yaml.Node) {
		if m = resolveAlias(m); m != nil && m.Kind == yaml.MappingNode {
			n += len(m.Content) / 2
		}
	}
	count(mapGet(root, "env"))
	if jobs := resolveAlias(mapGet(root, "jobs")); jobs != nil && jobs.Kind == yaml.MappingNode {
		for i := 1; i < len(jobs.Content); i += 2 {
			job := resolveAlias(jobs.Content[i])
			count(mapGet(job, "env"))
			if steps := resolveAlias(mapGet(job, "steps")); steps != nil && steps.Kind == yaml.SequenceNode {
				for _, st := range steps.Content {
					count(mapGet(resolveAlias(st), "env"))
				}
			}
		}
	}
	return n
}

func (ws *Workspace) loadWorkflow(name string) (*workflowDoc, error) {
	ws.snInit()
	ws.sn.mu.Lock()
	defer ws.sn.mu.Unlock()
	if d, ok := ws.sn.workflows[name]; ok {
		return d.doc, d.err
	}
	doc, err := ws.readWorkflow(name)
	ws.sn.workflows[name] = cachedWorkflow{doc, err}
	return doc, err
}

// cachedWorkflow is a loaded workflow file (or why it could not be).
type cachedWorkflow struct {
	doc *workflowDoc
	err error
}

func (ws *Workspace) readWorkflow(name string) (*workflowDoc, error) {
	for _, dir := range []string{filepath.Join(ws.Base, ".github", "workflows"), filepath.Join(ws.Root, ".github", "workflows")} {
		p := filepath.Join(dir, name)
		if !isFile(p) {
			continue
		}
		data, err := launch.ReadInput(p)
		if err != nil {
			return nil, err
		}
		root, err := parseYAML(p, data)
		if err != nil {
			return nil, err
		}
		root = resolveAlias(root)
		return &workflowDoc{file: p, rel: ws.rel(p), root: root, envs: countEnvs(root)}, nil
	}
	return nil, nil
}

// maxModelLenRE reads the slack generate_sweep_configs.py adds to ISL+OSL
// for max-model-len (`Fields.MAX_MODEL_LEN.value: isl + osl + 256` at
// 843c6254).
var maxModelLenRE = regexp.MustCompile(`MAX_MODEL_LEN\.value:\s*isl\s*\+\s*osl(?:\s*\+\s*(\d+))?`)

// maxModelLenSlack returns the slack of the checkout's sweep generator
// (utils/matrix_logic/generate_sweep_configs.py), 256 when it cannot be
// read (its value at 843c6254).
func (ws *Workspace) maxModelLenSlack() int {
	ws.snInit()
	return ws.sn.slack
}

func (ws *Workspace) readMaxModelLenSlack() int {
	p := filepath.Join(ws.Base, "utils", "matrix_logic", "generate_sweep_configs.py")
	data, err := launch.ReadInput(p)
	if err != nil {
		return 256
	}
	m := maxModelLenRE.FindSubmatch(data)
	if m == nil {
		return 256
	}
	if len(m[1]) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// maxAgenticDRAMRE reads MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB.
var maxAgenticDRAMRE = regexp.MustCompile(`(?m)^MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB\s*=\s*([0-9_]+)`)

// maxAgenticDRAMMiB returns the cap on a node's available CPU DRAM that
// utils/matrix_logic/generate_sweep_configs.py applies to the agentic DRAM
// budget (MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB), 0 when the checkout has none.
func (ws *Workspace) maxAgenticDRAMMiB() int {
	p := filepath.Join(ws.Base, "utils", "matrix_logic", "generate_sweep_configs.py")
	data, err := launch.ReadInput(p)
	if err != nil {
		return 0
	}
	m := maxAgenticDRAMRE.FindSubmatch(data)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.ReplaceAll(string(m[1]), "_", ""))
	return n
}

// matrixEntry is the sweep matrix entry generate_sweep_configs.py builds for
// a single-node point (field names as in the matrix JSON).
func (ws *Workspace) matrixEntry(p Point) map[string]any {
	spec := p.SpecDecoding
	if spec == "" {
		spec = "none"
	}
	ep := p.EP
	if ep == 0 {
		ep = 1
	}
	pp := p.PP
	if pp == 0 {
		pp = 1
	}
	m := map[string]any{
		"image": p.Image, "model": p.Model, "model-prefix": p.ModelPrefix, "precision": p.Precision,
		"framework": p.Framework, "runner": p.Runner,
		"tp": float64(p.TP), "pp": float64(pp), "dcp-size": float64(1), "pcp-size": float64(1),
		"ep": float64(ep), "dp-attn": p.DPAttn, "spec-decoding": spec, "conc": float64(p.Concurrency),
		"disagg": p.Disagg, "run-eval": false,
	}
	if p.Multinode {
		// generate_sweep_configs.py multi-node entries: the row's
		// concurrencies as one list, and the prefill / decode worker
		// blocks with their additional-settings.
		var concs []any
		for _, c := range p.RowConcurrencies {
			concs = append(concs, float64(c))
		}
		if len(concs) == 0 {
			concs = []any{float64(p.Concurrency)}
		}
		m["conc"] = concs
		for name, wb := range map[string]*WorkerBlock{"prefill": p.Prefill, "decode": p.Decode} {
			if wb == nil {
				continue
			}
			w := map[string]any{"num-worker": float64(wb.NumWorker), "tp": float64(wb.TP), "ep": float64(max(wb.EP, 1)),
				"pp": float64(max(wb.PP, 1)), "dcp-size": float64(1), "pcp-size": float64(1), "dp-attn": wb.DPAttn}
			if wb.Hardware != "" {
				w["hardware"] = wb.Hardware
			}
			var as []any
			for _, s := range wb.AdditionalSettings {
				as = append(as, s.Name+"="+s.Value)
			}
			w["additional-settings"] = as
			m[name] = w
		}
	}
	if p.Scenario == "agentic-coding" {
		kv := p.KVOffloading
		if kv == "" {
			kv = "none"
		}
		m["kv-offloading"] = kv
		m["total-cpu-dram-gb"] = float64(p.TotalCPUDRAMGB)
		m["duration"] = float64(p.Duration)
		if p.Offloading != "" {
			m["offloading"] = p.Offloading
		}
		m["scenario-type"] = "agentic-coding"
		suffix := "kvnone"
		if kv != "none" {
			suffix = "kv" + kv + "-" + p.KVOffloadBackend
		}
		name := fmt.Sprintf("%s_tp%d_conc%d_%s", p.ModelPrefix, p.TP, p.Concurrency, suffix)
		if spec != "none" {
			name += "_spec-" + spec
		}
		m["exp-name"] = name
		if p.KVOffloadBackend != "" {
			kb := map[string]any{"name": p.KVOffloadBackend}
			if p.KVOffloadBackendVersion != "" {
				kb["version"] = p.KVOffloadBackendVersion
			}
			m["kv-offload-backend"] = kb
		}
	} else {
		m["isl"], m["osl"] = float64(p.ISL), float64(p.OSL)
		m["max-model-len"] = float64(p.ISL + p.OSL + ws.maxModelLenSlack())
		m["exp-name"] = p.ModelPrefix + "_" + seqLenStr(p.ISL, p.OSL)
	}
	return m
}

// templateOf names the workflow template run-sweep.yml calls for the
// point's jobs: benchmark-multinode-tmpl.yml for multi-node entries,
// benchmark-tmpl.yml otherwise (InferenceX .github/workflows/run-sweep.yml
// sweep-multi-node-* / sweep-single-node-* jobs).
func templateOf(p Point) string {
	if p.Multinode {
		return "benchmark-multinode-tmpl.yml"
	}
	return "benchmark-tmpl.yml"
}

// seqLenStr is generate_sweep_configs.py seq_len_to_str: 1024 → "1k",
// 8192 → "8k", otherwise the number.
func seqLenStr(isl, osl int) string {
	f := func(n int) string {
		if n%1024 == 0 {
			return strconv.Itoa(n/1024) + "k"
		}
		return strconv.Itoa(n)
	}
	return f(isl) + f(osl)
}

// benchmarkInputs evaluates the `with:` block run-sweep.yml passes to
// benchmark-tmpl.yml for the point's scenario (agentic jobs read
// single_node['agentic'], fixed-sequence jobs single_node['<seq>']); when
// the checkout has no such job the matrix entry's fields are passed under
// their own names.
func (ws *Workspace) benchmarkInputs(p Point, matrix map[string]any) (map[string]any, error) {
	sweep, err := ws.loadWorkflow("run-sweep.yml")
	if err != nil {
		return nil, err
	}
	if sweep != nil {
		jobs := resolveAlias(mapGet(sweep.root, "jobs"))
		if jobs != nil && jobs.Kind == yaml.MappingNode {
			node := "single_node"
			if p.Multinode {
				node = "multi_node"
			}
			want := node + "['agentic']"
			for i := 0; i+1 < len(jobs.Content); i += 2 {
				job := resolveAlias(jobs.Content[i+1])
				uses := resolveAlias(mapGet(job, "uses"))
				if uses == nil || !strings.HasSuffix(uses.Value, "/"+templateOf(p)) {
					continue
				}
				mx := resolveAlias(mapGet(resolveAlias(mapGet(resolveAlias(mapGet(job, "strategy")), "matrix")), "config"))
				if mx == nil {
					continue
				}
				agentic := strings.Contains(mx.Value, want)
				if agentic != (p.Scenario == "agentic-coding") || !strings.Contains(mx.Value, node+"[") {
					continue
				}
				with := resolveAlias(mapGet(job, "with"))
				if with == nil || with.Kind != yaml.MappingNode {
					continue
				}
				ctx := ghContext{"matrix": map[string]any{"config": matrix}, "github": map[string]any{}, "needs": map[string]any{}}
				in := map[string]any{}
				for j := 0; j+1 < len(with.Content); j += 2 {
					v := resolveAlias(with.Content[j+1])
					val, err := evalGHValue(v.Value, ctx)
					if err != nil {
						return nil, &PosError{File: sweep.file, Line: v.Line, Col: v.Column, Err: err}
					}
					in[with.Content[j].Value] = val
				}
				return in, nil
			}
		}
	}
	in := map[string]any{}
	for k, v := range matrix {
		in[k] = v
	}
	return in, nil
}

// evalGHValue evaluates a workflow value: a whole `${{ expr }}` keeps the
// expression's type; text with embedded expressions becomes a string.
func evalGHValue(s string, ctx ghContext) (any, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "${{") && strings.HasSuffix(t, "}}") && strings.Count(t, "${{") == 1 {
		return evalGHExpr(t[3:len(t)-2], ctx)
	}
	return evalGHTemplate(s, ctx)
}

// harness builds the workflow side of a single-node point for one runner
// name. Errors: the workflow does not parse or an expression in it is
// malformed (file:line:col). A checkout without
// .github/workflows/benchmark-tmpl.yml gives (nil, nil).
func (ws *Workspace) harness(p Point, runnerName string) (*Harness, error) {
	tmpl, inputs, err := ws.harnessInputs(p)
	if err != nil || tmpl == nil {
		return nil, err
	}
	return ws.harnessFor(tmpl, inputs, runnerName)
}

// pointHarness keeps harness's work for one point (Options.harnesses):
// the workflow and its inputs, which do not depend on the runner name,
// once, and the launch step once per runner name. A point's rendering is
// one goroutine's: it takes no lock.
type pointHarness struct {
	done   bool
	tmpl   *workflowDoc
	inputs map[string]any
	err    error
	byName map[string]*Harness
}

// harnessOf is harness(p, runnerName), through ph when set (the
// Harness for a runner name is then shared: it is only read).
func (ws *Workspace) harnessOf(ph *pointHarness, p Point, runnerName string) (*Harness, error) {
	if ph == nil {
		return ws.harness(p, runnerName)
	}
	if !ph.done {
		ph.done = true
		ph.tmpl, ph.inputs, ph.err = ws.harnessInputs(p)
	}
	if ph.err != nil || ph.tmpl == nil {
		return nil, ph.err
	}
	if h, ok := ph.byName[runnerName]; ok {
		return h, nil
	}
	h, err := ws.harnessFor(ph.tmpl, ph.inputs, runnerName)
	if err != nil {
		return nil, err
	}
	if ph.byName == nil {
		ph.byName = map[string]*Harness{}
	}
	ph.byName[runnerName] = h
	return h, nil
}

// harnessInputs is the part of harness that does not depend on the
// runner name: the point's workflow (nil without one) and its inputs,
// declared defaults and types applied. The inputs are only read after.
func (ws *Workspace) harnessInputs(p Point) (*workflowDoc, map[string]any, error) {
	tmpl, err := ws.loadWorkflow(templateOf(p))
	if err != nil || tmpl == nil {
		return nil, nil, err
	}
	in, err := ws.benchmarkInputs(p, ws.matrixEntry(p))
	if err != nil {
		return nil, nil, err
	}
	// Declared inputs: defaults and types (workflow_call inputs).
	on := resolveAlias(mapGet(tmpl.root, "on"))
	if on == nil {
		// yaml 1.1 readers take `on` for true; yaml.v3 keeps the key.
		on = resolveAlias(mapGet(tmpl.root, "true"))
	}
	decl := resolveAlias(mapGet(resolveAlias(mapGet(on, "workflow_call")), "inputs"))
	inputs := map[string]any{}
	if decl != nil && decl.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(decl.Content); i += 2 {
			name := decl.Content[i].Value
			d := resolveAlias(decl.Content[i+1])
			typ := ""
			if t := resolveAlias(mapGet(d, "type")); t != nil {
				typ = t.Value
			}
			v, given := in[name]
			if !given || v == nil {
				if df := resolveAlias(mapGet(d, "default")); df != nil {
					v = df.Value
				} else {
					v = ""
				}
			}
			inputs[name] = ghTyped(v, typ)
		}
	}
	for k, v := range in {
		if _, ok := inputs[k]; !ok {
			inputs[k] = v
		}
	}
	return tmpl, inputs, nil
}

// harnessFor is the rest of harness: the workflow's env and launch step
// for runner name runnerName.
func (ws *Workspace) harnessFor(tmpl *workflowDoc, inputs map[string]any, runnerName string) (*Harness, error) {
	h := &Harness{Workflow: tmpl.rel, Inputs: inputs}
	env := make(map[string]any, tmpl.envs)
	ctx := ghContext{
		"inputs": inputs, "env": env, "secrets": map[string]any{}, "vars": map[string]any{},
		"runner": map[string]any{"name": runnerName, "os": "Linux", "arch": "X64"},
		"github": map[string]any{"workspace": ws.Root, "run_attempt": "1", "event_name": "workflow_dispatch"},
	}
	addEnv := func(n *yaml.Node) error {
		n = resolveAlias(n)
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], resolveAlias(n.Content[i+1])
			val, err := evalGHTemplate(v.Value, ctx)
			if err != nil {
				return &PosError{File: tmpl.file, Line: v.Line, Col: v.Column, Err: err}
			}
			env[k.Value] = val
			if h.Env == nil {
				h.Env = make([]EnvVar, 0, tmpl.envs) // (nil while none is listed, as before)
			}
			h.Env = append(h.Env, EnvVar{Name: k.Value, Value: val, Pos: Pos{File: tmpl.rel, Line: k.Line, Col: k.Column}})
		}
		return nil
	}
	if err := addEnv(mapGet(tmpl.root, "env")); err != nil {
		return nil, err
	}
	jobs := resolveAlias(mapGet(tmpl.root, "jobs"))
	if jobs == nil || jobs.Kind != yaml.MappingNode {
		return nil, &PosError{File: tmpl.file, Err: fmt.Errorf("no jobs")}
	}
	for i := 0; i+1 < len(jobs.Content); i += 2 {
		job := resolveAlias(jobs.Content[i+1])
		if err := addEnv(mapGet(job, "env")); err != nil {
			return nil, err
		}
		steps := resolveAlias(mapGet(job, "steps"))
		if steps == nil || steps.Kind != yaml.SequenceNode {
			continue
		}
		for _, st := range steps.Content {
			st = resolveAlias(st)
			run := resolveAlias(mapGet(st, "run"))
			if run == nil || !strings.Contains(run.Value, "runners/launch_") {
				continue
			}
			if err := addEnv(mapGet(st, "env")); err != nil {
				return nil, err
			}
			text, err := evalGHTemplate(run.Value, ctx)
			if err != nil {
				return nil, &PosError{File: tmpl.file, Line: run.Line, Col: run.Column, Err: err}
			}
			h.Run = text
			line := run.Line
			if run.Style == yaml.LiteralStyle || run.Style == yaml.FoldedStyle {
				line++
			}
			h.RunPos = Pos{File: tmpl.rel, Line: line, Col: 1}
			h.pairs = h.envPairs()
			return h, nil
		}
	}
	return nil, &PosError{File: tmpl.file, Err: fmt.Errorf("no step runs runners/launch_*.sh")}
}

// ghTyped converts an input value to its declared workflow_call type.
func ghTyped(v any, typ string) any {
	switch typ {
	case "boolean":
		switch x := v.(type) {
		case bool:
			return x
		case string:
			return strings.EqualFold(x, "true")
		}
		return ghTruthy(v)
	case "number":
		return ghNumber(v)
	case "string":
		return ghString(v)
	}
	return v
}

// runnerNames returns the runner names configs/runners.yaml lists under a
// runner label (`labels:` mapping, or the older flat mapping of label →
// names), in file order. Source: InferenceX configs/runners.yaml; the
// workflow runs on a runner carrying the label and calls
// runners/launch_${RUNNER_NAME%%_*}.sh.
func (ws *Workspace) runnerNames(label string) []string {
	ws.snInit()
	return ws.sn.runners.labels[label]
}

// launchers groups a label's runner names by the launcher each one runs
// (runners/launch_<name up to the first '_'>.sh), sorted by launcher file;
// the first runner name of each group stands for it.
func (ws *Workspace) launchers(label string) []launcherRef {
	byFile := map[string]*launcherRef{}
	for _, name := range ws.runnerNames(label) {
		prefix := name
		if i := strings.IndexByte(name, '_'); i >= 0 {
			prefix = name[:i]
		}
		f := "runners/launch_" + prefix + ".sh"
		if r, ok := byFile[f]; ok {
			r.runners = append(r.runners, name)
			continue
		}
		byFile[f] = &launcherRef{rel: f, runners: []string{name}}
	}
	out := make([]launcherRef, 0, len(byFile))
	for _, r := range byFile {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out
}

// launcherRef is one launcher a runner label can run.
type launcherRef struct {
	rel     string   // runners/launch_<prefix>.sh
	runners []string // runner names that run it
}
