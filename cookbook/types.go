package cookbook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// This file holds the typed form of an AgentX data file
// (sgl-project/sglang docs/src/snippets/agentx/<org>/<model>.jsx, the
// `export const agentx = {...}` literal). Field names follow the data's keys;
// the JSON tags are the keys themselves, so the types can be encoded back
// into the same shape. Objects whose key order is meaningful (env maps, diff
// maps, files) are ordered slices with their own UnmarshalJSON/MarshalJSON.
//
// Decoding is lenient about shapes inside those ordered types (a non-string
// env value, say): the problem is recorded in the value and reported by the
// validation pass with its full JSON path, so every structural error names
// the file, line:col and JSON path.

// Data is the whole `agentx` literal. Source: spec agentx-format.md (a),
// "Top-level keys".
type Data struct {
	Model       string       `json:"model"`       // display name, e.g. "Qwen3.5"
	GeneratedOn string       `json:"generatedOn"` // sync date, "2026-10-08"
	Source      SyncSource   `json:"source"`
	Hardware    []Hardware   `json:"hardware"`
	Checkpoints []Checkpoint `json:"checkpoints"`
	Envs        []Env        `json:"envs"`       // referenced by BlockEntry.EnvRef
	KVMooncake  *KVMooncake  `json:"kvMooncake"` // donor settings of the derived mooncake tier
	Files       Files        `json:"files"`      // config files keyed "<name>#<8-hex sha256>"
	Cells       []Cell       `json:"cells"`
}

// SyncSource is the top-level `source`: the InferenceX repository, the main
// commit the sync read, and the open PRs it mirrored (keyed by PR number as a
// string).
type SyncSource struct {
	Repo string            `json:"repo"` // "https://github.com/SemiAnalysisAI/InferenceX"
	Main string            `json:"main"` // full sha of InferenceX main
	PRs  map[string]SyncPR `json:"prs"`
}

// SyncPR is one entry of source.prs. Run is a full Actions URL or "" (null in
// the data); Status is "verified-pr" or "in-progress".
type SyncPR struct {
	Run    string `json:"run"`
	SHA    string `json:"sha"`
	Status string `json:"status"`
}

// Hardware is one hardware chip, {"id": "gb300", "label": "GB300"}.
type Hardware struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// Checkpoint is one checkpoint (a Hugging Face model id); the older data
// format also carries Precision ("fp4", "fp8").
type Checkpoint struct {
	ID        string `json:"id"`
	Precision string `json:"precision,omitempty"`
}

// KVMooncake is the top-level `kvMooncake`: settings taken from a donor run
// that the page adds when a reader switches to the "mooncake" KV tier
// (spec (a) "kvMooncake", (b) step 4). Master maps a router name ("dynamo",
// "sglang") to the full mooncake-master block inserted for that router.
type KVMooncake struct {
	Donor         string                `json:"donor"`
	DonorHardware string                `json:"donorHardware"`
	Master        map[string]BlockEntry `json:"master"`
	Args          Args                  `json:"args"`       // added to agg/prefill workers
	Env           Env                   `json:"env"`        // added to agg/prefill workers
	DecodeEnv     Env                   `json:"decode_env"` // added to decode workers
}

// Cell is one deployment shape (spec (a) "cells[i]").
type Cell struct {
	ID          string            `json:"id"`
	HW          string            `json:"hw"`
	Ckpt        string            `json:"ckpt"`
	Label       string            `json:"label"`
	Detail      string            `json:"detail"`
	GPUs        int               `json:"gpus"`
	ConfigKey   string            `json:"configKey"` // InferenceX config key
	Image       string            `json:"image"`
	ImageStatus string            `json:"imageStatus"` // ok | pruned | digest-only
	ImageCommit string            `json:"imageCommit"` // "" when null
	Submitted   string            `json:"submitted"`   // router SA ran: sglang | dynamo
	Setup       []SetupStep       `json:"setup"`
	Disclosures []string          `json:"disclosures"`
	KV          CellKV            `json:"kv"`
	Prov        *Prov             `json:"prov,omitempty"` // newer format only
	Points      []Point           `json:"points"`
	Routers     map[string]Router `json:"routers"` // "sglang", "dynamo"
}

