package pages

import (
	"context"
	"errors"
	"fmt"
	"path"
	"runtime/metrics"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
)

// Defaults of Options (see there for what each bounds).
const (
	// DefaultMaxSteps is a file's step budget: about 8 times what the
	// heaviest real snippet needs (configs/MiniMaxAI/minimax-h3.jsx of
	// sglang docs @6c749811: 920 rows in 2.56 M steps, its component
	// rendered some 1,200 times; the heaviest generator,
	// autoregressive/nemotron3-ultra-deployment.jsx, 10,752 selections in
	// 0.49 M steps).
	DefaultMaxSteps      = 20_000_000
	DefaultBackstop      = 5 * time.Minute
	DefaultMaxSelections = 20000
	DefaultMaxRows       = 200000
	DefaultMaxString     = 16 << 20
	DefaultMaxHeapGrowth = 1 << 30
	DefaultMaxCallStack  = 4000
	// DefaultMaxArray bounds one array's length as the Array builtins see
	// it (4 Mi elements, 64 MiB of values): 390 times the longest array of
	// the real snippets (sglang docs @6c749811:
	// autoregressive/nemotron3-ultra-deployment.jsx, 10,752 selections).
	// DefaultMaxBuffer bounds one ArrayBuffer or typed array (64 MiB; no
	// real snippet makes one). DefaultMaxAllocation bounds what one file
	// asks of the guarded builtins in all (elements + string units +
	// bytes: 32 Mi), 60 times the most a real snippet asks
	// (configs/MiniMaxAI/minimax-h3.jsx: 556,800). TestGuardHeadroom keeps
	// the real snippets decoding with all three bounds 16 times lower.
	DefaultMaxArray      = 1 << 22
	DefaultMaxBuffer     = 64 << 20
	DefaultMaxAllocation = 32 << 20
	// DefaultMaxDepth bounds the nesting the builtins that recurse in Go
	// per level (JSON.parse, JSON.stringify, Array.prototype.flat) may
	// descend: JSON.parse("[".repeat(1 << 24)) overflowed the Go stack
	// (a fatal error no recover reaches) and JSON.stringify of 10⁶ nested
	// arrays ran for minutes. The real snippets nest their JSON 4 deep.
	DefaultMaxDepth = 1000
)

