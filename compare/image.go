package compare

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// imageKey is the setting of an engine worker that names the container
// image it runs in.
const imageKey = "image"

// Rule ids of the informational image entries (class judgment): a floating
// tag against another tag, the same tag with a digest on one side only,
// and the same repository and tag on another registry.
const (
	ImageFloatingRule = "image-floating-tag"
	ImageDigestRule   = "image-digest-one-side"
	ImageMirrorRule   = "image-registry-mirror"
)

// ImageRef is a container image reference read the way `docker pull`
// reads it (the distribution/reference grammar of the Docker / OCI
// registries: [REGISTRY/]PATH[:TAG][@DIGEST], registry docker.io and
// namespace library/ when not given, tag latest when neither a tag nor a
// digest is given), also in the enroot / pyxis form REGISTRY#PATH that
// InferenceX master configs and srt-slurm use ("nvcr.io#nvidia/…";
// InferenceX runners/launch_*.sh turn '#' into '/' before `enroot import
// docker://…`) and with a docker:// prefix.
type ImageRef struct {
	// Raw is the reference as written.
	Raw string
	// Registry is the registry host ("docker.io", "nvcr.io", "ghcr.io").
	Registry string
	// Path is the repository path inside the registry ("lmsysorg/sglang",
	// "library/nginx").
	Path string
	// Tag is the tag ("v0.5.16-cu130"); "" for a digest-only reference.
	Tag string
	// Digest is the content digest without '@' ("sha256:d6e7…"), "" when
	// none is given.
	Digest string
	// Valid is false for text that is no registry reference (words
	// separated by spaces, a local .sqsh file or path): such a value is
	// compared as written.
	Valid bool
}

// ParseImage reads an image reference (see ImageRef). It never fails: text
// that is not a registry reference comes back with Valid false.
func ParseImage(s string) ImageRef {
	raw := s
	s = strings.TrimPrefix(strings.TrimSpace(s), "docker://")
	if rest, ok := strings.CutPrefix(s, "docker pull "); ok {
		// a recipe whose docker_image is the command that fetches the
		// image (vllm-project/recipes, shared/spec/vllm-recipes.md §9.10
		// "A command as an image": "docker pull
		// vllm/vllm-openai-rocm:nightly"): the image it names
		s = strings.TrimSpace(rest)
	}
	r := ImageRef{Raw: raw}
	if s == "" || strings.ContainsAny(s, " \t\n") || strings.HasPrefix(s, "/") || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".sqsh") {
		return r
	}
	if i := strings.IndexByte(s, '#'); i > 0 && !strings.Contains(s[:i], "/") {
		s = s[:i] + "/" + s[i+1:] // enroot: REGISTRY#PATH
	}
	name, digest, _ := strings.Cut(s, "@")
	tag := ""
	if i := strings.LastIndexByte(name, ':'); i > strings.LastIndexByte(name, '/') {
		name, tag = name[:i], name[i+1:]
	}
	if name == "" || strings.HasSuffix(name, "/") || strings.Contains(name, "//") {
		return r
	}
	reg, path := "docker.io", name
	if first, rest, ok := strings.Cut(name, "/"); ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
		reg, path = first, rest
	}
	switch reg {
	case "index.docker.io", "registry-1.docker.io":
		reg = "docker.io"
	}
	if reg == "docker.io" && !strings.Contains(path, "/") {
		path = "library/" + path
	}
	if tag == "" && digest == "" {
		tag = "latest"
	}
	r.Registry, r.Path, r.Tag, r.Digest, r.Valid = reg, path, tag, digest, true
	return r
}

// Repository is the registry and path ("docker.io/lmsysorg/sglang").
func (r ImageRef) Repository() string { return r.Registry + "/" + r.Path }

// String is the reference in its familiar form: docker.io/ and library/
// left out, then :TAG and @DIGEST when present; the text as written when
// the reference is not Valid.
func (r ImageRef) String() string {
	if !r.Valid {
		return strings.TrimSpace(r.Raw)
	}
	s := r.Path
	if r.Registry != "docker.io" {
		s = r.Registry + "/" + s
	} else {
		s = strings.TrimPrefix(s, "library/")
	}
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	if r.Digest != "" {
		s += "@" + r.Digest
	}
	return s
}

