package generate

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/infx"
)

// infxFullEnv names a complete InferenceX checkout of the corpus commit
// (843c6254, scripts included); ../shared/corpus/upstream/InferenceX lacks
// every *.sh file, so the single-node keys only render from such a tree.
const infxFullEnv = "COOKBOOK_SYNC_INFX_FULL"

// TestCorpusGenerateQwen35EveryKey (issue 10 item 7): `generate --model
// qwen3.5` on the upstream InferenceX tree at 843c6254 writes a file that
// verifies, with every key that has no prohibited setting, and leaves the
// one key with a prohibited setting out, named with its rule. Each key
// alone verifies too: six of them (single-node keys whose rows of one shape
// differ only by the KV tier) used to fail their own decode-back check.
// Runs on ../shared/corpus/upstream/InferenceX and, when present, on the
// complete checkout named by $COOKBOOK_SYNC_INFX_FULL (default
// /tmp/infx-full).
func TestCorpusGenerateQwen35EveryKey(t *testing.T) {
	shared := filepath.Join(moduleRoot(t), "..", "shared")
	if _, err := os.Stat(shared); os.IsNotExist(err) {
		t.Skip("SKIPPED LOUDLY: ../shared is absent: the InferenceX corpus tree is not here")
	}
	full := os.Getenv(infxFullEnv)
	if full == "" {
		full = "/tmp/infx-full"
	}
	type tree struct {
		name, root string
		cells      int      // cells of the whole-model run
		single     []string // keys that must generate alone
	}
	formerlyFailing := []string{
		"qwen3.5-fp8-b200-sglang-agentic-mtp", "qwen3.5-fp8-b300-sglang-agentic-mtp", "qwen3.5-fp4-b300-sglang-agentic-mtp",
		"qwen3.5-fp8-b300-sglang-agentic-power-ab", "qwen3.5-fp4-b300-sglang-agentic-power-ab",
		"qwen3.5-fp8-h200-sglang-agentic-mtp", "qwen3.5-fp8-h100-sglang-agentic-mtp", "qwen3.5-fp4-b200-sglang-agentic-mtp",
	}
	trees := []tree{{name: "corpus", root: filepath.Join(shared, "corpus", "upstream", "InferenceX"), cells: 3,
		single: []string{"qwen3.5-fp4-gb300-dynamo-sglang-agentic-agg"}}}
	if st, err := os.Stat(full); err == nil && st.IsDir() {
		trees = append(trees, tree{name: "full", root: full, cells: 23, single: formerlyFailing})
	} else {
		t.Logf("NOTE: no complete InferenceX checkout at %s ($%s): the single-node keys are checked on the corpus tree only, where their scripts are missing", full, infxFullEnv)
	}
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
