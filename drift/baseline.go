package drift

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Baseline is accepted drift: a small YAML file the user commits
// (`drift --baseline FILE`), driftctl's .driftignore with a reason and an
// expiry per entry:
//
//	accepted:
//	  - id: "agentx:docs/src/snippets/agentx/Qwen/qwen3.5.jsx#c1/0"
//	    state: InferenceX moved      # optional: accept this state only
//	    reason: waiting for the next cookbook sync
//	    expires: 2027-01-31          # accepted through this day (UTC)
//
// Drift an entry accepts does not fail the run until the entry expires;
// then it fails again, even when it is not new.
type Baseline struct {
	Entries []Entry
}

// Entry is one accepted drift.
type Entry struct {
	// ID is the Item.ID accepted.
	ID string `json:"id" yaml:"id"`
	// State, when set, accepts that state only (a later different drift
	// of the item is not accepted).
	State State `json:"state,omitempty" yaml:"state,omitempty"`
	// Reason says why the drift is accepted (required).
	Reason string `json:"reason" yaml:"reason"`
	// Expires is the last day (UTC, YYYY-MM-DD) the entry accepts the
	// drift (required).
	Expires string `json:"expires" yaml:"expires"`
	// Line is the entry's line in its file (0 when built, not read).
	Line int `json:"line,omitempty" yaml:"-"`
}

// expired reports whether now (UTC) is past the entry's last day.
func (e Entry) expired(now time.Time) bool {
	d, err := time.Parse(time.DateOnly, e.Expires)
	if err != nil {
		return true // ParseBaseline refuses such an entry; built ones fail closed
	}
	return !now.UTC().Before(d.AddDate(0, 0, 1))
}

// match is the index of the first entry that accepts it (-1: none).
func (b *Baseline) match(it *Item) int {
	for i, e := range b.Entries {
		if e.ID == it.ID && (e.State == "" || e.State == it.State) {
			return i
		}
	}
	return -1
}

// ParseBaseline reads a baseline file's bytes; name is the file named in
// errors ("name:line:col: …"): YAML that does not parse, a document that
// is not a mapping with an "accepted" list, an entry without id, reason or
// a YYYY-MM-DD expires, an unknown state or field, an id accepted twice
// for one state. An empty file is an empty baseline.
func ParseBaseline(name string, data []byte) (*Baseline, error) {
	b := &Baseline{}
	if len(bytes.TrimSpace(data)) == 0 {
		return b, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 {
		return b, nil
	}
	root := doc.Content[0]
	at := func(n *yaml.Node, format string, a ...any) error {
		return fmt.Errorf("%s:%d:%d: %s", name, n.Line, n.Column, fmt.Sprintf(format, a...))
	}
	if root.Kind != yaml.MappingNode {
		return nil, at(root, "want a mapping with an \"accepted\" list")
	}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "accepted" {
			return nil, at(k, "unknown field %q (want \"accepted\")", k.Value)
		}
		list = v
	}
	if list == nil || list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		return b, nil
	}
	if list.Kind != yaml.SequenceNode {
		return nil, at(list, "accepted: want a list of entries")
	}
	seen := map[string]int{}
	for i, n := range list.Content {
		if n.Kind != yaml.MappingNode {
			return nil, at(n, "accepted[%d]: want a mapping (id, reason, expires, state)", i)
		}
		e := Entry{Line: n.Line}
		for j := 0; j+1 < len(n.Content); j += 2 {
			k, v := n.Content[j], n.Content[j+1]
			if v.Kind != yaml.ScalarNode {
				return nil, at(v, "accepted[%d].%s: want a string", i, k.Value)
			}
			switch k.Value {
			case "id":
				e.ID = strings.TrimSpace(v.Value)
			case "state":
				e.State = State(strings.TrimSpace(v.Value))
				if !slices.Contains(states, e.State) || !e.State.Drifted() {
					return nil, at(v, "accepted[%d].state: %q is not a drift state (want one of: %s)", i, v.Value, driftStateList())
				}
			case "reason":
				e.Reason = strings.TrimSpace(v.Value)
			case "expires":
				e.Expires = strings.TrimSpace(v.Value)
				if _, err := time.Parse(time.DateOnly, e.Expires); err != nil {
					return nil, at(v, "accepted[%d].expires: %q is not a date (want YYYY-MM-DD)", i, v.Value)
				}
			default:
				return nil, at(k, "accepted[%d]: unknown field %q (want id, state, reason, expires)", i, k.Value)
			}
		}
		switch {
		case e.ID == "":
			return nil, at(n, "accepted[%d]: no id", i)
		case e.Reason == "":
			return nil, at(n, "accepted[%d] (%s): no reason: say why the drift is accepted", i, e.ID)
		case e.Expires == "":
			return nil, at(n, "accepted[%d] (%s): no expires date (YYYY-MM-DD)", i, e.ID)
		}
		k := e.ID + "\x00" + string(e.State)
		if first, dup := seen[k]; dup {
			return nil, at(n, "accepted[%d]: %s is already accepted at line %d", i, e.ID, first)
		}
		seen[k] = n.Line
		b.Entries = append(b.Entries, e)
	}
	return b, nil
}

