package compare

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

var injected = launch.Origin{Kind: launch.OriginInjected, Detail: "srt-slurm v1.0.68"}

// dynamoNoNATS is a cookbook Dynamo agg deployment without NATS (the
// qwen3.5-fp8 b300/b200 disagg cells run --router-mode kv with etcd only).
func dynamoNoNATS() *launch.Deployment {
	return cookbookAgg()
}

// dynamoWithNATS is the recipe side as srt-slurm renders it: etcd and NATS
// injected (setup_head.py), NATS_SERVER / DYN_REQUEST_PLANE=tcp injected
// into every worker and frontend.
func dynamoWithNATS() *launch.Deployment {
	rc := recipeAgg()
	rc.Processes[0].Origin = injected
	rc.Processes = append(rc.Processes, launch.Process{Kind: launch.KindNATS, Program: "/configs/nats-server",
		Args: []launch.Arg{{Flag: "-js", Origin: injected}, {Flag: "-sd", Values: []string{"/tmp/nats"}, Origin: injected}}, Origin: injected})
	w := &rc.Processes[2]
	w.Env = append(w.Env, launch.EnvVar{Name: "NATS_SERVER", Value: "nats://node0:4222", Origin: injected},
		launch.EnvVar{Name: "DYN_REQUEST_PLANE", Value: "tcp", Origin: injected})
	return rc
}

// NATS that srt-slurm starts for every job, used by nothing: informational.
func TestLauncherNATSUnused(t *testing.T) {
	got := run(t, dynamoNoNATS(), dynamoWithNATS())["nats"]
	if got.Verdict != CoveredWithExclusions || len(got.Info) != 1 || len(got.Excluded) != 0 {
		t.Fatalf("nats: %+v", got)
	}
	i := got.Info[0]
	if i.Rule != "launcher-nats-unused" || i.Class != "judgment" || i.Setting != "present" || deref(i.InferenceX) != "yes" ||
		i.Upstream != nil || i.Policy != "prompt-09813166" || !strings.Contains(i.Reason, "regardless of the recipe") {
		t.Errorf("nats info: %+v", i)
	}
	if got.Note != "nats: only in the InferenceX recipe (/configs/nats-server)" {
		t.Errorf("note %q", got.Note)
	}
}

// NATS that a process uses stays missing, and the note says which setting
// needs it.
func TestLauncherNATSNeeded(t *testing.T) {
	recipe := launch.Origin{Kind: launch.OriginRecipe, Path: "backend.aggregated_environment.NATS_SERVER"}
	cases := []struct {
		name string
		edit func(cb, rc *launch.Deployment)
		want string
	}{
		// dynamo.request_plane: nats (sa-submission's default): injected,
		// but the workers then talk over NATS.
		{"request plane env", func(_, rc *launch.Deployment) { setEnv(&rc.Processes[2], "DYN_REQUEST_PLANE", "nats", injected) },
			"recipe agg env DYN_REQUEST_PLANE=nats"},
		{"request plane flag", func(_, rc *launch.Deployment) {
			rc.Processes[2].Args = append(rc.Processes[2].Args, launch.Arg{Flag: "--request-plane=nats", Origin: injected})
		}, "recipe agg --request-plane nats"},
		{"event plane", func(_, rc *launch.Deployment) { setEnv(&rc.Processes[1], "DYN_EVENT_PLANE", "nats", injected) },
			"recipe frontend env DYN_EVENT_PLANE=nats"},
		{"NATS_SERVER set by the recipe", func(_, rc *launch.Deployment) {
			setEnv(&rc.Processes[2], "NATS_SERVER", "nats://nats.example:4222", recipe)
		}, "recipe agg env NATS_SERVER=nats://nats.example:4222"},
		{"KV events over NATS", func(_, rc *launch.Deployment) {
			rc.Processes[2].Args = append(rc.Processes[2].Args, launch.Arg{Flag: "--kv-events-config",
				Values: []string{`{"publisher": "nats", "endpoint": "nats://node0:4222"}`}, Origin: recipe})
		}, `recipe agg --kv-events-config {"publisher": "nats", "endpoint": "nats://node0:4222"}`},
		{"cookbook worker on the NATS request plane", func(cb, _ *launch.Deployment) {
			setEnv(&cb.Processes[2], "DYN_REQUEST_PLANE", "nats", launch.Origin{Kind: launch.OriginCookbook})
		}, "cookbook agg env DYN_REQUEST_PLANE=nats"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cb, rc := dynamoNoNATS(), dynamoWithNATS()
			c.edit(cb, rc)
			got := run(t, cb, rc)["nats"]
			if got.Verdict != Missing || len(got.Info) != 0 {
				t.Fatalf("nats: %+v", got)
			}
			want := "nats: only in the InferenceX recipe (/configs/nats-server); started by the launcher but needed: " + c.want
			if got.Note != want {
				t.Errorf("note\n got %q\nwant %q", got.Note, want)
			}
		})
	}
	// A NATS process the recipe (or a script) starts itself is not launcher
	// plumbing: the rule does not apply.
	rc := dynamoWithNATS()
	rc.Processes[3].Origin = launch.Origin{Kind: launch.OriginScript, Path: "run.sh:12"}
	if got := run(t, dynamoNoNATS(), rc)["nats"]; got.Verdict != Missing || got.Note != "nats: only in the InferenceX recipe (/configs/nats-server)" {
		t.Errorf("script-started nats: %+v", got)
	}
}

