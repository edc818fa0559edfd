package infx

import (
	"fmt"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"

	"go.yaml.in/yaml/v3"
)

// Pos is a position in an input file (1-based line and column): the
// sandbox's, so that master-config and script positions are one type.
type Pos = sandbox.Pos

func nodePos(file string, n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: file}
	}
	return Pos{File: file, Line: n.Line, Col: n.Column}
}

// NameVersion is a master `router` or `kv-offload-backend` value:
// {name, version?}.
type NameVersion struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Setting is one `additional-settings` entry "NAME=value" of a prefill or
// decode worker block, e.g. CONFIG_FILE=recipes/<file>[:selector].
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Pos   Pos    `json:"pos"`
}

// WorkerBlock is a multinode row's prefill/decode block {num-worker, tp, ep,
// dp-attn, pp, dcp-size, pcp-size, hardware?, additional-settings?}. Labels
// and scheduling metadata: the recipe is what runs.
type WorkerBlock struct {
	NumWorker          int       `json:"numWorker"`
	TP                 int       `json:"tp,omitempty"`
	EP                 int       `json:"ep,omitempty"`
	PP                 int       `json:"pp,omitempty"`
	DPAttn             bool      `json:"dpAttn,omitempty"`
	Hardware           string    `json:"hardware,omitempty"`
	AdditionalSettings []Setting `json:"additionalSettings,omitempty"`
}

// Row is one search-space row of a scenario (InferenceX validation.py
// SingleNodeSearchSpaceEntry / MultiNodeSearchSpaceEntry / agentic variants).
// Index is the row's 0-based position among all rows of the config key, in
// file order across scenarios.
type Row struct {
	Index           int     `json:"index"`
	Scenario        string  `json:"scenario"` // fixed-seq-len | agentic-coding
	ISL             int     `json:"isl,omitempty"`
	OSL             int     `json:"osl,omitempty"`
	DRAMUtilization float64 `json:"dramUtilization,omitempty"`
	TP              int     `json:"tp,omitempty"`
	EP              int     `json:"ep,omitempty"`
	PP              int     `json:"pp,omitempty"`
	DPAttn          bool    `json:"dpAttn,omitempty"`
	SpecDecoding    string  `json:"specDecoding,omitempty"`
	Concurrencies   []int   `json:"concurrencies"`
	KVOffloading    string  `json:"kvOffloading,omitempty"`
	// KVOffloadBackend is the row's kv-offload-backend: {name, version?}
	// from 2026-07-13 (dbc515b38), a bare name string from 2026-07-02 to
	// 2026-07-13 (read as {name}); see validate.go.
	KVOffloadBackend *NameVersion `json:"kvOffloadBackend,omitempty"`
	// Offloading is the agentic row's legacy `offloading` value (none,
	// cpu, ssd, lmcache, lmcache-mp, hicache), the field kv-offloading and
	// kv-offload-backend replaced on 2026-07-02 (303669b0e); the checkout's
	// scripts of that time read it as $OFFLOADING. "" when absent.
	Offloading string `json:"offloading,omitempty"`
	// Duration is the agentic scenario's legacy `duration` in seconds
	// (InferenceX default 1800 when absent), removed on 2026-07-02
	// (303669b0e; the matrix then fixes 3600). 0 when absent.
	Duration int          `json:"duration,omitempty"`
	Router   *NameVersion `json:"router,omitempty"`
	Power    bool         `json:"power,omitempty"`
	Prefill  *WorkerBlock `json:"prefill,omitempty"`
	Decode   *WorkerBlock `json:"decode,omitempty"`
	// Worker is the aggregated multinode block (newer masters: `num-nodes`
	// plus `worker:`); NumNodes its node count.
	Worker   *WorkerBlock `json:"worker,omitempty"`
	NumNodes int          `json:"numNodes,omitempty"`
	// SrtRecipe is the new-layout `srt-recipe` value "<file>[:selector]";
	// SrtRecipePos its position.
	SrtRecipe    string `json:"srtRecipe,omitempty"`
	SrtRecipePos Pos    `json:"-"`
	Pos          Pos    `json:"pos"`
}

