package coverage

// Mutation suite (cookbook-sync issue 9, item 4): for the roles that come out
// covered, change every leaf of the cited srt-slurm recipe's selected
// variant, one at a time, in a copy of the checkout, run Coverage from the
// files again and require a gap (differs, missing, prohibited, error): a
// mutation that still comes out covered is a false "covered" the tool would
// sign off. Leaves a reviewed exclusion rule makes irrelevant are listed in
// testdata/mutation/reviewed.yaml, each naming its rule id.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
	infxpkg "github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
	"go.yaml.in/yaml/v3"
)

// ---------------------------------------------------------------------------
// Reviewed list

// mutExempt is one reviewed-list entry: leaves whose effective recipe path
// matches Path (dot-separated segments; '*' one segment, '**' any number,
// path.Match syntax within a segment) are not mutated, because the exclusion
// rule Rule (exclusions/rules.yaml or compare/launcher.yaml) makes their
// change irrelevant; Why says how.
type mutExempt struct {
	Path string `yaml:"path"`
	Rule string `yaml:"rule"`
	Why  string `yaml:"why"`
	// Render "role-excluded" makes the entry conditional too: an uncaught
	// mutation is exempt only when, at every point, a process is excluded
	// as a whole by Rule (wholeProcessExcluded).
	//
	// Render, when "placement", makes the entry conditional: the leaf is
	// still mutated, and an uncaught mutation of it is exempt only when
	// its rendered deployment is unchanged or changed in placement keys
	// alone (mutPlacementKeys: GPU indices, node addresses, ports, idle
	// nodes, the frontend count and what follows it). Any other change
	// (workers, nodes per worker, a flag, an env var, a file) stays
	// uncaught.
	Render string `yaml:"render,omitempty"`

	alts [][]string
	used int
}

// loadReviewed reads testdata/mutation/reviewed.yaml and checks every entry
// (checkReviewed).
func loadReviewed(t testing.TB) []*mutExempt {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "mutation", "reviewed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Exempt []*mutExempt `yaml:"exempt"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("reviewed.yaml: %v", err)
	}
	ids, err := mutRuleIDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range checkReviewed(doc.Exempt, ids) {
		t.Errorf("reviewed.yaml: %v", err)
	}
	for k, r := range mutPlacementKeys {
		if !ids[r] {
			t.Errorf("mutPlacementKeys[%s]: rule %q is not in exclusions/rules.yaml nor compare/launcher.yaml", k, r)
		}
	}
	for _, r := range mutFrontendCountRules {
		if !ids[r] {
			t.Errorf("mutFrontendCountRules: rule %q is not in exclusions/rules.yaml nor compare/launcher.yaml", r)
		}
	}
	return doc.Exempt
}

// checkReviewed checks the entries (a path, a one-line why, a rule id that
// exists, no path listed twice) and compiles their paths.
func checkReviewed(list []*mutExempt, ids map[string]bool) []error {
	var errs []error
	seen := map[string]bool{}
	for i, e := range list {
		if e.Path == "" || strings.TrimSpace(e.Why) == "" || strings.Contains(e.Why, "\n") {
			errs = append(errs, fmt.Errorf("exempt[%d] %q: needs a path and a one-line why", i, e.Path))
		}
		if !ids[e.Rule] {
			errs = append(errs, fmt.Errorf("exempt[%d] %s: rule %q is not in exclusions/rules.yaml nor compare/launcher.yaml", i, e.Path, e.Rule))
		}
		if e.Render != "" && e.Render != "placement" && e.Render != "role-excluded" {
			errs = append(errs, fmt.Errorf("exempt[%d] %s: render %q (want placement, role-excluded or nothing)", i, e.Path, e.Render))
		}
		if seen[e.Path] {
			errs = append(errs, fmt.Errorf("exempt[%d]: path %s listed twice", i, e.Path))
		}
		seen[e.Path] = true
		e.alts = nil
		for _, p := range expandMacro(e.Path) {
			segs := strings.Split(p, ".")
			for _, s := range segs {
				if _, err := path.Match(s, ""); err != nil {
					errs = append(errs, fmt.Errorf("exempt[%d] %s: bad glob segment %q", i, e.Path, s))
				}
			}
			e.alts = append(e.alts, segs)
		}
	}
	return errs
}

// mutMacros are the first path segments reviewed.yaml may use for "any
// process's env" (ENV) and "any process's flags" (ARG), in both recipe
// schemas (srt-slurm.md: schema 2 roles.<r>.env/args, schema 1
// backend.<mode>_environment and backend.<engine>_config.<mode>, and the
// frontend's env/args).
var mutMacros = map[string][]string{
	"ENV": {"roles.*.env", "backend.*_environment", "frontend.env"},
	"ARG": {"roles.*.args", "backend.*_config.*", "frontend.args"},
}

func expandMacro(p string) []string {
	first, rest, _ := strings.Cut(p, ".")
	if m, ok := mutMacros[first]; ok {
		var out []string
		for _, x := range m {
			out = append(out, x+"."+rest)
		}
		return out
	}
	return []string{p}
}

// mutRuleIDs lists the rule ids of the default exclusion set and the
// launcher-process rules.
func mutRuleIDs() (map[string]bool, error) {
	ex, err := exclusions.Default()
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, r := range ex.Rules() {
		ids[r.ID] = true
	}
	lr, err := compare.DefaultLauncherRules()
	if err != nil {
		return nil, err
	}
	for _, r := range lr.Rules {
		ids[r.ID] = true
	}
	return ids, nil
}

func matchSegs(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if matchSegs(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, _ := path.Match(pat[0], segs[0])
	return ok && matchSegs(pat[1:], segs[1:])
}

func exemptFor(list []*mutExempt, eff []string) *mutExempt {
	for _, e := range list {
		if e.Render != "" {
			continue
		}
		for _, a := range e.alts {
			if matchSegs(a, eff) {
				return e
			}
		}
	}
	return nil
}

// condExemptFor is the conditional entry (Render set) matching eff, if any.
func condExemptFor(list []*mutExempt, eff []string) *mutExempt {
	for _, e := range list {
		if e.Render == "" {
			continue
		}
		for _, a := range e.alts {
			if matchSegs(a, eff) {
				return e
			}
		}
	}
	return nil
}

// mutPlacementKeys are the rendered-deployment keys (procSigs) a
// placement-only change may touch, each with the exclusion rule that makes
// it irrelevant to Check 3. Workers, nodes per worker, flags, env vars and
// files not listed here are compared and never count as placement.
var mutPlacementKeys = map[string]string{
	"gpusPerNode":              "harness-cuda-visible-devices", // GPUs of a node a worker sees (CUDA_VISIBLE_DEVICES)
	"env CUDA_VISIBLE_DEVICES": "harness-cuda-visible-devices",
	"env HEAD_NODE_IP":         "harness-head-node-ip",
	"--dump-config-to":         "harness-dump-config",
	"--dist-init-addr":         "placement-dist-init-addr",
	"--http-port":              "harness-http-port",
	"--port":                   "harness-port",
	"ports":                    "harness-port",
}

// mutFrontendCountRules are the rules for a change of the frontend count
// and of what follows it: nginx present or not, and nginx.conf (its
// upstream servers are the frontends' addresses, one per frontend).
var mutFrontendCountRules = []string{"judgment-frontend-count", "judgment-nginx-present", "placement-nginx-upstream-servers", "judgment-nginx-upstream-count"}

// placementOnly reports whether the rendered deployment changed from b to g
// in placement keys only (or not at all): the same processes, except nginx
// appearing or going with the frontend count; every changed key listed in
// mutPlacementKeys, or a frontend's count; nginx.conf only alongside a
// frontend-count change, an nginx process appearing or going, or the head
// node moving (its upstream servers are the frontends' node addresses).
func placementOnly(b, g *launch.Deployment) bool {
	bs, gs := procSigs(b), procSigs(g)
	frontMoved, confChanged := false, false
	for k := range bs {
		if gs[k] == nil {
			if !strings.HasPrefix(k, string(launch.KindNginx)) {
				return false
			}
			frontMoved = true
		}
	}
	for k, v := range gs {
		o := bs[k]
		if o == nil {
			if !strings.HasPrefix(k, string(launch.KindNginx)) {
				return false
			}
			frontMoved = true
			continue
		}
		keys := map[string]bool{}
		for s := range v {
			keys[s] = true
		}
		for s := range o {
			keys[s] = true
		}
		for s := range keys {
			ov, ook := o[s]
			nv, nok := v[s]
			if ook == nok && ov == nv {
				continue
			}
			name := s
			if strings.HasPrefix(name, "--") {
				name, _, _ = strings.Cut(name, "=") // "--http-port=8180" spelled as one argument
			}
			switch {
			case mutPlacementKeys[name] != "":
				if s == "env HEAD_NODE_IP" {
					frontMoved = true
				}
			case s == "count" && strings.Contains(k, "frontend"):
				frontMoved = true
			case s == "file /logs/nginx.conf":
				confChanged = true
			default:
				return false
			}
		}
	}
	return !confChanged || frontMoved
}

// ---------------------------------------------------------------------------
// Leaves of the selected variant

// mutLeaf is one scalar leaf of the effective recipe: eff its effective
// path (base + selected section merged), file its path in the YAML file.
type mutLeaf struct {
	eff, file []string
	key       string
	node      *yaml.Node
}

// mutDelete removes one process or service from the effective recipe: every
// occurrence (base and selected section) of the key or list item at file.
type mutDelete struct {
	eff   []string
	files [][]string
}

// mutVariant enumerates the scalar leaves and the process/service
// deletions of variant sel of the recipe document doc (srt-slurm's variant
// rules, infx/srtslurm recipe.go: base deep-merged with override_<x> or the
// i-th slice of zip_override_<g>; null in a section deletes the base key).
func mutVariant(doc *yaml.Node, sel string) ([]mutLeaf, []mutDelete, error) {
	if doc.Kind == yaml.DocumentNode {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("recipe is not a mapping")
	}
	if mapGet(doc, "sweep") != nil && mapGet(doc, "base") == nil {
		return nil, nil, fmt.Errorf("sweep recipes are not supported by the mutation suite")
	}
	var leaves []mutLeaf
	emit := func(eff, file []string, key string, n *yaml.Node) {
		leaves = append(leaves, mutLeaf{eff: clone(eff), file: clone(file), key: key, node: n})
	}
	base := mapGet(doc, "base")
	if base == nil {
		if sel != "" && sel != "base" {
			return nil, nil, fmt.Errorf("selector %q on a recipe without variants", sel)
		}
		if err := walkLeaves(doc, nil, nil, "", emit, nil); err != nil {
			return nil, nil, err
		}
		return leaves, mutDeletes(doc, nil, nil, nil, -1), nil
	}
	var secName string
	var sec *yaml.Node
	zip := -1
	switch {
	case sel == "base":
	case strings.HasPrefix(sel, "zip_override_"):
		m := mutZipSel.FindStringSubmatch(sel)
		if m == nil {
			return nil, nil, fmt.Errorf("selector %q: want zip_override_<g>[i]", sel)
		}
		secName = m[1]
		zip, _ = strconv.Atoi(m[2])
		sec = mapGet(doc, secName)
	case strings.HasPrefix(sel, "override_"):
		secName, sec = sel, mapGet(doc, sel)
	default:
		return nil, nil, fmt.Errorf("selector %q not supported", sel)
	}
	if secName != "" && sec == nil {
		return nil, nil, fmt.Errorf("selector %q: no such section", sel)
	}
	if sec != nil && sec.Kind == yaml.ScalarNode && sec.Tag == "!!null" {
		sec = nil
	}
	shadow := func(eff []string) bool { return shadowed(sec, eff) }
	if err := walkLeaves(base, nil, []string{"base"}, "", emit, shadow); err != nil {
		return nil, nil, err
	}
	if sch := mapGet(doc, "schema"); sch != nil && mapGet(base, "schema") == nil && !shadow([]string{"schema"}) {
		emit([]string{"schema"}, []string{"schema"}, "schema", sch)
	}
	if sec != nil {
		if zip >= 0 {
			if err := walkZip(sec, nil, []string{secName}, zip, emit); err != nil {
				return nil, nil, err
			}
		} else if err := walkLeaves(sec, nil, []string{secName}, "", emit, nil); err != nil {
			return nil, nil, err
		}
	}
	return leaves, mutDeletes(base, sec, []string{"base"}, []string{secName}, zip), nil
}

func clone(s []string) []string { return append([]string(nil), s...) }

func mapGet(m *yaml.Node, k string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i+1]
		}
	}
	return nil
}

