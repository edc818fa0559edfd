package srtslurm

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// mode is a worker mode as srt-slurm spells it in config keys.
type mode string

const (
	modePrefill mode = "prefill"
	modeDecode  mode = "decode"
	modeAgg     mode = "aggregated"
)

// resKey is the spelling of a mode in resources (agg_nodes, gpus_per_agg).
func (m mode) resKey() string {
	if m == modeAgg {
		return "agg"
	}
	return string(m)
}

// config is the typed view of an effective (variant-resolved, schema-1)
// recipe: the fields rendering needs, each with its source for origins.
type config struct {
	file   string
	schema int
	name   string

	modelPath, container, stageDir string

	gpuType     string
	gpusPerNode int
	nodes       map[mode]int
	workers     map[mode]int
	gpusPer     map[mode]int // 0 = not set
	nodesSet    map[mode]bool

	backend     string // sglang | vllm | trtllm | mocker
	modeCfg     map[mode]*omap
	modeCfgPath map[mode]string
	modeEnv     map[mode]*omap
	extraArgs   map[mode][]string
	kvEvents    map[mode]bool
	// mooncake is backend.mooncake_kv_store (nil = not set), checked by
	// mooncakeConfig; mooncakeAt is where it is written.
	mooncake    *omap
	mooncakeAt  src
	connector   any // string or nil
	connectorOK bool
	dpLaunch    string
	setCVD      bool
	// pdColocation is where backend.allow_prefill_decode_colocation: true
	// is set (srtctl backends/vllm.py packs prefill and decode workers on
	// shared nodes, which this package does not do), nil when unset.
	pdColocation *src
	publishEv    bool
	publishSet   bool // publish_events_and_metrics written in the recipe
	numaBind     bool
	numaSet      bool // numa_memory_bind written (not null): auto otherwise
	numaAt       src

	frontType      string // dynamo | sglang | vllm | trtllm_serve | sglang-direct (v2 "sglang")
	multiFront     bool
	numAddFront    int
	nginxImage     string
	nginxUlimit    bool
	affinity       bool
	affinityHeader string
	keepalive      string
	frontArgs      *omap
	frontEnv       *omap
	// trtllm_serve ser.yaml additions (frontend.ctx_router, gen_router,
	// server_config_extra; dict[str, Any] | None)
	ctxRouter      *omap
	genRouter      *omap
	serExtra       *omap
	orchPlacement  string
	frontDedicated bool

	dynInstall   bool
	dynVersion   string
	dynHash      string
	dynTOT       bool
	dynWheel     string
	dynCargo     []string // dynamo.cargo_patches
	dynCargoSrc  *src
	requestPlane string
	rpSet        bool
	eventPlane   string

	infraDedicated bool
	natsPayload    string // "" = not set
	clientDedic    bool
	// clientColocate is benchmark.colocate_with_frontend (default true):
	// the dedicated infra, frontend and client nodes are one node unless
	// it is false (spec §7 node count).
	clientColocate bool

	observability bool

	// services is the effective services list of a schema-2 recipe (spec
	// §10b, services.go), in effective order; svcWarnings are its
	// collection-only kinds.
	services    []*service
	svcWarnings []string

	environment *omap
	setupScript string
	srunOptions *omap

	// eff is the effective (schema-1) recipe; pos maps its YAML paths to
	// where they were written, built on the first error.
	eff *omap
	pos map[string]src
}

// position returns where the schema-1 path p of the effective recipe was
// written.
func (c *config) position(p string) (src, bool) {
	if c.pos == nil {
		c.pos = map[string]src{}
		if c.eff != nil {
			indexPositions(c.eff, "", c.pos)
		}
	}
	s, ok := c.pos[p]
	return s, ok
}

// indexPositions records the source of every mapping entry under its
// schema-1 path.
func indexPositions(m *omap, prefix string, out map[string]src) {
	for _, e := range m.entries {
		p := joinPath(prefix, e.Key)
		out[p] = e.Src
		if sub, ok := e.Val.(*omap); ok {
			indexPositions(sub, p, out)
		}
	}
}

// getter reads typed fields with positioned errors.
type getter struct{ file string }

func (g getter) errf(e *entry, format string, args ...any) error {
	return errAt(g.file, e.Src, format, args...)
}