// version is the reference's tag (and digest) as a short text for notes:
// "v0.5.19-cu130@sha256:d6e728862…" (a digest cut to 12 hex digits).
func (r ImageRef) version() string {
	if !r.Valid {
		return r.String()
	}
	v := r.Tag
	if r.Digest != "" {
		d := r.Digest
		if algo, hex, ok := strings.Cut(d, ":"); ok && len(hex) > 12 {
			d = algo + ":" + hex[:12] + "…"
		}
		if v != "" {
			v += "@"
		}
		v += d
	}
	return v
}

// channelWords name the moving tags of the image repositories the corpus
// uses: Docker's default `latest` (moved by every push without a tag),
// lmsysorg/sglang's `dev` / `dev-cu13` (rebuilt from main) and `latest`
// (the newest release), vllm/vllm-openai's `nightly` and `latest`, and the
// common branch names.
var channelWords = map[string]bool{
	"latest": true, "dev": true, "nightly": true, "main": true, "master": true,
	"edge": true, "stable": true, "rolling": true, "canary": true, "unstable": true,
}

var (
	// a build date (20260913) or date and time (202607231538)
	tagDateRe = regexp.MustCompile(`^[0-9]{8,14}$`)
	// a commit id: 7 to 40 hex digits with at least one letter
	// (433429b1, 75c2eef, 09663abde0f50944a8d5ea30120666024b503faa)
	tagCommitRe = regexp.MustCompile(`^[0-9a-f]{7,40}$`)
)

// Floating reports whether the reference names a moving build: no digest,
// and a tag with a channel word (latest, dev, nightly, main, …) and no
// build pin — a date (nightly-dev-cu13-20260913-…, nightly_202607231538)
// or a commit id (nightly-09663abd…, nightly-dev-arm64-cu13.0.1-75c2eef).
// A tag without a channel word (a release such as v0.5.16-cu130, a named
// build such as deepseek-v4-hopper) is pinned, as is any reference with a
// digest. A version number next to a channel word ("dev-Ling-3.0-flash")
// names what the channel follows, not a build, so it does not pin. A tag
// that is a placeholder for the reader to fill in ("<tag>", "$TAG",
// "${VERSION}") names no build either: floating.
func (r ImageRef) Floating() bool {
	if !r.Valid || r.Digest != "" || r.Tag == "" {
		return false
	}
	if strings.ContainsAny(r.Tag, "$<>{}") {
		return true
	}
	words := strings.FieldsFunc(strings.ToLower(r.Tag), func(c rune) bool { return c == '-' || c == '_' })
	channel := false
	for _, w := range words {
		if tagDateRe.MatchString(w) || tagCommitRe.MatchString(w) && strings.ContainsAny(w, "abcdef") {
			return false
		}
		if channelWords[w] {
			channel = true
		}
	}
	return channel
}

// imageJudgement is how two worker images compare (judgeImage).
type imageJudgement int

const (
	imageSame    imageJudgement = iota // the same image: a match
	imageInfo                          // informational (class judgment)
	imageDiffers                       // a difference, classed by the policy
)

// imageVersionField is the field an image difference is classified as
// (exclusions/rules.yaml) when both sides pin builds of one repository and
// the builds differ: engine-version drift, which a policy may class apart
// from the repository (rule judgment-image-version).
const imageVersionField = "image.version"

// imageVerdict is the outcome of judgeImage: the judgement, and for
// imageInfo the rule id and reason, for imageDiffers the note that
// qualifies the difference (engine-version drift, another repository) and
// the field the exclusion rules classify it as (imageKey, or
// imageVersionField for drift).
type imageVerdict struct {
	judgement imageJudgement
	rule      string
	text      string
	field     string
}

