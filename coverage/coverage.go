package coverage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/cookbook/pages"
	"github.com/cookbook-sync/cookbook-sync/exclusions"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/launch"
	"github.com/cookbook-sync/cookbook-sync/recipes"
	"github.com/cookbook-sync/cookbook-sync/report"
	"github.com/cookbook-sync/cookbook-sync/runcache"
)

// Options says what to compare. Errors about them are *OptionError
// values naming the field.
type Options struct {
	// InfxDir is an InferenceX checkout (either layout).
	InfxDir string
	// CookbookDirs are sgl-project/sglang checkouts (repository roots, or
	// their docs/ directory): each holds AgentX snippets
	// (docs/src/snippets/agentx, judged from the cookbook side, point by
	// point), hand-written cookbook pages (docs/src/snippets/configs and
	// autoregressive, read through the pages' own code, package
	// cookbook/pages; every SGLang-family config key is judged against
	// them, Report.Pages), or both. One checkout of each kind at most; a
	// directory with neither is an *OptionError.
	CookbookDirs []string
	// VLLMRecipesDir, when set, is a vllm-project/recipes checkout: every
	// vLLM-family config key (vllm, dynamo-vllm, llmd-vllm) of InfxDir's
	// master configs is matched with the recipes and compared role by role
	// (Report.VLLM). CookbookDirs may then be empty (vLLM part only).
	VLLMRecipesDir string
	// ConfigKeys, when set, are globs (path.Match syntax) that scope the
	// run: only the cookbook cells and the master-config keys judged from
	// the InferenceX side (vLLM family, SGLang family against the pages)
	// whose config key one of them matches are judged (KeyInScope). Each
	// pattern must match a key of the run — a cookbook cell's config key
	// with a point that cites a recipe, or a master-config key judged —
	// else Run fails with an *OptionError (Field "ConfigKey", Value the
	// pattern; one per such pattern, errors.Join'ed) wrapping ErrUsage:
	// never a silently smaller run. An empty or malformed pattern is such
	// an error too. Empty: every key.
	ConfigKeys []string
	// AgentXOnly judges the AgentX snippets only: a CookbookDirs checkout's
	// hand-written pages and the vLLM recipes are not read (the drift job
	// judges pinned commits this way). The report is then the AgentX part's.
	AgentXOnly bool
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
	// SrtSlurmForks are checkouts of the srt-slurm forks launchers clone
	// (infx.Workspace.SrtSlurmForks, infx.ParseSrtSlurmDir): a fork point
	// renders only from its checkout, with the rules of the NVIDIA/srt-slurm
	// release whose src/srtctl the checkout's is identical to; without it
	// the point is unsupported, naming the checkout it needs. An entry for
	// NVIDIA/srt-slurm itself is not used (that is SrtSlurmDir).
	SrtSlurmForks []infx.SrtSlurmCheckout
	// Policy is the Check 3 policy version to judge by
	// (exclusions/policies.yaml): "" or "current" the current one
	// (exclusions.DefaultPolicyID), "pinned" the one the InferenceX
	// checkout itself states (its .github/codeowner-signoff-verify-prompt.md,
	// else the prompt inside .github/workflows/codeowner-signoff-verify.yml,
	// identified by content), or a version id ("2026-07"). It chooses the
	// exclusion rules (unless Exclusions is set), the scope (a
	// single-node-only version makes multi-node and disaggregated keys not
	// applicable) and the strictness (a "major server args" version makes
	// other settings informational). Report.Policy says which and why.
	Policy string
	// InfxCommit, when set, says InfxDir is a copy of one commit of a git
	// repository (package gittree's Materialize; `signoff` judges a PR's
	// head that way): Repo is the repository's directory and Commit the
	// full commit id. Provenance drift, permalinks and the report's commit
	// then come from that repository at that commit.
	InfxCommit *CommitRef
	// PageCache, when set, shares decoded cookbook page snippets across
	// runs over one checkout (pages.Cache; e.g. a key-scoped run per
	// config key). Each run still chooses its own snippets.
	PageCache *pages.Cache
	// Cache, when set, keeps finished reports across runs (package
	// runcache): a run whose options and input trees are byte for byte
	// those of a stored report returns that report without reading a
	// source (the key: the executable, the options that decide the report,
	// every input directory's path and content — reportKey). Only a report
	// that depends on nothing else is stored: not one a time limit or the
	// memory bound cut short, and never with Exclusions, Render, OnSetting
	// or InfxCommit set (those runs do not use it). nil: no cache.
	Cache *runcache.Dir
	// CacheStats, when set, is filled in with what Run did with Cache
	// (hit, stored, or why neither). Not part of the report.
	CacheStats *CacheStats
	// StoreInBackground, with Cache, lets Run return a report it computed
	// before it is stored: it is encoded and written on another goroutine
	// while the caller reads it — the caller must not change it, and
	// CacheStats' Stored, Skipped and CompactJSON are final only after
	// CacheStats.Wait, which the caller calls before it exits. For a
	// caller that prints the report in a format other than JSON (the
	// CLI's text): printing and storing overlap on two CPUs.
	StoreInBackground bool

	// digests are the run's tree digests (Run makes them): the report's
	// key and the renderings' keys digest each tree once.
	digests *runcache.Digests
	// OnSetting, when set, is called for every setting of every role pair
	// the run compares (compare.Options.OnSetting): an inventory of the
	// settings a run sees, e.g. the policy class table of package
	// exclusions. Not part of the report.
	OnSetting func(compare.Seen)
	// Progress, when set, is told how far the run is, from the goroutine
	// that called Run (Run itself never prints): before each unit of each
	// part is judged — a cookbook cell (part "agentx"), a config key judged
	// against the cookbook pages ("sglang-pages") or the vLLM recipes
	// ("vllm-recipes") — with the units of that part done, their total and
	// what comes next ("vllm-recipes dsv4-fp4-gb200-dynamo-vllm"), and with
	// done == total and the part's name when the part is over. A caller
	// draws a progress bar with it. Not part of the report.
	Progress func(done, total int, what string)
}

