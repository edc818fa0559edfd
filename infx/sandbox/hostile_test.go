package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// hostileToken is a token-shaped secret put in the test process's
// environment: no script may see it.
const hostileToken = "ghp_hostileHOSTILEhostile0123456789abcd"

// runHostile runs src as <dir>/benchmarks/x.sh of a checkout at dir
// (ReadRoots: dir), with a generous wall bound so that what ends a run is
// the sandbox's own budget.
func runHostile(t *testing.T, dir, src string, opt Config) (*Trace, time.Duration, error) {
	t.Helper()
	p := filepath.Join(dir, "benchmarks", "x.sh")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	opt.ReadRoots = []string{dir}
	if opt.Dir == "" {
		opt.Dir = dir
	}
	if opt.Timeout == 0 {
		opt.Timeout = time.Minute
	}
	opt.Name = "benchmarks/x.sh"
	start := time.Now()
	run, err := Run(context.Background(), Script{Path: p}, opt)
	return run, time.Since(start), err
}

// noSecret fails when anything recorded holds the token or an environment
// variable of this process.
func noSecret(t *testing.T, run *Trace, err error) {
	t.Helper()
	var text string
	if run != nil {
		b, _ := json.Marshal(run)
		text = string(b)
	}
	if err != nil {
		text += err.Error()
	}
	for _, s := range []string{hostileToken, "HOSTILE_SECRET_VALUE"} {
		if strings.Contains(text, s) {
			t.Errorf("the run's record holds the secret %q", s)
		}
	}
}

// TestHostileSymlinkJail: a link in the checkout to /proc/self/environ (or
// a directory link to /proc/self, /etc) is refused by the jail on every
// path a script reads by: the script sees nothing, the run stops and
// reports the refused path with the position reached, and nothing of the
// tool's environment is recorded.
func TestHostileSymlinkJail(t *testing.T) {
	t.Setenv("GH_TOKEN", hostileToken)
	t.Setenv("COOKBOOK_HOSTILE", "HOSTILE_SECRET_VALUE")
	for _, c := range []struct{ name, src, refused string }{
		{"redirect", `E=$(< "$(dirname "$0")/../evil/environ_link")` + "\nvllm serve m --x \"$E\"\n", "evil/environ_link"},
		{"cat", "E=$(cat evil/environ_link)\nvllm serve m --x \"$E\"\n", "evil/environ_link"},
		{"grep", "E=$(grep TOKEN evil/environ_link)\nvllm serve m --x \"$E\"\n", "evil/environ_link"},
		{"source", "source evil/environ_link\nvllm serve m\n", "environ_link"},
		{"bash", "bash evil/environ_link\nvllm serve m\n", "evil/environ_link"},
		{"dir link", "E=$(< evil/proc/environ)\nvllm serve m --x \"$E\"\n", "evil/proc/environ"},
		{"test", "if [[ -e evil/etc/passwd ]]; then X=1; fi\nvllm serve m\n", "evil/etc/passwd"},
		{"ls", "ls evil/etc/ > /dev/null\nvllm serve m\n", "evil/etc/"},
		{"find", "find evil/proc/ -name environ > /dev/null\nvllm serve m\n", "evil/proc/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "evil"), 0o755); err != nil {
				t.Fatal(err)
			}
			for link, to := range map[string]string{"environ_link": "/proc/self/environ", "proc": "/proc/self", "etc": "/etc"} {
				if err := os.Symlink(to, filepath.Join(dir, "evil", link)); err != nil {
					t.Fatal(err)
				}
			}
			run, _, err := runHostile(t, dir, c.src, Config{})
			noSecret(t, run, err)
			if err != nil {
				t.Fatalf("err = %v, want a stopped run", err)
			}
			if run.Stop == nil || !strings.Contains(run.Stop.Msg, c.refused) || !strings.Contains(run.Stop.Msg, "a symbolic link resolves outside the checkout") {
				t.Fatalf("stop = %v, want the refused path %q", run.Stop, c.refused)
			}
			if run.Stop.Pos.File != "benchmarks/x.sh" || run.Stop.Pos.Line < 1 {
				t.Errorf("stop at %v, want a position in benchmarks/x.sh", run.Stop.Pos)
			}
			for _, cmd := range run.Commands {
				if cmd.Argv[0] == "vllm" {
					t.Errorf("the run went on past the refused read: %q", cmd.Argv)
				}
			}
		})
	}
}

