package srtslurm

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Tests of the schema-2 services registry (services.go). Every expected
// value is derived by hand from ../shared/spec/srt-slurm.md §10b (and §6 for
// the etcd / NATS / Mooncake master commands, §7 for the topology each
// fixture comment states), not copied from a rendering.

const etcdArgv = "/configs/etcd --data-dir /tmp/etcd --listen-client-urls http://0.0.0.0:2379 --advertise-client-urls http://10.0.0.0:2379"

const masterArgv = "mooncake_master --port=8700 --enable_http_metadata_server=true --http_metadata_server_port=8701 --eviction_high_watermark_ratio=0.9 --default_kv_lease_ttl=10000 --rpc_thread_num=16 --enable_metric_reporting=true --metrics_port=8702"

func renderV2(t *testing.T, file, sel string) *Rendering {
	t.Helper()
	return mustRender(t, filepath.Join("schema2", file), sel, Options{})
}

func renderV2Err(t *testing.T, file, sel string) error {
	t.Helper()
	r, err := Load(filepath.Join("testdata", "schema2", file))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Render(sel, Options{})
	return err
}

// order labels each step by its service name, else its kind.
func order(out *Rendering) string {
	var s []string
	for _, st := range out.Steps {
		if st.Service != "" {
			s = append(s, st.Service)
		} else {
			s = append(s, string(st.Kind))
		}
	}
	return strings.Join(s, " ")
}

func svcSteps(out *Rendering, name string) []Step {
	var s []Step
	for _, st := range out.Steps {
		if st.Service == name {
			s = append(s, st)
		}
	}
	return s
}

func procsOf(out *Rendering, k launch.Kind) []launch.Process {
	var ps []launch.Process
	for _, p := range out.Deployment.Processes {
		if p.Kind == k {
			ps = append(ps, p)
		}
	}
	return ps
}

func argvOfStep(s Step) string { return strings.Join(s.Argv(), " ") }

// placesOf gives "node[/endpoint]" per step of service name.
func placesOf(out *Rendering, name string) string {
	var s []string
	for _, st := range svcSteps(out, name) {
		p := st.Nodes[0]
		if st.Endpoint != "" {
			p += "/" + st.Endpoint
		}
		s = append(s, p)
	}
	return strings.Join(s, " ")
}

// discovery is the ETCD_ENDPOINTS / NATS_SERVER of every worker and
// frontend step and process ("-" = unset); they must all agree.
func discovery(t *testing.T, out *Rendering) (etcd, nats string) {
	t.Helper()
	get := func(env []launch.EnvVar, n string) string {
		if v, ok := launch.LookupEnv(env, n); ok {
			return v
		}
		return "-"
	}
	first := true
	check := func(where string, env []launch.EnvVar) {
		e, n := get(env, "ETCD_ENDPOINTS"), get(env, "NATS_SERVER")
		if first {
			etcd, nats, first = e, n, false
			return
		}
		if e != etcd || n != nats {
			t.Errorf("%s: ETCD_ENDPOINTS=%s NATS_SERVER=%s, others %s / %s", where, e, n, etcd, nats)
		}
	}
	for _, st := range out.Steps {
		if st.Kind == launch.KindWorker || st.Kind.IsFrontend() {
			check("step "+string(st.Kind)+" on "+st.Nodes[0], st.Env)
		}
	}
	for _, p := range out.Deployment.Processes {
		if p.Kind == launch.KindWorker || p.Kind.IsFrontend() {
			check("process "+string(p.Kind), p.Env)
		}
	}
	if first {
		t.Fatal("no worker or frontend")
	}
	return etcd, nats
}

