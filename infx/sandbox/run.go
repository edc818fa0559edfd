package sandbox

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// Default bounds for running a script (Config zero values). The step
// bound is the deterministic one that ends an endless loop, and the only
// one that decides anything; the wall-time bound only backs it up (a loop
// of slow builtins, a pipeline that never drains), generous enough that a
// normal script never meets it on a loaded machine, and a run it stops is
// a TimeLimit ("time limit — re-run"), never a verdict. Every point of
// InferenceX 843c6254 (workflow step, launcher, script and library
// together) renders the same with a bound of 20,000 steps; 50,000 leaves a
// margin and ends an endless loop in about half a second.
const (
	DefaultTimeout = 2 * time.Minute
	DefaultSteps   = 50000
)

// Bounds a script cannot change. Shell function calls nest (each call a
// deeper scope, so a deep recursion costs quadratic time) and variables can
// double without running a command (`s=$s$s`), so both are bounded apart
// from the step count; real benchmark scripts stay far below either.
const (
	// MaxFuncCalls is the number of shell function calls one run may make.
	MaxFuncCalls = 5000
	// MaxBytes bounds, in bytes, the variables of a run taken together
	// and the arguments of any one command.
	MaxBytes = 16 << 20
)

// Pos is a position in a script or an input file (1-based line and
// column; 0 when unknown).
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// String gives "file:line:col" (the file through launch.QuotePath).
func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", launch.QuotePath(p.File), p.Line, p.Col) }

// PosError is an error at a position in an input file: the sandbox's
// parse errors, and the Limit and TimeLimit outcomes at the command last
// reached, are *launch.InputError values (so a caller maps them like any
// other reader's positioned error).
type PosError = launch.InputError

// Errors callers can test for with errors.Is.
var (
	// ErrLimit: a script ran past a bound that counts work (steps, loop
	// iterations, bytes, nesting): the same on every machine. Every
	// *Limit is one.
	ErrLimit = errors.New("script exceeded its execution limit")
	// ErrTimeLimit: a script ran past the wall-time backstop
	// (Config.Timeout). It says nothing about the script (a loaded machine
	// may be the cause): never cache the result. Every *TimeLimit is one.
	ErrTimeLimit = errors.New("time limit — re-run: the script ran past the sandbox's wall-clock backstop")
)

// LimitKind says which bound a Limit is.
type LimitKind int

// The bounds of a run (see Limit).
const (
	// LimitSteps: more simple commands than Config.Steps.
	LimitSteps LimitKind = iota + 1
	// LimitIterations: more loop iterations than Config.Steps.
	LimitIterations
	// LimitFuncCalls: more shell function calls than MaxFuncCalls.
	LimitFuncCalls
	// LimitBytes: variables or one command's arguments past MaxBytes, or a
	// pattern replacement that could produce more.
	LimitBytes
	// LimitNesting: compound commands or brackets nested too deep to parse
	// safely, or scripts starting scripts too deep.
	LimitNesting
	// LimitExpansion: a brace expansion the interpreter refuses to make
	// (bash would make it).
	LimitExpansion
)

// Limit is the outcome of a run that exceeded a bound counting work: the
// same on every machine. Run returns it wrapped in a *PosError at the
// command last reached; errors.Is(err, ErrLimit) holds.
type Limit struct {
	Kind LimitKind
	// Msg says which bound and by how much ("more than 50000 loop
	// iterations (endless loop?)").
	Msg string
}

// Error gives ErrLimit's text followed by Msg.
func (e *Limit) Error() string { return ErrLimit.Error() + ": " + e.Msg }

// Unwrap returns ErrLimit.
func (e *Limit) Unwrap() error { return ErrLimit }

