package launch

import (
	"reflect"
	"testing"
)

// MarkHarness pairs arguments by flag and occurrence and marks those whose
// values differ; ProductionArgs undoes it.
func TestMarkHarnessProductionArgs(t *testing.T) {
	run := []Arg{
		{Values: []string{"moonshotai/Kimi-K3"}},
		{Flag: "--speculative-config", Values: []string{`{"method":"dspark","rejection_sample_method":"synthetic","synthetic_acceptance_length":3.84}`}},
		{Flag: "--tensor-parallel-size", Values: []string{"8"}},
		{Flag: "--speculative-config", Values: []string{`{"method":"dspark"}`}},
	}
	prod := []Arg{
		{Values: []string{"moonshotai/Kimi-K3"}},
		{Flag: "--speculative-config", Values: []string{`{"method":"dspark","rejection_sample_method":"block"}`}},
		{Flag: "--tensor-parallel-size", Values: []string{"8"}},
		{Flag: "--speculative-config", Values: []string{`{"method":"dspark"}`}},
	}
	got := MarkHarness(run, prod, "inject")
	for i, a := range got {
		want := i == 1
		if (a.Harness != nil) != want {
			t.Errorf("arg %d %s: harness %+v", i, a.Flag, a.Harness)
		}
	}
	if h := got[1].Harness; h == nil || h.By != "inject" || !reflect.DeepEqual(h.Values, prod[1].Values) {
		t.Errorf("marked %+v", got[1].Harness)
	}
	if run[1].Harness != nil {
		t.Error("run was modified")
	}
	if same := MarkHarness(prod, prod, "x"); &same[0] != &prod[0] {
		t.Error("nothing to mark: want run itself")
	}
	back, by, ok := ProductionArgs(got)
	if !ok || by != "inject" || !reflect.DeepEqual(back, prod) {
		t.Errorf("ProductionArgs = %+v %q %v", back, by, ok)
	}
	if _, _, ok := ProductionArgs(run); ok {
		t.Error("ProductionArgs of unmarked args: ok")
	}
}
