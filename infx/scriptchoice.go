package infx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// This file renders a single-node point under every answer to the facts
// its scripts ask that the sandbox does not know but whose alternatives are
// documented (sandbox choice points: the MEC firmware, the space on
// /dev/shm, a condition on a file of the container image): the launch step
// runs once per combination of answers (enumerateChoices), an answer under
// which the script stops before its server is dropped with a note, and the
// server processes of the others are merged (mergeAlternatives): the same
// everywhere renders with a note; a setting that differs is rendered marked
// unknown (launch.EnvVar.Unknown, launch.Arg.Unknown: not verified); any
// other difference makes the point unsupported. One answer is never taken
// for the fact.

// scriptChoiceRuns bounds the runs of one launcher for one point: the
// combinations of answers explored. Past it the point is unsupported,
// naming the choice points. It counts runs, never time: the same on every
// machine.
const scriptChoiceRuns = 16

// choiceBudgetError is a launcher whose choice points need more runs than
// scriptChoiceRuns.
type choiceBudgetError struct {
	sites string
}

func (e *choiceBudgetError) Error() string {
	return fmt.Sprintf("the script asks for facts the sandbox does not know more often than the %d runs of every answer allow: %s", scriptChoiceRuns, e.sites)
}

// enumerateChoices runs run for every combination of answers of the
// choice points it reaches, depth first (a later choice point may depend
// on an earlier answer), in the lexicographic order of the answers: the
// first run takes answer 0 everywhere. It stops with a *choiceBudgetError
// past scriptChoiceRuns runs, or when a run reaches more choice points
// than that (its leaves alone are more). An error of run ends it.
func enumerateChoices(run func(choices []int) (*ScriptRun, error)) ([]*ScriptRun, error) {
	var runs []*ScriptRun
	stack := [][]int{nil}
	for len(stack) > 0 {
		prefix := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if len(runs) == scriptChoiceRuns {
			return nil, &choiceBudgetError{sites: choiceSites(runs)}
		}
		r, err := run(prefix)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
		if len(r.Choices) > scriptChoiceRuns {
			return nil, &choiceBudgetError{sites: choiceSites(runs)}
		}
		var kids [][]int
		for i := len(r.Choices) - 1; i >= len(prefix); i-- {
			for a := 1; a < len(r.Choices[i].Answers); a++ {
				kid := make([]int, i+1)
				for j := 0; j < i; j++ {
					kid[j] = r.Choices[j].Taken
				}
				kid[i] = a
				kids = append(kids, kid)
			}
		}
		for k := len(kids) - 1; k >= 0; k-- {
			stack = append(stack, kids[k])
		}
	}
	return runs, nil
}

// choiceSites names the distinct choice points of runs, in order of first
// appearance.
func choiceSites(runs []*ScriptRun) string {
	var out []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, c := range r.Choices {
			if s := c.String(); !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, "; ")
}

// answersText says which answers a run took ("the MEC firmware is below
// 177 (176)"; several joined by " and ").
func answersText(cs []sandbox.Choice) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Answer())
	}
	return strings.Join(out, " and ")
}

// altProcs is the server processes one combination of answers renders.
type altProcs struct {
	run   *ScriptRun
	procs []launch.Process
}

// failedBeforeServer reports whether a run, under answers it took, ends
// with a non-zero status before any server launch (an exit of the script
// or the launcher; not a stop of the sandbox).
func failedBeforeServer(run *ScriptRun, start *sandbox.ScriptStart) bool {
	if len(run.Choices) == 0 || run.Stop != nil || launched(run) {
		return false
	}
	return run.Exit != 0 || start != nil && (start.Exit != 0 || start.ExitAt.Line > 0)
}

// droppedNote is the note of an answer under which the script stops before
// its server.
func droppedNote(run *ScriptRun, start *sandbox.ScriptStart) string {
	where := ""
	switch {
	case start != nil && start.ExitAt.Line > 0:
		where = fmt.Sprintf("stops at %s (exit %d)", start.ExitAt, start.Exit)
	case start != nil && start.Exit != 0:
		where = fmt.Sprintf("ends with status %d", start.Exit)
	case run.ExitAt.Line > 0:
		where = fmt.Sprintf("stops at %s (exit %d)", run.ExitAt, run.Exit)
	default:
		where = fmt.Sprintf("ends with status %d", run.Exit)
	}
	return fmt.Sprintf("on a machine where %s, the script %s: no published result comes from it", answersText(run.Choices), where)
}

