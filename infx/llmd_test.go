package infx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// llmdRender renders every point of key in the workspace at root.
func llmdRender(t *testing.T, ws *Workspace, key string) ([]Point, []launch.Deployment, []error) {
	t.Helper()
	pts, err := ws.Points(key)
	if err != nil {
		t.Fatal(err)
	}
	ds := make([]launch.Deployment, len(pts))
	errs := make([]error, len(pts))
	for i, p := range pts {
		ds[i], errs[i] = ws.Render(context.Background(), p, Options{})
	}
	return pts, ds, errs
}

func llmdEnvOf(p launch.Process, name string) (launch.EnvVar, bool) {
	for _, e := range p.Env {
		if e.Name == name {
			return e, true
		}
	}
	return launch.EnvVar{}, false
}

func argOf(p launch.Process, flag string) (launch.Arg, bool) {
	for _, a := range p.Args {
		if a.Flag == flag {
			return a, true
		}
	}
	return launch.Arg{}, false
}

// TestLLMDRender renders testdata/llmd (hand-written; no server.sh, so the
// modeled server.sh's lines are cited): per-role workers with server.sh's
// flags, the recipe's tp/EP, extra-args split on blanks with quotes kept,
// env as Python's repr gives it, and server.sh's env overrides.
func TestLLMDRender(t *testing.T) {
	ws, err := Open("testdata/llmd")
	if err != nil {
		t.Fatal(err)
	}
	pts, ds, errs := llmdRender(t, ws, "m1-fp4-gb200-llmd-vllm")
	if len(pts) != 6 {
		t.Fatalf("%d points", len(pts))
	}
	if errs[0] != nil {
		t.Fatal(errs[0])
	}
	d := ds[0]
	if pts[0].Kind != KindLLMD || d.Source.File != "benchmarks/multi_node/llm-d-recipes/small.yaml" || d.Model != "org/M1" || d.Engine != "vllm" {
		t.Errorf("point %+v source %+v", pts[0], d.Source)
	}
	if len(d.Processes) != 2 {
		t.Fatalf("processes %+v", d.Processes)
	}
	pf, dc := d.Processes[0], d.Processes[1]
	if pf.Role != launch.RolePrefill || dc.Role != launch.RoleDecode || pf.Program != "vllm serve" || pf.Image != "example.org/llmd-vllm:1" ||
		pf.Workers != 1 || pf.NodesPerWorker != 2 || pf.GPUsPerNode != 4 || dc.NodesPerWorker != 2 {
		t.Errorf("prefill %+v\ndecode %+v", pf, dc)
	}
	wantPrefill := "/models --port 8200 --served-model-name org/M1 --trust-remote-code --disable-access-log-for-endpoints /health,/metrics " +
		`--tensor-parallel-size 1 --kv_transfer_config {"kv_connector":"NixlConnector","kv_role":"kv_producer","kv_load_failure_policy":"fail"} ` +
		"--api-server-count 4 --enable-expert-parallel --data-parallel-size 8 --data-parallel-hybrid-lb --data-parallel-size-local 4 " +
		"--data-parallel-address 10.0.0.0 --data-parallel-rpc-port 5555 --data-parallel-start-rank 0 --kv-cache-dtype fp8 --max-num-seqs 16 --enforce-eager"
	if got := strings.Join(pf.Argv()[2:], " "); got != wantPrefill {
		t.Errorf("prefill argv\n got %s\nwant %s", got, wantPrefill)
	}
	wantDecode := "/models --port 8200 --served-model-name org/M1 --trust-remote-code --disable-access-log-for-endpoints /health,/metrics " +
		`--tensor-parallel-size 8 --kv_transfer_config {"kv_connector":"NixlConnector","kv_role":"kv_consumer","kv_load_failure_policy":"fail"} ` +
		`--master-addr 10.0.0.2 --nnodes 2 --node-rank 0 --max-num-seqs 256 --compilation-config {"cudagraph_mode":"FULL_DECODE_ONLY","mode":0} ` +
		"--block-size 256 --no-enable-prefix-caching"
	if got := strings.Join(dc.Argv()[2:], " "); got != wantDecode {
		t.Errorf("decode argv\n got %s\nwant %s", got, wantDecode)
	}
	// origins: recipe words at file:line + YAML path, server.sh flags at its line
	if a, _ := argOf(dc, "--compilation-config"); a.Origin != (launch.Origin{Kind: launch.OriginRecipe, Path: "benchmarks/multi_node/llm-d-recipes/small.yaml:34 decode.extra-args[2]"}) {
		t.Errorf("--compilation-config origin %+v", a.Origin)
	}
	if a, _ := argOf(dc, "--no-enable-prefix-caching"); a.Origin.Path != "benchmarks/multi_node/llm-d-recipes/small.yaml:35 decode.extra-args[5]" {
		t.Errorf("--no-enable-prefix-caching origin %+v", a.Origin)
	}
	if a, _ := argOf(dc, "--tensor-parallel-size"); a.Origin.Path != "benchmarks/multi_node/llm-d-recipes/small.yaml:30 decode.tp" {
		t.Errorf("--tensor-parallel-size origin %+v", a.Origin)
	}
	if a, _ := argOf(pf, "--data-parallel-size"); a.Origin != (launch.Origin{Kind: launch.OriginInjected, Path: "benchmarks/multi_node/llm-d/server.sh:258", Detail: "llm-d server.sh"}) {
		t.Errorf("--data-parallel-size origin %+v", a.Origin)
	}
	// env: repr of int/bool/null, recipe UCX_TLS kept, VLLM_USE_DEEP_GEMM
	// overridden, NVSHMEM_HCA_LIST unset (PE mapping given, 2-node engine)
	for name, want := range map[string]string{"INT_VALUE": "7", "BOOL_VALUE": "True", "NULL_VALUE": "None", "UCX_TLS": "cuda_ipc,rc",
		"VLLM_USE_DEEP_GEMM": "1", "NVIDIA_GDRCOPY": "enabled", "LIBRARY_PATH": "/usr/local/cuda/compat:/usr/lib/aarch64-linux-gnu:"} {
		if e, ok := llmdEnvOf(pf, name); !ok || e.Value != want {
			t.Errorf("prefill env %s = %+v, want %q", name, e, want)
		}
	}
	if e, _ := llmdEnvOf(pf, "UCX_TLS"); e.Origin.Path != "benchmarks/multi_node/llm-d-recipes/small.yaml:21 prefill.env.UCX_TLS" {
		t.Errorf("UCX_TLS origin %+v", e.Origin)
	}
	if e, _ := llmdEnvOf(pf, "VLLM_USE_DEEP_GEMM"); e.Origin.Kind != launch.OriginInjected || e.Origin.Path != "benchmarks/multi_node/llm-d/server.sh:170" {
		t.Errorf("VLLM_USE_DEEP_GEMM origin %+v", e.Origin)
	}
	if _, ok := llmdEnvOf(pf, "NVSHMEM_HCA_LIST"); ok {
		t.Error("NVSHMEM_HCA_LIST kept although server.sh unsets it")
	}
	if e, _ := llmdEnvOf(dc, "UCX_TLS"); e.Value != "cuda_copy,cuda_ipc,rc" || e.Origin.Kind != launch.OriginInjected {
		t.Errorf("decode UCX_TLS %+v", e)
	}
	if !slices.ContainsFunc(d.Notes, func(n string) bool { return strings.Contains(n, "EPP") && strings.Contains(n, "pd-sidecar") }) ||
		!slices.ContainsFunc(d.Notes, func(n string) bool { return strings.Contains(n, "server.sh is not in the checkout") }) {
		t.Errorf("notes %q", d.Notes)
	}

	// row 1: no CONFIG_FILE: server.sh defaults, 2 prefill engines of 1 node
	if errs[1] != nil {
		t.Fatal(errs[1])
	}
	pf = ds[1].Processes[0]
	if pf.Workers != 2 || pf.NodesPerWorker != 1 {
		t.Errorf("row 1 prefill %+v", pf)
	}
	if v, _ := launch.Lookup(pf.Args, "--data-parallel-size"); !slices.Equal(v, []string{"4"}) {
		t.Errorf("row 1 --data-parallel-size %v", v)
	}
	if _, ok := launch.Lookup(pf.Args, "--data-parallel-hybrid-lb"); ok {
		t.Error("row 1: single-node engine got --data-parallel-hybrid-lb")
	}
	if v, _ := launch.Lookup(ds[1].Processes[1].Args, "--data-parallel-address"); v != nil {
		t.Errorf("row 1 decode --data-parallel-address %v", v)
	}

	// rows 2-5: missing recipe, unknown key, unknown setting, single quote
	wants := []struct {
		status Status
		note   string
	}{
		{StatusMissing, "llm-d recipe benchmarks/multi_node/llm-d-recipes/absent.yaml is not in the checkout (server.sh would warn and run its defaults)"},
		{StatusUnsupported, "benchmarks/multi_node/llm-d-recipes/unknown-key.yaml:4:3: key prefill.replicas: not one server.sh reads from a role section (tp, enable-expert-parallel, extra-args, env)"},
		{StatusUnsupported, "additional-setting LLMD_API_SERVER_COUNT: not one the llm-d path reads"},
		{StatusUnsupported, "benchmarks/multi_node/llm-d-recipes/quoted.yaml:3:15: prefill.extra-args holds a single quote"},
	}
	for i, w := range wants {
		var pe *PointError
		if !errors.As(errs[i+2], &pe) || pe.Status != w.status || !strings.HasPrefix(pe.Note, w.note) {
			t.Errorf("row %d: %v, want %s %q", i+2, errs[i+2], w.status, w.note)
		}
	}
}