// Entry is one config key of a master config.
type Entry struct {
	Key          string       `json:"key"`
	Image        string       `json:"image"`
	Model        string       `json:"model"`
	ModelPrefix  string       `json:"modelPrefix"`
	Runner       string       `json:"runner"`
	Precision    string       `json:"precision"`
	Framework    string       `json:"framework"`
	Multinode    bool         `json:"multinode"`
	Disagg       bool         `json:"disagg"`
	Router       *NameVersion `json:"router,omitempty"`
	KVP2P        string       `json:"kvP2PTransfer,omitempty"`
	SrtRecipeDir string       `json:"srtRecipeDir,omitempty"`
	Rows         []Row        `json:"rows"`
	Pos          Pos          `json:"pos"`
}

// masterItem is one config key of a master file as read: its key node's
// position and either the parsed entry or the first problem found in it
// (a *PosError).
type masterItem struct {
	key   string
	pos   Pos
	entry *Entry
	err   error
}

// parseMaster reads a master config (a mapping of config key → entry). The
// error is for the file as a whole (YAML syntax, not a mapping); a config
// key whose entry breaks the schema comes back as an item with err set, so
// that one malformed key never hides the others. A key defined twice in
// the file is a problem of its second definition (PyYAML would silently
// keep the last one).
func parseMaster(file string, data []byte) ([]masterItem, error) {
	root, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	if root.Kind != yaml.MappingNode {
		return nil, posErr(file, root, "master config: want a mapping of config keys, got a %s", kindName(root))
	}
	var out []masterItem
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolveAlias(root.Content[i+1])
		it := masterItem{key: k.Value, pos: nodePos(file, k)}
		if prev, dup := seen[k.Value]; dup {
			it.err = posErr(file, k, "config key %q already defined at line %d", k.Value, prev.Line)
		} else {
			seen[k.Value] = k
			it.entry, it.err = parseEntry(file, k, v)
		}
		out = append(out, it)
	}
	return out, nil
}

