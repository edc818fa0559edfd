package compare

import (
	"fmt"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// filePass settles the file-valued flags of a pair of processes before
// their settings are compared (Setting.File, Content, Expanded): a file
// both sides carry is compared by content — for nginx.conf and nats.conf by
// the settings read from it, the flag naming the file then being dropped;
// a config file on one side only (nats-server -c nats.conf against
// nats-server -js -sd /tmp/nats) is compared through its settings against
// the other side's flags; when one side has the content and the other only
// the path, the flag is compared by the file's name (the returned keys) and
// res.Note says so. keys is the union of both sides' keys, in order.
func filePass(res *Result, cn, rn *Normalized, keys []string) map[string]bool {
	byName := map[string]bool{}
	dropSubs := func(n *Normalized, parent string) {
		for _, k := range append([]string(nil), n.Order...) {
			if s := n.Settings[k]; s != nil && s.Parent == parent {
				n.remove(k)
			}
		}
	}
	for _, k := range keys {
		c, r := cn.Settings[k], rn.Settings[k]
		if c != nil && c.Parent != "" || r != nil && r.Parent != "" {
			continue
		}
		switch {
		case c == nil && r == nil:
		case c == nil:
			if r.Expanded {
				rn.remove(k)
			}
		case r == nil:
			if c.Expanded {
				cn.remove(k)
			}
		case c.Expanded && r.Expanded:
			cn.remove(k)
			rn.remove(k)
		default:
			if c.Expanded {
				dropSubs(cn, k)
			}
			if r.Expanded {
				dropSubs(rn, k)
			}
			if c.Content == r.Content || c.File == "" || r.File == "" {
				continue // both by content, both by name, or a file against an inline value
			}
			if c.Content && strings.HasPrefix(r.Path, "/configs/") {
				// srt-slurm's own configs/ file (not InferenceX's): its
				// content is not known without the srt-slurm checkout, and
				// an unknown never counts as a match.
				r.Value = fmt.Sprintf("(content not known: srt-slurm's own %s; an srt-slurm checkout supplies it)", r.Path)
				r.Literal, r.Unknown = true, true
				continue
			}
			byName[k] = true
			side, p := "recipe", r.Path
			if !c.Content {
				side, p = "cookbook", c.Path
			}
			note := fmt.Sprintf("%s compared by file name (%s): the %s gives only the path %s, not the file's content", k, r.File, side, p)
			if c.File != r.File {
				note = fmt.Sprintf("%s compared by file name (%s vs %s): the %s gives only the path %s, not the file's content", k, c.File, r.File, side, p)
			}
			if res.Note != "" {
				res.Note += "; "
			}
			res.Note += note
		}
	}
	return byName
}

// unusedService judges the differences of a service both sides run when
// the recipe's copy is one the launcher starts for every job
// (compare/launcher.yaml, e.g. srt-slurm's NATS) and nothing in the recipe
// rides on it: a setting the recipe did not ask for (absent there, or
// injected by the launcher) is then informational, under the launcher
// rule. A setting the recipe asked for (infra.nats_max_payload_mb → the
// nats.conf max_payload) keeps the service compared. Source: InferenceX
// Check 3(c) (harness plumbing is not required upstream) and
// shared/spec/srt-slurm.md §10b ("NATS only when something rides on it").
func unusedService(res *Result, lr *LauncherRules, rules *Rules, ex *exclusions.Set, cb, rc *launch.Deployment, rp *launch.Process) {
	if len(res.Differences) == 0 || !isService(rp.Kind) {
		return
	}
	r := lr.applies(res.Role, rp, rc)
	if r == nil || len(r.needsIn(rules, ex, []side{{"recipe", rc}}, rc, rp, res.Role)) > 0 {
		return
	}
	rn := rules.NormalizeProcess(rp, engineOf(rc, rp), hfOf(rc))
	var keep []Difference
	for _, d := range res.Differences {
		if s := rn.Settings[d.Setting]; d.InferenceX != nil && (s == nil || !allInjected(s.Origins)) {
			keep = append(keep, d)
			continue
		}
		res.Info = append(res.Info, Exclusion{Setting: d.Setting, Upstream: d.Upstream, InferenceX: d.InferenceX, Rule: r.ID,
			Class: exclusions.ClassJudgment, Reason: r.Reason, Policy: r.Policy, Origins: d.Origins})
	}
	if len(keep) == len(res.Differences) {
		return
	}
	res.Differences = keep
	v := Covered
	if len(res.Excluded)+len(res.Info) > 0 {
		v = CoveredWithExclusions
	}
	if len(keep) > 0 {
		v = Differs
	}
	if len(res.Prohibited) > 0 {
		v = Prohibited
	}
	res.Verdict = v
	if !strings.Contains(res.Note, r.ID) {
		note := fmt.Sprintf("%s: started by the launcher for every job and unused by the recipe (%s)", res.Role, r.ID)
		if res.Note != "" {
			note = res.Note + "; " + note
		}
		res.Note = note
	}
	sortDiffs(res)
}
