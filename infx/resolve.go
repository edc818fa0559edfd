package infx

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// RefForm is how a recipe path was written; it decides where ResolveRecipe
// looks for it.
type RefForm int

// Reference forms.
const (
	// FormConfigFile is a master config's CONFIG_FILE value as the launcher
	// reads it (runners/launch_*.sh): an srt-slurm "recipes/<file>" path is
	// the launcher's overlay benchmarks/multi_node/srt-slurm-recipes/<file>
	// of the checkout, else <SrtSlurmDir>/recipes/<file> of the srt-slurm
	// clone; any other path ("benchmarks/…") is dir/<path>.
	FormConfigFile RefForm = iota
	// FormSrtRecipe is a new-layout srt-recipe (infx/matrix/validation.py;
	// CONFIGS.md), relative to the recipe trees
	// benchmarks/{single,multi}_node/srt-slurm-recipes (the entry's own node
	// kind first, ResolveOptions.Multinode): in each tree
	// <SrtRecipeDir>/<path> (when set), <file> for a "recipes/<file>" path,
	// and <path>; last dir/<path>.
	FormSrtRecipe
	// FormCitation is a path a cookbook point cites (prov.recipe,
	// recipeUrl), for both layouts: as cited ("inferencex-e2e/benchmarks/…"
	// or "benchmarks/…"), then without its "inferencex-e2e/" prefix (dir is
	// itself the inferencex-e2e tree) or else under "inferencex-e2e/" (a
	// new-layout path cited relative to inferencex-e2e); for a
	// "recipes/<file>" path then the overlay
	// benchmarks/multi_node/srt-slurm-recipes/<file> and its
	// inferencex-e2e/ twin. Only regular files count. SrtSlurmDir is not
	// used.
	FormCitation
	// FormUser is a path named on the command line (cookbook-sync render
	// --recipe): dir/<path>, then, taking the path as an srt-slurm recipes/
	// path whether or not it starts with "recipes/", the multi-node and the
	// single-node overlays and <SrtSlurmDir>/recipes/. (RenderRecipe tries
	// the path as given, relative to the working directory, first.)
	FormUser
)

// ResolveOptions says how ResolveRecipe reads a path.
type ResolveOptions struct {
	// Form is how the path was written (default FormConfigFile).
	Form RefForm
	// SrtSlurmDir is a checkout of NVIDIA/srt-slurm ("" = none): its
	// recipes/ directory is the last place an srt-slurm path is looked up
	// (FormConfigFile, FormUser).
	SrtSlurmDir string
	// SrtRecipeDir is the entry's srt-recipe-dir (FormSrtRecipe).
	SrtRecipeDir string
	// Multinode: the entry is multi-node, so its recipe tree is
	// benchmarks/multi_node (FormSrtRecipe).
	Multinode bool
}

// Resolved is where a recipe path was found (or not).
type Resolved struct {
	// Path is the path as looked up: slash-separated, cleaned ("a/../b" →
	// "b"); for FormCitation also kept inside dir ("../../x" → "x").
	Path string
	// File is the filesystem path found (Root joined with Rel), "" when
	// the path is in none of the places tried.
	File string
	// Root is the directory File is under: dir, or SrtSlurmDir; "" when
	// not found.
	Root string
	// Rel is File relative to Root, slash-separated
	// ("benchmarks/multi_node/srt-slurm-recipes/<file>", or
	// "recipes/<file>" under SrtSlurmDir); "" when not found.
	Rel string
	// SrtSlurm is <file> when Path is an srt-slurm "recipes/<file>" path
	// (the CONFIG_FILE form: a path of the NVIDIA/srt-slurm clone the
	// launcher overlays with benchmarks/multi_node/srt-slurm-recipes/),
	// else "" (FormUser: Path without its "recipes/" prefix, if any, is
	// looked up as one, but SrtSlurm stays "" without the prefix).
	SrtSlurm string
	// NewLayout: Path has the newer inferencex-e2e layout (NewLayoutPath).
	NewLayout bool
	// Tried lists the filesystem paths looked at, in order.
	Tried []string
}

// Found reports whether the path was found (File is set).
func (r Resolved) Found() bool { return r.File != "" }

// Upstream reports whether the path is an srt-slurm recipes/… path that is
// not in the checkout (nor in SrtSlurmDir): it lives in the NVIDIA/srt-slurm
// ref the launcher clones.
func (r Resolved) Upstream() bool { return r.File == "" && r.SrtSlurm != "" }

// Recipe trees of the checkout: the launcher's overlay of srt-slurm's
// recipes/ (multi-node), its single-node twin, and the new layout's prefix.
const (
	multiNodeTree  = "benchmarks/multi_node/srt-slurm-recipes"
	singleNodeTree = "benchmarks/single_node/srt-slurm-recipes"
	e2ePrefix      = "inferencex-e2e/"
)

