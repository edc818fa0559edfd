package srtslurm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
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
// v1.0.2), and the commits InferenceX pins that are tags (tagCommits).
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
	if tag := tagAt(ref); tag != "" {
		return tag, nil
	}
	if len(ref) > 8 && strings.Trim(ref, "0123456789abcdef") == "" {
		// a full commit id of a commit with a profile of its own
		// (a98738de, c1fb6989: keyed by their 8-digit abbreviation)
		ref = ref[:8]
	}
	p, err := lookupProfile(ref)
	if err != nil {
		return "", err
	}
	return p.name, nil
}

// tagCommits are the commits of the NVIDIA/srt-slurm release tags the
// InferenceX launchers pin (v1.0.25 … v1.0.68, read with `git ls-remote
// --tags https://github.com/NVIDIA/srt-slurm`). A ref pinned by commit
// (c1b6b5c9, c180328b, 04e87fcc, 217f9438 in runners/launch_*.sh at
// 843c6254) that is a tag's commit renders exactly as that tag.
var tagCommits = map[string]string{
	"v1.0.25": "3435776cd6db4c14f8b771ff7a3976deb62fe133",
	"v1.0.26": "b959ff7d78c396f3f47bb88a115d8a492326aafe",
	"v1.0.27": "f6eb42aee4664207dcf2ec601e3bd57bd527efd6",
	"v1.0.28": "ec7dd03e5c5cf5ca134b87fa9a85d46943ff3bc9",
	"v1.0.29": "c1b6b5c97f323baefad577d70c4e8392b6f537d9",
	"v1.0.30": "b93276c2d89992b8513ed44e830203bcfa16591f",
	"v1.0.31": "0f31474a9b3831af28b5f44c95913776daed9f38",
	"v1.0.32": "9d6bd641b61b44132404630fa055d81d3ddd45b0",
	"v1.0.33": "38723f6a6bf9bf5fb047ca940b1f19eefe6626ad",
	"v1.0.34": "a7a45c9a3e7d7bec5f00cd32b4d9b9439226b34b",
	"v1.0.35": "607e01b88bde16232816d9e84c8f27da31168f49",
	"v1.0.36": "cb651682117df129162cd276cf567ec70dc57b36",
	"v1.0.37": "6fd6000035c8d698d08a2807fcc93b462f658dd6",
	"v1.0.38": "c180328b98c3793ca84a1e24a030f90545eb7d5d",
	"v1.0.39": "a8be73c4f71ef5bd6f82e66f1013f5b8d359979b",
	"v1.0.40": "61f1e23ba8f63ac18f9658abd3ffc2a3821f4a0e",
	"v1.0.41": "0b1b3ab42db2ec08d318453b058a9ec2f397fca9",
	"v1.0.42": "6ae919e04e970134e4f3ecb59a2a563f0291eb95",
	"v1.0.43": "4fdecffa755844e0d06d80b4681ca4ba3cd47f54",
	"v1.0.44": "04e87fcc505d6d851451781a5499ca19a02ec2b4",
	"v1.0.45": "9d8d92b20c350a5d42f0709f5a0b64e30eb37d33",
	"v1.0.46": "cf2aacba17d614e9a551c58008aa13bf8c0c04e6",
	"v1.0.47": "7b0654ab119055b3ba5ced25ac14ab9566f3d049",
	"v1.0.48": "50cc900ad8bcf1f349362507a1d43ef5eb03aa44",
	"v1.0.49": "e32e591067fa90cae3641f46d8ff5e0f4c6e82c8",
	"v1.0.50": "e4019633c9e2bc25f38c44b81edf52bb0504d937",
	"v1.0.51": "2580a31ea55bc9e26ceab572f4884baffe1db154",
	"v1.0.52": "a8c415b594b1e37eb0528dd0e9dadc755c84da35",
	"v1.0.53": "217f94387abeddfed7149a71955dc523e07cd765",
	"v1.0.54": "d1c289bda5c31b9923919a36b6d8adac12a57a80",
	"v1.0.55": "7e6a9b648450f3558332bb2cd8fbdae8cedb25bb",
	"v1.0.56": "d640707ec0ede38f2e64cfb4b9e08eca9b11f1f9",
	"v1.0.57": "6e842d5d602b79ed36e440797e91a2fee28fca10",
	"v1.0.58": "3d39c9362bccbe9c714969efb6cf1ad4d5fbe950",
	"v1.0.59": "be40f34507586c005e704df8ea34f4e2a5fc8858",
	"v1.0.60": "41cd37192df730b5fc2242b58cc70fc0707fa0c9",
	"v1.0.61": "f6f9af4903db78c1261fd5930f01fde0f4f5cba5",
	"v1.0.62": "a19d945127fda752c05b54ab2b42be977f9c68e0",
	"v1.0.63": "465c6d0b1866150d879076a0742710ff31310b79",
	"v1.0.64": "c8d6fd1744fb6227d750425a536b3402660e41c1",
	"v1.0.65": "5201fe856ffbe3f0d2b8be6f2f40e09c52434c42",
	"v1.0.66": "2c3dc614cc5b6f473da0ab78f8a5c770cd60176d",
	"v1.0.67": "9b725227410470bf443ae2a5613f7838f50b52d9",
	"v1.0.68": "c88ef731636890ff6385a783e152c1790e15b194",
}

// TagCommit returns the full commit id of an NVIDIA/srt-slurm release tag
// (v1.0.25 … v1.0.68), "" for any other ref.
func TagCommit(tag string) string { return tagCommits[tag] }

// tagAt names the release tag whose commit ref (7 to 40 lower-case hex
// digits) abbreviates, "" when it names none.
func tagAt(ref string) string {
	if len(ref) < 7 || len(ref) > 40 || strings.Trim(ref, "0123456789abcdef") != "" {
		return ""
	}
	for tag, sha := range tagCommits {
		if strings.HasPrefix(sha, ref) {
			return tag
		}
	}
	return ""
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
	if tag := tagAt(v); tag != "" {
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