// shadowed reports whether the section sec sets eff or one of its
// prefixes to a non-mapping (replace or delete): the base leaf is then not
// in the variant.
func shadowed(sec *yaml.Node, eff []string) bool {
	n := sec
	for _, s := range eff {
		if n == nil || n.Kind != yaml.MappingNode {
			return false
		}
		v := mapGet(n, s)
		if v == nil {
			return false
		}
		if v.Kind != yaml.MappingNode {
			return true
		}
		n = v
	}
	return false // eff is a mapping in both: merged
}

func walkLeaves(n *yaml.Node, eff, file []string, key string, emit func(eff, file []string, key string, n *yaml.Node), shadow func([]string) bool) error {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			e2, f2 := append(clone(eff), k), append(clone(file), k)
			if shadow != nil && shadow(e2) {
				continue
			}
			if err := walkLeaves(n.Content[i+1], e2, f2, k, emit, shadow); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			ix := strconv.Itoa(i)
			if err := walkLeaves(c, append(clone(eff), ix), append(clone(file), ix), key, emit, nil); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		emit(eff, file, key, n)
	case yaml.AliasNode:
		return fmt.Errorf("%s: YAML aliases are not supported by the mutation suite", strings.Join(file, "."))
	}
	return nil
}

// walkZip walks a zip_override section as srt-slurm slices it: every list
// met while walking its mappings is a zip dimension (element i, or 0 when
// the list has one element).
func walkZip(n *yaml.Node, eff, file []string, i int, emit func(eff, file []string, key string, n *yaml.Node)) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: zip section is not a mapping", strings.Join(file, "."))
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		k := n.Content[j].Value
		v := n.Content[j+1]
		e2, f2 := append(clone(eff), k), append(clone(file), k)
		switch v.Kind {
		case yaml.MappingNode:
			if err := walkZip(v, e2, f2, i, emit); err != nil {
				return err
			}
		case yaml.SequenceNode:
			x := i
			if len(v.Content) == 1 {
				x = 0
			}
			if x >= len(v.Content) {
				return fmt.Errorf("%s: zip list shorter than %d", strings.Join(f2, "."), i+1)
			}
			if err := walkLeaves(v.Content[x], e2, append(f2, strconv.Itoa(x)), k, emit, nil); err != nil {
				return err
			}
		default:
			if err := walkLeaves(v, e2, f2, k, emit, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// mutDeletes lists the processes and services of the variant to delete:
// every role block (schema 2 roles.<r>; schema 1 backend.<engine>_config.<mode>),
// the frontend block and every schema-2 service entry. base is the plain
// recipe or the override file's base; sec the selected section (nil).
func mutDeletes(base, sec *yaml.Node, basePrefix, secPrefix []string, zip int) []mutDelete {
	var out []mutDelete
	at := func(eff ...string) mutDelete {
		d := mutDelete{eff: eff}
		if n := nodeAt(base, eff); n != nil && !shadowed(sec, eff) {
			d.files = append(d.files, append(clone(basePrefix), eff...))
		}
		if sec != nil {
			if n := nodeAt(sec, eff); n != nil {
				d.files = append(d.files, append(clone(secPrefix), eff...))
			}
		}
		return d
	}
	keysOf := func(eff ...string) []string {
		seen := map[string]bool{}
		var ks []string
		for _, m := range []*yaml.Node{nodeAt(base, eff), nodeAt(sec, eff)} {
			if m == nil || m.Kind != yaml.MappingNode {
				continue
			}
			for i := 0; i+1 < len(m.Content); i += 2 {
				if k := m.Content[i].Value; !seen[k] {
					seen[k] = true
					ks = append(ks, k)
				}
			}
		}
		return ks
	}
	for _, r := range keysOf("roles") {
		out = append(out, at("roles", r))
	}
	if be := nodeAt(base, []string{"backend"}); be != nil || nodeAt(sec, []string{"backend"}) != nil {
		for _, c := range keysOf("backend") {
			if strings.HasSuffix(c, "_config") {
				for _, mode := range keysOf("backend", c) {
					out = append(out, at("backend", c, mode))
				}
			}
		}
	}
	if nodeAt(base, []string{"frontend"}) != nil || nodeAt(sec, []string{"frontend"}) != nil {
		out = append(out, at("frontend"))
	}
	// services: the list of the section that provides it
	svcFrom, svcPrefix := base, basePrefix
	if s := nodeAt(sec, []string{"services"}); s != nil && zip < 0 {
		svcFrom, svcPrefix = sec, secPrefix
	}
	if s := nodeAt(svcFrom, []string{"services"}); s != nil && s.Kind == yaml.SequenceNode && (svcFrom == sec || !shadowed(sec, []string{"services"})) {
		for i := range s.Content {
			ix := strconv.Itoa(i)
			out = append(out, mutDelete{eff: []string{"services", ix}, files: [][]string{append(clone(svcPrefix), "services", ix)}})
		}
	}
	var kept []mutDelete
	for _, d := range out {
		if len(d.files) > 0 {
			kept = append(kept, d)
		}
	}
	return kept
}

func nodeAt(n *yaml.Node, p []string) *yaml.Node {
	for _, s := range p {
		if n == nil {
			return nil
		}
		switch n.Kind {
		case yaml.MappingNode:
			n = mapGet(n, s)
		case yaml.SequenceNode:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(n.Content) {
				return nil
			}
			n = n.Content[i]
		default:
			return nil
		}
	}
	return n
}

// ---------------------------------------------------------------------------
// Mutating the file text

// mutEnum gives another valid value for enum-like settings (srt-slurm
// frontend types, Dynamo router modes, SGLang choices), so the mutation
// exercises a real alternative rather than an unknown value.
var mutZipSel = regexp.MustCompile(`^(zip_override_.+)\[(\d+)\]$`)

var mutEnum = map[string]map[string]string{
	"router-mode":          {"kv": "round-robin", "round-robin": "kv", "random": "kv"},
	"hicache-write-policy": {"write_back": "write_through", "write_through": "write_back", "write_through_selective": "write_back"},
	"hicache-io-backend":   {"kernel": "direct", "direct": "kernel"},
	"kv-cache-dtype":       {"fp8_e4m3": "auto", "auto": "fp8_e4m3", "bf16": "fp8_e4m3"},
	"type":                 {"dynamo": "sglang", "sglang": "dynamo", "sglang-router": "dynamo"},
	"load-balance-method":  {"round_robin": "minimum_tokens", "follow_bootstrap_room": "round_robin", "minimum_tokens": "round_robin"},
	"moe-a2a-backend":      {"none": "deepep", "deepep": "none", "flashinfer": "none", "mooncake": "none"},
}

// mutateScalar returns the new value's YAML text (a plain number or bool,
// else a double-quoted string) and a display form.
func mutateScalar(n *yaml.Node, key string) (text, shown string) {
	v := n.Value
	switch n.ShortTag() {
	case "!!int":
		if i, err := strconv.ParseInt(v, 0, 64); err == nil {
			s := strconv.FormatInt(i+1, 10)
			return s, s
		}
	case "!!float":
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			g := f * 2
			if f == 0 {
				g = 1
			}
			s := strconv.FormatFloat(g, 'f', -1, 64)
			if !strings.ContainsAny(s, ".e") {
				s += ".0"
			}
			return s, s
		}
	case "!!bool":
		if strings.EqualFold(v, "true") {
			return "false", "false"
		}
		return "true", "true"
	case "!!null":
		return `"mut"`, "mut"
	}
	// strings
	nv := v + "-mut"
	switch {
	case mutEnum[key][v] != "":
		nv = mutEnum[key][v]
	case v == "":
		nv = "mut"
	case v == "true" || v == "True" || v == "TRUE":
		nv = map[string]string{"true": "false", "True": "False", "TRUE": "FALSE"}[v]
	case v == "false" || v == "False" || v == "FALSE":
		nv = map[string]string{"false": "true", "False": "True", "FALSE": "TRUE"}[v]
	default:
		if i, err := strconv.ParseInt(v, 10, 64); err == nil {
			nv = strconv.FormatInt(i+1, 10)
		} else if f, err := strconv.ParseFloat(v, 64); err == nil && strings.Contains(v, ".") {
			nv = strconv.FormatFloat(f*2, 'f', -1, 64)
			if !strings.Contains(nv, ".") {
				nv += ".0"
			}
		}
	}
	q, _ := json.Marshal(nv) // a JSON string is a YAML double-quoted scalar
	return string(q), nv
}

type lineIndex struct {
	src   []byte
	start []int // byte offset of each line (0-based line i)
}

func newLineIndex(src []byte) *lineIndex {
	li := &lineIndex{src: src, start: []int{0}}
	for i, b := range src {
		if b == '\n' {
			li.start = append(li.start, i+1)
		}
	}
	return li
}

func (li *lineIndex) line(i int) string {
	if i >= len(li.start) {
		return ""
	}
	end := len(li.src)
	if i+1 < len(li.start) {
		end = li.start[i+1] - 1
	}
	return string(li.src[li.start[i]:end])
}

func indentOf(s string) (int, bool) {
	t := strings.TrimLeft(s, " ")
	if t == "" || strings.HasPrefix(t, "#") {
		return 0, false
	}
	return len(s) - len(t), true
}

// scalarSpan is the byte span of scalar n's text in the file.
func (li *lineIndex) scalarSpan(n *yaml.Node) (int, int, error) {
	l := n.Line - 1
	line := li.line(l)
	c := n.Column - 1
	if l < 0 || c < 0 || c > len(line) {
		return 0, 0, fmt.Errorf("line %d col %d out of range", n.Line, n.Column)
	}
	off := li.start[l] + c
	rest := line[c:]
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		for j := 1; j < len(rest); j++ {
			if rest[j] == '\\' {
				j++
				continue
			}
			if rest[j] == '"' {
				return off, off + j + 1, nil
			}
		}
	case n.Style&yaml.SingleQuotedStyle != 0:
		for j := 1; j < len(rest); j++ {
			if rest[j] == '\'' {
				if j+1 < len(rest) && rest[j+1] == '\'' {
					j++
					continue
				}
				return off, off + j + 1, nil
			}
		}
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		// the block runs to the line before the first non-blank line
		// indented no deeper than the line holding the indicator
		ind, _ := indentOf(line)
		last := l
		for k := l + 1; k < len(li.start); k++ {
			s := li.line(k)
			if strings.TrimSpace(s) == "" {
				continue
			}
			if d := len(s) - len(strings.TrimLeft(s, " ")); d <= ind {
				break
			}
			last = k
		}
		return off, li.start[last] + len(li.line(last)), nil
	default:
		if strings.HasPrefix(rest, n.Value) && !strings.Contains(n.Value, "\n") {
			return off, off + len(n.Value), nil
		}
	}
	return 0, 0, fmt.Errorf("line %d col %d: cannot find the extent of the scalar %q", n.Line, n.Column, n.Value)
}

