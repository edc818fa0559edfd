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
const treeBytesMax = 2 << 20

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
	type victim struct {
		use  *treeUse
		drop func()
	}
	var vs []victim
	for name, m := range c.files {
		for src, pf := range m {
			vs = append(vs, victim{&pf.use, func() {
				delete(m, src)
				if len(m) == 0 {
					delete(c.files, name)
				}
			}})
		}
	}
	for key, m := range c.sourced {
		for text, ps := range m {
			vs = append(vs, victim{&ps.use, func() {
				delete(m, text)
				if len(m) == 0 {
					delete(c.sourced, key)
				}
			}})
		}
	}
	for src, kt := range c.plain {
		vs = append(vs, victim{&kt.use, func() { delete(c.plain, src) }})
	}
	for key, kt := range c.runs {
		vs = append(vs, victim{&kt.use, func() { delete(c.runs, key) }})
	}
	slices.SortFunc(vs, func(a, b victim) int { return cmp.Compare(a.use.used, b.use.used) })
	for _, v := range vs {
		if c.treeBytes <= target {
			break
		}
		v.drop()
		c.treeBytes -= v.use.size
		c.n--
	}
}
