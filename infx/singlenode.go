package infx

import (
	"errors"
	"fmt"
	"math/big"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// snCache holds what single-node points read from the checkout's harness,
// loaded once per Workspace.
type snCache struct {
	once      sync.Once
	dramCap   int
	mu        sync.Mutex
	launchers map[string][]launcherRef  // runner label → existing launchers
	scripts   sandbox.Cache             // prepared scripts shared by the points
	workflows map[string]cachedWorkflow // .github/workflows files by name
	slack     int                       // max-model-len slack (generate_sweep_configs.py)
	// runners is configs/runners.yaml; runnersErr why it could not be
	// read (bad input for every script point).
	runners    runnersFile
	runnersErr error
	// runs are launcher runs by their whole input (launcherRunKey): the
	// points of one multi-node row share their launcher's environment, so
	// its run is made once.
	runs map[string]cachedRun
	// runsOf lists runs' keys by the config key of the point that made
	// them (Workspace.Forget).
	runsOf map[string][]string
	// holeOff holds what launcherHoleRuns no longer tries (holeOffKeys,
	// prefixed by the use: renderScript's, holeUseSrtctl, holeUseSbatch):
	// a launcher whose run with holes looked at one in the launcher or the
	// workflow's launch step, or ended in an error, a stop or a bound (so
	// would the next point's, most likely: its try would cost a run more),
	// and a launcher and config key whose run looked at one past the
	// launcher (in the benchmark script). Their runner names run on their
	// own from then on: which point tried first changes the work, never an
	// outcome.
	holeOff map[string]bool
	// holeRuns counts launcherHoleRuns' tries (a launch step run with
	// holes for a launcher's two runner names), holeUsed those whose runs
	// gave the names' runs: what the tests read.
	holeRuns, holeUsed atomic.Int64
	// observe, when set, is told of each launcher run made (its runs key
	// and the run, kept or not): what the tests read.
	observe func(key string, c cachedRun)
}

type cachedRun struct {
	run *ScriptRun
	err error
}

func (ws *Workspace) snInit() {
	ws.sn.once.Do(func() {
		ws.sn.dramCap = ws.maxAgenticDRAMMiB()
		ws.sn.launchers = map[string][]launcherRef{}
		ws.sn.workflows = map[string]cachedWorkflow{}
		ws.sn.runs = map[string]cachedRun{}
		ws.sn.runsOf = map[string][]string{}
		ws.sn.slack = ws.readMaxModelLenSlack()
		ws.sn.runners, ws.sn.runnersErr = loadRunners(ws.Base)
	})
}

// existingLaunchers returns the launchers of a runner label that are in the
// checkout.
func (ws *Workspace) existingLaunchers(label string) []launcherRef {
	ws.snInit()
	ws.sn.mu.Lock()
	defer ws.sn.mu.Unlock()
	if ls, ok := ws.sn.launchers[label]; ok {
		return ls
	}
	var out []launcherRef
	for _, l := range ws.launchers(label) {
		if isFile(filepath.Join(ws.Base, filepath.FromSlash(l.rel))) {
			out = append(out, l)
		}
	}
	ws.sn.launchers[label] = out
	return out
}

// launchersOf lists the repository-relative launchers of a runner label
// that are in the checkout (Point.Launchers).
func (ws *Workspace) launchersOf(label string) []string {
	var out []string
	for _, l := range ws.existingLaunchers(label) {
		out = append(out, l.rel)
	}
	return out
}

// agenticDRAMGB is the KV-offload DRAM budget of an agentic row in decimal
// GB, as InferenceX's agentic_dram_offload_gb computes it: 0 unless
// kv-offloading is dram; else min(available-cpu-dram-mib, the generator's
// MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB cap) MiB × dram-utilization × (GPUs
// the server uses on a node / gpus-per-node), in bytes / 10⁹, rounded
// down. Single-node rows use TP×PP; disaggregated rows the prefill
// worker's per-node footprint. 0 when runners.yaml lacks the runner's
// hardware record. Source: InferenceX
// utils/matrix_logic/generate_sweep_configs.py agentic_dram_offload_gb,
// worker_gpus_per_node; configs/runners.yaml hardware.
func (ws *Workspace) agenticDRAMGB(e *Entry, r *Row) int {
	if r.Scenario != "agentic-coding" || r.KVOffloading != "dram" {
		return 0
	}
	ws.snInit()
	hw, ok := ws.sn.runners.hw[e.Runner]
	if !ok || hw.dramMiB <= 0 || hw.gpusPerNode <= 0 || r.DRAMUtilization <= 0 {
		return 0
	}
	avail := hw.dramMiB
	if ws.sn.dramCap > 0 && ws.sn.dramCap < avail {
		avail = ws.sn.dramCap
	}
	gpus := 0
	if r.Prefill != nil {
		per := max(r.Prefill.TP, 1) * max(r.Prefill.PP, 1)
		switch {
		case per > hw.gpusPerNode && per%hw.gpusPerNode == 0:
			gpus = hw.gpusPerNode
		case per <= hw.gpusPerNode && hw.gpusPerNode%per == 0:
			gpus = per
		default:
			return 0
		}
	} else {
		gpus = max(r.TP, 1) * max(r.PP, 1)
		if gpus > hw.gpusPerNode {
			return 0
		}
	}
	util, ok := new(big.Rat).SetString(strconv.FormatFloat(r.DRAMUtilization, 'f', -1, 64))
	if !ok {
		return 0
	}
	b := new(big.Rat).SetInt64(int64(avail) * 1024 * 1024)
	b.Mul(b, util)
	b.Mul(b, big.NewRat(int64(gpus), int64(hw.gpusPerNode)))
	b.Quo(b, big.NewRat(1_000_000_000, 1))
	q := new(big.Int).Quo(b.Num(), b.Denom())
	return int(q.Int64())
}

// runnerEnv is what the GitHub runner itself gives a step, besides the
// workflow's env: the workspace (the checkout), the runner name, and
// GITHUB_ENV/GITHUB_OUTPUT files (written into the sandbox's memory).
func (ws *Workspace) runnerEnv(runnerName string) []string {
	root, _ := filepath.Abs(ws.Root)
	return []string{
		"GITHUB_WORKSPACE=" + root, "GITHUB_ACTIONS=true", "CI=true", "RUNNER_NAME=" + runnerName,
		"GITHUB_ENV=/home/runner/_work/_temp/_runner_file_commands/set_env", "GITHUB_OUTPUT=/home/runner/_work/_temp/_runner_file_commands/set_output",
		"RUNNER_TEMP=/home/runner/_work/_temp", "USER=runner",
	}
}

// scriptOutcome is one launcher's run of a point.
type scriptOutcome struct {
	launcher launcherRef
	runner   string   // the runner name it ran for
	harness  *Harness // the workflow's env and launch step (nil: no workflow)
	run      *ScriptRun
	script   string               // the benchmark script it started (filesystem path), "" if none
	start    *sandbox.ScriptStart // its start
	err      error
	// group numbers the launcher and runner name: the outcomes of one
	// group are its runs under the answers to the facts it asks that
	// are not known (run.Choices).
	group int
}

// renderScript renders a single-node point as the workflow and runner run
// it: for each launcher the runner label can run, the launch step of
// .github/workflows/benchmark-tmpl.yml runs in the sandbox with the
// workflow's env for the point, runs runners/launch_*.sh, which picks and
// starts the benchmark script. The launchers must agree on the script
// (else StatusAmbiguous); a launcher that ends before starting one is
// noted. The processes are those of the first launcher and runner name
// that starts a script, run to its end; the ones after it are followed to
// their first server launch after they started a script (the script and
// that they launch are all that is read of them), so what they do past it
// — a limit, a choice point, a stop — does not reach the point. A
// launcher's two runner names (endsOf) run as one run with holes when it
// never looks at the name (runnerHoleOutcomes); else, and without holes
// (Options.noHoles), each on its own. Without launchers for the label (an
// excerpt checkout) the script found by the naming rule runs with
// ScriptEnv.
func (ws *Workspace) renderScript(p Point, opt Options) (procs []launch.Process, file string, notes []string, inherited []launch.EnvVar, err error) {
	facts, _ := shellutil.FactsFor(p.Runner)
	ws.snInit()
	if ws.sn.runnersErr != nil {
		// Which launcher runs the script cannot be known.
		return nil, "", nil, nil, ws.sn.runnersErr
	}
	if len(p.Launchers) == 0 {
		so := ScriptOptions{
			Env: ScriptEnv(p, opt.ScriptEnv), ReadRoots: []string{ws.Root},
			Timeout: opt.ScriptTimeout, Steps: opt.ScriptSteps, Facts: facts, Name: ws.rel(p.Script), Cache: &ws.sn.scripts, ctx: opt.ctx,
		}
		if lib := filepath.Join(ws.Base, "benchmarks", "benchmark_lib.sh"); isFile(lib) {
			so.Lib = lib
		}
		// Once per combination of answers to the facts the run asks that
		// are not known (scriptchoice.go).
		runs, err := enumerateChoices(func(choices []int) (*ScriptRun, error) {
			so.choose, so.choices, so.maxChoices = true, choices, scriptChoiceRuns
			return RunScript(p.Script, so)
		})
		var budget *choiceBudgetError
		if errors.As(err, &budget) {
			return nil, "", nil, nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s: %s", ws.rel(p.Script), budget), Pos: p.RefPos}
		}
		if err != nil {
			return nil, "", nil, nil, limitStatus(p, err)
		}
		outs := make([]scriptOutcome, len(runs))
		for i, run := range runs {
			outs[i] = scriptOutcome{run: run, script: p.Script}
		}
		procs, notes, err := ws.alternativeProcesses(p, outs, 0)
		switch {
		case ws.sn.runners.file == "":
			notes = append(notes, "the checkout has no configs/runners.yaml: the script is the one the launchers' common naming rule finds")
		case len(ws.sn.runners.labels[p.Runner]) == 0:
			notes = append(notes, fmt.Sprintf("runner label %s is not in %s: the script is the one the launchers' common naming rule finds", p.Runner, ws.rel(ws.sn.runners.file)))
		default:
			notes = append(notes, fmt.Sprintf("no launcher of runner label %s (runners/launch_*.sh) is in the checkout: the script is the one the launchers' common naming rule finds", p.Runner))
		}
		return procs, ws.rel(p.Script), notes, nil, err
	}
	var outs []scriptOutcome
	// A launcher may branch on its own runner name
	// (PORT_OFFSET=${RUNNER_NAME: -1}, node excludes, …): each launcher runs
	// for the first and the last runner name the label lists for it.
	group := 0
	// started: an earlier group started a benchmark script. The processes
	// are the first such group's (alternativeProcesses of ok[0].group);
	// of the groups after it only the script they start and whether they
	// get to a server launch are read, so their runs end at the first
	// server launch after a benchmark script started (ws.startedServer).
	started := false
	for _, l := range ws.existingLaunchers(p.Runner) {
		if got, ok := ws.runnerHoleOutcomes(p, l, endsOf(l.runners), facts, opt, started, group); ok {
			for _, o := range got {
				started = started || o.script != ""
			}
			outs = append(outs, got...)
			group += len(endsOf(l.runners))
			continue
		}
		for _, rn := range endsOf(l.runners) {
			// Once per combination of answers to the facts the run asks
			// that are not known (scriptchoice.go).
			var harness *Harness
			endAtServer := started
			runs, err := enumerateChoices(func(choices []int) (*ScriptRun, error) {
				run, h, err := ws.runLauncherWith(p, l, rn, facts, opt, true, choices, endAtServer)
				harness = h
				return run, err
			})
			var budget *choiceBudgetError
			if errors.As(err, &budget) {
				return nil, "", nil, nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s (runner %s): %s", l.rel, rn, budget), Pos: p.RefPos}
			}
			if err != nil {
				// The point's outcome is this error (the first in
				// order): the other runner names are not run.
				return nil, "", nil, nil, limitStatus(p, err)
			}
			for _, run := range runs {
				o := scriptOutcome{launcher: l, runner: rn, run: run, harness: harness, group: group}
				for i, s := range o.run.Scripts {
					if rel := ws.relTo(ws.Base, s.File); strings.HasPrefix(rel, "benchmarks/") {
						o.script, o.start = s.File, &o.run.Scripts[i]
						break
					}
				}
				outs = append(outs, o)
				started = started || o.script != ""
			}
			group++
		}
	}
	var ok []scriptOutcome

	refused := map[string][]string{} // reason → runner names
	var refusedOrder []string
	for _, o := range outs {
		switch {
		case o.err != nil:
			return nil, "", nil, nil, limitStatus(p, o.err)
		case o.script == "" && o.run.Stop != nil:
			// The launcher could not be followed: what it would run is
			// unknown, so the point is.
			return nil, "", nil, nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s (runner %s) could not be followed: %s", o.launcher.rel, o.runner, o.run.Stop), Pos: p.RefPos}
		case o.script == "":
			why := fmt.Sprintf("%s starts no benchmark script: %s", o.launcher.rel, endReason(o.run))
			if _, seen := refused[why]; !seen {
				refusedOrder = append(refusedOrder, why)
			}
			refused[why] = appendOnce(refused[why], o.runner)
		default:
			ok = append(ok, o)
		}
	}
	for _, why := range refusedOrder {
		notes = append(notes, fmt.Sprintf("%s (%s)", why, runnersText(refused[why])))
	}
	if len(ok) == 0 {
		return nil, "", nil, nil, &PointError{Status: StatusUnsupported, Note: strings.Join(notes, "; "), Pos: p.RefPos}
	}
	scripts := map[string]map[string][]string{} // script → launcher → runner names
	for _, o := range ok {
		s := ws.rel(o.script)
		if scripts[s] == nil {
			scripts[s] = map[string][]string{}
		}
		scripts[s][o.launcher.rel] = appendOnce(scripts[s][o.launcher.rel], o.runner)
	}
	for _, x := range ok {
		for _, y := range ok {
			if x.group == y.group && x.script != y.script {
				return nil, "", nil, nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s (runner %s) starts a different script by the answers to facts the sandbox does not know (%s): where %s, %s; where %s, %s",
					x.launcher.rel, x.runner, choiceSites([]*ScriptRun{x.run, y.run}), answersText(x.run.Choices), ws.rel(x.script), answersText(y.run.Choices), ws.rel(y.script)), Pos: p.RefPos}
			}
		}
	}
	if len(scripts) > 1 {
		var parts []string
		for s, byL := range scripts {
			var ls []string
			for l, rns := range byL {
				ls = append(ls, fmt.Sprintf("%s (%s)", l, runnersText(rns)))
			}
			sort.Strings(ls)
			verb := "runs"
			if len(ls) > 1 {
				verb = "run"
			}
			parts = append(parts, strings.Join(ls, ", ")+" "+verb+" "+s)
		}
		sort.Strings(parts)
		return nil, "", nil, nil, &PointError{Status: StatusAmbiguous, Note: "the runners of label " + p.Runner + " run different scripts: " + strings.Join(parts, "; "), Pos: p.RefPos}
	}
	for _, x := range ok {
		if x.run.Stop != nil && !launched(x.run) {
			// The same script, but this runner's run of it could not be
			// followed to its server launch: what it starts is unknown.
			return nil, "", nil, nil, &PointError{Status: StatusUnsupported, Note: fmt.Sprintf("%s (runner %s) runs %s, which could not be followed: %s", x.launcher.rel, x.runner, ws.rel(x.script), x.run.Stop), Pos: p.RefPos}
		}
	}
	o := ok[0]
	if o.start.Missing {
		return nil, "", nil, nil, &PointError{Status: StatusMissing, Note: fmt.Sprintf("%s runs %s (%s), which is not in the checkout", o.launcher.rel, ws.rel(o.script), o.start.At), Pos: p.RefPos}
	}
	scriptStart := o.start
	procs, cnotes, err := ws.alternativeProcesses(p, ok, o.group)
	if err == nil {
		inherited = inheritedEnv(o.harness, scriptStart)
	}
	if err != nil && scriptStart != nil {
		var pe *PointError
		if errors.As(err, &pe) && o.run.Stop == nil && (scriptStart.ExitAt.Line > 0 || scriptStart.Exit != 0) {
			pe.Note = "no server launch: " + startEnd(scriptStart)
		}
	}
	if err != nil {
		return nil, "", nil, nil, err
	}
	var users []string
	seenL := map[string]bool{}
	for _, x := range ok {
		if !seenL[x.launcher.rel] {
			seenL[x.launcher.rel] = true
			users = append(users, x.launcher.rel)
		}
	}
	notes = append([]string{fmt.Sprintf("script chosen by %s for runner label %s", strings.Join(users, ", "), p.Runner)}, notes...)
	notes = append(notes, cnotes...)
	if note, ok := ws.citedScriptNote(p, ws.rel(o.script)); ok {
		notes = append(notes, note)
	}
	return procs, ws.rel(o.script), notes, inherited, nil
}

