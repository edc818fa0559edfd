package srtslurm

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// attachFileContents gives each process of the rendering's Deployment the
// content of the config files it reads (launch.Process.FileContents), so
// package compare can compare them by content:
//
//   - the files srt-slurm writes into the log directory (Rendering.Files:
//     nginx.conf from src/srtctl/templates/nginx.conf.j2, the TRT-LLM engine
//     YAMLs, trtllm_serve's ser.yaml), for every argument naming one, and
//     for every /logs/ env value naming one (the vLLM Mooncake store config
//     of MOONCAKE_CONFIG_PATH, backends/vllm.py);
//   - the nats.conf NVIDIA/srt-slurm src/srtctl/cli/setup_head.py
//     start_nats writes when the head step gets --nats-max-payload-mb N
//     (infra.nats_max_payload_mb): "max_payload: <N MiB in bytes>" and a
//     JetStream block storing in /tmp/nats, with the origin of that
//     recipe setting.
//
// A file already attached is kept. Files under /configs (srt-slurm's own
// configs/ directory, e.g. /configs/deepep_config.json) are not part of a
// rendering and stay path-only.
func (r *Rendering) attachFileContents() {
	var payload *launch.Arg
	for i := range r.Steps {
		st := &r.Steps[i]
		for j := range st.Args {
			if a := &st.Args[j]; a.Flag == "--nats-max-payload-mb" && len(a.Values) == 1 {
				payload = a
			}
		}
	}
	for i := range r.Deployment.Processes {
		p := &r.Deployment.Processes[i]
		// a file named by an env value (the vLLM workers'
		// MOONCAKE_CONFIG_PATH=/logs/mooncake_store_config.json)
		for _, e := range p.Env {
			if !strings.HasPrefix(e.Value, "/logs/") {
				continue
			}
			if _, ok := p.FileContent(e.Value); ok {
				continue
			}
			for _, f := range r.Files {
				if path.Base(e.Value) == f.Name {
					p.FileContents = append(p.FileContents, launch.FileContent{Path: e.Value, Content: f.Content,
						Origin: launch.Origin{Kind: launch.OriginInjected, Path: e.Value, Detail: "srt-slurm " + r.Version}})
					break
				}
			}
		}
		for _, a := range p.Args {
			for _, v := range a.Values {
				if _, ok := p.FileContent(v); ok {
					continue
				}
				for _, f := range r.Files {
					if path.Base(v) == f.Name {
						p.FileContents = append(p.FileContents, launch.FileContent{Path: v, Content: f.Content,
							Origin: launch.Origin{Kind: launch.OriginInjected, Path: v, Detail: "srt-slurm " + r.Version}})
						break
					}
				}
				if p.Kind != launch.KindNATS || payload == nil || path.Base(v) != "nats.conf" {
					continue
				}
				if _, ok := p.FileContent(v); ok {
					continue
				}
				mb, err := strconv.ParseInt(payload.Values[0], 10, 64)
				if err != nil {
					continue
				}
				o := payload.Origin
				o.Detail = strings.TrimSpace(o.Detail + " " + v + " written by srt-slurm setup_head.py")
				p.FileContents = append(p.FileContents, launch.FileContent{Path: v,
					Content: fmt.Sprintf("max_payload: %d\njetstream { store_dir: \"/tmp/nats\" }\n", mb*1024*1024), Origin: o})
			}
		}
	}
}