// blockSpan is the byte span of the lines of a mapping entry (key node k)
// or a sequence item (item node, dash=true), through its last nested line.
func (li *lineIndex) blockSpan(k *yaml.Node, dash bool) (int, int, error) {
	l := k.Line - 1
	line := li.line(l)
	ind, ok := indentOf(line)
	if !ok {
		return 0, 0, fmt.Errorf("line %d: blank", k.Line)
	}
	if !dash && ind != k.Column-1 {
		return 0, 0, fmt.Errorf("line %d: key %q does not start its line", k.Line, k.Value)
	}
	if dash && !strings.HasPrefix(strings.TrimLeft(line, " "), "-") {
		return 0, 0, fmt.Errorf("line %d: list item does not start with '-'", k.Line)
	}
	end := len(li.start)
	for j := l + 1; j < len(li.start); j++ {
		if d, ok := indentOf(li.line(j)); ok && d <= ind {
			end = j
			break
		}
	}
	e := len(li.src)
	if end < len(li.start) {
		e = li.start[end]
	}
	return li.start[l], e, nil
}

type splice struct {
	from, to int
	text     string
}

func applySplices(src []byte, sp []splice) []byte {
	sort.Slice(sp, func(i, j int) bool { return sp[i].from > sp[j].from })
	out := append([]byte(nil), src...)
	for _, s := range sp {
		out = append(out[:s.from:s.from], append([]byte(s.text), out[s.to:]...)...)
	}
	return out
}

// keyNodeAt returns the key node (mapping entry) or item node (sequence) at
// file path p, and whether it is a sequence item.
func keyNodeAt(doc *yaml.Node, p []string) (*yaml.Node, bool) {
	parent := nodeAt(doc, p[:len(p)-1])
	last := p[len(p)-1]
	if parent == nil {
		return nil, false
	}
	switch parent.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(parent.Content); i += 2 {
			if parent.Content[i].Value == last {
				return parent.Content[i], false
			}
		}
	case yaml.SequenceNode:
		i, err := strconv.Atoi(last)
		if err == nil && i >= 0 && i < len(parent.Content) {
			return parent.Content[i], true
		}
	}
	return nil, false
}

// checkEdit decodes the original and the edited file and requires the edit
// to be exactly the intended one: the value at file path p replaced by
// newText's value (set), or the entry at p removed (del). It guards the
// text splicing.
func checkEdit(orig any, edited []byte, set map[string]string, del [][]string) error {
	want := deepCopyAny(orig)
	var got any
	if err := yaml.Unmarshal(edited, &got); err != nil {
		return fmt.Errorf("edited file does not parse: %v", err)
	}
	for p, text := range set {
		var m map[string]any
		if err := yaml.Unmarshal([]byte("v: "+text), &m); err != nil {
			return err
		}
		var ok bool
		if want, ok = setAt(want, strings.Split(p, "\x00"), m["v"], false); !ok {
			return fmt.Errorf("path %s not found", p)
		}
	}
	for _, p := range del {
		var ok bool
		if want, ok = setAt(want, p, nil, true); !ok {
			return fmt.Errorf("path %s not found", strings.Join(p, "."))
		}
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("the edited file differs from the intended edit elsewhere")
	}
	return nil
}

func deepCopyAny(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopyAny(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = deepCopyAny(e)
		}
		return l
	}
	return v
}

func setAt(v any, p []string, nv any, del bool) (any, bool) {
	if len(p) == 0 {
		return nv, true
	}
	s, last := p[0], len(p) == 1
	switch x := v.(type) {
	case map[string]any:
		c, ok := x[s]
		if !ok {
			return v, false
		}
		if last && del {
			delete(x, s)
			if len(x) == 0 {
				return nil, true
			}
			return x, true
		}
		c, ok = setAt(c, p[1:], nv, del)
		x[s] = c
		return x, ok
	case []any:
		j, err := strconv.Atoi(s)
		if err != nil || j < 0 || j >= len(x) {
			return v, false
		}
		if last && del {
			y := append(append([]any(nil), x[:j]...), x[j+1:]...)
			if len(y) == 0 {
				return nil, true
			}
			return y, true
		}
		c, ok := setAt(x[j], p[1:], nv, del)
		x[j] = c
		return x, ok
	}
	return v, false
}

// ---------------------------------------------------------------------------
// Targets, checkouts and runs

// mutPointID identifies a cookbook point.
type mutPointID struct {
	File        string
	Cell, Point int
}

// mutTarget is one cited recipe variant whose points were compared.
type mutTarget struct {
	setup     string // "pairs", "upstream" or "fixture"
	recipeRel string // relative to the InferenceX checkout
	selector  string
	keys      []string
	jsx       map[string]string // snippet repo path → file
	base      map[mutPointID]report.PointResult
	also      []string // identical targets of other setups (same recipe bytes, selector, baseline)
}

func (t *mutTarget) name() string {
	s := t.recipeRel
	if t.selector != "" {
		s += ":" + t.selector
	}
	return s
}

// coveredRoles counts the baseline roles that come out covered or
// covered-with-exclusions.
func (t *mutTarget) coveredRoles() int {
	n := 0
	for _, p := range t.base {
		for _, r := range p.Roles {
			if !r.Verdict.Gap() {
				n++
			}
		}
	}
	return n
}

// mutSetup is an InferenceX checkout and a cookbook with the reports of a
// full coverage run.
type mutSetup struct {
	name           string
	infxDir, cbDir string
	opt            Options // extra options (Exclusions)
	targets        []*mutTarget
	models         map[string]string // config key → the HF model Coverage binds
}

