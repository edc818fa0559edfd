package compare

import (
	"slices"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Real image references: the AgentX cell of Qwen3.5 H200
// (sgl-project/sglang docs/src/snippets/agentx/Qwen/qwen3.5.jsx), the
// InferenceX master configs (configs/nvidia-master.yaml, amd-master.yaml),
// the cookbook pages' docker commands and vllm-project/recipes
// docker_image values.
const (
	cellImage   = "lmsysorg/sglang:v0.5.19-cu130@sha256:d6e7288627be8b02be88e4bba38e73f6d50e2826869f753c13a4c4385ab3eda9"
	masterImage = "lmsysorg/sglang:v0.5.16-cu130"
	otherDigest = "lmsysorg/sglang:v0.5.19-cu130@sha256:5027e95bf6ec536856b1b52a91d1f35ff5c564ab83e8a94758a169ff09bb8df3"
)

// TestParseImage: registry, path, tag and digest as `docker pull` reads
// them, the enroot REGISTRY#PATH form and docker:// prefix; text that is no
// registry reference is not Valid.
func TestParseImage(t *testing.T) {
	for _, c := range []struct {
		in                         string
		registry, path, tag, digst string
		valid                      bool
		familiar                   string
	}{
		{cellImage, "docker.io", "lmsysorg/sglang", "v0.5.19-cu130", "sha256:d6e7288627be8b02be88e4bba38e73f6d50e2826869f753c13a4c4385ab3eda9", true, cellImage},
		{masterImage, "docker.io", "lmsysorg/sglang", "v0.5.16-cu130", "", true, masterImage},
		{"docker://lmsysorg/sglang:v0.5.16-cu130", "docker.io", "lmsysorg/sglang", "v0.5.16-cu130", "", true, masterImage},
		{"docker.io/lmsysorg/sglang:v0.5.16-cu130", "docker.io", "lmsysorg/sglang", "v0.5.16-cu130", "", true, masterImage},
		{"index.docker.io/lmsysorg/sglang:v0.5.16-cu130", "docker.io", "lmsysorg/sglang", "v0.5.16-cu130", "", true, masterImage},
		{"nvcr.io#nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2", "nvcr.io", "nvidia/ai-dynamo/tensorrtllm-runtime", "0.8.1.post2", "", true, "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2"},
		{"nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2", "nvcr.io", "nvidia/ai-dynamo/tensorrtllm-runtime", "0.8.1.post2", "", true, "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post2"},
		{"quay.io/rh-ee-imarkov/llm-d-nokube-vllm:vllm0.26@sha256:a9095d4c835935c4070be2040de0a5ef3b44098f603092ab66d743b0e731b7b4", "quay.io", "rh-ee-imarkov/llm-d-nokube-vllm", "vllm0.26", "sha256:a9095d4c835935c4070be2040de0a5ef3b44098f603092ab66d743b0e731b7b4", true, "quay.io/rh-ee-imarkov/llm-d-nokube-vllm:vllm0.26@sha256:a9095d4c835935c4070be2040de0a5ef3b44098f603092ab66d743b0e731b7b4"},
		{"nginx", "docker.io", "library/nginx", "latest", "", true, "nginx:latest"},
		{"nginx:1.27.4", "docker.io", "library/nginx", "1.27.4", "", true, "nginx:1.27.4"},
		{"localhost:5000/sglang:dev", "localhost:5000", "sglang", "dev", "", true, "localhost:5000/sglang:dev"},
		{"lmsysorg/sglang@sha256:d6e7288627be8b02be88e4bba38e73f6d50e2826869f753c13a4c4385ab3eda9", "docker.io", "lmsysorg/sglang", "", "sha256:d6e7288627be8b02be88e4bba38e73f6d50e2826869f753c13a4c4385ab3eda9", true, "lmsysorg/sglang@sha256:d6e7288627be8b02be88e4bba38e73f6d50e2826869f753c13a4c4385ab3eda9"},
		// vllm-project/recipes: a variant's docker_image that is a command
		// (shared/spec/vllm-recipes.md §9.10: the image it pulls), text that is
		// no reference, a squash file on a cluster
		{"docker pull vllm/vllm-openai-rocm:nightly", "docker.io", "vllm/vllm-openai-rocm", "nightly", "", true, "vllm/vllm-openai-rocm:nightly"},
		{"docker run vllm/vllm-openai:latest", "", "", "", "", false, "docker run vllm/vllm-openai:latest"},
		{"/data/containers/lmsysorg+sglang+v0.5.16-cu130.sqsh", "", "", "", "", false, "/data/containers/lmsysorg+sglang+v0.5.16-cu130.sqsh"},
		{"", "", "", "", "", false, ""},
	} {
		r := ParseImage(c.in)
		if r.Registry != c.registry || r.Path != c.path || r.Tag != c.tag || r.Digest != c.digst || r.Valid != c.valid || r.String() != c.familiar {
			t.Errorf("ParseImage(%q) = %+v (%q); want %s %s %s %s valid=%t %q", c.in, r, r.String(), c.registry, c.path, c.tag, c.digst, c.valid, c.familiar)
		}
	}
}

// TestImageFloating: a tag with a channel word and no build date or commit
// moves; releases, dated or commit-pinned nightlies and digests do not.
func TestImageFloating(t *testing.T) {
	for in, want := range map[string]bool{
		"lmsysorg/sglang:latest":                                            true,
		"lmsysorg/sglang":                                                   true, // implied latest
		"lmsysorg/sglang:dev":                                               true,
		"lmsysorg/sglang:dev-cu13":                                          true,
		"lmsysorg/sglang:dev-Ling-3.0-flash":                                true,
		"lmsysorg/sglang-rocm:dev-rocm720-mi35x-inkling-dspark":             true,
		"vllm/vllm-openai:nightly":                                          true,
		"vllm/vllm-openai-cpu:latest-x86_64":                                true,
		"lmsysorg/sglang:nightly-dev-cu13-20260913-fa663e72":                false,
		"lmsysorg/sglang:nightly-dev-20260818-c0b6474b":                     false,
		"vllm/vllm-openai:nightly-09663abde0f50944a8d5ea30120666024b503faa": false,
		"vllm/vllm-openai:nightly-dev-arm64-cu13.0.1-75c2eef":               false,
		"rocm/atom-dev:nightly_202607231538":                                false,
		"lmsysorg/sglang:latest@sha256:d6e7288627be8b02be88e4bba38e73f6d50e2826869f753c13a4c4385ab3eda9": false,
		masterImage: false,
		"lmsysorg/sglang-rocm:v0.5.16-rocm720-mi35x-20260730": false,
		"vllm/vllm-openai:kimi-k3":                            false,
		"lmsysorg/sglang:deepseek-v4-hopper":                  false,
		"docker pull vllm/vllm-openai-rocm:nightly":           true,
		"docker run vllm/vllm-openai:latest":                  false, // not a reference
		"lmsysorg/sglang:<tag>":                               true,  // a placeholder
		"vllm/vllm-openai:${VLLM_VERSION}":                    true,
	} {
		if got := ParseImage(in).Floating(); got != want {
			t.Errorf("Floating(%q) = %t, want %t", in, got, want)
		}
	}
}

// imageWorker is an SGLang agg worker in image img.
func imageWorker(img string) launch.Process {
	return launch.Process{Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "python3 -m sglang.launch_server", Image: img,
		Args: args("--tensor-parallel-size", "8")}
}

// TestCompareWorkerImage: the worker image rule, the same for single- and
// multi-node points, under the default policy (09813166): repository, tag
// and digest compared; a floating tag against another tag, a digest on one
// side only and a registry mirror are informational; two pinned builds of
// one repository are engine-version drift naming both versions, which the
// policy classes informational (judgment-image-version); another
// repository is a difference; a side that states no image leaves it
// uncompared.
func TestCompareWorkerImage(t *testing.T) {
	type want struct {
		verdict Verdict
		diffs   []string
		note    string // substring of the difference's note
		info    string // rule id of the informational entry
		reason  string // substring of its reason
	}
	const versionRule = "judgment-image-version"
	for _, c := range []struct {
		up, ix string
		want
	}{
		{masterImage, masterImage, want{verdict: Covered}},
		{"docker://lmsysorg/sglang:v0.5.16-cu130", "docker.io/lmsysorg/sglang:v0.5.16-cu130", want{verdict: Covered}},
		{"nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.8.1", "nvcr.io#nvidia/ai-dynamo/sglang-runtime:0.8.1", want{verdict: Covered}},
		// the issue-22 point: the AgentX cell pins v0.5.19 by digest,
		// InferenceX runs v0.5.16
		{cellImage, masterImage, want{verdict: CoveredWithExclusions, info: versionRule,
			reason: "engine-version drift: upstream v0.5.19-cu130@sha256:d6e7288627be…, InferenceX v0.5.16-cu130 (sglang 0.5.19 vs 0.5.16)"}},
		{"lmsysorg/sglang:v0.5.16-cu129", masterImage, want{verdict: CoveredWithExclusions, info: versionRule,
			reason: "(the same sglang 0.5.16, another build)"}},
		{cellImage, otherDigest, want{verdict: CoveredWithExclusions, info: versionRule, reason: "engine-version drift"}},
		// dated nightlies are pinned builds
		{"lmsysorg/sglang:nightly-dev-cu13-20260913-fa663e72", "lmsysorg/sglang:nightly-dev-cu13-20260724-433429b1", want{verdict: CoveredWithExclusions, info: versionRule,
			reason: "engine-version drift: upstream nightly-dev-cu13-20260913-fa663e72, InferenceX nightly-dev-cu13-20260724-433429b1"}},
		// same tag, digest on one side
		{cellImage, "lmsysorg/sglang:v0.5.19-cu130", want{verdict: CoveredWithExclusions, info: ImageDigestRule, reason: "only upstream pins its digest"}},
		// one digest proves the same image across registries and tags
		{cellImage, "ghcr.io/lmsysorg/sglang:v0.5.19@sha256:d6e7288627be8b02be88e4bba38e73f6d50e2826869f753c13a4c4385ab3eda9", want{verdict: Covered}},
		// a mirror without digests on both sides: not proven, informational
		{"ghcr.io/lmsysorg/sglang:v0.5.16-cu130", masterImage, want{verdict: CoveredWithExclusions, info: ImageMirrorRule, reason: "on another registry (upstream ghcr.io, InferenceX docker.io)"}},
		// another repository: another engine build
		{masterImage, "dynamo-sglang-mut", want{verdict: Differs,
			diffs: []string{"image: upstream " + masterImage + ", inferencex dynamo-sglang-mut:latest"},
			note:  "another image repository: upstream docker.io/lmsysorg/sglang, InferenceX docker.io/library/dynamo-sglang-mut"}},
		{masterImage, "rocm/sgl-dev:v0.5.16-cu130", want{verdict: Differs,
			diffs: []string{"image: upstream " + masterImage + ", inferencex rocm/sgl-dev:v0.5.16-cu130"},
			note:  "another image repository"}},
		// SGLang's two release repositories: builds told apart by version
		{"lmsysorg/sglang-rocm:v0.5.13.post1-rocm700-mi30x-20260616", "lmsysorg/sglang:v0.5.16-rocm720-mi30x", want{verdict: CoveredWithExclusions, info: versionRule,
			reason: "lmsysorg/sglang-rocm and lmsysorg/sglang are both sglang release repositories"}},
		{"lmsysorg/sglang:latest", "lmsysorg/sglang-rocm:v0.5.16-rocm720-mi35x-20260730", want{verdict: CoveredWithExclusions, info: ImageFloatingRule,
			reason: "floating tag against another sglang release repository"}},
		// floating tags: informational
		{"lmsysorg/sglang:latest", masterImage, want{verdict: CoveredWithExclusions, info: ImageFloatingRule, reason: "floating tag (upstream's latest)"}},
		{"lmsysorg/sglang:dev", "lmsysorg/sglang:nightly-dev-cu13-20260913-fa663e72", want{verdict: CoveredWithExclusions, info: ImageFloatingRule, reason: "upstream's dev"}},
		{"vllm/vllm-openai:v0.27.1", "vllm/vllm-openai:nightly", want{verdict: CoveredWithExclusions, info: ImageFloatingRule, reason: "InferenceX's nightly"}},
		// a recipe image that is its docker pull command names the image it
		// pulls; a value that is no reference is compared as written
		{"docker pull vllm/vllm-openai-rocm:nightly", "vllm/vllm-openai-rocm:v0.27.1", want{verdict: CoveredWithExclusions, info: ImageFloatingRule, reason: "upstream's nightly"}},
		{"docker run vllm/vllm-openai-rocm:nightly", "vllm/vllm-openai-rocm:v0.27.1", want{verdict: Differs,
			diffs: []string{"image: upstream docker run vllm/vllm-openai-rocm:nightly, inferencex vllm/vllm-openai-rocm:v0.27.1"},
			note:  "compared as written"}},
		// a side that states no image: not compared
		{masterImage, "", want{verdict: Covered}},
		{"", "lmsysorg/sglang:v0.5.17-cu130", want{verdict: Covered}},
	} {
		r := service(t, imageWorker(c.up), imageWorker(c.ix), "agg")
		got := diffText(r)
		if r.Verdict != c.verdict || !slices.Equal(got, c.diffs) {
			t.Errorf("%q vs %q: verdict %s, diffs %q; want %s %q", c.up, c.ix, r.Verdict, got, c.verdict, c.diffs)
			continue
		}
		if c.note != "" && (len(r.Differences) != 1 || !strings.Contains(r.Differences[0].Note, c.note)) {
			t.Errorf("%q vs %q: differences %+v; want a note with %q", c.up, c.ix, r.Differences, c.note)
		}
		switch {
		case c.info == "" && len(r.Info) > 0:
			t.Errorf("%q vs %q: info %+v, want none", c.up, c.ix, r.Info)
		case c.info != "":
			if len(r.Info) != 1 || r.Info[0].Rule != c.info || r.Info[0].Setting != imageKey || r.Info[0].Class != exclusions.ClassJudgment ||
				r.Info[0].Upstream == nil || r.Info[0].InferenceX == nil || !strings.Contains(r.Info[0].Reason, c.reason) {
				t.Errorf("%q vs %q: info %+v; want rule %s with %q", c.up, c.ix, r.Info, c.info, c.reason)
			}
		}
	}
}

// TestCompareWorkerImagePolicy: the image is classed by the policy version
// like any other setting. Engine-version drift (image.version) is
// informational where the prompt calls the image tag/version
// InferenceX-specific (2026-07, 2026-06-major) or plumbing (09813166:
// shared/spec/inferencex.md (e)) and counted under 2026-06-complete, which
// cross-checks "inference engine + image tag/version"; another repository
// is counted under every strictness-all policy and informational under the
// major ones, which do not list the image as major.
func TestCompareWorkerImagePolicy(t *testing.T) {
	run := func(id, up, ix string) Result {
		spec, err := exclusions.PolicyByID(id)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := exclusions.ForPolicy(id)
		if err != nil {
			t.Fatal(err)
		}
		u := launch.Deployment{Processes: []launch.Process{imageWorker(up)}}
		x := launch.Deployment{Processes: []launch.Process{imageWorker(ix)}}
		rs, err := Compare(&u, &x, Options{Exclusions: ex, Strictness: &spec})
		if err != nil {
			t.Fatal(err)
		}
		return byRole(t, rs)["agg"]
	}
	const drift = "engine-version drift: upstream v0.5.19-cu130@sha256:d6e7288627be…, InferenceX v0.5.16-cu130"
	for _, c := range []struct {
		id, ix string
		rule   string // "": a counted difference
	}{
		{"09813166", masterImage, "judgment-image-version"},
		{"2026-07", masterImage, "judgment-image-version"},
		{"2026-06-major", masterImage, "judgment-image-version"},
		{"2026-06-complete", masterImage, ""},
		{"09813166", "rocm/sgl-dev:v0.5.16", ""},
		{"2026-06-complete", "rocm/sgl-dev:v0.5.16", ""},
		{"2026-07", "rocm/sgl-dev:v0.5.16", StrictnessRule},
	} {
		r := run(c.id, cellImage, c.ix)
		if c.rule == "" {
			if r.Verdict != Differs || len(r.Differences) != 1 || r.Differences[0].Setting != imageKey || r.Differences[0].Note == "" {
				t.Errorf("policy %s, %s: verdict %s, differences %+v; want the image counted", c.id, c.ix, r.Verdict, r.Differences)
			}
			if c.ix == masterImage && (len(r.Differences) != 1 || !strings.HasPrefix(r.Differences[0].Note, drift)) {
				t.Errorf("policy %s: differences %+v; want the drift note", c.id, r.Differences)
			}
			continue
		}
		if r.Verdict != CoveredWithExclusions || len(r.Info) != 1 || r.Info[0].Rule != c.rule || r.Info[0].Setting != imageKey {
			t.Errorf("policy %s, %s: verdict %s, info %+v; want informational by %s", c.id, c.ix, r.Verdict, r.Info, c.rule)
			continue
		}
		if c.ix == masterImage && !strings.HasSuffix(r.Info[0].Reason, "; "+drift+" (sglang 0.5.19 vs 0.5.16)") {
			t.Errorf("policy %s: reason %q; want it to end with the drift", c.id, r.Info[0].Reason)
		}
	}
}
