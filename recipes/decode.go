package recipes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"mvdan.cc/sh/v3/syntax"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// FileScan is everything decoded from one recipe file.
type FileScan struct {
	File string
	// Kind is "markdown" (legacy guide), "recipe" (models/<org>/<repo>.yaml),
	// or "config" (a vLLM --config YAML beside a legacy guide).
	Kind        string
	Renderings  []*Rendering // recipe only: the site's renderings of this recipe
	Blocks      []*Block     // Markdown blocks (legacy guide or YAML guide)
	Deployments []launch.Deployment
}

// LaunchBlocks returns the blocks with at least one launch command.
func (f *FileScan) LaunchBlocks() []*Block {
	var out []*Block
	for _, b := range f.Blocks {
		if b.IsLaunch() {
			out = append(out, b)
		}
	}
	return out
}

// Unparsable returns the launch-looking blocks whose shell could not be
// parsed, each with its file:line:col error.
func (f *FileScan) Unparsable() []*Block {
	var out []*Block
	for _, b := range f.Blocks {
		if b.Err != nil {
			out = append(out, b)
		}
	}
	return out
}

// DecodeFile decodes one vLLM recipe file into Deployments:
//   - models/<org>/<repo>.yaml: every rendering the recipes site builds (§9)
//     for every tree, hw and strategy, then the launch commands of `guide:`;
//   - <Vendor>/<Model>.md: every launch command of the legacy guide;
//   - <Vendor>/*.yaml vLLM --config files: one deployment of their flags.
//
// Errors carry file:line:col: malformed YAML, or a launch block whose shell
// cannot be parsed even leniently. It never panics on input.
func DecodeFile(path string) ([]launch.Deployment, error) {
	fs, err := ScanFile(path)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, b := range fs.Unparsable() {
		errs = append(errs, b.Err)
	}
	return fs.Deployments, errors.Join(errs...)
}

// ScanFile decodes path like DecodeFile but keeps unparsable blocks as
// diagnostics (FileScan.Unparsable) instead of failing.
func ScanFile(path string) (*FileScan, error) {
	data, err := launch.ReadInput(path)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return scanMarkdown(path, data)
	case ".yaml", ".yml":
		return scanYAML(path, data, nil, nil)
	}
	return nil, fmt.Errorf("%s: not a recipe (want .md or .yaml)", path)
}

func scanMarkdown(path string, data []byte) (*FileScan, error) {
	blocks, err := ParseMarkdown(path, data, 1, 0)
	if err != nil {
		return nil, err
	}
	f := &FileScan{File: path, Kind: "markdown", Blocks: blocks}
	for _, b := range blocks {
		f.Deployments = append(f.Deployments, GuideDeployments(b)...)
	}
	return f, nil
}

// siteRootOf returns the recipes root for models/<org>/<repo>.yaml, or "".
func siteRootOf(path string) (string, string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", ""
	}
	dir := filepath.Dir(abs)
	for i := 0; i < 4 && dir != filepath.Dir(dir); i++ {
		if filepath.Base(dir) == "models" {
			root := filepath.Dir(dir)
			if _, err := os.Stat(filepath.Join(root, "taxonomy.yaml")); err == nil {
				rel, _ := filepath.Rel(root, abs)
				return root, filepath.ToSlash(rel)
			}
			return "", ""
		}
		dir = filepath.Dir(dir)
	}
	return "", ""
}

// scanYAML decodes a YAML file; rends, when site is given, holds the
// site's renderings by recipe file (relative path).
func scanYAML(path string, data []byte, site *Site, rends map[string][]*Rendering) (*FileScan, error) {
	doc, err := parseYAML(path, data)
	if err != nil {
		return nil, err
	}
	root := deref(doc)
	if root == nil {
		return nil, fmt.Errorf("%s:1:1: empty YAML document", path)
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d:%d: top level is not a mapping", path, root.Line, root.Column)
	}
	if get(root, "model") != nil || get(root, "meta") != nil || get(root, "variants") != nil {
		return scanRecipe(path, root, site, rends)
	}
	if get(root, "hardware_profiles") != nil || get(root, "deploy_type") != nil || get(root, "platforms") != nil {
		return nil, fmt.Errorf("%s:%d:%d: not a model recipe (taxonomy, strategy or platform file)", path, root.Line, root.Column)
	}
	return scanConfig(path, root)
}

