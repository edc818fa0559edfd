package sandbox

import (
	"slices"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/interp"
)

// This file is envDiff's fast path: what diffEnv(exported(env)) gives,
// without listing the run's start for every command. A command's
// environment is the run's start (a startEnv, never written) under the
// overlays the script's assignments made; the start's variables that
// differ from a base are worked out once per start and base (rootDiff), so
// each command lists, sorts and looks up only what the script set (tens of
// variables, not the hundreds a harness exports).

// overlaid is the visible entry of one variable the overlays hold
// (interp.EachVisibleOverlay).
type overlaid struct {
	name, str string
	exported  bool // an exported string (the kind a command inherits)
}

// rootBase names one base diffEnv tells a start's variables against: -1
// the run's (sandbox.base), i ≥ 0 container i's (containerBases[i]).
type rootBase struct {
	start *startEnv
	base  int
}

// envDiffFast is diffEnv(exported(env)) for an env whose root is a
// startEnv (ok false otherwise: the caller lists it all). sb.mu held.
func (sb *sandbox) envDiffFast(env expand.Environ) (_ []string, ok bool) {
	// the overlays' visible variables, by name (the interpreter keeps
	// each overlay's names sorted and merges them: interp patch 7)
	vis := sb.overlaidBuf[:0]
	se, isStart := interp.EachVisibleOverlay(env, func(name string, v expand.Variable) bool {
		vis = append(vis, overlaid{name: name, str: v.Str, exported: v.IsSet() && v.Exported && v.Kind == expand.String})
		return true
	}).(*startEnv)
	sb.overlaidBuf = vis[:0]
	if !isStart {
		return nil, false
	}
	// the base: a container's when the environment carries its marker
	// (the overlays' visible value, else the start's)
	bi := -1
	marker, hasMarker := "", false
	if j, found := slices.BinarySearchFunc(vis, containerVar, func(e overlaid, n string) int { return compareNameEq(e.name, n) }); found {
		marker, hasMarker = vis[j].str, vis[j].exported
	} else if v := se.Get(containerVar); v.IsSet() {
		marker, hasMarker = v.Str, true
	}
	if hasMarker {
		sb.holeIn("the container marker", marker) // a number (holes.go)
		if i, err := strconv.Atoi(marker); err == nil && i >= 0 && i < len(sb.containerBases) {
			bi = i
		}
	}
	base := sb.base
	if bi >= 0 {
		base = sb.containerBases[bi]
	}
	// the start's variables that differ from base (worked out once per
	// start and base: mostly none), merged with the overlays' entries, an
	// overlay's entry hiding the start's
	diff := sb.rootDiff(se, bi, base)
	// While the entries equal the last answer's (sb.diffKVs) one by one,
	// nothing is built: a list equal to it is answered with it, shared
	// (most commands see the variables the one before saw, though an
	// assignment to another variable moved the version envDiff checks).
	prev := sb.diffKVs
	var out []string
	n := 0 // entries listed so far; out holds them once one differs from prev
	add := func(kv string, name, str string) {
		if out == nil && n < len(prev) && (kv != "" && prev[n] == kv || kv == "" && isPair(prev[n], name, str)) {
			n++
			return
		}
		if out == nil {
			out = make([]string, n, n+8)
			copy(out, prev[:n])
		}
		if kv == "" {
			kv = name + "=" + str
		}
		out = append(out, kv)
		n++
	}
	i, j := 0, 0
	for i < len(diff) || j < len(vis) {
		if j == len(vis) || i < len(diff) && compareNameEq(se.names[diff[i]], vis[j].name) < 0 {
			add(se.pairs[diff[i]], "", "")
			i++
			continue
		}
		e := vis[j]
		if i < len(diff) && se.names[diff[i]] == e.name {
			i++ // the overlay's value hides the start's
		}
		j++
		if !e.exported || e.name == containerVar {
			continue
		}
		if old, ok := base[e.name]; ok && old == e.str {
			continue
		} else if ok {
			sb.unequalInWorlds(old, e.str)
		}
		add("", e.name, e.str)
	}
	if out == nil {
		switch {
		case n == 0:
			return nil, true
		case n == len(prev):
			return prev, true // the last answer, sorted already
		default:
			return prev[:n:n], true // a prefix of it: sorted; appends copy
		}
	}
	// by name ("A=" sorts after "A9=", "A" before "A9"), as exported
	byName := func(a, b string) int {
		return strings.Compare(a[:strings.IndexByte(a, '=')], b[:strings.IndexByte(b, '=')])
	}
	if !slices.IsSortedFunc(out, byName) {
		slices.SortFunc(out, byName)
	}
	return out, true
}

// isPair reports whether kv is name=str, without building it.
func isPair(kv, name, str string) bool {
	return len(kv) == len(name)+1+len(str) && kv[len(name)] == '=' && kv[:len(name)] == name && kv[len(name)+1:] == str
}

// rootDiff lists, by index into se's variables in their order, those
// that base (the one bi names) does not hold with the same value, the
// container marker left out: worked out once per start and base. sb.mu
// held.
func (sb *sandbox) rootDiff(se *startEnv, bi int, base map[string]string) []int {
	k := rootBase{start: se, base: bi}
	if d, ok := sb.rootDiffs[k]; ok {
		return d
	}
	d := []int{}
	for i, n := range se.names {
		old, ok := base[n]
		if ok && old != se.value(i) {
			sb.unequalInWorlds(old, se.value(i))
		}
		if (!ok || old != se.value(i)) && n != containerVar {
			d = append(d, i)
		}
	}
	if sb.rootDiffs == nil {
		sb.rootDiffs = map[rootBase][]int{}
	}
	sb.rootDiffs[k] = d
	return d
}
