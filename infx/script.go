package infx

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// Default bounds for running a script (ScriptOptions zero values). The step
// bound is the deterministic one that ends an endless loop, and the only
// one that decides anything; the wall-time bound only backs it up (a loop
// of slow builtins, a pipeline that never drains), generous enough that a
// normal script never meets it on a loaded machine, and a run it stops is
// ErrScriptTimeLimit ("time limit — re-run"), never a verdict. Every point of
// InferenceX 843c6254 (workflow step, launcher, script and library
// together) renders the same with a bound of 20,000 steps; 50,000 leaves a
// margin and ends an endless loop in about half a second.
const (
	DefaultScriptTimeout = 2 * time.Minute
	DefaultScriptSteps   = 50000
)

// Bounds a script cannot change. Shell function calls nest (each call a
// deeper scope, so a deep recursion costs quadratic time) and variables can
// double without running a command (`s=$s$s`), so both are bounded apart
// from the step count; real benchmark scripts stay far below either.
const (
	// MaxScriptFuncCalls is the number of shell function calls one run may make.
	MaxScriptFuncCalls = 5000
	// MaxScriptBytes bounds, in bytes, the variables of a run taken together
	// and the arguments of any one command.
	MaxScriptBytes = 16 << 20
)

// sizeCheckCmd is the command guardAssignments puts in front of every
// assignment value; the call handler answers it (see sandbox.call).
const sizeCheckCmd = "__cookbook_sync_size_check"

// guardAssignments makes every assignment in the script check the size of
// the variables first: `x=VALUE` becomes `x=$(sizeCheckCmd)VALUE`. The
// command substitution prints nothing, and put first it leaves the status
// of the assignment (that of its last command substitution) as it was.
// Sourced files are not rewritten; the per-command argument bound still
// applies to them.
func guardAssignments(f *syntax.File) {
	guard := func(as []*syntax.Assign) {
		for _, a := range as {
			if a.Value == nil {
				continue
			}
			check := &syntax.CmdSubst{Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{
				Args: []*syntax.Word{{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: a.Pos(), ValueEnd: a.Pos(), Value: sizeCheckCmd}}}},
			}}}}
			a.Value.Parts = append([]syntax.WordPart{check}, a.Value.Parts...)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			guard(n.Assigns)
		case *syntax.DeclClause:
			guard(n.Args)
		}
		return true
	})
}

// stepCmd is the command countIterations puts in every loop; the call
// handler counts it against the step bound (sandbox.iters).
const stepCmd = "__cookbook_sync_step"

// countIterations makes every loop count its iterations: `while`/`until`
// run stepCmd first in their condition (whose status is its last
// command's), `for` and `select` first in their body. A loop whose body
// has no simple command (`while [[ 1 ]]; do ((x++)); done`) then ends at
// the step bound, not at the wall-time bound.
func countIterations(f *syntax.File, name string) {
	step := func(at syntax.Pos) *syntax.Stmt {
		w := func(v string) *syntax.Word { return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: v}}} }
		return &syntax.Stmt{Cmd: &syntax.CallExpr{Args: []*syntax.Word{w(stepCmd), w(markerWord(ctxPlain, at, name))}}}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.WhileClause:
			x.Cond = append([]*syntax.Stmt{step(x.Pos())}, x.Cond...)
		case *syntax.ForClause:
			x.Do = append([]*syntax.Stmt{step(x.Pos())}, x.Do...)
		}
		return true
	})
}

// markerWord is the marker of a position (marker.cmd's format).
func markerWord(ctx byte, at syntax.Pos, name string) string {
	return fmt.Sprintf("%s%c:%d:%d:%s", markerPrefix, ctx, at.Line(), at.Col(), name)
}

// posCmd is the command markTests puts in a file test's operand; the call
// handler records its position (the command last reached), so that a test
// the sandbox cannot answer is reported where it is written.
const posCmd = "__cookbook_sync_pos"