// scanConfig reads a vLLM --config YAML (flat `flag: value` map, e.g.
// vllm-project/recipes Llama/Llama3.3_Blackwell.yaml) as one deployment.
func scanConfig(path string, root *yaml.Node) (*FileScan, error) {
	p := launch.Process{Kind: launch.KindWorker, Role: launch.RoleAgg, Program: "vllm serve",
		Origin: launch.Origin{Kind: launch.OriginRecipe, Path: path, Detail: "vLLM --config file"}}
	for _, kv := range pairs(root) {
		v := deref(kv.val)
		o := launch.Origin{Kind: launch.OriginRecipe, Path: kv.key, Detail: pos(path, kv.kn)}
		flag := "--" + kv.key
		switch {
		case v == nil || isNull(v):
			p.Args = append(p.Args, launch.Arg{Flag: flag, Origin: o})
		case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!bool":
			if truthy(v) {
				p.Args = append(p.Args, launch.Arg{Flag: flag, Origin: o})
			} else {
				p.Args = append(p.Args, launch.Arg{Flag: "--no-" + kv.key, Origin: o})
			}
		case v.Kind == yaml.ScalarNode:
			p.Args = append(p.Args, launch.Arg{Flag: flag, Values: []string{v.Value}, Origin: o})
		case v.Kind == yaml.SequenceNode:
			// vLLM's config loader (vllm/utils FlexibleArgumentParser
			// load_config_file): a list gives the flag followed by each
			// item; an empty list gives nothing.
			if len(v.Content) == 0 {
				continue
			}
			budget := maxConfigExpansion
			vals := make([]string, 0, len(v.Content))
			for i, it := range v.Content {
				text, err := configValueText(path, kv.key+"["+strconv.Itoa(i)+"]", it, &budget)
				if err != nil {
					return nil, err
				}
				vals = append(vals, text)
			}
			p.Args = append(p.Args, launch.Arg{Flag: flag, Values: vals, Origin: o})
		default:
			// A mapping is passed as its JSON text (aliases resolved).
			budget := maxConfigExpansion
			text, err := configValueText(path, kv.key, v, &budget)
			if err != nil {
				return nil, err
			}
			p.Args = append(p.Args, launch.Arg{Flag: flag, Values: []string{text}, Origin: o})
		}
	}
	d := launch.Deployment{Source: launch.Source{File: path, Section: "vllm serve --config"}, Engine: "vllm", Processes: []launch.Process{p}}
	return &FileScan{File: path, Kind: "config", Deployments: []launch.Deployment{d}}, nil
}

// maxConfigExpansion bounds the nodes visited when a --config value is
// expanded (aliases followed): a "billion laughs" file fails fast instead
// of exhausting memory. Real config values have a handful of nodes.
const maxConfigExpansion = 10000

