package compare

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// SchemaVersion is the version of the coverage Report's JSON schema
// (compare/SCHEMA.md). It changes only when a field is renamed or removed.
const SchemaVersion = 1

// SchemaRevision counts the compatible additions to schema SchemaVersion:
// 2 added "schemaRevision", "upstream", "linkGap", "counts.links" and the
// vLLM-family key fields ("vllmRecipesDir", "vllm", "counts.vllm"); 3 the
// script point statuses ("script not found", "no matching point",
// "ambiguous point") and the script points' "row" / "rowPos"; 4 one status
// vocabulary for both coverage modes (StatusUpstreamOnly, vLLM rows
// "recipe not found" / "script not found"), fail-closed "not verified"
// points and rows ("allowUnverified", "unverifiedGap", "counts.unverified"),
// result "sides", and the key verdict precedence of vLLM-family keys; 5
// "warnings", "differences[].note" (possible commit drift) and the
// single-node statuses unsupported / ambiguous point; 6 services compared
// like workers (program, args, env, count, and the settings of the config
// files they read: "nginx.*", "nats.*"), roles of any service kind, and
// "note" on compared roles (a file compared by name, a launcher-started
// service nothing uses).
const SchemaRevision = 7

// PointStatus says what coverage could do with one cited point.
type PointStatus string

// Point statuses: one vocabulary for the cookbook points (Report.Points)
// and the vLLM-family rows (VLLMRow.Status), following infx's Point
// statuses (infx/points.go: ok, upstream-only, missing, unsupported) with
// "missing" split by what is absent (recipe / script). Every status other
// than StatusCompared and StatusError means the point was not verified
// (NotVerified): a gap unless CoverageOptions.AllowUnverified.
const (
	// StatusCompared: the recipe was rendered and compared role by role.
	StatusCompared PointStatus = "compared"
	// StatusRecipeNotFound: the cited recipe is a repository path that is
	// not in --infx (infx.StatusMissing of a recipe). Not verified.
	StatusRecipeNotFound PointStatus = "recipe not found"
	// StatusUpstreamOnly: the recipe lives in the NVIDIA/srt-slurm ref the
	// launcher clones, not in --infx (infx.StatusUpstreamOnly: a
	// CONFIG_FILE=recipes/<file> reference whose overlay
	// benchmarks/multi_node/srt-slurm-recipes/<file> is absent). For a
	// cookbook point: the cited path is such a recipes/… path, or it is
	// absent and the master-config point the cookbook point was measured as
	// (MatchPoint) is upstream-only. Not verified.
	StatusUpstreamOnly PointStatus = "upstream-only"
	// StatusUnsupported: a launcher format infx does not render (llm-d, AMD
	// models.yaml; infx.StatusUnsupported). Not verified.
	StatusUnsupported PointStatus = "unsupported"
	// StatusScriptNotFound: the cited single-node shell script is not in
	// --infx (infx.StatusMissing of a script). Not verified.
	StatusScriptNotFound PointStatus = "script not found"
	// StatusNoMatch: the cited script is in --infx but no master-config point
	// of the cell's config key fits the cookbook point (unknown config key,
	// no master config, no search-space row with the point's concurrency
	// and KV tier); Message says which. Not verified.
	StatusNoMatch PointStatus = "no matching point"
	// StatusAmbiguous: several search-space rows fit the cookbook point and
	// its selectors (TP, EP, DP-attention, spec decoding, item) do not tell
	// them apart; Message lists them. Not verified.
	StatusAmbiguous PointStatus = "ambiguous point"
	// StatusError: the recipe is present but could not be loaded or
	// rendered (bad input: YAML error, unknown selector); Message says why.
	StatusError PointStatus = "error"
)

// NotVerified reports whether a point status, vLLM row status or vLLM
// outcome means the settings could not be compared (upstream-only, recipe
// not found, script not found, no matching point, ambiguous point,
// unsupported, matched (not compared)): a Check 3 sign-off cannot rest on
// it, so it is a gap unless CoverageOptions.AllowUnverified.
func NotVerified(status string) bool {
	switch PointStatus(status) {
	case StatusRecipeNotFound, StatusUpstreamOnly, StatusUnsupported, StatusScriptNotFound, StatusNoMatch, StatusAmbiguous:
		return true
	}
	return status == Matched
}