// SetupStep is one cell.setup item: a command or a script to run before the
// launch, with the reason.
type SetupStep struct {
	Kind    string `json:"kind"`
	Command string `json:"command,omitempty"`
	Script  string `json:"script,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// CellKV is cell.kv: the KV tiers offered for the cell (a subset of none,
// hicache, mooncake), the reasons for unavailable ones, and the HiCache
// settings (nil when HiCache is unavailable).
type CellKV struct {
	Available   []string          `json:"available"`
	Unavailable map[string]string `json:"unavailable"`
	HiCache     *KVHiCache        `json:"hicache,omitempty"`
}

// KVHiCache is cell.kv.hicache: args added to agg/prefill workers when the
// reader selects the hicache tier, and the donor run they come from.
type KVHiCache struct {
	Args          Args   `json:"args"`
	Donor         string `json:"donor"`
	DonorHardware string `json:"donorHardware"`
}

// Prov is provenance: cell.prov in the newer format, and the per-point keys
// that override it (spec (c)). Run is "<run_id>" or "<run_id>/attempts/<n>";
// Recipe is a path inside the InferenceX repository; PR is a string.
type Prov struct {
	SHA     string `json:"sha,omitempty"`
	Recipe  string `json:"recipe,omitempty"`
	Run     string `json:"run,omitempty"`
	PR      string `json:"pr,omitempty"`
	Comment string `json:"comment,omitempty"`
	Status  string `json:"status,omitempty"` // verified | verified-pr | in-progress
	Date    string `json:"date,omitempty"`
}

// Point is one concurrency point of a cell (spec (a) "cell.points[j]"). The
// provenance keys are optional overrides of cell.prov (newer format) or the
// point's own pre-expanded provenance (older format: RecipeURL, RunURL, …).
type Point struct {
	Concs    []int  `json:"concs"`
	Item     int    `json:"item"`
	KV       string `json:"kv"` // measured KV tier
	GoldenAL string `json:"goldenAL,omitempty"`
	Override string `json:"override,omitempty"` // recipe selector, e.g. "override_1p1d", "zip_override_x[2]", "base"
	Job      string `json:"job,omitempty"`      // "<run>/job/<id>"

	// Provenance overrides (newer format) / per-point provenance (older).
	Recipe  string `json:"recipe,omitempty"`
	SHA     string `json:"sha,omitempty"`
	PR      string `json:"pr,omitempty"`
	Run     string `json:"run,omitempty"`
	Comment string `json:"comment,omitempty"`
	Status  string `json:"status,omitempty"`
	Date    string `json:"date,omitempty"`

	// Older format: URLs pre-expanded.
	RecipeURL  string `json:"recipeUrl,omitempty"`
	RunURL     string `json:"runUrl,omitempty"`
	PRURL      string `json:"prUrl,omitempty"`
	JobURL     string `json:"jobUrl,omitempty"`
	UseComment string `json:"useComment,omitempty"`

	// Patch holds the per-router changes relative to point 0 (points >= 1).
	Patch Patch `json:"patch,omitempty"`
}

// Router is cell.routers[r]: install lines ("#…" = comment), config file keys
// (into Data.Files) and the blocks in launch order (full or delta form).
type Router struct {
	Install []string     `json:"install"`
	Files   []string     `json:"files"`
	Blocks  []BlockEntry `json:"blocks"`
}

// BlockEntry is one process of a router, in full form (Kind, Cmd, Args, Env or
// EnvRef, …) or delta form (From / Ref + sibling overrides, Drop, Diff); see
// spec (a) "Blocks — full form" / "Blocks — delta forms". Integer fields use
// 0 for "absent"; EnvRef and From are pointers because 0 is a valid index.
type BlockEntry struct {
	Kind           string     `json:"kind,omitempty"`
	Role           string     `json:"role,omitempty"` // workers: agg | prefill | decode
	Workers        int        `json:"workers,omitempty"`
	NodesPerWorker int        `json:"nodes_per_worker,omitempty"`
	Count          int        `json:"count,omitempty"`
	CountNodes     int        `json:"count_nodes,omitempty"`
	Ports          []string   `json:"ports,omitempty"`
	Preamble       []string   `json:"preamble,omitempty"`
	GPUPinning     [][]string `json:"gpu_pinning,omitempty"`
	Cmd            string     `json:"cmd,omitempty"`
	Env            Env        `json:"env,omitempty"`
	EnvRef         *int       `json:"envRef,omitempty"`
	Args           Args       `json:"args,omitempty"`

	From *int     `json:"from,omitempty"` // block index in the same cell's submitted router
	Ref  *Ref     `json:"ref,omitempty"`  // [cell, router, block]
	Drop []string `json:"drop,omitempty"` // keys removed from the referenced block
	Diff *Diff    `json:"diff,omitempty"`

	// badKey / bad record the first key outside blockKeys or the first
	// type error, reported with its JSON path by validation.
	badKey, bad string
}

// blockKeys is the closed key set of a block object (full form and delta
// form), spec agentx-format.md (a) "Blocks — full form" / "Blocks — delta
// forms" (sgl-project/sglang docs/src/snippets/_agentx.jsx). An unknown key
// would be silently dropped by the page's copy, so it is an input error.
var blockKeys = []string{
	"kind", "role", "workers", "nodes_per_worker", "count", "count_nodes", "ports", "preamble",
	"gpu_pinning", "cmd", "env", "envRef", "args", "from", "ref", "drop", "diff",
}

// UnmarshalJSON reads a block object. Keys outside blockKeys and values of
// the wrong JSON type are recorded (not returned) so that validation can
// report them with the block's JSON path and line:col.
func (b *BlockEntry) UnmarshalJSON(data []byte) error {
	type plain BlockEntry
	var p plain
	if isNull(data) {
		*b = BlockEntry{}
		return nil
	}
	err := json.Unmarshal(data, &p)
	*b = BlockEntry(p)
	b.badKey, b.bad = "", ""
	if err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			b.badKey = te.Field
			b.bad = fmt.Sprintf("cannot use JSON %s as %s", te.Value, te.Type)
		} else {
			b.bad = "want a block object, got " + abbrev(data)
		}
		return nil
	}
	if key, ok := unknownKey(data, isBlockKey); ok {
		b.badKey = key
		b.bad = fmt.Sprintf("unknown block key %q (want one of %s)", key, strings.Join(blockKeys, ", "))
	}
	return nil
}

// isBlockKey reports whether the raw key text (without quotes) is in
// blockKeys; a switch on string(k) does not allocate.
func isBlockKey(k []byte) bool {
	switch string(k) {
	case "kind", "role", "workers", "nodes_per_worker", "count", "count_nodes", "ports", "preamble",
		"gpu_pinning", "cmd", "env", "envRef", "args", "from", "ref", "drop", "diff":
		return true
	}
	return false
}

// unknownKey scans the top-level keys of the JSON object data (already
// known to be valid JSON) and returns the first one known rejects, exactly
// as written (keys are compared byte for byte, like JavaScript does; an
// escaped key is unescaped first). It is a single pass over the bytes, so
// checking every block of a large file stays cheap.
func unknownKey(data []byte, known func([]byte) bool) (string, bool) {
	depth, expectKey := 0, false
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			depth++
			expectKey = depth == 1
		case '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(data) {
				return "", false
			}
			if depth == 1 && expectKey {
				expectKey = false
				raw := data[i+1 : j]
				if bytes.IndexByte(raw, '\\') >= 0 {
					var k string
					if json.Unmarshal(data[i:j+1], &k) == nil && !known([]byte(k)) {
						return k, true
					}
				} else if !known(raw) {
					return string(raw), true
				}
			}
			i = j
		}
	}
	return "", false
}

// isDelta reports whether b is a delta entry (from/ref).
func (b *BlockEntry) isDelta() bool { return b.From != nil || b.Ref != nil }

// Ref is a block reference [cellIndex, routerName, blockIndex].
type Ref struct {
	Cell   int
	Router string
	Block  int
	bad    string
}

// UnmarshalJSON reads [int, string, int].
func (r *Ref) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || len(raw) != 3 ||
		json.Unmarshal(raw[0], &r.Cell) != nil || json.Unmarshal(raw[1], &r.Router) != nil ||
		json.Unmarshal(raw[2], &r.Block) != nil {
		r.bad = "want [cellIndex, routerName, blockIndex], got " + abbrev(data)
	}
	return nil
}

// MarshalJSON writes [cell, "router", block].
func (r Ref) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{r.Cell, r.Router, r.Block})
}

// Args is a block's ordered argument list: each entry is [flag, value…]
// (a bare flag has no value). Values are always strings.
type Args [][]string

// EnvVar is one NAME=value pair of an Env.
type EnvVar struct {
	Name  string
	Value string
}

// Env is an ordered {NAME: "value"} map, in data order.
type Env []EnvVar

// UnmarshalJSON reads a JSON object of strings, keeping key order. A non-string
// value is kept as its JSON text and reported by validation.
func (e *Env) UnmarshalJSON(data []byte) error {
	dec := newDecoder(data)
	*e = decodeEnv(dec, data)
	return nil
}

// decodeEnv reads the next value of dec as an Env (nil for null). Shape
// problems become entries whose Value starts with badValue.
func decodeEnv(dec *json.Decoder, whole []byte) Env {
	t, err := dec.Token()
	if err != nil {
		return Env{{Value: badValue + abbrev(whole)}}
	}
	if t == nil {
		return nil
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		skipRest(dec, t)
		return Env{{Value: badValue + "a non-object"}}
	}
	out := Env{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return append(out, EnvVar{Value: badValue + abbrev(whole)})
		}
		key, _ := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return append(out, EnvVar{Name: key, Value: badValue + abbrev(whole)})
		}
		v, ok := vt.(string)
		if !ok {
			v = badValue + tokenText(vt)
			skipRest(dec, vt)
		}
		out = append(out, EnvVar{Name: key, Value: v})
	}
	closeDelim(dec) // '}'
	return out
}

// newDecoder returns a json.Decoder over data.
func newDecoder(data []byte) *json.Decoder { return json.NewDecoder(bytes.NewReader(data)) }

// closeDelim reads the '}' or ']' that ends the object or array whose
// members dec.More() has just said are done. It cannot fail: the decoders
// here run inside UnmarshalJSON, whose input encoding/json has already
// checked is one valid JSON value.
func closeDelim(dec *json.Decoder) { _, _ = dec.Token() }

// skipRest skips the rest of a value whose first token t was just read.
func skipRest(dec *json.Decoder, t json.Token) {
	d, ok := t.(json.Delim)
	if !ok || d == '}' || d == ']' {
		return
	}
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
}

// tokenText describes a token for error messages.
func tokenText(t json.Token) string {
	switch v := t.(type) {
	case nil:
		return "null"
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	case string:
		return strconv.Quote(v)
	}
	return fmt.Sprint(t)
}

// badValue prefixes values that were not JSON strings (never a valid env
// value: it contains a NUL byte), so validation can report them.
const badValue = "\x00bad:"

// MarshalJSON writes the env as an object in order.
func (e Env) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range e {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(v.Name)
		val, _ := json.Marshal(v.Value)
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Diff is a delta: args and env changes, or a whole replacement Block
// (spec (a) "diff semantics", (b) step 3).
type Diff struct {
	Args  []ArgChange `json:"-"`
	Env   []EnvChange `json:"-"`
	Block *BlockEntry `json:"-"`
	bad   string
	// badKey is the key of d.bad's problem when it is an unknown key.
	badKey string
}

// ArgChange is one entry of diff.args: flag → null (Remove every entry),
// [] (bare flag) or [v…] (replace the values, or append the flag).
type ArgChange struct {
	Flag   string
	Values []string
	Remove bool
}

// EnvChange is one entry of diff.env: NAME → null (Remove) or "value".
type EnvChange struct {
	Name   string
	Value  string
	Remove bool
}

// UnmarshalJSON reads {"args": {...}, "env": {...}} or {"block": {...}}.
// The key set is closed (spec (a) "diff semantics"): any other key, or block
// next to args/env, is recorded and reported by validation.
func (d *Diff) UnmarshalJSON(data []byte) error {
	dec := newDecoder(data)
	t, err := dec.Token()
	if err != nil {
		d.bad = "want an object, got " + abbrev(data)
		return nil
	}
	decodeDiff(dec, t, d)
	return nil
}

// decodeDiff reads a diff object whose first token t was just read.
func decodeDiff(dec *json.Decoder, t json.Token, d *Diff) {
	if dl, ok := t.(json.Delim); !ok || dl != '{' {
		d.bad = "want an object, got " + tokenText(t)
		skipRest(dec, t)
		return
	}
	setBad := func(format string, args ...any) {
		if d.bad == "" {
			d.bad = fmt.Sprintf(format, args...)
		}
	}
	hasArgsEnv := false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			setBad("%v", err)
			return
		}
		key, _ := kt.(string)
		switch key {
		case "block":
			var b BlockEntry
			if err := dec.Decode(&b); err != nil {
				setBad("block: %v", err)
				return
			}
			d.Block = &b
		case "args", "env":
			hasArgsEnv = true
			vt, err := dec.Token()
			if err != nil {
				setBad("%v", err)
				return
			}
			if vt == nil {
				continue
			}
			if dl, ok := vt.(json.Delim); !ok || dl != '{' {
				setBad("%s: want an object, got %s", key, tokenText(vt))
				skipRest(dec, vt)
				continue
			}
			for dec.More() {
				nt, err := dec.Token()
				if err != nil {
					setBad("%v", err)
					return
				}
				name, _ := nt.(string)
				vt, err := dec.Token()
				if err != nil {
					setBad("%v", err)
					return
				}
				if key == "env" {
					switch v := vt.(type) {
					case nil:
						d.Env = append(d.Env, EnvChange{Name: name, Remove: true})
					case string:
						d.Env = append(d.Env, EnvChange{Name: name, Value: v})
					default:
						setBad("env[%q]: want null or a string, got %s", name, tokenText(vt))
						skipRest(dec, vt)
					}
					continue
				}
				if vt == nil {
					d.Args = append(d.Args, ArgChange{Flag: name, Remove: true})
					continue
				}
				if dl, ok := vt.(json.Delim); !ok || dl != '[' {
					setBad("args[%q]: want null or an array of strings, got %s", name, tokenText(vt))
					skipRest(dec, vt)
					continue
				}
				vals := []string{}
				for dec.More() {
					et, err := dec.Token()
					if err != nil {
						setBad("%v", err)
						return
					}
					v, ok := et.(string)
					if !ok {
						setBad("args[%q]: want null or an array of strings, got an element %s", name, tokenText(et))
						skipRest(dec, et)
						continue
					}
					vals = append(vals, v)
				}
				closeDelim(dec) // ']'
				d.Args = append(d.Args, ArgChange{Flag: name, Values: vals})
			}
			closeDelim(dec) // '}'
		default:
			if d.bad == "" {
				d.badKey = key
			}
			setBad("unknown diff key %q (want args and/or env, or block)", key)
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return
			}
		}
	}
	closeDelim(dec) // '}'
	if d.bad == "" && d.Block != nil && hasArgsEnv {
		d.badKey = "block"
		d.bad = `a diff is either {"args", "env"} or {"block"}, not both`
	}
}

// MarshalJSON writes the diff back in its data shape.
func (d Diff) MarshalJSON() ([]byte, error) {
	if d.Block != nil {
		return json.Marshal(map[string]*BlockEntry{"block": d.Block})
	}
	var b bytes.Buffer
	b.WriteByte('{')
	if d.Args != nil {
		b.WriteString(`"args":{`)
		for i, a := range d.Args {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(a.Flag)
			b.Write(k)
			b.WriteByte(':')
			if a.Remove {
				b.WriteString("null")
			} else {
				v, _ := json.Marshal(nonNil(a.Values))
				b.Write(v)
			}
		}
		b.WriteByte('}')
	}
	if d.Env != nil {
		if d.Args != nil {
			b.WriteByte(',')
		}
		b.WriteString(`"env":{`)
		for i, e := range d.Env {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(e.Name)
			b.Write(k)
			b.WriteByte(':')
			if e.Remove {
				b.WriteString("null")
			} else {
				v, _ := json.Marshal(e.Value)
				b.Write(v)
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Patch is point.patch: per router, the changes of this point relative to
// point 0 (spec (a) "point.patch"), in data order.
type Patch []RouterPatch

// RouterPatch is one router's patch. Exactly one shape holds:
//   - Null: null in the data — identical to point 0;
//   - Replace != nil: {"replace": [blocks…]} — the whole block list;
//   - otherwise Blocks: an array aligned with the materialized block list,
//     a nil element meaning "unchanged".
type RouterPatch struct {
	Router  string
	Null    bool
	Blocks  []*Diff
	Replace []BlockEntry
	bad     string
	badKey  string // key of bad when it is an unknown key
}

// UnmarshalJSON reads {router: null | [diff|null…] | {"replace": [...]}}.
func (p *Patch) UnmarshalJSON(data []byte) error {
	dec := newDecoder(data)
	t, err := dec.Token()
	if err != nil {
		*p = Patch{{bad: "want an object keyed by router, got " + abbrev(data)}}
		return nil
	}
	if t == nil {
		*p = nil
		return nil
	}
	if dl, ok := t.(json.Delim); !ok || dl != '{' {
		*p = Patch{{bad: "want an object keyed by router, got " + abbrev(data)}}
		return nil
	}
	out := Patch{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			break
		}
		rp := RouterPatch{Router: kt.(string)}
		vt, err := dec.Token()
		if err != nil {
			rp.bad = err.Error()
			out = append(out, rp)
			break
		}
		switch v := vt.(type) {
		case nil:
			rp.Null = true
		case json.Delim:
			if v == '[' {
				rp.Blocks = []*Diff{}
				for dec.More() {
					et, err := dec.Token()
					if err != nil {
						rp.bad = err.Error()
						break
					}
					if et == nil {
						rp.Blocks = append(rp.Blocks, nil)
						continue
					}
					d := &Diff{}
					decodeDiff(dec, et, d)
					rp.Blocks = append(rp.Blocks, d)
				}
				closeDelim(dec) // ']'
				break
			}
			// {"replace": [...]}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					rp.bad = err.Error()
					break
				}
				if kt == "replace" {
					var blocks []BlockEntry
					if err := dec.Decode(&blocks); err != nil {
						rp.bad = "replace: " + err.Error()
						break
					}
					rp.Replace = blocks
					if rp.Replace == nil {
						rp.Replace = []BlockEntry{}
					}
					continue
				}
				if rp.bad == "" {
					rp.badKey, _ = kt.(string)
					rp.bad = fmt.Sprintf(`unknown patch key %q (want {"replace": [...]})`, rp.badKey)
				}
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					break
				}
			}
			closeDelim(dec) // '}'
			if rp.Replace == nil && rp.bad == "" {
				rp.bad = `want null, an array or {"replace": [...]}, got an object without "replace"`
			}
		default:
			rp.bad = `want null, an array or {"replace": [...]}, got ` + tokenText(vt)
		}
		out = append(out, rp)
	}
	*p = out
	return nil
}

// MarshalJSON writes the patch back in its data shape.
func (p Patch) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, rp := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(rp.Router)
		b.Write(k)
		b.WriteByte(':')
		var v []byte
		var err error
		switch {
		case rp.Null:
			v = []byte("null")
		case rp.Replace != nil:
			v, err = json.Marshal(map[string][]BlockEntry{"replace": rp.Replace})
		default:
			v, err = json.Marshal(rp.Blocks)
		}
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// For returns the patch of router r, or nil when the point has none.
func (p Patch) For(r string) *RouterPatch {
	for i := range p {
		if p[i].Router == r {
			return &p[i]
		}
	}
	return nil
}

// FileEntry is one entry of the top-level files map.
type FileEntry struct {
	Key     string // "<name>#<first 8 hex digits of sha256(content)>"
	Name    string
	Content string
}

// Files is the top-level `files` map in data order.
type Files []FileEntry

// UnmarshalJSON reads {key: {"name": …, "content": …}} keeping key order.
func (f *Files) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		*f = nil
		return nil
	}
	out := Files{}
	var firstErr error
	err := walkObject(data, func(key string, val json.RawMessage) {
		var v struct {
			Name    string `json:"name"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal(val, &v); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("files[%q]: %v", key, err)
		}
		out = append(out, FileEntry{Key: key, Name: v.Name, Content: v.Content})
	})
	if err != nil {
		return err
	}
	if firstErr != nil {
		return firstErr
	}
	*f = out
	return nil
}

// MarshalJSON writes the files map in order.
func (f Files) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.Key)
		v, _ := json.Marshal(map[string]string{"name": e.Name, "content": e.Content})
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Lookup returns the file with key k.
func (f Files) Lookup(k string) (FileEntry, bool) {
	for _, e := range f {
		if e.Key == k {
			return e, true
		}
	}
	return FileEntry{}, false
}

// walkObject calls fn for every key of the JSON object in data, in order.
// It returns an error when data is not an object.
func walkObject(data []byte, fn func(key string, val json.RawMessage)) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("want a JSON object, got %s", abbrev(data))
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := kt.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return err
		}
		fn(key, val)
	}
	_, err = dec.Token()
	return err
}

func isNull(b []byte) bool { return bytes.Equal(bytes.TrimSpace(b), []byte("null")) }

// abbrev shortens raw JSON for error messages.
func abbrev(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 40 {
		return string(b[:37]) + "..."
	}
	return string(b)
}