// configValueText renders a --config value: a scalar as its text, a list or
// mapping as compact JSON in document order, aliases resolved. budget
// counts the nodes still allowed; exceeding it, or nesting deeper than 64,
// is an error at the value's position (file:line:col, YAML path key).
func configValueText(file, key string, n *yaml.Node, budget *int) (string, error) {
	d := deref(n)
	if d != nil && d.Kind == yaml.ScalarNode {
		*budget--
		return d.Value, nil
	}
	var b strings.Builder
	if err := appendConfigJSON(&b, file, key, n, budget, 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

func appendConfigJSON(b *strings.Builder, file, key string, n *yaml.Node, budget *int, depth int) error {
	at := n
	if n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	n = deref(n)
	*budget--
	if *budget < 0 || depth > 64 {
		return fmt.Errorf("%s: %s: value expands to more than %d YAML nodes (alias expansion bound) or nests deeper than 64", pos(file, at), key, maxConfigExpansion)
	}
	switch {
	case n == nil || isNull(n):
		b.WriteString("null")
	case n.Kind == yaml.MappingNode:
		b.WriteByte('{')
		for i, p := range pairs(n) {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(p.key)
			b.Write(k)
			b.WriteByte(':')
			if err := appendConfigJSON(b, file, key+"."+p.key, n.Content[2*pairIndex(n, p.key)+1], budget, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case n.Kind == yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := appendConfigJSON(b, file, key+"["+strconv.Itoa(i)+"]", c, budget, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		switch n.ShortTag() {
		case "!!bool":
			b.WriteString(strconv.FormatBool(truthy(n)))
			return nil
		case "!!int", "!!float":
			if v, ok := num(n); ok && !math.IsInf(v, 0) && !math.IsNaN(v) {
				out, _ := json.Marshal(v)
				b.Write(out)
				return nil
			}
		}
		out, _ := json.Marshal(n.Value)
		b.Write(out)
	}
	return nil
}

// pairIndex returns the index (in key/value pairs) of the last occurrence
// of key in mapping n (the value pairs() keeps).
func pairIndex(n *yaml.Node, key string) int {
	idx := 0
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			idx = i / 2
		}
	}
	return idx
}

func scanRecipe(path string, root *yaml.Node, site *Site, rends map[string][]*Rendering) (*FileScan, error) {
	if err := checkRecipe(path, root); err != nil {
		return nil, err
	}
	f := &FileScan{File: path, Kind: "recipe"}
	var list []*Rendering
	if site != nil {
		if rel, err := filepath.Rel(site.Root, path); err == nil {
			list = rends[filepath.ToSlash(rel)]
		}
	} else if sroot, rel := siteRootOf(path); sroot != "" {
		s, err := LoadSite(sroot, rel)
		if err != nil {
			return nil, err
		}
		list = s.Renderings()
	}
	for _, r := range list {
		f.Renderings = append(f.Renderings, r)
		f.Deployments = append(f.Deployments, r.Deployment())
	}
	if g := get(root, "guide"); g != nil {
		if text, ok := str(g); ok {
			first, col := g.Line, g.Column-1
			if g.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				first, col = g.Line+1, guideIndent(path, g.Line+1)
			}
			blocks, err := ParseMarkdown(path, []byte(text), first, col)
			if err != nil {
				return nil, err
			}
			f.Blocks = blocks
			for _, b := range blocks {
				f.Deployments = append(f.Deployments, GuideDeployments(b)...)
			}
		}
	}
	return f, nil
}

// guideIndent returns the indentation of line (1-based) of path.
func guideIndent(path string, line int) int {
	data, err := launch.ReadInput(path)
	if err != nil {
		return 0
	}
	lines := strings.SplitN(string(data), "\n", line+1)
	if line-1 >= len(lines) {
		return 0
	}
	l := lines[line-1]
	return len(l) - len(strings.TrimLeft(l, " "))
}

// ---------------------------------------------------------------------------
// Rendering → Deployment.

// argsFromTokens groups argv tokens (after "vllm serve") into launch.Args
// with the site's unit rule (§9.6): a flag takes the next token when it does
// not start with "-". The model is a positional Arg (empty Flag).
func argsFromTokens(toks []Token) []launch.Arg {
	var out []launch.Arg
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if strings.HasPrefix(t.Text, "-") {
			a := launch.Arg{Flag: t.Text, Origin: t.Origin}
			if i+1 < len(toks) && !strings.HasPrefix(toks[i+1].Text, "-") {
				a.Values = []string{toks[i+1].Text}
				i++
			}
			out = append(out, a)
			continue
		}
		out = append(out, launch.Arg{Values: []string{t.Text}, Origin: t.Origin})
	}
	return out
}

func envVars(env []EnvEntry) []launch.EnvVar {
	out := make([]launch.EnvVar, 0, len(env))
	for _, e := range env {
		out = append(out, launch.EnvVar{Name: e.Name, Value: e.Value, Origin: e.Origin})
	}
	return out
}

// Deployment converts a rendering to the shared launch model: Engine
// "vllm", Model the tree's HF id, Hardware the taxonomy id, Source.Variant
// and Source.Strategy set. Processes: the agg worker (multi-node: the head,
// NodesPerWorker = node count; follower ranks only differ by rank flags and
// stay in Rendering.Roles), or prefill + decode + vllm-router, or for a
// Mooncake kv store the instance (Workers = instances) + router.
func (r *Rendering) Deployment() launch.Deployment {
	d := launch.Deployment{
		Source:   launch.Source{File: r.Recipe.File, Variant: r.Variant, Strategy: r.Strategy},
		Engine:   "vllm",
		Model:    r.Tree,
		Hardware: r.Hardware,
	}
	inj := launch.Origin{Kind: launch.OriginInjected, Detail: siteDetail}
	worker := func(rc *RoleCommand, role launch.Role) launch.Process {
		p := launch.Process{Kind: launch.KindWorker, Role: role, Program: "vllm serve", Env: envVars(rc.Env),
			GPUsPerNode: r.GPUsPerNode, Origin: launch.Origin{Kind: launch.OriginInjected, Path: r.Recipe.File, Detail: siteDetail}}
		if len(rc.Argv) > 2 {
			p.Args = argsFromTokens(rc.Argv[2:])
		}
		return p
	}
	switch r.DeployType {
	case "pd_cluster":
		for _, name := range []string{"prefill", "decode"} {
			rc := r.Role(name)
			if rc == nil {
				continue
			}
			p := worker(rc, launch.Role(name))
			p.NodesPerWorker = max(1, rc.Nodes)
			if rc.Nodes == 0 {
				p.GPUsPerNode = rc.PoolGPUs
			}
			d.Processes = append(d.Processes, p)
		}
	default:
		rc := r.Role("single")
		if rc == nil {
			rc = r.Role("head")
		}
		if rc != nil {
			p := worker(rc, launch.RoleAgg)
			if r.NodeCount > 1 && rc.Name == "head" {
				p.NodesPerWorker = r.NodeCount
			}
			if r.DeployType == "kv_store_lb" {
				p.Workers = r.Instances
			}
			d.Processes = append(d.Processes, p)
		}
	}
	for _, svc := range []struct {
		kind launch.Kind
		cmd  string
	}{{launch.KindMooncakeMaster, r.Master}, {launch.KindMooncakeStore, r.Store}} {
		if svc.cmd == "" {
			continue
		}
		p := launch.Process{Kind: svc.kind, Program: strings.TrimSpace(svc.cmd), Origin: inj}
		if words := serviceWords(svc.cmd); len(words) > 0 {
			prog, rest := words[0], words[1:]
			if isPython(prog) && len(words) >= 3 && words[1] == "-m" {
				prog, rest = strings.Join(words[:3], " "), words[3:]
			}
			p.Program = prog
			var toks []Token
			for _, w := range rest {
				toks = append(toks, Token{Text: w, Origin: inj})
			}
			p.Args = argsFromTokens(toks)
		}
		d.Processes = append(d.Processes, p)
	}
	if r.Router != "" {
		words := strings.Fields(strings.ReplaceAll(r.Router, "\\\n", " "))
		p := launch.Process{Kind: launch.KindVLLMRouter, Program: words[0], Origin: inj}
		var toks []Token
		for _, w := range words[1:] {
			toks = append(toks, Token{Text: w, Origin: inj})
		}
		p.Args = argsFromTokens(toks)
		d.Processes = append(d.Processes, p)
	}
	return d
}

// ---------------------------------------------------------------------------
// Markdown block → Deployments.

var (
	kvRoleRe = regexp.MustCompile(`"kv_role"\s*:\s*"(\w+)"`)
	nodeRe   = regexp.MustCompile(`(?i)\bnode\s*#?\s*(\d+)`)
)

// commandRole gives the serving role of a Markdown launch command: the
// --kv-transfer-config kv_role (kv_producer → prefill, kv_consumer →
// decode), else "prefill"/"decode" in the nearest heading, summary or
// comment, else agg.
func commandRole(sc *ShellCommand, b *Block) launch.Role {
	for i, a := range sc.Args {
		v := ""
		if a == "--kv-transfer-config" && i+1 < len(sc.Args) {
			v = sc.Args[i+1]
		} else if strings.HasPrefix(a, "--kv-transfer-config=") {
			v = strings.TrimPrefix(a, "--kv-transfer-config=")
		}
		if m := kvRoleRe.FindStringSubmatch(v); m != nil {
			switch m[1] {
			case "kv_producer":
				return launch.RolePrefill
			case "kv_consumer":
				return launch.RoleDecode
			}
		}
	}
	ctx := strings.ToLower(strings.Join(sc.Comments, " ") + " " + b.Summary + " " + lastOf(b.Headings))
	p, d := strings.Contains(ctx, "prefill"), strings.Contains(ctx, "decode")
	switch {
	case p && !d:
		return launch.RolePrefill
	case d && !p:
		return launch.RoleDecode
	}
	return launch.RoleAgg
}

func lastOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// isFollower reports a non-zero rank of a multi-node engine: --headless,
// a non-zero --data-parallel-start-rank or --node-rank, or a `# node N`
// comment with N > 0.
func isFollower(sc *ShellCommand) bool {
	for i, a := range sc.Args {
		if a == "--headless" {
			return true
		}
		for _, f := range []string{"--data-parallel-start-rank", "--node-rank"} {
			v := ""
			if a == f && i+1 < len(sc.Args) {
				v = sc.Args[i+1]
			} else if strings.HasPrefix(a, f+"=") {
				v = strings.TrimPrefix(a, f+"=")
			}
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				return true
			}
		}
	}
	for _, c := range sc.Comments {
		if m := nodeRe.FindStringSubmatch(c); m != nil && m[1] != "0" {
			return true
		}
	}
	return false
}

