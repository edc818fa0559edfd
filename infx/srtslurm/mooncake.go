package srtslurm

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/internal/pyfmt"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Mooncake KV store of schema-1 recipes (backend.mooncake_kv_store):
// NVIDIA/srt-slurm src/srtctl/cli/do_sweep.py start_mooncake_master /
// _build_mooncake_master_command, src/srtctl/backends/sglang.py and
// backends/vllm.py get_mooncake_worker_env / build_mooncake_store_config,
// per the generation of the rendered ref (profile.Mooncake). Schema-2
// recipes start the master as a service (services.go) but give the workers
// the same env.

// mooncakeStoreConfigFile is backends/vllm.py MOONCAKE_STORE_CONFIG_FILENAME,
// written into the log dir (mounted at /logs).
const mooncakeStoreConfigFile = "mooncake_store_config.json"

// mooncakeMasterFlags are the flags srt-slurm starts mooncake_master with,
// by profile.Mooncake generation.
func mooncakeMasterFlags(gen int) []string {
	switch gen {
	case 1:
		return []string{"--port=8700", "--enable_http_metadata_server=true", "--http_metadata_server_port=8701",
			"--eviction_high_watermark_ratio=0.95"}
	case 2:
		return []string{"--port=8700", "--enable_http_metadata_server=true", "--http_metadata_server_port=8701",
			"--enable_metric_reporting=true", "--metrics_port=8702", "--eviction_high_watermark_ratio=0.95"}
	case 3:
		return []string{"--port=8700", "--enable_http_metadata_server=true", "--http_metadata_server_port=8701",
			"--eviction_high_watermark_ratio=0.9", "--nof_eviction_high_watermark_ratio=0.9", "--default_kv_lease_ttl=10000",
			"--rpc_thread_num=16", "--enable_metric_reporting=true", "--metrics_port=8702"}
	}
	return []string{"--port=8700", "--enable_http_metadata_server=true", "--http_metadata_server_port=8701",
		"--eviction_high_watermark_ratio=0.9", "--default_kv_lease_ttl=10000", "--rpc_thread_num=16",
		"--enable_metric_reporting=true", "--metrics_port=8702"}
}

// mooncakeMaster adds the mooncake_master srun on the infra node (image
// mooncake_kv_store.container, else the job's; no env: the master srun
// passes none) and, for vLLM, the store config JSON it writes first.
func (rd *renderer) mooncakeMaster(out *Rendering) {
	c, o := rd.c, rd.inj
	var a argList
	for _, f := range mooncakeMasterFlags(rd.p.Mooncake) {
		a.add(o, f)
	}
	if e, ok := c.mooncake.get("master_extra_args"); ok {
		if l, ok := e.Val.([]any); ok {
			for i, it := range l {
				a.add(recipeOrigin(src{Path: fmt.Sprintf("%s[%d]", e.Src.Path, i)}), pyStr(it))
			}
		}
	}
	img := c.container
	if e, ok := c.mooncake.get("container"); ok && e.Val != nil {
		img = pyStr(e.Val)
	}
	st := Step{Kind: launch.KindMooncakeMaster, Nodes: []string{host(rd.infra)}, Image: img, Program: "mooncake_master", Args: a}
	out.Steps = append(out.Steps, st)
	out.Deployment.Processes = append(out.Deployment.Processes, launch.Process{Kind: launch.KindMooncakeMaster,
		Program: st.Program, Args: st.Args, Origin: recipeOrigin(c.mooncakeAt)})
	if c.backend == "vllm" {
		out.Files = append(out.Files, File{Name: mooncakeStoreConfigFile, Content: rd.mooncakeStoreConfig()})
	}
}

// mooncakeStoreConfig is backends/vllm.py build_mooncake_store_config as
// json.dumps(…, indent=2): mooncake_kv_store.store_config in recipe order
// with master_server_address set to the infra node's master.
func (rd *renderer) mooncakeStoreConfig() string {
	cfg := newMap()
	if e, ok := rd.c.mooncake.get("store_config"); ok {
		if m, ok := e.Val.(*omap); ok {
			cfg = deepCopy(m).(*omap)
		}
	}
	cfg.set("master_server_address", ip(rd.infra)+":8700", src{})
	var b strings.Builder
	pyJSON(&b, cfg, "")
	return b.String()
}

// mooncakeWorkerEnv adds get_mooncake_worker_env of the SGLang / vLLM
// backend, after the worker's own env: MOONCAKE_LOCAL_HOSTNAME (the
// worker's IP), mooncake_kv_store.env (which may override it), then the
// forced MOONCAKE_MASTER and MOONCAKE_TE_META_DATA_SERVER, and for vLLM
// MOONCAKE_CONFIG_PATH.
func (rd *renderer) mooncakeWorkerEnv(l *envList, pr *proc) {
	c, o := rd.c, rd.inj
	master := ip(rd.infra)
	if rd.svc != nil && rd.svc.masterIP != "" {
		master = rd.svc.masterIP
	}
	l.set("MOONCAKE_LOCAL_HOSTNAME", ip(pr.node), o)
	if em, ok := c.mooncake.get("env"); ok {
		if m, ok := em.Val.(*omap); ok {
			l.addEnv(m, false, "", 0)
		}
	}
	l.set("MOONCAKE_MASTER", master+":8700", o)
	l.set("MOONCAKE_TE_META_DATA_SERVER", "http://"+master+":8701/metadata", o)
	if c.backend == "vllm" {
		l.set("MOONCAKE_CONFIG_PATH", "/logs/"+mooncakeStoreConfigFile, o)
	}
}

// pyJSON writes v as Python's json.dumps(v, indent=2) (ensure_ascii,
// separators ", " / ": " with newlines, floats as repr, NaN / Infinity).
// Mapping keys are written as loaded (a YAML true key would be "true" in
// Python, "True" here; srt-slurm's store_config keys are strings).
// Timestamps, which json.dumps refuses, are written as strings.
func pyJSON(b *strings.Builder, v any, indent string) {
	in := indent + "  "
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int:
		b.WriteString(strconv.Itoa(x))
	case bigInt:
		b.WriteString(string(x))
	case float64:
		switch {
		case math.IsNaN(x):
			b.WriteString("NaN")
		case math.IsInf(x, 1):
			b.WriteString("Infinity")
		case math.IsInf(x, -1):
			b.WriteString("-Infinity")
		default:
			b.WriteString(pyFloat(x))
		}
	case string:
		b.WriteString(pyfmt.JSONString(x))
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[")
		for i, it := range x {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + in)
			pyJSON(b, it, in)
		}
		b.WriteString("\n" + indent + "]")
	case *omap:
		if x.len() == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{")
		for i, e := range x.entries {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n" + in + pyfmt.JSONString(e.Key) + ": ")
			pyJSON(b, e.Val, in)
		}
		b.WriteString("\n" + indent + "}")
	default:
		b.WriteString(pyfmt.JSONString(pyStr(v)))
	}
}
