// Package drift is the nightly drift job: whether what the cookbook shows
// still matches the InferenceX recipes it was generated from, and what is
// new since the last run.
//
// Every AgentX point of the cookbook checkout names the InferenceX commit
// and recipe it was measured with (its provenance: cell.prov.sha /
// point.sha, cookbook.Provenance). Drift compares what the cookbook shows
// with that recipe twice — at the pinned commit (the commit's tree read
// with package gittree, as `signoff` reads a PR's head) and at InferenceX
// head (the checkout as given) — with the coverage run of package coverage,
// and gives each point a State: in sync, InferenceX moved (the recipe
// changed since the pinned commit: Item.Changes lists the settings the next
// cookbook sync must carry), cookbook drifted (the cookbook no longer shows
// what the pinned recipe runs), recipe gone, pinned commit not available
// (counted, never a failure by itself) or not verified (with its reason:
// nothing unknown is ever in sync).
//
// Hand-written cookbook pages and vLLM recipes carry no provenance: their
// drift is a change of a config key's coverage verdict against the previous
// run's state (State): a key that was covered and no longer is.
//
// What is new is decided against the previous run's state (a first run:
// everything found is new); what is accepted by the user's Baseline (each
// entry with a reason and an expiry date). Result.Failed is true when some
// drift is new and not accepted, or accepted by an expired entry.
package drift

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/cookbook"
	"github.com/cookbook-sync/cookbook-sync/coverage"
	"github.com/cookbook-sync/cookbook-sync/gittree"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/report"
	"github.com/cookbook-sync/cookbook-sync/runcache"
)

// State is the drift state of one deployment (an AgentX point, or a config
// key judged against the pages or the vLLM recipes).
type State string

// The states. Drifted says which count as drift.
const (
	// InSync: the cookbook shows what the recipe runs at the pinned commit
	// and at head (AgentX), or the key is covered (pages, vLLM).
	InSync State = "in sync"
	// InfxMoved: the cookbook shows what the pinned recipe ran, and the
	// recipe at head runs something else (Item.Changes).
	InfxMoved State = "InferenceX moved"
	// CookbookDrifted: the cookbook does not show what the recipe ran at
	// the pinned commit (Item.Changes).
	CookbookDrifted State = "cookbook drifted"
	// RecipeGone: the recipe (or script) the point cites is not in
	// InferenceX head: the key or recipe was retired.
	RecipeGone State = "recipe gone"
	// PinnedNotAvailable: the pinned commit is not in the checkout's
	// history (or the point names none): counted, never a failure by
	// itself.
	PinnedNotAvailable State = "pinned commit not available"
	// NotVerified: one side could not be rendered or compared (Item.Reason):
	// never in sync, drift when new.
	NotVerified State = "not verified"
	// CoverageLost: a page or vLLM key covered in the previous run's state
	// and no longer covered.
	CoverageLost State = "coverage lost"
	// NotCovered: a page or vLLM key not covered, as it already was in the
	// previous run's state (new only on a first run).
	NotCovered State = "not covered"
	// NotApplicable: the Check 3 policy version does not apply to the key
	// (not counted among the deployments).
	NotApplicable State = "not applicable"
)

// states is every State in report order.
var states = []State{InSync, InfxMoved, CookbookDrifted, RecipeGone, CoverageLost, NotCovered, NotVerified, PinnedNotAvailable, NotApplicable}

// Drifted reports whether s is drift: not in sync and known to differ or
// not known to match (PinnedNotAvailable and NotApplicable are not).
func (s State) Drifted() bool {
	switch s {
	case InSync, PinnedNotAvailable, NotApplicable:
		return false
	}
	return true
}

// Sources of items (report.Source*).
const (
	SourceAgentX = report.SourceAgentX
	SourcePages  = report.SourcePages
	SourceVLLM   = report.SourceVLLMRecipes
)

