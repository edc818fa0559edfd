package srtslurm

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Fixture tests for the service steps srt-slurm starts around the workers:
// etcd/NATS, the Mooncake master, nginx and the frontends (dynamo frontend
// or sglang router). Every expected value below is derived by hand from
// ../shared/spec/srt-slurm.md (section named per case), not copied from a
// rendering.

// services is the service layout of a rendering: where each service step
// runs and what the frontends listen on.
type services struct {
	nodes     int      // allocation size
	infra     string   // node running etcd/NATS
	head      string   // first worker node
	nginx     string   // node running nginx, "" = no nginx
	frontends []string // one entry per frontend step: node
	port      string   // frontend HTTP port
	upstreams []string // nginx.conf server entries
}

func layoutOf(t *testing.T, out *Rendering) services {
	t.Helper()
	s := services{nodes: len(out.Nodes), infra: out.Infra, head: out.Head}
	if n := stepsOf(out, launch.KindNginx); len(n) == 1 {
		s.nginx = n[0].Nodes[0]
	} else if len(n) > 1 {
		t.Errorf("%d nginx steps", len(n))
	}
	for _, st := range out.Steps {
		if !st.Kind.IsFrontend() {
			continue
		}
		s.frontends = append(s.frontends, st.Nodes[0])
		var p []string
		switch st.Kind {
		case launch.KindDynamoFrontend:
			for _, a := range st.Args {
				if v, ok := strings.CutPrefix(a.Flag, "--http-port="); ok {
					p = []string{v}
				}
			}
		case launch.KindSGLangRouter:
			p, _ = launch.Lookup(st.Args, "--port")
		}
		if len(p) != 1 {
			t.Errorf("frontend on %s: no port in %v", st.Nodes[0], st.Argv())
			continue
		}
		if s.port != "" && s.port != p[0] {
			t.Errorf("frontends listen on %s and %s", s.port, p[0])
		}
		s.port = p[0]
	}
	for _, f := range out.Files {
		if f.Name != "nginx.conf" {
			continue
		}
		for _, l := range strings.Split(f.Content, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(l), "server "); ok && strings.HasSuffix(v, ";") {
				s.upstreams = append(s.upstreams, strings.TrimSuffix(v, ";"))
			}
		}
	}
	return s
}

func (s services) String() string {
	return strings.Join([]string{
		"nodes=" + strconv.Itoa(s.nodes), "infra=" + s.infra, "head=" + s.head, "nginx=" + s.nginx,
		"frontends=" + strings.Join(s.frontends, ","), "port=" + s.port, "upstreams=" + strings.Join(s.upstreams, ","),
	}, " ")
}

