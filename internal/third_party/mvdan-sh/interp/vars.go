// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	cryptorand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	mathrand "math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/expand"
	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/internal"
	"mvdan.cc/sh/v3/syntax"
)

func newOverlayEnviron(parent expand.Environ, background bool) *overlayEnviron {
	if !background {
		return childEnviron(parent, false) // cookbook-sync patch: the chain's counter
	}
	oenv := &overlayEnviron{gen: new(atomic.Uint64)} // cookbook-sync patch
	{
		// cookbook-sync patch: a background copy copies the overlays only
		// and keeps the chain's root, the environment the runner started
		// with (Runner.Env, never written: writes go to overlays), as its
		// parent, read-only as before; its lists are sized once. (It copied
		// every variable of the root too, growing and rehashing its map
		// variable by variable: 5% of a coverage run's CPU.) Each entry is
		// stored as listed, later ones winning, as the Set calls of the
		// copy did (an unset entry is kept: it hides the root's value).
		// The visible entry of each name, in name order (names kept
		// sorted without a sort).
		n := 0
		root := EachVisibleOverlay(parent, func(string, expand.Variable) bool { n++; return true })
		oenv.parent = root
		oenv.vals = make([]namedVariable, 0, n)
		oenv.names = make([]string, 0, n)
		oenv.keys = make([]uint64, 0, n)
		EachVisibleOverlay(parent, func(name string, vr expand.Variable) bool {
			key := oenv.normalize(name)
			sz := VarBytes(name, vr)
			oenv.vals = append(oenv.vals, namedVariable{name, vr, sz})
			oenv.names = append(oenv.names, key)
			oenv.keys = append(oenv.keys, nameKey(key))
			oenv.bytes += sz
			return true
		})
	}
	return oenv
}

// EachOverlay (cookbook-sync patch) calls f for the variables env's
// overlays hold, outermost first, each overlay's in name order
// (EachVisibleOverlay lists each name once, merged), until f returns
// false, and returns the root of the chain: the
// environment below every overlay (the one the runner started with,
// Runner.Env, or nil below a chain that ends in an overlay), whose
// variables it does not list. Each of env lists root's variables, then
// what EachOverlay lists. An env that is not an overlay is its own root.
func EachOverlay(env expand.Environ, f func(name string, vr expand.Variable) bool) (root expand.Environ) {
	o, ok := env.(*overlayEnviron)
	if !ok {
		return env
	}
	root, _ = o.eachOverlay(f)
	return root
}

// eachOverlay is EachOverlay from o; more is false once f returned false.
func (o *overlayEnviron) eachOverlay(f func(name string, vr expand.Variable) bool) (root expand.Environ, more bool) {
	if p, ok := o.parent.(*overlayEnviron); ok {
		if root, more = p.eachOverlay(f); !more {
			return root, false
		}
	} else {
		root = o.parent
	}
	for _, vr := range o.vals {
		if !f(vr.Name, vr.Variable) {
			return root, false
		}
	}
	return root, true
}

// EachVisibleOverlay (cookbook-sync patch) calls f once for each name
// env's overlays hold, with the entry an environment lookup finds (the
// innermost overlay's that holds it: a value, or an unset entry that hides
// the root's), in expand.ListEnviron's order (by "NAME="), until f returns
// false, and returns the chain's root as EachOverlay does. It merges the
// overlays' name lists, each kept sorted as names are added: no sort, no
// map.
func EachVisibleOverlay(env expand.Environ, f func(name string, vr expand.Variable) bool) (root expand.Environ) {
	o, ok := env.(*overlayEnviron)
	if !ok {
		return env
	}
	var levels []*overlayEnviron // innermost first
	for {
		levels = append(levels, o)
		p, ok := o.parent.(*overlayEnviron)
		if !ok {
			root = o.parent
			break
		}
		o = p
	}
	if len(levels) == 1 {
		for _, vr := range o.vals {
			if !f(vr.Name, vr.Variable) {
				break
			}
		}
		return root
	}
	at := make([]int, len(levels))
	for {
		// the smallest name any level still has; the innermost level
		// holding it wins
		best := -1
		for i, l := range levels {
			if at[i] == len(l.names) {
				continue
			}
			if best < 0 || keyedCompare(l.keys[at[i]], levels[best].keys[at[best]], l.names[at[i]], levels[best].names[at[best]]) < 0 {
				best = i
			}
		}
		if best < 0 {
			return root
		}
		key := levels[best].names[at[best]]
		vr := levels[best].vals[at[best]]
		for i, l := range levels {
			if at[i] < len(l.names) && l.names[at[i]] == key {
				at[i]++
			}
		}
		if !f(vr.Name, vr.Variable) {
			return root
		}
	}
}