// configRef returns the --config value of a command, or "".
func configRef(args []string) string {
	for i, a := range args {
		if a == "--config" && i+1 < len(args) {
			return args[i+1]
		}
		if strings.HasPrefix(a, "--config=") {
			return strings.TrimPrefix(a, "--config=")
		}
	}
	return ""
}

// configFiles resolves a --config value to the vLLM config YAMLs beside the
// Markdown file (spec §5.10): the value itself, or every value a variable
// in it is assigned in the block (`YAML_CONFIG="Llama3.3_Blackwell.yaml"`
// in one branch, `…_Hopper.yaml` in the other). It returns the existing
// files and, for each, the index of the variable value it came from (-1
// when the value was literal).
func configFiles(b *Block, ref string) (files []string, idx []int) {
	if ref == "" {
		return nil, nil
	}
	cands, from := []string{b.Shell.Resolve(ref)}, []int{-1}
	if m := varRefRe.FindStringSubmatch(ref); m != nil && strings.Contains(cands[0], "$") {
		name := m[1] + m[2]
		cands, from = nil, nil
		for i, v := range b.Shell.Values[name] {
			cands = append(cands, strings.Replace(ref, m[0], v, 1))
			from = append(from, i)
		}
	}
	for i, c := range cands {
		if c == "" || strings.Contains(c, "$") {
			continue
		}
		p := c
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(b.File), c)
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			files = append(files, p)
			idx = append(idx, from[i])
		}
	}
	return files, idx
}

