package pages

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// ErrAllocation: page code asked a builtin for more memory than the
// sandbox allows (Options.MaxArray, MaxBuffer, MaxString, MaxAllocation).
// The request is refused before the builtin runs, by its size alone, so a
// file that asks too much does so on every machine — unlike the heap
// watchdog (ErrMemory), which only samples. goja's builtins allocate in
// one piece and loop in Go without counting steps (new Array(3e8).fill(0)
// asks for 4.8 GB and ends the process with "fatal error: out of memory";
// ECMA-262 §23.1.3.7 Array.prototype.fill writes every index below
// length), so the bound must come before the call.
var ErrAllocation = errors.New("page code asked for more memory than the sandbox allows")

// guardsJS wraps the builtins that allocate or loop in proportion to a
// size page code chooses, so that a size over its bound is refused before
// the builtin runs (refuse → ErrAllocation or ErrBacktracking, an
// interrupt page code cannot catch). It is compiled without the step
// counter: the wrappers hold no loop over page-chosen sizes but join's and
// concat's own (bounded by MaxArray), and every call they make into page
// code (a callback, a toString) counts its steps as usual. Each wrapper
// reads what it checks once and hands the builtin the value it checked,
// so a getter or valueOf cannot show the check one size and the builtin
// another: array-likes whose length is an accessor or an object, and
// Proxies, are refused.
//
// Covered: Array / new Array(n), Array.from, every Array.prototype method
// (the receiver's length ≤ MaxArray, the iterator too, so spread and
// for-of; fill, concat, join, and the methods that build a new array
// charge what they build), Function.prototype.apply, Reflect.apply and
// Reflect.construct (their array-like ≤ MaxArray), String.prototype.concat
// and join results (≤ MaxString), ArrayBuffer and the typed-array
// constructors (≤ MaxBuffer bytes), JSON.parse, JSON.stringify and flat
// (nesting ≤ MaxDepth: they recurse in Go), RegExp / new RegExp / compile
// and String.prototype.match/matchAll/search with a string
// (ErrBacktracking). The + operator is guarded by the AST rewrite
// guardPlus and guards.plus; repeat/padStart/padEnd by the prelude.
// Not covered (the heap watchdog stays their backstop): tagged templates
// (String.raw), += on a computed target, replace/replaceAll expansions, split results,
// JSON.stringify's output length, BigInt arithmetic.
const guardsJS = `(function (g, MAX_ARRAY, MAX_STRING, MAX_BUFFER, MAX_DEPTH, refuse, charge, isProxy, isRegExp, regexpOK, jsonDepth, arrayMethod, arrayJoin, jsonTrack) {
  "use strict";
  const apply = Reflect.apply, construct = Reflect.construct, ownKeys = Reflect.ownKeys;
  const defineProperty = Object.defineProperty, getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const getPrototypeOf = Object.getPrototypeOf, isArray = Array.isArray, floor = Math.floor, min = Math.min;
  const SymMatch = Symbol.match, SymMatchAll = Symbol.matchAll, SymSearch = Symbol.search;
  const isView = ArrayBuffer.isView, DataView = g.DataView;
  const taLength = getOwnPropertyDescriptor(getPrototypeOf(Int8Array.prototype), "length").get;
  const toLength = (v) => { const n = +v; return n > 0 ? min(floor(n), 9007199254740991) : 0; };
  const isObj = (v) => v !== null && (typeof v === "object" || typeof v === "function");
  // lenOf: the length an array builtin will read from o, read once.
  const lenOf = (o, what) => {
    if (o === null || o === undefined) return 0;
    if (isArray(o) && !isProxy(o)) return o.length;
    if (!isObj(o)) o = Object(o);
    if (isView(o) && !isProxy(o) && !(o instanceof DataView)) return apply(taLength, o, []);
    for (let p = o; p !== null; p = getPrototypeOf(p)) {
      if (isProxy(p)) refuse("proxy", 0, what);
      const d = getOwnPropertyDescriptor(p, "length");
      if (d === undefined) continue;
      if (!("value" in d)) refuse("getter", 0, what);
      if (isObj(d.value)) refuse("object", 0, what);
      return toLength(d.value);
    }
    return 0;
  };
  const arrayBound = (n, what) => { if (n > MAX_ARRAY) refuse("array", n, what); };
  const stringBound = (n, what) => { if (n > MAX_STRING) refuse("string", n, what); charge(n, what); };
  const wrapCtor = (orig, name, before, after) => {
    const w = { [name]: function (...args) {
      if (before) before(args);
      const r = new.target ? construct(orig, args, new.target) : apply(orig, undefined, args);
      return after ? after(r) : r;
    } }[name];
    for (const k of ownKeys(orig)) {
      if (k === "prototype" || k === "name" || k === "length" || k === Symbol.species) continue;
      defineProperty(w, k, getOwnPropertyDescriptor(orig, k));
    }
    defineProperty(w, "prototype", { value: orig.prototype, writable: false, enumerable: false, configurable: false });
    defineProperty(w, "length", { value: orig.length, configurable: true });
    defineProperty(orig.prototype, "constructor", { value: w, writable: true, enumerable: false, configurable: true });
    defineProperty(g, name, { value: w, writable: true, enumerable: false, configurable: true });
    return w;
  };
  const method = (obj, key, make) => {
    const d = getOwnPropertyDescriptor(obj, key);
    const orig = d.value;
    const name = typeof key === "symbol" ? "[" + key.description + "]" : key;
    const f = make(orig, name);
    defineProperty(f, "name", { value: name, configurable: true });
    defineProperty(f, "length", { value: orig.length, configurable: true });
    defineProperty(obj, key, { value: f, writable: d.writable, enumerable: d.enumerable, configurable: d.configurable });
  };

  // Arrays.
  const OrigArray = Array;
  const WArray = wrapCtor(OrigArray, "Array", (args) => {
    if (args.length === 1 && typeof args[0] === "number") {
      arrayBound(args[0], "Array(n)");
      charge(args[0], "Array(n)");
    }
  });
  method(WArray, "from", (orig) => ({ from(items, ...rest) {
    if (items !== null && items !== undefined) {
      const n = lenOf(items, "Array.from");
      arrayBound(n, "Array.from");
      charge(n, "Array.from");
    }
    return apply(orig, this, [items, ...rest]);
  } }).from);
  const arrayGuardJS = (o, what, build) => {
    const n = lenOf(o, what);
    arrayBound(n, what);
    if (build) charge(n, what);
  };
  const AP = OrigArray.prototype;
  const builds = new Set(["concat", "filter", "flat", "flatMap", "map", "slice", "splice", "toReversed", "toSorted", "toSpliced", "with"]);
  for (const key of ownKeys(AP)) {
    if (key === "constructor" || key === "join" || key === "fill" || key === "concat" || key === "flat" || typeof AP[key] !== "function") continue;
    // a native wrapper (arrayMethod): a plain array (not a Proxy) is
    // checked and charged in Go; any other receiver by arrayGuardJS, as
    // lenOf reads it
    method(AP, key, (orig, name) => arrayMethod(orig, "Array.prototype." + name, builds.has(name), arrayGuardJS));
  }
  method(AP, "fill", (orig) => ({ fill(...args) {
    const n = lenOf(this, "Array.prototype.fill");
    arrayBound(n, "Array.prototype.fill");
    charge(n, "Array.prototype.fill");
    return apply(orig, this, args);
  } }).fill);
  method(AP, "concat", (orig) => ({ concat(...args) {
    let n = lenOf(this, "Array.prototype.concat");
    for (const a of args) n += isArray(a) ? lenOf(a, "Array.prototype.concat") : 1;
    arrayBound(n, "Array.prototype.concat");
    charge(n, "Array.prototype.concat");
    return apply(orig, this, args);
  } }).concat);
  // join: every element is converted once, here, in the builtin's order,
  // and the builtin joins the strings, once their total is known.
  // A plain array (an Array, not a Proxy) takes the same steps in Go
  // (arrayJoin, guards.join); any other receiver this wrapper.
  method(AP, "join", (orig) => arrayJoin(orig, ({ join(sep) {
    if (this === null || this === undefined) return apply(orig, this, [sep]);
    const o = isObj(this) ? this : Object(this);
    const n = lenOf(o, "Array.prototype.join");
    arrayBound(n, "Array.prototype.join");
    const s = sep === undefined ? "," : ` + "`${sep}`" + `;
    const parts = new OrigArray(n);
    let total = n > 0 ? (n - 1) * s.length : 0;
    if (total > MAX_STRING) refuse("string", total, "Array.prototype.join");
    for (let i = 0; i < n; i++) {
      const e = o[i];
      const t = e === undefined || e === null ? "" : ` + "`${e}`" + `;
      total += t.length;
      if (total > MAX_STRING) refuse("string", total, "Array.prototype.join");
      parts[i] = t;
    }
    stringBound(total, "Array.prototype.join");
    return apply(orig, parts, [s]);
  } }).join));

  // flat recurses in Go once per level: a depth over MAX_DEPTH is taken
  // only when the arrays are not that deep (walked here, without
  // recursion).
  method(AP, "flat", (orig) => ({ flat(...args) {
    const n = lenOf(this, "Array.prototype.flat");
    arrayBound(n, "Array.prototype.flat");
    charge(n, "Array.prototype.flat");
    const d = args[0] === undefined ? 1 : +args[0];
    if (d > MAX_DEPTH && isObj(this)) {
      const todo = [[this, 0]];
      while (todo.length) {
        const [a, lv] = todo.pop();
        if (lv > MAX_DEPTH) refuse("depth", lv, "Array.prototype.flat");
        const m = lenOf(a, "Array.prototype.flat");
        arrayBound(m, "Array.prototype.flat");
        for (let i = 0; i < m; i++) { const e = a[i]; if (isArray(e)) todo.push([e, lv + 1]); }
      }
    }
    return apply(orig, this, args);
  } }).flat);

  // JSON recurses in Go once per level: JSON.parse's text is scanned for
  // its nesting first (jsonDepth), and JSON.stringify tracks the depth of
  // every value it is about to serialize through a replacer (it sees the
  // values after getters, toJSON and the page's own replacer), refusing
  // one deeper than MAX_DEPTH before the builtin descends into it.
  const J = JSON, origParse = J.parse, origStringify = J.stringify;
  method(J, "parse", () => ({ parse(text, reviver) {
    const s = ` + "`${text}`" + `;
    const d = jsonDepth(s);
    if (d > MAX_DEPTH) refuse("depth", d, "JSON.parse");
    return apply(origParse, J, [s, reviver]);
  } }).parse);
  method(J, "stringify", () => ({ stringify(value, replacer, space) {
    if (isArray(replacer) || (isObj(replacer) && typeof replacer !== "function")) refuse("replacer", 0, "JSON.stringify");
    // a native replacer (jsonTrack): the page's replacer (if any) first,
    // then the value's depth, its holder's plus one
    const track = jsonTrack(typeof replacer === "function" ? replacer : undefined);
    return apply(origStringify, J, [value, track, space]);
  } }).stringify);

  // An array-like spread into arguments (Function.prototype.apply,
  // Reflect.apply, Reflect.construct) is copied in Go first: its length
  // is bounded like an array's (apply with { length: 3e8 } ran 31 s).
  const spreadBound = (args, what) => {
    if (isObj(args)) arrayBound(lenOf(args, what), what);
  };
  const FP = Function.prototype;
  method(FP, "apply", (orig) => ({ apply(thisArg, args) {
    spreadBound(args, "Function.prototype.apply");
    return apply(orig, this, [thisArg, args]);
  } }).apply);
  method(Reflect, "apply", (orig) => ({ apply(f, thisArg, args) {
    spreadBound(args, "Reflect.apply");
    return apply(orig, Reflect, [f, thisArg, args]);
  } }).apply);
  method(Reflect, "construct", (orig) => ({ construct(...args) {
    spreadBound(args[1], "Reflect.construct");
    return apply(orig, Reflect, args);
  } }).construct);

  // Strings.
  method(String.prototype, "concat", (orig) => ({ concat(...args) {
    if (this === null || this === undefined) return apply(orig, this, args);
    const head = ` + "`${this}`" + `;
    let total = head.length;
    const strs = [];
    for (const a of args) { const t = ` + "`${a}`" + `; total += t.length; if (total > MAX_STRING) refuse("string", total, "String.prototype.concat"); strs.push(t); }
    stringBound(total, "String.prototype.concat");
    return apply(orig, head, strs);
  } }).concat);

  // Buffers and typed arrays.
  const byteLength = getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
  const isBuffer = (a) => { try { apply(byteLength, a, []); return true; } catch (e) { return false; } };
  wrapCtor(ArrayBuffer, "ArrayBuffer", (args) => {
    const n = toLength(typeof args[0] === "number" ? args[0] : 0);
    if (n > MAX_BUFFER) refuse("buffer", n, "ArrayBuffer");
    charge(n, "ArrayBuffer");
  });
  for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array",
    "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"]) {
    const T = g[name];
    if (typeof T !== "function") continue;
    const size = T.BYTES_PER_ELEMENT;
    wrapCtor(T, name, (args) => {
      const a = args[0];
      let n = 0;
      if (typeof a === "number") n = toLength(a);
      else if (isObj(a) && !isBuffer(a)) n = lenOf(a, name);
      if (n * size > MAX_BUFFER) refuse("buffer", n * size, name);
      charge(n * size, name);
    });
  }

  // Regular expressions: refused when only a backtracking matcher runs
  // them (regexpOK throws). The wrapper lets the builtin build the RegExp
  // (it reads its arguments once) and checks what was built before it is
  // returned or used.
  const OrigRegExp = RegExp;
  const RP = OrigRegExp.prototype;
  const getter = (k) => getOwnPropertyDescriptor(RP, k).get;
  const source = getter("source"), dotAll = getter("dotAll"), unicode = getter("unicode"),
    ignoreCase = getter("ignoreCase"), multiline = getter("multiline");
  const check = (re) => {
    if (!isRegExp(re)) return re;
    const f = (apply(dotAll, re, []) ? "s" : "") + (apply(unicode, re, []) ? "u" : "") +
      (apply(ignoreCase, re, []) ? "i" : "") + (apply(multiline, re, []) ? "m" : "");
    regexpOK(apply(source, re, []), f);
    return re;
  };
  wrapCtor(OrigRegExp, "RegExp", null, check);
  method(RP, "compile", (orig) => ({ compile(...args) { return check(apply(orig, this, args)); } }).compile);
  // ECMA-262 §22.1.3.13/14/20 (match, matchAll, search): a pattern that is
  // no RegExp and has no @@match (@@matchAll, @@search) method is made a
  // RegExp by the builtin; here, through the checking constructor. The
  // method is read once and called as the builtin would.
  const viaRegExp = (key, sym, flags) => method(String.prototype, key, (orig) => ({ [key](regexp) {
    if (this === null || this === undefined || isRegExp(regexp)) return apply(orig, this, [regexp]);
    if (regexp !== null && regexp !== undefined) {
      const m = regexp[sym];
      if (m !== undefined && m !== null) {
        if (typeof m !== "function") throw new TypeError("String.prototype." + key + ": the pattern's method is not a function");
        return apply(m, regexp, [this]);
      }
    }
    const s = ` + "`${this}`" + `;
    const rx = new g.RegExp.prototype.constructor(regexp === undefined ? "" : ` + "`${regexp}`" + `, flags);
    return rx[sym](s);
  } })[key]);
  viaRegExp("match", SymMatch, undefined);
  viaRegExp("matchAll", SymMatchAll, "g");
  viaRegExp("search", SymSearch, undefined);

  // + with an object operand: ECMA-262 §13.15.3 ApplyStringOrNumericBinaryOperator
  // — ToPrimitive (hint default, §7.1.1) of each, left first — then the
  // guarded + of the primitives.
  const toPrim = (x) => {
    if (!isObj(x)) return x;
    const ex = x[Symbol.toPrimitive];
    if (ex !== undefined && ex !== null) {
      const r = apply(ex, x, ["default"]);
      if (isObj(r)) throw new TypeError("Cannot convert object to primitive value");
      return r;
    }
    for (const m of ["valueOf", "toString"]) {
      const f = x[m];
      if (typeof f === "function") { const r = apply(f, x, []); if (!isObj(r)) return r; }
    }
    throw new TypeError("Cannot convert object to primitive value");
  };
  return { addObjects: (a, b) => { const pa = toPrim(a); return [pa, toPrim(b)]; }, rawAdd: (a, b) => a + b,
    toStr: (v) => ` + "`${v}`" + ` };
})`