// markTests puts `$(posCmd MARKER)` (which prints nothing) in front of the
// operand of every file test of a [[ … ]] clause (-e FILE, A -nt B, …).
func markTests(f *syntax.File, name string) {
	syntax.Walk(f, func(n syntax.Node) bool {
		var w *syntax.Word
		switch x := n.(type) {
		case *syntax.UnaryTest:
			if x.Op >= syntax.TsExists && x.Op <= syntax.TsSocket || x.Op == syntax.TsSmbLink || x.Op == syntax.TsSticky ||
				x.Op == syntax.TsGIDSet || x.Op == syntax.TsUIDSet || x.Op == syntax.TsGrpOwn || x.Op == syntax.TsUsrOwn ||
				x.Op == syntax.TsModif || x.Op == syntax.TsRead || x.Op == syntax.TsWrite || x.Op == syntax.TsExec || x.Op == syntax.TsNoEmpty {
				w, _ = x.X.(*syntax.Word)
			}
		case *syntax.BinaryTest:
			if x.Op == syntax.TsNewer || x.Op == syntax.TsOlder || x.Op == syntax.TsDevIno {
				w, _ = x.X.(*syntax.Word)
			}
		}
		if w != nil {
			check := &syntax.CmdSubst{Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: []*syntax.Word{
				{Parts: []syntax.WordPart{&syntax.Lit{Value: posCmd}}},
				{Parts: []syntax.WordPart{&syntax.Lit{Value: markerWord(ctxPlain, w.Pos(), name)}}},
			}}}}}
			w.Parts = append([]syntax.WordPart{check}, w.Parts...)
		}
		return true
	})
}

// replCheckCmd is the command guardReplacements puts in front of every
// pattern replacement; the call handler answers it (replCheck).
const replCheckCmd = "__cookbook_sync_repl_check"

// guardReplacements makes every pattern replacement `${x//pat/repl}` check
// the size of its result before the interpreter computes it: in front of
// it goes `$(replCheckCmd all|one "pat" "${x}" -- "repl")`, which prints
// nothing and stops the run (replCheck) when the result could exceed
// MaxScriptBytes. Nested replacements are guarded first, so a guard's own
// operands are guarded too.
func guardReplacements(f *syntax.File) {
	type site struct {
		parts *[]syntax.WordPart
		pe    *syntax.ParamExp
	}
	var sites []site
	syntax.Walk(f, func(n syntax.Node) bool {
		var parts *[]syntax.WordPart
		switch x := n.(type) {
		case *syntax.Word:
			parts = &x.Parts
		case *syntax.DblQuoted:
			parts = &x.Parts
		default:
			return true
		}
		for _, p := range *parts {
			if pe, ok := p.(*syntax.ParamExp); ok && pe.Repl != nil && pe.Repl.With != nil && pe.Param != nil && pe.Names == 0 {
				sites = append(sites, site{parts, pe})
			}
		}
		return true
	})
	for i := len(sites) - 1; i >= 0; i-- { // innermost first
		s := sites[i]
		idx := -1
		for j, p := range *s.parts {
			if p == s.pe {
				idx = j
				break
			}
		}
		if idx < 0 {
			continue
		}
		mode := "one"
		if s.pe.Repl.All {
			mode = "all"
		}
		lit := func(v string) *syntax.Word {
			return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: v}}}
		}
		operand := &syntax.ParamExp{Param: s.pe.Param, Index: s.pe.Index, Excl: s.pe.Excl}
		args := []*syntax.Word{lit(replCheckCmd), lit(mode), quotedCopy(s.pe.Repl.Orig),
			{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{operand}}}}, lit("--"), quotedCopy(s.pe.Repl.With)}
		check := &syntax.CmdSubst{Stmts: []*syntax.Stmt{{Cmd: &syntax.CallExpr{Args: args}}}}
		np := make([]syntax.WordPart, 0, len(*s.parts)+1)
		np = append(np, (*s.parts)[:idx]...)
		np = append(np, check)
		np = append(np, (*s.parts)[idx:]...)
		*s.parts = np
	}
}

