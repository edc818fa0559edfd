// Package launch is the one model every source is turned into: a Deployment
// is an ordered list of Processes (workers, routers, frontends and the
// services they need), each with its program, its arguments and its
// environment, every setting tagged with the Origin it came from.
//
// The SGLang cookbook (package cookbook), vLLM recipes (package recipes) and
// InferenceX / srt-slurm recipes (package infx) all produce Deployments;
// package compare only ever reads Deployments, so it never needs to know which
// source a setting came from beyond its Origin.
package launch

import (
	"slices"
	"strings"
)

// Kind is what a Process is. The values are the block kinds of the SGLang
// cookbook's AgentX data (sgl-project/sglang docs/src/snippets/agentx/*.jsx,
// field blocks[].kind) plus the vLLM router and the TRT-LLM server, which
// srt-slurm and vllm-project/recipes can start.
type Kind string

// Process kinds.
const (
	KindWorker         Kind = "worker"          // an inference engine worker (SGLang, vLLM, TRT-LLM)
	KindSGLangRouter   Kind = "sglang-router"   // python3 -m sglang_router.launch_router
	KindDynamoFrontend Kind = "dynamo-frontend" // python3 -m dynamo.frontend
	KindVLLMRouter     Kind = "vllm-router"     // vllm-router / the recipes site's router role
	KindEtcd           Kind = "etcd"            // etcd, the Dynamo discovery store
	KindNATS           Kind = "nats"            // nats-server, the Dynamo event plane
	KindNginx          Kind = "nginx"           // nginx in front of several frontends
	KindMooncakeMaster Kind = "mooncake-master" // mooncake_master (KV tier "mooncake")
	KindMooncakeStore  Kind = "mooncake-store"  // mooncake store service (KV tier "mooncake")
	// KindService is a generic service of a schema-2 srt-slurm recipe
	// (NVIDIA/srt-slurm srtctl 2.x src/srtctl/services/config.py, services[]
	// entry with type generic): a recipe-given command, compared like a
	// worker (presence, count, command, args, env).
	KindService Kind = "service"
)

// IsFrontend reports whether k is a request entry point (router or frontend):
// the processes compare pairs as the "frontend" role.
func (k Kind) IsFrontend() bool {
	return k == KindSGLangRouter || k == KindDynamoFrontend || k == KindVLLMRouter
}

// IsService reports whether k is an infrastructure service (etcd, NATS,
// nginx, Mooncake): compare only checks that it is present and how many run.
func (k Kind) IsService() bool {
	switch k {
	case KindEtcd, KindNATS, KindNginx, KindMooncakeMaster, KindMooncakeStore:
		return true
	}
	return false
}

// Role is the serving role of a worker: agg (aggregated, prefill and decode
// in one engine), prefill or decode (disaggregated). Non-worker processes
// have RoleNone. Source: AgentX blocks[].role; srt-slurm resources
// (agg_nodes / prefill_nodes / decode_nodes).
type Role string

// Worker roles.
const (
	RoleNone    Role = ""
	RoleAgg     Role = "agg"
	RolePrefill Role = "prefill"
	RoleDecode  Role = "decode"
)

// KV tiers of the SGLang cookbook (AgentX cell.kv / point.kv).
const (
	KVNone     = "none"
	KVHiCache  = "hicache"
	KVMooncake = "mooncake"
)

// OriginKind says which kind of source a setting came from.
type OriginKind string

// Origin kinds.
const (
	// OriginCookbook: a value stored in a cookbook snippet; Origin.Path is the
	// JSON path, e.g. "cells[6].routers.dynamo.blocks[4].diff.args".
	OriginCookbook OriginKind = "cookbook"
	// OriginPatch: set by a cookbook per-point patch (cells[i].points[j].patch).
	OriginPatch OriginKind = "patch"
	// OriginKVDerived: added or removed by the cookbook's KV-tier transform.
	OriginKVDerived OriginKind = "kv-derived"
	// OriginRecipe: written in a recipe; Origin.Path is the YAML path, e.g.
	// "override_tp4_tp4_c8.backend.sglang_config.decode.cuda-graph-max-bs".
	OriginRecipe OriginKind = "recipe"
	// OriginInjected: added by the launcher itself (srt-slurm, the recipes
	// site's command synthesis); Origin.Detail names the launcher and version.
	OriginInjected OriginKind = "injected"
	// OriginScript: extracted from a benchmark shell script.
	OriginScript OriginKind = "script"
	// OriginWorkflow: set by the benchmark workflow's env blocks
	// (.github/workflows/benchmark-tmpl.yml), at file:line.
	OriginWorkflow OriginKind = "workflow"
	// OriginLauncher: set by the runner launcher (runners/launch_*.sh) that
	// started the script (its exports, srun --export=…), at file:line.
	OriginLauncher OriginKind = "launcher"
)

