package recipes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/prose"
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
	// Prose holds the statements of a recipe's prose (its guide: and
	// variants.<v>.description, guide_prose.go) that are not a launch
	// block's delta; File is the path as given.
	Prose []prose.Statement
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
func ScanFile(path string) (_ *FileScan, err error) {
	defer launch.RecoverInput(path, &err)
	data, err := launch.ReadInput(path)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return scanMarkdown(path, data)
	case ".yaml", ".yml":
		return scanYAML(path, data, nil, nil, true)
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
// site's renderings by recipe file (relative path). deps false leaves a
// model recipe's FileScan.Deployments empty (see scanDir).
func scanYAML(path string, data []byte, site *Site, rends map[string][]*Rendering, deps bool) (*FileScan, error) {
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
		return scanRecipe(path, root, site, rends, deps)
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

func scanRecipe(path string, root *yaml.Node, site *Site, rends map[string][]*Rendering, deps bool) (*FileScan, error) {
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
	f.Renderings = append(f.Renderings, list...)
	if deps {
		for _, r := range list {
			f.Deployments = append(f.Deployments, r.Deployment())
		}
	}
	f.Prose = readRecipeProse(path, root)
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
			if deps {
				for _, b := range blocks {
					f.Deployments = append(f.Deployments, GuideDeployments(b)...)
				}
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
	_, scans, errs = scanDir(dir, true)
	return scans, errs
}

// scanDir is ScanDir that also returns the loaded site (nil without a
// taxonomy.yaml at dir). deps false leaves the model recipes'
// FileScan.Deployments empty: Open indexes their Renderings and Blocks
// (Rendering.Deployment and GuideDeployments are pure functions of them,
// re-made where a candidate needs one), so building every rendering's
// deployment up front was work thrown away.
func scanDir(dir string, deps bool) (site *Site, scans []*FileScan, errs []error) {
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
	// each file on every CPU (a file's scan reads only it, the site and
	// rends), taken in path order
	type scanned struct {
		fs  *FileScan
		err error
	}
	out := make([]scanned, len(paths))
	eachIndex(len(paths), workersFor(len(paths)), func(_, i int) {
		p := paths[i]
		var fs *FileScan
		var err error
		if strings.HasSuffix(strings.ToLower(p), ".md") {
			fs, err = ScanFile(p)
		} else {
			var data []byte
			data, err = launch.ReadInput(p)
			if err == nil {
				fs, err = scanYAML(p, data, site, rends, deps)
			}
		}
		out[i] = scanned{fs, err}
	})
	for _, o := range out {
		if o.err != nil {
			errs = append(errs, o.err)
			continue
		}
		scans = append(scans, o.fs)
	}
	return site, scans, errs
}