// Item is one deployment's drift.
type Item struct {
	// ID identifies the deployment across runs: "agentx:<snippet>#<cell
	// id>/<point>" or "<source>:<config key>" (the baseline and the state
	// name items by it).
	ID        string `json:"id"`
	Source    string `json:"source"`
	ConfigKey string `json:"configKey"`
	// File and Line place an AgentX point in its snippet (relative to the
	// cookbook checkout), a page or vLLM key at its master-config entry
	// (relative to the InferenceX checkout); Cell, CellID and Point
	// identify an AgentX point.
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Cell   int    `json:"cell,omitempty"`
	CellID string `json:"cellId,omitempty"`
	Point  int    `json:"point,omitempty"`
	// Recipe is the cited recipe; ProvSHA the pinned commit; ProvStatus
	// the provenance status the cookbook shows (verified, in-progress …).
	Recipe     string `json:"recipe,omitempty"`
	ProvSHA    string `json:"provSha,omitempty"`
	ProvStatus string `json:"provStatus,omitempty"`
	State      State  `json:"state"`
	// Pinned and Head are the coverage verdicts at the pinned commit and
	// at head ("" when not judged there).
	Pinned compare.Verdict `json:"pinned,omitempty"`
	Head   compare.Verdict `json:"head,omitempty"`
	// Changes are the settings that differ, "role: setting: a → b": for
	// InfxMoved the pinned value (what the cookbook shows) → head's; for
	// CookbookDrifted what the cookbook shows → what the pinned recipe
	// runs; for a page or vLLM key the head differences.
	Changes []string `json:"changes,omitempty"`
	// Reason explains NotVerified, PinnedNotAvailable, RecipeGone.
	Reason string `json:"reason,omitempty"`
	// Previous is the item's state in the previous run ("" when it had
	// none, or there was no previous run).
	Previous State `json:"previous,omitempty"`
	// New: drifted, and not in this state in the previous run (every
	// drifted item on a first run).
	New bool `json:"new"`
	// Accepted is the baseline entry that accepts the drift (nil: none);
	// Expired says that entry's date has passed (the drift fails again).
	Accepted *Entry `json:"accepted,omitempty"`
	Expired  bool   `json:"expired,omitempty"`
	// Fails: drifted, not accepted by a current baseline entry, and new or
	// accepted by an expired entry.
	Fails bool `json:"fails"`
}

// Result is one drift run.
type Result struct {
	// InferenceX is the checkout judged as head (Commit its HEAD when a
	// git checkout).
	InferenceX report.RepoInfo `json:"inferencex"`
	// FirstRun: no previous state was given (everything found is new).
	FirstRun bool   `json:"firstRun"`
	Items    []Item `json:"items"`
	// Counts counts items by state; Deployments the items but the not
	// applicable ones; InSyncPercent InSync of Deployments (rounded down).
	Counts        map[State]int `json:"counts"`
	Deployments   int           `json:"deployments"`
	InSyncPercent int           `json:"inSyncPercent"`
	// PinnedCommits counts the distinct provenance commits of the AgentX
	// points; PinnedAvailable those the checkout's history has.
	PinnedCommits   int `json:"pinnedCommits"`
	PinnedAvailable int `json:"pinnedAvailable"`
	// NotApplicable counts the items the policy version does not apply
	// to (not among the deployments).
	NotApplicable int `json:"notApplicable,omitempty"`
	// New counts the new drifted items; Accepted those a current baseline
	// entry accepts; Expired those accepted by an expired entry; Failing
	// those that fail.
	New      int `json:"new"`
	Accepted int `json:"accepted"`
	Expired  int `json:"expired"`
	Failing  int `json:"failing"`
	// Shallow: the InferenceX checkout is a shallow clone (its pinned
	// commits are likely not available).
	Shallow bool `json:"shallow,omitempty"`
	// Failed: something drifted that is new (or whose acceptance
	// expired) and not accepted: the run exits 1.
	Failed bool `json:"failed"`
	// TimeLimit: a wall-clock backstop stopped part of the work (items
	// not verified): never a success.
	TimeLimit bool `json:"timeLimit,omitempty"`
	// Head is the head coverage report (every source given).
	Head *report.Report `json:"-"`
	// Stale are baseline entries that accept nothing drifted now.
	Stale []Entry `json:"staleBaseline,omitempty"`

	prev            map[string]SnapshotItem // the previous state, by id
	carried         []SnapshotItem          // previous items a scoped run did not judge
	allowUnverified bool
}

// Options configure Run.
type Options struct {
	// Coverage are the sources and judgment options (coverage.Options):
	// InfxDir is the InferenceX checkout judged as head — a git work tree
	// (its history gives the pinned commits), a bare git directory (its
	// HEAD is read), or a plain directory (no commit is available).
	// ConfigKeys scopes the run as for coverage.
	Coverage coverage.Options
	// Previous is the previous run's state (nil: a first run).
	Previous *Snapshot
	// Baseline is the accepted drift (nil: none).
	Baseline *Baseline
	// Now is the date baseline expiry is judged at (zero: time.Now()).
	Now time.Time
	// TempDir is where pinned commits are materialized (os.TempDir when
	// empty); they are removed before Run returns.
	TempDir string
}

