// Package srtslurm reads NVIDIA/srt-slurm recipes (schema 1 and schema 2,
// as used by SemiAnalysisAI/InferenceX under
// benchmarks/multi_node/srt-slurm-recipes/) and renders the processes
// srt-slurm starts for them: every srun step with its node list, container
// image, exported environment, bash preamble and command, plus the files it
// writes (TRT-LLM engine YAML, nginx.conf), and a launch.Deployment with one
// Process per role block.
//
// Loading follows PyYAML safe_load (YAML 1.1 scalars); variants follow
// srtctl's base / override_* / zip_override_* expansion; rendering follows
// srt-slurm's backend builders, with the injected flags and environment of a
// chosen srt-slurm version (Options.Version, default Newest(): the releases
// and branches of releases.yaml, version.go). The rules are
// those of ../shared/spec/srt-slurm.md (NVIDIA/srt-slurm c88ef731 and older
// refs); the section numbers in comments refer to that spec.
//
// Checked byte for byte (Text) against srt-slurm's own renderings:
// ../shared/golden/srt-slurm (9 files) and testdata/oracle (49 files made
// by running srt-slurm's code with testdata/oracle/render_oracle.py, Slurm
// faked; together they cover refs main = v1.0.68, v1.0.53, v1.0.45, c180328b = v1.0.38,
// v1.0.31, v1.0.29, v1.0.25, a98738de and sa-submission-q2-2026). Covered
// there: SGLang (dynamo and sglang router, agg and disagg), dynamo vLLM
// (per-node and per-GPU DP), direct vLLM,
// TRT-LLM with dynamo (agg and disagg, publish_events_and_metrics'
// default), the trtllm_serve frontend (disaggregated orchestrator under
// mpi=pmix with its ser.yaml, ctx_router / gen_router /
// server_config_extra, orchestrator args and env; aggregate mode on port
// 8000), numa_memory_bind, nginx.conf with and without session affinity
// (custom header, keepalive, ulimit), the dynamo version / hash (with
// cargo_patches) / top-of-tree / wheel installs, setup-script preambles,
// the lmcache / kvbm connector presets, the Mooncake KV store (master
// command per ref generation with master_extra_args, its container, the
// workers' MOONCAKE_* env and mooncake_kv_store.env, vLLM's
// mooncake_store_config.json), infra.nats_max_payload_mb,
// frontend.dedicated_node, benchmark.colocate_with_frontend and
// frontend.orchestrator_placement, and recipes srtctl refuses at load time
// (the error text differs; only the refusal is checked).
//
// Not checked against a rendering: the launch.Deployment view (derived
// from the steps; etcd and NATS there are setup_head.py's two children,
// whose argv srt-slurm never prints), the refs without an oracle file
// (their profile is read from the source at the ref, spec §0), the
// aflowers branch, and everything of schema 2 (the services registry of
// services.go and the schema-2 builders are built from spec §10a/§10b: no
// srtctl 2.x code is available) and observability (its debug-span env vars
// are not rendered; Rendering.Warnings says so). Not rendered at all:
// srun options, container mounts, env_to_unset (kept in Step.Unset, not
// printed), profiling, the benchmark client.
package srtslurm

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Recipe is one loaded srt-slurm recipe file: a plain recipe, or an override
// file (top-level base plus override_<name> / zip_override_<name> sections).
type Recipe struct {
	// File is the name the recipe was loaded under (used in errors).
	File string

	top      *omap
	override bool
	// zipLen holds the number of variants of each zip_override_<g> group.
	zipLen map[string]int
	// selectors in srt-slurm's order.
	selectors []string
	// sweep parameters (top-level sweep:), in YAML order.
	sweep []*entry
}

// Load reads and parses the recipe at path. Errors are *Error values naming
// the file and line:col (or YAML path) of the problem.
func Load(p string) (*Recipe, error) {
	data, err := launch.ReadInput(p)
	if err != nil {
		return nil, err
	}
	return Parse(p, data)
}