// overlayEnviron is our main implementation of [expand.WriteEnviron].
type overlayEnviron struct {
	// parent is non-nil if [values] is an overlay over a parent environment
	// which we can safely reuse without data races, such as non-background subshells
	// or function calls.
	parent expand.Environ

	// vals are the overlay's variables, vals[i] under the normalized name
	// names[i] (per [overlayEnviron.normalize]). cookbook-sync patch: a
	// slice in names' order, found by binary search, instead of a map
	// (most overlays hold a few variables: a map's growth and hashing
	// were 3% of a coverage run's allocation; issue 24).
	vals []namedVariable

	// We need to know if the current scope is a function's scope, because
	// functions can modify global variables. When true, [parent] must not be nil.
	funcScope bool

	// cookbook-sync patch: gen counts the Set calls made on any overlay of
	// this chain that can change the exported strings it shows (an
	// overlay shares its parent overlay's counter; a background copy has
	// its own): see EnvironVersion.
	gen *atomic.Uint64

	// cookbook-sync patch: xown is set by a Set call on this overlay that
	// counted in gen; an overlay without one shows the exported strings
	// its parent shows (see EnvironVersion).
	xown bool

	// cookbook-sync patch: bytes is the sum of the entries' sizes
	// (OverlayBytes).
	bytes int

	// cookbook-sync patch: names are the normalized names of vals, in
	// ListEnviron's order (by "NAME=", nameCompare), kept as names are
	// added (a name is never removed: an unset is stored as an unset
	// entry): see EachVisibleOverlay.
	names []string
	// cookbook-sync patch: keys[i] is nameKey(names[i]): a search
	// compares them first (nameCompare only when two are equal).
	keys []uint64
}

// cookbook-sync patch: nameCompare compares a+"=" with b+"=" without
// building them (expand.ListEnviron's order).
func nameCompare(a, b string) int {
	if len(a) > 0 && len(b) > 0 && a[0] != b[0] {
		return cmpByte(a[0], b[0]) // (most names differ in their first byte)
	}
	n := min(len(a), len(b))
	if c := strings.Compare(a[:n], b[:n]); c != 0 {
		return c
	}
	switch {
	case len(a) == len(b):
		return 0
	case len(a) < len(b):
		return cmpByte('=', b[n])
	default:
		return cmpByte(a[n], '=')
	}
}

// cookbook-sync patch: nameKey is the first 8 bytes of name+"=" (zero
// bytes after a shorter one; a name is cut at its first '=', which no
// variable name holds) as a big-endian number. Of two names whose keys
// differ, the smaller key is the smaller name by nameCompare: the keys
// first differ where name+"=" first differs, at a byte nameCompare reads
// (a '=' ends a key, so a key's padding is never that byte). Equal keys
// say nothing (TestNameKeyOrder).
func nameKey(name string) uint64 {
	var b [8]byte
	if i := strings.IndexByte(name[:min(len(name), 8)], '='); i >= 0 {
		name = name[:i]
	}
	if n := copy(b[:], name); n < 8 {
		b[n] = '='
	}
	return binary.BigEndian.Uint64(b[:])
}

// cookbook-sync patch: keyedCompare is nameCompare(a, b) for names whose
// nameKeys are ka and kb.
func keyedCompare(ka, kb uint64, a, b string) int {
	switch {
	case ka < kb:
		return -1
	case ka > kb:
		return 1
	}
	return nameCompare(a, b)
}

func cmpByte(a, b byte) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cookbook-sync patch: put stores v under key, keeping names sorted and
// bytes counted.
func (o *overlayEnviron) put(key string, v namedVariable) {
	v.size = VarBytes(v.Name, v.Variable)
	o.bytes += v.size
	i, had := o.find(key)
	if had {
		o.bytes -= o.vals[i].size
		o.vals[i] = v
		return
	}
	o.names = slices.Insert(o.names, i, key)
	o.keys = slices.Insert(o.keys, i, nameKey(key))
	o.vals = slices.Insert(o.vals, i, v)
}

