// Command cookbook-sync keeps InferenceX benchmark setups and their upstream
// documentation (the SGLang cookbook, vLLM recipes) in step, role by role.
//
// Exit codes (every subcommand):
//
//	0  success; for coverage: every compared role is covered
//	1  a gap was found (coverage: a role differs, is missing or prohibited)
//	2  bad usage or bad input (the message names file:line:col or the data path)
//	3  --deadline passed before the command finished (outputs are written
//	   atomically: a file is either replaced whole or not at all)
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/secrets"
)

// Exit codes, documented in the package comment and the README.
const (
	exitOK       = 0
	exitGap      = 1
	exitUsage    = 2
	exitDeadline = 3
)

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

func main() {
	os.Exit(runExit(os.Args[1:], os.Stdout, os.Stderr, os.Exit))
}

// run executes the CLI with args and returns the exit code. A --deadline
// that passes ends the process (os.Exit(3)).
func run(args []string, stdout, stderr io.Writer) int {
	return runExit(args, stdout, stderr, os.Exit)
}

// runExit is run with the function that ends the process when --deadline
// passes (tests pass their own).
func runExit(args []string, stdout, stderr io.Writer, exit func(int)) int {
	root := newRootCmd(stdout, stderr)
	var deadline time.Duration
	var timer *time.Timer
	root.PersistentFlags().DurationVar(&deadline, "deadline", 0, "end the command with exit 3 when it has not finished after this long (e.g. 10m; 0 = no deadline)")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if deadline < 0 {
			return &exitError{code: exitUsage, err: fmt.Errorf("--deadline %s: want a positive duration (or 0)", deadline)}
		}
		if deadline > 0 {
			timer = time.AfterFunc(deadline, func() {
				fmt.Fprintf(stderr, "cookbook-sync: --deadline %s passed before the command finished\n", deadline)
				exit(exitDeadline)
			})
		}
		return nil
	}
	root.SetArgs(args)
	err := root.Execute()
	if timer != nil {
		timer.Stop()
	}
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee != errGap {
			printError(stderr, ee.err)
		}
		return ee.code
	}
	printError(stderr, err)
	return exitUsage
}

// printError prints err on stderr with every terminal control character
// escaped (launch.EscapeControl): file names and values in messages come
// from checkouts written by strangers. It is the last line of defence behind
// the readers' own quoting (launch.QuotePath).
func printError(stderr io.Writer, err error) {
	fmt.Fprintln(stderr, "cookbook-sync:", launch.EscapeControl(secrets.Redact(err.Error())))
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "cookbook-sync",
		Short:         "Check that InferenceX setups are documented upstream, role by role (Check 3)",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	for _, c := range subcommands() {
		root.AddCommand(c)
	}
	return root
}
