package srtslurm

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// This file renders the services registry of schema-2 recipes (spec §10b:
// NVIDIA/srt-slurm src/srtctl/services/{config,implicit,mooncake_store}.py,
// srtctl 2.x, read at index commits 0bf48c4e, 17c4ece9, 8e804f0c). Schema-1
// recipes keep the v1.0.x behaviour of render.go (one setup_head.py srun
// starting etcd and NATS for every dynamo job, spec §6).
//
// The srtctl 2.x sources are not available; where §10b is silent this file
// takes the strict reading, and anything it cannot know is an error that
// wraps ErrNotRendered (never skipped, never guessed):
//
//   - etcd and NATS run as one srun each with the commands of srt-slurm
//     v1.0.68 src/srtctl/cli/setup_head.py (start_etcd / start_nats, spec
//     §6); 2.x's own etcd/nats command lines are not in §10b. Package
//     compare only counts services, so their argv is plumbing.
//   - mooncake-master starts in the infra phase (after etcd/NATS, before the
//     before_workers services), as v1.0.68 do_sweep.start_mooncake_master
//     does; it must run on the infra node (the workers' MOONCAKE_MASTER
//     points there, spec §6).
//   - mooncake-store has no default placement in §10b: placement.node is
//     required. Its container defaults to the model container.
//   - inherit_discovery_env injects ETCD_ENDPOINTS / NATS_SERVER (the values
//     the workers get) into every service except etcd and NATS themselves,
//     before everything else; only the discovery services that are
//     effective are injected.
//   - external takes the endpoint as a string (etcd / NATS); external: true,
//     an external mooncake-master, node pools (nodes, placement.pool),
//     source / build_command, options.store_config and
//     options.device_names_by_gpu are not rendered.
//   - per: worker instances get their worker's GPUs; how 2.x passes them is
//     not in §10b: Rendering.Warnings says so.
//   - the exporters (dcgm-exporter, node-exporter, process-exporter,
//     declared or implied by observability) are collection, never
//     documentation (§10b "For Check 3"): nothing is rendered and
//     Rendering.Warnings says so.
//   - implicit services from engine.failover (gms) or from a vLLM KV
//     connector other than nixl (§10b: "a vLLM KV connector whose row names
//     a service type implies that service"; which rows do is not known) are
//     not rendered.
//   - a second effective etcd, NATS or mooncake-master (e.g. a declared one
//     under another name next to the implicit one) is not rendered: which
//     endpoint the workers get is not known.

// Service kinds of the srtctl 2.x services registry (spec §10b; NVIDIA/srt-slurm
// src/srtctl/services/config.py, entry field type) that this package renders.
const (
	svcGeneric        = "generic"
	svcEtcd           = "etcd"
	svcNATS           = "nats"
	svcMooncakeMaster = "mooncake-master"
	svcMooncakeStore  = "mooncake-store"
)

// svcNamedOnly are the kinds spec §10b names without their command, env or
// placement: rendering one is an error wrapping ErrNotRendered.
var svcNamedOnly = map[string]string{
	"gms":            "GPU memory service, one per worker with engine.failover",
	"lmcache-server": "LMCache server",
	"ray":            "Ray cluster",
	"mooncake-donor": "TRT-LLM Mooncake donor",
}

// svcExporters are collection kinds (spec §10b "For Check 3: exporters …
// are collection").
var svcExporters = map[string]bool{"dcgm-exporter": true, "node-exporter": true, "process-exporter": true}

// Start phases (spec §10b "Start").
const (
	startInfra         = "infra"
	startBeforeWorkers = "before_workers"
	startAfterFrontend = "after_frontend"
)

// Ports of srt-slurm's discovery plane and Mooncake master (v1.0.68
// src/srtctl/ports.py; spec §6).
const (
	etcdPort             = "2379"
	natsPort             = "4222"
	mooncakeMasterPort   = "8700"
	mooncakeMetadataPort = "8701"
)

// svcFields are the fields of a services entry (spec §10b "Entry fields").
var svcFields = keySet("name", "type", "command", "args", "container", "env", "source", "build_command",
	"placement", "nodes", "start", "readiness", "inherit_discovery_env", "critical", "terminal", "preamble",
	"cpus_per_task", "cpu_bind", "srun_options", "enabled", "external", "options", "metrics")

// svcOptions are the options keys each rendered kind accepts (spec §10b
// "options (kind-specific: nats max_payload_mb; mooncake-master
// store_config, device_names_by_gpu; unknown keys rejected)").
var svcOptions = map[string]map[string]bool{
	svcGeneric:        {},
	svcEtcd:           {},
	svcNATS:           keySet("max_payload_mb"),
	svcMooncakeMaster: keySet("store_config", "device_names_by_gpu"),
	svcMooncakeStore:  {},
}

