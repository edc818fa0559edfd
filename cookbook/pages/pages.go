// Package pages reads the SGLang cookbook's hand-written deployment pages
// (sgl-project/sglang docs/cookbook/**/*.mdx, docs_new/ before 2026-08-03)
// through the pages' own code: the deployment snippet each page imports — a
// config (docs/src/snippets/configs/<org>/<model>.jsx, rendered by the
// component the page passes it to, `<Deployment config={config} … />` of
// docs/src/snippets/_deployment.jsx) or an older generator
// (docs/src/snippets/autoregressive/*-deployment.jsx) — runs in an embedded,
// sandboxed JavaScript engine, and every selection a reader can make is
// listed with the command the page shows for it. A config page is driven
// as a reader drives it (component.js): the component is rendered with the
// props the page passes under a minimal React, its option buttons and
// run-mode tabs clicked, its command read from what it renders — no name
// inside the component is assumed, so every version of the engine in the
// sglang history reads alike.
package pages

// Selection is one selection a reader can make on a page, with the command
// the page shows for it (the rows of ../shared/golden/cookbook-pages).
type Selection struct {
	// File is the snippet, relative to the sglang repository root
	// ("docs/src/snippets/configs/zai-org/glm-5.2.jsx"); Page the .mdx page
	// that imports it, relative to the root ("" when no page does).
	File string `json:"file"`
	Page string `json:"page,omitempty"`
	// Kind is "config" or "generator".
	Kind string `json:"kind"`
	// Values are the selection: dimension / option row → item id (a
	// string), or for a generator's checkbox row the ids of the items
	// ticked ([]string, in declaration order). Order lists the keys in the
	// page's row order.
	Values map[string]any `json:"selection"`
	Order  []string       `json:"-"`
	// Cell is the config cell rendered (configs; -1 for generators),
	// Verified its verification badge ("verified", …; configs only), Mode
	// the run mode ("python" or "docker"; configs only).
	Cell     int    `json:"cell"`
	Verified string `json:"verified,omitempty"`
	Mode     string `json:"mode,omitempty"`
	// Command is the command text the page shows.
	Command string `json:"command"`
	// URL is the published page with the selection in its fragment
	// (https://docs.sglang.io/cookbook/autoregressive/<Org>/<Model>#hw=…),
	// "" when the snippet has no page.
	URL string `json:"url,omitempty"`
}
