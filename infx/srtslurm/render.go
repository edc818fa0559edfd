package srtslurm

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Options chooses how a recipe is rendered.
type Options struct {
	// Version is the srt-slurm ref whose injected flags and env are
	// rendered, one of releases.yaml (spec §0): "" or "main" (the newest
	// release, Newest()), a release tag or a commit it points at, a branch
	// ("sa-submission-q2-2026", "aflowers/vllm-gb200-v0.20.0") or a release
	// known by its commit ("a98738de", "c1fb6989"); see KnownVersions.
	// Anything else is an error.
	Version string
	// Model replaces the recipe's model.path, verbatim: "hf:<org>/<name>"
	// (as InferenceX's new-layout binder writes it from the master
	// config's model) is passed on the command line as the HF id; any other
	// value is an srtslurm.yaml alias / host path, mounted at /model (the
	// old layout). Deployment.Model is the HF id: the hf: id, else Model
	// itself when set, else the served model name.
	Model string
	// Image replaces the recipe's model.container (the master config's
	// image; the recipe's value is only an alias).
	Image string
	// Containers is srtslurm.yaml's `containers:` map (alias → image) of
	// the cluster that runs the recipe; model.container and
	// frontend.nginx_container resolve through it, and a value that is no
	// alias is the image as written (NVIDIA/srt-slurm src/srtctl/core/
	// config.py resolve_config_with_defaults). When Containers is set, Image
	// does not replace model.container: the caller maps its aliases to the
	// image. nil: no cluster config (Image, when set, replaces the
	// container as before).
	Containers map[string]string
	// SetupScript, when set, replaces the recipe's setup_script: `srtctl
	// apply --setup-script X` (or SRTCTL_SETUP_SCRIPT in the submitting
	// environment) reaches the job as SRTCTL_SETUP_SCRIPT, which do_sweep
	// puts in place of config.setup_script (NVIDIA/srt-slurm
	// src/srtctl/cli/do_sweep.py, templates/job_script_minimal.j2).
	SetupScript string
}

// Rendering is what srt-slurm starts for one recipe variant: the srun
// steps in launch order, the files it writes into the log directory, and
// the launch.Deployment view (one Process per role block).
//
// Cluster facts are faked the way ../shared/golden/srt-slurm/README.md
// describes: nodes are node0…nodeN, node K has IP 10.0.0.K, the host model
// path is /models/<model.path alias>, the log directory is "<log_dir>" and
// TRT-LLM's random EPLB name is moe_shared_<uuid4hex>.
type Rendering struct {
	Deployment launch.Deployment

	// Label is the recipe reference printed by Text ("# recipe: …");
	// Render sets it to "<file>[:<selector>]".
	Label    string
	Selector string
	Version  string // srt-slurm ref rendered
	Name     string // job name (name after variant resolution)
	Backend  string // sglang | vllm | trtllm
	Frontend string // dynamo | sglang | vllm | trtllm_serve | sglang-direct (schema-2 "sglang")
	Schema   int
	// Warnings lists settings the recipe leaves to the caller (e.g. an
	// unbound model or image in the newer InferenceX layout).
	Warnings []string

	// Model and Image are the effective model.path and model.container.
	Model string
	Image string

	Nodes     []string // allocation, node0 first
	Infra     string   // node running etcd/NATS
	Head      string   // first worker node
	Endpoints []Endpoint
	Steps     []Step
	Files     []File
}

// Endpoint is one logical worker: its role, index, nodes and the GPU
// indices it uses on each node.
type Endpoint struct {
	Name  string // e.g. "prefill_0", "agg_0"
	Role  launch.Role
	Nodes []string
	GPUs  []int
}

// Step is one srun step.
type Step struct {
	Kind     launch.Kind
	Role     launch.Role // workers only
	Endpoint string      // workers only
	Nodes    []string
	// NTasks and MPI are printed for TRT-LLM workers and dynamo
	// frontends ("None" when srt-slurm passes no task count).
	NTasks string
	MPI    string
	Image  string
	// Env is the exported environment, in srt-slurm's insertion order.
	Env []launch.EnvVar
	// Unset lists variables unset after the exports (VLLM_PORT on
	// multi-node vLLM endpoints, v1.0.31+).
	Unset []string
	// Preamble is the bash run before the command inside bash -c ("" = none).
	Preamble string
	Program  string
	Args     []launch.Arg
	// Service is the services-registry entry name of a schema-2 service
	// step (spec §10b), "" otherwise.
	Service string
}

// Argv is the step's command: Program split on spaces, then the arguments.
func (s *Step) Argv() []string {
	p := launch.Process{Program: s.Program, Args: s.Args}
	return p.Argv()
}

// File is a file srt-slurm writes into the log directory.
type File struct {
	Name    string
	Content string
}

// Render resolves selector (see Selectors; "" for a plain recipe) and
// renders what srt-slurm version opt.Version starts for it. Errors name the
// file and line:col or YAML path: unknown selector, unknown version, wrong
// types, impossible topologies.
func (r *Recipe) Render(selector string, opt Options) (*Rendering, error) {
	prof, err := lookupProfile(opt.Version)
	if err != nil {
		return nil, &Error{File: r.File, Msg: err.Error()}
	}
	eff, err := r.variant(selector)
	if err != nil {
		return nil, err
	}
	c, err := buildConfig(r.File, eff)
	if err != nil {
		return nil, err
	}
	if opt.Model != "" {
		c.modelPath = opt.Model
	}
	if opt.Containers != nil {
		if v, ok := opt.Containers[c.container]; ok {
			c.container = v
		}
		if v, ok := opt.Containers[c.nginxImage]; ok {
			c.nginxImage = v
		}
	} else if opt.Image != "" {
		c.container = opt.Image
	}
	if opt.SetupScript != "" {
		c.setupScript = opt.SetupScript
	}
	var warnings []string
	if c.modelPath == "" {
		c.modelPath = "<model>"
		warnings = append(warnings, "model.path is not set (the InferenceX binder sets it from the master config); rendered as <model>: pass Options.Model")
	}
	warnings = append(warnings, c.svcWarnings...)
	if c.observability {
		warnings = append(warnings, "observability.enabled: the debug-span env vars srt-slurm adds to every role and frontend are not rendered")
	}
	if c.container == "" {
		c.container = "<image>"
		warnings = append(warnings, "model.container is not set (the InferenceX binder sets it from the master config); rendered as <image>: pass Options.Image")
	}
	if e, ok := eff.get("telemetry"); ok && !prof.TelemetryField {
		return nil, errAt(r.File, e.Src, "telemetry is not in srt-slurm %s (the recipe fails validation there)", prof.name)
	}
	if c.dynWheel != "" && !prof.WheelField {
		return nil, rdErr(r.File, c, "dynamo.wheel", "dynamo.wheel is not in srt-slurm %s (the recipe fails validation there)", prof.name)
	}
	if err := validate(r.File, c, prof); err != nil {
		return nil, err
	}
	rd := &renderer{c: c, p: prof, file: r.File, optModel: opt.Model,
		inj: launch.Origin{Kind: launch.OriginInjected, Detail: "srt-slurm " + prof.name}}
	out, err := rd.run()
	if err != nil {
		return nil, err
	}
	out.Selector = selector
	out.Warnings = warnings
	out.Label = r.File
	if selector != "" {
		out.Label += ":" + selector
	}
	out.Deployment.Source = launch.Source{File: r.File, Recipe: r.File, Selector: selector}
	out.attachFileContents()
	return out, nil
}

