package generate

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// TestCorpusGenerateQwen35EveryKey (issue 10 item 7): `generate --model
// qwen3.5` on the complete upstream InferenceX tree at 843c6254
// (../shared/corpus/upstream/InferenceX, every script included) writes a
// file that verifies, with every renderable key that has no prohibited
// setting (25 cells of 14 keys), and leaves the one key with a prohibited setting out,
// named with its rule. Each key alone verifies too: eight of them
// (single-node keys whose rows of one shape differ only by the KV tier)
// used to fail their own decode-back check.
func TestCorpusGenerateQwen35EveryKey(t *testing.T) {
	root := testutil.UpstreamInferenceX(t)
	type tree struct {
		name, root string
		cells      int      // cells of the whole-model run
		single     []string // keys that must generate alone
	}
	// qwen3.5-fp8-h200/h100-sglang-agentic-mtp (and -hicache-mtp) render
	// again since issue 21: their scripts decide whether to patch SGLang's
	// source by reading a file of the container image
	// (multi_tokenizer_mixin.py), a condition now run both ways — the
	// server command is the same under both (3 cells).
	// qwen3.5-fp4-gb200-dynamo-sglang-agentic-mtp generates since the
	// synthetic-acceptance injector runs natively (issue 21): 2 cells, the
	// injected SGLANG_SIMULATE_ACC_* left out as harness.
	trees := []tree{{name: "upstream", root: root, cells: 25, single: []string{
		"qwen3.5-fp4-gb300-dynamo-sglang-agentic-agg", "qwen3.5-fp4-gb200-dynamo-sglang-agentic-mtp",
		"qwen3.5-fp8-b200-sglang-agentic-mtp", "qwen3.5-fp8-b300-sglang-agentic-mtp", "qwen3.5-fp4-b300-sglang-agentic-mtp",
		"qwen3.5-fp8-b300-sglang-agentic-power-ab", "qwen3.5-fp4-b300-sglang-agentic-power-ab",
		"qwen3.5-fp4-b200-sglang-agentic-mtp",
	}}}
	const refusedKey = "qwen3.5-fp4-gb300-dynamo-sglang-agentic-disagg"
	for _, tr := range trees {
		t.Run(tr.name, func(t *testing.T) {
			ws, err := infx.Open(tr.root)
			if err != nil {
				t.Fatal(err)
			}
			opt := Options{Model: "qwen3.5", GeneratedOn: "2026-10-08", Source: cookbook.SyncSource{Main: "843c6254ff69"}}
			g, err := Run(t.Context(), ws, opt)
			if err != nil {
				t.Fatalf("whole model: %v", err)
			}
			if len(g.Refused) != 1 || g.Refused[0].ConfigKey != refusedKey || g.Refused[0].Rule != "prohibited-nvfp4-ckpt-fp8-nextn-moe" ||
				g.Refused[0].Setting != "decode worker: env SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE" {
				t.Errorf("refused %+v, want %s (prohibited-nvfp4-ckpt-fp8-nextn-moe)", g.Refused, refusedKey)
			}
			if len(g.Data.Cells) != tr.cells {
				t.Errorf("%d cells, want %d", len(g.Data.Cells), tr.cells)
			}
			// the points that cannot be published yet, by key and reason
			skipped := map[string]int{}
			for _, sk := range g.Skipped {
				skipped[sk.ConfigKey+": "+strings.ReplaceAll(sk.Reason, tr.root+string(filepath.Separator), "")]++
			}
			testutil.CheckLedger(t, "testdata/qwen35-skipped.ledger", skipped)
			f, err := cookbook.Parse("qwen3.5.jsx", g.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			keys := map[string]bool{}
			for ci := range f.Cells {
				c := &f.Cells[ci]
				keys[c.ConfigKey] = true
				if c.ConfigKey == refusedKey {
					t.Errorf("cell %s of the refused key is published", c.ID)
				}
				// A derived tier always has its settings.
				if slices.Contains(c.KV.Available, "hicache") && c.KV.HiCache == nil &&
					slices.ContainsFunc(c.Points, func(p cookbook.Point) bool { return p.KV != "hicache" }) {
					t.Errorf("cell %s offers hicache without kv.hicache", c.ID)
				}
			}
			for _, s := range f.Selections() {
				if _, err := f.Decode(s); err != nil {
					t.Errorf("%+v: %v", s, err)
				}
			}
			t.Logf("%s: %d cells of %d keys, %d points skipped, refused %v", tr.name, len(f.Cells), len(keys), len(g.Skipped), g.Refused)
			// Every SGLang agentic key alone: verified, or nothing to render
			// from this tree — never a decode-back failure; tr.single must
			// generate.
			single := 0
			for _, k := range ws.ConfigKeys() {
				e, err := ws.Entry(k)
				if err != nil || e.ModelPrefix != "qwen3.5" || !strings.Contains(k, "agentic") {
					continue
				}
				opt := opt
				opt.Keys = []string{k}
				g, err := Run(t.Context(), ws, opt)
				switch {
				case errors.Is(err, ErrVerify):
					t.Errorf("--keys %s: %v", k, err)
				case err != nil && slices.Contains(tr.single, k):
					t.Errorf("--keys %s: %v", k, err)
				case err == nil:
					if !keys[k] {
						t.Errorf("key %s generates alone but not in the whole-model run", k)
					}
					for _, c := range g.Data.Cells {
						if c.ConfigKey != k {
							t.Errorf("--keys %s: cell %s", k, c.ID)
						}
					}
					single++
				}
			}
			for _, k := range tr.single {
				if !keys[k] {
					t.Errorf("key %s: no cell in the whole-model run", k)
				}
			}
			t.Logf("%s: %d keys generate alone, each verified", tr.name, single)
		})
	}
}