// citedScriptNote is the note of a single-node point rendered through
// its launchers that cites a script (Point.Script: the AgentX part's
// point, which names the script the snippet cites) when the launchers run
// another one, file (repository-relative); ok is false when p cites none
// or the one they run. It is renderScript's last note, and the only part
// of a launcher point's rendering the cited script changes
// (Workspace.Render renders such a point without it and adds the note).
func (ws *Workspace) citedScriptNote(p Point, file string) (note string, ok bool) {
	if p.Script == "" || ws.rel(p.Script) == file {
		return "", false
	}
	return fmt.Sprintf("the launchers run %s, not the cited %s", file, ws.rel(p.Script)), true
}

// alternativeProcesses renders the server processes of one launcher and
// runner name (group) from its outcomes in ok, one per combination of
// answers to the facts its run asks that are not known (scriptchoice.go):
// an answer under which the script stops before its server is dropped
// with a note (all dropped: the first one's error), the others merged
// (mergeAlternatives). notes describe the choice points, the dropped
// answers and the image patches.
func (ws *Workspace) alternativeProcesses(p Point, ok []scriptOutcome, group int) (procs []launch.Process, notes []string, err error) {
	var alts []altProcs
	var dropped []string
	var firstErr error
	for _, x := range ok {
		if x.group != group {
			continue
		}
		var launcherStart *sandbox.ScriptStart
		for i := range x.run.Scripts {
			if ws.rel(x.run.Scripts[i].File) == x.launcher.rel {
				launcherStart = &x.run.Scripts[i]
				break
			}
		}
		ps, err := ws.scriptRunProcesses(p, x.run, x.script, launcherStart, x.start)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			if failedBeforeServer(x.run, x.start) {
				dropped = append(dropped, droppedNote(x.run, x.start))
				continue
			}
			return nil, nil, err
		}
		alts = append(alts, altProcs{run: x.run, procs: ps})
	}
	if len(alts) == 0 {
		return nil, nil, firstErr
	}
	if len(alts) == 1 && len(alts[0].run.Choices) == 0 {
		return alts[0].procs, unfollowedNotes(alts), nil
	}
	procs, same, err := mergeAlternatives(alts)
	if err != nil {
		return nil, nil, &PointError{Status: StatusUnsupported, Note: err.Error(), Pos: p.RefPos}
	}
	notes = append(choiceNotes(alts, same), dropped...)
	return procs, notes, nil
}