// quotedCopy is a word with w's parts, in double quotes when every part
// may stand there (one field, no globbing), else as it is.
func quotedCopy(w *syntax.Word) *syntax.Word {
	if w == nil {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: ""}}}
	}
	parts := append([]syntax.WordPart(nil), w.Parts...)
	for _, p := range parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp:
		default:
			return &syntax.Word{Parts: parts}
		}
	}
	if len(parts) == 0 {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: ""}}}
	}
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: parts}}}
}

// replCheck answers replCheckCmd: args are "all"|"one", the pattern, the
// operand's fields, "--" and the replacement's fields. The result of the
// replacement is at most each field's length plus, per match, the
// replacement's: a literal pattern's matches are counted, a glob's are at
// most one per byte (and one for the empty string). An error
// (ErrScriptLimit) when that could exceed MaxScriptBytes.
func replCheck(args []string) error {
	if len(args) < 3 {
		return nil
	}
	all, pat, rest := args[0] == "all", args[1], args[2:]
	sep := len(rest)
	for i, a := range rest {
		if a == "--" {
			sep = i
		}
	}
	repl := 0
	for i, a := range rest[min(sep+1, len(rest)):] {
		repl += len(a)
		if i > 0 {
			repl++
		}
	}
	literal := pat != "" && !strings.ContainsAny(pat, "*?[\\")
	total := 0
	for _, f := range rest[:sep] {
		matches := 1
		if all {
			if literal {
				matches = strings.Count(f, pat)
			} else {
				matches = len(f) + 1
			}
		}
		total += len(f) + matches*repl
		if total > MaxScriptBytes || total < 0 {
			return fmt.Errorf("%w: a pattern replacement (${name//pattern/replacement}) could produce more than %d bytes; refused before it is expanded", ErrScriptLimit, MaxScriptBytes)
		}
	}
	return nil
}

// ScriptOptions bound and configure one script run.
type ScriptOptions struct {
	// ctx, when set, is the context of the rendering the run is part of
	// (Workspace.Render): the run stops when it is done.
	ctx context.Context
	// Env is the point's environment, "NAME=value" (MODEL, TP, EP_SIZE,
	// CONC, ISL, OSL, …). Nothing from the host environment is passed.
	Env []string
	// ReadRoots are directories the script may read (e.g. the checkout);
	// every write goes to an in-memory sink, reads elsewhere see no file.
	ReadRoots []string
	// Timeout is the wall-time backstop (default DefaultScriptTimeout): a
	// run it stops is ErrScriptTimeLimit.
	Timeout time.Duration
	// Steps bounds the number of simple commands run, builtins and
	// function calls included (default DefaultScriptSteps).
	Steps int
	// Lib, when set, is the checkout's benchmarks/benchmark_lib.sh: a
	// `source …/benchmark_lib.sh` loads it followed by the no-op stubs of
	// its benchmark-harness helpers (benchmarkLibStub). Empty: a sourced
	// benchmark_lib.sh is read from where the script names it, when it is
	// inside ReadRoots; the stubs follow it the same way.
	Lib string
	// Facts are the machine the hardware probes (nvidia-smi, amd-smi,
	// rocm-smi, nproc, free) describe; zero: probes are unknown commands.
	Facts shellutil.Facts
	// Dir is the working directory the script starts in (default: an
	// empty temporary directory).
	Dir string
	// Params are the script's positional parameters ($1 …).
	Params []string
	// Name is how the script is shown in positions (default: its path).
	Name string
	// Cache, when set, keeps prepared scripts across runs (a Workspace
	// shares one between its points).
	Cache *ScriptCache
}