func parseEntry(file string, k, v *yaml.Node) (*Entry, error) {
	e := &Entry{Key: k.Value, Pos: nodePos(file, k)}
	if k.Kind != yaml.ScalarNode {
		return nil, posErr(file, k, "config key: want a string, got a %s", kindName(k))
	}
	if strings.Contains(k.Value, "*") {
		// validation.py load_config_files: '*' is reserved for
		// process_changelog.py's key patterns.
		return nil, posErr(file, k, "config key %q: wildcard '*' is not allowed in master config keys", k.Value)
	}
	if v == nil || v.Kind != yaml.MappingNode {
		return nil, posErr(file, v, "config key %q: want a mapping, got a %s", k.Value, kindName(v))
	}
	if err := checkFields(file, v, e.Key, entryFields); err != nil {
		return nil, err
	}
	str := func(name string, dst *string) error {
		s, err := nodeStr(file, mapGet(v, name), e.Key+"."+name)
		*dst = s
		return err
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{
		{"image", &e.Image}, {"model", &e.Model}, {"model-prefix", &e.ModelPrefix},
		{"runner", &e.Runner}, {"precision", &e.Precision}, {"framework", &e.Framework},
		{"kv-p2p-transfer", &e.KVP2P}, {"srt-recipe-dir", &e.SrtRecipeDir},
	} {
		if err := str(f.name, f.dst); err != nil {
			return nil, err
		}
	}
	var err error
	if e.Multinode, err = nodeBool(file, mapGet(v, "multinode"), e.Key+".multinode"); err != nil {
		return nil, err
	}
	if e.Disagg, err = nodeBool(file, mapGet(v, "disagg"), e.Key+".disagg"); err != nil {
		return nil, err
	}
	if e.Router, err = parseNameVersion(file, mapGet(v, "router"), e.Key+".router"); err != nil {
		return nil, err
	}
	for _, req := range requiredEntryFields {
		if mapGet(v, req) == nil {
			return nil, posErr(file, k, "config key %q: missing field %q", e.Key, req)
		}
	}
	for _, f := range []struct {
		name    string
		val     string
		allowed []string
	}{
		{"precision", e.Precision, precisions}, {"framework", e.Framework, frameworks},
		{"kv-p2p-transfer", e.KVP2P, kvP2PTransfers},
	} {
		if err := checkEnum(file, mapGet(v, f.name), e.Key+"."+f.name, f.val, f.allowed); err != nil {
			return nil, err
		}
	}
	for _, f := range []string{"image", "model", "model-prefix", "runner"} {
		if s, _ := nodeStr(file, mapGet(v, f), ""); strings.TrimSpace(s) == "" {
			return nil, posErr(file, resolveAlias(mapGet(v, f)), "%s.%s: want a non-empty string", e.Key, f)
		}
	}
	if e.KVP2P != "" && !e.Multinode {
		return nil, posErr(file, resolveAlias(mapGet(v, "kv-p2p-transfer")), "%s.kv-p2p-transfer: only allowed with multinode: true", e.Key)
	}
	if err := checkRefPath(file, mapGet(v, "srt-recipe-dir"), e.Key+".srt-recipe-dir", e.SrtRecipeDir); err != nil {
		return nil, err
	}
	sc := resolveAlias(mapGet(v, "scenarios"))
	if sc.Kind != yaml.MappingNode {
		return nil, posErr(file, sc, "%s.scenarios: want a mapping, got a %s", e.Key, kindName(sc))
	}
	for i := 0; i+1 < len(sc.Content); i += 2 {
		name, groups := sc.Content[i].Value, resolveAlias(sc.Content[i+1])
		if name != "fixed-seq-len" && name != "agentic-coding" {
			return nil, posErr(file, sc.Content[i], "%s.scenarios: unknown scenario %q (want fixed-seq-len or agentic-coding)", e.Key, name)
		}
		if groups.Kind != yaml.SequenceNode {
			return nil, posErr(file, groups, "%s.scenarios.%s: want a list, got a %s", e.Key, name, kindName(groups))
		}
		for gi, g := range groups.Content {
			g = resolveAlias(g)
			path := fmt.Sprintf("%s.scenarios.%s[%d]", e.Key, name, gi)
			if g.Kind != yaml.MappingNode {
				return nil, posErr(file, g, "%s: want a mapping, got a %s", path, kindName(g))
			}
			base := Row{Scenario: name}
			if name == "fixed-seq-len" {
				if err := checkFields(file, g, path, fixedSeqLenFields); err != nil {
					return nil, err
				}
				for _, f := range []string{"isl", "osl"} {
					if mapGet(g, f) == nil {
						return nil, posErr(file, g, "%s: missing field %q", path, f)
					}
				}
			} else {
				if err := checkFields(file, g, path, agenticCodingFields); err != nil {
					return nil, err
				}
				if _, err := nodeStr(file, mapGet(g, "trace-source"), path+".trace-source"); err != nil {
					return nil, err
				}
				if err := checkEraFields(file, g, path, "duration", "dram-utilization"); err != nil {
					return nil, err
				}
				if base.Duration, err = nodePosInt(file, mapGet(g, "duration"), path+".duration", 1); err != nil {
					return nil, err
				}
			}
			if base.ISL, err = nodePosInt(file, mapGet(g, "isl"), path+".isl", 1); err != nil {
				return nil, err
			}
			if base.OSL, err = nodePosInt(file, mapGet(g, "osl"), path+".osl", 1); err != nil {
				return nil, err
			}
			if base.DRAMUtilization, err = nodeFloat(file, mapGet(g, "dram-utilization"), path+".dram-utilization"); err != nil {
				return nil, err
			}
			if du := resolveAlias(mapGet(g, "dram-utilization")); du != nil && (base.DRAMUtilization <= 0 || base.DRAMUtilization > 1) {
				return nil, posErr(file, du, "%s.dram-utilization: want a fraction in (0, 1], got %s", path, du.Value)
			}
			ss := resolveAlias(mapGet(g, "search-space"))
			if ss == nil {
				return nil, posErr(file, g, "%s: missing search-space", path)
			}
			if ss.Kind != yaml.SequenceNode {
				return nil, posErr(file, ss, "%s.search-space: want a list, got a %s", path, kindName(ss))
			}
			for ri, rn := range ss.Content {
				r := base
				r.Index = len(e.Rows)
				rp := fmt.Sprintf("%s.search-space[%d]", path, ri)
				rn = resolveAlias(rn)
				if err := parseRow(file, rp, rn, &r); err != nil {
					return nil, err
				}
				if err := checkRow(file, rp, rn, e, &r); err != nil {
					return nil, err
				}
				e.Rows = append(e.Rows, r)
			}
		}
	}
	return e, nil
}

func parseNameVersion(file string, n *yaml.Node, what string) (*NameVersion, error) {
	n = resolveAlias(n)
	if n == nil || n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, posErr(file, n, "%s: want {name, version}, got a %s", what, kindName(n))
	}
	if err := checkFields(file, n, what, nameVersionFields); err != nil {
		return nil, err
	}
	nv := &NameVersion{}
	var err error
	if nv.Name, err = nodeStr(file, mapGet(n, "name"), what+".name"); err != nil {
		return nil, err
	}
	if strings.TrimSpace(nv.Name) == "" {
		return nil, posErr(file, n, "%s: missing name", what)
	}
	if nv.Version, err = nodeStr(file, mapGet(n, "version"), what+".version"); err != nil {
		return nil, err
	}
	return nv, nil
}

