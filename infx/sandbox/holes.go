package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
)

// This file holds the run's holes (Config.Holes, issue 24): a value of
// the run's input that the caller replaced by a hole (Hole) so that runs
// whose inputs differ only in such values are run once. A run that never
// looks at a hole's content — it only copies it: assigns it, joins it
// into a word, exports it, passes it to a function or to a command the
// sandbox records without reading it, writes it to a file or prints it —
// computes the same for every value the hole stands for that HoleValue
// accepts, with the value in place of the hole (Substitute). The first
// look (a test, a pattern, a number, a length, a path, a command that
// reads its arguments or its input, text run as a script: the list of
// expand.Config.Inspect and interp.InspectHoles, and here) ends the run
// with a *HoleError; the caller runs each value on its own then.

// Hole is hole number i (0 to 255) of exactly n bytes, the length of
// the value it stands for, so that every bound and cut the run makes by
// bytes (the bytes its variables hold, the output kept of a command, a
// shortened argument) falls where it falls for the value: expand.HoleMark,
// a rune naming i (U+E100+i, or U+F0100+i when that makes the length),
// runes of two and three bytes (U+07FF, U+E002) to length,
// expand.HoleEnd. Every byte of a hole belongs to a rune no script text
// holds, and a part of one cut by bytes is not valid UTF-8 or holds such
// a rune (Residual). ok is false when n < 9 or i is out of range.
func Hole(i, n int) (string, bool) {
	fill := n - 9 // after the marks and the rune naming i
	idx := rune(0xE100 + i)
	if fill == 1 {
		idx, fill = rune(0xF0100+i), 0
	}
	if i < 0 || i > 255 || fill < 0 {
		return "", false
	}
	three, two := fill/3, 0
	switch fill % 3 {
	case 1:
		three, two = three-1, 2
	case 2:
		two = 1
	}
	var sb strings.Builder
	sb.WriteString(expand.HoleMark)
	sb.WriteRune(idx)
	for range two {
		sb.WriteRune(0x07FF)
	}
	for range three {
		sb.WriteRune(0xE002)
	}
	sb.WriteString(expand.HoleEnd)
	return sb.String(), true
}

// Residual reports whether s holds what is left of a hole after the holes
// were replaced by their values (SubstituteHoles): a rune of a hole or a
// part of one cut by bytes (HasHole), or a hole's rune written as an
// escape — Go's and bash's quoting (\ue000, \U000f0100, \u07ff), octal
// or hex bytes (\356, \xee) — which a quoting of a hole the run did not
// look at leaves. A run whose output has one is not the values' run.
func Residual(s string) bool {
	return HasHole(s) || escapedHole(s)
}

// escapedHole reports whether s holds, in any case, an escape of a
// hole's rune Residual refuses.
func escapedHole(s string) bool {
	holeEscapes := [...]string{`\ue0`, `\ue1`, `\u07c`, `\u07d`, `\u07e`, `\u07f`,
		`\u0000e0`, `\u0000e1`, `\u000007c`, `\u000007d`, `\u000007e`, `\u000007f`, `\u000f0`,
		`\337`, `\356`, `\363`, `\xdf`, `\xee`, `\xf3`}
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			return false
		}
		s = s[i:]
		for _, e := range holeEscapes {
			if len(s) >= len(e) && strings.EqualFold(s[:len(e)], e) {
				return true
			}
		}
		s = s[1:]
	}
}

// HasHole reports whether s may hold a hole or a part of one
// (expand.HasHole).
func HasHole(s string) bool { return expand.HasHole(s) }

// MaxHoleValue is the longest value a hole stands for (HoleValue), in
// bytes.
const MaxHoleValue = 200

