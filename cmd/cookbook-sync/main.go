// Command cookbook-sync keeps InferenceX benchmark setups and their upstream
// documentation (the SGLang cookbook, vLLM recipes) in step, role by role.
//
// Exit codes (every subcommand):
//
//	0    success; for coverage: every compared role is covered
//	1    a gap was found (coverage: a role differs, is missing or prohibited)
//	2    bad usage or bad input (the message names file:line:col or the data path)
//	3    --deadline passed before the command finished (outputs are written
//	     atomically: a file is either replaced whole or not at all)
//	4    the output could not be written: stdout (a full disk, a closed
//	     pipe) or an output file (-o, --write); before 1 and 3, after 2
//	130  interrupted (SIGINT, Ctrl-C; or SIGTERM) before the command finished
//
// --deadline and an interrupt both cancel the command's context: a command
// that honours it returns early, with exit 3 or 130 and a message on stderr.
// One that does not is ended 2 s later (hardStopGrace) with the same status;
// a second Ctrl-C ends the process at once.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cookbook-sync/cookbook-sync/internal/batchgc"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/secrets"
)

// Exit codes, documented in the package comment and the README.
const (
	exitOK          = 0
	exitGap         = 1
	exitUsage       = 2
	exitDeadline    = 3
	exitInterrupted = 130 // 128 + SIGINT, as a shell reports a process ended by Ctrl-C
)

// hardStopGrace is how long a command whose context was cancelled (by
// --deadline or an interrupt) has to return before the process is ended
// with the same exit status: commands that honour their context clean up
// (temporary directories) and return within it; the others do not yet.
const hardStopGrace = 2 * time.Second

// exitError carries an exit code through cobra's RunE.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// errGap reports a finished run that found a gap (exit 1); the run's own
// report says what the gap is, so nothing more is printed.
var errGap = &exitError{code: exitGap, err: errors.New("gap found")}

// errDeadline is the cause of the context cancelled by --deadline.
var errDeadline = errors.New("--deadline passed")

func main() {
	// a batch run's collector stops the world: the process starts again
	// with GODEBUG=gcstoptheworld=1 unless GODEBUG names it (the error of
	// a restart that could not happen leaves the concurrent collector)
	_ = batchgc.RestartWithSTW()
	batchgc.Tune(os.Getenv) // a short batch run: see package batchgc
	// and under the resident-memory budget (unless GOMEMLIMIT is set)
	stop := batchgc.FollowBudget(os.Getenv, batchgc.RSSBudget)
	code := runExit(os.Args[1:], os.Stdout, os.Stderr, os.Exit)
	stop()
	os.Exit(code)
}

// run executes the CLI with args and returns the exit code. A --deadline
// that passes, or an interrupt, the command does not honour ends the
// process (os.Exit(3), os.Exit(130)).
func run(args []string, stdout, stderr io.Writer) int {
	return runExit(args, stdout, stderr, os.Exit)
}

// runExit is run with the function that ends the process when the command
// does not return after --deadline or an interrupt (tests pass their own).
//
// The command runs under a context cancelled by SIGINT / SIGTERM and, with
// --deadline D, by a timeout of D (cause errDeadline). A command that
// returns after its context was cancelled exits 3 (deadline passed first)
// or 130 (interrupt) with a message on stderr, whatever its own result; one
// that does not return within hardStopGrace is ended with exit(3) /
// exit(130) and the same message.
func runExit(args []string, stdout, stderr io.Writer, exit func(int)) int {
	sigCtx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	// The deadline and interrupt messages are printed once, by whichever of
	// the command's return and the hard stop comes first.
	var (
		once     sync.Once
		finished = make(chan struct{})
	)
	stopWith := func(code int, msg string) int {
		once.Do(func() { printStderr(stderr, "cookbook-sync: "+msg) })
		return code
	}
	hardStop := func(code int, msg string) {
		select {
		case <-finished:
			return
		default:
		}
		exit(stopWith(code, msg))
	}
	const interruptMsg = "interrupted before the command finished (exit 130)"
	// On an interrupt: give the command hardStopGrace to return, and let a
	// second interrupt end the process at once (default signal behaviour).
	go func() {
		select {
		case <-sigCtx.Done():
		case <-finished:
			return
		}
		stopSignals()
		select {
		case <-time.After(hardStopGrace):
			hardStop(exitInterrupted, interruptMsg)
		case <-finished:
		}
	}()

	out := &checkedWriter{w: stdout}
	root := newRootCmd(out, stderr)
	var (
		deadline     time.Duration
		timer        *time.Timer
		deadlineCtx  context.Context
		stopDeadline context.CancelFunc = func() {}
	)
	root.PersistentFlags().DurationVar(&deadline, "deadline", 0, "end the command with exit 3 when it has not finished after this long (e.g. 10m; 0 = no deadline)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if deadline < 0 {
			return &exitError{code: exitUsage, err: fmt.Errorf("--deadline %s: want a positive duration (or 0)", deadline)}
		}
		if deadline > 0 {
			deadlineCtx, stopDeadline = context.WithTimeoutCause(cmd.Context(), deadline, errDeadline)
			cmd.SetContext(deadlineCtx)
			// The hard stop for commands that do not honour the context yet.
			timer = time.AfterFunc(deadline+hardStopGrace, func() {
				hardStop(exitDeadline, deadlineMsg(deadline))
			})
		}
		return nil
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(sigCtx)
	if err != nil {
		err = commandHint(cmd, err)
	}
	close(finished)
	if timer != nil {
		timer.Stop()
	}
	defer stopDeadline()
	// The command returned after its context was cancelled: whatever it made
	// of the cancellation (an error wrapping context.DeadlineExceeded or
	// context.Canceled, an "unknown" state that fails closed as a gap, or
	// nothing, when it does not look at its context) it did not finish in
	// time, as the hard stop would have said a moment later.
	code, msg := exitFor(err, out)
	switch {
	case code == exitWrite:
		// the output was lost: that outranks the deadline (the report is
		// incomplete either way) and a gap
	case deadlineCtx != nil && errors.Is(context.Cause(deadlineCtx), errDeadline):
		return stopWith(exitDeadline, deadlineMsg(deadline))
	case sigCtx.Err() != nil:
		return stopWith(exitInterrupted, interruptMsg)
	}
	if msg != nil {
		printError(stderr, msg)
	}
	return code
}

// deadlineMsg is the message of an exit 3.
func deadlineMsg(d time.Duration) string {
	return fmt.Sprintf("--deadline %s passed before the command finished", d)
}

// printError prints err on stderr with every terminal control character
// escaped (launch.EscapeControl): file names and values in messages come
// from checkouts written by strangers. It is the last line of defence behind
// the readers' own quoting (launch.QuotePath).
func printError(stderr io.Writer, err error) {
	printStderr(stderr, "cookbook-sync: "+launch.EscapeControl(secrets.Redact(err.Error())))
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "cookbook-sync",
		Example:       exampleRoot,
		Short:         "Check that InferenceX setups are documented upstream, role by role (Check 3)",
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version (cobra adds the flag when Version is set) prints the
		// module version and VCS revision the binary was built from.
		Version: buildVersion(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(flagErrorHint)
	root.SetOut(stdout)
	root.SetErr(stderr)
	for _, c := range subcommands() {
		root.AddCommand(c)
	}
	return root
}
