package srtslurm

import (
	"fmt"
	"regexp"
	"strconv"
)

// DefaultVersion is the srt-slurm ref rendered when Options.Version is
// empty: NVIDIA/srt-slurm main at c88ef731, tag v1.0.68.
const DefaultVersion = "v1.0.68"

// profile is the injection profile of one srt-slurm ref: the flags and env
// it adds around the recipe's own settings (spec §0 per-version table).
type profile struct {
	name string

	httpBase, httpStep int // SGLang worker HTTP port base and step between leaders on a node
	bootBase           int // --disaggregation-bootstrap-port base
	distPort           int // SGLang --dist-init-addr port
	bootAlways         bool
	ncclPort           bool // --nccl-port (>= v1.0.58)
	rpFlag             bool // --request-plane on dynamo workers
	defaultRP          string
	envRPNats          bool // worker env DYN_REQUEST_PLANE always nats
	sysPortBase        int
	kvBase, nixlBase   int
	dpRPCBase          int
	dpRPCFromRecipe    bool // aflowers: recipe data-parallel-rpc-port, else 13345
	skipLogFmt         bool // DYN_SKIP_SGLANG_LOG_FORMATTING=1 injected
	dynLog             bool // default DYN_LOG injected
	runtimeEnvFront    bool // OTEL + top-level environment in dynamo frontend env
	popModelPath       bool // SGLang removes model-path / served-model-name
	fingerprint        bool
	vllmPort           bool // VLLM_PORT export
	vllmPortUnset      bool // unset -- VLLM_PORT on multi-node endpoints
	dpPerNodeDefault   bool
	dpLaunchSelector   bool // backend.dp_launch_mode honoured
	deviceIDs          bool // vLLM --device-ids
	directVLLM         bool // frontend.type: vllm
	flock              bool // install wrapped in flock + sentinel
	wheelField         bool // dynamo.wheel accepted
	telemetryField     bool // top-level telemetry accepted
	aflowersDotted     bool // vLLM: only the part before the first '.' gets _ → -
	nixlBlock          bool // vLLM DP endpoints reserve a NIXL block
	nginx              nginxTpl
	cargoPatches       bool // dynamo.cargo_patches accepted (cb651682, v1.0.36)
	trtServeSingle     bool // trtllm_serve refuses enable_multiple_frontends (2580a31e, v1.0.51)
	dedicatedPlacement bool // frontend.dedicated_node needs orchestrator_placement head (a19d9451, v1.0.62)
	// mooncake is the generation of backend.mooncake_kv_store
	// (src/srtctl/backends/{sglang,vllm}.py, cli/do_sweep.py
	// start_mooncake_master): 0 absent (sa-submission-q2-2026, aflowers),
	// 1 SGLang only, master --eviction_high_watermark_ratio=0.95 (efbd13d7:
	// c1fb6989, a98738de), 2 vLLM too with the store config JSON and the
	// metrics port (7e576747, v1.0.12; v1.0.25–27), 3 the 0.9 watermarks,
	// lease TTL and RPC threads (v1.0.28–34), 4 without
	// --nof_eviction_high_watermark_ratio, plus master_extra_args
	// (607e01b8, v1.0.35).
	mooncake int
	// trtServe: frontend.type trtllm_serve exists (22930723, v1.0.9; not on
	// the sa-submission / aflowers branches nor at c1fb6989 / a98738de).
	trtServe bool
	// numaField: backend.numa_memory_bind accepted (c8d6fd17, v1.0.64).
	numaField bool
	// natsPayloadField: infra.nats_max_payload_mb accepted (409ffd46; not
	// on sa-submission-q2-2026).
	natsPayloadField bool
	// publishDefault: TRT-LLM publish_events_and_metrics defaults to true
	// (34585170, v1.0.22; false from b959ff7d, v1.0.26).
	publishDefault bool
}

func mainProfile() profile {
	return profile{name: "v1.0.68", httpBase: 6100, httpStep: 32, bootBase: 7200, distPort: 8300,
		bootAlways: true, ncclPort: true, rpFlag: true, defaultRP: "tcp", sysPortBase: 7500,
		kvBase: 5200, nixlBase: 5400, dpRPCBase: 8400, skipLogFmt: true, dynLog: true,
		runtimeEnvFront: true, popModelPath: true, fingerprint: true, vllmPort: true, vllmPortUnset: true,
		dpPerNodeDefault: true, dpLaunchSelector: true, deviceIDs: true, directVLLM: true, flock: true,
		wheelField: true, telemetryField: true, nixlBlock: true,
		nginx: nginxTpl{ulimit: true, affinity: true, keepalive: true}, cargoPatches: true, trtServeSingle: true,
		dedicatedPlacement: true, mooncake: 4, trtServe: true, numaField: true, natsPayloadField: true}
}

var reTag = regexp.MustCompile(`^v1\.0\.(\d+)$`)

// KnownVersions lists the srt-slurm refs Options.Version accepts besides
// the tags v1.0.25 … v1.0.68 (spec §0): main, sa-submission-q2-2026,
// aflowers/vllm-gb200-v0.20.0, a98738de (= tag v1.0.6), c1fb6989 (= tag
// v1.0.2), and the commits InferenceX pins that are tags (commitTags).
// Not covered: aflowers/gb200-dsv4-recipes (a branch off 2026-04-02
// fdb10f65 that shares neither profile) and de59739b (not in
// NVIDIA/srt-slurm's history as mirrored).
func KnownVersions() []string {
	return []string{"main", "sa-submission-q2-2026", "aflowers/vllm-gb200-v0.20.0", "a98738de", "c1fb6989",
		"c1b6b5c9", "c180328b", "04e87fcc", "217f9438"}
}

