// Package infx reads InferenceX: the master configs (configs/*-master.yaml in
// the old layout, inferencex-e2e/configs/*-master.yaml in the new one), turns
// every search-space row and concurrency into a Point, finds the srt-slurm
// recipe or single-node shell script each Point runs, and renders it into a
// launch.Deployment (package infx/srtslurm for recipes, an mvdan.cc/sh/v3
// interpreter sandbox for scripts).
//
// Sources: SemiAnalysisAI/InferenceX utils/matrix_logic/validation.py (old
// layout) and infx/matrix/validation.py (new layout) for the master schema;
// runners/launch_*.sh for how recipes and scripts are located. See
// shared/spec/inferencex.md (a)–(c).
package infx

import (
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// PosError is an error at a position in an input file. Line and Col are
// 1-based; 0 means unknown (then only File is shown).
type PosError struct {
	File string
	Line int
	Col  int
	Err  error
}

// Error gives "file:line:col: message".
func (e *PosError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Col, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap returns the underlying error.
func (e *PosError) Unwrap() error { return e.Err }

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
	// ErrScriptLimit: a script ran past the step or time limit.
	ErrScriptLimit = errors.New("script exceeded its execution limit")
)