// TestServicesDiscoveryPlane: for frontend.type dynamo etcd is always
// implicit; NATS only when dynamo.request_plane or event_plane is nats, or
// as a declared type: nats entry deciding by enabled; NATS_SERVER reaches
// workers and frontends exactly when a NATS service is effective; external
// gives the endpoint and launches nothing (spec §10b "Implicit services").
func TestServicesDiscoveryPlane(t *testing.T) {
	const workers = "worker worker worker worker dynamo-frontend"
	for _, tc := range []struct {
		sel, order, etcd, nats, natsArgv string
	}{
		// nothing rides on NATS: the request plane defaults to tcp
		{"base", "etcd " + workers, "http://node0:2379", "-", ""},
		{"override_request_plane_nats", "etcd nats " + workers, "http://node0:2379", "nats://node0:4222", "/configs/nats-server -js -sd /tmp/nats"},
		{"override_event_plane_nats", "etcd nats " + workers, "http://node0:2379", "nats://node0:4222", "/configs/nats-server -js -sd /tmp/nats"},
		// a declared nats entry is effective on its own (under any name)
		{"override_nats_declared", "etcd bus " + workers, "http://node0:2379", "nats://node0:4222", "/configs/nats-server -c /tmp/nats.conf"},
		// ... and its enabled: false wins over request_plane nats
		{"override_nats_disabled", "etcd " + workers, "http://node0:2379", "-", ""},
		{"override_etcd_external", workers, "http://etcd.example:2379", "-", ""},
		{"override_etcd_disabled", workers, "-", "-", ""},
	} {
		t.Run(tc.sel, func(t *testing.T) {
			out := renderV2(t, "svc-dynamo.yaml", tc.sel)
			if got := order(out); got != tc.order {
				t.Errorf("launch order\n got %s\nwant %s", got, tc.order)
			}
			etcd, nats := discovery(t, out)
			if etcd != tc.etcd || nats != tc.nats {
				t.Errorf("ETCD_ENDPOINTS=%s NATS_SERVER=%s, want %s / %s", etcd, nats, tc.etcd, tc.nats)
			}
			et := stepsOf(out, launch.KindEtcd)
			if strings.HasPrefix(tc.order, "etcd") {
				if len(et) != 1 || et[0].Nodes[0] != "node0" || et[0].Image != "img" || argvOfStep(et[0]) != etcdArgv || len(et[0].Env) != 0 {
					t.Errorf("etcd step %+v", et)
				}
				if p := procsOf(out, launch.KindEtcd); len(p) != 1 || strings.Join(p[0].Argv(), " ") != etcdArgv ||
					p[0].Origin.Kind != launch.OriginInjected || p[0].Origin.Path != "base.frontend.type" {
					t.Errorf("etcd process %+v", p)
				}
			} else if len(et) != 0 || len(procsOf(out, launch.KindEtcd)) != 0 {
				t.Errorf("etcd launched: %+v", et)
			}
			ns := stepsOf(out, launch.KindNATS)
			np := procsOf(out, launch.KindNATS)
			if tc.natsArgv == "" {
				if len(ns) != 0 || len(np) != 0 {
					t.Errorf("NATS launched: %+v", ns)
				}
				return
			}
			if len(ns) != 1 || ns[0].Nodes[0] != "node0" || argvOfStep(ns[0]) != tc.natsArgv || len(np) != 1 || strings.Join(np[0].Argv(), " ") != tc.natsArgv {
				t.Errorf("NATS %+v %+v", ns, np)
			}
		})
	}

	// options.max_payload_mb: nats.conf as v1.0.68 setup_head.py writes it
	out := renderV2(t, "svc-dynamo.yaml", "override_nats_declared")
	if got := fileOf(out, "nats.conf"); got != "max_payload: 8388608\njetstream { store_dir: \"/tmp/nats\" }\n" {
		t.Errorf("nats.conf %q", got)
	}
	if p := procsOf(out, launch.KindNATS); len(p) != 1 || strings.Join(p[0].Files, ",") != "nats.conf" ||
		p[0].Origin != (launch.Origin{Kind: launch.OriginRecipe, Path: "override_nats_declared.services[0]"}) {
		t.Errorf("nats process %+v", p)
	}
	if got := fileOf(renderV2(t, "svc-dynamo.yaml", "override_request_plane_nats"), "nats.conf"); got != "" {
		t.Errorf("nats.conf without max_payload_mb: %q", got)
	}
}

