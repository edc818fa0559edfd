package compare

import (
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// imageKey is the setting of an engine worker that names the container
// image it runs in.
const imageKey = "image"

// normImage normalizes a container image reference for comparison: a
// docker:// prefix is dropped, a bare name gets the implied :latest tag.
// The digest (@sha256:…) is returned apart: it is compared only when both
// sides give one.
func normImage(s string) (ref, digest string) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "docker://")
	ref, digest, _ = strings.Cut(s, "@")
	if i := strings.LastIndexByte(ref, '/'); !strings.Contains(ref[i+1:], ":") && !strings.HasSuffix(ref, ".sqsh") {
		ref += ":latest"
	}
	return ref, digest
}

// addImage adds the image setting to both sides of an engine-worker pair
// when both state the image (the cookbook cell's `image`, sgl-project/sglang
// docs/src/snippets/agentx/*.jsx cells[].image; the recipe's
// model.container as srtctl resolves it through the cluster's containers:
// aliases, package infx/srtslurm): the image is what the worker's flags
// run on (the SGLang / vLLM build). A side that states none leaves it
// uncompared.
func addImage(cn, rn *Normalized, cp, rp *launch.Process) {
	if cp.Kind != launch.KindWorker || rp.Kind != launch.KindWorker || cp.Image == "" || rp.Image == "" {
		return
	}
	cref, cdig := normImage(cp.Image)
	rref, rdig := normImage(rp.Image)
	cv, rv := cref, rref
	if cdig != "" && rdig != "" {
		cv, rv = cref+"@"+cdig, rref+"@"+rdig
	}
	cn.add(&Setting{Key: imageKey, Kind: "field", Name: imageKey, Value: cv, Raw: cp.Image, Literal: true, Origins: []launch.Origin{cp.Origin}}, true)
	rn.add(&Setting{Key: imageKey, Kind: "field", Name: imageKey, Value: rv, Raw: rp.Image, Literal: true, Origins: []launch.Origin{rp.Origin}}, true)
}