// Run runs the drift job. Errors: the head coverage run's (bad options,
// *coverage.OptionError wrapping coverage.ErrUsage; a snippet that does not
// parse), a bare repository whose HEAD cannot be read, ctx.Err(). A pinned
// commit whose tree cannot be judged makes its points NotVerified, never
// an error.
func Run(ctx context.Context, opt Options) (*Result, error) {
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	agentxDir, _, err := coverage.ClassifyCookbooks(opt.Coverage.CookbookDirs)
	if err != nil {
		return nil, err
	}
	repoDir := opt.Coverage.InfxDir
	repo, repoErr := gittree.Open(repoDir)
	// the InferenceX tree inside the repository (a checkout's root, or a
	// directory of it): pinned commits are read at the same place
	sub := "."
	var headCommit *gittree.Commit
	if repoErr == nil {
		if repo.Root() != "" {
			if abs, err := filepath.Abs(repoDir); err == nil {
				if rel, err := filepath.Rel(repo.Root(), abs); err == nil && filepath.IsLocal(rel) {
					sub = filepath.ToSlash(rel)
				}
			}
		}
		headCommit, _ = repo.Resolve("HEAD")
	}
	tmp, err := os.MkdirTemp(opt.TempDir, "cookbook-sync-drift-")
	if err != nil {
		return nil, err
	}
	defer func() { _ = gittree.RemoveAll(tmp) }()

	headOpt := opt.Coverage
	if repoErr == nil && repo.Root() == "" {
		// a bare repository: head is its HEAD commit, read-only
		c, err := repo.Resolve("HEAD")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", repoDir, err)
		}
		dir := filepath.Join(tmp, "head", "InferenceX")
		if err := gittree.Materialize(ctx, c.FS(), dir, gittree.Limits{}); err != nil {
			return nil, fmt.Errorf("HEAD %s: %w", c.Short(), err)
		}
		headOpt.InfxDir = dir
		headOpt.InfxCommit = &coverage.CommitRef{Repo: repoDir, Commit: c.Hash}
		headOpt.Cache = nil
	}
	head, err := coverage.Run(ctx, headOpt)
	if err != nil {
		return nil, err
	}
	shallow := repoErr == nil && repo.Shallow()
	// the master configs at head: a point whose key they no longer define
	// is gone (its recipe was retired), not merely unmatched
	retired := func(string) bool { return false }
	if ws, err := infx.Open(headOpt.InfxDir); err == nil {
		retired = func(key string) bool {
			_, err := ws.Entry(key)
			return errors.Is(err, infx.ErrUnknownKey)
		}
	}
	headGone := func(p *report.PointResult) bool {
		return gone(p) || p.Status == report.StatusNoMatch && retired(p.ConfigKey)
	}
	res := &Result{InferenceX: head.InferenceX, Head: head, FirstRun: opt.Previous == nil, Counts: map[State]int{}, Shallow: shallow}
	if headOpt.InfxDir != opt.Coverage.InfxDir {
		// a bare repository's HEAD was judged from a copy: name the repository
		res.InferenceX.Dir = opt.Coverage.InfxDir
	}

	// the AgentX points, by pinned commit
	bySHA := map[string][]int{}
	var shas []string
	for i := range head.Points {
		sha := head.Points[i].ProvSHA
		if _, ok := bySHA[sha]; !ok && sha != "" {
			shas = append(shas, sha)
		}
		bySHA[sha] = append(bySHA[sha], i)
	}
	sort.Strings(shas)
	res.PinnedCommits = len(shas)
	pinned := map[string]*report.PointResult{} // pointKey → its result at its pinned commit
	why := map[string]string{}                 // pinned commit → why it is not available
	failed := map[string]string{}              // pinned commit → why its tree could not be judged
	for _, sha := range shas {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if repoErr != nil {
			why[sha] = "the InferenceX directory is not a git repository"
			continue
		}
		if err := cookbook.CheckSHA(sha); err != nil {
			failed[sha] = "prov.sha " + err.Error() + ": no commit is pinned"
			continue
		}
		c, err := repo.ResolveCommit(sha)
		switch {
		case errors.Is(err, gittree.ErrAmbiguous):
			failed[sha] = fmt.Sprintf("prov.sha %s names more than one commit of the InferenceX history: which recipe it pins is not known", sha)
			continue
		case err != nil && repo.BorrowsObjects():
			why[sha] = fmt.Sprintf("commit %.12s is not found: the InferenceX checkout borrows its objects through objects/info/alternates (git clone --shared or --reference), which are not read; clone it without", sha)
			continue
		case err != nil && repo.Shallow():
			why[sha] = fmt.Sprintf("commit %.12s is not in the history of the shallow InferenceX clone (fetch with fetch-depth: 0)", sha)
			continue
		case err != nil:
			why[sha] = fmt.Sprintf("commit %.12s is not in the InferenceX checkout's history", sha)
			continue
		}
		res.PinnedAvailable++
		if headCommit != nil && headCommit.Hash != c.Hash {
			if behind, err := isAncestor(repo, opt.Coverage.Cache, headCommit.Hash, c.Hash); err == nil && behind {
				// head is older than the pinned commit: the changes
				// would read backwards
				failed[sha] = fmt.Sprintf("the InferenceX checkout (HEAD %s) is older than the pinned commit %.12s: update it", headCommit.Short(), c.Hash)
				continue
			}
		}
		var keys []string
		for _, i := range bySHA[sha] {
			keys = appendNew(keys, globQuote(head.Points[i].ConfigKey))
		}
		pts, err := pinnedPoints(ctx, opt, agentxDir, repoDir, c, sub, keys, filepath.Join(tmp, c.Short()))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// the commit is there but its tree could not be judged: not
			// verified (fail closed), never "not available"
			failed[sha] = fmt.Sprintf("not judged at the pinned commit %.12s: %s", sha, strings.ReplaceAll(firstLine(err.Error()), tmp+string(filepath.Separator), ""))
			continue
		}
		for j := range pts {
			pinned[pointKey(&pts[j])] = &pts[j]
		}
	}

	for i := range head.Points {
		h := &head.Points[i]
		h.Message = head.Scrub(h.Message)
		it := Item{ID: pointID(h), Source: SourceAgentX, ConfigKey: h.ConfigKey, File: h.File, Line: h.Line, Cell: h.Cell,
			CellID: h.CellID, Point: h.Point, Recipe: h.Recipe, ProvSHA: h.ProvSHA, ProvStatus: h.ProvStatus, Head: h.Verdict}
		p := pinned[pointKey(h)]
		if p != nil {
			it.Pinned = p.Verdict
		}
		switch {
		case failed[h.ProvSHA] != "":
			it.State, it.Reason = NotVerified, failed[h.ProvSHA]
		case h.ProvSHA == "":
			it.State, it.Reason = PinnedNotAvailable, "the point names no InferenceX commit (no prov.sha)"
		case p == nil && why[h.ProvSHA] != "":
			// without the pinned tree a recipe head lacks may be retired
			// or not yet there (a cookbook citing a later commit): not
			// known, so never "gone"
			it.State, it.Reason = PinnedNotAvailable, why[h.ProvSHA]
			if headGone(h) {
				it.Reason += "; at head: " + verdictText(h.Verdict, h.Message)
			}
		case p == nil:
			it.State, it.Reason = NotVerified, fmt.Sprintf("the point is not among those judged at its pinned commit %.12s", h.ProvSHA)
		case p.Verdict == compare.NotApplicable:
			it.State, it.Reason = NotApplicable, p.Message
		default:
			pm := matches(p)
			switch {
			case pm == unknown:
				it.State, it.Reason = NotVerified, "at the pinned commit: "+verdictText(p.Verdict, p.Message)
				if (gone(p) || p.Status == report.StatusNoMatch) && headGone(h) {
					it.Reason = "the cited recipe is not in InferenceX at its pinned commit either: " + verdictText(p.Verdict, p.Message)
				}
			case coverage.ConcurrencyDrift(p):
				// the pinned commit does not run the point's concurrency:
				// what was compared is a neighbouring row
				it.State, it.Reason = NotVerified, "at the pinned commit: "+p.Drift.Detail
			case pm == differ:
				it.State, it.Changes = CookbookDrifted, changes(p.Roles, nil)
				if !headGone(h) && matches(h) != unknown {
					// what head changed besides
					for _, c := range changes(h.Roles, p.Roles) {
						it.Changes = append(it.Changes, "at head: "+c)
					}
				}
			case headGone(h):
				it.State, it.Reason = RecipeGone, verdictText(h.Verdict, h.Message)
			case h.Verdict == compare.NotApplicable:
				it.State, it.Reason = NotApplicable, h.Message
			default:
				moved := append(changes(h.Roles, p.Roles), infoChanges(h.Roles, p.Roles)...)
				if coverage.ConcurrencyDrift(h) {
					moved = append(moved, "no search-space row runs the point's concurrency any more: "+strings.TrimPrefix(h.Drift.Detail, "possible commit drift: "))
				}
				switch {
				case matches(h) == unknown:
					it.State, it.Reason = NotVerified, "at head: "+verdictText(h.Verdict, h.Message)
				case len(moved) == 0:
					it.State = InSync
				default:
					it.State, it.Changes = InfxMoved, moved
				}
			}
		}
		if h.Verdict == compare.TimeLimit || p != nil && p.Verdict == compare.TimeLimit {
			res.TimeLimit = true
		}
		res.Items = append(res.Items, it)
	}

	// the pages and the vLLM recipes: verdicts against the previous state
	prev := map[string]SnapshotItem{}
	if opt.Previous != nil {
		for _, s := range opt.Previous.Items {
			prev[s.ID] = s
		}
	}
	for _, part := range []struct {
		source string
		keys   []report.KeyResult
	}{{SourcePages, head.Pages}, {SourceVLLM, head.VLLM}} {
		for i := range part.keys {
			k := &part.keys[i]
			it := keyItem(part.source, k, prev[part.source+":"+k.ConfigKey].State)
			it.Reason = head.Scrub(it.Reason)
			if k.Verdict == compare.TimeLimit {
				res.TimeLimit = true
			}
			res.Items = append(res.Items, it)
		}
	}

	res.prev = prev
	res.allowUnverified = opt.Coverage.AllowUnverified
	if opt.Previous != nil && len(opt.Coverage.ConfigKeys) > 0 {
		// a run scoped to some keys keeps the state of the others
		seen := map[string]bool{}
		for _, it := range res.Items {
			seen[it.ID] = true
		}
		for _, s := range opt.Previous.Items {
			if !seen[s.ID] {
				res.carried = append(res.carried, s)
			}
		}
	}
	res.Judge(opt.Baseline, now)
	return res, nil
}