// TestServicesReplaceImplicit: a declared entry named like an implicit
// service takes its place (first, before the other declared entries), with
// its own placement, container, args and env; generic entries render their
// argv, args, env (on top of the discovery env unless
// inherit_discovery_env: false) and preamble after the frontends (spec
// §10b).
func TestServicesReplaceImplicit(t *testing.T) {
	out := renderV2(t, "svc-dynamo.yaml", "override_replace")
	// placement.node dedicated reserves node0 for infra; workers on node1-3
	if got := strings.Join(out.Nodes, ","); got != "node0,node1,node2,node3" || out.Infra != "node0" || out.Head != "node1" {
		t.Errorf("nodes %s infra %s head %s", got, out.Infra, out.Head)
	}
	if got, want := order(out), "etcd worker worker worker worker dynamo-frontend hello quiet"; got != want {
		t.Errorf("launch order\n got %s\nwant %s", got, want)
	}
	et := svcSteps(out, "etcd")
	if len(et) != 1 || et[0].Nodes[0] != "node0" || et[0].Image != "etcd-img" || et[0].Kind != launch.KindEtcd ||
		argvOfStep(et[0]) != etcdArgv+" --quota-backend-bytes=8589934592" || envString(et[0].Env) != "ETCD_LOG_LEVEL=warn" {
		t.Errorf("etcd %+v", et)
	}
	ps := out.Deployment.Processes
	if len(ps) == 0 || ps[0].Kind != launch.KindEtcd || ps[0].Origin != (launch.Origin{Kind: launch.OriginRecipe, Path: "override_replace.services[2]"}) {
		t.Errorf("first process %+v", ps)
	}
	if n := len(procsOf(out, launch.KindEtcd)); n != 1 {
		t.Errorf("%d etcd processes", n)
	}
	h := svcSteps(out, "hello")
	if len(h) != 1 || h[0].Kind != launch.KindService || h[0].Nodes[0] != "node1" || h[0].Image != "img" ||
		h[0].Program != "python3 -m hello.server" || argvOfStep(h[0]) != "python3 -m hello.server --port 9000 --verbose --tag=x" ||
		envString(h[0].Env) != "ETCD_ENDPOINTS=http://node0:2379 HELLO=1" || h[0].Preamble != "ulimit -n 4096" {
		t.Fatalf("hello %+v", h)
	}
	for flag, path := range map[string]string{"--port": "override_replace.services[0].command[3]", "--verbose": "override_replace.services[0].args[0]", "--tag=x": "override_replace.services[0].args[1]"} {
		found := false
		for _, a := range h[0].Args {
			if a.Flag == flag {
				found = true
				if a.Origin != (launch.Origin{Kind: launch.OriginRecipe, Path: path}) {
					t.Errorf("%s origin %v, want %s", flag, a.Origin, path)
				}
			}
		}
		if !found {
			t.Errorf("hello lacks %s", flag)
		}
	}
	for _, e := range h[0].Env {
		if e.Name == "ETCD_ENDPOINTS" && e.Origin.Kind != launch.OriginInjected || e.Name == "HELLO" && e.Origin.Path != "override_replace.services[0].env.HELLO" {
			t.Errorf("env %s origin %v", e.Name, e.Origin)
		}
	}
	hp := procsOf(out, launch.KindService)
	if len(hp) != 2 || hp[0].Program != "python3 -m hello.server" || hp[0].Count != 1 || hp[0].CountNodes != 1 ||
		strings.Join(hp[0].Preamble, ";") != "ulimit -n 4096" || hp[0].Origin.Path != "override_replace.services[0]" ||
		envString(hp[0].Env) != "ETCD_ENDPOINTS=http://node0:2379 HELLO=1" {
		t.Errorf("service processes %+v", hp)
	}
	if q := svcSteps(out, "quiet"); len(q) != 1 || argvOfStep(q[0]) != "quiet" || envString(q[0].Env) != "Q=1" {
		t.Errorf("quiet (inherit_discovery_env: false) %+v", q)
	}
	if etcd, nats := discovery(t, out); etcd != "http://node0:2379" || nats != "-" {
		t.Errorf("discovery %s %s", etcd, nats)
	}
}