// limitStatus turns a run that hit the sandbox's step or time bound into
// an unsupported point (a loop that waits on something the sandbox does not
// model, such as a server coming up, never ends here), with the position
// where it was stopped; other errors (bad input) are returned as they are.
func limitStatus(p Point, err error) error {
	if errors.Is(err, ErrScriptTimeLimit) {
		return &PointError{Status: StatusTimeLimit, Note: err.Error(), Pos: p.RefPos, Err: err}
	}
	if errors.Is(err, ErrScriptLimit) {
		return &PointError{Status: StatusUnsupported, Note: "the run did not end within the sandbox's bounds: " + err.Error(), Pos: p.RefPos, Err: err}
	}
	return err
}

// endReason says why a run started no benchmark script or server.
func endReason(run *ScriptRun) string {
	switch {
	case run.Stop != nil:
		return run.Stop.String()
	case run.ExitAt.Line > 0:
		msg := fmt.Sprintf("%s: exit %d", run.ExitAt, run.Exit)
		if run.ExitMsg != "" {
			msg += " (last output: " + strconv.Quote(run.ExitMsg) + ")"
		}
		return msg
	case run.Exit != 0:
		msg := fmt.Sprintf("exit status %d", run.Exit)
		if run.ExitMsg != "" {
			msg += " (last output: " + strconv.Quote(run.ExitMsg) + ")"
		}
		return msg
	}
	return "it ran to its end"
}