// findTargets runs Coverage on the whole setup and groups the compared
// srt-slurm recipe points by recipe file and selector.
func findTargets(t testing.TB, s *mutSetup) {
	t.Helper()
	opt := s.opt
	opt.InfxDir, opt.CookbookDirs, opt.AllowUnverified = s.infxDir, []string{s.cbDir}, true
	rep, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	by := map[string]*mutTarget{}
	s.models = map[string]string{}
	ws, _ := infxpkg.Open(s.infxDir)
	for _, p := range rep.Points {
		if ws != nil {
			if e, err := ws.Entry(p.ConfigKey); err == nil && launch.LooksHF(e.Model) {
				s.models[p.ConfigKey] = e.Model
			}
		}
		if p.Status != report.StatusCompared || strings.HasSuffix(p.Recipe, ".sh") || p.RecipeFile == "" {
			continue
		}
		k := p.RecipeFile + "\x00" + p.Selector
		tg := by[k]
		if tg == nil {
			tg = &mutTarget{setup: s.name, recipeRel: p.RecipeFile, selector: p.Selector, jsx: map[string]string{}, base: map[mutPointID]report.PointResult{}}
			by[k] = tg
			s.targets = append(s.targets, tg)
		}
		if !containsStr(tg.keys, p.ConfigKey) {
			tg.keys = append(tg.keys, p.ConfigKey)
		}
		tg.jsx[p.File] = filepath.Join(s.cbDir, filepath.FromSlash(p.File))
		tg.base[mutPointID{p.File, p.Cell, p.Point}] = p
	}
}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// mutCheckout is a reduced copy of a setup for one worker: the InferenceX
// tree with its master configs cut to the target config keys (everything
// else — launchers, workflows, scripts, recipes — as it is: a launcher
// decides the srt-slurm ref and what is copied into the clone), and one
// cookbook tree per snippet file (Coverage then parses only that file).
type mutCheckout struct {
	infx string
	// srt is the checkout's copy of the srt-slurm configs/ files the
	// targets name (srtConfigsPrefix mutations write there); "" without
	// Options.SrtSlurmDir.
	srt string
	cb  map[string]string // snippet repo path → cookbook root holding only it

	// the fast path's parsed inputs (they do not change between mutations)
	snip  map[string]*cookbook.File
	ws    *infxpkg.Workspace
	ex    *exclusions.Set
	rules *compare.Rules
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, to, data)
}

func writeFile(t testing.TB, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyCheckout copies the regular files, directories and symbolic links of
// from (but .git) to to, the files keep(path) accepts.
func copyCheckout(t testing.TB, from, to string, keep func(string) bool) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, dst)
		case d.Type().IsRegular() && keep(p):
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, data, 0o644)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// cutMaster keeps the top-level entries of a master config whose key is in
// keys (text slicing at column-0 keys; the masters use no anchors).
func cutMaster(src []byte, keys map[string]bool) []byte {
	var out bytes.Buffer
	keep := false
	for _, line := range strings.SplitAfter(string(src), "\n") {
		if line != "" && line[0] != ' ' && line[0] != '#' && line[0] != '\n' && line[0] != '\t' {
			k, rest, _ := strings.Cut(line, ":")
			// a block that defines an anchor (`key: &name`) is kept:
			// the kept entries may alias it
			keep = keys[strings.Trim(k, `"'`)] || strings.Contains(rest, "&")
		}
		if keep {
			out.WriteString(line)
		}
	}
	return out.Bytes()
}