// TestServicesPlacements: each placement.node (head, infra, dedicated,
// prefill, decode, agg, workers, compute, all) and per: worker gives the
// node set and instance count of spec §10b on the rendered topology, and
// the start phases order the steps (infra, before_workers, workers,
// frontends, after_frontend).
func TestServicesPlacements(t *testing.T) {
	out := renderV2(t, "svc-dynamo.yaml", "override_placements")
	want := map[string]string{
		"s-head":        "node0",
		"s-infra":       "node0",
		"s-prefill":     "node0",
		"s-prefill-per": "node0/prefill_0 node0/prefill_1",
		"s-decode":      "node1 node2",
		"s-decode-per":  "node1/decode_0 node2/decode_0",
		"s-workers":     "node0 node1 node2",
		"s-workers-per": "node0/prefill_0 node0/prefill_1 node1/decode_0 node2/decode_0",
		"s-compute":     "node0 node1 node2",
		"s-all":         "node0 node1 node2",
	}
	for name, w := range want {
		if got := placesOf(out, name); got != w {
			t.Errorf("%s on %q, want %q", name, got, w)
		}
		for _, st := range svcSteps(out, name) {
			if a := argvOfStep(st); a != "probe "+strings.TrimPrefix(name, "s-") || envString(st.Env) != "ETCD_ENDPOINTS=http://node0:2379" {
				t.Errorf("%s: argv %q env %q", name, a, envString(st.Env))
			}
		}
	}
	wantOrder := "etcd s-infra s-prefill s-prefill-per s-prefill-per worker worker worker worker dynamo-frontend " +
		"s-head s-decode s-decode s-decode-per s-decode-per s-workers s-workers s-workers " +
		"s-workers-per s-workers-per s-workers-per s-workers-per s-compute s-compute s-compute s-all s-all s-all"
	if got := order(out); got != wantOrder {
		t.Errorf("launch order\n got %s\nwant %s", got, wantOrder)
	}
	counts := map[string][2]int{}
	for _, p := range procsOf(out, launch.KindService) {
		counts[strings.TrimPrefix(strings.Join(p.Argv(), " "), "probe ")] = [2]int{p.Count, p.CountNodes}
	}
	for k, w := range map[string][2]int{"head": {1, 1}, "prefill-per": {2, 1}, "decode": {2, 2}, "workers-per": {4, 3}, "all": {3, 3}} {
		if counts[k] != w {
			t.Errorf("%s: count, nodes = %v, want %v", k, counts[k], w)
		}
	}
	var perWarn []string
	for _, w := range out.Warnings {
		if strings.Contains(w, "per: worker instances get their worker's GPUs") {
			perWarn = append(perWarn, w[:strings.Index(w, " (")])
		}
	}
	if got := strings.Join(perWarn, ","); got != "override_placements.services[3],override_placements.services[5],override_placements.services[7]" {
		t.Errorf("per-worker warnings %q", got)
	}

	// dedicated infra node: all includes it, workers and head do not; a
	// declared nats is effective with nothing riding on it; a generic
	// entry without start starts after the frontends whatever its node.
	d := renderV2(t, "svc-dynamo.yaml", "override_dedicated")
	if got := strings.Join(d.Nodes, ","); got != "node0,node1,node2,node3" || d.Infra != "node0" || d.Head != "node1" {
		t.Errorf("nodes %s infra %s head %s", got, d.Infra, d.Head)
	}
	for name, w := range map[string]string{"etcd": "node0", "nats": "node0", "s-all": "node0 node1 node2 node3", "s-workers": "node1 node2 node3", "s-infra": "node0", "s-head": "node1"} {
		if got := placesOf(d, name); got != w {
			t.Errorf("dedicated: %s on %q, want %q", name, got, w)
		}
	}
	if got, want := order(d), "etcd nats worker worker worker worker dynamo-frontend s-all s-all s-all s-all s-workers s-workers s-workers s-infra s-head"; got != want {
		t.Errorf("dedicated launch order\n got %s\nwant %s", got, want)
	}
	if h := svcSteps(d, "s-head"); len(h) != 1 || envString(h[0].Env) != "ETCD_ENDPOINTS=http://node0:2379 NATS_SERVER=nats://node0:4222" {
		t.Errorf("s-head %+v", h)
	}
	if etcd, nats := discovery(t, d); etcd != "http://node0:2379" || nats != "nats://node0:4222" {
		t.Errorf("discovery %s %s", etcd, nats)
	}

	// a placement with no workers of that role is bad input
	err := renderV2Err(t, "svc-dynamo.yaml", "override_agg_missing")
	if err == nil || errors.Is(err, ErrNotRendered) || !strings.HasPrefix(err.Error(), "testdata/schema2/svc-dynamo.yaml:75:25: ") ||
		!strings.Contains(err.Error(), `override_agg_missing.services[0] (name "s-agg", type generic): placement.node agg: the recipe has no agg workers`) {
		t.Errorf("agg placement: %v", err)
	}
}

