package srtslurm

import (
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

func mustRender(t *testing.T, file, sel string, opt Options) *Rendering {
	t.Helper()
	r, err := Load(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render(sel, opt)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func stepsOf(out *Rendering, k launch.Kind) []Step {
	var s []Step
	for _, st := range out.Steps {
		if st.Kind == k {
			s = append(s, st)
		}
	}
	return s
}

func TestPyFloat(t *testing.T) {
	// Python 3 repr(float) values.
	a, b := 0.1, 0.2
	if got := pyFloat(a + b); got != "0.30000000000000004" {
		t.Errorf("pyFloat(0.1+0.2) = %q", got)
	}
	for f, want := range map[float64]string{
		0.9: "0.9", 1.0: "1.0", 1e-5: "1e-05", 1e16: "1e+16", 1e15: "1000000000000000.0",
		0.0001: "0.0001", 0.00001234: "1.234e-05", 123.456: "123.456", -2.5: "-2.5",
		1.5e300: "1.5e+300", math.Inf(1): "inf",
	} {
		if got := pyFloat(f); got != want {
			t.Errorf("pyFloat(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestResolvePlain(t *testing.T) {
	// PyYAML SafeLoader (YAML 1.1) resolution, spec §2.
	cases := map[string]any{
		"None": "None", "null": nil, "~": nil, "": nil, "NULL": nil,
		"yes": true, "No": false, "on": true, "OFF": false, "y": "y", "n": "n",
		"1e-5": "1e-5", "1.0e-5": 1e-5, "0.90": 0.9, "017": int64(15), "1:30": int64(90),
		"04:00:00": "04:00:00", "0x1F": int64(31), "0b101": int64(5), "1_000": int64(1000),
		"1.0e5": "1.0e5", ".5": 0.5, "1.": 1.0, "08": "08", "-3": int64(-3), "+.inf": math.Inf(1),
		"2026-1-5 7:08:09.5Z": pyDate("2026-01-05 07:08:09.500000+00:00"), "2026-06-17": pyDate("2026-06-17"),
		"2026-6-17": "2026-6-17",
	}
	for in, want := range cases {
		if got := resolvePlain(in); !reflect.DeepEqual(got, want) {
			t.Errorf("resolvePlain(%q) = %#v, want %#v", in, got, want)
		}
	}
}

func TestScalarsToFlags(t *testing.T) {
	out := mustRender(t, "scalars.yaml", "", Options{})
	w := stepsOf(out, launch.KindWorker)
	if len(w) != 1 {
		t.Fatalf("%d worker steps", len(w))
	}
	want := []string{"python3", "-m", "sglang.launch_server", "--model-path", "/model", "--served-model-name", "tiny",
		"--host", "0.0.0.0", "--port", "6100", "--nccl-port", "17500",
		"--big-float", "1e+16", "--dict-arg", "{'a': 1, 'b': True, 'c': 'x'}", "--dotless-exp", "1e-5",
		"--dotted-exp", "1e-05", "--empty-list", "--empty-string", "", "--frac", "0.9", "--hex", "31",
		"--json", `{"a": 1}`, "--list-arg", "0", "0", "1", "1", "--none-string", "None", "--octal", "15",
		"--on-flag", "--one", "1.0", "--sexagesimal", "90", "--small-float", "0.0001",
		"--time-string", "04:00:00", "--under-score-key", "3", "--y-string", "y", "--yes-flag"}
	if got := w[0].Argv(); !reflect.DeepEqual(got, want) {
		t.Errorf("worker argv\n got %q\nwant %q", got, want)
	}
	env := map[string]string{}
	for _, e := range w[0].Env {
		env[e.Name] = e.Value
	}
	if env["UCX_MEMTYPE_CACHE"] != "n" || env["QUOTED"] != "1800" {
		t.Errorf("env %v", env)
	}
	r := stepsOf(out, launch.KindSGLangRouter)
	wantR := []string{"python", "-m", "sglang_router.launch_router", "--worker-urls", "http://10.0.0.0:6100",
		"--host", "0.0.0.0", "--port", "8000", "--policy", "None", "--flag-list", "[1, 2]", "--on-flag"}
	if len(r) != 1 || !reflect.DeepEqual(r[0].Argv(), wantR) {
		t.Errorf("router steps %+v, want argv %q", r, wantR)
	}
	// origins: recipe flags carry their YAML path, injected ones the version
	for _, a := range w[0].Args {
		switch a.Flag {
		case "--octal":
			if a.Origin != (launch.Origin{Kind: launch.OriginRecipe, Path: "backend.sglang_config.aggregated.octal"}) {
				t.Errorf("--octal origin %v", a.Origin)
			}
		case "--port":
			if a.Origin != (launch.Origin{Kind: launch.OriginInjected, Detail: "srt-slurm v1.0.68"}) {
				t.Errorf("--port origin %v", a.Origin)
			}
		}
	}
}

func TestVariants(t *testing.T) {
	r, err := Load("testdata/variants.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wantSel := []string{"override_a", "override_b", "zip_override_auto[0]", "zip_override_grid[0]", "zip_override_grid[1]", "zip_override_grid[2]"}
	if got := r.Selectors(); !reflect.DeepEqual(got, wantSel) {
		t.Errorf("Selectors() = %q, want %q", got, wantSel)
	}
	type exp struct {
		name  string
		flags []string
	}
	for sel, want := range map[string]exp{
		"base":                 {"var", []string{"--keep", "base", "--mem", "0.8", "--tp", "8", "--x", "1", "2"}},
		"override_b":           {"var_b", []string{"--keep", "base", "--tp", "16", "--x", "3"}},
		"override_a":           {"named-a", []string{"--keep", "base", "--mem", "0.8", "--tp", "8", "--x", "1", "2"}},
		"zip_override_grid[0]": {"g-a", []string{"--mem", "0.7", "--tp", "1", "--x", "5"}},
		"zip_override_grid[1]": {"g-b", []string{"--keep", "kept", "--mem", "0.7", "--tp", "2", "--x", "6", "7"}},
		"zip_override_auto[0]": {"var_auto_0", []string{"--keep", "base", "--mem", "0.8", "--tp", "16", "--x", "1", "2"}},
		"zip_override_auto":    {"var_auto_0", []string{"--keep", "base", "--mem", "0.8", "--tp", "16", "--x", "1", "2"}},
		"*_b":                  {"var_b", []string{"--keep", "base", "--tp", "16", "--x", "3"}},
	} {
		out, err := r.Render(sel, Options{})
		if err != nil {
			t.Errorf("%s: %v", sel, err)
			continue
		}
		if out.Name != want.name {
			t.Errorf("%s: name %q, want %q", sel, out.Name, want.name)
		}
		w := stepsOf(out, launch.KindWorker)[0]
		argv := w.Argv()
		if got := argv[13:]; !reflect.DeepEqual(got, want.flags) {
			t.Errorf("%s: recipe flags %q, want %q", sel, got, want.flags)
		}
	}
	out, _ := r.Render("override_a", Options{})
	if v, _ := launch.LookupEnv(stepsOf(out, launch.KindWorker)[0].Env, "CUDA_VISIBLE_DEVICES"); v != "0,1,2,3" {
		t.Errorf("override_a CUDA_VISIBLE_DEVICES = %q, want 0,1,2,3", v)
	}
	out, _ = r.Render("zip_override_grid[1]", Options{})
	origins := map[string]string{}
	for _, a := range stepsOf(out, launch.KindWorker)[0].Args {
		origins[a.Flag] = a.Origin.Path
	}
	if origins["--tp"] != "zip_override_grid.backend.sglang_config.aggregated.tp[1]" ||
		origins["--mem"] != "zip_override_grid.backend.sglang_config.aggregated.mem" ||
		origins["--x"] != "zip_override_grid.backend.sglang_config.aggregated.x[1]" {
		t.Errorf("origins %v", origins)
	}
	_, err = r.Render("override_nope", Options{})
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "testdata/variants.yaml") || !strings.Contains(err.Error(), "override_a, override_b") {
		t.Errorf("unknown selector error %v", err)
	}
	for _, bad := range []string{"zip_override_grid[3]", "zip_override_grid", "*", ""} {
		if _, err := r.Render(bad, Options{}); err == nil {
			t.Errorf("selector %q: no error", bad)
		}
	}
}

func TestSchema2(t *testing.T) {
	out := mustRender(t, "v2-agg.yaml", "zip_override_tp4_ep1[1]", Options{Model: "hf:org/model", Image: "lmsysorg/sglang:x"})
	if out.Schema != 2 || out.Frontend != "sglang-direct" {
		t.Errorf("schema %d frontend %q", out.Schema, out.Frontend)
	}
	if len(stepsOf(out, launch.KindSGLangRouter)) != 0 || len(stepsOf(out, launch.KindDynamoFrontend)) != 0 {
		t.Errorf("schema-2 frontend sglang must start no router")
	}
	w := stepsOf(out, launch.KindWorker)
	if len(w) != 1 || w[0].Image != "lmsysorg/sglang:x" {
		t.Fatalf("workers %+v", w)
	}
	want := "python3 -m sglang.launch_server --model-path org/model --served-model-name org/model --host 0.0.0.0 --port 6100 --nccl-port 17500 --max-running-requests 8 --served-model-name org/model --tensor-parallel-size 4 --trust-remote-code"
	// served-model-name is popped (v1.0.68) so it must not repeat
	want = strings.Replace(want, " --served-model-name org/model --tensor", " --tensor", 1)
	if got := strings.Join(w[0].Argv(), " "); got != want {
		t.Errorf("argv\n got %s\nwant %s", got, want)
	}
	if v, _ := launch.LookupEnv(w[0].Env, "CUDA_VISIBLE_DEVICES"); v != "0,1,2,3" {
		t.Errorf("CUDA_VISIBLE_DEVICES %q", v)
	}
	for _, a := range w[0].Args {
		if a.Flag == "--max-running-requests" && a.Origin.Path != "zip_override_tp4_ep1.roles.agg.args.max-running-requests[1]" {
			t.Errorf("origin %q", a.Origin.Path)
		}
	}
	if out.Deployment.Model != "org/model" || out.Deployment.Engine != "sglang" {
		t.Errorf("deployment model %q engine %q", out.Deployment.Model, out.Deployment.Engine)
	}

	pd := mustRender(t, "v2-router-disagg.yaml", "", Options{})
	if pd.Infra != "node0" || pd.Head != "node1" {
		t.Errorf("infra %s head %s", pd.Infra, pd.Head)
	}
	et := stepsOf(pd, launch.KindEtcd)
	// schema 2: etcd is its own registry srun (spec §10b, services.go)
	if len(et) != 1 || et[0].Nodes[0] != "node0" || strings.Join(et[0].Argv(), " ") != "/configs/etcd --data-dir /tmp/etcd --listen-client-urls http://0.0.0.0:2379 --advertise-client-urls http://10.0.0.0:2379" {
		t.Errorf("etcd %+v", et)
	}
	routers := stepsOf(pd, launch.KindSGLangRouter)
	if len(routers) != 2 || len(stepsOf(pd, launch.KindNginx)) != 1 {
		t.Fatalf("%d routers, want 2 behind nginx", len(routers))
	}
	wantR := "python -m sglang_router.launch_router --pd-disaggregation --prefill grpc://10.0.0.1:6100 7200 --prefill grpc://10.0.0.2:6100 7200 --decode http://10.0.0.3:6100 --host 0.0.0.0 --port 8180 --policy cache_aware"
	if got := strings.Join(routers[0].Argv(), " "); got != wantR {
		t.Errorf("router\n got %s\nwant %s", got, wantR)
	}
	var fe *launch.Process
	for i, p := range pd.Deployment.Processes {
		if p.Kind == launch.KindSGLangRouter {
			fe = &pd.Deployment.Processes[i]
		}
	}
	if fe == nil || fe.Count != 2 {
		t.Errorf("router process %+v", fe)
	}
	pw := pd.Deployment.Workers(launch.RolePrefill)
	if len(pw) != 1 || pw[0].Workers != 2 || pw[0].NodesPerWorker != 1 || pw[0].GPUsPerNode != 4 {
		t.Errorf("prefill block %+v", pw)
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		file, sel string
		opt       Options
		want      []string
	}{
		{"syntax-error.yaml", "", Options{}, []string{"testdata/syntax-error.yaml:4", "YAML syntax error"}},
		{"wrong-type.yaml", "", Options{}, []string{"testdata/wrong-type.yaml:5:18", "resources.gpus_per_node", "expected an integer"}},
		{"env-int.yaml", "", Options{}, []string{"testdata/env-int.yaml:7:14", "backend.aggregated_environment.TIMEOUT", "must be strings"}},
		{"zip-mismatch.yaml", "", Options{}, []string{"testdata/zip-mismatch.yaml:8:19", "zip_override_bad.resources.gpus_per_agg", "same length"}},
		{"scalars.yaml", "", Options{Version: "v9.9.9"}, []string{"testdata/scalars.yaml", `unknown srt-slurm version "v9.9.9"`}},
		{"scalars.yaml", "override_x", Options{}, []string{"testdata/scalars.yaml", `unknown selector "override_x"`}},
		{"v2-v1key.yaml", "", Options{}, []string{"testdata/v2-v1key.yaml:5:10", "schema-1 key"}},
		{"unknown-key.yaml", "", Options{}, []string{"testdata/unknown-key.yaml:4:1", `unknown top-level key "fronted"`}},
		{"too-small.yaml", "", Options{}, []string{"testdata/too-small.yaml:4:3", "resources", "worker node(s)"}},
		// mooncake_kv_store types and the refs that have it
		{"mooncake-bad.yaml", "override_extra_string", Options{}, []string{"testdata/mooncake-bad.yaml:19:44", "master_extra_args must be a list of strings, got a string"}},
		{"mooncake-bad.yaml", "override_extra_int", Options{}, []string{"testdata/mooncake-bad.yaml:22", "master_extra_args[1] must be a string, got an integer 4"}},
		{"mooncake-bad.yaml", "override_env_int", Options{}, []string{"testdata/mooncake-bad.yaml:25:45", "environment values must be strings"}},
		{"mooncake-bad.yaml", "override_store_config_sglang", Options{}, []string{"testdata/mooncake-bad.yaml:28:", `unknown backend.mooncake_kv_store key "store_config"`}},
		{"mooncake-bad.yaml", "override_unknown", Options{}, []string{"testdata/mooncake-bad.yaml:31:", `unknown backend.mooncake_kv_store key "master_port"`}},
		{"mooncake-bad.yaml", "override_extra_args", Options{Version: "v1.0.34"}, []string{"testdata/mooncake-bad.yaml:34:", "master_extra_args is not in srt-slurm v1.0.34"}},
		{"mooncake-bad.yaml", "override_ok", Options{Version: "sa-submission-q2-2026"}, []string{"testdata/mooncake-bad.yaml:12:", "mooncake_kv_store is not in srt-slurm sa-submission-q2-2026"}},
	} {
		r, err := Load(filepath.Join("testdata", tc.file))
		if err == nil {
			_, err = r.Render(tc.sel, tc.opt)
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
	if _, err := Parse("list.yaml", []byte("- a\n- b\n")); err == nil || !strings.Contains(err.Error(), "list.yaml:1:1") {
		t.Errorf("top-level list: %v", err)
	}
	if _, err := Parse("two.yaml", []byte("a: 1\n---\nb: 2\n")); err == nil || !strings.Contains(err.Error(), "single YAML document") {
		t.Errorf("two documents: %v", err)
	}
	if _, err := Parse("empty.yaml", nil); err == nil || !strings.Contains(err.Error(), "empty.yaml:1:1: a recipe must be a YAML mapping") {
		t.Errorf("empty file: %v", err)
	}
	if _, err := Load("testdata/absent.yaml"); err == nil {
		t.Errorf("absent file: no error")
	}
}

func TestVersionsDiffer(t *testing.T) {
	// The per-version injection table (spec §0): sa-submission uses other
	// port bases and no --nccl-port; v1.0.45 has no --nccl-port.
	main := mustRender(t, "scalars.yaml", "", Options{})
	sa := mustRender(t, "scalars.yaml", "", Options{Version: "sa-submission-q2-2026"})
	old := mustRender(t, "scalars.yaml", "", Options{Version: "v1.0.45"})
	get := func(out *Rendering, flag string) string {
		v, ok := launch.Lookup(stepsOf(out, launch.KindWorker)[0].Args, flag)
		if !ok {
			return "<absent>"
		}
		return strings.Join(v, " ")
	}
	if get(main, "--port") != "6100" || get(sa, "--port") != "30000" || get(old, "--nccl-port") != "<absent>" || get(main, "--nccl-port") != "17500" {
		t.Errorf("ports: main %s sa %s v1.0.45 nccl %s", get(main, "--port"), get(sa, "--port"), get(old, "--nccl-port"))
	}
	if main.Deployment.Processes[0].Kind != launch.KindEtcd {
		t.Errorf("first process %v", main.Deployment.Processes[0].Kind)
	}
}

func TestSweep(t *testing.T) {
	r, err := Load("testdata/sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Selectors(); len(got) != 4 || got[0] != "sweep[0]" {
		t.Fatalf("Selectors() = %q", got)
	}
	out, err := r.Render("sweep[1]", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Name != "example-sweep_chunked_prefill_size4096_max_total_tokens16384" {
		t.Errorf("name %q", out.Name)
	}
	argv := strings.Join(stepsOf(out, launch.KindWorker)[0].Argv(), " ")
	if !strings.HasSuffix(argv, "--chunked-prefill-size 4096 --max-total-tokens 16384") {
		t.Errorf("argv %s", argv)
	}
}

// TestYAMLErrorPositions: a syntax error carries the line yaml.v3 names
// and the column of that line's first character; a file that is not
// UTF-8 (which yaml.v3 reports without a line) points at its first
// invalid byte.
func TestYAMLErrorPositions(t *testing.T) {
	for file, want := range map[string]string{
		"testdata/syntax-error.yaml": "testdata/syntax-error.yaml:4:4: YAML syntax error: mapping values are not allowed in this context",
		"testdata/non-utf8.yaml":     "testdata/non-utf8.yaml:3:12: YAML syntax error: invalid leading UTF-8 octet",
	} {
		_, err := Load(file)
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", file, err, want)
		}
	}
}

// TestGPUsPerWorkerWholeNodes: a worker needing at least gpus_per_node GPUs
// takes ceil(gpus/gpus_per_node) whole nodes and all of their GPUs
// (shared/spec/srt-slurm.md §7), so gpus_per_decode 7 on 4-GPU nodes starts
// the same processes as gpus_per_decode 8 (srt-slurm does not reject it).
func TestGPUsPerWorkerWholeNodes(t *testing.T) {
	eight := mustRender(t, "gpus-round-up.yaml", "base", Options{})
	seven := mustRender(t, "gpus-round-up.yaml", "override_seven", Options{})
	if !reflect.DeepEqual(eight.Deployment.Processes, seven.Deployment.Processes) {
		t.Errorf("gpus_per_decode 7 renders differently from 8")
	}
	dec := seven.Deployment.Workers(launch.RoleDecode)
	if len(dec) != 1 || dec[0].Workers != 4 || dec[0].NodesPerWorker != 2 || dec[0].GPUsPerNode != 4 {
		t.Errorf("decode = %+v", dec)
	}
}

// TestColocationNotRendered: a vLLM recipe whose workers fit only with
// srtctl's prefill/decode colocation (backend.allow_prefill_decode_colocation)
// is refused with ErrNotRendered at the flag's position, not as bad input;
// the same recipe without the flag is a placement error.
func TestColocationNotRendered(t *testing.T) {
	src := `name: x
model: {path: org/m, container: img, precision: fp4}
resources: {gpu_type: b300, gpus_per_node: 8, prefill_nodes: 1, decode_nodes: 1, prefill_workers: 2, decode_workers: 3, gpus_per_prefill: 2, gpus_per_decode: 4}
frontend: {type: dynamo}
backend:
  type: vllm
  allow_prefill_decode_colocation: true
  vllm_config: {prefill: {}, decode: {}}
`
	rec, err := Parse("colo.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = rec.Render("", Options{Version: "v1.0.68", Model: "org/m", Image: "img"})
	var ie *Error
	if !errors.Is(err, ErrNotRendered) || !errors.As(err, &ie) || ie.Line != 7 || !strings.Contains(err.Error(), "decode worker 2 does not fit") {
		t.Fatalf("err = %v, want ErrNotRendered at colo.yaml:7", err)
	}
	rec, err = Parse("plain.yaml", []byte(strings.Replace(src, "  allow_prefill_decode_colocation: true\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err = rec.Render("", Options{Version: "v1.0.68", Model: "org/m", Image: "img"}); err == nil || errors.Is(err, ErrNotRendered) {
		t.Fatalf("without the flag: err = %v, want a placement error", err)
	}
}