// choiceNotes describes the choice points of the kept alternatives and the
// image patches the script makes under them.
func choiceNotes(alts []altProcs, same bool) []string {
	var notes []string
	type site struct {
		c       sandbox.Choice
		answers []string
	}
	var sites []*site
	byKey := map[string]*site{}
	for _, a := range alts {
		for _, c := range a.run.Choices {
			k := c.String()
			s := byKey[k]
			if s == nil {
				s = &site{c: c}
				byKey[k] = s
				sites = append(sites, s)
			}
			if ans := c.Answer(); !containsStr(s.answers, ans) {
				s.answers = append(s.answers, ans)
			}
		}
	}
	for _, s := range sites {
		notes = append(notes, fmt.Sprintf("not known: %s — rendered under every answer that reaches a server (%s)", s.c, strings.Join(s.answers, "; ")))
	}
	if same && len(sites) > 0 {
		notes = append(notes, "the server command is the same under every answer")
	}
	// Image patches: by path and position, with the answers they are made
	// under when not all.
	type patch struct {
		e    sandbox.FileEdit
		when []string
	}
	var patches []*patch
	byP := map[string]*patch{}
	for _, a := range alts {
		for _, e := range a.run.Patches {
			k := e.Path + "\x00" + e.At.String()
			p := byP[k]
			if p == nil {
				p = &patch{e: e}
				byP[k] = p
				patches = append(patches, p)
			}
			p.when = append(p.when, answersText(a.run.Choices))
		}
	}
	for _, p := range patches {
		when := ""
		if len(p.when) < len(alts) {
			when = " when " + strings.Join(p.when, " or ")
		}
		notes = append(notes, fmt.Sprintf("the script patches the image's %s%s (%s at %s): an engine source patch, not compared by Check 3", p.e.Path, when, p.e.Program, p.e.At))
	}
	return append(notes, unfollowedNotes(alts)...)
}

// unfollowedNotes names the child scripts the runs went past without
// following them to their end (sandbox.Unfollowed), once each.
func unfollowedNotes(alts []altProcs) []string {
	var notes []string
	seen := map[string]bool{}
	for _, a := range alts {
		for _, u := range a.run.Unfollowed {
			if k := u.String(); !seen[k] {
				seen[k] = true
				notes = append(notes, fmt.Sprintf("%s; it cannot start a server (its text names every program it runs, none a server, a shell or a launcher) and nothing reads its status or output, so the script goes on as after status 0 — under set -e the one status that leads to the published result; every file read after it would be refused", k))
			}
		}
	}
	return notes
}

func containsStr(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// processShape is what must be equal between the alternatives for their
// processes to merge: everything but the flags and env vars.
func processShape(p launch.Process) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s|%s|%d|%d|%d|%d|%q|%q|%q", p.Kind, p.Role, p.Program, p.Image, p.Workers, p.NodesPerWorker, p.GPUsPerNode, p.Count, p.Ports, p.Preamble, p.Files)
	for _, f := range p.FileContents {
		fmt.Fprintf(&b, "|%s=%q", f.Path, f.Content)
	}
	for _, a := range p.Args {
		if a.Flag == "" {
			fmt.Fprintf(&b, "|pos %q", a.Values)
		}
	}
	return b.String()
}