// Parse parses a recipe from src; name is used in errors. It checks the YAML
// syntax, that the document is a mapping, and the shape of the variant
// sections (zip dimensions of equal length, srtctl
// src/srtctl/core/config.py). The recipe body itself is validated by Render.
func Parse(name string, src []byte) (*Recipe, error) {
	v, err := parseYAML(name, src)
	if err != nil {
		return nil, err
	}
	top, ok := v.(*omap)
	if !ok {
		return nil, &Error{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("a recipe must be a YAML mapping, got %s", typeName(v))}
	}
	r := &Recipe{File: name, top: top, zipLen: map[string]int{}}
	base, hasBase := top.get("base")
	if sw, ok := top.get("sweep"); ok && !hasBase {
		return r, r.parseSweep(sw)
	}
	if !hasBase {
		r.selectors = []string{""}
		return r, nil
	}
	r.override = true
	if _, ok := base.Val.(*omap); !ok {
		return nil, errAt(name, base.Src, "base must be a mapping, got %s", typeName(base.Val))
	}
	var overrides, zips []string
	for _, e := range top.entries {
		switch {
		case strings.HasPrefix(e.Key, "zip_override_"):
			m, ok := e.Val.(*omap)
			if !ok {
				return nil, errAt(name, e.Src, "%s must be a mapping, got %s", e.Key, typeName(e.Val))
			}
			n, err := zipLength(name, m)
			if err != nil {
				return nil, err
			}
			r.zipLen[e.Key] = n
			zips = append(zips, e.Key)
		case strings.HasPrefix(e.Key, "override_"):
			if _, ok := e.Val.(*omap); !ok && e.Val != nil {
				return nil, errAt(name, e.Src, "%s must be a mapping, got %s", e.Key, typeName(e.Val))
			}
			overrides = append(overrides, e.Key)
		}
	}
	sort.Strings(overrides)
	sort.Strings(zips)
	r.selectors = append(r.selectors, overrides...)
	for _, z := range zips {
		for i := 0; i < r.zipLen[z]; i++ {
			r.selectors = append(r.selectors, fmt.Sprintf("%s[%d]", z, i))
		}
	}
	return r, nil
}

// Selectors lists the variants srtctl apply -f FILE runs, in its order
// (override_* sorted, then every zip_override_<g>[i], sorted by group);
// "base" is not listed but Render accepts it. A recipe without variants
// gives [""] (one plain variant). A top-level sweep file gives "sweep[i]"
// for each combination of its Cartesian product (cookbook-sync's naming).
func (r *Recipe) Selectors() []string {
	return append([]string(nil), r.selectors...)
}

// HasVariants reports whether the recipe is an override file (has base).
func (r *Recipe) HasVariants() bool { return r.override }

func errAt(file string, s src, format string, args ...any) error {
	return &Error{File: file, Line: s.Line, Col: s.Col, Path: s.Path, Msg: fmt.Sprintf(format, args...)}
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case int64, bigInt:
		return "an integer"
	case float64:
		return "a float"
	case string:
		return "a string"
	case pyDate:
		return "a timestamp"
	case []any:
		return "a list"
	case *omap:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}

// zipLength checks the zip dimensions of a zip_override section: every list
// leaf of length != 1 must have the same length N; the group has N variants
// (1 when there is no such list).
func zipLength(file string, m *omap) (int, error) {
	n := 0
	var first src
	var walk func(m *omap) error
	walk = func(m *omap) error {
		for _, e := range m.entries {
			switch x := e.Val.(type) {
			case *omap:
				if err := walk(x); err != nil {
					return err
				}
			case []any:
				if len(x) == 1 {
					continue
				}
				if len(x) == 0 {
					return errAt(file, e.Src, "empty zip list")
				}
				if n == 0 {
					n, first = len(x), e.Src
				} else if len(x) != n {
					return errAt(file, e.Src, "zip list has %d values but %s has %d; every zip list must have the same length (or length 1)", len(x), first.Path, n)
				}
			}
		}
		return nil
	}
	if err := walk(m); err != nil {
		return 0, err
	}
	if n == 0 {
		n = 1
	}
	return n, nil
}

