package runcache

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

type digestInner struct {
	Name   string
	hidden int
}

type digestOuter struct {
	List  []string
	Set   map[string]int
	Ptr   *digestInner
	Any   any
	Inner digestInner
	F     float64
}

// TestDeepDigest: two values have one digest exactly when
// reflect.DeepEqual says they are equal — nil and empty apart, unexported
// fields, an interface's dynamic type, string boundaries — whatever the
// order a map was filled in; a value with no form (a func, a cycle) has
// none.
func TestDeepDigest(t *testing.T) {
	base := func() digestOuter {
		return digestOuter{List: []string{"a", "bc"}, Set: map[string]int{"x": 1, "y": 2}, Ptr: &digestInner{Name: "p"}, Any: 1, Inner: digestInner{"i", 3}, F: 1.5}
	}
	variants := map[string]func(*digestOuter){
		"same":                  func(*digestOuter) {},
		"map filled in reverse": func(o *digestOuter) { o.Set = map[string]int{}; o.Set["y"] = 2; o.Set["x"] = 1 },
		"nil list":              func(o *digestOuter) { o.List = nil },
		"empty list":            func(o *digestOuter) { o.List = []string{} },
		"string boundary":       func(o *digestOuter) { o.List = []string{"ab", "c"} },
		"nil map":               func(o *digestOuter) { o.Set = nil },
		"empty map":             func(o *digestOuter) { o.Set = map[string]int{} },
		"map value":             func(o *digestOuter) { o.Set["x"] = 3 },
		"nil pointer":           func(o *digestOuter) { o.Ptr = nil },
		"pointer to zero":       func(o *digestOuter) { o.Ptr = &digestInner{} },
		"interface type":        func(o *digestOuter) { o.Any = int64(1) },
		"nil interface":         func(o *digestOuter) { o.Any = nil },
		"unexported field":      func(o *digestOuter) { o.Inner.hidden = 4 },
		"float":                 func(o *digestOuter) { o.F = 2.5 },
	}
	want := base()
	wantSum, ok := DeepDigest(want)
	if !ok {
		t.Fatal("no digest of the base value")
	}
	for name, change := range variants {
		v := base()
		change(&v)
		sum, ok := DeepDigest(v)
		if !ok {
			t.Errorf("%s: no digest", name)
			continue
		}
		if equal := reflect.DeepEqual(v, want); (sum == wantSum) != equal {
			t.Errorf("%s: same digest %v, DeepEqual %v", name, sum == wantSum, equal)
		}
	}
	if _, ok := DeepDigest(struct{ F func() }{}); ok {
		t.Error("a func has a digest")
	}
	// values the form cannot vouch for have none
	a, b := &digestInner{Name: "k"}, &digestInner{Name: "k"}
	for name, v := range map[string]any{
		"a NaN":                           math.NaN(),
		"a map keyed by pointers":         map[*digestInner]int{a: 1, b: 2},
		"an interface of an unnamed type": struct{ Any any }{[]digestInner{{Name: "x"}}},
	} {
		if _, ok := DeepDigest(v); ok {
			t.Errorf("%s has a digest", name)
		}
	}
	if _, ok := DeepDigest(struct{ Any any }{digestInner{Name: "x"}}); !ok {
		t.Error("an interface of a named type has no digest")
	}
	type node struct{ Next *node }
	n := &node{}
	n.Next = n
	if _, ok := DeepDigest(n); ok {
		t.Error("a cycle has a digest")
	}
}

// TestDeepDigestForm: the digest is the SHA-256 of the canonical form as
// the digester writes it, however the writes are gathered.
func TestDeepDigestForm(t *testing.T) {
	v := digestOuter{List: []string{"a", strings.Repeat("long ", 3000)}, Set: map[string]int{"x": 1, "y": 2}, Ptr: &digestInner{Name: "p"}, Any: 1, F: 1.5}
	var form bytes.Buffer
	if !(&digester{w: &form}).value(reflect.ValueOf(v), 0) {
		t.Fatal("no form")
	}
	got, ok := DeepDigest(v)
	if want := Key(sha256.Sum256(form.Bytes())); !ok || got != want {
		t.Errorf("digest %x, want %x (the form's SHA-256)", got, want)
	}
}

// BenchmarkDeepDigest: the digest of a deployment-sized value (a few
// processes, each with tens of arguments and variables).
func BenchmarkDeepDigest(b *testing.B) {
	type arg struct {
		Flag   string
		Values []string
		Origin struct{ Kind, Path, Detail string }
	}
	type proc struct {
		Program string
		Args    []arg
		Env     []arg
	}
	var ps []proc
	for i := range 4 {
		p := proc{Program: "python3"}
		for j := range 40 {
			a := arg{Flag: fmt.Sprintf("--flag-%d", j), Values: []string{fmt.Sprint(i * j)}}
			a.Origin.Kind, a.Origin.Path = "infx", fmt.Sprintf("benchmarks/single_node/x.sh:%d:1", j)
			p.Args = append(p.Args, a)
			p.Env = append(p.Env, arg{Flag: fmt.Sprintf("VAR_%d", j), Values: []string{"value"}})
		}
		ps = append(ps, p)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := DeepDigest(ps); !ok {
			b.Fatal("no digest")
		}
	}
}