func makeCheckout(t testing.TB, s *mutSetup, dir string, targets []*mutTarget) *mutCheckout {
	t.Helper()
	co := &mutCheckout{infx: filepath.Join(dir, "infx"), cb: map[string]string{}}
	keys := map[string]bool{}
	masters := map[string]bool{} // the master config files, cut below
	for _, d := range []string{"inferencex-e2e/configs", "configs", ".github/configs"} {
		ms, _ := filepath.Glob(filepath.Join(s.infxDir, filepath.FromSlash(d), "*-master.yaml"))
		for _, m := range ms {
			masters[m] = true
		}
		if len(ms) > 0 {
			break
		}
	}
	copyCheckout(t, s.infxDir, co.infx, func(p string) bool { return !masters[p] })
	for _, tg := range targets {
		for _, k := range tg.keys {
			keys[k] = true
		}
		for rp, f := range tg.jsx {
			if co.cb[rp] == "" {
				root := filepath.Join(dir, "cb", strconv.Itoa(len(co.cb)))
				copyFile(t, f, filepath.Join(root, filepath.FromSlash(rp)))
				co.cb[rp] = root
			}
		}
	}
	// the master configs, where infx.Open looks for them, and the marker
	// directories that set the layout
	for _, d := range []string{"inferencex-e2e/configs", "configs", ".github/configs"} {
		ms, _ := filepath.Glob(filepath.Join(s.infxDir, filepath.FromSlash(d), "*-master.yaml"))
		for _, m := range ms {
			data, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			if cut := cutMaster(data, keys); len(bytes.TrimSpace(cut)) > 0 {
				// (a master file none of whose keys is kept is left out:
				// an empty YAML document does not load)
				writeFile(t, filepath.Join(co.infx, filepath.FromSlash(d), filepath.Base(m)), cut)
			}
		}
		if len(ms) > 0 {
			break
		}
	}
	co.snip = map[string]*cookbook.File{}
	for rp, root := range co.cb {
		f, err := cookbook.ReadFile(filepath.Join(root, filepath.FromSlash(rp)))
		if err != nil {
			t.Fatal(err)
		}
		co.snip[rp] = f
	}
	ws, wsErr := infxpkg.Open(co.infx)
	if wsErr != nil {
		// a tree with master configs must still open once reduced
		if _, err := infxpkg.Open(s.infxDir); err == nil {
			t.Fatalf("the reduced checkout does not open: %v", wsErr)
		}
	}
	co.ws = ws
	if s.opt.SrtSlurmDir != "" {
		co.srt = filepath.Join(dir, "srt-slurm")
		src := filepath.Join(s.opt.SrtSlurmDir, "configs")
		if err := os.CopyFS(filepath.Join(co.srt, "configs"), os.DirFS(src)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	co.ex = s.opt.Exclusions
	if co.ex == nil {
		var err error
		if co.ex, err = exclusions.Default(); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if co.rules, err = compare.DefaultRules(); err != nil {
		t.Fatal(err)
	}
	return co
}

// fastRun compares the target's points as cookbookCoverage does, with the
// snippet parsed once (it does not change): the recipe is rendered from the
// mutated file with a fresh renderer. Every confirmEvery-th mutation is run
// through Coverage as well, and the two must agree.
func (co *mutCheckout) fastRun(s *mutSetup, tg *mutTarget) map[mutPointID]report.PointResult {
	out := map[mutPointID]report.PointResult{}
	render, cache := srtSlurmRenderer(), map[string]renderResult{}
	for id := range tg.base {
		f := co.snip[id.File]
		c := &f.Cells[id.Cell]
		prov := f.Provenance(id.Cell, id.Point)
		pr := report.PointResult{
			File: f.RepoPath, Cell: id.Cell, CellID: c.ID, ConfigKey: c.ConfigKey, Point: id.Point,
			Concs: c.Points[id.Point].Concs, Recipe: prov.Recipe, Selector: prov.Override,
			ProvSHA: prov.SHA, ProvStatus: prov.Status,
		}
		sel := f.Measured(id.Cell, id.Point)
		pr.Router, pr.KV = sel.Router, sel.KV
		r := &run{ctx: context.Background(), opt: Options{InfxDir: co.infx, SrtSlurmDir: co.srt, SrtSlurmVersion: s.opt.SrtSlurmVersion},
			ws: co.ws, ex: co.ex, rules: co.rules, render: render, renders: cache, rep: &report.Report{}}
		r.comparePoint(&pr, f, sel, s.models[c.ConfigKey])
		if pr.Status != report.StatusCompared {
			pr.Verdict = pr.Status.Verdict() // as cookbookCoverage does
		}
		out[id] = pr
	}
	return out
}

// run runs Coverage on the checkout for the target's config keys and
// returns the target's points.
func (co *mutCheckout) run(s *mutSetup, tg *mutTarget) (map[mutPointID]report.PointResult, error) {
	out := map[mutPointID]report.PointResult{}
	for rp := range tg.jsx {
		for _, k := range tg.keys {
			opt := s.opt
			opt.InfxDir, opt.CookbookDirs, opt.ConfigKeys, opt.AllowUnverified = co.infx, []string{co.cb[rp]}, []string{k}, true
			if co.srt != "" {
				opt.SrtSlurmDir = co.srt
			}
			rep, err := Run(context.Background(), opt)
			if err != nil {
				if strings.Contains(err.Error(), "no cookbook cell cites") {
					continue // the key is cited from another snippet file
				}
				return nil, err
			}
			for _, p := range rep.Points {
				id := mutPointID{p.File, p.Cell, p.Point}
				if _, ok := tg.base[id]; ok {
					out[id] = p
				}
			}
		}
	}
	return out, nil
}

// sameOutcome compares the status, verdict and role results of two runs of
// a point (drift notes aside).
func sameOutcome(a, b report.PointResult) bool {
	return bytes.Equal(outcomeJSON(a), outcomeJSON(b))
}

// masterPos is a master-config position in a message: the reduced
// checkout cuts the master configs, so the line differs.
var masterPos = regexp.MustCompile(`[^\s(]*-master\.yaml:\d+:\d+`)

// outcomeJSON is what sameOutcome compares: the status, message (master
// positions aside), verdict and role results of a point, without the
// differences' notes.
func outcomeJSON(p report.PointResult) []byte {
	rs := make([]compare.Result, len(p.Roles))
	for i, r := range p.Roles {
		r.Differences = append([]compare.Difference(nil), r.Differences...)
		for j := range r.Differences {
			r.Differences[j].Note = ""
		}
		rs[i] = r
	}
	data, _ := json.MarshalIndent(struct {
		S report.Status
		M string
		V compare.Verdict
		R []compare.Result
	}{p.Status, masterPos.ReplaceAllString(p.Message, "<master>"), p.Verdict, rs}, "", " ")
	return data
}

// ---------------------------------------------------------------------------
// Judging a mutation

// mutOutcome is what a mutation did to one point.
type mutOutcome struct {
	caught bool
	detail string // the gap that caught it, or the roles that stayed covered
}

// gapEntries lists the gap evidence of a role: its verdict and every
// difference / prohibited setting, as strings.
func gapEntries(r compare.Result) map[string]bool {
	out := map[string]bool{"verdict " + string(r.Verdict): true}
	for _, d := range r.Differences {
		out[fmt.Sprintf("differs %s cookbook=%s recipe=%s", d.Setting, derefOr(d.Upstream), derefOr(d.InferenceX))] = true
	}
	for _, d := range r.Prohibited {
		out[fmt.Sprintf("prohibited %s cookbook=%s recipe=%s", d.Setting, derefOr(d.Upstream), derefOr(d.InferenceX))] = true
	}
	for _, d := range r.Unknown {
		out[fmt.Sprintf("not known %s cookbook=%s recipe=%s", d.Setting, derefOr(d.Upstream), derefOr(d.InferenceX))] = true
	}
	return out
}

// failing: the role is never reported covered — a gap, a setting that was
// not verified (content not known), or an error.
func failing(v compare.Verdict) bool {
	return v.Gap() || v.NotVerified() || v.Rank() >= compare.Error.Rank()
}

func derefOr(s *string) string {
	if s == nil {
		return "(absent)"
	}
	return strconv.Quote(*s)
}

func roleKey(r compare.Result) string {
	if r.Index > 0 {
		return fmt.Sprintf("%s[%d]", r.Role, r.Index)
	}
	return r.Role
}

// judge says whether the mutated run of a point shows a new gap: the point
// is no longer compared (error), a role that was covered is now a gap, a
// role appeared or vanished, or a role that already was a gap gained a new
// difference / prohibited setting.
func judge(base, got report.PointResult, found bool) mutOutcome {
	if !found {
		return mutOutcome{true, "point gone"}
	}
	if got.Status != report.StatusCompared {
		return mutOutcome{true, fmt.Sprintf("status %s: %.120s", got.Status, got.Message)}
	}
	bm := map[string]compare.Result{}
	for _, r := range base.Roles {
		bm[roleKey(r)] = r
	}
	gm := map[string]compare.Result{}
	for _, r := range got.Roles {
		gm[roleKey(r)] = r
	}
	var why []string
	for k, g := range gm {
		b, ok := bm[k]
		if !ok {
			if failing(g.Verdict) {
				why = append(why, fmt.Sprintf("role %s appeared: %s", k, g.Verdict))
			}
			continue
		}
		if !failing(b.Verdict) && failing(g.Verdict) {
			why = append(why, fmt.Sprintf("%s %s", k, g.Verdict)+firstNew(b, g))
			continue
		}
		if failing(b.Verdict) {
			if s := firstNew(b, g); s != "" {
				why = append(why, fmt.Sprintf("%s %s", k, g.Verdict)+s)
			} else if s := firstNew(g, b); s != "" {
				why = append(why, fmt.Sprintf("%s %s, no longer", k, g.Verdict)+s)
			}
		}
	}
	for k, b := range bm {
		if _, ok := gm[k]; !ok && !failing(b.Verdict) {
			why = append(why, "role "+k+" vanished")
		}
	}
	if len(why) > 0 {
		sort.Strings(why)
		return mutOutcome{true, strings.Join(why, "; ")}
	}
	var cov []string
	for _, r := range got.Roles {
		if failing(r.Verdict) {
			cov = append(cov, fmt.Sprintf("%s %s (unchanged)", roleKey(r), r.Verdict))
		} else {
			cov = append(cov, fmt.Sprintf("%s %s", roleKey(r), r.Verdict))
		}
	}
	return mutOutcome{false, strings.Join(cov, ", ")}
}

func firstNew(b, g compare.Result) string {
	be := gapEntries(b)
	var news []string
	for e := range gapEntries(g) {
		if !be[e] && !strings.HasPrefix(e, "verdict ") {
			news = append(news, e)
		}
	}
	if len(news) == 0 {
		return ""
	}
	sort.Strings(news)
	return " (" + news[0] + ")"
}

// ---------------------------------------------------------------------------
// The suite

// mutation is one change to one target.
type mutation struct {
	tg   *mutTarget
	what string // "leaf", "delete", "file"
	path string // effective path (display)
	old  string
	new  string
	role string // the role the path belongs to ("" = any)
	file string // the file changed, relative to the checkout
	data []byte // its mutated content
	// results
	outcomes map[mutPointID]mutOutcome
	err      error
	render   string // for uncaught: what changed in the rendered deployment
	// cond: the conditional reviewed entry of the leaf (Render set);
	// placement: the rendered deployment changed in placement keys only
	cond      *mutExempt
	placement bool
	// confirmed: also run through Coverage; confirmErr when they disagree
	confirmed  bool
	confirmErr error
}

func (m *mutation) caught() bool {
	if m.err != nil || len(m.outcomes) == 0 {
		return false
	}
	for _, o := range m.outcomes {
		if !o.caught {
			return false
		}
	}
	return true
}

func (m *mutation) String() string {
	var pts []string
	for id, o := range m.outcomes {
		if !o.caught {
			pts = append(pts, fmt.Sprintf("%s %s point %d", o.detail, m.tg.base[id].CellID, id.Point))
		}
	}
	sort.Strings(pts)
	desc := "no role became a gap"
	if m.role != "" {
		desc = "role " + m.role + " came out covered"
		for _, b := range m.tg.base {
			for _, r := range b.Roles {
				if r.Role == m.role && r.Verdict.Gap() {
					desc = "role " + m.role + " was already " + string(r.Verdict) + " and its evidence did not change"
				}
			}
			break
		}
	}
	msg := fmt.Sprintf("%s:%s %s → %s: %s [%s]", m.tg.name(), m.path, m.old, m.new, desc, strings.Join(pts, "; "))
	if m.err != nil {
		msg = fmt.Sprintf("%s:%s %s → %s: %v", m.tg.name(), m.path, m.old, m.new, m.err)
	}
	if m.render != "" {
		msg += " {render: " + m.render + "}"
	}
	return msg
}

// pathRole names the compare role a recipe path configures ("" when it is
// not one role's).
func pathRole(eff []string) string {
	mode := func(m string) string {
		switch m {
		case "aggregated", "agg":
			return "agg"
		}
		return m
	}
	switch {
	case len(eff) >= 2 && eff[0] == "roles":
		return mode(eff[1])
	case len(eff) >= 3 && eff[0] == "backend" && strings.HasSuffix(eff[1], "_config"):
		return mode(eff[2])
	case len(eff) >= 2 && eff[0] == "backend" && strings.HasSuffix(eff[1], "_environment"):
		return mode(strings.TrimSuffix(eff[1], "_environment"))
	case len(eff) >= 1 && eff[0] == "frontend":
		if len(eff) >= 2 && strings.HasPrefix(eff[1], "nginx") {
			return "nginx"
		}
		return "frontend"
	case len(eff) >= 2 && eff[0] == "infra" && strings.HasPrefix(eff[1], "nats"):
		return "nats"
	case len(eff) >= 2 && eff[0] == "services":
		return "service " + eff[1]
	case len(eff) == 2 && eff[0] == "resources":
		for _, m := range []string{"prefill", "decode", "agg"} {
			if strings.HasPrefix(eff[1], m+"_") || eff[1] == "gpus_per_"+m {
				return m
			}
		}
	}
	return ""
}

// mutStats counts a suite run.
type mutStats struct {
	mu                                   sync.Mutex // buildMutations runs in parallel
	mutations, caught, exempt, confirmed int
	// condExempt: mutated leaves of a conditional reviewed entry whose
	// render changed in placement keys only (also counted in exempt)
	condExempt int
	uncaught   []*mutation
	byRule     map[string]int
}

// buildMutations lists the mutations of one target: every non-exempt leaf,
// every deletion, and every file a flag points at.
func buildMutations(t testing.TB, s *mutSetup, tg *mutTarget, reviewed []*mutExempt, st *mutStats) []*mutation {
	t.Helper()
	file := filepath.Join(s.infxDir, filepath.FromSlash(tg.recipeRel))
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		t.Fatalf("%s: %v", tg.recipeRel, err)
	}
	leaves, dels, err := mutVariant(&doc, tg.selector)
	if err != nil {
		t.Errorf("%s: %v", tg.name(), err)
		return nil
	}
	li := newLineIndex(src)
	root := doc.Content[0]
	var decoded any
	if err := yaml.Unmarshal(src, &decoded); err != nil {
		t.Fatalf("%s: %v", tg.recipeRel, err)
	}
	var out []*mutation
	for _, lf := range leaves {
		eff := strings.Join(lf.eff, ".")
		if e := exemptFor(reviewed, lf.eff); e != nil {
			st.mu.Lock()
			e.used++
			st.exempt++
			st.byRule[e.Rule]++
			st.mu.Unlock()
			continue
		}
		text, shown := mutateScalar(lf.node, lf.key)
		m := &mutation{tg: tg, what: "leaf", path: eff, old: lf.node.Value, new: shown, role: pathRole(lf.eff), file: tg.recipeRel, cond: condExemptFor(reviewed, lf.eff)}
		from, to, err := li.scalarSpan(lf.node)
		if err == nil {
			m.data = applySplices(src, []splice{{from, to, text}})
			err = checkEdit(decoded, m.data, map[string]string{strings.Join(lf.file, "\x00"): text}, nil)
		}
		if err != nil {
			m.err = fmt.Errorf("cannot mutate %s: %v", strings.Join(lf.file, "."), err)
		}
		out = append(out, m)
		// a flag whose value names a file: mutate the file too
		if fm := fileMutation(t, s, tg, lf); fm != nil {
			out = append(out, fm)
		}
	}
	for _, d := range dels {
		m := &mutation{tg: tg, what: "delete", path: strings.Join(d.eff, "."), old: "(present)", new: "(deleted)", role: pathRole(d.eff), file: tg.recipeRel, cond: condExemptFor(reviewed, d.eff)}
		if len(d.eff) == 2 && d.eff[0] == "services" {
			if n := nodeAt(root, append(d.files[0][:len(d.files[0]):len(d.files[0])], "name")); n != nil {
				m.path += "(" + n.Value + ")"
				m.role = n.Value
			}
		}
		var sp []splice
		for _, fp := range d.files {
			k, dash := keyNodeAt(root, fp)
			if k == nil {
				m.err = fmt.Errorf("cannot delete %s: not found", strings.Join(fp, "."))
				break
			}
			from, to, err := li.blockSpan(k, dash)
			if err != nil {
				m.err = fmt.Errorf("cannot delete %s: %v", strings.Join(fp, "."), err)
				break
			}
			sp = append(sp, splice{from, to, ""})
		}
		if m.err == nil {
			m.data = applySplices(src, sp)
			if err := checkEdit(decoded, m.data, nil, d.files); err != nil {
				m.err = fmt.Errorf("cannot delete %s: %v", m.path, err)
			}
		}
		out = append(out, m)
	}
	return out
}

// fileMutation returns a mutation of the file a flag value points at, when
// the leaf is such a value: a path into the InferenceX checkout is mutated
// there (its first number +1); a path coverage cannot see (srt-slurm's
// /configs/, mounted from the NVIDIA/srt-slurm clone, not in --infx) is an
// uncaught mutation by construction: its content is never compared.
func fileMutation(t testing.TB, s *mutSetup, tg *mutTarget, lf mutLeaf) *mutation {
	v := lf.node.Value
	if lf.node.ShortTag() != "!!str" || !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "./") {
		return nil
	}
	ext := path.Ext(v)
	if ext != ".json" && ext != ".yaml" && ext != ".yml" && ext != ".conf" && ext != ".toml" {
		return nil
	}
	m := &mutation{tg: tg, what: "file", path: strings.Join(lf.eff, ".") + " → " + v, old: "(file)", new: "(first number +1)", role: pathRole(lf.eff)}
	rel := strings.TrimPrefix(path.Clean("/"+v), "/")
	for _, cand := range []string{rel, path.Join(path.Dir(tg.recipeRel), v)} {
		p := filepath.Join(s.infxDir, filepath.FromSlash(cand))
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		m.file = cand
		m.data = bumpFirstNumber(data)
		return m
	}
	if rest, ok := strings.CutPrefix(v, "/configs/"); ok && s.opt.SrtSlurmDir != "" {
		// srt-slurm's own configs/ (coverage reads it from --srt-slurm-dir)
		if data, err := os.ReadFile(filepath.Join(s.opt.SrtSlurmDir, "configs", filepath.FromSlash(rest))); err == nil {
			m.file = srtConfigsPrefix + rest
			m.data = bumpFirstNumber(data)
			return m
		}
	}
	m.err = fmt.Errorf("the file is neither in the InferenceX checkout nor in the srt-slurm checkout's configs/: coverage never reads it, so a change to its content cannot be caught")
	return m
}

func bumpFirstNumber(data []byte) []byte {
	for i := 0; i < len(data); i++ {
		if data[i] >= '0' && data[i] <= '9' {
			j := i
			for j < len(data) && data[j] >= '0' && data[j] <= '9' {
				j++
			}
			n, _ := strconv.Atoi(string(data[i:j]))
			return append(append(append([]byte(nil), data[:i]...), strconv.Itoa(n+1)...), data[j:]...)
		}
	}
	return append(append([]byte(nil), data...), '\n', '#')
}

// renderDiff says what a mutation changed in the rendered deployment
// (processes by role: flags, env, counts, files), or "unchanged", and
// whether the change touched placement keys only (placementOnly).
func renderDiff(s *mutSetup, co *mutCheckout, m *mutation, model string) (string, bool) {
	file := filepath.Join(co.infx, filepath.FromSlash(m.tg.recipeRel))
	b, err1 := RenderSrtSlurm(filepath.Join(s.infxDir, filepath.FromSlash(m.tg.recipeRel)), m.tg.selector, model)
	if m.file != m.tg.recipeRel {
		return "not rendered from the recipe", false
	}
	tmp := file + ".render.yaml"
	if err := os.WriteFile(tmp, m.data, 0o644); err != nil {
		return err.Error(), false
	}
	defer os.Remove(tmp)
	g, err2 := RenderSrtSlurm(tmp, m.tg.selector, model)
	if err1 != nil || err2 != nil {
		return fmt.Sprintf("render errors: %v / %v", err1, err2), false
	}
	bs, gs := procSigs(b), procSigs(g)
	place := placementOnly(b, g)
	var d []string
	for k, v := range gs {
		if bs[k] == nil {
			d = append(d, "+process "+k)
			continue
		}
		for s, val := range v {
			if ov, ok := bs[k][s]; !ok {
				d = append(d, fmt.Sprintf("%s +%s=%s", k, s, mutShort(val)))
			} else if ov != val {
				d = append(d, fmt.Sprintf("%s %s %s→%s", k, s, mutShort(ov), mutShort(val)))
			}
		}
		for s, val := range bs[k] {
			if _, ok := v[s]; !ok {
				d = append(d, fmt.Sprintf("%s -%s=%s", k, s, mutShort(val)))
			}
		}
	}
	for k := range bs {
		if gs[k] == nil {
			d = append(d, "-process "+k)
		}
	}
	if len(d) == 0 {
		return "rendered deployment unchanged", place
	}
	sort.Strings(d)
	if len(d) > 4 {
		d = append(d[:4], fmt.Sprintf("… %d more", len(d)-4))
	}
	return strings.Join(d, "; "), place
}

func mutShort(s string) string {
	if len(s) > 60 {
		sum := sha256.Sum256([]byte(s))
		return s[:40] + "…#" + hex.EncodeToString(sum[:3])
	}
	return s
}

func procSigs(d *launch.Deployment) map[string]map[string]string {
	out := map[string]map[string]string{}
	for i, p := range d.Processes {
		k := string(p.Kind)
		if p.Role != "" {
			k += "/" + string(p.Role)
		}
		if out[k] != nil {
			k += "#" + strconv.Itoa(i)
		}
		m := map[string]string{
			"program": p.Program, "workers": strconv.Itoa(p.Workers), "nodesPerWorker": strconv.Itoa(p.NodesPerWorker),
			"gpusPerNode": strconv.Itoa(p.GPUsPerNode), "count": strconv.Itoa(p.Count), "countNodes": strconv.Itoa(p.CountNodes),
			"preamble": strings.Join(p.Preamble, "\n"), "ports": strings.Join(p.Ports, ","),
		}
		for _, a := range p.Args {
			m[a.Flag] += strings.Join(a.Values, " ") + ";"
		}
		for _, e := range p.Env {
			m["env "+e.Name] = e.Value
		}
		for _, f := range p.FileContents {
			sum := sha256.Sum256([]byte(f.Content))
			m["file "+f.Path] = hex.EncodeToString(sum[:4])
		}
		out[k] = m
	}
	return out
}

// runSuite runs every mutation of the targets on per-worker checkouts and
// fills st. It fails the test when the reduced checkout does not reproduce
// the baseline.
func runSuite(t *testing.T, s *mutSetup, targets []*mutTarget, reviewed []*mutExempt, st *mutStats) []*mutation {
	t.Helper()
	perTarget := make([][]*mutation, len(targets))
	eachParallel(t, s.name+"/mutations", len(targets), func(t *testing.T, i int) {
		perTarget[i] = buildMutations(t, s, targets[i], reviewed, st)
	})
	var muts []*mutation
	for _, m := range perTarget {
		muts = append(muts, m...)
	}
	workers := runtime.GOMAXPROCS(0)
	if workers > 8 {
		workers = 8
	}
	cos := make([]*mutCheckout, workers)
	tmp := t.TempDir()
	eachParallel(t, s.name+"/checkouts", workers, func(t *testing.T, w int) {
		cos[w] = makeCheckout(t, s, filepath.Join(tmp, "w"+strconv.Itoa(w)), targets)
	})
	// the reduced checkout reproduces the full run (the workers' checkouts
	// are alike: each takes every workers-th target)
	eachParallel(t, s.name+"/reproduce", workers, func(t *testing.T, w int) {
		for i := w; i < len(targets); i += workers {
			tg := targets[i]
			got, err := cos[w].run(s, tg)
			if err != nil {
				t.Fatalf("%s: %v", tg.name(), err)
			}
			for id, b := range tg.base {
				if g, ok := got[id]; !ok || !sameOutcome(b, g) {
					t.Fatalf("%s %s point %d: the reduced checkout does not reproduce the full run (%s → %s): %s", tg.name(), b.CellID, id.Point, b.Verdict, g.Verdict, testutil.LineDiff(outcomeJSON(g), outcomeJSON(b)))
				}
			}
		}
	})
	type job struct {
		m       *mutation
		confirm bool
	}
	jobs := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(co *mutCheckout) {
			defer wg.Done()
			for j := range jobs {
				runMutation(s, co, j.m, j.confirm)
			}
		}(cos[w])
	}
	every := 40
	if n, err := strconv.Atoi(os.Getenv("MUTATION_CONFIRM")); err == nil && n > 0 {
		every = n
	}
	for i, m := range muts {
		if m.err == nil {
			jobs <- job{m, i%every == 0}
		}
	}
	close(jobs)
	wg.Wait()
	for _, m := range muts {
		if m.confirmed {
			st.confirmed++
		}
		if m.confirmErr != nil {
			t.Errorf("%s:%s: %v", m.tg.name(), m.path, m.confirmErr)
		}
		st.mutations++
		if m.caught() {
			st.caught++
		} else if m.cond != nil && m.placement {
			// mutated, and the render proves the change placement-only
			m.cond.used++
			st.exempt++
			st.condExempt++
			st.byRule[m.cond.Rule]++
		} else {
			st.uncaught = append(st.uncaught, m)
		}
	}
	return muts
}

