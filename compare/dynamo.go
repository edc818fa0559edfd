package compare

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// dynamoInstallKey is the setting of a Dynamo frontend that names the
// Dynamo it runs: the install lines of its preamble, normalized by
// dynamoInstall.
const dynamoInstallKey = "dynamo-install"

var (
	dynWheelRe  = regexp.MustCompile(`ai_dynamo-([^-\s'"]+)-py3-none-any\.whl`)
	dynPipRe    = regexp.MustCompile(`ai-dynamo==([^\s'"\\]+)`)
	dynHeadRe   = regexp.MustCompile(`Installing dynamo from source \(HEAD\)`)
	dynCheckout = regexp.MustCompile(`git checkout ([^\s&;|)]+)`)
	dynPatchRe  = regexp.MustCompile(`dynamo-wheels/[0-9a-f]+-patch-([0-9a-f]+)/`)
	dynCommitRe = regexp.MustCompile(`github\.com/ai-dynamo/dynamo/commit/([0-9a-f]{7,40})\b`)
)

// dynamoInstall names the Dynamo the install lines of a preamble install
// ("" when they install none: the container image's own Dynamo). Sources:
// NVIDIA/srt-slurm src/srtctl/core/schema.py DynamoConfig
// (_build_install_commands: dynamo.wheel → the staged
// ai_dynamo-<v>-py3-none-any.whl, dynamo.hash / dynamo.source.rev → a
// source build after `git checkout <sha>`, dynamo.top_of_tree → HEAD,
// else pip ai-dynamo==<version>) as package infx/srtslurm renders them,
// and sgl-project/sglang docs/src/snippets/agentx/*.jsx
// cells[].routers.dynamo.install ("# Dynamo built from source at
// https://github.com/ai-dynamo/dynamo/commit/<sha>", or the pip install
// of ai-dynamo==<v>).
func dynamoInstall(lines []string) string {
	var out []string
	for _, l := range lines {
		switch {
		case dynWheelRe.MatchString(l):
			out = append(out, "ai-dynamo "+dynWheelRe.FindStringSubmatch(l)[1])
		case dynPipRe.MatchString(l):
			out = append(out, "ai-dynamo "+dynPipRe.FindStringSubmatch(l)[1])
		case dynHeadRe.MatchString(l):
			out = append(out, "ai-dynamo source HEAD (unpinned)")
		case dynCheckout.MatchString(l):
			v := "ai-dynamo source commit " + dynCheckout.FindStringSubmatch(l)[1]
			if m := dynPatchRe.FindStringSubmatch(l); m != nil {
				v += " with patches " + m[1]
			}
			out = append(out, v)
		case dynCommitRe.MatchString(l):
			out = append(out, "ai-dynamo source commit "+dynCommitRe.FindStringSubmatch(l)[1])
		case l == noInstallLine:
			out = append(out, dynamoFromImage)
		}
	}
	return strings.Join(out, "; ")
}

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
		lines = []string{noInstallLine}
	}
	for i := range d.Processes {
		p := &d.Processes[i]
		if p.Kind == launch.KindDynamoFrontend && dynamoInstall(p.Preamble) == "" {
			p.Preamble = append(p.Preamble, lines...)
		}
	}
}

// noInstallLine stands, in a cookbook frontend's preamble, for a router
// whose install list is empty (the image's Dynamo).
const noInstallLine = "# no Dynamo install: the container image's Dynamo"

// dynamoInstallSetting is the dynamo-install setting of a Dynamo frontend
// (nil for other processes). On the recipe side (cookbookSide false) an
// srt-slurm-rendered frontend whose preamble installs no Dynamo runs the
// container image's,
// whose version is not known: it gets the value dynamoFromImage, which
// matches no stated version. On the cookbook side no install line means
// the cookbook states none: nil.
func dynamoInstallSetting(p *launch.Process, cookbookSide bool) *Setting {
	if p.Kind != launch.KindDynamoFrontend {
		return nil
	}
	v := dynamoInstall(p.Preamble)
	if v == "" {
		// only an srt-slurm rendering (Origin recipe) always carries
		// srtctl's install step in the frontend's preamble (srt-slurm.md
		// §9); another launcher's frontend without one states nothing
		if cookbookSide || p.Origin.Kind != launch.OriginRecipe {
			return nil
		}
		v = dynamoFromImage
	}
	return &Setting{Key: dynamoInstallKey, Kind: "field", Name: dynamoInstallKey, Value: v, Raw: v, Literal: true, Origins: []launch.Origin{p.Origin}}
}

// dynamoFromImage is the dynamo-install value of a frontend that installs
// none.
const dynamoFromImage = "none installed: the container image's Dynamo (version not known)"

// addDynamoInstall adds the dynamo-install setting to both sides of a
// Dynamo-frontend pair when the cookbook states an install; when it states
// none, the recipe's is not compared and the note says so.
func addDynamoInstall(res *Result, cn, rn *Normalized, cp, rp *launch.Process) {
	c, r := dynamoInstallSetting(cp, true), dynamoInstallSetting(rp, false)
	switch {
	case c != nil && r != nil:
		cn.add(c, true)
		rn.add(r, true)
	case r != nil:
		res.Note = fmt.Sprintf("%s: the cookbook states no Dynamo install for this router; the recipe's (%s) is not compared", dynamoInstallKey, r.Value)
	}
}