// KeyInScope reports whether the config key key is one the run is asked
// about: true when ConfigKeys is empty or one of its globs matches key
// (path.Match; a malformed glob matches nothing, and Run rejects it). It is
// the scope of the --config-key patterns only; whether the Check 3 policy
// version applies to the key is another question (Report.Policy).
func (o Options) KeyInScope(key string) bool {
	if len(o.ConfigKeys) == 0 {
		return true
	}
	for _, p := range o.ConfigKeys {
		if ok, _ := path.Match(p, key); ok {
			return true
		}
	}
	return false
}

// RenderFunc renders the variant selector ("" = the recipe as written,
// "base", "override_<name>", "zip_override_<name>[i]") of the recipe file at
// path into a Deployment; model is the master entry's Hugging Face model id
// ("" when unknown). Errors are bad input (exit 2 for the CLI).
type RenderFunc func(path, selector, model string) (*launch.Deployment, error)

// ErrUsage marks errors in the options (a bad ConfigKeys glob, a missing
// directory, nothing to compare): the caller's fault, not the data's. Every
// such error is an *OptionError, which wraps it.
var ErrUsage = errors.New("usage")

// OptionError is a bad Options value: Field names the Options field
// ("InfxDir", "CookbookDir", "VLLMRecipesDir", "ConfigKey" — one pattern of
// ConfigKeys —, "SrtSlurmDir"),
// Value its value, Msg what is wrong; Err is an underlying error, if any.
// It wraps ErrUsage (errors.Is), so a CLI maps Field to its flag name.
type OptionError struct {
	Field, Value, Msg string
	Err               error
}

// Error is "<Field> <quoted Value>: <Msg>" (no Value part when empty).
func (e *OptionError) Error() string {
	if e.Value == "" {
		return e.Field + ": " + e.Msg
	}
	return fmt.Sprintf("%s %s%s", e.Field, launch.QuotePath(e.Value), msgSep(e.Msg))
}

// msgSep joins a value and a message: " is …" reads on, others follow ": ".
func msgSep(msg string) string {
	if strings.HasPrefix(msg, "is ") || strings.HasPrefix(msg, "has ") {
		return " " + msg
	}
	return ": " + msg
}

// FlagError is e with Field replaced by flag (the CLI's name for it):
// "<flag> <quoted Value> is …" or "<flag> <quoted Value>: …".
func (e *OptionError) FlagError(flag string) string {
	if e.Value == "" {
		return flag + ": " + e.Msg
	}
	return fmt.Sprintf("%s %s%s", flag, launch.QuotePath(e.Value), msgSep(e.Msg))
}

// Unwrap gives ErrUsage and the underlying error.
func (e *OptionError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrUsage, e.Err}
	}
	return []error{ErrUsage}
}

// run is one coverage run: its options, context and the state its points
// share (the InferenceX workspace and git checkout, the exclusion and
// normalization rules, the renderer and its cache, the report being
// filled).
type run struct {
	ctx context.Context
	opt Options
	ws  *infx.Workspace // nil when the checkout has no master config
	// win paces the background prerendering by the judging (nil: none
	// runs; prerenderAhead)
	win     *keyWindow
	ixRepo  *gitRepo // nil when not a git checkout
	ex      *exclusions.Set
	rules   *compare.Rules
	render  RenderFunc
	renders map[string]renderResult // the AgentX part's render cache: file, selector, model (emptied after it)
	rep     *report.Report
	// agentxDir and pagesDir are the CookbookDirs holding AgentX snippets
	// and cookbook pages ("" when none does).
	agentxDir, pagesDir string
	// policy is the Check 3 policy version judged by; strict its
	// strictness when not every setting counts (nil: all count).
	policy exclusions.PolicySpec
	strict compare.Strictness
	// hits says, per Options.ConfigKeys pattern (same index), what of the
	// run it matched.
	hits []patternHits
	// volatile: an outcome of the run depends on the machine (a page
	// file the memory bound stopped); its report is never cached.
	volatile bool
}

// patternHits is what one Options.ConfigKeys pattern matched: keys of the
// run (a cookbook cell with a point citing a recipe, a master-config key
// judged), and cookbook cells none of whose points cites a recipe.
type patternHits struct {
	keys, bareCells int
}

// keyAsked reports whether the master-config key key is in the run's
// scope (Options.KeyInScope); when it is, key is judged, a key of the run:
// it counts for every pattern that matches it (run.hits).
func (c *run) keyAsked(key string) bool {
	if !c.opt.KeyInScope(key) {
		return false
	}
	c.countKey(key, func(h *patternHits) { h.keys++ })
	return true
}

// countKey applies count to the hits of every ConfigKeys pattern that
// matches key.
func (c *run) countKey(key string, count func(*patternHits)) {
	for i, p := range c.opt.ConfigKeys {
		if ok, _ := path.Match(p, key); ok {
			count(&c.hits[i])
		}
	}
}

// checkConfigKeys is nil when every ConfigKeys pattern matched a key of
// the run, else one *OptionError per pattern that did not (errors.Join),
// each naming the parts of the run that were looked at.
func (c *run) checkConfigKeys() error {
	var errs []error
	for i, p := range c.opt.ConfigKeys {
		h := c.hits[i]
		if h.keys > 0 {
			continue
		}
		var parts []string
		if c.agentxDir != "" {
			if h.bareCells > 0 {
				parts = append(parts, fmt.Sprintf("no point of the %d cookbook cell(s) with a config key matching it cites an InferenceX recipe (prov.recipe, point.recipe, recipeUrl)", h.bareCells))
			} else {
				parts = append(parts, "no cookbook cell cites a config key matching it")
			}
		}
		if c.pagesDir != "" && c.ws != nil {
			parts = append(parts, fmt.Sprintf("no SGLang-family config key (sglang, sglang-disagg, dynamo-sglang) of the InferenceX checkout %s matches", launch.QuotePath(c.opt.InfxDir)))
		}
		if c.opt.VLLMRecipesDir != "" {
			parts = append(parts, fmt.Sprintf("no vLLM-family config key (vllm, dynamo-vllm, llmd-vllm) of the InferenceX checkout %s matches", launch.QuotePath(c.opt.InfxDir)))
		}
		errs = append(errs, &OptionError{Field: "ConfigKey", Value: p, Msg: strings.Join(parts, "; ") + ": nothing was compared"})
	}
	return errors.Join(errs...)
}