// service is one entry of the effective services list.
type service struct {
	path     string // YAML path of a declared entry ("base.services[2]"); "" for implicit ones
	at       src    // the entry (its first key), or the setting implying an implicit one
	implicit string // for implicit services: the setting implying it, e.g. "frontend.type dynamo"

	name, kind string
	command    []string
	commandAt  *src // nil: the kind's default command
	args       []string
	argsAt     src
	container  string
	env        *omap
	node       string // placement.node (defaults applied)
	nodeAt     src
	per        bool // placement.per: worker
	start      string
	inherit    bool // inherit_discovery_env
	preamble   string
	enabled    bool
	external   string // endpoint used instead of launching ("" = launched)
	payloadMB  int    // nats options.max_payload_mb (0 = unset)
	payloadAt  src

	// notRendered is why an enabled entry cannot be rendered ("" = it can),
	// at notRenderedAt.
	notRendered   string
	notRenderedAt src
}

// label names the entry in errors and warnings.
func (s *service) label() string {
	if s.path == "" {
		return fmt.Sprintf("implicit service %q (type %s, from %s)", s.name, s.kind, s.implicit)
	}
	return fmt.Sprintf("%s (name %q, type %s)", s.path, s.name, s.kind)
}

func (s *service) errNotRendered(file string, at src, format string, args ...any) error {
	return &Error{File: file, Line: at.Line, Col: at.Col, Msg: s.label() + ": " + fmt.Sprintf(format, args...), Err: ErrNotRendered}
}

func (s *service) errf(file string, at src, format string, args ...any) error {
	return &Error{File: file, Line: at.Line, Col: at.Col, Msg: s.label() + ": " + fmt.Sprintf(format, args...)}
}

// setNotRendered records the first reason the entry cannot be rendered.
func (s *service) setNotRendered(at src, format string, args ...any) {
	if s.notRendered == "" {
		s.notRendered, s.notRenderedAt = fmt.Sprintf(format, args...), at
	}
}

// launched reports whether the service starts a process (it is not external).
func (s *service) launched() bool { return s.external == "" }

// isInfraKind: the discovery plane and the Mooncake master, the kinds that
// may take placement.node dedicated and external (spec §10b).
func isInfraKind(k string) bool { return k == svcEtcd || k == svcNATS || k == svcMooncakeMaster }

// keyAt is the position of the key of mapping entry e.
func keyAt(e *entry) src {
	s := e.Src
	if s.KLine > 0 {
		s.Line, s.Col = s.KLine, s.KCol
	}
	return s
}

// parseServices reads a schema-2 top-level services list (spec §10b): the
// entry shape, unknown keys, unique names, a command for generic entries,
// the options of each kind. Errors name the YAML path and line:col.
func parseServices(file string, se *entry) ([]*service, error) {
	g := getter{file}
	l, ok := se.Val.([]any)
	if !ok {
		return nil, g.errf(se, "services must be a list, got %s", typeName(se.Val))
	}
	names := map[string]string{}
	var out []*service
	for i, it := range l {
		p := fmt.Sprintf("%s[%d]", se.Src.Path, i)
		sm, ok := it.(*omap)
		if !ok {
			return nil, errAt(file, src{Path: p, Line: se.Src.Line, Col: se.Src.Col}, "a service must be a mapping, got %s", typeName(it))
		}
		s, err := parseService(g, p, sm, se.Src)
		if err != nil {
			return nil, err
		}
		if prev, dup := names[s.name]; dup {
			ne, _ := sm.get("name")
			return nil, errAt(file, ne.Src, "service name %q is used twice (%s and %s); names must be unique", s.name, prev, p)
		}
		names[s.name] = p
		out = append(out, s)
	}
	return out, nil
}