// driftStateList names the drift states, for messages.
func driftStateList() string {
	var out []string
	for _, s := range states {
		if s.Drifted() {
			out = append(out, string(s))
		}
	}
	return strings.Join(out, ", ")
}

// Marshal writes the baseline as YAML (entries sorted by id and state),
// ParseBaseline's format.
func (b *Baseline) Marshal() []byte {
	es := slices.Clone(b.Entries)
	slices.SortStableFunc(es, func(x, y Entry) int {
		if c := strings.Compare(x.ID, y.ID); c != 0 {
			return c
		}
		return strings.Compare(string(x.State), string(y.State))
	})
	var buf bytes.Buffer
	buf.WriteString("# Accepted drift for `cookbook-sync drift --baseline` (each entry: id, reason, expires YYYY-MM-DD;\n# state optional). Drift listed here does not fail the run until its entry expires.\n")
	if len(es) == 0 {
		buf.WriteString("accepted: []\n")
		return buf.Bytes()
	}
	buf.WriteString("accepted:\n")
	for _, e := range es {
		fmt.Fprintf(&buf, "  - id: %s\n", yamlString(e.ID))
		if e.State != "" {
			fmt.Fprintf(&buf, "    state: %s\n", yamlString(string(e.State)))
		}
		fmt.Fprintf(&buf, "    reason: %s\n", yamlString(e.Reason))
		fmt.Fprintf(&buf, "    expires: %s\n", yamlString(e.Expires))
	}
	return buf.Bytes()
}

// yamlString is s as a YAML double-quoted scalar (Go's quoting: its
// escapes are YAML's too).
func yamlString(s string) string { return strconv.Quote(s) }

// UpdateBaseline is the baseline --update-baseline writes: the entries of
// b (nil: none) that still accept a drifted item and have not expired,
// plus one entry for every failing item, accepting its state, with reason
// and an expiry days after now.
func UpdateBaseline(b *Baseline, res *Result, reason string, now time.Time, days int) *Baseline {
	out := &Baseline{}
	keep := map[int]bool{}
	if b != nil {
		for _, it := range res.Items {
			if !it.State.Drifted() {
				continue
			}
			if j := b.match(&it); j >= 0 && !b.Entries[j].expired(now) {
				keep[j] = true
			}
		}
		for j, e := range b.Entries {
			if keep[j] {
				e.Line = 0
				out.Entries = append(out.Entries, e)
			}
		}
	}
	exp := now.UTC().AddDate(0, 0, days).Format(time.DateOnly)
	for _, it := range res.Items {
		if it.Fails {
			out.Entries = append(out.Entries, Entry{ID: it.ID, State: it.State, Reason: reason, Expires: exp})
		}
	}
	return out
}