// resolveBranch substitutes the variables of s that have exactly n values
// in the block with their k-th value (variables assigned once per branch
// of the same if/else pair up by position).
func resolveBranch(r *ShellResult, s string, k, n int) string {
	s = r.Resolve(s)
	if k < 0 {
		return s
	}
	return varRefRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := varRefRe.FindStringSubmatch(m)
		if vs := r.Values[sub[1]+sub[2]]; len(vs) == n {
			return vs[k]
		}
		return m
	})
}

// BlockDeployments turns the launch commands of one Markdown block into
// Deployments: one per command, except that follower ranks of a multi-node
// engine join the deployment of the command before them. A `--config FILE`
// naming a vLLM config YAML beside the Markdown file (directly or through a
// variable of the block) adds that file's flags ahead of the command's own
// (command-line flags win); a variable with one value per if/else branch
// gives one deployment per config file, its Section suffixed
// "[--config FILE]".
func BlockDeployments(b *Block) []launch.Deployment {
	if b.Shell == nil {
		return nil
	}
	var out []launch.Deployment
	hw := ""
	if len(b.Hardware) > 0 {
		hw = b.Hardware[0]
	} else if len(b.ProseHardware) > 0 {
		hw = b.ProseHardware[0]
	}
	for i := range b.Shell.Commands {
		sc := &b.Shell.Commands[i]
		p := commandProcess(b, sc)
		if len(out) > 0 && isFollower(sc) {
			out[len(out)-1].Processes = append(out[len(out)-1].Processes, p)
			continue
		}
		d := launch.Deployment{
			Source:    launch.Source{File: b.File, Section: b.Section()},
			Engine:    "vllm",
			Model:     b.Shell.Resolve(sc.Model),
			Hardware:  hw,
			Processes: []launch.Process{p},
		}
		cfgs, idx := configFiles(b, configRef(sc.Args))
		if len(cfgs) == 0 {
			out = append(out, d)
			continue
		}
		nvals := 0
		if m := varRefRe.FindStringSubmatch(configRef(sc.Args)); m != nil {
			nvals = len(b.Shell.Values[m[1]+m[2]])
		}
		for ci, cf := range cfgs {
			data, err := launch.ReadInput(cf)
			if err != nil {
				continue
			}
			doc, err := parseYAML(cf, data)
			if err != nil || !isMap(deref(doc)) {
				continue
			}
			fs, err := scanConfig(cf, deref(doc))
			if err != nil || len(fs.Deployments) == 0 {
				continue
			}
			alt := d
			alt.Model = resolveBranch(b.Shell, sc.Model, idx[ci], nvals)
			pp := d.Processes[0]
			// Model positional first, then the config file's flags, then
			// the command's own flags (which win); --config itself is
			// replaced by the flags it names.
			var args []launch.Arg
			rest := pp.Args
			if len(rest) > 0 && rest[0].Flag == "" {
				mv := rest[0]
				mv.Values = []string{alt.Model}
				args = append(args, mv)
				rest = rest[1:]
			}
			args = append(args, fs.Deployments[0].Processes[0].Args...)
			for _, a := range rest {
				if a.Flag == "--config" || strings.HasPrefix(a.Flag, "--config=") {
					continue
				}
				args = append(args, a)
			}
			pp.Args = args
			alt.Processes = append([]launch.Process{pp}, d.Processes[1:]...)
			if len(cfgs) > 1 {
				alt.Source.Section += " [--config " + filepath.Base(cf) + "]"
			}
			out = append(out, alt)
		}
	}
	return out
}