func parseService(g getter, p string, sm *omap, listAt src) (*service, error) {
	file := g.file
	s := &service{path: p, at: src{Path: p, Line: listAt.Line, Col: listAt.Col}, inherit: true, enabled: true}
	if len(sm.entries) > 0 {
		s.at = keyAt(sm.entries[0])
		s.at.Path = p
	}
	if err := unknownKey(file, sm, svcFields, p); err != nil {
		return nil, err
	}
	ne, ok := sm.get("name")
	if !ok || ne.Val == nil {
		return nil, errAt(file, s.at, "a service needs a name (spec §10b: unique; names the log service_<name>.out)")
	}
	name, ok := ne.Val.(string)
	if !ok || name == "" {
		return nil, g.errf(ne, "service name must be a non-empty string, got %s", typeName(ne.Val))
	}
	s.name = name
	var err error
	if s.kind, err = g.str(sm, "type", svcGeneric); err != nil {
		return nil, err
	}
	_, rendered := svcOptions[s.kind]
	if ce, ok := sm.get("command"); ok && ce.Val != nil {
		if s.command, err = argvOf(g, ce, "command"); err != nil {
			return nil, err
		}
		if len(s.command) == 0 {
			return nil, g.errf(ce, "command must not be empty")
		}
		at := ce.Src
		s.commandAt = &at
	}
	if ae, ok := sm.get("args"); ok && ae.Val != nil {
		if s.args, err = argvOf(g, ae, "args"); err != nil {
			return nil, err
		}
		s.argsAt = ae.Src
	}
	if s.container, err = g.str(sm, "container", ""); err != nil {
		return nil, err
	}
	if s.env, err = g.envMap(sm, "env"); err != nil {
		return nil, err
	}
	for _, k := range []string{"source", "build_command"} {
		if e, ok := sm.get(k); ok && e.Val != nil {
			s.setNotRendered(e.Src, "%s is not rendered (spec §10b names it without saying how the service is built)", k)
		}
	}
	pl, plE, err := g.mapAt(sm, "placement")
	if err != nil {
		return nil, err
	}
	perAt := src{}
	if pl != nil {
		if err := unknownKey(file, pl, keySet("node", "pool", "per"), p+".placement"); err != nil {
			return nil, err
		}
		if s.node, err = g.str(pl, "node", ""); err != nil {
			return nil, err
		}
		if n, ok := pl.get("node"); ok {
			s.nodeAt = n.Src
		}
		pool, err := g.str(pl, "pool", "")
		if err != nil {
			return nil, err
		}
		if pool != "" {
			pe, _ := pl.get("pool")
			if s.node != "" {
				return nil, g.errf(pe, "placement takes node or pool, not both (spec §10b)")
			}
			s.setNotRendered(pe.Src, "placement.pool (nodes owned by service %q) is not rendered: node pools are not", pool)
		}
		per, err := g.str(pl, "per", "")
		if err != nil {
			return nil, err
		}
		if pe, ok := pl.get("per"); ok {
			perAt = pe.Src
		}
		switch per {
		case "":
		case "worker":
			s.per = true
		default:
			s.setNotRendered(perAt, "placement.per %q is not rendered (spec §10b knows per: worker)", per)
		}
	}
	if ne, ok := sm.get("nodes"); ok && ne.Val != nil {
		n, _, err := g.integer(sm, "nodes", 0)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			s.setNotRendered(ne.Src, "nodes: %d (a node pool the service owns) is not rendered: its place in the allocation is not in spec §10b", n)
		}
	}
	if s.start, err = g.str(sm, "start", ""); err != nil {
		return nil, err
	}
	if s.start != "" {
		switch s.start {
		case startInfra, startBeforeWorkers, startAfterFrontend:
		default:
			se, _ := sm.get("start")
			s.setNotRendered(se.Src, "start %q is not rendered (spec §10b: infra, before_workers, after_frontend)", s.start)
		}
	}
	if err := checkReadiness(g, sm, p); err != nil {
		return nil, err
	}
	if s.inherit, err = g.boolean(sm, "inherit_discovery_env", true); err != nil {
		return nil, err
	}
	for _, k := range []string{"critical", "terminal"} {
		if _, err := g.boolean(sm, k, false); err != nil {
			return nil, err
		}
	}
	if s.preamble, err = g.str(sm, "preamble", ""); err != nil {
		return nil, err
	}
	if _, _, err := g.integer(sm, "cpus_per_task", 0); err != nil {
		return nil, err
	}
	if _, err := g.str(sm, "cpu_bind", ""); err != nil {
		return nil, err
	}
	if _, _, err := g.mapAt(sm, "srun_options"); err != nil {
		return nil, err
	}
	if s.enabled, err = g.boolean(sm, "enabled", true); err != nil {
		return nil, err
	}
	if me, ok := sm.get("metrics"); ok {
		switch me.Val.(type) {
		case nil, bool, *omap:
		default:
			return nil, g.errf(me, "metrics must be a mapping or a boolean, got %s", typeName(me.Val))
		}
	}
	if xe, ok := sm.get("external"); ok {
		switch x := xe.Val.(type) {
		case nil:
		case bool:
			if x {
				s.setNotRendered(xe.Src, "external: true is not rendered: the endpoint the workers get is not known (give it as a string)")
			}
		case string:
			if x == "" {
				return nil, g.errf(xe, "external must be a non-empty endpoint")
			}
			s.external = x
		default:
			return nil, g.errf(xe, "external must be an endpoint string or a boolean, got %s", typeName(xe.Val))
		}
		if xe.Val != nil && xe.Val != false && rendered && !isInfraKind(s.kind) {
			return nil, g.errf(xe, "external applies to etcd, nats and mooncake-master services, not %s (spec §10b)", s.kind)
		}
		if s.external != "" && s.kind == svcMooncakeMaster {
			s.setNotRendered(xe.Src, "an external mooncake-master is not rendered: the metadata server the workers get is not known")
		}
	}
	opts, _, err := g.mapAt(sm, "options")
	if err != nil {
		return nil, err
	}
	if !rendered {
		// named-only, exporter and unknown kinds: their options are not
		// known; the kind itself is reported by effectiveServices.
		return s, nil
	}
	if opts != nil {
		if err := unknownKey(file, opts, svcOptions[s.kind], p+".options ("+s.kind+")"); err != nil {
			return nil, err
		}
		if e, ok := opts.get("max_payload_mb"); ok && e.Val != nil {
			n, _, err := g.integer(opts, "max_payload_mb", 0)
			if err != nil {
				return nil, err
			}
			if n == 0 {
				return nil, g.errf(e, "max_payload_mb must be positive")
			}
			s.payloadMB, s.payloadAt = n, e.Src
		}
		for _, k := range []string{"store_config", "device_names_by_gpu"} {
			if e, ok := opts.get(k); ok && e.Val != nil {
				s.setNotRendered(e.Src, "options.%s is not rendered", k)
			}
		}
	}
	// kind defaults (spec §10b "Defaults", "Start")
	if s.commandAt == nil && s.kind == svcGeneric {
		return nil, s.errf(file, s.at, "a generic service needs a command (spec §10b)")
	}
	if s.node == "" && pl != nil {
		if _, ok := pl.get("pool"); ok {
			return s, nil // not rendered (pool)
		}
	}
	if s.node == "" {
		switch s.kind {
		case svcGeneric:
			s.node = "head"
		case svcEtcd, svcNATS, svcMooncakeMaster:
			s.node = "infra"
		case svcMooncakeStore:
			at := s.at
			if plE != nil {
				at = plE.Src
			}
			s.setNotRendered(at, "mooncake-store has no default placement in spec §10b: set placement.node")
		}
		s.nodeAt = s.at
	}
	switch s.node {
	case "", "head", "infra", "prefill", "decode", "agg", "workers", "compute", "all":
	case "dedicated":
		if !isInfraKind(s.kind) {
			s.setNotRendered(s.nodeAt, "placement.node dedicated is for infra kinds (etcd, nats, mooncake-master; spec §10b), not %s", s.kind)
		}
	default:
		s.setNotRendered(s.nodeAt, "placement.node %q is not rendered (spec §10b: head, infra, dedicated, prefill, decode, agg, workers, compute, all)", s.node)
	}
	if s.per {
		switch s.node {
		case "prefill", "decode", "agg", "workers":
		default:
			return nil, s.errf(file, perAt, "placement.per: worker goes only with node prefill, decode, agg or workers (spec §10b), not %q", s.node)
		}
	}
	if s.start == "" {
		switch s.kind {
		case svcGeneric:
			s.start = startAfterFrontend
		case svcEtcd, svcNATS, svcMooncakeMaster:
			s.start = startInfra
		case svcMooncakeStore:
			s.start = startBeforeWorkers
		}
	}
	return s, nil
}