// CoverageOptions says what to compare.
type CoverageOptions struct {
	// InfxDir is an InferenceX checkout (either layout); CookbookDir an
	// sgl-project/sglang repository root.
	InfxDir, CookbookDir string
	// VLLMRecipesDir, when set, is a vllm-project/recipes checkout: every
	// vLLM-family config key (vllm, dynamo-vllm, llmd-vllm) of InfxDir's
	// master configs is matched with the recipes and compared role by role
	// (Report.VLLM). CookbookDir may then be empty (vLLM part only).
	VLLMRecipesDir string
	// ConfigKey, when set, keeps only cells (and vLLM-family keys) whose
	// config key matches this glob (path.Match syntax). A glob that keeps
	// nothing is an ErrUsage error.
	ConfigKey string
	// AllowUnverified lists points and rows that could not be verified
	// (NotVerified) without making them a gap (Report.Gap); by default they
	// fail closed.
	AllowUnverified bool
	// Exclusions classifies differences; nil = exclusions.Default().
	Exclusions *exclusions.Set
	// Render renders one recipe variant; nil = RenderSrtSlurm (package
	// infx/srtslurm, srt-slurm's default version). Used for cited recipes
	// whose master-config point has no launcher in the checkout; the others
	// are rendered as their launcher submits them (launcherRender).
	Render RenderFunc
	// SrtSlurmDir is an NVIDIA/srt-slurm checkout: a recipe the launcher
	// submits from its srt-slurm clone (not copied from the InferenceX
	// checkout) is read from it instead of being upstream-only.
	// SrtSlurmVersion names the ref SrtSlurmDir is at ("" = not stated;
	// recipes read from it for a launcher pinned elsewhere carry a
	// commit-drift note) and the version rendered when a launcher's pin is
	// not known.
	SrtSlurmDir, SrtSlurmVersion string
}

// RenderFunc renders the variant selector ("" = the recipe as written,
// "base", "override_<name>", "zip_override_<name>[i]") of the recipe file at
// path into a Deployment; model is the master entry's Hugging Face model id
// ("" when unknown). Errors are bad input (exit 2 for the CLI).
type RenderFunc func(path, selector, model string) (*launch.Deployment, error)

// ErrUsage marks errors in the options (bad --config-key glob, missing
// directory): the caller's fault, not the data's.
var ErrUsage = errors.New("usage")

