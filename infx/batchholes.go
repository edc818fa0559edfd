package infx

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
)

// This file runs the node tasks of AMD batch jobs with holes (issue 24,
// package sandbox holes.go). A point's launchers submit its job once per
// runner name they are run for (renderScript, endsOf); the submissions
// differ in the variables that carry the runner's name (RUNNER_NAME, the
// result file's name), and the job's tasks only pass those on. Each node
// task (batchTask) runs once with a hole in place of each such value;
// when the run never looks at a hole, every submission's task is that run
// with its own values put back (sandbox.SubstituteHoles), and its outcome
// is the one running it would give. A run that looks at a hole, hits a
// bound or is stopped is not used: each submission's task runs with its
// values, as before.

// holeTasks are the node tasks run with holes for one point's
// submissions (batchTask), by their input: they are what the other
// submissions' tasks are, and go with the point's rendering.
type holeTasks struct {
	mu sync.Mutex
	m  map[string]*holeTask
}

// holeTask is one node task run with holes: ok says the run is usable
// (run, and the steps the batch cluster recorded for stepOf).
type holeTask struct {
	ok    bool
	run   *ScriptRun
	steps []batchStep
}

// submissionHoles names the variables whose values differ between subs
// (in the order of the first's env): present in every submission, each
// value one a hole may stand for (sandbox.HoleValue, a hole of its
// length exists), not a variable the sandbox reads a directory from by
// name (isModelDirVar, isModelRootVar). Nil when there is one submission,
// none differ, or one that differs cannot be a hole (the tasks then run
// with their values, as their own).
func submissionHoles(subs []batchSubmission) []string {
	if len(subs) < 2 {
		return nil
	}
	vals := make([]map[string]string, len(subs))
	for i, s := range subs {
		vals[i] = map[string]string{}
		for _, kv := range s.env {
			k, v, _ := strings.Cut(kv, "=")
			vals[i][k] = v
		}
	}
	var names []string
	seen := map[string]bool{}
	for _, kv := range subs[0].env {
		k, _, _ := strings.Cut(kv, "=")
		if seen[k] {
			continue
		}
		seen[k] = true
		differs := false
		for i := range subs {
			if _, ok := vals[i][k]; !ok {
				if i > 0 {
					return nil // set in one, not in another
				}
			}
			if vals[i][k] != vals[0][k] {
				differs = true
			}
		}
		if !differs {
			continue
		}
		if isModelDirVar(k) || isModelRootVar(k) {
			return nil
		}
		for i := range subs {
			v := vals[i][k]
			if _, ok := sandbox.Hole(len(names), len(v)); !ok || !sandbox.HoleValue(v) {
				return nil
			}
		}
		names = append(names, k)
	}
	for i := 1; i < len(subs); i++ {
		if len(vals[i]) != len(vals[0]) {
			return nil // a variable set in one only
		}
	}
	return names
}

// batchTask runs one node task of a batch job (followBatch): rank's task
// under so, on a cluster of first.nodes nodes whose RDMA devices are rdma
// (hw the hardware whose facts the nodes answer). With first.holes it is
// the task run with holes, shared by the submissions whose task differs
// only in their values, with first's values put back; else, or when that
// run is not usable, the task run with first's values. It returns the
// run and the cluster that ran it (for stepOf).
func (ws *Workspace) batchTask(opt Options, first batchSubmission, so ScriptOptions, rank int, hw string, rdma []string) (*ScriptRun, *batchCluster, error) {
	concrete := func() (*ScriptRun, *batchCluster, error) {
		b := newBatchCluster(first.nodes, rank, rdma)
		so.commands = b.commands()
		run, err := runScript(first.script, nil, so)
		return run, b, err
	}
	if len(first.holes) == 0 || first.tasks == nil || opt.noHoles {
		return concrete()
	}
	holed := slices.Clone(so.Env)
	var pairs []string // hole, value
	for hi, name := range first.holes {
		seen := false
		for i, kv := range holed {
			k, v, _ := strings.Cut(kv, "=")
			if k != name {
				continue
			}
			if seen {
				// set twice (the job's own variables after --export's):
				// one hole would stand for two values
				return concrete()
			}
			seen = true
			h, ok := sandbox.Hole(hi, len(v))
			if !ok || !sandbox.HoleValue(v) {
				return concrete()
			}
			holed[i] = k + "=" + h
			pairs = append(pairs, h, v)
		}
	}
	key := partsKey(
		[]string{first.script, first.end.Dir, strconv.Itoa(first.nodes), strconv.Itoa(rank), hw, strings.Join(rdma, ","),
			so.Timeout.String(), strconv.Itoa(so.Steps), strconv.FormatBool(so.choose), strconv.Itoa(so.maxChoices)},
		first.args, holed, intStrings(so.choices))
	first.tasks.mu.Lock()
	defer first.tasks.mu.Unlock() // the point's submissions run one after another
	t, found := first.tasks.m[key]
	if !found {
		t = &holeTask{}
		hso := so
		hso.Env, hso.holes = holed, true
		b := newBatchCluster(first.nodes, rank, rdma)
		hso.commands = b.commands()
		run, err := runScript(first.script, nil, hso)
		ws.holeRuns.Add(1)
		if err == nil && (opt.ctx == nil || opt.ctx.Err() == nil) {
			t.ok, t.run, t.steps = true, run, b.steps
		}
		if first.tasks.m == nil {
			first.tasks.m = map[string]*holeTask{}
		}
		first.tasks.m[key] = t
	}
	if t.ok && !found {
		ws.holeUsed.Add(1)
	}
	if !t.ok {
		return concrete()
	}
	run, ok := sandbox.SubstituteHoles(t.run, strings.NewReplacer(pairs...))
	if !ok {
		return concrete()
	}
	// the run shares what holds no hole with the kept one: its own
	// ScriptRun and Trace, whose fields the caller sets (followBatch
	// copies what it changes below them)
	own := *run
	if run.Trace != nil {
		tr := *run.Trace
		own.Trace = &tr
	}
	run = &own
	b := newBatchCluster(first.nodes, rank, rdma)
	b.steps = slices.Clone(t.steps)
	return run, b, nil
}

// intStrings is ns in decimal.
func intStrings(ns []int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.Itoa(n)
	}
	return out
}