// TestHostileEnvironment: a script starts from the environment it is
// given; the tool's own (GH_TOKEN, anything else) is not visible to env,
// printenv, expansions or the commands it records.
func TestHostileEnvironment(t *testing.T) {
	t.Setenv("GH_TOKEN", hostileToken)
	t.Setenv("COOKBOOK_HOSTILE", "HOSTILE_SECRET_VALUE")
	run, _, err := runHostile(t, t.TempDir(), `env > env.txt
printenv GH_TOKEN > tok.txt
vllm serve m --t "${GH_TOKEN:-none}" --h "${COOKBOOK_HOSTILE:-none}" --tmp "$TMPDIR" --home "$HOME"
`, Config{Env: []string{"MODEL=m"}})
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, run, err)
	if len(run.Commands) == 0 {
		t.Fatal("no command recorded")
	}
	last := run.Commands[len(run.Commands)-1].Argv
	eqStrings(t, "argv", last, []string{"vllm", "serve", "m", "--t", "none", "--h", "none", "--tmp", "/tmp", "--home", "/home/runner"})
	var envFile string
	for k, v := range run.Writes {
		if k == "env.txt" {
			envFile = v
		}
	}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(envFile), "\n") {
		k, _, _ := strings.Cut(l, "=")
		names = append(names, k)
	}
	eqStrings(t, "env names", names, []string{"EUID", "GID", "HOME", "MODEL", "PATH", "TMPDIR", "UID"})
}