func (g getter) mapAt(m *omap, key string) (*omap, *entry, error) {
	e, ok := m.get(key)
	if !ok || e.Val == nil {
		return nil, e, nil
	}
	x, ok := e.Val.(*omap)
	if !ok {
		return nil, e, g.errf(e, "expected a mapping, got %s", typeName(e.Val))
	}
	return x, e, nil
}

func (g getter) str(m *omap, key string, def string) (string, error) {
	e, ok := m.get(key)
	if !ok || e.Val == nil {
		return def, nil
	}
	switch x := e.Val.(type) {
	case string:
		return x, nil
	case int64, float64, bigInt, bool:
		// marshmallow str fields reject non-strings; srt-slurm recipes
		// sometimes write versions unquoted (dynamo.version: 0.8),
		// which PyYAML loads as floats and marshmallow refuses.
		return "", g.errf(e, "expected a string, got %s %s (quote it)", typeName(e.Val), pyRepr(e.Val))
	}
	return "", g.errf(e, "expected a string, got %s", typeName(e.Val))
}

func (g getter) integer(m *omap, key string, def int) (int, bool, error) {
	e, ok := m.get(key)
	if !ok || e.Val == nil {
		return def, false, nil
	}
	x, ok := e.Val.(int64)
	if !ok {
		return 0, false, g.errf(e, "expected an integer, got %s %s", typeName(e.Val), pyRepr(e.Val))
	}
	if x < 0 || x > 100000 {
		return 0, false, g.errf(e, "integer %d out of range", x)
	}
	return int(x), true, nil
}

func (g getter) boolean(m *omap, key string, def bool) (bool, error) {
	e, ok := m.get(key)
	if !ok || e.Val == nil {
		return def, nil
	}
	x, ok := e.Val.(bool)
	if !ok {
		return false, g.errf(e, "expected a boolean, got %s %s", typeName(e.Val), pyRepr(e.Val))
	}
	return x, nil
}

// envMap checks that an env mapping has string values (the schema is
// dict[str, str]: an unquoted 1800 fails validation, spec §2).
func (g getter) envMap(m *omap, key string) (*omap, error) {
	x, _, err := g.mapAt(m, key)
	if err != nil || x == nil {
		return x, err
	}
	for _, e := range x.entries {
		if _, ok := e.Val.(string); !ok {
			return nil, g.errf(e, "environment values must be strings, got %s %s (quote it)", typeName(e.Val), pyRepr(e.Val))
		}
	}
	return x, nil
}

// mooncakeConfig reads backend.mooncake_kv_store with the types of
// NVIDIA/srt-slurm src/srtctl/backends/sglang.py MooncakeKVStoreConfig and
// backends/vllm.py VLLMMooncakeKVStoreConfig (c88ef731): container str,
// env dict[str, str], master_extra_args list[str], and for vLLM
// store_config dict; marshmallow rejects other keys, other types, and the
// field itself on the TRT-LLM backend. nil when unset or null.
func (g getter) mooncakeConfig(be *omap, backend string) (*omap, error) {
	m, e, err := g.mapAt(be, "mooncake_kv_store")
	if err != nil || m == nil {
		return m, err
	}
	if backend != "sglang" && backend != "vllm" {
		return nil, g.errf(e, "backend.mooncake_kv_store is not a %s backend field (srt-slurm: SGLang and vLLM only)", backend)
	}
	known := keySet("container", "env", "master_extra_args")
	if backend == "vllm" {
		known["store_config"] = true
	}
	if err := unknownKey(g.file, m, known, "backend.mooncake_kv_store"); err != nil {
		return nil, err
	}
	if _, err := g.str(m, "container", ""); err != nil {
		return nil, err
	}
	if _, err := g.envMap(m, "env"); err != nil {
		return nil, err
	}
	if x, ok := m.get("master_extra_args"); ok && x.Val != nil {
		l, ok := x.Val.([]any)
		if !ok {
			return nil, g.errf(x, "master_extra_args must be a list of strings, got %s", typeName(x.Val))
		}
		for i, it := range l {
			if _, ok := it.(string); !ok {
				return nil, errAt(g.file, src{Path: fmt.Sprintf("%s[%d]", x.Src.Path, i), Line: x.Src.Line, Col: x.Src.Col},
					"master_extra_args[%d] must be a string, got %s %s (quote it)", i, typeName(it), pyRepr(it))
			}
		}
	}
	if _, _, err := g.mapAt(m, "store_config"); err != nil {
		return nil, err
	}
	return m, nil
}

