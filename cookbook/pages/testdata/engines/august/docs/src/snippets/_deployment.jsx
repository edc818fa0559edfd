// Hand-written in the shape of the cookbook engine of 2026-07-27 – August
// (docs/src/snippets/_deployment.jsx from 2026-08-03): match
// dims from config.matchDims, overlay rows whose options add flags, option
// and row showWhen, re-seated hidden picks, config.runModes tabs, redirect
// cells, a three-state badge (cell.verificationStatus over cell.verified),
// runModes as a function of the selection. Not the upstream file.
export const Deployment = ({ config, benchmarks }) => {
  if (!config) return <div>Deployment: missing config</div>;
  const HARDWARE = { blackwell: [{ id: "b200", label: "B200" }], hopper: [{ id: "h200", label: "H200" }] };
  const LEGACY = [{ id: "variant", title: "Variant", optionsKey: "variants" }, { id: "quant", title: "Quantization", optionsKey: "quantizations" }];
  const matchSpecs = (config.matchDims || LEGACY).map((d) => ({ ...d, options: d.options || config[d.optionsKey] || [] }));
  const overlaySpecs = config.overlayDims || [];
  const DIMENSIONS = ["hw", ...matchSpecs.map((d) => d.id)];
  const visible = (o, sel) => typeof o.showWhen !== "function" || o.showWhen(sel);
  const disabledOpt = (o, sel) => (typeof o.disabled === "function" ? o.disabled(sel) : !!o.disabled);
  const visibleOptions = (spec, sel) => (spec.options || []).filter((o) => visible(o, sel));
  const rowShown = (spec, sel) => (typeof spec.showWhen !== "function" || spec.showWhen(sel)) && visibleOptions(spec, sel).length > 0;
  const overlayFlags = (sel) => {
    const out = [];
    for (const spec of overlaySpecs) {
      if (!rowShown(spec, sel)) continue;
      const o = (spec.options || []).find((x) => x.id === sel[spec.id]);
      if (o && !disabledOpt(o, sel) && o.flags) out.push(...(typeof o.flags === "function" ? o.flags(sel) : o.flags));
    }
    return out;
  };
  const findCell = (cells, sel) => cells.find((c) => DIMENSIONS.every((d) => c.match[d] === sel[d]));
  const available = (cells, sel, dim, value) => {
    const higher = DIMENSIONS.slice(0, DIMENSIONS.indexOf(dim));
    return cells.some((c) => c.match[dim] === value && higher.every((d) => c.match[d] === sel[d]));
  };
  const snap = (cells, sel, dim, value) => {
    const idx = DIMENSIONS.indexOf(dim);
    const lower = DIMENSIONS.slice(idx + 1);
    const best = cells.find((c) => c.match[dim] === value && DIMENSIONS.slice(0, idx).every((d) => c.match[d] === sel[d]));
    if (!best) return sel;
    const next = { ...sel, [dim]: value };
    for (const d of lower) next[d] = best.match[d];
    return next;
  };
  const renderCommand = (cell, sel, env, mode = "python") => {
    if (!cell) return "# No command available for the current selection.";
    const flags = [...(cell.flags || []), ...overlayFlags(sel)];
    const body = `sglang serve \\\n${flags.map((f) => "  " + f).join(" \\\n")}`;
    const cmd = mode === "docker" ? `docker run --gpus all --ipc=host \\\n  lmsysorg/sglang:dev \\\n  ${body}` : body;
    return cmd.replace(/{{(\w+)}}/g, (_, k) => env[k] ?? `{{${k}}}`);
  };
  const initialSelection = () => {
    const first = config.cells[0];
    const sel = Object.fromEntries(DIMENSIONS.map((d) => [d, first ? first.match[d] : ""]));
    for (const spec of overlaySpecs) sel[spec.id] = spec.default ?? ((spec.options || [])[0] || {}).id ?? "";
    return sel;
  };
  const defaults = (schema) => { const o = {}; for (const [k, v] of Object.entries(schema || {})) o[k] = v.default ?? ""; return o; };

  const [isDark] = useState(false);
  const [env] = useState(() => defaults(config.placeholders));
  const [sel, setSel] = useState(() => initialSelection());
  const [modal, setModal] = useState(null);
  const VERIFY_LABEL = { verified: "Verified", "in-progress": "Final Verification In Progress", unverified: "Not Verified" };
  const statusOf = (c) => {
    const v = c ? (c.verificationStatus ?? c.verified) : false;
    return typeof v === "string" ? (VERIFY_LABEL[v] ? v : "unverified") : (v ? "verified" : "unverified");
  };
  const runModes = (typeof config.runModes === "function" ? config.runModes(sel) : config.runModes) || ["python", "docker"];
  const [runMode, setRunMode] = useState(runModes[0]);
  const activeRunMode = runModes.includes(runMode) ? runMode : runModes[0];
  useEffect(() => { if (!runModes.includes(runMode)) setRunMode(runModes[0]); }, [runMode]);
  const cell = findCell(config.cells, sel);
  const command = renderCommand(cell, sel, env, activeRunMode);
  const isOverlay = (dim) => overlaySpecs.some((d) => d.id === dim);
  const isEnabled = (dim, value) => {
    const spec = [...matchSpecs, ...overlaySpecs].find((d) => d.id === dim);
    const opt = spec && spec.options.find((o) => o.id === value);
    if (opt && disabledOpt(opt, sel)) return false;
    return isOverlay(dim) || available(config.cells, sel, dim, value);
  };
  const reseat = (next) => {
    let out = next;
    for (const spec of [...matchSpecs, ...overlaySpecs]) {
      const opts = visibleOptions(spec, out).filter((o) => !disabledOpt(o, out));
      if (opts.length && !opts.some((o) => o.id === out[spec.id])) out = { ...out, [spec.id]: opts[0].id };
    }
    return out;
  };
  const select = (dim, value) => setSel((prev) => reseat(isOverlay(dim) ? { ...prev, [dim]: value } : snap(config.cells, prev, dim, value)));
  const button = (item, dim, selectedId) => {
    const disabled = !isEnabled(dim, item.id);
    return (
      <label key={item.id} title={disabled ? item.disableReason || "Not supported" : ""}
        onClick={(e) => { if (disabled) { e.preventDefault(); return; } select(dim, item.id); }}>
        <input type="radio" checked={selectedId === item.id} disabled={disabled} readOnly />
        <span>{item.label}</span>
      </label>
    );
  };
  const section = (title, options, dim, selectedId) => (
    <div><div>{title}</div><div>{options.map((item) => button(item, dim, selectedId))}</div></div>
  );
  return (
    <div style={{ color: isDark ? "#fff" : "#000" }}>
      <div>
        {Object.entries(HARDWARE).map(([vendor, list]) => (
          <div key={vendor}>{vendor}<div>{list.filter((h) => config.supportedHardware.includes(h.id)).map((h) => button(h, "hw", sel.hw))}</div></div>
        ))}
      </div>
      {matchSpecs.filter((d) => rowShown(d, sel)).map((d) => <div key={d.id}>{section(d.title, visibleOptions(d, sel), d.id, sel[d.id])}</div>)}
      {overlaySpecs.filter((d) => rowShown(d, sel)).map((d) => <div key={d.id}>{section(d.title, visibleOptions(d, sel), d.id, sel[d.id])}</div>)}
      <div>
        <div>Command:</div>
        {cell && cell.redirect ? (
          <div>⚠️ {cell.warn}</div>
        ) : (<>
          <div>
            <div>
              <span />
              {VERIFY_LABEL[statusOf(cell)]}
            </div>
            <div role="tablist">
              {runModes.map((mode) => (
                <span key={mode} role="tab" aria-selected={activeRunMode === mode} onClick={() => setRunMode(mode)}>{mode === "docker" ? "Docker" : "Python"}</span>
              ))}
            </div>
          </div>
          <pre>{command}</pre>
          {cell && cell.warn && <div>⚠️ {cell.warn}</div>}
        </>)}
      </div>
      {benchmarks && cell && <div>{benchmarks.length} measurements</div>}
      {modal && <pre>{modal}</pre>}
      <button onClick={() => setModal("env")}>Env</button>
    </div>
  );
};