// cookbook-sync patch: find is the index of key in names (and vals),
// or where it would be inserted.
func (o *overlayEnviron) find(key string) (int, bool) {
	names := o.names
	if len(names) <= 8 {
		// (most overlays: a function's or a subshell's few variables)
		for i, n := range names {
			if n == key {
				return i, true
			}
		}
		if len(names) == 0 || nameCompare(names[len(names)-1], key) < 0 {
			return len(names), false
		}
	}
	// the entries of key's nameKey (the keys from k up to k+1), then
	// among them (in name order) key
	k, keys := nameKey(key), o.keys
	lo, _ := slices.BinarySearch(keys, k)
	end := len(keys)
	if k != ^uint64(0) {
		n, _ := slices.BinarySearch(keys[lo:], k+1)
		end = lo + n
	}
	i, ok := slices.BinarySearchFunc(names[lo:end], key, nameCompare)
	return lo + i, ok
}

// VarBytes (cookbook-sync patch) is the bytes a variable holds: its name,
// its string value, its list's elements, its map's keys and values.
func VarBytes(name string, vr expand.Variable) int {
	n := len(name) + len(vr.Str)
	for _, e := range vr.List {
		n += len(e)
	}
	for k, e := range vr.Map {
		n += len(k) + len(e)
	}
	return n
}

// OverlayBytes (cookbook-sync patch) is the sum of VarBytes over every
// entry env's overlays hold — each overlay's entries, shadowed ones
// included, as EachOverlay lists them — and the chain's root, as
// EachOverlay returns it. Each overlay keeps its own sum as entries are
// stored (lists and maps are copied before they change, and every change
// is stored again), so the sum costs one step per overlay.
func OverlayBytes(env expand.Environ) (root expand.Environ, total int) {
	o, ok := env.(*overlayEnviron)
	if !ok {
		return env, 0
	}
	for {
		total += o.bytes
		p, ok := o.parent.(*overlayEnviron)
		if !ok {
			return o.parent, total
		}
		o = p
	}
}

// cookbook-sync patch: exportedString reports whether vr is an exported
// string, what a command's environment holds of the shell's variables
// (ListEnviron and the runner's exec list only those).
func exportedString(vr expand.Variable) bool {
	return vr.IsSet() && vr.Exported && vr.Kind == expand.String
}

// cookbook-sync patch: childEnviron is an overlay over parent sharing its
// counter (gen) when parent is an overlay.
func childEnviron(parent expand.Environ, funcScope bool) *overlayEnviron {
	o := &overlayEnviron{parent: parent, funcScope: funcScope}
	if p, ok := parent.(*overlayEnviron); ok && p.gen != nil {
		o.gen = p.gen
	} else {
		o.gen = new(atomic.Uint64)
	}
	return o
}

// EnvironVersion (cookbook-sync patch) names the state of env, an
// environment the runner handed out (HandlerContext.Env): while scope and
// version are the same, every exported string variable env shows (what a
// command it runs inherits) is the same. version is the number of Set
// calls made on the chain so far that could change those: one whose
// variable, as the overlay written shows it, is an exported string before
// or after (export, declare +x and local without a value keep the value
// and change attributes: what it is after is the kept value with them);
// an assignment to a variable that is not exported leaves it. scope is the
// innermost overlay of env's chain that had such a call (xown): an overlay
// without one — empty, or holding only such assignments, a function's
// plain locals — shows the exported strings of its parent, so the commands
// of a function that only sets plain locals share their caller's scope. ok
// is false for another kind of environment. A caller that keeps scope
// keeps it alive, so no later environment can take its address.
func EnvironVersion(env expand.Environ) (scope any, version uint64, ok bool) {
	o, isOverlay := env.(*overlayEnviron)
	if !isOverlay || o.gen == nil {
		return nil, 0, false
	}
	for !o.xown {
		p, pOverlay := o.parent.(*overlayEnviron)
		if !pOverlay || p.gen != o.gen {
			break
		}
		o = p
	}
	return o, o.gen.Load(), true
}