// Coverage runs Check 3 coverage: for every point of every AgentX snippet
// under CookbookDir/docs/src/snippets/agentx/**/*.jsx whose provenance cites
// an InferenceX recipe (cell.prov.recipe / point.recipe, or the older
// recipeUrl, plus point.override as the selector), it decodes the measured
// selection (router = cell.submitted, KV = point.kv), renders the cited
// recipe variant from InfxDir and compares them role by role.
//
// A point citing a single-node shell script (…/single_node/…/*.sh) is
// matched with its config key's master-config point (MatchPoint: the
// point's concurrencies, KV tier, worker topology and item), the script is
// run for it in infx's sandbox (infx.Workspace.Render) and compared the
// same way.
//
// Points whose recipe is absent get StatusRecipeNotFound, or
// StatusUpstreamOnly when it lives in NVIDIA/srt-slurm (a cited recipes/…
// path, or a master-config point infx reports upstream-only); an absent
// script StatusScriptNotFound; script points that fit no master-config point
// or several StatusNoMatch / StatusAmbiguous; recipes and scripts that fail
// to load or render StatusError. None of these stop the run; all but
// StatusError are "not verified" (NotVerified) and make Report.Gap true
// unless AllowUnverified.
//
// With VLLMRecipesDir it also goes the other way, from InferenceX config
// keys (Report.VLLM): every vllm, dynamo-vllm and llmd-vllm key of InfxDir's
// master configs is rendered point by point (infx.Workspace.Render; points
// that cannot be rendered keep their status: upstream-only, recipe not
// found, script not found, unsupported), each worker role is matched with the
// vLLM recipe roles (recipes.Index.Match / MatchDeployment) and compared
// with the best exact match (Compare, vLLM normalisation), or reported as
// NotCovered with the nearest candidate. CookbookDir may then be empty.
//
// Errors: bad options (wrapping ErrUsage: neither --cookbook nor
// --vllm-recipes, a missing directory, no master config for the vLLM part,
// nothing to compare: no cookbook point citing a recipe in a cell matching
// ConfigKey, no vLLM-family key matching it), no snippet found, a snippet that does not parse (*cookbook.Error with
// file:line:col), a vLLM recipes tree that cannot be indexed at all
// (file:line:col).
func Coverage(opt CoverageOptions) (*Report, error) {
	if opt.ConfigKey != "" {
		if _, err := path.Match(opt.ConfigKey, ""); err != nil {
			return nil, fmt.Errorf("%w: --config-key %q: %v", ErrUsage, opt.ConfigKey, err)
		}
	}
	if opt.CookbookDir == "" && opt.VLLMRecipesDir == "" {
		return nil, fmt.Errorf("%w: give --cookbook, --vllm-recipes or both", ErrUsage)
	}
	for _, d := range []struct{ flag, dir string }{{"--infx", opt.InfxDir}, {"--cookbook", opt.CookbookDir}, {"--vllm-recipes", opt.VLLMRecipesDir}} {
		if d.dir == "" && d.flag != "--infx" {
			continue
		}
		st, err := os.Stat(d.dir)
		if err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%w: %s %q is not a directory", ErrUsage, d.flag, d.dir)
		}
	}
	ex := opt.Exclusions
	if ex == nil {
		var err error
		if ex, err = exclusions.Default(); err != nil {
			return nil, err
		}
	}
	rules, err := DefaultRules()
	if err != nil {
		return nil, err
	}
	rep := &Report{
		SchemaVersion:   SchemaVersion,
		SchemaRevision:  SchemaRevision,
		Policy:          PolicyInfo{Version: ex.PolicyVersion(), Policies: ex.Policies()},
		InferenceX:      RepoInfo{Dir: opt.InfxDir},
		CookbookDir:     opt.CookbookDir,
		AllowUnverified: opt.AllowUnverified,
	}
	ixRepo := openRepo(opt.InfxDir)
	if ixRepo != nil {
		rep.InferenceX.Commit = ixRepo.head
	}
	// The master configs give each config key's model (optional for the
	// cookbook part: a tree without master configs still renders, with the
	// recipe's own model; required for the vLLM part).
	ws, wsErr := infx.Open(opt.InfxDir)
	if err := infxOpenError(opt.InfxDir, wsErr); err != nil {
		return nil, err
	}
	if ws != nil {
		ws.SrtSlurmDir, ws.SrtSlurmVersion = opt.SrtSlurmDir, opt.SrtSlurmVersion
		for _, w := range ws.Warnings() {
			if ok, _ := path.Match(opt.ConfigKey, w.Key); opt.ConfigKey == "" || !ok {
				rep.Warnings = append(rep.Warnings, w.String())
				continue
			}
			// A key asked for (--config-key) that does not load is bad
			// input, never a silently smaller comparison.
			_, err := ws.Entry(w.Key)
			return nil, err
		}
	}
	if opt.CookbookDir != "" {
		if err := cookbookCoverage(rep, opt, ws, ixRepo, ex, rules); err != nil {
			return nil, err
		}
	}
	if opt.VLLMRecipesDir != "" {
		if wsErr != nil {
			return nil, fmt.Errorf("%w: --infx %s: %v", ErrUsage, opt.InfxDir, wsErr)
		}
		ix, err := openVLLM(opt.VLLMRecipesDir)
		if ix == nil {
			return nil, err
		}
		if err != nil {
			rep.VLLMRecipeErrors = strings.Split(err.Error(), "\n")
		}
		rep.VLLMRecipes = &RepoInfo{Dir: opt.VLLMRecipesDir}
		if r := openRepo(opt.VLLMRecipesDir); r != nil {
			rep.VLLMRecipes.Commit = r.head
		}
		rep.VLLM = vllmCoverage(ws, ix, opt.InfxDir, opt.VLLMRecipesDir, opt.ConfigKey, ex, rules)
		if len(rep.VLLM) == 0 {
			if opt.ConfigKey != "" {
				return nil, fmt.Errorf("%w: no vLLM-family config key (vllm, dynamo-vllm, llmd-vllm) of --infx %s matches %q: nothing was compared", ErrUsage, opt.InfxDir, opt.ConfigKey)
			}
			return nil, fmt.Errorf("%w: --infx %s has no vLLM-family config key (vllm, dynamo-vllm, llmd-vllm) in its master configs: nothing was compared", ErrUsage, opt.InfxDir)
		}
	}
	rep.count()
	return rep, nil
}