// TestHostileHostQueries: -r/-x/-O, command -v, type, hash, which and a
// bare `source NAME` answer from the sandbox's table, never from this
// machine: a tool installed here (in a PATH directory the script names) is
// not found, a system file's test stops the run with its position, and -O
// is false (no panic).
func TestHostileHostQueries(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "hosttool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "hostlib"), []byte("HOSTLIB=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run, _, err := runHostile(t, dir, `type hosttool > a.txt
type -P hosttool > b.txt
command -v hosttool > c.txt
hash hosttool
source hostlib 2>/dev/null
[[ -O benchmarks/x.sh ]] && OWN=1
[[ -G benchmarks/x.sh ]] && GRP=1
vllm serve m --lib "${HOSTLIB:-none}" --own "${OWN:-0}${GRP:-0}"
`, Config{Env: []string{"PATH=" + bin + ":/usr/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range run.Writes {
		if v != "" {
			t.Errorf("%s = %q: answered from this machine", k, v)
		}
	}
	eqStrings(t, "argv", run.Commands[len(run.Commands)-1].Argv, []string{"vllm", "serve", "m", "--lib", "none", "--own", "00"})

	for _, c := range []struct{ src, reason string }{
		{"if [[ -r /etc/shadow ]]; then X=1; fi\n", "a test of /etc/shadow"},
		{"if [ -x /usr/sbin/hostonly ]; then X=1; fi\n", "a test of /usr/sbin/hostonly"},
		{"X=$(command -v hosttool)\n", "whether hosttool is installed on the runner is not known"},
		{"if type hosttool; then X=1; fi\n", "whether hosttool is installed on the runner is not known"},
	} {
		run, _, err := runHostile(t, t.TempDir(), c.src+"vllm serve m\n", Config{Env: []string{"PATH=" + bin + ":/usr/bin"}})
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if run.Stop == nil || !strings.Contains(run.Stop.Msg, c.reason) || run.Stop.Pos.File != "benchmarks/x.sh" {
			t.Errorf("%q: stop = %v, want %q in benchmarks/x.sh", c.src, run.Stop, c.reason)
		}
	}
}

// TestHostileNoDiskWrites: nothing a script writes reaches the disk — not
// "$TMPDIR/sh-interp-…" (the interpreter's own FIFO names), not a process
// substitution, not a git clone — and no temporary directory or FIFO is
// made per run: with TMPDIR pointed at an empty directory it stays empty.
func TestHostileNoDiskWrites(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	run, _, err := runHostile(t, dir, `echo fill > "$TMPDIR/sh-interp-abc"
echo fill > /tmp/sh-interp-cookbook-hostile
echo fill > "`+tmp+`/sh-interp-real"
cat <(echo x) > out.txt
: >(cat)
eval ': <(true)'
git clone https://github.com/NVIDIA/srt-slurm.git clone
cd clone && ls > ../list.txt && cd ..
[[ -d clone ]] && CLONE=1
vllm serve m --tmp "$TMPDIR" --clone "${CLONE:-0}"
`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/tmp/sh-interp-abc", "/tmp/sh-interp-cookbook-hostile", filepath.Join(tmp, "sh-interp-real"), filepath.Join(dir, "clone"), filepath.Join(dir, "out.txt")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created on disk", p)
			if err := os.RemoveAll(p); err != nil {
				t.Error(err)
			}
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("the run left %d entries in $TMPDIR (first %s)", len(ents), ents[0].Name())
	}
	if got := run.Writes["/tmp/sh-interp-abc"]; got != "fill\n" {
		t.Errorf("write to $TMPDIR/sh-interp-abc recorded as %q", got)
	}
	if got := run.Writes["out.txt"]; got != "x\n" {
		t.Errorf("out.txt = %q, want the process substitution's output", got)
	}
	eqStrings(t, "argv", run.Commands[len(run.Commands)-1].Argv, []string{"vllm", "serve", "m", "--tmp", "/tmp", "--clone", "1"})
}

// TestHostileBudgets: runs that would hang or grow end on the sandbox's
// own budgets, fast: process substitutions nobody reads, loops of no
// simple command (the step bound, not the wall limit), a lookup that
// writes (it deadlocked), eval'd process substitutions.
func TestHostileBudgets(t *testing.T) {
	t.Parallel() // seconds of sandboxed script steps: alongside the others
	for _, c := range []struct {
		name, src string
		limit     string // "" = the run ends normally with a vllm command
	}{
		{"unread procsubst", ": <(true)\nvllm serve m\n", ""},
		{"config procsubst", "vllm serve m --config <(echo x)\n", ""},
		{"eval procsubst", "eval ': <(true)'\nvllm serve m\n", ""},
		{"lookup output", "type -P ls > /dev/null\ncommand -V ls\nvllm serve m\n", ""},
		{"while test", "while [[ 1 ]]; do (( x++ )); done\n", "loop iterations"},
		{"until", "until false; do x=1; done\n", "loop iterations"},
		{"arith while", "while (( 1 )); do (( x++ )); done\n", "loop iterations"},
		{"for words", "for w in a b; do for v in $w; do :; done; done; while [[ 1 ]]; do y=1; done\n", "loop iterations"},
		{"background", "( while [[ 1 ]]; do (( x++ )); done ) &\nwhile [[ 1 ]]; do y=1; done\n", "loop iterations"},
	} {
		t.Run(c.name, func(t *testing.T) {
			run, took, err := runHostile(t, t.TempDir(), c.src, Config{Timeout: time.Minute})
			if took > 20*time.Second {
				t.Errorf("took %v", took)
			}
			if c.limit == "" {
				if err != nil {
					t.Fatal(err)
				}
				if n := len(run.Commands); n == 0 || run.Commands[n-1].Argv[0] != "vllm" {
					t.Errorf("commands = %v", run.Commands)
				}
				return
			}
			if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), c.limit) || !strings.Contains(err.Error(), "benchmarks/x.sh:") {
				t.Errorf("err = %v, want ErrLimit (%s) at a position", err, c.limit)
			}
		})
	}
}