// limitf builds a *Limit.
func limitf(kind LimitKind, format string, args ...any) *Limit {
	return &Limit{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// TimeLimit is the outcome of a run the wall-clock backstop
// (Config.Timeout) stopped: distinct from a Limit, it says nothing about
// the script. Run returns it wrapped in a *PosError at the command last
// reached; errors.Is(err, ErrTimeLimit) holds.
type TimeLimit struct {
	// After is the backstop that fired.
	After time.Duration
}

// Error gives ErrTimeLimit's text and the backstop.
func (e *TimeLimit) Error() string {
	return fmt.Sprintf("%v (still running after %v)", ErrTimeLimit, e.After)
}

// Unwrap returns ErrTimeLimit.
func (e *TimeLimit) Unwrap() error { return ErrTimeLimit }

// Unsupported is the outcome of a run that was not followed to its end
// (Trace.Stop): a command the sandbox cannot evaluate whose status or
// output the script uses, a read the sandbox refuses, a handler's refusal
// (Call.Unsupported), or input the shell interpreter fails on.
type Unsupported struct {
	Pos Pos `json:"at"`
	// Command is the command stopped at ("" when none: an interpreter
	// failure).
	Command string `json:"command"`
	Msg     string `json:"reason"`
}

// String gives "file:line:col: msg".
func (s *Unsupported) String() string {
	return fmt.Sprintf("%s: %s", s.Pos, s.Msg)
}

// Error is String: an Unsupported can be returned as an error.
func (s *Unsupported) Error() string { return s.String() }

// Script is what Run runs: Src, known as Path. With Src nil, the script is
// read from Path (through the read roots when inside one: no link out of
// them is followed).
type Script struct {
	Path string
	Src  []byte
}

// Library is a shell library scripts source by a fixed base name (an
// InferenceX checkout's benchmarks/benchmark_lib.sh): sourcing any file of
// that name loads Path (or, when Path is empty or unreadable, the file
// where the script names it, inside the read roots) followed by Stubs.
type Library struct {
	// Name is the base name ("benchmark_lib.sh"); a `source` whose operand
	// ends with it loads the library.
	Name string
	// Path is the library's file; empty: read from where the script names
	// it.
	Path string
	// Stubs is shell text appended to the library: function definitions
	// that replace the library's own (a harness helper the sandbox cannot
	// answer). Their names count as functions from the start of the run.
	Stubs string
}

// Config bounds and configures one run. The zero value runs a script with
// the default bounds, no readable file, no runner facts and no handlers
// besides the sandbox's own.
type Config struct {
	// Name is how the script is shown in positions (default: Script.Path).
	Name string
	// Env is the script's whole environment, "NAME=value", after the
	// sandbox's logical HOME, PATH, TMPDIR, PWD, UID, EUID and GID. Nothing
	// from the host environment is passed.
	Env []string
	// ReadRoots are directories the script may read (e.g. the checkout);
	// every write goes to memory (Trace.Writes), reads elsewhere see no
	// file.
	ReadRoots []string
	// Dir is the working directory the script starts in (default: an
	// empty temporary directory of the sandbox's own).
	Dir string
	// Params are the script's positional parameters ($1 …).
	Params []string
	// Timeout is the wall-time backstop (default DefaultTimeout): a run it
	// stops is a TimeLimit.
	Timeout time.Duration
	// Steps bounds the number of simple commands run, builtins and
	// function calls included, and separately the loop iterations
	// (default DefaultSteps).
	Steps int
	// Facts are the machine the hardware probes (nvidia-smi, amd-smi,
	// rocm-smi, nproc, free) and findmnt describe; zero: probes are
	// unknown commands.
	Facts shellutil.Facts
	// Cache, when set, keeps prepared scripts across runs.
	Cache *Cache
	// Commands are the caller's handlers of external commands, by base
	// name: consulted before the sandbox's own (see Handler). A name in
	// the table is installed on the runner (`command -v` finds it at
	// /usr/bin).
	Commands map[string]Handler
	// Holes says the run's input holds holes (Hole) that stand for values
	// it must not look at (holes.go): the first look ends the run with a
	// *HoleError, whatever else it did. A hole in an argument of an
	// external command is a look, but for docker run's copied values
	// (copiesHole) and Slurm job names (slurmJobName, squeueName), the
	// caller's handlers included.
	Holes bool
	// Worlds, with Holes, are the values the holes stand for when the
	// caller knows them: in world i each hole is what Worlds[i] replaces
	// it by. What the run would look at is then decided by the worlds,
	// and is not a look when every world goes the same way: a pattern
	// removal (interp.HoleWorlds; `launch_${RUNNER_NAME%%_*}.sh` for two
	// runner names of one launcher), a file test (statWorlds), a text
	// utility's input (filterWorlds). The run then holds for those values
	// only.
	Worlds []*strings.Replacer
	// IsServer reports whether argv (wrappers removed) launches a server
	// the caller reads from Trace.Commands: such a command succeeds,
	// printing nothing, wherever it is written. Nil: none does.
	IsServer func(argv []string) bool
	// Library, when set, is the shell library scripts source by name.
	Library *Library
	// HostFiles are the runner's device-state files whose content is
	// documented (path → content); every other file under /sys, /proc,
	// /dev and the system directories is unknown.
	HostFiles map[string]string
	// ModelDir reports whether an environment variable holds a staged
	// checkpoint directory (model staging: the directory holds a complete
	// checkpoint; its files exist for tests and listings). Nil: none does.
	ModelDir func(name string) bool
	// ModelRoot reports whether an environment variable holds a directory
	// of staged checkpoints (an AMD cluster's model share, MODEL_DIR of
	// InferenceX benchmarks/multi_node/amd_utils/job.slurm): each entry
	// directly under it is a staged checkpoint directory. Nil: none does.
	ModelRoot func(name string) bool
	// TagCommit is the commit a tag names in a repository ("owner/name"
	// for github.com, else the URL) whose tags the caller knows, "" when
	// not known: `git rev-parse HEAD` in a clone checked out at a tag
	// prints it. Nil: no tag is known.
	TagCommit func(repo, tag string) string
	// EndAt, when set, is asked about each command the run records, with
	// the trace so far (both only read; the sandbox's lock is held, so it
	// must not call back into the run): true ends the run at once after
	// the command is recorded, as a handler's Call.End does but without an
	// End and without the command's handler, the run's status 0 and
	// Trace.EndedAt its Seq. For a caller that reads only a prefix of what
	// a run does (infx: whether another runner name starts the same
	// benchmark script and a server), the rest is not followed. Its answer
	// must depend on the trace and the command only, so that a run ends at
	// the same command on every machine. It is asked only when nothing
	// of the run runs beside the command (no background job or pipeline
	// stage running, the command not in one: interp.Goroutines), so that
	// what the run did up to it does not depend on scheduling; and not in
	// a run already stopping (a limit, a stop, bad input).
	EndAt func(t *Trace, c *Command) bool
	// Choose makes a probe or a condition whose answer depends on a fact
	// the sandbox does not know, but whose alternatives are few and
	// documented, a choice point (choice.go; Trace.Choices) answered by
	// Choices, instead of stopping the run as Unsupported. The caller
	// runs the script once per answer and never takes one for the fact.
	Choose bool
	// Choices are the alternatives to take at the choice points, by the
	// order the run reaches them (Choice.Answers' index); past its end,
	// and for an index out of range, 0.
	Choices []int
	// MaxChoices bounds the choice points one run may reach (default
	// DefaultMaxChoices): past it, the run stops as Unsupported naming
	// them.
	MaxChoices int
}

// Cache keeps the prepared form of scripts (parsed, marked, guarded; and
// the printed text of sourced files) across runs, so a checkout's library
// and launchers are parsed once. The prepared trees are only read by the
// interpreter. Safe for concurrent use; the zero value is ready.
type Cache struct {
	mu sync.Mutex
	// files and texts are keyed by the script's name (texts: with the
	// library stubs appended), then by its content: a lookup with the
	// bytes read copies nothing.
	files map[string]map[string]*preparedFile
	texts map[string]map[string]string
	// sourced keeps the source builtin's parse of each prepared text
	// (parseSourced), by the text (each name's tree within).
	sourced map[string]*parsedSource
	// plain keeps the parse of each script text inertScript read, as
	// written (nil: it does not parse), by the text alone.
	plain map[string]*keptTree
	// runs keeps the parse of each text a run starts and ends with
	// (runParse), by text and file name.
	runs map[runParseKey]*keptTree
	n    int // entries in files, texts, sourced, plain and runs together (at most cacheMax)
	// tick counts the uses of the parse trees kept (files, sourced, plain,
	// runs); treeBytes is the source bytes they were parsed from (at most
	// treeBytesMax once a new one is kept: treecache.go).
	tick      uint64
	treeBytes int
	// patterns keeps the compiled patterns of case and [[ == ]] for
	// every run (interp.Patterns; bounded by itself).
	patterns *interp.PatternCache
	// regexps keeps the regular expressions the text tools compile
	// (grep, sed, awk) for every run (shellutil.RunCached; bounded by
	// itself, safe for concurrent use).
	regexps shellutil.Regexps
	// memo keeps what Call.Memo made, by kind and input bytes; memoBytes
	// counts the input bytes it holds (at most memoMaxBytes).
	memo      map[memoKey]any
	memoBytes int
	// disk keeps the jail's stats and reads once FixTrees is called.
	disk *fileCache
	// stubFuncs are the names of the functions each Library.Stubs text
	// defines (libraryStubFuncs), by the text.
	stubFuncs map[string][]string
	// markers are the decoded marker words of every run (decodeMarker),
	// under their own lock (read at every command).
	// sites the same for execCmd site words (execSite).
	markMu  sync.RWMutex
	markers map[string]callSite
	sites   map[string]callSite
	// siteWords are the execCmd site words made (siteWord), by site.
	siteWords map[siteKey]string
}

// siteKey is what an execCmd site word says: a position and a context.
type siteKey struct {
	at   Pos
	kind byte
}

// memoKey is one Call.Memo entry: the kind of value and the input it was
// made from.
type memoKey struct{ kind, input string }

// memoMaxBytes bounds the input bytes a Cache's Memo entries hold
// together: past it, values are made again each time.
const memoMaxBytes = 32 << 20

// patternCache is c's interp.PatternCache, made on first use.
func (c *Cache) patternCache() *interp.PatternCache {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.patterns == nil {
		c.patterns = interp.NewPatternCache()
	}
	return c.patterns
}

// Release drops the prepared scripts c keeps (files, texts, sourced,
// plain and runs: the parse trees, the largest part of a Cache); the
// compiled patterns, regular expressions, memo and the tree reads stay.
// A later run prepares again what it needs, with the same outcome. Safe
// for concurrent use (a run holding a prepared tree keeps it).
func (c *Cache) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files, c.texts, c.sourced, c.plain, c.runs, c.n, c.treeBytes = nil, nil, nil, nil, nil, 0, 0
}

// Prepared is the number of prepared scripts c keeps (files, texts,
// sourced, plain and runs together; at most cacheMax).
func (c *Cache) Prepared() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// cacheMax bounds a Cache's entries (files, texts and sourced together): a run
// that makes more (hostile input) prepares the rest again each time.
const cacheMax = 8192

// Command is one external command the script would have run: its argv and
// the environment variables the script exported or set for it (the run's
// starting environment left out), at a script position.
type Command struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env,omitempty"` // NAME=value, sorted by name
	// File is the script (or sourced file) the command is written in, as
	// Config.Name / the path the script named it by.
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
	// Unknown, when set, says why Data is not what was written: a
	// program the sandbox does not evaluate wrote it (Trace.Unknown).
	Unknown string `json:"unknown,omitempty"`
	// Seq orders writes and commands (Command.Seq).
	Seq int `json:"seq"`
}