// infxOpenError is the error of an --infx that infx.Open could not use:
// a master config that cannot be read or parsed (a *launch.InputError with
// file:line:col), or a directory that holds no master config and nothing
// else of an InferenceX checkout (configs/, benchmarks/, runners/,
// inferencex-e2e/, .github/; an empty directory). A checkout without master
// configs that has recipes or scripts is still read (the cookbook part
// renders the cited files with their own model). nil when err is nil.
func infxOpenError(dir string, err error) error {
	if err == nil {
		return nil
	}
	if !errors.Is(err, infx.ErrNoMasterConfig) {
		return err
	}
	for _, sub := range []string{"configs", "benchmarks", "runners", "inferencex-e2e", ".github"} {
		if st, e := os.Stat(filepath.Join(dir, sub)); e == nil && st.IsDir() {
			return nil
		}
	}
	return fmt.Errorf("%w: --infx %s is not an InferenceX checkout (no configs/, benchmarks/, runners/, inferencex-e2e/ or .github/): %v", ErrUsage, launch.QuotePath(dir), err)
}

// cookbookCoverage is the cookbook part of Coverage (ws may be nil).
func cookbookCoverage(rep *Report, opt CoverageOptions, ws *infx.Workspace, ixRepo *gitRepo, ex *exclusions.Set, rules *Rules) error {
	render := opt.Render
	if render == nil {
		render = srtSlurmRenderer()
	}
	snips, err := snippetFiles(opt.CookbookDir)
	if err != nil {
		return err
	}
	cbRepo := openRepo(opt.CookbookDir)
	renders := map[string]renderResult{}
	cells := 0 // cells whose config key matches opt.ConfigKey
	for _, sp := range snips {
		f, err := cookbook.ReadFile(sp)
		if err != nil {
			return err
		}
		fi := FileInfo{Path: f.RepoPath, SHA256: f.SHA256}
		if cbRepo != nil {
			fi.Commit = cbRepo.head
			fi.Dirty = cbRepo.dirty(sp)
		}
		listed := opt.ConfigKey == "" // with a glob: only files with a matching cell
		if listed {
			rep.Cookbook = append(rep.Cookbook, fi)
		}
		for ci := range f.Cells {
			c := &f.Cells[ci]
			if opt.ConfigKey != "" {
				if ok, _ := path.Match(opt.ConfigKey, c.ConfigKey); !ok {
					continue
				}
			}
			cells++
			if !listed {
				rep.Cookbook = append(rep.Cookbook, fi)
				listed = true
			}
			for pi := range c.Points {
				prov := f.Provenance(ci, pi)
				if prov.Recipe == "" {
					continue // not a citation of an InferenceX recipe
				}
				pr := PointResult{
					File: f.RepoPath, Cell: ci, CellID: c.ID, ConfigKey: c.ConfigKey, Point: pi,
					Concs: c.Points[pi].Concs, Recipe: prov.Recipe, Selector: prov.Override,
					ProvSHA: prov.SHA, ProvStatus: prov.Status,
				}
				sel := f.Measured(ci, pi)
				pr.Router, pr.KV = sel.Router, sel.KV
				model := ""
				if ws != nil {
					// older entries name an srt alias, not an HF id
					e, err := ws.Entry(c.ConfigKey)
					if err != nil && !errors.Is(err, infx.ErrUnknownKey) {
						// the compared key does not load: bad input
						return err
					}
					if err == nil && looksHF(e.Model) {
						model = e.Model
					}
				}
				comparePoint(&pr, f, sel, model, opt, ws, ixRepo, render, renders, ex, rules)
				noteDrift(&pr)
				rep.Points = append(rep.Points, pr)
			}
		}
	}
	switch {
	case len(rep.Points) > 0:
		return nil
	case opt.ConfigKey != "" && cells == 0:
		return fmt.Errorf("%w: no cookbook cell cites a config key matching %q: nothing was compared", ErrUsage, opt.ConfigKey)
	case opt.ConfigKey != "":
		return fmt.Errorf("%w: no point of the %d cookbook cell(s) with a config key matching %q cites an InferenceX recipe (prov.recipe, point.recipe, recipeUrl): nothing was compared", ErrUsage, cells, opt.ConfigKey)
	}
	return fmt.Errorf("%w: no cookbook point under %s cites an InferenceX recipe (prov.recipe, point.recipe, recipeUrl): nothing was compared", ErrUsage, opt.CookbookDir)
}

type renderResult struct {
	d   *launch.Deployment
	err error
}

