package infx

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// DefaultSrtSlurmVersion is the srt-slurm injection profile used when
// Options.SrtSlurmVersion is empty: NVIDIA/srt-slurm main at c88ef731.
const DefaultSrtSlurmVersion = "v1.0.68"

// Options configure Render.
type Options struct {
	// SrtSlurmVersion picks the flags and env srt-slurm injects
	// (shared/spec/srt-slurm.md §0): v1.0.68 (default), v1.0.53, …,
	// sa-submission-q2-2026.
	SrtSlurmVersion string
	// ScriptEnv adds to or overrides the environment a single-node script
	// runs with ("NAME=value").
	ScriptEnv []string
	// ScriptTimeout and ScriptSteps bound a script run (defaults
	// DefaultScriptTimeout, DefaultScriptSteps).
	ScriptTimeout time.Duration
	ScriptSteps   int
}

// Render renders one point into the processes it starts. Recipes go
// through package infx/srtslurm with the master entry's model and image;
// scripts run in the RunScript sandbox with the point's environment.
// Errors: ErrNotRenderable (wrapped, with the point's note) for a status
// other than StatusOK; recipe and script errors carry file:line:col.
func (ws *Workspace) Render(p Point, opt Options) (launch.Deployment, error) {
	return ws.render(p, opt, nil)
}

// render is Render with an optional cache of loaded recipes (RenderAll).
func (ws *Workspace) render(p Point, opt Options, cache recipeCache) (launch.Deployment, error) {
	if p.Status != StatusOK {
		return launch.Deployment{}, &PosError{File: p.RefPos.File, Line: p.RefPos.Line, Col: p.RefPos.Col, Err: fmt.Errorf("%w: %s: %s", ErrNotRenderable, p.Status, p.Note)}
	}
	d := launch.Deployment{
		Source: launch.Source{ConfigKey: p.ConfigKey, Row: p.Row, Concurrency: p.Concurrency, Selector: p.Selector},
		Engine: p.Engine, Model: p.Model, Hardware: p.Hardware,
	}
	switch p.Kind {
	case KindRecipe:
		procs, sel, err := ws.renderRecipe(p, opt, cache)
		if err != nil {
			return launch.Deployment{}, err
		}
		d.Source.File, d.Source.Recipe, d.Source.Selector = ws.rel(p.Recipe), p.RecipeRef, sel
		d.Processes = procs
	case KindScript:
		so := ScriptOptions{
			Env: ScriptEnv(p, opt.ScriptEnv), ReadRoots: []string{ws.Root},
			Timeout: opt.ScriptTimeout, Steps: opt.ScriptSteps,
		}
		procs, err := ws.scriptProcesses(p, so, filepath.Join(ws.Base, "benchmarks", "benchmark_lib.sh"))
		if err != nil {
			return launch.Deployment{}, err
		}
		d.Source.File = ws.rel(p.Script)
		d.Processes = procs
	default:
		return launch.Deployment{}, fmt.Errorf("%w: %s", ErrNotRenderable, p.Note)
	}
	return d, nil
}

// scriptProcesses runs the point's script with the checkout's
// benchmark_lib.sh (when there is one) and, if that fails or launches
// nothing, again with the stub library alone.
func (ws *Workspace) scriptProcesses(p Point, so ScriptOptions, lib string) ([]launch.Process, error) {
	if isFile(lib) {
		so.Lib = lib
		if run, err := RunScript(p.Script, so); err == nil {
			if procs, err := ScriptProcesses(run, ws.rel(p.Script)); err == nil {
				return procs, nil
			}
		}
		so.Lib = ""
	}
	run, err := RunScript(p.Script, so)
	if err != nil {
		return nil, err
	}
	return ScriptProcesses(run, ws.rel(p.Script))
}

