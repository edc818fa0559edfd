package cookbook

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// sortAppended must give exactly the order of a stable LEAD_FLAGS sort.
func TestSortAppended(t *testing.T) {
	flags := []string{"--model-path", "--port", "--host", "--a", "--b", "--c", "--kv-events-config", "--z"}
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 2000 {
		var a []launch.Arg
		for i := range r.IntN(8) {
			a = append(a, launch.Arg{Flag: flags[r.IntN(len(flags))], Values: []string{string(rune('a' + i))}})
		}
		if n%2 == 0 {
			slices.SortStableFunc(a, cmpWorkerArgs)
		}
		kept := len(a)
		for i := range r.IntN(5) {
			a = append(a, launch.Arg{Flag: flags[r.IntN(len(flags))], Values: []string{string(rune('A' + i))}})
		}
		want := slices.Clone(a)
		slices.SortStableFunc(want, cmpWorkerArgs)
		sortAppended(a, kept, cmpWorkerArgs)
		for i := range a {
			if a[i].Flag != want[i].Flag || a[i].Values[0] != want[i].Values[0] {
				t.Fatalf("case %d: got %v, want %v", n, a, want)
			}
		}
	}
}