// parseKVOffloadBackend reads a row's kv-offload-backend: {name, version?}
// (from 2026-07-13) or a bare name (2026-07-02 to 2026-07-13), which gives
// {name} with no version.
func parseKVOffloadBackend(file string, n *yaml.Node, what string) (*NameVersion, error) {
	n = resolveAlias(n)
	if n == nil || n.Tag == "!!null" || n.Kind != yaml.ScalarNode {
		return parseNameVersion(file, n, what)
	}
	if strings.TrimSpace(n.Value) == "" {
		return nil, posErr(file, n, "%s: empty name", what)
	}
	return &NameVersion{Name: n.Value}, nil
}

func parseRow(file, path string, n *yaml.Node, r *Row) error {
	if n == nil || n.Kind != yaml.MappingNode {
		return posErr(file, n, "%s: want a mapping, got a %s", path, kindName(n))
	}
	r.Pos = nodePos(file, n)
	if err := checkFields(file, n, path, rowFields); err != nil {
		return err
	}
	var err error
	ints := []struct {
		name string
		dst  *int
	}{{"tp", &r.TP}, {"ep", &r.EP}, {"pp", &r.PP}, {"dcp-size", nil}, {"pcp-size", nil}}
	for _, f := range ints {
		v, err := nodePosInt(file, mapGet(n, f.name), path+"."+f.name, 1)
		if err != nil {
			return err
		}
		if f.dst != nil {
			*f.dst = v
		}
	}
	if r.DPAttn, err = nodeBool(file, mapGet(n, "dp-attn"), path+".dp-attn"); err != nil {
		return err
	}
	if r.Power, err = nodeBool(file, mapGet(n, "power"), path+".power"); err != nil {
		return err
	}
	if _, err = nodeBool(file, mapGet(n, "require-power"), path+".require-power"); err != nil {
		return err
	}
	if r.SpecDecoding, err = nodeStr(file, mapGet(n, "spec-decoding"), path+".spec-decoding"); err != nil {
		return err
	}
	if r.KVOffloading, err = nodeStr(file, mapGet(n, "kv-offloading"), path+".kv-offloading"); err != nil {
		return err
	}
	if r.Offloading, err = nodeStr(file, mapGet(n, "offloading"), path+".offloading"); err != nil {
		return err
	}
	if r.KVOffloadBackend, err = parseKVOffloadBackend(file, mapGet(n, "kv-offload-backend"), path+".kv-offload-backend"); err != nil {
		return err
	}
	if r.Router, err = parseNameVersion(file, mapGet(n, "router"), path+".router"); err != nil {
		return err
	}
	if sr := mapGet(n, "srt-recipe"); sr != nil {
		if r.SrtRecipe, err = nodeStr(file, sr, path+".srt-recipe"); err != nil {
			return err
		}
		r.SrtRecipePos = nodePos(file, sr)
		f, _ := splitSelector(r.SrtRecipe)
		if err := checkRefPath(file, sr, path+".srt-recipe", f); err != nil {
			return err
		}
	}
	if er := mapGet(n, "eval-srt-recipe"); er != nil {
		s, err := nodeStr(file, er, path+".eval-srt-recipe")
		if err != nil {
			return err
		}
		f, _ := splitSelector(s)
		if err := checkRefPath(file, er, path+".eval-srt-recipe", f); err != nil {
			return err
		}
	}
	// Concurrencies: conc-list, or conc-start..conc-end doubling
	// (utils/matrix_logic/generate_sweep_configs.py).
	cl, cs, ce := resolveAlias(mapGet(n, "conc-list")), resolveAlias(mapGet(n, "conc-start")), resolveAlias(mapGet(n, "conc-end"))
	switch {
	case cl != nil && (cs != nil || ce != nil):
		k := mapKey(n, "conc-start")
		if k == nil {
			k = mapKey(n, "conc-end")
		}
		return posErr(file, k, "%s: give either conc-list or conc-start/conc-end, not both", path)
	case cl != nil:
		if cl.Kind != yaml.SequenceNode {
			return posErr(file, cl, "%s.conc-list: want a list, got a %s", path, kindName(cl))
		}
		if len(cl.Content) > MaxRowPoints {
			return posErr(file, cl, "%s.conc-list: %d concurrencies, more than the %d points a row may have", path, len(cl.Content), MaxRowPoints)
		}
		for i, c := range cl.Content {
			v, err := nodeInt(file, c, fmt.Sprintf("%s.conc-list[%d]", path, i))
			if err != nil {
				return err
			}
			if v <= 0 || v > MaxConcurrency {
				return posErr(file, c, "%s.conc-list[%d]: concurrency must be in 1..%d, got %d", path, i, MaxConcurrency, v)
			}
			r.Concurrencies = append(r.Concurrencies, v)
		}
	case cs != nil || ce != nil:
		if cs == nil {
			return posErr(file, mapKey(n, "conc-end"), "%s: conc-end without conc-start", path)
		}
		if ce == nil {
			return posErr(file, mapKey(n, "conc-start"), "%s: conc-start without conc-end", path)
		}
		start, err := nodeInt(file, cs, path+".conc-start")
		if err != nil {
			return err
		}
		end, err := nodeInt(file, ce, path+".conc-end")
		if err != nil {
			return err
		}
		switch {
		case start <= 0 || start > MaxConcurrency:
			return posErr(file, cs, "%s.conc-start: concurrency must be in 1..%d, got %d", path, MaxConcurrency, start)
		case end > MaxConcurrency:
			return posErr(file, ce, "%s.conc-end: concurrency must be in 1..%d, got %d", path, MaxConcurrency, end)
		case end < start:
			return posErr(file, ce, "%s.conc-end: %d is below conc-start %d", path, end, start)
		}
		// start ≥ 1 and end ≤ MaxConcurrency: at most 21 doublings.
		for c := start; c <= end; c *= 2 {
			r.Concurrencies = append(r.Concurrencies, c)
		}
	}
	if len(r.Concurrencies) == 0 {
		return posErr(file, n, "%s: no concurrency (want conc-list or conc-start/conc-end)", path)
	}
	if r.NumNodes, err = nodePosInt(file, mapGet(n, "num-nodes"), path+".num-nodes", 1); err != nil {
		return err
	}
	for _, role := range []string{"prefill", "decode", "worker"} {
		wn := resolveAlias(mapGet(n, role))
		if wn == nil {
			continue
		}
		wb, err := parseWorkerBlock(file, path+"."+role, wn)
		if err != nil {
			return err
		}
		switch role {
		case "prefill":
			r.Prefill = wb
		case "decode":
			r.Decode = wb
		default:
			r.Worker = wb
		}
	}
	return nil
}