// buildConfig types the effective recipe m. Schema 2 recipes are first
// normalised to the schema-1 fields (spec §10a).
// ErrNotRendered marks an srtctl feature the recipe uses that this package
// does not render (errors.Is on the returned *Error): the point is
// unsupported, not bad input.
var ErrNotRendered = errors.New("srtctl feature not rendered")

func buildConfig(file string, m *omap) (*config, error) {
	g := getter{file}
	c := &config{file: file, schema: 1,
		nodes: map[mode]int{}, workers: map[mode]int{}, gpusPer: map[mode]int{}, nodesSet: map[mode]bool{},
		modeCfg: map[mode]*omap{}, modeCfgPath: map[mode]string{}, modeEnv: map[mode]*omap{},
		extraArgs: map[mode][]string{}, kvEvents: map[mode]bool{}}
	if e, ok := m.get("schema"); ok && e.Val != nil {
		switch e.Val {
		case int64(1):
		case int64(2):
			c.schema = 2
		default:
			return nil, g.errf(e, "unknown schema %s (srt-slurm knows 1 and 2)", pyRepr(e.Val))
		}
	}
	if err := checkKeys(file, m, c.schema); err != nil {
		return nil, err
	}
	if c.schema == 2 {
		var err error
		if m, err = normalizeV2(file, m); err != nil {
			return nil, err
		}
	}
	c.eff = m
	var err error
	if c.name, err = g.str(m, "name", ""); err != nil {
		return nil, err
	}
	if e, ok := m.get("name"); ok && e.Val != nil {
		c.name = pyStr(e.Val)
	}
	model, _, err := g.mapAt(m, "model")
	if err != nil {
		return nil, err
	}
	if model == nil {
		// The newer InferenceX layout leaves model to its binder (the
		// master config's model and image); Render fills it from Options.
		model = newMap()
	}
	if c.modelPath, err = g.str(model, "path", ""); err != nil {
		return nil, err
	}
	if c.container, err = g.str(model, "container", ""); err != nil {
		return nil, err
	}
	if c.stageDir, err = g.str(model, "stage_dir", ""); err != nil {
		return nil, err
	}

	res, _, err := g.mapAt(m, "resources")
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = newMap()
	}
	if c.gpuType, err = g.str(res, "gpu_type", ""); err != nil {
		return nil, err
	}
	if c.gpusPerNode, _, err = g.integer(res, "gpus_per_node", 4); err != nil {
		return nil, err
	}
	if c.gpusPerNode == 0 || c.gpusPerNode > 64 {
		e, _ := res.get("gpus_per_node")
		return nil, g.errf(e, "gpus_per_node must be between 1 and 64")
	}
	for _, md := range []mode{modePrefill, modeDecode, modeAgg} {
		k := md.resKey()
		var set bool
		if c.nodes[md], set, err = g.integer(res, k+"_nodes", 0); err != nil {
			return nil, err
		}
		c.nodesSet[md] = set
		if c.workers[md], _, err = g.integer(res, k+"_workers", 0); err != nil {
			return nil, err
		}
		if c.gpusPer[md], _, err = g.integer(res, "gpus_per_"+k, 0); err != nil {
			return nil, err
		}
	}

	be, _, err := g.mapAt(m, "backend")
	if err != nil {
		return nil, err
	}
	if be == nil {
		be = newMap()
	}
	if c.backend, err = g.str(be, "type", "sglang"); err != nil {
		return nil, err
	}
	switch c.backend {
	case "sglang", "vllm", "trtllm":
	case "mocker":
		e, _ := be.get("type")
		err := g.errf(e, "backend type mocker is not rendered: srtctl starts the dynamo.mocker scheduler simulator (NVIDIA/srt-slurm src/srtctl/backends/mocker.py), no inference engine")
		if pe, ok := err.(*Error); ok {
			pe.Err = ErrNotRendered
		}
		return nil, err
	default:
		e, _ := be.get("type")
		return nil, g.errf(e, "unknown backend type %q (sglang, vllm, trtllm)", c.backend)
	}
	cfgKey := c.backend + "_config"
	cfgs, ce, err := g.mapAt(be, cfgKey)
	if err != nil {
		return nil, err
	}
	for _, md := range []mode{modePrefill, modeDecode, modeAgg} {
		c.modeCfg[md] = newMap()
		c.modeCfgPath[md] = "backend." + cfgKey + "." + string(md)
		if ce != nil {
			c.modeCfgPath[md] = ce.Src.Path + "." + string(md)
		}
		if cfgs != nil {
			x, _, err := g.mapAt(cfgs, string(md))
			if err != nil {
				return nil, err
			}
			if x != nil {
				c.modeCfg[md] = x
			}
		}
		env, err := g.envMap(be, string(md)+"_environment")
		if err != nil {
			return nil, err
		}
		c.modeEnv[md] = env
		if e, ok := be.get(string(md) + "_extra_args"); ok && e.Val != nil {
			l, ok := e.Val.([]any)
			if !ok {
				return nil, g.errf(e, "expected a list of arguments, got %s", typeName(e.Val))
			}
			for _, x := range l {
				c.extraArgs[md] = append(c.extraArgs[md], pyStr(x))
			}
		}
	}
	if e, ok := be.get("kv_events_config"); ok && e.Val != nil {
		switch x := e.Val.(type) {
		case bool:
			for _, md := range []mode{modePrefill, modeDecode, modeAgg} {
				c.kvEvents[md] = x
			}
		case *omap:
			for _, md := range []mode{modePrefill, modeDecode, modeAgg} {
				if me, ok := x.get(string(md)); ok {
					switch v := me.Val.(type) {
					case bool:
						c.kvEvents[md] = v
					case *omap:
						c.kvEvents[md] = true
					case nil:
					default:
						return nil, g.errf(me, "expected a boolean or a mapping, got %s", typeName(me.Val))
					}
				}
			}
		default:
			return nil, g.errf(e, "expected a boolean or a per-mode mapping, got %s", typeName(e.Val))
		}
	}
	if c.mooncake, err = g.mooncakeConfig(be, c.backend); err != nil {
		return nil, err
	}
	if e, ok := be.get("mooncake_kv_store"); ok {
		c.mooncakeAt = e.Src
	}
	c.connector, c.connectorOK = "nixl", true
	if e, ok := be.get("connector"); ok {
		switch e.Val.(type) {
		case nil, string:
			c.connector = e.Val
		default:
			return nil, g.errf(e, "expected a string or null, got %s", typeName(e.Val))
		}
	}
	if c.dpLaunch, err = g.str(be, "dp_launch_mode", ""); err != nil {
		return nil, err
	}
	if c.setCVD, err = g.boolean(be, "set_cuda_visible_devices", false); err != nil {
		return nil, err
	}
	if e, ok := be.get("allow_prefill_decode_colocation"); ok {
		if b, isBool := e.Val.(bool); isBool && b {
			c.pdColocation = &e.Src
		}
	}
	if obs, _, err := g.mapAt(m, "observability"); err != nil {
		return nil, err
	} else if obs != nil {
		if c.observability, err = g.boolean(obs, "enabled", false); err != nil {
			return nil, err
		}
	}
	if c.publishEv, err = g.boolean(be, "publish_events_and_metrics", c.observability && c.backend == "trtllm"); err != nil {
		return nil, err
	}
	if e, ok := be.get("publish_events_and_metrics"); ok && e.Val != nil {
		c.publishSet = true
	}
	if c.observability && c.backend == "trtllm" {
		// observability defaults for every engine config (spec §1 step 4);
		// values in the recipe win.
		for _, md := range []mode{modePrefill, modeDecode, modeAgg} {
			cfg := deepCopy(c.modeCfg[md]).(*omap)
			for _, k := range []string{"enable_iter_perf_stats", "return_perf_metrics"} {
				if _, ok := cfg.get(k); !ok {
					cfg.set(k, true, src{})
				}
			}
			c.modeCfg[md] = cfg
		}
	}
	if c.numaBind, err = g.boolean(be, "numa_memory_bind", false); err != nil {
		return nil, err
	}
	if e, ok := be.get("numa_memory_bind"); ok && e.Val != nil {
		c.numaSet, c.numaAt = true, e.Src
	}

	fe, _, err := g.mapAt(m, "frontend")
	if err != nil {
		return nil, err
	}
	if fe == nil {
		fe = newMap()
	}
	if c.frontType, err = g.str(fe, "type", "dynamo"); err != nil {
		return nil, err
	}
	switch c.frontType {
	case "dynamo", "sglang", "vllm", "trtllm_serve", "sglang-direct":
	default:
		e, _ := fe.get("type")
		return nil, g.errf(e, "unknown frontend type %q (dynamo, sglang, vllm, trtllm_serve)", c.frontType)
	}
	if c.multiFront, err = g.boolean(fe, "enable_multiple_frontends", true); err != nil {
		return nil, err
	}
	if c.numAddFront, _, err = g.integer(fe, "num_additional_frontends", 9); err != nil {
		return nil, err
	}
	if c.nginxImage, err = g.str(fe, "nginx_container", "nginx:1.27.4"); err != nil {
		return nil, err
	}
	if c.nginxUlimit, err = g.boolean(fe, "nginx_raise_ulimit", false); err != nil {
		return nil, err
	}
	if c.affinity, err = g.boolean(fe, "nginx_session_affinity", false); err != nil {
		return nil, err
	}
	if c.affinityHeader, err = g.str(fe, "nginx_session_affinity_header", "X-Dynamo-Session-ID"); err != nil {
		return nil, err
	}
	c.keepalive = "600s"
	if e, ok := fe.get("nginx_keepalive_timeout"); ok && e.Val != nil {
		c.keepalive = pyStr(e.Val)
	}
	if c.ctxRouter, _, err = g.mapAt(fe, "ctx_router"); err != nil {
		return nil, err
	}
	if c.genRouter, _, err = g.mapAt(fe, "gen_router"); err != nil {
		return nil, err
	}
	if c.serExtra, _, err = g.mapAt(fe, "server_config_extra"); err != nil {
		return nil, err
	}
	if c.frontArgs, _, err = g.mapAt(fe, "args"); err != nil {
		return nil, err
	}
	if c.frontEnv, err = g.envMap(fe, "env"); err != nil {
		return nil, err
	}
	if c.orchPlacement, err = g.str(fe, "orchestrator_placement", ""); err != nil {
		return nil, err
	}
	if c.frontDedicated, err = g.boolean(fe, "dedicated_node", false); err != nil {
		return nil, err
	}

	dyn, _, err := g.mapAt(m, "dynamo")
	if err != nil {
		return nil, err
	}
	if dyn == nil {
		dyn = newMap()
	}
	if c.dynInstall, err = g.boolean(dyn, "install", true); err != nil {
		return nil, err
	}
	if c.dynVersion, err = g.str(dyn, "version", ""); err != nil {
		return nil, err
	}
	if c.dynHash, err = g.str(dyn, "hash", ""); err != nil {
		return nil, err
	}
	if c.dynTOT, err = g.boolean(dyn, "top_of_tree", false); err != nil {
		return nil, err
	}
	if c.dynWheel, err = g.str(dyn, "wheel", ""); err != nil {
		return nil, err
	}
	if e, ok := dyn.get("cargo_patches"); ok && e.Val != nil {
		l, ok := e.Val.([]any)
		if !ok {
			return nil, g.errf(e, "expected a list of strings, got %s", typeName(e.Val))
		}
		for _, x := range l {
			c.dynCargo = append(c.dynCargo, pyStr(x))
		}
		s := e.Src
		c.dynCargoSrc = &s
	}
	if e, ok := dyn.get("request_plane"); ok && e.Val != nil {
		if c.requestPlane, err = g.str(dyn, "request_plane", ""); err != nil {
			return nil, err
		}
		c.rpSet = true
	}
	if c.eventPlane, err = g.str(dyn, "event_plane", ""); err != nil {
		return nil, err
	}

	infra, _, err := g.mapAt(m, "infra")
	if err != nil {
		return nil, err
	}
	if infra != nil {
		if c.infraDedicated, err = g.boolean(infra, "etcd_nats_dedicated_node", false); err != nil {
			return nil, err
		}
		if e, ok := infra.get("nats_max_payload_mb"); ok && e.Val != nil {
			n, _, err := g.integer(infra, "nats_max_payload_mb", 0)
			if err != nil {
				return nil, err
			}
			c.natsPayload = fmt.Sprint(n)
		}
	}
	if bm, _, err := g.mapAt(m, "benchmark"); err != nil {
		return nil, err
	} else if bm != nil {
		if c.clientDedic, err = g.boolean(bm, "client_dedicated_node", false); err != nil {
			return nil, err
		}
		if c.clientColocate, err = g.boolean(bm, "colocate_with_frontend", true); err != nil {
			return nil, err
		}
	} else {
		c.clientColocate = true
	}
	if c.environment, err = g.envMap(m, "environment"); err != nil {
		return nil, err
	}
	if c.setupScript, err = g.str(m, "setup_script", ""); err != nil {
		return nil, err
	}
	if c.srunOptions, _, err = g.mapAt(m, "srun_options"); err != nil {
		return nil, err
	}
	if c.schema == 2 {
		if c.services, c.svcWarnings, err = effectiveServices(c, m); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// v1OnlyKeys are rejected in a schema-2 recipe (spec §10a).
var v1OnlyTop = []string{"backend", "infra"}

// normalizeV2 rewrites a schema-2 recipe into the schema-1 fields (spec
// §10a, NVIDIA/srt-slurm newer src/srtctl/core/roles.py + config.py). Every
// moved value keeps its source path, so origins still name the v2 spelling.
func normalizeV2(file string, m *omap) (*omap, error) {
	g := getter{file}
	out := deepCopy(m).(*omap)
	for _, k := range v1OnlyTop {
		if e, ok := out.get(k); ok {
			return nil, g.errf(e, "%s is a schema-1 key; schema 2 spells it differently (engine, roles, services)", k)
		}
	}
	res, _, err := g.mapAt(out, "resources")
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = newMap()
		out.set("resources", res, src{Path: "resources"})
	}
	for _, e := range res.entries {
		if strings.HasSuffix(e.Key, "_nodes") || strings.HasSuffix(e.Key, "_workers") || strings.HasPrefix(e.Key, "gpus_per_") && e.Key != "gpus_per_node" {
			return nil, g.errf(e, "resources.%s is a schema-1 key; use roles.<role>.nodes/workers/gpus", e.Key)
		}
	}
	backend := newMap()
	engineType := "sglang"
	if e, ok := out.get("engine"); ok {
		switch x := e.Val.(type) {
		case string:
			engineType = x
			backend.set("type", x, e.Src)
		case *omap:
			for _, ee := range x.entries {
				backend.set(ee.Key, ee.Val, ee.Src)
			}
			if t, ok := x.get("type"); ok {
				engineType = pyStr(t.Val)
			}
		default:
			return nil, g.errf(e, "engine must be a name or a mapping, got %s", typeName(e.Val))
		}
		out.del("engine")
	}
	roles, re, err := g.mapAt(out, "roles")
	if err != nil {
		return nil, err
	}
	if roles != nil {
		cfg := newMap()
		kv := newMap()
		for _, r := range roles.entries {
			rm, ok := r.Val.(*omap)
			if !ok {
				if r.Val == nil {
					continue
				}
				return nil, g.errf(r, "role must be a mapping, got %s", typeName(r.Val))
			}
			var md mode
			switch r.Key {
			case "agg":
				md = modeAgg
			case "prefill":
				md = modePrefill
			case "decode":
				md = modeDecode
			default:
				return nil, g.errf(r, "unknown role %q (agg, prefill, decode)", r.Key)
			}
			rk := md.resKey()
			for _, f := range rm.entries {
				switch f.Key {
				case "nodes":
					if s, ok := f.Val.(string); ok && s == "colocate" {
						if md != modeDecode {
							return nil, g.errf(f, "nodes: colocate is allowed only for decode")
						}
						res.set("decode_nodes", int64(0), f.Src)
						continue
					}
					res.set(rk+"_nodes", f.Val, f.Src)
				case "workers":
					res.set(rk+"_workers", f.Val, f.Src)
				case "gpus":
					res.set("gpus_per_"+rk, f.Val, f.Src)
				case "env":
					backend.set(string(md)+"_environment", f.Val, f.Src)
				case "args":
					cfg.set(string(md), f.Val, f.Src)
				case "extra_args":
					backend.set(string(md)+"_extra_args", f.Val, f.Src)
				case "kv_events":
					kv.set(string(md), f.Val, f.Src)
				default:
					return nil, g.errf(f, "unknown role field %q (nodes, workers, gpus, env, args, extra_args, kv_events)", f.Key)
				}
			}
		}
		backend.set(engineType+"_config", cfg, re.Src)
		if kv.len() > 0 {
			backend.set("kv_events_config", kv, re.Src)
		}
		out.del("roles")
	}
	infra := newMap()
	if se, ok := out.get("services"); ok && se.Val != nil {
		// The services registry (services.go, spec §10b): the list stays
		// in the recipe for effectiveServices; the infra fields it implies
		// are set here (spec §10a table).
		if err := normalizeServices(file, se, infra); err != nil {
			return nil, err
		}
	}
	if infra.len() > 0 {
		out.set("infra", infra, src{Path: "services"})
	}
	out.set("backend", backend, src{Path: "engine"})
	if dyn, de, err := g.mapAt(out, "dynamo"); err != nil {
		return nil, err
	} else if dyn != nil {
		for _, k := range []string{"version", "hash", "wheel", "cargo_patches"} {
			if e, ok := dyn.get(k); ok {
				return nil, g.errf(e, "dynamo.%s is a schema-1 key; use dynamo.source", k)
			}
		}
		if s, _, err := g.mapAt(dyn, "source"); err != nil {
			return nil, err
		} else if s != nil {
			for _, f := range s.entries {
				switch f.Key {
				case "pypi":
					dyn.set("version", f.Val, f.Src)
				case "wheel":
					dyn.set("wheel", f.Val, f.Src)
				case "rev":
					dyn.set("hash", f.Val, f.Src)
				case "top_of_tree":
					dyn.set("top_of_tree", f.Val, f.Src)
				case "patches":
					dyn.set("cargo_patches", f.Val, f.Src)
				case "git":
				default:
					return nil, g.errf(f, "unknown dynamo.source field %q (pypi, wheel, git, rev, top_of_tree, patches)", f.Key)
				}
			}
			dyn.del("source")
		}
		_ = de
	}
	if fe, _, err := g.mapAt(out, "frontend"); err != nil {
		return nil, err
	} else if fe != nil {
		for _, k := range []string{"orchestrator_placement", "dedicated_node"} {
			if e, ok := fe.get(k); ok {
				return nil, g.errf(e, "frontend.%s is a schema-1 key; use frontend.placement.node", k)
			}
		}
		if t, ok := fe.get("type"); ok {
			switch t.Val {
			case "sglang":
				// v2: a router-free single sglang.launch_server worker.
				fe.set("type", "sglang-direct", t.Src)
			case "sglang-router":
				fe.set("type", "sglang", t.Src)
			}
		}
		if pl, _, err := g.mapAt(fe, "placement"); err != nil {
			return nil, err
		} else if pl != nil {
			if n, ok := pl.get("node"); ok {
				if n.Val == "dedicated" {
					fe.set("dedicated_node", true, n.Src)
				} else if n.Val != nil {
					fe.set("orchestrator_placement", n.Val, n.Src)
				}
			}
			fe.del("placement")
		}
	}
	if bm, _, err := g.mapAt(out, "benchmark"); err != nil {
		return nil, err
	} else if bm != nil {
		for _, k := range []string{"client_placement", "client_dedicated_node"} {
			if e, ok := bm.get(k); ok {
				return nil, g.errf(e, "benchmark.%s is a schema-1 key; use benchmark.placement.node", k)
			}
		}
		if pl, _, err := g.mapAt(bm, "placement"); err != nil {
			return nil, err
		} else if pl != nil {
			if n, ok := pl.get("node"); ok {
				if n.Val == "dedicated" {
					bm.set("client_dedicated_node", true, n.Src)
				} else if n.Val != nil {
					bm.set("client_placement", n.Val, n.Src)
				}
			}
			bm.del("placement")
		}
	}
	return out, nil
}

