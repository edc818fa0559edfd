package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// testNginxConf writes an nginx.conf shaped like srt-slurm's
// templates/nginx.conf.j2 (and the AgentX nginx.conf files): frontends at
// servers, session affinity on header ("" = none), keepalive timeout ka
// ("" = no keepalive directives, the template before v1.0.40).
func testNginxConf(servers []string, header, ka string) string {
	var b strings.Builder
	b.WriteString("# comment { not a block\nworker_processes auto;\n\nhttp {\n    client_max_body_size 45m;\n    access_log off;\n")
	if header != "" {
		v := "$http_" + strings.ReplaceAll(strings.ToLower(header), "-", "_")
		fmt.Fprintf(&b, "    map %s $frontend_hash_key {\n        default %s;\n        \"\" $request_id;\n    }\n", v, v)
	}
	if ka != "" {
		fmt.Fprintf(&b, "    keepalive_timeout %s;\n", ka)
	}
	b.WriteString("    upstream backend_servers {\n")
	if header != "" {
		b.WriteString("        hash $frontend_hash_key consistent;\n")
	}
	for _, s := range servers {
		fmt.Fprintf(&b, "        server %s:8180;\n", s)
	}
	if ka != "" {
		fmt.Fprintf(&b, "        keepalive 512;\n        keepalive_timeout %s;\n", ka)
	}
	b.WriteString("    }\n    server {\n        listen 8000; # public\n        location / {\n            proxy_pass http://backend_servers;\n            proxy_buffering off;\n")
	if ka != "" {
		b.WriteString("            proxy_http_version 1.1;\n            proxy_set_header Connection \"\";\n")
	}
	b.WriteString("        }\n    }\n}\n\nevents {\n    worker_connections 65535;\n    multi_accept on;\n}\n")
	return b.String()
}

func cookbookNginx(content string) launch.Process {
	return launch.Process{Kind: launch.KindNginx, Program: "nginx -c nginx.conf -g daemon off;", Files: []string{"nginx.conf"},
		FileContents: []launch.FileContent{{Path: "nginx.conf", Content: content, Origin: launch.Origin{Kind: launch.OriginCookbook, Path: `files["nginx.conf#00000000"]`}}}}
}

func recipeNginx(content string) launch.Process {
	p := launch.Process{Kind: launch.KindNginx, Program: "nginx", Args: []launch.Arg{{Flag: "-c", Values: []string{"/logs/nginx.conf"}}, {Flag: "-g", Values: []string{"daemon off;"}}},
		Files: []string{"nginx.conf"}, Origin: launch.Origin{Kind: launch.OriginInjected}}
	if content != "" {
		p.FileContents = []launch.FileContent{{Path: "/logs/nginx.conf", Content: content, Origin: launch.Origin{Kind: launch.OriginInjected, Path: "/logs/nginx.conf"}}}
	}
	return p
}

func service(t *testing.T, cb, rc launch.Process, role string) Result {
	t.Helper()
	got := run(t, &launch.Deployment{Processes: []launch.Process{cb}}, &launch.Deployment{Processes: []launch.Process{rc}})
	r, ok := got[role]
	if !ok {
		t.Fatalf("no %s role in %+v", role, got)
	}
	return r
}

func diffText(r Result) []string {
	var out []string
	for _, d := range r.Differences {
		out = append(out, d.Setting+": upstream "+Shown(d.Upstream)+", inferencex "+Shown(d.InferenceX))
	}
	return out
}

