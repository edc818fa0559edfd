package drift

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
)

// SnapshotSchema is the version of the state format (Snapshot).
const SnapshotSchema = 1

// Snapshot is the state one run leaves for the next (`drift --state FILE`,
// or the hidden block of the tracking issue): every item's state and head
// verdict, by id. The next run decides from it what is new and which page
// and vLLM keys lost their coverage.
type Snapshot struct {
	Schema int `json:"schema"`
	// InferenceX is the head commit the state was taken at ("" when not a
	// git checkout).
	InferenceX string         `json:"inferencex,omitempty"`
	Items      []SnapshotItem `json:"items"`
}

// SnapshotItem is one item's state.
type SnapshotItem struct {
	ID      string `json:"id"`
	State   State  `json:"state"`
	Verdict string `json:"verdict,omitempty"`
	// Changes is the digest of the item's changes (drifted again in
	// another way: new again).
	Changes string `json:"changes,omitempty"`
}

// Snapshot is the state of res for the next run, items sorted by id (a
// run scoped to some config keys carries the previous state of the
// others).
func (res *Result) Snapshot() *Snapshot {
	s := &Snapshot{Schema: SnapshotSchema, InferenceX: res.InferenceX.Commit, Items: []SnapshotItem{}}
	for _, it := range res.Items {
		s.Items = append(s.Items, SnapshotItem{ID: it.ID, State: it.State, Verdict: string(it.Head), Changes: it.changesDigest()})
	}
	s.Items = append(s.Items, res.carried...)
	sort.SliceStable(s.Items, func(i, j int) bool { return s.Items[i].ID < s.Items[j].ID })
	return s
}

// Marshal is the snapshot as indented JSON with a final newline.
func (s *Snapshot) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ParseSnapshot reads a state file's bytes; name is the file named in
// errors ("name:line:col: …" for JSON that does not parse or has a value
// of the wrong type; "name: …" for an unknown field, another schema, an
// item without id or with an unknown state, an id given twice).
func ParseSnapshot(name string, data []byte) (*Snapshot, error) {
	var s Snapshot
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty (a state file is the JSON a run writes; start without it for a first run)", name)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			l, c := lineCol(data, se.Offset)
			return nil, fmt.Errorf("%s:%d:%d: %v", name, l, c, err)
		case errors.As(err, &te):
			l, c := lineCol(data, te.Offset)
			return nil, fmt.Errorf("%s:%d:%d: %s: want %s, got %s", name, l, c, te.Field, te.Type, te.Value)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if dec.More() {
		l, c := lineCol(data, dec.InputOffset())
		return nil, fmt.Errorf("%s:%d:%d: data after the state's JSON object", name, l, c)
	}
	if s.Schema != SnapshotSchema {
		return nil, fmt.Errorf("%s: schema %d: want %d (a state written by another version: start again without it)", name, s.Schema, SnapshotSchema)
	}
	seen := map[string]bool{}
	for i, it := range s.Items {
		switch {
		case it.ID == "":
			return nil, fmt.Errorf("%s: items[%d]: no id", name, i)
		case !knownState(it.State):
			return nil, fmt.Errorf("%s: items[%d] (%s): unknown state %q", name, i, it.ID, it.State)
		case seen[it.ID]:
			return nil, fmt.Errorf("%s: items[%d]: id %s given twice", name, i, it.ID)
		}
		seen[it.ID] = true
	}
	return &s, nil
}

func knownState(s State) bool {
	for _, k := range states {
		if k == s {
			return true
		}
	}
	return false
}

// lineCol is the 1-based line and column of byte offset off in data.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