// argvOf reads a list of scalars (command / args: argv, not shell).
func argvOf(g getter, e *entry, what string) ([]string, error) {
	l, ok := e.Val.([]any)
	if !ok {
		return nil, g.errf(e, "%s must be a list of arguments (argv, not a shell string; spec §10b), got %s", what, typeName(e.Val))
	}
	out := make([]string, len(l))
	for i, x := range l {
		switch x.(type) {
		case nil, *omap, []any:
			return nil, errAt(g.file, src{Path: fmt.Sprintf("%s[%d]", e.Src.Path, i), Line: e.Src.Line, Col: e.Src.Col}, "%s[%d] must be a scalar, got %s", what, i, typeName(x))
		}
		out[i] = pyStr(x)
	}
	return out, nil
}

// checkReadiness validates readiness (spec §10b: exactly one probe of port,
// tcp, http, log; timeout_seconds). Readiness is collection: nothing of it
// is rendered.
func checkReadiness(g getter, sm *omap, p string) error {
	r, re, err := g.mapAt(sm, "readiness")
	if err != nil || r == nil {
		return err
	}
	if err := unknownKey(g.file, r, keySet("port", "tcp", "http", "log", "timeout_seconds"), p+".readiness"); err != nil {
		return err
	}
	n := 0
	for _, k := range []string{"port", "tcp", "http", "log"} {
		if e, ok := r.get(k); ok && e.Val != nil {
			n++
			switch e.Val.(type) {
			case int64, string, *omap:
			default:
				return g.errf(e, "readiness.%s: unexpected %s", k, typeName(e.Val))
			}
		}
	}
	if n != 1 {
		return g.errf(re, "readiness needs exactly one probe (port, tcp, http or log), got %d", n)
	}
	if _, _, err := g.integer(r, "timeout_seconds", 120); err != nil {
		return err
	}
	return nil
}

// declaredMooncakeMaster reports whether an enabled declared entry is a
// mooncake-master (spec §10a: it stands for backend.mooncake_kv_store).
func declaredMooncakeMaster(decl []*service) bool {
	for _, s := range decl {
		if s.enabled && s.kind == svcMooncakeMaster {
			return true
		}
	}
	return false
}

// normalizeServices is the services part of normalizeV2 (spec §10a table):
// an enabled, launched etcd / nats / mooncake-master entry placed on
// dedicated reserves the infra node (infra.etcd_nats_dedicated_node), a
// nats entry's options.max_payload_mb becomes infra.nats_max_payload_mb.
// The services list itself stays in the recipe for effectiveServices.
func normalizeServices(file string, se *entry, infra *omap) error {
	decl, err := parseServices(file, se)
	if err != nil {
		return err
	}
	for _, s := range decl {
		if !s.enabled || !s.launched() || !isInfraKind(s.kind) {
			continue
		}
		if s.node == "dedicated" {
			infra.set("etcd_nats_dedicated_node", true, s.nodeAt)
		}
		if s.kind == svcNATS && s.payloadMB > 0 {
			infra.set("nats_max_payload_mb", int64(s.payloadMB), s.payloadAt)
		}
	}
	return nil
}

