package sandbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestConfigCommands: the caller's handler table answers its programs
// before the sandbox's own; ErrUnhandled passes a form on (to the text
// utilities, then the unknown-command rule); a name in the table is
// installed; Call.End ends the run successfully with Trace.End, and
// Call.Unsupported stops it at the command.
func TestConfigCommands(t *testing.T) {
	var seen []string
	cmds := map[string]Handler{
		"probe": func(_ context.Context, c *Call) error {
			seen = append(seen, strings.Join(c.Args, " ")+"@"+c.Pos.String()+"/"+string(rune(c.Use)))
			if len(c.Args) > 1 && c.Args[1] == "--fail" {
				return c.Unsupported("probe", "probe --fail is not modelled")
			}
			say(c.Stdout(), "42\n")
			return nil
		},
		"seq": func(context.Context, *Call) error { return ErrUnhandled }, // the text utility answers
		"submit": func(_ context.Context, c *Call) error {
			return c.End()
		},
	}
	src := "export JOB=a\nV=$(probe --value)\nS=$(seq 2 3 | tr '\\n' ,)\ncommand -v submit >/dev/null && I=yes\nsubmit --v \"$V\" --s \"$S\" --i \"$I\"\necho after > /tmp/after\n"
	run, err := runSrc("c.sh", src, Config{Commands: cmds})
	if err != nil {
		t.Fatal(err)
	}
	eqStrings(t, "probe calls", seen, []string{"probe --value@c.sh:2:5/v"})
	want := End{Argv: []string{"submit", "--v", "42", "--s", "2,3,", "--i", "yes"}, Dir: "/tmp", At: Pos{File: "c.sh", Line: 5, Col: 1}}
	if run.End == nil || strings.Join(run.End.Argv, " ") != strings.Join(want.Argv, " ") || run.End.Dir != want.Dir || run.End.At != want.At {
		t.Fatalf("end = %+v, want %+v", run.End, want)
	}
	if !strings.Contains(strings.Join(run.End.Env, " "), "JOB=a") {
		t.Errorf("end env = %v, want the exported JOB", run.End.Env)
	}
	if run.Exit != 0 || run.Stop != nil || len(run.Writes) != 0 {
		t.Errorf("exit %d, stop %v, writes %v: the run ends at submit, status 0", run.Exit, run.Stop, run.Writes)
	}

	run, err = runSrc("f.sh", "if probe --fail; then X=1; fi\nsubmit\n", Config{Commands: cmds})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop == nil || *run.Stop != (Unsupported{Pos: Pos{File: "f.sh", Line: 1, Col: 4}, Command: "probe", Msg: "probe --fail is not modelled"}) || run.End != nil {
		t.Errorf("stop = %+v, end = %+v", run.Stop, run.End)
	}
}

// TestOutcomeTypes: a bound that counts work is a *Limit of its kind, the
// wall-clock backstop a *TimeLimit (never a Limit), each wrapped in a
// *PosError at the command last reached, with the text callers print.
func TestOutcomeTypes(t *testing.T) {
	_, err := runSrc("loop.sh", "x=1\nwhile [[ $x ]]; do x=1; done\n", Config{Steps: 100})
	var lim *Limit
	var pe *PosError
	if !errors.As(err, &lim) || lim.Kind != LimitIterations || !errors.Is(err, ErrLimit) || errors.Is(err, ErrTimeLimit) || !errors.As(err, &pe) || pe.File != "loop.sh" || pe.Line != 2 {
		t.Fatalf("err = %#v, want a LimitIterations at loop.sh:2", err)
	}
	if got, want := err.Error(), "loop.sh:2:1: script exceeded its execution limit: more than 100 loop iterations (endless loop?)"; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
	_, err = runSrc("calls.sh", "f() { :; }\nwhile :; do f; done\n", Config{Steps: 100})
	if !errors.As(err, &lim) || lim.Kind != LimitSteps {
		t.Errorf("err = %v, want LimitSteps", err)
	}

	_, err = runSrc("slow.sh", "while :; do sleep 1; done\n", Config{Steps: 1 << 30, Timeout: 50 * time.Millisecond})
	var tl *TimeLimit
	if !errors.As(err, &tl) || tl.After != 50*time.Millisecond || !errors.Is(err, ErrTimeLimit) || errors.Is(err, ErrLimit) {
		t.Fatalf("err = %v, want a TimeLimit of 50ms", err)
	}
	if !strings.HasSuffix(err.Error(), "time limit — re-run: the script ran past the sandbox's wall-clock backstop (still running after 50ms)") {
		t.Errorf("error %q", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Script{Path: "x.sh", Src: []byte("while :; do sleep 1; done\n")}, Config{Steps: 1 << 30}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}