// ProfileFor returns the name of the injection profile srt-slurm ref
// renders with (the ref itself for tags and known branches; a commit that a
// tag points at renders as that tag), or an error for a ref whose profile
// is not known (NVIDIA/srt-slurm history; see KnownVersions).
func ProfileFor(ref string) (string, error) {
	if tag, ok := commitTags[ref]; ok {
		return tag, nil
	}
	p, err := lookupProfile(ref)
	if err != nil {
		return "", err
	}
	return p.name, nil
}

// commitTags maps the commits InferenceX launchers pin
// (runners/launch_*.sh at 843c6254) to the NVIDIA/srt-slurm tag that points
// at the same commit: each is the commit of that tag (`git tag
// --points-at`, checked with `git describe --tags` in the srt-slurm
// mirror), so it renders exactly as the tag.
var commitTags = map[string]string{
	"c1b6b5c9": "v1.0.29",
	"c180328b": "v1.0.38",
	"04e87fcc": "v1.0.44",
	"217f9438": "v1.0.53",
}

// lookupProfile returns the injection profile of ref v (spec §0 table).
// Unknown refs, and refs the spec does not cover (forks, other commits),
// are an error.
func lookupProfile(v string) (profile, error) {
	p := mainProfile()
	switch v {
	case "", "main", "v1.0.68", "c88ef731":
		return p, nil
	case "sa-submission-q2-2026", "sa-submission", "aflowers/vllm-gb200-v0.20.0", "aflowers":
		sa := v == "sa-submission-q2-2026" || v == "sa-submission"
		p.name = v
		p.httpBase, p.bootBase, p.distPort, p.sysPortBase = 30000, 31000, 29500, 8081
		p.bootAlways, p.ncclPort = false, false
		p.kvBase, p.nixlBase = 20000, 21000
		p.dpRPCBase = 13345
		p.skipLogFmt, p.dynLog = false, false
		p.vllmPort, p.vllmPortUnset = false, false
		p.dpPerNodeDefault, p.dpLaunchSelector, p.deviceIDs, p.directVLLM = false, false, false, false
		p.nginx = nginxTpl{}
		p.cargoPatches, p.trtServeSingle, p.dedicatedPlacement = false, false, false
		p.mooncake, p.trtServe, p.numaField = 0, false, false
		if sa {
			p.name = "sa-submission-q2-2026"
			p.httpStep = 1
			p.rpFlag, p.defaultRP = true, "nats"
			p.runtimeEnvFront = false
			p.popModelPath = false
			p.fingerprint = false
			p.flock = false
			p.wheelField = false
			p.telemetryField = false
			p.natsPayloadField = false
		} else {
			p.name = "aflowers/vllm-gb200-v0.20.0"
			p.httpStep = 1000
			p.rpFlag = false
			p.envRPNats = true
			p.dpRPCFromRecipe = true
			p.aflowersDotted = true
			p.nixlBlock = false
		}
		return p, nil
	case "a98738de", "c1fb6989":
		p.name = v
		// a98738de is tag v1.0.6 (nginx session affinity, #233);
		// c1fb6989 is tag v1.0.2 (nginx.conf.j2 before the 45m body cap).
		p.nginx = nginxTpl{ulimit: true, affinity: v == "a98738de"}
		p.cargoPatches, p.trtServeSingle, p.dedicatedPlacement = false, false, false
		p.mooncake, p.trtServe, p.numaField = 1, false, false
		p.rpFlag = false
		p.envRPNats = true
		p.ncclPort = false
		p.vllmPort, p.vllmPortUnset = false, false
		p.dpPerNodeDefault, p.dpLaunchSelector, p.deviceIDs, p.directVLLM = false, false, false, false
		return p, nil
	}
	if tag, ok := commitTags[v]; ok {
		p, err := lookupProfile(tag)
		p.name = v
		return p, err
	}
	m := reTag.FindStringSubmatch(v)
	if m == nil {
		return p, fmt.Errorf("unknown srt-slurm version %q (known: v1.0.25 … v1.0.68, %v)", v, KnownVersions())
	}
	n, _ := strconv.Atoi(m[1])
	if n < 25 || n > 68 {
		return p, fmt.Errorf("srt-slurm version %q is not covered (known: v1.0.25 … v1.0.68, %v)", v, KnownVersions())
	}
	p.name = v
	p.ncclPort = n >= 58
	p.vllmPortUnset = n >= 31
	p.dpLaunchSelector = n >= 31
	p.directVLLM = n >= 38
	p.dpPerNodeDefault = n >= 68
	p.nginx.keepalive = n >= 40
	p.cargoPatches = n >= 36
	p.trtServeSingle = n >= 51
	p.dedicatedPlacement = n >= 62
	p.numaField = n >= 64
	p.publishDefault = n < 26
	switch {
	case n < 28:
		p.mooncake = 2
	case n < 35:
		p.mooncake = 3
	}
	return p, nil
}