// HoleValue reports whether a hole may stand for v: not empty (tests of
// emptiness and defaults are not looks), at most MaxHoleValue bytes, its
// first byte a letter, a digit, '_' or '.', the others also ':', '/',
// '@', '+', ',' or '-' — no whitespace (a split at whitespace keeps it
// whole), no glob, quote, backslash, '$', '%', '=', '~', '#', brace or
// other character a shell or printf acts on, no mark of a hole.
func HoleValue(v string) bool {
	if v == "" || len(v) > MaxHoleValue {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.':
		case i > 0 && strings.IndexByte(":/@+,-", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// HoleError ends a run that looked at a hole (Config.Holes): What says
// how, At where (the last position the run reached).
type HoleError struct {
	What string
	At   Pos
}

// Error gives "file:line:col: the run looks at a hole's value (what)".
func (e *HoleError) Error() string {
	return fmt.Sprintf("%s: the run looks at a hole's value (%s)", e.At, e.What)
}

// ErrHoleInspected is what errors.Is finds in a *HoleError.
var ErrHoleInspected = errors.New("the run looks at a hole's value")

// Is makes errors.Is(err, ErrHoleInspected) hold.
func (e *HoleError) Is(target error) bool { return target == ErrHoleInspected }

// inspectHole records the run's first look at a hole and stops the run;
// it takes no lock but holeMu, so the interpreter may call it anywhere.
func (sb *sandbox) inspectHole(what string) {
	sb.holeMu.Lock()
	if sb.hole == "" {
		sb.hole = what
	}
	sb.holeMu.Unlock()
	sb.stop()
}

// worlds is s in each of Config.Worlds (interp.HoleWorlds), nil when a
// world leaves a part of a hole in it (Residual).
func (sb *sandbox) worlds(s string) []string {
	out := make([]string, len(sb.cfg.Worlds))
	for i, r := range sb.cfg.Worlds {
		if out[i] = r.Replace(s); Residual(out[i]) {
			return nil
		}
	}
	return out
}

// filterWorlds evaluates a text utility (shellutil) whose input holds
// holes in each of Config.Worlds: ok when it is evaluated in every world,
// reads no file, and prints the same and ends with the same status in
// all of them, with nothing of a hole left — `env | grep -E '^SGLANG_'`
// when RUNNER_NAME is a hole. Its result is then the run's in every world.
func (sb *sandbox) filterWorlds(args []string, stdin []byte, facts shellutil.Facts) (shellutil.Result, bool) {
	ins := sb.worlds(string(stdin))
	if len(ins) == 0 {
		return shellutil.Result{}, false
	}
	var first shellutil.Result
	for i, in := range ins {
		files := false
		res, handled, _ := shellutil.RunCached(args, []byte(in), facts, func(string) ([]byte, error) {
			files = true // what a file holds is not the worlds' to compare
			return nil, fs.ErrNotExist
		}, &sb.cache.regexps)
		if !handled || files || Residual(string(res.Stdout)) || Residual(string(res.Stderr)) {
			return shellutil.Result{}, false
		}
		if i == 0 {
			first = res
			continue
		}
		if !bytes.Equal(res.Stdout, first.Stdout) || !bytes.Equal(res.Stderr, first.Stderr) || res.Status != first.Status {
			return shellutil.Result{}, false
		}
	}
	return first, true
}

// unequalInWorlds applies the hole rule to a variable's value compared
// with its value at the start (or a base's) and found to differ, a and b:
// where one holds a hole, equal or not is the values' to say — decided
// when they differ in every world (Config.Worlds: `RUNNER_NAME=inferencex-
// HOLE cmd` against HOLE), a look otherwise (equal in some world, a part
// of a hole left, or no worlds to ask).
func (sb *sandbox) unequalInWorlds(a, b string) {
	if !sb.cfg.Holes || !HasHole(a) && !HasHole(b) {
		return
	}
	wa, wb := sb.worlds(a), sb.worlds(b)
	if len(wa) > 0 && len(wb) > 0 {
		differ := true
		for i := range wa {
			differ = differ && wa[i] != wb[i]
		}
		if differ {
			return
		}
	}
	sb.inspectHole("a variable compared with its value at the start")
}

// holeIn is inspectHole when the run has holes and s holds one.
func (sb *sandbox) holeIn(what, s string) {
	if sb.cfg.Holes && HasHole(s) {
		sb.inspectHole(what)
	}
}

// hasHoleBytes is HasHole(string(b)) without the copy: a byte that begins
// a hole's rune (all of them over 0x7F), or text that is not UTF-8.
func hasHoleBytes(b []byte) bool {
	return bytes.IndexByte(b, 0xEE) >= 0 || bytes.IndexByte(b, 0xDF) >= 0 || bytes.IndexByte(b, 0xF3) >= 0 || !utf8.Valid(b)
}

// holeSeen is the run's first look at a hole, "" when none.
func (sb *sandbox) holeSeen() string {
	sb.holeMu.Lock()
	defer sb.holeMu.Unlock()
	return sb.hole
}

// holeArgs applies the hole rule to an external command (args after
// wrappers): a command the sandbox answers reads its arguments (options,
// paths, numbers, text it runs), so a hole in one is a look — but for
// the arguments copiesHole leaves to the command's own rule.
func (sb *sandbox) holeArgs(args []string) bool {
	if !sb.cfg.Holes {
		return false
	}
	for i, a := range args {
		if !HasHole(a) {
			continue
		}
		if i > 0 && (copiesHole(args, i) || sb.sedCopiesHole(args, i)) {
			continue
		}
		sb.inspectHole(fmt.Sprintf("argument %d of %s", i, args[0]))
		return true
	}
	return false
}

// holeReader is a command's standard input in a run with holes: a
// command that reads a hole, or a part of one, from it looks at it: a
// byte that begins a hole's rune, or a continuation byte the read begins
// with (the rest of a rune a bound cut; HasHole).
type holeReader struct {
	r    io.Reader
	sb   *sandbox
	name string
}

func (h *holeReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	for i, b := range p[:n] {
		if b == 0xDF || b == 0xEE || b == 0xF3 || i == 0 && b&0xC0 == 0x80 {
			h.sb.inspectHole("the input of " + h.name)
			break
		}
	}
	return n, err
}

// copiesHole reports whether argument i of a command the sandbox answers
// is left to the command's own hole rule: every argument of `docker run`
// (`podman run`), whose option parse (dockerRun) reads each option's value
// but copies a container variable's (copiesContainerVar) and leaves the
// command the container runs to the container's run.
func copiesHole(args []string, i int) bool {
	switch path.Base(args[0]) {
	case "docker", "podman":
		return len(args) > 1 && args[1] == "run" && i >= 2
	case "salloc", "srun", "sbatch":
		return slurmJobName(args, i)
	case "squeue":
		return squeueName(args, i)
	case "scancel":
		// the sandbox's Slurm has no job to cancel: its scancel reads
		// none of its arguments (handlers.go)
		return true
	}
	return false
}

// sedCopiesHole reports whether argument i of sed is its one script, a
// single s command whose replacement alone holds the hole and inserts it
// as it is in every world (Config.Worlds): `s/^name:.*/name: "HOLE"/`,
// a launcher naming a recipe's job after its runner. The replacement
// holds no backslash (escapes, \n, case conversion), no & (the match)
// and no newline, in the script and in each world's text of it (a value
// holding the delimiter would end the replacement early there); the
// pattern holds no hole and no bracket expression (whose delimiter the
// split below would not see), the flags no hole and none but g, p, i, I,
// m, M and digits (no e, which runs the result, nor w, which writes a
// file). sed inserts such a replacement as it is and scans no further
// into it, and its input holds no hole (sedInPlace and the command's
// input look at one), so the result holds the hole where the values'
// runs hold the value.
func (sb *sandbox) sedCopiesHole(args []string, i int) bool {
	if path.Base(args[0]) != "sed" || sedScriptIndex(args) != i {
		return false
	}
	re, repl, flags, ok := splitSedS(args[i])
	if !ok || HasHole(re) || HasHole(flags) || strings.IndexByte(re, '[') >= 0 || strings.Trim(flags, "gpiImM0123456789") != "" {
		return false
	}
	d := args[i][1]
	plain := func(r string) bool { return strings.IndexByte(r, d) < 0 && !strings.ContainsAny(r, "\\&\n") }
	if !plain(repl) {
		return false
	}
	ws := sb.worlds(repl)
	if len(ws) == 0 {
		return false // no world's values to check
	}
	for _, w := range ws {
		if !plain(w) {
			return false
		}
	}
	return true
}

// sedScriptIndex is the index in a sed argv of its script when it has
// exactly one (`sed [-i] [-E|-r|-n] SCRIPT FILE…` or `-e SCRIPT`), else
// -1: a second script, or an option SedArgs does not read.
func sedScriptIndex(argv []string) int {
	idx := -1
	for j := 1; j < len(argv); j++ {
		switch a := argv[j]; {
		case a == "-i" || a == "--in-place" || a == "-E" || a == "-r" || a == "-n":
		case a == "-e":
			if idx >= 0 || j+1 >= len(argv) {
				return -1
			}
			idx = j + 1
			j++
		case strings.HasPrefix(a, "-"):
			return -1
		case idx < 0:
			idx = j
		}
	}
	return idx
}

// splitSedS splits a script that is one s command, `sDREDREPLDFLAGS`
// with an ASCII delimiter D other than backslash and newline, into its
// pattern, replacement and flags (a backslash escapes the character after
// it in the pattern; the replacement is not split at an escaped
// delimiter: sedCopiesHole refuses any backslash in it). ok is false for
// anything else, and for a script holding a newline (more commands).
func splitSedS(script string) (re, repl, flags string, ok bool) {
	if len(script) < 4 || script[0] != 's' || strings.IndexByte(script, '\n') >= 0 {
		return "", "", "", false
	}
	d := script[1]
	if d >= utf8.RuneSelf || d == '\\' {
		return "", "", "", false
	}
	i := 2
	for i < len(script) && script[i] != d {
		if script[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(script) {
		return "", "", "", false
	}
	j := strings.IndexByte(script[i+1:], d)
	if j < 0 {
		return "", "", "", false
	}
	j += i + 1
	return script[2:i], script[i+1 : j], script[j+1:], true
}

// slurmJobName reports whether argument i of salloc, srun or sbatch is
// the job's name (--job-name=NAME, --job-name NAME, -J NAME): the
// sandbox's Slurm gives every job id 1 and never reads its name (hSalloc,
// hSbatch, the srun option parse), so a hole there is only copied. The
// options are walked as srun walks them (srunLongTakesValue,
// srunValueOpts) up to the first operand, the command srun runs.
func slurmJobName(args []string, i int) bool {
	for j := 1; j < len(args) && j <= i; j++ {
		a := args[j]
		if a == "--" || !strings.HasPrefix(a, "-") {
			return false // an operand: the command
		}
		if strings.HasPrefix(a, "--") {
			k, _, hasV := strings.Cut(a, "=")
			if j == i {
				return hasV && k == "--job-name"
			}
			if !hasV && srunLongTakesValue(k) {
				j++ // its value
				if j == i {
					return k == "--job-name"
				}
			}
			continue
		}
		if j == i {
			return false
		}
		if len(a) == 2 && strings.IndexByte(srunValueOpts, a[1]) >= 0 {
			j++
			if j == i {
				return a == "-J"
			}
		}
	}
	return false
}

// squeueName reports whether argument i of squeue is a job name it is
// asked about (--name=NAME, --name NAME, -n NAME): hSqueue answers without
// reading it (squeueAsked leaves it out), so a hole there is only copied.
func squeueName(args []string, i int) bool {
	a := args[i]
	if k, _, ok := strings.Cut(a, "="); ok && k == "--name" {
		return true
	}
	return i > 1 && (args[i-1] == "--name" || args[i-1] == "-n") && !squeueName(args, i-1)
}

// copiesContainerVar reports whether the value v of docker run's option k
// is only copied into the container's environment: -e / --env NAME=VALUE
// with the hole in VALUE.
func copiesContainerVar(k, v string) bool {
	if k != "-e" && k != "--env" {
		return false
	}
	name, _, ok := strings.Cut(v, "=")
	return ok && !HasHole(name)
}

// envFileCopiesHoles reports whether every hole in an env file (docker
// run --env-file; parseEnvFile) is in the value of a NAME=VALUE line,
// which the container gets as it is: a hole in a name, or on a line
// that names a variable to look up, is looked at.
func envFileCopiesHoles(data string) bool {
	for _, line := range strings.Split(data, "\n") {
		if !HasHole(line) {
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok || HasHole(k) {
			return false
		}
	}
	return true
}

// holeShellBuiltin says how a builtin the sandbox answers or rewrites
// before the interpreter sees it (shellBuiltin) looks at a hole in its
// operands, "" when it does not: printf formats every verb but a plain %s
// itself (printfCompat: a width, a precision, %q, a number), and its
// format and -v name are looked at; command -v, type and hash look a
// name up, cd and pushd a directory, kill and wait a job, source a file
// by name, set an option (relaxSet).
// `command NAME …` runs NAME, whose own rule applies.
func holeShellBuiltin(args []string) string {
	holed := false
	for _, a := range args[1:] {
		if HasHole(a) {
			holed = true
			break
		}
	}
	if !holed {
		return ""
	}
	switch args[0] {
	case "printf":
		fi := 1
		if len(args) > 1 && args[1] == "-v" {
			if len(args) > 2 && HasHole(args[2]) {
				return "printf -v"
			}
			fi = 3
		}
		if len(args) <= fi {
			return ""
		}
		if HasHole(args[fi]) {
			return "a printf format"
		}
		f := args[fi]
		for i := 0; i < len(f); i++ {
			if f[i] == '\\' {
				i++ // an escape: \% is a percent sign, as printfCompat reads it
				continue
			}
			if f[i] != '%' {
				continue
			}
			if i+1 < len(f) && (f[i+1] == 's' || f[i+1] == '%') {
				i++
				continue
			}
			return "a printf verb other than %s"
		}
		return ""
	case "command":
		if len(args) > 1 && (strings.HasPrefix(args[1], "-v") || strings.HasPrefix(args[1], "-V")) {
			return "command -v"
		}
		return ""
	case "source", ".":
		if len(args) > 1 && HasHole(args[1]) {
			return args[0]
		}
		return ""
	case "type", "hash", "cd", "pushd", "kill", "wait":
		return args[0]
	case "set":
		return interp.HoleSetArgs(args)
	}
	return ""
}
