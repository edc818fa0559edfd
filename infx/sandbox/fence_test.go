package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFencedChild: a child script that cannot start a server, run as a
// statement whose status nothing reads, that stops at something not known
// (the shape of InferenceX apply_k3_container_patches.sh: Python asked
// where the engine is installed) stops alone — the run goes on, names it
// (Trace.Unfollowed) and refuses every later read; a child that could
// start a server, or whose status is read, stops the run as before.
func TestFencedChild(t *testing.T) {
	isServer := func(argv []string) bool { return len(argv) > 1 && argv[0] == "vllm" && argv[1] == "serve" }
	cmds := map[string]Handler{"submit": func(_ context.Context, c *Call) error { return c.End() }}
	write := func(dir, name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, child, parent string
		stop                string // "" : the run reaches submit
		unfollowed          int
	}{
		{"patch script", "set -u\nROOT=\"$(mystery-probe --where)\"\n[ -d \"$ROOT/x\" ] || exit 1\ngit apply x.diff\n", "set -e\nbash ./child.sh\nsubmit ok\n", "", 1},
		{"read after it", "X=$(mystery-probe)\n", "echo a > /tmp/f\nbash ./child.sh\nY=$(cat /tmp/f)\nsubmit \"$Y\"\n", "was not followed past", 1},
		{"open after it", "X=$(mystery-probe)\n", "echo a > /tmp/f\nbash ./child.sh\nread L < /tmp/f\nsubmit \"$L\"\n", "was not followed past", 1},
		{"$(<file) after it", "X=$(mystery-probe)\n", "bash ./child.sh\nL=$(<child.sh)\nsubmit \"$L\"\n", "was not followed past", 1},
		{"re-source after it", "X=$(mystery-probe)\n", "echo X=1 > /tmp/e.sh\nsource /tmp/e.sh\nbash ./child.sh\nsource /tmp/e.sh\nsubmit \"$X\"\n", "was not followed past", 1},
		{"a test after it", "X=$(mystery-probe)\n", "bash ./child.sh\nif [ -f flag ]; then submit yes; else submit no; fi\n", "was not followed past", 1},
		{"a glob after it", "X=$(mystery-probe)\n", "bash ./child.sh\nfor f in ./*.sh; do :; done\nsubmit \"$f\"\n", "was not followed past", 1},
		{"a script after it", "X=$(mystery-probe)\n", "bash ./child.sh\nbash ./child.sh\nsubmit ok\n", "was not followed past", 1},
		{"a server in it", "X=$(mystery-probe)\nvllm serve m\n", "bash ./child.sh\nsubmit ok\n", "mystery-probe", 0},
		{"eval in it", "X=$(mystery-probe)\neval \"$X\"\n", "bash ./child.sh\nsubmit ok\n", "mystery-probe", 0},
		{"its status read", "X=$(mystery-probe)\n", "if bash ./child.sh; then submit ok; fi\n", "mystery-probe", 0},
		{"a bound in it", "while :; do :; done\n", "bash ./child.sh\nsubmit ok\n", "", -1},
	} {
		dir := t.TempDir()
		write(dir, "child.sh", "#!/bin/bash\n"+c.child)
		run, err := runSrc("p.sh", c.parent, Config{Commands: cmds, IsServer: isServer, ReadRoots: []string{dir}, Dir: dir})
		if c.unfollowed < 0 {
			if err == nil {
				t.Errorf("%s: no error, want the bound", c.name)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		switch {
		case c.stop == "" && (run.Stop != nil || run.End == nil):
			t.Errorf("%s: stop %v end %v, want submit reached", c.name, run.Stop, run.End)
		case c.stop != "" && (run.Stop == nil || !strings.Contains(run.Stop.Msg, c.stop)):
			t.Errorf("%s: stop %v, want one containing %q", c.name, run.Stop, c.stop)
		}
		if len(run.Unfollowed) != c.unfollowed {
			t.Errorf("%s: unfollowed %+v, want %d", c.name, run.Unfollowed, c.unfollowed)
		} else if c.unfollowed == 1 && (!strings.Contains(run.Unfollowed[0].Stop.Msg, "mystery-probe") || run.Unfollowed[0].At.Line == 0) {
			t.Errorf("%s: unfollowed %+v", c.name, run.Unfollowed[0])
		}
	}
}

// TestFencedChildSharedCache: what a Cache keeps of a child's text for
// the fence (plainInert) is the same for every run, but whether one of
// its commands is a server launch is each run's Config.IsServer: a run
// for which the child starts a server stops at its probe, a run for
// which it does not goes past it — in either order, with one Cache.
func TestFencedChildSharedCache(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "child.sh"), []byte("#!/bin/bash\nX=$(mystery-probe)\nmytool serve m\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmds := map[string]Handler{"submit": func(_ context.Context, c *Call) error { return c.End() }}
	serves := func(argv []string) bool { return len(argv) > 1 && argv[0] == "mytool" && argv[1] == "serve" }
	never := func([]string) bool { return false }
	c := &Cache{}
	for _, order := range [][]func([]string) bool{{serves, never, serves}, {never, serves, never}} {
		for i, isServer := range order {
			run, err := runSrc("p.sh", "bash ./child.sh\nsubmit ok\n", Config{Commands: cmds, IsServer: isServer, ReadRoots: []string{dir}, Dir: dir, Cache: c})
			if err != nil {
				t.Fatal(err)
			}
			server := isServer([]string{"mytool", "serve"})
			switch {
			case server && (run.Stop == nil || !strings.Contains(run.Stop.Msg, "mystery-probe") || len(run.Unfollowed) != 0):
				t.Errorf("run %d, a server in the child: stop %v unfollowed %v, want the run stopped at the probe", i, run.Stop, run.Unfollowed)
			case !server && (run.Stop != nil || run.End == nil || len(run.Unfollowed) != 1):
				t.Errorf("run %d, no server in the child: stop %v end %v unfollowed %v, want submit reached past the fenced child", i, run.Stop, run.End, run.Unfollowed)
			}
		}
	}
}