// TestServicesMooncake: the implicit mooncake-master (engine
// mooncake_kv_store, args from master_extra_args, spec §6) and
// mooncake-store (default command + args, one per placed node,
// before_workers, env LOCAL_HOSTNAME < entry env < forced MASTER /
// TE_META_DATA_SERVER; requires engine.mooncake_kv_store), spec §10b.
func TestServicesMooncake(t *testing.T) {
	out := renderV2(t, "svc-mooncake.yaml", "base")
	if got, want := order(out), "etcd mooncake-master store-a store-a store-b store-b worker worker dynamo-frontend"; got != want {
		t.Errorf("launch order\n got %s\nwant %s", got, want)
	}
	m := svcSteps(out, "mooncake-master")
	if len(m) != 1 || m[0].Kind != launch.KindMooncakeMaster || m[0].Nodes[0] != "node0" || m[0].Image != "img" ||
		argvOfStep(m[0]) != masterArgv+" --max_threads=4" || envString(m[0].Env) != "ETCD_ENDPOINTS=http://node0:2379" {
		t.Errorf("master %+v", m)
	}
	const master = "MOONCAKE_MASTER=10.0.0.0:8700 MOONCAKE_TE_META_DATA_SERVER=http://10.0.0.0:8701/metadata"
	for _, tc := range []struct{ name, node, env string }{
		{"store-a", "node0", "ETCD_ENDPOINTS=http://node0:2379 MOONCAKE_LOCAL_HOSTNAME=10.0.0.0 MC_STORE=a " + master},
		{"store-a", "node1", "ETCD_ENDPOINTS=http://node0:2379 MOONCAKE_LOCAL_HOSTNAME=10.0.0.1 MC_STORE=a " + master},
		// the recipe overrides LOCAL_HOSTNAME, not MASTER (forced, in place)
		{"store-b", "node0", "ETCD_ENDPOINTS=http://node0:2379 MOONCAKE_LOCAL_HOSTNAME=nic0 " + master},
		{"store-b", "node1", "ETCD_ENDPOINTS=http://node0:2379 MOONCAKE_LOCAL_HOSTNAME=nic0 " + master},
	} {
		found := false
		for _, st := range svcSteps(out, tc.name) {
			if st.Nodes[0] != tc.node {
				continue
			}
			found = true
			port := map[string]string{"store-a": "8800", "store-b": "8801"}[tc.name]
			if st.Kind != launch.KindMooncakeStore || st.Image != "img" || argvOfStep(st) != "python -m mooncake.mooncake_store_service --port="+port {
				t.Errorf("%s on %s: %+v", tc.name, tc.node, st)
			}
			if got := envString(st.Env); got != tc.env {
				t.Errorf("%s on %s env\n got %s\nwant %s", tc.name, tc.node, got, tc.env)
			}
		}
		if !found {
			t.Errorf("%s not on %s", tc.name, tc.node)
		}
	}
	// Text names the services entry of a service step
	if txt := out.Text(); !strings.Contains(txt, "\n## srun on node1  image=img\n   # service: store-b\n   env ETCD_ENDPOINTS=http://node0:2379\n   env MOONCAKE_LOCAL_HOSTNAME=nic0\n") ||
		strings.Count(txt, "   # service: ") != 6 {
		t.Errorf("Text service lines:\n%s", txt)
	}
	// one launch.Process per services entry (Count = its instances), not
	// one per kind: two mooncake-store entries are two processes
	sp := procsOf(out, launch.KindMooncakeStore)
	if len(sp) != 2 || sp[0].Count != 2 || sp[0].CountNodes != 2 || sp[1].Count != 2 || sp[1].CountNodes != 2 ||
		strings.Join(sp[0].Argv(), " ") != "python -m mooncake.mooncake_store_service --port=8800" || sp[0].Origin.Path != "base.services[0]" {
		t.Errorf("store processes %+v", sp)
	}
	if mp := procsOf(out, launch.KindMooncakeMaster); len(mp) != 1 || mp[0].Origin.Kind != launch.OriginInjected || mp[0].Origin.Path != "base.engine.mooncake_kv_store" {
		t.Errorf("master process %+v", mp)
	}
	for _, w := range stepsOf(out, launch.KindWorker) {
		if v, _ := launch.LookupEnv(w.Env, "MOONCAKE_MASTER"); v != "10.0.0.0:8700" {
			t.Errorf("worker MOONCAKE_MASTER %q", v)
		}
	}

	// a declared mooncake-master replaces the implicit one in place
	d := renderV2(t, "svc-mooncake.yaml", "override_master_declared")
	if got := order(d); got != "etcd mooncake-master worker worker dynamo-frontend" {
		t.Errorf("declared master order %s", got)
	}
	if m := svcSteps(d, "mooncake-master"); len(m) != 1 || m[0].Image != "mc-img" || argvOfStep(m[0]) != masterArgv+" --max_threads=4 --extra=1" ||
		envString(m[0].Env) != "ETCD_ENDPOINTS=http://node0:2379 MC_M=1" {
		t.Errorf("declared master %+v", m)
	}
	if mp := procsOf(d, launch.KindMooncakeMaster); len(mp) != 1 || mp[0].Origin != (launch.Origin{Kind: launch.OriginRecipe, Path: "override_master_declared.services[0]"}) {
		t.Errorf("declared master process %+v", mp)
	}
	if dis := renderV2(t, "svc-mooncake.yaml", "override_master_disabled"); len(stepsOf(dis, launch.KindMooncakeMaster)) != 0 || len(procsOf(dis, launch.KindMooncakeMaster)) != 0 || order(dis) != "etcd worker worker dynamo-frontend" {
		t.Errorf("disabled master: %s", order(dis))
	}

	// a declared mooncake-master alone stands for mooncake_kv_store (§10a)
	o := renderV2(t, "svc-mooncake.yaml", "override_declared_master_only")
	if got := order(o); got != "etcd mc st worker worker dynamo-frontend" {
		t.Errorf("declared-only order %s", got)
	}
	if m := svcSteps(o, "mc"); len(m) != 1 || m[0].Image != "mc-img" || argvOfStep(m[0]) != masterArgv+" --max_threads=4" {
		t.Errorf("declared-only master %+v", m)
	}
	if st := svcSteps(o, "st"); len(st) != 1 || st[0].Nodes[0] != "node0" ||
		envString(st[0].Env) != "ETCD_ENDPOINTS=http://node0:2379 MOONCAKE_LOCAL_HOSTNAME=10.0.0.0 "+master {
		t.Errorf("declared-only store %+v", st)
	}
	for _, w := range stepsOf(o, launch.KindWorker) {
		if v, _ := launch.LookupEnv(w.Env, "MOONCAKE_TE_META_DATA_SERVER"); v != "http://10.0.0.0:8701/metadata" {
			t.Errorf("worker MOONCAKE_TE_META_DATA_SERVER %q", v)
		}
	}

	err := renderV2Err(t, "svc-mooncake.yaml", "override_store_no_kv")
	if err == nil || errors.Is(err, ErrNotRendered) || !strings.HasPrefix(err.Error(), "testdata/schema2/svc-mooncake.yaml:18:7: ") ||
		!strings.Contains(err.Error(), `base.services[0] (name "store-a", type mooncake-store): mooncake-store requires engine.mooncake_kv_store`) {
		t.Errorf("store without mooncake_kv_store: %v", err)
	}
}

