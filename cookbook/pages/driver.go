package pages

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

// The generator enumeration below is ../shared/tools/cookbook_pages_oracle.mjs
// (generatorOracle) with `out(...)` replaced by collecting rows; it runs
// inside the sandbox, next to the page code, so that every JavaScript
// semantic (key order, truthiness, JSON.stringify dedupe) is the page's own.
// Config pages are rendered through their component (component.js).

// generatorCutJS: the oracle's cut of a generator's component body.
const generatorCutJS = `(function (src) {
  const m = /export const (\w+)\s*=\s*\(([^)]*)\)\s*=>\s*{/.exec(src);
  if (!m) return null;
  const bodyStart = m.index + m[0].length;
  const ret = src.lastIndexOf("\n  return (");
  if (ret < bodyStart) return null;
  let body = src.slice(bodyStart, ret);
  body = body.replace(/^\s*import .*$/gm, "");
  return { body, line: src.slice(0, bodyStart).split("\n").length };
})`

// generatorHead/Tail wrap the cut body like the oracle's new Function.
const (
	generatorHead = "(function (React, useState, useEffect, useMemo, useCallback, useRef, props) {"
	generatorTail = "\nreturn {options: typeof options!=='undefined'?options:(typeof baseOptions!=='undefined'?baseOptions:null)," +
		" view: typeof getDisplayOptions!=='undefined'?getDisplayOptions:null, generateCommand:" +
		" typeof generateCommand!=='undefined'?generateCommand:null, values};\n})"
)

// fastMin is the number of selections from which a generator's commands
// are computed from one render (see fast in generatorDriverJS) instead of
// one render per selection.
const fastMin = 64

// maxTemplates bounds the renders the fast path of generatorDriverJS keeps
// before it gives up (and the caller re-renders per selection).
const maxTemplates = 64

