package coverage

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cookbook-sync/cookbook-sync/compare"
	"github.com/cookbook-sync/cookbook-sync/cookbook/pages"
	"github.com/cookbook-sync/cookbook-sync/infx"
	"github.com/cookbook-sync/cookbook-sync/report"
)

// pageFiles is what the page part read, file by file, for the keys that
// need it.
type pageFiles struct {
	// info is every snippet file's static facts (pages.FileInfo), plus a
	// not-Known entry for a snippet a page imports that is not there.
	info map[string]pages.FileInfo
	// order is every file of info, sorted.
	order []string
	// cands are the worker roles of each file that ran, in its order.
	cands map[string][]pageCand
	// failed says why a file gives no (or not all of its) selections: it
	// threw, ran out of steps, blew a bound, is not there, or skipped
	// selections whose generateCommand threw; timeLimit: the wall-clock
	// backstop stopped it.
	failed    map[string]string
	timeLimit map[string]bool
	// problems are the page errors of each file ("file: message"), in
	// order; timeLimits likewise for the backstop.
	problems, timeLimits map[string][]string
}

// needs lists the files key (whose checkpoint is model) needs: those whose
// static facts say they may show model or its family (pages.FileInfo.MayShow;
// a file whose models cannot be read statically may show any), sorted.
func (pf *pageFiles) needs(model string) []string {
	var out []string
	for _, f := range pf.order {
		if pf.info[f].MayShow(model) {
			out = append(out, f)
		}
	}
	return out
}

// pagesPart reads the cookbook pages of c.pagesDir and judges every
// in-scope SGLang-family config key of the InferenceX master configs
// against them (Report.Pages). Work follows the keys: before any page code
// runs, each key's needs are decided from the snippets' static facts
// (pages.FileInfo: the model ids a snippet writes whole, or "any" when they
// cannot be read statically), only the snippets some in-scope key needs
// run, and each key is judged against the selections of exactly the
// snippets it needs — so `ConfigKeys: K` gives K the rows the full run
// gives it, and a snippet no key needs can neither fail a key nor cost
// time. A needed snippet that cannot be read (it threw, ran out of steps,
// blew a bound, is imported but missing, skipped selections) is a page
// error (Report.PageErrors); one the wall-clock backstop stopped is a
// time limit (Report.TimeLimits). Either makes "no page covers this" of
// the keys needing it not known — unsupported or time limit, naming the
// snippets — never a gap, and leaves every other key alone.
func (c *run) pagesPart() error {
	if c.ws == nil {
		return &OptionError{Field: "InfxDir", Value: c.opt.InfxDir, Msg: "has no InferenceX master config: the cookbook pages are judged from its config keys"}
	}
	entries, err := c.familyEntries(sglangFamily)
	if err != nil {
		return err
	}
	var need []*infx.Entry // keys whose pages are read: in the policy's scope
	for _, e := range entries {
		if ok, _ := c.inScope(e.Key); ok {
			need = append(need, e)
		}
	}
	mayShow := func(fi pages.FileInfo) bool {
		return slices.ContainsFunc(need, func(e *infx.Entry) bool { return fi.MayShow(e.Model) })
	}
	set, err := pages.Load(c.ctx, c.pagesDir, pages.Options{Files: mayShow, Cache: c.opt.PageCache})
	if err != nil {
		return err
	}
	pi := report.RepoInfo{Dir: absDir(c.pagesDir)}
	if r := openRepo(set.Root); r != nil {
		pi.Commit, pi.Repo = r.head, r.github("sgl-project/sglang")
	}
	c.rep.PagesRepo = &pi
	pf := c.readPageFiles(set, mayShow)
	families := map[string]bool{}
	for _, e := range entries {
		families[modelFamily(e.Model)] = true
	}
	for _, cs := range pf.cands {
		thinCands(cs, families)
	}
	indexes := map[string]*pageIndex{} // by the files they hold
	byKey := map[string][]string{}
	for _, e := range entries {
		byKey[e.Key] = pf.needs(e.Model)
	}
	var indexesMu sync.Mutex // keys are judged at once (judgeKeys)
	keys, err := c.pagesJudge(entries, func(key string) *pageIndex {
		files := byKey[key]
		id := strings.Join(files, "\x00")
		indexesMu.Lock()
		defer indexesMu.Unlock()
		if ix, ok := indexes[id]; ok {
			return ix
		}
		var lists [][]pageCand
		for _, f := range files {
			lists = append(lists, pf.cands[f])
		}
		ix := buildIndex(lists...)
		indexes[id] = ix
		return ix
	})
	if err != nil {
		return err
	}
	// the problems of the files some judged key needs, once each, in file
	// order
	used := map[string]bool{}
	for i := range keys {
		k := &keys[i]
		k.Source = report.SourcePages
		if k.Verdict == compare.NotApplicable {
			continue
		}
		var failed []string
		tl := false
		for _, f := range byKey[k.ConfigKey] {
			used[f] = true
			if _, ok := pf.failed[f]; ok {
				failed = append(failed, f)
				tl = tl || pf.timeLimit[f]
			}
		}
		if len(failed) > 0 {
			unknownRoles(k, failed, tl)
		}
	}
	for _, f := range pf.order {
		if used[f] {
			c.rep.PageErrors = append(c.rep.PageErrors, pf.problems[f]...)
			c.rep.TimeLimits = append(c.rep.TimeLimits, pf.timeLimits[f]...)
		}
	}
	c.rep.Pages = keys
	if c.rep.Pages == nil {
		c.rep.Pages = []report.KeyResult{}
	}
	return nil
}