// namedVariable records the original name of a variable for platforms
// where variable names are matched in a case-insensitive way.
type namedVariable struct {
	// TODO(v4): consider adding this field to [expand.Variable],
	// as a general way for a variable to report its original name.
	// This can be useful for GOOS=windows with case insensitive env vars,
	// as otherwise it's not possible to Environ.Get a var
	// and know what was its original name without looping over Environ.Each.
	Name string
	expand.Variable
	// size is VarBytes of the entry, worked out when it was stored
	// (cookbook-sync patch: OverlayBytes).
	size int
}

func (o *overlayEnviron) normalize(name string) string {
	if runtime.GOOS == "windows" {
		return strings.ToUpper(name)
	}
	return name
}

func (o *overlayEnviron) Get(name string) expand.Variable {
	normalized := o.normalize(name)
	if i, ok := o.find(normalized); ok {
		return o.vals[i].Variable
	}
	if o.parent != nil {
		return o.parent.Get(name)
	}
	return expand.Variable{}
}

func (o *overlayEnviron) Set(name string, vr expand.Variable) error {
	if o.gen != nil {
		// cookbook-sync patch: EnvironVersion counts the Set calls that
		// can change the exported strings the chain shows: the variable,
		// as this overlay shows it, is one before or after (with
		// KeepValue, an attribute change, the value it keeps, as below)
		cur, next := o.Get(name), vr
		if vr.Kind == expand.KeepValue {
			next.Kind, next.Str = cur.Kind, cur.Str
		}
		if exportedString(cur) || exportedString(next) {
			o.gen.Add(1)
			o.xown = true
		}
	}
	normalized := o.normalize(name)
	var prev namedVariable
	i, inOverlay := o.find(normalized)
	if inOverlay {
		prev = o.vals[i]
	}
	// Manipulation of a global var inside a function.
	if o.funcScope && !vr.Local && !prev.Local {
		// In a function, the parent environment is ours, so it's always read-write.
		return o.parent.(expand.WriteEnviron).Set(name, vr)
	}
	if !inOverlay && o.parent != nil {
		prev.Variable = o.parent.Get(name)
	}

	if vr.Kind == expand.KeepValue {
		vr.Kind = prev.Kind
		vr.Str = prev.Str
		vr.List = prev.List
		vr.Indexes = prev.Indexes
		vr.Map = prev.Map
	} else if prev.ReadOnly {
		return errReadOnly
	}
	if !vr.IsSet() { // unsetting
		if prev.Local {
			vr.Local = true
			o.put(normalized, namedVariable{Name: name, Variable: vr}) // cookbook-sync patch
			return nil
		}
		// cookbook-sync patch: no delete — the entry is written again
		// just below, and names keeps its key
	}
	// modifying the entire variable
	vr.Local = prev.Local || vr.Local
	o.put(normalized, namedVariable{Name: name, Variable: vr}) // cookbook-sync patch
	return nil
}

func (o *overlayEnviron) Each(f func(name string, vr expand.Variable) bool) {
	if o.parent != nil {
		o.parent.Each(f)
	}
	for _, vr := range o.vals { // cookbook-sync patch: in name order
		if !f(vr.Name, vr.Variable) {
			return
		}
	}
}

func execEnv(env expand.Environ) []string {
	list := make([]string, 0, 64)
	for name, vr := range env.Each {
		if !vr.IsSet() {
			// If a variable is set globally but unset in the
			// runner, we need to ensure it's not part of the final
			// list. Seems like zeroing the element is enough.
			// This is a linear search, but this scenario should be
			// rare, and the number of variables shouldn't be large.
			for i, kv := range list {
				if strings.HasPrefix(kv, name+"=") {
					list[i] = ""
				}
			}
		}
		if vr.Exported && vr.Kind == expand.String {
			list = append(list, name+"="+vr.String())
		}
	}
	return list
}

