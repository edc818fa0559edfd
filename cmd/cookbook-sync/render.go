package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// renderOptions are the flags of `cookbook-sync render`.
type renderOptions struct {
	infx string
	// key is the config key rendered; keys the --config-key values (one
	// at most: render renders one key, a repeated flag is bad usage,
	// never the last one silently).
	key       string
	keys      []string
	row, conc int
	recipe    string
	version   string
	format    string
	all, list bool
	// srtSlurmDirs are the --srt-slurm-dir values as given; srtSlurmDir
	// (NVIDIA/srt-slurm) and forks are what they say (srtSlurmCheckouts).
	srtSlurmDirs []string
	srtSlurmDir  string
	forks        []infx.SrtSlurmCheckout
}

// newRenderCmd: `cookbook-sync render --infx DIR (--config-key KEY [--row N]
// [--conc C] | --recipe FILE[:selector] | --all | --list) [--srt-slurm-version V]
// [--srt-slurm-dir [OWNER/NAME[@REF]=]DIR …] [--format text|json]`.
func newRenderCmd() *cobra.Command {
	var o renderOptions
	c := &cobra.Command{
		Use:     "render",
		Example: exampleRender,
		Short:   "Show the processes an InferenceX config key (or an srt-slurm recipe) starts, per role",
		Long: `Render what InferenceX runs for a config key: every search-space row and
concurrency becomes a point; its srt-slurm recipe (CONFIG_FILE=recipes/… in the
old layout, srt-recipe-dir + srt-recipe in the new inferencex-e2e layout) is
rendered with the flags and env srt-slurm injects (--srt-slurm-version, default
` + infx.DefaultSrtSlurmVersion + `), and single-node shell scripts are run in a sandboxed interpreter that
records the server command instead of starting it. Image and model come from
the master entry.

--row and --conc narrow the points of --config-key. --recipe renders one recipe
file directly; a bundle needs FILE:<selector> (base, override_<name>,
zip_override_<name>[i]) unless it has a single variant. --list lists the config
keys (framework, rows, points, Check 3 scope) without rendering. --all renders
every config key: one line per key (framework, points, rendered, upstream-only,
missing, unsupported, errors, Check 3 scope), under it one line per group of
points that were not rendered (recipe or script, rows and concurrencies, why),
then the totals and the render errors; with --format json, the totals and every
key's points (row, concurrency, status, recipe, selector, file, reason).
A multi-node point runs its launcher (runners/launch_*.sh of the row's runner
label, through .github/workflows/benchmark-multinode-tmpl.yml) in the sandbox
up to its srtctl apply: the srt-slurm repository and ref it clones give the
injected flags and env rendered (a fork is unsupported), what it copies into
the clone (cp, cp -rT) decides whether the recipe is the checkout's or the
clone's own (upstream-only), its sed -i / >> / > edits of the recipe are
applied, its srtslurm.yaml containers: resolve the image, and its
--setup-script replaces the recipe's; anything else it does to the recipe
(mv, rm, an unknown program, a copy from outside the checkout) makes the point
unsupported. The notes under "# recipe" say which ref, launcher line and copy.
--srt-slurm-dir DIR points at an NVIDIA/srt-slurm checkout: recipes a launcher
submits from its clone are read from it (with a commit-drift note when
--srt-slurm-version, the ref of that checkout, differs from the launcher's),
and so are the /configs/ files recipes name. --srt-slurm-version is also the
version rendered when no launcher is in the checkout, and for --recipe.
--srt-slurm-dir OWNER/NAME[@REF]=DIR (repeatable, one per repository and ref)
gives the checkout of an srt-slurm fork a launcher clones
(functionstackx/srt-slurm-nv@df5baa93=../srt-slurm-nv; REF a branch, tag or
commit, matched by prefix; without @REF any ref of the repository;
NVIDIA/srt-slurm@REF=DIR is DIR at --srt-slurm-version REF). A fork point
renders only from its checkout, and only when the checkout's src/srtctl is
byte for byte the one of an NVIDIA/srt-slurm release (the same git tree id):
then with that release's injected flags and env; otherwise it is unsupported,
naming the closest release and the files that differ. A git checkout must be
at the commit the launcher pins (a plain directory is accepted with a note);
without its checkout, the point names the repository, commit and flag.

Text format: one block per process. The block's comment lines give its title
(role, kind, workers, nodes, GPUs), the preamble srt-slurm runs before it (its
fingerprint step spelled out: a non-fatal capture of the environment into
/logs/fingerprint_<mode>_w<i>.json), and where each env var and flag comes
from, one line per origin in order of first use:
  # injected (srt-slurm ` + infx.DefaultSrtSlurmVersion + `): env HEAD_NODE_IP …; flags --model-path …
  # recipe: env SGLANG_…; flags --tensor-parallel-size …
("# every env var and flag: script" when all share one). A starred flag has a
note below the list, e.g. "--served-model-name: value from the recipe's
served-model-name, whose own flag srt-slurm drops". Then the command in the
cookbook's layout (env lines, program, one flag per line), which is valid
shell and can be pasted as is.

JSON format: processes in launch order with role, kind, nodes, argv, env and
origins.

Exit status: 0 the points (or the recipe) were rendered; with --config-key,
points that cannot be rendered from the checkout (upstream-only, missing,
unsupported) are listed with their reason next to the rendered ones. 1 none
of the selected points of --config-key could be rendered: each is
upstream-only, missing or unsupported, and the reasons are printed. 2 bad
usage or bad input: a master config or recipe that does not parse or breaks
the schema (file:line:col), a recipe or script that fails to render, an
unknown config key, row, concurrency or selector, an empty or unknown
--srt-slurm-version, an --srt-slurm-dir that is not a directory (a fork's
without src/srtctl), a malformed or repeated --srt-slurm-dir value; with
--all, any point that failed to render.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRender(cmdContext(cmd), cmd.OutOrStdout(), cmd.ErrOrStderr(), o, cmd.Flags().Changed)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.infx, "infx", "", "InferenceX checkout (old layout root, or a tree with inferencex-e2e/)")
	fl.StringArrayVar(&o.keys, "config-key", nil, "master config key to render (one)")
	fl.IntVar(&o.row, "row", 0, "search-space row of the key (0-based, in file order across scenarios)")
	fl.IntVar(&o.conc, "conc", 0, "concurrency of the row")
	fl.StringVar(&o.recipe, "recipe", "", "render an srt-slurm recipe directly: FILE[:selector]")
	fl.StringVar(&o.version, "srt-slurm-version", infx.DefaultSrtSlurmVersion, "srt-slurm injection profile ("+infx.DefaultSrtSlurmVersion+", v1.0.53, sa-submission-q2-2026, …)")
	fl.StringArrayVar(&o.srtSlurmDirs, "srt-slurm-dir", nil, "NVIDIA/srt-slurm checkout `DIR` for upstream-only CONFIG_FILE recipes, or OWNER/NAME[@REF]=DIR: the checkout of an srt-slurm fork a launcher clones; repeatable")
	fl.StringVar(&o.format, "format", "text", "output format: text or json")
	fl.BoolVar(&o.all, "all", false, "render every config key: one line per key, then the totals")
	fl.BoolVar(&o.list, "list", false, "list the config keys (framework, rows, points, Check 3 scope) without rendering")
	return c
}

func runRender(ctx context.Context, w, ew io.Writer, o renderOptions, changed func(string) bool) error {
	if o.format != "text" && o.format != "json" {
		return usageErr("--format %q: want text or json", o.format)
	}
	switch len(o.keys) {
	case 0:
	case 1:
		o.key = o.keys[0]
	default:
		return usageErr("--config-key given %d times: render renders one config key (--all renders every key)", len(o.keys))
	}
	modes := 0
	for _, set := range []bool{o.key != "", o.recipe != "", o.all, o.list} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return usageErr("give exactly one of --config-key, --recipe, --all or --list")
	}
	if (changed("row") || changed("conc")) && o.key == "" {
		return usageErr("--row and --conc need --config-key")
	}
	if o.infx == "" && o.recipe == "" {
		return usageErr("--infx DIR is required with --config-key, --all and --list")
	}
	var err error
	if o.srtSlurmDir, o.version, o.forks, err = srtSlurmCheckouts(o.srtSlurmDirs, o.version, changed("srt-slurm-version")); err != nil {
		return err
	}
	if err := checkSrtSlurmFlags(o.srtSlurmDir, o.version); err != nil {
		return err
	}
	opt := infx.Options{SrtSlurmVersion: o.version}
	var ws *infx.Workspace
	if o.infx != "" {
		var err error
		if ws, err = infx.Open(o.infx); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		ws.SrtSlurmDir, ws.SrtSlurmVersion, ws.SrtSlurmForks = o.srtSlurmDir, o.version, o.forks
		// One command over trees nothing changes while it runs: a point
		// rendered twice is rendered once, and the sandbox keeps what it
		// reads from the trees.
		ws.RememberRenders()
		// Problems in keys not asked about are warnings (a key asked
		// about reports its own problem as an error).
		for _, wn := range ws.Warnings() {
			if o.key == "" || wn.Key != o.key {
				warn(ew, wn.String())
			}
		}
	}
	switch {
	case o.list:
		return writeList(w, o.format, ws)
	case o.all:
		s, err := ws.RenderAll(ctx, nil, opt)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if err := writeSummary(w, o.format, s, o.srtSlurmDir != ""); err != nil {
			return err
		}
		if s.Errors > 0 {
			return &exitError{code: exitUsage, err: fmt.Errorf("%d points failed to render", s.Errors)}
		}
		if s.TimeLimit > 0 {
			return &exitError{code: exitDeadline, err: fmt.Errorf("time limit — re-run: the wall-clock backstop stopped %d %s (nothing is known of them; the step budgets decide everything else)", s.TimeLimit, plural(s.TimeLimit, "point"))}
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
	if errors.Is(err, infx.ErrUnknownKey) {
		return unknownKeyError(o.key, o.infx, ws.ConfigKeys())
	}
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
			d, err := ws.Render(ctx, *p, opt)
			var pe *infx.PointError
			switch {
			case errors.As(err, &pe):
				// A status (unsupported, ambiguous, missing), not bad input.
				p.Status, p.Note = pe.Status, pe.Note
			case err != nil:
				return &exitError{code: exitUsage, err: err}
			default:
				r.d = &d
			}
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return usageErr("config key %q has no point with%s (its points: %s)", o.key, rowConcText(o, changed), pointsText(pts))
	}
	if err := writeRendered(w, o.format, out); err != nil {
		return err
	}
	return nothingRendered(o.key, out)
}

// nothingRendered is the exit-1 error when none of the points was rendered
// (all upstream-only, missing or unsupported): it gives each distinct
// reason once, with the master position of its first point.
func nothingRendered(key string, out []rendered) error {
	var reasons []string
	seen := map[string]bool{}
	for _, r := range out {
		if r.d != nil {
			return nil
		}
		why := fmt.Sprintf("%s: %s", r.p.Status, r.p.Note)
		if !seen[why] {
			seen[why] = true
			if r.p.RefPos.Line > 0 {
				why = r.p.RefPos.String() + ": " + why
			}
			reasons = append(reasons, why)
		}
	}
	return &exitError{code: exitGap, err: fmt.Errorf("config key %q: no point could be rendered (%s selected):\n  %s", key, plural(len(out), "point"), strings.Join(reasons, "\n  "))}
}

// pointsText lists the points of a key by row: "row 0 conc 4,8; row 1
// conc 1" (the first 8 rows, then "…").
func pointsText(pts []infx.Point) string {
	const maxRows = 8
	var rows []string
	for i := 0; i < len(pts); {
		j := i
		var concs []string
		for ; j < len(pts) && pts[j].Row == pts[i].Row; j++ {
			concs = append(concs, fmt.Sprint(pts[j].Concurrency))
		}
		if len(rows) == maxRows {
			rows = append(rows, "…")
			break
		}
		rows = append(rows, fmt.Sprintf("row %d conc %s", pts[i].Row, strings.Join(concs, ",")))
		i = j
	}
	return strings.Join(rows, "; ")
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
					if r.d.Source.SrtSlurm != "" {
						j.SrtSlurm = r.d.Source.SrtSlurm
					}
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
		return writeJSON(w, out)
	}
	var b strings.Builder
	for i, r := range rs {
		if i > 0 {
			b.WriteString("\n")
		}
		writeText(&b, r)
	}
	return writeShellText(w, b.String())
}

// writeText prints one rendering: a header, then one block per process.
// Each block is comment lines (title, preamble, origins) followed by the
// command in the cookbook's layout, which is valid shell: a comment after a
// trailing backslash would end the command, so the origins of the env vars
// and flags are listed above it instead.
func writeText(b *strings.Builder, r rendered) {
	el := launch.EscapeLine
	if p := r.p; p != nil {
		fmt.Fprintf(b, "# %s row %d conc %d (%s", el(p.ConfigKey), p.Row, p.Concurrency, el(p.Scenario))
		if p.ISL > 0 || p.OSL > 0 {
			fmt.Fprintf(b, " %d/%d", p.ISL, p.OSL)
		}
		b.WriteString(")")
		if !p.InScope {
			b.WriteString(" [outside Check 3 scope]")
		}
		b.WriteString("\n")
		if p.Status != infx.StatusOK {
			fmt.Fprintf(b, "# %s: %s\n", el(string(p.Status)), el(p.Note))
			return
		}
	}
	d := r.d
	src := d.Source.File
	if d.Source.Selector != "" {
		src += ":" + d.Source.Selector
	}
	if r.p != nil && r.p.Kind == infx.KindScript {
		fmt.Fprintf(b, "# script %s\n", el(src))
	} else if r.p != nil && r.p.Kind == infx.KindBatch {
		fmt.Fprintf(b, "# batch job %s\n", el(src))
	} else {
		v := r.version
		if d.Source.SrtSlurm != "" {
			v = d.Source.SrtSlurm
		}
		fmt.Fprintf(b, "# recipe %s (srt-slurm %s)\n", el(src), el(v))
	}
	if d.Model != "" || d.Hardware != "" {
		fmt.Fprintf(b, "# model %s, hardware %s, engine %s\n", el(d.Model), el(d.Hardware), el(d.Engine))
	}
	for _, n := range d.Notes {
		fmt.Fprintf(b, "# note: %s\n", el(n))
	}
	for i := range d.Processes {
		p := d.Processes[i]
		b.WriteString("\n")
		b.WriteString(blockTitle(&p))
		b.WriteString("\n")
		for _, l := range p.Preamble {
			b.WriteString("# preamble: " + el(preambleText(l, p.Role)) + "\n")
		}
		p.Preamble = nil
		writeOrigins(b, &p)
		writeUnknown(b, &p)
		b.WriteString(launch.Format(&p))
		b.WriteString("\n")
	}
}

// fingerprintMark is how srt-slurm's fingerprint capture step shows in a
// rendered worker preamble (infx/srtslurm; shared/golden/srt-slurm README).
const fingerprintMark = "( FINGERPRINT )"

// preambleText spells out the fingerprint placeholder of a worker preamble:
// srt-slurm captures the worker's environment into
// /logs/fingerprint_<mode>_w<i>.json, in a subshell so a failure is not
// fatal (shared/spec/srt-slurm.md §9 step 3).
func preambleText(l string, role launch.Role) string {
	mode := string(role)
	if mode == "" {
		mode = "<mode>"
	}
	return strings.ReplaceAll(l, fingerprintMark, "( <fingerprint: capture the environment into /logs/fingerprint_"+mode+"_w<i>.json, non-fatal> )")
}

// writeUnknown lists the env vars and flags of p whose presence or value
// is not known (launch.EnvVar.Unknown, launch.Arg.Unknown: a script sets
// them only on some machines, by a fact that is not published), with why:
// rendered as the first answer that sets them has them, never compared.
func writeUnknown(b *strings.Builder, p *launch.Process) {
	seen := map[string]bool{}
	for _, e := range p.Env {
		if e.Unknown != "" && !seen["env "+e.Name] {
			seen["env "+e.Name] = true
			b.WriteString("# unknown: env " + launch.EscapeLine(e.Unknown) + "\n")
		}
	}
	for _, a := range p.Args {
		if a.Unknown != "" && !seen["flag "+a.Flag] {
			seen["flag "+a.Flag] = true
			b.WriteString("# unknown: flag " + launch.EscapeLine(a.Unknown) + "\n")
		}
	}
}

// originWidth is the width origin comment lines wrap at.
const originWidth = 100

// writeOrigins lists where the env vars and flags of p come from, one
// group per origin kind in order of first appearance:
//
//	# injected (srt-slurm v1.0.68): env HEAD_NODE_IP …; flags --model-path …
//	# recipe: env PYTHONUNBUFFERED; flags --tensor-parallel-size …
//
// An item whose origin detail adds a note after "; " (see
// infx.ServedNameReplaces) is starred and the note follows the groups.
func writeOrigins(b *strings.Builder, p *launch.Process) {
	type group struct {
		label       string
		env, flags  []string
		seenE, seen map[string]bool
	}
	var groups []*group
	byKind := map[launch.OriginKind]*group{}
	var notes []string
	get := func(o launch.Origin) (*group, string) {
		detail, note, _ := strings.Cut(o.Detail, "; ")
		g := byKind[o.Kind]
		if g == nil {
			g = &group{label: launch.EscapeLine(string(o.Kind)), seenE: map[string]bool{}, seen: map[string]bool{}}
			if o.Kind == launch.OriginInjected && detail != "" {
				g.label += " (" + launch.EscapeLine(detail) + ")"
			}
			byKind[o.Kind] = g
			groups = append(groups, g)
		}
		return g, note
	}
	for _, e := range p.Env {
		g, _ := get(e.Origin)
		if !g.seenE[e.Name] {
			g.seenE[e.Name] = true
			g.env = append(g.env, launch.EscapeLine(e.Name))
		}
	}
	for _, a := range p.Args {
		g, note := get(a.Origin)
		name := launch.EscapeLine(a.Flag)
		if name == "" && len(a.Values) > 0 {
			name = launch.EscapeLine(a.Values[0]) // a positional argument
		}
		if note != "" {
			name += "*"
			notes = append(notes, launch.EscapeLine(a.Flag+": "+note))
		}
		if !g.seen[name] {
			g.seen[name] = true
			g.flags = append(g.flags, name)
		}
	}
	if len(groups) == 1 && len(notes) == 0 {
		b.WriteString("# every env var and flag: " + groups[0].label + "\n")
		return
	}
	for _, g := range groups {
		var words []string
		if len(g.env) > 0 {
			words = append(words, "env")
			words = append(words, g.env...)
			if len(g.flags) > 0 {
				words[len(words)-1] += ";"
			}
		}
		if len(g.flags) > 0 {
			words = append(words, "flags")
			words = append(words, g.flags...)
		}
		writeWrapped(b, "# "+g.label+":", words)
	}
	for _, n := range notes {
		b.WriteString("# * " + n + "\n")
	}
}

// writeWrapped writes head and words as comment lines of at most
// originWidth columns (longer words stay whole), continuation lines
// indented "#   ".
func writeWrapped(b *strings.Builder, head string, words []string) {
	line := head
	for _, w := range words {
		if len(line)+1+len(w) > originWidth && line != head && line != "#  " {
			b.WriteString(line + "\n")
			line = "#  "
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
}

// blockTitle names a process block: "# prefill worker: 1 worker, 1 node, 4 GPUs/node".
func blockTitle(p *launch.Process) string {
	t := "# "
	if p.Role != launch.RoleNone {
		t += launch.EscapeLine(string(p.Role)) + " "
	}
	t += launch.EscapeLine(string(p.Kind))
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

// writeSummary prints an --all run. Text: one line per config key (key,
// framework, point counts, Check 3 scope), under it one line per group of
// points that were not rendered (status, points, rows, recipe or script,
// reason), then the totals and the render errors. JSON: the infx.Summary
// (totals, configKeys[] with each point's outcome).
func writeSummary(w io.Writer, format string, s infx.Summary, withSrtSlurmDir bool) error {
	if format == "json" {
		return writeJSON(w, s)
	}
	var b strings.Builder
	el := launch.EscapeLine
	kw, fw := len("CONFIG KEY"), len("FRAMEWORK")
	for _, k := range s.ConfigKeys {
		kw, fw = max(kw, len(el(k.ConfigKey))), max(fw, len(el(k.Framework)))
	}
	row := func(key, fr string, cols ...any) {
		fmt.Fprintf(&b, "%-*s  %-*s  %6v %8v %13v %7v %11v %9v %6v  %v\n", append([]any{kw, key, fw, fr}, cols...)...)
	}
	row("CONFIG KEY", "FRAMEWORK", "POINTS", "RENDERED", "UPSTREAM-ONLY", "MISSING", "UNSUPPORTED", "AMBIGUOUS", "ERRORS", "CHECK 3")
	for _, k := range s.ConfigKeys {
		scope := "in scope"
		if !k.InScope {
			// Not rendered: one line, no per-point groups.
			row(el(k.ConfigKey), el(k.Framework), k.Points, k.Rendered, k.UpstreamOnly, k.Missing, k.Unsupported, k.Ambiguous, k.Errors, "out of scope")
			continue
		}
		row(el(k.ConfigKey), el(k.Framework), k.Points, k.Rendered, k.UpstreamOnly, k.Missing, k.Unsupported, k.Ambiguous, k.Errors, scope)
		for _, g := range groupResults(k.Results, withSrtSlurmDir) {
			fmt.Fprintf(&b, "    %s: %s, %s: %s", el(g.status), plural(g.points, "point"), g.rows, el(g.where))
			if g.reason != "" {
				b.WriteString(" — " + el(g.reason))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "keys            %d\n", s.Keys)
	fmt.Fprintf(&b, "points          %d\n", s.Points)
	fmt.Fprintf(&b, "rendered        %d\n", s.Rendered)
	fmt.Fprintf(&b, "upstream-only   %d\n", s.UpstreamOnly)
	fmt.Fprintf(&b, "missing         %d\n", s.Missing)
	fmt.Fprintf(&b, "unsupported     %d\n", s.Unsupported)
	fmt.Fprintf(&b, "ambiguous       %d\n", s.Ambiguous)
	if s.TimeLimit > 0 {
		fmt.Fprintf(&b, "time limit      %d (re-run: the wall-clock backstop stopped them)\n", s.TimeLimit)
	}
	fmt.Fprintf(&b, "out of scope    %d (not rendered: Check 3 covers vLLM/SGLang only)\n", s.OutOfScope)
	fmt.Fprintf(&b, "errors          %d\n", s.Errors)
	for _, f := range s.Failures {
		fmt.Fprintf(&b, "error: %s\n", el(f))
	}
	return writeShellText(w, b.String())
}

// resultGroup is the points of one config key that share a status, file
// and reason.
type resultGroup struct {
	status, where, reason, rows string
	points                      int
}

// groupResults groups the non-rendered points of a key by status, recipe
// (or script) and reason, in order of first appearance. rows reads
// "row 0 conc 4,8" or "rows 0,2".
func groupResults(rs []infx.PointResult, withSrtSlurmDir bool) []resultGroup {
	type acc struct {
		g     resultGroup
		rows  []int
		concs []string
	}
	var order []*acc
	by := map[string]*acc{}
	for _, r := range rs {
		if r.Status == infx.OutcomeRendered {
			continue
		}
		where := r.Recipe
		if where != "" && r.Selector != "" {
			where += ":" + r.Selector
		}
		if where == "" {
			where = r.File
		}
		if where == "" && len(r.ScriptsTried) > 0 {
			where = r.ScriptsTried[0]
		}
		if where == "" {
			where = "(no recipe or script)"
		}
		reason := shortReason(r, withSrtSlurmDir)
		key := string(r.Status) + "\x00" + where + "\x00" + reason
		a := by[key]
		if a == nil {
			a = &acc{g: resultGroup{status: string(r.Status), where: where, reason: reason}}
			by[key] = a
			order = append(order, a)
		}
		a.g.points++
		if len(a.rows) == 0 || a.rows[len(a.rows)-1] != r.Row {
			a.rows = append(a.rows, r.Row)
		}
		a.concs = append(a.concs, fmt.Sprint(r.Concurrency))
	}
	out := make([]resultGroup, len(order))
	for i, a := range order {
		if len(a.rows) == 1 {
			a.g.rows = fmt.Sprintf("row %d conc %s", a.rows[0], strings.Join(a.concs, ","))
		} else {
			rows := make([]string, len(a.rows))
			for j, r := range a.rows {
				rows[j] = fmt.Sprint(r)
			}
			a.g.rows = "rows " + strings.Join(rows, ",")
		}
		out[i] = a.g
	}
	return out
}

// shortReason is a point's reason without what the line already shows
// (the recipe path, the script paths tried).
func shortReason(r infx.PointResult, withSrtSlurmDir bool) string {
	if n := len(r.ScriptsTried); n > 0 {
		return fmt.Sprintf("no single-node script in the checkout (%d names tried; --format json lists them)", n)
	}
	reason := r.Reason
	for _, pre := range []string{"recipe ", "srt-recipe "} {
		reason = strings.TrimPrefix(reason, pre+r.Recipe+" is ")
	}
	if r.Status == infx.OutcomeUpstreamOnly {
		if withSrtSlurmDir {
			reason += " (not in --srt-slurm-dir either)"
		} else {
			reason += " (--srt-slurm-dir renders it from a checkout)"
		}
	}
	return reason
}

// jsonKey is one config key in `render --list --format json`.
type jsonKey struct {
	ConfigKey string `json:"configKey"`
	Framework string `json:"framework"`
	InScope   bool   `json:"inScope"`
	Rows      int    `json:"rows"`
	Points    int    `json:"points"`
}

// writeList prints the config keys of the checkout without rendering
// anything. Text: "KEY  FRAMEWORK  ROWS  POINTS  CHECK 3" columns; JSON:
// a list of jsonKey.
func writeList(w io.Writer, format string, ws *infx.Workspace) error {
	var keys []jsonKey
	for _, k := range ws.ConfigKeys() {
		e, err := ws.Entry(k)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		pts, err := ws.Points(k)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		keys = append(keys, jsonKey{ConfigKey: k, Framework: e.Framework, InScope: infx.InScope(e.Framework), Rows: len(e.Rows), Points: len(pts)})
	}
	if format == "json" {
		if keys == nil {
			keys = []jsonKey{}
		}
		return writeJSON(w, keys)
	}
	for i := range keys {
		keys[i].ConfigKey, keys[i].Framework = launch.EscapeLine(keys[i].ConfigKey), launch.EscapeLine(keys[i].Framework)
	}
	kw, fw := len("CONFIG KEY"), len("FRAMEWORK")
	for _, k := range keys {
		kw, fw = max(kw, len(k.ConfigKey)), max(fw, len(k.Framework))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  %-*s  %4s %6s  %s\n", kw, "CONFIG KEY", fw, "FRAMEWORK", "ROWS", "POINTS", "CHECK 3")
	for _, k := range keys {
		scope := "in scope"
		if !k.InScope {
			scope = "out of scope"
		}
		fmt.Fprintf(&b, "%-*s  %-*s  %4d %6d  %s\n", kw, k.ConfigKey, fw, k.Framework, k.Rows, k.Points, scope)
	}
	return writeShellText(w, b.String())
}

// srtSlurmCheckouts reads the --srt-slurm-dir values (infx.ParseSrtSlurmDir):
// the NVIDIA/srt-slurm checkout (at most one; NVIDIA/srt-slurm@REF=DIR also
// sets the version to REF, unless --srt-slurm-version says otherwise: then
// it is bad usage) and the fork checkouts (one per repository and ref, each
// a directory holding src/srtctl). Errors are usage errors (exit 2) naming
// the value.
func srtSlurmCheckouts(vals []string, version string, versionGiven bool) (dir, ver string, forks []infx.SrtSlurmCheckout, _ error) {
	ver = version
	nvidia := ""
	for _, v := range vals {
		c, err := infx.ParseSrtSlurmDir(v)
		if err != nil {
			return "", "", nil, usageErr("--srt-slurm-dir %v", err)
		}
		if c.Repo == infx.SrtSlurmRepo {
			if nvidia != "" {
				return "", "", nil, usageErr("--srt-slurm-dir %q and %q: two checkouts of %s (give one)", nvidia, v, infx.SrtSlurmRepo)
			}
			nvidia, dir = v, c.Dir
			if c.Ref != "" {
				if versionGiven && version != c.Ref {
					return "", "", nil, usageErr("--srt-slurm-dir %q is at %s, --srt-slurm-version says %s: give one", v, c.Ref, version)
				}
				ver = c.Ref
			}
			continue
		}
		for _, f := range forks {
			if strings.EqualFold(f.Repo, c.Repo) && f.Ref == c.Ref {
				return "", "", nil, usageErr("--srt-slurm-dir %q: a second checkout of %s (first: %s)", v, c.Flag(c.Dir), f.Flag(f.Dir))
			}
		}
		st, err := os.Stat(c.Dir)
		if err != nil {
			return "", "", nil, usageErr("--srt-slurm-dir %q: %v", v, err)
		}
		if !st.IsDir() {
			return "", "", nil, usageErr("--srt-slurm-dir %q: %s is not a directory (want a work tree of %s)", v, launch.QuotePath(c.Dir), c.Repo)
		}
		if st, err := os.Stat(filepath.Join(c.Dir, "src", "srtctl")); err != nil || !st.IsDir() {
			return "", "", nil, usageErr("--srt-slurm-dir %q: %s has no src/srtctl directory (want a work tree of %s)", v, launch.QuotePath(c.Dir), c.Repo)
		}
		forks = append(forks, c)
	}
	return dir, ver, forks, nil
}

// checkSrtSlurmFlags validates --srt-slurm-dir (a directory) and
// --srt-slurm-version (a ref with a known injection profile), for render
// and coverage alike; errors are usage errors (exit 2).
func checkSrtSlurmFlags(dir, version string) error {
	if version == "" {
		return usageErr("--srt-slurm-version: empty (default %s)", infx.DefaultSrtSlurmVersion)
	}
	if dir != "" {
		st, err := os.Stat(dir)
		if err != nil {
			return usageErr("--srt-slurm-dir: %v", err)
		}
		if !st.IsDir() {
			return usageErr("--srt-slurm-dir %s: not a directory (want an NVIDIA/srt-slurm checkout)", dir)
		}
		// a work tree, not a bare repository or an empty directory: srtctl
		// reads recipes/ and configs/ from it
		found := false
		for _, sub := range []string{"recipes", "configs"} {
			if st, err := os.Stat(filepath.Join(dir, sub)); err == nil && st.IsDir() {
				found = true
			}
		}
		if !found {
			return usageErr("--srt-slurm-dir %s: no recipes/ or configs/ directory (want an NVIDIA/srt-slurm work tree; a bare mirror needs `git clone --shared` first)", launch.QuotePath(dir))
		}
	}
	if err := srtslurm.CheckVersion(version); err != nil {
		return usageErr("--srt-slurm-version: %v", err)
	}
	return nil
}

// cmdContext is the command's context (signal.NotifyContext and --deadline
// in runExit), or context.Background() when run without one (tests).
func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}
