//go:build !infx_srtslurm

package infx

import (
	"errors"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

func (ws *Workspace) renderRecipe(p Point, opt Options) ([]launch.Process, error) {
	return nil, errors.New("srtslurm not yet available")
}