// Command is one external command the script would have run: its argv and
// the environment variables the script exported or set for it (the point's
// own environment left out), at a script position.
type Command struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env,omitempty"` // NAME=value, sorted by name
	// File is the script (or sourced file) the command is written in, as
	// ScriptOptions.Name / the path the script named it by.
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	// Dir is the logical working directory the command ran in.
	Dir string `json:"dir,omitempty"`
	// Seq orders commands and file writes (WrittenFile.Seq) of one run.
	Seq int `json:"seq"`
}

// ScriptStart is one script a run started with `bash FILE` (directly, or
// as the command of `srun …`, `docker run …`, `bash -c`): the file, the
// environment it started with (exported variables that differ from the
// run's starting environment, NAME=value sorted), and where it was started.
type ScriptStart struct {
	File string   `json:"file"` // filesystem path
	Env  []string `json:"env,omitempty"`
	// Unset lists variables of the starting environment the new script
	// does not have (docker run passes only what -e names).
	Unset []string `json:"unset,omitempty"`
	At    Pos      `json:"at"`
	// Missing: the file is not in the checkout (bash reports "No such
	// file or directory" and the command fails with status 127).
	Missing bool `json:"missing,omitempty"`
	// Exit is the script's exit status; ExitAt the `exit` that ended it
	// (zero when it ran to its end); ExitMsg the last line written to
	// stderr before it ended.
	Exit    int    `json:"exit"`
	ExitAt  Pos    `json:"exitAt"`
	ExitMsg string `json:"exitMsg,omitempty"`
}

// StopReason says why a run was not followed to its end: a command the
// sandbox cannot evaluate whose status or output the script uses.
type StopReason struct {
	At      Pos    `json:"at"`
	Command string `json:"command"`
	Reason  string `json:"reason"`
}

// String gives "file:line:col: reason".
func (s *StopReason) String() string {
	return fmt.Sprintf("%s: %s", s.At, s.Reason)
}

// ScriptRun is what running a script recorded.
type ScriptRun struct {
	File string `json:"file"`
	// Commands are every external command in execution order (background
	// commands in the order the interpreter reached them).
	Commands []Command `json:"commands"`
	// Writes maps each file the script tried to write (absolute path as the
	// script named it) to what it wrote; nothing reaches the disk.
	Writes map[string]string `json:"writes,omitempty"`
	// Scripts are the scripts the run started (bash FILE), in order.
	Scripts []ScriptStart `json:"scripts,omitempty"`
	// Written lists every write to a file (logical absolute paths), in
	// order.
	Written []WrittenFile `json:"written,omitempty"`
	// Clones are the git clones the run made (with the ref checked out),
	// Copies the directories it copied with cp -r, in order.
	Clones []GitClone `json:"clones,omitempty"`
	Copies []CopyInto `json:"copies,omitempty"`
	// Srtctl is the srtctl apply that ended the run (multi-node
	// launchers), nil when it reached none.
	Srtctl *SrtctlApply `json:"srtctl,omitempty"`
	// Stop is set when the run ended at a command the sandbox cannot
	// evaluate (an unknown command in a condition or a value).
	Stop *StopReason `json:"stop,omitempty"`
	// Exit is the run's exit status; ExitAt the `exit` that ended it (zero
	// Pos when it ran to its end), ExitMsg the last line the script wrote
	// to stderr before.
	Exit    int    `json:"exit"`
	ExitAt  Pos    `json:"exitAt"`
	ExitMsg string `json:"exitMsg,omitempty"`
}

// relaxSet drops errexit, nounset and xtrace from a `set` call: values a
// script computes from commands the sandbox answers only in part can be
// empty, and the script should still reach its launch command; the trace
// goes to the runner's log, which no script reads (a trace captured by
// `2>&1 | grep …` would only add lines the grep drops).
func relaxSet(args []string) []string {
	out := []string{args[0]}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if (a == "-o" || a == "+o") && i+1 < len(args) {
			if args[i+1] == "errexit" || args[i+1] == "nounset" || args[i+1] == "xtrace" {
				i++
				continue
			}
			out = append(out, a, args[i+1])
			i++
			continue
		}
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			a = strings.NewReplacer("e", "", "u", "", "x", "").Replace(a)
			if a == "-" || a == "+" {
				continue
			}
		}
		out = append(out, a)
	}
	if len(out) == 1 {
		// A bare `set` prints the variables; keep it harmless.
		return []string{"set", "+e"}
	}
	return out
}

