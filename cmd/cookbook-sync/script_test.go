package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/batchgc"
	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary run as the command `cookbook-sync` in the
// scripts (testscript.Main puts a copy of it on their PATH): it calls
// run, the entry of main, and exits with its status.
//
// A child run of TestHostileCLI (this binary re-executed with
// hostileChildEnv set and its own empty $TMPDIR) runs the tests alone:
// testscript.Main would copy the binary into that $TMPDIR, and the child
// ends with os.Exit before the copy is removed.
func TestMain(m *testing.M) {
	batchgc.Tune(os.Getenv) // as the CLI runs (main)
	// no in-process test reads a report an earlier run stored (those that
	// test the cache give --cache-dir); a script's command (this binary
	// run as cookbook-sync) has the script's environment
	if os.Getenv(cacheEnv) == "" && filepath.Base(os.Args[0]) != "cookbook-sync" {
		_ = os.Setenv(cacheEnv, "off")
	}
	if os.Getenv(hostileChildEnv) != "" {
		os.Exit(m.Run())
	}
	testscript.Main(m, map[string]func(){
		"cookbook-sync": func() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// TestScript runs the CLI scripts testdata/script/*.txtar: every
// subcommand's happy path, bad usage and bad input, with exit statuses
// asserted by number (the exitcode command). The scripts see:
//
//	$DEMO    the embedded demo workspace (cmd/cookbook-sync/demo: inferencex/, sglang/)
//	$REPO    the module root (the packages' testdata fixtures)
//
// and the command
//
//	exitcode N PROGRAM [ARGS…]
//
// which runs PROGRAM like exec (its stdout and stderr are then checked with
// stdout / stderr) and fails unless it exits with status N. The scripts run
// without the caller's environment (no GH_TOKEN): nothing reaches the
// network; GitHub commands are run in their usage-error paths or against
// --api-url http://127.0.0.1:1/ (nothing listens there). They read nothing
// of ../shared: those are TestCorpusScript's.
func TestScript(t *testing.T) {
	runScripts(t, "testdata/script", "")
}

// TestCorpusScript runs testdata/script-shared/*.txtar, the CLI on the real
// upstream material of ../shared, which the scripts see as $SHARED
// (testutil.Shared: skipped under -short or when ../shared is absent).
func TestCorpusScript(t *testing.T) {
	runScripts(t, "testdata/script-shared", testutil.Shared(t))
}

// runScripts runs the scripts of dir with $DEMO, $REPO, $SHARED (shared,
// "" for none) and the exitcode command.
func runScripts(t *testing.T, dir, shared string) {
	t.Helper()
	demo, err := filepath.Abs("demo")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("DEMO", demo)
			env.Setenv("REPO", repo)
			env.Setenv("SHARED", shared)
			// each script its own empty cache, as a new user's
			env.Setenv("XDG_CACHE_HOME", filepath.Join(env.WorkDir, ".cache"))
			env.Setenv(cacheEnv, "") // (TestMain's "off" is for the in-process tests)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": cmdExitcode,
			"gitsubst": cmdGitSubst,
			"replace":  cmdReplace,
		},
	})
}

// cmdGitSubst is the script command `gitsubst GITDIR REV FILE PLACEHOLDER`:
// replace every PLACEHOLDER in FILE with the full commit id of REV in the
// repository GITDIR (a cookbook snippet's prov.sha pinned to a commit of
// a history the script built).
func cmdGitSubst(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: gitsubst GITDIR REV FILE PLACEHOLDER")
	}
	out, err := exec.Command("git", "-C", ts.MkAbs(args[0]), "rev-parse", args[1]).Output()
	if err != nil {
		ts.Fatalf("git rev-parse %s: %v", args[1], err)
	}
	file := ts.MkAbs(args[2])
	data, err := os.ReadFile(file)
	ts.Check(err)
	ts.Check(os.WriteFile(file, []byte(strings.ReplaceAll(string(data), args[3], strings.TrimSpace(string(out)))), 0o644))
}

// cmdReplace is the script command `replace FILE OLD NEW`: replace every
// OLD in FILE with NEW (a one-line change of a fixture), failing when FILE
// holds no OLD.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	file := ts.MkAbs(args[0])
	data, err := os.ReadFile(file)
	ts.Check(err)
	if !strings.Contains(string(data), args[1]) {
		ts.Fatalf("%s holds no %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(file, []byte(strings.ReplaceAll(string(data), args[1], args[2])), 0o644))
}

// cmdExitcode is the script command `exitcode N PROGRAM [ARGS…]`: run
// PROGRAM as exec does and fail unless its exit status is N.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exitcode (give the expected status instead)")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROGRAM [ARGS…]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil || want < 0 {
		ts.Fatalf("exitcode %q: want a status number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}
