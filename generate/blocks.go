package generate

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// This file turns one rendered InferenceX point (a launch.Deployment from
// package infx: what srt-slurm or a single-node script starts) into the
// cookbook's blocks for both routers. Rules (spec agentx-format.md (b) "Roles
// and processes per router" and "How sglang vs dynamo differ"):
//
//   - every worker flag and env var is classified with the exclusion list
//     (package exclusions): prohibited → Run refuses; harness,
//     collection and synthetic-acceptance → dropped (a dropped synthetic
//     setting adds the "synthetic-acceptance" disclosure); placement → dropped
//     and replaced by the cookbook's own placement values below; judgment and
//     unlisted settings → published as rendered. This is the only env filter:
//     the env the benchmark harness puts into a server (MODEL_PATH,
//     GPU_METRICS_CSV, PYTHONDONTWRITEBYTECODE, … — classified by consumer in
//     exclusions/rules.yaml, issue 8 item 1) never reaches a snippet, and
//     Result.Dropped names the consumer that reads it;
//   - placement values are the cookbook's: --model-path and
//     --served-model-name = the Hugging Face checkpoint, --host 0.0.0.0,
//     --port 30000, --disaggregation-mode <role> and
//     --disaggregation-bootstrap-port 8998 on disaggregated workers,
//     --dist-init-addr $<ROLE>_HEAD_IP:20000, --nnodes N, --node-rank
//     $NODE_RANK on multi-node workers, MOONCAKE_DEVICE / NCCL_IB_HCA /
//     UCX_NET_DEVICES = $IB_DEVICES; any other kept value holding a literal
//     IPv4 address (other than 0.0.0.0 / 127.0.0.1) gets $NODE_IP instead;
//   - dynamo router: etcd, NATS (when the submitted Dynamo run used NATS) and
//     nginx (when more than one frontend runs) blocks, a dynamo-frontend
//     (--http-port 8000, or 8180 behind nginx, then the recipe's frontend
//     flags, or --router-mode kv when derived), workers as
//     `python3 -m dynamo.sglang` with --request-plane tcp and env
//     DYN_REQUEST_PLANE=tcp, ETCD_ENDPOINTS=http://$ETCD_IP:2379
//     (+ NATS_SERVER=nats://$NATS_IP:4222 with NATS);
//   - sglang router: workers as `python3 -m sglang.launch_server`
//     (+ --skip-server-warmup when disaggregated), then an sglang-router
//     block: agg `--host 0.0.0.0 --port 8000 [--policy cache_aware]
//     --worker-urls URL…` (http://127.0.0.1:30000 for one single-node worker,
//     else http://$AGG_<i>_HEAD_IP:30000), disagg `--decode URL…` and
//     `--prefill URL 8998…` (highest index first, as the upstream files
//     print them), `--pd-disaggregation --host 0.0.0.0 --port 8000
//     --policy cache_aware`; the submitted sglang router keeps the recipe's
//     router flags instead of the derived --policy;
//   - worker args are in LEAD_FLAGS order, env sorted, as the page expects.

// frontendInfo is what the rendered frontend said.
type frontendInfo struct {
	submitted string       // "sglang" | "dynamo"
	count     int          // dynamo frontends
	args      []launch.Arg // kept (non-harness) frontend flags
	nats      bool
}

// workerInfo is one rendered worker role with its kept settings.
type workerInfo struct {
	role           string
	workers, nodes int
	gpusPerNode    int
	args           []launch.Arg
	env            []launch.EnvVar
}

// renderedShape is a rendered point reduced to what the cookbook publishes.
type renderedShape struct {
	model     string // HF checkpoint
	workers   []workerInfo
	front     frontendInfo
	synthetic bool     // a synthetic-acceptance setting was dropped
	dropped   []string // "role: --flag (class: reason)" for the report
}

var ipv4 = regexp.MustCompile(`\b(?:\d{1,3}\.){3}\d{1,3}\b`)