// effectiveServices builds the effective services list of a schema-2 recipe
// (spec §10b "Implicit services"): the implicit ones first (each replaced in
// place by a declared entry of the same name), then the other declared
// entries; enabled: false drops an entry. It also sets c.mooncake from a
// declared mooncake-master (spec §10a) and returns the warnings of
// collection-only kinds.
func effectiveServices(c *config, m *omap) ([]*service, []string, error) {
	file := c.file
	var decl []*service
	if se, ok := m.get("services"); ok && se.Val != nil {
		var err error
		if decl, err = parseServices(file, se); err != nil {
			return nil, nil, err
		}
	}
	backend := subMap(m, "backend")
	if backend == nil {
		backend = newMap()
	}
	at := func(om *omap, k, path string) src {
		if om != nil {
			if e, ok := om.get(k); ok {
				return e.Src
			}
		}
		return src{Path: path}
	}
	feMap, dynMap := subMap(m, "frontend"), subMap(m, "dynamo")

	var implicit []*service
	mk := func(name, kind, from string, s src) *service {
		sv := &service{at: s, implicit: from, name: name, kind: kind, inherit: true, enabled: true, nodeAt: s}
		switch kind {
		case svcEtcd, svcNATS, svcMooncakeMaster:
			sv.node, sv.start = "infra", startInfra
		}
		implicit = append(implicit, sv)
		return sv
	}
	declaredNATS := false
	for _, s := range decl {
		if s.kind == svcNATS {
			declaredNATS = true
		}
	}
	if c.frontType == "dynamo" {
		mk("etcd", svcEtcd, "frontend.type dynamo", at(feMap, "type", "frontend.type"))
		if !declaredNATS {
			switch {
			case c.rpSet && c.requestPlane == "nats":
				mk("nats", svcNATS, "dynamo.request_plane nats", at(dynMap, "request_plane", "dynamo.request_plane"))
			case c.eventPlane == "nats":
				mk("nats", svcNATS, "dynamo.event_plane nats", at(dynMap, "event_plane", "dynamo.event_plane"))
			}
		}
	}
	kvSpelled := c.mooncake != nil
	if kvSpelled {
		mk("mooncake-master", svcMooncakeMaster, "engine.mooncake_kv_store", at(backend, "mooncake_kv_store", "engine.mooncake_kv_store"))
	} else if declaredMooncakeMaster(decl) {
		// spec §10a: a mooncake-master entry stands for
		// backend.mooncake_kv_store (the workers' Mooncake env).
		for _, s := range decl {
			if s.enabled && s.kind == svcMooncakeMaster {
				c.mooncake = newMap()
				backend.set("mooncake_kv_store", c.mooncake, s.at)
				break
			}
		}
	}
	if e, ok := backend.get("failover"); ok && e.Val != nil && e.Val != false {
		mk("gms", "gms", "engine.failover", e.Src)
	}
	if c.backend == "vllm" {
		if conn, ok := c.connector.(string); ok && conn != "" && conn != "nixl" && conn != "none" {
			mk("kv-connector-"+conn, "kv-connector:"+conn, "engine.connector "+conn, at(backend, "connector", "engine.connector"))
		}
		for _, md := range []mode{modePrefill, modeDecode, modeAgg} {
			if e, ok := c.modeCfg[md].get("connector"); ok {
				if conn, ok := e.Val.(string); ok && conn != "" && conn != "nixl" && conn != "none" {
					mk("kv-connector-"+conn, "kv-connector:"+conn, e.Src.Path+" "+conn, e.Src)
					break
				}
			}
		}
	}

	// merge: implicit first, replaced in place by a same-name declared entry
	byName := map[string]*service{}
	for _, s := range decl {
		byName[s.name] = s
	}
	used := map[*service]bool{}
	var all []*service
	for _, s := range implicit {
		if d, ok := byName[s.name]; ok {
			if !used[d] {
				used[d] = true
				all = append(all, d)
			}
			continue
		}
		all = append(all, s)
	}
	for _, s := range decl {
		if !used[s] {
			all = append(all, s)
		}
	}

	var out []*service
	var warnings []string
	count := map[string]*service{}
	for _, s := range all {
		_, rendered := svcOptions[s.kind]
		_, named := svcNamedOnly[s.kind]
		switch {
		case !rendered && !named && !svcExporters[s.kind] && strings.HasPrefix(s.kind, "kv-connector:"):
			if !s.enabled {
				continue
			}
			return nil, nil, s.errNotRendered(file, s.at, "the service a vLLM KV connector implies is not rendered (spec §10b: a connector whose row names a service type implies it; which rows do is not known)")
		case !rendered && !named && !svcExporters[s.kind]:
			return nil, nil, s.errNotRendered(file, s.at, "service kind %s is not known (spec §10b names generic, etcd, nats, mooncake-master, mooncake-store, mooncake-donor, gms, lmcache-server, ray, the exporters and the llm-d sidecar) and is not rendered", s.kind)
		}
		if !s.enabled {
			continue
		}
		if svcExporters[s.kind] {
			warnings = append(warnings, s.label()+": exporters are collection, not documentation (spec §10b): not rendered")
			continue
		}
		if named {
			return nil, nil, s.errNotRendered(file, s.at, "service kind %s (%s) is not rendered", s.kind, svcNamedOnly[s.kind])
		}
		if s.notRendered != "" {
			return nil, nil, s.errNotRendered(file, s.notRenderedAt, "%s", s.notRendered)
		}
		if isInfraKind(s.kind) {
			if prev, ok := count[s.kind]; ok {
				return nil, nil, s.errNotRendered(file, s.at, "a second %s service (after %s) is not rendered: which endpoint the workers get is not known (name it %q to replace the implicit one)", s.kind, prev.label(), prev.name)
			}
			count[s.kind] = s
		}
		if s.per && s.kind != svcGeneric && s.kind != svcMooncakeStore {
			return nil, nil, s.errNotRendered(file, s.at, "placement.per: worker for %s is not rendered", s.kind)
		}
		if s.per {
			warnings = append(warnings, s.label()+": per: worker instances get their worker's GPUs; how srtctl 2.x passes them is not in spec §10b and is not rendered")
		}
		out = append(out, s)
	}
	for _, s := range out {
		if s.kind != svcMooncakeStore {
			continue
		}
		if c.mooncake == nil {
			return nil, nil, s.errf(file, s.at, "mooncake-store requires engine.mooncake_kv_store (spec §10b)")
		}
		if mm := count[svcMooncakeMaster]; mm == nil || !mm.launched() {
			return nil, nil, s.errNotRendered(file, s.at, "mooncake-store without an effective mooncake-master is not rendered")
		}
	}
	if c.observability {
		warnings = append(warnings, "observability.enabled: the tachometer exporters it implies (spec §10b) are collection, not documentation: not rendered")
	}
	return out, warnings, nil
}

