package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Errors that name something unknown — a command, a flag, a config key, a
// cell — also name the command that lists what is known, and the closest
// names when some are close (closestNames).

// maxClosest is how many close names an error offers.
const maxClosest = 3

// closestNames are at most n of names closest to want: those within an
// edit distance of a third of want's length (at least 2), or that hold
// want or are held by it (a prefix given, a suffix left off), nearest
// first (ties in name order).
func closestNames(want string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	limit := max(2, len(want)/3)
	lw := strings.ToLower(want)
	var cs []cand
	for _, name := range names {
		ln := strings.ToLower(name)
		if ln == lw {
			continue
		}
		d := editDistance(lw, ln)
		if d > limit && !(len(lw) >= 3 && (strings.Contains(ln, lw) || strings.Contains(lw, ln))) {
			continue
		}
		cs = append(cs, cand{name, d})
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, c := range cs {
		if len(out) == n {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// closestText is "; closest: a, b" for the names closest to want, "" when
// none is close.
func closestText(want string, names []string) string {
	if c := closestNames(want, names, maxClosest); len(c) > 0 {
		return "; closest: " + strings.Join(c, ", ")
	}
	return ""
}

// listKeysCommand is the command that lists the config keys of the
// InferenceX checkout infx: "cookbook-sync render --list --infx DIR".
func listKeysCommand(infx string) string {
	return "cookbook-sync render --list --infx " + shellWord(infx)
}

// unknownKeyError is the bad-usage error of a config key no master config
// of the checkout infx defines: it names the command that lists the keys
// and the closest ones.
func unknownKeyError(key, infx string, keys []string) error {
	return usageErr("unknown config key %q: %s lists them%s", key, listKeysCommand(infx), closestText(key, keys))
}

// flagErrorHint is the root's cobra FlagErrorFunc (inherited by every
// subcommand): a flag error names the command whose help lists the flags,
// and the closest flag of an unknown one.
func flagErrorHint(c *cobra.Command, err error) error {
	msg := err.Error()
	near := ""
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if cs := closestNames(name, names, maxClosest); len(cs) > 0 {
			near = " (did you mean --" + strings.Join(cs, ", --") + "?)"
		}
	}
	return fmt.Errorf("%w%s: %s --help lists the flags", err, near, c.CommandPath())
}

// commandHint adds to cobra's "unknown command" error (a root or group
// command given an unknown subcommand, a command that takes no argument
// given one) what to run: the help that lists the commands (with the
// closest of an unknown one), or the command's usage. cobra's own
// suggestion block ("\n\nDid you mean this?…") is replaced by one line.
// Other errors come back unchanged.
func commandHint(c *cobra.Command, err error) error {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, "unknown command ")
	if !ok || c == nil {
		return err
	}
	first, _, _ := strings.Cut(msg, "\n")
	arg, qerr := strconv.QuotedPrefix(rest)
	if qerr == nil {
		arg, _ = strconv.Unquote(arg)
	}
	if !c.HasAvailableSubCommands() {
		return usageErr("%s: it takes no arguments (%s --help shows its usage)", first, c.CommandPath())
	}
	near := ""
	var names []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	if cs := closestNames(arg, names, maxClosest); len(cs) > 0 {
		near = " (did you mean " + strings.Join(cs, ", ") + "?)"
	}
	return usageErr("%s%s: %s --help lists the commands", first, near, c.CommandPath())
}

// groupCommand makes c, a command that only groups subcommands, print its
// help when run alone and refuse an unknown subcommand as bad usage (cobra
// would print the help and exit 0).
func groupCommand(c *cobra.Command) *cobra.Command {
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		return errors.New("unknown command " + strconv.Quote(args[0]) + " for " + strconv.Quote(cmd.CommandPath()))
	}
	return c
}