// TestFrontendTopology checks where nginx and the frontends run and on which
// ports (spec §6 "Placement": one worker node or enable_multiple_frontends:
// false → one frontend on the head at 8000, no nginx; otherwise nginx on the
// head at 8000 plus min(num_additional_frontends+1, #non-head worker nodes)
// frontends on the first non-head worker nodes at 8180; §7 node count: +1
// for dedicated infra/frontend/client nodes, one each with
// benchmark.colocate_with_frontend: false; §10a: v2 services placement and
// frontend.placement.node map to the v1 fields).
func TestFrontendTopology(t *testing.T) {
	for _, tc := range []struct {
		file, sel string
		want      services
	}{
		// The report's recipe shape (qwen3.5 fp8 gb300 1p1d pp4,
		// num_additional_frontends: 1, etcd/nats dedicated): 2 worker
		// nodes node1-node2 after infra node0; head node1 gets nginx;
		// min(1+1, 1 non-head node) = 1 frontend, on node2:8180.
		{"fe-v2-disagg.yaml", "base", services{nodes: 3, infra: "node0", head: "node1", nginx: "node1",
			frontends: []string{"node2"}, port: "8180", upstreams: []string{"10.0.0.2:8180"}}},
		// 3P2D: 5 worker nodes node1-node5, 4 non-head: min(2, 4) = 2.
		{"fe-v2-disagg.yaml", "override_3p2d", services{nodes: 6, infra: "node0", head: "node1", nginx: "node1",
			frontends: []string{"node2", "node3"}, port: "8180", upstreams: []string{"10.0.0.2:8180", "10.0.0.3:8180"}}},
		// null deletes the key (§8.2): default 9 → min(10, 4) = 4.
		{"fe-v2-disagg.yaml", "override_3p2d_default_count", services{nodes: 6, infra: "node0", head: "node1", nginx: "node1",
			frontends: []string{"node2", "node3", "node4", "node5"}, port: "8180",
			upstreams: []string{"10.0.0.2:8180", "10.0.0.3:8180", "10.0.0.4:8180", "10.0.0.5:8180"}}},
		// enable_multiple_frontends: false → one frontend on the head at 8000.
		{"fe-v2-disagg.yaml", "override_single", services{nodes: 3, infra: "node0", head: "node1",
			frontends: []string{"node1"}, port: "8000"}},
		// decode colocated with prefill: one worker node → no nginx.
		{"fe-v2-disagg.yaml", "override_colocated", services{nodes: 2, infra: "node0", head: "node1",
			frontends: []string{"node1"}, port: "8000"}},
		// frontend.placement.node: infra → orchestrator_placement infra.
		{"fe-v2-disagg.yaml", "override_infra_placement", services{nodes: 3, infra: "node0", head: "node1",
			frontends: []string{"node0"}, port: "8000"}},
		// frontend.placement.node: dedicated → dedicated_node: one extra
		// node (node0) for the frontend, which is the head, and etcd/nats
		// default to the head (srtctl core/runtime.py Nodes.from_slurm;
		// oracle testdata/oracle/sgl-fe-dedicated.main.txt).
		{"fe-v2-disagg.yaml", "override_dedicated_frontend", services{nodes: 3, infra: "node0", head: "node0",
			frontends: []string{"node0"}, port: "8000"}},
		// schema 1, nothing dedicated: head node0 has infra and nginx.
		{"fe-v1.yaml", "override_plain", services{nodes: 2, infra: "node0", head: "node0", nginx: "node0",
			frontends: []string{"node1"}, port: "8180", upstreams: []string{"10.0.0.1:8180"}}},
		{"fe-v1.yaml", "override_dedicated_frontend", services{nodes: 3, infra: "node0", head: "node0",
			frontends: []string{"node0"}, port: "8000"}},
		// infra + client dedicated, colocate_with_frontend false: 2 extra
		// nodes, infra first, the client node last (Nodes.from_slurm).
		{"fe-v1.yaml", "override_client_apart", services{nodes: 4, infra: "node0", head: "node1", nginx: "node1",
			frontends: []string{"node2"}, port: "8180", upstreams: []string{"10.0.0.2:8180"}}},
		// infra + client dedicated share one node by default: the last one,
		// as a client node never is the first.
		{"fe-v1.yaml", "override_client_shared", services{nodes: 3, infra: "node2", head: "node0", nginx: "node0",
			frontends: []string{"node1"}, port: "8180", upstreams: []string{"10.0.0.1:8180"}}},
		// orchestrator_placement: first_decode → the first decode leader.
		{"fe-v1.yaml", "override_orch_infra", services{nodes: 3, infra: "node0", head: "node1",
			frontends: []string{"node2"}, port: "8000"}},
		// sglang router: two agg nodes → nginx on node0, min(10, 1) = 1 router.
		{"fe-router.yaml", "", services{nodes: 2, infra: "node0", head: "node0", nginx: "node0",
			frontends: []string{"node1"}, port: "8180", upstreams: []string{"10.0.0.1:8180"}}},
	} {
		t.Run(tc.file+":"+tc.sel, func(t *testing.T) {
			out := mustRender(t, tc.file, tc.sel, Options{})
			if got := layoutOf(t, out); got.String() != tc.want.String() {
				t.Errorf("\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestCorpusFrontendPPPareto renders the recipe of the report (the qwen3.5
// fp8 gb300 pp-pareto 1p1d point) when ../shared is present: nginx on the
// head node1 at 8000 and one frontend on node2 at 8180 (spec §6), not two.
func TestCorpusFrontendPPPareto(t *testing.T) {
	dir := testutil.SharedPath(t, "corpus/pairs/inferencex")
	base := filepath.Join(dir, "inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/gb300-fp8/agentx")
	for _, tc := range []struct {
		file string
		want services
	}{
		{"disagg-gb300-1p1d-pp4-dep4-c100-mtp-hicache-nightly-20260913.yaml", services{nodes: 3, infra: "node0", head: "node1",
			nginx: "node1", frontends: []string{"node2"}, port: "8180", upstreams: []string{"10.0.0.2:8180"}}},
		// 3 + 2 worker nodes: min(1+1, 4) = 2
		{"disagg-gb300-3p2d-pp4-dep4-c600-mtp-hicache-nightly-20260913.yaml", services{nodes: 6, infra: "node0", head: "node1",
			nginx: "node1", frontends: []string{"node2", "node3"}, port: "8180", upstreams: []string{"10.0.0.2:8180", "10.0.0.3:8180"}}},
	} {
		r, err := Load(filepath.Join(base, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Render("", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := layoutOf(t, out); got.String() != tc.want.String() {
			t.Errorf("%s:\n got %s\nwant %s", tc.file, got, tc.want)
		}
	}
}

// TestFrontendCommands checks the frontend, router and nginx commands and
// the nginx.conf mode (spec §3.3, §6).
func TestFrontendCommands(t *testing.T) {
	out := mustRender(t, "fe-v2-disagg.yaml", "base", Options{})
	fe := stepsOf(out, launch.KindDynamoFrontend)
	if len(fe) != 1 {
		t.Fatalf("%d frontends", len(fe))
	}
	if got := strings.Join(fe[0].Argv(), " "); got != "python3 -m dynamo.frontend --http-port=8180 --router-mode kv" {
		t.Errorf("frontend argv %s", got)
	}
	if fe[0].MPI != "pmix" || fe[0].Image != "img" || fe[0].Preamble != "" {
		t.Errorf("frontend srun mpi %q image %q preamble %q", fe[0].MPI, fe[0].Image, fe[0].Preamble)
	}
	ng := stepsOf(out, launch.KindNginx)
	if len(ng) != 1 || ng[0].Image != "nginx" || strings.Join(ng[0].Argv(), "\x00") != "bash\x00-c\x00nginx -c /logs/nginx.conf -g 'daemon off;'" {
		t.Errorf("nginx %+v", ng)
	}
	conf := fileOf(out, "nginx.conf")
	for _, w := range []string{"listen 8000;", "keepalive 512;", "client_max_body_size 45m;", "map $http_x_dynamo_session_id $frontend_hash_key", "hash $frontend_hash_key consistent;"} {
		if !strings.Contains(conf, w) {
			t.Errorf("nginx.conf lacks %q", w)
		}
	}
	var kinds []string
	for _, st := range out.Steps {
		kinds = append(kinds, string(st.Kind))
	}
	// spec §1 step 10: etcd/nats, workers, then nginx and the frontends
	// (schema 2: etcd and NATS are one registry srun each, spec §10b)
	if got := strings.Join(kinds, " "); got != "etcd nats worker worker nginx dynamo-frontend" {
		t.Errorf("launch order %s", got)
	}

	// sglang router: raise_ulimit prefix, round robin (no affinity), only
	// frontend.env, no preamble (§6, §9).
	rt := mustRender(t, "fe-router.yaml", "", Options{})
	ng = stepsOf(rt, launch.KindNginx)
	if len(ng) != 1 || ng[0].Image != "nginx:1.27.4" || ng[0].Args[0].Values[0] != "ulimit -n 1048576 && nginx -c /logs/nginx.conf -g 'daemon off;'" {
		t.Errorf("router nginx %+v", ng)
	}
	if conf := fileOf(rt, "nginx.conf"); strings.Contains(conf, "hash ") || !strings.Contains(conf, "server 10.0.0.1:8180;") {
		t.Errorf("round-robin nginx.conf:\n%s", conf)
	}
	r := stepsOf(rt, launch.KindSGLangRouter)
	if len(r) != 1 {
		t.Fatalf("%d routers", len(r))
	}
	if got := strings.Join(r[0].Argv(), " "); got != "python -m sglang_router.launch_router --worker-urls http://10.0.0.0:6100 http://10.0.0.1:6100 --host 0.0.0.0 --port 8180 --policy round_robin" {
		t.Errorf("router argv %s", got)
	}
	if envString(r[0].Env) != "ROUTER_ENV=1" || r[0].Preamble != "" {
		t.Errorf("router env %q preamble %q", envString(r[0].Env), r[0].Preamble)
	}
	if w := stepsOf(rt, launch.KindWorker); len(w) != 2 || !strings.Contains(w[0].Preamble, "setup_script=setup.sh && script_path=\"/configs/${setup_script}\"") {
		t.Errorf("router workers keep the setup script: %+v", w)
	}
	var dp *launch.Process
	for i, p := range rt.Deployment.Processes {
		if p.Kind == launch.KindSGLangRouter {
			dp = &rt.Deployment.Processes[i]
		}
	}
	if dp == nil || dp.Count != 1 {
		t.Errorf("router process %+v", dp)
	}
}

// TestFrontendEnvByVersion checks the dynamo frontend env per srt-slurm
// ref (spec §6 "dynamo", §0 table): main has ETCD_ENDPOINTS, NATS_SERVER,
// DYN_REQUEST_PLANE, DYN_SKIP_SGLANG_LOG_FORMATTING=1, DYN_EVENT_PLANE, the
// top-level environment, then frontend.env; sa-submission only ETCD,
// NATS, DYN_REQUEST_PLANE (default nats) and frontend.env; a98738de and
// aflowers always DYN_REQUEST_PLANE=nats, aflowers without the skip var.
func TestFrontendEnvByVersion(t *testing.T) {
	const infra = "ETCD_ENDPOINTS=http://node0:2379 NATS_SERVER=nats://node0:4222 "
	for ver, want := range map[string]string{
		"":                            infra + "DYN_REQUEST_PLANE=tcp DYN_SKIP_SGLANG_LOG_FORMATTING=1 DYN_EVENT_PLANE=nats TOP_ENV=x FE_ONLY=1",
		"v1.0.45":                     infra + "DYN_REQUEST_PLANE=tcp DYN_SKIP_SGLANG_LOG_FORMATTING=1 DYN_EVENT_PLANE=nats TOP_ENV=x FE_ONLY=1",
		"sa-submission-q2-2026":       infra + "DYN_REQUEST_PLANE=nats FE_ONLY=1",
		"a98738de":                    infra + "DYN_REQUEST_PLANE=nats DYN_SKIP_SGLANG_LOG_FORMATTING=1 DYN_EVENT_PLANE=nats TOP_ENV=x FE_ONLY=1",
		"aflowers/vllm-gb200-v0.20.0": infra + "DYN_REQUEST_PLANE=nats DYN_EVENT_PLANE=nats TOP_ENV=x FE_ONLY=1",
	} {
		out := mustRender(t, "fe-v1.yaml", "override_plain", Options{Version: ver})
		fe := stepsOf(out, launch.KindDynamoFrontend)
		if len(fe) != 1 {
			t.Fatalf("%s: %d frontends", ver, len(fe))
		}
		if got := envString(fe[0].Env); got != want {
			t.Errorf("%s frontend env\n got %s\nwant %s", ver, got, want)
		}
		for _, n := range []string{"HEAD_NODE_IP", "DYN_SYSTEM_PORT", "DYN_LOG"} {
			if _, ok := launch.LookupEnv(fe[0].Env, n); ok {
				t.Errorf("%s: frontend env has %s", ver, n)
			}
		}
	}
}

// TestServicesEtcdNatsMooncake checks etcd/NATS and the Mooncake master
// (spec §6 "etcd/nats", "mooncake master"; §1 step 10 order; §10a services).
func TestServicesEtcdNatsMooncake(t *testing.T) {
	argv := func(p launch.Process) string { return strings.Join(p.Argv(), " ") }
	proc := func(out *Rendering, k launch.Kind) (launch.Process, bool) {
		for _, p := range out.Deployment.Processes {
			if p.Kind == k {
				return p, true
			}
		}
		return launch.Process{}, false
	}

	// v2 services: etcd/nats dedicated, max_payload_mb 8; the schema-2
	// services registry starts each as its own srun (spec §10b, services.go)
	out := mustRender(t, "fe-v2-disagg.yaml", "base", Options{})
	et := stepsOf(out, launch.KindEtcd)
	if len(et) != 1 || et[0].Nodes[0] != "node0" || et[0].Image != "img" ||
		strings.Join(et[0].Argv(), " ") != "/configs/etcd --data-dir /tmp/etcd --listen-client-urls http://0.0.0.0:2379 --advertise-client-urls http://10.0.0.0:2379" {
		t.Errorf("etcd %+v", et)
	}
	if p, _ := proc(out, launch.KindEtcd); argv(p) != "/configs/etcd --data-dir /tmp/etcd --listen-client-urls http://0.0.0.0:2379 --advertise-client-urls http://10.0.0.0:2379" {
		t.Errorf("etcd %s", argv(p))
	}
	// setup_head.py start_nats: a max payload runs -c <conf> without -js
	if p, _ := proc(out, launch.KindNATS); argv(p) != "/configs/nats-server -c /tmp/nats.conf" {
		t.Errorf("nats %s", argv(p))
	}
	w := stepsOf(out, launch.KindWorker)
	if v, _ := launch.LookupEnv(w[0].Env, "ETCD_ENDPOINTS"); v != "http://node0:2379" {
		t.Errorf("worker ETCD_ENDPOINTS %q", v)
	}
	if v, _ := launch.LookupEnv(w[0].Env, "HEAD_NODE_IP"); v != "10.0.0.1" {
		t.Errorf("worker HEAD_NODE_IP %q", v)
	}

	// v2 mooncake-master service: after etcd/nats, before the workers, on
	// the infra node, in its own container; nats without payload → -sd.
	mc := mustRender(t, "fe-v2-disagg.yaml", "override_mooncake", Options{})
	var kinds []string
	for _, st := range mc.Steps {
		kinds = append(kinds, string(st.Kind))
	}
	if got := strings.Join(kinds, " "); got != "etcd nats mooncake-master worker worker nginx dynamo-frontend" {
		t.Errorf("launch order %s", got)
	}
	m := stepsOf(mc, launch.KindMooncakeMaster)
	if len(m) != 1 || m[0].Nodes[0] != "node0" || m[0].Image != "mc-img" ||
		strings.Join(m[0].Argv(), " ") != "mooncake_master --port=8700 --enable_http_metadata_server=true --http_metadata_server_port=8701 --eviction_high_watermark_ratio=0.9 --default_kv_lease_ttl=10000 --rpc_thread_num=16 --enable_metric_reporting=true --metrics_port=8702 --max_threads=4" {
		t.Errorf("mooncake master %+v", m)
	}
	if p, _ := proc(mc, launch.KindNATS); argv(p) != "/configs/nats-server -js -sd /tmp/nats" {
		t.Errorf("nats %s", argv(p))
	}
	if et := stepsOf(mc, launch.KindEtcd); len(et) != 1 || strings.Contains(strings.Join(et[0].Argv(), " "), "--nats-max-payload-mb") {
		t.Errorf("setup_head %+v", et)
	}
	for _, st := range stepsOf(mc, launch.KindWorker) {
		for _, n := range []string{"MOONCAKE_MASTER", "MOONCAKE_TE_META_DATA_SERVER", "MOONCAKE_LOCAL_HOSTNAME"} {
			if _, ok := launch.LookupEnv(st.Env, n); !ok {
				t.Errorf("worker on %s lacks %s", st.Nodes[0], n)
			}
		}
		if _, ok := launch.LookupEnv(st.Env, "MOONCAKE_CONFIG_PATH"); ok {
			t.Errorf("SGLang worker has MOONCAKE_CONFIG_PATH (vLLM only)")
		}
	}

	// v1 mooncake_kv_store without container: model container, infra = head,
	// master_extra_args appended, no env on the master srun (do_sweep.py
	// start_mooncake_master); the workers get get_mooncake_worker_env after
	// their own env: LOCAL_HOSTNAME, mooncake_kv_store.env, MASTER, META.
	v1 := mustRender(t, "fe-v1.yaml", "override_mooncake", Options{})
	m = stepsOf(v1, launch.KindMooncakeMaster)
	if len(m) != 1 || m[0].Nodes[0] != "node0" || m[0].Image != "img" || len(m[0].Env) != 0 ||
		strings.Join(m[0].Argv(), " ") != "mooncake_master --port=8700 --enable_http_metadata_server=true --http_metadata_server_port=8701 --eviction_high_watermark_ratio=0.9 --default_kv_lease_ttl=10000 --rpc_thread_num=16 --enable_metric_reporting=true --metrics_port=8702 --a=1 --b=2" {
		t.Errorf("v1 mooncake master %+v", m)
	}
	mw := stepsOf(v1, launch.KindWorker)
	if len(mw) != 2 {
		t.Fatalf("v1 mooncake: %d workers", len(mw))
	}
	for i, st := range mw {
		env := envString(st.Env)
		want := fmt.Sprintf("MOONCAKE_LOCAL_HOSTNAME=10.0.0.%d MC_TE_METRIC=0 MOONCAKE_MASTER=10.0.0.0:8700 MOONCAKE_TE_META_DATA_SERVER=http://10.0.0.0:8701/metadata", i)
		if !strings.HasSuffix(env, want) {
			t.Errorf("v1 mooncake worker %d env %s, want suffix %s", i, env, want)
		}
	}
	if fileOf(v1, mooncakeStoreConfigFile) != "" {
		t.Errorf("v1 SGLang mooncake writes %s (vLLM's store config)", mooncakeStoreConfigFile)
	}

	// infra.nats_max_payload_mb (schema 1)
	oi := mustRender(t, "fe-v1.yaml", "override_orch_infra", Options{})
	if et := stepsOf(oi, launch.KindEtcd); len(et) != 1 || et[0].Nodes[0] != "node0" || !strings.HasSuffix(strings.Join(et[0].Argv(), " "), "--nats-max-payload-mb 32") {
		t.Errorf("setup_head %+v", et)
	}
	// setup_head.py start_nats: the config file alone (its jetstream block
	// turns JetStream on), else -js -sd /tmp/nats
	if p, _ := proc(oi, launch.KindNATS); argv(p) != "/configs/nats-server -c /tmp/nats.conf" {
		t.Errorf("nats with payload: %s", argv(p))
	}
	if p, _ := proc(v1, launch.KindNATS); argv(p) != "/configs/nats-server -js -sd /tmp/nats" {
		t.Errorf("nats without payload: %s", argv(p))
	}

	// a dedicated frontend node is the head, and etcd/nats default to the
	// head (srtctl core/runtime.py Nodes.from_slurm)
	df := mustRender(t, "fe-v1.yaml", "override_dedicated_frontend", Options{})
	if et := stepsOf(df, launch.KindEtcd); len(et) != 1 || et[0].Nodes[0] != "node0" {
		t.Errorf("setup_head %+v", et)
	}
	if fe := stepsOf(df, launch.KindDynamoFrontend); len(fe) != 1 || envString(fe[0].Env)[:len("ETCD_ENDPOINTS=http://node0:2379")] != "ETCD_ENDPOINTS=http://node0:2379" {
		t.Errorf("frontend %+v", fe)
	}

	// direct vllm serve: no etcd, NATS or nginx (§4.3).
	vd := mustRender(t, "fe-vllm-direct.yaml", "", Options{})
	for _, k := range []launch.Kind{launch.KindEtcd, launch.KindNATS, launch.KindNginx, launch.KindDynamoFrontend} {
		if len(stepsOf(vd, k)) != 0 {
			t.Errorf("direct vLLM starts %s", k)
		}
		if _, ok := proc(vd, k); ok {
			t.Errorf("direct vLLM deployment has %s", k)
		}
	}
	if len(vd.Files) != 0 {
		t.Errorf("direct vLLM writes %v", vd.Files)
	}
}

// TestFrontendKeyLocations checks that each schema reads the frontend,
// dynamo and benchmark keys where srt-slurm does (spec §3.1, §10a): v1 has
// no frontend.placement or dynamo.source; v2 rejects the v1 placement keys.
func TestFrontendKeyLocations(t *testing.T) {
	for _, tc := range []struct {
		file, sel string
		want      []string
	}{
		{"fe-bad-v1-placement.yaml", "", []string{"testdata/fe-bad-v1-placement.yaml:5:3", `unknown frontend key "placement"`}},
		{"fe-bad-v1-source.yaml", "", []string{"testdata/fe-bad-v1-source.yaml:5:3", `unknown dynamo key "source"`}},
		{"fe-bad-v2-client.yaml", "", []string{"testdata/fe-bad-v2-client.yaml:6:", "benchmark.client_dedicated_node is a schema-1 key"}},
		{"fe-v1.yaml", "override_orch_bad", []string{"testdata/fe-v1.yaml:", `frontend.orchestrator_placement="somewhere" is invalid`}},
	} {
		r, err := Load(filepath.Join("testdata", tc.file))
		if err == nil {
			_, err = r.Render(tc.sel, Options{})
		}
		if err == nil {
			t.Errorf("%s: no error", tc.file)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tc.file, err, w)
			}
		}
	}
}

func fileOf(out *Rendering, name string) string {
	for _, f := range out.Files {
		if f.Name == name {
			return f.Content
		}
	}
	return ""
}

func envString(env []launch.EnvVar) string {
	s := make([]string, len(env))
	for i, e := range env {
		s[i] = e.Name + "=" + e.Value
	}
	return strings.Join(s, " ")
}
