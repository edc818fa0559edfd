package srtslurm

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pairsRecipe is one (recipe, selector) cited by ../shared/corpus/pairs/PAIRS.tsv.
type pairsRecipe struct{ path, selector string }

// readPairs returns the distinct YAML recipes of PAIRS.tsv (columns
// recipe_path and override_selector) in file order, and the cited ones
// absent from the pairs tree.
func readPairs(t testing.TB, dir string) (present, absent []pairsRecipe) {
	f, err := os.Open(filepath.Join(dir, "PAIRS.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var col map[string]int
	seen := map[pairsRecipe]bool{}
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if col == nil {
			col = map[string]int{}
			for i, c := range fields {
				col[c] = i
			}
			continue
		}
		p := pairsRecipe{fields[col["recipe_path"]], fields[col["override_selector"]]}
		if !strings.HasSuffix(p.path, ".yaml") || seen[p] {
			continue
		}
		seen[p] = true
		if _, err := os.Stat(filepath.Join(dir, "inferencex", p.path)); err != nil {
			absent = append(absent, p)
			continue
		}
		present = append(present, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return present, absent
}

// TestCorpusPairs renders every YAML recipe cited in
// ../shared/corpus/pairs/PAIRS.tsv that exists under pairs/inferencex, for
// its selector, with the default srt-slurm version.
func TestCorpusPairs(t *testing.T) {
	dir, ok := sharedDir(t, "", "../shared/corpus/pairs")
	if !ok {
		t.Skipf("%s absent", dir)
	}
	present, absent := readPairs(t, dir)
	if len(present) == 0 {
		t.Fatal("no recipes found")
	}
	ok2 := 0
	for _, p := range present {
		r, err := Load(filepath.Join(dir, "inferencex", p.path))
		if err != nil {
			t.Errorf("%s: %v", p.path, err)
			continue
		}
		out, err := r.Render(p.selector, Options{})
		if err != nil {
			t.Errorf("%s:%s: %v", p.path, p.selector, err)
			continue
		}
		if len(out.Deployment.Workers(launchRoleAgg))+len(out.Deployment.Workers(launchRolePrefill)) == 0 {
			t.Errorf("%s:%s: no workers rendered", p.path, p.selector)
		}
		ok2++
	}
	t.Logf("pairs: %d (recipe, selector) rendered of %d present; %d cited YAML recipes absent from the pairs tree", ok2, len(present), len(absent))
}

const (
	launchRoleAgg     = "agg"
	launchRolePrefill = "prefill"
)
