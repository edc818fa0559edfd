package recipes

import "go.yaml.in/yaml/v3"

// dockerBrand is the key a rendering's docker image is looked up under
// (shared/spec/vllm-recipes.md §9.8, vllm-project/recipes
// src/lib/command-synthesis.js): tpu for a TPU generation, amd for an AMD
// brand, intel for a CPU or XPU generation or an Intel brand, else nvidia
// (Huawei falls here too).
func dockerBrand(hw *HardwareProfile) string {
	switch {
	case hw.Gen() == "tpu":
		return "tpu"
	case hw.Brand == "AMD":
		return "amd"
	case hw.Gen() == "cpu" || hw.Gen() == "xpu" || hw.Brand == "Intel":
		return "intel"
	}
	return "nvidia"
}

// brandKeys are the keys that make a docker_image map a brand map.
var brandKeys = []string{"nvidia", "amd", "tpu", "intel"}

// dockerImage is the image the recipes site shows in a rendering's
// docker_command (the rendering's `docker_image`, §9.8), "" when it shows
// none (Intel with model.nightly_required and no pinned image). The first
// hit wins: the variant's hardware_overrides.<hw>.docker_image when it is a
// string (verbatim, even when it is not an image name); the variant's,
// then the model's docker_image — a string (nvidia only), a brand map's
// string under the brand key, or a {cu129, cu130} CUDA map (under nvidia
// or bare; nvidia only) that ends the search; xpu's
// vllm/vllm-openai-xpu:latest; the CUDA map's cu130, else cu129; the brand
// default (vllm/vllm-openai:latest, vllm/vllm-openai-rocm:latest,
// vllm/vllm-tpu:latest, vllm/vllm-openai-cpu:latest-x86_64; :nightly for
// nvidia, amd and tpu with model.nightly_required, none for intel).
func (x *rctx) dockerImage() string {
	key := dockerBrand(x.hw)
	if s, ok := str(getPath(x.vn, "hardware_overrides", x.hw.ID, "docker_image")); ok {
		return s
	}
	var cuda *yaml.Node
	for _, src := range []*yaml.Node{get(x.vn, "docker_image"), getPath(x.r.root, "model", "docker_image")} {
		if s, ok := str(src); ok {
			if key == "nvidia" {
				return s
			}
			continue
		}
		if !isMap(src) {
			continue
		}
		brandMap := false
		for _, k := range brandKeys {
			if get(src, k) != nil {
				brandMap = true
			}
		}
		if brandMap {
			v := get(src, key)
			if s, ok := str(v); ok {
				return s
			}
			if key == "nvidia" && isCUDAMap(v) {
				cuda = v
				break
			}
			continue
		}
		if isCUDAMap(src) && key == "nvidia" {
			cuda = src
			break
		}
	}
	if cuda == nil && x.hw.Gen() == "xpu" {
		return "vllm/vllm-openai-xpu:latest"
	}
	if cuda != nil {
		for _, k := range []string{"cu130", "cu129"} {
			if s, ok := str(get(cuda, k)); ok {
				return s
			}
		}
	}
	nightly := truthy(getPath(x.r.root, "model", "nightly_required"))
	switch key {
	case "amd":
		if nightly {
			return "vllm/vllm-openai-rocm:nightly"
		}
		return "vllm/vllm-openai-rocm:latest"
	case "tpu":
		if nightly {
			return "vllm/vllm-tpu:nightly"
		}
		return "vllm/vllm-tpu:latest"
	case "intel":
		if nightly {
			return ""
		}
		return "vllm/vllm-openai-cpu:latest-x86_64"
	}
	if nightly {
		return "vllm/vllm-openai:nightly"
	}
	return "vllm/vllm-openai:latest"
}

// isCUDAMap reports a {cu129, cu130} map.
func isCUDAMap(n *yaml.Node) bool {
	return isMap(n) && (get(n, "cu129") != nil || get(n, "cu130") != nil)
}
