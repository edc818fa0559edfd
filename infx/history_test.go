package infx

import (
	"bytes"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// historyCommit is one InferenceX commit of the period `--infx` checkouts
// come from (2026-06-01 … 2026-08-22), picked with
// `git rev-list -1 --before=<before> 843c6254` (an explicit UTC instant:
// git reads a bare date as that date at the current time of day).
type historyCommit struct {
	before string // the --before instant
	commit string // what rev-list gives
	// fixture is the hand-written testdata/history/<date> tree in the
	// commit's shapes; configs the directory its masters are in.
	fixture, configs string
	// keys and inScope are the config keys the real commit's masters
	// load (TestMirrorHistory) and how many of them have a Check-3
	// framework (mirrorFrameworks).
	keys, inScope int
}

var historyCommits = []historyCommit{
	{"2026-06-03T00:00:00Z", "96f1598815fbd1f0bc62db57fa33b6dd46541306", "2026-06-02", ".github/configs", 201, 160},
	{"2026-06-12T00:00:00Z", "263aace86de68d8ea24d5f83d289958c61c922e9", "2026-06-11", ".github/configs", 208, 167},
	{"2026-06-23T00:00:00Z", "e5f44cf48da2c5dfd9e8c94ac982ecdf99ce1500", "2026-06-22", ".github/configs", 204, 159},
	{"2026-07-02T00:00:00Z", "a5c09139e5d0c75ea13c231cd8b0838c55e5f778", "2026-07-01", ".github/configs", 223, 170},
	{"2026-07-05T00:00:00Z", "7743274464f3d87c41eb4d599fb6b42ac59f2b45", "2026-07-04", "configs", 226, 173},
	{"2026-07-11T00:00:00Z", "584396d713bbe39e6b14439afb7998b0b933c236", "2026-07-10", "configs", 224, 174},
	{"2026-07-15T00:00:00Z", "9aeaa75d8ab26333b214a15d986f50a603bcb14f", "2026-07-14", "configs", 225, 175},
	{"2026-07-26T00:00:00Z", "ef8a17ecf0c3679dc12020eddab3c1a36d285b58", "2026-07-25", "configs", 211, 163},
	{"2026-08-05T00:00:00Z", "d089a9138c53d16c6388e4251a078fee8ca7bea6", "2026-08-04", "configs", 181, 141},
	{"2026-08-23T00:00:00Z", "843c6254ff69b567f772f6a5fd97675af3d04431", "2026-08-21", "configs", 208, 162},
}

// mirrorFrameworks are the frameworks whose keys must yield points at
// every commit (the vLLM / SGLang families Check 3 covers).
var mirrorFrameworks = []string{"sglang", "vllm", "dynamo-sglang", "dynamo-vllm", "sglang-disagg", "llmd-vllm"}

// historyFixture is what one testdata/history tree must load to.
type historyFixture struct {
	keys   []string // ConfigKeys, in order
	points int      // points of all loaded keys
	// warning is the one deliberately broken key's problem, as
	// "<key> <file relative to the configs dir>:line:col: msg".
	warning string
	check   func(t *testing.T, ws *Workspace)
}

// histRow returns key's row i (failing the test when absent).
func histRow(t *testing.T, ws *Workspace, key string, i int) *Row {
	t.Helper()
	e, err := ws.Entry(key)
	if err != nil {
		t.Fatal(err)
	}
	if i >= len(e.Rows) {
		t.Fatalf("%s: %d rows, want row %d", key, len(e.Rows), i)
	}
	return &e.Rows[i]
}

// histEntry returns key's entry (failing the test when it did not load).
func histEntry(t *testing.T, ws *Workspace, key string) *Entry {
	t.Helper()
	e, err := ws.Entry(key)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// histNV formats a name/version as "name@version" ("<nil>" for none).
func histNV(p *NameVersion) string {
	if p == nil {
		return "<nil>"
	}
	return p.Name + "@" + p.Version
}

// historyFixtures: what each testdata/history/<date> tree loads to.
var historyFixtures = map[string]historyFixture{
	"2026-06-02": {
		keys: []string{"qwen3.5-fp8-mi355x-sglang-disagg", "kimik2.5-int4-mi355x-vllm",
			"dsr1-fp4-b200-sglang", "qwen3.5-fp8-b200-sglang-agentic", "dsv4-fp4-b200-vllm-agentic",
			"dsr1-fp8-h100-dynamo-sglang", "dsr1-fp4-b200-dynamo-trt"},
		points:  43,
		warning: `gptoss-fp4-b200-vllm-agentic nvidia-master.yaml:125:30: gptoss-fp4-b200-vllm-agentic.scenarios.agentic-coding[0].search-space[0].offloading: unknown value "nvme" (want one of: none, cpu, ssd, lmcache, lmcache-mp, hicache)`,
		check: func(t *testing.T, ws *Workspace) {
			if r := histRow(t, ws, "dsv4-fp4-b200-vllm-agentic", 1); r.Offloading != "cpu" || r.Duration != 1800 || r.KVOffloading != "" || r.TP != 8 || !r.DPAttn {
				t.Errorf("legacy agentic row = %+v", r)
			}
			if e := histEntry(t, ws, "qwen3.5-fp8-b200-sglang-agentic"); e.Runner != "b200" || e.Rows[0].Offloading != "none" {
				t.Errorf("agentic entry on a plain runner = %+v", e)
			}
			if e := histEntry(t, ws, "dsr1-fp8-h100-dynamo-sglang"); !e.Disagg || e.KVP2P != "" || e.Router != nil {
				t.Errorf("disagg entry without kv-p2p-transfer = %+v", e)
			}
			if r := histRow(t, ws, "dsr1-fp4-b200-dynamo-trt", 0); r.Duration != 300 || r.Prefill == nil || r.Prefill.TP != 4 {
				t.Errorf("multinode agentic row = %+v", r)
			}
		},
	},
	"2026-06-11": {
		keys: []string{"qwen3.5-fp8-b300-sglang-agentic-hicache", "kimik2.5-fp4-b200-vllm-agentic-lmcache",
			"kimik2.5-fp4-gb200-dynamo-vllm", "dsr1-fp4-b200-trt"},
		points:  26,
		warning: `qwen3.5-fp8-h100-sglang-agentic nvidia-master.yaml:92:7: qwen3.5-fp8-h100-sglang-agentic.scenarios.agentic-coding[0]: dram-utilization replaced duration on 2026-07-02 (InferenceX 303669b0e); give one or the other`,
		check: func(t *testing.T, ws *Workspace) {
			if r := histRow(t, ws, "qwen3.5-fp8-b300-sglang-agentic-hicache", 1); r.Offloading != "hicache" || r.TP != 4 {
				t.Errorf("hicache row = %+v", r)
			}
			if r := histRow(t, ws, "kimik2.5-fp4-b200-vllm-agentic-lmcache", 1); r.Offloading != "lmcache" || !slices.Equal(r.Concurrencies, []int{16, 24, 32, 36}) {
				t.Errorf("lmcache row = %+v", r)
			}
		},
	},
	"2026-06-22": {
		keys:    []string{"minimaxm3-fp8-b200-vllm", "dsr1-fp4-b200-sglang-mtp", "kimik2.5-int4-h200-vllm-agentic"},
		points:  17,
		warning: `dsr1-fp8-h200-sglang nvidia-master.yaml:67:18: dsr1-fp8-h200-sglang.scenarios.fixed-seq-len[0].search-space[0]: unknown field "conc-lst" (allowed: tp, ep, dp-attn, pp, dcp-size, pcp-size, spec-decoding, conc-start, conc-end, conc-list, router, kv-p2p-transfer, kv-offloading, kv-offload-backend, offloading, power, require-power, prefill, decode, worker, num-nodes, srt-recipe, eval-srt-recipe)`,
		check: func(t *testing.T, ws *Workspace) {
			// The active definition, not the one in deprecated/.
			if e := histEntry(t, ws, "minimaxm3-fp8-b200-vllm"); e.Image != "vllm/vllm-openai:v0.22.0" || !slices.Equal(e.Rows[0].Concurrencies, []int{4, 8, 16, 32}) {
				t.Errorf("single-node conc-list entry = %+v", e)
			}
		},
	},
	"2026-07-01": {
		keys:    []string{"dsv4-fp4-gb300-dynamo-vllm-agentic", "dsv4-fp4-b200-sglang-agentic", "qwen3.5-fp8-h200-vllm"},
		points:  9,
		warning: `kimik2.5-fp4-b300-vllm-agentic nvidia-master.yaml:79:35: kimik2.5-fp4-b300-vllm-agentic.scenarios.agentic-coding[0].search-space[0]: kv-offloading replaced offloading on 2026-07-02 (InferenceX 303669b0e); give one or the other`,
		check: func(t *testing.T, ws *Workspace) {
			if r := histRow(t, ws, "dsv4-fp4-gb300-dynamo-vllm-agentic", 0); r.Duration != 1800 || r.Decode == nil || r.Decode.NumWorker != 6 {
				t.Errorf("multinode agentic row = %+v", r)
			}
			if e := histEntry(t, ws, "qwen3.5-fp8-h200-vllm"); e.Image != "vllm/vllm-openai:v0.22.0" {
				t.Errorf("deprecated/ was read: %+v", e)
			}
		},
	},
	"2026-07-04": {
		keys: []string{"qwen3.5-fp8-mi355x-sglang-disagg", "kimik2.5-fp4-mi355x-vllm-agentic",
			"kimik2.5-int4-b200-vllm-agentic", "dsv4-fp4-b200-vllm-agentic", "qwen3.5-fp8-b300-sglang-agentic-hicache",
			"kimik2.5-fp4-b200-vllm-agentic-lmcache", "dsr1-fp4-gb200-dynamo-sglang"},
		points:  35,
		warning: `minimaxm3-fp8-h200-vllm-agentic nvidia-master.yaml:107:59: minimaxm3-fp8-h200-vllm-agentic.scenarios.agentic-coding[0].search-space[0].kv-offload-backend: unknown value "ramdisk" (want one of: hicache, lmcache, mooncake, vllm-simple, native, vllm-native)`,
		check: func(t *testing.T, ws *Workspace) {
			for _, c := range []struct {
				key     string
				row     int
				backend string
			}{
				{"kimik2.5-int4-b200-vllm-agentic", 1, "native@"}, {"dsv4-fp4-b200-vllm-agentic", 0, "mooncake@"},
				{"qwen3.5-fp8-b300-sglang-agentic-hicache", 1, "hicache@"}, {"kimik2.5-fp4-b200-vllm-agentic-lmcache", 0, "lmcache@"},
				{"kimik2.5-fp4-mi355x-vllm-agentic", 1, "native@"},
			} {
				r := histRow(t, ws, c.key, c.row)
				if histNV(r.KVOffloadBackend) != c.backend || r.KVOffloading != "dram" || r.DRAMUtilization != 0.8 || r.Offloading != "" || r.Duration != 0 {
					t.Errorf("%s row %d: backend %s, row %+v", c.key, c.row, histNV(r.KVOffloadBackend), r)
				}
			}
			if e := histEntry(t, ws, "qwen3.5-fp8-mi355x-sglang-disagg"); !e.Disagg || e.KVP2P != "" {
				t.Errorf("sglang-disagg entry = %+v", e)
			}
		},
	},
	"2026-07-10": {
		keys:    []string{"dsv4-fp4-mi355x-vllm-agentic", "dsv4-fp4-gb200-llmd-vllm", "dsv4-fp4-gb300-dynamo-vllm-agentic", "kimik2.5-int4-h100-vllm"},
		points:  13,
		warning: `dsr1-fp8-h200-sglang nvidia-master.yaml:92:11: dsr1-fp8-h200-sglang.router: want {name, version}, got a scalar`,
		check: func(t *testing.T, ws *Workspace) {
			if r := histRow(t, ws, "dsv4-fp4-mi355x-vllm-agentic", 1); histNV(r.KVOffloadBackend) != "lmcache@" || r.DRAMUtilization != 0.6 {
				t.Errorf("bare lmcache row = %+v", r)
			}
			pts, err := ws.Points("dsv4-fp4-gb200-llmd-vllm")
			if err != nil || len(pts) != 1 || pts[0].Engine != "vllm" || !pts[0].InScope {
				t.Errorf("llm-d points = %+v, %v", pts, err)
			}
			if e := histEntry(t, ws, "dsv4-fp4-gb300-dynamo-vllm-agentic"); !e.Disagg || e.KVP2P != "" || e.Rows[0].DRAMUtilization != 0.8 {
				t.Errorf("disagg agentic entry = %+v", e)
			}
		},
	},
	"2026-07-14": {
		keys: []string{"kimik2.5-fp4-mi355x-vllm-agentic", "minimaxm3-fp4-mi355x-vllm-disagg",
			"qwen3.5-fp4-gb300-dynamo-sglang", "dsv4-fp4-b200-sglang-agentic-hicache", "dsv4-fp4-b200-vllm-agentic"},
		points:  23,
		warning: `dsr1-fp4-gb200-dynamo-sglang nvidia-master.yaml:101:9: dsr1-fp4-gb200-dynamo-sglang.scenarios.fixed-seq-len[0].search-space[0]: kv-p2p-transfer is set on the entry too; give it on the entry or on the rows, never both`,
		check: func(t *testing.T, ws *Workspace) {
			if e := histEntry(t, ws, "qwen3.5-fp4-gb300-dynamo-sglang"); histNV(e.Router) != "dynamo-router@1.1.0" || e.KVP2P != "" || len(e.Rows) != 2 {
				t.Errorf("per-row kv-p2p-transfer entry = %+v", e)
			}
			if r := histRow(t, ws, "kimik2.5-fp4-mi355x-vllm-agentic", 1); histNV(r.KVOffloadBackend) != "vllm-native@" || histNV(r.Router) != "vllm-router@0.1.14" {
				t.Errorf("vllm-native row = %+v", r)
			}
			if r := histRow(t, ws, "dsv4-fp4-b200-vllm-agentic", 1); histNV(r.KVOffloadBackend) != "mooncake@0.3.11.post1" {
				t.Errorf("versioned backend row = %+v", r)
			}
			if e := histEntry(t, ws, "minimaxm3-fp4-mi355x-vllm-disagg"); e.KVP2P != "moriio" {
				t.Errorf("moriio entry = %+v", e)
			}
		},
	},
	"2026-07-25": {
		keys: []string{"kimik2.5-fp4-mi355x-vllm-agentic", "dsv4-fp4-mi355x-sglang-disagg-agentic-hicache",
			"kimik2.5-fp4-b300-vllm-agentic-mtp", "dsv4-fp4-b200-vllm-agentic", "dsv4-fp4-gb300-dynamo-sglang-agentic-agg"},
		points:  21,
		warning: `qwen3.5-fp8-b200-sglang-mtp nvidia-master.yaml:82:33: qwen3.5-fp8-b200-sglang-mtp.scenarios.fixed-seq-len[0].search-space[0].spec-decoding: unknown value "eagle" (want one of: mtp, draft_model, none)`,
		check: func(t *testing.T, ws *Workspace) {
			if r := histRow(t, ws, "kimik2.5-fp4-b300-vllm-agentic-mtp", 1); histNV(r.KVOffloadBackend) != "native@" || r.SpecDecoding != "mtp" || r.TP != 4 {
				t.Errorf("dcp-size row = %+v", r)
			}
			if r := histRow(t, ws, "dsv4-fp4-b200-vllm-agentic", 0); histNV(r.KVOffloadBackend) != "vllm-simple@904e4ec" {
				t.Errorf("vllm-simple row = %+v", r)
			}
			if e := histEntry(t, ws, "dsv4-fp4-gb300-dynamo-sglang-agentic-agg"); e.Disagg || e.Rows[0].Decode.NumWorker != 0 || histNV(e.Router) != "dynamo-router@1.3.0.dev20260718" {
				t.Errorf("aggregated multinode agentic entry = %+v", e)
			}
			if e := histEntry(t, ws, "dsv4-fp4-mi355x-sglang-disagg-agentic-hicache"); e.KVP2P != "mori" || histNV(e.Rows[0].KVOffloadBackend) != "hicache@" {
				t.Errorf("sglang-disagg agentic entry = %+v", e)
			}
		},
	},
	"2026-08-04": {
		keys: []string{"kimik2.5-fp4-mi355x-vllm-disagg", "qwen3.5-bf16-mi355x-sglang",
			"dsv4-fp4-gb300-dynamo-vllm-agentic-mtp-disagg", "qwen3.5-fp4-gb300-dynamo-sglang-agentic-disagg", "minimaxm3-fp8-h200-vllm-agentic"},
		points:  14,
		warning: `dsr1-fp8-gb200-dynamo-sglang nvidia-master.yaml:105:11: dsr1-fp8-gb200-dynamo-sglang.scenarios.fixed-seq-len[0].search-space[0].prefill: unknown field "gpus" (allowed: num-worker, tp, ep, dp-attn, pp, dcp-size, pcp-size, hardware, additional-settings)`,
		check: func(t *testing.T, ws *Workspace) {
			if e := histEntry(t, ws, "kimik2.5-fp4-mi355x-vllm-disagg"); e.KVP2P != "moriio" || e.Framework != "vllm-disagg" || !e.Multinode {
				t.Errorf("moriio entry (the active one, not deprecated/'s) = %+v", e)
			}
			if r := histRow(t, ws, "dsv4-fp4-gb300-dynamo-vllm-agentic-mtp-disagg", 0); histNV(r.Router) != "dynamo-router@1.3.0.dev20260720" {
				t.Errorf("row router = %+v", r)
			}
			if e := histEntry(t, ws, "qwen3.5-bf16-mi355x-sglang"); e.Precision != "bf16" {
				t.Errorf("bf16 entry = %+v", e)
			}
		},
	},
	"2026-08-21": {
		keys: []string{"dsv4-fp4-mi355x-vllm-agentic", "kimik3-fp4-gb200-dynamo-vllm-agentic-tp8pp2",
			"glm5.2-fp8-h200-dynamo-sglang-agentic-mtp-2p2d", "dsv4-fp4-gb200-llmd-vllm", "qwen3.5-fp4-gb300-dynamo-trt", "glm5.1-fp8-b200-tilert"},
		points:  11,
		warning: `dsr1-fp8-b200-sglang nvidia-master.yaml:185:22: dsr1-fp8-b200-sglang.scenarios.fixed-seq-len[0].search-space[0].pp: want an integer ≥ 1, got 0`,
		check: func(t *testing.T, ws *Workspace) {
			if r := histRow(t, ws, "kimik3-fp4-gb200-dynamo-vllm-agentic-tp8pp2", 0); r.Prefill.PP != 2 || r.Decode.PP != 2 || histNV(r.KVOffloadBackend) != "mooncake@0.3.11.post1" {
				t.Errorf("pp/dcp-size worker row = %+v", r)
			}
			if r := histRow(t, ws, "glm5.2-fp8-h200-dynamo-sglang-agentic-mtp-2p2d", 0); histNV(r.KVOffloadBackend) != "hicache@" || r.Prefill.NumWorker != 2 {
				t.Errorf("block-mapping backend row = %+v", r)
			}
			if e := histEntry(t, ws, "qwen3.5-fp4-gb300-dynamo-trt"); e.KVP2P != "ucx" || InScope(e.Framework) {
				t.Errorf("ucx entry = %+v", e)
			}
			if r := histRow(t, ws, "dsv4-fp4-mi355x-vllm-agentic", 1); histNV(r.KVOffloadBackend) != "native@0.26.0" {
				t.Errorf("versioned native row = %+v", r)
			}
		},
	},
}

// TestCorpusUpstreamHistory: any commit loads. For each of the ten commits
// of historyCommits, the hand-written fixture in that commit's shapes
// (testdata/history/<date>: masters under .github/configs/ before
// 2026-07-02, configs/ after, deprecated/ never read) opens, every key
// loads but the one broken on purpose, every vLLM / SGLang key yields its
// points, and the broken key is a warning — and, asked for, the same
// positioned error.
func TestCorpusUpstreamHistory(t *testing.T) {
	if len(historyFixtures) != len(historyCommits) {
		t.Fatalf("%d fixtures for %d commits", len(historyFixtures), len(historyCommits))
	}
	for _, hc := range historyCommits {
		t.Run(hc.fixture, func(t *testing.T) {
			want, ok := historyFixtures[hc.fixture]
			if !ok {
				t.Fatalf("no fixture %s", hc.fixture)
			}
			root := filepath.Join("testdata", "history", hc.fixture)
			ws, err := Open(root)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, filepath.FromSlash(hc.configs))
			if ws.ConfigsDir != dir || ws.Base != root || ws.Layout != LayoutOld {
				t.Errorf("configs dir %s base %s layout %s, want %s %s old", ws.ConfigsDir, ws.Base, ws.Layout, dir, root)
			}
			for _, m := range ws.Masters {
				if filepath.Dir(m) != dir {
					t.Errorf("master %s read, outside %s", m, dir)
				}
			}
			eqStrings(t, "keys", ws.ConfigKeys(), want.keys)
			points := 0
			for _, k := range ws.ConfigKeys() {
				e, _ := ws.Entry(k)
				pts, err := ws.Points(k)
				if err != nil {
					t.Errorf("%s: %v", k, err)
				}
				if slices.Contains(mirrorFrameworks, e.Framework) && len(pts) == 0 {
					t.Errorf("%s (%s): no points", k, e.Framework)
				}
				points += len(pts)
			}
			if points != want.points {
				t.Errorf("points = %d, want %d", points, want.points)
			}
			ws0 := ws.Warnings()
			if len(ws0) != 1 {
				t.Fatalf("warnings = %v, want 1", ws0)
			}
			w := ws0[0]
			if got := w.Key + " " + strings.TrimPrefix(w.String(), dir+string(filepath.Separator)); got != want.warning {
				t.Errorf("warning:\n got %s\nwant %s", got, want.warning)
			}
			if _, err := ws.Points(w.Key); err == nil || err.Error() != w.String() {
				t.Errorf("broken key %s asked for: %v, want %s", w.Key, err, w)
			}
			if slices.Contains(ws.ConfigKeys(), w.Key) {
				t.Errorf("broken key %s listed in ConfigKeys", w.Key)
			}
			want.check(t, ws)
		})
	}
}

// TestHistoryUnionAccepted: entries valid under an earlier schema of the
// period than the rule that now refuses them load (validate.go's table):
// disagg: true on a single-node entry (before da54b4241, 2026-07-06), an
// agentic entry on a plain runner label (before 303669b0e, 2026-07-02), a
// disagg entry without kv-p2p-transfer (before dbc515b38, 2026-07-13).
func TestHistoryUnionAccepted(t *testing.T) {
	const master = `sn-disagg:
  image: vllm/vllm-openai-rocm:v0.21.0
  model: amd/Kimi-K2.5-MXFP4
  model-prefix: kimik2.5
  runner: mi355x
  precision: fp4
  framework: vllm
  multinode: false
  disagg: true
  scenarios:
    fixed-seq-len:
    - { isl: 1024, osl: 1024, search-space: [ { tp: 8, conc-start: 4, conc-end: 16 } ] }
agentic-plain-runner:
  image: lmsysorg/sglang:v0.5.12-cu130
  model: Qwen/Qwen3.5-397B-A17B-FP8
  model-prefix: qwen3.5
  runner: b200
  precision: fp8
  framework: sglang
  multinode: false
  scenarios:
    agentic-coding:
    - { search-space: [ { tp: 8, kv-offloading: none, conc-list: [1, 2] } ] }
disagg-no-kvp2p:
  image: lmsysorg/sglang:v0.5.12-cu130
  model: nvidia/DeepSeek-R1-0528-FP4
  model-prefix: dsr1
  runner: gb200
  precision: fp4
  framework: dynamo-sglang
  multinode: true
  disagg: true
  scenarios:
    fixed-seq-len:
    - isl: 8192
      osl: 1024
      search-space:
      - conc-list: [4]
        prefill: { num-worker: 1, tp: 4, ep: 1, dp-attn: false, additional-settings: ["CONFIG_FILE=recipes/x.yaml"] }
        decode: { num-worker: 1, tp: 4, ep: 1, dp-attn: false }
`
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "configs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "configs", "nvidia-master.yaml"), []byte(master), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Warnings()) != 0 {
		t.Errorf("warnings = %v", ws.Warnings())
	}
	eqStrings(t, "keys", ws.ConfigKeys(), []string{"sn-disagg", "agentic-plain-runner", "disagg-no-kvp2p"})
	for k, n := range map[string]int{"sn-disagg": 3, "agentic-plain-runner": 2, "disagg-no-kvp2p": 1} {
		pts, err := ws.Points(k)
		if err != nil || len(pts) != n {
			t.Errorf("%s: %d points (%v), want %d", k, len(pts), err, n)
		}
	}
	if e := histEntry(t, ws, "sn-disagg"); !e.Disagg || e.Multinode {
		t.Errorf("sn-disagg = %+v", e)
	}
}

