package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestCacheMemo: a Cache makes a value once per kind and input and hands
// the same value to every caller; without a Cache, or past its bound on
// the input bytes it holds, the value is made each time.
func TestCacheMemo(t *testing.T) {
	made := 0
	mk := func(b []byte) any { made++; return strings.ToUpper(string(b)) }

	var none *Cache
	for range 2 {
		if v := none.memoOf("k", []byte("ab"), mk); v != "AB" {
			t.Fatalf("no cache: %v", v)
		}
	}
	if made != 2 {
		t.Errorf("no cache: made %d times, want 2", made)
	}

	made = 0
	c := &Cache{}
	for range 3 {
		if v := c.memoOf("k", []byte("ab"), mk); v != "AB" {
			t.Fatalf("cache: %v", v)
		}
	}
	if v := c.memoOf("other", []byte("ab"), mk); v != "AB" {
		t.Fatalf("cache, other kind: %v", v)
	}
	if made != 2 {
		t.Errorf("cache: made %d times for 2 kinds, want 2", made)
	}

	made = 0
	big := make([]byte, memoMaxBytes)
	for range 2 {
		c.memoOf("big", big, func([]byte) any { made++; return 1 })
	}
	if made != 2 {
		t.Errorf("an input past the bound was kept (made %d times, want 2)", made)
	}
	if c.memoBytes > memoMaxBytes {
		t.Errorf("memo holds %d bytes, bound %d", c.memoBytes, memoMaxBytes)
	}
}

// TestFixTrees: a Cache over fixed trees answers a later run's reads and
// tests of the read roots from what an earlier run found (the disk
// changed in between, which FixTrees promises never happens, so the test
// can see where the answer came from); a handler's copy of a file is its
// own. A Cache without FixTrees, or a new one, reads the disk.
func TestFixTrees(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lib.sh", "V=one\n")
	write("data.txt", "abc")
	cmds := map[string]Handler{
		"probe": func(ctx context.Context, c *Call) error {
			b, err := c.ReadFile(ctx, "data.txt")
			if err != nil {
				return err
			}
			say(c.Stdout(), string(b)+"\n")
			b[0] = 'X' // the handler's own copy
			return nil
		},
	}
	src := "source ./lib.sh\n[ -f extra ] && E=yes\nD=$(probe)\nserve \"$V\" \"$E\" \"$D\"\n"
	run := func(c *Cache) string {
		t.Helper()
		tr, err := Run(context.Background(), Script{Path: filepath.Join(dir, "s.sh"), Src: []byte(src)},
			Config{ReadRoots: []string{dir}, Dir: dir, Cache: c, Commands: cmds})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tr.Commands {
			if c.Argv[0] == "serve" {
				return strings.Join(c.Argv[1:], ",")
			}
		}
		t.Fatalf("no serve command: %+v (stop %v)", tr.Commands, tr.Stop)
		return ""
	}
	fixed := &Cache{}
	fixed.FixTrees()
	if got := run(fixed); got != "one,,abc" {
		t.Fatalf("first run: %q", got)
	}
	write("lib.sh", "V=two\n")
	write("data.txt", "def")
	write("extra", "")
	if got := run(fixed); got != "one,,abc" {
		t.Errorf("fixed trees, second run: %q, want what the first run read (one,,abc)", got)
	}
	if got := run(&Cache{}); got != "two,yes,def" {
		t.Errorf("a new Cache: %q, want the disk (two,yes,def)", got)
	}
	unfixed := &Cache{}
	run(unfixed)
	write("lib.sh", "V=three\n")
	if got := run(unfixed); got != "three,yes,def" {
		t.Errorf("a Cache without FixTrees, after an edit: %q, want three,yes,def", got)
	}
}

