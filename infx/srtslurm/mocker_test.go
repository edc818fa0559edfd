package srtslurm

import (
	"errors"
	"strings"
	"testing"
)

// TestMockerNotRendered: backend type mocker (srtctl's dynamo.mocker
// scheduler simulator) is an srtctl feature that is not rendered —
// ErrNotRendered with its name, not bad input.
func TestMockerNotRendered(t *testing.T) {
	r, err := Parse("mocker.yaml", []byte(`name: m
model: {path: m, container: c, precision: fp8}
resources: {gpu_type: h200, gpus_per_node: 8, agg_nodes: 1, agg_workers: 1}
frontend: {type: dynamo, enable_multiple_frontends: false}
backend:
  type: mocker
  speedup_ratio: 100
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Render("", Options{})
	if !errors.Is(err, ErrNotRendered) || !strings.Contains(err.Error(), "mocker.yaml:6:9: backend.type: backend type mocker is not rendered: srtctl starts the dynamo.mocker scheduler simulator") {
		t.Errorf("got %v", err)
	}
}
