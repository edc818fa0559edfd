// component.js: drives a cookbook page's deployment component the way the page
// does — the component the .mdx page imports, called with the props the page
// passes, under a minimal React (hooks kept by call order, effects not run:
// the first render a reader sees) — and lists every selection a reader can
// make with the command the page shows for it. It names nothing inside the
// component: the selection state is the state the option buttons set, the run
// mode the state the output tabs set, the command the first <pre>, the badge
// what precedes the tabs, the rendered cell the one whose fields besides
// `match` the render read.
//
// Evaluated as one expression: (tick, CAP, MAXROWS) → {React, hooks,
// enumerate}. The page's modules are evaluated with React and hooks as free
// names (as Mintlify provides them); enumerate(Component, props, config)
// returns the rows as JSON. The same text runs in the Go sandbox
// (cookbook/pages) and under Node (testdata/oracle/render_component.mjs).
(function (tick, CAP, MAXROWS) {
  const shim = { cursor: 0, over: null, values: [], updates: null };
  const setterFor = (k) => (u) => { if (shim.updates) shim.updates.push([k, u]); };
  const useState = (init) => {
    const k = shim.cursor++;
    let v;
    if (shim.over && shim.over.has(k)) v = shim.over.get(k);
    else v = typeof init === "function" ? init() : init;
    shim.values[k] = v;
    return [v, setterFor(k)];
  };
  const useReducer = (reducer, arg, init) => {
    const [v, set] = useState(() => (typeof init === "function" ? init(arg) : arg));
    return [v, (a) => set((p) => reducer(p, a))];
  };
  const hooks = {
    useState, useReducer,
    useEffect: () => {}, useLayoutEffect: () => {}, useInsertionEffect: () => {},
    useMemo: (f) => f(), useCallback: (f) => f, useRef: (v) => ({ current: v }),
    useContext: (c) => (c && typeof c === "object" ? c._currentValue : undefined),
    useId: () => ":r0:", useTransition: () => [false, (f) => f()], useDeferredValue: (v) => v,
  };
  const createElement = (type, props, ...children) => ({ type, props: props || {}, children });
  const React = { ...hooks, createElement, Fragment: "Fragment" };

  // render calls the component with state slots overridden (slot → value).
  let Comp = null, compProps = null;
  const render = (over) => {
    tick();
    shim.cursor = 0; shim.over = over; shim.values = [];
    const tree = Comp(compProps);
    return { tree, values: shim.values.slice() };
  };

  // walk visits every element in document order (function components are
  // called in place, as React would render them).
  const walk = (node, visit, parent) => {
    if (node === null || node === undefined || typeof node !== "object") return;
    if (Array.isArray(node)) { for (let i = 0; i < node.length; i++) walk(node[i], visit, parent); return; }
    tick();
    if (typeof node.type === "function") {
      walk(node.type({ ...node.props, children: node.children.length === 1 ? node.children[0] : node.children }), visit, parent);
      return;
    }
    if (visit(node, parent) === false) return;
    walk(node.children, visit, node);
  };
  const textOf = (node) => {
    if (node === null || node === undefined || typeof node === "boolean") return "";
    if (typeof node === "string" || typeof node === "number") return String(node);
    if (Array.isArray(node)) return node.map(textOf).join("");
    if (typeof node === "object") {
      if (typeof node.type === "function") {
        let out = "";
        walk(node, (el) => { out += textOf(el); return false; });
        return out;
      }
      return textOf(node.children);
    }
    return "";
  };
  const findFirst = (tree, pred) => {
    let hit = null;
    walk(tree, (el) => { if (hit) return false; if (pred(el)) { hit = el; return false; } });
    return hit;
  };
  // scan reads what the driver needs of a rendered tree in one pass: the
  // option buttons (clickable elements holding a radio input) grouped by
  // the element holding them, the run-mode tabs, the first <pre>, and the
  // badge (the text of the element just before the run-mode tablist, as
  // the status id of the labels the pages have shown; any other label as
  // shown).
  const BADGE = { "Verified": "verified", "Not Verified": "unverified", "Final Verification In Progress": "in-progress" };
  const scan = (tree) => {
    const groups = [], byParent = new Map(), tabs = [];
    let pre = null, badge = null;
    walk(tree, (el, parent) => {
      if (pre === null && el.type === "pre") pre = el;
      if (el.props.role === "tab" && typeof el.props.onClick === "function") tabs.push(el);
      if (badge === null && el.props.role === "tablist" && parent) {
        const kids = [];
        const flat = (n) => { if (Array.isArray(n)) n.forEach(flat); else if (n && typeof n === "object") kids.push(n); };
        flat(parent.children);
        const i = kids.indexOf(el);
        if (i > 0) badge = textOf(kids[i - 1]).trim();
      }
      if (typeof el.props.onClick === "function") {
        const input = findFirst(el.children, (x) => x.type === "input" && x.props.type === "radio");
        if (input) {
          let g = byParent.get(parent);
          if (!g) { g = []; byParent.set(parent, g); groups.push(g); }
          g.push({ el, key: el.props.key, enabled: !input.props.disabled, checked: !!input.props.checked });
          return false;
        }
      }
    });
    if (badge !== null && Object.prototype.hasOwnProperty.call(BADGE, badge)) badge = BADGE[badge];
    return { groups, tabs, pre, badge: badge === null ? "" : badge };
  };
  const event = { preventDefault() {}, stopPropagation() {}, target: {}, currentTarget: {} };
  // click runs an element's onClick and returns the state updates it made.
  // (a handler that throws fails the file, as it fails the reader's click)
  const click = (el) => {
    shim.updates = [];
    el.props.onClick(event);
    const ups = shim.updates; shim.updates = null;
    return ups;
  };
  const apply = (ups, slot, state) => {
    let v = state, hit = false;
    for (const [k, u] of ups) if (k === slot) { hit = true; v = typeof u === "function" ? u(v) : u; }
    return hit ? v : undefined;
  };

  const enumerate = (Component, props, configProp) => {
    const config = props ? props[configProp] : undefined;
    Comp = Component; compProps = props;
    if (typeof Component !== "function" || !config || !Array.isArray(config.cells)) return "[]";
    // Which cell a render shows: the one whose fields besides `match` it
    // read (cells watched in the renders that list a selection only).
    // (each watched cell is a copy whose fields read and write through to
    // the cell: `match` as it is, every other field marking the cell read;
    // a Proxy's trap on every `match` read, which a page's lookups make for
    // every cell, cost a tenth of deepseek-v4.jsx's enumeration; a cell that
    // is an array keeps the Proxy)
    const read = new Set();
    const cells = config.cells.map((c, i) => {
      if (c === null || typeof c !== "object") return c;
      if (Array.isArray(c)) return new Proxy(c, { get: (t, p, r) => { if (p !== "match") read.add(i); return Reflect.get(t, p, r); } });
      const w = Object.create(Object.getPrototypeOf(c));
      for (const k of Object.keys(c)) {
        if (k === "match") Object.defineProperty(w, k, { value: c.match, writable: true, enumerable: true, configurable: true });
        else Object.defineProperty(w, k, { get: () => { read.add(i); return c[k]; }, set: (v) => { c[k] = v; }, enumerable: true, configurable: true });
      }
      return w;
    });
    const plainProps = props;
    const watchedProps = { ...props, [configProp]: new Proxy(config, { get: (t, p, r) => (p === "cells" ? cells : Reflect.get(t, p, r)) }) };

    // The selection state: the state an option button sets.
    const r0 = render(null);
    let selSlot = -1;
    for (const b of scan(r0.tree).groups.flat()) {
      if (!b.enabled) continue;
      for (const [k] of click(b.el)) {
        const v = r0.values[k];
        if (v !== null && typeof v === "object" && !Array.isArray(v)) { selSlot = k; break; }
      }
      if (selSlot >= 0) break;
    }
    if (selSlot < 0) return "[]";
    const init = r0.values[selSlot];
    const stateKeys = Object.keys(init);
    const own = (o, k) => o !== null && typeof o === "object" && Object.prototype.hasOwnProperty.call(o, k);
    const isMatch = (k) => config.cells.some((c) => c && own(c.match, k));
    const matchKeys = stateKeys.filter(isMatch);
    const overlayKeys = stateKeys.filter((k) => !isMatch(k));
    let modeSlot = -1;
    const over = (sel, mode) => {
      const m = new Map([[selSlot, sel]]);
      if (mode !== undefined && modeSlot >= 0) m.set(modeSlot, mode);
      return m;
    };

    const rows = [];
    for (const [ci, cell] of config.cells.entries()) {
      tick();
      const base = {};
      for (const k of matchKeys) base[k] = cell.match[k];
      let sels = [base];
      for (const k of overlayKeys) {
        const next = [];
        for (const s of sels) {
          // the row of k as the page shows it for s: the enabled buttons
          // whose click sets k to their own id (and no other set key to it)
          // (a group of buttons is one row: the first enabled one tells)
          const r = render(over(s));
          const ids = [];
          for (const g of scan(r.tree).groups) {
            const b = g.find((x) => x.enabled && !x.checked);
            if (!b) continue;
            const n = apply(click(b.el), selSlot, s);
            if (n === null || typeof n !== "object" || n[k] !== b.key) continue;
            if (Object.keys(s).some((j) => s[j] !== b.key && n[j] === b.key)) continue;
            for (const x of g) if (x.enabled && !x.checked && !ids.includes(x.key)) ids.push(x.key);
          }
          if (!ids.length) next.push({ ...s, [k]: init[k] });
          for (const id of ids) next.push({ ...s, [k]: id });
          if (next.length > CAP) break; // the rest is cut by the slice below
        }
        sels = next.slice(0, CAP);
      }
      for (const sel of sels) {
        read.clear();
        compProps = watchedProps;
        let r;
        try { r = render(over(sel)); } finally { compProps = plainProps; }
        const shown = [...read];
        if (shown.length !== 1 || shown[0] !== ci) continue; // another cell (or none) is shown
        const sc = scan(r.tree);
        if (!sc.pre) continue; // the cell shows no command (a redirect)
        const modes = [];
        for (const t of sc.tabs) {
          for (const [k, u] of click(t)) {
            if (typeof u === "function") continue;
            if (modeSlot < 0) modeSlot = k;
            if (k === modeSlot) modes.push(u);
          }
        }
        if (!modes.length) modes.push(undefined);
        for (const mode of modes) {
          tick();
          const rr = mode === undefined || r.values[modeSlot] === mode ? sc : scan(render(over(sel, mode)).tree);
          rows.push({ cell: ci, selection: sel, verified: rr.badge, mode: mode === undefined ? "" : mode,
                      command: rr.pre ? textOf(rr.pre.children) : "" });
          if (rows.length > MAXROWS) throw new RangeError("more than " + MAXROWS + " rows");
        }
      }
    }
    return JSON.stringify(rows);
  };
  return { React, hooks, enumerate };
})