// Options bound the sandbox the page code runs in. The zero value means the
// defaults.
//
// What is bounded, per snippet file (each file runs in a fresh goja runtime
// that has no require/import, eval or Function constructor, no file,
// network, process or timer access — goja offers none unless the host adds
// it, and this package adds none; a `require`/`import` of anything resolves
// to a function that throws):
//   - work: MaxSteps steps per file, a step being one loop iteration or one
//     function call of any code that runs in the file's runtime (the page's,
//     the engine's, the drivers'; see instrument). The count is the same on
//     every machine at every load, so a file that runs out of steps
//     (ErrSteps) does so everywhere;
//   - time: Backstop of wall-clock time per file, a generous backstop only
//     (far above what the slowest real page needs under load): a file it
//     stops is ErrTimeLimit, which is no property of the file — callers
//     report it as "time limit — re-run", never as a page error or a
//     verdict (ctx cancellation interrupts too);
//   - selections: MaxSelections per enumeration step (the oracle's CAP:
//     configs keep the first CAP overlay combinations of a cell, generators
//     fail with "more than CAP selections") and MaxRows rows per file;
//   - strings: String.prototype.repeat/padStart/padEnd/concat and
//     Array.prototype.join refuse results longer than MaxString UTF-16
//     units, and a command longer than MaxString is an error;
//   - allocation, before it happens (ErrAllocation, see guardsJS): Array(n)
//     and every Array.prototype method refuse a length over MaxArray,
//     ArrayBuffer and typed arrays more than MaxBuffer bytes, and what a
//     file asks of these builtins in all (elements, string units, bytes)
//     is bounded by MaxAllocation — sizes, counted, the same everywhere;
//   - nesting: JSON.parse, JSON.stringify and Array.prototype.flat, which
//     recurse in Go once per level, descend at most MaxDepth levels;
//   - the + operator: a string result over MaxString is refused before it
//     is built (see guardPlus);
//   - regular expressions: only those Go's linear-time regexp runs
//     (ErrBacktracking), literals refused before any code runs;
//   - panics: a Go panic in esbuild or goja on a file is that file's error
//     (ErrPanic), never a crash;
//   - memory: a watchdog samples the Go heap every few milliseconds and
//     interrupts the running files when it grew by more than MaxHeapGrowth
//     bytes since the run started; interrupted files are retried alone, and a
//     file that still blows the bound alone is an error (goja has no hard
//     per-runtime memory cap, so this bound is approximate: the heap can
//     overshoot by what one sampling period allocates);
//   - recursion: MaxCallStack JavaScript frames.
type Options struct {
	// MaxSteps is the step budget of one file (default DefaultMaxSteps).
	MaxSteps int64
	// Backstop is the wall-clock backstop of one file (default
	// DefaultBackstop).
	Backstop time.Duration
	// MaxSelections is the oracle's CAP (default DefaultMaxSelections).
	MaxSelections int
	// MaxRows bounds the selections × run modes one file may produce
	// (default DefaultMaxRows).
	MaxRows int
	// MaxString bounds strings built by repeat/pad and commands, in UTF-16
	// units (default DefaultMaxString).
	MaxString int
	// MaxHeapGrowth bounds the Go heap growth in bytes while files run
	// (default DefaultMaxHeapGrowth).
	MaxHeapGrowth uint64
	// MaxCallStack bounds the JavaScript call depth (default
	// DefaultMaxCallStack).
	MaxCallStack int
	// MaxArray bounds an array's length as the Array builtins see it
	// (default DefaultMaxArray).
	MaxArray int
	// MaxBuffer bounds an ArrayBuffer or typed array, in bytes (default
	// DefaultMaxBuffer).
	MaxBuffer int
	// MaxAllocation bounds the elements, string units and bytes a file
	// asks of the guarded builtins in all (default DefaultMaxAllocation).
	MaxAllocation int64
	// MaxDepth bounds the nesting JSON.parse, JSON.stringify and
	// Array.prototype.flat descend (default DefaultMaxDepth).
	MaxDepth int
	// Parallel is the number of files Load decodes at once (≤ 0:
	// GOMAXPROCS).
	Parallel int
	// Files, when set, chooses the snippet files Load runs, from what is
	// known of each before its code runs (FileInfo: its place, the pages
	// importing it, the model ids read statically); the others are listed
	// in Set.NotRun and none of their code runs. nil: every file. It is
	// called from Load's workers, several at once (Parallel).
	Files func(FileInfo) bool
	// Cache, when set, keeps decoded files across Loads (see Cache).
	Cache *Cache
}