// TestOpenDuplicateKeys: a key defined in both masters (validation.py
// load_config_files refuses it) or twice in one (PyYAML would keep the
// last) does not load; the other keys do.
func TestOpenDuplicateKeys(t *testing.T) {
	entryYAML := func(key, image string) string {
		return key + ":\n  image: " + image + "\n  model: m\n  model-prefix: p\n  runner: b200\n  precision: fp8\n  framework: vllm\n  multinode: false\n" +
			"  scenarios:\n    fixed-seq-len:\n    - { isl: 1, osl: 1, search-space: [ { tp: 1, conc-list: [1] } ] }\n"
	}
	root := t.TempDir()
	dir := filepath.Join(root, ".github", "configs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	amd := filepath.Join(dir, "amd-master.yaml")
	nvidia := filepath.Join(dir, "nvidia-master.yaml")
	for f, src := range map[string]string{
		amd:    entryYAML("a", "i1") + entryYAML("both", "i2"),
		nvidia: entryYAML("both", "i3") + entryYAML("twice", "i4") + entryYAML("twice", "i5") + entryYAML("b", "i6"),
	} {
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	eqStrings(t, "keys", ws.ConfigKeys(), []string{"a", "b"})
	var got []string
	for _, w := range ws.Warnings() {
		got = append(got, w.Key+" "+w.String())
	}
	eqStrings(t, "warnings", got, []string{
		"both " + nvidia + `:1:1: config key "both" already defined at ` + amd + ":12:1",
		"twice " + nvidia + `:23:1: config key "twice" already defined at line 12`,
	})
	if _, err := ws.Entry("twice"); err == nil || err.Error() != nvidia+`:23:1: config key "twice" already defined at line 12` {
		t.Errorf("Entry(twice) = %v", err)
	}
}

// mirrorConfigFile: the files of a commit TestMirrorHistory extracts: the
// masters and runners.yaml of configs/ and .github/configs/, and the
// deprecated/ masters (to show they are not read).
var mirrorConfigFile = regexp.MustCompile(`^(\.github/)?configs/(deprecated/)?[^/]+\.yaml$`)

// TestMirrorHistory: against the real InferenceX history (a bare git
// mirror named by INFX_MIRROR_GIT_DIR; no network), the master configs of
// each of the ten historyCommits load with no warning, as many keys as the
// commit defines, and every key of a vLLM / SGLang framework
// (mirrorFrameworks) yields points. Skipped loudly without the variable.
func TestMirrorHistory(t *testing.T) {
	gd := testutil.MirrorGitDir(t, testutil.MirrorInferenceX)
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("%s is set but git is absent: cannot read the InferenceX mirror", testutil.MirrorInferenceX)
	}
	git := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command("git", append([]string{"--git-dir=" + gd}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
		}
		return out
	}
	for _, hc := range historyCommits {
		t.Run(hc.fixture, func(t *testing.T) {
			if c := strings.TrimSpace(string(git("rev-list", "-1", "--before="+hc.before, "843c6254"))); c != hc.commit {
				t.Errorf("rev-list --before=%s = %s, want %s", hc.before, c, hc.commit)
			}
			root := t.TempDir()
			for _, f := range strings.Split(strings.TrimSpace(string(git("ls-tree", "-r", "--name-only", hc.commit, "--", "configs", ".github/configs"))), "\n") {
				if !mirrorConfigFile.MatchString(f) {
					continue
				}
				p := filepath.Join(root, filepath.FromSlash(f))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, git("show", hc.commit+":"+f), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ws, err := Open(root)
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(root, filepath.FromSlash(hc.configs)); ws.ConfigsDir != want {
				t.Errorf("configs dir = %s, want %s", ws.ConfigsDir, want)
			}
			for _, w := range ws.Warnings() {
				t.Errorf("warning: %s", w)
			}
			inScope := 0
			for _, k := range ws.ConfigKeys() {
				e, _ := ws.Entry(k)
				pts, err := ws.Points(k)
				if err != nil {
					t.Errorf("%s: %v", k, err)
				}
				if slices.Contains(mirrorFrameworks, e.Framework) {
					inScope++
					if len(pts) == 0 {
						t.Errorf("%s (%s): no points", k, e.Framework)
					}
				}
			}
			if n := len(ws.ConfigKeys()); n != hc.keys || inScope != hc.inScope {
				t.Errorf("keys = %d (%d vLLM/SGLang), want %d (%d)", n, inScope, hc.keys, hc.inScope)
			}
		})
	}
}
