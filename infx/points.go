package infx

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Kind says what a Point runs.
type Kind string

// Point kinds.
const (
	KindRecipe Kind = "recipe" // an srt-slurm recipe (CONFIG_FILE or srt-recipe)
	KindScript Kind = "script" // a single-node benchmark shell script
	KindOther  Kind = "other"  // a format infx does not render (see Point.Note)
	// KindBatch: a multi-node point whose launcher submits a Slurm batch
	// job script of the checkout with sbatch (renderBatch).
	KindBatch Kind = "batch"
)

// Status says whether a Point can be rendered from the checkout.
type Status string

// Point statuses.
const (
	// StatusOK: the recipe or script is in the checkout.
	StatusOK Status = "ok"
	// StatusUpstreamOnly: a CONFIG_FILE=recipes/… reference that is not in
	// the checkout: it lives in the NVIDIA/srt-slurm ref the launcher clones
	// (runners/launch_*.sh), not in InferenceX.
	StatusUpstreamOnly Status = "upstream-only"
	// StatusMissing: an srt-recipe reference or a single-node script that
	// should be in the checkout but is not.
	StatusMissing Status = "missing"
	// StatusUnsupported: a format infx does not render (AMD sglang-disagg's
	// amd_utils/models.yaml; an llm-d recipe key or setting llmd.go does not
	// model), or a script the sandbox cannot
	// evaluate faithfully (an unknown command in a condition, an exit before
	// any server launch); Note says which, with file:line.
	StatusUnsupported Status = "unsupported"
	// StatusAmbiguous: the launchers of the row's runner label would run
	// different scripts (Note names them).
	StatusAmbiguous Status = "ambiguous"
	// StatusTimeLimit: the sandbox's wall-clock backstop stopped the
	// run (ErrScriptTimeLimit): nothing is known about the point; re-run.
	StatusTimeLimit Status = "time limit"
	// StatusOutOfScope: a framework Check 3 does not cover (TRT-LLM incl.
	// dynamo-trt, ATOM, TileRT); such points are not rendered by RenderAll.
	StatusOutOfScope Status = "out-of-scope"
)