// guards are the Go side of guardsJS for one sandbox.
type guards struct {
	sb *sandbox
	// charged: elements, string units and buffer bytes asked of the
	// guarded builtins so far (Options.MaxAllocation).
	charged int64
	// toPrims and rawAdd are guardsJS's helpers of plus (nil until it ran)
	toPrims, rawAdd goja.Callable
	// toStr is guardsJS's `${v}` (nil until it ran)
	toStr goja.Callable
}

var proxyType = reflect.TypeOf(goja.Proxy{})

// install runs guardsJS in sb's runtime.
func (gd *guards) install(prg *goja.Program) error {
	vm := gd.sb.vm
	v, err := vm.RunProgram(prg)
	if err != nil {
		return err
	}
	fn, _ := goja.AssertFunction(v)
	o := gd.sb.opt
	r, err := fn(goja.Undefined(), vm.GlobalObject(), vm.ToValue(o.MaxArray), vm.ToValue(o.MaxString), vm.ToValue(o.MaxBuffer), vm.ToValue(o.MaxDepth),
		gd.native(vm, "refuse"), gd.native(vm, "charge"), gd.native(vm, "isProxy"), gd.native(vm, "isRegExp"), gd.native(vm, "regexpOK"), gd.native(vm, "jsonDepth"),
		gd.native(vm, "arrayMethod"), gd.native(vm, "arrayJoin"), gd.native(vm, "jsonTrack"))
	if err != nil {
		return err
	}
	ro := r.ToObject(vm)
	gd.toPrims, _ = goja.AssertFunction(ro.Get("addObjects"))
	gd.rawAdd, _ = goja.AssertFunction(ro.Get("rawAdd"))
	gd.toStr, _ = goja.AssertFunction(ro.Get("toStr"))
	return vm.GlobalObject().DefineDataProperty(strName, ro.Get("toStr"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

// bindPlus defines the guarded + (plusName) on the global object, like the
// step counter: not writable, not configurable.
func (gd *guards) bindPlus() error {
	vm := gd.sb.vm
	return vm.GlobalObject().DefineDataProperty(plusName, vm.ToValue(gd.plus), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

// plus is page code's a + b (see guardPlus): a string result longer than
// Options.MaxString is refused before it is built.
func (gd *guards) plus(call goja.FunctionCall) goja.Value {
	a, b := call.Argument(0), call.Argument(1)
	as, aok := a.(goja.String)
	bs, bok := b.(goja.String)
	if aok && bok {
		gd.stringResult(as.Length() + bs.Length())
		return as.Concat(bs)
	}
	_, aobj := a.(*goja.Object)
	_, bobj := b.(*goja.Object)
	if (aobj || bobj) && gd.toPrims != nil {
		pair := rethrow(gd.toPrims(goja.Undefined(), a, b)).ToObject(gd.sb.vm)
		a, b = pair.Get("0"), pair.Get("1")
		as, aok = a.(goja.String)
		bs, bok = b.(goja.String)
		if aok && bok {
			gd.stringResult(as.Length() + bs.Length())
			return as.Concat(bs)
		}
	}
	if aok && !bok {
		gd.stringResult(as.Length() + primitiveLen(b))
	} else if bok && !aok {
		gd.stringResult(primitiveLen(a) + bs.Length())
	}
	if gd.rawAdd == nil {
		panic(gd.sb.vm.NewTypeError("+ before the sandbox was ready"))
	}
	return rethrow(gd.rawAdd(goja.Undefined(), a, b))
}

// primitiveLen is the length of a non-string primitive as a string (a
// number, boolean, null, undefined or BigInt; 0 for what + rejects).
func primitiveLen(v goja.Value) int {
	if _, ok := v.(*goja.Object); ok || v == nil {
		return 0
	}
	if _, ok := v.Export().(goja.Value); ok { // a Symbol: + throws
		return 0
	}
	return len(v.String())
}

// stringResult refuses a + result of n units over Options.MaxString.
func (gd *guards) stringResult(n int) {
	if n > gd.sb.opt.MaxString {
		gd.refuse("string", float64(n), "+")
	}
}

func (gd *guards) isProxy(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	return ok && o.ExportType() == proxyType
}

// isRegExp: v is a RegExp object (not a Proxy of one).
func (gd *guards) isRegExp(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	return ok && o.ExportType() != proxyType && o.ClassName() == "RegExp"
}

// refuse stops the file with ErrAllocation: kind is "array", "string",
// "buffer" or "total" (n the size asked), or "proxy", "getter", "object"
// (an array-like whose length cannot be read once).
func (gd *guards) refuse(kind string, n float64, what string) {
	o := gd.sb.opt
	var err error
	switch kind {
	case "array":
		err = fmt.Errorf("%w: %s with a length of %s, over the bound of %d (Options.MaxArray)", ErrAllocation, what, num(n), o.MaxArray)
	case "string":
		err = fmt.Errorf("%w: %s of a string of %s units, over the bound of %d (Options.MaxString)", ErrAllocation, what, num(n), o.MaxString)
	case "buffer":
		err = fmt.Errorf("%w: %s of %s bytes, over the bound of %d (Options.MaxBuffer)", ErrAllocation, what, num(n), o.MaxBuffer)
	case "total":
		err = fmt.Errorf("%w: %s brings what the file asked of the builtins to %s elements, units and bytes, over the bound of %d (Options.MaxAllocation)", ErrAllocation, what, num(n), o.MaxAllocation)
	case "depth":
		err = fmt.Errorf("%w: %s nested %s deep, over the bound of %d (Options.MaxDepth)", ErrAllocation, what, num(n), o.MaxDepth)
	case "replacer":
		err = fmt.Errorf("%w: %s with a property-list replacer (the depth of what it serializes cannot be checked)", ErrAllocation, what)
	case "proxy":
		err = fmt.Errorf("%w: %s on a Proxy (its size cannot be checked before the builtin runs)", ErrAllocation, what)
	default:
		err = fmt.Errorf("%w: %s on an array-like whose length is a getter or an object (its size cannot be checked before the builtin runs)", ErrAllocation, what)
	}
	gd.sb.stopWith(err)
}

// charge adds n to what the file asked of the guarded builtins.
func (gd *guards) charge(n float64, what string) {
	if n <= 0 {
		return
	}

	if n > float64(math.MaxInt64/2) {
		n = float64(math.MaxInt64 / 2)
	}
	gd.charged += int64(n)

	if gd.charged > gd.sb.opt.MaxAllocation {
		gd.refuse("total", float64(gd.charged), what)
	}
}

// regexpOK refuses a pattern only a backtracking matcher runs.
func (gd *guards) regexpOK(source, flags string) {
	if why := backtracking(source, flags); why != "" {
		gd.sb.stopWith(regexpError(source, flags, why))
	}
}

// jsonDepth is the deepest nesting of [ and { in JSON text s (outside
// strings); text that is no JSON gets some count, and JSON.parse rejects it.
func jsonDepth(s string) int {
	d, top, in, esc := 0, 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				in = false
			}
		case c == '"':
			in = true
		case c == '[' || c == '{':
			d++
			top = max(top, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return top
}

// num renders n without an exponent.
func num(n float64) string {
	if n >= 1e21 || n != math.Trunc(n) {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%.0f", n)
}

// stopWith ends the file's run with err at the innermost position of the
// file on the call stack: an interrupt (page code cannot catch it), and a
// thrown error so that the builtin call it guards does not run.
func (sb *sandbox) stopWith(err error) {
	fe := &FileError{File: sb.file, Err: err}
	for _, f := range sb.vm.CaptureCallStack(0, nil) {
		if p := f.Position(); p.Line > 0 && p.Filename == sb.file {
			fe.Line, fe.Column = p.Line, p.Column
			break
		}
	}
	if sb.stopped == nil {
		sb.stopped = fe
	}
	sb.vm.Interrupt(fe)
	panic(sb.vm.NewGoError(fe))
}

// compileTrusted compiles the package's own code that must not count steps
// (guardsJS).
func compileTrusted(name, src string) (*goja.Program, error) {
	prg, err := goja.Parse(name, src, parser.WithSourceMapLoader(denySourceMap))
	if err != nil {
		return nil, err
	}
	return goja.CompileAST(prg, true)
}

// Native forms of the guards' Go functions. goja calls a Go function of
// any other signature through reflection (Runtime.wrapReflectFunc), which
// cost about a tenth of a page file's decoding; these convert each
// argument as that wrapper does — a JS number or string directly, any
// other value through Runtime.ExportTo, the conversion the wrapper itself
// uses, with its TypeError — so page code sees the same functions.

// argFloat is argument i as a float64 parameter of a wrapped Go function.
func argFloat(vm *goja.Runtime, call goja.FunctionCall, i int) float64 {
	v := call.Argument(i)
	switch v.ExportType() {
	case typeFloat64, typeInt64:
		return v.ToFloat()
	}
	var f float64
	if err := vm.ExportTo(v, &f); err != nil {
		panic(vm.NewTypeError("could not convert function call parameter %d: %v", i, err))
	}
	return f
}

// argString is argument i as a string parameter of a wrapped Go function.
func argString(vm *goja.Runtime, call goja.FunctionCall, i int) string {
	v := call.Argument(i)
	if s, ok := v.(goja.String); ok {
		return s.String()
	}
	var s string
	if err := vm.ExportTo(v, &s); err != nil {
		panic(vm.NewTypeError("could not convert function call parameter %d: %v", i, err))
	}
	return s
}

var (
	typeFloat64 = reflect.TypeOf(float64(0))
	typeInt64   = reflect.TypeOf(int64(0))
	typeBool    = reflect.TypeOf(false)
)

// native is the named guard's native form for page code (see above).
func (gd *guards) native(vm *goja.Runtime, name string) goja.Value {
	var f func(goja.FunctionCall) goja.Value
	switch name {
	case "refuse":
		f = func(c goja.FunctionCall) goja.Value {
			gd.refuse(argString(vm, c, 0), argFloat(vm, c, 1), argString(vm, c, 2))
			return goja.Undefined()
		}
	case "charge":
		f = func(c goja.FunctionCall) goja.Value {
			gd.charge(argFloat(vm, c, 0), argString(vm, c, 1))
			return goja.Undefined()
		}
	case "isProxy":
		f = func(c goja.FunctionCall) goja.Value { return vm.ToValue(gd.isProxy(valueArg(c, 0))) }
	case "isRegExp":
		f = func(c goja.FunctionCall) goja.Value { return vm.ToValue(gd.isRegExp(valueArg(c, 0))) }
	case "regexpOK":
		f = func(c goja.FunctionCall) goja.Value {
			gd.regexpOK(argString(vm, c, 0), argString(vm, c, 1))
			return goja.Undefined()
		}
	case "jsonDepth":
		f = func(c goja.FunctionCall) goja.Value { return vm.ToValue(jsonDepth(argString(vm, c, 0))) }
	case "arrayMethod":
		// arrayMethod(orig, what, build, slow) wraps the Array.prototype
		// method orig in a native function: a plain array receiver (an
		// Array, not a Proxy: what JS lenOf reads as o.length, a data
		// property) whose length is over Options.MaxArray is refused, else
		// charged when build; any other receiver is checked by slow(o,
		// what, build), the JS guard; then orig runs with the receiver and
		// the arguments as given. An exception of orig or slow (a page's
		// throw, a refusal, an interrupt) goes on as it came.
		f = func(c goja.FunctionCall) goja.Value {
			orig, ok := goja.AssertFunction(c.Argument(0))
			slow, ok2 := goja.AssertFunction(c.Argument(3))
			if !ok || !ok2 {
				panic(vm.NewTypeError("arrayMethod: not a function"))
			}
			whatV, buildV := c.Argument(1), c.Argument(2)
			what, build := argString(vm, c, 1), buildV.ToBoolean()
			return vm.ToValue(func(m goja.FunctionCall) goja.Value {
				if !gd.plainArrayGuard(m.This, what, build) {
					rethrow(slow(goja.Undefined(), m.This, whatV, buildV))
				}
				return rethrow(orig(m.This, m.Arguments...))
			})
		}
	case "arrayJoin":
		// arrayJoin(orig, slow) wraps Array.prototype.join: a plain array
		// receiver (an Array, not a Proxy) is joined by guards.join, the
		// steps of the JS wrapper slow in Go; any other receiver by slow.
		f = func(c goja.FunctionCall) goja.Value {
			slow, ok := goja.AssertFunction(c.Argument(1))
			if !ok {
				panic(vm.NewTypeError("arrayJoin: not a function"))
			}
			return vm.ToValue(func(m goja.FunctionCall) goja.Value {
				if o, ok := m.This.(*goja.Object); ok && o.ClassName() == "Array" && !gd.isProxy(o) {
					return gd.join(o, m.Argument(0))
				}
				return rethrow(slow(m.This, m.Arguments...))
			})
		}
	case "jsonTrack":
		// jsonTrack(user) is JSON.stringify's replacer for one call: the
		// page's replacer user (undefined: none) is applied first, with
		// the holder as this; then an object value (not a function) is
		// given its depth, its holder's plus one (the root's holder has
		// none), refused over Options.MaxDepth before the builtin
		// descends into it.
		f = func(c goja.FunctionCall) goja.Value {
			var user goja.Callable
			if u := c.Argument(0); !goja.IsUndefined(u) {
				fn, ok := goja.AssertFunction(u)
				if !ok {
					panic(vm.NewTypeError("jsonTrack: not a function"))
				}
				user = fn
			}
			depth := map[*goja.Object]int{}
			return vm.ToValue(func(m goja.FunctionCall) goja.Value {
				v := m.Argument(1)
				if user != nil {
					v = rethrow(user(m.This, m.Argument(0), v))
				}
				if o, ok := v.(*goja.Object); ok {
					if _, callable := goja.AssertFunction(o); !callable {
						holder, _ := m.This.(*goja.Object)
						d := depth[holder] + 1
						if d > gd.sb.opt.MaxDepth {
							gd.refuse("depth", float64(d), "JSON.stringify")
						}
						depth[o] = d
					}
				}
				return v
			})
		}
	default:
		panic("pages: no native guard " + name)
	}
	return vm.ToValue(f)
}

// join is guardsJS's Array.prototype.join for a plain array o (an Array,
// not a Proxy), step for step: the length read once and bounded
// (Options.MaxArray), the separator converted (`${sep}`, "," when
// undefined), then each element read in order and converted ("" for
// undefined and null), the total length in UTF-16 units refused as soon
// as it is over Options.MaxString, charged once known; the strings joined
// as the builtin joins them. A conversion that runs page code (an object,
// a symbol, a bigint) goes through guardsJS's own `${v}` (toStr), so its
// calls, exceptions and refusals are the wrapper's.
func (gd *guards) join(o *goja.Object, sep goja.Value) goja.Value {
	const what = "Array.prototype.join"
	vm := gd.sb.vm
	n := o.Get("length").ToFloat()
	if n > float64(gd.sb.opt.MaxArray) {
		gd.refuse("array", n, what)
	}
	s := goja.String(nil)
	if sep == nil || goja.IsUndefined(sep) {
		s = vm.ToValue(",").(goja.String)
	} else {
		s = gd.templateString(sep)
	}
	maxString := float64(gd.sb.opt.MaxString)
	total := 0.0
	if n > 0 {
		total = (n - 1) * float64(s.Length())
	}
	if total > maxString {
		gd.refuse("string", total, what)
	}
	count := int(n)
	parts := make([]goja.String, count)
	for i := 0; i < count; i++ {
		e := o.Get(strconv.Itoa(i))
		var t goja.String
		if e == nil || goja.IsUndefined(e) || goja.IsNull(e) {
			t = vm.ToValue("").(goja.String)
		} else {
			t = gd.templateString(e)
		}
		total += float64(t.Length())
		if total > maxString {
			gd.refuse("string", total, what)
		}
		parts[i] = t
	}
	if total > maxString {
		gd.refuse("string", total, what)
	}
	gd.charge(total, what)
	var b goja.StringBuilder
	for i, t := range parts {
		if i > 0 {
			b.WriteString(s)
		}
		b.WriteString(t)
	}
	return b.String()
}

// templateString is `${v}`: a string as it is, a number or a boolean as
// JS writes it, anything else through guardsJS's toStr (page code may run).
func (gd *guards) templateString(v goja.Value) goja.String {
	if s, ok := v.(goja.String); ok {
		return s
	}
	switch v.ExportType() {
	case typeInt64, typeFloat64, typeBool:
		return gd.sb.vm.ToValue(v.String()).(goja.String)
	}
	return rethrow(gd.toStr(goja.Undefined(), v)).(goja.String)
}

// rethrow is a JS function's result, called from Go inside page code: its
// exception (a page's throw, a refusal, an interrupt) goes on as it came,
// a panic goja turns back into the same throw.
func rethrow(v goja.Value, err error) goja.Value {
	if err != nil {
		panic(err)
	}
	return v
}

// plainArrayGuard is the array methods' guard for a plain array o (an
// Array, not a Proxy): its length over Options.MaxArray is refused, else
// charged when build. It reports false, having checked nothing, for any
// other receiver.
func (gd *guards) plainArrayGuard(v goja.Value, what string, build bool) bool {
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "Array" || gd.isProxy(o) {
		return false
	}
	n := o.Get("length").ToFloat()
	if n > float64(gd.sb.opt.MaxArray) {
		gd.refuse("array", n, what)
	}
	if build {
		gd.charge(n, what)
	}
	return true
}

// valueArg is argument i as a goja.Value parameter: nil when not given
// (the reflection wrapper passes the zero Value).
func valueArg(c goja.FunctionCall, i int) goja.Value {
	if i < len(c.Arguments) {
		return c.Arguments[i]
	}
	return nil
}
