package compare

import (
	"fmt"
	"regexp"
	"strings"

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

// DynamoInstall names the Dynamo the install lines of a preamble install
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
func DynamoInstall(lines []string) string {
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
		case l == NoDynamoInstallLine:
			out = append(out, dynamoFromImage)
		}
	}
	return strings.Join(out, "; ")
}

// NoDynamoInstallLine stands, in an upstream frontend's preamble, for a
// router whose install list is empty (sgl-project/sglang
// docs/src/snippets/agentx/*.jsx cells[].routers.dynamo.install: []): the
// frontend runs the container image's Dynamo.
const NoDynamoInstallLine = "# no Dynamo install: the container image's Dynamo"

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
	v := DynamoInstall(p.Preamble)
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
		res.Note = fmt.Sprintf("%s: the upstream documentation states no Dynamo install for this router; the InferenceX recipe's (%s) is not compared", dynamoInstallKey, r.Value)
	}
}
