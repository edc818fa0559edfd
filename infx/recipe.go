package infx

import (
	"errors"
	"os"

	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// renderRecipe loads the point's recipe (composed with its lane blocks in
// the new layout), picks the variant and renders it with the master entry's
// model and image.
func (ws *Workspace) renderRecipe(p Point, opt Options) ([]launch.Process, string, error) {
	rec, err := ws.loadRecipe(p)
	if err != nil {
		return nil, "", err
	}
	sel := p.Selector
	if sel == "" && rec.HasVariants() {
		sels := rec.Selectors()
		sel = sels[0]
		if len(sels) != 1 {
			if sel, err = ws.matchVariant(p, sels); err != nil {
				return nil, "", err
			}
		}
	}
	version := opt.SrtSlurmVersion
	if version == "" {
		version = DefaultSrtSlurmVersion
	}
	r, err := rec.Render(sel, srtslurm.Options{Version: version, Model: p.Model, Image: p.Image})
	if err != nil {
		// Errors without a recipe position (unknown selector, unknown
		// version) are placed at the master's reference to the recipe.
		var se *srtslurm.Error
		if errors.As(err, &se) && se.Line == 0 && p.RefPos.Line > 0 {
			return nil, "", &PosError{File: p.RefPos.File, Line: p.RefPos.Line, Col: p.RefPos.Col, Err: err}
		}
		return nil, "", err
	}
	return r.Deployment.Processes, sel, nil
}

// loadRecipe reads the recipe; with lane blocks it is composed first
// (the plain file is parsed first so syntax errors point into it).
func (ws *Workspace) loadRecipe(p Point) (*srtslurm.Recipe, error) {
	data, err := os.ReadFile(p.Recipe)
	if err != nil {
		return nil, err
	}
	name := p.Recipe
	rec, err := srtslurm.Parse(name, data)
	if err != nil || len(p.LaneBlocks) == 0 {
		return rec, err
	}
	composed, err := ws.compose(p, name, data)
	if err != nil {
		return nil, err
	}
	return srtslurm.Parse(name, composed)
}