// subMap returns the mapping at key k of m, nil when absent or not a mapping.
func subMap(m *omap, k string) *omap {
	if e, ok := m.get(k); ok {
		x, _ := e.Val.(*omap)
		return x
	}
	return nil
}

// svcInst is one instance of a service: its node and, for per: worker, the
// worker it belongs to.
type svcInst struct {
	node int
	ep   *ep
}

// svcState is the rendering state of the effective services.
type svcState struct {
	inst     map[*service][]svcInst
	etcdURL  string // ETCD_ENDPOINTS of the workers, frontends and services ("" = no etcd)
	natsURL  string // NATS_SERVER ("" = no NATS)
	masterIP string // node IP of the mooncake master
	inj      launch.Origin
}

// prepareServices places every effective service (spec §10b "Placement")
// and derives the discovery endpoints.
func (rd *renderer) prepareServices() error {
	if rd.svc != nil {
		return nil
	}
	st := &svcState{inst: map[*service][]svcInst{},
		inj: launch.Origin{Kind: launch.OriginInjected, Detail: "srtctl 2.x services registry (spec §10b)"}}
	for _, s := range rd.c.services {
		if !s.launched() {
			switch s.kind {
			case svcEtcd:
				st.etcdURL = s.external
			case svcNATS:
				st.natsURL = s.external
			}
			continue
		}
		inst, err := rd.placeService(s)
		if err != nil {
			return err
		}
		st.inst[s] = inst
		switch s.kind {
		case svcEtcd:
			st.etcdURL = "http://" + host(inst[0].node) + ":" + etcdPort
		case svcNATS:
			st.natsURL = "nats://" + host(inst[0].node) + ":" + natsPort
		case svcMooncakeMaster:
			st.masterIP = ip(inst[0].node)
		}
	}
	rd.svc = st
	return nil
}

// placeService resolves a placement to instances on the rendered topology.
func (rd *renderer) placeService(s *service) ([]svcInst, error) {
	file := rd.file
	var nodes []int
	var eps []*ep
	seen := map[int]bool{}
	addNode := func(n int) {
		if !seen[n] {
			seen[n] = true
			nodes = append(nodes, n)
		}
	}
	switch s.node {
	case "head":
		addNode(rd.head)
	case "infra", "dedicated":
		addNode(rd.infra)
	case "prefill", "decode", "agg", "workers", "compute":
		// compute = worker nodes plus every pool; pools are not rendered,
		// so here it is the worker nodes.
		for _, e := range rd.eps {
			if s.node == "prefill" && e.mode != modePrefill || s.node == "decode" && e.mode != modeDecode || s.node == "agg" && e.mode != modeAgg {
				continue
			}
			eps = append(eps, e)
			for _, n := range e.nodes {
				addNode(n)
			}
		}
	case "all":
		for i := 0; i < rd.nNodes; i++ {
			addNode(i)
		}
	}
	if len(nodes) == 0 {
		return nil, s.errf(file, s.nodeAt, "placement.node %s: the recipe has no %s workers", s.node, s.node)
	}
	var inst []svcInst
	if s.per {
		for _, n := range nodes {
			for _, e := range eps {
				for _, en := range e.nodes {
					if en == n {
						inst = append(inst, svcInst{node: n, ep: e})
					}
				}
			}
		}
	} else {
		for _, n := range nodes {
			inst = append(inst, svcInst{node: n})
		}
	}
	if isInfraKind(s.kind) && len(inst) != 1 {
		return nil, s.errNotRendered(file, s.nodeAt, "%s on %d nodes (placement.node %s) is not rendered: it runs once", s.kind, len(inst), s.node)
	}
	if s.kind == svcMooncakeMaster && inst[0].node != rd.infra {
		return nil, s.errNotRendered(file, s.nodeAt, "a mooncake-master off the infra node is not rendered (the workers' MOONCAKE_MASTER points at the infra node, spec §6)")
	}
	return inst, nil
}