// judgeImage compares the image an upstream worker states (up) with the
// one the InferenceX worker runs (ix); engine ("sglang", "vllm") reads the
// engine version from the tag for the note (compare/defaults.yaml images).
// The rule, one for single- and multi-node points:
//
//   - Both digests given: equal digests are the same image (a digest is the
//     content address: OCI image spec, descriptor digest) whatever the tags
//     or registries; different digests are different builds.
//   - Different repository paths (docker.io and library/ implied; enroot's
//     REGISTRY#PATH read as REGISTRY/PATH) are different images: another
//     engine build or fork (field image) — except two release repositories
//     of the engine (releaseRepos: lmsysorg/sglang and lmsysorg/sglang-rocm),
//     whose builds are told apart by version as below (two pinned builds:
//     drift; a floating tag: informational).
//   - The same path and tag on another registry is a mirror: the tag names
//     the same build by the publisher's convention, but only digests on
//     both sides would prove it, so it is informational (ImageMirrorRule),
//     never a match.
//   - Same repository, same tag: the same image; a digest on one side only
//     pins the build the tag named there, which the other side does not
//     record: informational (ImageDigestRule).
//   - Same repository, different tags: a floating tag (ImageRef.Floating)
//     on either side is informational (ImageFloatingRule); two pinned
//     builds that differ (tags, or digests) are engine-version drift naming
//     both versions, classified as the field image.version, which each
//     policy classes (exclusions/rules.yaml judgment-image-version:
//     informational under 09813166, 2026-07 and 2026-06-major; counted
//     under 2026-06-complete).
//
// A reference that is not a registry reference (ImageRef.Valid false) is
// compared as written (field image).
func judgeImage(up, ix ImageRef, engine string) imageVerdict {
	if !up.Valid || !ix.Valid {
		if up.String() == ix.String() {
			return imageVerdict{judgement: imageSame}
		}
		return imageVerdict{judgement: imageDiffers, field: imageKey, text: "not both registry image references: compared as written"}
	}
	drift := imageVerdict{judgement: imageDiffers, field: imageVersionField, text: driftNote(up, ix, engine)}
	family := up.Path != ix.Path && releaseRepos(engine, up, ix)
	if family {
		drift.text += fmt.Sprintf("; %s and %s are both %s release repositories (compare/defaults.yaml images)", up.Path, ix.Path, engine)
	}
	if up.Digest != "" && ix.Digest != "" {
		switch {
		case up.Digest == ix.Digest:
			return imageVerdict{judgement: imageSame}
		case up.Path != ix.Path && !family:
			return imageVerdict{judgement: imageDiffers, field: imageKey, text: repoNote(up, ix)}
		}
		return drift
	}
	if up.Path != ix.Path && !family {
		return imageVerdict{judgement: imageDiffers, field: imageKey, text: repoNote(up, ix)}
	}
	if up.Tag == ix.Tag && !family {
		if up.Registry != ix.Registry {
			return imageVerdict{judgement: imageInfo, rule: ImageMirrorRule, text: fmt.Sprintf(
				"the same repository and tag %s on another registry (upstream %s, InferenceX %s): a mirror names the same build, which only digests on both sides would prove", up.Path+":"+up.Tag, up.Registry, ix.Registry)}
		}
		if up.Digest == ix.Digest {
			return imageVerdict{judgement: imageSame}
		}
		side, d := "upstream", up.Digest
		if d == "" {
			side, d = "InferenceX", ix.Digest
		}
		return imageVerdict{judgement: imageInfo, rule: ImageDigestRule, text: fmt.Sprintf(
			"the same tag %s on both sides; only %s pins its digest %s, the build the other side's tag named is not recorded", up.Tag, side, d)}
	}
	if up.Floating() || ix.Floating() {
		if family {
			// the tags of two repositories name no common build
			return imageVerdict{judgement: imageInfo, rule: ImageFloatingRule, text: fmt.Sprintf(
				"floating tag against another %s release repository: upstream %s, InferenceX %s", engine, up.String(), ix.String())}
		}
		var moving []string
		if up.Floating() {
			moving = append(moving, "upstream's "+up.Tag)
		}
		if ix.Floating() {
			moving = append(moving, "InferenceX's "+ix.Tag)
		}
		return imageVerdict{judgement: imageInfo, rule: ImageFloatingRule, text: fmt.Sprintf(
			"floating tag (%s): a moving build, not a version; upstream %s, InferenceX %s", strings.Join(moving, ", "), up.version(), ix.version())}
	}
	return drift
}

