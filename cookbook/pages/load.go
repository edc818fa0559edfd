package pages

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// MaxFileSize bounds every page and snippet read (bytes).
const MaxFileSize = 8 << 20

// LeftOut are the snippets (suffixes of their path) the oracle leaves out:
// mimo-v25-deployment.jsx forces toggles through its own computeConstraints,
// which the enumeration rule does not model (golden README).
var leftOut = []string{"autoregressive/mimo-v25-deployment.jsx"}

// ErrLeftOut is returned for a snippet the enumeration rule does not model.
var ErrLeftOut = errors.New("snippet left out: it forces toggles through its own computeConstraints, which the enumeration rule does not model")

// Set is what Load read from one sglang checkout.
type Set struct {
	// Root is the sglang repository root as given (or the parent of the
	// docs directory given).
	Root string
	// Files are the snippet files decoded, relative to the repository root
	// ("docs/src/snippets/…"), sorted; LeftOut those skipped by rule.
	Files   []string
	LeftOut []string
	// Selections per file, in the oracle's order.
	Selections map[string][]Selection
	// Errors per file (a *FileError): the file threw, looped, blew a bound
	// or is not JavaScript. Its Selections are empty.
	Errors map[string]error
	// Skipped per file: generator selections whose generateCommand threw
	// ("<selection JSON>: <message>"); the oracle skips them too.
	Skipped map[string][]string
	// Pages maps each page ("docs/cookbook/….mdx") to the snippet files it
	// imports, in import order.
	Pages map[string][]string
	// NotRun are the snippet files Options.Files did not choose (sorted):
	// none of their code ran, they have no Selections and no Errors.
	NotRun []string
	// Info is what is known of every snippet file (Files and NotRun)
	// before its code runs.
	Info map[string]FileInfo
	// Steps per file run: the steps its code took (Options.MaxSteps),
	// the same on every machine.
	Steps map[string]int64
}

// layout is where a checkout keeps its docs.
type layout struct {
	root    string // as given
	docsDir string // <root>/docs, <root>/docs_new, or root itself when it is the docs dir
	// prefix is the docs dir relative to the repository root: "docs", or
	// "docs_new" (the cookbook's home before 2026-08-03).
	prefix string
}

// docsDirs are the places a checkout keeps its docs, in the order they are
// looked for: docs/ (from 2026-08-03), docs_new/ (before).
var docsDirs = []string{"docs", "docs_new"}

// resolveLayout accepts the sglang repository root (its docs in docs/ or,
// before 2026-08-03, docs_new/) or the docs directory itself.
func resolveLayout(root string) (layout, error) {
	for _, d := range docsDirs {
		if fi, err := os.Stat(filepath.Join(root, d, "src", "snippets")); err == nil && fi.IsDir() {
			return layout{root: root, docsDir: filepath.Join(root, d), prefix: d}, nil
		}
	}
	if fi, err := os.Stat(filepath.Join(root, "src", "snippets")); err == nil && fi.IsDir() {
		prefix := "docs"
		if a, err := filepath.Abs(root); err == nil && filepath.Base(a) == "docs_new" {
			prefix = "docs_new"
		}
		return layout{root: root, docsDir: root, prefix: prefix}, nil
	}
	return layout{}, fmt.Errorf("pages: %s: neither an sglang checkout (docs/src/snippets or docs_new/src/snippets) nor its docs directory (src/snippets)", root)
}

