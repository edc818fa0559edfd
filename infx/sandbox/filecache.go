package sandbox

import (
	"io/fs"
	"sync"
)

// This file is the read cache of a Cache over fixed trees (Cache.FixTrees):
// a run reads the same scripts and libraries of the checkout again and
// again (benchmarks/benchmark_lib.sh, 89 KB, thousands of times in one
// coverage run), and stats the same paths. Over trees nothing changes, what
// the jail found the first time is what it would find every time.

// fileCache keeps the jail's stat and read results by read root and the
// path as the caller gave it. Data is kept with its capacity cut to its
// length, and no caller changes the bytes the jail returns in place (the
// sandbox reads them, parses them, keys caches by them), so a slice handed
// out twice is safe. Bounded: past fileCacheMaxEntries entries or
// fileCacheMaxBytes bytes of data, results are not kept.
type fileCache struct {
	mu    sync.Mutex
	stats map[fileStatKey]fileStat
	reads map[fileReadKey]fileRead
	bytes int
}

// fileStatKey is one stat: the read root, the path as given, Stat or Lstat.
type fileStatKey struct {
	root, path string
	follow     bool
}

type fileStat struct {
	info fs.FileInfo
	err  error
}

// fileReadKey is one read: the read root, the path as given, the byte limit.
type fileReadKey struct {
	root, path string
	limit      int64
}

type fileRead struct {
	data []byte
	err  error
}

const (
	fileCacheMaxEntries = 1 << 16
	fileCacheMaxBytes   = 64 << 20
)

func (c *fileCache) stat(k fileStatKey) (fileStat, bool) { return kept(c, &c.stats, k) }

func (c *fileCache) read(k fileReadKey) (fileRead, bool) { return kept(c, &c.reads, k) }

func (c *fileCache) putStat(k fileStatKey, s fileStat) { keep(c, &c.stats, k, s, 0) }

func (c *fileCache) putRead(k fileReadKey, r fileRead) {
	r.data = r.data[:len(r.data):len(r.data)] // an append copies
	keep(c, &c.reads, k, r, len(r.data))
}

// kept is (*m)[k] under c.mu (the map itself is made under the lock by
// keep: *m is read only while it is held).
func kept[K comparable, V any](c *fileCache, m *map[K]V, k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := (*m)[k]
	return v, ok
}

// keep stores v (holding size bytes of data) in *m under c.mu, unless the
// cache is at its bounds.
func keep[K comparable, V any](c *fileCache, m *map[K]V, k K, v V, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.stats)+len(c.reads) >= fileCacheMaxEntries || c.bytes+size > fileCacheMaxBytes {
		return
	}
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = v
	c.bytes += size
}

// FixTrees promises that nothing changes the files under the read roots
// of the runs that use c (Config.Cache) while c is in use — a coverage
// run over fixed checkouts: from then on what the sandbox stats and reads
// there is kept by read root and path, and the next run finds it without
// the disk. Files a run writes live in its own overlay and are never
// kept. A caller that edits the checkout between runs (a mutation suite)
// must not call it, or must use a new Cache after an edit.
func (c *Cache) FixTrees() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.disk == nil {
		c.disk = &fileCache{}
	}
}

// fixedFiles is c's read cache, nil unless FixTrees was called.
func (c *Cache) fixedFiles() *fileCache {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.disk
}