// Point is one benchmark point: one search-space row of a config key at one
// concurrency, with everything needed to render it.
type Point struct {
	ConfigKey   string `json:"configKey"`
	Row         int    `json:"row"`
	Concurrency int    `json:"concurrency"`
	Scenario    string `json:"scenario"` // fixed-seq-len | agentic-coding
	ISL         int    `json:"isl,omitempty"`
	OSL         int    `json:"osl,omitempty"`

	Framework   string `json:"framework"` // master `framework`
	Engine      string `json:"engine"`    // sglang | vllm | trtllm | atom | tilert
	Runner      string `json:"runner"`
	Hardware    string `json:"hardware"` // runner SKU: b200, gb300, mi355x, …
	Precision   string `json:"precision"`
	Image       string `json:"image"`
	Model       string `json:"model"`
	ModelPrefix string `json:"modelPrefix"`
	Multinode   bool   `json:"multinode"`
	Disagg      bool   `json:"disagg"`

	Kind   Kind   `json:"kind"`
	Status Status `json:"status"`
	// InScope: Check 3 covers the framework (vLLM/SGLang, Dynamo, llm-d).
	// Out-of-scope points (TRT-LLM, ATOM, TileRT) are still rendered.
	InScope bool `json:"inScope"`

	// RecipeRef is the reference as written (CONFIG_FILE value or
	// srt-recipe-dir + srt-recipe), without the selector.
	RecipeRef string `json:"recipeRef,omitempty"`
	// Recipe is the resolved recipe file (filesystem path), "" when not in
	// the checkout.
	Recipe string `json:"recipe,omitempty"`
	// Selector is "", base, override_<name>, zip_override_<name>[i].
	Selector string `json:"selector,omitempty"`
	// LaneBlocks are the new layout's shared blocks (configs/srt-recipes/…)
	// merged under the recipe.
	LaneBlocks []string `json:"laneBlocks,omitempty"`
	// Script is the resolved single-node script (filesystem path); Scripts
	// lists the paths tried (repository-relative) when it is missing.
	Script  string   `json:"script,omitempty"`
	Scripts []string `json:"scriptsTried,omitempty"`

	// Settings are the row's additional-settings (prefill then decode).
	Settings []Setting `json:"settings,omitempty"`
	// Row fields the script environment needs.
	TP           int    `json:"tp,omitempty"`
	EP           int    `json:"ep,omitempty"`
	PP           int    `json:"pp,omitempty"`
	DPAttn       bool   `json:"dpAttn,omitempty"`
	SpecDecoding string `json:"specDecoding,omitempty"`
	KVOffloading string `json:"kvOffloading,omitempty"`
	// KVOffloadBackend is the row's kv-offload-backend name (hicache,
	// mooncake, …) and KVOffloadBackendVersion its version, if any.
	KVOffloadBackend        string `json:"kvOffloadBackend,omitempty"`
	KVOffloadBackendVersion string `json:"kvOffloadBackendVersion,omitempty"`
	// Offloading is the legacy agentic `offloading` value (before
	// 2026-07-02: none, cpu, ssd, …) and Duration the agentic run length in
	// seconds the matrix gives (legacy `duration`, else 3600); both reach
	// the script as the workflow passes them.
	Offloading string `json:"offloading,omitempty"`
	Duration   int    `json:"duration,omitempty"`
	// Launchers are the runner launchers (runners/launch_*.sh, repository
	// relative) the row's runner label can run, sorted; empty when the
	// checkout has none for the label (the script is then located by the
	// launchers' common naming rule, see scriptCandidates).
	Launchers []string `json:"launchers,omitempty"`
	// Prefill and Decode are a multi-node row's worker blocks, and
	// RowConcurrencies the row's concurrency list (the multi-node matrix
	// entry carries them: generate_sweep_configs.py).
	Prefill          *WorkerBlock `json:"-"`
	Decode           *WorkerBlock `json:"-"`
	RowConcurrencies []int        `json:"-"`
	// edits are a launcher's changes to the recipe file before srtctl
	// reads it (Submission.Edits).
	edits []RecipeEdit
	// setupScript overrides the recipe's setup_script (Submission).
	setupScript string
	// containers resolves the recipe's container aliases (Submission);
	// nil: the master image replaces model.container.
	containers map[string]string
	// DRAMUtilization is the agentic scenario's dram-utilization;
	// TotalCPUDRAMGB the host DRAM budget it gives on the runner
	// (runners.yaml available-cpu-dram-mib × dram-utilization, in GiB,
	// rounded down; 0 when unknown).
	DRAMUtilization float64 `json:"dramUtilization,omitempty"`
	TotalCPUDRAMGB  int     `json:"totalCpuDramGb,omitempty"`

	// Note explains a non-OK status.
	Note string `json:"note,omitempty"`
	// Pos is the row's position; RefPos that of the recipe reference.
	Pos    Pos `json:"pos"`
	RefPos Pos `json:"refPos"`
}

// Engine maps a master `framework` to its serving engine.
func Engine(framework string) string {
	switch framework {
	case "sglang", "dynamo-sglang", "sglang-disagg":
		return "sglang"
	case "vllm", "dynamo-vllm", "llmd-vllm", "vllm-disagg":
		return "vllm"
	case "trt", "dynamo-trt":
		return "trtllm"
	case "atom", "atom-disagg":
		return "atom"
	case "tilert":
		return "tilert"
	}
	return framework
}

// InScope reports whether Check 3 covers a framework: every vLLM/SGLang
// production serving configuration, Dynamo and llm-d included
// (.github/codeowner-signoff-verify-prompt.md Check 3; spec (e)).
func InScope(framework string) bool {
	e := Engine(framework)
	return e == "sglang" || e == "vllm"
}

// Hardware gives the SKU of a runner label: "cluster:gb300-nv" → "gb300",
// "b200-multinode" → "b200", "mi355x" → "mi355x".
func Hardware(runner string) string {
	r := strings.TrimPrefix(runner, "cluster:")
	if i := strings.IndexByte(r, '-'); i > 0 {
		r = r[:i]
	}
	return r
}

// splitSelector splits "file.yaml:selector" (the selector is after the last
// colon, when that part has no slash).
func splitSelector(ref string) (file, sel string) {
	if i := strings.LastIndexByte(ref, ':'); i >= 0 && !strings.Contains(ref[i+1:], "/") {
		return ref[:i], ref[i+1:]
	}
	return ref, ""
}