func (o Options) withDefaults() Options {
	if o.MaxSteps <= 0 {
		o.MaxSteps = DefaultMaxSteps
	}
	if o.Backstop <= 0 {
		o.Backstop = DefaultBackstop
	}
	if o.MaxSelections <= 0 {
		o.MaxSelections = DefaultMaxSelections
	}
	if o.MaxRows <= 0 {
		o.MaxRows = DefaultMaxRows
	}
	if o.MaxString <= 0 {
		o.MaxString = DefaultMaxString
	}
	if o.MaxHeapGrowth == 0 {
		o.MaxHeapGrowth = DefaultMaxHeapGrowth
	}
	if o.MaxCallStack <= 0 {
		o.MaxCallStack = DefaultMaxCallStack
	}
	if o.MaxArray <= 0 {
		o.MaxArray = DefaultMaxArray
	}
	if o.MaxBuffer <= 0 {
		o.MaxBuffer = DefaultMaxBuffer
	}
	if o.MaxAllocation <= 0 {
		o.MaxAllocation = DefaultMaxAllocation
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	return o
}

// FileError is a snippet (or page) that could not be decoded: it threw,
// ran out of time, blew a bound, or is not valid JavaScript. Line and Column
// are 1-based positions in File when known (0 otherwise).
type FileError struct {
	File   string
	Line   int
	Column int
	Err    error
}

// Error renders "file:line:col: message" (the position parts when known).
func (e *FileError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *FileError) Unwrap() error { return e.Err }

// Errors a FileError may wrap.
var (
	// ErrSteps: the file's code ran past Options.MaxSteps steps (the same
	// on every machine: a property of the file).
	ErrSteps = errors.New("page code ran out of steps")
	// ErrTimeLimit: the file's code ran past the wall-clock
	// Options.Backstop. It says nothing about the file (a loaded machine
	// may be the cause): report it as "time limit — re-run", never as a
	// page error, and never cache it.
	ErrTimeLimit = errors.New("time limit — re-run: page code ran past the wall-clock backstop")
	// ErrMemory: the heap grew past Options.MaxHeapGrowth while the file ran alone.
	ErrMemory = errors.New("page code exceeded the memory bound")
	// ErrBounds: too many selections or rows, or a string too long.
	ErrBounds = errors.New("page code exceeded a bound")
	// ErrPanic: a library that reads or runs page code (esbuild, goja's
	// parser, compiler or runtime) panicked on this file. The panic is
	// recovered where the library is called and becomes the file's error,
	// with the position goja was at and the library's message: one file's
	// input never ends the process (README "One answer on any machine").
	ErrPanic = errors.New("a library panicked on this input")
)

// recoverInto, deferred around a library call on file, turns a panic into
// a *FileError wrapping ErrPanic in *err.
func recoverInto(file, lib string, err *error) {
	if r := recover(); r != nil {
		*err = &FileError{File: file, Err: fmt.Errorf("%w: %s: %v", ErrPanic, lib, r)}
	}
}

// recoverRun, deferred around the run of a file's code in sb, turns a
// panic into a *FileError wrapping ErrPanic at the position goja was at.
func (sb *sandbox) recoverRun(err *error) {
	r := recover()
	if r == nil {
		return
	}
	fe := &FileError{File: sb.file, Err: fmt.Errorf("%w: goja: %v", ErrPanic, r)}
	func() {
		defer func() { _ = recover() }() // the runtime may be half unwound
		for _, f := range sb.vm.CaptureCallStack(0, nil) {
			if p := f.Position(); p.Line > 0 && p.Filename == sb.file {
				fe.Line, fe.Column = p.Line, p.Column
				break
			}
		}
	}()
	*err = fe
}

// transform runs esbuild over untrusted source: JSX → React.createElement,
// ES module syntax → CommonJS (format "cjs") or kept as a script (""),
// syntax lowered to ES2017 for goja, with an inline source map so goja
// reports positions in the original file.
func transform(src, name string, cjs bool) (out string, err error) {
	return transformWith(src, name, cjs, api.SourceMapInline)
}

// transformPlain is transform (cjs) without the source map, for code that
// is read, never run (readFacts: no position of it is reported): esbuild
// writes no map, goja parses none.
func transformPlain(src, name string) (string, error) {
	return transformWith(src, name, true, api.SourceMapNone)
}

func transformWith(src, name string, cjs bool, sm api.SourceMap) (out string, err error) {
	defer recoverInto(name, "esbuild", &err)
	o := api.TransformOptions{
		Loader:     api.LoaderJSX,
		Target:     api.ESNext,
		Sourcefile: path.Base(name), // goja resolves it against name's dir
		Sourcemap:  sm,
		LogLevel:   api.LogLevelSilent,
	}
	if cjs {
		o.Format = api.FormatCommonJS
	}
	r := api.Transform(src, o)
	if len(r.Errors) > 0 {
		m := r.Errors[0]
		fe := &FileError{File: name, Err: errors.New(m.Text)}
		if m.Location != nil {
			fe.Line, fe.Column = m.Location.Line, m.Location.Column+1
		}
		return "", fe
	}
	return string(r.Code), nil
}

// denySourceMap refuses every external source map: page code must not make
// goja read a file (only inline data: maps are used).
func denySourceMap(string) ([]byte, error) {
	return nil, errors.New("external source maps are not loaded")
}

// compile parses JavaScript produced by transform into a goja program.
func compile(name, src string) (prg *goja.Program, err error) {
	defer recoverInto(name, "goja's parser or compiler", &err)
	ast, err := goja.Parse(name, src, parser.WithSourceMapLoader(denySourceMap))
	if err != nil {
		// positions of a parse error are in the transformed code
		msg := strings.TrimPrefix(err.Error(), name+": ")
		return nil, &FileError{File: name, Err: fmt.Errorf("syntax goja cannot run (after esbuild): %s", msg)}
	}
	if err := instrument(name, ast); err != nil {
		return nil, err
	}
	if err := checkRegexpLiterals(name, ast); err != nil {
		return nil, err
	}
	p, err := goja.CompileAST(ast, false)
	if err != nil {
		return nil, jsError(name, err)
	}
	return p, nil
}

// prelude hardens a fresh runtime: string builders bounded, require that
// refuses everything, React stubs for JSX.
const prelude = `(function (g, max, charge) {
  "use strict";
  const bound = (name) => {
    const orig = String.prototype[name];
    Object.defineProperty(String.prototype, name, { configurable: true, writable: true, value: function (n, fill) {
      const s = String(this);
      const len = name === "repeat" ? s.length * Number(n) : Number(n);
      if (len > max) throw new RangeError("string of " + len + " units is over the sandbox bound");
      charge(len, "String.prototype." + name);
      return orig.call(this, n, fill);
    } });
  };
  bound("repeat"); bound("padStart"); bound("padEnd");
  // Code compiled at run time would not count its steps: eval and the
  // Function constructors (reachable from any function's prototype) throw.
  const noCompile = function () { throw new EvalError("code compiled at run time is not available to page code"); };
  noCompile.prototype = Function.prototype; // f instanceof Function stays true
  for (const proto of [Function.prototype, Object.getPrototypeOf(function* () {}), Object.getPrototypeOf(async function () {})]) {
    Object.defineProperty(proto, "constructor", { configurable: false, writable: false, value: noCompile });
  }
  Object.defineProperty(g, "Function", { configurable: false, writable: false, value: noCompile });
  Object.defineProperty(g, "eval", { configurable: false, writable: false, value: noCompile });
  g.require = function require(name) { throw new Error("import of " + JSON.stringify(String(name)) + " is not available to page code"); };
  const el = (type, props, ...children) => ({ type, props, children });
  g.React = { createElement: el, Fragment: "Fragment" };
})`

// sandbox is one fresh runtime for one file.
type sandbox struct {
	vm    *goja.Runtime
	file  string
	opt   Options
	steps *stepper
	// tick counts one step; the drivers call it between units of work.
	tick func()
	// guards: the allocation and regexp guards' state
	guards *guards
	// stopped is the error a guard stopped the file with (stopWith)
	stopped *FileError
}

// newSandbox makes the runtime for file with its step counter and arms its
// backstop; stop disarms it and must be called.
func newSandbox(ctx context.Context, file string, opt Options, p *programs, wd *watchdog) (sb *sandbox, stop func(), err error) {
	vm := goja.New()
	vm.SetMaxCallStackSize(opt.MaxCallStack)
	vm.SetParserOptions(parser.WithSourceMapLoader(denySourceMap))
	st := &stepper{vm: vm, left: opt.MaxSteps, max: opt.MaxSteps}
	tb := time.AfterFunc(opt.Backstop, func() { vm.Interrupt(ErrTimeLimit) })
	stopCtx := context.AfterFunc(ctx, func() { vm.Interrupt(ctx.Err()) })
	unwatch := wd.watch(vm)
	stop = func() { tb.Stop(); stopCtx(); unwatch() }
	sb = &sandbox{vm: vm, file: file, opt: opt, steps: st, tick: st.step}
	sb.guards = &guards{sb: sb}
	err = st.bind()
	if err == nil {
		err = sb.guards.bindPlus()
	}
	var v goja.Value
	if err == nil {
		v, err = vm.RunProgram(p.prelude)
	}
	if err == nil {
		fn, _ := goja.AssertFunction(v)
		_, err = fn(goja.Undefined(), vm.GlobalObject(), vm.ToValue(opt.MaxString), sb.guards.native(vm, "charge"))
	}
	if err == nil {
		err = sb.guards.install(p.guards)
	}
	if err != nil {
		stop()
		return nil, nil, sb.err(err)
	}
	return sb, stop, nil
}

// err turns a goja error into a FileError naming the file; once a guard
// stopped the file, its error (whatever page code did after the throw).
func (sb *sandbox) err(err error) error {
	if sb.stopped != nil {
		return sb.stopped
	}
	return jsError(sb.file, err)
}

// jsError names file and, when goja has one, the position.
func jsError(file string, err error) error {
	var fe *FileError
	if errors.As(err, &fe) {
		return fe
	}
	out := &FileError{File: file, Err: err}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if e, ok := ie.Value().(error); ok {
			out.Err = e
		} else {
			out.Err = fmt.Errorf("interrupted: %v", ie.Value())
		}
		return out
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		msg := ex.Value().String()
		if o, ok := ex.Value().(*goja.Object); ok {
			if m := o.Get("message"); m != nil && !goja.IsUndefined(m) {
				name := o.Get("name")
				if name != nil && !goja.IsUndefined(name) {
					msg = name.String() + ": " + m.String()
				} else {
					msg = m.String()
				}
			}
		}
		out.Err = errors.New(msg)
		for _, f := range ex.Stack() {
			if p := f.Position(); p.Line > 0 && p.Filename == file {
				out.Line, out.Column = p.Line, p.Column
				break
			}
		}
		return out
	}
	var se *goja.CompilerSyntaxError
	if errors.As(err, &se) {
		out.Err = errors.New(se.Message)
		if se.File != nil {
			p := se.File.Position(se.Offset)
			out.Line, out.Column = p.Line, p.Column
		}
		return out
	}
	if s, ok := err.(*goja.StackOverflowError); ok {
		out.Err = errors.New(s.Error())
	}
	return out
}