// Origin is where one setting came from, precise enough to quote in
// evidence.
type Origin struct {
	Kind   OriginKind `json:"kind"`
	Path   string     `json:"path,omitempty"`   // JSON/YAML path or file:line
	Detail string     `json:"detail,omitempty"` // e.g. "srt-slurm v1.0.68"
}

// String gives "kind path (detail)" with empty parts left out.
func (o Origin) String() string {
	s := string(o.Kind)
	if o.Path != "" {
		s += " " + o.Path
	}
	if o.Detail != "" {
		s += " (" + o.Detail + ")"
	}
	return s
}

// Arg is one command-line flag with its values, in command order. A bare flag
// has no Values; "--prefill URL 8998" has two. Positional arguments (a vLLM
// model after "serve") have an empty Flag and one value. Flags may repeat.
type Arg struct {
	Flag   string   `json:"flag"`
	Values []string `json:"values,omitempty"`
	Origin Origin   `json:"origin"`
	// Unknown, when set, says why the flag's presence or value is not
	// known: the script sets it only on some machines, by a fact that is
	// not published (an InferenceX script's MEC firmware probe). Such a
	// flag is never a match and never a difference (package compare: not
	// verified).
	Unknown string `json:"unknown,omitempty"`
	// Harness, when set, says a harness step rewrote this argument for the
	// benchmark run: Values are what the run used, Harness.Values what the
	// production path gives (see HarnessEdit).
	Harness *HarnessEdit `json:"harness,omitempty"`
}

// HarnessEdit is an argument as InferenceX's production path has it where a
// harness step rewrote it for the benchmark run: SemiAnalysisAI/InferenceX
// runners/inject_synthetic_acceptance.py (backend
// runners/synthetic_injectors/vllm.py rewrite) sets rejection_sample_method
// synthetic and synthetic_acceptance_length in every speculative-config of
// the srt-slurm recipe it submits, replacing what the recipe as committed
// says. package compare compares an upstream value with the production one
// where an exclusion of scope side takes the harness value out
// (exclusions.ScopeSide).
type HarnessEdit struct {
	// By names the step, e.g. "runners/inject_synthetic_acceptance.py
	// (inject_synthetic_acceptance.py@bafda7a0)".
	By string `json:"by"`
	// Values are the argument's values on the production path (the recipe
	// as committed, before the step).
	Values []string `json:"values,omitempty"`
}

// MarkHarness returns run with Harness set on every argument whose values
// differ from the same argument of prod, the same deployment without the
// harness step by; an argument is the same when it has the same flag and
// occurrence number of that flag (the k-th --speculative-config). run is
// not modified (the result is a copy when something is marked); arguments
// prod lacks are left unmarked.
func MarkHarness(run, prod []Arg, by string) []Arg {
	type occ struct {
		flag string
		n    int
	}
	at := map[occ]int{}
	count := map[string]int{}
	for i, a := range prod {
		k := occ{a.Flag, count[a.Flag]}
		count[a.Flag]++
		at[k] = i
	}
	var out []Arg
	count = map[string]int{}
	for i, a := range run {
		k := occ{a.Flag, count[a.Flag]}
		count[a.Flag]++
		j, ok := at[k]
		if !ok || slices.Equal(a.Values, prod[j].Values) {
			continue
		}
		if out == nil {
			out = slices.Clone(run)
		}
		out[i].Harness = &HarnessEdit{By: by, Values: slices.Clone(prod[j].Values)}
	}
	if out == nil {
		return run
	}
	return out
}

// ProductionArgs returns args as the production path has them: each
// argument a harness step rewrote (Harness set) with its production values
// and no Harness, the others unchanged; by names the steps ("; "-joined,
// in order, each once). ok is false, and args returned as they are, when
// no argument is marked.
func ProductionArgs(args []Arg) (prod []Arg, by string, ok bool) {
	var bys []string
	for i, a := range args {
		if a.Harness == nil {
			continue
		}
		if prod == nil {
			prod = slices.Clone(args)
		}
		prod[i].Values, prod[i].Harness = slices.Clone(a.Harness.Values), nil
		if !slices.Contains(bys, a.Harness.By) {
			bys = append(bys, a.Harness.By)
		}
	}
	if prod == nil {
		return args, "", false
	}
	return prod, strings.Join(bys, "; "), true
}