// splitFlag turns "--flag=value" into ("--flag", ["value"]).
func splitFlag(a launch.Arg) launch.Arg {
	if strings.HasPrefix(a.Flag, "-") && len(a.Values) == 0 {
		if f, v, ok := strings.Cut(a.Flag, "="); ok {
			return launch.Arg{Flag: f, Values: []string{v}, Origin: a.Origin}
		}
	}
	return a
}

func hostFree(v string) string {
	return ipv4.ReplaceAllStringFunc(v, func(ip string) string {
		if ip == "0.0.0.0" || ip == "127.0.0.1" {
			return ip
		}
		return "$NODE_IP"
	})
}

var ibPlacement = map[string]bool{"MOONCAKE_DEVICE": true, "NCCL_IB_HCA": true, "UCX_NET_DEVICES": true}

// ProhibitedError is a setting of a rendered point that the exclusion list
// classifies as prohibited (exclusions/rules.yaml, class "prohibited", e.g.
// prohibited-nvfp4-ckpt-fp8-nextn-moe: Check 13): it is never published, and
// Run leaves the whole config key out (Result.Refused).
type ProhibitedError struct {
	Where   string // "decode worker", "frontend"
	Setting string // "--flag" or "env NAME"
	Rule    string // exclusions rule id
	Reason  string // the rule's reason
}

// Error gives "<where>: <setting> is prohibited (<rule>: <reason>)".
func (e *ProhibitedError) Error() string {
	return fmt.Sprintf("%s: %s is prohibited (%s: %s)", e.Where, e.Setting, e.Rule, e.Reason)
}

// shapeOf classifies the settings of a rendered deployment. Errors: a
// prohibited setting (*ProhibitedError, with the rule's reason), a worker
// without a role.
func shapeOf(d *launch.Deployment, ex *exclusions.Set) (*renderedShape, error) {
	s := &renderedShape{model: d.Model}
	s.front.submitted = "sglang"
	drop := func(role string, what string, r *exclusions.Rule) {
		if r.Class == exclusions.ClassSyntheticAcceptance {
			s.synthetic = true
		}
		class := string(r.Class)
		if r.Consumer != "" {
			class += ", read by " + string(r.Consumer) // harness env: who consumes it
		}
		s.dropped = append(s.dropped, fmt.Sprintf("%s: %s (%s: %s)", role, what, class, r.Reason))
	}
	for pi := range d.Processes {
		p := &d.Processes[pi]
		switch p.Kind {
		case launch.KindWorker:
			role := string(p.Role)
			if role == "" {
				return nil, fmt.Errorf("process %d (%s): worker without a role", pi, p.Program)
			}
			w := workerInfo{role: role, workers: max(p.Workers, 1), nodes: max(p.NodesPerWorker, 1), gpusPerNode: p.GPUsPerNode}
			for _, l := range p.Preamble {
				if len(l) > 60 {
					l = l[:57] + "..."
				}
				s.dropped = append(s.dropped, fmt.Sprintf("%s: preamble %q (launcher plumbing: not published)", role, l))
			}
			seen := map[string]int{}
			for _, a := range p.Args {
				a = splitFlag(a)
				if a.Flag == "" {
					continue // positional (vllm serve MODEL): not an SGLang worker flag
				}
				st := exclusions.Setting{Kind: exclusions.KindFlag, Name: a.Flag, Value: strings.Join(a.Values, " "), Engine: "sglang", Role: role}
				if r, ok := ex.Match(st); ok {
					if r.Class == exclusions.ClassProhibited {
						return nil, &ProhibitedError{Where: role + " worker", Setting: a.Flag, Rule: r.ID, Reason: r.Reason}
					}
					if r.Class != exclusions.ClassJudgment {
						drop(role, a.Flag, r)
						continue
					}
				}
				vals := make([]string, len(a.Values))
				for i, v := range a.Values {
					vals[i] = hostFree(v)
				}
				a = launch.Arg{Flag: a.Flag, Values: vals}
				if i, ok := seen[a.Flag]; ok {
					w.args[i] = a // the last occurrence wins (argparse)
					continue
				}
				seen[a.Flag] = len(w.args)
				w.args = append(w.args, a)
			}
			envAt := map[string]int{}
			for _, e := range p.Env {
				st := exclusions.Setting{Kind: exclusions.KindEnv, Name: e.Name, Value: e.Value, Engine: "sglang", Role: role}
				val := hostFree(e.Value)
				if r, ok := ex.Match(st); ok {
					switch {
					case r.Class == exclusions.ClassProhibited:
						return nil, &ProhibitedError{Where: role + " worker", Setting: "env " + e.Name, Rule: r.ID, Reason: r.Reason}
					case r.Class == exclusions.ClassPlacement && ibPlacement[e.Name]:
						val = "$IB_DEVICES"
					case r.Class != exclusions.ClassJudgment:
						drop(role, "env "+e.Name, r)
						continue
					}
				}
				if i, ok := envAt[e.Name]; ok {
					w.env[i].Value = val
					continue
				}
				envAt[e.Name] = len(w.env)
				w.env = append(w.env, launch.EnvVar{Name: e.Name, Value: val})
			}
			s.workers = append(s.workers, w)
		case launch.KindDynamoFrontend, launch.KindSGLangRouter:
			s.front.submitted = "sglang"
			engine := "sglang"
			if p.Kind == launch.KindDynamoFrontend {
				s.front.submitted = "dynamo"
				s.front.count = max(p.Count, 1)
				engine = "dynamo"
			}
			for _, a := range p.Args {
				a = splitFlag(a)
				st := exclusions.Setting{Kind: exclusions.KindFlag, Name: a.Flag, Value: strings.Join(a.Values, " "), Engine: engine, Role: "frontend"}
				if r, ok := ex.Match(st); ok {
					if r.Class == exclusions.ClassProhibited {
						return nil, &ProhibitedError{Where: "frontend", Setting: a.Flag, Rule: r.ID, Reason: r.Reason}
					}
					if r.Class != exclusions.ClassJudgment {
						continue
					}
				}
				switch a.Flag {
				case "--host", "--port", "--http-port", "--worker-urls", "--prefill", "--decode", "--pd-disaggregation":
					continue // placement, written by the cookbook itself
				}
				vals := make([]string, len(a.Values))
				for i, v := range a.Values {
					vals[i] = hostFree(v)
				}
				s.front.args = append(s.front.args, launch.Arg{Flag: a.Flag, Values: vals})
			}
		case launch.KindNATS:
			s.front.nats = true
		}
	}
	if len(s.workers) == 0 {
		return nil, fmt.Errorf("no worker process")
	}
	return s, nil
}