func comparePoint(pr *PointResult, f *cookbook.File, sel cookbook.Selection, model string, opt CoverageOptions, ws *infx.Workspace, repo *gitRepo,
	render RenderFunc, cache map[string]renderResult, ex *exclusions.Set, rules *Rules) {
	infxDir := opt.InfxDir
	file, rel := resolveRecipe(infxDir, pr.Recipe)
	if file != "" {
		pr.RecipeFile = rel
		pr.Drift = repo.drift(rel, pr.ProvSHA)
	} else {
		what := "recipe"
		if strings.HasSuffix(pr.Recipe, ".sh") {
			what = "script"
		}
		pr.Drift = Drift{State: DriftUnknown, Detail: what + " not in --infx"}
	}
	if strings.HasSuffix(pr.Recipe, ".sh") {
		if file == "" {
			pr.Status = StatusScriptNotFound
			pr.Message = fmt.Sprintf("single-node script %s is not in the InferenceX checkout (--infx)", pr.Recipe)
			return
		}
		compareScript(pr, f, sel, file, ws, cache, ex, rules)
		return
	}
	_, cloneRef := srtSlurmRecipe(pr.Recipe)
	if dec, err := f.Decode(sel); err == nil && (file != "" || cloneRef) {
		// A cited file that is in --infx, or a path of the srt-slurm clone
		// (CONFIG_FILE form): rendered as the launcher submits it. A cited
		// file that is not in --infx at all (a later InferenceX commit's
		// path) stays "recipe not found" below.
		if d, handled := launcherRender(pr, f, sel, &dec.Deployment, ws, opt, cache, rules); handled {
			if d != nil {
				attachCookbookFiles(&dec.Deployment, f, sel)
				attachCookbookInstall(&dec.Deployment, f, sel)
				rc := *d
				rc.Source.Recipe = d.Source.File
				res, err := Compare(&dec.Deployment, &rc, Options{Exclusions: ex, Rules: rules})
				if err != nil {
					pr.Status, pr.Message = StatusError, err.Error()
					return
				}
				pr.Status, pr.Roles, pr.Verdict = StatusCompared, res, Summary(res)
			}
			return
		}
	}
	fromDir := ""
	if file == "" && cloneRef && opt.SrtSlurmDir != "" {
		// A cited recipes/… path of the srt-slurm clone that no launcher of
		// the checkout resolved: read from --srt-slurm-dir.
		c := filepath.Join(opt.SrtSlurmDir, filepath.FromSlash(strings.TrimPrefix(path.Clean("/"+pr.Recipe), "/")))
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			file, rel = c, pr.Recipe
			pr.RecipeFile = rel
			fromDir = fmt.Sprintf("recipe %s read from --srt-slurm-dir (%s); no launcher of the checkout says which srt-slurm ref runs it", pr.Recipe, opt.SrtSlurmVersion)
		}
	}
	if file == "" {
		notFound(pr, f, sel, ws, rules)
		return
	}
	key := file + "\x00" + pr.Selector + "\x00" + model
	rr, ok := cache[key]
	if !ok {
		rr.d, rr.err = render(file, pr.Selector, model)
		cache[key] = rr
	}
	if rr.err != nil {
		pr.Status, pr.Message = StatusError, rr.err.Error()
		return
	}
	dec, err := f.Decode(sel)
	if err != nil {
		pr.Status, pr.Message = StatusError, err.Error()
		return
	}
	attachCookbookFiles(&dec.Deployment, f, sel)
	attachCookbookInstall(&dec.Deployment, f, sel)
	rc := *rr.d
	rc.Source.Recipe, rc.Source.Selector = rel, pr.Selector
	rc.Processes = withMasterImage(rc.Processes, ws, pr.ConfigKey)
	infx.AttachSrtSlurmConfigs(rc.Processes, opt.SrtSlurmDir, opt.SrtSlurmVersion, "")
	res, err := Compare(&dec.Deployment, &rc, Options{Exclusions: ex, Rules: rules})
	if err != nil {
		pr.Status, pr.Message = StatusError, err.Error()
		return
	}
	pr.Status = StatusCompared
	pr.Roles = res
	pr.Verdict = Summary(res)
	if fromDir != "" {
		pr.Message = fromDir
	}
}

