package sandbox

import (
	"context"
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
		for _, m := range cache.sourced {
			n += len(m)
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
