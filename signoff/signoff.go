// Package signoff is Check 3 for one InferenceX pull request: the config
// keys a commit range affects, their coverage at the head commit from every
// source, and whether the upstream content that covers them is merged
// (Check 3 (b)), as one result a reviewer pastes into the sign-off.
//
// A key is affected when an entry added to perf-changelog.yaml in the
// range names it (exact keys or '*' globs, expanded against head, and
// against base for keys the range retires: InferenceX
// utils/process_changelog.py get_config_keys_from_master) or when its
// effective render differs between base and head (every point's
// deployment fingerprinted: programs, images, arguments, environment,
// counts and files; origins left out). Both commits are read with package
// gittree and rendered from read-only copies. Keys whose master entry or
// rendered files changed but whose render did not are counted, not judged.
package signoff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/coverage"
	"github.com/cookbook-sync/cookbook-sync/gittree"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// LinkReader reads the Check 3 (b) state of upstream links (package
// upstream through the CLI; a fake in tests). An unreadable link comes
// back with State report.LinkUnknown and its Error.
type LinkReader func(ctx context.Context, urls []string) ([]report.Link, error)

// Options configure Run.
type Options struct {
	// Coverage are the sources and judgment options of the coverage run
	// (coverage.Options): InfxDir is the InferenceX git checkout (or bare
	// repository) the commits are read from; ConfigKeys and InfxCommit
	// are set by Run.
	Coverage coverage.Options
	// Head is the PR's commit ("HEAD" when empty); Base the commit it is
	// compared with (Head's first parent when empty).
	Head, Base string
	// Upstream are upstream PR / page links given by the reviewer
	// (--upstream); PR links found in the added changelog entries'
	// descriptions are added to them.
	Upstream []string
	// Links reads link states; nil: none is read (every link not verified,
	// "merge state unknown").
	Links LinkReader
	// Render configures the renders of base and head (SrtSlurmVersion,
	// script limits); Coverage.SrtSlurmVersion is used when empty.
	Render infx.Options
	// TempDir is where the two trees are materialized (os.TempDir when
	// empty); they are removed before Run returns.
	TempDir string
	// MaxChanges bounds the render changes listed per key (default 12).
	MaxChanges int
}

// CommitInfo is one end of the range.
type CommitInfo struct {
	Hash  string `json:"hash"`
	Title string `json:"title"`
	PR    int    `json:"pr,omitempty"` // the "(#N)" of a squash-merge title
}

// Key is one config key the range touches.
type Key struct {
	ConfigKey string `json:"configKey"`
	Framework string `json:"framework"`
	// Why: "changelog entry N (pattern)" and/or "render changed".
	Why []string `json:"why"`
	// Changes: what changed in the render (render changed only).
	Changes []string `json:"changes,omitempty"`
	// Verdict is the key's Check 3 verdict at head (coverage), then
	// Merge: the merge state of the content that covers it.
	Verdict compare.Verdict `json:"verdict,omitempty"`
	Source  string          `json:"source,omitempty"`
	// Final is the verdict with merge state: a covered key whose covering
	// content is not known to be merged is "not verified".
	Final compare.Verdict `json:"final,omitempty"`
	Note  string          `json:"note,omitempty"`
}

// MergeState is Check 3 (b) for one source of content.
type MergeState struct {
	Source string `json:"source"` // agentx | sglang-pages | vllm-recipes
	Dir    string `json:"dir"`
	// Repo/Commit/Branch: the checkout, when it is one.
	Repo   string `json:"repo,omitempty"`
	Commit string `json:"commit,omitempty"`
	Branch string `json:"branch,omitempty"`
	// Link is the upstream link that decides it, when the checkout does
	// not (a PR branch, a directory that is not a checkout).
	Link *report.Link `json:"link,omitempty"`
	// Merged: the content is on the upstream default branch or its PR is
	// merged; false when unknown (fail closed). Why says which.
	Merged bool   `json:"merged"`
	Why    string `json:"why"`
}

