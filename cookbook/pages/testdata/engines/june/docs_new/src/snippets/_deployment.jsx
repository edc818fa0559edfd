// Hand-written in the shape of the cookbook engine of June – 2026-07-21
// (docs_new/src/snippets/_deployment.jsx): five fixed match dims, buttons
// greyed out by the cells and snapped on click, a Python / Docker tab pair,
// a boolean Verified badge. Not the upstream file.
export const Deployment = ({ config, benchmarks }) => {
  if (!config) {
    return <div>Deployment: missing <code>config</code> prop</div>;
  }
  const CATALOG = { hopper: [{ id: "h100", label: "H100" }, { id: "h200", label: "H200" }], amd: [{ id: "mi300x", label: "MI300X" }] };
  const styles = (dark) => ({ card: { padding: 4, color: dark ? "#fff" : "#000" }, badge: (ok) => ({ color: ok ? "green" : "grey" }) });
  const DIMENSIONS = ["hw", "variant", "quant", "strategy", "nodes"];
  const findCell = (cells, sel) => cells.find((c) => DIMENSIONS.every((d) => c.match[d] === sel[d]));
  const isOptionAvailable = (cells, sel, dim, value) => {
    const higher = DIMENSIONS.slice(0, DIMENSIONS.indexOf(dim));
    return cells.some((c) => c.match[dim] === value && higher.every((d) => c.match[d] === sel[d]));
  };
  const snapToValidCell = (cells, sel, dim, value) => {
    const idx = DIMENSIONS.indexOf(dim);
    const higher = DIMENSIONS.slice(0, idx), lower = DIMENSIONS.slice(idx + 1);
    let best = null, score = -1;
    for (const c of cells) {
      if (c.match[dim] !== value || !higher.every((d) => c.match[d] === sel[d])) continue;
      const n = lower.filter((d) => c.match[d] === sel[d]).length;
      if (n > score) { score = n; best = c; }
    }
    if (!best) return sel;
    const next = { ...sel, [dim]: value };
    for (const d of lower) next[d] = best.match[d];
    return next;
  };
  const interpolate = (text, env, model) => text.replace(/{{(\w+)}}/g, (_, k) => (k === "MODEL_NAME" ? model : (env[k] ?? `{{${k}}}`)));
  const parseNnodes = (id) => { const m = /^multi-(\d+)$/.exec(id); return m ? parseInt(m[1], 10) : 1; };
  const renderCommand = (cell, sel, env, mode) => {
    if (!cell) return "# No command available for the current selection.";
    const model = config.modelNames[`${sel.variant}|${sel.quant}`] ?? "";
    const nnodes = parseNnodes(sel.nodes);
    const flags = [...(cell.flags || [])];
    if (nnodes > 1) flags.splice(flags.findIndex((f) => f.startsWith("--tp")) + 1, 0, `--nnodes ${nnodes}`, "--node-rank {{NODE_RANK}}");
    let cmd;
    if (mode === "docker") {
      const image = (config.dockerImages || {})[`${sel.hw}|${sel.quant}`] || "lmsysorg/sglang:dev";
      cmd = ["docker run --gpus all", ...(cell.env || []).map((e) => `  --env ${e}`), `  ${image}`, "  sglang serve", ...flags.map((f) => "    " + f)].join(" \\\n");
    } else {
      const envBlock = (cell.env || []).length ? cell.env.join(" \\\n") + " \\\n" : "";
      cmd = `${envBlock}sglang serve \\\n${flags.map((f) => "  " + f).join(" \\\n")}`;
    }
    cmd = interpolate(cmd, env, model);
    return nnodes > 1 ? `# Multi-node (${nnodes} nodes)\n${cmd}` : cmd;
  };
  const renderBenchmarkCard = (entry) => <div>{entry ? `${entry.speed} tok/s` : "pending"}</div>;
  const initialSelectionFromCells = () => {
    const first = config.cells[0];
    return { hw: first.match.hw, variant: first.match.variant, quant: first.match.quant, strategy: first.match.strategy, nodes: first.match.nodes };
  };
  const placeholderDefaults = (schema) => Object.fromEntries(Object.entries(schema || {}).map(([k, v]) => [k, v.default ?? ""]));

  const [isDark, setIsDark] = useState(false);
  useEffect(() => { setIsDark(document.documentElement.classList.contains("dark")); }, []);
  const [env, setEnv] = useState(() => placeholderDefaults(config.placeholders));
  const [sel, setSel] = useState(() => initialSelectionFromCells());
  useEffect(() => { setSel(initialSelectionFromCells()); }, []);
  const [modal, setModal] = useState(null);
  const [copied, setCopied] = useState(false);
  const [runMode, setRunMode] = useState("python");

  const s = styles(isDark);
  const cell = findCell(config.cells, sel);
  const command = renderCommand(cell, sel, env, runMode);
  const bench = benchmarks ? benchmarks.find((b) => DIMENSIONS.every((d) => b.match[d] === sel[d])) : null;
  const renderButton = (item, dim, selectedId) => {
    const checked = selectedId === item.id;
    const disabled = !isOptionAvailable(config.cells, sel, dim, item.id);
    return (
      <label key={item.id} style={s.card} onClick={(e) => { if (disabled) { e.preventDefault(); return; } setSel((prev) => snapToValidCell(config.cells, prev, dim, item.id)); }}>
        <input type="radio" checked={checked} disabled={disabled} readOnly />
        <span>{item.label}</span>
      </label>
    );
  };
  const renderFlatSection = (title, options, dim, selectedId) => (
    <div style={s.card}><div>{title}</div><div>{options.map((item) => renderButton(item, dim, selectedId))}</div></div>
  );
  const supported = new Set(config.supportedHardware);
  return (
    <div className="not-prose">
      <div>
        {Object.entries(CATALOG).map(([vendor, list]) => (
          <div key={vendor}><div>{vendor.toUpperCase()}</div>
            <div>{list.filter((h) => supported.has(h.id)).map((h) => renderButton(h, "hw", sel.hw))}</div>
          </div>
        ))}
      </div>
      {renderFlatSection("Model Variant", config.variants, "variant", sel.variant)}
      {renderFlatSection("Quantization", config.quantizations, "quant", sel.quant)}
      {renderFlatSection("Strategy", config.strategies, "strategy", sel.strategy)}
      {renderFlatSection("Nodes", config.nodesOptions, "nodes", sel.nodes)}
      <div style={s.card}>
        <div>Run this Command:</div>
        <div>
          <div>
            <div style={s.badge(Boolean(cell && cell.verified))}>
              <span />
              {cell && cell.verified ? "Verified" : "Not Verified"}
            </div>
            <div role="tablist">
              <span role="tab" onClick={() => setRunMode("python")}>Python</span>
              <span role="tab" onClick={() => setRunMode("docker")}>Docker</span>
            </div>
          </div>
          <button onClick={() => setCopied(true)}>{copied ? "Copied" : "Copy"}</button>
          <button onClick={() => setModal("curl")}>cURL</button>
        </div>
        <pre>{command}</pre>
      </div>
      {benchmarks && cell && renderBenchmarkCard(bench)}
      {modal === "curl" && <div><pre>{interpolate(config.curl || "", env, "")}</pre></div>}
    </div>
  );
};
