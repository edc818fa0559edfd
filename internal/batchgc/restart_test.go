package batchgc

import (
	"slices"
	"testing"
)

// TestSTWEnviron: STWSetting joins GODEBUG's first entry (made when there
// is none); a GODEBUG that names gcstoptheworld, with any value, is left
// as it is and asks for no restart; the caller's slice is not written.
func TestSTWEnviron(t *testing.T) {
	cases := []struct {
		name    string
		in      []string
		want    []string
		restart bool
	}{
		{"none", []string{"A=1", "B=2"}, []string{"A=1", "B=2", "GODEBUG=gcstoptheworld=1"}, true},
		{"empty", []string{"GODEBUG=", "A=1"}, []string{"GODEBUG=gcstoptheworld=1", "A=1"}, true},
		{"others", []string{"A=1", "GODEBUG=gctrace=1,madvdontneed=0"}, []string{"A=1", "GODEBUG=gctrace=1,madvdontneed=0,gcstoptheworld=1"}, true},
		{"first of two", []string{"GODEBUG=gctrace=1", "GODEBUG=gcstoptheworld=0"}, []string{"GODEBUG=gctrace=1,gcstoptheworld=1", "GODEBUG=gcstoptheworld=0"}, true},
		{"user's 0", []string{"GODEBUG=gcstoptheworld=0"}, []string{"GODEBUG=gcstoptheworld=0"}, false},
		{"user's 2 among others", []string{"GODEBUG=gctrace=1,gcstoptheworld=2", "A=1"}, []string{"GODEBUG=gctrace=1,gcstoptheworld=2", "A=1"}, false},
		{"restarted", []string{"GODEBUG=gcstoptheworld=1"}, []string{"GODEBUG=gcstoptheworld=1"}, false},
		{"a longer name is another setting", []string{"GODEBUG=xgcstoptheworld=0"}, []string{"GODEBUG=xgcstoptheworld=0,gcstoptheworld=1"}, true},
		{"a name in a value is not one", []string{"NOT_GODEBUG=gcstoptheworld=0"}, []string{"NOT_GODEBUG=gcstoptheworld=0", "GODEBUG=gcstoptheworld=1"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := slices.Clone(c.in)
			got, restart := stwEnviron(in)
			if !slices.Equal(got, c.want) || restart != c.restart {
				t.Errorf("stwEnviron(%q) = %q, %t; want %q, %t", c.in, got, restart, c.want, c.restart)
			}
			if !slices.Equal(in, c.in) {
				t.Errorf("stwEnviron wrote its argument: %q, was %q", in, c.in)
			}
		})
	}
}