// readPageFiles sorts what Load gave into pageFiles: every file's facts,
// the roles of those that ran, and why one failed.
func (c *run) readPageFiles(set *pages.Set, chosen func(pages.FileInfo) bool) *pageFiles {
	pf := &pageFiles{info: map[string]pages.FileInfo{}, cands: map[string][]pageCand{}, failed: map[string]string{}, timeLimit: map[string]bool{},
		problems: map[string][]string{}, timeLimits: map[string][]string{}}
	for f, fi := range set.Info {
		pf.info[f] = fi
	}
	// Each file's candidates (its selections parsed, the alternates its
	// pages' prose states) are made on every CPU, then taken in file
	// order: the outcome is the one a loop makes.
	type fileCands struct {
		cs   []pageCand
		errs []error
	}
	made := make([]fileCands, len(set.Files))
	var proseRead proseCache // page → its statements, read once
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(set.Files))) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(set.Files) {
					return
				}
				f := set.Files[i]
				if _, failed := set.Errors[f]; failed {
					continue
				}
				cs, errs := parseCands(set.Selections[f])
				// the alternates the pages' prose states, after the selections
				cs = append(cs, pageProseCands(set.Root, cs, &proseRead)...)
				made[i] = fileCands{cs, errs}
			}
		})
	}
	wg.Wait()
	for i, f := range set.Files {
		if err, ok := set.Errors[f]; ok {
			pf.failed[f] = err.Error()
			if errors.Is(err, pages.ErrMemory) {
				c.volatile = true
			}
			if errors.Is(err, pages.ErrTimeLimit) {
				pf.timeLimit[f] = true
				pf.timeLimits[f] = append(pf.timeLimits[f], err.Error())
			} else {
				pf.problems[f] = append(pf.problems[f], err.Error())
			}
			continue
		}
		cs, errs := made[i].cs, made[i].errs
		pf.cands[f] = cs
		for _, e := range errs {
			// a command the parser does not understand is bad input;
			// the file's other selections still count
			pf.problems[f] = append(pf.problems[f], e.Error())
		}
		if sk := set.Skipped[f]; len(sk) > 0 {
			// the oracle skips selections whose generateCommand threw;
			// the page shows an error there: never silently fewer
			pf.failed[f] = "generateCommand threw"
			pf.problems[f] = append(pf.problems[f], fmt.Sprintf("%s: generateCommand threw for %d %s (first: %s)", f, len(sk), plural(len(sk), "selection", "selections"), sk[0]))
		}
	}
	// A page importing a deployment snippet that is not there shows no
	// command (the page is broken); nothing tells which model the
	// snippet would have shown, so every key that reads pages needs it.
	for _, pg := range slices.Sorted(maps.Keys(set.Pages)) {
		for _, sn := range set.Pages[pg] {
			if !strings.Contains(sn, "/snippets/configs/") && !strings.Contains(sn, "/snippets/autoregressive/") {
				continue
			}
			if _, err := os.Stat(filepath.Join(set.Root, filepath.FromSlash(sn))); !errors.Is(err, fs.ErrNotExist) {
				continue
			}
			fi := pf.info[sn]
			fi.Rel, fi.Known = sn, false
			fi.Pages = append(fi.Pages, pg)
			pf.info[sn] = fi
			if chosen(fi) {
				pf.failed[sn] = "missing"
				pf.problems[sn] = append(pf.problems[sn], fmt.Sprintf("%s: imports %s, which does not exist", pg, sn))
			}
		}
	}
	pf.order = slices.Sorted(maps.Keys(pf.info))
	return pf
}

// unknownRoles makes the "no page covers this" roles of k not known: a
// snippet k needs (failed) could not be read, and a selection there may
// cover the role — unsupported — and rolls the verdicts up again. When the
// wall-clock backstop stopped one of them, every failing role (no page
// covers this, differs, missing, prohibited, unsupported) is a time limit:
// a re-run may find the selection that covers it.
func unknownRoles(k *report.KeyResult, failed []string, timeLimit bool) {
	v := compare.Unsupported
	why := fmt.Sprintf("%d cookbook page %s could not be read (%s): a selection there may cover it",
		len(failed), plural(len(failed), "snippet", "snippets"), strings.Join(failed, ", "))
	if timeLimit {
		v = compare.TimeLimit
		why = fmt.Sprintf("%d cookbook page %s needed here did not finish (%s; the wall-clock backstop stopped one): re-run", len(failed),
			plural(len(failed), "snippet", "snippets"), strings.Join(failed, ", "))
	}
	kv := compare.Verdict("")
	for j := range k.Rows {
		row := &k.Rows[j]
		rv := compare.Verdict("")
		for r := range row.Roles {
			ro := &row.Roles[r]
			if ro.Verdict == compare.NotCovered || timeLimit && (ro.Verdict.Gap() || ro.Verdict == compare.Unsupported) {
				ro.Verdict = v
				ro.Misses = append(ro.Misses, why)
			}
			rv = compare.Worse(rv, ro.Verdict)
		}
		if len(row.Roles) > 0 {
			row.Verdict = rv
		}
		kv = compare.Worse(kv, row.Verdict)
	}
	if len(k.Rows) > 0 {
		k.Verdict = kv
	}
}
