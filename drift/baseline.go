package drift

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
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
	// Changes, when set, accepts these changes only (the digest the state
	// records, --update-baseline writes it): the item drifting again in
	// another way is not accepted.
	Changes string `json:"changes,omitempty" yaml:"changes,omitempty"`
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

// match is the index of the entry that accepts it (-1: none): the current
// entry naming it (its state and changes, when the entry records them)
// that expires last, else the expired one that expired last.
func (b *Baseline) match(it *Item, now time.Time) int {
	best := -1
	for i, e := range b.Entries {
		if e.ID != it.ID || e.State != "" && e.State != it.State || e.Changes != "" && e.Changes != it.changesDigest() {
			continue
		}
		switch {
		case best < 0:
			best = i
		case b.Entries[best].expired(now) != e.expired(now):
			if !e.expired(now) {
				best = i
			}
		case e.Expires > b.Entries[best].Expires:
			best = i
		}
	}
	return best
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
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			return nil, fmt.Errorf("%s:%s: %s", name, m[1], m[2])
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil || !errors.Is(err, io.EOF) {
		line := more.Line
		if line == 0 {
			line = 1
		}
		return nil, fmt.Errorf("%s:%d: a second YAML document: a baseline is one", name, line)
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
		switch {
		case k.Value != "accepted":
			return nil, at(k, "unknown field %q (want \"accepted\")", k.Value)
		case list != nil:
			return nil, at(k, "\"accepted\" given twice")
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
		fields := map[string]bool{}
		for j := 0; j+1 < len(n.Content); j += 2 {
			k, v := n.Content[j], n.Content[j+1]
			if fields[k.Value] {
				return nil, at(k, "accepted[%d]: %s given twice", i, k.Value)
			}
			fields[k.Value] = true
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || v.Tag == "!!binary" {
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
				if d, err := time.Parse(time.DateOnly, e.Expires); err != nil || d.Year() > 9999 {
					return nil, at(v, "accepted[%d].expires: %q is not a date (want YYYY-MM-DD)", i, v.Value)
				}
			case "changes":
				e.Changes = strings.TrimSpace(v.Value)
			default:
				return nil, at(k, "accepted[%d]: unknown field %q (want id, state, reason, expires, changes)", i, k.Value)
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

// yamlLine is the line of a YAML syntax error ("yaml: line 3: …").
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

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
		if e.Changes != "" {
			fmt.Fprintf(&buf, "    changes: %s\n", yamlString(e.Changes))
		}
	}
	return buf.Bytes()
}

// yamlString is s as a YAML double-quoted scalar (Go's quoting: its
// escapes are YAML's too).
func yamlString(s string) string { return strconv.Quote(s) }

// UpdateBaseline is the baseline --update-baseline writes: the entries of
// b (nil: none) that still accept a drifted item and have not expired,
// plus one entry for every failing item, accepting its state and changes
// until days after now, with reason — or, when reason is "", the reason of
// the expired entry it renews (else "accepted with --update-baseline").
func UpdateBaseline(b *Baseline, res *Result, reason string, now time.Time, days int) *Baseline {
	out := &Baseline{}
	keep := map[int]bool{}
	old := map[string]string{} // id → the reason of an expired entry
	if b != nil {
		for _, it := range res.Items {
			if !it.State.Drifted() {
				continue
			}
			for j, e := range b.Entries {
				if e.ID != it.ID {
					continue
				}
				if e.expired(now) {
					old[it.ID] = e.Reason
				} else if j == b.match(&it, now) {
					keep[j] = true
				}
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
		if !it.Fails {
			continue
		}
		r := reason
		if r == "" {
			r = old[it.ID]
		}
		if r == "" {
			r = "accepted with --update-baseline"
		}
		out.Entries = append(out.Entries, Entry{ID: it.ID, State: it.State, Reason: r, Expires: exp, Changes: it.changesDigest()})
	}
	return out
}