// generatorDriverJS: (fn, CAP, FAST_MIN, tick, G_DEAD, IN_G, MAX_TEMPLATES)
// → {run, enumerate}. run(null) is the page's
// first render; enumerate(first) the oracle's walk, returning JSON rows and
// the selections whose generateCommand threw.
const generatorDriverJS = `(function (fn, CAP, FAST_MIN, tick, G_DEAD, IN_G, MAX_TEMPLATES) {
  let injected = null;
  const React = {
    useState: (init) => {
      const v = typeof init === "function" ? init() : init;
      if (injected && v && typeof v === "object" && !Array.isArray(v)) return [injected, () => {}];
      return [v, () => {}];
    },
    useEffect: () => {}, useMemo: (f) => f(), useCallback: (f) => f, useRef: (v) => ({ current: v }),
    createElement: (type, props, ...children) => ({ type, props, children }), Fragment: "Fragment",
  };
  const run = (sel) => { injected = sel; return fn(React, React.useState, React.useEffect, React.useMemo, React.useCallback, React.useRef, {}); };
  const enumerate = (first) => {
    if (!first.options || !first.generateCommand) return { rows: "[]", skipped: [] };
    const optList = Object.entries(first.options).map(([k, o]) => ({ id: k, key: o.name || k }));
    const itemsOf = (o, vals) => (typeof o.getDynamicItems === "function" ? o.getDynamicItems(vals) : o.items) || [];
    const viewOf = (s) => (first.view ? first.view(s) : first.options);
    let sels = [{ ...first.values }];
    for (let oi = 0; oi < optList.length; oi++) {
      const { id, key } = optList[oi];
      const next = [];
      for (let si = 0; si < sels.length; si++) {
        const s = sels[si];
        const o = viewOf(s)[id];
        if (!o) { next.push(s); continue; }
        if (typeof o.condition === "function" && !o.condition(s)) { next.push(s); continue; }
        if (o.type === "text") { next.push(s); continue; }
        const enabled = (it) => !it.disabled && !(typeof it.disabledWhen === "function" && it.disabledWhen(s));
        if (o.type === "checkbox") {
          const all = itemsOf(o, s);
          const req = all.filter((it) => it.required).map((it) => it.id);
          const opt = all.filter((it) => !it.required && enabled(it)).map((it) => it.id);
          for (let mask = 0; mask < (1 << opt.length); mask++) {
            const pick = new Set([...req, ...opt.filter((_, i) => mask & (1 << i))]);
            next.push({ ...s, [key]: all.map((it) => it.id).filter((id) => pick.has(id)) });
            if (next.length > CAP) throw new Error("more than " + CAP + " selections");
          }
          continue;
        }
        const items = itemsOf(o, s).filter(enabled);
        if (!items.length) { next.push(s); continue; }
        for (let ii = 0; ii < items.length; ii++) next.push({ ...s, [key]: items[ii].id });
        if (next.length > CAP) throw new Error("more than " + CAP + " selections");
      }
      if (next.length > CAP) throw new Error("more than " + CAP + " selections");
      sels = next;
    }
    const seen = new Set(); const uniq = []; const keys = [];
    for (let si = 0; si < sels.length; si++) {
      const sel = sels[si];
      const k = JSON.stringify(sel); if (seen.has(k)) continue; seen.add(k);
      uniq.push(sel); keys.push(k);
    }
    const exact = (sel) => { tick(); try { return { cmd: run(sel).generateCommand(sel) }; } catch (e) { return { err: String((e && e.message) || e) }; } };
    const results = (uniq.length >= FAST_MIN && fast(uniq, exact)) || uniq.map(exact);
    const rows = []; const skipped = [];
    uniq.forEach((sel, i) => {
      const r = results[i];
      if ("err" in r) skipped.push(keys[i] + ": " + r.err); else rows.push({ selection: sel, command: r.cmd });
    });
    return { rows: JSON.stringify(rows), skipped };
  };
  // fast: renders with a Proxy standing for the injected selection
  // ("templates"), then the template's generateCommand per selection.
  // A render that reads keys of the selection is a template only for the
  // selections with the same values at those keys (a deterministic render
  // reading the same values takes the same path, so it computes the same);
  // reads made while the body's own generateCommand runs do not count when
  // G_DEAD (the body calls it only as "const x = generateCommand(values)"
  // with x never read, so those calls cannot change what the render
  // computed). Any other use of the selection by a render (spread, keys,
  // writes) gives up. Results are kept only when a sample of selections (the
  // first and last 16, and one in every n/64) gives what the exact
  // re-render gives; otherwise null (the caller re-renders per selection).
  const fast = (uniq, exact) => {
    let cur = uniq[0], live = false, bad = false, reads = null;
    const outside = () => !live && !(G_DEAD && IN_G());
    const proxy = new Proxy({}, {
      get: (t, k) => { const v = Reflect.get(cur, k); if (outside()) reads.push([0, k, v]); return v; },
      has: (t, k) => { const v = Reflect.has(cur, k); if (outside()) reads.push([1, k, v]); return v; },
      ownKeys: () => { if (outside()) bad = true; return Reflect.ownKeys(cur); },
      getOwnPropertyDescriptor: (t, k) => { if (outside()) bad = true; return Reflect.getOwnPropertyDescriptor(cur, k); },
      set: (t, k, v) => { if (outside()) bad = true; return Reflect.set(cur, k, v); },
      defineProperty: (t, k, d) => { if (outside()) bad = true; return Reflect.defineProperty(cur, k, d); },
      deleteProperty: (t, k) => { if (outside()) bad = true; return Reflect.deleteProperty(cur, k); },
    });
    const same = (a, b) => Object.is(a, b) ||
      (a !== null && b !== null && typeof a === "object" && typeof b === "object" && JSON.stringify(a) === JSON.stringify(b));
    // (indexed loops: no iterator, no destructuring, no guarded builtin
    // per read — this runs for every selection against every template)
    const fits = (t, sel) => {
      const rs = t.reads;
      for (let i = 0; i < rs.length; i++) {
        const r = rs[i];
        if (!same(r[0] ? Reflect.has(sel, r[1]) : Reflect.get(sel, r[1]), r[2])) return false;
      }
      return true;
    };
    const templates = [];
    const template = (sel) => {
      for (let i = 0; i < templates.length; i++) if (fits(templates[i], sel)) return templates[i];
      if (templates.length >= MAX_TEMPLATES) return null;
      cur = sel; live = false; reads = []; tick();
      let tpl;
      try { tpl = run(proxy); } catch (e) { return null; }
      live = true;
      if (bad || !tpl || typeof tpl.generateCommand !== "function") return null;
      if (G_DEAD && tpl.generateCommand.name !== "generateCommand") return null;
      const t = { reads, gen: tpl.generateCommand };
      if (!fits(t, sel)) return null;
      templates.push(t);
      return t;
    };
    const out = [];
    for (let ui = 0; ui < uniq.length; ui++) {
      const sel = uniq[ui];
      const t = template(sel);
      if (!t) return null;
      cur = sel; live = true; tick();
      try { out.push({ cmd: t.gen(sel) }); } catch (e) { out.push({ err: String((e && e.message) || e) }); }
    }
    const step = Math.max(1, Math.ceil(uniq.length / 64));
    for (let i = 0; i < uniq.length; i++) {
      if (!(i < 16 || i >= uniq.length - 16 || i % step === 0)) continue;
      const want = exact(uniq[i]);
      if (want.cmd !== out[i].cmd || want.err !== out[i].err) return null;
    }
    return out;
  };
  return { run, enumerate };
})`