// commandProcess builds the worker process of one Markdown launch command.
func commandProcess(b *Block, sc *ShellCommand) launch.Process {
	line := b.Line + sc.Line
	o := launch.Origin{Kind: launch.OriginRecipe, Path: fmt.Sprintf("%s:%d", b.File, line)}
	p := launch.Process{Kind: launch.KindWorker, Role: commandRole(sc, b), Program: sc.Program, Origin: o}
	if sc.Image != "" {
		p.Origin.Detail = "docker image " + sc.Image
	}
	if sc.Positional {
		p.Args = append(p.Args, launch.Arg{Values: []string{sc.Model}, Origin: o})
	}
	for j := 0; j < len(sc.Args); j++ {
		a := sc.Args[j]
		if strings.HasPrefix(a, "-") {
			arg := launch.Arg{Flag: a, Origin: o}
			if j+1 < len(sc.Args) && !strings.HasPrefix(sc.Args[j+1], "-") {
				arg.Values = []string{sc.Args[j+1]}
				j++
			}
			p.Args = append(p.Args, arg)
			continue
		}
		p.Args = append(p.Args, launch.Arg{Values: []string{a}, Origin: o})
	}
	for _, e := range sc.Env {
		eo := o
		if e.Line > 0 {
			eo.Path = fmt.Sprintf("%s:%d", b.File, b.Line+e.Line)
		}
		p.Env = append(p.Env, launch.EnvVar{Name: e.Name, Value: e.Value, Origin: eo})
	}
	return p
}