// progress tells Options.Progress, when set, that done of total units
// of part are judged and what (a config key; "" when the part is over)
// comes next.
func (c *run) progress(part string, done, total int, what string) {
	if c.opt.Progress == nil {
		return
	}
	if what != "" {
		part += " " + what
	}
	c.opt.Progress(done, total, part)
}

// options are the compare options of every comparison of the run.
func (c *run) options() compare.Options {
	return compare.Options{Exclusions: c.ex, Rules: c.rules, Strictness: c.strict, OnSetting: c.opt.OnSetting}
}

// inScope reports whether the run's policy version applies Check 3 to the
// config key (a single-node-only version: not to a multi-node or
// disaggregated key), with the reason when not. A key the master configs
// do not know is in scope (nothing says otherwise).
func (c *run) inScope(key string) (bool, string) {
	if c.policy.Scope == exclusions.ScopeAll || c.ws == nil {
		return true, ""
	}
	e, err := c.ws.Entry(key)
	if err != nil {
		return true, ""
	}
	single := !e.Multinode && !e.Disagg
	if c.policy.InScope(single) {
		return true, ""
	}
	return false, fmt.Sprintf("policy %s applies Check 3 to single-node keys only; %s is multi-node or disaggregated (%s)", c.policy.ID, key, e.Pos.String())
}

// resolvePolicy picks the policy version named by p (Options.Policy) and
// says where it came from. Errors (*OptionError, field Policy): an unknown
// version; "pinned" with no prompt in the checkout or a prompt that is no
// known version (an unknown policy is never guessed).
func resolvePolicy(p, infxDir string) (exclusions.PolicySpec, string, error) {
	switch p {
	case "", "current":
		spec, err := exclusions.PolicyByID(exclusions.DefaultPolicyID())
		return spec, "default", err
	case "pinned":
		file := ".github/codeowner-signoff-verify-prompt.md"
		text, err := readInCheckout(infxDir, file)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			// a prompt file that is there but cannot be read is bad
			// input; falling back to the workflow would replay another
			// version
			return exclusions.PolicySpec{}, "", &OptionError{Field: "Policy", Value: p, Msg: fmt.Sprintf("%s: %v", file, err), Err: err}
		}
		if err != nil {
			file = ".github/workflows/codeowner-signoff-verify.yml"
			data, werr := readInCheckout(infxDir, file)
			if werr != nil && !errors.Is(werr, fs.ErrNotExist) {
				return exclusions.PolicySpec{}, "", &OptionError{Field: "Policy", Value: p, Msg: fmt.Sprintf("%s: %v", file, werr), Err: werr}
			}
			if werr != nil {
				return exclusions.PolicySpec{}, "", &OptionError{Field: "Policy", Value: p, Msg: "the InferenceX checkout has no sign-off prompt (.github/codeowner-signoff-verify-prompt.md, or the prompt of .github/workflows/codeowner-signoff-verify.yml): no policy to pin"}
			}
			if text, err = exclusions.PromptFromWorkflow(data); err != nil {
				return exclusions.PolicySpec{}, "", &OptionError{Field: "Policy", Value: p, Msg: fmt.Sprintf("%s: %v", file, err), Err: err}
			}
		}
		m, ok := exclusions.MatchPrompt(text)
		if !ok {
			var ids []string
			for _, ps := range exclusions.Policies() {
				ids = append(ids, ps.ID)
			}
			why := "is no known policy version"
			if len(m.Ambiguous) > 1 {
				why = "carries the words of several policy versions (" + strings.Join(m.Ambiguous, ", ") + ")"
			}
			return exclusions.PolicySpec{}, "", &OptionError{Field: "Policy", Value: p,
				Msg: fmt.Sprintf("the checkout's %s (sha256 %.12s) %s (known: current, %s): name one", file, exclusions.PromptHash(text), why, strings.Join(ids, ", "))}
		}
		spec, err := exclusions.PolicyByID(m.Policy)
		from := fmt.Sprintf("pinned: %s sha256 %.12s (matched by %s", file, m.SHA256, m.By)
		if m.Commit != "" {
			from += ", as at InferenceX " + m.Commit
		}
		return spec, from + ")", err
	}
	spec, err := exclusions.PolicyByID(p)
	if err != nil {
		return spec, "", &OptionError{Field: "Policy", Value: p, Msg: err.Error(), Err: err}
	}
	return spec, "named", nil
}

// relPath is p relative to the InferenceX checkout when inside it (slash
// separated), else p unchanged: reports name files in the repository, not
// on this machine.
func (c *run) relPath(p string) string {
	return relTo(c.opt.InfxDir, p)
}

// absDir is dir as an absolute, clean path (the report names each
// checkout so: the same report whether it was named relative to the
// working directory or absolutely) ("" stays ""; a path that
// cannot be made absolute stays as given).
func absDir(dir string) string {
	if dir == "" {
		return ""
	}
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}

// relPos is a master-config position with its file relative to the
// InferenceX checkout ("configs/nvidia-master.yaml:1232:9"), whatever
// form the checkout's directory was given in.
func (c *run) relPos(p infx.Pos) string { return relPosTo(c.opt.InfxDir, p) }