func TestNginxConfigSettings(t *testing.T) {
	fs, err := nginxConfig(testNginxConf([]string{"$FRONTEND_0_IP", "$FRONTEND_1_IP"}, "X-Correlation-ID", "600s"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range fs {
		got[f.name] = f.value
	}
	for k, want := range map[string]string{
		"nginx.balance":                           `hash $http_x_correlation_id consistent (map: "" → $request_id)`,
		"nginx.worker_processes":                  "auto",
		"nginx.http.keepalive_timeout":            "600s",
		"nginx.http.upstream.keepalive":           "512",
		"nginx.http.upstream.keepalive_timeout":   "600s",
		"nginx.http.upstream.server":              "$FRONTEND_0_IP:8180 ; $FRONTEND_1_IP:8180",
		"nginx.http.upstream.servers":             "2",
		"nginx.http.server.listen":                "8000",
		"nginx.http.server.location /.proxy_pass": "http://<upstream>",
		"nginx.events.worker_connections":         "65535",
	} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	if _, ok := got["nginx.http.map"]; ok {
		t.Errorf("the map block is read into nginx.balance, not a setting of its own: %v", got)
	}
	fs, err = nginxConfig(testNginxConf([]string{"10.0.0.2"}, "", ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.name == "nginx.balance" && f.value != "round robin" {
			t.Errorf("no hash directive: balance %q, want round robin", f.value)
		}
	}
	for _, bad := range []string{"http {\n", "http { keepalive_timeout 1s }", "}\n"} {
		if _, err := nginxConfig(bad); err == nil {
			t.Errorf("nginxConfig(%q): no error", bad)
		}
	}
}

// Issue "compare by content": nginx session affinity off in the recipe was
// "covered" (services were compared by count only).
func TestCompareNginxAffinityByContent(t *testing.T) {
	cb := cookbookNginx(testNginxConf([]string{"$FRONTEND_0_IP", "$FRONTEND_1_IP", "$FRONTEND_2_IP"}, "X-Correlation-ID", "600s"))
	for _, c := range []struct {
		name, recipe string
		verdict      Verdict
		diffs        []string
	}{
		{"same", testNginxConf([]string{"10.0.0.2", "10.0.0.3"}, "X-Correlation-ID", "600s"), CoveredWithExclusions, nil},
		{"affinity off", testNginxConf([]string{"10.0.0.2", "10.0.0.3"}, "", "600s"), Differs,
			[]string{`nginx.balance: upstream hash $http_x_correlation_id consistent (map: "" → $request_id), inferencex round robin`}},
		{"other header", testNginxConf([]string{"10.0.0.2", "10.0.0.3"}, "X-Dynamo-Session-ID", "600s"), Differs,
			[]string{`nginx.balance: upstream hash $http_x_correlation_id consistent (map: "" → $request_id), inferencex hash $http_x_dynamo_session_id consistent (map: "" → $request_id)`}},
		{"keepalive", testNginxConf([]string{"10.0.0.2", "10.0.0.3"}, "X-Correlation-ID", "1200s"), Differs,
			[]string{"nginx.http.keepalive_timeout: upstream 600s, inferencex 1200s", "nginx.http.upstream.keepalive_timeout: upstream 600s, inferencex 1200s"}},
		{"no keepalive (template before v1.0.40)", testNginxConf([]string{"10.0.0.2", "10.0.0.3"}, "X-Correlation-ID", ""), Differs,
			[]string{"nginx.http.keepalive_timeout: upstream 600s, inferencex (absent)", "nginx.http.upstream.keepalive: upstream 512, inferencex (absent)",
				"nginx.http.upstream.keepalive_timeout: upstream 600s, inferencex (absent)", "nginx.http.server.location /.proxy_http_version: upstream 1.1, inferencex (absent)",
				`nginx.http.server.location /.proxy_set_header: upstream Connection "", inferencex (absent)`}},
	} {
		r := service(t, cb, recipeNginx(c.recipe), "nginx")
		if r.Verdict != c.verdict || strings.Join(diffText(r), "\n") != strings.Join(c.diffs, "\n") {
			t.Errorf("%s: verdict %s, differences\n%s\nwant %s\n%s", c.name, r.Verdict, strings.Join(diffText(r), "\n"), c.verdict, strings.Join(c.diffs, "\n"))
		}
		// where the frontends are and how many is placement / judgment
		var ex []string
		for _, x := range append(append([]Exclusion(nil), r.Excluded...), r.Info...) {
			ex = append(ex, x.Setting+"="+x.Rule)
		}
		if want := "nginx.http.upstream.server=placement-nginx-upstream-servers nginx.http.upstream.servers=judgment-nginx-upstream-count"; strings.Join(ex, " ") != want {
			t.Errorf("%s: excluded/info %v, want %s", c.name, ex, want)
		}
	}
}

// A side that has only the path is compared by the file's name, and the
// row note says so.
func TestCompareFileByNameWhenOneSideHasOnlyThePath(t *testing.T) {
	cb := cookbookNginx(testNginxConf([]string{"$FRONTEND_0_IP"}, "X-Correlation-ID", "600s"))
	r := service(t, cb, recipeNginx(""), "nginx")
	if r.Verdict != Covered || len(r.Differences) != 0 {
		t.Errorf("verdict %s, differences %v", r.Verdict, diffText(r))
	}
	if want := "-c compared by file name (nginx.conf): the recipe gives only the path /logs/nginx.conf, not the file's content"; r.Note != want {
		t.Errorf("note %q, want %q", r.Note, want)
	}
	// --deepep-config: the cookbook ships deepep_config.json, srt-slurm
	// mounts its own configs/ at /configs (not in --infx)
	w := func(v string, content string) launch.Process {
		p := launch.Process{Kind: launch.KindWorker, Role: launch.RoleDecode, Program: "python3 -m dynamo.sglang", Args: args("--deepep-config", v)}
		if content != "" {
			p.Files = []string{"deepep_config.json"}
			p.FileContents = []launch.FileContent{{Path: v, Content: content}}
		}
		return p
	}
	const file = "{\n  \"normal_dispatch\": {\"num_sms\": 128},\n  \"normal_combine\": {\"num_sms\": 128}\n}\n"
	// ... whose content is not known without the srt-slurm checkout: an
	// unknown is neither a match nor a difference — the role is not
	// verified (coverage --srt-slurm-dir reads it)
	r = service(t, w("deepep_config.json", file), w("/configs/deepep_config.json", ""), "decode")
	if r.Verdict != ContentNotKnown || len(r.Differences) != 0 || len(r.Unknown) != 1 || r.Unknown[0].Setting != "--deepep-config" ||
		Shown(r.Unknown[0].InferenceX) != "(content not known: srt-slurm's own /configs/deepep_config.json; an srt-slurm checkout supplies it)" ||
		!r.Verdict.NotVerified() || r.Verdict.Gap() {
		t.Errorf("path-only deepep: verdict %s, note %q, diffs %v, unknown %+v", r.Verdict, r.Note, diffText(r), r.Unknown)
	}
	// both sides carry the content: compared as JSON, inline or file
	r = service(t, w("deepep_config.json", file), w(`{"normal_combine":{"num_sms":128},"normal_dispatch":{"num_sms":96}}`, ""), "decode")
	if got := diffText(r); r.Verdict != Differs || len(got) != 1 ||
		got[0] != `--deepep-config: upstream {"normal_combine":{"num_sms":128},"normal_dispatch":{"num_sms":128}}, inferencex {"normal_combine":{"num_sms":128},"normal_dispatch":{"num_sms":96}}` {
		t.Errorf("inline deepep: verdict %s, diffs %v", r.Verdict, got)
	}
	r = service(t, w("deepep_config.json", file), w("/configs/deepep_config.json", strings.ReplaceAll(file, "128", "96")), "decode")
	if r.Verdict != Differs || len(r.Differences) != 1 || r.Differences[0].Setting != "--deepep-config" || r.Note != "" {
		t.Errorf("file deepep: verdict %s, diffs %v, note %q", r.Verdict, diffText(r), r.Note)
	}
}

const natsConfTpl = "max_payload: %d\njetstream { store_dir: \"/tmp/nats\" }\n"

func cookbookNATS(payload int) launch.Process {
	return launch.Process{Kind: launch.KindNATS, Program: "nats-server -c nats.conf", Files: []string{"nats.conf"}, Origin: launch.Origin{Kind: launch.OriginCookbook},
		FileContents: []launch.FileContent{{Path: "nats.conf", Content: fmt.Sprintf(natsConfTpl, payload), Origin: launch.Origin{Kind: launch.OriginCookbook}}}}
}

// recipeNATS is srt-slurm's NATS: with a payload (MiB > 0) the nats.conf
// setup_head.py writes from infra.nats_max_payload_mb, else -js -sd.
func recipeNATS(mib int) launch.Process {
	inj := launch.Origin{Kind: launch.OriginInjected, Detail: "srt-slurm v1.0.68"}
	p := launch.Process{Kind: launch.KindNATS, Program: "/configs/nats-server", Origin: inj}
	if mib == 0 {
		p.Args = []launch.Arg{{Flag: "-js", Origin: inj}, {Flag: "-sd", Values: []string{"/tmp/nats"}, Origin: inj}}
		return p
	}
	p.Args = []launch.Arg{{Flag: "-js", Origin: inj}, {Flag: "-c", Values: []string{"/tmp/nats.conf"}, Origin: inj}}
	p.Files = []string{"nats.conf"}
	p.FileContents = []launch.FileContent{{Path: "/tmp/nats.conf", Content: fmt.Sprintf(natsConfTpl, mib<<20),
		Origin: launch.Origin{Kind: launch.OriginRecipe, Path: "infra.nats_max_payload_mb"}}}
	return p
}

func TestNATSConfigSettings(t *testing.T) {
	fs, err := natsConfig("# c\nmax_payload = 8MB\nport: 4222 // x\njetstream {\n  store_dir: '/tmp/nats'\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.name+"="+f.value)
	}
	if want := "nats.max_payload=8388608 nats.port=4222 nats.jetstream=enabled nats.jetstream.store_dir=/tmp/nats"; strings.Join(got, " ") != want {
		t.Errorf("got %v, want %s", got, want)
	}
	if _, err := natsConfig("jetstream {\n"); err == nil {
		t.Error("unbalanced: no error")
	}
}

func TestCompareNATSMaxPayload(t *testing.T) {
	// the recipe asks for 32 MiB, the cookbook documents 32 MiB
	r := service(t, cookbookNATS(32<<20), recipeNATS(32), "nats")
	if r.Verdict != Covered || len(r.Differences) != 0 || r.Matched != 5 {
		// program, nats.max_payload, nats.jetstream, nats.jetstream.store_dir,
		// count; -js and the conf's jetstream block are one setting
		t.Errorf("32/32: verdict %s matched %d diffs %v excluded %+v", r.Verdict, r.Matched, diffText(r), r.Excluded)
	}
	// the recipe asks for 64 MiB: compared
	r = service(t, cookbookNATS(32<<20), recipeNATS(64), "nats")
	if got := diffText(r); r.Verdict != Differs || strings.Join(got, "|") != "nats.max_payload: upstream 33554432, inferencex 67108864" {
		t.Errorf("32/64: verdict %s diffs %v", r.Verdict, got)
	}
	// the recipe asks for nothing and nothing rides on srt-slurm's NATS:
	// informational under launcher-nats-unused
	r = service(t, cookbookNATS(32<<20), recipeNATS(0), "nats")
	if r.Verdict != CoveredWithExclusions || len(r.Info) != 1 || r.Info[0].Setting != "nats.max_payload" || r.Info[0].Rule != "launcher-nats-unused" ||
		!strings.Contains(r.Note, "unused by the recipe (launcher-nats-unused)") {
		t.Errorf("32/default, unused: verdict %s diffs %v info %+v note %q", r.Verdict, diffText(r), r.Info, r.Note)
	}
	// … but a recipe whose request plane is NATS rides on it: compared
	worker := launch.Process{Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "python3 -m dynamo.sglang",
		Env: []launch.EnvVar{{Name: "DYN_REQUEST_PLANE", Value: "nats", Origin: launch.Origin{Kind: launch.OriginRecipe, Path: "backend.agg_environment.DYN_REQUEST_PLANE"}}}}
	got := run(t, &launch.Deployment{Processes: []launch.Process{cookbookNATS(32 << 20), worker}},
		&launch.Deployment{Processes: []launch.Process{recipeNATS(0), worker}})
	if n := got["nats"]; n.Verdict != Differs || strings.Join(diffText(n), "|") != "nats.max_payload: upstream 33554432, inferencex (absent)" {
		t.Errorf("32/default, request plane nats: verdict %s diffs %v", n.Verdict, diffText(n))
	}
	// 1 MiB written out is nats-server's default
	if r := service(t, cookbookNATS(1<<20), recipeNATS(0), "nats"); r.Verdict != Covered || len(r.Differences)+len(r.Info) != 0 || r.Matched != 4 {
		t.Errorf("1 MiB/default: verdict %s diffs %v info %+v", r.Verdict, diffText(r), r.Info)
	}
	// NATS only in the recipe (behind the Dynamo frontend), with a payload
	// the recipe asked for: needed
	fe := launch.Process{Kind: launch.KindDynamoFrontend, Program: "python3 -m dynamo.frontend"}
	rs, err := Compare(&launch.Deployment{Processes: []launch.Process{fe}}, &launch.Deployment{Processes: []launch.Process{fe, recipeNATS(32)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := byRole(t, rs)["nats"]; n.Verdict != Missing || !strings.Contains(n.Note, "started by the launcher but needed: recipe sets nats.max_payload 33554432 on it") {
		t.Errorf("recipe-only NATS with payload: verdict %s note %q", n.Verdict, n.Note)
	}
	rs, err = Compare(&launch.Deployment{Processes: []launch.Process{fe}}, &launch.Deployment{Processes: []launch.Process{fe, recipeNATS(0)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := byRole(t, rs)["nats"]; n.Verdict != CoveredWithExclusions || len(n.Info) != 1 || n.Info[0].Rule != "launcher-nats-unused" {
		t.Errorf("recipe-only NATS, nothing asked: verdict %s info %+v note %q", n.Verdict, n.Info, n.Note)
	}
}

// Services are compared like workers: program, flags, env, count.
func TestCompareServicesLikeWorkers(t *testing.T) {
	etcd := func(extra ...string) launch.Process {
		return launch.Process{Kind: launch.KindEtcd, Program: "etcd",
			Args: args(append([]string{"--data-dir", "/tmp/etcd", "--listen-client-urls", "http://0.0.0.0:2379", "--advertise-client-urls", "http://$ETCD_IP:2379"}, extra...)...)}
	}
	rc := etcd("--quota-backend-bytes", "8589934592")
	rc.Program = "/configs/etcd"
	rc.Args[2].Values = []string{"http://10.0.0.0:2379"}
	r := service(t, etcd(), rc, "etcd")
	if got := diffText(r); r.Verdict != Differs || strings.Join(got, "|") != "--quota-backend-bytes: upstream (absent), inferencex 8589934592" {
		t.Errorf("etcd: verdict %s diffs %v", r.Verdict, got)
	}
	rc = etcd()
	rc.CountNodes = 3
	if r := service(t, etcd(), rc, "etcd"); strings.Join(diffText(r), "|") != "count: upstream 1, inferencex 3" {
		t.Errorf("etcd count: %v", diffText(r))
	}
	// an env var the recipe sets on a service is compared
	rc = etcd()
	rc.Env = env("ETCD_SNAPSHOT_COUNT", "10000")
	if r := service(t, etcd(), rc, "etcd"); strings.Join(diffText(r), "|") != "env ETCD_SNAPSHOT_COUNT: upstream (absent), inferencex 10000" {
		t.Errorf("etcd env: %v", diffText(r))
	}
	// a service kind compare has no name for is compared, never dropped
	lm := func(size string) launch.Process {
		return launch.Process{Kind: "lmcache-server", Program: "lmcache_server", Args: args("--max-cache-size", size)}
	}
	r = service(t, lm("64"), lm("128"), "lmcache-server")
	if r.Verdict != Differs || strings.Join(diffText(r), "|") != "--max-cache-size: upstream 64, inferencex 128" {
		t.Errorf("lmcache-server: verdict %s diffs %v", r.Verdict, diffText(r))
	}
	rs, err := Compare(&launch.Deployment{}, &launch.Deployment{Processes: []launch.Process{lm("64")}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].Role != "lmcache-server" || rs[0].Verdict != Missing {
		t.Errorf("recipe-only lmcache-server: %+v", rs)
	}
}

// DYN_* settings other than the named plumbing are compared on every role.
func TestCompareDynEnv(t *testing.T) {
	fe := func(e ...string) launch.Process {
		return launch.Process{Kind: launch.KindDynamoFrontend, Program: "python3 -m dynamo.frontend", Env: env(e...)}
	}
	r := service(t, fe("DYN_ROUTER_TEMPERATURE", "10000000", "DYN_REQUEST_PLANE", "tcp"), fe("DYN_ROUTER_TEMPERATURE", "0.0", "DYN_REQUEST_PLANE", "tcp"), "frontend")
	if r.Verdict != Differs || strings.Join(diffText(r), "|") != "env DYN_ROUTER_TEMPERATURE: upstream 10000000, inferencex 0" {
		t.Errorf("frontend: verdict %s diffs %v", r.Verdict, diffText(r))
	}
	w := func(e ...string) launch.Process {
		return launch.Process{Kind: launch.KindWorker, Role: launch.RolePrefill, Program: "python3 -m dynamo.sglang", Env: env(e...)}
	}
	r = service(t, w("DYN_SYSTEM_PORT", "8081"), w("DYN_SYSTEM_PORT", "7500", "DYN_ROUTER_SESSION_AFFINITY_TTL_SECS", "3600", "DYN_TOKENIZER", "fast"), "prefill")
	if r.Verdict != Differs || strings.Join(diffText(r), "|") != "env DYN_ROUTER_SESSION_AFFINITY_TTL_SECS: upstream (absent), inferencex 3600|env DYN_TOKENIZER: upstream (absent), inferencex fast" ||
		len(r.Excluded) != 1 || r.Excluded[0].Rule != "harness-dyn-env" {
		t.Errorf("prefill: verdict %s diffs %v excluded %+v", r.Verdict, diffText(r), r.Excluded)
	}
}

// The Mooncake master of the AgentX kvMooncake blocks against the one
// srt-slurm starts for backend.mooncake_kv_store: the same settings once
// "--port=8700" / "--port 8700", "_" / "-" and 0.90 / 0.9 are normalized;
// metrics and the metadata port are collection / harness.
func TestCompareMooncakeMaster(t *testing.T) {
	cb := launch.Process{Kind: launch.KindMooncakeMaster, Program: "mooncake_master", CountNodes: 1, Ports: []string{"8700"},
		Args: args("--port", "8700", "--enable_http_metadata_server", "true", "--http_metadata_server_port", "8701",
			"--default_kv_lease_ttl", "10000", "--rpc_thread_num", "16", "--eviction_high_watermark_ratio", "0.90"),
		Env: env("ETCD_ENDPOINTS", "http://$ETCD_IP:2379")}
	var ra []launch.Arg
	for _, f := range []string{"--port=8700", "--enable_http_metadata_server=true", "--http_metadata_server_port=8701", "--eviction_high_watermark_ratio=0.9",
		"--default_kv_lease_ttl=10000", "--rpc_thread_num=16", "--enable_metric_reporting=true", "--metrics_port=8702"} {
		ra = append(ra, launch.Arg{Flag: f})
	}
	rc := launch.Process{Kind: launch.KindMooncakeMaster, Program: "mooncake_master", Args: ra}
	r := service(t, cb, rc, "mooncake-master")
	if r.Verdict != CoveredWithExclusions || len(r.Differences) != 0 {
		t.Errorf("verdict %s diffs %v", r.Verdict, diffText(r))
	}
	var ex []string
	for _, x := range r.Excluded {
		ex = append(ex, x.Setting+"="+x.Rule)
	}
	if want := "--enable-metric-reporting=collection-mooncake-master-metrics --metrics-port=harness-mooncake-master-ports env ETCD_ENDPOINTS=harness-etcd-endpoints"; strings.Join(ex, " ") != want {
		t.Errorf("excluded %v\nwant %s", ex, want)
	}
	rc.Args[5] = launch.Arg{Flag: "--rpc_thread_num=32"}
	if r := service(t, cb, rc, "mooncake-master"); strings.Join(diffText(r), "|") != "--rpc-thread-num: upstream 16, inferencex 32" {
		t.Errorf("rpc threads: %v", diffText(r))
	}
}