// Result is one sign-off.
type Result struct {
	Base CommitInfo `json:"base"`
	Head CommitInfo `json:"head"`
	// Changed counts the paths the range changes.
	Changed []string `json:"changed"`
	// Entries are the perf-changelog.yaml entries the range adds.
	Entries []Entry `json:"entries"`
	// Unmatched are config-keys items of added entries that name no key
	// at head or base.
	Unmatched []string `json:"unmatched,omitempty"`
	// Keys are the affected in-scope keys, judged; OutOfScope the affected
	// keys of frameworks outside Check 3; Retired the keys in base and
	// not in head.
	Keys       []Key    `json:"keys"`
	OutOfScope []Key    `json:"outOfScope,omitempty"`
	Retired    []string `json:"retired,omitempty"`
	// SameRender counts keys whose master entry or rendered files changed
	// but whose render did not (not judged); SameRenderKeys names them.
	SameRender     int      `json:"sameRender"`
	SameRenderKeys []string `json:"sameRenderKeys,omitempty"`
	// Merge is the merge state of each source that covers an affected key.
	Merge []MergeState `json:"merge,omitempty"`
	// Coverage is the coverage run of the affected keys at head (nil when
	// none is in scope).
	Coverage *report.Report `json:"coverage,omitempty"`
	// Verdict: covered (every affected key covered and merged), "no keys"
	// (nothing to judge), or the worst key verdict.
	Verdict compare.Verdict `json:"verdict"`
	// Gap: the sign-off fails (a key not covered, or merge state not
	// verified); Errors: a key could not be judged.
	Gap    bool `json:"gap"`
	Errors bool `json:"errors"`
}

// MergeUnknown is the final verdict of a key whose content covers it
// but whose merge state (Check 3 (b)) is not verified: it fails closed
// (InferenceX .github/codeowner-signoff-verify-prompt.md: "if the status
// can't be verified, the check fails").
const MergeUnknown compare.Verdict = "not verified: merge state unknown"

// NoKeys is the verdict of a range that affects no in-scope config key.
const NoKeys compare.Verdict = "no keys"

// ErrRange is returned (wrapped) for a range Run cannot read: an unknown
// revision, a root commit without --base.
var ErrRange = errors.New("bad commit range")

// RangeError is a bad commit range: Field is the option ("Head", "Base")
// whose revision cannot be read. It wraps ErrRange and the cause.
type RangeError struct {
	Field string
	Err   error
}

func (e *RangeError) Error() string { return ErrRange.Error() + ": " + e.Field + ": " + e.Err.Error() }

// Unwrap gives ErrRange and the cause.
func (e *RangeError) Unwrap() []error { return []error{ErrRange, e.Err} }