// TestHostileExpansionBound: a pattern replacement whose result could
// exceed MaxScriptBytes is refused before the interpreter expands it (a
// 64 KiB string with every byte replaced by itself is 4 GiB): the run
// ends with ErrLimit at once and allocates little. Ordinary
// replacements are unchanged, in the script and in a sourced file.
func TestHostileExpansionBound(t *testing.T) {
	for _, src := range []string{
		`x=$(printf "%065536d" 0); : "${x//0/$x}"`,
		`x=$(printf "%065536d" 0); a=("$x" "$x"); : "${a[@]//0/$x}"`,
		`x=$(printf "%065536d" 0); y=abc; : "${y//b/${x//0/$x}}"`,
		`x=$(printf "%065536d" 0); : ${x//?/$x}`,
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, took, err := runHostile(t, t.TempDir(), src+"\nvllm serve m\n", Config{})
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "pattern replacement") || !strings.Contains(err.Error(), "benchmarks/x.sh:1:") {
			t.Errorf("%s: err = %v, want the replacement refused at benchmarks/x.sh:1", src, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
			t.Errorf("%s: allocated %d MiB before refusing", src, grew>>20)
		}
		if took > 10*time.Second {
			t.Errorf("%s: took %v", src, took)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lib.sh"), []byte("f() { i=0; while [[ $i -lt 3 ]]; do i=$((i+1)); done; echo \"${1//a/b}$i\"; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run, _, err := runHostile(t, dir, "source ./lib.sh\nm=org/model\nvllm serve \"${m//\\//_}\" --f \"$(f xax)\" --x \"${m/org/x}\"\n", Config{})
	if err != nil {
		t.Fatal(err)
	}
	eqStrings(t, "argv", run.Commands[len(run.Commands)-1].Argv, []string{"vllm", "serve", "org_model", "--f", "xbx3", "--x", "x/model"})
}

// TestHostileParse: inputs that crashed the parser or the marker code are
// refused with a position: an anonymous function (nil name), and nesting
// a million levels deep (checked on the raw text before the parser
// recurses), in a file and in eval'd text. A normally nested script runs.
func TestHostileParse(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"anon subshell", "() ( : )\n", "benchmarks/x.sh:1:1: a function without a name"},
		{"anon 00", "()00\n", "benchmarks/x.sh:1:1: a function without a name"},
		{"parens", strings.Repeat("(", 1_000_000) + "\n", "brackets nested more than 1000 deep"},
		{"braces", strings.Repeat("{ ", 1_000_000) + "\n", "brackets nested more than 1000 deep"},
		{"cmdsubst", strings.Repeat("$(", 1_000_000) + "\n", "brackets nested more than 1000 deep"},
		{"ifs", strings.Repeat("if true; then ", 100_000) + "\n", "compound commands nested more than 1000 deep"},
		{"eval", "eval \"" + strings.Repeat("(", 1_000_000) + "\"\n", "brackets nested more than 1000 deep"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, took, err := runHostile(t, t.TempDir(), c.src, Config{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %.300v, want %q", err, c.want)
			}
			if took > 10*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
	deep := strings.Repeat("( ", 50) + "vllm serve m" + strings.Repeat(" )", 50) + "\ncat <<'EOF' > f.py\n" + strings.Repeat("for x in y: print((\n", 2000) + "EOF\n"
	run, _, err := runHostile(t, t.TempDir(), deep, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Commands) == 0 || run.Commands[0].Argv[0] != "vllm" {
		t.Errorf("commands = %v", run.Commands)
	}
}

// TestHostileRuntimeNames (issue 20 item 1): a variable name that is empty
// only at run time crashed the process where the interpreter runs the
// statement in a goroutine of its own (a background statement, the left
// of a pipe: mvdan.cc/sh/v3 lookupVar panics, no recover reaches it). Each
// construct now gets bash's answer (GNU bash 5.2): `[[ -v "" ]]`,
// `[[ -R "" ]]`, `[ -v "" ]` and `test -v ""` are false, `unset ""` does
// nothing and succeeds, a name reference to "" is not made (it reads
// empty) — in the foreground, the background, a pipe, eval'd text and a
// sourced file of any name; real names keep their answers.
func TestHostileRuntimeNames(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"-v foreground", `E=; [[ -v $E ]] && A=set`, "unset"},
		{"-v background", `E=; { [[ -v $E ]] && A=set; vllm serve m --a "${A:-unset}"; } &` + "\nwait\nexit 0", "unset"},
		{"-R pipe", `E=; { [[ -R $E ]] && A=set; vllm serve m --a "${A:-unset}"; } | cat` + "\nexit 0", "unset"},
		{"unset pipe", `E=; X=1; { unset "$E" X; vllm serve m --a "${X:-unset}$?"; } | cat` + "\nexit 0", "unset0"},
		{"unset background", `E=; unset "$E" &` + "\nwait", "unset"},
		{"[ -v ] pipe", `E=; { [ -v "$E" ] && A=set; vllm serve m --a "${A:-unset}"; } | cat` + "\nexit 0", "unset"},
		{"test -v background", `E=; { test -v "$E" && A=set; vllm serve m --a "${A:-unset}"; } &` + "\nwait\nexit 0", "unset"},
		{"nameref background", `E=; { declare -n R=$E; vllm serve m --a "${R:-unset}"; } &` + "\nwait\nexit 0", "unset"},
		{"nameref to nothing", `{ declare -n R=; vllm serve m --a "${R:-unset}"; } &` + "\nwait\nexit 0", "unset"},
		{"local nameref pipe", `{ f() { local -n R=$1; vllm serve m --a "${R:-unset}"; }; f ""; } | cat` + "\nexit 0", "unset"},
		{"eval pipe", `E=; { eval '[[ -v $E ]] && A=set; declare -n R=$E; : "$R"'; vllm serve m --a "${A:-unset}"; } | cat` + "\nexit 0", "unset"},
		{"sourced file", "E=\nsource ./names.env &\nwait\nexit 0", "unset"},
		{"real -v", `x=1; [[ -v x && ! -v y ]] && A=set`, "set"},
		{"real nameref", `x=val; declare -n R=x`, "val"},
		{"real test -v", `x=1; test -v x && [ -v x ] && A=set; unset x; [[ -v x ]] || A+=-gone`, "set-gone"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "names.env"), []byte(`{ [[ -v $E ]] && A=set; vllm serve m --a "${A:-unset}"; } &`+"\nwait\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			src := c.src
			if !strings.Contains(src, "vllm") && !strings.Contains(src, "names.env") {
				src += "\n" + `vllm serve m --a "${A:-${R:-unset}}"`
			}
			run, _, err := runHostile(t, dir, src+"\n", Config{IsServer: func(argv []string) bool { return argv[0] == "vllm" }})
			if err != nil {
				t.Fatal(err)
			}
			if run.Stop != nil {
				t.Fatalf("stop = %v, want bash's answer", run.Stop)
			}
			// The left of a pipe runs beside its right: find the server.
			var got []string
			for _, cmd := range run.Commands {
				if cmd.Argv[0] == "vllm" {
					got = cmd.Argv
				}
			}
			eqStrings(t, "argv", got, []string{"vllm", "serve", "m", "--a", c.want})
		})
	}
}