// Judge decides what is new, accepted and failing against the previous
// state Run was given and baseline b (nil: none) at now — Run calls it;
// --update-baseline calls it again with the baseline it writes. An item
// is new when drifted and, in the previous state, absent, in another
// state, or with other changes; accepted by the first current entry that
// names it (its state, its changes when the entry records them), else by
// the most recent expired one; failing when drifted, new or accepted by an
// expired entry only, and not accepted by a current one (a not-verified
// item never fails when unverified outcomes are allowed).
func (res *Result) Judge(b *Baseline, now time.Time) {
	res.Counts = map[State]int{}
	res.Deployments, res.NotApplicable, res.New, res.Accepted, res.Expired, res.Failing = 0, 0, 0, 0, 0, 0
	res.Stale = nil
	used := map[int]bool{}
	for i := range res.Items {
		it := &res.Items[i]
		it.Previous, it.Accepted, it.Expired = "", nil, false
		s, had := res.prev[it.ID]
		if had {
			it.Previous = s.State
		}
		it.New = it.State.Drifted() && (res.FirstRun || !had || s.State != it.State || s.Changes != it.changesDigest())
		if b != nil && it.State.Drifted() {
			if j := b.match(it, now); j >= 0 {
				used[j] = true
				e := b.Entries[j]
				it.Accepted = &e
				it.Expired = e.expired(now)
			}
		}
		it.Fails = it.State.Drifted() && (it.Accepted == nil || it.Expired) && (it.New || it.Expired) &&
			!(it.State == NotVerified && res.allowUnverified)
		res.Counts[it.State]++
		if it.State == NotApplicable {
			res.NotApplicable++
		} else {
			res.Deployments++
		}
		if it.New {
			res.New++
		}
		if it.Accepted != nil && !it.Expired {
			res.Accepted++
		}
		if it.Expired {
			res.Expired++
		}
		if it.Fails {
			res.Failing++
		}
	}
	if b != nil {
		for j, e := range b.Entries {
			if !used[j] {
				res.Stale = append(res.Stale, e)
			}
		}
	}
	res.InSyncPercent = 0
	if res.Deployments > 0 {
		res.InSyncPercent = res.Counts[InSync] * 100 / res.Deployments
	}
	res.Failed = res.Failing > 0
}

