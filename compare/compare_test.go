package compare

import (
	"reflect"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

func args(kv ...string) []launch.Arg {
	var out []launch.Arg
	for i := 0; i < len(kv); i++ {
		a := launch.Arg{Flag: kv[i]}
		if i+1 < len(kv) && (len(kv[i+1]) == 0 || kv[i+1][0] != '-') {
			a.Values = []string{kv[i+1]}
			i++
		}
		out = append(out, a)
	}
	return out
}

func env(kv ...string) []launch.EnvVar {
	var out []launch.EnvVar
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, launch.EnvVar{Name: kv[i], Value: kv[i+1]})
	}
	return out
}

// cookbookAgg is an AgentX agg cell as the page decodes it (dynamo router).
func cookbookAgg() *launch.Deployment {
	return &launch.Deployment{
		Engine: "sglang", Model: "Qwen/Qwen3.5-397B-A17B-FP8",
		Processes: []launch.Process{
			{Kind: launch.KindEtcd, Program: "etcd", Args: args("--data-dir", "/tmp/etcd")},
			{Kind: launch.KindDynamoFrontend, Program: "python3 -m dynamo.frontend", Args: args("--http-port", "8000", "--router-mode", "kv")},
			{Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "python3 -m dynamo.sglang",
				Args: args("--model-path", "Qwen/Qwen3.5-397B-A17B-FP8", "--host", "0.0.0.0", "--port", "30000",
					"--request-plane", "tcp", "--attention-backend", "trtllm_mha", "--tp", "4", "--trust-remote-code",
					"--cuda-graph-max-bs", "64", "--mem-fraction-static", "0.8"),
				Env: env("DYN_REQUEST_PLANE", "tcp", "ETCD_ENDPOINTS", "http://$ETCD_IP:2379", "SGLANG_ENABLE_SPEC_V2", "1")},
		},
	}
}

// recipeAgg is the same deployment as srt-slurm renders it.
func recipeAgg() *launch.Deployment {
	return &launch.Deployment{
		Engine: "sglang",
		Processes: []launch.Process{
			{Kind: launch.KindEtcd, Program: "etcd"},
			{Kind: launch.KindDynamoFrontend, Program: "python -m dynamo.frontend", Args: args("--http-port=8080", "--router-mode", "kv")},
			{Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "python3 -m dynamo.sglang",
				Args: args("--model-path", "/model/", "--served-model-name", "Qwen/Qwen3.5-397B-A17B-FP8",
					"--attention-backend", "trtllm_mha", "--tensor-parallel-size", "4", "--trust-remote-code", "true",
					"--cuda-graph-max-bs", "64", "--mem-fraction-static", "0.80", "--enable-dp-attention", "false"),
				Env: env("SGLANG_ENABLE_SPEC_V2", "1", "ETCD_ENDPOINTS", "http://10.1.1.1:2379")},
		},
	}
}

func byRole(t *testing.T, rs []Result) map[string]Result {
	t.Helper()
	m := map[string]Result{}
	for _, r := range rs {
		m[r.Role] = r
	}
	return m
}

