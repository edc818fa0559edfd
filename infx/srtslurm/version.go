package srtslurm

import (
	"bytes"
	_ "embed"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// The srt-slurm refs this package renders are data: releases.yaml lists
// every NVIDIA/srt-slurm release and branch with a known injection profile
// (spec §0 per-version table), each with the upstream source its profile
// was read from and its differences from its predecessor. The renderer
// reads only the profile fields; which release has which is the table's.

//go:embed releases.yaml
var releasesYAML []byte

// profile is the injection profile of one srt-slurm ref: the flags and env
// it adds around the recipe's own settings (spec §0 per-version table). The
// yaml names are the keys of a release's `changes` in releases.yaml.
type profile struct {
	name string // the ref rendered (Rendering.Version, origins' "srt-slurm <name>")

	// HTTPBase and HTTPStep: SGLang worker HTTP port base and the step
	// between leaders on a node (spec §0, §7).
	HTTPBase int `yaml:"http_port_base"`
	HTTPStep int `yaml:"http_port_step"`
	// BootBase: --disaggregation-bootstrap-port base; BootAlways: the flag
	// on every prefill worker (else only with frontend.type: sglang).
	BootBase   int  `yaml:"bootstrap_port_base"`
	BootAlways bool `yaml:"bootstrap_port_always"`
	// DistPort: SGLang --dist-init-addr port.
	DistPort int `yaml:"dist_init_port"`
	// NCCLPort: SGLang --nccl-port (17500 + process index).
	NCCLPort bool `yaml:"nccl_port"`
	// RPFlag: --request-plane on dynamo workers, DefaultRP its default
	// (dynamo.request_plane); EnvRPNats: worker env DYN_REQUEST_PLANE is
	// always nats.
	RPFlag    bool   `yaml:"request_plane_flag"`
	DefaultRP string `yaml:"request_plane_default"`
	EnvRPNats bool   `yaml:"request_plane_env_always_nats"`
	// SysPortBase: DYN_SYSTEM_PORT base; KVBase / NIXLBase: kv-events and
	// NIXL side-channel port bases (spec §7).
	SysPortBase int `yaml:"system_port_base"`
	KVBase      int `yaml:"kv_events_port_base"`
	NIXLBase    int `yaml:"nixl_port_base"`
	// DPRPCBase: vLLM --data-parallel-rpc-port base; DPRPCFromRecipe: the
	// recipe's data-parallel-rpc-port, else the base (aflowers).
	DPRPCBase       int  `yaml:"dp_rpc_port_base"`
	DPRPCFromRecipe bool `yaml:"dp_rpc_port_from_recipe"`
	// SkipLogFmt: DYN_SKIP_SGLANG_LOG_FORMATTING=1 injected; DynLog: the
	// default DYN_LOG injected (spec §5).
	SkipLogFmt bool `yaml:"skip_sglang_log_formatting"`
	DynLog     bool `yaml:"dyn_log"`
	// RuntimeEnvFront: OTEL env and the top-level environment in the dynamo
	// frontend env (spec §6).
	RuntimeEnvFront bool `yaml:"frontend_otel_and_environment"`
	// PopModelPath: the SGLang builder removes model-path /
	// served-model-name from the config (spec §4.1).
	PopModelPath bool `yaml:"pop_model_path"`
	// Fingerprint: the fingerprint step in the worker preamble (spec §9).
	Fingerprint bool `yaml:"fingerprint"`
	// VLLMPort: the VLLM_PORT export; VLLMPortUnset: unset -- VLLM_PORT on
	// multi-node endpoints (spec §5).
	VLLMPort      bool `yaml:"vllm_port"`
	VLLMPortUnset bool `yaml:"vllm_port_unset"`
	// DPPerNodeDefault: vLLM DP launches one process per node by default;
	// DPLaunchSelector: backend.dp_launch_mode is honoured.
	DPPerNodeDefault bool `yaml:"vllm_dp_per_node_default"`
	DPLaunchSelector bool `yaml:"vllm_dp_launch_mode"`
	// DeviceIDs: vLLM --device-ids (else CUDA_VISIBLE_DEVICES).
	DeviceIDs bool `yaml:"vllm_device_ids"`
	// DirectVLLM: frontend.type: vllm (direct vllm serve).
	DirectVLLM bool `yaml:"vllm_direct_frontend"`
	// Flock: the dynamo install wrapped in flock + sentinel (preamble.go).
	Flock bool `yaml:"install_flock"`
	// WheelField / TelemetryField: dynamo.wheel / top-level telemetry
	// accepted (else the recipe fails validation).
	WheelField     bool `yaml:"dynamo_wheel"`
	TelemetryField bool `yaml:"telemetry"`
	// AflowersDotted: vLLM config keys: only the part before the first '.'
	// gets _ → - (spec §3.2).
	AflowersDotted bool `yaml:"vllm_dotted_keys"`
	// NIXLBlock: vLLM DP endpoints reserve a NIXL port block.
	NIXLBlock bool `yaml:"vllm_dp_nixl_block"`
	// Nginx: the generation of nginx.conf.j2 (print.go nginxTpl).
	Nginx nginxTpl `yaml:"nginx"`
	// CargoPatches: dynamo.cargo_patches accepted.
	CargoPatches bool `yaml:"cargo_patches"`
	// TrtServe: frontend.type trtllm_serve exists; TrtServeSingle: it also
	// serves an aggregate recipe with one worker (and refuses
	// enable_multiple_frontends).
	TrtServe       bool `yaml:"trtllm_serve"`
	TrtServeSingle bool `yaml:"trtllm_serve_aggregate"`
	// DedicatedPlacement: frontend.dedicated_node needs
	// orchestrator_placement head.
	DedicatedPlacement bool `yaml:"dedicated_node_placement"`
	// Mooncake is the generation of backend.mooncake_kv_store
	// (src/srtctl/backends/{sglang,vllm}.py, cli/do_sweep.py
	// start_mooncake_master): 0 absent, 1 SGLang only with master
	// --eviction_high_watermark_ratio=0.95, 2 vLLM too with the store config
	// JSON and the metrics port, 3 the 0.9 watermarks, lease TTL and RPC
	// threads, 4 without --nof_eviction_high_watermark_ratio, plus
	// master_extra_args (mooncake.go).
	Mooncake int `yaml:"mooncake"`
	// NumaField: backend.numa_memory_bind accepted.
	NumaField bool `yaml:"numa_memory_bind"`
	// NatsPayloadField: infra.nats_max_payload_mb accepted.
	NatsPayloadField bool `yaml:"nats_max_payload"`
	// PublishDefault: TRT-LLM publish_events_and_metrics defaults to true.
	PublishDefault bool `yaml:"trtllm_publish_events_default"`
}

// release is one entry of releases.yaml: an srt-slurm ref, where its
// profile was read, and its differences from its predecessor (the entry
// above it, or for a branch the release named by Base).
type release struct {
	// Ref is the name rendered: a release tag v1.0.N, a branch, or the
	// 8-digit commit a release is known by.
	Ref string `yaml:"ref"`
	// Aliases are other names of a branch.
	Aliases []string `yaml:"aliases"`
	// Commit is the full commit id (for a tag: `git ls-remote --tags
	// https://github.com/NVIDIA/srt-slurm`).
	Commit string `yaml:"commit"`
	// SrtctlTree is the git tree id of src/srtctl at Commit (`git rev-parse
	// COMMIT:src/srtctl` in NVIDIA/srt-slurm; 40 hex digits), "" when not
	// recorded: a fork whose src/srtctl hashes to it renders as this entry
	// (srtctl.go).
	SrtctlTree string `yaml:"srtctl_tree"`
	// Source is the upstream source the differences were read from:
	// NVIDIA/srt-slurm, the paths, and the tag or commit.
	Source string `yaml:"source"`
	// PinnedByCommit: InferenceX launchers (runners/launch_*.sh at
	// 843c6254) pin this release by its commit id; KnownVersions lists it.
	PinnedByCommit bool `yaml:"pinned_by_commit"`
	// Base names the release a branch's changes are stated against.
	Base string `yaml:"base"`
	// Changes are the profile fields that differ from the predecessor, by
	// their yaml names; decoded onto a copy of the predecessor's profile.
	Changes yaml.Node `yaml:"changes"`

	prof profile // the profile: the predecessor's with Changes applied
	tag  int     // N of a v1.0.N ref, -1 for another name
}

// releaseTable is releases.yaml, parsed.
type releaseTable struct {
	releases []release // mainline, oldest first
	branches []release
}

var reTag = regexp.MustCompile(`^v1\.0\.(\d+)$`)

// loadReleases parses releases.yaml once; an error there is a bug in the
// embedded file (TestReleaseTable reads it), so it panics.
var loadReleases = sync.OnceValue(func() *releaseTable {
	t, err := parseReleases("infx/srtslurm/releases.yaml", releasesYAML)
	if err != nil {
		panic(err)
	}
	return t
})

// parseReleases reads a release table: unknown keys, a missing ref, commit
// or source, a duplicate name, an unknown base or a change that is not a
// profile field are errors.
func parseReleases(name string, data []byte) (*releaseTable, error) {
	var doc struct {
		Releases []release `yaml:"releases"`
		Branches []release `yaml:"branches"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Releases) == 0 {
		return nil, fmt.Errorf("%s: no releases", name)
	}
	t := &releaseTable{releases: doc.Releases, branches: doc.Branches}
	seen := map[string]bool{"": true, "main": true}
	var prev profile
	for i := range t.releases {
		r := &t.releases[i]
		if r.Base != "" || len(r.Aliases) > 0 {
			return nil, fmt.Errorf("%s: release %s: base and aliases are for branches", name, r.Ref)
		}
		if err := r.resolve(prev, seen); err != nil {
			return nil, fmt.Errorf("%s: release %s: %w", name, r.Ref, err)
		}
		prev = r.prof
	}
	if t.newest().tag < 0 {
		return nil, fmt.Errorf("%s: the newest release %s is not named by its tag", name, t.newest().Ref)
	}
	for i := range t.branches {
		b := &t.branches[i]
		base := t.release(b.Base)
		if base == nil {
			return nil, fmt.Errorf("%s: branch %s: base %q is not a release", name, b.Ref, b.Base)
		}
		if reTag.MatchString(b.Ref) {
			return nil, fmt.Errorf("%s: branch %s: a tag is a release", name, b.Ref)
		}
		if err := b.resolve(base.prof, seen); err != nil {
			return nil, fmt.Errorf("%s: branch %s: %w", name, b.Ref, err)
		}
	}
	return t, nil
}

// resolve checks r and sets its profile: prev with r.Changes applied.
func (r *release) resolve(prev profile, seen map[string]bool) error {
	if r.Ref == "" || len(r.Commit) != 40 || strings.Trim(r.Commit, "0123456789abcdef") != "" ||
		!strings.HasPrefix(r.Source, "NVIDIA/srt-slurm ") {
		return fmt.Errorf("needs ref, commit (40 hex digits) and source (NVIDIA/srt-slurm …)")
	}
	if r.SrtctlTree != "" && (len(r.SrtctlTree) != 40 || strings.Trim(r.SrtctlTree, "0123456789abcdef") != "") {
		return fmt.Errorf("srtctl_tree: 40 hex digits")
	}
	for _, n := range append([]string{r.Ref}, r.Aliases...) {
		if seen[n] {
			return fmt.Errorf("name %q used twice", n)
		}
		seen[n] = true
	}
	r.tag = -1
	if m := reTag.FindStringSubmatch(r.Ref); m != nil {
		r.tag, _ = strconv.Atoi(m[1])
	} else if r.Base == "" && r.Ref != r.Commit[:8] {
		return fmt.Errorf("a release is named by its tag or its 8-digit commit")
	}
	r.prof = prev
	if r.Changes.Kind != 0 {
		if r.Changes.Kind != yaml.MappingNode || len(r.Changes.Content) == 0 {
			return fmt.Errorf("changes: a mapping of profile fields")
		}
		// strict decoding onto a copy of the predecessor: a key that is not
		// a profile field is an error, a key not stated keeps its value
		raw, err := yaml.Marshal(&r.Changes)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		if err := dec.Decode(&r.prof); err != nil {
			return fmt.Errorf("changes: %w", err)
		}
		if reflect.DeepEqual(r.prof, prev) {
			return fmt.Errorf("changes: no field differs from the predecessor")
		}
	}
	r.prof.name = r.Ref
	return nil
}

// release returns the mainline release named ref, nil if none.
func (t *releaseTable) release(ref string) *release {
	for i := range t.releases {
		if t.releases[i].Ref == ref {
			return &t.releases[i]
		}
	}
	return nil
}

// newest is the last mainline release.
func (t *releaseTable) newest() *release { return &t.releases[len(t.releases)-1] }

// tags returns the releases named by a tag, oldest first.
func (t *releaseTable) tags() []*release {
	var out []*release
	for i := range t.releases {
		if t.releases[i].tag >= 0 {
			out = append(out, &t.releases[i])
		}
	}
	return out
}

// tagRange is "v1.0.25 … v1.0.68": the oldest and newest tag releases.
func (t *releaseTable) tagRange() string {
	tags := t.tags()
	return tags[0].Ref + " … " + tags[len(tags)-1].Ref
}

// firstWith returns the oldest mainline release whose profile has(…): the
// release that added a field (the error messages name it), nil if none.
func firstWith(has func(profile) bool) *release {
	t := loadReleases()
	for i := range t.releases {
		if has(t.releases[i].prof) {
			return &t.releases[i]
		}
	}
	return nil
}

// addedIn says which release added a field: "cb651682, v1.0.36" (its
// 8-digit commit and ref), "no release" when none has it.
func addedIn(has func(profile) bool) string {
	if r := firstWith(has); r != nil {
		return r.Commit[:8] + ", " + r.Ref
	}
	return "no release"
}

// Newest returns the newest srt-slurm release of releases.yaml (the last
// entry under releases): what "main" and an empty Options.Version render,
// and the default srt-slurm version of infx and the CLI.
func Newest() string { return loadReleases().newest().Ref }

// KnownVersions lists the srt-slurm refs Options.Version accepts besides
// the release tags of releases.yaml: main, the branches, the releases named
// by their commit (newest first), and the commits InferenceX pins that are
// tags. Not covered: aflowers/gb200-dsv4-recipes (a branch off 2026-04-02
// fdb10f65 that shares neither profile) and de59739b (not in
// NVIDIA/srt-slurm's history as mirrored).
func KnownVersions() []string {
	t := loadReleases()
	out := []string{"main"}
	for _, b := range t.branches {
		out = append(out, b.Ref)
	}
	for i := len(t.releases) - 1; i >= 0; i-- {
		if t.releases[i].tag < 0 {
			out = append(out, t.releases[i].Ref)
		}
	}
	for _, r := range t.tags() {
		if r.PinnedByCommit {
			out = append(out, r.Commit[:8])
		}
	}
	return out
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
		// a full commit id of a release named by its commit: keyed by
		// its 8-digit abbreviation
		ref = ref[:8]
	}
	p, err := lookupProfile(ref)
	if err != nil {
		return "", err
	}
	return p.name, nil
}

// TagCommit returns the full commit id of an NVIDIA/srt-slurm release tag
// of releases.yaml, "" for any other ref.
func TagCommit(tag string) string {
	if r := loadReleases().release(tag); r != nil && r.tag >= 0 {
		return r.Commit
	}
	return ""
}

// tagAt names the release tag whose commit ref (7 to 40 lower-case hex
// digits) abbreviates, "" when it names none.
func tagAt(ref string) string {
	if len(ref) < 7 || len(ref) > 40 || strings.Trim(ref, "0123456789abcdef") != "" {
		return ""
	}
	for _, r := range loadReleases().tags() {
		if strings.HasPrefix(r.Commit, ref) {
			return r.Ref
		}
	}
	return ""
}

// lookupProfile returns the injection profile of ref v (releases.yaml):
// "" and main are the newest release, and so is its 8-digit commit; a
// release or branch by name or alias; a commit of a release tag (named as
// given); v1.0.N for a release tag N. Unknown refs, and refs the table does
// not cover (forks, other commits), are an error.
func lookupProfile(v string) (profile, error) {
	t := loadReleases()
	newest := t.newest()
	if v == "" || v == "main" || v == newest.Commit[:8] {
		return newest.prof, nil
	}
	if r := t.release(v); r != nil {
		return r.prof, nil
	}
	for _, b := range t.branches {
		if b.Ref == v || slices.Contains(b.Aliases, v) {
			return b.prof, nil
		}
	}
	if tag := tagAt(v); tag != "" {
		p := t.release(tag).prof
		p.name = v
		return p, nil
	}
	m := reTag.FindStringSubmatch(v)
	if m == nil {
		return profile{}, fmt.Errorf("unknown srt-slurm version %q (known: %s, %v)", v, t.tagRange(), KnownVersions())
	}
	n, _ := strconv.Atoi(m[1])
	for _, r := range t.tags() {
		if r.tag == n {
			p := r.prof
			p.name = v
			return p, nil
		}
	}
	return profile{}, fmt.Errorf("srt-slurm version %q is not covered (known: %s, %v)", v, t.tagRange(), KnownVersions())
}