// TestServicesNotRendered: kinds spec §10b only names, unknown kinds and
// the settings whose effect §10b does not give are refused with an error
// wrapping ErrNotRendered that names the entry and the kind or setting.
func TestServicesNotRendered(t *testing.T) {
	for _, tc := range []struct{ file, sel, want string }{
		{"svc-kinds.yaml", "override_gms", `:15:8: override_gms.services[0] (name "gms-0", type gms): service kind gms (GPU memory service, one per worker with engine.failover) is not rendered`},
		{"svc-kinds.yaml", "override_lmcache", `override_lmcache.services[0] (name "lmc", type lmcache-server): service kind lmcache-server (LMCache server) is not rendered`},
		{"svc-kinds.yaml", "override_ray", `override_ray.services[0] (name "ray-head", type ray): service kind ray (Ray cluster) is not rendered`},
		{"svc-kinds.yaml", "override_donor", `override_donor.services[0] (name "donor", type mooncake-donor): service kind mooncake-donor (TRT-LLM Mooncake donor) is not rendered`},
		// unknown even when disabled: it never passes as known
		{"svc-kinds.yaml", "override_unknown", `override_unknown.services[0] (name "thing", type frobnicator): service kind frobnicator is not known`},
		{"svc-kinds.yaml", "override_failover", `:32:36: implicit service "gms" (type gms, from engine.failover): service kind gms`},
		{"svc-kinds.yaml", "override_vllm_lmcache", `implicit service "kv-connector-lmcache" (type kv-connector:lmcache, from engine.connector lmcache): the service a vLLM KV connector implies is not rendered`},
		{"svc-bad.yaml", "override_pool", `:57:38: override_pool.services[0] (name "p", type generic): nodes: 2 (a node pool the service owns) is not rendered`},
		{"svc-bad.yaml", "override_dedicated_generic", `override_dedicated_generic.services[0] (name "x", type generic): placement.node dedicated is for infra kinds`},
		{"svc-bad.yaml", "override_external_true", `override_external_true.services[0] (name "etcd", type etcd): external: true is not rendered`},
		{"svc-bad.yaml", "override_etcd_on_workers", `override_etcd_on_workers.services[0] (name "etcd", type etcd): etcd on 2 nodes (placement.node workers) is not rendered`},
		{"svc-bad.yaml", "override_source", `override_source.services[0] (name "x", type generic): source is not rendered`},
		{"svc-bad.yaml", "override_store_config", `override_store_config.services[0] (name "mooncake-master", type mooncake-master): options.store_config is not rendered`},
		{"svc-bad.yaml", "override_unknown_node", `override_unknown_node.services[0] (name "x", type generic): placement.node "frontend" is not rendered`},
		{"svc-bad.yaml", "override_start_unknown", `override_start_unknown.services[0] (name "x", type generic): start "after_workers" is not rendered`},
		{"svc-mooncake.yaml", "override_store_without_master", `override_store_without_master.services[1] (name "st", type mooncake-store): mooncake-store without an effective mooncake-master is not rendered`},
		{"svc-mooncake.yaml", "override_two_masters", `override_two_masters.services[0] (name "mc", type mooncake-master): a second mooncake-master service (after implicit service "mooncake-master"`},
		{"svc-mooncake.yaml", "override_store_no_placement", `:54:8: override_store_no_placement.services[0] (name "st", type mooncake-store): mooncake-store has no default placement`},
	} {
		err := renderV2Err(t, tc.file, tc.sel)
		if err == nil {
			t.Errorf("%s:%s: no error", tc.file, tc.sel)
			continue
		}
		var ie *Error
		if !errors.Is(err, ErrNotRendered) || !errors.As(err, &ie) || ie.Line == 0 {
			t.Errorf("%s:%s: %v is not a positioned ErrNotRendered", tc.file, tc.sel, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:%s:\n got %v\nwant …%s…", tc.file, tc.sel, err, tc.want)
		}
	}
}

// TestServicesBadInput: entries that break the §10b shape are positioned
// input errors (not ErrNotRendered).
func TestServicesBadInput(t *testing.T) {
	for _, tc := range []struct{ sel, pos, want string }{
		{"override_unknown_key", "17:7", `unknown override_unknown_key.services[0] key "colour"`},
		{"override_dup_name", "21:14", `service name "x" is used twice (override_dup_name.services[0] and override_dup_name.services[1])`},
		{"override_no_command", "24:8", `override_no_command.services[0] (name "x", type generic): a generic service needs a command`},
		{"override_shell_command", "27:26", "command must be a list of arguments (argv, not a shell string"},
		{"override_nats_option", "30:42", `unknown override_nats_option.services[0].options (nats) key "max_payload"`},
		{"override_generic_option", "33:", `unknown override_generic_option.services[0].options (generic) key "foo"`},
		{"override_per_head", "36:", `placement.per: worker goes only with node prefill, decode, agg or workers (spec §10b), not "head"`},
		{"override_external_generic", "39:", "external applies to etcd, nats and mooncake-master services, not generic"},
		{"override_no_name", "42:8", "a service needs a name"},
		{"override_two_probes", "45:", "readiness needs exactly one probe (port, tcp, http or log), got 2"},
		{"override_env_int", "48:", "environment values must be strings, got an integer 1"},
		{"override_node_and_pool", "51:", "placement takes node or pool, not both"},
		{"override_prefill_missing", "54:", `placement.node prefill: the recipe has no prefill workers`},
	} {
		err := renderV2Err(t, "svc-bad.yaml", tc.sel)
		if err == nil {
			t.Errorf("%s: no error", tc.sel)
			continue
		}
		if errors.Is(err, ErrNotRendered) {
			t.Errorf("%s: %v is ErrNotRendered, want bad input", tc.sel, err)
		}
		if !strings.HasPrefix(err.Error(), "testdata/schema2/svc-bad.yaml:"+tc.pos) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant svc-bad.yaml:%s …%s…", tc.sel, err, tc.pos, tc.want)
		}
	}
}