// inheritedEnv is the workflow env (h, nil when the checkout has no
// workflow) the benchmark script started with
// (Harness.Env, with the workflow file:line as origin), less what the
// launcher took away (docker run passes only -e) or changed (then the
// launcher's value is in the process env).
func inheritedEnv(h *Harness, start *sandbox.ScriptStart) []launch.EnvVar {
	if h == nil {
		return nil
	}
	drop := map[string]bool{}
	if start != nil {
		for _, k := range start.Unset {
			drop[k] = true
		}
		for _, kv := range start.Env {
			k, _, _ := strings.Cut(kv, "=")
			drop[k] = true
		}
	}
	var out []launch.EnvVar
	seen := map[string]int{}
	for _, e := range h.Env {
		if drop[e.Name] {
			continue
		}
		ev := launch.EnvVar{Name: e.Name, Value: e.Value, Origin: launch.Origin{Kind: launch.OriginWorkflow, Path: fmt.Sprintf("%s:%d", e.Pos.File, e.Pos.Line)}}
		if i, dup := seen[e.Name]; dup {
			out[i] = ev // a step env overrides the job env
			continue
		}
		seen[e.Name] = len(out)
		out = append(out, ev)
	}
	return out
}

// relTo gives p relative to dir (both made absolute), with forward
// slashes; p itself when it is outside dir.
func (ws *Workspace) relTo(dir, p string) string {
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(p)
	if err1 == nil && err2 == nil {
		if r, err := filepath.Rel(ad, ap); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
	}
	return p
}