// EnvVar is one environment variable set for a process.
type EnvVar struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Origin Origin `json:"origin"`
	// Unknown, when set, says why the variable's presence or value is
	// not known (see Arg.Unknown): never a match, never a difference.
	Unknown string `json:"unknown,omitempty"`
}

// Process is one launched program (a cookbook "block"): a worker of a role,
// a router/frontend, or a service.
type Process struct {
	Kind    Kind   `json:"kind"`
	Role    Role   `json:"role,omitempty"`
	Program string `json:"program"` // e.g. "python3 -m sglang.launch_server", "vllm serve"
	// Image is the container image the process runs in, as its source names
	// it ("lmsysorg/sglang:v0.5.16-cu130"); "" when the source states none.
	Image string   `json:"image,omitempty"`
	Args  []Arg    `json:"args,omitempty"`
	Env   []EnvVar `json:"env,omitempty"`

	// Workers is the number of identical worker instances (workers only; 0 = 1).
	Workers int `json:"workers,omitempty"`
	// NodesPerWorker is the number of nodes one worker spans (workers only; 0 = 1).
	NodesPerWorker int `json:"nodesPerWorker,omitempty"`
	// GPUsPerNode is the number of GPUs one worker uses on each node (0 = unknown).
	GPUsPerNode int `json:"gpusPerNode,omitempty"`
	// Count is the number of instances of a frontend, or of a service of a
	// schema-2 srt-slurm recipe (0 = 1).
	Count int `json:"count,omitempty"`
	// CountNodes is the number of nodes a service runs on (0 = 1).
	CountNodes int `json:"countNodes,omitempty"`
	// Ports lists one port per instance for services that run several per node.
	Ports []string `json:"ports,omitempty"`
	// Preamble holds shell lines run before the command (e.g. "ulimit -n 1048576").
	Preamble []string `json:"preamble,omitempty"`
	// Files names the files the process reads (e.g. "nats.conf").
	Files []string `json:"files,omitempty"`
	// FileContents holds the content of files the process reads, where the
	// source carries it: the SGLang cookbook's AgentX `files`
	// (sgl-project/sglang docs/src/snippets/agentx/*.jsx, keyed from
	// cells[].routers[].files), the files srt-slurm writes (NVIDIA/srt-slurm
	// src/srtctl/templates/nginx.conf.j2, cli/setup_head.py nats.conf).
	// package compare compares a file-valued argument by this content when
	// both sides carry it, else by file name.
	FileContents []FileContent `json:"fileContents,omitempty"`
	// Origin is where the process itself came from.
	Origin Origin `json:"origin"`
}

// FileContent is one file a Process reads, with its content (see
// Process.FileContents).
type FileContent struct {
	// Path is the file as the process names it in its arguments
	// ("nginx.conf", "/logs/nginx.conf", "/tmp/nats.conf").
	Path    string `json:"path"`
	Content string `json:"content"`
	// Origin is where the content came from (a cookbook files entry, a
	// recipe setting the launcher turned into the file).
	Origin Origin `json:"origin"`
}