// TestServicesCollectionAndDropped: enabled: false drops implicit and
// declared entries (gms included); exporters, declared or implied by
// observability, are collection: nothing rendered, a warning each; a
// schema-2 sglang-router frontend implies no discovery plane.
func TestServicesCollectionAndDropped(t *testing.T) {
	const base = "etcd worker dynamo-frontend"
	for _, sel := range []string{"base", "override_gms_disabled", "override_failover_dropped", "override_exporters", "override_observability"} {
		out := renderV2(t, "svc-kinds.yaml", sel)
		if got := order(out); got != base {
			t.Errorf("%s: launch order %s", sel, got)
		}
		if got := len(out.Deployment.Processes); got != 3 {
			t.Errorf("%s: %d processes", sel, got)
		}
	}
	ex := renderV2(t, "svc-kinds.yaml", "override_exporters")
	var w []string
	for _, s := range ex.Warnings {
		if strings.Contains(s, "exporters are collection") {
			w = append(w, s)
		}
	}
	want := []string{
		`override_exporters.services[0] (name "dcgm", type dcgm-exporter): exporters are collection, not documentation (spec §10b): not rendered`,
		`override_exporters.services[1] (name "node", type node-exporter): exporters are collection, not documentation (spec §10b): not rendered`,
		`override_exporters.services[2] (name "proc", type process-exporter): exporters are collection, not documentation (spec §10b): not rendered`,
	}
	if strings.Join(w, "\n") != strings.Join(want, "\n") {
		t.Errorf("exporter warnings\n got %q\nwant %q", w, want)
	}
	ob := renderV2(t, "svc-kinds.yaml", "override_observability")
	found := false
	for _, s := range ob.Warnings {
		found = found || s == "observability.enabled: the tachometer exporters it implies (spec §10b) are collection, not documentation: not rendered"
	}
	if !found {
		t.Errorf("observability warnings %q", ob.Warnings)
	}

	rt := renderV2(t, "svc-kinds.yaml", "override_router_no_discovery")
	if got := order(rt); got != "worker sglang-router" {
		t.Errorf("router launch order %s", got)
	}
	if etcd, nats := discovery(t, rt); etcd != "-" || nats != "-" {
		t.Errorf("router discovery env %s %s", etcd, nats)
	}
}

