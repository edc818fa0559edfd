// Package infx reads InferenceX: the master configs (configs/*-master.yaml in
// the old layout, inferencex-e2e/configs/*-master.yaml in the new one), turns
// every search-space row and concurrency into a Point, finds the srt-slurm
// recipe or single-node shell script each Point runs, and renders it into a
// launch.Deployment (package infx/srtslurm for recipes, an mvdan.cc/sh/v3
// interpreter sandbox for scripts: package infx/sandbox).
//
// The sandbox emulates a runner's shell generically; what is InferenceX's
// is here and given to it (scriptrun.go): the harness's and srt-slurm's
// programs as handlers (scriptCommands: a new helper program a launcher
// runs is one entry there), the server launches a script is read for, the
// benchmark library's stubs, the runners' documented device files, the
// model staging rule and srt-slurm's release tags. The GitHub workflow a
// runner runs (workflow.go, ghexpr.go: its env blocks and expressions) and
// the environment the runner gives a step (runnerEnv) are infx's too.
//
// Sources: SemiAnalysisAI/InferenceX utils/matrix_logic/validation.py (old
// layout) and infx/matrix/validation.py (new layout) for the master schema;
// runners/launch_*.sh for how recipes and scripts are located. See
// shared/spec/inferencex.md (a)–(c).
package infx

import (
	"errors"
	"fmt"

	"github.com/cookbook-sync/cookbook-sync/infx/sandbox"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"go.yaml.in/yaml/v3"
)

// PosError is an error at a position in an input file (Err is the message).
// Line and Col are 1-based; 0 means unknown.
type PosError = launch.InputError

// posErr builds a PosError at node n (nil n gives no position).
func posErr(file string, n *yaml.Node, format string, args ...any) error {
	e := &PosError{File: file, Err: fmt.Errorf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	return e
}

// Errors callers can test for with errors.Is.
var (
	// ErrUnknownKey: the config key is in no master config.
	ErrUnknownKey = errors.New("unknown config key")
	// ErrNotRenderable: the point's recipe or script is not in the checkout, or
	// its format is not one infx renders (see Point.Status).
	ErrNotRenderable = errors.New("point not renderable")
	// ErrScriptLimit: a script ran past a bound that counts work (steps,
	// loop iterations, bytes, nesting): the same on every machine. It is
	// sandbox.ErrLimit (a *sandbox.Limit says which bound).
	ErrScriptLimit = sandbox.ErrLimit
	// ErrScriptTimeLimit: a script ran past the wall-time backstop
	// (ScriptOptions.Timeout). It says nothing about the script (a loaded
	// machine may be the cause): the point is StatusTimeLimit, never
	// cached. It is sandbox.ErrTimeLimit (a *sandbox.TimeLimit).
	ErrScriptTimeLimit = sandbox.ErrTimeLimit
)