// FileEdit is a change a program makes to a file the run does not know
// (Call.EditFile): Path is logical and absolute, At where the command is
// written, Seq its Command.Seq; Program and Data are the handler's name
// for its model of the program and that model's input.
type FileEdit struct {
	Path    string `json:"path"`
	At      Pos    `json:"at"`
	Seq     int    `json:"seq"`
	Program string `json:"program"`
	Data    string `json:"data,omitempty"`
}

// End is the command a handler ended the run at (Call.End), such as a
// job submission after which nothing the script does changes the job.
type End struct {
	Argv []string `json:"argv"`
	// Dir is the logical working directory of the command.
	Dir string `json:"dir"`
	At  Pos    `json:"at"`
	// Env is the exported environment at the command (NAME=value, sorted).
	Env []string `json:"env,omitempty"`
}

// Trace is what a run did, recorded instead of done.
type Trace struct {
	File string `json:"file"`
	// Commands are every external command in execution order (background
	// commands in the order the interpreter reached them).
	Commands []Command `json:"commands"`
	// Writes maps each file the script tried to write (absolute path as the
	// script named it) to what it wrote; nothing reaches the disk.
	Writes map[string]string `json:"writes,omitempty"`
	// Unknown maps the files of Writes whose content is not what the file
	// holds to why (a program the sandbox does not evaluate wrote to it,
	// or more than the sandbox keeps): a reader of one uses a value the
	// sandbox cannot know (the read rule, readKnown).
	Unknown map[string]string `json:"unknown,omitempty"`
	// Scripts are the scripts the run started (bash FILE), in order.
	Scripts []ScriptStart `json:"scripts,omitempty"`
	// Written lists every write to a file (logical absolute paths), in
	// order.
	Written []WrittenFile `json:"written,omitempty"`
	// Clones are the git clones the run made (with the ref checked out),
	// Copies the files and directories it copied with cp, in order.
	Clones []GitClone `json:"clones,omitempty"`
	Copies []CopyInto `json:"copies,omitempty"`
	// Edits are the changes handlers described for files whose content
	// the run does not know (Call.EditFile), in order.
	Edits []FileEdit `json:"edits,omitempty"`
	// Choices are the choice points the run reached (Config.Choose), in
	// order, with the alternative taken at each.
	Choices []Choice `json:"choices,omitempty"`
	// Patches are the in-place edits (sed -i) of files of the container
	// image (outside the checkout and the read roots), whose content the
	// run does not know: an engine source patch, for instance. Program
	// is "sed -i", Data the sed script words joined by spaces.
	Patches []FileEdit `json:"patches,omitempty"`
	// Unfollowed are the child scripts the run went past after they
	// stopped at something not known (fence.go): every file read after
	// the first is refused.
	Unfollowed []Unfollowed `json:"unfollowed,omitempty"`
	// End is the command a handler ended the run at (Call.End), nil when
	// none did.
	End *End `json:"end,omitempty"`
	// EndedAt is the command Config.EndAt ended the run at (its Seq,
	// Command.Seq), 0 when it did not: the rest of the script was not
	// followed.
	EndedAt int `json:"endedAt,omitempty"`
	// Stop is set when the run was not followed to its end (Unsupported).
	Stop *Unsupported `json:"stop,omitempty"`
	// Exit is the run's exit status; ExitAt the `exit` that ended it (zero
	// Pos when it ran to its end), ExitMsg the last line the script wrote
	// to stderr before.
	Exit    int    `json:"exit"`
	ExitAt  Pos    `json:"exitAt"`
	ExitMsg string `json:"exitMsg,omitempty"`
}

