package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/generate"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/infx/srtslurm"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/secrets"
)

// generateOptions are the flags of `cookbook-sync generate`.
type generateOptions struct {
	infx, model, out   string
	keys               []string
	prs                []string
	provenance         string
	previous           string
	main, date, name   string
	cellPerRow         bool
	dropCells          bool
	version, srtSlurmD string
}

// newGenerateCmd: `cookbook-sync generate --infx DIR --model PREFIX
// [--keys GLOB…] [--prs N[=SHA]…] [--provenance FILE] [--previous FILE]
// [--main SHA] [--date YYYY-MM-DD] -o FILE`.
func newGenerateCmd() *cobra.Command {
	var o generateOptions
	c := &cobra.Command{
		Use:     "generate",
		Example: exampleGenerate,
		Short:   "Generate the SGLang cookbook AgentX snippet of a model from InferenceX configs",
		Long: `Build the AgentX data (docs/src/snippets/agentx/<org>/<model>.jsx) of one model
from the effective recipes of an InferenceX checkout: one cell per config key and
deployment shape, one point per concurrency, both routers (the submitted one as
measured, the other derived), KV tiers and provenance, with the exclusion list
applied (harness-only settings left out, prohibited settings refused) and
placeholders instead of hosts. The output is encoded in the page's compressed
form, decoded back and checked against every generated command before it is
written (atomically: a temporary file in the same directory, then rename).

Provenance: --main (InferenceX main sha) and --prs (open PRs mirrored, N or
N=SHA), or --provenance FILE (YAML or JSON):

  main: <sha>
  repo: https://github.com/SemiAnalysisAI/InferenceX   # optional
  generatedOn: 2026-10-08                              # optional
  prs:  {"3840": {sha: <sha>, run: null, status: in-progress}}
  keys: {<config key>: {sha, pr, run, status, date, comment, recipe}}

Flags override the file. generatedOn is --date, else the file's, else the
previous file's, else today (UTC).

--previous (the current upstream file) keeps its cell order and ids, and the
output is merged into it: nothing upstream is lost. A previous cell that no
generated cell replaces — its config key not selected by --keys, left out for
a prohibited setting, not renderable from this checkout, or its rows gone — is
carried over unchanged (verified to decode exactly as in --previous) and
listed as kept. --drop-cells removes those of them whose config key is in the
run's scope (every key of the model, or those matching --keys) instead, and
lists them as removed; cells of keys outside --keys are always kept.

A config key with a prohibited setting (exclusion list, class prohibited) is
left out whole and named with the rule; the other keys are written.

Checks before anything is rendered: --srt-slurm-version must be a known
srt-slurm version; every sha (--main, --prs N=SHA, main/prs/keys in the file)
7 to 40 lower-case hex digits; dates (--date, generatedOn, keys.*.date) real
calendar days; PR numbers 1 to 2^31; prs and keys statuses verified,
verified-pr or in-progress (agentx-format.md (c));
every keys entry a config key of --model in --infx. Errors name the flag, or
file:line:col and the YAML path. The output is refused when it contains a
GitHub token-shaped string or (a transformed echo of) the value of a secret
environment variable of this process (package secrets). If -o is a symlink,
its target is written (the link stays); the file and its directory are
fsynced.

Exit status:
  0  the file was written (and verified)
  2  bad usage or bad input (flag value, provenance file, InferenceX
     checkout, every selected key refused or unrenderable, verification
     failed, a secret in the output); nothing is written`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return runGenerate(ctx, cmd.OutOrStdout(), o)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.infx, "infx", "", "InferenceX checkout (old layout root, or a tree with inferencex-e2e/)")
	fl.StringVar(&o.model, "model", "", "InferenceX model prefix (master model-prefix), e.g. qwen3.5")
	fl.StringSliceVar(&o.keys, "keys", nil, "config key globs to include (default: every key of the model)")
	fl.StringSliceVar(&o.prs, "prs", nil, "open InferenceX PRs mirrored: N or N=SHA")
	fl.StringVar(&o.provenance, "provenance", "", "provenance file (YAML/JSON): main, repo, generatedOn, prs, keys")
	fl.StringVar(&o.previous, "previous", "", "current upstream snippet: keep its cell order and ids")
	fl.StringVar(&o.main, "main", "", "InferenceX main sha the configs were read at")
	fl.StringVar(&o.date, "date", "", "generatedOn date YYYY-MM-DD")
	fl.StringVar(&o.name, "display-name", "", "model display name (default: the prefix, capitalised)")
	fl.BoolVar(&o.cellPerRow, "cell-per-row", false, "one cell per config key × search-space row (default: rows of one shape share a cell)")
	fl.BoolVar(&o.dropCells, "drop-cells", false, "remove --previous cells no generated cell replaces (keys in scope only) instead of keeping them")
	fl.StringVar(&o.version, "srt-slurm-version", infx.DefaultSrtSlurmVersion, "srt-slurm injection profile")
	fl.StringVar(&o.srtSlurmD, "srt-slurm-dir", "", "NVIDIA/srt-slurm checkout for upstream-only CONFIG_FILE recipes")
	fl.StringVarP(&o.out, "output", "o", "", "output file (written atomically)")
	return c
}