// driftNote marks two pinned builds of one repository as engine-version
// drift, with both versions (and the engine versions the tags carry, when
// compare/defaults.yaml lists the repository).
func driftNote(up, ix ImageRef, engine string) string {
	s := fmt.Sprintf("engine-version drift: upstream %s, InferenceX %s", up.version(), ix.version())
	if d, err := DefaultDefaults(); err == nil {
		uv, uok := d.EngineVersion(engine, up.String())
		iv, iok := d.EngineVersion(engine, ix.String())
		switch {
		case uok && iok && uv == iv:
			s += fmt.Sprintf(" (the same %s %s, another build)", engine, uv)
		case uok && iok:
			s += fmt.Sprintf(" (%s %s vs %s)", engine, uv, iv)
		}
	}
	return s
}

// releaseRepos reports whether both references are on Docker Hub in
// repositories compare/defaults.yaml lists as engine's release images
// (sglang: lmsysorg/sglang and lmsysorg/sglang-rocm, where SGLang moved its
// ROCm builds; vllm: vllm/vllm-openai, vllm/vllm-openai-rocm, rocm/vllm):
// the same engine's builds, told apart by their tags' versions.
func releaseRepos(engine string, up, ix ImageRef) bool {
	d, err := DefaultDefaults()
	if err != nil || up.Registry != "docker.io" || ix.Registry != "docker.io" {
		return false
	}
	in := func(path string) bool {
		for _, r := range d.Images[engine] {
			if r == path {
				return true
			}
		}
		return false
	}
	return in(up.Path) && in(ix.Path)
}

// repoNote names two different repositories.
func repoNote(up, ix ImageRef) string {
	if up.Path == ix.Path {
		return fmt.Sprintf("the same repository path on another registry (upstream %s, InferenceX %s): a tag is the registry's own, and no digest on both sides proves the same image", up.Registry, ix.Registry)
	}
	return fmt.Sprintf("another image repository: upstream %s, InferenceX %s", up.Repository(), ix.Repository())
}

// addImage adds the image setting to both sides of an engine-worker pair
// when both state the image: the cookbook cell's `image`
// (sgl-project/sglang docs/src/snippets/agentx/*.jsx cells[].image), the
// image of a page's docker command (`docker run … IMAGE …`,
// cookbook/pages), a vLLM recipe's docker image (recipes.vllm.ai
// docker_image, a guide's `docker run … IMAGE`), and on the InferenceX
// side the image the worker runs in (the master config's `image:` that
// runners/launch_*.sh start a single-node script in, or srt-slurm's
// model.container as srtctl resolves it through the cluster's containers:
// aliases). The values are the references in familiar form with their
// digests; judgeImage decides how they compare. A side that states none
// leaves the image uncompared (neither a match nor a difference).
func addImage(cn, rn *Normalized, cp, rp *launch.Process) {
	if cp.Kind != launch.KindWorker || rp.Kind != launch.KindWorker || cp.Image == "" || rp.Image == "" {
		return
	}
	cn.add(&Setting{Key: imageKey, Kind: "field", Name: imageKey, Value: ParseImage(cp.Image).String(), Raw: cp.Image, Literal: true, Origins: []launch.Origin{cp.Origin}}, true)
	rn.add(&Setting{Key: imageKey, Kind: "field", Name: imageKey, Value: ParseImage(rp.Image).String(), Raw: rp.Image, Literal: true, Origins: []launch.Origin{rp.Origin}}, true)
}

// normImage normalizes a container image reference for reading its tag:
// the familiar form without the digest (which is returned apart).
func normImage(s string) (ref, digest string) {
	r := ParseImage(s)
	if !r.Valid {
		return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "docker://")), ""
	}
	d := r.Digest
	r.Digest = ""
	return r.String(), d
}