// TestHostileArithmetic (issue 20 item 5): an arithmetic error is
// Unsupported at the failing expansion's own file:line:col — never a
// line of one file under the name of another (a library function ran
// last), never an error that ends the whole run — in the script, in a
// sourced library, in `((…))`, `let` and an inline argument; arithmetic
// that succeeds keeps its values and statuses.
func TestHostileArithmetic(t *testing.T) {
	const msg = "arithmetic expansion failed: division by zero (bash reports it and skips the command)"
	lib := "f() {\n  echo lib\n}\ng() {\n  local z=$(( 4 / $1 ))\n}\n"
	for _, c := range []struct {
		name, src string
		want      Pos
	}{
		{"after a library call", "source ./lib.sh\nf\nX=1\nY=$(( 1 / 0 ))\nvllm serve m\n", Pos{File: "benchmarks/x.sh", Line: 4, Col: 3}},
		{"in the library", "source ./lib.sh\nf\ng 0\nvllm serve m\n", Pos{File: "lib.sh", Line: 5, Col: 11}},
		{"arith command", "X=0\n(( Y = 2 / X ))\nvllm serve m\n", Pos{File: "benchmarks/x.sh", Line: 2, Col: 1}},
		{"let", "X=0\nlet Y=1 Y=2%X\nvllm serve m\n", Pos{File: "benchmarks/x.sh", Line: 2, Col: 1}},
		{"inline", "X=0\nvllm serve m \\\n  --x $(( 2 / X ))\n", Pos{File: "benchmarks/x.sh", Line: 3, Col: 7}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "lib.sh"), []byte(lib), 0o644); err != nil {
				t.Fatal(err)
			}
			run, _, err := runHostile(t, dir, c.src, Config{})
			if err != nil {
				t.Fatalf("err = %v, want an Unsupported run", err)
			}
			if want := (Unsupported{Pos: c.want, Msg: msg}); run.Stop == nil || *run.Stop != want {
				t.Fatalf("stop = %+v, want %+v", run.Stop, want)
			}
			for _, cmd := range run.Commands {
				if cmd.Argv[0] == "vllm" {
					t.Errorf("the run went on past the error: %q", cmd.Argv)
				}
			}
		})
	}
	run, _, err := runHostile(t, t.TempDir(), "X=3\n(( X > 2 )) && A=$(( X * 2 ))\nlet B=X+1 C=0\nC=$?\n(( 0 )) || D=no\nvllm serve m --a $A --b $B --c $C --d $D \"$(( X ** 2 ))\"\n", Config{})
	if err != nil || run.Stop != nil {
		t.Fatalf("err = %v, stop = %v", err, run.Stop)
	}
	eqStrings(t, "argv", run.Commands[len(run.Commands)-1].Argv, []string{"vllm", "serve", "m", "--a", "6", "--b", "4", "--c", "1", "--d", "no", "9"})
}

