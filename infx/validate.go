package infx

import (
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Master-config validation: the field names, enums and structure rules of
// InferenceX's Pydantic models (old utils/matrix_logic/validation.py, new
// infx/matrix/validation.py; both extra='forbid'), as shared/spec/
// inferencex.md (a) states them. Where the spec lists the allowed values they
// are enforced; where the real master configs use a value the spec does not
// list, the real files win and the value is added (marked "corpus" below).
// Where the spec gives no list (router names, runner labels, images, model
// ids) any non-empty string is accepted.
//
// Any commit loads. `--infx` may be a checkout at any InferenceX commit
// from 2026-06-01 to 2026-08-22 (reviewers replay old PRs), so the rules
// are the union of the master schemas of that period: a field or value is
// accepted when validation.py accepted it at some commit of the period (or
// a master config of the period used it, for the free-string fields infx
// enumerates), and a rule is enforced only when it held during the whole
// period. The master-input changes of utils/matrix_logic/validation.py
// (git log 843c6254 -- utils/matrix_logic/validation.py; commits that only
// touched the matrix-output or changelog models are left out):
//
//	field                              shape / value set                              from → until
//	agentic-coding[].duration          int seconds (default 1800)                     ≤2026-06-01 → 303669b0e 2026-07-02 (removed)
//	agentic row offloading             none|cpu|ssd                                   ≤2026-06-01 → 303669b0e 2026-07-02 (removed)
//	agentic row offloading             + lmcache|lmcache-mp|hicache                   1b234994f 2026-06-02 → 303669b0e
//	disagg on single-node entries      bool (true allowed)                            ≤2026-06-01 → da54b4241 2026-07-06 (then false only)
//	agentic entries' runner            any label                                      ≤2026-06-01 → 303669b0e 2026-07-02 (then cluster:<id> only)
//	conc-start, conc-end               > 0 enforced upstream                          360997068 2026-06-20 (infx always: ≥ 1)
//	agentic-coding[].dram-utilization  float in (0, 1]                                303669b0e 2026-07-02 →
//	agentic row kv-offloading          none|dram                                      303669b0e 2026-07-02 →
//	agentic row kv-offload-backend     bare string (corpus: hicache, lmcache,         303669b0e 2026-07-02 → dbc515b38 2026-07-13
//	                                   mooncake, native)
//	agentic row kv-offload-backend     {name, version?}; name a free string           dbc515b38 2026-07-13 →
//	                                   (corpus: hicache, lmcache, mooncake, native,
//	                                   vllm-simple; vllm-native 07-13 → 08-04)
//	prefill/decode hardware            non-empty string, both or neither              da54b4241 2026-07-06 →
//	row dcp-size, pcp-size             int ≥ 1 (single-node and agentic rows)         af224d6c4 2026-07-06 →
//	row pp                             int ≥ 1                                        65b8d7f50 2026-07-10 →
//	prefill/decode pp, dcp-size,       int ≥ 1                                        62b2c9bc7 2026-07-10 →
//	  pcp-size
//	router (entry or row, not both)    {name, version}                                dbc515b38 2026-07-13 →
//	kv-p2p-transfer (multinode entry   free string (corpus: nixl, mooncake, mori;     dbc515b38 2026-07-13 →
//	  or row, not both)                moriio 07-13 → 08-07; ucx from 08-10)
//	disagg needs kv-p2p-transfer       on the entry or every row                      dbc515b38 2026-07-13 → (not before)
//
// Commits after dbc515b38 changed only the matrix-output and changelog
// models. The cross-field checks upstream adds on top of field shapes
// (prefill/decode hardware pairs, TP divisible by dcp-size, kv-offloading
// vs kv-offload-backend presence) are InferenceX's own CI concern and not
// checked here, as before.
//
// So: duration, offloading, the bare-string kv-offload-backend and
// vllm-native / moriio are accepted at every commit; a disagg entry without
// kv-p2p-transfer, a single-node entry with disagg: true and an agentic
// entry on a plain runner label are accepted (each was valid before its
// rule appeared). Fields of different eras that replace one another may not
// be mixed in one block, as no commit accepted that: offloading with
// kv-offloading / kv-offload-backend in a row, duration with
// dram-utilization in an agentic scenario. Values are kept as written, not
// translated between eras, because one value is only meaningful at its
// time: the bare "native" of 2026-07-02 … 07-13 is vLLM's own CPU offload,
// which dbc515b38 renamed {name: vllm-simple} on NVIDIA and {name:
// vllm-native} on AMD, while {name: native} from 2026-07-15 (ececf32b7) is
// the engine's native offload of vLLM and TRT-LLM entries; a commit's
// scripts read the values of that commit. The concurrency limits below are
// infx's own and hold at every commit (no master of the period comes near
// them).

// MaxConcurrency is the largest concurrency a master row may ask for
// (conc-list entries, conc-start, conc-end): 2^20, far above any real sweep
// (the corpus tops out at 4096) and small enough that a doubling range has
// at most 21 points.
const MaxConcurrency = 1 << 20

// MaxRowPoints is the most concurrencies one search-space row may list
// (conc-list length).
const MaxRowPoints = 64

// Allowed field names per level (spec (a) "Entry fields", "Search-space row
// fields"). The row also allows num-nodes and worker (aggregated multinode
// rows of newer masters; corpus), which the spec does not list.
var (
	entryFields = []string{"image", "model", "model-prefix", "runner", "precision", "framework",
		"multinode", "disagg", "router", "kv-p2p-transfer", "srt-recipe-dir", "scenarios"}
	// requiredEntryFields are the entry fields the spec does not mark
	// optional (router, kv-p2p-transfer, srt-recipe-dir are; disagg only
	// applies to multinode entries).
	requiredEntryFields = []string{"image", "model", "model-prefix", "runner", "precision", "framework", "multinode", "scenarios"}
	fixedSeqLenFields   = []string{"isl", "osl", "search-space"}
	// agenticCodingFields: duration until 2026-07-02 (see the table above).
	agenticCodingFields = []string{"trace-source", "dram-utilization", "duration", "search-space"}
	// rowFields: offloading until 2026-07-02 (see the table above).
	rowFields = []string{"tp", "ep", "dp-attn", "pp", "dcp-size", "pcp-size", "spec-decoding",
		"conc-start", "conc-end", "conc-list", "router", "kv-p2p-transfer",
		"kv-offloading", "kv-offload-backend", "offloading", "power", "require-power",
		"prefill", "decode", "worker", "num-nodes", "srt-recipe", "eval-srt-recipe"}
	// agenticRowFields may only appear in agentic-coding rows ("Agentic rows
	// add …").
	agenticRowFields = []string{"kv-offloading", "kv-offload-backend", "offloading", "power", "require-power"}
	// multinodeRowFields may only appear in rows of multinode entries.
	multinodeRowFields = []string{"prefill", "decode", "worker", "num-nodes", "kv-p2p-transfer"}
	workerFields       = []string{"num-worker", "tp", "ep", "dp-attn", "pp", "dcp-size", "pcp-size", "hardware", "additional-settings"}
	nameVersionFields  = []string{"name", "version"}
)

// Enumerations (spec (a)).
var (
	precisions = []string{"fp4", "fp8", "bf16", "int4"}
	frameworks = []string{"sglang", "vllm", "trt", "atom", "dynamo-sglang", "dynamo-vllm", "dynamo-trt",
		"sglang-disagg", "atom-disagg", "llmd-vllm", "tilert", "vllm-disagg"}
	// kvP2PTransfers: the spec lists nixl, mooncake, mori; ucx is used by a
	// real entry (corpus: configs/nvidia-master.yaml at 843c6254); moriio
	// by AMD vLLM disagg entries from 2026-07-13 (dbc515b38) to 2026-08-07
	// (7543fe999).
	kvP2PTransfers = []string{"nixl", "mooncake", "mori", "ucx", "moriio"}
	specDecodings  = []string{"mtp", "draft_model", "none"}
	kvOffloadings  = []string{"none", "dram"}
	// kvOffloadBackends: the spec lists hicache, lmcache, mooncake,
	// vllm-simple; native is used by real entries (corpus); vllm-native by
	// AMD vLLM agentic entries from 2026-07-13 (dbc515b38) to 2026-08-04
	// (c1e663584).
	kvOffloadBackends = []string{"hicache", "lmcache", "mooncake", "vllm-simple", "native", "vllm-native"}
	// legacyOffloadings: the agentic row `offloading` Literal of
	// validation.py before 2026-07-02 (none, cpu, ssd; lmcache, lmcache-mp,
	// hicache from 2026-06-02, 1b234994f).
	legacyOffloadings = []string{"none", "cpu", "ssd", "lmcache", "lmcache-mp", "hicache"}
)

// checkFields rejects a key of mapping m that is not in allowed (extra='forbid')
// and a key given twice, at the key's position.
func checkFields(file string, m *yaml.Node, where string, allowed []string) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if !slices.Contains(allowed, k.Value) {
			return posErr(file, k, "%s: unknown field %q (allowed: %s)", where, k.Value, strings.Join(allowed, ", "))
		}
		if line, dup := seen[k.Value]; dup {
			return posErr(file, k, "%s: field %q already set at line %d", where, k.Value, line)
		}
		seen[k.Value] = k.Line
	}
	return nil
}

