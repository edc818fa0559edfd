package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// TestExampleWorkflowsLint runs actionlint (as a library) on every workflow
// of examples/github-actions: syntax, expressions, the known actions'
// inputs, permissions, cron; and shellcheck on the run: scripts when the
// machine has it. The drift workflow must keep what the README promises:
// nightly and manual runs, the whole InferenceX history, the cache, the
// SARIF upload, the tracking issue and least-privilege permissions.
func TestExampleWorkflowsLint(t *testing.T) {
	dir := filepath.Join(testutil.ModuleRoot(), "examples", "github-actions")
	files, err := filepath.Glob(filepath.Join(dir, "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no workflow in %s (%v)", dir, err)
	}
	opts := &actionlint.LinterOptions{WorkingDir: dir, Oneline: true}
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		opts.Shellcheck = sc
	} else {
		t.Log("shellcheck is not installed: the run: scripts are not shell-checked")
	}
	for _, f := range files {
		var out bytes.Buffer
		l, err := actionlint.NewLinter(&out, opts)
		if err != nil {
			t.Fatal(err)
		}
		errs, err := l.LintFile(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range errs {
			t.Errorf("%s:%d:%d: %s [%s]", filepath.Base(f), e.Line, e.Column, e.Message, e.Kind)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "cookbook-drift.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"schedule:", "workflow_dispatch:", "fetch-depth: 0", "actions/cache@", "go install github.com/cookbook-sync/cookbook-sync/cmd/cookbook-sync@",
		"cookbook-sync drift", "--issue-repo", "--format sarif", "github/codeql-action/upload-sarif@", "permissions: {}", "issues: write", "security-events: write", "contents: read"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("cookbook-drift.yml has no %q", want)
		}
	}
}