// changesDigest is a short digest of the item's changes ("" for none):
// the state records it, so a deployment that drifts again in another way
// is new again, and a baseline entry can accept these changes only.
func (it *Item) changesDigest() string {
	if len(it.Changes) == 0 {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join(it.Changes, "\n")))
	return hex.EncodeToString(sum[:8])
}

// keyItem is the drift of a config key judged against a source without
// provenance (the cookbook pages, the vLLM recipes): in sync when covered;
// coverage lost when it is not and was in sync (or had lost it) in the
// previous run's state (was); else not covered, or not verified.
func keyItem(source string, k *report.KeyResult, was State) Item {
	it := Item{ID: source + ":" + k.ConfigKey, Source: source, ConfigKey: k.ConfigKey, Head: k.Verdict, File: k.MasterFile, Line: k.MasterLine}
	switch {
	case k.Verdict == compare.NotApplicable:
		it.State, it.Reason = NotApplicable, k.Note
	case covered(k.Verdict):
		it.State = InSync
	case k.Verdict.NotVerified() || k.Verdict == compare.Error:
		it.State, it.Reason = NotVerified, verdictText(k.Verdict, rowReason(k))
	case was == InSync || was == CoverageLost:
		it.State = CoverageLost
	default:
		it.State = NotCovered
	}
	if !covered(k.Verdict) && k.Verdict != compare.NotApplicable {
		it.Changes = keyChanges(k)
	}
	return it
}

