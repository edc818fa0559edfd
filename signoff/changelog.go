package signoff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ChangelogFile is InferenceX's changelog of benchmark changes: the
// entries added to it by a PR name the config keys the PR reruns
// (SemiAnalysisAI/InferenceX utils/process_changelog.py, "The sweep is
// built only from the added entries").
const ChangelogFile = "perf-changelog.yaml"

// Entry is one perf-changelog.yaml entry: ConfigKeys as written (exact
// keys or '*' globs), its description lines and pr-link; Index is its
// position in the head file (0-based) and Line its line there.
type Entry struct {
	Index       int      `json:"index"`
	Line        int      `json:"line"`
	ConfigKeys  []string `json:"configKeys"`
	Description []string `json:"description,omitempty"`
	PRLink      string   `json:"prLink,omitempty"`
	// Matched maps each of ConfigKeys to the keys it names at head (and,
	// for a key no longer at head, at base: Retired).
	Matched map[string][]string `json:"matched"`
}

// rawEntry is an entry as parsed, with its canonical form (for the
// added-entries multiset difference).
type rawEntry struct {
	e     Entry
	canon string
}

// parseChangelog reads the entries of a perf-changelog.yaml. An absent
// file (nil data) has none; a file that is not a YAML list of mappings is
// an error naming file:line.
func parseChangelog(data []byte) ([]rawEntry, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", ChangelogFile, err)
	}
	if len(root.Content) == 0 {
		return nil, nil
	}
	seq := root.Content[0]
	if seq.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d:%d: want a list of entries", ChangelogFile, seq.Line, seq.Column)
	}
	out := make([]rawEntry, 0, len(seq.Content))
	for i, n := range seq.Content {
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d:%d: entry %d is not a mapping", ChangelogFile, n.Line, n.Column, i)
		}
		var m map[string]any
		if err := n.Decode(&m); err != nil {
			return nil, fmt.Errorf("%s:%d:%d: %w", ChangelogFile, n.Line, n.Column, err)
		}
		e := Entry{Index: i, Line: n.Line}
		e.ConfigKeys = strList(m["config-keys"])
		e.Description = strList(m["description"])
		if s, ok := m["pr-link"].(string); ok {
			e.PRLink = s
		}
		canon, _ := json.Marshal(m) // map keys sorted: a canonical form
		out = append(out, rawEntry{e: e, canon: string(canon)})
	}
	return out, nil
}

func strList(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, y := range x {
			out = append(out, fmt.Sprint(y))
		}
		return out
	}
	return nil
}

// addedEntries are the entries of head that base does not have, as a
// multiset (an entry repeated verbatim counts once per copy).
func addedEntries(base, head []rawEntry) []Entry {
	have := map[string]int{}
	for _, e := range base {
		have[e.canon]++
	}
	var out []Entry
	for _, e := range head {
		if have[e.canon] > 0 {
			have[e.canon]--
			continue
		}
		out = append(out, e.e)
	}
	return out
}

// matchKeys expands one config-keys item against keys the way
// utils/process_changelog.py get_config_keys_from_master does: an item
// with '*' is a regular expression fullmatch with '*' as '.*' (everything
// else literal); any other item names one key exactly.
func matchKeys(item string, keys []string) []string {
	if !strings.Contains(item, "*") {
		for _, k := range keys {
			if k == item {
				return []string{k}
			}
		}
		return nil
	}
	re, err := regexp.Compile("^(?:" + strings.ReplaceAll(regexp.QuoteMeta(item), `\*`, ".*") + ")$")
	if err != nil {
		return nil
	}
	var out []string
	for _, k := range keys {
		if re.MatchString(k) {
			out = append(out, k)
		}
	}
	return out
}

// upstreamPRRe finds a pull-request link of an upstream documentation
// repository in a changelog description.
var upstreamPRRe = regexp.MustCompile(`https://github\.com/(?:sgl-project/sglang|vllm-project/recipes)/pull/\d+`)
