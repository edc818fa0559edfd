package recipes

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestEachIndex: every index is worked exactly once, by a goroutine number
// below the count given, and zero items make no call.
func TestEachIndex(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 1000} {
		hits := make([]atomic.Int32, n)
		var bad atomic.Int32
		k := workersFor(n)
		eachIndex(n, k, func(w, i int) {
			if w < 0 || w >= k {
				bad.Add(1)
			}
			hits[i].Add(1)
		})
		if bad.Load() != 0 {
			t.Errorf("n=%d: %d calls with a goroutine number out of range", n, bad.Load())
		}
		for i := range hits {
			if h := hits[i].Load(); h != 1 {
				t.Fatalf("n=%d: index %d worked %d times", n, i, h)
			}
		}
	}
}

// TestCorpusOpenOnAnyCPUs: the complete recipes tree (../shared) gives the
// same index — renderings, entries, prose, file errors, in the same order —
// on one CPU as on four: the trees and files are worked on every CPU but
// taken in order.
func TestCorpusOpenOnAnyCPUs(t *testing.T) {
	root := recipesRoot(t)
	open := func(procs int) (*Index, error) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return Open(root)
	}
	one, err1 := open(1)
	four, err4 := open(4)
	if (err1 == nil) != (err4 == nil) || err1 != nil && err1.Error() != err4.Error() {
		t.Fatalf("errors differ: one CPU %v, four %v", err1, err4)
	}
	if one == nil || four == nil {
		t.Fatalf("no index: %v", err1)
	}
	if len(one.entries) == 0 {
		t.Fatal("no entries")
	}
	if a, b := entriesText(t, one.entries), entriesText(t, four.entries); a != b {
		t.Errorf("entries differ (%d on one CPU, %d on four)", len(one.entries), len(four.entries))
	}
	if fmt.Sprint(one.family) != fmt.Sprint(four.family) || len(one.prose) != len(four.prose) {
		t.Error("families or prose files differ")
	}
	r1 := func() []*Rendering { defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)); return one.site.Renderings() }()
	r4 := func() []*Rendering { defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)); return four.site.Renderings() }()
	if len(r1) == 0 || renderingsText(t, r1) != renderingsText(t, r4) {
		t.Errorf("renderings differ: %d on one CPU, %d on four", len(r1), len(r4))
	}
}

// renderingsText is the renderings as JSON: each one's place and the
// deployment it gives (pointers to the site's recipes left out: two
// sites are told apart by their content, not their addresses).
func renderingsText(t *testing.T, rs []*Rendering) string {
	t.Helper()
	type row struct {
		Tree, File, Variant, Hardware, Strategy string
		Deployment                              any
	}
	var rows []row
	for _, r := range rs {
		rows = append(rows, row{r.Tree, r.Recipe.File, r.Variant, r.Hardware, r.Strategy, r.Deployment()})
	}
	b, err := json.Marshal(rows)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entriesText is the index entries as text: their fields, the rendering's
// deployment (renderingsText) and the Markdown deployment by value.
func entriesText(t *testing.T, es []entry) string {
	t.Helper()
	var b []byte
	for _, e := range es {
		b = fmt.Appendf(b, "%s|%s|%s|%d|%s|%s|%t|%s|%s|%s|%t|%t|%v|%s|%s|%+v|%d|%d|", e.kind, e.file, e.section, e.line, e.variant, e.strategy,
			e.recommended, e.model, e.checkpoint, e.family, e.space, e.kvLast, e.hardware, e.precision, e.role, e.topo, e.roleIdx, e.proc)
		if e.rendering != nil {
			b = append(b, renderingsText(t, []*Rendering{e.rendering})...)
		}
		if e.dep != nil {
			j, err := json.Marshal(e.dep)
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, j...)
		}
		if e.prose != nil {
			b = fmt.Appendf(b, "|prose %s:%d", e.prose.File, e.prose.Line)
		}
		b = append(b, '\n')
	}
	return string(b)
}