// Run signs off the range Base..Head of the InferenceX repository at
// Options.Coverage.InfxDir. Errors: gittree.ErrNotRepo (wrapped) when the
// directory is no git repository, ErrRange, a master config or changelog
// that does not parse at either end, ctx.Err().
func Run(ctx context.Context, opt Options) (*Result, error) {
	repoDir := opt.Coverage.InfxDir
	repo, err := gittree.Open(repoDir)
	if err != nil {
		return nil, err
	}
	if opt.Head == "" {
		opt.Head = "HEAD"
	}
	head, err := repo.Resolve(opt.Head)
	if err != nil {
		return nil, &RangeError{Field: "Head", Err: err}
	}
	var base *gittree.Commit
	if opt.Base == "" {
		if len(head.Parents) == 0 {
			return nil, &RangeError{Field: "Base", Err: fmt.Errorf("%s is a root commit (no first parent): give a base", head.Short())}
		}
		base, err = repo.Resolve(head.Parents[0])
	} else {
		base, err = repo.Resolve(opt.Base)
	}
	if err != nil {
		return nil, &RangeError{Field: "Base", Err: err}
	}
	if base.Hash == head.Hash {
		return nil, fmt.Errorf("%w: base and head are the same commit %s", ErrRange, head.Short())
	}
	res := &Result{Base: CommitInfo{base.Hash, base.Title, base.PR}, Head: CommitInfo{head.Hash, head.Title, head.PR}}
	if res.Changed, err = repo.Changed(ctx, base, head); err != nil {
		return nil, err
	}

	// the changelog entries the range adds
	var cl [2][]rawEntry
	for i, c := range []*gittree.Commit{base, head} {
		data, err := c.ReadFile(ChangelogFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if cl[i], err = parseChangelog(data); err != nil {
			return nil, fmt.Errorf("%s %s: %w", []string{"base", "head"}[i], c.Short(), err)
		}
	}
	res.Entries = addedEntries(cl[0], cl[1])

	// both trees, read-only, rendered
	tmp, err := os.MkdirTemp(opt.TempDir, "cookbook-sync-signoff-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = gittree.RemoveAll(tmp) }()
	dirs := [2]string{filepath.Join(tmp, "base", "InferenceX"), filepath.Join(tmp, "head", "InferenceX")}
	ropt := opt.Render
	if ropt.SrtSlurmVersion == "" {
		ropt.SrtSlurmVersion = opt.Coverage.SrtSlurmVersion
	}
	// head rendered whole; base only where the range can have changed a
	// render: every key when a shared file changed, else the keys whose
	// master entry or rendered files the range touches
	var trees [2]*tree
	for i, c := range []*gittree.Commit{base, head} {
		if err := gittree.Materialize(ctx, c.FS(), dirs[i], gittree.Limits{}); err != nil {
			return nil, fmt.Errorf("%s %s: %w", []string{"base", "head"}[i], c.Short(), err)
		}
		if trees[i], err = loadTree(dirs[i], opt.Coverage); err != nil {
			return nil, fmt.Errorf("%s %s: %w", []string{"base", "head"}[i], c.Short(), err)
		}
	}
	rb, rh := trees[0].keys, trees[1].keys
	headKeys, baseKeys := sortedKeys(rh), sortedKeys(rb)
	if err := trees[1].render(ctx, headKeys, ropt); err != nil {
		return nil, fmt.Errorf("head %s: %w", head.Short(), err)
	}
	changed := map[string]bool{}
	for _, p := range res.Changed {
		changed[p] = true
	}
	// a changed path no key names as its own (its master config, script
	// or recipe) and that is no changelog or prose — benchmark_lib.sh, a
	// launcher, a workflow — is an input of every key
	own := map[string]bool{}
	for _, m := range []map[string]*keyRender{rb, rh} {
		for _, kr := range m {
			own[kr.master] = true
			for _, f := range kr.named {
				own[f] = true // a key's own script, in scope or not
			}
		}
	}
	for _, kr := range rh {
		for f := range kr.files {
			own[f] = true
		}
	}
	shared := false
	for _, p := range res.Changed {
		if !own[p] && p != ChangelogFile && !strings.HasSuffix(p, ".md") {
			shared = true
		}
	}
	var baseTodo []string
	for _, k := range baseKeys {
		h := rh[k]
		if h == nil {
			continue // retired: not rendered
		}
		if shared || rb[k].entry != h.entry || touches(h.files, changed) || touchesAny(h.named, changed) || touchesAny(rb[k].named, changed) {
			baseTodo = append(baseTodo, k)
		}
	}
	if err := trees[0].render(ctx, baseTodo, ropt); err != nil {
		return nil, fmt.Errorf("base %s: %w", base.Short(), err)
	}

	affected := map[string]*Key{}
	get := func(k string) *Key {
		if a, ok := affected[k]; ok {
			return a
		}
		a := &Key{ConfigKey: k, Framework: rh[k].framework}
		affected[k] = a
		return a
	}
	retired := map[string]bool{}
	for i := range res.Entries {
		e := &res.Entries[i]
		e.Matched = map[string][]string{}
		for _, item := range e.ConfigKeys {
			ks := matchKeys(item, headKeys)
			for _, k := range ks {
				a := get(k)
				a.Why = appendNew(a.Why, fmt.Sprintf("changelog entry %d (%s)", e.Index, item))
			}
			for _, k := range matchKeys(item, baseKeys) {
				if _, ok := rh[k]; !ok {
					retired[k] = true
					ks = append(ks, k)
				}
			}
			if len(ks) == 0 {
				res.Unmatched = append(res.Unmatched, fmt.Sprintf("%s (changelog entry %d, line %d)", item, e.Index, e.Line))
			}
			e.Matched[item] = ks
		}
	}
	for _, k := range baseKeys {
		if _, ok := rh[k]; !ok {
			retired[k] = true
		}
	}
	maxChanges := opt.MaxChanges
	if maxChanges <= 0 {
		maxChanges = 12
	}
	for _, k := range headKeys {
		h, b := rh[k], rb[k]
		if b == nil {
			a := get(k)
			a.Why = appendNew(a.Why, "new config key")
			continue
		}
		if !h.inScope && h.framework != "" {
			// out of scope, never rendered: listed as such when the range
			// changes its master entry or its own files
			if b.entry != h.entry {
				a := get(k)
				a.Why = appendNew(a.Why, "master-config entry changed")
			}
			if touches(h.files, changed) || touchesAny(h.named, changed) {
				a := get(k)
				a.Why = appendNew(a.Why, "its script or recipe changed")
			}
			continue
		}
		if !b.rendered || !h.inScope {
			continue // the range touches nothing it renders from; out of scope: not rendered
		}
		if sameRender(b, h) {
			if shared && h.inScope || b.entry != h.entry || touches(h.files, changed) || touches(b.files, changed) || touchesAny(h.named, changed) || touchesAny(b.named, changed) {
				res.SameRender++
				res.SameRenderKeys = append(res.SameRenderKeys, k)
			}
			continue
		}
		a := get(k)
		a.Why = appendNew(a.Why, "render changed")
		a.Changes = renderChanges(b, h, dirs[0], dirs[1], maxChanges)
	}
	for k := range retired {
		res.Retired = append(res.Retired, k)
	}
	sort.Strings(res.Retired)

	var judge []string
	for _, k := range headKeys {
		a, ok := affected[k]
		if !ok {
			continue
		}
		if rh[k].inScope {
			judge = append(judge, k)
			res.Keys = append(res.Keys, *a)
		} else {
			a.Note = a.Framework + " is outside Check 3 (vLLM/SGLang only)"
			res.OutOfScope = append(res.OutOfScope, *a)
		}
	}
	if len(judge) == 0 {
		res.Verdict = NoKeys
		return res, nil
	}

	// coverage of exactly those keys at head
	copt := opt.Coverage
	copt.InfxDir = dirs[1]
	copt.InfxCommit = &coverage.CommitRef{Repo: repoDir, Commit: head.Hash}
	copt.ConfigKeys = judge
	rep, err := coverage.Run(ctx, copt)
	if err != nil {
		return nil, err
	}
	rep.InferenceX.Dir = absDir(repoDir)
	res.Coverage = rep

	// Check 3 (b): where the covering content comes from
	links := slices.Clone(opt.Upstream)
	for _, e := range res.Entries {
		for _, d := range e.Description {
			for _, u := range upstreamPRRe.FindAllString(d, -1) {
				if !slices.Contains(links, u) {
					links = append(links, u)
				}
			}
		}
	}
	var linkStates []report.Link
	if len(links) > 0 {
		if opt.Links == nil {
			for _, u := range links {
				linkStates = append(linkStates, report.Link{URL: u, State: report.LinkUnknown, Error: "link states were not read (offline)"})
			}
		} else if linkStates, err = opt.Links(ctx, links); err != nil {
			return nil, err
		}
	}
	merge := map[string]*MergeState{}
	verdicts := map[string]report.KeyVerdict{}
	for _, kv := range rep.Keys {
		verdicts[kv.ConfigKey] = kv
	}
	for i := range res.Keys {
		k := &res.Keys[i]
		kv, ok := verdicts[k.ConfigKey]
		if !ok {
			k.Verdict, k.Final = compare.Error, compare.Error
			k.Note = "the coverage run gave no verdict for this key"
			res.Errors = true
			continue
		}
		k.Verdict, k.Source, k.Final = kv.Verdict, kv.Source, kv.Verdict
		if kv.Note != "" {
			k.Note = kv.Note
		}
		if !covered(kv.Verdict) {
			continue
		}
		// every source a unit is covered by must be merged
		var srcs []string
		for _, u := range kv.Units {
			if covered(u.Verdict) && !slices.Contains(srcs, u.Source) {
				srcs = append(srcs, u.Source)
			}
		}
		for _, s := range srcs {
			m, ok := merge[s]
			if !ok {
				m = mergeState(s, rep, linkStates)
				merge[s] = m
			}
			if !m.Merged {
				k.Final = MergeUnknown
				k.Note = "merge state unknown: " + m.Why
			}
		}
	}
	for _, m := range merge {
		res.Merge = append(res.Merge, *m)
	}
	sort.Slice(res.Merge, func(i, j int) bool { return res.Merge[i].Source < res.Merge[j].Source })
	mergeUnknown := false
	for _, k := range res.Keys {
		if k.Final == MergeUnknown {
			mergeUnknown = true
			res.Verdict = compare.Worse(res.Verdict, k.Verdict)
		} else {
			res.Verdict = compare.Worse(res.Verdict, k.Final)
		}
		if !covered(k.Final) {
			res.Gap = true
		}
		if k.Final == compare.Error {
			res.Errors = true
		}
	}
	if mergeUnknown && covered(res.Verdict) {
		res.Verdict = MergeUnknown
	}
	if rep.Errors {
		res.Errors = true
	}
	return res, nil
}

func covered(v compare.Verdict) bool {
	return v == compare.Covered || v == compare.CoveredWithExclusions
}

func sortedKeys(m map[string]*keyRender) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func appendNew(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// sameRender: the same points with the same outcomes and fingerprints.
func sameRender(a, b *keyRender) bool {
	if len(a.points) != len(b.points) || a.inScope != b.inScope {
		return false
	}
	for id, p := range a.points {
		q, ok := b.points[id]
		if !ok || p.fp != q.fp {
			return false
		}
	}
	return true
}

func touches(files, changed map[string]bool) bool {
	for f := range files {
		if changed[f] {
			return true
		}
	}
	return false
}

// touchesAny reports whether one of files is changed.
func touchesAny(files []string, changed map[string]bool) bool {
	for _, f := range files {
		if changed[f] {
			return true
		}
	}
	return false
}

func absDir(d string) string {
	if a, err := filepath.Abs(d); err == nil {
		return a
	}
	return d
}

// githubRepoRe reads OWNER/NAME from a GitHub remote URL.
var githubRepoRe = regexp.MustCompile(`github\.com[:/]([^/]+/[^/]+?)(?:\.git)?/?$`)

// upstreamRepo is the upstream repository of a source's content.
func upstreamRepo(source string) string {
	if source == report.SourceVLLMRecipes {
		return "vllm-project/recipes"
	}
	return "sgl-project/sglang"
}

// mergeState decides Check 3 (b) for source: content read from a checkout
// of the upstream repository whose HEAD is on its default branch
// (origin's HEAD, main or master) is merged, at that commit; otherwise a
// merged PR link of the upstream repository decides; otherwise the state
// is unknown (not merged: fail closed).
func mergeState(source string, rep *report.Report, links []report.Link) *MergeState {
	want := upstreamRepo(source)
	m := &MergeState{Source: source}
	var info *report.RepoInfo
	switch source {
	case report.SourceAgentX:
		info = rep.Cookbook
	case report.SourcePages:
		info = rep.PagesRepo
	case report.SourceVLLMRecipes:
		info = rep.VLLMRecipes
	}
	if info != nil {
		m.Dir = info.Dir
	}
	why := "no upstream checkout or merged PR link decides it"
	if m.Dir != "" {
		if g, err := gittree.Open(m.Dir); err != nil {
			why = m.Dir + " is not a git checkout"
		} else if h, err := g.Resolve("HEAD"); err != nil {
			why = "HEAD of " + m.Dir + " cannot be read"
		} else {
			m.Commit = h.Hash
			origin := g.Remote("origin")
			if mm := githubRepoRe.FindStringSubmatch(origin); mm != nil {
				m.Repo = mm[1]
			}
			ref, tip := g.DefaultBranch("origin")
			switch {
			case !strings.EqualFold(m.Repo, want):
				why = fmt.Sprintf("the checkout's origin is %q, not github.com/%s", origin, want)
			case ref == "":
				why = "the checkout has no remote-tracking default branch of origin"
			default:
				m.Branch = ref
				if ok, err := g.IsAncestor(h.Hash, tip); err == nil && ok {
					m.Merged = true
					m.Why = fmt.Sprintf("checkout of %s at %s, on %s", want, h.Short(), ref)
					return m
				}
				why = fmt.Sprintf("HEAD %s is not on %s (a PR branch?)", h.Short(), ref)
			}
		}
	}
	for _, l := range links {
		if !strings.EqualFold(l.Repo, want) && !strings.Contains(l.URL, "/"+want+"/") {
			continue
		}
		lc := l
		m.Link = &lc
		if l.State == report.LinkMerged && l.MergedAt != nil && l.Error == "" {
			m.Merged = true
			m.Why = why + "; " + l.URL + " is merged"
			return m
		}
		why += "; " + l.URL + " is " + l.State
		if l.Error != "" {
			why += " (" + l.Error + ")"
		}
	}
	m.Why = why
	return m
}