// relPosTo is p with its file relative to dir when inside it.
func relPosTo(dir string, p infx.Pos) string {
	p.File = relTo(dir, p.File)
	return p.String()
}

// relTo is p relative to dir when p is inside dir, else p.
func relTo(dir, p string) string {
	if dir == "" || p == "" {
		return p
	}
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return p
	}
	r, err := filepath.Rel(ad, ap)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(r)
}

// Run runs Check 3 coverage: for every point of every AgentX snippet
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
// Errors: bad options (*OptionError, wrapping ErrUsage: neither
// CookbookDir nor VLLMRecipesDir, a missing directory, no master config for the vLLM part,
// nothing to compare; with ConfigKeys, an empty or malformed pattern, or
// a pattern that matches no key of the run — no cookbook cell with a point
// citing a recipe, no master-config key judged —, one error per pattern),
// no snippet found, a snippet that does not parse (*cookbook.Error with
// file:line:col), a vLLM recipes tree that cannot be indexed at all
// (file:line:col).
func Run(ctx context.Context, opt Options) (*report.Report, error) {
	opt.digests = &runcache.Digests{}
	if opt.Cache == nil {
		if opt.CacheStats != nil {
			// (a CacheStats a cached run filled before says nothing of
			// this one; its store in the background, if any, is over first)
			opt.CacheStats.Wait()
			*opt.CacheStats = CacheStats{Skipped: "no cache (Options.Cache is nil)"}
		}
		rep, _, err := runUncached(ctx, opt)
		return rep, err
	}
	return cachedRun(ctx, opt, func() (*report.Report, bool, error) { return runUncached(ctx, opt) })
}

// runUncached is Run without the cache; volatile reports an outcome that
// depends on the machine (a page stopped by the memory bound), which is
// never cached.
func runUncached(ctx context.Context, opt Options) (_ *report.Report, volatile bool, _ error) {
	rep, c, err := runAll(ctx, opt)
	if c != nil {
		volatile = c.volatile
	}
	return rep, volatile, err
}

