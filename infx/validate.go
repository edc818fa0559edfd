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
	agenticCodingFields = []string{"trace-source", "dram-utilization", "search-space"}
	rowFields           = []string{"tp", "ep", "dp-attn", "pp", "dcp-size", "pcp-size", "spec-decoding",
		"conc-start", "conc-end", "conc-list", "router", "kv-p2p-transfer",
		"kv-offloading", "kv-offload-backend", "power", "require-power",
		"prefill", "decode", "worker", "num-nodes", "srt-recipe", "eval-srt-recipe"}
	// agenticRowFields may only appear in agentic-coding rows ("Agentic rows
	// add …").
	agenticRowFields = []string{"kv-offloading", "kv-offload-backend", "power", "require-power"}
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
	// real entry (corpus: configs/nvidia-master.yaml at 843c6254).
	kvP2PTransfers = []string{"nixl", "mooncake", "mori", "ucx"}
	specDecodings  = []string{"mtp", "draft_model", "none"}
	kvOffloadings  = []string{"none", "dram"}
	// kvOffloadBackends: the spec lists hicache, lmcache, mooncake,
	// vllm-simple; native is used by real entries (corpus).
	kvOffloadBackends = []string{"hicache", "lmcache", "mooncake", "vllm-simple", "native"}
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

// checkRow applies the row rules that need the entry: enums of
// spec-decoding, kv-offloading, kv-offload-backend and kv-p2p-transfer;
// agentic-only and multinode-only fields; router on the entry or the row,
// never both; a disagg entry needs kv-p2p-transfer on the entry or the row.
func checkRow(file, where string, n *yaml.Node, e *Entry, r *Row) error {
	if err := checkEnum(file, mapGet(n, "spec-decoding"), where+".spec-decoding", r.SpecDecoding, specDecodings); err != nil {
		return err
	}
	if err := checkEnum(file, mapGet(n, "kv-offloading"), where+".kv-offloading", r.KVOffloading, kvOffloadings); err != nil {
		return err
	}
	if r.KVOffloadBackend != nil {
		if err := checkEnum(file, mapGet(resolveAlias(mapGet(n, "kv-offload-backend")), "name"), where+".kv-offload-backend.name", r.KVOffloadBackend.Name, kvOffloadBackends); err != nil {
			return err
		}
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
	if e.Disagg && e.KVP2P == "" && kvp2p == "" {
		return posErr(file, n, "%s: disagg entry %q needs kv-p2p-transfer (on the entry or on every row)", where, e.Key)
	}
	return nil
}
