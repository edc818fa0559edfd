package sandbox

import (
	"fmt"

	"context"
	"mvdan.cc/sh/v3/syntax"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSourceParsedOnce: runs that share a Cache parse a sourced file once
// (one tree per name and text, handed to every run) and each still runs
// it in its own shell — its variables, its functions, its BASH_SOURCE; a
// changed file is parsed again.
func TestSourceParsedOnce(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.sh")
	write := func(text string) {
		if err := os.WriteFile(lib, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("LIB_TP=${TP:-1}\nLIB_FROM=${BASH_SOURCE[0]##*/}\nserve() { server --tp \"$LIB_TP\" --from \"$LIB_FROM\"; }\n")
	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte("source ./lib.sh\nserve\n. ./lib.sh\nserve\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := &Cache{}
	run := func(tp string) []string {
		t.Helper()
		tr, err := Run(context.Background(), Script{Path: script}, Config{Env: []string{"PATH=/usr/bin", "TP=" + tp}, Dir: dir, ReadRoots: []string{dir}, Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range tr.Commands {
			out = append(out, strings.Join(c.Argv, " "))
		}
		return out
	}
	for _, tp := range []string{"2", "8"} {
		got := run(tp)
		want := "server --tp " + tp + " --from lib.sh"
		if len(got) != 2 || got[0] != want || got[1] != want {
			t.Errorf("TP=%s: commands %q, want twice %q", tp, got, want)
		}
	}
	trees := func() int {
		n := 0
		for _, ps := range cache.sourced {
			n += len(ps.named)
		}
		return n
	}
	if n := trees(); n != 1 { // "./lib.sh" by source and by .: one name, one text
		t.Errorf("sourced trees after two runs: %d, want 1", n)
	}
	write("LIB_TP=16\nserve() { server --tp \"$LIB_TP\"; }\n")
	if got := run("2"); len(got) != 2 || got[0] != "server --tp 16" {
		t.Errorf("changed library: %q", got)
	}
	if n := trees(); n != 2 {
		t.Errorf("sourced trees after the library changed: %d, want 2", n)
	}
}

// TestSourcedTreeSharedByNames: a text sourced by two names is parsed
// once, each name getting its own BASH_SOURCE; and the tree a name gets
// has the statements, lines and columns of the parse of the bracketed
// text (withSource) itself.
func TestSourcedTreeSharedByNames(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lib.sh"), []byte("# a library\nserve() { server --from \"${BASH_SOURCE[0]}\" --depth ${#BASH_SOURCE[@]}; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(script, []byte("source ./lib.sh\nserve\nsource \"$PWD/sub/../lib.sh\"\nserve\necho \"${#BASH_SOURCE[@]}\" > /tmp/depth\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := &Cache{}
	tr, err := Run(context.Background(), Script{Path: script}, Config{Env: []string{"PATH=/usr/bin"}, Dir: dir, ReadRoots: []string{dir}, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range tr.Commands {
		got = append(got, strings.Join(c.Argv, " "))
	}
	// (serve runs after its source ended: BASH_SOURCE[0] is the script)
	want := []string{"server --from " + script + " --depth 1", "server --from " + script + " --depth 1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands %q, want %q", got, want)
	}
	if len(cache.sourced) != 1 {
		t.Fatalf("sourced texts %d, want 1", len(cache.sourced))
	}
	for _, ps := range cache.sourced {
		if len(ps.named) != 2 {
			t.Errorf("names of the text: %d, want 2", len(ps.named))
		}
	}
	for _, text := range []string{
		"# head\nA=1\n",
		"f() {\n  echo \"$1\"  # note\n}\ncat <<EOF\nx $A\nEOF\nB=$(echo y)\n",
		"if true; then\n\tX=1\nfi # end\n# trailing\n",
		"",
	} {
		for _, name := range []string{"lib.sh", "/abs/dir with space/lib.sh", "it's.sh", "two\nlines.sh"} {
			sb := &sandbox{cache: &Cache{}}
			shared, err := sb.parseSourced(name, readOnly{withSource(name, text)})
			if err != nil {
				t.Fatalf("%q as %s: %v", text, name, err)
			}
			whole, err := syntax.NewParser().Parse(withSource(name, text), name)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := nodesAt(shared), nodesAt(whole); a != b {
				t.Errorf("%q as %s:\nshared %s\nwhole  %s", text, name, a, b)
			}
		}
	}
}

// nodesAt lists every node of f with its line and column, and f printed.
func nodesAt(f *syntax.File) string {
	var b strings.Builder
	syntax.Walk(f, func(n syntax.Node) bool {
		if n != nil {
			fmt.Fprintf(&b, "%T@%d:%d-%d:%d ", n, n.Pos().Line(), n.Pos().Col(), n.End().Line(), n.End().Col())
		}
		return true
	})
	_ = syntax.NewPrinter().Print(&b, f)
	return b.String()
}

// TestBashQuote: printf %q's quoting, as bash 5.2 prints it: backslashes
// before the shell's special characters, and $'…' for a string holding a
// control character (a newline is kept, not a line continuation).
func TestBashQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":         "''",
		"a b":      `a\ b`,
		"it's":     `it\'s`,
		"#x":       `\#x`,
		"~y":       `\~y`,
		"a,b":      `a\,b`,
		"é":        "é",
		"a\nb":     `$'a\nb'`,
		"a\tb c":   `$'a\tb c'`,
		"x\x01y":   `$'x\001y'`,
		"q's\\\n":  `$'q\'s\\\n'`,
		"e\x1bz":   `$'e\Ez'`,
		"d\x7f":    `$'d\177'`,
		"r\rz":     `$'r\rz'`,
		"#h\nx":    `$'#h\nx'`,
		"\n":       `$'\n'`,
		"é\n":      "$'é\\n'",
		"\a\b\f\v": `$'\a\b\f\v'`,
	} {
		if got := bashQuote(in); got != want {
			t.Errorf("bashQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestMarkerNamesOfAnyFile: a sourced file whose name holds a quote, a
// blank, $, a backslash, % or a glob is sourced (its marked text is
// printed and parsed again: the name rides in each command's marker
// word, escaped by markerName), and its commands carry the file's own
// name.
func TestMarkerNamesOfAnyFile(t *testing.T) {
	for _, name := range []string{`lib".sh`, "sp ace.sh", "d$x.sh", `b\s.sh`, "50%.sh", "g*[x].sh", "it's.sh"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("server --from lib\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(dir, "run.sh")
		if err := os.WriteFile(script, []byte("source ./"+bashQuote(name)+"\necho \"rc=$?\" > /tmp/rc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := Run(context.Background(), Script{Path: script}, Config{Env: []string{"PATH=/usr/bin"}, Dir: dir, ReadRoots: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Writes["/tmp/rc"] != "rc=0\n" || len(tr.Commands) != 1 || filepath.Base(tr.Commands[0].File) != name || tr.Commands[0].Line != 1 {
			t.Errorf("%q: rc %q, commands %+v", name, tr.Writes["/tmp/rc"], tr.Commands)
		}
	}
	if got := markerName("benchmarks/x_y-1.2/a.sh"); got != "benchmarks/x_y-1.2/a.sh" {
		t.Errorf("a plain name is kept: %q", got)
	}
}