func setEnv(p *launch.Process, name, value string, o launch.Origin) {
	for i := range p.Env {
		if p.Env[i].Name == name {
			p.Env[i].Value, p.Env[i].Origin = value, o
			return
		}
	}
	p.Env = append(p.Env, launch.EnvVar{Name: name, Value: value, Origin: o})
}

// singleWorkerCookbook is a qwen3.5 sglang-submitted single-node cell: one
// agg worker serving on port 30000, no router block (agentx-format.md,
// "Roles and processes per router").
func singleWorkerCookbook() *launch.Deployment {
	return &launch.Deployment{Engine: "sglang", Model: "Qwen/Qwen3.5-397B-A17B-FP8", Processes: []launch.Process{{
		Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "python3 -m sglang.launch_server",
		Args: args("--model-path", "Qwen/Qwen3.5-397B-A17B-FP8", "--host", "0.0.0.0", "--port", "30000",
			"--tensor-parallel-size", "8", "--attention-backend", "trtllm_mha", "--trust-remote-code")}}}
}

// srt-slurm's SGLang router in front of one agg worker (rendered from a
// fixture recipe by package infx/srtslurm) with no router in the cookbook:
// informational; with a production-useful recipe setting on the router, or
// in front of two workers, it is still missing.
func TestLauncherRouterSingleWorker(t *testing.T) {
	rc, err := RenderSrtSlurm(filepath.Join("testdata", "launcher", "agg-sglang-router.yaml"), "", "Qwen/Qwen3.5-397B-A17B-FP8")
	if err != nil {
		t.Fatal(err)
	}
	got := run(t, singleWorkerCookbook(), rc)
	fe := got["frontend"]
	if fe.Verdict != CoveredWithExclusions || len(fe.Info) != 1 || fe.Info[0].Rule != "launcher-router-single-worker" ||
		fe.Info[0].Class != "judgment" || deref(fe.Info[0].InferenceX) != "yes" {
		t.Fatalf("frontend: %+v", fe)
	}
	if fe.Note != "frontend: only in the InferenceX recipe (python -m sglang_router.launch_router)" {
		t.Errorf("note %q", fe.Note)
	}
	// etcd and NATS behind the SGLang router: the existing harness rule.
	for _, role := range []string{"etcd", "nats"} {
		if r := got[role]; r.Verdict != CoveredWithExclusions || len(r.Excluded) != 1 || r.Excluded[0].Rule != "harness-etcd-nats-unused" {
			t.Errorf("%s: %+v", role, r)
		}
	}
	if a := got["agg"]; a.Verdict != CoveredWithExclusions || len(a.Differences) != 0 {
		t.Errorf("agg: %s %+v", a.Verdict, a.Differences)
	}
	if Summary(mapValues(got)) != CoveredWithExclusions {
		t.Errorf("summary %s", Summary(mapValues(got)))
	}

	feIndex := func(d *launch.Deployment) int {
		for i := range d.Processes {
			if d.Processes[i].Kind.IsFrontend() {
				return i
			}
		}
		t.Fatal("no frontend")
		return -1
	}
	// frontend.args: {tool-call-parser: qwen3_coder} — a recipe setting no
	// exclusion rule classifies: the router matters.
	rc2, _ := RenderSrtSlurm(filepath.Join("testdata", "launcher", "agg-sglang-router.yaml"), "", "Qwen/Qwen3.5-397B-A17B-FP8")
	i := feIndex(rc2)
	rc2.Processes[i].Args = append(rc2.Processes[i].Args, launch.Arg{Flag: "--tool-call-parser", Values: []string{"qwen3_coder"},
		Origin: launch.Origin{Kind: launch.OriginRecipe, Path: "frontend.args.tool-call-parser"}})
	if fe := run(t, singleWorkerCookbook(), rc2)["frontend"]; fe.Verdict != Missing ||
		fe.Note != "frontend: only in the InferenceX recipe (python -m sglang_router.launch_router); started by the launcher but needed: recipe sets --tool-call-parser qwen3_coder on it" {
		t.Errorf("router with a recipe arg: %+v", fe)
	}
	// frontend.args: {worker-startup-timeout-secs: 3600} — a robustness
	// timeout (judgment): still launcher plumbing.
	rc3, _ := RenderSrtSlurm(filepath.Join("testdata", "launcher", "agg-sglang-router.yaml"), "", "Qwen/Qwen3.5-397B-A17B-FP8")
	i = feIndex(rc3)
	rc3.Processes[i].Args = append(rc3.Processes[i].Args, launch.Arg{Flag: "--worker-startup-timeout-secs", Values: []string{"3600"},
		Origin: launch.Origin{Kind: launch.OriginRecipe, Path: "frontend.args.worker-startup-timeout-secs"}})
	if fe := run(t, singleWorkerCookbook(), rc3)["frontend"]; fe.Verdict != CoveredWithExclusions {
		t.Errorf("router with a startup timeout: %+v", fe)
	}
	// two agg workers: the router balances load, it is a real role.
	rc4, _ := RenderSrtSlurm(filepath.Join("testdata", "launcher", "agg-sglang-router.yaml"), "", "Qwen/Qwen3.5-397B-A17B-FP8")
	for j := range rc4.Processes {
		if rc4.Processes[j].Kind == launch.KindWorker {
			rc4.Processes[j].Workers = 2
		}
	}
	if fe := run(t, singleWorkerCookbook(), rc4)["frontend"]; fe.Verdict != Missing {
		t.Errorf("router in front of two workers: %+v", fe)
	}
	// a Dynamo frontend is not a pass-through (tokenization, parsers, KV
	// routing): the rule covers the SGLang router only.
	if fe := run(t, singleWorkerCookbook(), recipeAgg())["frontend"]; fe.Verdict != Missing {
		t.Errorf("dynamo frontend: %+v", fe)
	}
}