// printfCompat rewrites `printf [-v VAR] FMT ARGS…` whose format uses what
// the interpreter's printf lacks (mvdan.cc/sh/v3 expand.Format knows only
// %s %b %c %d %i %u %o %x with flags and width: no precision, no '#', no
// %X %e %f %g, no %q) into a printf of %s conversions whose arguments are
// formatted here the way bash's printf (C printf) does: %q quotes like
// bash (backslash before shell-special characters; scripts save the server
// command with printf '%q ' "${CMD[@]}"), floats and precisions as C does.
// As in bash the format is reused while arguments remain, and missing
// arguments count as "" or 0. It returns false, leaving the call alone,
// when the format needs nothing of this or has what it does not handle
// (a '*' width, %a).
func printfCompat(args []string) ([]string, bool) {
	fi := 1
	if len(args) > 3 && args[1] == "-v" {
		fi = 3
	}
	if len(args) <= fi {
		return args, false
	}
	format := args[fi]
	type spec struct {
		start, end int    // format[start:end] is the whole %… spec
		flags      string // between % and the verb
		verb       byte
	}
	var specs []spec
	rewrite := false
	for i := 0; i < len(format); i++ {
		if format[i] == '\\' {
			i++
			continue
		}
		if format[i] != '%' || i+1 >= len(format) {
			continue
		}
		if format[i+1] == '%' {
			i++
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.*", format[j]) >= 0 {
			j++
		}
		if j >= len(format) {
			return args, false
		}
		sp := spec{start: i, end: j + 1, flags: format[i+1 : j], verb: format[j]}
		switch {
		case strings.Contains(sp.flags, "*") || sp.verb == 'a' || sp.verb == 'A':
			return args, false
		case strings.IndexByte("sbcdiuox", sp.verb) < 0 || strings.ContainsAny(sp.flags, ".#"):
			rewrite = true
		}
		specs = append(specs, sp)
		i = j
	}
	if !rewrite {
		return args, false
	}
	var nf strings.Builder
	last := 0
	for _, sp := range specs {
		nf.WriteString(format[last:sp.start])
		if sp.verb == 'b' {
			nf.WriteString("%b")
		} else {
			nf.WriteString("%s")
		}
		last = sp.end
	}
	nf.WriteString(format[last:])
	out := append(append([]string(nil), args[:fi]...), nf.String())
	rest := args[fi+1:]
	n := max(len(specs), (len(rest)+len(specs)-1)/len(specs)*len(specs))
	for i := 0; i < n; i++ {
		a, given := "", i < len(rest)
		if given {
			a = rest[i]
		}
		out = append(out, cFormat(specs[i%len(specs)].flags, specs[i%len(specs)].verb, a, given))
	}
	return out, true
}

var shellNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?$`)

// printfV runs `printf -v VAR FMT ARGS…` (which the interpreter's printf
// lacks) as `eval VAR='…'`: the assignment happens in the caller's scope,
// as bash's printf -v does. A bad name or format is left to the
// interpreter to report.
func printfV(args []string) []string {
	name, format, rest := args[2], args[3], args[4:]
	if !shellNameRE.MatchString(name) {
		return args
	}
	var b strings.Builder
	for {
		s, n, err := expand.Format(&expand.Config{}, format, rest)
		if err != nil {
			return args
		}
		b.WriteString(s)
		rest = rest[n:]
		if n == 0 || len(rest) == 0 {
			break
		}
	}
	return []string{"eval", name + "='" + strings.ReplaceAll(b.String(), "'", `'"'"'`) + "'"}
}