// TestHostileUnknownReads (issue 20 item 6): the sandbox's one rule for
// reads (readKnown) — a read, source or command whose result the script
// uses and that the sandbox cannot know (outside the checkout and the read
// roots, pseudo-files, a directory entered above the checkout, a format it
// cannot make, output cut short, a program it does not evaluate, a file
// such output went to) makes the run Unsupported at its position, never an
// empty value. Reads it can answer keep their values, and an unknown read
// whose result nothing uses does not stop the run.
func TestHostileUnknownReads(t *testing.T) {
	const outside = "its content is not known to the sandbox (outside the checkout and the read roots)"
	const host = "its content is not known to the sandbox (the runner's system files, devices and kernel state are not in the runner table)"
	at := func(col int) Pos { return Pos{File: "benchmarks/x.sh", Line: 1, Col: col} }
	for _, c := range []struct {
		src  string
		want Unsupported
	}{
		{`X=$(< /abs/file)`, Unsupported{Pos: at(5), Command: "read", Msg: "a read of /abs/file: " + outside}},
		{`X=$(cat /abs/file)`, Unsupported{Pos: at(5), Command: "cat", Msg: "a read of /abs/file: " + outside}},
		{`X=$(< /proc/self/environ)`, Unsupported{Pos: at(5), Command: "read", Msg: "a read of /proc/self/environ: " + host}},
		{`X=$(cat /proc/$$/status)`, Unsupported{Pos: at(5), Command: "cat", Msg: "a read of /proc/4242/status: " + host}},
		{`source /abs/file`, Unsupported{Pos: at(1), Command: "read", Msg: "a read of /abs/file: " + outside}},
		{`mapfile -t A < /abs/file; X=${A[0]}`, Unsupported{Pos: at(16), Command: "read", Msg: "a read of /abs/file: " + outside}},
		{`read -r X < /abs/file`, Unsupported{Pos: at(13), Command: "read", Msg: "a read of /abs/file: " + outside}},
		{`cd ../../..; X=$(cat benchmarks/x.sh)`, Unsupported{Pos: at(18), Command: "cat", Msg: "a read of benchmarks/x.sh: " + outside}},
		{`X=$(awk '{print}' /abs/file)`, Unsupported{Pos: at(5), Command: "awk", Msg: `awk {print} /abs/file in a value the script uses: the sandbox does not evaluate it (awk: reading "/abs/file": open /abs/file: its content is not known to the sandbox: outside the checkout and the read roots)`}},
		{`X=$(sed -n p /abs/file)`, Unsupported{Pos: at(5), Command: "sed", Msg: `sed -n p /abs/file in a value the script uses: the sandbox does not evaluate it (sed: reading "/abs/file": open /abs/file: its content is not known to the sandbox: outside the checkout and the read roots)`}},
		{`X=$(flock f -c 'echo hi')`, Unsupported{Pos: at(5), Command: "flock", Msg: "flock f -c echo hi in a value the script uses: the sandbox does not evaluate it (flock: not a command shellutil evaluates)"}},
		{`X=$(printf '%01000000000d' 0)`, Unsupported{Pos: at(5), Command: "printf", Msg: "printf %01000000000d: a field width or precision above 1000000, which the sandbox does not format (bash prints the field; Go's fmt would print %!(NOVERB))"}},
		{`mapfile -t A < <(seq 1 20000000); X=${#A[@]}`, Unsupported{Pos: at(18), Command: "seq", Msg: "seq 1 20000000 in a value the script uses: the sandbox does not evaluate it (seq: output exceeds 1048576 bytes)"}},
		{`cd /abs/dir || exit 1`, Unsupported{Pos: at(1), Command: "cd", Msg: "cd /abs/dir in a condition: whether /abs/dir exists on the runner is not known to the sandbox (outside the checkout and the read roots)"}},
		{`X=$(ls /abs/dir)`, Unsupported{Pos: at(5), Command: "ls", Msg: "a listing of /abs/dir: it is not known to the sandbox (outside the checkout and the read roots)"}},
		{`cd ../../..; X=$(ls)`, Unsupported{Pos: at(18), Command: "ls", Msg: "a listing of .: it is not known to the sandbox (outside the checkout and the read roots)"}},
		{`X=$(wc -l < big.txt)`, Unsupported{Pos: at(5), Command: "wc", Msg: "wc -l in a value the script uses: its input is larger than the 1048576 bytes the sandbox reads"}},
		{`seq 1 300000 > s.txt; X=$(tail -1 s.txt)`, Unsupported{Pos: at(27), Command: "tail", Msg: `tail -1 s.txt in a value the script uses: the sandbox does not evaluate it (tail: reading "s.txt": open s.txt: its content is not known to the sandbox: seq 1 300000 wrote it, which the sandbox does not evaluate)`}},
	} {
		t.Run(c.src, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("x\n", 600000)), 0o644); err != nil {
				t.Fatal(err)
			}
			run, _, err := runHostile(t, dir, c.src+"\nvllm serve m --x \"$X\"\n", Config{})
			if err != nil {
				t.Fatal(err)
			}
			if run.Stop == nil || *run.Stop != c.want {
				t.Fatalf("stop = %#v\nwant %#v", run.Stop, c.want)
			}
			for _, cmd := range run.Commands {
				if cmd.Argv[0] == "vllm" {
					t.Errorf("the run went on with a value it cannot know: %q", cmd.Argv)
				}
			}
		})
	}
	// What the sandbox knows keeps its value; an unknown read nothing uses
	// does not stop the run.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.txt"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run, _, err := runHostile(t, dir, `A=$(< in.txt)
