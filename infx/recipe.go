//go:build infx_srtslurm

package infx

import (
	"fmt"
	"os"

	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// renderRecipe loads the point's recipe (composed with its lane blocks in
// the new layout), picks the variant and renders it with the master entry's
// model and image.
func (ws *Workspace) renderRecipe(p Point, opt Options) ([]launch.Process, error) {
	rec, err := ws.loadRecipe(p)
	if err != nil {
		return nil, err
	}
	sel := p.Selector
	if sel == "" && rec.HasVariants() {
		sels := rec.Selectors()
		if len(sels) != 1 {
			return nil, &PosError{File: p.RefPos.File, Line: p.RefPos.Line, Col: p.RefPos.Col, Err: fmt.Errorf("%s has %d variants %v: the row must name one (file.yaml:<selector>)", ws.rel(p.Recipe), len(sels), sels)}
		}
		sel = sels[0]
	}
	version := opt.SrtSlurmVersion
	if version == "" {
		version = DefaultSrtSlurmVersion
	}
	r, err := rec.Render(sel, srtslurm.Options{Version: version, Model: p.Model, Image: p.Image})
	if err != nil {
		return nil, err
	}
	return r.Deployment.Processes, nil
}

// loadRecipe reads the recipe; with lane blocks it is composed first
// (the plain file is parsed first so syntax errors point into it).
func (ws *Workspace) loadRecipe(p Point) (*srtslurm.Recipe, error) {
	data, err := os.ReadFile(p.Recipe)
	if err != nil {
		return nil, err
	}
	name := ws.rel(p.Recipe)
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