// renderServices appends the steps and processes of the effective services
// that start in one of phases, in effective order (spec §10b "Start").
func (rd *renderer) renderServices(out *Rendering, phases ...string) error {
	if err := rd.prepareServices(); err != nil {
		return err
	}
	for _, ph := range phases {
		for _, s := range rd.c.services {
			if s.start != ph || !s.launched() {
				continue
			}
			rd.renderService(out, s)
		}
	}
	return nil
}

// svcCommand is the program and arguments of a service: the recipe's
// command or the kind's default, then the kind's extra arguments and the
// entry's args.
func (rd *renderer) svcCommand(s *service) (string, argList) {
	o := rd.svc.inj
	var words []string
	var a argList
	if s.commandAt != nil {
		words = s.command
	} else {
		switch s.kind {
		case svcEtcd:
			words = []string{"/configs/etcd", "--data-dir", "/tmp/etcd", "--listen-client-urls", "http://0.0.0.0:" + etcdPort,
				"--advertise-client-urls", "http://" + ip(rd.svc.inst[s][0].node) + ":" + etcdPort}
		case svcNATS:
			words = []string{"/configs/nats-server", "-js", "-sd", "/tmp/nats"}
			if s.payloadMB > 0 {
				words = []string{"/configs/nats-server", "-c", "/tmp/nats.conf"}
			}
		case svcMooncakeMaster:
			words = []string{"mooncake_master", "--port=" + mooncakeMasterPort, "--enable_http_metadata_server=true",
				"--http_metadata_server_port=" + mooncakeMetadataPort, "--eviction_high_watermark_ratio=0.9",
				"--default_kv_lease_ttl=10000", "--rpc_thread_num=16", "--enable_metric_reporting=true", "--metrics_port=8702"}
		case svcMooncakeStore:
			words = []string{"python", "-m", "mooncake.mooncake_store_service"}
		}
	}
	prog, rest := splitProgram(words)
	origin := func(i int) launch.Origin {
		if s.commandAt == nil {
			return o
		}
		return recipeOrigin(src{Path: fmt.Sprintf("%s[%d]", s.commandAt.Path, i+len(words)-len(rest))})
	}
	a = appendWords(a, rest, origin)
	if s.kind == svcMooncakeMaster && rd.c.mooncake != nil {
		// a list of strings (config.go mooncakeConfig checks it)
		if e, ok := rd.c.mooncake.get("master_extra_args"); ok {
			if x, ok := e.Val.([]any); ok {
				extra := make([]string, len(x))
				for i, it := range x {
					extra[i] = pyStr(it)
				}
				a = appendWords(a, extra, func(i int) launch.Origin { return recipeOrigin(e.Src) })
			}
		}
	}
	a = appendWords(a, s.args, func(i int) launch.Origin {
		return recipeOrigin(src{Path: fmt.Sprintf("%s[%d]", s.argsAt.Path, i)})
	})
	return prog, a
}

// splitProgram splits argv into the program ("python3 -m mod" for a
// module, else the first word) and the rest.
func splitProgram(words []string) (string, []string) {
	if len(words) >= 3 && strings.HasPrefix(words[0], "python") && words[1] == "-m" {
		return strings.Join(words[:3], " "), words[3:]
	}
	if len(words) == 0 {
		return "", nil
	}
	return words[0], words[1:]
}

// appendWords adds argument words as launch.Args: a word starting with "-"
// (not a number) opens a flag ("--k=v" stays one flag), the words after it
// are its values; words before any flag are positionals. Argv() gives the
// words back unchanged. Values join only a flag of the same call.
func appendWords(a argList, words []string, origin func(i int) launch.Origin) argList {
	start := len(a)
	for i, w := range words {
		if len(w) > 1 && w[0] == '-' {
			if _, err := strconv.ParseFloat(w, 64); err != nil {
				a.add(origin(i), w)
				continue
			}
		}
		if n := len(a); n > start && a[n-1].Flag != "" && !strings.Contains(a[n-1].Flag, "=") {
			a[n-1].Values = append(a[n-1].Values, w)
			continue
		}
		a.add(origin(i), "", w)
	}
	return a
}

