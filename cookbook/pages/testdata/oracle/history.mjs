#!/usr/bin/env node
// Renders the config pages of every docs commit of an sglang history with render_component.mjs and
// prints one line per (commit, config snippet): what the pages' own code shows there, as counts and
// hashes (the ledger TestMirrorCookbookPageEngines compares with).
//
//   node history.mjs GIT_DIR [SINCE [UNTIL]] > sglang-docs-history.txt
//
// Commits: `git log --format='%H %ad' --date=short -- 'docs*/src/snippets/*'` with SINCE <= date <= UNTIL
// (YYYY-MM-DD, inclusive), newest first. Each commit's docs dir (docs/, or docs_new/ before
// 2026-08-03) is extracted with `git archive` (src/snippets and cookbook only) into a temp dir.
// Line: "<commit> <date> <file> <rows> <sha256>", sha256 over the rows as
// `Selection.GoldenJSON` writes them (the render_component.mjs line without its "page" field), each
// followed by "\n"; or "<commit> <date> <file> error <message>".
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const [gitDir, since = "0000-00-00", until = "9999-99-99"] = process.argv.slice(2);
const git = (...a) => execFileSync("git", ["--git-dir", gitDir, ...a], { encoding: "utf8", maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "ignore"] });
const commits = git("log", "--format=%H %ad", "--date=short", "--", "docs*/src/snippets/*")
  .trim().split("\n").map((l) => l.split(" ")).filter(([, d]) => d >= since && d <= until);
const pageRE = /"page":("(?:[^"\\]|\\.)*"),/;
for (const [c, date] of commits) {
  const dir = mkdtempSync(join(tmpdir(), "sglang-docs-"));
  try {
    const prefix = ["docs", "docs_new"].find((p) => { try { git("cat-file", "-e", `${c}:${p}/src/snippets`); return true; } catch { return false; } });
    if (!prefix) continue;
    const paths = [`${prefix}/src/snippets`];
    try { git("cat-file", "-e", `${c}:${prefix}/cookbook`); paths.push(`${prefix}/cookbook`); } catch { /* no pages */ }
    execFileSync("sh", ["-c", `git --git-dir "$0" archive "$1" ${paths.join(" ")} | tar -x -C "$2"`, gitDir, c, dir]);
    const out = execFileSync("node", [join(here, "render_component.mjs"), dir], { encoding: "utf8", maxBuffer: 1 << 30, stdio: ["ignore", "pipe", "ignore"] });
    const byFile = new Map();
    for (const line of out.split("\n").filter(Boolean)) {
      const o = JSON.parse(line);
      if (!byFile.has(o.file)) byFile.set(o.file, { rows: [], error: null });
      if (o.error !== undefined) byFile.get(o.file).error = o.error;
      else byFile.get(o.file).rows.push(line.replace(pageRE, ""));
    }
    for (const [file, { rows, error }] of [...byFile].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (error !== null) { process.stdout.write(`${c} ${date} ${file} error ${error.replace(/\s+/g, " ")}\n`); continue; }
      const h = createHash("sha256");
      for (const r of rows) h.update(r + "\n");
      process.stdout.write(`${c} ${date} ${file} ${rows.length} ${h.digest("hex")}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