// cFormat formats one argument for a %<flags><verb> conversion the way C's
// printf (and so bash's) does.
func cFormat(flags string, verb byte, arg string, given bool) string {
	num := func() int64 {
		a := strings.TrimSpace(arg)
		if len(a) > 1 && (a[0] == '\'' || a[0] == '"') {
			return int64(a[1]) // bash: the leading character's code
		}
		v, _ := strconv.ParseInt(a, 0, 64)
		return v
	}
	switch verb {
	case 'b':
		return arg
	case 'q':
		if !given {
			return ""
		}
		return fmt.Sprintf("%"+flags+"s", bashQuote(arg))
	case 's':
		return fmt.Sprintf("%"+flags+"s", arg)
	case 'c':
		if arg != "" {
			arg = arg[:1]
		}
		return fmt.Sprintf("%"+flags+"s", arg)
	case 'd', 'i':
		return fmt.Sprintf("%"+flags+"d", num())
	case 'u':
		return fmt.Sprintf("%"+flags+"d", uint64(num()))
	case 'o', 'x', 'X':
		return fmt.Sprintf("%"+flags+string(verb), uint64(num()))
	case 'f', 'F', 'e', 'E', 'g', 'G':
		v, _ := strconv.ParseFloat(strings.TrimSpace(arg), 64)
		if (verb == 'g' || verb == 'G') && !strings.Contains(flags, ".") {
			flags += ".6" // C's default precision; Go's %g is the shortest
		}
		return fmt.Sprintf("%"+flags+string(verb), v)
	}
	return arg
}