// provenanceFile is the --provenance file.
type provenanceFile struct {
	Repo        string `yaml:"repo"`
	Main        string `yaml:"main"`
	GeneratedOn string `yaml:"generatedOn"`
	PRs         map[string]struct {
		SHA    string  `yaml:"sha"`
		Run    *string `yaml:"run"`
		Status string  `yaml:"status"`
	} `yaml:"prs"`
	Keys map[string]cookbook.Prov `yaml:"keys"`
}

var prFlag = regexp.MustCompile(`^#?(\d+)(?:=([0-9a-f]{7,40}))?$`)

// runGenerate checks the flags and the provenance file, runs
// generate.Run with ctx (a cancelled ctx stops it between config keys,
// points and cells) and writes the verified output atomically.
func runGenerate(ctx context.Context, w io.Writer, o generateOptions) error {
	if o.infx == "" || o.model == "" || o.out == "" {
		return usageErr("--infx, --model and -o are required")
	}
	if o.dropCells && o.previous == "" {
		return usageErr("--drop-cells needs --previous (the cells it would remove)")
	}
	opt := generate.Options{
		Model: o.model, Keys: o.keys, DisplayName: o.name, CellPerRow: o.cellPerRow, DropCells: o.dropCells,
		RenderOptions: infx.Options{SrtSlurmVersion: o.version},
		Source:        cookbook.SyncSource{PRs: map[string]cookbook.SyncPR{}},
	}
	// Flags first: a bad value is reported before any file is read.
	if err := srtslurm.CheckVersion(o.version); err != nil {
		return usageErr("--srt-slurm-version %q: %v", o.version, err)
	}
	if o.main != "" {
		if err := cookbook.CheckSHA(o.main); err != nil {
			return usageErr("--main: %v", err)
		}
	}
	if o.date != "" {
		if err := cookbook.CheckDate(o.date); err != nil {
			return usageErr("--date: %v", err)
		}
	}
	var pfRoot *yaml.Node
	var pf provenanceFile
	if o.provenance != "" {
		data, err := launch.ReadInput(o.provenance)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		dec.KnownFields(true)
		if err := dec.Decode(&pf); err != nil && !errors.Is(err, io.EOF) {
			return &exitError{code: exitUsage, err: fmt.Errorf("%s: %v", o.provenance, err)}
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err == nil && len(doc.Content) > 0 {
			pfRoot = doc.Content[0]
		}
		if err := checkProvenanceFile(o.provenance, pfRoot, &pf); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		opt.Source.Repo, opt.Source.Main, opt.GeneratedOn = pf.Repo, pf.Main, pf.GeneratedOn
		for n, p := range pf.PRs {
			sp := cookbook.SyncPR{SHA: p.SHA, Status: p.Status}
			if p.Run != nil {
				sp.Run = *p.Run
			}
			if sp.Status == "" {
				sp.Status = "in-progress"
			}
			opt.Source.PRs[n] = sp
		}
		opt.Prov = pf.Keys
	}
	for _, p := range o.prs {
		m := prFlag.FindStringSubmatch(p)
		if m == nil {
			return usageErr("--prs %q: want N or N=SHA (SHA: 7 to 40 lower-case hex digits)", p)
		}
		if err := cookbook.CheckPR(m[1]); err != nil {
			return usageErr("--prs %q: %v", p, err)
		}
		sp := opt.Source.PRs[m[1]]
		if m[2] != "" {
			sp.SHA = m[2]
		}
		if sp.Status == "" {
			sp.Status = "in-progress"
		}
		opt.Source.PRs[m[1]] = sp
	}
	if o.main != "" {
		opt.Source.Main = o.main
	}
	if opt.Source.Main == "" {
		return usageErr("no InferenceX main sha: give --main or main: in --provenance")
	}
	if o.previous != "" {
		prev, err := cookbook.ReadFile(o.previous)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		opt.Previous = prev
		if opt.GeneratedOn == "" {
			opt.GeneratedOn = prev.GeneratedOn
		}
	}
	if o.date != "" {
		opt.GeneratedOn = o.date
	}
	if opt.GeneratedOn == "" {
		opt.GeneratedOn = time.Now().UTC().Format("2006-01-02")
	}
	ws, err := infx.Open(o.infx)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	ws.SrtSlurmDir = o.srtSlurmD
	if err := checkModelPrefix(ws, o.model, o.infx); err != nil {
		return err
	}
	// Provenance keys must name config keys of the model in this checkout.
	if len(pf.Keys) > 0 {
		known := map[string]bool{}
		for _, k := range ws.ConfigKeys() {
			if e, err := ws.Entry(k); err == nil && e.ModelPrefix == o.model {
				known[k] = true
			}
		}
		for _, k := range slices.Sorted(maps.Keys(pf.Keys)) {
			if !known[k] {
				return &exitError{code: exitUsage, err: fmt.Errorf("%s: keys.%s: no config key %q of model %q in %s",
					yamlPos(o.provenance, yamlKeyNode(pfRoot, "keys", k)), k, k, o.model, o.infx)}
			}
		}
	}
	g, err := generate.Run(ctx, ws, opt)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if err := secrets.Check(g.Bytes); err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", o.out, err)}
	}
	if err := writeAtomic(o.out, g.Bytes); err != nil {
		return err // exit 4 (*writeError) or 2 (not an output file)
	}
	var out bytes.Buffer // one write of the summary, its error returned (exit 4)
	points := 0
	for _, c := range g.Data.Cells {
		points += len(c.Points)
	}
	fmt.Fprintf(&out, "wrote %s: %d cells, %d points, %d bytes (verified: every point decodes back)\n", o.out, len(g.Data.Cells), points, len(g.Bytes))
	if len(g.Refused) > 0 {
		fmt.Fprintf(&out, "left out %d config keys (prohibited setting, never published):\n", len(g.Refused))
		for _, r := range g.Refused {
			fmt.Fprintf(&out, "  %s\n", r)
		}
	}
	if len(g.Kept) > 0 {
		fmt.Fprintf(&out, "kept %d cells of %s unchanged (not regenerated; --drop-cells removes those in scope):\n", len(g.Kept), o.previous)
		for _, c := range g.Kept {
			fmt.Fprintf(&out, "  %s: %s\n", c.ID, c.Reason)
		}
	}
	if len(g.Removed) > 0 {
		fmt.Fprintf(&out, "removed %d cells of %s (--drop-cells):\n", len(g.Removed), o.previous)
		for _, c := range g.Removed {
			fmt.Fprintf(&out, "  %s: %s\n", c.ID, c.Reason)
		}
	}
	if len(g.Skipped) > 0 {
		// One line per config key: how many points, and the first reason.
		var keys []string
		count := map[string]int{}
		first := map[string]string{}
		for _, s := range g.Skipped {
			if count[s.ConfigKey] == 0 {
				keys = append(keys, s.ConfigKey)
				first[s.ConfigKey] = s.Reason
			}
			count[s.ConfigKey]++
		}
		fmt.Fprintf(&out, "skipped %d points (not renderable from this checkout):\n", len(g.Skipped))
		for _, k := range keys {
			fmt.Fprintf(&out, "  %s: %d points: %s\n", k, count[k], first[k])
		}
	}
	if len(g.Dropped) > 0 {
		// Settings left out, once each with the number of rows.
		var whats []string
		count := map[string]int{}
		for _, d := range g.Dropped {
			_, what, _ := strings.Cut(d, ": ")
			if count[what] == 0 {
				whats = append(whats, what)
			}
			count[what]++
		}
		sort.Strings(whats)
		fmt.Fprintf(&out, "left out by the exclusion list (%d settings):\n", len(whats))
		for _, what := range whats {
			fmt.Fprintf(&out, "  %s [%d rows]\n", what, count[what])
		}
	}
	_, err = w.Write(out.Bytes())
	return err
}