func mapValues(m map[string]Result) []Result {
	var out []Result
	for _, r := range m {
		out = append(out, r)
	}
	return out
}

func TestParseLauncherRulesErrors(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"launcherProcesses: [{id: x, role: nats, reason: r, policy: p}]", "origins are required"},
		{"launcherProcesses: [{id: x, role: nats, reason: r, policy: p, origins: [injected], neededBy: [{value: nats}]}]", "want exactly one of flag and env"},
		{"launcherProcesses: [{id: x, role: nats, reason: r, policy: p, origins: [injected], bogus: 1}]", "field bogus not found"},
		{"launcherProcesses:\n  - {id: x, role: nats, reason: r, policy: p, origins: [injected]}\n  - {id: x, role: etcd, reason: r, policy: p, origins: [injected]}", "duplicate id"},
	} {
		_, err := ParseLauncherRules("t.yaml", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.data, err, c.want)
		}
	}
	lr, err := ParseLauncherRules("t.yaml", []byte("launcherProcesses: [{id: x, role: nats, reason: r, policy: nope, origins: [injected]}]"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compare(dynamoNoNATS(), dynamoWithNATS(), Options{Launcher: lr}); err == nil || !strings.Contains(err.Error(), `unknown policy "nope"`) {
		t.Errorf("unknown policy: %v", err)
	}
}

// RenderSrtSlurm renders an srt-slurm recipe variant as package coverage
// does (srtslurm.Recipe.RenderModel).
func RenderSrtSlurm(path, selector, model string) (*launch.Deployment, error) {
	r, err := srtslurm.Load(path)
	if err != nil {
		return nil, err
	}
	return r.RenderModel(selector, model)
}