// runAll is runUncached with the run's state (nil when Run stopped before
// it began).
func runAll(ctx context.Context, opt Options) (*report.Report, *run, error) {
	for _, p := range opt.ConfigKeys {
		if p == "" {
			return nil, nil, &OptionError{Field: "ConfigKey", Msg: "an empty pattern matches no config key"}
		}
		if _, err := path.Match(p, ""); err != nil {
			return nil, nil, &OptionError{Field: "ConfigKey", Value: p, Msg: err.Error(), Err: err}
		}
	}
	if len(opt.CookbookDirs) == 0 && opt.VLLMRecipesDir == "" {
		return nil, nil, &OptionError{Field: "CookbookDir", Msg: "give CookbookDir, VLLMRecipesDir or both"}
	}
	dirs := []struct{ field, dir string }{{"InfxDir", opt.InfxDir}, {"VLLMRecipesDir", opt.VLLMRecipesDir}}
	for _, d := range opt.CookbookDirs {
		dirs = append(dirs, struct{ field, dir string }{"CookbookDir", d})
	}
	for _, d := range dirs {
		if d.dir == "" && d.field != "InfxDir" {
			continue
		}
		st, err := os.Stat(d.dir)
		if err != nil || !st.IsDir() {
			return nil, nil, &OptionError{Field: d.field, Value: d.dir, Msg: "is not a directory"}
		}
	}
	agentxDir, pagesDir, err := classifyCookbooks(opt.CookbookDirs)
	if err != nil {
		return nil, nil, err
	}
	if opt.AgentXOnly {
		if agentxDir == "" {
			return nil, nil, &OptionError{Field: "CookbookDir", Msg: "AgentXOnly needs a checkout with AgentX snippets (docs/src/snippets/agentx)"}
		}
		pagesDir, opt.VLLMRecipesDir = "", ""
	}
	spec, from, err := resolvePolicy(opt.Policy, opt.InfxDir)
	if err != nil {
		return nil, nil, err
	}
	ex := opt.Exclusions
	if ex == nil {
		if ex, err = exclusions.ForPolicy(spec.ID); err != nil {
			return nil, nil, err
		}
	}
	rules, err := compare.DefaultRules()
	if err != nil {
		return nil, nil, err
	}
	rep := &report.Report{
		SchemaVersion:  report.SchemaVersion,
		SchemaRevision: report.SchemaRevision,
		Policy: report.PolicyInfo{ID: spec.ID, Title: spec.Title, Scope: spec.Scope, Strictness: spec.Strictness, From: from,
			Version: ex.PolicyVersion(), Policies: ex.Policies()},
		InferenceX:      report.RepoInfo{Dir: absDir(opt.InfxDir)},
		AllowUnverified: opt.AllowUnverified,
	}
	ixRepo := openRepo(opt.InfxDir)
	if ixRepo == nil && opt.InfxCommit != nil {
		ixRepo = openRepoAt(opt.InfxCommit.Repo, opt.InfxCommit.Commit, opt.InfxDir)
	}
	if ixRepo != nil {
		rep.InferenceX.Commit = ixRepo.head
		rep.InferenceX.Repo = ixRepo.github("SemiAnalysisAI/InferenceX")
	}
	// The master configs give each config key's model (optional for the
	// cookbook part: a tree without master configs still renders, with the
	// recipe's own model; required for the vLLM part).
	ws, wsErr := infx.Open(opt.InfxDir)
	if err := infxOpenError(opt.InfxDir, wsErr); err != nil {
		return nil, nil, err
	}
	if ws != nil {
		ws.SrtSlurmDir, ws.SrtSlurmVersion, ws.SrtSlurmForks = opt.SrtSlurmDir, opt.SrtSlurmVersion, opt.SrtSlurmForks
		// this run's own Workspace: the checkout does not change under it
		ws.RememberRenders()
		if opt.Cache != nil {
			// renders across runs too: a run whose report is not stored
			// (another cookbook, another key) renders only what is new
			ws.PersistRenders(opt.Cache)
			ws.TreeDigests = opt.digests
			if opt.CacheStats != nil {
				defer func() { opt.CacheStats.RenderHits, opt.CacheStats.RendersStored = ws.PersistedRenders() }()
			}
			defer ws.FlushRenders() // the render packs of the keys not Forgotten
		}
		for _, w := range ws.Warnings() {
			if len(opt.ConfigKeys) == 0 || !opt.KeyInScope(w.Key) {
				rep.Warnings = append(rep.Warnings, w.String())
				continue
			}
			// A key asked for (ConfigKeys) that does not load is bad
			// input, never a silently smaller comparison.
			_, err := ws.Entry(w.Key)
			return nil, nil, err
		}
	}
	c := &run{ctx: ctx, opt: opt, ws: ws, ixRepo: ixRepo, ex: ex, rules: rules, render: opt.Render, renders: map[string]renderResult{}, rep: rep, policy: spec,
		agentxDir: agentxDir, pagesDir: pagesDir, hits: make([]patternHits, len(opt.ConfigKeys))}
	if spec.Strictness != exclusions.StrictAll {
		c.strict = &spec
	}
	if c.render == nil {
		c.render = srtSlurmRenderer()
	}
	// the points the pages and vLLM parts render, rendered on the CPUs the
	// AgentX part and the judging leave idle (their results are the same
	// whoever renders first: the Workspace's memo)
	defer c.prerenderAhead(wsErr == nil)()
	if opt.SrtSlurmDir != "" {
		si := report.RepoInfo{Dir: absDir(opt.SrtSlurmDir)}
		if r := openRepo(opt.SrtSlurmDir); r != nil {
			si.Commit, si.Repo = r.head, r.github("NVIDIA/srt-slurm")
		}
		rep.SrtSlurm = &si
	}
	if agentxDir != "" {
		err := c.cookbookCoverage()
		// the AgentX part's render cache is its own: what it holds goes
		// before the pages and vLLM parts render (their renderings come
		// from the Workspace's memo)
		c.renders = map[string]renderResult{}
		if err != nil {
			// nothing cited in the snippets is bad usage only when the
			// pages give nothing to judge either
			var oe *OptionError
			if pagesDir == "" || !errors.As(err, &oe) {
				return nil, c, err
			}
		}
	}
	if pagesDir != "" {
		if err := c.pagesPart(); err != nil {
			return nil, c, err
		}
	}
	if opt.VLLMRecipesDir != "" {
		if wsErr != nil {
			return nil, nil, &OptionError{Field: "InfxDir", Value: opt.InfxDir, Msg: wsErr.Error(), Err: wsErr}
		}
		// The SGLang-family keys are judged (the vLLM part judges only
		// vLLM-family keys): what the Workspace keeps of them goes while
		// the vLLM part runs — their render packs written (PersistRenders),
		// not in the run's last moments, and their renderings and launcher
		// runs dropped (infx.Workspace.Forget).
		if sg, err := c.familyEntries(sglangFamily); err == nil && len(sg) > 0 {
			var wg sync.WaitGroup
			wg.Go(func() {
				for _, e := range sg {
					ws.Forget(e.Key)
				}
			})
			defer wg.Wait()
		}
		// Work follows the keys: the recipes are indexed only when an
		// asked-for vLLM-family key is there to judge against them.
		ix, err := (*recipes.Index)(nil), error(nil)
		if len(opt.ConfigKeys) == 0 || slices.ContainsFunc(ws.ConfigKeys(), func(k string) bool {
			e, err := ws.Entry(k)
			return err == nil && recipes.VLLMFamily(e.Framework) && opt.KeyInScope(k)
		}) {
			c.renderBeforeIndex()
			ix, err = openVLLM(opt.VLLMRecipesDir)
			if ix == nil {
				return nil, c, err
			}
		} else {
			ix = &recipes.Index{}
		}
		if err != nil {
			rep.VLLMRecipeErrors = strings.Split(err.Error(), "\n")
		}
		vi := report.RepoInfo{Dir: absDir(opt.VLLMRecipesDir)}
		if r := openRepo(opt.VLLMRecipesDir); r != nil {
			vi.Commit, vi.Repo = r.head, r.github("vllm-project/recipes")
		}
		rep.VLLMRecipes = &vi
		rep.VLLM, err = c.vllmCoverage(ix)
		if err != nil {
			return nil, c, err
		}
		if len(rep.VLLM) == 0 && len(opt.ConfigKeys) == 0 {
			// (with ConfigKeys: checkConfigKeys names each pattern that
			// matched nothing)
			return nil, nil, &OptionError{Field: "InfxDir", Value: opt.InfxDir, Msg: "no vLLM-family config key (vllm, dynamo-vllm, llmd-vllm) in its master configs: nothing was compared"}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, c, err // a point or row may have been cut short
	}
	if err := c.checkConfigKeys(); err != nil {
		return nil, c, err
	}
	for i := range rep.VLLM {
		rep.VLLM[i].Source = report.SourceVLLMRecipes
	}
	rep.LocalDirs = localDirs(append([]string{opt.InfxDir, opt.VLLMRecipesDir, opt.SrtSlurmDir}, opt.CookbookDirs...)...)
	rep.CombineKeys()
	rep.Count()
	return rep, c, nil
}

// prerenderAhead starts rendering, in the background, the points the
// pages part and the vLLM part (vllm true: it can run) will render
// (prerender's choice: keys asked for and in the policy's scope, points
// to compare), SGLang keys first, on the Workspace's CPU slots
// (infx.Workspace.Prerender); the parts then take them from the memo, or
// wait for a point being rendered. It returns the function that stops it
// and waits for it (Run's end). Nothing it does reaches the report but
// through the memo, which every rendering of a point fills the same way.
func (c *run) prerenderAhead(vllm bool) (stop func()) {
	if c.ws == nil {
		return func() {}
	}
	var todo []infx.Point
	if c.pagesDir != "" {
		todo = append(todo, c.familyPoints(sglangFamily)...)
	}
	if vllm && c.opt.VLLMRecipesDir != "" {
		todo = append(todo, c.familyPoints(recipes.VLLMFamily)...)
	}
	if len(todo) == 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(c.ctx)
	done := make(chan struct{})
	c.win = newKeyWindow(todo)
	go func() {
		defer close(done)
		c.ws.PrerenderPaced(ctx, todo, infx.Options{}, func(p infx.Point) bool { return c.win.wait(ctx, p) })
	}()
	return func() {
		cancel()
		<-done
	}
}

// infxOpenError is the error of an InferenceX directory that infx.Open could not use:
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
	return &OptionError{Field: "InfxDir", Value: dir, Msg: fmt.Sprintf("is not an InferenceX checkout (no configs/, benchmarks/, runners/, inferencex-e2e/ or .github/): %v", err), Err: err}
}

