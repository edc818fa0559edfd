package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/cookbook/pages"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// decodeOptions are the flags of `cookbook-sync decode`.
type decodeOptions struct {
	cell   string // cell id or index; "" = the page's first cell
	point  int
	router string // "" = cell.submitted
	kv     string // "" = point.kv
	format string // text | json | jsonl
	all    bool
	// selection filters a cookbook page's selections ("k=v,…"; pages only)
	selection string
}

// newDecodeCmd: `cookbook-sync decode FILE [--cell ID|INDEX] [--point N]
// [--router sglang|dynamo] [--kv none|hicache|mooncake]
// [--format text|json|jsonl] [--all]`.
func newDecodeCmd() *cobra.Command {
	var o decodeOptions
	c := &cobra.Command{
		Use:     "decode FILE",
		Example: exampleDecode,
		Short:   "Decode an SGLang cookbook AgentX snippet or hand-written page into the commands the page shows",
		Long: `Decode an AgentX data file (docs/src/snippets/agentx/<org>/<model>.jsx) exactly as
the cookbook page does. The default selection is the page's: the first cell of
the first hardware and checkpoint, point 0, the measured router
(cell.submitted) and the measured KV tier (point.kv).

--cell takes a cell id ("<config key>#<n>", as coverage prints it), its "#<n>"
suffix when exactly one cell of the file ends in it, or the cell's index.

Formats: text (a header line naming the file, cell index and id, point and its
concurrencies, router and KV tier, each marked "measured" or "derived; measured
X"; then each block as "# Title" and its shell text, a blank line between),
json (an array of objects with the oracle keys, one per selection: a
single element without --all), jsonl (one object per line).
--all decodes every selection (cell x point x router x KV tier) in the
oracle's order; with --format jsonl the output equals the golden file.

Checks: the file must be a regular file of at most 64 MiB; block, diff and
patch objects have a closed key set (an unknown key such as "argz" is an
error, with file:line:col and the JSON path), env and envRef are exclusive,
a ref points to an earlier cell, point 0 has no patch and cell ids are
unique. Unknown keys at the top level, in cells and in points are tolerated
(the format grows there). A files key whose "#<hash>" does not match its
content (sha256 prefix) is printed as a "warning:" line on stderr: the page
does not check it, so the commands are still decoded and the exit status is 0.

Cookbook pages: FILE may also be a hand-written page
(docs/cookbook/**/<Model>.mdx) or the deployment snippet it imports
(docs/src/snippets/configs/<org>/<model>.jsx, rendered by _deployment.jsx, or
docs/src/snippets/autoregressive/*-deployment.jsx). The page's own code runs
in a sandbox (no file, network or process access; bounded time and memory)
and every selection a reader can make is listed. --selection k=v,… picks the
rows whose selection has those values (both run modes of a config); without
it, the first selection (its run modes). --all lists every selection; with
--format jsonl the lines have the keys of the golden
(../shared/golden/cookbook-pages). text shows per row the selection, the
badge and run mode (configs), the page URL with the selection and the
command; json adds "page" and "url" to the golden keys. The AgentX flags
(--cell, --point, --router, --kv) do not apply to pages.

Exit status:
  0  decoded; the selections were written to stdout
  2  bad usage (unknown flag value, --point out of range, unknown --cell) or
     bad input (unreadable or non-regular file, malformed snippet); the
     message names file:line:col and the JSON path. Nothing is written to
     stdout.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return runDecode(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], o, cmd.Flags().Changed)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.cell, "cell", "", "cell id (<config key>#<n>), its #<n> suffix when only one cell has it, or index (default: the page's first cell)")
	fl.IntVar(&o.point, "point", 0, "point index within the cell")
	fl.StringVar(&o.router, "router", "", "router: sglang or dynamo (default: the cell's submitted router)")
	fl.StringVar(&o.kv, "kv", "", "KV tier: none, hicache or mooncake (default: the point's measured tier)")
	fl.StringVar(&o.format, "format", "text", "output format: text, json or jsonl")
	fl.BoolVar(&o.all, "all", false, "decode every selection (cell x point x router x KV tier)")
	fl.StringVar(&o.selection, "selection", "", "pages: the selection, as k=v,… (keys and ids as in the page URL; default: the page's first selection)")
	return c
}

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func runDecode(ctx context.Context, stdout, stderr io.Writer, path string, o decodeOptions, changed func(string) bool) error {
	if !slices.Contains([]string{"text", "json", "jsonl"}, o.format) {
		return usageErr("--format %q: want text, json or jsonl", o.format)
	}
	if o.router != "" && o.router != "sglang" && o.router != "dynamo" {
		return usageErr("--router %q: want sglang or dynamo", o.router)
	}
	if o.kv != "" && !slices.Contains([]string{"none", "hicache", "mooncake"}, o.kv) {
		return usageErr("--kv %q: want none, hicache or mooncake", o.kv)
	}
	if pages.IsPageOrSnippet(path) {
		for _, name := range []string{"cell", "point", "router", "kv"} {
			if changed(name) {
				return usageErr("--%s is for AgentX snippets; a cookbook page takes --selection k=v,…", name)
			}
		}
		return runDecodePages(ctx, stdout, path, o)
	}
	if o.selection != "" {
		return usageErr("--selection is for cookbook pages (.mdx, snippets/configs, snippets/autoregressive); an AgentX snippet takes --cell/--point/--router/--kv")
	}
	f, err := cookbook.ReadFile(path)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	// The page never checks the files keys' hashes, so a mismatch does not
	// change the commands: warn, keep exit status 0.
	if err := f.CheckFileKeys(); err != nil {
		warn(stderr, err.Error())
	}
	var sels []cookbook.Selection
	if o.all {
		for _, name := range []string{"cell", "point", "router", "kv"} {
			if changed(name) {
				return usageErr("--all decodes every selection; it cannot be combined with --%s", name)
			}
		}
		sels = f.Selections()
	} else {
		ci := f.DefaultCell()
		if o.cell != "" {
			if ci, err = cellIndex(f, o.cell); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
		}
		if o.point < 0 || o.point >= len(f.Cells[ci].Points) {
			return usageErr("%s: --point %d out of range (cell %s has %d points)", path, o.point, f.Cells[ci].ID, len(f.Cells[ci].Points))
		}
		sel := f.Measured(ci, o.point)
		if o.router != "" {
			sel.Router = o.router
		}
		if o.kv != "" {
			sel.KV = o.kv
		}
		sels = []cookbook.Selection{sel}
	}
	// Decode everything first: nothing is written when a selection fails.
	decoded := make([]*cookbook.Decoded, len(sels))
	for i, s := range sels {
		d, err := f.Decode(s)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		decoded[i] = d
	}
	w := bufio.NewWriter(stdout)
	var buf []byte
	switch o.format {
	case "text":
		// The blocks' text is launch.Format's (values in launch.Quote's
		// rule); titles and header values are escaped to one line.
		var b strings.Builder
		for i, d := range decoded {
			if i > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%s\n\n", selectionHeader(f, d))
			for j, bl := range d.Blocks {
				if j > 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "# %s\n%s\n", launch.EscapeLine(bl.Title), bl.Text)
			}
		}
		if err := writeShellText(w, b.String()); err != nil {
			return err
		}
	case "json":
		// Always an array, one element per selection (one without --all),
		// so a consumer reads one shape.
		w.WriteString("[\n")
		for i, d := range decoded {
			buf = d.AppendOracleJSON(buf[:0])
			w.Write(launch.EscapeJSON(indentJSON(buf, "  ")))
			if i < len(decoded)-1 {
				w.WriteString(",")
			}
			w.WriteString("\n")
		}
		w.WriteString("]\n")
	case "jsonl":
		for _, d := range decoded {
			buf = d.AppendOracleJSON(buf[:0])
			buf = append(buf, '\n')
			w.Write(launch.EscapeJSON(buf))
		}
	}
	return w.Flush()
}

// selectionHeader is the comment line that heads a decoded selection in
// the text format:
//
//	# qwen/qwen3.5.jsx cell 6 qwen3.5-fp8-gb300-…#2 · point 0 (conc 100) · router sglang (derived; measured dynamo) · KV hicache (measured)
//
// The router is measured when it is the cell's submitted router, the KV
// tier when it is the point's measured tier (cells[i].submitted,
// cells[i].points[j].kv; spec agentx-format.md (b) "Selection state");
// otherwise the page derives the commands and the measured value follows.
func selectionHeader(f *cookbook.File, d *cookbook.Decoded) string {
	c := &f.Cells[d.Cell]
	pt := &c.Points[d.Point]
	concs := make([]string, len(pt.Concs))
	for i, n := range pt.Concs {
		concs[i] = strconv.Itoa(n)
	}
	el := launch.EscapeLine
	return fmt.Sprintf("# %s cell %d %s · point %d (conc %s) · router %s (%s) · KV %s (%s)",
		el(d.File), d.Cell, el(d.CellID), d.Point, strings.Join(concs, ","),
		el(d.Router), el(measuredNote(d.Router, c.Submitted)), el(d.KV), el(measuredNote(d.KV, pt.KV)))
}

func measuredNote(chosen, measured string) string {
	if chosen == measured {
		return "measured"
	}
	return "derived; measured " + measured
}

// cellIndex resolves --cell: a cell id, a decimal index, or the "#N" suffix
// of a cell id (cell ids are "<config key>#<n>", as coverage prints them),
// which must match exactly one cell of the file.
func cellIndex(f *cookbook.File, cell string) (int, error) {
	if !strings.HasPrefix(cell, "#") {
		i, err := f.CellIndex(cell)
		if _, nerr := strconv.Atoi(cell); err != nil && nerr != nil {
			// an unknown cell id: the closest ones, and where they are listed
			ids := make([]string, len(f.Cells))
			for i := range f.Cells {
				ids[i] = f.Cells[i].ID
			}
			return 0, fmt.Errorf("%w: cookbook-sync decode %s --all lists every cell%s", err, shellWord(f.Name), closestText(cell, ids))
		}
		return i, err
	}
	var match []string
	idx := -1
	for i := range f.Cells {
		if strings.HasSuffix(f.Cells[i].ID, cell) {
			match = append(match, fmt.Sprintf("%s (index %d)", f.Cells[i].ID, i))
			idx = i
		}
	}
	switch len(match) {
	case 1:
		return idx, nil
	case 0:
		ids := make([]string, len(f.Cells))
		for i := range f.Cells {
			ids[i] = f.Cells[i].ID
		}
		return 0, fmt.Errorf("%s: --cell %q: no cell id ends in %s (cells: %s)", f.Name, cell, cell, strings.Join(ids, ", "))
	}
	return 0, fmt.Errorf("%s: --cell %q is ambiguous: %s; give the full cell id or the index", f.Name, cell, strings.Join(match, ", "))
}

// indentJSON indents compact JSON by two spaces per level, every line after
// prefix (json.Indent keeps '<', '>' and '&' raw).
func indentJSON(b []byte, prefix string) []byte {
	out := bytes.NewBufferString(prefix)
	if err := json.Indent(out, b, prefix, "  "); err != nil {
		return b
	}
	return out.Bytes()
}

// runDecodePages decodes a cookbook page or deployment snippet through the
// page's own code (package cookbook/pages).
func runDecodePages(ctx context.Context, stdout io.Writer, path string, o decodeOptions) error {
	want, err := parseSelectionFlag(o.selection)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if o.all && len(want) > 0 {
		return usageErr("--all decodes every selection; it cannot be combined with --selection")
	}
	root, err := pages.FindRoot(path)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	sels, err := pages.DecodeFile(ctx, root, path, pages.Options{})
	if errors.Is(err, pages.ErrTimeLimit) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// no property of the page: the wall-clock backstop or the caller
		// stopped it (exit 3 / 130)
		if errors.Is(err, pages.ErrTimeLimit) {
			return &exitError{code: exitDeadline, err: err}
		}
		return err
	}
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if len(sels) == 0 {
		return usageErr("%s: the page code lists no selection", path)
	}
	switch {
	case o.all:
	case len(want) > 0:
		var keep []pages.Selection
		for _, s := range sels {
			if selectionMatches(s, want) {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 {
			return usageErr("%s: --selection %q matches no selection: %s (e.g. %s)", path, o.selection, selectionMiss(sels, want), sels[0].Hash())
		}
		sels = keep
	default:
		first := sels[0]
		keep := []pages.Selection{first}
		for _, s := range sels[1:] {
			if s.File == first.File && s.Hash() == first.Hash() {
				keep = append(keep, s)
			}
		}
		sels = keep
	}
	w := bufio.NewWriter(stdout)
	switch o.format {
	case "text":
		// The command is the page's own text, every word that carries a
		// control character re-quoted (launch.ShellText); the comment
		// lines' values are escaped to one line.
		el := launch.EscapeLine
		var b strings.Builder
		for i, s := range sels {
			if i > 0 {
				b.WriteString("\n")
			}
			head := "# " + el(s.File) + " · " + el(s.Hash())
			if s.Kind == "config" {
				head += fmt.Sprintf(" · cell %d · %s · %s", s.Cell, el(string(s.Verified)), el(string(s.Mode)))
			}
			fmt.Fprintf(&b, "%s\n", head)
			if s.URL != "" {
				fmt.Fprintf(&b, "# %s\n", el(s.URL))
			}
			fmt.Fprintf(&b, "%s\n", launch.ShellText(s.Command))
		}
		if err := writeShellText(w, b.String()); err != nil {
			return err
		}
	case "json":
		w.WriteString("[\n")
		for i, s := range sels {
			b, err := s.MarshalJSON()
			if err != nil {
				return err
			}
			w.Write(launch.EscapeJSON(indentJSON(b, "  ")))
			if i < len(sels)-1 {
				w.WriteString(",")
			}
			w.WriteString("\n")
		}
		w.WriteString("]\n")
	case "jsonl":
		for _, s := range sels {
			b, err := s.GoldenJSON()
			if err != nil {
				return err
			}
			w.Write(launch.EscapeJSON(append(b, '\n')))
		}
	}
	return w.Flush()
}

// parseSelectionFlag parses --selection "k=v,k=v" (a checkbox row's ids are
// given joined by "+" or by "," inside the value is not possible: use "+").
func parseSelectionFlag(s string) (map[string]string, error) {
	out := map[string]string{}
	if s == "" {
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--selection %q: want k=v,… (got %q)", s, kv)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("--selection %q: %s given twice", s, k)
		}
		out[k] = strings.ReplaceAll(v, "+", ",")
	}
	return out, nil
}

// selectionMiss says why no selection of a page has all the wanted
// values: a key the page has no row for, a value no selection offers
// (with those it does), or a combination of offered values that no
// selection makes.
func selectionMiss(sels []pages.Selection, want map[string]string) string {
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		offered := map[string]bool{}
		var order []string
		for _, s := range sels {
			v, ok := s.Values[k]
			if !ok {
				continue
			}
			vs := pages.ValueString(v)
			if !offered[vs] {
				offered[vs] = true
				order = append(order, vs)
			}
		}
		switch {
		case len(order) == 0:
			return fmt.Sprintf("unknown key %s (keys: %s)", k, strings.Join(sels[0].Order, ", "))
		case !offered[want[k]]:
			return fmt.Sprintf("%s=%s is not an option (%s)", k, want[k], strings.Join(order, ", "))
		}
	}
	return "no selection combines these values"
}

// selectionMatches: every wanted key has the wanted value (String(v) as in
// the URL; a checkbox row's ids joined by ",").
func selectionMatches(s pages.Selection, want map[string]string) bool {
	for k, v := range want {
		got, ok := s.Values[k]
		if !ok || pages.ValueString(got) != v {
			return false
		}
	}
	return true
}