// TestFixTreesAtOnce: runs sharing a fixed Cache at the same time read the
// same answers (under -race: the read cache is safe for concurrent use).
func TestFixTreesAtOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.sh"), []byte("V=one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &Cache{}
	c.FixTrees()
	src := []byte("source ./lib.sh\n[ -f lib.sh ] && E=yes\nserve \"$V\" \"$E\"\n")
	got := make([]string, 4)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			tr, err := Run(context.Background(), Script{Path: filepath.Join(dir, "s.sh"), Src: src}, Config{ReadRoots: []string{dir}, Dir: dir, Cache: c})
			if err != nil {
				got[i] = err.Error()
				return
			}
			for _, cmd := range tr.Commands {
				if cmd.Argv[0] == "serve" {
					got[i] = strings.Join(cmd.Argv[1:], ",")
				}
			}
		})
	}
	wg.Wait()
	for i, g := range got {
		if g != "one,yes" {
			t.Errorf("run %d: %q, want one,yes", i, g)
		}
	}
}

// TestCacheRelease: Release drops a Cache's prepared scripts (the source
// builtin's parse of a library, the script's own) and a later run with
// the same Cache prepares them again, to the same trace.
func TestCacheRelease(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.sh"), []byte("V=one\nf() { echo \"$1\"; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := []byte("source ./lib.sh\nserve \"$V\" \"$(f two)\"\n")
	c := &Cache{}
	run := func() string {
		t.Helper()
		return commandsRun(t, Script{Path: filepath.Join(dir, "s.sh"), Src: src}, Config{ReadRoots: []string{dir}, Dir: dir, Cache: c})
	}
	first := run()
	if first != "serve one two" {
		t.Fatalf("first run: %q", first)
	}
	if n := c.Prepared(); n < 2 {
		t.Fatalf("%d prepared scripts after a run that sources a library, want 2 or more", n)
	}
	c.Release()
	if n := c.Prepared(); n != 0 {
		t.Errorf("%d prepared scripts after Release", n)
	}
	if again := run(); again != first {
		t.Errorf("after Release: %q, want %q", again, first)
	}
	if n := c.Prepared(); n < 2 {
		t.Errorf("%d prepared scripts after a run following Release, want 2 or more", n)
	}
}

// TestCacheTreeBound: the parse trees a Cache keeps stay within
// treeBytesMax source bytes however many distinct scripts run; the least
// recently used go first (a script run between the others stays), and a
// script whose tree was dropped runs again to the same commands.
func TestCacheTreeBound(t *testing.T) {
	c := &Cache{}
	pad := strings.Repeat("# padding\n", 3000) // ~30 KB a script
	script := func(i int) []byte { return []byte(fmt.Sprintf("%sserve %d\n", pad, i)) }
	run := func(i int) string {
		t.Helper()
		return commandsRun(t, Script{Path: "/s.sh", Src: script(i)}, Config{Cache: c})
	}
	n := 3 * treeBytesMax / len(script(0))
	for i := range n {
		if got, want := run(i), fmt.Sprintf("serve %d", i); got != want {
			t.Fatalf("script %d: %q, want %q", i, got, want)
		}
		run(0) // used between every other: the most recent, never dropped
		c.mu.Lock()
		over := c.treeBytes > treeBytesMax
		c.mu.Unlock()
		if over {
			t.Fatalf("after %d scripts the kept trees are %d source bytes, bound %d", i+1, c.treeBytes, treeBytesMax)
		}
	}
	c.mu.Lock()
	_, kept0 := c.files["/s.sh"][string(script(0))]
	_, kept1 := c.files["/s.sh"][string(script(1))]
	c.mu.Unlock()
	if !kept0 || kept1 {
		t.Errorf("script 0 (used last) kept %v, script 1 (used first) kept %v; want true, false", kept0, kept1)
	}
	if got := run(1); got != "serve 1" {
		t.Errorf("script 1 after its tree was dropped: %q", got)
	}
	if p := c.Prepared(); p == 0 || p > n {
		t.Errorf("%d prepared entries", p)
	}
}

// commandsRun runs s under cfg and gives the argv of each command it
// recorded, words joined by spaces, commands by "; ".
func commandsRun(t *testing.T, s Script, cfg Config) string {
	t.Helper()
	tr, err := Run(context.Background(), s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, cmd := range tr.Commands {
		out = append(out, strings.Join(cmd.Argv, " "))
	}
	return strings.Join(out, "; ")
}
