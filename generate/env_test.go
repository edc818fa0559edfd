package generate

import (
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TestGenerateDropsHarnessEnv: env the InferenceX harness puts into a
// single-node server (model staging, GPU-metrics collection, the workflow's
// bytecode setting) never reaches a generated block, for either router; the
// engine's own setting does (issue 8 item 1).
func TestGenerateDropsHarnessEnv(t *testing.T) {
	ex, err := exclusions.Default()
	if err != nil {
		t.Fatal(err)
	}
	origin := launch.Origin{Kind: launch.OriginScript, Path: "benchmarks/single_node/agentic/qwen3.5_fp8_b200_sglang_mtp.sh:40"}
	d := launch.Deployment{Engine: "sglang", Model: "Qwen/Qwen3.5-397B-A17B-FP8", Processes: []launch.Process{{
		Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "python3 -m sglang.launch_server", GPUsPerNode: 8,
		Args: []launch.Arg{
			{Flag: "--model-path", Values: []string{"/lustre/fsw/models/Qwen3.5-397B-A17B-FP8"}},
			{Flag: "--tp", Values: []string{"8"}},
			{Flag: "--port", Values: []string{"8888"}},
		},
		Env: []launch.EnvVar{
			{Name: "MODEL_PATH", Value: "/lustre/fsw/models/Qwen3.5-397B-A17B-FP8", Origin: origin},
			{Name: "GPU_METRICS_CSV", Value: "gpu_metrics.csv", Origin: origin},
			{Name: "PYTHONDONTWRITEBYTECODE", Value: "1", Origin: origin},
			{Name: "SGLANG_ENABLE_SPEC_V2", Value: "1", Origin: origin},
		},
		Origin: origin,
	}}}
	sh, err := shapeOf(&d, ex)
	if err != nil {
		t.Fatal(err)
	}
	if len(sh.workers) != 1 {
		t.Fatalf("%d workers, want 1", len(sh.workers))
	}
	want := []launch.EnvVar{{Name: "SGLANG_ENABLE_SPEC_V2", Value: "1"}}
	if !slices.Equal(sh.workers[0].env, want) {
		t.Errorf("kept env %v, want %v", sh.workers[0].env, want)
	}
	for _, w := range []string{
		"agg: env MODEL_PATH (harness, read by model-staging: ",
		"agg: env GPU_METRICS_CSV (collection, read by workflow: ",
		"agg: env PYTHONDONTWRITEBYTECODE (harness, read by workflow: ",
	} {
		if !slices.ContainsFunc(sh.dropped, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("dropped lacks %q: %q", w, sh.dropped)
		}
	}
	for r, bs := range routerBlocks(sh) {
		found := false
		for _, b := range bs {
			if b.Kind != "worker" {
				continue
			}
			found = true
			var names []string
			for _, e := range b.Env {
				names = append(names, e.Name+"="+e.Value)
			}
			wantEnv := []string{"SGLANG_ENABLE_SPEC_V2=1"}
			if r == "dynamo" {
				// the cookbook's own Dynamo plumbing, not the recipe's
				wantEnv = []string{"DYN_REQUEST_PLANE=tcp", "ETCD_ENDPOINTS=http://$ETCD_IP:2379", "SGLANG_ENABLE_SPEC_V2=1"}
			}
			if !slices.Equal(names, wantEnv) {
				t.Errorf("%s worker env %v, want %v", r, names, wantEnv)
			}
			if slices.ContainsFunc(b.Args, func(a []string) bool { return slices.Contains(a, "/lustre/fsw/models/Qwen3.5-397B-A17B-FP8") }) {
				t.Errorf("%s worker args carry the staged model path: %v", r, b.Args)
			}
		}
		if !found {
			t.Errorf("%s: no worker block", r)
		}
	}
}