// Known keys (spec §3.1, §10a). srt-slurm's marshmallow schema rejects
// unknown keys at every level; these are the levels the spec lists
// completely. The free-form dicts (args, env, *_config, …) are not checked.
var (
	keysTopV1 = keySet("name", "model", "resources", "slurm", "backend", "frontend", "dynamo", "benchmark",
		"profiling", "output", "health_check", "infra", "observability", "telemetry", "environment",
		"container_mounts", "extra_mount", "srun_options", "sbatch_directives", "enable_config_dump",
		"setup_script", "identity", "reporting", "schema")
	keysTopV2 = keySet("name", "model", "resources", "slurm", "engine", "roles", "services", "frontend",
		"dynamo", "benchmark", "profiling", "output", "health_check", "observability", "telemetry",
		"environment", "container_mounts", "extra_mount", "srun_options", "sbatch_directives",
		"enable_config_dump", "setup_script", "identity", "reporting", "schema",
		"backend", "infra") // rejected with a clearer message by normalizeV2
	keysResources = keySet("gpu_type", "gpus_per_node", "prefill_nodes", "prefill_workers", "decode_nodes",
		"decode_workers", "agg_nodes", "agg_workers", "gpus_per_prefill", "gpus_per_decode", "gpus_per_agg",
		"spread_workers", "het_jobs")
	// frontend and dynamo keys differ by schema (spec §3.1, §10a): v1
	// places the frontend with orchestrator_placement / dedicated_node and
	// installs dynamo from version / hash / wheel / cargo_patches; v2 spells
	// these frontend.placement.node and dynamo.source. The v1 spellings are
	// listed for v2 too so that normalizeV2 rejects them with a clearer
	// message.
	keysFrontendV1 = keySet("type", "enable_multiple_frontends", "num_additional_frontends", "nginx_container",
		"nginx_raise_ulimit", "nginx_session_affinity", "nginx_session_affinity_header",
		"nginx_keepalive_timeout", "args", "env", "orchestrator_placement", "dedicated_node", "ctx_router",
		"gen_router", "server_config_extra")
	keysFrontendV2 = keySet("type", "enable_multiple_frontends", "num_additional_frontends", "nginx_container",
		"nginx_raise_ulimit", "nginx_session_affinity", "nginx_session_affinity_header",
		"nginx_keepalive_timeout", "args", "env", "ctx_router", "gen_router", "server_config_extra", "placement",
		"orchestrator_placement", "dedicated_node")
	keysDynamoV1 = keySet("install", "version", "hash", "top_of_tree", "wheel", "request_plane", "event_plane",
		"cargo_patches")
	keysDynamoV2 = keySet("install", "request_plane", "event_plane", "source",
		"version", "hash", "wheel", "cargo_patches")
	keysInfra = keySet("etcd_nats_dedicated_node", "nats_max_payload_mb")
)

