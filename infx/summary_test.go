package infx

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TestRenderAllPerKey: RenderAll lists every config key of the old-layout
// fixture with its counts and each point's outcome, as the fixture's
// master configs define them.
func TestRenderAllPerKey(t *testing.T) {
	t.Parallel() // seconds of sandboxed script steps: alongside the others
	ws := openOld(t)
	s, err := ws.RenderAll(context.Background(), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.ConfigKeys) != 10 {
		t.Fatalf("configKeys = %d, want 10", len(s.ConfigKeys))
	}
	by := map[string]KeySummary{}
	for _, k := range s.ConfigKeys {
		by[k.ConfigKey] = k
	}
	// dsr1-fp4-gb200-dynamo-sglang: rows 0 (conc 4, 8), 1 (64), 2 (128)
	// are in the checkout; row 3 (256, 512) names recipes/gb200-fp4/8k1k.yaml,
	// which lives only in NVIDIA/srt-slurm.
	k := by["dsr1-fp4-gb200-dynamo-sglang"]
	if k.Framework != "dynamo-sglang" || !k.InScope || k.Points != 6 || k.Rendered != 4 || k.UpstreamOnly != 2 || len(k.Results) != 6 {
		t.Fatalf("dsr1-fp4-gb200-dynamo-sglang = %+v", k)
	}
	r := k.Results[4]
	if r.ConfigKey != "dsr1-fp4-gb200-dynamo-sglang" || r.Row != 3 || r.Concurrency != 256 || r.Status != OutcomeUpstreamOnly || r.Recipe != "recipes/gb200-fp4/8k1k.yaml" ||
		r.Selector != "override_stp_tp4" || !strings.Contains(r.Reason, "NVIDIA/srt-slurm") || r.Pos.Line == 0 {
		t.Errorf("row 3 conc 256 = %+v", r)
	}
	r = k.Results[3]
	if r.Row != 2 || r.Concurrency != 128 || r.Status != OutcomeRendered || r.Selector != "override_maxtpt" || r.Reason != "" ||
		r.File != "benchmarks/multi_node/srt-slurm-recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml" {
		t.Errorf("row 2 conc 128 = %+v", r)
	}
	// The endless-loop script is unsupported, with its file:line:col.
	k = by["loop-fp8-h200-sglang"]
	if k.Unsupported != 1 || len(k.Results) != 1 || k.Results[0].Status != OutcomeUnsupported ||
		!strings.Contains(k.Results[0].Reason, "loop_fp8_h200_sglang.sh:3:7: ") {
		t.Errorf("loop-fp8-h200-sglang = %+v", k)
	}
	// TRT-LLM is outside Check 3 (not rendered); AMD sglang-disagg is
	// unsupported.
	if k := by["dsr1-fp4-b200-trt"]; k.InScope || k.Rendered != 0 || k.OutOfScope != 1 || k.Results[0].Status != OutcomeOutOfScope || k.Framework != "trt" {
		t.Errorf("dsr1-fp4-b200-trt = %+v", k)
	}
	if k := by["qwen3.5-fp8-mi355x-sglang-disagg"]; k.Unsupported != 2 || k.Results[1].Concurrency != 16 || !strings.Contains(k.Results[1].Reason, "what submits the batch job") {
		t.Errorf("qwen3.5-fp8-mi355x-sglang-disagg = %+v", k)
	}
	sum := 0
	for _, k := range s.ConfigKeys {
		sum += k.Points
	}
	if sum != s.Points {
		t.Errorf("per-key points add up to %d, total %d", sum, s.Points)
	}
}

// TestServedNameOrigin: the fixture recipe sets served-model-name
// deepseek-ai/DeepSeek-R1 for prefill and decode; srt-slurm drops it and
// injects --served-model-name with that value (spec srt-slurm.md §4.1),
// which the injected arg's origin says. The etcd/nats services carry no
// such note.
func TestServedNameOrigin(t *testing.T) {
	ws := openOld(t)
	d := renderOne(t, ws, pointAt(t, ws, "dsr1-fp4-gb200-dynamo-sglang", 0, 4), Options{})
	workers := 0
	for _, p := range d.Processes {
		for _, a := range p.Args {
			if a.Flag != "--served-model-name" {
				continue
			}
			workers++
			if a.Origin.Kind != launch.OriginInjected || a.Values[0] != "deepseek-ai/DeepSeek-R1" ||
				a.Origin.Detail != "srt-slurm v1.0.68; "+ServedNameReplaces {
				t.Errorf("%s %s: %+v", p.Role, p.Kind, a)
			}
		}
	}
	if workers != 2 {
		t.Errorf("--served-model-name on %d processes, want 2 (prefill, decode)", workers)
	}
	// sa-submission keeps the recipe's key: it comes back as a recipe flag.
	d = renderOne(t, ws, pointAt(t, ws, "dsr1-fp4-gb200-dynamo-sglang", 0, 4), Options{SrtSlurmVersion: "sa-submission-q2-2026"})
	for _, p := range d.Processes {
		if p.Kind != launch.KindWorker {
			continue
		}
		var kinds []string
		for _, a := range p.Args {
			if a.Flag == "--served-model-name" {
				kinds = append(kinds, string(a.Origin.Kind))
				if a.Origin.Kind == launch.OriginInjected && !strings.HasSuffix(a.Origin.Detail, ServedNameKept) {
					t.Errorf("sa-submission %s: %+v", p.Role, a)
				}
			}
		}
		if strings.Join(kinds, ",") != "injected,recipe" {
			t.Errorf("sa-submission %s: --served-model-name origins %v", p.Role, kinds)
		}
	}
}

// TestRenderRecipeNeedsSelector: a bundle named without a selector lists
// base with its variants, as srtslurm's unknown-selector error does.
func TestRenderRecipeNeedsSelector(t *testing.T) {
	ws := openOld(t)
	_, err := RenderRecipe(ws, "recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml", Options{})
	if err == nil || !strings.Contains(err.Error(), "(base, override_maxtpt, zip_override_lowlat[0], zip_override_lowlat[1])") {
		t.Errorf("err = %v", err)
	}
	if _, err := RenderRecipe(ws, "recipes/sglang/dsr1/gb200-fp4/8k1k/variants.yaml:base", Options{}); err != nil {
		t.Errorf("base: %v", err)
	}
}

// TestRenderAllCancel: a context cancelled while RenderAll streams its
// script points ends it with context.Canceled (the points not started
// are not waited for).
func TestRenderAllCancel(t *testing.T) {
	ws, err := Open("testdata/launch")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := 0
	_, err = ws.RenderAll(ctx, nil, Options{OnPoint: func(PointResult, *launch.Deployment) {
		seen++
		cancel()
	}})
	if !errors.Is(err, context.Canceled) || seen == 0 {
		t.Errorf("RenderAll after cancel: %v (%d points seen), want context.Canceled", err, seen)
	}
}
