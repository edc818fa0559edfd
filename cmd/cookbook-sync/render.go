package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// renderOptions are the flags of `cookbook-sync render`.
type renderOptions struct {
	infx        string
	key         string
	row, conc   int
	recipe      string
	version     string
	format      string
	all         bool
	srtSlurmDir string
}

// newRenderCmd: `cookbook-sync render --infx DIR (--config-key KEY [--row N]
// [--conc C] | --recipe FILE[:selector] | --all) [--srt-slurm-version V]
// [--srt-slurm-dir DIR] [--format text|json]`.
func newRenderCmd() *cobra.Command {
	var o renderOptions
	c := &cobra.Command{
		Use:   "render",
		Short: "Show the processes an InferenceX config key (or an srt-slurm recipe) starts, per role",
		Long: `Render what InferenceX runs for a config key: every search-space row and
concurrency becomes a point; its srt-slurm recipe (CONFIG_FILE=recipes/… in the
old layout, srt-recipe-dir + srt-recipe in the new inferencex-e2e layout) is
rendered with the flags and env srt-slurm injects (--srt-slurm-version, default
v1.0.68), and single-node shell scripts are run in a sandboxed interpreter that
records the server command instead of starting it. Image and model come from
the master entry.

--row and --conc narrow the points of --config-key. --recipe renders one recipe
file directly. --all renders every config key and prints a summary (keys,
points, rendered, upstream-only, missing, unsupported, out of Check 3 scope,
errors). --srt-slurm-dir points at an NVIDIA/srt-slurm checkout used for
CONFIG_FILE recipes that are not in the InferenceX checkout (upstream-only).

Formats: text (one block per process: env lines, command, one flag per line,
each marked recipe / injected / script) and json (processes in launch order
with role, kind, nodes, argv, env and origins).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRender(cmd.OutOrStdout(), o, cmd.Flags().Changed)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.infx, "infx", "", "InferenceX checkout (old layout root, or a tree with inferencex-e2e/)")
	fl.StringVar(&o.key, "config-key", "", "master config key to render")
	fl.IntVar(&o.row, "row", 0, "search-space row of the key (0-based, in file order across scenarios)")
	fl.IntVar(&o.conc, "conc", 0, "concurrency of the row")
	fl.StringVar(&o.recipe, "recipe", "", "render an srt-slurm recipe directly: FILE[:selector]")
	fl.StringVar(&o.version, "srt-slurm-version", infx.DefaultSrtSlurmVersion, "srt-slurm injection profile (v1.0.68, v1.0.53, sa-submission-q2-2026, …)")
	fl.StringVar(&o.srtSlurmDir, "srt-slurm-dir", "", "NVIDIA/srt-slurm checkout for upstream-only CONFIG_FILE recipes")
	fl.StringVar(&o.format, "format", "text", "output format: text or json")
	fl.BoolVar(&o.all, "all", false, "render every config key and print a summary")
	return c
}

func runRender(w io.Writer, o renderOptions, changed func(string) bool) error {
	if o.format != "text" && o.format != "json" {
		return usageErr("--format %q: want text or json", o.format)
	}
	modes := 0
	for _, set := range []bool{o.key != "", o.recipe != "", o.all} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return usageErr("give exactly one of --config-key, --recipe or --all")
	}
	if (changed("row") || changed("conc")) && o.key == "" {
		return usageErr("--row and --conc need --config-key")
	}
	if o.infx == "" && o.recipe == "" {
		return usageErr("--infx DIR is required with --config-key and --all")
	}
	if err := srtslurm.CheckVersion(o.version); err != nil {
		return usageErr("--srt-slurm-version: %v", err)
	}
	opt := infx.Options{SrtSlurmVersion: o.version}
	var ws *infx.Workspace
	if o.infx != "" {
		var err error
		if ws, err = infx.Open(o.infx); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		ws.SrtSlurmDir = o.srtSlurmDir
	}
	switch {
	case o.all:
		s, err := ws.RenderAll(nil, opt)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if err := writeSummary(w, o.format, s); err != nil {
			return err
		}
		if s.Errors > 0 {
			return &exitError{code: exitUsage, err: fmt.Errorf("%d points failed to render", s.Errors)}
		}
		return nil
	case o.recipe != "":
		d, err := infx.RenderRecipe(ws, o.recipe, opt)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		return writeRendered(w, o.format, []rendered{{d: &d, version: o.version}})
	}
	pts, err := ws.Points(o.key)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	var out []rendered
	for i := range pts {
		p := &pts[i]
		if changed("row") && p.Row != o.row || changed("conc") && p.Concurrency != o.conc {
			continue
		}
		r := rendered{p: p, version: o.version}
		if p.Status == infx.StatusOK {
			d, err := ws.Render(*p, opt)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			r.d = &d
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return usageErr("config key %q has no point with%s", o.key, rowConcText(o, changed))
	}
	return writeRendered(w, o.format, out)
}

func rowConcText(o renderOptions, changed func(string) bool) string {
	s := ""
	if changed("row") {
		s += fmt.Sprintf(" row %d", o.row)
	}
	if changed("conc") {
		s += fmt.Sprintf(" conc %d", o.conc)
	}
	return s
}

// rendered is one point (nil for --recipe) and its deployment (nil when
// the point is not renderable from the checkout).
type rendered struct {
	p       *infx.Point
	d       *launch.Deployment
	version string
}

// jsonProcess is one process in the JSON output.
type jsonProcess struct {
	Kind           launch.Kind     `json:"kind"`
	Role           launch.Role     `json:"role,omitempty"`
	Program        string          `json:"program"`
	Nodes          int             `json:"nodes"`
	Workers        int             `json:"workers,omitempty"`
	NodesPerWorker int             `json:"nodesPerWorker,omitempty"`
	GPUsPerNode    int             `json:"gpusPerNode,omitempty"`
	Count          int             `json:"count,omitempty"`
	Argv           []string        `json:"argv"`
	Args           []launch.Arg    `json:"args,omitempty"`
	Env            []launch.EnvVar `json:"env,omitempty"`
	Preamble       []string        `json:"preamble,omitempty"`
	Origin         launch.Origin   `json:"origin"`
}

// jsonRendered is one point's rendering in the JSON output.
type jsonRendered struct {
	Point     *infx.Point    `json:"point,omitempty"`
	Status    infx.Status    `json:"status"`
	Note      string         `json:"note,omitempty"`
	Source    *launch.Source `json:"source,omitempty"`
	Engine    string         `json:"engine,omitempty"`
	Model     string         `json:"model,omitempty"`
	Hardware  string         `json:"hardware,omitempty"`
	SrtSlurm  string         `json:"srtSlurmVersion,omitempty"`
	Processes []jsonProcess  `json:"processes"`
}

// nodes is how many nodes a process occupies: workers × nodes per worker
// for workers, the service's node count otherwise.
func nodes(p *launch.Process) int {
	if p.Kind == launch.KindWorker {
		return max(p.Workers, 1) * max(p.NodesPerWorker, 1)
	}
	return max(p.CountNodes, 1)
}

func writeRendered(w io.Writer, format string, rs []rendered) error {
	if format == "json" {
		out := make([]jsonRendered, 0, len(rs))
		for _, r := range rs {
			j := jsonRendered{Point: r.p, Status: infx.StatusOK, Processes: []jsonProcess{}}
			if r.p != nil {
				j.Status, j.Note = r.p.Status, r.p.Note
			}
			if d := r.d; d != nil {
				j.Source, j.Engine, j.Model, j.Hardware = &d.Source, d.Engine, d.Model, d.Hardware
				if r.p == nil || r.p.Kind == infx.KindRecipe {
					j.SrtSlurm = r.version
				}
				for i := range d.Processes {
					p := &d.Processes[i]
					j.Processes = append(j.Processes, jsonProcess{
						Kind: p.Kind, Role: p.Role, Program: p.Program, Nodes: nodes(p), Workers: p.Workers,
						NodesPerWorker: p.NodesPerWorker, GPUsPerNode: p.GPUsPerNode, Count: p.Count,
						Argv: p.Argv(), Args: p.Args, Env: p.Env, Preamble: p.Preamble, Origin: p.Origin,
					})
				}
			}
			out = append(out, j)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteString("\n")
		}
		writeText(&b, r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeText prints one rendering: a header, then one block per process.
func writeText(b *strings.Builder, r rendered) {
	if p := r.p; p != nil {
		fmt.Fprintf(b, "# %s row %d conc %d (%s", p.ConfigKey, p.Row, p.Concurrency, p.Scenario)
		if p.ISL > 0 || p.OSL > 0 {
			fmt.Fprintf(b, " %d/%d", p.ISL, p.OSL)
		}
		b.WriteString(")")
		if !p.InScope {
			b.WriteString(" [outside Check 3 scope]")
		}
		b.WriteString("\n")
		if p.Status != infx.StatusOK {
			fmt.Fprintf(b, "# %s: %s\n", p.Status, p.Note)
			return
		}
	}
	d := r.d
	src := d.Source.File
	if d.Source.Selector != "" {
		src += ":" + d.Source.Selector
	}
	if r.p != nil && r.p.Kind == infx.KindScript {
		fmt.Fprintf(b, "# script %s\n", src)
	} else {
		fmt.Fprintf(b, "# recipe %s (srt-slurm %s)\n", src, r.version)
	}
	if d.Model != "" || d.Hardware != "" {
		fmt.Fprintf(b, "# model %s, hardware %s, engine %s\n", d.Model, d.Hardware, d.Engine)
	}
	for i := range d.Processes {
		p := d.Processes[i]
		b.WriteString("\n")
		b.WriteString(blockTitle(&p))
		b.WriteString("\n")
		for _, l := range p.Preamble {
			b.WriteString("# preamble: " + l + "\n")
		}
		p.Preamble = nil
		lines := strings.Split(launch.Format(&p), "\n")
		marks := make([]string, len(lines))
		if len(lines) == len(p.Env)+1+len(p.Args) || len(p.Args) == 0 && len(lines) == len(p.Env)+1 {
			for j, e := range p.Env {
				marks[j] = string(e.Origin.Kind)
			}
			for j, a := range p.Args {
				marks[len(p.Env)+1+j] = string(a.Origin.Kind)
			}
		}
		width := 0
		for _, l := range lines {
			width = max(width, min(len(l), 96))
		}
		for j, l := range lines {
			if marks[j] != "" {
				l += strings.Repeat(" ", max(width-len(l), 0)+2) + "# " + marks[j]
			}
			b.WriteString(l + "\n")
		}
	}
}

// blockTitle names a process block: "# prefill worker: 1 worker, 1 node, 4 GPUs/node".
func blockTitle(p *launch.Process) string {
	t := "# "
	if p.Role != launch.RoleNone {
		t += string(p.Role) + " "
	}
	t += string(p.Kind)
	var parts []string
	if p.Kind == launch.KindWorker {
		parts = append(parts, plural(max(p.Workers, 1), "worker"), plural(max(p.NodesPerWorker, 1), "node")+"/worker")
		if p.GPUsPerNode > 0 {
			parts = append(parts, plural(p.GPUsPerNode, "GPU")+"/node")
		}
	} else if p.Count > 1 {
		parts = append(parts, plural(p.Count, "instance"))
	}
	if len(parts) > 0 {
		t += ": " + strings.Join(parts, ", ")
	}
	return t
}

func plural(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return fmt.Sprintf("%d %ss", n, s)
}

func writeSummary(w io.Writer, format string, s infx.Summary) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "keys            %d\n", s.Keys)
	fmt.Fprintf(&b, "points          %d\n", s.Points)
	fmt.Fprintf(&b, "rendered        %d\n", s.Rendered)
	fmt.Fprintf(&b, "upstream-only   %d\n", s.UpstreamOnly)
	fmt.Fprintf(&b, "missing         %d\n", s.Missing)
	fmt.Fprintf(&b, "unsupported     %d\n", s.Unsupported)
	fmt.Fprintf(&b, "out of scope    %d\n", s.OutOfScope)
	fmt.Fprintf(&b, "errors          %d\n", s.Errors)
	for _, f := range s.Failures {
		fmt.Fprintf(&b, "error: %s\n", f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