// rel is p (absolute or relative to the cwd, inside docsDir) as
// "<prefix>/…"; ok false when p is outside.
func (l layout) rel(p string) (string, bool) {
	r, err := filepath.Rel(l.docsDir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return l.prefix + "/" + filepath.ToSlash(r), true
}

// abs is the path of "<prefix>/…".
func (l layout) abs(rel string) string {
	return filepath.Join(l.docsDir, filepath.FromSlash(strings.TrimPrefix(rel, l.prefix+"/")))
}

// inDocs is rel without its docs prefix ("docs/" or "docs_new/"); ok false
// when rel has neither.
func inDocs(rel string) (string, bool) {
	for _, d := range docsDirs {
		if r, ok := strings.CutPrefix(rel, d+"/"); ok {
			return r, true
		}
	}
	return "", false
}

// isSnippetPath reports whether rel is a file of the snippets directory.
func isSnippetPath(rel string) bool {
	r, ok := inDocs(rel)
	return ok && strings.HasPrefix(r, "src/snippets/") && !strings.Contains(r, "..")
}

// resolveFile accepts a file as "<prefix>/…", relative to the docs dir, or a
// path (absolute or relative to the working directory) inside the docs dir.
func (l layout) resolveFile(file string) (string, error) {
	if fi, err := os.Stat(file); err == nil && !fi.IsDir() {
		if a, err := filepath.Abs(file); err == nil {
			d, _ := filepath.Abs(l.docsDir)
			if r, err := filepath.Rel(d, a); err == nil && !strings.HasPrefix(r, "..") {
				return l.prefix + "/" + filepath.ToSlash(r), nil
			}
		}
	}
	f := filepath.ToSlash(file)
	if strings.HasPrefix(f, l.prefix+"/") {
		return path.Clean(f), nil
	}
	if strings.HasPrefix(f, "src/") || strings.HasPrefix(f, "cookbook/") {
		return l.prefix + "/" + path.Clean(f), nil
	}
	return "", fmt.Errorf("pages: %s: not a file of the docs directory %s", file, l.docsDir)
}

// readFile reads a regular file of at most MaxFileSize bytes.
func readFile(name, rel string) ([]byte, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return nil, &FileError{File: rel, Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, &FileError{File: rel, Err: errors.New("not a regular file")}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, &FileError{File: rel, Err: err}
	}
	defer func() { _ = f.Close() }() // opened for reading: its Close loses nothing
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &FileError{File: rel, Err: err}
	}
	if len(b) > MaxFileSize {
		return nil, &FileError{File: rel, Err: fmt.Errorf("larger than %d bytes", MaxFileSize)}
	}
	return b, nil
}

// snippetKind is "config", "generator" or "" (not a deployment snippet the
// oracle reads: benchmarks, popular-models.jsx, other dirs).
func snippetKind(rel string) string {
	r, ok := inDocs(rel)
	if !ok || !strings.HasSuffix(rel, ".jsx") {
		return ""
	}
	switch {
	case strings.HasPrefix(r, "src/snippets/configs/"):
		if strings.Contains(r, "benchmark") || strings.HasSuffix(r, "popular-models.jsx") {
			return ""
		}
		return "config"
	case strings.HasPrefix(r, "src/snippets/autoregressive/"):
		return "generator"
	}
	return ""
}

func isLeftOut(rel string) bool {
	return slices.ContainsFunc(leftOut, func(s string) bool { return strings.HasSuffix(rel, s) })
}

// importRE is an MDX import line of a snippet ("import { X } from
// '/src/snippets/…jsx'"), matched at a line start (importPaths).
var importRE = regexp.MustCompile(`^import\s+\{[^}]*\}\s+from\s+["'](/src/snippets/[^"']+\.jsx)["']`)

// importPaths is the snippet path of every import line of src, in order:
// what `(?m)` + importRE's FindAllSubmatch gives (leftmost matches, none
// overlapping), each tried only where a line starts with "import" (the
// unanchored search tried every byte of every page).
func importPaths(src []byte) [][]byte {
	var out [][]byte
	for p := 0; p < len(src); {
		i := bytes.Index(src[p:], []byte("import"))
		if i < 0 {
			break
		}
		i += p
		p = i + 1
		if i > 0 && src[i-1] != '\n' {
			continue
		}
		if m := importRE.FindSubmatchIndex(src[i:]); m != nil {
			out = append(out, src[i+m[2]:i+m[3]])
			p = i + m[1]
		}
	}
	return out
}

// pageImports are the deployment snippets an .mdx page imports, in order.
func pageImports(l layout, src []byte) []string {
	var out []string
	for _, m := range importPaths(src) {
		rel := l.prefix + path.Clean(string(m))
		if snippetKind(rel) != "" && !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// scanPages reads every docs/cookbook/**/*.mdx and its snippet imports.
func scanPages(l layout) (map[string][]string, error) {
	pages := map[string][]string{}
	dir := filepath.Join(l.docsDir, "cookbook")
	if _, err := os.Stat(dir); err != nil {
		return pages, nil
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".mdx") {
			return nil
		}
		rel, ok := l.rel(p)
		if !ok {
			return nil
		}
		src, err := readFile(p, rel)
		if err != nil {
			return nil // an unreadable page imports nothing we can decode
		}
		if im := pageImports(l, src); len(im) > 0 {
			pages[rel] = im
		}
		return nil
	})
	return pages, err
}

// pageOf is the first page (sorted) importing each snippet.
func pageOf(pages map[string][]string) map[string]string {
	names := make([]string, 0, len(pages))
	for p := range pages {
		names = append(names, p)
	}
	slices.Sort(names)
	out := map[string]string{}
	for _, p := range names {
		for _, s := range pages[p] {
			if _, ok := out[s]; !ok {
				out[s] = p
			}
		}
	}
	return out
}

