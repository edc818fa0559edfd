package generate

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

const fixtureMain = "0123456789abcdef0123456789abcdef01234567"

func fixtureOptions() Options {
	return Options{
		Model: "qwen9", GeneratedOn: "2026-11-30",
		Source: cookbook.SyncSource{Main: fixtureMain, PRs: map[string]cookbook.SyncPR{"4242": {SHA: "89abcdef0123456789abcdef0123456789abcdef", Status: "in-progress"}}},
	}
}

func openFixture(t *testing.T, name string) *infx.Workspace {
	t.Helper()
	ws, err := infx.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func generateFixture(t *testing.T, opt Options) (*Result, *cookbook.File) {
	t.Helper()
	g, err := Run(t.Context(), openFixture(t, "ok"), opt)
	if err != nil {
		t.Fatal(err)
	}
	f, err := cookbook.Parse("generated.jsx", g.Bytes)
	if err != nil {
		t.Fatalf("generated file does not parse: %v", err)
	}
	return g, f
}

// blockText decodes a selection and returns the text of its first block of
// kind/role.
func blockText(t *testing.T, f *cookbook.File, cell int, router, kind, role string) string {
	t.Helper()
	d, err := f.Decode(cookbook.Selection{Cell: cell, Point: 0, Router: router, KV: f.Cells[cell].Points[0].KV})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range d.Blocks {
		if b.Kind == kind && b.Role == role {
			return b.Text
		}
	}
	t.Fatalf("cell %d router %s: no %s/%s block", cell, router, kind, role)
	return ""
}

// TestGenerateFixture checks cells, labels, points, routers, placeholders
// and provenance on testdata/generate/ok (a made-up model "qwen9": a Dynamo
// 1P1D / 2P1D key and an SGLang-router agg key on one and two nodes).
func TestGenerateFixture(t *testing.T) {
	g, f := generateFixture(t, fixtureOptions())
	type want struct{ id, label, submitted string }
	wants := []want{
		{"qwen9-fp4-gb300-sglang-agentic-agg#0", "Agg TP4", "sglang"},
		{"qwen9-fp4-gb300-sglang-agentic-agg#1", "Agg TP8 (2 nodes)", "sglang"},
		{"qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#0", "Disagg 1P1D · prefill TP4 · decode TP4", "dynamo"},
		{"qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#1", "Disagg 2P1D · prefill TP4 · decode TP4", "dynamo"},
	}
	if len(f.Cells) != len(wants) {
		t.Fatalf("%d cells, want %d", len(f.Cells), len(wants))
	}
	for i, w := range wants {
		c := &f.Cells[i]
		if c.ID != w.id || c.Label != w.label || c.Submitted != w.submitted {
			t.Errorf("cell %d = %s %q %s, want %s %q %s", i, c.ID, c.Label, c.Submitted, w.id, w.label, w.submitted)
		}
		if len(c.Routers) != 2 {
			t.Errorf("cell %d: routers %v, want sglang and dynamo", i, slices.Sorted(maps.Keys(c.Routers)))
		}
	}
	if got := f.Cells[2].Points[0].Concs; !slices.Equal(got, []int{8, 16}) {
		t.Errorf("1P1D point 0 concs %v, want [8 16] (same launch)", got)
	}
	if d := f.Cells[2].Detail; d != "MTP 3-1-4" {
		t.Errorf("1P1D detail %q, want %q", d, "MTP 3-1-4")
	}
	if d := f.Cells[0].Detail; d != "no spec" {
		t.Errorf("agg detail %q, want %q", d, "no spec")
	}
	if !slices.Equal(f.Cells[2].Disclosures, []string{"synthetic-acceptance"}) {
		t.Errorf("disagg disclosures %v, want [synthetic-acceptance] (SGLANG_SIMULATE_ACC_LEN was dropped)", f.Cells[2].Disclosures)
	}
	if h := f.Cells[2].KV.HiCache; h == nil || !slices.EqualFunc(h.Args, cookbook.Args{{"--enable-hierarchical-cache"}, {"--hicache-ratio", "0.9"}}, slices.Equal[[]string]) {
		t.Errorf("hicache settings %+v, want the prefill's --enable-hierarchical-cache --hicache-ratio 0.9 (no --hicache-size)", h)
	}
	if got := f.Cells[2].Points[0].KV; got != "hicache" {
		t.Errorf("1P1D measured kv %q, want hicache", got)
	}
	if got := f.Cells[0].Points[0].KV; got != "none" {
		t.Errorf("agg measured kv %q, want none", got)
	}
	if p := f.Cells[2].Prov; p == nil || p.PR != "4242" || p.SHA != "89abcdef0123456789abcdef0123456789abcdef" || p.Status != "in-progress" {
		t.Errorf("prov %+v, want the only PR, its sha, in-progress", p)
	}
	if f.Source.Main != fixtureMain || len(f.Header) != 3 || !strings.Contains(f.Header[2], "main@0123456789ab plus open PRs #4242") {
		t.Errorf("source/header: %q %q", f.Source.Main, f.Header)
	}
	// Dynamo prefill worker of the measured 2P1D cell.
	pre := blockText(t, f, 3, "dynamo", "worker", "prefill")
	for _, s := range []string{
		"DYN_REQUEST_PLANE=tcp \\", `ETCD_ENDPOINTS="http://$ETCD_IP:2379" \`,
		"python3 -m dynamo.sglang \\\n  --model-path example/Qwen9-FP4 \\\n  --served-model-name example/Qwen9-FP4 \\\n  --host 0.0.0.0 \\\n  --port 30000 \\\n  --disaggregation-mode prefill \\\n  --disaggregation-bootstrap-port 8998 \\\n  --request-plane tcp \\",
		"  --tensor-parallel-size 4 \\", "  --watchdog-timeout 1000000",
	} {
		if !strings.Contains(pre, s) {
			t.Errorf("2P1D dynamo prefill lacks %q:\n%s", s, pre)
		}
	}
	// Schema 2 with the default tcp request plane: nothing rides on NATS,
	// so srtctl 2.x starts none and injects no NATS_SERVER
	// (shared/spec/srt-slurm.md §10b).
	if strings.Contains(pre, "NATS_SERVER") {
		t.Errorf("2P1D dynamo prefill has NATS_SERVER:\n%s", pre)
	}
	// Derived sglang router of the same cell.
	rt := blockText(t, f, 3, "sglang", "sglang-router", "")
	wantRT := "python3 -m sglang_router.launch_router \\\n  --decode \"http://$DECODE_0_HEAD_IP:30000\" \\\n  --prefill \"http://$PREFILL_1_HEAD_IP:30000\" 8998 \\\n  --prefill \"http://$PREFILL_0_HEAD_IP:30000\" 8998 \\\n  --pd-disaggregation \\\n  --host 0.0.0.0 \\\n  --port 8000 \\\n  --policy cache_aware"
	if rt != wantRT {
		t.Errorf("derived sglang router:\n%s\nwant:\n%s", rt, wantRT)
	}
	sp := blockText(t, f, 3, "sglang", "worker", "prefill")
	if !strings.Contains(sp, "python3 -m sglang.launch_server \\") || !strings.Contains(sp, "  --skip-server-warmup \\") ||
		strings.Contains(sp, "--request-plane") || strings.Contains(sp, "DYN_") || strings.Contains(sp, "ETCD_ENDPOINTS") {
		t.Errorf("derived sglang prefill worker:\n%s", sp)
	}
	// Multi-node agg worker.
	agg := blockText(t, f, 1, "sglang", "worker", "agg")
	for _, s := range []string{`  --dist-init-addr "$AGG_HEAD_IP:20000" \`, "  --nnodes 2 \\", `  --node-rank "$NODE_RANK" \`} {
		if !strings.Contains(agg, s) {
			t.Errorf("2-node agg worker lacks %q:\n%s", s, agg)
		}
	}
	if rt := blockText(t, f, 0, "sglang", "sglang-router", ""); !strings.HasSuffix(rt, "--worker-urls http://127.0.0.1:30000") {
		t.Errorf("single-node agg router:\n%s", rt)
	}
	// Derived dynamo router of an sglang-submitted cell: etcd + frontend, no NATS.
	d, err := f.Decode(cookbook.Selection{Cell: 0, Router: "dynamo", KV: "none"})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, b := range d.Blocks {
		kinds = append(kinds, b.Kind)
	}
	if !slices.Equal(kinds, []string{"etcd", "dynamo-frontend", "worker"}) {
		t.Errorf("derived dynamo blocks %v, want [etcd dynamo-frontend worker]", kinds)
	}
	if len(g.Skipped) != 0 {
		t.Errorf("skipped %v", g.Skipped)
	}
	// Compressed form: the prefill and decode workers of the first Dynamo
	// cell share one env (envs[0] + envRef), the other router is stored as
	// `from` deltas and later cells `ref` earlier ones.
	if len(f.Envs) != 1 || !slices.Equal(f.Envs[0], cookbook.Env{{Name: "DYN_REQUEST_PLANE", Value: "tcp"}, {Name: "ETCD_ENDPOINTS", Value: "http://$ETCD_IP:2379"}, {Name: "SGLANG_ENABLE_SPEC_V2", Value: "1"}}) {
		t.Errorf("envs %v", f.Envs)
	}
	for _, s := range []string{`"envRef": 0`, `"from": `, `"ref": [`} {
		if !bytes.Contains(g.Bytes, []byte(s)) {
			t.Errorf("output has no %s", s)
		}
	}
}

// TestGenerateExclusions: harness-only and collection settings of the
// recipes and of srt-slurm's injection never reach the output, and no
// literal host does either.
func TestGenerateExclusions(t *testing.T) {
	g, f := generateFixture(t, fixtureOptions())
	banned := []string{"--enable-metrics", "--log-level", "--nccl-port", "--dump-config-to", "NO_COLOR", "SGLANG_SIMULATE_ACC",
		"HEAD_NODE_IP", "DYN_SYSTEM_PORT", "DYN_LOG", "/model", "10.0.0.", "node0", "6100"}
	for _, b := range banned {
		if bytes.Contains(g.Bytes, []byte(b)) {
			t.Errorf("output contains %q", b)
		}
	}
	for _, s := range f.Selections() {
		d, err := f.Decode(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range banned {
			if strings.Contains(d.CopyAll, b) {
				t.Errorf("%+v: decoded text contains %q", s, b)
			}
		}
	}
	if !slices.ContainsFunc(g.Dropped, func(s string) bool { return strings.Contains(s, "agg: --enable-metrics (collection:") }) {
		t.Errorf("Dropped does not list --enable-metrics: %v", g.Dropped)
	}
}

// TestGenerateDeterministic: two runs on freshly opened workspaces give the
// same bytes.
func TestGenerateDeterministic(t *testing.T) {
	a, _ := generateFixture(t, fixtureOptions())
	b, _ := generateFixture(t, fixtureOptions())
	if !bytes.Equal(a.Bytes, b.Bytes) {
		t.Fatalf("two runs differ: %s", lineDiff(b.Bytes, a.Bytes))
	}
}

// TestGenerateRefusesBadEncoding: when the encoded bytes do not decode back
// to the generated commands (a flag value changed, a block dropped, broken
// JSON), Run returns ErrVerify and no bytes.
func TestGenerateRefusesBadEncoding(t *testing.T) {
	for name, tamper := range map[string]func([]byte) []byte{
		"value": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`["--quantization", "modelopt_fp4"]`), []byte(`["--quantization", "fp8"]`), 1)
		},
		"env": func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"SGLANG_ENABLE_SPEC_V2": "1"`), []byte(`"SGLANG_ENABLE_SPEC_V2": "0"`), 1)
		},
		"syntax": func(b []byte) []byte { return bytes.Replace(b, []byte(`"cells": [`), []byte(`"cells": [,`), 1) },
	} {
		t.Run(name, func(t *testing.T) {
			opt := fixtureOptions()
			called := false
			opt.tamper = func(b []byte) []byte {
				called = true
				out := tamper(b)
				if bytes.Equal(out, b) {
					t.Fatal("tamper changed nothing")
				}
				return out
			}
			g, err := Run(t.Context(), openFixture(t, "ok"), opt)
			if !called {
				t.Fatal("tamper hook not called")
			}
			if !errors.Is(err, ErrVerify) || g != nil {
				t.Fatalf("got %v, %v; want ErrVerify and nothing", g, err)
			}
		})
	}
}