// ancestryKind is the cache entry kind of an ancestry answer ("1" or
// "0"): whether one commit is an ancestor of another never changes.
const ancestryKind = "drift-ancestry/1"

// isAncestor is repo.IsAncestor(a, b), kept in cache (nil: none): the
// walk through a history takes tens of milliseconds per commit.
func isAncestor(repo *gittree.Repo, cache *runcache.Dir, a, b string) (bool, error) {
	var key runcache.Key
	if cache != nil {
		key = cache.NewKey(ancestryKind).Add(a).Add(b).Sum()
		if v, ok := cache.Get(key); ok && (string(v) == "1" || string(v) == "0") {
			return string(v) == "1", nil
		}
	}
	ok, err := repo.IsAncestor(a, b)
	if err == nil && cache != nil {
		v := "0"
		if ok {
			v = "1"
		}
		_ = cache.Put(key, []byte(v)) // a cache that cannot be written is only slower
	}
	return ok, err
}

// pinnedKind is the cache entry kind of a pinned commit's points (the JSON
// of []report.PointResult).
const pinnedKind = "drift-pinned-points/1"

// pinnedPoints are the AgentX points pinned to commit c, judged at c
// (judgePinned), their messages relative to the commit's tree. A commit's
// tree never changes: with opt.Coverage.Cache the points are kept under the
// commit, the AgentX checkout's and the srt-slurm checkouts' contents, the
// keys and the judgment options (never a time-limited outcome; never with
// Exclusions or Render set), so a nightly run judges again only the commits
// whose inputs changed.
func pinnedPoints(ctx context.Context, opt Options, agentxDir, repoDir string, c *gittree.Commit, sub string, keys []string, dir string) ([]report.PointResult, error) {
	var key runcache.Key
	cache := opt.Coverage.Cache
	if cache != nil && opt.Coverage.Exclusions == nil && opt.Coverage.Render == nil {
		k, err := pinnedKey(cache, opt.Coverage, agentxDir, c.Hash+":"+sub, keys)
		if err == nil {
			key = k
			if data, ok := cache.Get(key); ok {
				var pts []report.PointResult
				if json.Unmarshal(data, &pts) == nil {
					return pts, nil
				}
			}
		} else {
			cache = nil
		}
	} else {
		cache = nil
	}
	rep, err := judgePinned(ctx, opt, agentxDir, repoDir, c, sub, keys, dir)
	if err != nil {
		return nil, err
	}
	pts := []report.PointResult{}
	limited := false
	for _, p := range rep.Points {
		if p.ProvSHA == c.Hash || strings.HasPrefix(c.Hash, strings.ToLower(p.ProvSHA)) {
			p.Message = rep.Scrub(p.Message)
			pts = append(pts, p)
			limited = limited || p.Verdict == compare.TimeLimit
		}
	}
	if cache != nil && !limited && !rep.TimeLimit {
		if data, err := json.Marshal(pts); err == nil {
			_ = cache.Put(key, data) // a cache that cannot be written is only slower
		}
	}
	return pts, nil
}

