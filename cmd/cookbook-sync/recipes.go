package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/recipes"
)

// recipesDecodeOptions are the flags of `recipes decode`.
type recipesDecodeOptions struct {
	format string // text | json
}

// newRecipesCmd is `cookbook-sync recipes`: decode one vLLM recipe file
// (legacy Markdown guide, model YAML recipe, vLLM --config YAML) or scan a
// vllm-project/recipes tree.
func newRecipesCmd() *cobra.Command {
	root := &cobra.Command{
		Use:     "recipes",
		Example: exampleRecipes,
		Short:   "Read vLLM recipes (vllm-project/recipes): decode a file, scan a tree",
		Long: `Read vLLM recipes (vllm-project/recipes): "recipes decode FILE" prints one
file's launch commands, "recipes scan DIR" decodes a whole tree.

Exit status:
  0  success
  2  bad usage or bad input (file:line:col and the YAML path in the message)`,
	}
	var o recipesDecodeOptions
	dec := &cobra.Command{
		Use:     "decode FILE",
		Example: exampleRecipesDecode,
		Short:   "Print the launch commands of one vLLM recipe (.md or .yaml)",
		Long: `Print the launch commands of one vLLM recipe: a legacy Markdown guide
(<Vendor>/<Model>.md), a model YAML recipe (models/<org>/<repo>.yaml; inside a
recipes tree with taxonomy.yaml it is rendered as the site renders it), or a
vLLM --config YAML (flag: value; lists give the flag then each item, mappings
their JSON text, aliases resolved with a bound on expansion).

A model recipe's synthesis inputs are checked against the schema of
vllm-recipes.md §9.1: base_args/extra_args/vllm_args are lists of string
tokens, env maps have scalar values, variants are mappings, tp is an integer
from 1 to 65536 (or a hardware-keyed map of them). A wrong shape is an error
naming file:line:col and the YAML path. Keys the synthesis does not read are
ignored. A duplicated mapping key is an error (the site's js-yaml refuses it).

Exit status:
  0  decoded
  2  bad usage (--format) or bad input: unreadable or non-regular file, YAML
     error, wrong shape, or a launch block whose shell cannot be parsed; the
     message names file:line:col (and the YAML path)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.format != "text" && o.format != "json" {
				return &exitError{code: exitUsage, err: fmt.Errorf("--format must be text or json, not %q", o.format)}
			}
			return runRecipesDecode(cmd.OutOrStdout(), args[0], o)
		},
	}
	dec.Flags().StringVar(&o.format, "format", "text", "output format: text or json")
	scan := &cobra.Command{
		Use:     "scan DIR",
		Example: exampleRecipesScan,
		Short:   "Decode every .md/.yaml recipe under DIR and print counts",
		Long: `Decode every .md/.yaml recipe under DIR (as "recipes decode" does) and print
counts: files by kind, failed files, site renderings, launch blocks with and
without hardware context, then one "unparsable: …" line per launch block
whose shell cannot be parsed and one "failed: file:line:col: …" line per file
that could not be decoded (with the reason). A recipe that fails its shape
check fails alone; the others are still scanned.

Exit status:
  0  every file decoded
  2  bad usage (DIR missing or not a directory) or at least one file failed
     (the counts are still printed)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRecipesScan(cmd.OutOrStdout(), args[0])
		},
	}
	root.AddCommand(dec, scan)
	return groupCommand(root)
}

func runRecipesDecode(w io.Writer, path string, o recipesDecodeOptions) error {
	if _, err := os.Stat(path); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	fs, err := recipes.ScanFile(path)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	var errs []error
	for _, b := range fs.Unparsable() {
		errs = append(errs, b.Err)
	}
	if o.format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		deps := fs.Deployments
		if deps == nil {
			deps = []launch.Deployment{}
		}
		if err := enc.Encode(deps); err != nil {
			return err
		}
	} else {
		var out bytes.Buffer
		writeDeployments(&out, fs)
		if err := writeShellText(w, out.String()); err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		return &exitError{code: exitUsage, err: errors.Join(errs...)}
	}
	return nil
}

// writeRenderings prints the site renderings of a model YAML recipe with
// every role (follower ranks included) as the site's command text.
func writeRenderings(w *bytes.Buffer, fs *recipes.FileScan) {
	for i, r := range fs.Renderings {
		rec := ""
		if r.Recommended {
			rec = " (recommended)"
		}
		el := launch.EscapeLine
		fmt.Fprintf(w, "\n## %d. model=%s hardware=%s variant=%s strategy=%s nodes=%d%s\n", i+1, el(r.Tree), el(r.Hardware), el(r.Variant), el(r.Strategy), r.NodeCount, rec)
		for _, rc := range r.Roles {
			label := launch.EscapeLine(rc.Name)
			if rc.Name == "worker" {
				label = fmt.Sprintf("worker rank %d", rc.Rank)
			}
			fmt.Fprintf(w, "[%s]\n", label)
			for _, e := range rc.Env {
				fmt.Fprintf(w, "  %s=%s\n", launch.EscapeLine(e.Name), envText(e.Value))
			}
			fmt.Fprintf(w, "%s\n", launch.ShellText(rc.Command()))
		}
		if r.Router != "" {
			fmt.Fprintf(w, "[router]\n%s\n", launch.ShellText(r.Router))
		}
	}
}

