package srtslurm

import (
	"path"
	"strings"
)

// validate refuses the recipes srtctl refuses when it loads them
// (NVIDIA/srt-slurm src/srtctl/core/schema.py DynamoConfig.__post_init__
// and SrtConfig.__post_init__ at c88ef731; each check names the commit that
// added it when that is later than the refs InferenceX pins before it).
func validate(file string, c *config, p profile) error {
	bad := func(at, format string, args ...any) error { return rdErr(file, c, at, format, args...) }
	// dynamo install sources (schema.py DynamoConfig.__post_init__)
	var sources []string
	if c.dynHash != "" {
		sources = append(sources, "hash")
	}
	if c.dynTOT {
		sources = append(sources, "top_of_tree")
	}
	if c.dynWheel != "" {
		sources = append(sources, "wheel")
	}
	if len(sources) > 1 {
		return bad("dynamo", "Cannot specify both Dynamo install sources: %s", strings.Join(sources, ", "))
	}
	if c.dynWheel != "" {
		if strings.TrimSpace(c.dynWheel) == "" {
			return bad("dynamo.wheel", "dynamo.wheel must be a non-empty package version")
		}
		if strings.HasSuffix(path.Base(c.dynWheel), ".whl") || strings.Contains(c.dynWheel, "/") {
			return bad("dynamo.wheel", "dynamo.wheel must be a package version like '1.2.0.dev20260426', not a filename")
		}
	}
	if c.dynCargoSrc != nil {
		if !p.CargoPatches {
			return bad("dynamo.cargo_patches", "dynamo.cargo_patches is not in srt-slurm %s (added in %s; the recipe fails validation there)", p.name,
				addedIn(func(p profile) bool { return p.CargoPatches }))
		}
		if len(c.dynCargo) > 0 && c.dynHash == "" {
			return bad("dynamo.cargo_patches", "dynamo.cargo_patches requires a source build — set dynamo.hash to a commit")
		}
	}
	if c.rpSet {
		switch c.requestPlane {
		case "nats", "tcp", "http":
		default:
			return bad("dynamo.request_plane", "Invalid request_plane '%s', must be one of: nats, tcp, http", c.requestPlane)
		}
	}
	if c.eventPlane != "" && c.eventPlane != "nats" && c.eventPlane != "zmq" {
		return bad("dynamo.event_plane", "Invalid event_plane '%s', must be one of: nats, zmq", c.eventPlane)
	}
	disagg := c.nodesSet[modePrefill] || c.nodesSet[modeDecode]
	// mooncake_kv_store on a disaggregated SGLang / vLLM recipe must wire
	// mooncake into the KV transfer (SrtConfig._validate_mooncake_kv_store).
	if c.mooncake != nil && disagg && (c.backend == "sglang" || c.backend == "vllm") {
		has := func(m mode) bool {
			for _, k := range []string{"disaggregation-transfer-backend", "disaggregation_transfer_backend", "kv-transfer-config", "kv_transfer_config"} {
				e, ok := c.modeCfg[m].get(k)
				if !ok {
					continue
				}
				s, isStr := e.Val.(string)
				if !isStr {
					continue
				}
				if c.backend == "sglang" && strings.HasPrefix(k, "disaggregation") && s == "mooncake" {
					return true
				}
				if c.backend == "vllm" && strings.HasPrefix(k, "kv") && strings.Contains(strings.ToLower(s), "mooncake") {
					return true
				}
			}
			return false
		}
		if !has(modePrefill) && !has(modeDecode) {
			if c.backend == "sglang" {
				return bad("backend.mooncake_kv_store", "mooncake_kv_store is set but neither sglang_config.prefill nor sglang_config.decode has 'disaggregation-transfer-backend: mooncake'")
			}
			return bad("backend.mooncake_kv_store", "mooncake_kv_store is set but neither vllm_config.prefill nor vllm_config.decode has a kv-transfer-config that references a Mooncake connector")
		}
	}
	// SrtConfig._validate_dedicated_node_placement (a19d9451, v1.0.62)
	if p.DedicatedPlacement && c.frontDedicated && c.orchPlacement != "" && c.orchPlacement != "head" {
		return bad("frontend.orchestrator_placement", "frontend.dedicated_node requires frontend.orchestrator_placement: head (got '%s'); otherwise the reserved node is never used", c.orchPlacement)
	}
	// SrtConfig._validate_trtllm_serve (22930723, v1.0.9: disaggregated
	// only; aggregate mode with one worker from 2580a31e, v1.0.51)
	if c.frontType == "trtllm_serve" {
		if !p.TrtServe {
			return bad("frontend.type", "frontend.type: trtllm_serve is not in srt-slurm %s (added in 22930723, v1.0.9)", p.name)
		}
		if c.backend != "trtllm" {
			return bad("frontend.type", "frontend.type: trtllm_serve requires backend.type: trtllm; got '%s'", c.backend)
		}
		if c.multiFront {
			if p.TrtServeSingle {
				return bad("frontend.enable_multiple_frontends", "frontend.type: trtllm_serve uses one public endpoint; set frontend.enable_multiple_frontends: false")
			}
			return bad("frontend.enable_multiple_frontends", "frontend.type: trtllm_serve runs a single orchestrator; set frontend.enable_multiple_frontends: false")
		}
		if !disagg && !p.TrtServeSingle {
			return bad("resources", "frontend.type: trtllm_serve requires a disaggregated layout (set resources.prefill_nodes/prefill_workers and decode_nodes/decode_workers)")
		}
		if !disagg && c.workers[modeAgg] != 1 {
			return bad("resources.agg_workers", "frontend.type: trtllm_serve aggregate mode requires exactly one aggregate worker (set resources.agg_workers: 1)")
		}
	}
	// fields a ref does not have fail its marshmallow schema ("Unknown
	// field"): mooncake_kv_store per profile.Mooncake, numa_memory_bind
	if c.mooncake != nil && c.schema != 2 {
		switch {
		case p.Mooncake == 0:
			return bad("backend.mooncake_kv_store", "backend.mooncake_kv_store is not in srt-slurm %s (the recipe fails validation there)", p.name)
		case p.Mooncake == 1 && c.backend == "vllm":
			return bad("backend.mooncake_kv_store", "backend.mooncake_kv_store is SGLang-only in srt-slurm %s (vLLM from 7e576747, v1.0.12)", p.name)
		}
		if e, ok := c.mooncake.get("master_extra_args"); ok && e.Val != nil && p.Mooncake < 4 {
			return bad("backend.mooncake_kv_store.master_extra_args", "mooncake_kv_store.master_extra_args is not in srt-slurm %s (added in %s)", p.name,
				addedIn(func(p profile) bool { return p.Mooncake >= 4 }))
		}
	}
	if c.natsPayload != "" && !p.NatsPayloadField {
		return bad("infra.nats_max_payload_mb", "infra.nats_max_payload_mb is not in srt-slurm %s (the recipe fails validation there)", p.name)
	}
	if c.numaSet && !p.NumaField {
		return bad("backend.numa_memory_bind", "backend.numa_memory_bind is not in srt-slurm %s (added in %s)", p.name,
			addedIn(func(p profile) bool { return p.NumaField }))
	}
	// SrtConfig._validate_vllm_frontend (6fd60000, v1.0.37)
	if c.frontType == "vllm" && p.DirectVLLM {
		if c.backend != "vllm" {
			return bad("frontend.type", "frontend.type: vllm requires backend.type: vllm; got '%s'", c.backend)
		}
		if c.multiFront {
			return bad("frontend.enable_multiple_frontends", "frontend.type: vllm binds vllm serve directly; set frontend.enable_multiple_frontends: false")
		}
		if disagg {
			return bad("resources", "frontend.type: vllm supports aggregate jobs only, not disaggregated layouts")
		}
		if c.workers[modeAgg] != 1 {
			return bad("resources.agg_workers", "frontend.type: vllm supports exactly one aggregate worker, got %d", c.workers[modeAgg])
		}
	}
	return nil
}