mapfile -t L < in.txt
echo w > /tmp/w.txt; W=$(cat /tmp/w.txt)
H=$(< /sys/x)
cat /abs/file
[[ -f none.txt ]] || N=absent
vllm serve m --a "${A//$'\n'/,}" --l "${#L[@]}" --w "$W" --h "$H" --n "$N" $(< /dev/null)
`, Config{HostFiles: map[string]string{"/sys/x": "42\n"}})
	if err != nil || run.Stop != nil {
		t.Fatalf("err = %v, stop = %v", err, run.Stop)
	}
	eqStrings(t, "argv", run.Commands[len(run.Commands)-1].Argv, []string{"vllm", "serve", "m", "--a", "a,b", "--l", "2", "--w", "w", "--h", "42", "--n", "absent"})

	// A file such a program wrote is marked for the caller (Trace.Unknown,
	// WrittenFile.Unknown); one the script wrote itself is not.
	run, _, err = runHostile(t, t.TempDir(), "python3 gen.py > cfg.yaml\necho a: 1 > ok.yaml\nvllm serve m --config cfg.yaml\n", Config{})
	if err != nil || run.Stop != nil {
		t.Fatalf("err = %v, stop = %v", err, run.Stop)
	}
	const why = "python3 gen.py wrote it, which the sandbox does not evaluate"
	if len(run.Unknown) != 1 || run.Unknown["cfg.yaml"] != why {
		t.Errorf("unknown = %q, want cfg.yaml: %q", run.Unknown, why)
	}
	if len(run.Written) != 2 || run.Written[0].Unknown != why || run.Written[1].Unknown != "" {
		t.Errorf("written = %+v", run.Written)
	}
}
