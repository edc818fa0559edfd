package recipes

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"go.yaml.in/yaml/v3"
)

// HardwareProfile is one entry of taxonomy.yaml hardware_profiles
// (vllm-project/recipes taxonomy.yaml). GB200 and GB300 are 4-GPU NVL4 trays.
type HardwareProfile struct {
	ID          string   // taxonomy id, e.g. "h200", "gb200", "mi355x"
	Brand       string   // NVIDIA, AMD, Google, Intel, Huawei
	Generations []string // generation, or the items of a generation list
	GPUCount    int      // GPUs per node (absent → 1)
	VRAMGB      float64  // whole-node VRAM in GB (0 = absent)
	Scalable    bool     // false → cannot be clustered
	Restricted  bool     // only offered when a recipe declares it
	DisplayName string   // display_name
}

// Gen is the hardware generation (the first item of a list).
func (h *HardwareProfile) Gen() string {
	if len(h.Generations) == 0 {
		return ""
	}
	return h.Generations[0]
}

// yamlDoc is one loaded YAML file.
type yamlDoc struct {
	rel   string // path relative to the recipes root, slash-separated
	root  *yaml.Node
	paths map[*yaml.Node]string // YAML path of every node (keys map to their value's path)
}

// indexPaths records the YAML path of every node under n ("a.b[2].c").
func indexPaths(n *yaml.Node, path string, out map[*yaml.Node]string, depth int) {
	if n == nil || depth > 200 {
		return
	}
	out[n] = path
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			out[k] = p
			indexPaths(v, p, out, depth+1)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			indexPaths(c, fmt.Sprintf("%s[%d]", path, i), out, depth+1)
		}
	}
}

// strategyDoc is one strategies/*.yaml or kv_store/*.yaml document.
type strategyDoc struct {
	name       string
	deployType string
	yamlDoc
}

// Recipe is one model YAML recipe, models/<hf_org>/<hf_repo>.yaml.
type Recipe struct {
	HFID string // <hf_org>/<hf_repo>, from the file path
	File string // path relative to the recipes root
	yamlDoc
}

// Site is a loaded vllm-project/recipes tree: taxonomy.yaml, the serving
// strategies (strategies/*.yaml then kv_store/*.yaml, each in byte order) and
// the model recipes. It holds no mutable state after Load.
type Site struct {
	Root       string
	Hardware   []*HardwareProfile // taxonomy order
	hwByID     map[string]*HardwareProfile
	strategies []*strategyDoc // table order
	stratByID  map[string]*strategyDoc
	Recipes    []*Recipe // models/**.yaml in path order
	// Invalid holds, in path order, the error of every models/**.yaml
	// that failed the shape check (checkRecipe: file:line:col + YAML
	// path); those recipes are not in Recipes and render nothing. (A file
	// that cannot be read or parsed fails LoadSite.)
	Invalid   []error
	recipeIDs map[string]bool
	docs      map[string]*yamlDoc // every loaded file by relative path
	kvOffload *yaml.Node          // taxonomy.yaml kv_offload (the site's KV Offload options); nil when absent
	// finish pools build.finish's scratch lists (*finishScratch) among
	// the goroutines rendering the site (LoadSite's; nil: none kept).
	finish *sync.Pool
}

// LoadSite reads the recipes tree at root. When only is non-empty, only those
// recipe files (relative paths) are parsed; the other recipe names are still
// listed (variant promotion needs them). Errors carry file:line:col.
func LoadSite(root string, only ...string) (*Site, error) {
	s := &Site{Root: root, hwByID: map[string]*HardwareProfile{}, stratByID: map[string]*strategyDoc{}, recipeIDs: map[string]bool{}, docs: map[string]*yamlDoc{}, finish: &sync.Pool{}}
	tax, err := loadDoc(root, taxonomyFile)
	if err != nil {
		return nil, err
	}
	s.kvOffload = get(tax.root, "kv_offload")
	for _, p := range pairs(get(tax.root, "hardware_profiles")) {
		h := &HardwareProfile{ID: p.key, GPUCount: 1, Scalable: true}
		h.Brand = strOr(get(p.val, "brand"), "")
		h.DisplayName = strOr(get(p.val, "display_name"), p.key)
		g := get(p.val, "generation")
		if isSeq(g) {
			for _, c := range seq(g) {
				h.Generations = append(h.Generations, strOr(c, ""))
			}
		} else if v, ok := str(g); ok {
			h.Generations = []string{v}
		}
		if v, ok := num(get(p.val, "gpu_count")); ok && v != 0 {
			h.GPUCount = int(v)
		}
		if v, ok := num(get(p.val, "vram_gb")); ok {
			h.VRAMGB = v
		}
		h.Scalable = !isFalse(get(p.val, "scalable"))
		h.Restricted = truthy(get(p.val, "restricted"))
		s.Hardware = append(s.Hardware, h)
		s.hwByID[h.ID] = h
	}
	for _, dir := range []string{"strategies", "kv_store"} {
		names, _ := filepath.Glob(filepath.Join(root, dir, "*.yaml"))
		sort.Strings(names)
		for _, n := range names {
			d, err := loadDoc(root, dir+"/"+filepath.Base(n))
			if err != nil {
				return nil, err
			}
			s.docs[d.rel] = d
			sd := &strategyDoc{yamlDoc: *d}
			sd.name = strOr(get(d.root, "name"), strings.TrimSuffix(filepath.Base(n), ".yaml"))
			sd.deployType = strOr(get(d.root, "deploy_type"), "")
			if _, dup := s.stratByID[sd.name]; !dup {
				s.strategies = append(s.strategies, sd)
			}
			s.stratByID[sd.name] = sd
		}
	}
	want := map[string]bool{}
	for _, o := range only {
		want[filepath.ToSlash(o)] = true
	}
	mdir := filepath.Join(root, "models")
	var rels []string
	err = filepath.WalkDir(mdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rels = append(rels, filepath.ToSlash(rel))
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	sort.Strings(rels)
	for _, rel := range rels {
		id := strings.TrimSuffix(strings.TrimPrefix(rel, "models/"), ".yaml")
		s.recipeIDs[id] = true
		if len(want) > 0 && !want[rel] {
			continue
		}
		d, err := loadDoc(root, rel)
		if err != nil {
			return nil, err
		}
		if d.root != nil {
			if err := checkRecipe(rel, d.root); err != nil {
				// A recipe of the wrong shape does not hide the others:
				// it is left out of the renderings and listed in Invalid
				// (scanning the file itself reports the same error).
				s.Invalid = append(s.Invalid, err)
				continue
			}
		}
		s.docs[d.rel] = d
		s.Recipes = append(s.Recipes, &Recipe{HFID: id, File: rel, yamlDoc: *d})
	}
	return s, nil
}

func loadDoc(root, rel string) (*yamlDoc, error) {
	data, err := launch.ReadInput(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	n, err := parseYAML(rel, data)
	if err != nil {
		return nil, err
	}
	r := deref(n)
	if r != nil && r.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d:%d: top level is not a mapping", rel, r.Line, r.Column)
	}
	d := &yamlDoc{rel: rel, root: r, paths: map[*yaml.Node]string{}}
	indexPaths(r, "", d.paths, 0)
	return d, nil
}

// HardwareByID returns the taxonomy profile id, or nil.
func (s *Site) HardwareByID(id string) *HardwareProfile { return s.hwByID[id] }
