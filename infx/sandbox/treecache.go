package sandbox

import (
	"cmp"
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// treeBytesMax bounds the source bytes of the parse trees a Cache keeps
// (prepared files, sourced texts, plain and run parses together): past
// it, the trees used least recently are dropped until a quarter of the
// bound is free, and parsed again if a later run asks for them. A tree
// takes about 13 bytes of heap per source byte. Issue 24 (main job,
// complete trees, every source): 938 distinct texts, 3.4 MiB, asked for
// 51,000 times; kept whole, their trees were the run's largest steady
// part of the live heap (up to 54 MB). With this bound (2 MiB) 1,016
// parses instead of 938 (3.9 MiB parsed instead of 3.4); 1.5 MiB made
// 1,089 (4.5 MiB: +0.2 CPU-s) for a few MB less.
// Since a sourced text's tree is shared by every name it is sourced by
// (parseSourced: one library text had five), 1 MiB parses 4.9 MiB in 1,160
// parses, what 2 MiB parsed before, for 13 MB less heap; 2 MiB would parse
// 3.6 MiB, 512 KiB thrashes (a library's tree alone is 146 KB of text).
// At a 216 MiB memory limit the run's collector CPU fell 3.5 → 2.7 s, its
// wall time 8.1 → 7.3 s (two paired runs); at the default limit no change.
// Least recently used goes first: eviction that also weighed a tree's
// uses (its last use plus up to 64 uses × 128 ticks, or 16 × 256, 64 × 512,
// 8 × 1024; or trees used once first) parsed 1,119–1,265 texts, 4.5–6.7 MB,
// against 1,128 and 4.5 MB (main job, complete trees, every source).
const treeBytesMax = 1 << 20

// treeUse is a Cache's bookkeeping of one kept parse tree: its last use
// (Cache.tick) and the source bytes it was parsed from. Guarded by
// Cache.mu.
type treeUse struct {
	used uint64
	size int
}

// keptTree is a plain or run parse kept by a Cache (nil file: the text
// does not parse).
type keptTree struct {
	file *syntax.File
	use  treeUse
	// inert is what inertScript reads of a plain parse (plainInert),
	// made on first use.
	inert *inertFacts
}

// touch records a use of a kept tree. c.mu held.
func (c *Cache) touch(u *treeUse) {
	c.tick++
	u.used = c.tick
}

// keep records a tree just kept, parsed from size source bytes (a use,
// an entry), then drops the least recently used trees when the kept
// bytes are over treeBytesMax. c.mu held.
func (c *Cache) keep(u *treeUse, size int) {
	u.size = size
	c.touch(u)
	c.n++
	c.treeBytes += size
	if c.treeBytes > treeBytesMax {
		c.dropTrees(treeBytesMax - treeBytesMax/4)
	}
}

// dropTrees drops kept trees, least recently used first, until their
// source bytes are at most target. c.mu held. What a dropped tree was
// made from is parsed again, to the same tree, when asked for: only the
// time changes, never an outcome.
func (c *Cache) dropTrees(target int) {
	var vs []treeVictim
	vs = nestedVictims(vs, c.files, func(pf *preparedFile) *treeUse { return &pf.use })
	vs = victims(vs, c.sourced, func(ps *parsedSource) *treeUse { return &ps.use })
	vs = victims(vs, c.plain, func(kt *keptTree) *treeUse { return &kt.use })
	vs = victims(vs, c.runs, func(kt *keptTree) *treeUse { return &kt.use })
	slices.SortFunc(vs, func(a, b treeVictim) int { return cmp.Compare(a.use.used, b.use.used) })
	for _, v := range vs {
		if c.treeBytes <= target {
			break
		}
		v.drop()
		c.treeBytes -= v.use.size
		c.n--
	}
}

// treeVictim is a kept tree dropTrees may drop: its bookkeeping and how
// to remove it from its map.
type treeVictim struct {
	use  *treeUse
	drop func()
}

// victims appends the entries of m to vs (use: an entry's bookkeeping).
func victims[K comparable, V any](vs []treeVictim, m map[K]V, use func(V) *treeUse) []treeVictim {
	for k, v := range m {
		vs = append(vs, treeVictim{use(v), func() { delete(m, k) }})
	}
	return vs
}

// nestedVictims is victims for a map of maps: an inner map left empty is
// removed too.
func nestedVictims[V any](vs []treeVictim, m map[string]map[string]V, use func(V) *treeUse) []treeVictim {
	for k, inner := range m {
		for ik, v := range inner {
			vs = append(vs, treeVictim{use(v), func() {
				delete(inner, ik)
				if len(inner) == 0 {
					delete(m, k)
				}
			}})
		}
	}
	return vs
}