// pinnedKey is the cache key of pinnedPoints.
func pinnedKey(cache *runcache.Dir, co coverage.Options, agentxDir, commit string, keys []string) (runcache.Key, error) {
	k := cache.NewKey(pinnedKind)
	k.Add(commit)
	type fork struct{ Repo, Ref string }
	var forks []fork
	dirs := []string{agentxDir, co.SrtSlurmDir}
	for _, f := range co.SrtSlurmForks {
		forks = append(forks, fork{f.Repo, f.Ref})
		dirs = append(dirs, f.Dir)
	}
	o, err := json.Marshal(struct {
		Keys                       []string
		SrtVersion, Policy         string
		AllowUnverified            bool
		Forks                      []fork
		AgentXDir, SrtSlurmDirName string
	}{keys, co.SrtSlurmVersion, co.Policy, co.AllowUnverified, forks, agentxDir, co.SrtSlurmDir})
	if err != nil {
		return runcache.Key{}, err
	}
	k.AddBytes(o)
	for _, d := range dirs {
		if d == "" {
			k.Add("")
			continue
		}
		sum, err := runcache.TreeDigest(d)
		if err != nil {
			return runcache.Key{}, err
		}
		k.AddBytes(sum[:])
	}
	return k.Sum(), nil
}

// judgePinned is the AgentX coverage of keys at commit c of the repository
// at repoDir (its directory sub, "." for the root), materialized under dir.
func judgePinned(ctx context.Context, opt Options, agentxDir, repoDir string, c *gittree.Commit, sub string, keys []string, dir string) (*report.Report, error) {
	tree := filepath.Join(dir, "InferenceX")
	fsys, err := fs.Sub(c.FS(), sub)
	if err != nil {
		return nil, err
	}
	if err := gittree.Materialize(ctx, fsys, tree, gittree.Limits{}); err != nil {
		return nil, err
	}
	co := opt.Coverage
	co.InfxDir = tree
	co.InfxCommit = &coverage.CommitRef{Repo: repoDir, Commit: c.Hash}
	co.CookbookDirs = []string{agentxDir}
	co.AgentXOnly = true
	co.VLLMRecipesDir = ""
	co.ConfigKeys = keys
	co.Cache, co.CacheStats, co.Progress, co.OnSetting = nil, nil, nil, nil
	return coverage.Run(ctx, co)
}

// pointID is an AgentX point's Item.ID.
func pointID(p *report.PointResult) string {
	cell := p.CellID
	if cell == "" {
		cell = "cell" + strconv.Itoa(p.Cell)
	}
	return SourceAgentX + ":" + p.File + "#" + cell + "/" + strconv.Itoa(p.Point)
}

// match says whether one side of an AgentX point shows what the other
// runs.
type match int

const (
	same    match = iota // every role compared, no setting differs
	differ               // a setting differs, or a role is only on one side
	unknown              // not rendered or not compared (not verified, error)
)

// matches compares a point's two sides by their settings, not by the Check
// 3 verdict: drift is the cookbook and the recipe telling apart, so a
// prohibited setting both sides carry with one value matches (a policy
// finding, not drift), and excluded settings never count.
func matches(p *report.PointResult) match {
	if p.Status != report.StatusCompared || p.Verdict == compare.Error || p.Verdict.NotVerified() {
		return unknown
	}
	out := same
	for _, r := range p.Roles {
		switch {
		case r.Verdict.NotVerified() || r.Verdict == compare.Error || len(r.Unknown) > 0:
			return unknown
		case r.Verdict == compare.Missing || r.Verdict == compare.NotCovered || len(r.Differences) > 0:
			out = differ
		}
		for _, x := range r.Prohibited {
			if value(x.Upstream) != value(x.InferenceX) {
				out = differ
			}
		}
	}
	return out
}

// pointKey identifies an AgentX point within one run (file, cell index,
// point index); the ids are unique too (the snippet reader refuses a cell
// id given twice), this does not depend on it.
func pointKey(p *report.PointResult) string {
	return p.File + "\x00" + strconv.Itoa(p.Cell) + "\x00" + strconv.Itoa(p.Point)
}

// gone reports whether the point's recipe or script is not in the
// checkout it was judged in.
func gone(p *report.PointResult) bool {
	return p.Status == report.StatusRecipeNotFound || p.Status == report.StatusScriptNotFound
}

// covered reports whether v is covered (with or without exclusions).
func covered(v compare.Verdict) bool {
	return v == compare.Covered || v == compare.CoveredWithExclusions
}