// launched reports whether a run recorded a server launch.
func launched(run *ScriptRun) bool {
	for _, c := range run.Commands {
		if isServerLaunch(c.Argv) {
			return true
		}
	}
	return false
}

// appendOnce appends s to xs unless xs holds it: a runner name is listed
// once however many of its outcomes (choice points' answers) say so.
func appendOnce(xs []string, s string) []string {
	if slices.Contains(xs, s) {
		return xs
	}
	return append(xs, s)
}

// endsOf is the first and the last of a list (one when they are the same).
func endsOf(xs []string) []string {
	if len(xs) <= 1 {
		return xs
	}
	return []string{xs[0], xs[len(xs)-1]}
}

// runnersText lists runner names, shortened past four.
func runnersText(rns []string) string {
	if len(rns) == 1 {
		return "runner " + rns[0]
	}
	if len(rns) <= 4 {
		return "runners " + strings.Join(rns, ", ")
	}
	return fmt.Sprintf("runners %s, … %s (%d)", strings.Join(rns[:3], ", "), rns[len(rns)-1], len(rns))
}

// startEnd says how a started script ended.
func startEnd(s *sandbox.ScriptStart) string {
	msg := ""
	if s.ExitAt.Line > 0 {
		msg = fmt.Sprintf("%s: exit %d", s.ExitAt, s.Exit)
	} else {
		msg = fmt.Sprintf("the script ended with status %d", s.Exit)
	}
	if s.ExitMsg != "" {
		msg += " (last output: " + strconv.Quote(s.ExitMsg) + ")"
	}
	return msg
}

// runLauncher runs the workflow's launch step for one launcher.
func (ws *Workspace) runLauncher(p Point, l launcherRef, runner string, facts shellutil.Facts, opt Options) (*ScriptRun, *Harness, error) {
	return ws.runLauncherWith(p, l, runner, facts, opt, false, nil, false)
}

// startedServer ends a launcher run (sandbox.Config.EndAt) at its first
// server launch (isServerLaunch: launched becomes true) once it started a
// benchmark script (a script under benchmarks/, the one renderScript
// reads as the script it starts).
func (ws *Workspace) startedServer(t *sandbox.Trace, c *sandbox.Command) bool {
	return isServerLaunch(c.Argv) && ws.startedScript(t)
}

// runLauncherWith is runLauncher; choose: with choice points
// (sandbox.Config.Choose) answered by choices (scriptchoice.go);
// endAtServer: the run ends at its first server launch after a benchmark
// script started (startedServer, sandbox.Config.EndAt).
func (ws *Workspace) runLauncherWith(p Point, l launcherRef, runner string, facts shellutil.Facts, opt Options, choose bool, choices []int, endAtServer bool) (*ScriptRun, *Harness, error) {
	in, err := ws.launchInput(p, l, runner, opt)
	if err != nil {
		return nil, nil, err
	}
	run, err := ws.runLaunch(p, l, in, facts, opt, choose, choices, endAtServer)
	return run, in.wf, err
}

// launchInput is what a launcher's run for one runner name starts from:
// the workflow's launch step (wf, nil when the checkout has none; h the
// step run, the launcher started directly without one) and its
// environment (runnerEnv, the step's env, Options.ScriptEnv).
type launchInput struct {
	runner string
	wf, h  *Harness
	env    []string
	// pairs, when set, says env holds holes: pairs[i] are world i's
	// hole, value pairs (strings.NewReplacer's; runnerHoleOutcomes).
	pairs [][]string
}

