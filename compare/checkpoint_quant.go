package compare

import (
	_ "embed"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

//go:embed checkpoint_quant.yaml
var checkpointQuantYAML []byte

// CheckpointQuantRow is one row of compare/checkpoint_quant.yaml: the
// checkpoints whose Hugging Face id matches one of Match (path.Match globs
// over "org/name", lower case) imply --quantization Method for the
// engines listed, as Sources (URLs) state.
type CheckpointQuantRow struct {
	Match   []string `yaml:"match" json:"match"`
	Method  string   `yaml:"method" json:"method"`
	Engines []string `yaml:"engines" json:"engines"`
	Sources []string `yaml:"sources" json:"sources"`
	Note    string   `yaml:"note,omitempty" json:"note,omitempty"`
}

// CheckpointQuant is the table of quantization methods checkpoints imply.
// Immutable after load.
type CheckpointQuant struct {
	Rows []CheckpointQuantRow `yaml:"checkpoints"`
}

var defaultCheckpointQuant = sync.OnceValues(func() (*CheckpointQuant, error) {
	return ParseCheckpointQuant("compare/checkpoint_quant.yaml", checkpointQuantYAML)
})

// DefaultCheckpointQuant returns the embedded table
// (compare/checkpoint_quant.yaml), parsed once. An error means the embedded
// file is invalid.
func DefaultCheckpointQuant() (*CheckpointQuant, error) { return defaultCheckpointQuant() }

// ParseCheckpointQuant reads a checkpoint quantization table. Errors: YAML
// syntax or unknown keys; a row without match, method, engines or sources;
// a glob that is not lower case "org/name" or does not parse; a source that
// is not an http(s) URL.
func ParseCheckpointQuant(name string, data []byte) (*CheckpointQuant, error) {
	var t CheckpointQuant
	if err := decodeStrict(name, data, &t); err != nil {
		return nil, err
	}
	for i, r := range t.Rows {
		at := fmt.Sprintf("%s: checkpoints[%d]", name, i)
		if len(r.Match) == 0 || r.Method == "" || len(r.Engines) == 0 || len(r.Sources) == 0 {
			return nil, fmt.Errorf("%s: match, method, engines and sources are required: a checkpoint without a cited method is not listed", at)
		}
		for _, g := range r.Match {
			if g != strings.ToLower(g) || strings.Count(g, "/") != 1 {
				return nil, fmt.Errorf("%s: match %q: want a lower-case org/name glob", at, g)
			}
			if _, err := path.Match(g, "a/b"); err != nil {
				return nil, fmt.Errorf("%s: match %q: %w", at, g, err)
			}
		}
		for _, s := range r.Sources {
			if !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://") {
				return nil, fmt.Errorf("%s: source %q is not a URL", at, s)
			}
		}
	}
	return &t, nil
}

// Implied returns the row stating the --quantization method engine takes
// from checkpoint (a Hugging Face id; anything else, or an id no row
// matches, is not known: nil, false).
func (t *CheckpointQuant) Implied(engine, checkpoint string) (*CheckpointQuantRow, bool) {
	if t == nil || !launch.LooksHF(checkpoint) {
		return nil, false
	}
	id := strings.ToLower(checkpoint)
	for i := range t.Rows {
		r := &t.Rows[i]
		if !slices.Contains(r.Engines, engine) {
			continue
		}
		for _, g := range r.Match {
			if ok, _ := path.Match(g, id); ok {
				return r, true
			}
		}
	}
	return nil, false
}

// modelKeys are the settings that name a worker's checkpoint, in the
// order they are read (vLLM's positional model or --model, SGLang's
// --model-path).
var modelKeys = []string{"positional", "--model", "--model-path"}

// checkpointOf is the Hugging Face id a worker serves: its model setting
// when that is an id (model paths are already resolved, Model), else the
// deployment's id hf ("" when neither is known).
func checkpointOf(n *Normalized, hf string) string {
	for _, k := range modelKeys {
		if s, ok := n.Settings[k]; ok && !s.Unknown && launch.LooksHF(s.Value) {
			return s.Value
		}
	}
	if launch.LooksHF(hf) {
		return hf
	}
	return ""
}

// checkpointQuantization judges --quantization set on one side only: when
// the other side's checkpoint implies that very method
// (compare/checkpoint_quant.yaml), the engine runs it there too — the
// difference is informational, an Exclusion of class judgment, rule
// "checkpoint-quantization", whose reason names the checkpoint, the method
// and the sources. ok is false otherwise (the flag stays compared): not
// --quantization of two workers, set on both sides or on neither, the other
// checkpoint not known or not listed, or listed with another method.
func checkpointQuantization(ex *exclusions.Set, engine, k string, cv, rv *string, origins []launch.Origin,
	cp, rp *launch.Process, cn, rn *Normalized, cbHF, rcHF string) (Exclusion, bool) {
	if k != "--quantization" || (cv == nil) == (rv == nil) || cp.Kind != launch.KindWorker || rp.Kind != launch.KindWorker {
		return Exclusion{}, false
	}
	t, err := DefaultCheckpointQuant()
	if err != nil {
		return Exclusion{}, false
	}
	set, other, otherHF := cv, rn, rcHF
	if set == nil {
		set, other, otherHF = rv, cn, cbHF
	}
	ckpt := checkpointOf(other, otherHF)
	row, ok := t.Implied(engine, ckpt)
	if !ok || !strings.EqualFold(strings.TrimSpace(*set), row.Method) {
		return Exclusion{}, false
	}
	reason := fmt.Sprintf("--quantization %s is the method %s implies: %s reads it from the checkpoint's quantization_config when the flag is absent and refuses another; sources: %s",
		row.Method, ckpt, engine, strings.Join(row.Sources, " "))
	if row.Note != "" {
		reason += " — " + row.Note
	}
	pol := ""
	if ex != nil {
		pol = ex.DefaultPolicy()
	}
	return Exclusion{Setting: k, Upstream: cv, InferenceX: rv, Rule: "checkpoint-quantization", Class: exclusions.ClassJudgment,
		Reason: reason, Policy: pol, Origins: origins}, true
}