// bashQuote quotes s like bash's printf %q (sh_backslash_quote).
func bashQuote(s string) string {
	if s == "" {
		return "''"
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case strings.ContainsRune(" \t\n'\"\\|&;()<>!{}*[]?^$`,", r):
			b.WriteByte('\\')
		case i == 0 && (r == '#' || r == '~'):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cat copies its files (or stdin, e.g. a heredoc) to stdout, so that
// `cat > config.yaml <<EOF … EOF` leaves the file's text in Writes. Files
// the script wrote are read back from Writes; others only inside the
// readable roots.
func (sb *sandbox) cat(ctx context.Context, hc interp.HandlerContext, files []string) {
	var names []string
	for _, f := range files {
		if !strings.HasPrefix(f, "-") || f == "-" {
			names = append(names, f)
		}
	}
	if len(names) == 0 {
		names = []string{"-"}
	}
	for _, f := range names {
		if f == "-" {
			if hc.Stdin != nil {
				io.Copy(hc.Stdout, io.LimitReader(hc.Stdin, 1<<20))
			}
			continue
		}
		sb.mu.Lock()
		data, ok := sb.run.Writes[f]
		sb.mu.Unlock()
		if ok {
			io.WriteString(hc.Stdout, data)
			continue
		}
		p := sb.abs(ctx, f)
		fh, err := sb.jail.open(p)
		if err != nil {
			sb.refused(f, err)
			continue
		}
		io.Copy(hc.Stdout, io.LimitReader(fh, 1<<20))
		fh.Close()
	}
}

// tee copies stdin to stdout and into each named file's Writes entry.
func (sb *sandbox) tee(hc interp.HandlerContext, args []string) {
	appendMode := false
	var files []string
	for _, a := range args {
		switch {
		case a == "-a" || a == "--append":
			appendMode = true
		case strings.HasPrefix(a, "-"):
		default:
			files = append(files, a)
		}
	}
	var buf bytes.Buffer
	if hc.Stdin != nil {
		io.Copy(&buf, io.LimitReader(hc.Stdin, 1<<20))
	}
	hc.Stdout.Write(buf.Bytes())
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.closed {
		return
	}
	for _, f := range files {
		if appendMode {
			sb.run.Writes[f] += buf.String()
		} else {
			sb.run.Writes[f] = buf.String()
		}
		lp := f
		if !filepath.IsAbs(lp) {
			lp = filepath.Join(hc.Dir, lp)
		}
		sb.noteWrite(lp, buf.String(), appendMode, false)
	}
}

// abs resolves p against the interpreter's directory, then maps it from
// where it is mounted in the job (srun --container-mounts, docker -v, a
// staged copy of the checkout: sandbox.mount) to the real path.
func (sb *sandbox) abs(ctx context.Context, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(interp.HandlerCtx(ctx).Dir, p)
	}
	return sb.real(filepath.Clean(p))
}

// real maps a logical path through the mounts (longest prefix first).
func (sb *sandbox) real(p string) string {
	sb.fsmu.Lock()
	defer sb.fsmu.Unlock()
	for i := 0; i < 8; i++ { // mounts of mounts, bounded
		best := ""
		for m := range sb.mounts {
			if within(p, m) && len(m) > len(best) {
				best = m
			}
		}
		if best == "" {
			return p
		}
		to := sb.mounts[best]
		if to == best {
			return p
		}
		p = filepath.Join(to, strings.TrimPrefix(p, best))
	}
	return p
}

// mount makes the logical directory at show the real directory from (a
// container mount or a staged copy); "/" and the sandbox's own logical
// directories (logicalTmp) are never remounted.
func (sb *sandbox) mount(at, from string) {
	at, from = filepath.Clean(at), filepath.Clean(from)
	if at == "/" || at == from || sb.vdirs[at] {
		return
	}
	sb.fsmu.Lock()
	if sb.mounts == nil {
		sb.mounts = map[string]string{}
	}
	sb.mounts[at] = from
	sb.fsmu.Unlock()
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// sink collects what the script writes to one file.
type sink struct {
	sb         *sandbox
	name       string
	logical    string // the file's logical absolute path
	over       bool   // more was written than kept
	appendMode bool
	buf        bytes.Buffer
}

func (s *sink) Read([]byte) (int, error) { return 0, io.EOF }
func (s *sink) Write(b []byte) (int, error) {
	if s.buf.Len() < 1<<20 {
		s.buf.Write(b)
	} else {
		s.over = true
	}
	return len(b), nil
}
func (s *sink) Close() error {
	s.sb.mu.Lock()
	defer s.sb.mu.Unlock()
	if s.sb.closed {
		return nil
	}
	if s.appendMode {
		s.sb.run.Writes[s.name] += s.buf.String()
	} else {
		s.sb.run.Writes[s.name] = s.buf.String()
	}
	s.sb.noteWrite(s.logical, s.buf.String(), s.appendMode, s.over)
	return nil
}

// WrittenFile is a file a run wrote to (a redirection, tee, mktemp): its
// logical absolute path and the command last reached when it was written.
type WrittenFile struct {
	Path string `json:"path"`
	At   Pos    `json:"at"`
	// Data is what was written; Append: added to the file's end (>>,
	// tee -a), else it replaced the file; Truncated: more was written than
	// the sandbox keeps (1 MiB), so Data is not all of it.
	Data      string `json:"data,omitempty"`
	Append    bool   `json:"append,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	// Seq orders writes and commands (Command.Seq).
	Seq int `json:"seq"`
}

// noteWrite records a write to the logical path p (sb.mu held).
func (sb *sandbox) noteWrite(p, data string, appendMode, truncated bool) {
	if p == "" {
		return
	}
	sb.seq++
	sb.run.Written = append(sb.run.Written, WrittenFile{Path: filepath.Clean(p), At: Pos{File: sb.lastFile, Line: sb.lastLine, Col: sb.lastCol},
		Data: data, Append: appendMode, Truncated: truncated, Seq: sb.seq})
}

type nopRW struct{}

func (nopRW) Read([]byte) (int, error)    { return 0, io.EOF }
func (nopRW) Write(b []byte) (int, error) { return len(b), nil }
func (nopRW) Close() error                { return nil }

type readOnly struct{ r io.Reader }

func (r readOnly) Read(b []byte) (int, error) { return r.r.Read(b) }
func (readOnly) Write([]byte) (int, error)    { return 0, fs.ErrPermission }
func (readOnly) Close() error                 { return nil }

type readOnlyFile struct{ f *os.File }

func (r readOnlyFile) Read(b []byte) (int, error) { return r.f.Read(b) }
func (readOnlyFile) Write([]byte) (int, error)    { return 0, fs.ErrPermission }
func (r readOnlyFile) Close() error               { return r.f.Close() }

// arithWatch passes the interpreter's stderr on to w and notices the
// errors of mvdan.cc/sh/v3/expand.Arithm (which the interpreter prints and
// then goes on), stopping the run at the first one.
type arithWatch struct {
	w    io.Writer
	stop context.CancelFunc
	mu   sync.Mutex
	msg  string
	// limit is the interpreter's "brace expansion would exceed N
	// elements" (mvdan.cc/sh/v3 expand/braces.go): bash would expand it,
	// the interpreter expands nothing, so the run is stopped.
	limit string
}

func (a *arithWatch) Write(b []byte) (int, error) {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); strings.Contains(l, "brace expansion would exceed") {
			a.mu.Lock()
			if a.limit == "" {
				a.limit = l
				a.stop()
			}
			a.mu.Unlock()
		} else if isArithErr(l) {
			a.mu.Lock()
			if a.msg == "" {
				a.msg = l
				a.stop()
			}
			a.mu.Unlock()
		}
	}
	return a.w.Write(b)
}

// limitMessage is the brace-expansion bound message, "" when none.
func (a *arithWatch) limitMessage() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.limit
}

func (a *arithWatch) message() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.msg
}

// isArithErr reports whether msg is one of expand.Arithm's errors
// (mvdan.cc/sh/v3 expand/arith.go).
func isArithErr(msg string) bool {
	return msg == "division by zero" || msg == "exponent less than 0" ||
		strings.HasPrefix(msg, "unsupported unary arithmetic operator") ||
		strings.HasPrefix(msg, "unsupported binary arithmetic operator")
}

// arithErrPos finds the first arithmetic expression of file ($((…)),
// ((…)), let) that fails with msg when evaluated with the variables the run
// ended with; 0, 0 when none does (say, a function's local operand).
func arithErrPos(file *syntax.File, vars map[string]expand.Variable, msg string) (line, col int) {
	cfg := &expand.Config{Env: varsEnviron(vars)}
	syntax.Walk(file, func(n syntax.Node) bool {
		if line > 0 {
			return false
		}
		var exprs []syntax.ArithmExpr
		switch x := n.(type) {
		case *syntax.ArithmExp:
			exprs = []syntax.ArithmExpr{x.X}
		case *syntax.ArithmCmd:
			exprs = []syntax.ArithmExpr{x.X}
		case *syntax.LetClause:
			exprs = x.Exprs
		}
		for _, e := range exprs {
			if e == nil {
				continue
			}
			if _, err := expand.Arithm(cfg, e); err != nil && err.Error() == msg {
				line, col = int(n.Pos().Line()), int(n.Pos().Col())
				return false
			}
		}
		return true
	})
	return line, col
}

// varsEnviron is a read-only expand.Environ over a runner's variables.
type varsEnviron map[string]expand.Variable

func (v varsEnviron) Get(name string) expand.Variable { return v[name] }

func (v varsEnviron) Each(f func(name string, vr expand.Variable) bool) {
	for k, vr := range v {
		if !f(k, vr) {
			return
		}
	}
}

// limitedBuffer keeps the first 64 KiB of the script's output.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *limitedBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() < 64<<10 {
		l.buf.Write(b)
	}
	return len(b), nil
}

// argsSize is the number of bytes in args.
func argsSize(args []string) int {
	n := 0
	for _, a := range args {
		n += len(a)
	}
	return n
}