// launchInput is runLauncherWith's input for runner name runner. Errors:
// the workflow's (harness).
func (ws *Workspace) launchInput(p Point, l launcherRef, runner string, opt Options) (launchInput, error) {
	wf, err := ws.harnessOf(opt.harnesses, p, runner)
	if err != nil {
		return launchInput{}, err
	}
	h := wf
	if h == nil {
		// No workflow: start the launcher directly with the point's env.
		h = &Harness{Run: "bash ./" + l.rel + "\n", RunPos: Pos{File: l.rel}}
		for _, kv := range ScriptEnv(p, nil) {
			k, v, _ := strings.Cut(kv, "=")
			h.Env = append(h.Env, EnvVar{Name: k, Value: v})
		}
	}
	pairs := h.envPairs()
	env := append(make([]string, 0, 8+len(pairs)+len(opt.ScriptEnv)), ws.runnerEnv(runner)...)
	env = append(env, pairs...)
	env = append(env, opt.ScriptEnv...)
	return launchInput{runner: runner, wf: wf, h: h, env: env}, nil
}

// runLaunch runs the launch step of in (runLauncherWith): with holes
// (sandbox.Config.Holes and Worlds) when in.pairs is set
// (runnerHoleOutcomes).
func (ws *Workspace) runLaunch(p Point, l launcherRef, in launchInput, facts shellutil.Facts, opt Options, choose bool, choices []int, endAtServer bool) (*ScriptRun, error) {
	root, _ := filepath.Abs(ws.Root)
	h := in.h
	holes := len(in.pairs) > 0
	so := ScriptOptions{
		Env: in.env, ReadRoots: []string{root}, Timeout: opt.ScriptTimeout, Steps: opt.ScriptSteps,
		Facts: facts, Dir: root, Name: fmt.Sprintf("%s (launch step)", h.Workflow), Cache: &ws.sn.scripts, ctx: opt.ctx,
		choose: choose, choices: choices, maxChoices: scriptChoiceRuns, holes: holes,
	}
	var worlds []string // the key's: each world's pairs
	for _, ps := range in.pairs {
		so.worlds = append(so.worlds, strings.NewReplacer(ps...))
		worlds = append(worlds, strings.Join(ps, "\x02"))
	}
	var endHole atomic.Bool
	if endAtServer {
		so.endAt = ws.startedServer
		if holes {
			so.endAt = func(t *sandbox.Trace, c *sandbox.Command) bool {
				if !ws.startedScript(t) {
					return false // no benchmark script yet: never the end
				}
				for _, a := range c.Argv {
					if sandbox.HasHole(a) {
						// whether it is the server launch the run ends
						// at would be read from a hole: not this run's
						// to say
						endHole.Store(true)
						return false
					}
				}
				return isServerLaunch(c.Argv)
			}
		}
	}
	// A run is a function of its inputs (the sandbox fixes every host
	// value), so points with the same ones share it; the run is only read.
	key := strings.Join([]string{p.Runner, l.rel, in.runner, h.Workflow, h.Run, strings.Join(in.env, "\x00"),
		so.Timeout.String(), strconv.Itoa(so.Steps), fmt.Sprint(choose, choices, endAtServer), strings.Join(worlds, "\x03")}, "\x01")
	ws.sn.mu.Lock()
	c, ok := ws.sn.runs[key]
	ws.sn.mu.Unlock()
	if !ok {
		c.run, c.err = runScript(so.Name, []byte(h.Run), so)
		if c.err == nil && endHole.Load() {
			c.run, c.err = nil, errEndAtHole
		}
		if ws.sn.observe != nil {
			ws.sn.mu.Lock()
			ws.sn.observe(key, c)
			ws.sn.mu.Unlock()
		}
		if p.Kind != KindScript && !errors.Is(c.err, ErrScriptTimeLimit) && (opt.ctx == nil || opt.ctx.Err() == nil) {
			// a run the backstop or the caller stopped is no property
			// of its input: never cached. A single-node point's run is
			// not kept either: its environment holds the point's own
			// concurrency (ScriptEnv's CONC), so no other point's run
			// has its input, and its own point renders once (Render's
			// memo, a cited script included): kept, it was only memory.
			ws.sn.mu.Lock()
			if _, had := ws.sn.runs[key]; !had {
				ws.sn.runsOf[p.ConfigKey] = append(ws.sn.runsOf[p.ConfigKey], key)
			}
			ws.sn.runs[key] = c
			ws.sn.mu.Unlock()
		}
	}
	return c.run, c.err
}

// runnerHoleOutcomes is renderScript's outcomes of launcher l for its
// two runner names (endsOf), groups group and group+1, from one run with
// holes (issue 24; package sandbox holes.go) instead of one run per name:
// the names' launch steps differ only in variables whose values are the
// names' (RUNNER_NAME, and what the workflow makes of it), each of which
// runs as a hole; when the run never looks at a hole, each name's run is
// that run with its own values put back (sandbox.SubstituteHoles), and is
// the run that name would make. A launcher that reads its runner name
// (PORT_OFFSET=${RUNNER_NAME: -1}) looks at the hole: ok is false and the
// names run on their own, as does every run that errs, stops or hits a
// bound (their own runs give the error, the stop or the bound); the
// launcher (or, for a look past it, the launcher for the point's config
// key) is then not tried again (holeOff).
//
// endAtServer is renderScript's started for the launcher's first name.
// The second name's run is the first's kind: when the first runs to its
// end (no launcher before it started a script), so does the second,
// where on its own it would end at its first server launch after a
// script started. That run is the same as the ended one up to where it
// would end, and the script it starts, whether it launches, its choice
// points before the end and its stop before it are what renderScript
// reads of a later group; a choice point past the end only repeats the
// same script in another outcome.
func (ws *Workspace) runnerHoleOutcomes(p Point, l launcherRef, names []string, facts shellutil.Facts, opt Options, endAtServer bool, group int) ([]scriptOutcome, bool) {
	runs, wfs, ok := ws.launcherHoleRuns(p, l, names, facts, opt, "", true, endAtServer)
	if !ok {
		return nil, false
	}
	var outs []scriptOutcome
	for i, rn := range names {
		for _, run := range runs[i] {
			o := scriptOutcome{launcher: l, runner: rn, run: run, harness: wfs[i], group: group + i}
			for j, st := range o.run.Scripts {
				if rel := ws.relTo(ws.Base, st.File); strings.HasPrefix(rel, "benchmarks/") {
					o.script, o.start = st.File, &o.run.Scripts[j]
					break
				}
			}
			outs = append(outs, o)
		}
	}
	return outs, true
}