func (r *Runner) lookupVar(name string) expand.Variable {
	if name == "" {
		panic("variable name must not be empty")
	}
	var vr expand.Variable
	switch name {
	case "#":
		vr.Kind, vr.Str = expand.String, strconv.Itoa(len(r.Params))
	case "@", "*":
		vr.Kind = expand.Indexed
		if r.Params == nil {
			// r.Params may be nil but positional parameters always exist
			vr.List = []string{}
		} else {
			vr.List = r.Params
		}
	case "!":
		if n := len(r.bgProcs); n > 0 {
			vr.Kind, vr.Str = expand.String, "g"+strconv.Itoa(n)
		}
	case "?":
		vr.Kind, vr.Str = expand.String, strconv.Itoa(int(r.lastExit.code))
	case "-":
		// Note that we don't support some of Bash's flags, such as h or B.
		vr.Kind, vr.Str = expand.String, r.posixOptFlags()
	case "$":
		vr.Kind, vr.Str = expand.String, strconv.Itoa(os.Getpid())
	case "PPID":
		vr.Kind, vr.Str = expand.String, strconv.Itoa(os.Getppid())
	case "RANDOM": // not for cryptographic use
		// Without a seed we use the global generator, which is seeded randomly
		// and also uses ChaCha8. Note that [Runner.subshell] does not copy the
		// seeded generator, so subshells start afresh like in bash.
		var n int
		if r.rand != nil {
			n = r.rand.IntN(randomMax)
		} else {
			n = mathrand.IntN(randomMax)
		}
		vr.Kind, vr.Str = expand.String, strconv.Itoa(n)
	case "SRANDOM": // pseudo-random generator from the system
		var p [4]byte
		cryptorand.Read(p[:])
		n := binary.NativeEndian.Uint32(p[:])
		vr.Kind, vr.Str = expand.String, strconv.FormatUint(uint64(n), 10)
	case "DIRSTACK":
		vr.Kind, vr.List = expand.Indexed, r.dirStack
	case "0":
		vr.Kind = expand.String
		if r.filename != "" {
			vr.Str = r.filename
		} else {
			vr.Str = "gosh"
		}
	case "1", "2", "3", "4", "5", "6", "7", "8", "9":
		if i := int(name[0] - '1'); i < len(r.Params) {
			vr.Kind = expand.String
			vr.Str = r.Params[i]
		}
	}
	if vr.Kind != expand.Unknown {
		vr.Set = true
		return vr
	}
	if vr := r.writeEnv.Get(name); vr.Declared() {
		return vr
	}
	return expand.Variable{}
}

func (r *Runner) envGet(name string) string {
	return r.lookupVar(name).String()
}

func (r *Runner) delVar(name string) {
	if err := r.writeEnv.Set(name, expand.Variable{}); err != nil {
		r.errf("%s: %v\n", name, err)
		r.exit.code = 1
		return
	}
}

func (r *Runner) setVarString(name, value string) {
	r.setVar(name, expand.Variable{Set: true, Kind: expand.String, Str: value})
}

func (r *Runner) setVar(name string, vr expand.Variable) {
	if err := r.setVarErr(name, vr); err != nil {
		r.errf("%v\n", err)
		r.exit.code = 1
	}
}

// errReadOnly is returned when trying to modify a read-only variable.
var errReadOnly = errors.New("readonly variable")

// randomMax is one past the highest value that RANDOM expands to, like in Bash.
const randomMax = 32768

// setVarErr is like [Runner.setVar], but it returns any error rather than
// reporting it, for the sake of the expand package.
func (r *Runner) setVarErr(name string, vr expand.Variable) error {
	if r.opts[optAllExport] {
		vr.Exported = true
	}
	if err := r.writeEnv.Set(name, vr); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if name == "RANDOM" && vr.Kind == expand.String {
		// Assigning to RANDOM seeds its generator; the stored value is never
		// read, as [Runner.lookupVar] always computes a new number. We only
		// seed once the assignment succeeds so that attributes such as
		// read-only still apply. We use ChaCha8 rather than PCG, whose only
		// edge is speed, which is irrelevant next to expanding a variable.
		var seed [32]byte
		binary.LittleEndian.PutUint64(seed[:], uint64(atoi(vr.Str)))
		r.rand = mathrand.New(mathrand.NewChaCha8(seed))
	}
	return nil
}