// cookbookCoverage is the cookbook part of Run (c.ws may be nil).
func (c *run) cookbookCoverage() error {
	rep, opt, ws := c.rep, c.opt, c.ws
	snips, err := snippetFiles(c.agentxDir)
	if err != nil {
		return err
	}
	cbRepo := openRepo(c.agentxDir)
	ci := report.RepoInfo{Dir: absDir(c.agentxDir)}
	if cbRepo != nil {
		ci.Commit, ci.Repo = cbRepo.head, cbRepo.github("sgl-project/sglang")
	}
	rep.Cookbook = &ci
	// every snippet is read first: the cells in scope are the part's
	// units (Options.Progress)
	files := make([]*cookbook.File, len(snips))
	units, done := 0, 0
	for i, sp := range snips {
		if files[i], err = cookbook.ReadFile(sp); err != nil {
			return err
		}
		for ci := range files[i].Cells {
			if opt.KeyInScope(files[i].Cells[ci].ConfigKey) {
				units++
			}
		}
	}
	for i, sp := range snips {
		f := files[i]
		src, _ := os.ReadFile(sp) // for line numbers only; ReadFile read it
		fi := report.FileInfo{Path: f.RepoPath, SHA256: f.SHA256}
		if cbRepo != nil {
			fi.Commit = cbRepo.head
			fi.Dirty = cbRepo.dirty(sp)
		}
		listed := len(opt.ConfigKeys) == 0 // with globs: only files with a matching cell
		if listed {
			rep.CookbookFiles = append(rep.CookbookFiles, fi)
		}
		for ci := range f.Cells {
			cell := &f.Cells[ci]
			if !opt.KeyInScope(cell.ConfigKey) {
				continue
			}
			c.progress("agentx", done, units, cell.ConfigKey)
			done++
			cited := false
			if !listed {
				rep.CookbookFiles = append(rep.CookbookFiles, fi)
				listed = true
			}
			for pi := range cell.Points {
				prov := f.Provenance(ci, pi)
				if prov.Recipe == "" {
					continue // not a citation of an InferenceX recipe
				}
				cited = true
				pr := report.PointResult{
					File: f.RepoPath, Cell: ci, CellID: cell.ID, ConfigKey: cell.ConfigKey, Point: pi,
					Concs: cell.Points[pi].Concs, Recipe: prov.Recipe, Selector: prov.Override,
					ProvSHA: prov.SHA, ProvStatus: prov.Status,
				}
				sel := f.Measured(ci, pi)
				pr.Router, pr.KV = sel.Router, sel.KV
				model := ""
				if ws != nil {
					// older entries name an srt alias, not an HF id
					e, err := ws.Entry(cell.ConfigKey)
					if err != nil && !errors.Is(err, infx.ErrUnknownKey) {
						// the compared key does not load: bad input
						return err
					}
					if err == nil && launch.LooksHF(e.Model) {
						model = e.Model
					}
				}
				if err := c.ctx.Err(); err != nil {
					return err
				}
				pr.Line = cellLine(src, cell.ID)
				if ok, why := c.inScope(cell.ConfigKey); !ok {
					pr.Status, pr.Verdict, pr.Message = report.StatusNotApplicable, compare.NotApplicable, why
					rep.Points = append(rep.Points, pr)
					continue
				}
				c.comparePoint(&pr, f, sel, model)
				noteDrift(&pr)
				rep.Points = append(rep.Points, pr)
			}
			if cited {
				c.countKey(cell.ConfigKey, func(h *patternHits) { h.keys++ })
			} else {
				c.countKey(cell.ConfigKey, func(h *patternHits) { h.bareCells++ })
			}
		}
	}
	c.progress("agentx", done, units, "")
	if len(rep.Points) > 0 || len(opt.ConfigKeys) > 0 {
		// with ConfigKeys, Run names each pattern that matched nothing
		// (checkConfigKeys), whichever part was to judge it
		return nil
	}
	return &OptionError{Field: "CookbookDir", Value: c.agentxDir, Msg: "no cookbook point cites an InferenceX recipe (prov.recipe, point.recipe, recipeUrl): nothing was compared"}
}

type renderResult struct {
	d   *launch.Deployment
	err error
}