// launcherHoleRuns is launcher l's runs for its two runner names
// (endsOf), made from one run with holes (runnerHoleOutcomes, issue 24):
// runs[i] are name i's runs — under every answer to the facts it asks
// that are not known when choose (enumerateChoices), else its one run —
// each that run with name i's values put back (its own ScriptRun and
// Trace; what holds no hole is shared with the run with holes, only
// read), and wfs[i] its workflow step (nil without one). ok is false when
// the names' inputs differ in more than values a hole stands for, the
// run looked at a hole, erred, stopped or hit a bound (their own runs
// give the error, the stop or the bound: the caller runs each name), or
// the launcher is off for holes (holeOff, keys by use: use is "" for
// renderScript's, the names of the others' ways to a run); a run that
// could not be used turns the launcher off for the use (or, for a look
// past the launcher, the launcher for the point's config key).
// endAtServer: the run ends at its first server launch after a benchmark
// script started (runLaunch).
func (ws *Workspace) launcherHoleRuns(p Point, l launcherRef, names []string, facts shellutil.Facts, opt Options, use string, choose, endAtServer bool) (runs [2][]*ScriptRun, wfs [2]*Harness, ok bool) {
	if len(names) != 2 || opt.noHoles {
		return runs, wfs, false
	}
	offL, offK := ws.holeOffKeys(p, l)
	offL, offK = use+offL, use+offK
	ws.sn.mu.Lock()
	off := ws.sn.holeOff[offL] || ws.sn.holeOff[offK]
	ws.sn.mu.Unlock()
	if off {
		return runs, wfs, false
	}
	var ins [2]launchInput
	for i, rn := range names {
		in, err := ws.launchInput(p, l, rn, opt)
		if err != nil {
			return runs, wfs, false
		}
		ins[i] = in
	}
	a, b := ins[0], ins[1]
	if a.h.Run != b.h.Run || a.h.Workflow != b.h.Workflow || len(a.env) != len(b.env) {
		return runs, wfs, false
	}
	holed := slices.Clone(a.env)
	var pairs [2][]string            // hole, value
	holeOf := map[[2]string]string{} // the two values → their hole
	for i := range a.env {
		ka, va, _ := strings.Cut(a.env[i], "=")
		kb, vb, _ := strings.Cut(b.env[i], "=")
		if ka != kb {
			return runs, wfs, false
		}
		if va == vb {
			continue
		}
		if isModelDirVar(ka) || isModelRootVar(ka) || len(va) != len(vb) || !sandbox.HoleValue(va) || !sandbox.HoleValue(vb) {
			// a directory the sandbox reads by name, or values no one
			// hole stands for
			return runs, wfs, false
		}
		h, ok := holeOf[[2]string{va, vb}]
		if !ok {
			// (a variable set twice to the same values, RUNNER_NAME by
			// the runner and by the workflow, is one hole)
			if h, ok = sandbox.Hole(len(holeOf), len(va)); !ok {
				return runs, wfs, false
			}
			holeOf[[2]string{va, vb}] = h
			pairs[0] = append(pairs[0], h, va)
			pairs[1] = append(pairs[1], h, vb)
		}
		holed[i] = ka + "=" + h
	}
	if len(pairs[0]) == 0 {
		return runs, wfs, false // the same input: no hole to make (the names run as before)
	}
	hin := launchInput{wf: a.wf, h: a.h, env: holed, pairs: pairs[:]}
	ws.sn.holeRuns.Add(1)
	var hruns []*ScriptRun
	var err error
	if choose {
		hruns, err = enumerateChoices(func(choices []int) (*ScriptRun, error) {
			return ws.runLaunch(p, l, hin, facts, opt, true, choices, endAtServer)
		})
	} else {
		var run *ScriptRun
		if run, err = ws.runLaunch(p, l, hin, facts, opt, false, nil, endAtServer); err == nil {
			hruns = []*ScriptRun{run}
		}
	}
	if err != nil {
		key := offL
		var he *sandbox.HoleError
		if errors.As(err, &he) && path.Clean(he.At.File) != l.rel && !strings.HasSuffix(he.At.File, "(launch step)") {
			// a look past the launcher (the benchmark script, its
			// library): the launcher's other keys' scripts may not look
			key = offK
		}
		if opt.ctx == nil || opt.ctx.Err() == nil {
			ws.sn.mu.Lock()
			if ws.sn.holeOff == nil {
				ws.sn.holeOff = map[string]bool{}
			}
			ws.sn.holeOff[key] = true
			ws.sn.mu.Unlock()
		}
		return runs, wfs, false
	}
	for i := range names {
		r := strings.NewReplacer(pairs[i]...)
		for _, hr := range hruns {
			run, ok := sandbox.SubstituteHoles(hr, r)
			if !ok {
				return [2][]*ScriptRun{}, wfs, false
			}
			// its own ScriptRun and Trace: what holds no hole is shared
			// with the run with holes (the memo's), only read
			own := *run
			if run.Trace != nil {
				tr := *run.Trace
				own.Trace = &tr
			}
			runs[i] = append(runs[i], &own)
		}
		wfs[i] = ins[i].wf
	}
	ws.sn.holeUsed.Add(1)
	return runs, wfs, true
}

