// Package shellutil evaluates, in pure Go and without starting a process,
// the text utilities and hardware probes that InferenceX benchmark scripts
// call: awk, sed, grep, seq, expr, cut, tr, head, tail, wc, sort, uniq,
// paste, basename, dirname, date, hostname, nproc, free, df (of /dev/shm),
// sha1sum, sha256sum, bc, and the GPU probes nvidia-smi, rocm-smi and amd-smi.
//
// The sandboxed interpreter that runs InferenceX single-node scripts
// (package infx) calls [Run] (or [RunFiles]) for every external command.
// A command is either answered faithfully — the bytes and exit status GNU
// coreutils 9 / GNU grep 3 / GNU sed 4 / gawk 5 / procps-ng 4 / the vendor
// tool would produce on the machine [Facts] describes, in the C locale
// with TZ=UTC — or refused with handled=false and a reason. A form this
// package does not implement (an option, an awk construct, a PCRE feature
// RE2 lacks, a sensor reading, a file it was not given) is always refused,
// never approximated: a wrong answer would send a script down a branch the
// real run did not take.
//
// Every evaluation is bounded: output is capped at [MaxOutput] bytes (a
// command whose output would exceed it is refused), awk programs run under
// a step budget of [AwkStepBudget] statements and a work budget of
// [AwkWorkBudget] string bytes, and regular expressions use Go's
// linear-time RE2 engine.
package shellutil

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// MaxOutput is the most stdout (and, separately, stderr) one command may
// produce, in bytes: 1 MiB. A command whose output would exceed it is
// refused (handled=false), not truncated.
const MaxOutput = 1 << 20

// Result is what one evaluated command produced.
type Result struct {
	// Stdout is the command's standard output, at most MaxOutput bytes.
	Stdout []byte
	// Stderr is the command's diagnostic output (C-locale wording of the
	// GNU tool's message), at most MaxOutput bytes. Scripts almost always
	// discard it; it is given so that a caller can show it.
	Stderr []byte
	// Status is the exit status, 0–255, as the shell sees it: 127 for a
	// command that is not installed on the machine (nvidia-smi on an AMD
	// node, rocm-smi / amd-smi on an NVIDIA node).
	Status int
}

// ReadFileFunc returns the contents of a file operand named as the script
// wrote it (relative names are the caller's to resolve against the
// script's working directory). An error satisfying errors.Is(err,
// fs.ErrNotExist) is reported by the command as "No such file or
// directory" (with the tool's exit status); any other error makes the
// command unhandled.
type ReadFileFunc func(name string) ([]byte, error)

// Run evaluates argv with stdin on the machine f describes. argv[0] is the
// command name as the script wrote it ("awk", "/usr/bin/seq"); its base
// name selects the command. handled=false means the command, or one of
// its options, operands or program constructs, is not one this package
// evaluates faithfully; reason says which, and the caller must treat the
// command as unknown. A file operand (anything but "-" and the virtual
// /proc/meminfo) is unhandled: use [RunFiles] to supply files.
//
// Run never panics and is bounded in time and memory (see [MaxOutput],
// [AwkStepBudget], [AwkWorkBudget]).
func Run(argv []string, stdin []byte, f Facts) (res Result, handled bool, reason string) {
	return RunFiles(argv, stdin, f, nil)
}

// RunFiles is [Run] with file operands read through read (nil: none can
// be read, so a file operand makes the command unhandled). The virtual
// file /proc/meminfo is answered from f (see [Facts.Meminfo]) before read
// is asked.
func RunFiles(argv []string, stdin []byte, f Facts, read ReadFileFunc) (res Result, handled bool, reason string) {
	return RunCached(argv, stdin, f, read, nil)
}

// RunCached is [RunFiles] with the regular expressions of grep, sed and
// awk compiled once per rs (nil: each time); the answer is the same.
func RunCached(argv []string, stdin []byte, f Facts, read ReadFileFunc, rs *Regexps) (res Result, handled bool, reason string) {
	defer func() {
		if r := recover(); r != nil {
			res, handled, reason = Result{}, false, fmt.Sprintf("internal error evaluating %q: %v", argv, r)
		}
	}()
	return run(argv, stdin, f, read, rs)
}