// checkEnum rejects val (read from node n) when it is not in allowed; an
// absent field (nil n) passes.
func checkEnum(file string, n *yaml.Node, what, val string, allowed []string) error {
	n = resolveAlias(n)
	if n == nil || n.Tag == "!!null" && val == "" {
		return nil
	}
	if !slices.Contains(allowed, val) {
		return posErr(file, n, "%s: unknown value %q (want one of: %s)", what, val, strings.Join(allowed, ", "))
	}
	return nil
}

// nodePosInt reads an integer that must be at least min (counts: TP, EP,
// PP, DCP/PCP sizes, node counts ≥ 1; num-worker ≥ 0, 0 meaning aggregated
// multinode). An absent field gives 0.
func nodePosInt(file string, n *yaml.Node, what string, min int) (int, error) {
	v, err := nodeInt(file, n, what)
	if err != nil {
		return 0, err
	}
	if n = resolveAlias(n); n != nil && n.Tag != "!!null" && v < min {
		return 0, posErr(file, n, "%s: want an integer ≥ %d, got %d", what, min, v)
	}
	return v, nil
}

// checkRefPath rejects a recipe reference (CONFIG_FILE, EVAL_CONFIG_FILE,
// srt-recipe-dir, srt-recipe, eval-srt-recipe) that is empty, absolute, or
// that leaves its root with "..": every reference names a file inside the
// checkout (or the srt-slurm clone's recipes/).
func checkRefPath(file string, n *yaml.Node, what, p string) error {
	n = resolveAlias(n)
	if n == nil {
		return nil
	}
	switch c := path.Clean(strings.ReplaceAll(p, "\\", "/")); {
	case strings.TrimSpace(p) == "":
		return posErr(file, n, "%s: empty path", what)
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, "\\") || len(p) > 1 && p[1] == ':':
		return posErr(file, n, "%s: path %q is absolute, want a path inside the checkout", what, p)
	case c == ".." || strings.HasPrefix(c, "../"):
		return posErr(file, n, "%s: path %q escapes the checkout root", what, p)
	}
	return nil
}