// The uses of launcherHoleRuns besides renderScript's (use ""), each
// with its own keys of holeOff: a launcher's way to a multi-node job —
// srtctl apply (Workspace.submission) or sbatch (renderBatch) — is
// another branch of it than its single-node one, which may look where
// they do not.
const (
	holeUseSrtctl = "srtctl\x00"
	holeUseSbatch = "sbatch\x00"
)

// holeOffKeys are runnerHoleOutcomes' keys of holeOff for launcher l and
// point p: the launcher's, and the launcher's with the point's config key
// (whose points the launcher starts one benchmark script for, as a rule).
func (ws *Workspace) holeOffKeys(p Point, l launcherRef) (launcherKey, keyKey string) {
	return l.rel, l.rel + "\x00" + p.ConfigKey
}

// errEndAtHole is the outcome of a run with holes that asked whether a
// command holding a hole is where it ends (runLaunch): its values' runs
// are run on their own.
var errEndAtHole = errors.New("the run's end would be read from a hole")

// startedScript reports whether a run has started a benchmark script
// (benchmarks/…).
func (ws *Workspace) startedScript(t *sandbox.Trace) bool {
	for _, s := range t.Scripts {
		if strings.HasPrefix(ws.relTo(ws.Base, s.File), "benchmarks/") {
			return true
		}
	}
	return false
}

// scriptRunProcesses turns a run's server launches into processes and
// attributes their env: variables the workflow already exported when the
// launcher started are harness input and left out; variables set by the
// time the benchmark script started come from the launcher; the rest from
// the script (or the library it sources) at the launch command.
func (ws *Workspace) scriptRunProcesses(p Point, run *ScriptRun, script string, launcherStart, scriptStart *sandbox.ScriptStart) ([]launch.Process, error) {
	procs, err := ScriptProcesses(run, ws.rel(script))
	if err != nil {
		if run.Stop != nil || run.ExitAt.Line > 0 || run.Exit != 0 {
			return nil, &PointError{Status: StatusUnsupported, Note: "no server launch: " + endReason(run), Pos: p.RefPos}
		}
		return nil, &PointError{Status: StatusUnsupported, Note: err.Error(), Pos: p.RefPos}
	}
	wf := map[string]string{}
	if launcherStart != nil {
		for _, kv := range launcherStart.Env {
			k, v, _ := strings.Cut(kv, "=")
			wf[k] = v
		}
	}
	fromLauncher := map[string]string{}
	if scriptStart != nil {
		for _, kv := range scriptStart.Env {
			k, v, _ := strings.Cut(kv, "=")
			fromLauncher[k] = v
		}
	}
	launcherRel := ""
	if launcherStart != nil {
		launcherRel = ws.rel(launcherStart.File)
	}
	for i := range procs {
		var env []launch.EnvVar
		for _, e := range procs[i].Env {
			if v, ok := wf[e.Name]; ok && v == e.Value {
				continue
			}
			if v, ok := fromLauncher[e.Name]; ok && v == e.Value && launcherRel != "" {
				e.Origin = launch.Origin{Kind: launch.OriginLauncher, Path: launcherRel}
			}
			env = append(env, e)
		}
		procs[i].Env = env
	}
	if run.Stop != nil {
		// The launch was recorded before the run stopped.
		for i := range procs {
			procs[i].Origin.Detail = "run stopped after the launch at " + run.Stop.String()
		}
	}
	return procs, nil
}

// PointError is a point that cannot be rendered, with its status (missing,
// unsupported, ambiguous, out of scope, upstream-only) and the reason, at
// the position of its master-config row or recipe reference. errors.Is(err,
// ErrNotRenderable) holds.
type PointError struct {
	Status Status
	Note   string
	Pos    Pos
	// Err is the underlying error, if any (e.g. ErrScriptLimit).
	Err error
}

// Unwrap returns the underlying error.
func (e *PointError) Unwrap() error { return e.Err }

// Error gives "file:line:col: status: note" (the position of the point's
// master-config row or recipe reference).
func (e *PointError) Error() string {
	where := ""
	if e.Pos.File != "" {
		where = e.Pos.String() + ": "
	}
	return fmt.Sprintf("%s%s: %s", where, e.Status, e.Note)
}

// Is makes errors.Is(err, ErrNotRenderable) hold.
func (e *PointError) Is(target error) bool { return target == ErrNotRenderable }