func (c *run) comparePoint(pr *report.PointResult, f *cookbook.File, sel cookbook.Selection, model string) {
	defer func() {
		// a point that was not compared has its status's verdict
		if pr.Status != report.StatusCompared {
			pr.Verdict = pr.Status.Verdict()
		}
	}()
	opt, ws, repo, render, cache := c.opt, c.ws, c.ixRepo, c.render, c.renders
	infxDir := opt.InfxDir
	cited := infx.ResolveRecipe(infxDir, pr.Recipe, infx.ResolveOptions{Form: infx.FormCitation})
	file, rel := cited.File, cited.Rel
	if file != "" {
		pr.RecipeFile = rel
		pr.Drift = repo.drift(rel, pr.ProvSHA)
	} else {
		what := "recipe"
		if strings.HasSuffix(pr.Recipe, ".sh") {
			what = "script"
		}
		pr.Drift = report.Drift{State: report.DriftUnknown, Detail: what + " not in the InferenceX checkout"}
	}
	if strings.HasSuffix(pr.Recipe, ".sh") {
		if file == "" {
			pr.Status = report.StatusScriptNotFound
			pr.Message = fmt.Sprintf("single-node script %s is not in the InferenceX checkout", pr.Recipe)
			return
		}
		c.compareScript(pr, f, sel, file)
		return
	}
	cloneRef := cited.SrtSlurm != ""
	if dec, err := f.Decode(sel); err == nil && (file != "" || cloneRef) {
		// A cited file that is in the InferenceX checkout, or a path of the srt-slurm clone
		// (CONFIG_FILE form): rendered as the launcher submits it. A cited
		// file that is not in the InferenceX checkout at all (a later InferenceX commit's
		// path) stays "recipe not found" below.
		if d, handled := c.launcherRender(pr, f, sel, &dec.Deployment); handled {
			if d != nil {
				attachCookbookFiles(&dec.Deployment, f, sel)
				attachCookbookInstall(&dec.Deployment, f, sel)
				rc := *d
				rc.Source.Recipe = d.Source.File
				res, err := compare.Compare(&dec.Deployment, &rc, c.options())
				if err != nil {
					pr.Status, pr.Message = report.StatusError, err.Error()
					return
				}
				pr.Status, pr.Roles, pr.Verdict = report.StatusCompared, res, compare.Summary(res)
			}
			return
		}
	}
	fromDir := ""
	if file == "" && cloneRef && opt.SrtSlurmDir != "" {
		// A cited recipes/… path of the srt-slurm clone that no launcher of
		// the checkout resolved: read from SrtSlurmDir.
		c := filepath.Join(opt.SrtSlurmDir, filepath.FromSlash(strings.TrimPrefix(path.Clean("/"+pr.Recipe), "/")))
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			file, rel = c, pr.Recipe
			pr.RecipeFile = rel
			fromDir = fmt.Sprintf("recipe %s read from the given srt-slurm checkout (version %q); no launcher of the checkout says which srt-slurm ref runs it", pr.Recipe, opt.SrtSlurmVersion)
		}
	}
	if file == "" {
		c.notFound(pr, f, sel)
		return
	}
	key := file + "\x00" + pr.Selector + "\x00" + model
	rr, ok := cache[key]
	if !ok {
		rr.d, rr.err = render(file, pr.Selector, model)
		cache[key] = rr
	}
	if rr.err != nil {
		pr.Status, pr.Message = report.StatusError, rr.err.Error()
		return
	}
	dec, err := f.Decode(sel)
	if err != nil {
		pr.Status, pr.Message = report.StatusError, err.Error()
		return
	}
	attachCookbookFiles(&dec.Deployment, f, sel)
	attachCookbookInstall(&dec.Deployment, f, sel)
	rc := *rr.d
	rc.Source.Recipe, rc.Source.Selector = rel, pr.Selector
	rc.Processes = withMasterImage(rc.Processes, ws, pr.ConfigKey)
	infx.AttachSrtSlurmConfigs(rc.Processes, opt.SrtSlurmDir, opt.SrtSlurmVersion, "")
	res, err := compare.Compare(&dec.Deployment, &rc, c.options())
	if err != nil {
		pr.Status, pr.Message = report.StatusError, err.Error()
		return
	}
	pr.Status = report.StatusCompared
	pr.Roles = res
	pr.Verdict = compare.Summary(res)
	if fromDir != "" {
		pr.Message = fromDir
	}
}

// notFound sets the status of a point whose cited srt-slurm recipe is not
// under infxDir: StatusUpstreamOnly when it lives in NVIDIA/srt-slurm —
// the cited path is a recipes/… path, or the master-config point the
// cookbook point was measured as (MatchPoint) is one infx reports
// upstream-only — else StatusRecipeNotFound.
func (c *run) notFound(pr *report.PointResult, f *cookbook.File, sel cookbook.Selection) {
	ws, rules := c.ws, c.rules
	if _, ok := infx.SrtSlurmPath(pr.Recipe); ok {
		pr.Status = report.StatusUpstreamOnly
		pr.Message = fmt.Sprintf("recipe %s is not in the InferenceX checkout, nor its overlay under benchmarks/multi_node/srt-slurm-recipes/: it lives in the NVIDIA/srt-slurm ref the launcher clones", pr.Recipe)
		return
	}
	pr.Status = report.StatusRecipeNotFound
	pr.Message = fmt.Sprintf("recipe %s is not in the InferenceX checkout", pr.Recipe)
	if ws != nil && ws.Layout == infx.LayoutOld && infx.NewLayoutPath(pr.Recipe) {
		pr.Message += "; the path is in the newer inferencex-e2e layout (srt-slurm-recipes/<model>/<engine>/…), and the InferenceX checkout has the old layout (srt-slurm-recipes/<engine>/<model>/…): the cookbook cites a later InferenceX commit"
	}
	if ws == nil {
		return
	}
	dec, err := f.Decode(sel)
	if err != nil {
		return
	}
	m := MatchPoint(ws, pr.ConfigKey, queryOf(f, sel, &dec.Deployment, rules))
	if m.Status != report.StatusCompared || len(m.Points) == 0 || m.Points[0].Status != infx.StatusUpstreamOnly {
		return
	}
	p := m.Points[0]
	ref := p.RecipeRef
	if p.Selector != "" {
		ref += ":" + p.Selector
	}
	row := p.Row
	pr.Row, pr.RowPos = &row, c.relPos(p.Pos)
	pr.Status = report.StatusUpstreamOnly
	pr.Message = fmt.Sprintf("recipe %s is not in the InferenceX checkout; the master-config point it was measured as (%s row %d, %s) runs CONFIG_FILE=%s, which lives in the NVIDIA/srt-slurm ref the launcher clones",
		pr.Recipe, pr.ConfigKey, row, pr.RowPos, ref)
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
			return nil, &OptionError{Field: "CookbookDir", Value: dir, Msg: "no docs/src/snippets/agentx directory (want an sgl-project/sglang checkout)"}
		}
		return nil, err
	}
	if len(out) == 0 {
		return nil, &OptionError{Field: "CookbookDir", Value: dir, Msg: "no AgentX snippets under docs/src/snippets/agentx"}
	}
	sort.Strings(out)
	return out, nil
}