// run is RunCached without the panic guard, so that the fuzz test sees a
// panic as a failure instead of a refusal.
func run(argv []string, stdin []byte, f Facts, read ReadFileFunc, rs *Regexps) (Result, bool, string) {
	if len(argv) == 0 {
		return Result{}, false, "empty command"
	}
	name := path.Base(argv[0])
	impl, ok := commands[name]
	if !ok {
		return Result{}, false, fmt.Sprintf("%s: not a command shellutil evaluates", name)
	}
	c := &call{name: name, args: argv[1:], stdin: stdin, facts: f, read: read, re: rs}
	status, err := impl(c)
	if err != nil {
		var u *unsupported
		if errors.As(err, &u) {
			return Result{}, false, name + ": " + u.reason
		}
		return Result{}, false, name + ": " + err.Error()
	}
	if c.out.over || c.errb.over {
		return Result{}, false, fmt.Sprintf("%s: output exceeds %d bytes", name, MaxOutput)
	}
	return Result{Stdout: c.out.b, Stderr: c.errb.b, Status: status & 0xff}, true, ""
}

// Commands returns the command names Run knows, sorted. A known name can
// still be refused for a given argv (an option or form it does not
// evaluate).
func Commands() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// commands maps a command's base name to its evaluator. It is never
// written after initialization.
var commands = map[string]func(*call) (int, error){
	"awk":        runAwk,
	"gawk":       runAwk,
	"seq":        runSeq,
	"expr":       runExpr,
	"cut":        runCut,
	"tr":         runTr,
	"head":       runHead,
	"tail":       runTail,
	"wc":         runWc,
	"sort":       runSort,
	"uniq":       runUniq,
	"paste":      runPaste,
	"sed":        runSed,
	"grep":       runGrep,
	"egrep":      runGrep,
	"fgrep":      runGrep,
	"basename":   runBasename,
	"dirname":    runDirname,
	"date":       runDate,
	"hostname":   runHostname,
	"nproc":      runNproc,
	"free":       runFree,
	"sha1sum":    runSha1sum,
	"sha256sum":  runSha256sum,
	"bc":         runBc,
	"nvidia-smi": runNvidiaSmi,
	"rocm-smi":   runRocmSmi,
	"amd-smi":    runAmdSmi,
	"df":         runDf,
	"nicctl":     runNicctl,
}

// call is one command evaluation in progress.
type call struct {
	name  string
	args  []string
	stdin []byte
	facts Facts
	read  ReadFileFunc
	re    *Regexps // compiled regular expressions (nil: none kept)
	out   outBuf
	errb  outBuf
}

// unsupported is the error an evaluator returns for a form it does not
// implement; Run turns it into handled=false.
type unsupported struct{ reason string }

func (u *unsupported) Error() string { return u.reason }

func unsup(format string, a ...any) error {
	return &unsupported{reason: fmt.Sprintf(format, a...)}
}

// outBuf accumulates output up to MaxOutput bytes and remembers overflow.
type outBuf struct {
	b    []byte
	over bool
}

func (o *outBuf) WriteString(s string) {
	if o.over {
		return
	}
	if len(o.b)+len(s) > MaxOutput {
		o.over = true
		return
	}
	o.b = append(o.b, s...)
}

func (o *outBuf) Write(p []byte) {
	if o.over {
		return
	}
	if len(o.b)+len(p) > MaxOutput {
		o.over = true
		return
	}
	o.b = append(o.b, p...)
}

// errorf writes a "name: message" diagnostic line to stderr.
func (c *call) errorf(format string, a ...any) {
	c.errb.WriteString(c.name + ": " + fmt.Sprintf(format, a...) + "\n")
}

// input is one input operand's contents; missing is set when the file
// does not exist (the tool reports it and goes on).
type input struct {
	name    string
	data    []byte
	missing bool
}