// FileContent returns the content of the file arg names: the FileContents
// entry whose Path is arg or, failing that, the only entry with the same
// base name ("/logs/nginx.conf" and "nginx.conf").
func (p *Process) FileContent(arg string) (FileContent, bool) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return FileContent{}, false
	}
	for _, f := range p.FileContents {
		if f.Path == arg {
			return f, true
		}
	}
	var found []FileContent
	for _, f := range p.FileContents {
		if baseName(f.Path) == baseName(arg) {
			found = append(found, f)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return FileContent{}, false
}

func baseName(p string) string {
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// Source identifies where a Deployment came from. Cookbook fields and
// InferenceX fields are filled only for that source.
type Source struct {
	File   string `json:"file"`             // path as given, or repo-relative
	Commit string `json:"commit,omitempty"` // git commit or "sha256:<hex>" of the file

	// SGLang cookbook selection.
	CellID string `json:"cellId,omitempty"`
	Cell   int    `json:"cell,omitempty"`
	Point  int    `json:"point,omitempty"`
	Router string `json:"router,omitempty"` // sglang | dynamo
	KV     string `json:"kv,omitempty"`     // none | hicache | mooncake

	// InferenceX selection.
	ConfigKey   string `json:"configKey,omitempty"`
	Row         int    `json:"row,omitempty"`
	Concurrency int    `json:"concurrency,omitempty"`
	Recipe      string `json:"recipe,omitempty"`
	Selector    string `json:"selector,omitempty"` // "", base, override_<name>, zip_override_<name>[i]
	// SrtSlurm is the srt-slurm version (injection profile) an srt-slurm
	// recipe was rendered with: the ref the point's launcher clones, or
	// the default (package infx/srtslurm).
	SrtSlurm string `json:"srtSlurm,omitempty"`

	// vLLM recipes selection.
	Variant  string `json:"variant,omitempty"`
	Strategy string `json:"strategy,omitempty"`
	Section  string `json:"section,omitempty"` // Markdown heading chain
}

// Deployment is one runnable serving setup: its processes in launch order.
type Deployment struct {
	Source    Source    `json:"source"`
	Engine    string    `json:"engine,omitempty"`   // sglang | vllm | trtllm
	Model     string    `json:"model,omitempty"`    // Hugging Face model id
	Hardware  string    `json:"hardware,omitempty"` // e.g. gb300, b200, h200
	Processes []Process `json:"processes"`
	// Notes are facts about how the deployment was obtained that a reader
	// needs (e.g. which runner launchers would run the script).
	Notes []string `json:"notes,omitempty"`
	// Inherited is the environment every process starts with from the
	// harness (the benchmark workflow's env blocks, with their origins):
	// not written into each process's Env, but part of what the server
	// sees. package compare adds the ones no rule excludes to each worker.
	Inherited []EnvVar `json:"inherited,omitempty"`
}

// Workers returns the worker processes of role r, in launch order.
func (d *Deployment) Workers(r Role) []Process {
	var out []Process
	for _, p := range d.Processes {
		if p.Kind == KindWorker && p.Role == r {
			out = append(out, p)
		}
	}
	return out
}

// Lookup returns the values of the first occurrence of flag in args and
// whether it occurs. Flags are matched exactly.
func Lookup(args []Arg, flag string) ([]string, bool) {
	for _, a := range args {
		if a.Flag == flag {
			return a.Values, true
		}
	}
	return nil, false
}

// LookupEnv returns the value of the environment variable name and whether it
// is set.
func LookupEnv(env []EnvVar, name string) (string, bool) {
	for _, e := range env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

// Argv gives the process as an argv: Program split on spaces, then every flag
// followed by its values.
func (p *Process) Argv() []string {
	argv := strings.Fields(p.Program)
	for _, a := range p.Args {
		if a.Flag != "" {
			argv = append(argv, a.Flag)
		}
		argv = append(argv, a.Values...)
	}
	return argv
}

// Clone returns a deep copy of d: every slice (processes, their args,
// values, env, ports, preamble, files, file contents; notes, inherited env)
// and every HarnessEdit is copied, so a change to the copy never reaches d.
// A nil slice stays nil and an empty one empty (callers may tell them
// apart). Used where one rendering is handed to several callers
// (infx.Workspace.Render's per-run memo).
func (d *Deployment) Clone() Deployment {
	c := *d
	c.Notes = slices.Clone(d.Notes)
	c.Inherited = slices.Clone(d.Inherited)
	if d.Processes != nil {
		c.Processes = make([]Process, len(d.Processes))
		for i, p := range d.Processes {
			c.Processes[i] = p.clone()
		}
	}
	return c
}

// clone is Process's deep copy (Deployment.Clone).
func (p Process) clone() Process {
	c := p
	if p.Args != nil {
		c.Args = make([]Arg, len(p.Args))
		for i, a := range p.Args {
			a.Values = slices.Clone(a.Values)
			if a.Harness != nil {
				h := *a.Harness
				h.Values = slices.Clone(h.Values)
				a.Harness = &h
			}
			c.Args[i] = a
		}
	}
	c.Env = slices.Clone(p.Env)
	c.Ports = slices.Clone(p.Ports)
	c.Preamble = slices.Clone(p.Preamble)
	c.Files = slices.Clone(p.Files)
	c.FileContents = slices.Clone(p.FileContents)
	return c
}