// watchdog interrupts the registered runtimes when the Go heap grew past a
// bound since it started. One per Load.
type watchdog struct {
	limit uint64
	mu    sync.Mutex
	vms   map[*goja.Runtime]bool // value: tripped
	base  uint64
	stop  chan struct{}
	once  sync.Once
}

// heapBytes is the bytes of live + not yet swept heap objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

func newWatchdog(limit uint64) *watchdog {
	w := &watchdog{limit: limit, vms: map[*goja.Runtime]bool{}, base: heapBytes(), stop: make(chan struct{})}
	go w.loop()
	return w
}

func (w *watchdog) loop() {
	tk := time.NewTicker(2 * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-tk.C:
			h := heapBytes()
			if h <= w.base+w.limit {
				continue
			}
			w.mu.Lock()
			for vm, tripped := range w.vms {
				if !tripped {
					w.vms[vm] = true
					vm.Interrupt(ErrMemory)
				}
			}
			w.mu.Unlock()
		}
	}
}

// watch registers vm; the returned func unregisters it.
func (w *watchdog) watch(vm *goja.Runtime) func() {
	w.mu.Lock()
	w.vms[vm] = false
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.vms, vm)
		w.mu.Unlock()
	}
}

func (w *watchdog) close() { w.once.Do(func() { close(w.stop) }) }