func (r *Runner) setVarWithIndex(prev expand.Variable, name string, index syntax.ArithmExpr, vr expand.Variable) {
	if vr.Kind == expand.String && index == nil {
		// When assigning a string to an array, fall back to the
		// zero value for the index.
		switch prev.Kind {
		case expand.Indexed:
			index = &syntax.Word{Parts: []syntax.WordPart{
				&syntax.Lit{Value: "0"},
			}}
		case expand.Associative:
			index = &syntax.Word{Parts: []syntax.WordPart{
				&syntax.DblQuoted{},
			}}
		}
	}
	if index == nil {
		r.setVar(name, vr)
		return
	}

	// from the syntax package, we know that value must be a string if index
	// is non-nil; nested arrays are forbidden.
	valStr := vr.Str

	var list []string
	var indexes []int
	switch prev.Kind {
	case expand.String:
		list = append(list, prev.Str)
	case expand.Indexed:
		// TODO: only clone when inside a subshell and getting a var from outside for the first time
		list = slices.Clone(prev.List)
		indexes = slices.Clone(prev.Indexes)
	case expand.Associative:
		// if the existing variable is already an AssocArray, try our
		// best to convert the key to a string
		w, ok := index.(*syntax.Word)
		if !ok {
			return
		}
		k := r.literal(w)
		r.holeIn("an associative key", k) // cookbook-sync patch

		// TODO: only clone when inside a subshell and getting a var from outside for the first time
		prev.Map = maps.Clone(prev.Map)
		if prev.Map == nil {
			prev.Map = make(map[string]string)
		}
		prev.Map[k] = valStr
		r.setVar(name, prev)
		return
	}
	k := r.arithm(index)
	if k < 0 {
		// Negative indices count from one past the maximum index.
		if k += internal.IndexedMax(list, indexes) + 1; k < 0 {
			r.errf("%s: bad array subscript\n", name)
			r.exit.code = 1
			return
		}
	}
	list, indexes = internal.SetIndexedElem(list, indexes, k, valStr)
	prev.Kind = expand.Indexed
	prev.List = list
	prev.Indexes = indexes
	r.setVar(name, prev)
}

// cutElemSubscript splits an array element argument like `a[3]`, as used by
// the unset builtin, into the array name and the subscript between brackets.
func cutElemSubscript(arg string) (name, sub string, ok bool) {
	i := strings.IndexByte(arg, '[')
	if i > 0 && strings.HasSuffix(arg, "]") && syntax.ValidName(arg[:i]) {
		return arg[:i], arg[i+1 : len(arg)-1], true
	}
	return "", "", false
}

// unsetElem unsets a single element of an indexed or associative array, like
// `unset 'a[3]'`. Unsetting an indexed array element may leave a hole.
func (r *Runner) unsetElem(name, sub string) {
	vr := r.lookupVar(name)
	if n, v := vr.Resolve(r.writeEnv); n != "" {
		name, vr = n, v
	}
	switch vr.Kind {
	case expand.Indexed:
		if sub == "@" || sub == "*" {
			r.delVar(name)
			return
		}
		expr, err := syntax.NewParser().Arithmetic(strings.NewReader(sub))
		if err != nil {
			r.errf("unset: %s[%s]: bad array subscript\n", name, sub)
			r.exit.code = 1
			return
		}
		if expr == nil {
			return // an empty subscript like `unset 'a[]'` is a no-op
		}
		k := r.arithm(expr)
		if k < 0 {
			// Negative indices count from one past the maximum index.
			if k += internal.IndexedMax(vr.List, vr.Indexes) + 1; k < 0 {
				r.errf("unset: %s[%s]: bad array subscript\n", name, sub)
				r.exit.code = 1
				return
			}
		}
		// TODO: only clone when inside a subshell and getting a var from outside for the first time
		vr.List = slices.Clone(vr.List)
		vr.Indexes = slices.Clone(vr.Indexes)
		vr.List, vr.Indexes = internal.DeleteIndexedElem(vr.List, vr.Indexes, k)
		r.setVar(name, vr)
	case expand.Associative:
		if sub == "@" || sub == "*" {
			r.delVar(name)
			return
		}
		// TODO: only clone when inside a subshell and getting a var from outside for the first time
		vr.Map = maps.Clone(vr.Map)
		delete(vr.Map, sub)
		r.setVar(name, vr)
	case expand.String:
		// A scalar can be unset via subscript zero.
		if sub == "0" {
			r.delVar(name)
		} else {
			r.errf("unset: %s: not an array variable\n", name)
			r.exit.code = 1
		}
	}
}

func (r *Runner) setFunc(name string, body *syntax.Stmt) {
	if r.Funcs == nil {
		r.Funcs = make(map[string]*syntax.Stmt, 4)
	}
	r.ownFuncs() // cookbook-sync patch
	r.Funcs[name] = body
}