// Points returns every point of key: rows in file order, concurrencies in
// row order. Errors: ErrUnknownKey.
func (ws *Workspace) Points(key string) ([]Point, error) {
	e, err := ws.Entry(key)
	if err != nil {
		return nil, err
	}
	var out []Point
	for i := range e.Rows {
		r := &e.Rows[i]
		base := ws.rowPoint(e, r)
		for _, c := range r.Concurrencies {
			p := base
			p.Concurrency = c
			out = append(out, p)
		}
	}
	return out, nil
}

// rowPoint fills everything but the concurrency.
func (ws *Workspace) rowPoint(e *Entry, r *Row) Point {
	p := Point{
		ConfigKey: e.Key, Row: r.Index, Scenario: r.Scenario, ISL: r.ISL, OSL: r.OSL,
		Framework: e.Framework, Engine: Engine(e.Framework), Runner: e.Runner, Hardware: Hardware(e.Runner),
		Precision: e.Precision, Image: e.Image, Model: e.Model, ModelPrefix: e.ModelPrefix,
		Multinode: e.Multinode, Disagg: e.Disagg, InScope: InScope(e.Framework),
		TP: r.TP, EP: r.EP, DPAttn: r.DPAttn, SpecDecoding: r.SpecDecoding, KVOffloading: r.KVOffloading,
		DRAMUtilization: r.DRAMUtilization, Pos: r.Pos,
	}
	if r.PP > 0 {
		p.PP = r.PP
	}
	if r.KVOffloadBackend != nil {
		p.KVOffloadBackend, p.KVOffloadBackendVersion = r.KVOffloadBackend.Name, r.KVOffloadBackend.Version
	}
	p.TotalCPUDRAMGB = ws.agenticDRAMGB(e, r)
	p.Offloading = r.Offloading
	if r.Scenario == "agentic-coding" {
		// generate_sweep_configs.py: DEFAULT_AGENTIC_DURATION_SECONDS
		// (3600); the legacy per-group `duration` (default 1800) before.
		p.Duration = 3600
		if r.Duration > 0 {
			p.Duration = r.Duration
		} else if r.Offloading != "" {
			p.Duration = 1800
		}
	}
	for _, wb := range []*WorkerBlock{r.Prefill, r.Decode, r.Worker} {
		if wb != nil {
			p.Settings = append(p.Settings, wb.AdditionalSettings...)
		}
	}
	p.Prefill, p.Decode, p.RowConcurrencies = r.Prefill, r.Decode, r.Concurrencies
	if p.TP == 0 && r.Worker != nil {
		p.TP, p.EP, p.DPAttn = r.Worker.TP, r.Worker.EP, r.Worker.DPAttn
	}
	if p.TP == 0 && r.Decode != nil {
		p.TP, p.EP, p.DPAttn = r.Decode.TP, r.Decode.EP, r.Decode.DPAttn
	}
	switch cf, hasCF := r.setting("CONFIG_FILE"); {
	case r.SrtRecipe != "":
		// New layout: srt-recipe-dir on the entry, srt-recipe per row
		// (infx/matrix/validation.py; CONFIGS.md).
		p.Kind = KindRecipe
		file, sel := splitSelector(r.SrtRecipe)
		file = path.Clean(file)
		p.Selector, p.RefPos = sel, r.SrtRecipePos
		p.RecipeRef = file
		if e.SrtRecipeDir != "" {
			p.RecipeRef = e.SrtRecipeDir + "/" + file
		}
		// Recipe trees: the entry's own node kind first, then the other.
		p.Recipe = ResolveRecipe(ws.Base, file, ResolveOptions{Form: FormSrtRecipe, SrtRecipeDir: e.SrtRecipeDir, Multinode: e.Multinode}).File
		if p.Recipe == "" {
			p.Status, p.Note = StatusMissing, "srt-recipe "+p.RecipeRef+" is not in the checkout"
		} else {
			p.Status = StatusOK
		}
		p.LaneBlocks = ws.laneBlocks(r, e.Multinode)
	case e.Framework == "llmd-vllm" && e.Multinode:
		// llm-d: CONFIG_FILE names a benchmarks/multi_node/llm-d-recipes file (llmd.go).
		ws.llmdPoint(&p, r)
	case hasCF:
		// Old layout (and intermediate new-layout revisions):
		// prefill.additional-settings CONFIG_FILE=recipes/<file>[:selector];
		// the launcher overlays benchmarks/multi_node/srt-slurm-recipes/ onto
		// the srt-slurm clone's recipes/.
		p.Kind = KindRecipe
		file, sel := splitSelector(cf.Value)
		// Master validation refused references that leave their root;
		// cleaning folds "a/../b" so the checks below see the real path.
		file = path.Clean(file)
		p.RecipeRef, p.Selector, p.RefPos = file, sel, cf.Pos
		if strings.HasPrefix(file, "benchmarks/") {
			// A repository-relative recipe path.
			if p.Recipe = ResolveRecipe(ws.Base, file, ResolveOptions{}).File; p.Recipe == "" {
				p.Status, p.Note = StatusMissing, "recipe "+file+" is not in the checkout"
			} else {
				p.Status = StatusOK
			}
			break
		}
		if !strings.HasPrefix(file, "recipes/") {
			p.Kind, p.Status = KindOther, StatusUnsupported
			p.Note = "CONFIG_FILE " + cf.Value + " is not an srt-slurm recipe (" + e.Framework + " launcher config)"
			break
		}
		if ls := ws.launchersOf(e.Runner); len(ls) > 0 && e.Multinode {
			// The launchers decide which srt-slurm clone (repository,
			// ref) runs the recipe and whether it is the checkout's copy
			// or the clone's own file: Render runs them (submission).
			p.Launchers, p.Status = ls, StatusOK
			break
		}
		// The launcher's overlay, then the srt-slurm clone (--srt-slurm-dir).
		res := ResolveRecipe(ws.Base, file, ResolveOptions{SrtSlurmDir: ws.SrtSlurmDir})
		p.Recipe = res.File
		if res.Upstream() {
			p.Status, p.Note = StatusUpstreamOnly, "recipe "+file+" is not in the checkout: it lives in the NVIDIA/srt-slurm ref the launcher clones"
		} else {
			p.Status = StatusOK
		}
	case e.Multinode && e.Framework == "sglang-disagg" && len(ws.launchersOf(e.Runner)) > 0:
		// runners/launch_mi355x-amds.sh submits a Slurm batch job
		// (amd_utils/submit.sh → job.slurm): renderBatch follows it.
		p.Kind, p.Status, p.RefPos = KindBatch, StatusOK, r.Pos
		p.Launchers = ws.launchersOf(e.Runner)
	case e.Multinode:
		p.Kind, p.Status, p.RefPos = KindOther, StatusUnsupported, r.Pos
		switch e.Framework {
		case "sglang-disagg", "atom-disagg":
			// An AMD multi-node entry: its launcher submits
			// amd_utils/job.slurm with sbatch (renderBatch follows it for
			// sglang-disagg); without a launcher of the runner label, or
			// for atom-disagg (server_atom.sh's models_atom.yaml reader, a
			// python3 heredoc, is not a known helper program), it is not
			// followed.
			script := fmt.Sprintf("benchmarks/multi_node/%s_%s_%s_%s.sh", e.ModelPrefix, e.Precision, Hardware(e.Runner), e.Framework)
			where := "not in the checkout"
			if isFile(filepath.Join(ws.Base, filepath.FromSlash(script))) {
				where = "in the checkout"
			}
			if e.Framework == "atom-disagg" {
				p.Note = fmt.Sprintf("%s: AMD multi-node script %s (%s) runs server_atom.sh, whose amd_utils/models_atom.yaml reader (a python3 heredoc) is not a known helper program", e.Framework, script, where)
			} else {
				p.Note = fmt.Sprintf("%s: no launcher of runner label %s (runners/launch_*.sh) is in the checkout: what submits the batch job of %s (%s) is not known", e.Framework, e.Runner, script, where)
			}
		case "tilert":
			p.Note = "tilert: launched by its own multinode scripts, not an srt-slurm recipe"
		default:
			p.Note = "multinode row without CONFIG_FILE or srt-recipe"
		}
	default:
		p.Kind = KindScript
		p.RefPos = r.Pos
		if ls := ws.launchersOf(e.Runner); len(ls) > 0 {
			// The script is the one the launchers choose when they run
			// (Workspace.Render); the point is renderable as long as a
			// launcher exists.
			p.Launchers, p.Status = ls, StatusOK
			break
		}
		p.Scripts = ws.scriptCandidates(e, r)
		p.Script = firstFile(p.Scripts)
		for i, s := range p.Scripts {
			p.Scripts[i] = ws.rel(s)
		}
		p.RefPos = r.Pos
		if p.Script == "" {
			p.Status, p.Note = StatusMissing, "no single-node script in the checkout (tried "+strings.Join(p.Scripts, ", ")+")"
		} else {
			p.Status, p.Scripts = StatusOK, nil
		}
	}
	return p
}

