package compare

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// RenderSrtSlurm renders an srt-slurm recipe variant with package
// infx/srtslurm at its default srt-slurm version. model, when known, is the
// InferenceX master entry's Hugging Face id (the recipe's model.path is only
// an alias; inferencex.md (d): "the effective image and model come from the
// master entry") and is bound as "hf:<model>".
func RenderSrtSlurm(path, selector, model string) (*launch.Deployment, error) {
	r, err := srtslurm.Load(path)
	if err != nil {
		return nil, err
	}
	return renderRecipe(r, selector, model)
}

// srtSlurmRenderer is RenderSrtSlurm with each recipe file loaded once per
// coverage run (bundles are cited with many selectors).
func srtSlurmRenderer() RenderFunc {
	type loaded struct {
		r   *srtslurm.Recipe
		err error
	}
	files := map[string]loaded{}
	return func(path, selector, model string) (*launch.Deployment, error) {
		l, ok := files[path]
		if !ok {
			l.r, l.err = srtslurm.Load(path)
			files[path] = l
		}
		if l.err != nil {
			return nil, l.err
		}
		return renderRecipe(l.r, selector, model)
	}
}

func renderRecipe(r *srtslurm.Recipe, selector, model string) (*launch.Deployment, error) {
	opt := srtslurm.Options{}
	if model != "" {
		opt.Model = "hf:" + model
	}
	rd, err := r.Render(selector, opt)
	if err != nil {
		return nil, err
	}
	attachRenderedFiles(rd)
	return &rd.Deployment, nil
}

// attachRenderedFiles gives each process of a rendering the content of the
// config files it reads (launch.Process.FileContents), so compare can
// compare them by content: the files srt-slurm writes into the log
// directory (Rendering.Files: nginx.conf from templates/nginx.conf.j2, the
// TRT-LLM engine YAMLs) for every argument naming one, and the nats.conf
// NVIDIA/srt-slurm src/srtctl/cli/setup_head.py start_nats writes when the
// head step gets --nats-max-payload-mb N (infra.nats_max_payload_mb):
// "max_payload: <N MiB in bytes>" and a JetStream block storing in
// /tmp/nats. A file the renderer already attached is kept. Files the
// recipe names under /configs (srt-slurm's own configs/ directory, e.g.
// /configs/deepep_config.json) are not in the rendering: they stay
// path-only.
func attachRenderedFiles(rd *srtslurm.Rendering) {
	var payload *launch.Arg
	for i := range rd.Steps {
		st := &rd.Steps[i]
		for j := range st.Args {
			if a := &st.Args[j]; a.Flag == "--nats-max-payload-mb" && len(a.Values) == 1 {
				payload = a
			}
		}
	}
	inj := launch.Origin{Kind: launch.OriginInjected, Detail: "srt-slurm " + rd.Version}
	for i := range rd.Deployment.Processes {
		p := &rd.Deployment.Processes[i]
		var vals []string
		for _, a := range p.Args {
			vals = append(vals, a.Values...)
		}
		for _, v := range vals {
			if _, ok := p.FileContent(v); ok {
				continue
			}
			for _, f := range rd.Files {
				if path.Base(v) == f.Name {
					o := inj
					o.Path = v
					p.FileContents = append(p.FileContents, launch.FileContent{Path: v, Content: f.Content, Origin: o})
					break
				}
			}
			if p.Kind == launch.KindNATS && payload != nil && path.Base(v) == "nats.conf" {
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