// zipSlice returns variant i of a zip section: lists replaced by their i-th
// element (length-1 lists broadcast), scalars broadcast.
func zipSlice(m *omap, i int) *omap {
	out := newMap()
	for _, e := range m.entries {
		switch x := e.Val.(type) {
		case *omap:
			out.set(e.Key, zipSlice(x, i), e.Src)
		case []any:
			j := i
			if len(x) == 1 {
				j = 0
			}
			s := e.Src
			s.Path = fmt.Sprintf("%s[%d]", s.Path, j)
			out.set(e.Key, deepCopy(x[j]), s)
		default:
			out.set(e.Key, e.Val, e.Src)
		}
	}
	return out
}

var reZipSel = regexp.MustCompile(`^(zip_override_.+)\[(\d+)\]$`)

// variant resolves selector to the effective recipe mapping and its job
// name (spec §8): "" for a plain recipe, "base", "override_<x>",
// "zip_override_<g>[i]", "zip_override_<g>" when the group has one variant,
// or a glob matching exactly one variant.
func (r *Recipe) variant(sel string) (*omap, error) {
	if r.sweep != nil {
		return r.sweepVariant(sel)
	}
	if !r.override {
		if sel != "" && sel != "base" {
			return nil, &Error{File: r.File, Msg: fmt.Sprintf("unknown selector %q: the recipe has no variants (no top-level base)", sel)}
		}
		return deepCopy(r.top).(*omap), nil
	}
	be, _ := r.top.get("base")
	base := be.Val.(*omap)
	baseName := ""
	if n, ok := base.get("name"); ok {
		baseName = pyStr(n.Val)
	}
	out := deepCopy(base).(*omap)
	schema, hasSchema := r.top.get("schema")
	finish := func(m *omap) *omap {
		if hasSchema {
			if _, ok := m.get("schema"); !ok {
				m.set("schema", schema.Val, schema.Src)
			}
		}
		return m
	}
	if sel == "base" {
		return finish(out), nil
	}
	if sel == "" {
		return nil, &Error{File: r.File, Msg: fmt.Sprintf("the recipe has variants; choose a selector (base or one of: %s)", strings.Join(r.selectors, ", "))}
	}
	if strings.ContainsAny(sel, "*?[") && !reZipSel.MatchString(sel) {
		var hits []string
		for _, s := range r.selectors {
			g := s
			if m := reZipSel.FindStringSubmatch(s); m != nil {
				g = m[1]
			}
			if ok, _ := path.Match(sel, g); ok {
				hits = append(hits, s)
			}
		}
		if len(hits) != 1 {
			return nil, &Error{File: r.File, Msg: fmt.Sprintf("selector %q matches %d variants (%s); render needs exactly one; available selectors: %s", sel, len(hits), strings.Join(hits, ", "), strings.Join(r.selectors, ", "))}
		}
		sel = hits[0]
	}
	if strings.HasPrefix(sel, "zip_override_") {
		group, idx := sel, -1
		if m := reZipSel.FindStringSubmatch(sel); m != nil {
			group = m[1]
			idx, _ = strconv.Atoi(m[2])
		}
		n, ok := r.zipLen[group]
		if ok && idx < 0 && n == 1 {
			idx = 0
		}
		if !ok || idx < 0 || idx >= n {
			return nil, r.unknownSel(sel)
		}
		ze, _ := r.top.get(group)
		slice := zipSlice(ze.Val.(*omap), idx)
		deepMerge(out, slice)
		if !isList(ze.Val.(*omap), "name") {
			out.set("name", fmt.Sprintf("%s_%s_%d", baseName, strings.TrimPrefix(group, "zip_override_"), idx), src{Path: sel})
		}
		return finish(out), nil
	}
	if strings.HasPrefix(sel, "override_") {
		oe, ok := r.top.get(sel)
		if !ok {
			return nil, r.unknownSel(sel)
		}
		om, _ := oe.Val.(*omap)
		if om == nil {
			om = newMap()
		}
		deepMerge(out, om)
		if _, ok := om.get("name"); !ok {
			out.set("name", baseName+"_"+strings.TrimPrefix(sel, "override_"), src{Path: sel})
		}
		return finish(out), nil
	}
	return nil, r.unknownSel(sel)
}