func run(t *testing.T, cb, rc *launch.Deployment) map[string]Result {
	t.Helper()
	rs, err := Compare(cb, rc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return byRole(t, rs)
}

func TestCompareCoveredWithExclusions(t *testing.T) {
	got := run(t, cookbookAgg(), recipeAgg())
	w := got["agg"]
	if w.Verdict != CoveredWithExclusions {
		t.Fatalf("agg verdict %s, differences %+v", w.Verdict, w.Differences)
	}
	// program, --model-path (/model/ -> served name), --attention-backend,
	// --tensor-parallel-size (--tp), --trust-remote-code (bare = true),
	// --cuda-graph-max-bs-decode, --mem-fraction-static (0.8 = 0.80),
	// env SGLANG_ENABLE_SPEC_V2, env ETCD_ENDPOINTS (placeholder), workers,
	// nodes-per-worker.
	if w.Matched != 11 {
		t.Errorf("agg matched %d, want 11", w.Matched)
	}
	var ex []string
	for _, e := range w.Excluded {
		ex = append(ex, e.Setting+"="+e.Rule)
	}
	want := []string{"--host=harness-host", "--port=harness-port", "--request-plane=harness-request-plane",
		"--served-model-name=placement-served-model-name", "env DYN_REQUEST_PLANE=harness-dyn-env"}
	if !reflect.DeepEqual(ex, want) {
		t.Errorf("agg excluded\n got %v\nwant %v", ex, want)
	}
	f := got["frontend"]
	if f.Verdict != CoveredWithExclusions || f.Matched != 3 || len(f.Excluded) != 1 || f.Excluded[0].Rule != "harness-http-port" {
		t.Errorf("frontend: %+v", f)
	}
	// etcd: services are compared like workers (program and count match);
	// the cookbook's --data-dir is where etcd keeps its state (harness).
	e := got["etcd"]
	if e.Verdict != CoveredWithExclusions || e.Matched != 2 || len(e.Differences) != 0 ||
		len(e.Excluded) != 1 || e.Excluded[0].Setting != "--data-dir" || e.Excluded[0].Rule != "harness-etcd-data-dir" {
		t.Errorf("etcd: %+v", e)
	}
}

func TestCompareCovered(t *testing.T) {
	cb := cookbookAgg()
	got := run(t, cb, cookbookAgg())
	for role, r := range got {
		if r.Verdict != Covered || len(r.Differences)+len(r.Excluded)+len(r.Info) != 0 {
			t.Errorf("%s: %+v", role, r)
		}
	}
	// program, 9 flags, 3 env, workers, nodes-per-worker
	if got["agg"].Matched != 15 {
		t.Errorf("agg matched %d, want 15", got["agg"].Matched)
	}
}

func TestCompareDiffersAndInfo(t *testing.T) {
	rc := recipeAgg()
	w := &rc.Processes[2]
	w.Args = append(w.Args, args("--moe-runner-backend", "flashinfer_trtllm", "--enable-metrics", "--watchdog-timeout", "1000000")...)
	w.Args[2].Values = []string{"fa3"} // --attention-backend
	w.Args[5].Values = []string{"128"} // --cuda-graph-max-bs: judgment
	w.Env = append(w.Env, env("SGLANG_SIMULATE_ACC_LEN", "3.39")...)
	w.Workers = 2
	got := run(t, cookbookAgg(), rc)["agg"]
	if got.Verdict != Differs {
		t.Fatalf("verdict %s", got.Verdict)
	}
	type d struct{ setting, cb, rc string }
	var diffs []d
	for _, x := range got.Differences {
		diffs = append(diffs, d{x.Setting, deref(x.Upstream), deref(x.InferenceX)})
	}
	want := []d{
		{"--attention-backend", "trtllm_mha", "fa3"},
		{"--moe-runner-backend", "<absent>", "flashinfer_trtllm"},
		{"workers", "1", "2"},
	}
	// fields sort first
	want = []d{want[2], want[0], want[1]}
	if !reflect.DeepEqual(diffs, want) {
		t.Errorf("differences\n got %v\nwant %v", diffs, want)
	}
	var info []string
	for _, x := range got.Info {
		info = append(info, x.Setting+" "+deref(x.Upstream)+"->"+deref(x.InferenceX))
	}
	wantInfo := []string{"--cuda-graph-max-bs-decode 64->128", "--watchdog-timeout <absent>->1000000"}
	if !reflect.DeepEqual(info, wantInfo) {
		t.Errorf("info\n got %v\nwant %v", info, wantInfo)
	}
	var ex []string
	for _, x := range got.Excluded {
		ex = append(ex, x.Setting+":"+string(x.Class))
	}
	wantEx := []string{"--host:harness", "--port:harness", "--request-plane:harness", "--served-model-name:placement",
		"--enable-metrics:collection", "env DYN_REQUEST_PLANE:harness", "env SGLANG_SIMULATE_ACC_LEN:synthetic-acceptance"}
	if !reflect.DeepEqual(ex, wantEx) {
		t.Errorf("excluded\n got %v\nwant %v", ex, wantEx)
	}
}

func deref(p *string) string {
	if p == nil {
		return "<absent>"
	}
	return *p
}

func TestCompareModelMustMatch(t *testing.T) {
	rc := recipeAgg()
	rc.Processes[2].Args[1].Values = []string{"nvidia/Qwen3.5-397B-A17B-NVFP4"} // served name = HF id
	got := run(t, cookbookAgg(), rc)["agg"]
	if got.Verdict != Differs {
		t.Fatalf("verdict %s", got.Verdict)
	}
	if len(got.Differences) != 1 || got.Differences[0].Setting != "--model-path" ||
		*got.Differences[0].Upstream != "Qwen/Qwen3.5-397B-A17B-FP8" || *got.Differences[0].InferenceX != "nvidia/Qwen3.5-397B-A17B-NVFP4" {
		t.Errorf("differences %+v", got.Differences)
	}
}

func TestCompareMissingAndProhibited(t *testing.T) {
	cb := cookbookAgg()
	cb.Processes = cb.Processes[2:] // no etcd, no frontend
	rc := recipeAgg()
	rc.Processes[2].Env = append(rc.Processes[2].Env, env("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", "1")...)
	rs, err := Compare(cb, rc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := byRole(t, rs)
	if got["frontend"].Verdict != Missing || got["frontend"].Note != "frontend: only in the InferenceX recipe (python -m dynamo.frontend)" {
		t.Errorf("frontend %+v", got["frontend"])
	}
	if got["etcd"].Verdict != Missing {
		t.Errorf("etcd %+v", got["etcd"])
	}
	a := got["agg"]
	if a.Verdict != Prohibited || len(a.Prohibited) != 1 || a.Prohibited[0].Setting != "env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE" ||
		a.Prohibited[0].Upstream != nil || *a.Prohibited[0].InferenceX != "1" {
		t.Errorf("agg %+v", a)
	}
	if Summary(rs) != Prohibited {
		t.Errorf("summary %s", Summary(rs))
	}
	// results come in role order
	var roles []string
	for _, r := range rs {
		roles = append(roles, r.Role)
	}
	if !reflect.DeepEqual(roles, []string{"agg", "frontend", "etcd"}) {
		t.Errorf("roles %v", roles)
	}
}

func TestTextDiff(t *testing.T) {
	a := `{"method":"mtp","num_speculative_tokens":3,"draft":"x"}`
	b := `{"method":"mtp","num_speculative_tokens":4,"draft":"x"}`
	if got, want := textDiff(&a, &b), `{"method":"mtp","num_speculative_tokens":[-3-]{+4+},"draft":"x"}`; got != want {
		t.Errorf("textDiff = %q, want %q", got, want)
	}
	s := "short"
	if textDiff(&s, &s) != "" {
		t.Error("short values get no diff")
	}
}

// srtctl starts etcd and NATS for every job; behind the SGLang router they
// are unused, so their absence from the cookbook is a harness exclusion.
// Behind Dynamo the same absence is a gap.
func TestCompareServicePresence(t *testing.T) {
	cb := cookbookAgg()
	cb.Processes = cb.Processes[2:]
	cb.Processes = append(cb.Processes, launch.Process{Kind: launch.KindSGLangRouter, Program: "python3 -m sglang_router.launch_router"})
	rc := recipeAgg()
	rc.Processes[1] = launch.Process{Kind: launch.KindSGLangRouter, Program: "python -m sglang_router.launch_router"}
	rc.Processes = append(rc.Processes, launch.Process{Kind: launch.KindNATS, Program: "/configs/nats-server"})
	got := run(t, cb, rc)
	for _, role := range []string{"etcd", "nats"} {
		r := got[role]
		if r.Verdict != CoveredWithExclusions || len(r.Excluded) != 1 || r.Excluded[0].Rule != "harness-etcd-nats-unused" || deref(r.Excluded[0].InferenceX) != "yes" {
			t.Errorf("%s: %+v", role, r)
		}
	}
	if got["frontend"].Verdict != Covered {
		t.Errorf("frontend: %+v", got["frontend"])
	}
	// behind Dynamo, etcd is needed
	cb2 := cookbookAgg()
	cb2.Processes = cb2.Processes[1:]
	if r := run(t, cb2, recipeAgg())["etcd"]; r.Verdict != Missing {
		t.Errorf("etcd behind dynamo: %+v", r)
	}
}

// vLLM's speculative-config carries the synthetic acceptance keys inside the
// JSON: they are split off and excluded, the rest is compared.
func TestCompareSpeculativeConfigSynthetic(t *testing.T) {
	mk := func(spec string) *launch.Deployment {
		return &launch.Deployment{Engine: "vllm", Model: "MiniMaxAI/MiniMax-M3", Processes: []launch.Process{{
			Kind: launch.KindWorker, Role: launch.RoleDecode, Program: "python3 -m dynamo.vllm",
			Args: []launch.Arg{{Flag: "--speculative-config", Values: []string{spec}}}}}}
	}
	cb := mk(`{"method": "mtp", "num_speculative_tokens": 3}`)
	rc := mk(`{"method":"mtp","num_speculative_tokens":3,"rejection_sample_method":"synthetic","synthetic_acceptance_length":2.7}`)
	got := run(t, cb, rc)["decode"]
	if got.Verdict != CoveredWithExclusions || len(got.Differences) != 0 {
		t.Fatalf("verdict %s, differences %+v", got.Verdict, got.Differences)
	}
	var ex []string
	for _, x := range got.Excluded {
		ex = append(ex, x.Setting+"="+deref(x.InferenceX)+" "+x.Rule)
	}
	want := []string{"--speculative-config.synthetic_acceptance_length=2.7 synthetic-vllm-acceptance-length",
		"--speculative-config.rejection_sample_method=synthetic synthetic-vllm-rejection-sampler"}
	if !reflect.DeepEqual(ex, want) {
		t.Errorf("excluded\n got %v\nwant %v", ex, want)
	}
	// a different draft length is still a difference
	rc2 := mk(`{"method":"mtp","num_speculative_tokens":4,"synthetic_acceptance_length":2.7}`)
	d := run(t, cb, rc2)["decode"]
	if d.Verdict != Differs || len(d.Differences) != 1 || d.Differences[0].Setting != "--speculative-config" ||
		*d.Differences[0].InferenceX != `{"method":"mtp","num_speculative_tokens":4}` {
		t.Errorf("num_speculative_tokens 3 vs 4: %s %+v", d.Verdict, d.Differences)
	}
}

// TestCompareStagedDraftModel: the draft "model" of --speculative-config
// compares like a model path: a local copy staged under the repository's
// name (InferenceX's hf download --local-dir …/<name>) equals the
// upstream id; a copy of a sibling repository, or another key that
// differs, is still a difference, shown with the id.
func TestCompareStagedDraftModel(t *testing.T) {
	mk := func(spec string) *launch.Deployment {
		return &launch.Deployment{Engine: "vllm", Model: "nvidia/MiniMax-M3-NVFP4", Processes: []launch.Process{{
			Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "vllm serve",
			Args: []launch.Arg{{Flag: "--speculative-config", Values: []string{spec}}}}}}
	}
	up := mk(`{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3-GQA", "num_speculative_tokens": 3}`)
	got := run(t, up, mk(`{"method":"eagle3","model":"/scratch/fsw/models/MiniMax-M3-EAGLE3-GQA","num_speculative_tokens":3}`))["agg"]
	if got.Verdict != Covered || got.Matched == 0 {
		t.Errorf("staged GQA draft: %s %+v", got.Verdict, got.Differences)
	}
	// the MHA head is another repository
	d := run(t, up, mk(`{"method":"eagle3","model":"/scratch/fsw/models/MiniMax-M3-EAGLE3","num_speculative_tokens":3}`))["agg"]
	if d.Verdict != Differs || len(d.Differences) != 1 || !strings.Contains(*d.Differences[0].InferenceX, "/scratch/fsw/models/MiniMax-M3-EAGLE3\"") {
		t.Errorf("staged MHA draft vs GQA: %s %+v", d.Verdict, d.Differences)
	}
	// same draft, other token count: the difference shows the id on both sides
	d = run(t, up, mk(`{"method":"eagle3","model":"/data/models/minimax-m3-eagle3-gqa","num_speculative_tokens":4}`))["agg"]
	if d.Verdict != Differs || len(d.Differences) != 1 ||
		*d.Differences[0].InferenceX != `{"method":"eagle3","model":"Inferact/MiniMax-M3-EAGLE3-GQA","num_speculative_tokens":4}` {
		t.Errorf("num_speculative_tokens 3 vs 4: %s %+v", d.Verdict, d.Differences)
	}
}

// TestCompareInheritedEnv: the env the harness gives every process
// (Deployment.Inherited) is compared like the process's own where no rule
// excludes it: a production setting the workflow sets (SGLANG_FOO_BAR)
// differs, workflow plumbing (PYTHONDONTWRITEBYTECODE, RESULT_DIR) neither
// differs nor crowds the report; a variable the process sets itself wins.
func TestCompareInheritedEnv(t *testing.T) {
	cb := cookbookAgg()
	rc := cookbookAgg()
	rc.Inherited = []launch.EnvVar{
		{Name: "SGLANG_FOO_BAR", Value: "1", Origin: launch.Origin{Kind: launch.OriginWorkflow, Path: ".github/workflows/benchmark-tmpl.yml:54"}},
		{Name: "PYTHONDONTWRITEBYTECODE", Value: "1", Origin: launch.Origin{Kind: launch.OriginWorkflow}},
		{Name: "RESULT_DIR", Value: "/workspace/results", Origin: launch.Origin{Kind: launch.OriginWorkflow}},
		{Name: "SGLANG_ENABLE_SPEC_V2", Value: "0", Origin: launch.Origin{Kind: launch.OriginWorkflow}},
	}
	a := run(t, cb, rc)["agg"]
	if a.Verdict != Differs || len(a.Differences) != 1 || a.Differences[0].Setting != "env SGLANG_FOO_BAR" || deref(a.Differences[0].InferenceX) != "1" {
		t.Fatalf("agg: %s %+v", a.Verdict, a.Differences)
	}
	if len(a.Differences[0].Origins) == 0 || a.Differences[0].Origins[len(a.Differences[0].Origins)-1].Kind != launch.OriginWorkflow {
		t.Errorf("origins %+v, want the workflow", a.Differences[0].Origins)
	}
	for _, x := range append(a.Excluded, a.Info...) {
		if strings.Contains(x.Setting, "PYTHONDONTWRITEBYTECODE") || strings.Contains(x.Setting, "RESULT_DIR") {
			t.Errorf("inherited plumbing listed: %+v", x)
		}
	}
	// The frontend (not a worker) inherits nothing here.
	if f := run(t, cb, rc)["frontend"]; f.Verdict != Covered {
		t.Errorf("frontend: %s %+v", f.Verdict, f.Differences)
	}
}

// TestUnknownSetting: an env var or flag the InferenceX script sets only on
// some machines (launch.EnvVar.Unknown, launch.Arg.Unknown) is never a
// match and never a difference, whatever the other side holds: the role is
// not verified, with the reason as the note.
func TestUnknownSetting(t *testing.T) {
	const why = "HSA_NO_SCRATCH_RECLAIM=1 when the MEC firmware is below 177 (176); unset when the MEC firmware is 177 or later (177)"
	for _, up := range []string{"1", "0", ""} {
		cb, rc := cookbookAgg(), cookbookAgg()
		w := &rc.Processes[2]
		w.Env = append(w.Env, launch.EnvVar{Name: "HSA_NO_SCRATCH_RECLAIM", Value: "1", Unknown: why})
		w.Args = append(w.Args, launch.Arg{Flag: "--max-running-requests", Values: []string{"64"}, Unknown: "only below 177"})
		if up != "" {
			c := &cb.Processes[2]
			c.Env = append(c.Env, launch.EnvVar{Name: "HSA_NO_SCRATCH_RECLAIM", Value: up})
			c.Args = append(c.Args, launch.Arg{Flag: "--max-running-requests", Values: []string{"64"}})
		}
		agg := run(t, cb, rc)["agg"]
		if agg.Verdict != ContentNotKnown || len(agg.Differences) != 0 {
			t.Errorf("upstream %q: verdict %s, differences %+v", up, agg.Verdict, agg.Differences)
		}
		notes := map[string]string{}
		for _, u := range agg.Unknown {
			notes[u.Setting] = u.Note
		}
		if notes["env HSA_NO_SCRATCH_RECLAIM"] != why || notes["--max-running-requests"] != "only below 177" || len(agg.Unknown) != 2 {
			t.Errorf("upstream %q: unknown %+v", up, agg.Unknown)
		}
		// Everything else still matches: the same count as without them.
		base := run(t, cookbookAgg(), cookbookAgg())["agg"]
		if agg.Matched != base.Matched {
			t.Errorf("upstream %q: matched %d, want %d", up, agg.Matched, base.Matched)
		}
	}
}