// ScriptEnv is the environment a runner exports for a single-node script
// (InferenceX benchmark-tmpl.yml / runners/launch_*.sh; spec (c)): MODEL,
// MODEL_PREFIX, PRECISION, FRAMEWORK, IMAGE, TP, EP_SIZE, DP_ATTENTION,
// CONC, ISL, OSL, MAX_MODEL_LEN (ISL+OSL), SPEC_DECODING, EVAL_ONLY=false,
// PORT=8888, KV_OFFLOADING, TOTAL_CPU_DRAM_GB (agentic, see
// Point.TotalCPUDRAMGB), RESULT_DIR, RANDOM_RANGE_RATIO; extra entries
// ("NAME=value") override.
func ScriptEnv(p Point, extra []string) []string {
	ep := p.EP
	if ep == 0 {
		ep = 1
	}
	spec := p.SpecDecoding
	if spec == "" {
		spec = "none"
	}
	kv := p.KVOffloading
	if kv == "" {
		kv = "none"
	}
	env := []string{
		"MODEL=" + p.Model, "MODEL_PREFIX=" + p.ModelPrefix, "PRECISION=" + p.Precision,
		"FRAMEWORK=" + p.Framework, "IMAGE=" + p.Image, "RUNNER_TYPE=" + p.Runner,
		"TP=" + strconv.Itoa(p.TP), "EP_SIZE=" + strconv.Itoa(ep), "DP_ATTENTION=" + strconv.FormatBool(p.DPAttn),
		"CONC=" + strconv.Itoa(p.Concurrency), "SPEC_DECODING=" + spec, "EVAL_ONLY=false",
		"PORT=8888", "KV_OFFLOADING=" + kv, "RESULT_DIR=/workspace/results", "RANDOM_RANGE_RATIO=1.0",
	}
	if p.TotalCPUDRAMGB > 0 {
		env = append(env, "TOTAL_CPU_DRAM_GB="+strconv.Itoa(p.TotalCPUDRAMGB))
	}
	if p.ISL > 0 || p.OSL > 0 {
		env = append(env, "ISL="+strconv.Itoa(p.ISL), "OSL="+strconv.Itoa(p.OSL), "MAX_MODEL_LEN="+strconv.Itoa(p.ISL+p.OSL))
	}
	idx := map[string]int{}
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		idx[k] = i
	}
	for _, kv := range extra {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if i, found := idx[k]; found {
			env[i] = kv
		} else {
			idx[k] = len(env)
			env = append(env, kv)
		}
	}
	return env
}

// Summary counts a run over config keys (RenderAll).
type Summary struct {
	Keys         int `json:"keys"`
	Points       int `json:"points"`
	Rendered     int `json:"rendered"`
	UpstreamOnly int `json:"upstreamOnly"`
	Missing      int `json:"missing"`
	Unsupported  int `json:"unsupported"`
	// OutOfScope counts points outside Check 3 (TRT-LLM, ATOM, TileRT),
	// whatever their status; they are rendered like the others.
	OutOfScope int `json:"outOfScope"`
	Errors     int `json:"errors"`
	// Failures holds one line per render error: "key row N conc C: error".
	Failures []string `json:"failures,omitempty"`
}

// RenderAll renders every point of every config key (or of keys, when
// given) and counts the outcomes. Render errors are counted and listed,
// never fatal; only an unknown key is an error.
func (ws *Workspace) RenderAll(keys []string, opt Options) (Summary, error) {
	if keys == nil {
		keys = ws.ConfigKeys()
	}
	var s Summary
	cache := recipeCache{}
	for _, k := range keys {
		pts, err := ws.Points(k)
		if err != nil {
			return s, err
		}
		s.Keys++
		for _, p := range pts {
			s.Points++
			if !p.InScope {
				s.OutOfScope++
			}
			switch p.Status {
			case StatusUpstreamOnly:
				s.UpstreamOnly++
				continue
			case StatusMissing:
				s.Missing++
				continue
			case StatusUnsupported:
				s.Unsupported++
				continue
			}
			if _, err := ws.render(p, opt, cache); err != nil {
				s.Errors++
				s.Failures = append(s.Failures, fmt.Sprintf("%s row %d conc %d: %v", p.ConfigKey, p.Row, p.Concurrency, err))
				continue
			}
			s.Rendered++
		}
	}
	return s, nil
}