// eachParallel runs f(t, i) for i in [0, n) as parallel subtests (at most
// -parallel at once, GOMAXPROCS by default) of one subtest named name, and
// returns when every one is done; a failure in one fails t and stops it.
func eachParallel(t *testing.T, name string, n int, f func(t *testing.T, i int)) {
	t.Helper()
	if !t.Run(name, func(t *testing.T) {
		for i := 0; i < n; i++ {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				t.Parallel()
				f(t, i)
			})
		}
	}) {
		t.FailNow()
	}
}

// srtConfigsPrefix marks a mutation.file that is srt-slurm's configs/<rest>
// (the checkout's copy under mutCheckout.srt).
const srtConfigsPrefix = "srt-slurm:configs/"

func runMutation(s *mutSetup, co *mutCheckout, m *mutation, confirm bool) {
	p := filepath.Join(co.infx, filepath.FromSlash(m.file))
	if rest, ok := strings.CutPrefix(m.file, srtConfigsPrefix); ok {
		p = filepath.Join(co.srt, "configs", filepath.FromSlash(rest))
	}
	orig, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		m.err = err
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		m.err = err
		return
	}
	if err := os.WriteFile(p, m.data, 0o644); err != nil {
		m.err = err
		return
	}
	got := co.fastRun(s, m.tg)
	if confirm {
		var full map[mutPointID]report.PointResult
		if full, err = co.run(s, m.tg); err == nil {
			for id, b := range m.tg.base {
				f, ok := full[id]
				if judge(b, f, ok).caught != judge(b, got[id], true).caught || !sameOutcome(f, got[id]) {
					m.confirmErr = fmt.Errorf("Coverage and the fast path disagree on %s point %d: %s / %s", b.CellID, id.Point, f.Verdict, got[id].Verdict)
				}
			}
		}
		m.confirmed = true
	}
	if orig != nil {
		err2 := os.WriteFile(p, orig, 0o644)
		if err == nil {
			err = err2
		}
	} else {
		os.Remove(p)
	}
	if err != nil {
		// a usage/parse error of the whole run is a loud failure too
		m.outcomes = map[mutPointID]mutOutcome{}
		for id := range m.tg.base {
			m.outcomes[id] = mutOutcome{true, "coverage error: " + err.Error()}
		}
		return
	}
	m.outcomes = map[mutPointID]mutOutcome{}
	for id, b := range m.tg.base {
		g, ok := got[id]
		m.outcomes[id] = judge(b, g, ok)
	}
	if !m.caught() {
		model := ""
		for _, b := range m.tg.base {
			model = modelOf(s, b.ConfigKey)
			break
		}
		m.render, m.placement = renderDiff(s, co, m, model)
		if m.cond != nil && m.cond.Render == "role-excluded" {
			m.placement = wholeProcessExcluded(got, m.cond.Rule)
			m.render += " {role excluded as a whole by " + m.cond.Rule + ": " + strconv.FormatBool(m.placement) + "}"
		}
	}
}