// ResolveRecipe finds the recipe file a path names in the InferenceX
// checkout dir (the repository root or its inferencex-e2e tree; Workspace
// Base) and, for srt-slurm paths, in opt.SrtSlurmDir, trying the places
// opt.Form lists (see RefForm) in order; the first that exists is taken.
// Except for FormCitation (regular files only), a directory or other
// non-regular file is taken too, so that reading it (launch.ReadInput)
// reports an error instead of the reference passing for one not in the
// checkout. Not being found is not an error: Resolved.Found is false, and
// Resolved.Upstream says whether the path lives in the srt-slurm clone.
func ResolveRecipe(dir, recipe string, opt ResolveOptions) Resolved {
	var r Resolved
	if opt.Form == FormCitation {
		r.Path = strings.TrimPrefix(path.Clean("/"+recipe), "/")
	} else {
		r.Path = path.Clean(recipe)
	}
	if f, ok := strings.CutPrefix(r.Path, "recipes/"); ok {
		r.SrtSlurm = f
	}
	r.NewLayout = NewLayoutPath(r.Path)
	type cand struct{ root, rel string }
	var cands []cand
	in := func(rels ...string) {
		for _, rel := range rels {
			cands = append(cands, cand{dir, rel})
		}
	}
	clone := func(file string) {
		if opt.SrtSlurmDir != "" {
			cands = append(cands, cand{opt.SrtSlurmDir, "recipes/" + file})
		}
	}
	p := r.Path
	switch opt.Form {
	case FormCitation:
		in(p)
		if rest, ok := strings.CutPrefix(p, e2ePrefix); ok {
			in(rest)
		} else {
			in(e2ePrefix + p)
		}
		if r.SrtSlurm != "" {
			in(multiNodeTree+"/"+r.SrtSlurm, e2ePrefix+multiNodeTree+"/"+r.SrtSlurm)
		}
	case FormUser:
		rest := strings.TrimPrefix(p, "recipes/")
		in(p, multiNodeTree+"/"+rest, singleNodeTree+"/"+rest)
		clone(rest)
	case FormSrtRecipe:
		trees := []string{singleNodeTree, multiNodeTree}
		if opt.Multinode {
			trees[0], trees[1] = trees[1], trees[0]
		}
		for _, t := range trees {
			if opt.SrtRecipeDir != "" {
				in(t + "/" + opt.SrtRecipeDir + "/" + p)
			}
			if r.SrtSlurm != "" {
				in(t + "/" + r.SrtSlurm)
			}
			in(t + "/" + p)
		}
		in(p)
	default: // FormConfigFile
		if r.SrtSlurm == "" {
			in(p)
			break
		}
		in(multiNodeTree + "/" + r.SrtSlurm)
		clone(r.SrtSlurm)
	}
	for _, c := range cands {
		f := filepath.Join(c.root, filepath.FromSlash(c.rel))
		r.Tried = append(r.Tried, f)
		st, err := os.Stat(f)
		if err != nil || opt.Form == FormCitation && !st.Mode().IsRegular() {
			continue
		}
		r.File, r.Root, r.Rel = f, c.root, c.rel
		break
	}
	return r
}

// SrtSlurmPath returns <file> for an srt-slurm "recipes/<file>" path (the
// CONFIG_FILE form: a path in the NVIDIA/srt-slurm clone, which the
// launcher overlays with benchmarks/multi_node/srt-slurm-recipes/; spec
// inferencex.md), cleaned and kept relative ("recipes/a/../b.yaml" → "b.yaml"),
// and whether recipe is one.
func SrtSlurmPath(recipe string) (string, bool) {
	recipe = strings.TrimPrefix(path.Clean("/"+recipe), "/")
	return strings.CutPrefix(recipe, "recipes/")
}

// oldLayoutEngine reports whether s is an engine directory of the old
// layout's benchmarks/multi_node/srt-slurm-recipes/<engine>/<model>/… tree.
func oldLayoutEngine(s string) bool {
	switch s {
	case "sglang", "vllm", "trtllm", "atom", "tilert":
		return true
	}
	return false
}

// NewLayoutPath reports whether a recipe path has the newer inferencex-e2e
// layout: an inferencex-e2e/ prefix, or srt-slurm-recipes/<model>/<engine>/…
// where the old layout has srt-slurm-recipes/<engine>/<model>/…
// (shared/spec/inferencex.md (b)).
func NewLayoutPath(recipe string) bool {
	if strings.HasPrefix(recipe, e2ePrefix) {
		return true
	}
	_, rest, ok := strings.Cut(recipe, "srt-slurm-recipes/")
	if !ok {
		return false
	}
	parts := strings.Split(rest, "/")
	return len(parts) > 2 && !oldLayoutEngine(parts[0]) && oldLayoutEngine(parts[1])
}