// firstFile returns the first candidate that exists, whatever its type: a
// directory or other non-regular file is returned too, so that reading it
// (launch.ReadInput) reports it as an error instead of the reference being
// taken for one that is not in the checkout.
func firstFile(cands []string) string {
	for _, c := range cands {
		if exists(c) {
			return c
		}
	}
	return ""
}

// laneBlocks returns the existing shared blocks for the row's lane:
// configs/srt-recipes/{fixed-sequence,agentic}-{single,multi}.yaml, plus
// telemetry-dcgm.yaml for `power: true` (infx/srt_slurm/workload.py).
func (ws *Workspace) laneBlocks(r *Row, multinode bool) []string {
	lane := "fixed-sequence"
	if r.Scenario == "agentic-coding" {
		lane = "agentic"
	}
	node := "single"
	if multinode {
		node = "multi"
	}
	names := []string{lane + "-" + node + ".yaml"}
	if r.Power {
		names = append(names, "telemetry-dcgm.yaml")
	}
	var out []string
	for _, n := range names {
		if p := filepath.Join(ws.Base, "configs", "srt-recipes", n); isFile(p) {
			out = append(out, p)
		}
	}
	return out
}

// ScriptCandidates lists the single-node scripts the launchers' common
// naming rule names for key's single-node rows (scriptCandidates),
// slash-separated and relative to the checkout root, each once in row
// order, whether or not the file exists; nil for a key that did not load
// or has only multi-node rows. `signoff` uses them to tell a changed script
// of one key — even an out-of-scope key, which is never rendered — from a
// file every key shares (InferenceX runners/launch_*.sh BENCH_SCRIPT).
func (ws *Workspace) ScriptCandidates(key string) []string {
	e, err := ws.Entry(key)
	if err != nil || e.Multinode {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for i := range e.Rows {
		for _, c := range ws.scriptCandidates(e, &e.Rows[i]) {
			if r := filepath.ToSlash(ws.rel(c)); !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// scriptCandidates lists where the launchers' common rule looks for a
// single-node script when the checkout has no launcher for the runner label
// (runners/launch_b200-dgxc.sh): benchmarks/single_node/<fixed_seq_len|
// agentic>/<model-prefix>_<precision>_<sku>_<framework><spec>.sh, falling
// back to <model-prefix>_<precision>_<sku>[_trt]<spec>.sh (_trt only for
// framework trt); <spec> is _mtp when spec-decoding is mtp. Older scripts
// sit directly in benchmarks/single_node/.
func (ws *Workspace) scriptCandidates(e *Entry, r *Row) []string {
	sub := "fixed_seq_len"
	if r.Scenario == "agentic-coding" {
		sub = "agentic"
	}
	spec := ""
	if r.SpecDecoding == "mtp" {
		spec = "_mtp"
	}
	stem := e.ModelPrefix + "_" + e.Precision + "_" + Hardware(e.Runner)
	// runners/launch_b200-dgxc.sh: BENCH_SCRIPT=<base>_${FRAMEWORK}${SPEC_SUFFIX}.sh,
	// else <base>${FRAMEWORK_SUFFIX}${SPEC_SUFFIX}.sh with FRAMEWORK_SUFFIX
	// _trt for trt only.
	fwSuffix := ""
	if e.Framework == "trt" {
		fwSuffix = "_trt"
	}
	names := []string{stem + "_" + e.Framework + spec + ".sh", stem + fwSuffix + spec + ".sh"}
	var out []string
	for _, dir := range []string{filepath.Join(ws.Base, "benchmarks", "single_node", sub), filepath.Join(ws.Base, "benchmarks", "single_node")} {
		for _, n := range names {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}