// TestGenerateProhibited: a prohibited setting (Check 13) makes Run
// refuse.
func TestGenerateProhibited(t *testing.T) {
	_, err := Run(t.Context(), openFixture(t, "prohibited"), fixtureOptions())
	if err == nil || !strings.Contains(err.Error(), "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE is prohibited") {
		t.Fatalf("err = %v, want a prohibited-setting refusal", err)
	}
}

// TestGeneratePrevious: with a previous file, its cell order and ids are
// kept; cells it does not know follow.
func TestGeneratePrevious(t *testing.T) {
	_, f := generateFixture(t, fixtureOptions())
	prev := f.Data
	prev.Cells = slices.Clone(prev.Cells)
	// Previous upstream: only the two disagg cells, in reverse order, with
	// ids of its own.
	prev.Cells = []cookbook.Cell{prev.Cells[3], prev.Cells[2]}
	prev.Cells[0].ID = "qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#1@old"
	for i := range prev.Cells {
		prev.Cells[i].Routers = map[string]cookbook.Router{}
		full := f.FullBlocks([]int{3, 2}[i], 0)
		for r, rt := range f.Cells[[]int{3, 2}[i]].Routers {
			rt.Blocks = full[r]
			prev.Cells[i].Routers[r] = rt
		}
		for j := range prev.Cells[i].Points {
			prev.Cells[i].Points[j].Patch = nil
		}
	}
	b, err := cookbook.Encode(&prev)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := cookbook.Parse("previous.jsx", b)
	if err != nil {
		t.Fatal(err)
	}
	opt := fixtureOptions()
	opt.Previous = pf
	_, g := generateFixture(t, opt)
	var ids []string
	for _, c := range g.Cells {
		ids = append(ids, c.ID)
	}
	want := []string{"qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#1@old", "qwen9-fp4-gb300-dynamo-sglang-agentic-disagg#0",
		"qwen9-fp4-gb300-sglang-agentic-agg#0", "qwen9-fp4-gb300-sglang-agentic-agg#1"}
	if !slices.Equal(ids, want) {
		t.Fatalf("ids %v, want %v", ids, want)
	}
}

