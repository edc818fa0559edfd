package coverage

import (
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
	return r.RenderModel(selector, model)
}