// writeDeployments prints deployments as shell-like text.
func writeDeployments(w *bytes.Buffer, fs *recipes.FileScan) {
	el := launch.EscapeLine
	fmt.Fprintf(w, "# %s (%s): %d deployments\n", el(fs.File), el(string(fs.Kind)), len(fs.Deployments))
	if fs.Kind == "recipe" {
		writeRenderings(w, fs)
	}
	for i, d := range fs.Deployments {
		if d.Source.Strategy != "" {
			continue // printed by writeRenderings
		}
		fmt.Fprintf(w, "\n## %d. model=%s", i+1, el(d.Model))
		if d.Hardware != "" {
			fmt.Fprintf(w, " hardware=%s", el(d.Hardware))
		}
		if d.Source.Variant != "" {
			fmt.Fprintf(w, " variant=%s", el(d.Source.Variant))
		}
		if d.Source.Strategy != "" {
			fmt.Fprintf(w, " strategy=%s", el(d.Source.Strategy))
		}
		fmt.Fprintln(w)
		if d.Source.Section != "" {
			fmt.Fprintf(w, "   section: %s\n", el(d.Source.Section))
		}
		for _, p := range d.Processes {
			label := string(p.Kind)
			if p.Role != "" {
				label += " " + string(p.Role)
			}
			extra := ""
			if p.NodesPerWorker > 1 {
				extra += fmt.Sprintf(" nodes=%d", p.NodesPerWorker)
			}
			if p.Workers > 1 {
				extra += fmt.Sprintf(" instances=%d", p.Workers)
			}
			fmt.Fprintf(w, "[%s]%s  (%s)\n", el(label), extra, el(p.Origin.String()))
			for _, e := range p.Env {
				fmt.Fprintf(w, "  %s=%s\n", el(e.Name), envText(e.Value))
			}
			fmt.Fprintf(w, "  %s\n", formatArgv(p.Argv()))
		}
	}
}

// formatArgv joins argv with shell quoting for values that need it.
func formatArgv(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

// envText is an env value as recipes decode prints it: raw, or in ANSI-C
// quoting when it carries a control or format character (launch.ShellSafe;
// issue 20, item 4).
func envText(v string) string {
	if launch.ShellSafe(v) {
		return v
	}
	return string(launch.AppendANSIC(nil, v))
}

// shellQuote quotes one argv word: bare when it needs nothing, else in
// single quotes; a word with a control or format character in ANSI-C
// quoting (launch.AppendANSIC; issue 20, item 4).
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if !launch.ShellSafe(s) {
		return string(launch.AppendANSIC(nil, s))
	}
	safe := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./=:@,+%-${}", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func runRecipesScan(w io.Writer, dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if !st.IsDir() {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: not a directory", dir)}
	}
	sum := recipes.Summarize(recipes.ScanDir(dir))
	var out bytes.Buffer
	fmt.Fprintf(&out, "files: %d (legacy markdown %d, model YAML %d, --config YAML %d), failed: %d\n",
		sum.Files, sum.ByKind["markdown"], sum.ByKind["recipe"], sum.ByKind["config"], len(sum.Failed))
	fmt.Fprintf(&out, "site renderings: %d; deployments: %d\n", sum.Renderings, sum.Deploys)
	fmt.Fprintf(&out, "launch blocks: %d (%d commands); with hardware context: %d; hardware only in prose: %d; unparsable: %d\n",
		sum.Blocks.Launch, sum.Commands, sum.Blocks.WithHardware, sum.Blocks.ProseOnly, len(sum.Unparsable))
	for _, k := range []struct{ kind, label string }{{"markdown", "legacy markdown"}, {"recipe", "YAML guides"}} {
		if c := sum.BlocksByKind[k.kind]; c.Launch > 0 {
			fmt.Fprintf(&out, "  %s: launch blocks %d, with hardware context %d, hardware only in prose %d\n", k.label, c.Launch, c.WithHardware, c.ProseOnly)
		}
	}
	for _, b := range sum.Unparsable {
		fmt.Fprintf(&out, "unparsable: %s\n", b)
	}
	for _, e := range sum.Failed {
		fmt.Fprintf(&out, "failed: %v\n", e)
	}
	if _, err := w.Write(out.Bytes()); err != nil {
		return err
	}
	if len(sum.Failed) > 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("%d files could not be decoded", len(sum.Failed))}
	}
	return nil
}
