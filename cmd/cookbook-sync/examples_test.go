package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/shell"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
)

// example is one invocation of an Examples: section: the command line as
// written, the arguments after "cookbook-sync", whether it needs GitHub
// (a token, a URL to ask) and the file its stdout is redirected to.
type example struct {
	line, redirect string
	args           []string
	network        bool
}

// commandExamples walks every command of the tree and gives each one's
// examples (the lines that are not comments), by command path.
func commandExamples(t *testing.T) (map[string][]example, []*cobra.Command) {
	t.Helper()
	out := map[string][]example{}
	var cmds []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		cmds = append(cmds, c)
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			e := example{line: line}
			words := line
			if rest, ok := strings.CutPrefix(words, "GH_TOKEN=… "); ok {
				words, e.network = rest, true
			}
			if i := strings.Index(words, " > "); i >= 0 {
				words, e.redirect = words[:i], strings.TrimSpace(words[i+3:])
			}
			args, err := shell.Fields(words, nil)
			if err != nil || len(args) == 0 || args[0] != "cookbook-sync" {
				t.Errorf("%s: example %q: not a cookbook-sync command line (%v)", c.CommandPath(), line, err)
				continue
			}
			e.args = args[1:]
			if len(e.args) == 0 {
				t.Errorf("%s: example %q: no command", c.CommandPath(), line)
				continue
			}
			for _, a := range e.args {
				if strings.HasPrefix(a, "https://") {
					e.network = true
				}
			}
			// signoff reads an InferenceX git history (a clone beside the
			// checkout), which ../shared does not hold: not run here
			// (signoff.txtar runs it on a history it builds)
			if e.args[0] == "signoff" {
				e.network = true
			}
			// likewise a drift example on the user's own clones beside
			// the checkout (../InferenceX with its history): drift.txtar
			// runs one on a history it builds
			if e.args[0] == "drift" && strings.Contains(words, " ../InferenceX") {
				e.network = true
			}
			// every upstream command asks GitHub; pr does unless --offline
			if e.args[0] == "upstream" || e.args[0] == "pr" && !strings.Contains(words, " --offline") {
				e.network = true
			}
			out[c.CommandPath()] = append(out[c.CommandPath()], e)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
	return out, cmds
}

// TestEveryCommandHasExamples: every command's help has an Examples:
// section, and each example is a command line of that command (or, for a
// group, of one of its subcommands) whose flags parse.
func TestEveryCommandHasExamples(t *testing.T) {
	examples, cmds := commandExamples(t)
	if len(cmds) < 14 {
		t.Fatalf("only %d commands walked", len(cmds))
	}
	for _, c := range cmds {
		path := c.CommandPath()
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s: no Examples: section (cobra Example)", path)
			continue
		}
		if len(examples[path]) == 0 {
			t.Errorf("%s: Example holds only comments", path)
		}
		for _, e := range examples[path] {
			root := newRootCmd(io.Discard, io.Discard)
			root.InitDefaultVersionFlag() // (cobra adds --version when it runs)
			found, rest, err := root.Find(e.args)
			if err != nil {
				t.Errorf("%s: example %q: %v", path, e.line, err)
				continue
			}
			if fp := found.CommandPath(); fp != path && !strings.HasPrefix(fp, path+" ") {
				t.Errorf("%s: example %q runs %s", path, e.line, fp)
			}
			if err := found.ParseFlags(rest); err != nil {
				t.Errorf("%s: example %q: %v", path, e.line, err)
			}
		}
	}
}

// TestCorpusExamplesRun runs every example that needs no network on the
// trees of ../shared (in-process, from a temporary working directory where
// ../shared/… is the real corpus): each finishes with exit 0 or, for a
// coverage run that finds a gap, 1 — never bad usage. The runs over every
// source of the complete trees (coverage without --config-key on --infx,
// render --all) are the ones TestCorpusOutputsUnchanged makes; they are
// not run twice.
func TestCorpusExamplesRun(t *testing.T) {
	shared := testutil.Shared(t)
	examples, _ := commandExamples(t)
	// ../shared from the working directory is the corpus
	work := filepath.Join(t.TempDir(), "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, filepath.Join(filepath.Dir(work), "shared")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	seen := map[string]bool{}
	ran := 0
	for path, es := range examples {
		for _, e := range es {
			if e.network || seen[e.line] {
				continue
			}
			seen[e.line] = true
			joined := " " + strings.Join(e.args, " ") + " "
			if strings.HasPrefix(joined, " coverage --infx") && !strings.Contains(joined, " --config-key ") || strings.Contains(joined, " render --all ") {
				continue // TestCorpusOutputsUnchanged runs these
			}
			var out, errb bytes.Buffer
			code := run(e.args, &out, &errb)
			want := code == exitOK || code == exitGap && (e.args[0] == "coverage" || e.args[0] == "drift")
			if !want || out.Len() == 0 && e.redirect == "" && !strings.Contains(joined, " -o ") {
				t.Errorf("%s: example %q: exit %d, %d bytes on stdout, stderr:\n%s", path, e.line, code, out.Len(), errb.String())
			}
			ran++
		}
	}
	if ran < 15 {
		t.Errorf("only %d examples ran", ran)
	}
}
