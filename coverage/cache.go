package coverage

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/cookbook-sync/cookbook-sync/report"
	"github.com/cookbook-sync/cookbook-sync/runcache"
)

// reportKind names Run's cache entries and their format: a report as
// report.CompactJSON writes it (encoding/json, HTML characters not
// escaped, a final newline). Bump the number when what a report means
// changes without the executable changing (it always does today: the
// executable's bytes are in every key).
const reportKind = "coverage-report/2"

// CacheStats says what Run did with Options.Cache.
type CacheStats struct {
	// Hit: the report was read from the cache (no source was read or
	// rendered).
	Hit bool
	// Stored: the report was computed and written to the cache.
	Stored bool
	// Skipped, when neither, says why the cache was not used: the options
	// name a caller's function or set (Exclusions, Render, OnSetting,
	// InfxCommit), an input tree cannot be keyed by content (a link out of
	// it, a special file: runcache.ErrNotAddressable), the report depends
	// on the machine (a time limit or memory bound stopped part of it), or
	// the entry could not be written.
	Skipped string
	// RenderHits and RendersStored count the InferenceX renderings read
	// from and written to the cache (infx.Workspace.PersistRenders) by a
	// run that computed its report.
	RenderHits, RendersStored int64
	// CompactJSON is report.CompactJSON of the report Run returned when
	// the run stored it or read it back (the stored bytes: an entry is
	// used only when decoding and encoding it again gives them), nil
	// otherwise. It stays that report's JSON while the report is not
	// changed: the CLI prints it instead of encoding the report again.
	CompactJSON []byte
	// stored, when set, is closed once a store Run left to the
	// background (Options.StoreInBackground) is done.
	stored chan struct{}
}

// Wait returns once the report Run stores in the background
// (Options.StoreInBackground) is stored or skipped: Stored, Skipped and
// CompactJSON are final after it. At once when nothing is being stored.
func (s *CacheStats) Wait() {
	if s != nil && s.stored != nil {
		<-s.stored
	}
}

// SkipWrite starts CacheStats.Skipped when the entry could not be
// written (a full disk, a read-only directory): the one reason a caller
// may want to tell the user.
const SkipWrite = "the entry could not be written: "

// cacheable is why opt's report cannot be cached, "" when it can: a
// report is cached only when it is a function of the options Run keys and
// the bytes of the directories they name.
func cacheable(opt Options) string {
	switch {
	case opt.Exclusions != nil:
		return "a caller's exclusion set (Options.Exclusions)"
	case opt.Render != nil:
		return "a caller's renderer (Options.Render)"
	case opt.OnSetting != nil:
		return "a caller's setting inventory (Options.OnSetting) sees every comparison"
	case opt.InfxCommit != nil:
		return "the InferenceX tree is a commit of another repository (Options.InfxCommit)"
	}
	return ""
}

// reportKey is the cache key of the report Run computes for opt: the
// executable, the options that decide the report (ConfigKeys, Policy,
// AllowUnverified, srt-slurm version and forks, each directory's absolute
// path in its place) and the content of every directory (runcache.TreeDigest:
// every file, and each git checkout's refs, configuration and object
// names — the report's commits, permalinks and provenance drift come from
// them). Errors: a directory that cannot be keyed (ErrNotAddressable) or
// read.
func reportKey(d *runcache.Dir, opt Options) (runcache.Key, error) {
	k := d.NewKey(reportKind)
	type fork struct{ Repo, Ref, Dir string }
	var forks []fork
	for _, f := range opt.SrtSlurmForks {
		forks = append(forks, fork{f.Repo, f.Ref, absDir(f.Dir)})
	}
	cookbooks := make([]string, len(opt.CookbookDirs))
	for i, c := range opt.CookbookDirs {
		cookbooks[i] = absDir(c)
	}
	// the directories as given too: messages may name them so
	given := append([]string{opt.InfxDir, opt.VLLMRecipesDir, opt.SrtSlurmDir}, opt.CookbookDirs...)
	for _, f := range opt.SrtSlurmForks {
		given = append(given, f.Dir)
	}
	o, err := json.Marshal(struct {
		Infx, VLLM, Srt, SrtVersion, Policy string
		Cookbooks, ConfigKeys, Given        []string
		AllowUnverified                     bool
		Forks                               []fork
		AgentXOnly                          bool `json:",omitempty"`
	}{absDir(opt.InfxDir), absDir(opt.VLLMRecipesDir), absDir(opt.SrtSlurmDir), opt.SrtSlurmVersion, opt.Policy,
		cookbooks, opt.ConfigKeys, given, opt.AllowUnverified, forks, opt.AgentXOnly})
	if err != nil {
		return runcache.Key{}, err
	}
	k.AddBytes(o)
	// the trees are read at once (hashing is most of a warm run)
	sums := make([][32]byte, len(given))
	errs := make([]error, len(given))
	var wg sync.WaitGroup
	for i, dir := range given {
		if dir != "" {
			wg.Go(func() { sums[i], errs[i] = opt.digests.TreeDigest(dir) })
		}
	}
	wg.Wait()
	for i, dir := range given {
		if dir == "" {
			k.Add("")
			continue
		}
		if errs[i] != nil {
			return runcache.Key{}, errs[i]
		}
		k.AddBytes(sums[i][:])
	}
	return k.Sum(), nil
}