// setPage fills Page and URL.
func setPage(sels []Selection, page string) {
	if page == "" {
		return
	}
	u := PageURL(page)
	for i := range sels {
		sels[i].Page = page
		sels[i].URL = u + "#" + sels[i].Hash()
	}
}

// loader is one Load's shared state.
type loader struct {
	l    layout
	opt  Options
	prog *programs
	// mods: the snippet modules compiled (component.go)
	mods modules
	// pages: every page and the snippets it imports (nil until scanned)
	pagesOnce sync.Once
	pages     map[string][]string
	pagesErr  error
}

// allPages is scanPages, once per Load.
func (ld *loader) allPages() (map[string][]string, error) {
	ld.pagesOnce.Do(func() { ld.pages, ld.pagesErr = scanPages(ld.l) })
	return ld.pages, ld.pagesErr
}

// plan is how rel is rendered (configs; see planFor); page, when not "",
// is the page asked for, whose own tag is preferred.
func (ld *loader) plan(rel, page string) renderPlan {
	pages, _ := ld.allPages()
	if page != "" {
		if p := ld.planFor(rel, map[string][]string{page: {rel}}); p.Page != "" {
			return p
		}
	}
	return ld.planFor(rel, pages)
}

// Cache keeps decoded snippet files (and their static facts) across Loads (several runs over one
// checkout: a key-scoped run per config key), by the file's path and
// content, the engine's content and the bounds. A result the wall-clock
// backstop, the memory watchdog or the context cut short is never kept:
// only what the file's content decides. Safe for concurrent use; the zero
// value is ready.
type Cache struct {
	mu sync.Mutex
	m  map[string]cached
	// facts: readFacts by file and content
	f map[string]cachedFacts
}

type cachedFacts struct {
	models, prefixes []string
	known            bool
}

// facts is readFacts(rel, src), kept by content; a nil Cache reads.
func (c *Cache) facts(rel string, src []byte) (models, prefixes []string, known bool) {
	if c == nil {
		return readFacts(rel, src)
	}
	k := fmt.Sprintf("%s\x00%x", rel, sha256.Sum256(src))
	c.mu.Lock()
	r, ok := c.f[k]
	c.mu.Unlock()
	if ok {
		return slices.Clone(r.models), slices.Clone(r.prefixes), r.known
	}
	r.models, r.prefixes, r.known = readFacts(rel, src)
	c.mu.Lock()
	if c.f == nil {
		c.f = map[string]cachedFacts{}
	}
	c.f[k] = r
	c.mu.Unlock()
	return slices.Clone(r.models), slices.Clone(r.prefixes), r.known
}

type cached struct {
	sels  []Selection
	sk    []string
	err   error
	steps int64
}

func (c *Cache) get(k string) (cached, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[k]
	if ok {
		r.sels = slices.Clone(r.sels)
	}
	return r, ok
}

func (c *Cache) put(k string, r cached) {
	if errors.Is(r.err, ErrTimeLimit) || errors.Is(r.err, ErrMemory) || errors.Is(r.err, errRetry) ||
		errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]cached{}
	}
	r.sels = slices.Clone(r.sels)
	c.m[k] = r
}

// cacheKey is rel's key in Options.Cache: its content, the engine's and
// the bounds that decide the result ("" when rel cannot be read: not
// cached).
func (ld *loader) cacheKey(rel string) string {
	src, err := readFile(ld.l.abs(rel), rel)
	if err != nil {
		return ""
	}
	o := ld.opt
	deps := ""
	if snippetKind(rel) == "config" {
		deps = ld.planKey(ld.plan(rel, ""))
	}
	return fmt.Sprintf("%s\x00%x\x00%s\x00%d/%d/%d/%d/%d/%d/%d/%d/%d", rel, sha256.Sum256(src), deps, o.MaxSteps, o.MaxSelections, o.MaxRows, o.MaxString, o.MaxCallStack, o.MaxArray, o.MaxBuffer, o.MaxAllocation, o.MaxDepth)
}

func newLoader(root string, opt Options) (*loader, error) {
	l, err := resolveLayout(root)
	if err != nil {
		return nil, err
	}
	prog, err := compilePrograms()
	if err != nil {
		return nil, err
	}
	return &loader{l: l, opt: opt.withDefaults(), prog: prog}, nil
}