// checkEraFields rejects mapping m when it sets both older (a field removed
// in the period) and any of newer (the fields that replaced it): no commit
// accepted both, so such a block is a mistake whatever the commit.
func checkEraFields(file string, m *yaml.Node, where, older string, newer ...string) error {
	if mapKey(m, older) == nil {
		return nil
	}
	for _, f := range newer {
		if k := mapKey(m, f); k != nil {
			return posErr(file, k, "%s: %s replaced %s on 2026-07-02 (InferenceX 303669b0e); give one or the other", where, f, older)
		}
	}
	return nil
}

// checkRow applies the row rules that need the entry: enums of
// spec-decoding, kv-offloading, kv-offload-backend, the legacy offloading
// and kv-p2p-transfer; agentic-only and multinode-only fields; offloading
// not mixed with its replacements; router on the entry or the row, never
// both. A disagg entry without kv-p2p-transfer is accepted: the field only
// exists from 2026-07-13 (see the table above).
func checkRow(file, where string, n *yaml.Node, e *Entry, r *Row) error {
	if err := checkEnum(file, mapGet(n, "spec-decoding"), where+".spec-decoding", r.SpecDecoding, specDecodings); err != nil {
		return err
	}
	if err := checkEnum(file, mapGet(n, "kv-offloading"), where+".kv-offloading", r.KVOffloading, kvOffloadings); err != nil {
		return err
	}
	if r.KVOffloadBackend != nil {
		kb, what := resolveAlias(mapGet(n, "kv-offload-backend")), where+".kv-offload-backend"
		if kb.Kind == yaml.MappingNode {
			kb, what = mapGet(kb, "name"), what+".name"
		}
		if err := checkEnum(file, kb, what, r.KVOffloadBackend.Name, kvOffloadBackends); err != nil {
			return err
		}
	}
	if err := checkEnum(file, mapGet(n, "offloading"), where+".offloading", r.Offloading, legacyOffloadings); err != nil {
		return err
	}
	if err := checkEraFields(file, n, where, "offloading", "kv-offloading", "kv-offload-backend"); err != nil {
		return err
	}
	kvp2p, err := nodeStr(file, mapGet(n, "kv-p2p-transfer"), where+".kv-p2p-transfer")
	if err != nil {
		return err
	}
	if err := checkEnum(file, mapGet(n, "kv-p2p-transfer"), where+".kv-p2p-transfer", kvp2p, kvP2PTransfers); err != nil {
		return err
	}
	for _, f := range agenticRowFields {
		if k := mapKey(n, f); k != nil && r.Scenario != "agentic-coding" {
			return posErr(file, k, "%s: %s is only allowed in agentic-coding rows", where, f)
		}
	}
	for _, f := range multinodeRowFields {
		if k := mapKey(n, f); k != nil && !e.Multinode {
			return posErr(file, k, "%s: %s is only allowed in rows of multinode entries", where, f)
		}
	}
	if k := mapKey(n, "router"); k != nil && e.Router != nil {
		return posErr(file, k, "%s: router is set on the entry too; give it on the entry or on the rows, never both", where)
	}
	if k := mapKey(n, "kv-p2p-transfer"); k != nil && e.KVP2P != "" {
		return posErr(file, k, "%s: kv-p2p-transfer is set on the entry too; give it on the entry or on the rows, never both", where)
	}
	return nil
}