// cachedRun is Run through opt.Cache: the stored report when there is
// one for opt's key, else run's, stored when it depends on nothing but the
// key (no time limit, no memory bound, not cut short).
func cachedRun(ctx context.Context, opt Options, run func() (*report.Report, bool, error)) (*report.Report, error) {
	stats := opt.CacheStats
	if stats == nil {
		stats = &CacheStats{}
	}
	stats.Wait() // a store an earlier Run left to the background writes it
	*stats = CacheStats{}
	uncached := func(why string) (*report.Report, error) {
		rep, _, err := run()
		stats.Skipped = why
		return rep, err
	}
	if why := cacheable(opt); why != "" {
		return uncached(why)
	}
	key, err := reportKey(opt.Cache, opt)
	if err != nil {
		return uncached("an input cannot be keyed by content: " + err.Error())
	}
	if data, sum, ok := opt.Cache.GetSum(key); ok {
		if bytes.Equal(data, notRoundTrip) {
			return uncached(skipRoundTrip)
		}
		rep := &report.Report{}
		// (decoded by the encoding/json v2 prototype with v1's semantics:
		// the same report, in a third less time and with two fifths
		// fewer objects — it was a warm run's largest part; the read-back
		// below still checks it against what was stored)
		if jsonv1.Unmarshal(data, rep) == nil {
			// Used only when it reads back as it was written: what the
			// run that stored it printed, this one prints (the JSON
			// printer takes these bytes: CacheStats.CompactJSON). The
			// first run that reads it encodes it again to know; it
			// leaves a mark (the entry's digest under readBackKey) that
			// spares the runs after the encoding.
			mk := readBackKey(opt.Cache, key)
			mark, marked := opt.Cache.Get(mk)
			readsBack := marked && bytes.Equal(mark, sum[:])
			if !readsBack {
				if again, err := report.CompactJSON(rep); err == nil && bytes.Equal(again, data) {
					readsBack = true
					_ = opt.Cache.Put(mk, sum[:]) // best effort: else the next run encodes it again
				}
			}
			if readsBack {
				rep.LocalDirs = localDirs(append([]string{opt.InfxDir, opt.VLLMRecipesDir, opt.SrtSlurmDir}, opt.CookbookDirs...)...)
				stats.Hit, stats.CompactJSON = true, data
				return rep, nil
			}
			// the report of these inputs does not read back from JSON
			// as it was (it never will: the key decides it): computed
			// again, and the entry says so for the runs after
			rep, _, err := run()
			if err == nil && ctx.Err() == nil {
				_ = opt.Cache.Put(key, notRoundTrip) // best effort: else the next run finds out again
			}
			stats.Skipped = skipRoundTrip
			return rep, err
		}
		// not a report of this format: computed again and replaced
	}
	rep, volatile, err := run()
	if err != nil {
		return rep, err
	}
	switch {
	case volatile || rep.TimeLimit:
		stats.Skipped = "a time limit or memory bound stopped part of the run: its report depends on the machine"
		return rep, nil
	case ctx.Err() != nil:
		stats.Skipped = "the run was interrupted"
		return rep, nil
	}
	store := func() {
		data, err := report.CompactJSON(rep)
		if err != nil {
			stats.Skipped = "the report has no JSON: " + err.Error()
			return
		}
		stats.CompactJSON = data
		if err := opt.Cache.Put(key, data); err != nil {
			stats.Skipped = SkipWrite + err.Error()
			return
		}
		stats.Stored = true
	}
	if opt.StoreInBackground {
		done := make(chan struct{})
		stats.stored = done
		go func() {
			defer close(done)
			store()
		}()
		return rep, nil
	}
	store()
	return rep, nil
}

// readBackKey is the key of the mark that the report entry under key
// reads back from its JSON as it was written: the entry's SHA-256.
func readBackKey(d *runcache.Dir, key runcache.Key) runcache.Key {
	return d.NewKey(reportKind + " reads back").AddBytes(key[:]).Sum()
}

// notRoundTrip is the entry of a key whose report does not read back
// from its JSON as it was written (decoding and encoding again changes
// it): its runs compute the report and store nothing. It is no JSON, so
// no report is ever taken for it.
var notRoundTrip = []byte("\x00coverage: the report of this key does not read back from JSON\n")

// skipRoundTrip is CacheStats.Skipped for a report that does not read
// back from JSON as it was written.
const skipRoundTrip = "the report does not read back exactly from JSON: decoding and encoding again changes it"