// decode decodes one snippet file ("docs/src/snippets/…"); page, when not
// "", is the page it is decoded for (see plan).
func (ld *loader) decode(ctx context.Context, rel, page string, wd *watchdog, used *int64) (sels []Selection, skipped []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			sels, skipped, err = nil, nil, &FileError{File: rel, Err: fmt.Errorf("%w: %v", ErrPanic, r)}
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	kind := snippetKind(rel)
	if kind == "" {
		return nil, nil, &FileError{File: rel, Err: errors.New("not a deployment snippet (docs/src/snippets/configs/**.jsx or docs/src/snippets/autoregressive/*.jsx)")}
	}
	if isLeftOut(rel) {
		return nil, nil, &FileError{File: rel, Err: ErrLeftOut}
	}
	src, err := readFile(ld.l.abs(rel), rel)
	if err != nil {
		return nil, nil, err
	}
	if kind == "config" {
		return decodeConfig(ctx, ld, rel, ld.plan(rel, page), wd, used)
	}
	return decodeGenerator(ctx, ld.prog, rel, src, ld.opt, wd, used)
}

// decodeAlone decodes rel with its own watchdog and retries once alone
// when the memory bound tripped while other files ran.
func (ld *loader) decodeWith(ctx context.Context, rel string, wd *watchdog, used *int64) ([]Selection, []string, error) {
	sels, sk, err := ld.decode(ctx, rel, "", wd, used)
	if err != nil && errors.Is(err, ErrMemory) && ctx.Err() == nil {
		return nil, nil, errRetry
	}
	return sels, sk, err
}

var errRetry = errors.New("retry alone")

// Load reads every deployment snippet of the sglang checkout at root (the
// repository root, or its docs/ directory) the way the oracle enumerates
// them — docs/src/snippets/configs/**.jsx but benchmarks and
// popular-models.jsx, and docs/src/snippets/autoregressive/*.jsx but the
// left-out ones — running each file's own code in a fresh sandbox (see
// Options), several files at once. A file that fails is in Set.Errors and
// does not stop the others. Page and URL are set from the docs/cookbook
// pages that import each snippet. The error is non-nil only when root is
// not a checkout or ctx ends (then the Set is partial).
func Load(ctx context.Context, root string, opt Options) (*Set, error) {
	ld, err := newLoader(root, opt)
	if err != nil {
		return nil, err
	}
	set := &Set{Root: root, Selections: map[string][]Selection{}, Errors: map[string]error{}, Skipped: map[string][]string{}, Steps: map[string]int64{}}
	snip := filepath.Join(ld.l.docsDir, "src", "snippets")
	for _, sub := range []string{"configs", "autoregressive"} {
		d := filepath.Join(snip, sub)
		if _, err := os.Stat(d); err != nil {
			continue
		}
		err := filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if de.IsDir() {
				return nil
			}
			rel, ok := ld.l.rel(p)
			if !ok || snippetKind(rel) == "" {
				return nil
			}
			if isLeftOut(rel) {
				set.LeftOut = append(set.LeftOut, rel)
				return nil
			}
			set.Files = append(set.Files, rel)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("pages: %w", err)
		}
	}
	slices.Sort(set.Files)
	if set.Pages, err = ld.allPages(); err != nil {
		return nil, fmt.Errorf("pages: %w", err)
	}
	pageFor := pageOf(set.Pages)
	importers := map[string][]string{}
	for _, pg := range slices.Sorted(maps.Keys(set.Pages)) {
		for _, sn := range set.Pages[pg] {
			importers[sn] = append(importers[sn], pg)
		}
	}
	// Each file's static facts (FileInfo) are read by the worker that
	// then runs it when Options.Files chooses it, the largest files first
	// (a config component with its cells takes seconds, most generators a
	// few milliseconds): the longest run starts at once, not after the
	// facts of every file were read one by one. Outcomes are kept by
	// index: the order changes none of them.
	all := set.Files
	srcs := make([][]byte, len(all))
	readErr := make([]bool, len(all))
	for i, f := range all {
		src, err := readFile(ld.l.abs(f), f)
		srcs[i], readErr[i] = src, err != nil
	}
	infos := make([]FileInfo, len(all))
	chosen := make([]bool, len(all))

	par := ld.opt.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	wd := newWatchdog(ld.opt.MaxHeapGrowth)
	defer wd.close()
	type result struct {
		sels  []Selection
		sk    []string
		err   error
		steps int64
	}
	results := make([]result, len(all))
	var wg sync.WaitGroup
	next := make(chan int)
	for range par {
		wg.Go(func() {
			for i := range next {
				f := all[i]
				fi := FileInfo{Rel: f, Pages: importers[f]}
				if !readErr[i] {
					fi.Models, fi.Prefixes, fi.Known = ld.opt.Cache.facts(f, srcs[i])
				}
				infos[i] = fi
				srcs[i] = nil // decode reads the file itself
				if chosen[i] = ld.opt.Files == nil || ld.opt.Files(fi); !chosen[i] {
					continue
				}
				key := ""
				if ld.opt.Cache != nil {
					key = ld.cacheKey(f)
				}
				if key != "" {
					if c, ok := ld.opt.Cache.get(key); ok {
						results[i] = result(c)
						continue
					}
				}
				var used int64
				s, sk, err := ld.decodeWith(ctx, f, wd, &used)
				results[i] = result{s, sk, err, used}
				if key != "" {
					ld.opt.Cache.put(key, cached{s, sk, err, used})
				}
			}
		})
	}
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(srcs[b]) - len(srcs[a]) })
	for _, i := range order {
		next <- i
	}
	close(next)
	wg.Wait()
	set.Info = make(map[string]FileInfo, len(all))
	var run []string
	if ld.opt.Files != nil {
		run = all[:0:0] // as before: an empty list, not nil, when none is chosen
	}
	var runResults []result
	for i, f := range all {
		set.Info[f] = infos[i]
		if chosen[i] {
			run, runResults = append(run, f), append(runResults, results[i])
		} else {
			set.NotRun = append(set.NotRun, f)
		}
	}
	set.Files, results = run, runResults
	for i, rel := range set.Files {
		r := results[i]
		if errors.Is(r.err, errRetry) {
			// the memory bound tripped while other files ran: alone now
			wd1 := newWatchdog(ld.opt.MaxHeapGrowth)
			r.sels, r.sk, r.err = ld.decode(ctx, rel, "", wd1, &r.steps)
			wd1.close()
		}
		set.Steps[rel] = r.steps
		if r.err != nil {
			set.Errors[rel] = r.err
			continue
		}
		setPage(r.sels, pageFor[rel])
		set.Selections[rel] = r.sels
		if len(r.sk) > 0 {
			set.Skipped[rel] = r.sk
		}
	}
	return set, ctx.Err()
}