// renderService adds one service: a step per instance (Step.Service names
// the entry; Text prints it) and one launch.Process per services entry,
// with Count = its instances and CountNodes = the distinct nodes they run
// on. Several entries of one kind stay several Processes: the AgentX
// cookbook's mooncake-store blocks (one --port per entry, spec §10b) are
// two entries here, not one Process with Ports, so each entry's command,
// args and env are compared on their own (package compare counts a
// service as CountNodes × len(Ports)); per: worker instances beyond one
// per node show in Count only.
func (rd *renderer) renderService(out *Rendering, s *service) {
	c, st := rd.c, rd.svc
	inst := st.inst[s]
	prog, args := rd.svcCommand(s)
	img := s.container
	if img == "" && s.kind == svcMooncakeMaster && c.mooncake != nil {
		if e, ok := c.mooncake.get("container"); ok && e.Val != nil {
			img = pyStr(e.Val)
		}
	}
	if img == "" {
		img = c.container
	}
	var pre []string
	if s.preamble != "" {
		pre = []string{s.preamble}
	}
	kind := map[string]launch.Kind{svcGeneric: launch.KindService, svcEtcd: launch.KindEtcd, svcNATS: launch.KindNATS,
		svcMooncakeMaster: launch.KindMooncakeMaster, svcMooncakeStore: launch.KindMooncakeStore}[s.kind]
	var firstEnv []launch.EnvVar
	nodes := map[int]bool{}
	for i, in := range inst {
		env := rd.svcEnv(s, in)
		if i == 0 {
			firstEnv = env
		}
		nodes[in.node] = true
		step := Step{Kind: kind, Service: s.name, Nodes: []string{host(in.node)}, Image: img, Env: env,
			Preamble: s.preamble, Program: prog, Args: args}
		if in.ep != nil {
			step.Endpoint = rd.epName(in.ep)
		}
		out.Steps = append(out.Steps, step)
	}
	origin := recipeOrigin(src{Path: s.path})
	if s.path == "" {
		origin = launch.Origin{Kind: launch.OriginInjected, Path: s.at.Path, Detail: "srtctl 2.x services registry: implicit " + s.name + " (" + s.implicit + ")"}
	}
	p := launch.Process{Kind: kind, Program: prog, Args: args, Env: firstEnv, Count: len(inst), CountNodes: len(nodes),
		Preamble: pre, Origin: origin}
	if s.kind == svcMooncakeMaster && c.backend == "vllm" && c.mooncake != nil {
		// the vLLM workers' MOONCAKE_CONFIG_PATH file, as v1.0.68
		// do_sweep.start_mooncake_master writes it (mooncake.go)
		out.Files = append(out.Files, File{Name: mooncakeStoreConfigFile, Content: rd.mooncakeStoreConfig()})
	}
	if s.kind == svcNATS && s.payloadMB > 0 && s.commandAt == nil {
		p.Files = []string{"nats.conf"}
		out.Files = append(out.Files, File{Name: "nats.conf", Content: natsConf(s.payloadMB)})
	}
	out.Deployment.Processes = append(out.Deployment.Processes, p)
}

// natsConf is the NATS config srt-slurm writes for a max payload (v1.0.68
// src/srtctl/cli/setup_head.py start_nats).
func natsConf(mb int) string {
	return "max_payload: " + strconv.Itoa(mb*1024*1024) + "\n" + `jetstream { store_dir: "/tmp/nats" }` + "\n"
}

// svcEnv is the environment of one service instance: the discovery env
// (inherit_discovery_env), the kind's env, the entry's env, then the
// kind's forced env (spec §10b; mooncake-store order from
// src/srtctl/services/mooncake_store.py).
func (rd *renderer) svcEnv(s *service, in svcInst) []launch.EnvVar {
	st := rd.svc
	var l envList
	if s.inherit && s.kind != svcEtcd && s.kind != svcNATS {
		if st.etcdURL != "" {
			l.set("ETCD_ENDPOINTS", st.etcdURL, st.inj)
		}
		if st.natsURL != "" {
			l.set("NATS_SERVER", st.natsURL, st.inj)
		}
	}
	if s.kind == svcMooncakeStore {
		l.set("MOONCAKE_LOCAL_HOSTNAME", ip(in.node), st.inj)
	}
	l.addEnv(s.env, false, "", 0)
	if s.kind == svcMooncakeStore {
		l.set("MOONCAKE_MASTER", st.masterIP+":"+mooncakeMasterPort, st.inj)
		l.set("MOONCAKE_TE_META_DATA_SERVER", "http://"+st.masterIP+":"+mooncakeMetadataPort+"/metadata", st.inj)
	}
	return l.vars
}

// applyDiscoveryEnv sets the injected ETCD_ENDPOINTS / NATS_SERVER of the
// workers and frontends to the effective discovery services, and drops
// them when there is none (spec §10b: NATS_SERVER only when a NATS service
// is effective; an external endpoint is used as given).
func (rd *renderer) applyDiscoveryEnv(out *Rendering) {
	st := rd.svc
	fix := func(env []launch.EnvVar) []launch.EnvVar {
		var res []launch.EnvVar
		for _, e := range env {
			if e.Origin.Kind == launch.OriginInjected {
				switch e.Name {
				case "ETCD_ENDPOINTS":
					if st.etcdURL == "" {
						continue
					}
					e.Value = st.etcdURL
				case "NATS_SERVER":
					if st.natsURL == "" {
						continue
					}
					e.Value = st.natsURL
				}
			}
			res = append(res, e)
		}
		return res
	}
	for i := range out.Steps {
		if k := out.Steps[i].Kind; k == launch.KindWorker || k.IsFrontend() {
			out.Steps[i].Env = fix(out.Steps[i].Env)
		}
	}
	for i := range out.Deployment.Processes {
		if k := out.Deployment.Processes[i].Kind; k == launch.KindWorker || k.IsFrontend() {
			out.Deployment.Processes[i].Env = fix(out.Deployment.Processes[i].Env)
		}
	}
}