// flagValue returns the first value of the first of flags present.
func flagValue(args []launch.Arg, flags ...string) (string, bool) {
	for _, f := range flags {
		if v, ok := launch.Lookup(args, f); ok {
			if len(v) == 0 {
				return "", true
			}
			return v[0], true
		}
	}
	return "", false
}

func flagInt(args []launch.Arg, def int, flags ...string) int {
	if v, ok := flagValue(args, flags...); ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

// parallelLabel gives a worker's parallelism as the upstream labels write it:
// DEP<tp> with DP attention, else TP<tp> plus ·EP<ep> when ep > 1 (PP is not
// shown, as in the upstream files), plus " (N nodes)" for multi-node workers.
func parallelLabel(w *workerInfo) string {
	tp := flagInt(w.args, 1, "--tensor-parallel-size", "--tp-size", "--tp")
	ep := flagInt(w.args, 1, "--expert-parallel-size", "--ep-size", "--ep")
	_, dpAttn := flagValue(w.args, "--enable-dp-attention")
	var s string
	switch {
	case dpAttn:
		s = "DEP" + strconv.Itoa(tp)
	case ep > 1:
		s = "TP" + strconv.Itoa(tp) + "·EP" + strconv.Itoa(ep)
	default:
		s = "TP" + strconv.Itoa(tp)
	}
	if w.nodes > 1 {
		s += " (" + strconv.Itoa(w.nodes) + " nodes)"
	}
	return s
}

// label gives the cell label: "Agg TP4", "Agg TP8 (2 nodes)",
// "Disagg 3P2D · prefill TP1 · decode DEP4".
func (s *renderedShape) label() string {
	var agg, pre, dec *workerInfo
	np, nd := 0, 0
	for i := range s.workers {
		w := &s.workers[i]
		switch w.role {
		case "agg":
			if agg == nil {
				agg = w
			}
		case "prefill":
			np += w.workers
			if pre == nil {
				pre = w
			}
		case "decode":
			nd += w.workers
			if dec == nil {
				dec = w
			}
		}
	}
	if pre == nil || dec == nil {
		w := agg
		if w == nil {
			w = &s.workers[0]
		}
		return "Agg " + parallelLabel(w)
	}
	return fmt.Sprintf("Disagg %dP%dD · prefill %s · decode %s", np, nd, parallelLabel(pre), parallelLabel(dec))
}

// specDetail gives the speculative-decoding part of the detail: "MTP
// <steps>-<topk>-<draft tokens>" (--speculative-num-steps,
// --speculative-eagle-topk, --speculative-num-draft-tokens) when a worker
// has --speculative-algorithm, else "no spec".
func (s *renderedShape) specDetail() string {
	for i := range s.workers {
		a := s.workers[i].args
		if alg, ok := flagValue(a, "--speculative-algorithm", "--speculative-algo"); ok && alg != "" && !strings.EqualFold(alg, "none") {
			steps, _ := flagValue(a, "--speculative-num-steps")
			topk, _ := flagValue(a, "--speculative-eagle-topk")
			draft, _ := flagValue(a, "--speculative-num-draft-tokens")
			if steps != "" && topk != "" && draft != "" {
				return "MTP " + steps + "-" + topk + "-" + draft
			}
			return "MTP"
		}
	}
	return "no spec"
}

// gpus is the total GPU count: Σ workers × nodes × GPUs per node (TP × PP
// when the renderer did not say).
func (s *renderedShape) gpus() int {
	n := 0
	for i := range s.workers {
		w := &s.workers[i]
		g := w.gpusPerNode
		if g == 0 {
			g = flagInt(w.args, 1, "--tensor-parallel-size", "--tp-size", "--tp") * flagInt(w.args, 1, "--pipeline-parallel-size", "--pp-size", "--pp") / w.nodes
			if g == 0 {
				g = 1
			}
		}
		n += w.workers * w.nodes * g
	}
	return n
}

// measuredKV is the KV tier the point ran with: mooncake when a worker has
// the Mooncake linker, hicache with --enable-hierarchical-cache, else none.
func (s *renderedShape) measuredKV() string {
	kv := launch.KVNone
	for i := range s.workers {
		a := s.workers[i].args
		if _, ok := launch.Lookup(a, "--enable-unified-cache-external-linker"); ok {
			return launch.KVMooncake
		}
		if _, ok := launch.Lookup(a, "--enable-hierarchical-cache"); ok {
			kv = launch.KVHiCache
		}
	}
	return kv
}

// hicacheArgs returns the cache-owning worker's HiCache flags
// (--enable-hierarchical-cache and --hicache-* but --hicache-size, which is
// host-specific), the donor settings of the derived hicache tier.
func (s *renderedShape) hicacheArgs() cookbook.Args {
	for i := range s.workers {
		w := &s.workers[i]
		if w.role == "decode" {
			continue
		}
		var out cookbook.Args
		for _, a := range w.args {
			if a.Flag == "--enable-hierarchical-cache" || strings.HasPrefix(a.Flag, "--hicache-") && a.Flag != "--hicache-size" {
				out = append(out, append([]string{a.Flag}, a.Values...))
			}
		}
		if len(out) > 0 {
			slices.SortStableFunc(out, func(x, y []string) int { return strings.Compare(x[0], y[0]) })
			return out
		}
	}
	return nil
}

const (
	etcdEnv = "http://$ETCD_IP:2379"
	natsEnv = "nats://$NATS_IP:4222"
)

// blocks builds the full blocks of router r ("sglang" | "dynamo") for the
// shape. Every block is in full form, worker args in LEAD_FLAGS order and
// env sorted.
func (s *renderedShape) blocks(r string) []cookbook.BlockEntry {
	disagg := false
	for _, w := range s.workers {
		if w.role == "prefill" || w.role == "decode" {
			disagg = true
		}
	}
	var out []cookbook.BlockEntry
	nats := s.front.nats && s.front.submitted == "dynamo"
	if r == "dynamo" {
		out = append(out, cookbook.BlockEntry{Kind: "etcd", CountNodes: 1, Cmd: "etcd", Env: cookbook.Env{},
			Args: cookbook.Args{{"--data-dir", "/tmp/etcd"}, {"--listen-client-urls", "http://0.0.0.0:2379"}, {"--advertise-client-urls", etcdEnv}}})
		if nats {
			out = append(out, cookbook.BlockEntry{Kind: "nats", CountNodes: 1, Cmd: "nats-server -c nats.conf", Env: cookbook.Env{}, Args: cookbook.Args{}})
		}
		count := 1
		if s.front.submitted == "dynamo" {
			count = max(s.front.count, 1)
		}
		port := "8000"
		if count > 1 {
			port = "8180"
			out = append(out, cookbook.BlockEntry{Kind: "nginx", Cmd: "nginx -c nginx.conf -g daemon off;", Env: cookbook.Env{}, Args: cookbook.Args{}})
		}
		fe := cookbook.BlockEntry{Kind: "dynamo-frontend", Count: count, Cmd: "python3 -m dynamo.frontend",
			Env: cookbook.Env{{Name: "DYN_REQUEST_PLANE", Value: "tcp"}, {Name: "ETCD_ENDPOINTS", Value: etcdEnv}}, Args: cookbook.Args{{"--http-port", port}}}
		if nats {
			fe.Env = append(fe.Env, cookbook.EnvVar{Name: "NATS_SERVER", Value: natsEnv})
		}
		if s.front.submitted == "dynamo" && len(s.front.args) > 0 {
			for _, a := range s.front.args {
				fe.Args = append(fe.Args, append([]string{a.Flag}, a.Values...))
			}
		} else {
			fe.Args = append(fe.Args, []string{"--router-mode", "kv"})
		}
		out = append(out, fe)
	}
	idx := map[string]int{}
	for wi := range s.workers {
		w := &s.workers[wi]
		b := cookbook.BlockEntry{Kind: "worker", Role: w.role, Workers: w.workers, NodesPerWorker: w.nodes}
		args := []launch.Arg{
			{Flag: "--model-path", Values: []string{s.model}},
			{Flag: "--served-model-name", Values: []string{s.model}},
			{Flag: "--host", Values: []string{"0.0.0.0"}},
			{Flag: "--port", Values: []string{"30000"}},
		}
		if disagg {
			args = append(args, launch.Arg{Flag: "--disaggregation-mode", Values: []string{w.role}},
				launch.Arg{Flag: "--disaggregation-bootstrap-port", Values: []string{"8998"}})
		}
		if w.nodes > 1 {
			args = append(args, launch.Arg{Flag: "--dist-init-addr", Values: []string{"$" + strings.ToUpper(w.role) + "_HEAD_IP:20000"}},
				launch.Arg{Flag: "--nnodes", Values: []string{strconv.Itoa(w.nodes)}},
				launch.Arg{Flag: "--node-rank", Values: []string{"$NODE_RANK"}})
		}
		env := slices.Clone(w.env)
		if r == "dynamo" {
			b.Cmd = "python3 -m dynamo.sglang"
			args = append(args, launch.Arg{Flag: "--request-plane", Values: []string{"tcp"}})
			env = setEnv(env, "DYN_REQUEST_PLANE", "tcp")
			env = setEnv(env, "ETCD_ENDPOINTS", etcdEnv)
			if nats {
				env = setEnv(env, "NATS_SERVER", natsEnv)
			}
		} else {
			b.Cmd = "python3 -m sglang.launch_server"
			if disagg {
				args = append(args, launch.Arg{Flag: "--skip-server-warmup"})
			}
		}
		for _, a := range w.args {
			if _, ok := launch.Lookup(args, a.Flag); !ok {
				args = append(args, a)
			}
		}
		cookbook.SortWorkerArgs(args)
		cookbook.SortEnv(env)
		b.Args = make(cookbook.Args, len(args))
		for i, a := range args {
			b.Args[i] = append([]string{a.Flag}, a.Values...)
		}
		b.Env = make(cookbook.Env, len(env))
		for i, e := range env {
			b.Env[i] = cookbook.EnvVar{Name: e.Name, Value: e.Value}
		}
		idx[w.role] += w.workers
		out = append(out, b)
	}
	if r == "sglang" {
		rt := cookbook.BlockEntry{Kind: "sglang-router", Cmd: "python3 -m sglang_router.launch_router", Env: cookbook.Env{}}
		policy := []string{"--policy", "cache_aware"}
		var extra cookbook.Args
		if s.front.submitted == "sglang" {
			policy = nil
			for _, a := range s.front.args {
				extra = append(extra, append([]string{a.Flag}, a.Values...))
			}
		}
		if disagg {
			for i := idx["decode"] - 1; i >= 0; i-- {
				rt.Args = append(rt.Args, []string{"--decode", "http://$DECODE_" + strconv.Itoa(i) + "_HEAD_IP:30000"})
			}
			for i := idx["prefill"] - 1; i >= 0; i-- {
				rt.Args = append(rt.Args, []string{"--prefill", "http://$PREFILL_" + strconv.Itoa(i) + "_HEAD_IP:30000", "8998"})
			}
			rt.Args = append(rt.Args, []string{"--pd-disaggregation"}, []string{"--host", "0.0.0.0"}, []string{"--port", "8000"})
			if policy != nil {
				rt.Args = append(rt.Args, policy)
			}
			rt.Args = append(rt.Args, extra...)
		} else {
			rt.Args = cookbook.Args{{"--host", "0.0.0.0"}, {"--port", "8000"}}
			if policy != nil {
				rt.Args = append(rt.Args, policy)
			}
			rt.Args = append(rt.Args, extra...)
			urls := []string{"--worker-urls"}
			single := len(s.workers) == 1 && s.workers[0].workers == 1 && s.workers[0].nodes == 1
			if single {
				urls = append(urls, "http://127.0.0.1:30000")
			} else {
				for i := 0; i < idx["agg"]; i++ {
					urls = append(urls, "http://$AGG_"+strconv.Itoa(i)+"_HEAD_IP:30000")
				}
			}
			rt.Args = append(rt.Args, urls)
		}
		out = append(out, rt)
	}
	return out
}

func setEnv(env []launch.EnvVar, name, val string) []launch.EnvVar {
	for i := range env {
		if env[i].Name == name {
			env[i].Value = val
			return env
		}
	}
	return append(env, launch.EnvVar{Name: name, Value: val})
}

// natsConf and nginxConf are the config files the dynamo router's NATS and
// nginx blocks read. nats.conf raises max_payload to 8 MiB (the value the
// InferenceX Dynamo lanes use) with JetStream under /tmp/nats; nginx.conf
// spreads requests over the `count` frontends (port 8180) and listens on 8000.
const natsConf = "max_payload: 8388608\njetstream { store_dir: \"/tmp/nats\" }\n"

func nginxConf(frontends int) string {
	var b strings.Builder
	b.WriteString("worker_processes auto;\n\nhttp {\n    client_max_body_size 45m;\n    access_log off;\n    keepalive_timeout 600s;\n\n    upstream backend_servers {\n")
	for i := range frontends {
		fmt.Fprintf(&b, "        server $FRONTEND_%d_IP:8180;\n", i)
	}
	b.WriteString("        keepalive 512;\n    }\n\n    server {\n        listen 8000;\n        location / {\n            proxy_pass http://backend_servers;\n            proxy_buffering off;\n            proxy_read_timeout 24h;\n            proxy_send_timeout 24h;\n            proxy_http_version 1.1;\n            proxy_set_header Connection \"\";\n        }\n    }\n}\n\nevents {\n    worker_connections 65535;\n    multi_accept on;\n}\n")
	return b.String()
}