func keySet(ks ...string) map[string]bool {
	m := make(map[string]bool, len(ks))
	for _, k := range ks {
		m[k] = true
	}
	return m
}

// checkKeys rejects unknown keys at the levels srt-slurm's schema fixes.
func checkKeys(file string, m *omap, schema int) error {
	top, front, dyn := keysTopV1, keysFrontendV1, keysDynamoV1
	if schema == 2 {
		top, front, dyn = keysTopV2, keysFrontendV2, keysDynamoV2
	}
	if err := unknownKey(file, m, top, ""); err != nil {
		return err
	}
	for sec, known := range map[string]map[string]bool{"resources": keysResources, "frontend": front, "dynamo": dyn, "infra": keysInfra} {
		if e, ok := m.get(sec); ok {
			if sm, ok := e.Val.(*omap); ok {
				if err := unknownKey(file, sm, known, sec); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func unknownKey(file string, m *omap, known map[string]bool, sec string) error {
	for _, e := range m.entries {
		if !known[e.Key] {
			var ks []string
			for k := range known {
				ks = append(ks, k)
			}
			sort.Strings(ks)
			where := "top-level"
			if sec != "" {
				where = sec
			}
			at := e.Src
			if at.KLine > 0 {
				at.Line, at.Col = at.KLine, at.KCol
			}
			return errAt(file, at, "unknown %s key %q (srt-slurm rejects unknown keys; known: %s)", where, e.Key, strings.Join(ks, ", "))
		}
	}
	return nil
}