// srtSlurmRecipe returns <file> for a cited srt-slurm recipes/<file> path
// (the CONFIG_FILE form: a path in the NVIDIA/srt-slurm clone, which the
// launcher overlays with benchmarks/multi_node/srt-slurm-recipes/; spec
// inferencex.md, infx/points.go).
func srtSlurmRecipe(recipe string) (string, bool) {
	recipe = strings.TrimPrefix(path.Clean("/"+recipe), "/")
	return strings.CutPrefix(recipe, "recipes/")
}

// notFound sets the status of a point whose cited srt-slurm recipe is not
// under infxDir: StatusUpstreamOnly when it lives in NVIDIA/srt-slurm —
// the cited path is a recipes/… path, or the master-config point the
// cookbook point was measured as (MatchPoint) is one infx reports
// upstream-only — else StatusRecipeNotFound.
func notFound(pr *PointResult, f *cookbook.File, sel cookbook.Selection, ws *infx.Workspace, rules *Rules) {
	if _, ok := srtSlurmRecipe(pr.Recipe); ok {
		pr.Status = StatusUpstreamOnly
		pr.Message = fmt.Sprintf("recipe %s is not in the InferenceX checkout (--infx), nor its overlay under benchmarks/multi_node/srt-slurm-recipes/: it lives in the NVIDIA/srt-slurm ref the launcher clones", pr.Recipe)
		return
	}
	pr.Status = StatusRecipeNotFound
	pr.Message = fmt.Sprintf("recipe %s is not in the InferenceX checkout (--infx)", pr.Recipe)
	if ws != nil && ws.Layout == infx.LayoutOld && newLayoutPath(pr.Recipe) {
		pr.Message += "; the path is in the newer inferencex-e2e layout (srt-slurm-recipes/<model>/<engine>/…), and --infx is an old-layout checkout (srt-slurm-recipes/<engine>/<model>/…): the cookbook cites a later InferenceX commit"
	}
	if ws == nil {
		return
	}
	dec, err := f.Decode(sel)
	if err != nil {
		return
	}
	m := MatchPoint(ws, pr.ConfigKey, queryOf(f, sel, &dec.Deployment, rules))
	if m.Status != StatusCompared || len(m.Points) == 0 || m.Points[0].Status != infx.StatusUpstreamOnly {
		return
	}
	p := m.Points[0]
	ref := p.RecipeRef
	if p.Selector != "" {
		ref += ":" + p.Selector
	}
	row := p.Row
	pr.Row, pr.RowPos = &row, p.Pos.String()
	pr.Status = StatusUpstreamOnly
	pr.Message = fmt.Sprintf("recipe %s is not in the InferenceX checkout (--infx); the master-config point it was measured as (%s row %d, %s) runs CONFIG_FILE=%s, which lives in the NVIDIA/srt-slurm ref the launcher clones",
		pr.Recipe, pr.ConfigKey, row, pr.RowPos, ref)
}

// engines are the engine directories of the old layout's
// benchmarks/multi_node/srt-slurm-recipes/<engine>/<model>/… tree.
var oldLayoutEngines = map[string]bool{"sglang": true, "vllm": true, "trtllm": true, "atom": true, "tilert": true}

// newLayoutPath reports whether a cited recipe path has the newer
// inferencex-e2e layout: an inferencex-e2e/ prefix, or
// srt-slurm-recipes/<model>/<engine>/… where the old layout has
// srt-slurm-recipes/<engine>/<model>/… (shared/spec/inferencex.md (b)).
func newLayoutPath(recipe string) bool {
	if strings.HasPrefix(recipe, "inferencex-e2e/") {
		return true
	}
	_, rest, ok := strings.Cut(recipe, "srt-slurm-recipes/")
	if !ok {
		return false
	}
	parts := strings.Split(rest, "/")
	return len(parts) > 2 && !oldLayoutEngines[parts[0]] && oldLayoutEngines[parts[1]]
}