func parseWorkerBlock(file, path string, n *yaml.Node) (*WorkerBlock, error) {
	if n.Kind != yaml.MappingNode {
		return nil, posErr(file, n, "%s: want a mapping, got a %s", path, kindName(n))
	}
	if err := checkFields(file, n, path, workerFields); err != nil {
		return nil, err
	}
	wb := &WorkerBlock{}
	var err error
	if wb.NumWorker, err = nodePosInt(file, mapGet(n, "num-worker"), path+".num-worker", 0); err != nil {
		return nil, err
	}
	var dcp, pcp int
	for _, f := range []struct {
		name string
		dst  *int
	}{{"tp", &wb.TP}, {"ep", &wb.EP}, {"pp", &wb.PP}, {"dcp-size", &dcp}, {"pcp-size", &pcp}} {
		if *f.dst, err = nodePosInt(file, mapGet(n, f.name), path+"."+f.name, 1); err != nil {
			return nil, err
		}
	}
	if wb.DPAttn, err = nodeBool(file, mapGet(n, "dp-attn"), path+".dp-attn"); err != nil {
		return nil, err
	}
	if wb.Hardware, err = nodeStr(file, mapGet(n, "hardware"), path+".hardware"); err != nil {
		return nil, err
	}
	if as := resolveAlias(mapGet(n, "additional-settings")); as != nil && as.Tag != "!!null" {
		if as.Kind != yaml.SequenceNode {
			return nil, posErr(file, as, "%s.additional-settings: want a list, got a %s", path, kindName(as))
		}
		for i, s := range as.Content {
			v, err := nodeStr(file, s, fmt.Sprintf("%s.additional-settings[%d]", path, i))
			if err != nil {
				return nil, err
			}
			name, val, ok := strings.Cut(v, "=")
			if !ok {
				return nil, posErr(file, s, "%s.additional-settings[%d]: want NAME=value, got %q", path, i, v)
			}
			st := Setting{Name: strings.TrimSpace(name), Value: strings.TrimSpace(val), Pos: nodePos(file, s)}
			if st.Name == "CONFIG_FILE" || st.Name == "EVAL_CONFIG_FILE" {
				f, _ := splitSelector(st.Value)
				if err := checkRefPath(file, s, fmt.Sprintf("%s.additional-settings[%d]: %s", path, i, st.Name), f); err != nil {
					return nil, err
				}
			}
			wb.AdditionalSettings = append(wb.AdditionalSettings, st)
		}
	}
	return wb, nil
}

// setting returns the first additional-settings entry name of the row's
// prefill, decode, then worker block.
func (r *Row) setting(name string) (Setting, bool) {
	for _, wb := range []*WorkerBlock{r.Prefill, r.Decode, r.Worker} {
		if wb == nil {
			continue
		}
		for _, s := range wb.AdditionalSettings {
			if s.Name == name {
				return s, true
			}
		}
	}
	return Setting{}, false
}
