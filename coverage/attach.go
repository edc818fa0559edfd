package coverage

import (
	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// attachCookbookInstall gives each Dynamo frontend of a decoded cookbook
// deployment the selected router's install lines
// (cells[i].routers[r].install of sgl-project/sglang
// docs/src/snippets/agentx/*.jsx) as its preamble, where the recipe side
// carries srtctl's dynamo install.
func attachCookbookInstall(d *launch.Deployment, f *cookbook.File, sel cookbook.Selection) {
	if sel.Cell < 0 || sel.Cell >= len(f.Cells) {
		return
	}
	rt, ok := f.Cells[sel.Cell].Routers[sel.Router]
	if !ok || rt.Install == nil {
		return
	}
	lines := rt.Install
	if len(lines) == 0 {
		// `install: []`: the router states that nothing is installed, so
		// the frontend runs the container image's Dynamo.
		lines = []string{compare.NoDynamoInstallLine}
	}
	for i := range d.Processes {
		p := &d.Processes[i]
		if p.Kind == launch.KindDynamoFrontend && compare.DynamoInstall(p.Preamble) == "" {
			p.Preamble = append(p.Preamble, lines...)
		}
	}
}

// withMasterImage gives the engine workers of a cited recipe rendered
// without its launcher the image they run as InferenceX runs them: the
// master config entry's image, to which every runners/launch_*.sh maps the
// recipe's container alias (srtslurm.yaml containers:, "${IMAGE}" and the
// dynamo-* aliases → the squash of $IMAGE; shared/spec/srt-slurm.md §9).
// Without the config key's entry the image is not known and is left out
// (""). The processes are copied, not changed in place.
func withMasterImage(ps []launch.Process, ws *infx.Workspace, key string) []launch.Process {
	img := ""
	if ws != nil {
		if e, err := ws.Entry(key); err == nil {
			img = e.Image
		}
	}
	out := append([]launch.Process(nil), ps...)
	for i := range out {
		if out[i].Kind == launch.KindWorker {
			out[i].Image = img
		}
	}
	return out
}