type ep struct {
	mode  mode
	idx   int
	nodes []int // global node indices
	gpus  []int
	procs []*proc
	// vLLM DP
	dp        int
	perNode   bool
	perGPU    bool
	spanning  bool // per-node layout where one DP rank spans several nodes
	local     int
	rpcPort   int
	nixlFirst int
}

type proc struct {
	ep       *ep
	node     int
	rank     int // node rank within the endpoint
	gpus     []int
	index    int
	http     int
	boot     int
	kv, nixl int
	dpRank   int
	dpStart  int
}

type renderer struct {
	workerPre *string // cached worker preamble
	optModel  string
	c         *config
	p         profile
	file      string
	inj       launch.Origin

	nNodes      int
	workerNodes []int
	head, infra int
	frontNode   int // dedicated frontend node (frontend.dedicated_node), -1 = none
	eps         []*ep
	procs       []*proc
	served      string
	modelArg    string
	rp          string
	svc         *svcState // schema-2 services (services.go)
}

func host(i int) string { return "node" + strconv.Itoa(i) }
func ip(i int) string   { return "10.0.0." + strconv.Itoa(i) }

func (rd *renderer) errPath(p, format string, args ...any) error {
	if s, ok := rd.c.position(p); ok {
		return errAt(rd.file, s, format, args...)
	}
	return &Error{File: rd.file, Path: p, Msg: fmt.Sprintf(format, args...)}
}

func (rd *renderer) modes() []mode {
	var ms []mode
	for _, m := range []mode{modePrefill, modeDecode, modeAgg} {
		if rd.c.workers[m] > 0 {
			ms = append(ms, m)
		}
	}
	return ms
}

// gpusPerWorker: gpus_per_<role>, else nodes*gpn // workers, else gpn
// (spec §7); decode with decode_nodes: 0 inherits the prefill size.
func (rd *renderer) gpusPerWorker(m mode) int {
	c := rd.c
	if g := c.gpusPer[m]; g > 0 {
		return g
	}
	if m == modeDecode && c.nodesSet[m] && c.nodes[m] == 0 && c.workers[modePrefill] > 0 {
		return rd.gpusPerWorker(modePrefill)
	}
	if c.nodes[m] > 0 && c.workers[m] > 0 {
		if g := c.nodes[m] * c.gpusPerNode / c.workers[m]; g > 0 {
			return g
		}
	}
	return c.gpusPerNode
}

func (rd *renderer) run() (*Rendering, error) {
	c := rd.c
	if len(rd.modes()) == 0 {
		return nil, rd.errPath("resources", "no workers: set agg_workers, or prefill_workers and decode_workers")
	}
	if c.workers[modeAgg] > 0 && (c.workers[modePrefill] > 0 || c.workers[modeDecode] > 0) {
		return nil, rd.errPath("resources", "a recipe is either aggregated (agg_*) or disaggregated (prefill_*/decode_*), not both")
	}
	if (c.workers[modePrefill] > 0) != (c.workers[modeDecode] > 0) {
		return nil, rd.errPath("resources", "disaggregated recipes need both prefill_workers and decode_workers")
	}
	colocate := c.nodesSet[modeDecode] && c.nodes[modeDecode] == 0 && c.workers[modeDecode] > 0
	// node count (spec §7)
	wn := 0
	if c.workers[modeAgg] > 0 {
		wn = c.nodes[modeAgg]
		if !c.nodesSet[modeAgg] {
			wn = 1
		}
	} else {
		wn = c.nodes[modePrefill] + c.nodes[modeDecode]
	}
	if wn <= 0 {
		return nil, rd.errPath("resources", "the recipe allocates no nodes")
	}
	if wn > 1024 {
		return nil, rd.errPath("resources", "the recipe allocates %d nodes; more than 1024 is not rendered", wn)
	}
	for _, m := range rd.modes() {
		if c.workers[m] > 1024 || rd.gpusPerWorker(m) > 1024*c.gpusPerNode {
			return nil, rd.errPath("resources", "%s: too many workers or GPUs per worker", m.resKey())
		}
	}
	// Dedicated nodes (srtctl core/runtime.py Nodes.from_slurm, the node
	// count of cli/submit.py): infra, frontend and benchmark client, in
	// that order, share one extra node (benchmark.colocate_with_frontend,
	// default true) or get one each. A shared node, and the separate infra
	// and frontend nodes, come first in the allocation; a client node
	// (shared or not) is the last one. The head is the frontend node when
	// there is one, else the first worker node; infra defaults to the head.
	var roles []string
	for i, set := range []bool{c.infraDedicated, c.frontDedicated, c.clientDedic} {
		if set {
			roles = append(roles, []string{"infra", "frontend", "client"}[i])
		}
	}
	extra := len(roles)
	if extra > 0 && c.clientColocate {
		extra = 1
	}
	rd.nNodes = wn + extra
	reserved := map[string]int{}
	first, last := 0, rd.nNodes // worker nodes are [first, last)
	if len(roles) > 0 {
		hasClient := roles[len(roles)-1] == "client"
		if c.clientColocate {
			shared := 0
			if hasClient {
				shared, last = rd.nNodes-1, rd.nNodes-1
			} else {
				first = 1
			}
			for _, r := range roles {
				reserved[r] = shared
			}
		} else {
			for i, r := range roles {
				if r != "client" {
					reserved[r] = i
					first = i + 1
				}
			}
			if hasClient {
				reserved["client"] = rd.nNodes - 1
				last = rd.nNodes - 1
			}
		}
	}
	for i := first; i < last; i++ {
		rd.workerNodes = append(rd.workerNodes, i)
	}
	rd.frontNode = -1
	rd.head = rd.workerNodes[0]
	if n, ok := reserved["frontend"]; ok {
		rd.head, rd.frontNode = n, n
	}
	rd.infra = rd.head
	if n, ok := reserved["infra"]; ok {
		rd.infra = n
	}
	// model path / served name (spec §4.1)
	rd.modelArg = "/model"
	hostModel := "/models/" + c.modelPath
	if strings.HasPrefix(c.modelPath, "hf:") {
		rd.modelArg = strings.TrimPrefix(c.modelPath, "hf:")
		hostModel = rd.modelArg
	}
	rd.rp = c.requestPlane
	if !c.rpSet {
		rd.rp = rd.p.DefaultRP
	}
	for _, m := range []mode{modePrefill, modeAgg, modeDecode} {
		if e, ok := c.modeCfg[m].get("served-model-name"); ok && e.Val != nil && rd.served == "" {
			rd.served = pyStr(e.Val)
		} else if e, ok := c.modeCfg[m].get("served_model_name"); ok && e.Val != nil && rd.served == "" {
			rd.served = pyStr(e.Val)
		}
	}
	if rd.served == "" {
		rd.served = path.Base(hostModel)
	}
	if err := rd.allocate(colocate); err != nil {
		if s := rd.c.pdColocation; s != nil {
			// The placement srtctl would make packs prefill and decode
			// together; without it the workers do not fit.
			return nil, &Error{File: rd.file, Line: s.Line, Col: s.Col, Path: s.Path,
				Msg: "vLLM prefill/decode colocation (srtctl backends/vllm.py allow_prefill_decode_colocation) is not rendered: " + err.Error(), Err: ErrNotRendered}
		}
		return nil, err
	}
	if err := rd.layoutProcs(); err != nil {
		return nil, err
	}
	return rd.build()
}