// DecodeFile decodes one file of the sglang checkout at root: a snippet
// (docs/src/snippets/configs/… or autoregressive/…) or an .mdx page
// (docs/cookbook/…), whose imported deployment snippets are decoded in
// import order. file is "docs/…", relative to the docs directory, or a
// path inside it. Page and URL are set (for a snippet, from the first page,
// sorted, that imports it). Errors are *FileError naming the file (and the
// JS line when goja gives one), ErrLeftOut wrapped for a left-out snippet.
func DecodeFile(ctx context.Context, root, file string, opt Options) ([]Selection, error) {
	ld, err := newLoader(root, opt)
	if err != nil {
		return nil, err
	}
	rel, err := ld.l.resolveFile(file)
	if err != nil {
		return nil, err
	}
	wd := newWatchdog(ld.opt.MaxHeapGrowth)
	defer wd.close()
	if strings.HasSuffix(rel, ".mdx") {
		src, err := readFile(ld.l.abs(rel), rel)
		if err != nil {
			return nil, err
		}
		snips := pageImports(ld.l, src)
		if len(snips) == 0 {
			return nil, &FileError{File: rel, Err: errors.New("the page imports no deployment snippet (/src/snippets/configs/… or /src/snippets/autoregressive/…)")}
		}
		var out []Selection
		for _, s := range snips {
			var used int64
			sels, _, err := ld.decode(ctx, s, rel, wd, &used)
			if err != nil {
				return nil, err
			}
			setPage(sels, rel)
			out = append(out, sels...)
		}
		return out, nil
	}
	var used int64
	sels, _, err := ld.decode(ctx, rel, "", wd, &used)
	if err != nil {
		return nil, err
	}
	pages, err := ld.allPages()
	if err == nil {
		setPage(sels, pageOf(pages)[rel])
	}
	return sels, nil
}

// FindRoot finds the sglang checkout holding path (a page or snippet): the
// nearest ancestor directory with docs/src/snippets (a repository root) or
// src/snippets (a docs directory).
func FindRoot(p string) (string, error) {
	a, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	for d := filepath.Dir(a); ; d = filepath.Dir(d) {
		if _, err := resolveLayout(d); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("pages: %s: not inside an sglang checkout (no ancestor with docs/src/snippets or src/snippets)", p)
		}
	}
}

// IsPageOrSnippet reports whether path names a cookbook page (.mdx) or a
// deployment snippet (…/snippets/configs/… or …/snippets/autoregressive/…)
// by its name alone.
func IsPageOrSnippet(p string) bool {
	s := filepath.ToSlash(p)
	return strings.HasSuffix(s, ".mdx") ||
		strings.Contains(s, "snippets/configs/") || strings.Contains(s, "snippets/autoregressive/")
}
