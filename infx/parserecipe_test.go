package infx

import "testing"

// TestParseRecipeOncePerKey: a Workspace that remembers renders parses a
// recipe once for a config key's points (the same *Recipe for the same
// name and bytes, a new one for other bytes or another key, the error
// kept as well), parses again after Forget of the key (and keeps nothing
// for it), and one that does not remember parses every time.
func TestParseRecipeOncePerKey(t *testing.T) {
	a := []byte("model:\n  path: m\nresources:\n  gpus_per_node: 4\n")
	b := []byte("model:\n  path: n\nresources:\n  gpus_per_node: 4\n")
	bad := []byte("- not a mapping\n")

	plain := &Workspace{}
	r1, err1 := plain.parseRecipe("k", "r.yaml", a)
	r2, err2 := plain.parseRecipe("k", "r.yaml", a)
	if err1 != nil || err2 != nil || r1 == r2 {
		t.Fatalf("without RememberRenders: %p %v, %p %v; want two parses", r1, err1, r2, err2)
	}

	ws := &Workspace{}
	ws.remember.Store(true)
	first, err := ws.parseRecipe("k", "r.yaml", a)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := ws.parseRecipe("k", "r.yaml", a); again != first {
		t.Errorf("the same recipe parsed again for the same key: %p, %p", again, first)
	}
	if other, _ := ws.parseRecipe("k", "r.yaml", b); other == first {
		t.Error("other bytes answered with the first parse")
	}
	if otherName, _ := ws.parseRecipe("k", "s.yaml", a); otherName == first || otherName.File != "s.yaml" {
		t.Errorf("another name answered with %q", otherName.File)
	}
	if otherKey, _ := ws.parseRecipe("k2", "r.yaml", a); otherKey == first {
		t.Error("another config key shares the parse")
	}
	_, e1 := ws.parseRecipe("k", "bad.yaml", bad)
	_, e2 := ws.parseRecipe("k", "bad.yaml", bad)
	if e1 == nil || e1 != e2 {
		t.Errorf("a recipe that does not parse: %v, %v; want the kept error twice", e1, e2)
	}

	ws.Forget("k")
	if len(ws.parsed["k"]) != 0 {
		t.Errorf("Forget kept %d parses of the key", len(ws.parsed["k"]))
	}
	after1, _ := ws.parseRecipe("k", "r.yaml", a)
	after2, _ := ws.parseRecipe("k", "r.yaml", a)
	if after1 == first || after1 == after2 || len(ws.parsed["k"]) != 0 {
		t.Errorf("after Forget: %p, %p (first %p), %d kept; want a new parse each time, none kept", after1, after2, first, len(ws.parsed["k"]))
	}
	if kept, _ := ws.parseRecipe("k2", "r.yaml", a); kept == nil || len(ws.parsed["k2"]) != 1 {
		t.Errorf("Forget of k dropped k2's parse: %d kept", len(ws.parsed["k2"]))
	}
}
