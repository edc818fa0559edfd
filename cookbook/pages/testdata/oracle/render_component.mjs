#!/usr/bin/env node
// Renders the SGLang cookbook's config pages as the pages do, under Node, and prints every selection a
// reader can make with the command the page shows (one JSON object a line, the rows of
// ../../../../../shared/golden/cookbook-pages): for each config snippet, the component the .mdx page
// imports (`<Deployment config={config} benchmarks={benchmarks} />`), called with the props the page
// passes, through ../../component.js (the enumeration the Go package runs in its sandbox).
//
//   node render_component.mjs ROOT [CONFIG_OR_PAGE ...] > golden.jsonl
//
// ROOT is an sglang checkout (its docs under docs/ or, before 2026-08-03, docs_new/) or a docs dir.
// A snippet no page imports is rendered by the engine's exported component with {config}.
// JSX is compiled by esbuild (the version go.mod pins): $ESBUILD, or `go run
// github.com/evanw/esbuild/cmd/esbuild` in this repository.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../../../..");
const root = resolve(process.argv[2]);
const docs = ["docs", "docs_new", "."].map((d) => join(root, d)).find((d) => existsSync(join(d, "src/snippets")));
if (!docs) throw new Error(`${root}: no docs/src/snippets or docs_new/src/snippets`);
const prefix = relative(root, docs) || "docs";
const rel = (p) => prefix + "/" + relative(docs, p).split("\\").join("/");
const walk = (d, ext) => readdirSync(d).flatMap((n) => {
  const p = join(d, n); return statSync(p).isDirectory() ? walk(p, ext) : (n.endsWith(ext) ? [p] : []);
});

const esbuild = (src) => {
  const cmd = process.env.ESBUILD ? process.env.ESBUILD.split(" ") : ["go", "run", "github.com/evanw/esbuild/cmd/esbuild"];
  return execFileSync(cmd[0], [...cmd.slice(1), "--loader=jsx", "--format=esm"], { cwd: repo, input: src, encoding: "utf8", maxBuffer: 64 << 20 });
};
const importSrc = (src) => import("data:text/javascript," + encodeURIComponent(src));
const modules = new Map();
const load = async (abs) => {
  if (!modules.has(abs)) {
    modules.set(abs, importSrc(esbuild(readFileSync(abs, "utf8"))));
  }
  return modules.get(abs);
};

// The page's imports and component tags (import { A, B as C } from "/src/snippets/…"; <A p={C} q="s" />).
const importRE = /^import\s+\{([^}]*)\}\s+from\s+["'](\/src\/snippets\/[^"']+\.jsx)["']/gm;
const tagRE = /<([A-Z][A-Za-z0-9_]*)\b((?:[^>"'{}]|"[^"]*"|'[^']*'|\{[^{}]*\})*?)\/?>/g;
const attrRE = /([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:\{\s*([A-Za-z_$][A-Za-z0-9_$]*)\s*\}|"([^"]*)"|'([^']*)')/g;
const readPage = (src) => {
  const binds = {};
  for (const m of src.matchAll(importRE)) {
    for (const part of m[1].split(",").map((x) => x.trim()).filter(Boolean)) {
      const [name, alias] = part.split(/\s+as\s+/);
      binds[(alias || name).trim()] = { module: m[2], name: name.trim() };
    }
  }
  const tags = [];
  for (const m of src.matchAll(tagRE)) {
    if (!binds[m[1]]) continue;
    const props = [];
    for (const a of m[2].matchAll(attrRE)) props.push(a[2] ? { name: a[1], bind: a[2] } : { name: a[1], value: a[3] ?? a[4] });
    tags.push({ component: m[1], props });
  }
  return { binds, tags };
};
const pages = existsSync(join(docs, "cookbook")) ? walk(join(docs, "cookbook"), ".mdx").sort() : [];
// the first page (sorted) and tag passing a binding of the snippet
const pageFor = (snippet) => {
  for (const p of pages) {
    const { binds, tags } = readPage(readFileSync(p, "utf8"));
    for (const t of tags) {
      const c = t.props.find((x) => x.bind && binds[x.bind] && join(docs, binds[x.bind].module) === snippet);
      if (c) return { page: p, binds, tag: t, configProp: c.name };
    }
  }
  return null;
};

const driverSrc = readFileSync(join(here, "../../component.js"), "utf8");
const driverFactory = new Function("return " + driverSrc.replace(/^\s*\/\/.*$/gm, "").trim())();
const engine = join(docs, "src/snippets/_deployment.jsx");

async function renderConfig(abs) {
  const drv = driverFactory(() => {}, 20000, 200000);
  Object.assign(globalThis, drv.hooks, { React: drv.React });
  const hit = pageFor(abs);
  let Component, props = {}, configProp = "config";
  if (hit) {
    configProp = hit.configProp;
    Component = (await load(join(docs, hit.binds[hit.tag.component].module)))[hit.binds[hit.tag.component].name];
    for (const p of hit.tag.props) {
      props[p.name] = p.bind ? (hit.binds[p.bind] ? (await load(join(docs, hit.binds[p.bind].module)))[hit.binds[p.bind].name] : undefined) : p.value;
    }
  } else {
    const ns = await load(engine);
    Component = Object.values(ns).find((v) => typeof v === "function");
    props = { config: (await load(abs)).config };
  }
  const rows = JSON.parse(drv.enumerate(Component, props, configProp));
  for (const r of rows) {
    process.stdout.write(JSON.stringify({ file: rel(abs), ...(hit ? { page: rel(hit.page) } : {}), kind: "config", ...r }) + "\n");
  }
  return rows.length;
}

const args = process.argv.slice(3).map((f) => resolve(f));
const files = args.length ? args.flatMap((f) => f.endsWith(".mdx")
  ? [...readFileSync(f, "utf8").matchAll(importRE)].map((m) => join(docs, m[2])).filter((p) => p.includes("/configs/") && !p.includes("benchmark"))
  : [f])
  : walk(join(docs, "src/snippets/configs"), ".jsx").filter((p) => !p.includes("benchmark") && !p.endsWith("popular-models.jsx")).sort();
let total = 0;
for (const f of files) {
  try { total += await renderConfig(f); } catch (e) { process.stdout.write(JSON.stringify({ file: rel(f), error: String((e && e.message) || e) }) + "\n"); }
}
process.stderr.write(`render_component: ${total} selections from ${files.length} files\n`);
