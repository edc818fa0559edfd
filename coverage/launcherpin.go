package coverage

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// launcherRender renders a cited srt-slurm recipe the way the launcher of
// the master-config point it was measured as submits it: the srt-slurm ref
// the launcher clones (its injected flags and env), the recipe it actually
// hands to `srtctl apply` (a copy from the checkout, or the clone's own file
// read from SrtSlurmDir), the launcher's in-place edits of it and its
// setup-script override (infx.Workspace.Render, infx/multinode.go; source:
// InferenceX runners/launch_*.sh multi-node branch). handled is false when
// that point cannot be found (no master configs, no matching row, not a
// multi-node point with launchers in the checkout): the caller renders the
// cited file with srt-slurm's default version instead. When handled and
// the point cannot be rendered, pr gets its status and reason and d is nil.
func (c *run) launcherRender(pr *report.PointResult, f *cookbook.File, sel cookbook.Selection, dec *launch.Deployment) (d *launch.Deployment, handled bool) {
	ws, opt, cache, rules := c.ws, c.opt, c.renders, c.rules
	if ws == nil {
		return nil, false
	}
	m := MatchPoint(ws, pr.ConfigKey, queryOf(f, sel, dec, rules))
	if m.Status != report.StatusCompared || len(m.Points) == 0 {
		return nil, false
	}
	p := m.Points[0]
	if !p.Multinode || len(p.Launchers) == 0 || p.Kind != infx.KindRecipe {
		return nil, false
	}
	row := p.Row
	pr.Row, pr.RowPos = &row, c.relPos(p.Pos)
	key := "launcher\x00" + pr.ConfigKey + "\x00" + strconv.Itoa(p.Row) + "\x00" + strconv.Itoa(p.Concurrency)
	rr, ok := cache[key]
	if !ok {
		dd, err := ws.Render(c.ctx, p, infx.Options{SrtSlurmVersion: opt.SrtSlurmVersion})
		rr = renderResult{d: &dd, err: err}
		cache[key] = rr
	}
	if rr.err != nil {
		var pe *infx.PointError
		switch {
		case errors.As(rr.err, &pe):
			pr.Status = statusOf(pe.Status, infx.KindRecipe)
			pr.Message = fmt.Sprintf("%s row %d (%s), concurrency %d: %s", pr.ConfigKey, row, pr.RowPos, p.Concurrency, pe.Note)
		default:
			pr.Status, pr.Message = report.StatusError, rr.err.Error()
		}
		return nil, true
	}
	d = rr.d
	var notes []string
	notes = append(notes, fmt.Sprintf("rendered as the launcher submits %s row %d (%s), concurrency %d", pr.ConfigKey, row, pr.RowPos, p.Concurrency))
	notes = append(notes, d.Notes...)
	cited := pr.RecipeFile
	if cited == "" {
		cited = pr.Recipe
	}
	if d.Source.File != "" && filepath.ToSlash(filepath.Clean(d.Source.File)) != filepath.ToSlash(filepath.Clean(cited)) && d.Source.Recipe != pr.Recipe {
		notes = append(notes, fmt.Sprintf("the launcher submits %s, not the cited %s", d.Source.File, pr.Recipe))
	}
	if m.Drift != "" {
		notes = append(notes, m.Drift)
	}
	pr.Message = strings.Join(notes, "; ")
	return d, true
}