// mergeAlternatives merges the server processes of the alternatives (at
// least one): they must have the same processes in the same order, with
// the same program, kind, role, counts, files and positional arguments
// (else an error naming the choice points); a flag or env var whose
// presence or value differs between them is kept from the first
// alternative that has it, marked Unknown with which answers set it how.
// same reports that nothing differed.
func mergeAlternatives(alts []altProcs) (procs []launch.Process, same bool, err error) {
	first := alts[0]
	for _, a := range alts[1:] {
		ok := len(a.procs) == len(first.procs)
		for i := 0; ok && i < len(a.procs); i++ {
			ok = processShape(a.procs[i]) == processShape(first.procs[i])
		}
		if !ok {
			return nil, false, fmt.Errorf("the server processes differ between the answers to facts the sandbox does not know (%s): where %s, %s; where %s, %s",
				choiceSites([]*ScriptRun{first.run, a.run}), answersText(first.run.Choices), procsText(first.procs), answersText(a.run.Choices), procsText(a.procs))
		}
	}
	same = true
	for i := range first.procs {
		p := first.procs[i]
		p.Env, p.Args = nil, nil
		differs := false
		// env vars by name, in order of first appearance
		var names []string
		env := make([]map[string]launch.EnvVar, len(alts))
		for k, a := range alts {
			env[k] = make(map[string]launch.EnvVar, len(a.procs[i].Env))
			for _, e := range a.procs[i].Env {
				if _, seen := env[k][e.Name]; !seen && !anyHas(env[:k], e.Name) {
					names = append(names, e.Name)
				}
				env[k][e.Name] = e
			}
		}
		for _, n := range names {
			var vals []string
			var have *launch.EnvVar
			for k := range alts {
				if e, ok := env[k][n]; ok {
					vals = append(vals, n+"="+e.Value)
					if have == nil {
						e := e
						have = &e
					}
				} else {
					vals = append(vals, "")
				}
			}
			e := *have
			if !allEqual(vals) {
				differs = true
				e.Unknown = differsText(n, vals, alts, "unset")
			}
			p.Env = append(p.Env, e)
		}
		// flags by name: every occurrence's values, in order
		var flags []string
		occ := make([]map[string][]launch.Arg, len(alts))
		for k, a := range alts {
			occ[k] = map[string][]launch.Arg{}
			for _, x := range a.procs[i].Args {
				if _, seen := occ[k][x.Flag]; !seen && !anyHasArg(occ[:k], x.Flag) {
					flags = append(flags, x.Flag)
				}
				occ[k][x.Flag] = append(occ[k][x.Flag], x)
			}
		}
		for _, f := range flags {
			var vals []string
			var have []launch.Arg
			for k := range alts {
				xs, ok := occ[k][f]
				if !ok {
					vals = append(vals, "")
					continue
				}
				var words []string
				for _, x := range xs {
					words = append(words, strings.TrimSpace(x.Flag+" "+strings.Join(x.Values, " ")))
				}
				vals = append(vals, strings.Join(words, " "))
				if have == nil {
					have = xs
				}
			}
			if f != "" && !allEqual(vals) {
				differs = true
				why := differsText(f, vals, alts, "absent")
				for j := range have {
					have[j].Unknown = why
				}
			}
			p.Args = append(p.Args, have...)
		}
		if !differs {
			// the same everywhere: as the first alternative has it
			p = first.procs[i]
		}
		same = same && !differs
		procs = append(procs, p)
	}
	return procs, same, nil
}

func anyHas(ms []map[string]launch.EnvVar, k string) bool {
	for _, m := range ms {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func anyHasArg(ms []map[string][]launch.Arg, k string) bool {
	for _, m := range ms {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func allEqual(xs []string) bool {
	for _, x := range xs[1:] {
		if x != xs[0] {
			return false
		}
	}
	return true
}

// differsText is the Unknown reason of a setting whose values (one per
// alternative, "" where it is missing) differ: "HSA_NO_SCRATCH_RECLAIM=1
// when …; unset when …: <the choice points>".
func differsText(name string, vals []string, alts []altProcs, missing string) string {
	var order []string
	when := map[string][]string{}
	for k, v := range vals {
		if _, ok := when[v]; !ok {
			order = append(order, v)
		}
		when[v] = append(when[v], answersText(alts[k].run.Choices))
	}
	var parts []string
	for _, v := range order {
		shown := v
		if v == "" {
			shown = missing
		}
		parts = append(parts, shown+" when "+strings.Join(when[v], " or "))
	}
	runs := make([]*ScriptRun, len(alts))
	for k, a := range alts {
		runs[k] = a.run
	}
	return fmt.Sprintf("%s — not known: %s", strings.Join(parts, "; "), choiceSites(runs))
}

// procsText names processes by program, for a message.
func procsText(ps []launch.Process) string {
	if len(ps) == 0 {
		return "no server"
	}
	var out []string
	for _, p := range ps {
		out = append(out, p.Program)
	}
	return strconv.Itoa(len(ps)) + " process(es): " + strings.Join(out, ", ")
}