// noteDrift qualifies every difference of a point whose recipe may have
// moved since the cookbook point was generated: the recipe changed since
// prov.sha, prov.sha is not in the InferenceX checkout (also when the InferenceX checkout has no git
// history), or the concurrency moved (MatchPoint drift). A reader then knows the difference may be commit drift rather
// than a documentation gap.
func noteDrift(pr *report.PointResult) {
	note := ""
	switch {
	case pr.Drift.State == report.DriftChanged && strings.HasPrefix(pr.Drift.Detail, "possible commit drift"):
		note = pr.Drift.Detail
	case pr.Drift.State == report.DriftChanged:
		note = "possible commit drift: " + pr.Drift.Detail
	case pr.Drift.State == report.DriftUnknown && strings.Contains(pr.Drift.Detail, "is not in the checkout"):
		note = "possible commit drift: " + strings.Replace(pr.Drift.Detail, "is not in the checkout", "is not in the InferenceX checkout", 1)
	case pr.Drift.State == report.DriftUnknown && pr.ProvSHA != "" && strings.Contains(pr.Drift.Detail, "not a git checkout"):
		// prov.sha cannot be in a tree without history either.
		note = fmt.Sprintf("possible commit drift: the InferenceX checkout is not a git checkout, so prov.sha %.12s cannot be compared", pr.ProvSHA)
	}
	if note == "" {
		return
	}
	for i := range pr.Roles {
		for j := range pr.Roles[i].Differences {
			d := &pr.Roles[i].Differences[j]
			if d.Note != "" {
				// what the comparison noted (the policy rule a major
				// difference falls under, the image's engine-version
				// drift) stays first
				d.Note += "; " + note
				continue
			}
			d.Note = note
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

// cellLine is the 1-based line of the first occurrence of the cell id as a
// quoted string in the snippet source (where the cell starts, for
// permalinks and annotations); 0 when not found.
func cellLine(src []byte, id string) int {
	if id == "" {
		return 0
	}
	i := bytes.Index(src, []byte(strconv.Quote(id)))
	if i < 0 {
		return 0
	}
	return bytes.Count(src[:i], []byte("\n")) + 1
}

// localDirs are the run's directories as given and absolute (symlinks
// resolved too), longest first, for report.Report.Scrub.
func localDirs(dirs ...string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(d string) {
		d = strings.TrimSuffix(d, "/")
		if d != "" && d != "." && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		add(d)
		add(filepath.Clean(d))
		add(strings.TrimPrefix(filepath.Clean(d), "./"))
		if a, err := filepath.Abs(d); err == nil {
			add(a)
			if e, err := filepath.EvalSymlinks(a); err == nil {
				add(e)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// ClassifyCookbooks sorts dirs (Options.CookbookDirs) into the checkout
// with AgentX snippets (docs/src/snippets/agentx) and the one with cookbook
// pages (docs/src/snippets/configs or autoregressive — under docs_new/
// before sgl-project/sglang moved the docs on 2026-08-03 —, also below a
// docs directory given itself); "" for a kind none holds, and one directory
// may hold both. Errors (*OptionError, Field "CookbookDir"): a directory
// with neither, or two of one kind.
func ClassifyCookbooks(dirs []string) (agentx, pagesDir string, err error) {
	return classifyCookbooks(dirs)
}

// classifyCookbooks is ClassifyCookbooks.
func classifyCookbooks(dirs []string) (agentx, pagesDir string, err error) {
	has := func(d string, parts ...string) bool {
		st, err := os.Stat(filepath.Join(append([]string{d}, parts...)...))
		return err == nil && st.IsDir()
	}
	for _, d := range dirs {
		a := has(d, "docs", "src", "snippets", "agentx")
		p := has(d, "docs", "src", "snippets", "configs") || has(d, "docs", "src", "snippets", "autoregressive") ||
			has(d, "docs_new", "src", "snippets", "configs") || has(d, "docs_new", "src", "snippets", "autoregressive") ||
			has(d, "src", "snippets", "configs") || has(d, "src", "snippets", "autoregressive")
		switch {
		case !a && !p:
			return "", "", &OptionError{Field: "CookbookDir", Value: d, Msg: "has neither AgentX snippets (docs/src/snippets/agentx) nor cookbook pages (docs/src/snippets/configs, autoregressive): want an sgl-project/sglang checkout"}
		case a && agentx != "":
			return "", "", &OptionError{Field: "CookbookDir", Value: d, Msg: "a second checkout with AgentX snippets (the first is " + launch.QuotePath(agentx) + "): give one"}
		case p && pagesDir != "":
			return "", "", &OptionError{Field: "CookbookDir", Value: d, Msg: "a second checkout with cookbook pages (the first is " + launch.QuotePath(pagesDir) + "): give one"}
		}
		if a {
			agentx = d
		}
		if p {
			pagesDir = d
		}
	}
	return agentx, pagesDir, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// readInCheckout reads rel inside the checkout dir (launch.ReadInput's
// bounds), refusing a file whose real path leaves the checkout (a link
// out of it): what a checkout states must be in the checkout.
func readInCheckout(dir, rel string) ([]byte, error) {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	if r, err := filepath.Rel(root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s links outside the checkout (to %s)", rel, launch.QuotePath(real))
	}
	return launch.ReadInput(real)
}