// Run runs a shell script in mvdan.cc/sh/v3's interpreter and records
// every external command instead of executing it: no process is started,
// nothing is written to disk (writes go to Trace.Writes), and files outside
// cfg.ReadRoots look absent. Text utilities and hardware probes are
// evaluated (package infx/shellutil); `bash FILE`, `srun … bash FILE` and
// `docker run … FILE` run FILE in the same sandbox (Trace.Scripts); Slurm
// and container tools answer as a granted allocation would; cfg.Commands
// answer the caller's programs. A run stopped at a command the sandbox
// cannot evaluate (one whose status or output the script uses: a
// condition, $(…), the left of a pipe), at a refused read, or at input the
// interpreter fails on is a Trace with Stop set (Unsupported).
//
// Errors: a parse error of the script (*PosError file:line:col); a *Limit
// wrapped in a *PosError when a bound counting work is exceeded, a
// *TimeLimit when the wall-time backstop stopped the run; ctx's error when
// it ended first. A non-zero exit status is not an error (Trace.Exit).
func Run(ctx context.Context, s Script, cfg Config) (*Trace, error) {
	src := s.Src
	if src == nil {
		j := newJail(absRoots(cfg.ReadRoots))
		j.files = cfg.Cache.fixedFiles()
		var err error
		if a, aerr := filepath.Abs(s.Path); aerr == nil && j.contains(a) {
			// Inside the checkout: through the jail (no link out of it).
			src, err = j.readInput(a)
		} else {
			src, err = launch.ReadInput(s.Path)
		}
		j.close()
		if err != nil {
			return nil, err
		}
	}
	return runText(ctx, s.Path, src, cfg)
}
