package recipes

import (
	"path/filepath"
	"testing"
)

// TestSiteDockerImage: the image of each rendering's docker_command
// (shared/spec/vllm-recipes.md §9.8) — a variant's exact-hw override, the
// brand map (nvidia's CUDA map → cu130), a bare string for NVIDIA only,
// the brand defaults (nightly with model.nightly_required, none for Intel
// CPU then), xpu's own image — and the worker of the rendering's
// Deployment runs in it.
func TestSiteDockerImage(t *testing.T) {
	site, err := LoadSite(filepath.Join("testdata", "docker"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range site.Renderings() {
		got[r.Tree+" "+r.Hardware] = r.DockerImage
		d := r.Deployment()
		if len(d.Processes) == 0 || d.Processes[0].Image != r.DockerImage {
			t.Errorf("%s %s: deployment worker image %+v, want %q", r.Tree, r.Hardware, d.Processes, r.DockerImage)
		}
	}
	for k, want := range map[string]string{
		"acme/Pinned-1 h200":         "vllm/vllm-openai:v0.25.0",
		"acme/Pinned-1 mi355x":       "vllm/vllm-openai-rocm:nightly-4c626633159887b0f2c962058c17c78f1434556d",
		"acme/Pinned-1 trillium":     "vllm/vllm-tpu:latest",
		"acme/Pinned-1 xeon6":        "vllm/vllm-openai-cpu:latest-x86_64",
		"acme/Pinned-1 arc_pro_b60":  "vllm/vllm-openai-xpu:latest",
		"acme/Pinned-1 ascend_950pr": "quay.io/ascend/vllm-ascend:pinned1-a5",
		"acme/Nightly-1 h200":        "vllm/vllm-openai:nightly",
		"acme/Nightly-1 mi355x":      "vllm/vllm-openai-rocm:nightly",
		"acme/Nightly-1 trillium":    "vllm/vllm-tpu:nightly",
		"acme/Nightly-1 xeon6":       "",
		"acme/Nightly-1 arc_pro_b60": "vllm/vllm-openai-xpu:latest",
		"acme/Plain-1 h200":          "vllm/vllm-openai:plain1",
		"acme/Plain-1 mi355x":        "vllm/vllm-openai-rocm:latest",
		"acme/Plain-1 trillium":      "vllm/vllm-tpu:latest",
		"acme/Plain-1 xeon6":         "vllm/vllm-openai-cpu:latest-x86_64",
	} {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: no rendering", k)
			continue
		}
		if g != want {
			t.Errorf("%s: docker image %q, want %q", k, g, want)
		}
	}
}