// open returns the contents of operand name: stdin for "-", the virtual
// /proc/meminfo, or the caller's file.
func (c *call) open(name string) (input, error) {
	if name == "-" {
		return input{name: name, data: c.stdin}, nil
	}
	if name == "/proc/meminfo" {
		if m, ok := c.facts.Meminfo(); ok {
			return input{name: name, data: m}, nil
		}
		return input{}, unsup("/proc/meminfo: host memory of this machine is not documented")
	}
	if c.read == nil {
		return input{}, unsup("file operand %q: no file reader was given", name)
	}
	data, err := c.read(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return input{name: name, missing: true}, nil
		}
		return input{}, unsup("reading %q: %v", name, err)
	}
	return input{name: name, data: data}, nil
}

// inputs opens every operand (stdin when there are none).
func (c *call) inputs(operands []string) ([]input, error) {
	if len(operands) == 0 {
		operands = []string{"-"}
	}
	var ins []input
	for _, o := range operands {
		in, err := c.open(o)
		if err != nil {
			return nil, err
		}
		ins = append(ins, in)
	}
	return ins, nil
}

// splitLines splits data into lines without their '\n'. A final line with
// no newline is still a line; empty data has no lines. noEOL reports
// whether the last line lacked its newline.
func splitLines(data []byte) (lines []string, noEOL bool) {
	if len(data) == 0 {
		return nil, false
	}
	s := string(data)
	noEOL = !strings.HasSuffix(s, "\n")
	if !noEOL {
		s = s[:len(s)-1]
	}
	return strings.Split(s, "\n"), noEOL
}

// joinLines is the inverse of splitLines for output: every line ends in
// '\n' (GNU text tools add the missing final newline, except where a
// caller says otherwise).
func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// opt is one parsed command-line option: key is the short letter (or the
// long name when it has no short form), val its argument.
type opt struct {
	key string
	val string
}

// optSpec describes a GNU getopt_long option set. short lists option
// letters, a letter followed by ':' taking an argument. long maps a long
// name to the key it stands for and whether it takes an argument.
type optSpec struct {
	short string
	long  map[string]longOpt
	// noPermute stops option parsing at the first operand (POSIX order)
	// instead of GNU's permutation.
	noPermute bool
}

// longOpt is one long option of an optSpec.
type longOpt struct {
	key string
	arg bool
}

// getopt parses args as GNU getopt_long would (with permutation unless
// spec.noPermute). An option it does not know is unsupported: the real
// tool may accept it, so it cannot be answered.
func getopt(args []string, spec optSpec) ([]opt, []string, error) {
	var opts []opt
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			return opts, operands, nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			lo, ok := spec.long[name]
			if !ok {
				return nil, nil, unsup("option --%s not implemented", name)
			}
			if lo.arg && !hasVal {
				if i+1 >= len(args) {
					return nil, nil, unsup("option --%s needs an argument", name)
				}
				i++
				val = args[i]
			} else if !lo.arg && hasVal {
				return nil, nil, unsup("option --%s takes no argument", name)
			}
			opts = append(opts, opt{key: lo.key, val: val})
		case strings.HasPrefix(a, "-") && a != "-":
			for j := 1; j < len(a); j++ {
				ch := a[j]
				k := strings.IndexByte(spec.short, ch)
				if k < 0 || ch == ':' {
					return nil, nil, unsup("option -%c not implemented", ch)
				}
				if k+1 < len(spec.short) && spec.short[k+1] == ':' {
					val := a[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							return nil, nil, unsup("option -%c needs an argument", ch)
						}
						i++
						val = args[i]
					}
					opts = append(opts, opt{key: string(ch), val: val})
					break
				}
				opts = append(opts, opt{key: string(ch)})
			}
		default:
			if spec.noPermute {
				operands = append(operands, args[i:]...)
				return opts, operands, nil
			}
			operands = append(operands, a)
		}
	}
	return opts, operands, nil
}