// allocate places endpoints on nodes (spec §7): prefill, then decode, then
// agg; whole nodes for workers of >= gpus_per_node GPUs, contiguous GPU
// packing otherwise; a partly used node is skipped before decode unless
// decode is colocated.
func (rd *renderer) allocate(colocate bool) error {
	gpn := rd.c.gpusPerNode
	cur, off := 0, 0
	nw := len(rd.workerNodes)
	for _, m := range rd.modes() {
		g := rd.gpusPerWorker(m)
		if m == modeDecode {
			if colocate {
				if cur >= nw {
					cur, off = 0, 0
				}
			} else if off > 0 && cur+1 < nw {
				cur, off = cur+1, 0
			}
		}
		for w := 0; w < rd.c.workers[m]; w++ {
			e := &ep{mode: m, idx: w}
			if g >= gpn {
				if off > 0 {
					cur, off = cur+1, 0
				}
				n := (g + gpn - 1) / gpn
				if colocate && m == modeDecode && cur+n > nw {
					cur = 0
				}
				if cur+n > nw {
					return rd.errPath("resources", "%s worker %d needs %d node(s) but only %d worker node(s) are allocated", m.resKey(), w, n, nw)
				}
				for i := 0; i < n; i++ {
					e.nodes = append(e.nodes, rd.workerNodes[cur+i])
				}
				for i := 0; i < gpn; i++ {
					e.gpus = append(e.gpus, i)
				}
				cur += n
			} else {
				if off+g > gpn {
					cur, off = cur+1, 0
				}
				if colocate && m == modeDecode && cur >= nw {
					cur, off = 0, 0
				}
				if cur >= nw {
					return rd.errPath("resources", "%s worker %d does not fit: only %d worker node(s) are allocated", m.resKey(), w, nw)
				}
				e.nodes = []int{rd.workerNodes[cur]}
				for i := 0; i < g; i++ {
					e.gpus = append(e.gpus, off+i)
				}
				off += g
				if off == gpn {
					cur, off = cur+1, 0
				}
			}
			rd.eps = append(rd.eps, e)
		}
	}
	return nil
}

// cfgLookup finds a non-null config key in either spelling (- or _).
func cfgLookup(cfg *omap, key string) (*entry, bool) {
	if e, ok := cfg.get(key); ok && e.Val != nil {
		return e, true
	}
	if e, ok := cfg.get(strings.ReplaceAll(key, "-", "_")); ok && e.Val != nil {
		return e, true
	}
	return nil, false
}

// cfgInt reads an integer config key of mode m in either spelling.
func (rd *renderer) cfgInt(m mode, key string, def int) (int, error) {
	e, ok := cfgLookup(rd.c.modeCfg[m], key)
	if !ok {
		return def, nil
	}
	switch x := e.Val.(type) {
	case int64:
		return int(x), nil
	case string:
		if n, err := strconv.Atoi(x); err == nil {
			return n, nil
		}
	}
	return 0, errAt(rd.file, e.Src, "expected an integer, got %s", typeName(e.Val))
}

// layoutProcs turns endpoints into processes and allocates ports (spec §7).
func (rd *renderer) layoutProcs() error {
	c, p := rd.c, rd.p
	httpCount := map[int]int{}
	bootCount := map[int]int{}
	rpcCount := map[int]int{}
	kv, nixl := p.KVBase, p.NIXLBase
	for _, e := range rd.eps {
		leader := e.nodes[0]
		if c.backend == "vllm" && c.frontType != "vllm" {
			if _, ok := cfgLookup(c.modeCfg[e.mode], "data-parallel-size"); ok {
				dp, err := rd.cfgInt(e.mode, "data-parallel-size", 1)
				if err != nil {
					return err
				}
				e.dp = dp
				perNode := p.DPPerNodeDefault
				if p.DPLaunchSelector && c.dpLaunch != "" {
					switch c.dpLaunch {
					case "per_node":
						perNode = true
					case "per_gpu":
						perNode = false
					default:
						return rd.errPath("backend.dp_launch_mode", "unknown dp_launch_mode %q (per_node, per_gpu)", c.dpLaunch)
					}
				}
				e.perNode, e.perGPU = perNode, !perNode
			}
		}
		if e.perNode {
			tp, err := rd.cfgInt(e.mode, "tensor-parallel-size", 1)
			if err != nil {
				return err
			}
			pp, err := rd.cfgInt(e.mode, "pipeline-parallel-size", 1)
			if err != nil {
				return err
			}
			total := len(e.gpus) * len(e.nodes)
			if tp*pp <= 0 || e.dp*tp*pp != total {
				return rd.errPath(rd.c.modeCfgPath[e.mode], "data-parallel-size %d × tensor-parallel-size %d × pipeline-parallel-size %d must equal the worker's %d GPUs", e.dp, tp, pp, total)
			}
			if tp*pp <= len(e.gpus) {
				e.local = len(e.gpus) / (tp * pp)
			} else {
				e.spanning = true
			}
		}
		if e.dp > 0 {
			if e.perNode && e.spanning {
				n, err := rd.cfgInt(e.mode, "data-parallel-rpc-port", 8400)
				if err != nil {
					return err
				}
				e.rpcPort = n
			} else if p.DPRPCFromRecipe {
				e.rpcPort = 13345
				if _, ok := cfgLookup(c.modeCfg[e.mode], "data-parallel-rpc-port"); ok {
					n, err := rd.cfgInt(e.mode, "data-parallel-rpc-port", 13345)
					if err != nil {
						return err
					}
					e.rpcPort = n
				}
			} else {
				e.rpcPort = p.DPRPCBase + rpcCount[leader]
				rpcCount[leader]++
			}
			if p.NIXLBlock && !(e.perNode && e.spanning) {
				e.nixlFirst = nixl
				nixl += e.dp
			}
		}
		mk := func(rank, node int, gpus []int) *proc {
			pr := &proc{ep: e, node: node, rank: rank, gpus: gpus, index: len(rd.procs)}
			rd.procs = append(rd.procs, pr)
			e.procs = append(e.procs, pr)
			return pr
		}
		// HTTP and bootstrap ports for the endpoint leader
		httpPort := p.HTTPBase + p.HTTPStep*httpCount[leader]
		httpCount[leader]++
		bootPort := 0
		if e.mode == modePrefill {
			bootPort = p.BootBase + bootCount[leader]
			bootCount[leader]++
		}
		switch {
		case e.perGPU:
			i := 0
			for r, n := range e.nodes {
				for _, g := range e.gpus {
					pr := mk(r, n, []int{g})
					pr.dpRank = i
					pr.kv = kv
					kv++
					if p.NIXLBlock {
						pr.nixl = e.nixlFirst
					} else {
						pr.nixl = nixl
						nixl++
					}
					i++
				}
			}
		default:
			for r, n := range e.nodes {
				pr := mk(r, n, e.gpus)
				if e.perNode && !e.spanning {
					pr.dpStart = e.local * r
					pr.kv = kv
					kv += e.local
					pr.nixl = e.nixlFirst
					if !p.NIXLBlock {
						pr.nixl = nixl
						nixl++
					}
				} else {
					pr.kv, pr.nixl = kv, nixl
					kv++
					nixl++
				}
			}
		}
		for _, pr := range e.procs {
			if pr.rank == 0 && pr.dpRank == 0 {
				pr.http = httpPort
			}
			pr.boot = bootPort
		}
	}
	return nil
}

// envList is srt-slurm's insertion-ordered env dict: setting a name again
// replaces the value in place.
type envList struct {
	vars []launch.EnvVar
	idx  map[string]int
}

func (l *envList) set(name, value string, o launch.Origin) {
	if l.idx == nil {
		l.idx = map[string]int{}
	}
	if i, ok := l.idx[name]; ok {
		l.vars[i].Value = value
		l.vars[i].Origin = o
		return
	}
	l.idx[name] = len(l.vars)
	l.vars = append(l.vars, launch.EnvVar{Name: name, Value: value, Origin: o})
}