// resolveRecipe finds a cited recipe path in the InferenceX checkout dir,
// for both layouts: as cited ("inferencex-e2e/benchmarks/…" or
// "benchmarks/…" at the repository root), without the "inferencex-e2e/"
// prefix (dir is itself the inferencex-e2e tree), and under
// "inferencex-e2e/" (a new-layout path cited relative to inferencex-e2e),
// and for srt-slurm's recipes/<file> at the launcher's overlay
// benchmarks/multi_node/srt-slurm-recipes/<file>.
// It returns the file path and the path relative to dir ("" when absent).
func resolveRecipe(dir, recipe string) (file, rel string) {
	recipe = strings.TrimPrefix(path.Clean("/"+recipe), "/")
	cands := []string{recipe}
	if r, ok := strings.CutPrefix(recipe, "inferencex-e2e/"); ok {
		cands = append(cands, r)
	} else {
		cands = append(cands, "inferencex-e2e/"+recipe)
	}
	if r, ok := srtSlurmRecipe(recipe); ok {
		// the launcher's overlay of srt-slurm's recipes/
		o := "benchmarks/multi_node/srt-slurm-recipes/" + r
		cands = append(cands, o, "inferencex-e2e/"+o)
	}
	for _, c := range cands {
		p := filepath.Join(dir, filepath.FromSlash(c))
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, c
		}
	}
	return "", ""
}

// snippetFiles lists dir/docs/src/snippets/agentx/**/*.jsx, sorted.
func snippetFiles(dir string) ([]string, error) {
	root := filepath.Join(dir, "docs", "src", "snippets", "agentx")
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jsx") && !strings.HasPrefix(d.Name(), "_") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: --cookbook %s: no docs/src/snippets/agentx directory (want an sgl-project/sglang checkout)", ErrUsage, dir)
		}
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: --cookbook %s: no AgentX snippets under docs/src/snippets/agentx", ErrUsage, dir)
	}
	sort.Strings(out)
	return out, nil
}

// noteDrift qualifies every difference of a point whose recipe may have
// moved since the cookbook point was generated: the recipe changed since
// prov.sha, prov.sha is not in --infx (also when --infx has no git
// history), or the concurrency moved (MatchPoint drift). A reader then knows the difference may be commit drift rather
// than a documentation gap.
func noteDrift(pr *PointResult) {
	note := ""
	switch {
	case pr.Drift.State == DriftChanged && strings.HasPrefix(pr.Drift.Detail, "possible commit drift"):
		note = pr.Drift.Detail
	case pr.Drift.State == DriftChanged:
		note = "possible commit drift: " + pr.Drift.Detail
	case pr.Drift.State == DriftUnknown && strings.Contains(pr.Drift.Detail, "is not in the checkout"):
		note = "possible commit drift: " + strings.Replace(pr.Drift.Detail, "is not in the checkout", "is not in --infx", 1)
	case pr.Drift.State == DriftUnknown && pr.ProvSHA != "" && strings.Contains(pr.Drift.Detail, "not a git checkout"):
		// prov.sha cannot be in a tree without history either.
		note = fmt.Sprintf("possible commit drift: --infx is not a git checkout, so prov.sha %.12s cannot be compared", pr.ProvSHA)
	}
	if note == "" {
		return
	}
	for i := range pr.Roles {
		for j := range pr.Roles[i].Differences {
			pr.Roles[i].Differences[j].Note = note
		}
	}
}

// attachCookbookFiles gives each process of a decoded cookbook deployment
// the content of the config files it reads (launch.Process.FileContents):
// the selected router's files (cells[i].routers[r].files, keys into the
// top-level AgentX `files` map of sgl-project/sglang
// docs/src/snippets/agentx/*.jsx) whose name the process's block mentions
// (Process.Files, as the page shows a file under the block that names it).
func attachCookbookFiles(d *launch.Deployment, f *cookbook.File, sel cookbook.Selection) {
	if sel.Cell < 0 || sel.Cell >= len(f.Cells) {
		return
	}
	if img := f.Cells[sel.Cell].Image; img != "" {
		// The cell's image is what its engine workers run (addImage).
		for i := range d.Processes {
			if p := &d.Processes[i]; p.Kind == launch.KindWorker && p.Image == "" {
				p.Image = img
			}
		}
	}
	rt, ok := f.Cells[sel.Cell].Routers[sel.Router]
	if !ok {
		return
	}
	for i := range d.Processes {
		p := &d.Processes[i]
		for _, k := range rt.Files {
			fe, ok := f.Files.Lookup(k)
			if !ok || fe.Name == "" || !slices.Contains(p.Files, fe.Name) {
				continue
			}
			if _, dup := p.FileContent(fe.Name); dup {
				continue
			}
			p.FileContents = append(p.FileContents, launch.FileContent{Path: fe.Name, Content: fe.Content,
				Origin: launch.Origin{Kind: launch.OriginCookbook, Path: fmt.Sprintf("files[%q]", k)}})
		}
	}
}
