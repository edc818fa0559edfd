// cookbook-sync patch (issue 24): holes.

package interp

import (
	"strings"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
)

// InspectHoles sets the function called when the run looks at the content
// of a string holding a hole (expand.HasHole): expand.Config.Inspect for
// every expansion, and here a command name, a builtin's operand that is
// not only copied (holeBuiltin), a test other than -n, -z and a string's
// truth, a case word, a redirection's file or descriptor, a declared or
// read name, an associative key, an xtrace line. What a run that never
// calls inspect computes is the same for every value a hole stands for
// that is not empty and holds no whitespace, glob, quote or backslash
// character: the embedder replaces the holes in it by those values
// (infx/sandbox Config.Holes). cookbook-sync patch (see ../PATCHES.md).
func InspectHoles(inspect func(what string)) RunnerOption {
	return func(r *Runner) error {
		r.inspectHole = inspect
		return nil
	}
}

// HoleWorlds sets expand.Config.Worlds for every expansion: the values a
// string holding holes has, one per world, with which a pattern removal
// whose result is the same in every world is not a look (InspectHoles);
// and a file test (-e, -f, -d, -r …) of a path holding a hole is not one
// here: the stat and access handlers, given the path, decide it.
// cookbook-sync patch (see ../PATCHES.md).
func HoleWorlds(worlds func(s string) []string) RunnerOption {
	return func(r *Runner) error {
		r.holeWorlds = worlds
		return nil
	}
}

// holeVar calls the hole inspector with what when vr's value, an
// element or a key holds a hole.
func (r *Runner) holeVar(what string, vr expand.Variable) {
	if r.inspectHole == nil {
		return
	}
	r.holeIn(what, vr.Str)
	for _, v := range vr.List {
		r.holeIn(what, v)
	}
	for k, v := range vr.Map {
		r.holeIn(what, k)
		r.holeIn(what, v)
	}
}

// holeIn calls the hole inspector with what when s holds a hole.
func (r *Runner) holeIn(what, s string) {
	if r.inspectHole != nil && expand.HasHole(s) {
		r.inspectHole(what)
	}
}

// holeBuiltin applies the hole rule to a builtin's arguments (args[0] the
// name): echo without -e, printf (its format and verbs are expand.Format's
// to look at), :, true, false, test and [ (bashTest looks at what it
// compares), source and . (the file's path looked at, its arguments
// copied), set (what follows the options copied into the positional
// parameters) only copy their operands; exec, command and builtin look at
// the name of what they run, whose own rule applies to its arguments;
// every other builtin looks at them (a number, a path, a name, text to
// run).
func (r *Runner) holeBuiltin(args []string) {
	if r.inspectHole == nil {
		return
	}
	switch args[0] {
	case "getopts":
		// the options it parses are the positional parameters (or its
		// own arguments), its place OPTIND, a number
		for _, a := range r.Params {
			r.holeIn("getopts", a)
		}
		r.holeIn("getopts", r.envGet("OPTIND"))
	case "pwd":
		// -P resolves the directory's links
		r.holeIn("pwd", r.envGet("PWD"))
	}
	any := false
	for _, a := range args {
		if expand.HasHole(a) {
			any = true
			break
		}
	}
	if !any {
		return
	}
	name := args[0]
	switch name {
	case ":", "true", "false", "test", "[":
		return
	case "echo":
		for _, a := range args[1:] {
			if len(a) >= 2 && a[0] == '-' && expand.HasHole(a) {
				// whether it is an option word ("-ne") is read from
				// its letters (eighteenth patch)
				r.inspectHole("echo's options")
				return
			}
			if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
				break // the first operand: options end
			}
			if strings.Contains(a, "e") {
				r.inspectHole("echo -e")
				return
			}
		}
		return
	case "printf":
		if len(args) > 2 && args[1] == "-v" {
			r.holeIn("printf -v", args[2])
		}
		return
	case "source", ".":
		if len(args) > 1 {
			r.holeIn(name, args[1])
		}
		return
	case "exec", "command", "builtin":
		// `exec CMD …` runs CMD: its name is looked at, its arguments
		// are CMD's (a builtin's rule, or the embedder's for a program)
		if len(args) < 2 || strings.HasPrefix(args[1], "-") {
			r.inspectHole(name)
			return
		}
		r.holeIn("a command name", args[1])
		if name == "builtin" || IsBuiltin(args[1]) && name != "exec" {
			r.holeBuiltin(args[1:])
		}
		return
	case "set":
		if what := holeSetArgs(args); what != "" {
			r.inspectHole(what)
		}
		return
	}
	r.inspectHole(name)
}

// holeSetArgs says how `set` (args[0]) looks at a hole in its options (an
// option, the option name after -o or +o), "" when a hole is only in the
// positional parameters it copies (after the options, or after --).
func holeSetArgs(args []string) string {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "" || a[0] != '-' && a[0] != '+' {
			return "" // the positional parameters: copied
		}
		if expand.HasHole(a) {
			return "set " + a
		}
		// -o NAME, +o NAME, -eo NAME, -oo NAME NAME: a name set looks up
		// for each o
		for range strings.Count(a[1:], "o") {
			if i+1 >= len(args) {
				break
			}
			i++
			if expand.HasHole(args[i]) {
				return "set -o"
			}
		}
	}
	return ""
}

// HoleSetArgs is holeSetArgs for the embedder's own handling of set
// (cookbook-sync patch).
func HoleSetArgs(args []string) string { return holeSetArgs(args) }