func recipeOrigin(s src) launch.Origin { return launch.Origin{Kind: launch.OriginRecipe, Path: s.Path} }

// addEnv copies a recipe env mapping; with tmpl the values go through
// Python str.format_map with {node} and {node_id} (unknown names stay).
func (l *envList) addEnv(m *omap, tmpl bool, node string, nodeID int) {
	if m == nil {
		return
	}
	if l.idx == nil {
		l.idx = make(map[string]int, len(m.entries))
	}
	l.vars = slices.Grow(l.vars, len(m.entries))
	for _, e := range m.entries {
		v := pyStr(e.Val)
		if tmpl {
			v = formatMap(v, map[string]string{"node": node, "node_id": strconv.Itoa(nodeID)})
		}
		l.set(e.Key, v, recipeOrigin(e.Src))
	}
}

// formatMap is str.format_map with a dict that leaves unknown fields as
// they are: "{{" / "}}" become braces, "{name}" is replaced when known.
func formatMap(s string, vals map[string]string) string {
	if !strings.ContainsAny(s, "{}") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '{' && i+1 < len(s) && s[i+1] == '{':
			b.WriteByte('{')
			i++
		case ch == '}' && i+1 < len(s) && s[i+1] == '}':
			b.WriteByte('}')
			i++
		case ch == '{':
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+1 : i+j]
			if v, ok := vals[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+j+1])
			}
			i += j
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// argList collects launch.Args.
type argList []launch.Arg

func (a *argList) add(o launch.Origin, flag string, vals ...string) {
	*a = append(*a, launch.Arg{Flag: flag, Values: vals, Origin: o})
}

// recipeFlags converts a worker config dict to flags (spec §3.2): keys
// sorted by raw string, "_" → "-", true bare, false/null omitted, lists as
// repeated values, dicts as Python repr, other values as str().
func (rd *renderer) recipeFlags(cfg *omap, drop map[string]bool, extra []*entry) argList {
	ents := append([]*entry(nil), cfg.entries...)
	ents = append(ents, extra...)
	sort.SliceStable(ents, func(i, j int) bool { return ents[i].Key < ents[j].Key })
	out := make(argList, 0, len(ents))
	for _, e := range ents {
		if drop[e.Key] {
			continue
		}
		name := e.Key
		if rd.p.AflowersDotted && rd.c.backend == "vllm" {
			head, tail, dotted := strings.Cut(name, ".")
			name = strings.ReplaceAll(head, "_", "-")
			if dotted {
				name += "." + tail
			}
		} else {
			name = strings.ReplaceAll(name, "_", "-")
		}
		flag := "--" + name
		o := recipeOrigin(e.Src)
		if e.Src.Path == "" {
			o = rd.inj
		}
		switch x := e.Val.(type) {
		case nil:
		case bool:
			if x {
				out.add(o, flag)
			}
		case []any:
			vals := make([]string, len(x))
			for i, it := range x {
				vals[i] = pyStr(it)
			}
			out.add(o, flag, vals...)
		default:
			out.add(o, flag, pyStr(x))
		}
	}
	if len(out) == 0 {
		return nil // (as before it was presized)
	}
	return out
}

// frontArgs converts frontend.args (spec §3.3): verbatim keys, YAML order.
func (rd *renderer) frontArgs() argList {
	var out argList
	if rd.c.frontArgs == nil {
		return out
	}
	for _, e := range rd.c.frontArgs.entries {
		o := recipeOrigin(e.Src)
		switch x := e.Val.(type) {
		case nil:
		case bool:
			if x {
				out.add(o, "--"+e.Key)
			}
		default:
			out.add(o, "--"+e.Key, pyStr(x))
		}
	}
	return out
}

func dropSet(keys ...string) map[string]bool {
	m := map[string]bool{}
	for _, k := range keys {
		m[k] = true
		m[strings.ReplaceAll(k, "-", "_")] = true
	}
	return m
}

// installInner is the dynamo install command for the recipe (spec §9).
func (rd *renderer) installInner() string {
	c := rd.c
	switch {
	case c.dynWheel != "":
		return wheelInstall(c.dynWheel)
	case c.dynHash != "":
		if !rd.p.Flock {
			return strings.ReplaceAll(hashLiveInstallSA, "HASH", c.dynHash)
		}
		return hashInstall(c.dynHash, c.dynCargo)
	case c.dynTOT:
		return totInstall
	}
	v := c.dynVersion
	if v == "" {
		v = "0.8.0"
	}
	return "echo 'Installing dynamo " + v + "...' && pip install --break-system-packages --quiet --extra-index-url https://pypi.nvidia.com ai-dynamo-runtime==" + v + " ai-dynamo==" + v + " && echo 'Dynamo " + v + " installed'"
}

func (rd *renderer) install() string {
	if rd.c.frontType != "dynamo" || !rd.c.dynInstall {
		return ""
	}
	in := rd.installInner()
	if rd.p.Flock {
		return flockPre + in + flockPost
	}
	return in
}

func (rd *renderer) setup() string {
	s := rd.c.setupScript
	if s == "" {
		return ""
	}
	// srtctl cli/mixins/worker_stage.py _build_worker_preamble and
	// frontends/dynamo.py _build_preamble at c88ef731.
	return "setup_script=" + shellQuote(s) + ` && script_path="/configs/${setup_script}" && ` +
		`patch_script_path="/configs/patches/${setup_script}" && ` +
		`echo "Running setup script: ${script_path} (fallback ${patch_script_path})" && ` +
		`if [ -f "${script_path}" ]; then bash "${script_path}"; ` +
		`elif [ -f "${patch_script_path}" ]; then bash "${patch_script_path}"; ` +
		`else echo "WARNING: ${script_path} or ${patch_script_path} not found"; fi`
}

func joinPreamble(parts ...string) string {
	var nz []string
	for _, p := range parts {
		if p != "" {
			nz = append(nz, p)
		}
	}
	return strings.Join(nz, " && ")
}

func (rd *renderer) workerPreamble() string {
	if rd.workerPre != nil {
		return *rd.workerPre
	}
	p := rd.buildWorkerPreamble()
	rd.workerPre = &p
	return p
}

func (rd *renderer) buildWorkerPreamble() string {
	fp := ""
	if rd.p.Fingerprint {
		fp = "( FINGERPRINT )"
	}
	return joinPreamble(rd.setup(), rd.install(), fp)
}

func (rd *renderer) frontendPreamble() string {
	return joinPreamble(rd.setup(), rd.install())
}

func roleOf(m mode) launch.Role {
	switch m {
	case modePrefill:
		return launch.RolePrefill
	case modeDecode:
		return launch.RoleDecode
	}
	return launch.RoleAgg
}

func (rd *renderer) epName(e *ep) string { return fmt.Sprintf("%s_%d", e.mode.resKey(), e.idx) }

func (rd *renderer) nodeNames(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = host(n)
	}
	return out
}