func isList(m *omap, k string) bool {
	e, ok := m.get(k)
	if !ok {
		return false
	}
	_, l := e.Val.([]any)
	return l
}

func (r *Recipe) unknownSel(sel string) error {
	return &Error{File: r.File, Msg: fmt.Sprintf("unknown selector %q; available selectors: base, %s", sel, strings.Join(r.selectors, ", "))}
}

// Aliases returns the variant's model.path and model.container as written
// in the recipe: srtslurm.yaml aliases in the old InferenceX layout (e.g.
// "glm-5.2-fp4", "dynamo-sglang"), empty in the newer layout, where the
// master config's model and image are bound instead (pass them as
// Options.Model / Options.Image). Errors as for Render.
func (r *Recipe) Aliases(selector string) (modelPath, container string, err error) {
	eff, err := r.variant(selector)
	if err != nil {
		return "", "", err
	}
	c, err := buildConfig(r.File, eff)
	if err != nil {
		return "", "", err
	}
	return c.modelPath, c.container, nil
}

var reSweepSel = regexp.MustCompile(`^sweep\[(\d+)\]$`)

// parseSweep checks a sweep file (spec §8.4): sweep is a mapping of
// parameter → non-empty list; the variants are the Cartesian product, in
// parameter order with the last parameter varying fastest (itertools.product).
// Their selectors are "sweep[i]" (cookbook-sync's naming: srtctl runs every
// combination and has no selector for one).
func (r *Recipe) parseSweep(sw *entry) error {
	m, ok := sw.Val.(*omap)
	if !ok || m.len() == 0 {
		return errAt(r.File, sw.Src, "sweep must be a mapping of parameter to a list of values")
	}
	n := 1
	for _, e := range m.entries {
		l, ok := e.Val.([]any)
		if !ok || len(l) == 0 {
			return errAt(r.File, e.Src, "sweep parameter %s must be a non-empty list, got %s", e.Key, typeName(e.Val))
		}
		n *= len(l)
		if n > 10000 {
			return errAt(r.File, sw.Src, "sweep expands to more than 10000 combinations")
		}
		r.sweep = append(r.sweep, e)
	}
	for i := 0; i < n; i++ {
		r.selectors = append(r.selectors, fmt.Sprintf("sweep[%d]", i))
	}
	return nil
}

func (r *Recipe) sweepVariant(sel string) (*omap, error) {
	i := -1
	if m := reSweepSel.FindStringSubmatch(sel); m != nil {
		i, _ = strconv.Atoi(m[1])
	} else if sel == "" && len(r.selectors) == 1 {
		i = 0
	}
	if i < 0 || i >= len(r.selectors) {
		return nil, &Error{File: r.File, Msg: fmt.Sprintf("unknown selector %q; a sweep recipe needs one of: %s", sel, strings.Join(r.selectors, ", "))}
	}
	vals := make([]any, len(r.sweep))
	rest := i
	for k := len(r.sweep) - 1; k >= 0; k-- {
		l := r.sweep[k].Val.([]any)
		vals[k] = l[rest%len(l)]
		rest /= len(l)
	}
	out := deepCopy(r.top).(*omap)
	out.del("sweep")
	var sub func(v any) any
	sub = func(v any) any {
		switch x := v.(type) {
		case string:
			for k, e := range r.sweep {
				if _, isList := vals[k].([]any); isList && x == "{"+e.Key+"}" {
					return deepCopy(vals[k])
				}
			}
			for k, e := range r.sweep {
				x = strings.ReplaceAll(x, "{"+e.Key+"}", pyStr(vals[k]))
			}
			return x
		case *omap:
			for _, e := range x.entries {
				e.Val = sub(e.Val)
			}
			return x
		case []any:
			for j := range x {
				x[j] = sub(x[j])
			}
			return x
		}
		return v
	}
	sub(out)
	name := ""
	if n, ok := out.get("name"); ok {
		name = pyStr(n.Val)
	}
	for k, e := range r.sweep {
		name += "_" + e.Key + pyStr(vals[k])
	}
	out.set("name", name, src{Path: sel})
	return out, nil
}