// wholeProcessExcluded reports whether, at every point, some role is
// excluded as a whole (its "present" setting) by rule: the process the
// leaf configures is one no deployment uses (e.g. harness-etcd-nats-unused:
// NATS that srtctl starts for a deployment behind the SGLang router), so no
// setting of it matters.
func wholeProcessExcluded(got map[mutPointID]report.PointResult, rule string) bool {
	if len(got) == 0 {
		return false
	}
	for _, pr := range got {
		found := false
		for _, r := range pr.Roles {
			for _, e := range r.Excluded {
				if e.Setting == "present" && e.Rule == rule {
					found = true
				}
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// modelOf is the HF model Coverage binds for a config key (ws.Entry).
func modelOf(s *mutSetup, key string) string { return s.models[key] }

// report logs the counts and the uncaught mutations; it fails the test
// when any mutation is not caught.
func (st *mutStats) report(t *testing.T, label string) {
	t.Helper()
	t.Logf("%s: mutations %d, caught %d, exempt %d (%d of them mutated: render changed in placement keys only), uncaught %d (%d also run through Coverage)", label, st.mutations, st.caught, st.exempt, st.condExempt, len(st.uncaught), st.confirmed)
	var rules []string
	for r, n := range st.byRule {
		rules = append(rules, fmt.Sprintf("%s %d", r, n))
	}
	sort.Strings(rules)
	t.Logf("%s: exempt by rule: %s", label, strings.Join(rules, ", "))
	lines := make([]string, len(st.uncaught))
	for i, m := range st.uncaught {
		lines[i] = m.String()
	}
	sort.Strings(lines)
	for _, l := range lines {
		t.Errorf("uncaught: %s", l)
	}
	if d := os.Getenv("MUTATION_DUMP"); d != "" {
		os.WriteFile(d, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	}
}

// ---------------------------------------------------------------------------
// Tests

// mutCorpusSetups are the two real trees: the AgentX pairs corpus and the
// complete InferenceX tree, both with the AgentX snippets.
func mutCorpusSetups(t *testing.T) []*mutSetup {
	infx, sglang, _ := corpusDirs(t)
	up, _ := upstreamDirs(t)
	// srt-slurm's own configs/ (the /configs files recipes name, e.g.
	// deepep_config.json) are read from the srt-slurm checkout, as
	// `coverage --srt-slurm-dir` does.
	srt := testutil.SharedPath(t, "corpus/upstream/srt-slurm")
	opt := Options{SrtSlurmDir: srt, SrtSlurmVersion: "v1.0.68"}
	return []*mutSetup{
		{name: "pairs", infxDir: infx, cbDir: sglang, opt: opt},
		{name: "upstream", infxDir: up, cbDir: sglang, opt: opt},
	}
}

// TestCorpusMutation runs the mutation suite on every srt-slurm recipe
// variant the AgentX pairs corpus and the complete InferenceX tree compare
// (a recipe identical in both trees, with the same selector and baseline, is
// run once): every leaf of the selected variant that is not on the reviewed
// list, every process and service deletion and every file a flag points at
// must turn a covered role into a gap. With MUTATION_SAMPLE=n only every
// n-th target is run (a quicker look); MUTATION_DUMP=file writes the
// uncaught list.
func TestCorpusMutation(t *testing.T) {
	start := time.Now()
	reviewed := loadReviewed(t)
	setups := mutCorpusSetups(t)
	seen := map[string]*mutTarget{}
	rolesBySetup := map[string]int{}
	st := &mutStats{byRule: map[string]int{}}
	// the full coverage run of each tree, at once
	eachParallel(t, "targets", len(setups), func(t *testing.T, i int) { findTargets(t, setups[i]) })
	for _, s := range setups {
		var run []*mutTarget
		for _, tg := range s.targets {
			data, err := os.ReadFile(filepath.Join(s.infxDir, filepath.FromSlash(tg.recipeRel)))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(data)
			var sig []string
			for _, p := range tg.base {
				sig = append(sig, fmt.Sprintf("%s/%d/%d/%s", p.File, p.Cell, p.Point, p.Verdict))
			}
			sort.Strings(sig)
			k := hex.EncodeToString(sum[:]) + "|" + tg.selector + "|" + strings.Join(sig, ",")
			if o := seen[k]; o != nil {
				o.also = append(o.also, s.name)
				rolesBySetup[s.name] += tg.coveredRoles()
				continue
			}
			seen[k] = tg
			run = append(run, tg)
			rolesBySetup[s.name] += tg.coveredRoles()
		}
		if n, _ := strconv.Atoi(os.Getenv("MUTATION_SAMPLE")); n > 1 {
			var keep []*mutTarget
			for i, tg := range run {
				if i%n == 0 {
					keep = append(keep, tg)
				}
			}
			run = keep
		}
		roles := 0
		for _, tg := range run {
			roles += tg.coveredRoles()
		}
		t.Logf("%s: %d recipe variants compared, %d run (%d covered roles)", s.name, len(s.targets), len(run), roles)
		runSuite(t, s, run, reviewed, st)
	}
	for _, s := range setups {
		if rolesBySetup[s.name] < 10 {
			t.Errorf("%s: %d covered roles under mutation, want at least 10 from each tree", s.name, rolesBySetup[s.name])
		}
	}
	if rolesBySetup["pairs"]+rolesBySetup["upstream"] < 20 {
		t.Errorf("%d covered roles under mutation, want at least 20", rolesBySetup["pairs"]+rolesBySetup["upstream"])
	}
	for _, e := range reviewed {
		if e.used == 0 {
			t.Logf("reviewed.yaml: %s (%s) matched no leaf", e.Path, e.Rule)
		}
	}
	st.report(t, fmt.Sprintf("corpus (%s)", time.Since(start).Round(time.Second)))
}

// mutFixture is the small InferenceX checkout and AgentX snippet of the
// cookbook-sync demo (cmd/cookbook-sync/demo: a schema-2 override bundle in
// the inferencex-e2e layout, cited with two selectors, and a schema-1
// Dynamo disagg recipe in the old layout).
func mutFixture(opt Options) *mutSetup {
	d := filepath.Join("..", "cmd", "cookbook-sync", "demo")
	return &mutSetup{name: "fixture", infxDir: filepath.Join(d, "inferencex"), cbDir: filepath.Join(d, "sglang"), opt: opt}
}

func findMutation(muts []*mutation, recipeSuffix, sel, path string) *mutation {
	for _, m := range muts {
		if strings.HasSuffix(m.tg.recipeRel, recipeSuffix) && m.tg.selector == sel && m.path == path {
			return m
		}
	}
	return nil
}

// TestMutationFixture runs the mutation machinery on the fixture: it finds
// the three compared recipe variants, mutates every leaf of each selected
// variant (base + override, schema 1 and 2), deletes each process, and
// Coverage catches the mutations of production settings; exempt leaves are
// counted, not run.
func TestMutationFixture(t *testing.T) {
	reviewed := loadReviewed(t)
	s := mutFixture(Options{})
	findTargets(t, s)
	var names []string
	for _, tg := range s.targets {
		names = append(names, tg.name())
	}
	sort.Strings(names)
	want := []string{
		"benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5/gb300-fp8/agentic/disagg-gb300-1p1d-tp4-tp4-c8.yaml",
		"inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/gb300-fp8/agentx/agg-variants.yaml:override_c32",
		"inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/gb300-fp8/agentx/agg-variants.yaml:override_c4",
	}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("targets %q, want %q", names, want)
	}
	st := &mutStats{byRule: map[string]int{}}
	muts := runSuite(t, s, s.targets, reviewed, st)
	t.Logf("fixture: mutations %d, caught %d, exempt %d, uncaught %d", st.mutations, st.caught, st.exempt, len(st.uncaught))
	for _, m := range st.uncaught {
		t.Logf("fixture uncaught: %s", m)
	}
	// The override's leaves replace the base's (cuda-graph-max-bs is the
	// override's, exempt), base leaves the override does not touch are
	// mutated once per selector, and the other override is not in the variant.
	for _, c := range []struct {
		recipe, sel, path, old, new string
	}{
		{"agg-variants.yaml", "override_c4", "roles.agg.args.mem-fraction-static", "0.80", "1.6"},
		{"agg-variants.yaml", "override_c4", "roles.agg.args.attention-backend", "trtllm_mha", "trtllm_mha-mut"},
		{"agg-variants.yaml", "override_c4", "roles.agg.args.speculative-num-steps", "3", "4"},
		{"agg-variants.yaml", "override_c4", "roles.agg.args.trust-remote-code", "true", "false"},
		{"agg-variants.yaml", "override_c4", "roles.agg.env.SGLANG_ENABLE_SPEC_V2", "1", "2"},
		{"agg-variants.yaml", "override_c32", "roles.agg.args.kv-cache-dtype", "fp8_e4m3", "auto"},
		{"agg-variants.yaml", "override_c4", "roles.agg", "(present)", "(deleted)"},
		{"disagg-gb300-1p1d-tp4-tp4-c8.yaml", "", "backend.sglang_config.decode.speculative-num-draft-tokens", "4", "5"},
		{"disagg-gb300-1p1d-tp4-tp4-c8.yaml", "", "backend.prefill_environment.NCCL_NVLS_ENABLE", "1", "2"},
		{"disagg-gb300-1p1d-tp4-tp4-c8.yaml", "", "frontend.args.router-mode", "kv", "round-robin"},
		{"disagg-gb300-1p1d-tp4-tp4-c8.yaml", "", "backend.sglang_config.prefill", "(present)", "(deleted)"},
	} {
		m := findMutation(muts, c.recipe, c.sel, c.path)
		if m == nil {
			t.Errorf("%s:%s %s: not mutated", c.recipe, c.sel, c.path)
			continue
		}
		if m.old != c.old || m.new != c.new || !m.caught() {
			t.Errorf("%s:%s %s %s → %s, want %s → %s caught: %s", c.recipe, c.sel, c.path, m.old, m.new, c.old, c.new, m)
		}
	}
	for _, c := range []struct{ recipe, sel, path string }{
		{"agg-variants.yaml", "override_c4", "roles.agg.args.cuda-graph-max-bs"},       // exempt (judgment)
		{"agg-variants.yaml", "override_c4", "roles.agg.args.served-model-name"},       // exempt (placement)
		{"agg-variants.yaml", "override_c4", "roles.agg.env.SGLANG_SIMULATE_ACC_LEN"},  // only in override_c32
		{"agg-variants.yaml", "override_c32", "roles.agg.env.SGLANG_SIMULATE_ACC_LEN"}, // exempt (synthetic)
		{"disagg-gb300-1p1d-tp4-tp4-c8.yaml", "", "benchmark.type"},                    // exempt (client)
	} {
		if m := findMutation(muts, c.recipe, c.sel, c.path); m != nil {
			t.Errorf("%s:%s %s: mutated, want it exempt or outside the variant", c.recipe, c.sel, c.path)
		}
	}
	if st.exempt < 10 || st.mutations < 80 || st.caught < 60 {
		t.Errorf("mutations %d, caught %d, exempt %d", st.mutations, st.caught, st.exempt)
	}
}

// TestMutationFixtureCanFail: with an exclusion set that wrongly excludes
// --mem-fraction-static, the suite reports the mutations of that leaf as
// uncaught, in the form the lead routes: recipe:path old → new: role X came
// out covered.
func TestMutationFixtureCanFail(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "exclusions", "rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	rules := nodeAt(doc.Content[0], []string{"rules"})
	var extra yaml.Node
	if err := yaml.Unmarshal([]byte(`{id: test-wrong-mem-fraction, match: {flag: --mem-fraction-static}, class: harness, reason: "a wrong rule for the test"}`), &extra); err != nil {
		t.Fatal(err)
	}
	rules.Content = append(rules.Content, extra.Content[0])
	out, err := yaml.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := exclusions.Parse("rules.yaml+test", out)
	if err != nil {
		t.Fatal(err)
	}
	s := mutFixture(Options{Exclusions: ex})
	findTargets(t, s)
	st := &mutStats{byRule: map[string]int{}}
	runSuite(t, s, s.targets, loadReviewed(t), st)
	var got []string
	for _, m := range st.uncaught {
		if strings.HasSuffix(m.path, "mem-fraction-static") {
			got = append(got, m.String())
		}
	}
	sort.Strings(got)
	if len(got) != 4 {
		t.Fatalf("uncaught mem-fraction-static mutations %q, want 4 (override_c4, override_c32, prefill, decode)", got)
	}
	for _, w := range []string{
		"benchmarks/multi_node/srt-slurm-recipes/sglang/qwen3.5/gb300-fp8/agentic/disagg-gb300-1p1d-tp4-tp4-c8.yaml:backend.sglang_config.prefill.mem-fraction-static 0.8 → 1.6: role prefill came out covered [",
		"inferencex-e2e/benchmarks/multi_node/srt-slurm-recipes/qwen3.5/sglang/gb300-fp8/agentx/agg-variants.yaml:override_c4:roles.agg.args.mem-fraction-static 0.80 → 1.6: role agg came out covered [",
	} {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, w)
		}
		if !found {
			t.Errorf("no uncaught mutation %q in %q", w, got)
		}
	}
}

// The reviewed list fails on an unknown rule id, a missing why and a path
// listed twice; macros expand to both recipe schemas.
func TestMutationReviewedChecks(t *testing.T) {
	ids, err := mutRuleIDs()
	if err != nil {
		t.Fatal(err)
	}
	list := []*mutExempt{
		{Path: "ENV.NO_COLOR", Rule: "harness-no-color", Why: "log colouring"},
		{Path: "name", Rule: "no-such-rule", Why: "x"},
		{Path: "ENV.NO_COLOR", Rule: "launcher-nats-unused", Why: ""},
	}
	errs := checkReviewed(list, ids)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	want := []string{
		`exempt[1] name: rule "no-such-rule" is not in exclusions/rules.yaml nor compare/launcher.yaml`,
		`exempt[2] "ENV.NO_COLOR": needs a path and a one-line why`,
		`exempt[2]: path ENV.NO_COLOR listed twice`,
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("errors %q, want %q", msgs, want)
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"roles.decode.env.NO_COLOR", true},
		{"backend.prefill_environment.NO_COLOR", true},
		{"frontend.env.NO_COLOR", true},
		{"benchmark.env.NO_COLOR", false},
		{"roles.decode.args.NO_COLOR", false},
	} {
		if got := exemptFor(list[:1], strings.Split(c.path, ".")) != nil; got != c.want {
			t.Errorf("%s exempt %v, want %v", c.path, got, c.want)
		}
	}
}

func TestPlacementOnly(t *testing.T) {
	w := func(gpn, workers int, cvd string) launch.Process {
		return launch.Process{Kind: launch.KindWorker, Role: "decode", Program: "python3 -m sglang.launch_server", GPUsPerNode: gpn, Workers: workers,
			Env: []launch.EnvVar{{Name: "CUDA_VISIBLE_DEVICES", Value: cvd}}}
	}
	fe := func(n int, port string) launch.Process {
		return launch.Process{Kind: launch.KindDynamoFrontend, Program: "python3 -m dynamo.frontend", Count: n, Args: []launch.Arg{{Flag: "--http-port=" + port}}}
	}
	base := &launch.Deployment{Processes: []launch.Process{w(4, 1, "0,1,2,3"), fe(1, "8000")}}
	for _, c := range []struct {
		name string
		d    *launch.Deployment
		want bool
	}{
		{"unchanged", &launch.Deployment{Processes: []launch.Process{w(4, 1, "0,1,2,3"), fe(1, "8000")}}, true},
		{"gpus per node", &launch.Deployment{Processes: []launch.Process{w(5, 1, "0,1,2,3,4"), fe(1, "8000")}}, true},
		{"frontend count + nginx", &launch.Deployment{Processes: []launch.Process{w(4, 1, "0,1,2,3"), fe(2, "8180"), {Kind: launch.KindNginx, Program: "nginx"}}}, true},
		{"workers", &launch.Deployment{Processes: []launch.Process{w(4, 2, "0,1,2,3"), fe(1, "8000")}}, false},
		{"flag", &launch.Deployment{Processes: []launch.Process{func() launch.Process {
			p := w(4, 1, "0,1,2,3")
			p.Args = []launch.Arg{{Flag: "--tp-size", Values: []string{"8"}}}
			return p
		}(), fe(1, "8000")}}, false},
		{"process gone", &launch.Deployment{Processes: []launch.Process{w(4, 1, "0,1,2,3")}}, false},
	} {
		if got := placementOnly(base, c.d); got != c.want {
			t.Errorf("%s: placementOnly %v, want %v", c.name, got, c.want)
		}
	}
}