// workerEnv builds the layered worker env (spec §5).
func (rd *renderer) workerEnv(pr *proc, sysIndex int, trt bool) []launch.EnvVar {
	c, p, o := rd.c, rd.p, rd.inj
	var l envList
	l.set("HEAD_NODE_IP", ip(rd.head), o)
	l.set("ETCD_ENDPOINTS", "http://"+host(rd.infra)+":2379", o)
	l.set("NATS_SERVER", "nats://"+host(rd.infra)+":4222", o)
	l.set("DYN_SYSTEM_PORT", strconv.Itoa(p.SysPortBase+sysIndex), o)
	if !trt {
		rp := rd.rp
		if p.EnvRPNats {
			rp = "nats"
		}
		l.set("DYN_REQUEST_PLANE", rp, o)
	}
	if p.SkipLogFmt {
		l.set("DYN_SKIP_SGLANG_LOG_FORMATTING", "1", o)
	}
	if c.eventPlane != "" {
		l.set("DYN_EVENT_PLANE", c.eventPlane, o)
	}
	if p.DynLog {
		l.set("DYN_LOG", "info,dynamo_runtime::pipeline::network::ingress::push_handler=warn", o)
	}
	nodeID := 0
	for i, n := range rd.workerNodes {
		if n == pr.node {
			nodeID = i
		}
	}
	l.addEnv(c.modeEnv[pr.ep.mode], !trt, host(pr.node), nodeID)
	if trt {
		l.set("TRTLLM_EPLB_SHM_NAME", "moe_shared_<uuid4hex>", o)
	}
	if c.dynWheel != "" {
		l.set("DYNAMO_WHEEL_NAME", "ai_dynamo-"+c.dynWheel+"-py3-none-any.whl", o)
		l.set("DYNAMO_VERSION", c.dynWheel, o)
	}
	l.addEnv(c.environment, !trt, host(pr.node), nodeID)
	if len(pr.gpus) < c.gpusPerNode {
		if c.backend != "vllm" || c.setCVD || !p.DeviceIDs {
			l.set("CUDA_VISIBLE_DEVICES", joinInts(pr.gpus), o)
		}
	}
	if c.backend == "vllm" {
		l.set("DYN_VLLM_KV_EVENT_PORT", strconv.Itoa(pr.kv), o)
		l.set("VLLM_NIXL_SIDE_CHANNEL_PORT", strconv.Itoa(pr.nixl), o)
		l.set("VLLM_NIXL_SIDE_CHANNEL_HOST", ip(pr.node), o)
		if p.VLLMPort {
			l.set("VLLM_PORT", strconv.Itoa(20000+50*sysIndex), o)
		}
	}
	if c.mooncake != nil && !trt {
		rd.mooncakeWorkerEnv(&l, pr)
	}
	rd.kvbmEnv(&l, pr)
	return l.vars
}

// kvbmEnv fills the KVBM leader ZMQ settings of an endpoint whose env
// selects DYN_CONNECTOR=kvbm (srtctl cli/mixins/worker_stage.py
// _apply_kvbm_endpoint_env at c88ef731): the leader IP on multi-node
// endpoints, and a pub/ack port pair 5600 + 2×(kv-events port − 5200),
// each unless the recipe set it.
func (rd *renderer) kvbmEnv(l *envList, pr *proc) {
	i, ok := l.idx["DYN_CONNECTOR"]
	if !ok || strings.ToLower(l.vars[i].Value) != "kvbm" {
		return
	}
	setDefault := func(k, v string) {
		if _, ok := l.idx[k]; !ok {
			l.set(k, v, rd.inj)
		}
	}
	e := pr.ep
	leader := e.procs[0]
	if len(e.nodes) > 1 {
		setDefault("DYN_KVBM_LEADER_ZMQ_HOST", ip(leader.node))
	}
	if rd.c.backend != "vllm" && !rd.c.kvEvents[e.mode] {
		return // no kv-events port allocated
	}
	off := leader.kv - rd.p.KVBase
	if off < 0 {
		off = 0
	}
	pub := 5600 + off*2
	if pub+1 <= 65535 {
		setDefault("DYN_KVBM_LEADER_ZMQ_PUB_PORT", strconv.Itoa(pub))
		setDefault("DYN_KVBM_LEADER_ZMQ_ACK_PORT", strconv.Itoa(pub+1))
	}
}

func (rd *renderer) kvEventsJSON(port int, vllm bool) string {
	s := `{"publisher": "zmq", "topic": "kv-events", "endpoint": "tcp://*:` + strconv.Itoa(port) + `"`
	if vllm {
		s += `, "enable_kv_cache_events": true`
	}
	return s + "}"
}

// sglangArgs builds the SGLang worker command (spec §4.1).
func (rd *renderer) sglangArgs(pr *proc) (string, argList) {
	c, p, o := rd.c, rd.p, rd.inj
	e := pr.ep
	dyn := c.frontType == "dynamo"
	prog := "python3 -m sglang.launch_server"
	if dyn {
		prog = "python3 -m dynamo.sglang"
	}
	var a argList
	a.add(o, "--model-path", rd.modelArg)
	a.add(o, "--served-model-name", rd.served)
	a.add(o, "--host", "0.0.0.0")
	a.add(o, "--port", strconv.Itoa(pr.http))
	if p.NCCLPort {
		a.add(o, "--nccl-port", strconv.Itoa(17500+pr.index))
	}
	if e.mode != modeAgg {
		a.add(o, "--disaggregation-mode", string(e.mode))
		if e.mode == modePrefill && (p.BootAlways || c.frontType == "sglang") {
			a.add(o, "--disaggregation-bootstrap-port", strconv.Itoa(pr.boot))
		}
	}
	if len(e.nodes) > 1 {
		a.add(o, "--dist-init-addr", ip(e.nodes[0])+":"+strconv.Itoa(p.DistPort))
		a.add(o, "--nnodes", strconv.Itoa(len(e.nodes)))
		a.add(o, "--node-rank", strconv.Itoa(pr.rank))
	}
	if dyn {
		a.add(o, "--dump-config-to", "<log_dir>/"+host(pr.node)+"_config.json")
	}
	if c.kvEvents[e.mode] {
		a.add(o, "--kv-events-config", rd.kvEventsJSON(pr.kv, false))
	}
	if dyn && p.RPFlag {
		a.add(o, "--request-plane", rd.rp)
	}
	drop := map[string]bool{}
	if p.PopModelPath {
		drop = dropSet("model-path", "served-model-name")
		if p.NCCLPort {
			drop["nccl-port"], drop["nccl_port"] = true, true
		}
	}
	if c.schema == 2 && c.frontType == "sglang" && e.mode != modeAgg {
		// Newer SGLang builders (the srt-slurm that reads schema 2, spec
		// §10a): P/D workers behind the sglang router skip the warmup and
		// lose a recipe grpc-port.
		a.add(o, "--skip-server-warmup")
		drop["grpc-port"], drop["grpc_port"] = true, true
	}
	a = append(a, rd.recipeFlags(c.modeCfg[e.mode], drop, nil)...)
	return prog, a
}

func (rd *renderer) connectorJSON(m mode) (string, bool) {
	conn := rd.c.connector
	if e, ok := rd.c.modeCfg[m].get("connector"); ok {
		conn = e.Val
	}
	s, _ := conn.(string)
	switch {
	case conn == nil || s == "none" || s == "":
		return "", false
	case s == "nixl":
		return `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`, true
	case s == "lmcache":
		return `{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}`, true
	case s == "kvbm":
		return `{"kv_connector": "DynamoConnector", "kv_connector_module_path": "kvbm.vllm_integration.connector", "kv_role": "kv_both"}`, true
	}
	return s, true
}

