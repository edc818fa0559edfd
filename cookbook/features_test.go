package cookbook

import (
	"os"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Expected texts below are derived by hand from spec agentx-format.md (b)
// steps 1–6 for testdata/features.jsx, a fixture written for this test: it
// exercises a measured mooncake tier, mooncake-store blocks, preamble, drop,
// patch {"replace"} and {"block"}, cross-router ref, null holes and short
// patch arrays, and the three quoting styles.

const (
	txtEtcd      = "etcd \\\n  --advertise-client-urls \"http://$ETCD_IP:2379\""
	txtMaster    = "mooncake_master \\\n  --port 8700"
	txtMasterDyn = "ETCD_ENDPOINTS=\"http://$ETCD_IP:2379\" \\\nmooncake_master \\\n  --port 8700"
	txtStore     = "ulimit -n 1048576\nulimit -l unlimited\nMC_X=1 \\\nMOONCAKE_MASTER=\"$MOONCAKE_MASTER_IP:8700\" \\\npython -m mooncake.mooncake_store_service \\\n  --port 8800"
	txtAgg0      = "A_VAR=1 \\\nB_VAR=2 \\\npython3 -m sglang.launch_server \\\n  --model-path org/Tiny-FP8 \\\n  --host 0.0.0.0 \\\n  --port 30000 \\\n  --enable-unified-cache-external-linker \\\n  --mem-fraction-static 0.9 \\\n  --trust-remote-code"
	txtDynWorker = "B_VAR=2 \\\nDYN_REQUEST_PLANE=tcp \\\npython3 -m dynamo.sglang \\\n  --model-path org/Tiny-FP8 \\\n  --host 0.0.0.0 \\\n  --port 30000 \\\n  --request-plane tcp \\\n  --enable-unified-cache-external-linker \\\n  --mem-fraction-static 0.9"
	txtNginx     = "nginx -c nginx.conf -g 'daemon off;'"
	txtPrefill   = "python3 -m dynamo.sglang \\\n  --model-path org/Tiny-FP8 \\\n  --host 0.0.0.0 \\\n  --port 30001 \\\n  --disaggregation-mode prefill \\\n  --enable-unified-cache-external-linker \\\n  --trust-remote-code"
	txtDecode    = "Y='a b' \\\nMOONCAKE_MASTER=kept \\\npython3 -m dynamo.sglang \\\n  --model-path org/Tiny-FP8 \\\n  --disaggregation-mode decode \\\n  --dist-init-addr \"$DECODE_HEAD_IP:20000\" \\\n  --hicache-ratio 3 \\\n  --json '{\"a\": '\\''x'\\''}' \\\n  --empty ''"
	txtDecodeKV  = "MOONCAKE_MASTER=kept \\\nY='a b' \\\npython3 -m dynamo.sglang \\\n  --model-path org/Tiny-FP8 \\\n  --disaggregation-mode decode \\\n  --dist-init-addr \"$DECODE_HEAD_IP:20000\" \\\n  --empty '' \\\n  --json '{\"a\": '\\''x'\\''}'"
	txtFrontend  = "python3 -m dynamo.frontend \\\n  --http-port 8180"
)

type wantSel struct {
	sel      Selection
	measured bool
	blocks   []Block
	header   []string // export lines, in order
}

func blk(title, kind, role, text string) Block {
	return Block{Title: title, Kind: kind, Role: role, Text: text}
}

func TestFeaturesFixture(t *testing.T) {
	f, err := ReadFile("testdata/features.jsx")
	if err != nil {
		t.Fatal(err)
	}
	master := blk("Mooncake master", "mooncake-master", "", txtMaster)
	store := blk("Mooncake store", "mooncake-store", "", txtStore)
	etcd := blk("etcd — Dynamo control plane", "etcd", "", txtEtcd)
	nginx := blk("nginx — optional frontend load balancer", "nginx", "", txtNginx)
	front := blk("Dynamo frontend (OpenAI API)", "dynamo-frontend", "", txtFrontend)
	mmIP := "export MOONCAKE_MASTER_IP=<node running mooncake_master>"
	etcdIP := "export ETCD_IP=<node running etcd>"
	fe := []string{"export FRONTEND_0_IP=<node of frontend 0>", "export FRONTEND_1_IP=<node of frontend 1>"}
	decIP := "export DECODE_HEAD_IP=<first node of this decode worker>"

	cases := []wantSel{
		// Measured mooncake: master + store (preamble, envRef) + worker as stored.
		{Selection{0, 0, "sglang", "mooncake"}, true,
			[]Block{master, store, blk("Worker", "worker", "agg", txtAgg0)}, []string{mmIP}},
		// Leaving mooncake: master/store dropped, linker flag removed, re-sorted.
		{Selection{0, 0, "sglang", "none"}, false,
			[]Block{blk("Worker", "worker", "agg", "A_VAR=1 \\\nB_VAR=2 \\\npython3 -m sglang.launch_server \\\n  --model-path org/Tiny-FP8 \\\n  --host 0.0.0.0 \\\n  --port 30000 \\\n  --mem-fraction-static 0.9 \\\n  --trust-remote-code")}, nil},
		// from + diff env on a non-worker, from without diff keeps preamble, drop.
		{Selection{0, 0, "dynamo", "mooncake"}, false,
			[]Block{etcd, blk("Mooncake master", "mooncake-master", "", txtMasterDyn), store, blk("Worker", "worker", "agg", txtDynWorker)},
			[]string{etcdIP, mmIP}},
		// Patch {"replace"}: used as written (no envRef, no sort, env order kept).
		{Selection{0, 1, "sglang", "mooncake"}, true,
			[]Block{blk("Worker", "worker", "agg", "Z=1 \\\nA='it'\\''s' \\\npython3 -m sglang.launch_server \\\n  --port 30000 \\\n  --model-path org/Tiny-FP8")}, nil},
		// ... but the KV transform re-sorts every worker.
		{Selection{0, 1, "sglang", "none"}, false,
			[]Block{blk("Worker", "worker", "agg", "A='it'\\''s' \\\nZ=1 \\\npython3 -m sglang.launch_server \\\n  --model-path org/Tiny-FP8 \\\n  --port 30000")}, nil},
		// Patch {"block"} element, shorter patch array (missing = unchanged).
		{Selection{0, 1, "dynamo", "mooncake"}, false,
			[]Block{etcd, blk("Mooncake master", "mooncake-master", "", "mooncake_master"), store, blk("Worker", "worker", "agg", txtDynWorker)},
			[]string{etcdIP, mmIP}},
		// Patch diff: replace, null, [] (bare), append, env null + add, sort.
		{Selection{0, 2, "sglang", "mooncake"}, true,
			[]Block{master, store, blk("Worker", "worker", "agg", "B_VAR=2 \\\nC_VAR='x y' \\\npython3 -m sglang.launch_server \\\n  --model-path org/Tiny-FP8 \\\n  --host 0.0.0.0 \\\n  --port 30000 \\\n  --bare \\\n  --cuda-graph-bs 1 2 \\\n  --enable-unified-cache-external-linker \\\n  --mem-fraction-static 0.8")},
			[]string{mmIP}},
		// Patch null for the router; mooncake → none on the dynamo variant.
		{Selection{0, 2, "dynamo", "none"}, false,
			[]Block{etcd, blk("Worker", "worker", "agg", "B_VAR=2 \\\nDYN_REQUEST_PLANE=tcp \\\npython3 -m dynamo.sglang \\\n  --model-path org/Tiny-FP8 \\\n  --host 0.0.0.0 \\\n  --port 30000 \\\n  --request-plane tcp \\\n  --mem-fraction-static 0.9")},
			[]string{etcdIP}},
		// ref across cells and routers, drop env, nginx special case, files scanned last.
		{Selection{1, 0, "dynamo", "none"}, true,
			[]Block{etcd, nginx, blk("Prefill worker", "worker", "prefill", txtPrefill), blk("Decode worker", "worker", "decode", txtDecode), front},
			append([]string{etcdIP, decIP}, fe...)},
		// hicache on prefill only; decode loses --hicache-* and gains nothing.
		{Selection{1, 0, "dynamo", "hicache"}, false,
			[]Block{etcd, nginx,
				blk("Prefill worker", "worker", "prefill", "python3 -m dynamo.sglang \\\n  --model-path org/Tiny-FP8 \\\n  --host 0.0.0.0 \\\n  --port 30001 \\\n  --disaggregation-mode prefill \\\n  --enable-hierarchical-cache \\\n  --hicache-ratio 2 \\\n  --trust-remote-code"),
				blk("Decode worker", "worker", "decode", txtDecodeKV), front},
			append([]string{etcdIP, decIP}, fe...)},
		// Derived mooncake: master (as written) before the first worker; adds never overwrite.
		{Selection{1, 0, "dynamo", "mooncake"}, false,
			[]Block{etcd, nginx,
				blk("Mooncake master", "mooncake-master", "", "Z_VAR=1 \\\nETCD_ENDPOINTS=\"http://$ETCD_IP:2379\" \\\nmooncake_master \\\n  --port 8700 \\\n  --eviction_high_watermark_ratio 0.90"),
				blk("Prefill worker", "worker", "prefill", "MC_TCP_BIND_ADDRESS=\"$NODE_IP\" \\\nMOONCAKE_MASTER=\"$MOONCAKE_MASTER_IP:8700\" \\\npython3 -m dynamo.sglang \\\n  --model-path org/Tiny-FP8 \\\n  --host 0.0.0.0 \\\n  --port 30001 \\\n  --disaggregation-mode prefill \\\n  --enable-unified-cache-external-linker \\\n  --hicache-storage-backend-extra-config '{\"g\":true}' \\\n  --trust-remote-code \\\n  --unified-cache-external-linker-backend mooncake"),
				blk("Decode worker", "worker", "decode", txtDecodeKV), front},
			append([]string{etcdIP, "export NODE_IP=<IP of the node the command runs on>", mmIP, decIP}, fe...)},
		// from a materialized ref'd block, [] adds a bare flag, router placeholders.
		{Selection{1, 0, "sglang", "none"}, false,
			[]Block{
				blk("Prefill worker", "worker", "prefill", "python3 -m sglang.launch_server \\\n  --model-path org/Tiny-FP8 \\\n  --host 0.0.0.0 \\\n  --port 30001 \\\n  --disaggregation-mode prefill \\\n  --enable-unified-cache-external-linker \\\n  --skip-server-warmup \\\n  --trust-remote-code"),
				blk("SGLang router (OpenAI API)", "sglang-router", "", "python3 -m sglang_router.launch_router \\\n  --prefill \"http://$PREFILL_0_HEAD_IP:30000\" 8998 \\\n  --decode \"http://$DECODE_0_HEAD_IP:30000\" \\\n  --policy cache_aware")},
			[]string{"export PREFILL_0_HEAD_IP=<first node of prefill worker 0>", "export DECODE_0_HEAD_IP=<first node of decode worker 0>"}},
	}
	for _, c := range cases {
		d, err := f.Decode(c.sel)
		if err != nil {
			t.Errorf("%+v: %v", c.sel, err)
			continue
		}
		if d.Measured != c.measured {
			t.Errorf("%+v: measured = %v, want %v", c.sel, d.Measured, c.measured)
		}
		if len(d.Blocks) != len(c.blocks) {
			t.Errorf("%+v: %d blocks, want %d: %+v", c.sel, len(d.Blocks), len(c.blocks), d.Blocks)
			continue
		}
		var body []string
		for i := range c.blocks {
			if d.Blocks[i] != c.blocks[i] {
				t.Errorf("%+v block %d:\n got %q\nwant %q", c.sel, i, d.Blocks[i], c.blocks[i])
			}
			body = append(body, "# "+c.blocks[i].Title+"\n"+c.blocks[i].Text)
		}
		want := strings.Join(body, "\n\n")
		if len(c.header) > 0 {
			want = "# Set per node before running the commands below\n" + strings.Join(c.header, "\n") + "\n\n" + want
		}
		if d.CopyAll != want {
			t.Errorf("%+v copyAll:\n got %q\nwant %q", c.sel, d.CopyAll, want)
		}
	}

	// Selection order: cells, points, routers sorted, tiers none/hicache/mooncake.
	sels := f.Selections()
	if len(sels) != 18 {
		t.Errorf("Selections: %d, want 18 (cell 0: 3 points × 2 routers × 2 tiers; cell 1: 2 routers × 3 tiers)", len(sels))
	}
	if len(sels) > 3 && (sels[0] != Selection{0, 0, "dynamo", "none"} || sels[1] != Selection{0, 0, "dynamo", "mooncake"} || sels[2] != Selection{0, 0, "sglang", "none"}) {
		t.Errorf("Selections order: %+v", sels[:4])
	}
	if m := f.Measured(0, 1); m != (Selection{0, 1, "sglang", "mooncake"}) {
		t.Errorf("Measured(0,1) = %+v", m)
	}
}

// TestFeaturesDeployment checks the launch model and origins of a decoded
// selection.
func TestFeaturesDeployment(t *testing.T) {
	f, err := ReadFile("testdata/features.jsx")
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Decode(Selection{1, 0, "dynamo", "mooncake"})
	if err != nil {
		t.Fatal(err)
	}
	dep := d.Deployment
	if dep.Engine != "sglang" || dep.Model != "org/Tiny-FP8" || dep.Hardware != "b200" {
		t.Errorf("deployment header = %q %q %q", dep.Engine, dep.Model, dep.Hardware)
	}
	if dep.Source.CellID != "tiny-disagg#0" || dep.Source.Router != "dynamo" || dep.Source.KV != "mooncake" || dep.Source.Cell != 1 {
		t.Errorf("source = %+v", dep.Source)
	}
	if !strings.HasPrefix(dep.Source.Commit, "sha256:") {
		t.Errorf("commit = %q", dep.Source.Commit)
	}
	if len(dep.Processes) != 6 {
		t.Fatalf("%d processes", len(dep.Processes))
	}
	if p := dep.Processes[1]; p.Kind != launch.KindNginx || len(p.Files) != 1 || p.Files[0] != "nginx.conf" {
		t.Errorf("nginx process = %+v", p)
	}
	if p := dep.Processes[2]; p.Kind != launch.KindMooncakeMaster || p.Origin.Kind != launch.OriginKVDerived || p.Origin.Path != "kvMooncake.master.dynamo" {
		t.Errorf("master origin = %+v", p.Origin)
	}
	pre := dep.Processes[3]
	if pre.Role != launch.RolePrefill {
		t.Fatalf("process 3 role %q", pre.Role)
	}
	origins := map[string]launch.Origin{}
	for _, a := range pre.Args {
		origins[a.Flag] = a.Origin
	}
	wantOrigin := map[string]launch.Origin{
		"--model-path":          {Kind: launch.OriginCookbook, Path: "cells[0].routers.sglang.blocks[2].args[0]"},
		"--port":                {Kind: launch.OriginCookbook, Path: `cells[1].routers.dynamo.blocks[2].diff.args["--port"]`},
		"--disaggregation-mode": {Kind: launch.OriginCookbook, Path: `cells[1].routers.dynamo.blocks[2].diff.args["--disaggregation-mode"]`},
		"--unified-cache-external-linker-backend": {Kind: launch.OriginKVDerived, Path: "kvMooncake.args[2]"},
	}
	for flag, o := range wantOrigin {
		if origins[flag] != o {
			t.Errorf("origin of %s = %+v, want %+v", flag, origins[flag], o)
		}
	}
	if v, ok := launch.LookupEnv(pre.Env, "MC_TCP_BIND_ADDRESS"); !ok || v != "$NODE_IP" {
		t.Errorf("MC_TCP_BIND_ADDRESS = %q, %v", v, ok)
	}
	if pre.Env[0].Origin != (launch.Origin{Kind: launch.OriginKVDerived, Path: "kvMooncake.env.MC_TCP_BIND_ADDRESS"}) {
		t.Errorf("env origin = %+v", pre.Env[0].Origin)
	}
	// Modifying the deployment must not change later decodes.
	pre.Args[0].Values[0] = "changed"
	d2, _ := f.Decode(Selection{1, 0, "dynamo", "mooncake"})
	if d2.Deployment.Processes[3].Args[0].Values[0] != "org/Tiny-FP8" || d2.Blocks[3] != d.Blocks[3] {
		t.Error("a Decoded's Deployment shares memory with the File")
	}
	// Patch origins.
	d3, _ := f.Decode(Selection{0, 2, "sglang", "mooncake"})
	w := d3.Deployment.Processes[2]
	for _, a := range w.Args {
		if a.Flag == "--bare" && a.Origin != (launch.Origin{Kind: launch.OriginPatch, Path: `cells[0].points[2].patch.sglang[2].args["--bare"]`}) {
			t.Errorf("--bare origin = %+v", a.Origin)
		}
	}
	// Provenance: point override of the recipe, selector.
	p := f.Provenance(0, 1)
	if p.Recipe != "benchmarks/tiny-c8.yaml" || p.Override != "override_c8" || p.PR != "42" || p.Status != "in-progress" ||
		p.RecipeURL != "https://github.com/SemiAnalysisAI/InferenceX/blob/89abcdef0123456789abcdef0123456789abcdef/benchmarks/tiny-c8.yaml" {
		t.Errorf("provenance = %+v", p)
	}
	if d, _ := f.Decode(Selection{0, 1, "sglang", "mooncake"}); d.Deployment.Source.Recipe != "benchmarks/tiny-c8.yaml" || d.Deployment.Source.Selector != "override_c8" {
		t.Errorf("deployment recipe/selector = %q %q", d.Deployment.Source.Recipe, d.Deployment.Source.Selector)
	}
}

// TestConcurrentDecode: a File may be decoded from several goroutines
// (run with -race).
func TestConcurrentDecode(t *testing.T) {
	f, err := ReadFile("testdata/features.jsx")
	if err != nil {
		t.Fatal(err)
	}
	want := map[Selection]string{}
	for _, s := range f.Selections() {
		d, err := f.Decode(s)
		if err != nil {
			t.Fatal(err)
		}
		want[s] = string(d.OracleJSON())
	}
	done := make(chan string, 4)
	for range 4 {
		go func() {
			for _, s := range f.Selections() {
				d, err := f.Decode(s)
				if err != nil {
					done <- err.Error()
					return
				}
				d.Deployment.Processes[0].Program = "x" // owned copy
				if string(d.OracleJSON()) != want[s] {
					done <- "differs"
					return
				}
			}
			done <- ""
		}()
	}
	for range 4 {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}

func TestDefaultCell(t *testing.T) {
	f, err := Parse("d.jsx", []byte(strings.Replace(strings.Replace(minimal,
		`"model": "M",`, `"model": "M", "hardware": [{"id": "h100", "label": "H100"}, {"id": "b200", "label": "B200"}], "checkpoints": [{"id": "o/A"}, {"id": "o/M"}],`, 1),
		`{"id": "c1", "hw": "b200", "ckpt": "o/M"`, `{"id": "c1", "hw": "h100", "ckpt": "o/M"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	// h100 comes first in `hardware`, and only c1 runs on it.
	if got := f.DefaultCell(); got != 1 {
		t.Errorf("DefaultCell = %d, want 1", got)
	}
}

// OracleJSON cuts block texts out of the escaped copy-all text; a caller
// that edits a Decoded still gets its own values.
func TestOracleJSONAfterEdit(t *testing.T) {
	f, err := ReadFile("testdata/features.jsx")
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Decode(Selection{1, 0, "dynamo", "mooncake"})
	if err != nil {
		t.Fatal(err)
	}
	before := string(d.OracleJSON())
	if !strings.Contains(before, `"text":"nginx -c nginx.conf -g 'daemon off;'"}`) {
		t.Errorf("oracle JSON lacks the nginx text: %s", before)
	}
	d.Blocks[1].Text = "edited \"x\"\n"
	after := string(d.OracleJSON())
	if !strings.Contains(after, `"text":"edited \"x\"\n"}`) || !strings.Contains(after, `"copyAll":"# Set per node`) {
		t.Errorf("edited oracle JSON: %s", after)
	}
	if strings.Count(after, "daemon off;") != 1 { // still in copyAll only
		t.Errorf("edited oracle JSON keeps the old text in blocks: %s", after)
	}
}

func TestCheckFileKeys(t *testing.T) {
	f, err := ReadFile("testdata/features.jsx")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.CheckFileKeys(); err != nil {
		t.Error(err)
	}
	src, _ := os.ReadFile("testdata/features.jsx")
	bad, err := Parse("bad.jsx", []byte(strings.ReplaceAll(string(src), "nginx.conf#333134d1", "nginx.conf#00000000")))
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.CheckFileKeys(); err == nil || !strings.Contains(err.Error(), `files["nginx.conf#00000000"]: hash "00000000" does not match`) || !strings.Contains(err.Error(), "bad.jsx:32:3:") {
		t.Errorf("CheckFileKeys error = %v", err)
	}
}