// verdictText is "verdict: message" ("verdict" when no message).
func verdictText(v compare.Verdict, msg string) string {
	if msg == "" {
		return string(v)
	}
	return string(v) + ": " + firstLine(msg)
}

// rowReason is the first row note of a key that explains its verdict.
func rowReason(k *report.KeyResult) string {
	if k.Note != "" {
		return k.Note
	}
	for _, r := range k.Rows {
		if r.Verdict == k.Verdict && r.Message != "" {
			return r.Message
		}
	}
	// a role whose settings one side does not know: name them
	var unknown []string
	for _, r := range k.Rows {
		for _, m := range r.Roles {
			if m.Result == nil {
				continue
			}
			for _, d := range m.Result.Unknown {
				unknown = appendNew(unknown, m.Role+": "+d.Setting)
			}
		}
	}
	if len(unknown) > 0 {
		return "the value of " + strings.Join(unknown, ", ") + " is not known on one side"
	}
	return ""
}

// changes lists the differences of roles ("role: setting: a → b") that
// base does not have too (nil base: all of them), prohibited settings
// included, in order, without repeats.
func changes(roles, base []compare.Result) []string { return newLines(roles, base, diffLines) }

// newLines are the lines of roles that base does not have, in order,
// without repeats.
func newLines(roles, base []compare.Result, lines func([]compare.Result) []string) []string {
	had := map[string]bool{}
	for _, s := range lines(base) {
		had[s] = true
	}
	var out []string
	for _, s := range lines(roles) {
		if !had[s] {
			out = appendNew(out, s)
		}
	}
	return out
}

// diffLines are the differences of roles as "role: setting: a → b",
// prohibited settings whose two values differ marked so, and a missing
// role's note.
func diffLines(roles []compare.Result) []string {
	var out []string
	for _, r := range roles {
		role := roleLabel(r)
		for _, d := range r.Differences {
			out = append(out, fmt.Sprintf("%s: %s: %s → %s", role, d.Setting, value(d.Upstream), value(d.InferenceX)))
		}
		out = append(out, changedExclusions(role, r.Prohibited, "prohibited")...)
		if r.Verdict == compare.Missing && r.Note != "" {
			out = append(out, role+": "+r.Note)
		}
	}
	return out
}

// infoChanges are the informational (judgment-class) differences of roles
// that base does not have ("role: setting: a → b (informational)"): a
// change of such a setting is not a Check 3 gap but is what a cookbook
// sync carries (an engine image tag).
func infoChanges(roles, base []compare.Result) []string { return newLines(roles, base, infoLines) }

// infoLines are the informational differences of roles whose two values
// differ, "role: setting: a → b (informational)".
func infoLines(rs []compare.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, changedExclusions(roleLabel(r), r.Info, "informational")...)
	}
	return out
}

// roleLabel is a role as the lines name it: "decode", "decode[1]".
func roleLabel(r compare.Result) string {
	if r.Index > 0 {
		return r.Role + "[" + strconv.Itoa(r.Index) + "]"
	}
	return r.Role
}

// changedExclusions are the entries of xs whose two values differ, as
// "role: setting: a → b (tag)".
func changedExclusions(role string, xs []compare.Exclusion, tag string) []string {
	var out []string
	for _, x := range xs {
		if value(x.Upstream) != value(x.InferenceX) {
			out = append(out, fmt.Sprintf("%s: %s: %s → %s (%s)", role, x.Setting, value(x.Upstream), value(x.InferenceX), tag))
		}
	}
	return out
}

// keyChanges are the differences of a key's rows, without repeats.
func keyChanges(k *report.KeyResult) []string {
	var out []string
	for _, r := range k.Rows {
		for _, m := range r.Roles {
			switch {
			case m.Verdict == compare.NotCovered:
				line := m.Role + ": no upstream role covers " + m.Topology
				if len(m.Misses) > 0 {
					line += " (nearest misses: " + strings.Join(m.Misses, ", ") + ")"
				}
				out = appendNew(out, line)
			case m.Result != nil && m.Recipe != nil:
				for _, s := range diffLines([]compare.Result{*m.Result}) {
					out = appendNew(out, s)
				}
			}
		}
	}
	return out
}

// value is a setting value as shown: compare.Shown ("(absent)" for
// none, "(set)" for a flag without a value).
func value(s *string) string { return compare.Shown(s) }

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// globQuote escapes the path.Match metacharacters of a config key.
func globQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