// TestLLMDServerAnchors: a server.sh that lacks a line the rendering relies
// on leaves the point unsupported, naming the line.
func TestLLMDServerAnchors(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/llmd")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "benchmarks", "multi_node", "llm-d")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "server.sh"), []byte("#!/bin/bash\nVLLM_PORT=8200\nvllm serve \"$MODEL\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	_, _, errs := llmdRender(t, ws, "m1-fp4-gb200-llmd-vllm")
	var pe *PointError
	want := `benchmarks/multi_node/llm-d/server.sh differs from the version the llm-d renderer models (InferenceX 8b4dcfaeb): no line "MODEL=\"${MODEL_DIR}\""`
	if !errors.As(errs[0], &pe) || pe.Status != StatusUnsupported || pe.Note != want {
		t.Errorf("err %v\nwant %s", errs[0], want)
	}
}

// TestCorpusLLMD renders the real llm-d key of the complete InferenceX
// tree (../shared/corpus/upstream/InferenceX, with
// benchmarks/multi_node/llm-d/server.sh and the llm-d recipes).
func TestCorpusLLMD(t *testing.T) {
	root := testutil.UpstreamInferenceX(t)
	ws, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	pts, ds, errs := llmdRender(t, ws, "dsv4-fp4-gb200-llmd-vllm")
	for i, err := range errs {
		if err != nil {
			t.Fatalf("row %d conc %d: %v", pts[i].Row, pts[i].Concurrency, err)
		}
	}
	// row 0 (conc 1): low-latency recipe, decode pure TP 8 over 2 nodes
	d := ds[0]
	if d.Source.File != "benchmarks/multi_node/llm-d-recipes/dsv4-fp4-gb200-low-latency.yaml" || d.Model != "deepseek-ai/DeepSeek-V4-Pro" {
		t.Errorf("source %+v model %s", d.Source, d.Model)
	}
	dc := d.Processes[1]
	if dc.Role != launch.RoleDecode || dc.NodesPerWorker != 2 || dc.GPUsPerNode != 4 {
		t.Errorf("decode %+v", dc)
	}
	a, ok := argOf(dc, "--compilation-config")
	if !ok || !slices.Equal(a.Values, []string{`{"cudagraph_mode":"FULL_DECODE_ONLY","mode":0}`}) ||
		a.Origin.Path != "benchmarks/multi_node/llm-d-recipes/dsv4-fp4-gb200-low-latency.yaml:165 decode.extra-args[17]" {
		t.Errorf("--compilation-config %+v", a)
	}
	if _, ok := argOf(dc, "--enable-sleep-mode"); !ok {
		t.Error("decode lacks --enable-sleep-mode")
	}
	if v, _ := launch.Lookup(dc.Args, "--tensor-parallel-size"); !slices.Equal(v, []string{"8"}) {
		t.Errorf("decode TP %v", v)
	}
	if _, ok := argOf(dc, "--enable-expert-parallel"); ok {
		t.Error("pure-TP decode got --enable-expert-parallel")
	}
	// row 2 (conc 4096): 3 prefill engines of 2 nodes, DP 8 each
	last := ds[len(ds)-1]
	pf := last.Processes[0]
	if pf.Workers != 3 || pf.NodesPerWorker != 2 {
		t.Errorf("high-tpt prefill %+v", pf)
	}
	if v, _ := launch.Lookup(pf.Args, "--moe-backend"); !slices.Equal(v, []string{"deep_gemm_mega_moe"}) {
		t.Errorf("prefill --moe-backend %v", v)
	}
	if e, _ := llmdEnvOf(pf, "VLLM_MAX_TOKENS_PER_EXPERT_FP4_MOE"); e.Value != "2048" {
		t.Errorf("prefill env %+v", e)
	}
}