// programs are the compiled, shareable parts of one Load: the sandbox
// prelude and the drivers (the snippet modules are compiled by the loader).
type programs struct {
	prelude, component, generatorCut, generatorDriver *goja.Program
	guards                                            *goja.Program // compiled without the step counter
}

// engineFile is where the configs' engine lives, relative to the docs dir:
// the component a config no page renders is rendered with.
const engineFile = "src/snippets/_deployment.jsx"

// compilePrograms compiles the drivers.
func compilePrograms() (*programs, error) {
	p := &programs{}
	for _, d := range []struct {
		dst  **goja.Program
		name string
		src  string
	}{
		{&p.prelude, "prelude.js", prelude},
		{&p.component, "component.js", componentJS},
		{&p.generatorCut, "generator-cut.js", generatorCutJS},
		{&p.generatorDriver, "generator-driver.js", generatorDriverJS},
	} {
		prg, err := compile(d.name, d.src)
		if err != nil {
			return nil, fmt.Errorf("pages: internal driver %s: %w", d.name, err)
		}
		*d.dst = prg
	}
	g, err := compileTrusted("guards.js", guardsJS)
	if err != nil {
		return nil, fmt.Errorf("pages: internal driver guards.js: %w", err)
	}
	p.guards = g
	return p, nil
}

// call calls the function value fn with args.
func (sb *sandbox) call(fn goja.Value, args ...any) (goja.Value, error) {
	f, ok := goja.AssertFunction(fn)
	if !ok {
		return nil, errors.New("internal: not a function")
	}
	vals := make([]goja.Value, len(args))
	for i, a := range args {
		if v, ok := a.(goja.Value); ok {
			vals[i] = v
		} else {
			vals[i] = sb.vm.ToValue(a)
		}
	}
	return f(goja.Undefined(), vals...)
}

// rawRow is a row the drivers return.
type rawRow struct {
	Cell      int             `json:"cell"`
	Selection json.RawMessage `json:"selection"`
	Verified  string          `json:"verified"`
	Mode      string          `json:"mode"`
	Command   json.RawMessage `json:"command"`
}

// decodeGenerator runs a generator's component body with React stubs.
func decodeGenerator(ctx context.Context, p *programs, file string, src []byte, opt Options, wd *watchdog, used *int64) (_ []Selection, _ []string, err error) {
	sb, stop, err := newSandbox(ctx, file, opt, p, wd)
	if err != nil {
		return nil, nil, err
	}
	defer stop()
	defer func() { *used = sb.steps.used() }()
	defer sb.recoverRun(&err)
	vm := sb.vm
	cutFn, err := vm.RunProgram(p.generatorCut)
	if err != nil {
		return nil, nil, sb.err(err)
	}
	cv, err := sb.call(cutFn, string(src))
	if err != nil {
		return nil, nil, sb.err(err)
	}
	co, ok := cv.(*goja.Object)
	if !ok || goja.IsNull(cv) {
		return nil, nil, nil // not a generator the oracle reads: no rows
	}
	body := co.Get("body").String()
	line := int(co.Get("line").ToInteger())
	wrapped := strings.Repeat("\n", max(line-1, 0)) + generatorHead + body + generatorTail
	js, err := transform(wrapped, file, false)
	if err != nil {
		return nil, nil, err
	}
	prg, err := compile(file, js)
	if err != nil {
		return nil, nil, err
	}
	fn, err := vm.RunProgram(prg)
	if err != nil {
		return nil, nil, sb.err(err)
	}
	dv, err := vm.RunProgram(p.generatorDriver)
	if err != nil {
		return nil, nil, sb.err(err)
	}
	inG := func() bool { return sb.inFunc("generateCommand") }
	drv, err := sb.call(dv, fn, opt.MaxSelections, fastMin, sb.tick, deadGenerateCommand(file, js), inG, maxTemplates)
	if err != nil {
		return nil, nil, sb.err(err)
	}
	d := drv.(*goja.Object)
	sb.tick()
	first, err := sb.call(d.Get("run"), goja.Null())
	if err != nil {
		return nil, nil, sb.err(err)
	}
	sb.tick()
	res, err := sb.call(d.Get("enumerate"), first)
	if err != nil {
		return nil, nil, sb.err(err)
	}
	ro := res.(*goja.Object)
	var skipped []string
	if err := vm.ExportTo(ro.Get("skipped"), &skipped); err != nil {
		return nil, nil, sb.err(err)
	}
	sels, err := rowsToSelections(file, "generator", ro.Get("rows").String(), opt)
	return sels, skipped, err
}