// ---------------------------------------------------------------------------
// Directory scan.

// skipMarkdown lists repository documents that are not recipes.
var skipMarkdown = map[string]bool{"README.md": true, "CONTRIBUTING.md": true, "CLAUDE.md": true, "AGENTS.md": true}

// ScanDir decodes every recipe under dir: legacy Markdown guides, model
// YAML recipes (models/**) and vLLM --config YAMLs. It skips the site's
// own files (taxonomy.yaml, platforms.yaml, strategies/, kv_store/,
// _generated/, src/, scripts/, hidden directories, mkdocs files) and the
// repository documents (README, CONTRIBUTING, CLAUDE, AGENTS). Files come
// back in path order; a file that fails is returned with its error in errs.
func ScanDir(dir string) (scans []*FileScan, errs []error) {
	_, scans, errs = scanDir(dir)
	return scans, errs
}

// scanDir is ScanDir that also returns the loaded site (nil without a
// taxonomy.yaml at dir).
func scanDir(dir string) (site *Site, scans []*FileScan, errs []error) {
	rends := map[string][]*Rendering{}
	if _, err := os.Stat(filepath.Join(dir, "taxonomy.yaml")); err == nil {
		s, err := LoadSite(dir)
		if err != nil {
			return nil, nil, []error{err}
		}
		site = s
		for _, r := range s.Renderings() {
			rends[r.Recipe.File] = append(rends[r.Recipe.File], r)
		}
	}
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules" || name == "src" || name == "scripts" || name == "strategies" || name == "kv_store" || name == "overrides" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		switch strings.ToLower(filepath.Ext(name)) {
		case ".md":
			if !skipMarkdown[name] {
				paths = append(paths, p)
			}
		case ".yaml", ".yml":
			switch name {
			case "taxonomy.yaml", "platforms.yaml", "mkdocs.yml", ".readthedocs.yaml", "pnpm-lock.yaml":
				return nil
			}
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		var fs *FileScan
		var err error
		if strings.HasSuffix(strings.ToLower(p), ".md") {
			fs, err = ScanFile(p)
		} else {
			var data []byte
			data, err = launch.ReadInput(p)
			if err == nil {
				fs, err = scanYAML(p, data, site, rends)
			}
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		scans = append(scans, fs)
	}
	return site, scans, errs
}

// serviceWords returns the words of the first command of a service command
// text (comments and continuations removed).
func serviceWords(cmd string) (words []string) {
	defer func() {
		if recover() != nil {
			words = nil
		}
	}()
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) == 0 {
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	out := make([]string, len(call.Args))
	for i, w := range call.Args {
		out[i] = wordText(w, cmd)
	}
	return out
}
