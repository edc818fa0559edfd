package compare

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

// TestImportsOnlyLaunchAndExclusions keeps compare a room of its own:
// Deployments in, results out. Its non-test code may import no project
// package but launch and exclusions, directly or through them (issue 11:
// `go list -deps ./compare`).
func TestImportsOnlyLaunchAndExclusions(t *testing.T) {
	const mod = "github.com/cookbook-sync/cookbook-sync/"
	allowed := []string{mod + "launch", mod + "exclusions"}
	seen := map[string]bool{}
	var walk func(path, dir string)
	walk = func(path, dir string) {
		if seen[path] {
			return
		}
		seen[path] = true
		var p *build.Package
		var err error
		if dir != "" {
			p, err = build.ImportDir(dir, 0)
		} else {
			p, err = build.Import(path, ".", 0)
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			if !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s: compare may depend on launch and exclusions only", path, imp)
				continue
			}
			walk(imp, "")
		}
	}
	walk(mod+"compare", ".")
	if !seen[mod+"launch"] || !seen[mod+"exclusions"] {
		t.Errorf("walked %v: expected launch and exclusions", seen)
	}
}