// vllmArgs builds the dynamo vLLM worker command (spec §4.2).
func (rd *renderer) vllmArgs(pr *proc) (string, argList) {
	c, p, o := rd.c, rd.p, rd.inj
	e := pr.ep
	var a argList
	a.add(o, "--model", rd.modelArg)
	a.add(o, "--served-model-name", rd.served)
	if e.mode != modeAgg {
		a.add(o, "--disaggregation-mode", string(e.mode))
	}
	if j, ok := rd.connectorJSON(e.mode); ok {
		a.add(o, "--kv-transfer-config", j)
	}
	if p.DeviceIDs && !c.setCVD {
		a.add(o, "--device-ids", joinInts(pr.gpus))
	}
	leader := ip(e.nodes[0])
	drop := dropSet("connector")
	switch {
	case e.perGPU:
		a.add(o, "--data-parallel-rank", strconv.Itoa(pr.dpRank))
		a.add(o, "--data-parallel-address", leader)
		a.add(o, "--data-parallel-rpc-port", strconv.Itoa(e.rpcPort))
		// the recipe's port is replaced (aflowers reads it, others allocate)
		for k := range dropSet("data-parallel-rpc-port") {
			drop[k] = true
		}
	case e.perNode && !e.spanning:
		a.add(o, "--data-parallel-size-local", strconv.Itoa(e.local))
		a.add(o, "--data-parallel-start-rank", strconv.Itoa(pr.dpStart))
		a.add(o, "--data-parallel-address", leader)
		a.add(o, "--data-parallel-rpc-port", strconv.Itoa(e.rpcPort))
		a.add(o, "--data-parallel-hybrid-lb")
	case e.perNode && e.spanning:
		a.add(o, "--master-addr", leader)
		a.add(o, "--nnodes", strconv.Itoa(len(e.nodes)))
		a.add(o, "--node-rank", strconv.Itoa(pr.rank))
		a.add(o, "--data-parallel-address", leader)
		a.add(o, "--data-parallel-rpc-port", strconv.Itoa(e.rpcPort))
		if pr.rank > 0 {
			a.add(o, "--headless")
		}
	case len(e.nodes) > 1:
		a.add(o, "--master-addr", leader)
		a.add(o, "--nnodes", strconv.Itoa(len(e.nodes)))
		a.add(o, "--node-rank", strconv.Itoa(pr.rank))
		if pr.rank > 0 {
			a.add(o, "--headless")
		}
	}
	if e.perNode {
		for k := range dropSet("data-parallel-rpc-port", "data-parallel-size-local", "data-parallel-start-rank", "data-parallel-hybrid-lb", "headless") {
			drop[k] = true
		}
	}
	if p.RPFlag {
		a.add(o, "--request-plane", rd.rp)
	}
	a.add(o, "--dump-config-to", "<log_dir>/"+host(pr.node)+"_config.json")
	if c.kvEvents[e.mode] {
		a.add(o, "--kv-events-config", rd.kvEventsJSON(pr.kv, true))
	}
	a = append(a, rd.recipeFlags(c.modeCfg[e.mode], drop, nil)...)
	return "python3 -m dynamo.vllm", a
}

// vllmServeArgs builds a direct `vllm serve` worker (spec §4.3).
func (rd *renderer) vllmServeArgs(pr *proc) (string, argList) {
	c, p, o := rd.c, rd.p, rd.inj
	e := pr.ep
	var a argList
	a.add(o, "", rd.modelArg)
	if pr.rank == 0 {
		a.add(o, "--host", "0.0.0.0")
		a.add(o, "--port", "8000")
	}
	drop := dropSet("headless", "host", "port", "master-addr", "nnodes", "node-rank", "connector")
	if len(e.nodes) > 1 {
		a.add(o, "--master-addr", ip(e.nodes[0]))
		a.add(o, "--nnodes", strconv.Itoa(len(e.nodes)))
		a.add(o, "--node-rank", strconv.Itoa(pr.rank))
		if pr.rank > 0 {
			a.add(o, "--headless")
			for k := range dropSet("api-server-count") {
				drop[k] = true
			}
		}
	}
	if p.DeviceIDs && !c.setCVD {
		a.add(o, "--device-ids", joinInts(pr.gpus))
	}
	var extra []*entry
	if _, ok := c.modeCfg[e.mode].get("served-model-name"); !ok {
		extra = append(extra, &entry{Key: "served-model-name", Val: rd.served})
	}
	a = append(a, rd.recipeFlags(c.modeCfg[e.mode], drop, extra)...)
	return "vllm serve", a
}

// build assembles steps, files and the Deployment.
func (rd *renderer) build() (*Rendering, error) {
	c, p, o := rd.c, rd.p, rd.inj
	out := &Rendering{Version: p.name, Name: c.name, Backend: c.backend, Frontend: c.frontType, Schema: c.schema,
		Model: c.modelPath, Image: c.container,
		Infra: host(rd.infra), Head: host(rd.head)}
	for i := 0; i < rd.nNodes; i++ {
		out.Nodes = append(out.Nodes, host(i))
	}
	for _, e := range rd.eps {
		out.Endpoints = append(out.Endpoints, Endpoint{Name: rd.epName(e), Role: roleOf(e.mode), Nodes: rd.nodeNames(e.nodes), GPUs: e.gpus})
	}
	if c.frontType == "vllm" {
		if !p.DirectVLLM {
			return nil, rd.errPath("frontend.type", "frontend type vllm (direct vllm serve) is not in srt-slurm %s (from %s)", p.name,
				firstWith(func(p profile) bool { return p.DirectVLLM }).Ref)
		}
		if c.backend != "vllm" || c.workers[modeAgg] != 1 {
			return nil, rd.errPath("frontend.type", "frontend type vllm needs backend vllm and exactly one agg worker")
		}
	}
	if c.frontType == "trtllm_serve" && c.backend != "trtllm" {
		return nil, rd.errPath("frontend.type", "frontend type trtllm_serve needs backend trtllm")
	}
	dep := &out.Deployment
	dep.Engine = c.backend
	dep.Model = rd.served
	if strings.HasPrefix(c.modelPath, "hf:") {
		dep.Model = strings.TrimPrefix(c.modelPath, "hf:")
	} else if rd.optModel != "" {
		dep.Model = rd.optModel
	}
	dep.Hardware = c.gpuType

	// schema 2: the services registry (services.go, spec §10b) replaces
	// steps 1 and 2.
	if c.schema == 2 {
		if err := rd.renderServices(out, startInfra, startBeforeWorkers); err != nil {
			return nil, err
		}
	}
	// 1. etcd + NATS
	if c.schema != 2 && c.frontType != "vllm" && c.frontType != "trtllm_serve" {
		var a argList
		a.add(o, "", "/tmp/setup_head.py")
		a.add(o, "--name", c.name)
		a.add(o, "--log-dir", "<log_dir>")
		if c.natsPayload != "" {
			a.add(launch.Origin{Kind: launch.OriginRecipe, Path: "infra.nats_max_payload_mb"}, "--nats-max-payload-mb", c.natsPayload)
		}
		out.Steps = append(out.Steps, Step{Kind: launch.KindEtcd, Nodes: []string{host(rd.infra)}, Image: c.container, Program: "python3", Args: a})
		var ea argList
		ea.add(o, "--data-dir", "/tmp/etcd")
		ea.add(o, "--listen-client-urls", "http://0.0.0.0:2379")
		ea.add(o, "--advertise-client-urls", "http://"+ip(rd.infra)+":2379")
		dep.Processes = append(dep.Processes, launch.Process{Kind: launch.KindEtcd, Program: "/configs/etcd", Args: ea, Origin: o})
		// setup_head.py start_nats (every ref): a config file when
		// --nats-max-payload-mb is given (its jetstream block turns
		// JetStream on), else -js -sd /tmp/nats.
		var na argList
		if c.natsPayload != "" {
			na.add(o, "-c", "/tmp/nats.conf")
		} else {
			na.add(o, "-js")
			na.add(o, "-sd", "/tmp/nats")
		}
		np := launch.Process{Kind: launch.KindNATS, Program: "/configs/nats-server", Args: na, Origin: o}
		if c.natsPayload != "" {
			np.Files = []string{"nats.conf"}
		}
		dep.Processes = append(dep.Processes, np)
	}
	// 2. mooncake master
	if c.schema != 2 && c.mooncake != nil {
		rd.mooncakeMaster(out)
	}
	// 3. workers
	roleFirst := map[mode]*Step{}
	for _, e := range rd.eps {
		if c.backend == "trtllm" {
			st, err := rd.trtStep(e)
			if err != nil {
				return nil, err
			}
			out.Steps = append(out.Steps, st)
			if roleFirst[e.mode] == nil {
				roleFirst[e.mode] = &out.Steps[len(out.Steps)-1]
			}
			continue
		}
		for _, pr := range e.procs {
			var prog string
			var a argList
			switch {
			case c.backend == "sglang":
				prog, a = rd.sglangArgs(pr)
			case c.frontType == "vllm":
				prog, a = rd.vllmServeArgs(pr)
			default:
				prog, a = rd.vllmArgs(pr)
			}
			st := Step{Kind: launch.KindWorker, Role: roleOf(e.mode), Endpoint: rd.epName(e), Nodes: []string{host(pr.node)},
				Image: c.container, Env: rd.workerEnv(pr, pr.index, false), Preamble: rd.workerPreamble(), Program: prog, Args: a}
			if c.backend == "vllm" && p.VLLMPortUnset && len(e.nodes) > 1 {
				st.Unset = []string{"VLLM_PORT"}
			}
			out.Steps = append(out.Steps, st)
			if roleFirst[e.mode] == nil {
				roleFirst[e.mode] = &out.Steps[len(out.Steps)-1]
			}
		}
	}
	// worker processes of the Deployment: one per role block
	for _, m := range rd.modes() {
		st := roleFirst[m]
		if st == nil {
			continue
		}
		g := rd.gpusPerWorker(m)
		npw := (g + c.gpusPerNode - 1) / c.gpusPerNode
		gpn := g
		if g > c.gpusPerNode {
			gpn = c.gpusPerNode
		}
		var pre []string
		if st.Preamble != "" {
			pre = []string{st.Preamble}
		}
		dep.Processes = append(dep.Processes, launch.Process{Kind: launch.KindWorker, Role: roleOf(m), Program: st.Program, Image: st.Image,
			Args: st.Args, Env: st.Env, Workers: c.workers[m], NodesPerWorker: npw, GPUsPerNode: gpn, Preamble: pre,
			Origin: recipeOrigin(src{Path: rd.c.modeCfgPath[m]})})
	}
	// 4. nginx + frontends
	if err := rd.frontends(out); err != nil {
		return nil, err
	}
	if c.schema == 2 {
		if err := rd.renderServices(out, startAfterFrontend); err != nil {
			return nil, err
		}
		rd.applyDiscoveryEnv(out)
	}
	// files
	if c.backend == "trtllm" {
		for _, m := range rd.modes() {
			out.Files = append(out.Files, File{Name: "trtllm_config_" + m.resKey() + ".yaml", Content: safeDump(c.modeCfg[m])})
		}
	}
	sort.SliceStable(out.Files, func(i, j int) bool { return out.Files[i].Name < out.Files[j].Name })
	return out, nil
}