// stopAfter is a context whose Err reports context.Canceled from its n-th
// call on (n <= 0: never), counting the calls: it stops Run at an exact
// check point.
type stopAfter struct {
	context.Context
	n, calls int
}

func (c *stopAfter) Err() error {
	c.calls++
	if c.n > 0 && c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// TestGenerateCanceled: Run checks its context at the start, before each
// config key, before each point and before each cell is verified, and
// returns ctx.Err() itself and no result as soon as the context is done,
// wherever that happens; a context that stays live gives the usual output.
func TestGenerateCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if g, err := Run(ctx, openFixture(t, "ok"), fixtureOptions()); err != context.Canceled || g != nil {
		t.Fatalf("cancelled context: %v, %v; want context.Canceled and nothing", g, err)
	}
	live := &stopAfter{Context: t.Context()}
	want, err := Run(live, openFixture(t, "ok"), fixtureOptions())
	if err != nil {
		t.Fatal(err)
	}
	// testdata/ok: at least 1 check at the start, 2 config keys, 6
	// agentic-coding points (3 per key, each also checked by
	// infx.Workspace.Render), 4 cells.
	if live.calls < 13 || len(want.Data.Cells) != 4 {
		t.Errorf("%d context checks for %d cells, want at least 13 (start, 2 keys, 6 points, 4 cells)", live.calls, len(want.Data.Cells))
	}
	for n := 1; n <= live.calls; n++ {
		c := &stopAfter{Context: t.Context(), n: n}
		g, err := Run(c, openFixture(t, "ok"), fixtureOptions())
		if err != context.Canceled || g != nil {
			t.Errorf("cancelled at check %d: %v, %v after %d checks; want context.Canceled and nothing", n, g, err, c.calls)
		}
	}
	c := &stopAfter{Context: t.Context(), n: live.calls + 1}
	if g, err := Run(c, openFixture(t, "ok"), fixtureOptions()); err != nil || !bytes.Equal(g.Bytes, want.Bytes) {
		t.Errorf("context done only after the last check: %v", err)
	}
}

// TestUnknownSettingSkipped: a rendered point with a setting whose value
// the machine decides (launch.EnvVar.Unknown, launch.Arg.Unknown) is
// named for skipping — never published with one answer's value.
func TestUnknownSettingSkipped(t *testing.T) {
	d := launch.Deployment{Processes: []launch.Process{
		{Kind: launch.KindWorker, Role: launch.RoleAgg, Args: []launch.Arg{{Flag: "--tp", Values: []string{"8"}}}, Env: []launch.EnvVar{{Name: "A", Value: "1"}}},
	}}
	if got := unknownSetting(&d); got != "" {
		t.Errorf("known settings: %q", got)
	}
	d.Processes[0].Env = append(d.Processes[0].Env, launch.EnvVar{Name: "HSA_NO_SCRATCH_RECLAIM", Value: "1", Unknown: "set only when the MEC firmware is below 177"})
	if got, want := unknownSetting(&d), "agg worker: env HSA_NO_SCRATCH_RECLAIM is not known: set only when the MEC firmware is below 177"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	d.Processes[0].Env = d.Processes[0].Env[:1]
	d.Processes[0].Args[0].Unknown = "differs by the answer"
	if got, want := unknownSetting(&d), "agg worker: --tp is not known: differs by the answer"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