// checkProvenanceFile validates a --provenance file's values (the YAML
// shape was already decoded into pf): main and every sha 7–40 lower-case
// hex, generatedOn and dates real calendar dates, PR numbers 1..2^31,
// statuses in the spec's sets (agentx-format.md (a) "source", (c)). Errors
// name file:line:col and the YAML path.
func checkProvenanceFile(file string, root *yaml.Node, pf *provenanceFile) error {
	bad := func(n *yaml.Node, path string, err error) error {
		return fmt.Errorf("%s: %s: %v", yamlPos(file, n), path, err)
	}
	if pf.Main != "" {
		if err := cookbook.CheckSHA(pf.Main); err != nil {
			return bad(yamlValueNode(root, "main"), "main", err)
		}
	}
	if pf.GeneratedOn != "" {
		if err := cookbook.CheckDate(pf.GeneratedOn); err != nil {
			return bad(yamlValueNode(root, "generatedOn"), "generatedOn", err)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(pf.PRs)) {
		p := pf.PRs[n]
		if err := cookbook.CheckPR(strings.TrimPrefix(n, "#")); err != nil {
			return bad(yamlKeyNode(root, "prs", n), "prs."+n, err)
		}
		if p.SHA != "" {
			if err := cookbook.CheckSHA(p.SHA); err != nil {
				return bad(yamlValueNode(root, "prs", n, "sha"), "prs."+n+".sha", err)
			}
		}
		if p.Status != "" {
			if err := cookbook.CheckStatus(p.Status); err != nil {
				return bad(yamlValueNode(root, "prs", n, "status"), "prs."+n+".status", err)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(pf.Keys)) {
		p := pf.Keys[k]
		kp := "keys." + k
		if p.SHA != "" {
			if err := cookbook.CheckSHA(p.SHA); err != nil {
				return bad(yamlValueNode(root, "keys", k, "sha"), kp+".sha", err)
			}
		}
		if p.PR != "" {
			if err := cookbook.CheckPR(p.PR); err != nil {
				return bad(yamlValueNode(root, "keys", k, "pr"), kp+".pr", err)
			}
		}
		if p.Status != "" {
			if err := cookbook.CheckStatus(p.Status); err != nil {
				return bad(yamlValueNode(root, "keys", k, "status"), kp+".status", err)
			}
		}
		if p.Date != "" {
			if err := cookbook.CheckDate(p.Date); err != nil {
				return bad(yamlValueNode(root, "keys", k, "date"), kp+".date", err)
			}
		}
	}
	return nil
}

// yamlKeyNode returns the key node of the last path element (nil when
// absent); yamlValueNode its value node.
func yamlKeyNode(n *yaml.Node, path ...string) *yaml.Node {
	var key *yaml.Node
	for _, p := range path {
		for n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n == nil || n.Kind != yaml.MappingNode {
			return key
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == p {
				key, next = n.Content[i], n.Content[i+1]
			}
		}
		if next == nil {
			return key
		}
		n = next
	}
	return key
}

func yamlValueNode(n *yaml.Node, path ...string) *yaml.Node {
	for _, p := range path {
		for n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == p {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// yamlPos renders "file:line:col" of n ("file" alone when n is nil).
func yamlPos(file string, n *yaml.Node) string {
	if n == nil {
		return file
	}
	return fmt.Sprintf("%s:%d:%d", file, n.Line, n.Column)
}

// checkModelPrefix refuses a --model that is the model prefix of no config
// key of the checkout (bad usage), naming the command that lists the keys
// and the closest prefixes.
func checkModelPrefix(ws *infx.Workspace, model, infxDir string) error {
	seen := map[string]bool{}
	var prefixes []string
	for _, k := range ws.ConfigKeys() {
		e, err := ws.Entry(k)
		if err != nil || seen[e.ModelPrefix] {
			continue
		}
		if e.ModelPrefix == model {
			return nil
		}
		seen[e.ModelPrefix] = true
		prefixes = append(prefixes, e.ModelPrefix)
	}
	return usageErr("--model %q: no config key has this model prefix (model-prefix of the master configs): %s lists the keys%s", model, listKeysCommand(infxDir), closestText(model, prefixes))
}
