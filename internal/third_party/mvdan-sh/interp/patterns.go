// cookbook-sync patch (see ../PATCHES.md): this file is not part of
// mvdan.cc/sh; it is under the same license as the package.

package interp

import (
	"strings"
	"sync"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/internal"
	"mvdan.cc/sh/v3/pattern"
)

// PatternCache keeps the matchers of the patterns case and [[ == ]]
// compiled (a regular expression each, compiled at every match otherwise),
// by pattern, at most patternCacheMax of them and none longer than
// patternKeepMax bytes (a script's patterns are short; one a script builds
// to any size is compiled each time, never kept); safe for concurrent use,
// so runners of many runs may share one (Patterns). cookbook-sync patch.
type PatternCache struct {
	mu sync.Mutex
	m  map[string]patternMatcher
}

// patternMatcher is one compiled pattern, or its error.
type patternMatcher struct {
	match func(string) bool
	err   error
}

// patternCacheMax and patternKeepMax bound a PatternCache (entries, bytes
// of one pattern): past them, patterns are compiled at every match as
// before.
const (
	patternCacheMax = 4096
	patternKeepMax  = 1024
)

// NewPatternCache returns an empty PatternCache.
func NewPatternCache() *PatternCache { return &PatternCache{m: map[string]patternMatcher{}} }

// matcher is the matcher of pat in case and [[ == ]] (entire string,
// extended operators); c may be nil.
func (c *PatternCache) matcher(pat string) (func(string) bool, error) {
	if m, ok := starMatcher(pat); ok {
		return m, nil
	}
	if c == nil || len(pat) > patternKeepMax {
		return internal.ExtendedPatternMatcher(pat, pattern.EntireString|pattern.ExtendedOperators)
	}
	c.mu.Lock()
	m, ok := c.m[pat]
	c.mu.Unlock()
	if ok {
		return m.match, m.err
	}
	m.match, m.err = internal.ExtendedPatternMatcher(pat, pattern.EntireString|pattern.ExtendedOperators)
	c.mu.Lock()
	if len(c.m) < patternCacheMax {
		c.m[pat] = m
	}
	c.mu.Unlock()
	return m.match, m.err
}

// Patterns has the runner keep the patterns it matches compiled in c,
// shared with its subshells. cookbook-sync patch (see ../PATCHES.md).
func Patterns(c *PatternCache) RunnerOption {
	return func(r *Runner) error {
		r.patterns = c
		return nil
	}
}

// Len is the number of patterns c keeps.
func (c *PatternCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// starMatcher is the matcher of a pattern made of ASCII text and `*`
// only — no `?`, bracket, backslash, parenthesis or `|`, so no extended
// operator either — without a regular expression: the text between the
// stars found in order, the first piece a prefix and the last a suffix,
// as the expression pattern.Regexp makes of it ((?s)^a.*b$: `*` any
// bytes, newlines and bytes that are not UTF-8 included) matches. ok is
// false for any other pattern. Most patterns scripts match are of this
// kind (`*.sh`, `*"$x"*`, `mi3*`, a word). cookbook-sync patch.
func starMatcher(pat string) (match func(string) bool, ok bool) {
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; {
		case c >= 0x80, c == '?', c == '[', c == '\\', c == '(', c == ')', c == '|':
			return nil, false
		}
	}
	if !strings.Contains(pat, "*") {
		return func(name string) bool { return name == pat }, true
	}
	pieces := strings.Split(pat, "*")
	first, last, mid := pieces[0], pieces[len(pieces)-1], pieces[1:len(pieces)-1]
	return func(name string) bool {
		if len(name) < len(first)+len(last) || !strings.HasPrefix(name, first) || !strings.HasSuffix(name, last) {
			return false
		}
		rest := name[len(first) : len(name)-len(last)]
		for _, p := range mid {
			i := strings.Index(rest, p)
			if i < 0 {
				return false
			}
			rest = rest[i+len(p):]
		}
		return true
	}, true
}