// ownFuncs makes Funcs the runner's own before a write: a copy when it is
// shared with a subshell or the shell the runner is a subshell of. Only the
// runner's own goroutine writes its Funcs; a shared map is only read.
// cookbook-sync patch.
func (r *Runner) ownFuncs() {
	if r.funcsShared {
		r.Funcs, r.funcsShared = maps.Clone(r.Funcs), false
	}
}

func stringIndex(index syntax.ArithmExpr) bool {
	w, ok := index.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return false
	}
	switch w.Parts[0].(type) {
	case *syntax.DblQuoted, *syntax.SglQuoted:
		return true
	}
	return false
}

// TODO: make assignVal and [setVar] consistent with the [expand.WriteEnviron] interface

func (r *Runner) assignVal(name string, prev expand.Variable, as *syntax.Assign, valType string) (string, expand.Variable) {
	if n, v := prev.Resolve(r.writeEnv); n != "" {
		name, prev = n, v
	}
	prev.Set = true
	if as.Value != nil {
		s := r.literal(as.Value)
		if !as.Append {
			prev.Kind = expand.String
			if valType == "-n" {
				prev.Kind = expand.NameRef
				r.holeIn("a name reference's target", s) // cookbook-sync patch
			}
			prev.Str = s
			return name, prev
		}
		switch prev.Kind {
		case expand.String, expand.Unknown:
			prev.Kind = expand.String
			prev.Str += s
		case expand.Indexed:
			// Appends to the element at index 0, creating it if unset.
			if len(prev.List) > 0 && (prev.Indexes == nil || prev.Indexes[0] == 0) {
				prev.List[0] += s
			} else {
				prev.List, prev.Indexes = internal.SetIndexedElem(prev.List, prev.Indexes, 0, s)
			}
		case expand.Associative:
			// TODO
		}
		return name, prev
	}
	if as.Array == nil {
		// don't return the zero value, as that's an unset variable
		prev.Kind = expand.String
		if valType == "-n" {
			prev.Kind = expand.NameRef
		}
		prev.Str = ""
		return name, prev
	}
	// Array assignment.
	elems := as.Array.Elems
	if valType == "" {
		valType = "-a" // indexed
		if len(elems) > 0 && stringIndex(elems[0].Index) {
			valType = "-A" // associative
		}
	}
	if valType == "-A" {
		amap := make(map[string]string, len(elems))
		for _, elem := range elems {
			k := r.literal(elem.Index.(*syntax.Word))
			r.holeIn("an associative key", k) // cookbook-sync patch
			amap[k] = r.literal(elem.Value)
		}
		if !as.Append {
			prev.Kind = expand.Associative
			prev.Map = amap
			return name, prev
		}
		// TODO
		return name, prev
	}
	// The base array which the new elements are set on; empty unless
	// we are appending to an existing value.
	var list []string
	var indexes []int
	if as.Append {
		switch prev.Kind {
		case expand.Unknown:
		case expand.String:
			list = []string{prev.Str}
		case expand.Indexed:
			// TODO: only clone when inside a subshell and getting a var from outside for the first time
			list = slices.Clone(prev.List)
			indexes = slices.Clone(prev.Indexes)
		case expand.Associative:
			// TODO
			return name, prev
		default:
			// Should only happen if we forgot a case above.
			panic(fmt.Sprintf("unexpected conversion of kind %d", prev.Kind))
		}
	}
	// Evaluate values for each array element. An explicit index like
	// [5]=x resets our index counter, which otherwise advances for every
	// value, starting after the maximum index of the base array.
	index := internal.IndexedMax(list, indexes) + 1
	for _, elem := range elems {
		if elem.Index != nil {
			// Index resets our index with a literal value.
			index = r.arithm(elem.Index)
			if index < 0 {
				// Negative indices count from one past the maximum index.
				if index += internal.IndexedMax(list, indexes) + 1; index < 0 {
					r.errf("%s: bad array subscript\n", name)
					r.exit.code = 1
					break
				}
			}
			list, indexes = internal.SetIndexedElem(list, indexes, index, r.literal(elem.Value))
			index++
		} else {
			// Implicit index, advancing for every word.
			for _, val := range r.fields(elem.Value) {
				list, indexes = internal.SetIndexedElem(list, indexes, index, val)
				index++
			}
		}
	}
	if list == nil {
		// An empty array like a=() must still expand to zero fields.
		list = []string{}
	}
	prev.Kind = expand.Indexed
	prev.List = list
	prev.Indexes = indexes
	return name, prev
}