func (rd *renderer) trtStep(e *ep) (Step, error) {
	c, o := rd.c, rd.inj
	leader := e.procs[0]
	prog := "trtllm-llmapi-launch python3 -m dynamo.trtllm"
	// backends/trtllm.py build_worker_command: numa_memory_bind unset →
	// gb200/gb300 prefill and decode workers; set → its value, still for
	// prefill and decode only.
	numa := e.mode != modeAgg && (c.gpuType == "gb200" || c.gpuType == "gb300")
	if c.numaSet {
		numa = c.numaBind && e.mode != modeAgg
	}
	if numa {
		prog = "numactl -m 0,1 " + prog
	}
	model := rd.modelArg
	if c.stageDir != "" {
		model = strings.TrimSuffix(c.stageDir, "/") + "/" + path.Base(c.modelPath)
	}
	var a argList
	if c.frontType == "trtllm_serve" {
		prog = strings.Replace(prog, "python3 -m dynamo.trtllm", "trtllm-serve", 1)
		a.add(o, "", model)
		a.add(o, "--host", "0.0.0.0")
		// aggregate: the one worker owns the public port
		// (runtime.frontend_port, 8000; 2580a31e, v1.0.51)
		port := leader.http
		if e.mode == modeAgg {
			port = 8000
		}
		a.add(o, "--port", strconv.Itoa(port))
		for _, k := range []string{"tensor_parallel_size", "moe_expert_parallel_size", "pipeline_parallel_size"} {
			if v, ok := c.modeCfg[e.mode].get(k); ok && v.Val != nil {
				a.add(recipeOrigin(v.Src), "--"+k, pyStr(v.Val))
			}
		}
		a.add(o, "--config", "/logs/trtllm_config_"+e.mode.resKey()+".yaml")
	} else {
		a.add(o, "--model-path", model)
		a.add(o, "--served-model-name", path.Base(c.modelPath))
		if e.mode != modeAgg {
			a.add(o, "--disaggregation-mode", string(e.mode))
		}
		a.add(o, "--extra-engine-args", "/logs/trtllm_config_"+e.mode.resKey()+".yaml")
		a.add(o, "--request-plane", rd.rp)
		switch {
		case c.publishSet && c.publishEv:
			a.add(recipeOrigin(src{Path: "backend.publish_events_and_metrics"}), "--publish-events-and-metrics")
		case !c.publishSet && (c.publishEv || rd.p.PublishDefault):
			a.add(o, "--publish-events-and-metrics")
		}
	}
	for _, x := range c.extraArgs[e.mode] {
		a.add(recipeOrigin(src{Path: rd.c.modeCfgPath[e.mode]}), "", x)
	}
	return Step{Kind: launch.KindWorker, Role: roleOf(e.mode), Endpoint: rd.epName(e), Nodes: rd.nodeNames(e.nodes),
		NTasks: strconv.Itoa(len(e.nodes) * len(e.gpus)), MPI: "pmix", Image: c.container,
		Env: rd.workerEnv(leader, leader.index, true), Preamble: rd.workerPreamble(), Program: prog, Args: a}, nil
}