// TestServicesSchema1Unchanged: the same topology in schema 1, rendered
// with v1.0.68, keeps srt-slurm v1's infra step: setup_head.py starts etcd
// and NATS for every dynamo job and every worker gets NATS_SERVER (spec §6).
func TestServicesSchema1Unchanged(t *testing.T) {
	out := renderV2(t, "v1-twin.yaml", "")
	if out.Schema != 1 {
		t.Fatalf("schema %d", out.Schema)
	}
	et := stepsOf(out, launch.KindEtcd)
	if len(et) != 1 || argvOfStep(et[0]) != "python3 /tmp/setup_head.py --name twin --log-dir <log_dir>" || et[0].Nodes[0] != "node0" {
		t.Errorf("setup_head %+v", et)
	}
	if len(stepsOf(out, launch.KindNATS)) != 0 || len(procsOf(out, launch.KindNATS)) != 1 || len(procsOf(out, launch.KindEtcd)) != 1 {
		t.Errorf("v1 etcd/NATS processes %+v", out.Deployment.Processes)
	}
	for _, st := range out.Steps {
		if st.Service != "" {
			t.Errorf("schema-1 step names a service: %+v", st)
		}
	}
	if etcd, nats := discovery(t, out); etcd != "http://node0:2379" || nats != "nats://node0:4222" {
		t.Errorf("v1 discovery %s %s", etcd, nats)
	}
}

var reSchema2 = regexp.MustCompile(`(?m)^\s*schema:\s*2\s*$`)

// TestCorpusSchema2Services renders every schema-2 recipe under
// ../shared/corpus (the newer InferenceX layout and the pairs) for every
// selector: each renders, or fails with ErrNotRendered naming the reason;
// a rendered dynamo recipe has exactly one etcd, and NATS_SERVER reaches
// the workers exactly when a NATS service is launched (spec §10b).
func TestCorpusSchema2Services(t *testing.T) {
	root := testutil.SharedPath(t, "corpus")
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			if b, err := os.ReadFile(p); err == nil && reSchema2.Match(b) {
				files = append(files, p)
			}
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("no schema-2 recipes in the corpus")
	}
	rendered, refused, withServices := 0, 0, 0
	for _, f := range files {
		r, err := Load(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		for _, sel := range r.Selectors() {
			out, err := r.Render(sel, Options{})
			if err != nil {
				if errors.Is(err, ErrNotRendered) {
					refused++
					t.Logf("%s:%s: %v", f, sel, err)
					continue
				}
				t.Errorf("%s:%s: %v", f, sel, err)
				continue
			}
			if out.Schema != 2 {
				continue
			}
			rendered++
			named := false
			for _, st := range out.Steps {
				named = named || st.Service != ""
			}
			if named {
				withServices++
			}
			if out.Frontend == "dynamo" {
				if n := len(procsOf(out, launch.KindEtcd)); n != 1 {
					t.Errorf("%s:%s: %d etcd", f, sel, n)
				}
				_, nats := discovery(t, out)
				if launched := len(stepsOf(out, launch.KindNATS)) == 1; launched != (nats != "-") {
					t.Errorf("%s:%s: NATS launched %v, NATS_SERVER %s", f, sel, launched, nats)
				}
			}
			_ = out.Text()
		}
	}
	t.Logf("%d schema-2 files: %d variants rendered (%d with registry services), %d refused as not rendered", len(files), rendered, withServices, refused)
}
