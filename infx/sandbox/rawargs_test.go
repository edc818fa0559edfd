package sandbox

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRawArgs: Call.RawArgs gives the words as written, before expansion
// (quotes, escapes and ${…} kept), for commands in command substitutions,
// sourced files and `bash -c` strings; a command eval runs from text it
// made has none. Call.ReadFile reads by the sandbox's read rule.
func TestRawArgs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.sh"), []byte("prog -c \"from ${LIB}\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type seen struct {
		args, raw []string
		ok        bool
		read      string
		readErr   error
	}
	var got []seen
	cmds := map[string]Handler{
		"prog": func(ctx context.Context, c *Call) error {
			raw, ok := c.RawArgs()
			s := seen{args: c.Args, raw: raw, ok: ok}
			if len(c.Args) > 2 && c.Args[1] == "--read" {
				b, err := c.ReadFile(ctx, c.Args[2])
				s.read, s.readErr = string(b), err
			}
			got = append(got, s)
			say(c.Stdout(), "X=1\n")
			return nil
		},
	}
	src := `M=models
eval "$(prog -c "
path = '${M}'
x = \"a\" \\ \$HOME
print(f'A=\"{path}\"')
")"
source ./lib.sh
bash -c 'prog   "${Y:-d}" '\''q'\'
eval "prog made"
prog --read data.txt
prog --read /etc/passwd
prog --read missing.txt
`
	run, err := Run(context.Background(), Script{Path: filepath.Join(dir, "s.sh"), Src: []byte(src)}, Config{Commands: cmds, ReadRoots: []string{dir}, Dir: dir, Env: []string{"LIB=l"}, Name: "s.sh"})
	if err != nil {
		t.Fatal(err)
	}
	if run.Stop != nil {
		t.Fatalf("stop: %v", run.Stop)
	}
	if len(got) != 7 {
		t.Fatalf("%d calls: %+v", len(got), got)
	}
	word := "\"\npath = '${M}'\nx = \\\"a\\\" \\\\ \\$HOME\nprint(f'A=\\\"{path}\\\"')\n\""
	eqStrings(t, "raw of the -c program", got[0].raw, []string{"prog", "-c", word})
	if got[0].args[2] != "\npath = 'models'\nx = \"a\" \\ $HOME\nprint(f'A=\"{path}\"')\n" {
		t.Errorf("expanded = %q", got[0].args[2])
	}
	eqStrings(t, "raw in a sourced file", got[1].raw, []string{"prog", "-c", `"from ${LIB}"`})
	eqStrings(t, "raw in bash -c", got[2].raw, []string{"prog", `"${Y:-d}"`, `'q'`})
	if got[3].ok || got[3].raw != nil {
		t.Errorf("a command eval made from text: raw %q ok %v", got[3].raw, got[3].ok)
	}
	if got[4].read != "hello\n" || got[4].readErr != nil {
		t.Errorf("ReadFile(data.txt) = %q, %v", got[4].read, got[4].readErr)
	}
	if got[5].readErr == nil || errors.Is(got[5].readErr, fs.ErrNotExist) {
		t.Errorf("ReadFile(/etc/passwd) = %q, %v: want an error (not known to the sandbox)", got[5].read, got[5].readErr)
	}
	if !errors.Is(got[6].readErr, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing.txt) = %v: want fs.ErrNotExist", got[6].readErr)
	}
	if !strings.Contains(strings.Join(got[0].args, " "), "models") {
		t.Errorf("args %q", got[0].args)
	}
}