// rowsToSelections decodes the drivers' JSON rows, keeping the selection's
// key order.
func rowsToSelections(file, kind, rows string, opt Options) ([]Selection, error) {
	var raw []rawRow
	if err := json.Unmarshal([]byte(rows), &raw); err != nil {
		return nil, &FileError{File: file, Err: fmt.Errorf("rows: %w", err)}
	}
	out := make([]Selection, 0, len(raw))
	for _, r := range raw {
		s := Selection{File: file, Kind: kind, Cell: -1}
		if kind == "config" {
			s.Cell, s.Verified, s.Mode = r.Cell, r.Verified, r.Mode
		}
		vals, order, err := decodeOrdered(r.Selection)
		if err != nil {
			return nil, &FileError{File: file, Err: fmt.Errorf("selection: %w", err)}
		}
		s.Values, s.Order = vals, order
		if len(r.Command) > 0 {
			if err := json.Unmarshal(r.Command, &s.Command); err != nil {
				return nil, &FileError{File: file, Err: fmt.Errorf("selection %s: command is not a string", r.Selection)}
			}
		}
		if len(s.Command) > opt.MaxString {
			return nil, &FileError{File: file, Err: fmt.Errorf("%w: command of %d bytes", ErrBounds, len(s.Command))}
		}
		out = append(out, s)
	}
	return out, nil
}

// decodeOrdered decodes a JSON object, returning its values and key order.
func decodeOrdered(raw json.RawMessage) (map[string]any, []string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	t, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("not an object: %s", raw)
	}
	vals := map[string]any{}
	var order []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := vals[k]; !dup {
			order = append(order, k)
		}
		vals[k] = v
	}
	return vals, order, nil
}

// inFunc reports whether a JavaScript function named name is on the call
// stack.
func (sb *sandbox) inFunc(name string) bool {
	for _, f := range sb.vm.CaptureCallStack(0, nil) {
		if f.FuncName() == name {
			return true
		}
	}
	return false
}

// deadGenerateCommand reports whether the wrapped generator body js (see
// generatorHead) declares `const generateCommand = …` once and calls it only
// as `const x = generateCommand(…)` with x never referenced again, so that
// those calls during a render cannot change what the render returns
// (beyond what generateCommand itself does to its own state). Identifiers
// are counted wherever they appear (property names too), which can only
// make the answer false. False when unsure.
func deadGenerateCommand(file, js string) bool {
	const g = "generateCommand"
	idents, binds, calls, ok := scanAST(file, js)
	if !ok {
		return false
	}
	base, _, _, ok := scanAST(file, generatorHead+generatorTail)
	if !ok {
		return false
	}
	decls, uses := 0, 0
	for _, b := range binds {
		if id, ok := b.Target.(*ast.Identifier); ok && id.Name == g {
			switch b.Initializer.(type) {
			case *ast.ArrowFunctionLiteral, *ast.FunctionLiteral:
				decls++
			default:
				return false
			}
		}
		c, ok := b.Initializer.(*ast.CallExpression)
		if !ok {
			continue
		}
		if id, ok := c.Callee.(*ast.Identifier); ok && id.Name == g {
			x, ok := b.Target.(*ast.Identifier)
			if !ok || idents[string(x.Name)] != 1 {
				return false
			}
			uses++
		}
	}
	called := 0
	for _, c := range calls {
		if id, ok := c.Callee.(*ast.Identifier); ok && id.Name == g {
			called++
		}
	}
	return decls == 1 && called == uses && idents[g]-base[g] == 1+uses
}

// scanAST parses src and returns how often each identifier name occurs
// (anywhere: bindings, references, property names), every binding and
// every call expression. ok is false when src does not parse.
func scanAST(file, src string) (idents map[string]int, binds []*ast.Binding, calls []*ast.CallExpression, ok bool) {
	defer func() {
		if recover() != nil { // goja's parser panicked: not known
			idents, binds, calls, ok = nil, nil, nil, false
		}
	}()
	prg, err := goja.Parse(file, src, parser.WithSourceMapLoader(denySourceMap))
	if err != nil {
		return nil, nil, nil, false
	}
	idents = map[string]int{}
	walkAST(prg, func(n any) {
		switch n := n.(type) {
		case *ast.Binding:
			binds = append(binds, n)
		case *ast.CallExpression:
			calls = append(calls, n)
		case ast.Identifier:
			idents[n.Name.String()]++
		}
	})
	return idents, binds, calls, true
}