// frontends adds nginx and the frontend/router steps (spec §6).
func (rd *renderer) frontends(out *Rendering) error {
	c, p, o := rd.c, rd.p, rd.inj
	dep := &out.Deployment
	if c.frontType == "vllm" || c.frontType == "sglang-direct" {
		return nil
	}
	// The single frontend (srtctl cli/mixins/frontend_stage.py
	// _compute_frontend_topology): on the head (the dedicated frontend
	// node when frontend.dedicated_node), or per
	// frontend.orchestrator_placement: first_decode / last_decode → the
	// first / last distinct decode-leader node (core/topology.py
	// placed_node). With nginx, the frontends run on the worker nodes other
	// than the head.
	single := rd.head
	var feNodes []int
	port := "8000"
	var nonHead []int
	for _, n := range rd.workerNodes {
		if n != rd.head {
			nonHead = append(nonHead, n)
		}
	}
	multi := len(rd.workerNodes) > 1 && c.multiFront
	if !multi {
		n, err := rd.placedNode()
		if err != nil {
			return err
		}
		single = n
		feNodes = []int{single}
	} else {
		n := c.numAddFront + 1
		if n > len(nonHead) {
			n = len(nonHead)
		}
		feNodes = nonHead[:n]
		port = "8180"
		if len(feNodes) == 0 {
			feNodes, port, multi = []int{single}, "8000", false
		}
	}
	if multi {
		cmd := "nginx -c /logs/nginx.conf -g 'daemon off;'"
		if c.nginxUlimit {
			cmd = "ulimit -n 1048576 && " + cmd
		}
		var a argList
		a.add(o, "", cmd)
		out.Steps = append(out.Steps, Step{Kind: launch.KindNginx, Nodes: []string{host(rd.head)}, Image: c.nginxImage, Program: "bash -c", Args: a})
		var ips []string
		for _, n := range feNodes {
			ips = append(ips, ip(n))
		}
		out.Files = append(out.Files, File{Name: "nginx.conf", Content: nginxConf(rd.p.Nginx, ips, c.nginxUlimit, c.affinity, c.affinityHeader, c.keepalive)})
		var na argList
		na.add(o, "-c", "/logs/nginx.conf")
		na.add(o, "-g", "daemon off;")
		np := launch.Process{Kind: launch.KindNginx, Program: "nginx", Image: c.nginxImage, Args: na, Files: []string{"nginx.conf"}, Origin: o}
		if c.nginxUlimit {
			np.Preamble = []string{"ulimit -n 1048576"}
		}
		dep.Processes = append(dep.Processes, np)
	}
	var first *Step
	for _, n := range feNodes {
		var st Step
		switch c.frontType {
		case "dynamo":
			var l envList
			l.set("ETCD_ENDPOINTS", "http://"+host(rd.infra)+":2379", o)
			l.set("NATS_SERVER", "nats://"+host(rd.infra)+":4222", o)
			rp := rd.rp
			if p.EnvRPNats {
				rp = "nats"
			}
			l.set("DYN_REQUEST_PLANE", rp, o)
			if p.SkipLogFmt {
				l.set("DYN_SKIP_SGLANG_LOG_FORMATTING", "1", o)
			}
			if p.RuntimeEnvFront {
				if c.eventPlane != "" {
					l.set("DYN_EVENT_PLANE", c.eventPlane, o)
				}
				if c.dynWheel != "" {
					l.set("DYNAMO_WHEEL_NAME", "ai_dynamo-"+c.dynWheel+"-py3-none-any.whl", o)
					l.set("DYNAMO_VERSION", c.dynWheel, o)
				}
				l.addEnv(c.environment, false, "", 0)
			}
			l.addEnv(c.frontEnv, false, "", 0)
			var a argList
			a.add(o, "--http-port="+port)
			a = append(a, rd.frontArgs()...)
			st = Step{Kind: launch.KindDynamoFrontend, Nodes: []string{host(n)}, NTasks: "None", MPI: "pmix", Image: c.container,
				Env: l.vars, Preamble: rd.frontendPreamble(), Program: "python3 -m dynamo.frontend", Args: a}
		case "sglang":
			var l envList
			l.addEnv(c.frontEnv, false, "", 0)
			var a argList
			if c.workers[modeAgg] > 0 {
				var urls []string
				for _, e := range rd.eps {
					urls = append(urls, rd.workerURL(e))
				}
				a.add(o, "--worker-urls", urls...)
			} else {
				a.add(o, "--pd-disaggregation")
				for _, e := range rd.eps {
					if e.mode == modePrefill {
						a.add(o, "--prefill", rd.workerURL(e), strconv.Itoa(e.procs[0].boot))
					}
				}
				for _, e := range rd.eps {
					if e.mode == modeDecode {
						a.add(o, "--decode", rd.workerURL(e))
					}
				}
			}
			a.add(o, "--host", "0.0.0.0")
			a.add(o, "--port", port)
			a = append(a, rd.frontArgs()...)
			st = Step{Kind: launch.KindSGLangRouter, Nodes: []string{host(n)}, Image: c.container, Env: l.vars,
				Program: "python -m sglang_router.launch_router", Args: a}
		case "trtllm_serve":
			// frontends/trtllm_serve.py start_frontends: aggregate jobs
			// start no frontend (the worker owns port 8000); disaggregated
			// ones run the orchestrator on the frontend node under
			// mpi=pmix with the ser.yaml it writes.
			if c.workers[modeAgg] > 0 {
				continue
			}
			var l envList
			l.addEnv(c.frontEnv, false, "", 0)
			var a argList
			a.add(o, "", "disaggregated")
			a.add(o, "--config", "/logs/ser.yaml")
			a = append(a, rd.frontArgs()...)
			st = Step{Kind: launch.KindDynamoFrontend, Nodes: []string{host(n)}, NTasks: "None", MPI: "pmix", Image: c.container, Env: l.vars,
				Program: "trtllm-serve", Args: a}
			out.Files = append(out.Files, File{Name: "ser.yaml", Content: rd.serYAML(port)})
		}
		out.Steps = append(out.Steps, st)
		if first == nil {
			first = &out.Steps[len(out.Steps)-1]
		}
	}
	if first != nil {
		var pre []string
		if first.Preamble != "" {
			pre = []string{first.Preamble}
		}
		kind := first.Kind
		if c.frontType == "trtllm_serve" {
			kind = launch.KindDynamoFrontend
		}
		dep.Processes = append(dep.Processes, launch.Process{Kind: kind, Program: first.Program, Image: first.Image, Args: first.Args, Env: first.Env,
			Count: len(feNodes), Preamble: pre, Origin: recipeOrigin(src{Path: "frontend"})})
	}
	return nil
}

// placedNode resolves frontend.orchestrator_placement (srtctl
// core/topology.py placed_node): head, first_decode or last_decode.
func (rd *renderer) placedNode() (int, error) {
	pl := rd.c.orchPlacement
	switch pl {
	case "", "head":
		return rd.head, nil
	case "infra":
		if rd.c.schema == 2 {
			// schema-2 frontend.placement.node: infra (spec §10a; not in
			// srtctl c88ef731, which knows no schema 2).
			return rd.infra, nil
		}
	case "first_decode", "last_decode":
		var nodes []int
		for _, e := range rd.eps {
			if e.mode != modeDecode {
				continue
			}
			n := e.nodes[0]
			if !containsInt(nodes, n) {
				nodes = append(nodes, n)
			}
		}
		if len(nodes) == 0 {
			return 0, rd.errPath("frontend.orchestrator_placement", "frontend.orchestrator_placement=%q but no decode workers were found", pl)
		}
		if pl == "first_decode" {
			return nodes[0], nil
		}
		return nodes[len(nodes)-1], nil
	}
	return 0, rd.errPath("frontend.orchestrator_placement", "frontend.orchestrator_placement=%q is invalid (expected head|first_decode|last_decode)", pl)
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (rd *renderer) workerURL(e *ep) string {
	scheme := "http://"
	if v, ok := cfgLookup(rd.c.modeCfg[e.mode], "grpc-mode"); ok && v.Val == true {
		scheme = "grpc://"
	}
	return scheme + ip(e.nodes[0]) + ":" + strconv.Itoa(e.procs[0].http)
}

func rdErr(file string, c *config, p, format string, args ...any) error {
	if s, ok := c.position(p); ok {
		return errAt(file, s, format, args...)
	}
	return &Error{File: file, Path: p, Msg: fmt.Sprintf(format, args...)}
}

// RenderModel renders selector (as Render) at the default srt-slurm
// version with the model bound to the Hugging Face id hfModel ("hf:<id>";
// the recipe's own model.path when hfModel is ""): the effective
// deployment a comparison needs, as InferenceX runs it (the master entry
// names the model; inferencex.md (d)). Errors are Render's.
func (r *Recipe) RenderModel(selector, hfModel string) (*launch.Deployment, error) {
	opt := Options{}
	if hfModel != "" {
		opt.Model = "hf:" + hfModel
	}
	rd, err := r.Render(selector, opt)
	if err != nil {
		return nil, err
	}
	return &rd.Deployment, nil
}
