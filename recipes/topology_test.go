package recipes

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// topologyOfNormalized is TopologyOf's definition: the layout read from
// the NormalizeArgs form of the args. TopologyOf reads the same options
// without building that form; these tests hold the two equal.
func topologyOfNormalized(args []launch.Arg) Topology {
	n, _ := NormalizeArgs(args)
	t := Topology{TP: 1, DP: 1, PP: 1}
	num := func(f string) int {
		if v, ok := launch.Lookup(n, f); ok && len(v) > 0 {
			x, err := strconv.Atoi(v[0])
			if err != nil {
				return 0
			}
			return x
		}
		return 1
	}
	t.TP, t.DP, t.PP = num("--tensor-parallel-size"), num("--data-parallel-size"), num("--pipeline-parallel-size")
	_, t.EP = launch.Lookup(n, "--enable-expert-parallel")
	t.GPUs = t.TP * t.DP * t.PP
	t.Mode = modeOf(t.TP, t.DP, t.EP)
	return t
}

func toks(ss ...string) []Token {
	out := make([]Token, len(ss))
	for i, s := range ss {
		out[i] = Token{Text: s}
	}
	return out
}

// TopologyOf and topologyOfTokens agree with the NormalizeArgs reading on
// every spelling NormalizeArgs canonicalizes.
func TestTopologyOfEdgeCases(t *testing.T) {
	cases := [][]string{
		{},
		{"model/x"},
		{"model/x", "--tensor-parallel-size", "8"},
		{"-tp", "4", "--data-parallel-size", "2", "--enable-expert-parallel"},
		{"--tensor_parallel_size", "2", "--tensor-parallel-size", "4"},
		{"--tensor-parallel-size=8", "--data-parallel-size=2"},
		{"--tensor-parallel", "8", "--pipeline-parallel", "2"},
		{"--tensor-parallel-size", "<tp>"},
		{"--tensor-parallel-size"},
		{"--tensor-parallel-size", "--enable-expert-parallel"},
		{"--tensor-parallel-size.x", "1"},
		{"--tensor-parallel-size", "8", "--tensor-parallel-size.x", "1"},
		{"--tensor-parallel-size.x", "1", "--tensor-parallel-size", "8"},
		{"--enable-expert-parallel.x", "1"},
		{"--enable-expert-parallel=true"},
		{"--no-enable-expert-parallel"},
		{"--data-parallel-size-local", "2", "--data-parallel-size", "4"},
		{"--data-parallel", "2"},
		{"-dp", "2", "-pp", "2"},
		{"--pipeline-parallel-size", "0"},
		{"--tensor-parallel-size", ""},
		{"--tensor-parallel-size=", "--data-parallel-size", "2"},
		{"-O3", "--tensor-parallel-size", "2"},
		{"a", "b", "--tensor-parallel-size", "2", "c"},
	}
	for _, c := range cases {
		ts := toks(c...)
		args := argsFromTokens(ts)
		want := topologyOfNormalized(args)
		if got := TopologyOf(args); got != want {
			t.Errorf("TopologyOf(%q) = %+v, want %+v", c, got, want)
		}
		if got := topologyOfTokens(ts); got != want {
			t.Errorf("topologyOfTokens(%q) = %+v, want %+v", c, got, want)
		}
	}
	// args as InferenceX gives them: several values, values-less flags
	// with `=`, empty flags beyond the model
	multi := []launch.Arg{{Values: []string{"m"}}, {Values: []string{"extra"}},
		{Flag: "--tensor-parallel-size", Values: []string{"2", "4"}}, {Flag: "--data-parallel-size=4"},
		{Flag: "--pipeline-parallel-size", Values: []string{}}, {Flag: "--enable-expert-parallel", Values: []string{"x", "y"}}}
	if got, want := TopologyOf(multi), topologyOfNormalized(multi); got != want {
		t.Errorf("TopologyOf(%v) = %+v, want %+v", multi, got, want)
	}
}

// On the whole corpus: every rendering role and guide command.
func TestCorpusTopologyOf(t *testing.T) {
	ix, err := Open(recipesRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	check := func(args []launch.Arg) {
		n++
		if got, want := TopologyOf(args), topologyOfNormalized(args); got != want {
			t.Errorf("TopologyOf(%v) = %+v, want %+v", args, got, want)
		}
	}
	for i := range ix.entries {
		e := &ix.entries[i]
		if e.rendering != nil {
			for _, rc := range e.rendering.Roles {
				ts := rc.Argv[min(2, len(rc.Argv)):]
				if got, want := topologyOfTokens(ts), topologyOfNormalized(argsFromTokens(ts)); got != want {
					t.Errorf("topologyOfTokens(%v) = %+v, want %+v", rc.Argv, got, want)
				}
				check(argsFromTokens(ts))
			}
		}
		if e.dep != nil {
			for _, p := range e.dep.Processes {
				check(p.Args)
			}
		}
	}
	if n == 0 {
		t.Fatal("no args checked")
	}
	t.Logf("%d arg lists", n)
}

// entryPrintJoined is the fingerprint as first defined: the entry's
// fields and the role's command and env joined into one string.
func entryPrintJoined(e *entry) string {
	rc := &e.rendering.Roles[e.roleIdx]
	s := e.file + "\x00" + e.variant + "\x00" + e.hardware[0] + "\x00" + string(e.role) + "\x00"
	for i, t := range rc.Argv {
		if i > 0 {
			s += "\x00"
		}
		s += t.Text
	}
	for _, v := range rc.Env {
		s += "\x00" + v.Name + "=" + v.Value
	}
	return s
}

// The selection-space memo's fingerprints (printRef) are the joined
// fingerprint, and no entry it keeps has the fingerprint of another.
func TestCorpusSpaceFingerprints(t *testing.T) {
	ix, err := Open(recipesRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := range ix.entries {
		if e := &ix.entries[i]; e.kind == "yaml" {
			fp := entryPrintJoined(e)
			if got := refOf(e).print(); got != fp {
				t.Fatalf("print %q, want %q", got, fp)
			}
			seen[fp] = true
		}
	}
	n := 0
	for _, q := range [][2]string{{"deepseek-ai/DeepSeek-V4-Pro", "gb200"}, {"deepseek-ai/DeepSeek-V4-Pro", "b200"}, {"moonshotai/Kimi-K2.5", "mi355x"}, {"nvidia/DeepSeek-V4-Pro-NVFP4", "b200"}} {
		for _, e := range ix.spaceEntries(q[0], q[1]) {
			fp := entryPrintJoined(&e)
			if refOf(&e).print() != fp {
				t.Fatalf("print of %s differs", fp)
			}
			if seen[fp] {
				t.Errorf("space entry %q repeats an indexed one", fp)
			}
			seen[fp] = true
			n++
		}
	}
	if n == 0 {
		t.Fatal("no selection-space entries")
	}
}

// TestCorpusRelease: Release drops the selection-space renderings and the
// remembered answers of one model on one hardware (the hardware as Match
// names it: NormalizeHardware), and only those; the query asked again is
// answered the same.
func TestCorpusRelease(t *testing.T) {
	ix, err := Open(recipesRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	qs := []Query{
		{ConfigKey: "a", Model: "deepseek-ai/DeepSeek-V4-Pro", Hardware: "b200", Role: launch.RoleAgg, TP: 8},
		{ConfigKey: "b", Model: "deepseek-ai/DeepSeek-V4-Pro", Hardware: "gb200", Role: launch.RolePrefill, TP: 4},
	}
	first := make([][]Candidate, len(qs))
	for i, q := range qs {
		if first[i], err = ix.Match(q); err != nil || len(first[i]) == 0 {
			t.Fatalf("%+v: %d candidates, %v", q, len(first[i]), err)
		}
	}
	kept := func(q Query) (space, answers int) {
		hw := queryHardware(q.Hardware)
		space = len(ix.space.m[spaceKey(q.Model, hw)])
		for k := range ix.matches.m {
			if strings.EqualFold(k.model, q.Model) && queryHardware(k.hardware) == hw {
				answers++
			}
		}
		return space, answers
	}
	for _, q := range qs {
		if s, a := kept(q); s == 0 || a != 1 {
			t.Fatalf("before Release, %s on %s: %d space entries, %d answers", q.Model, q.Hardware, s, a)
		}
	}
	ix.Release("DEEPSEEK-AI/DeepSeek-V4-Pro", "B200") // as written by a master config, any case
	if s, a := kept(qs[0]); s != 0 || a != 0 {
		t.Errorf("after Release: %d space entries, %d answers kept", s, a)
	}
	if s, a := kept(qs[1]); s == 0 || a != 1 {
		t.Errorf("Release dropped the other hardware's: %d space entries, %d answers", s, a)
	}
	again, err := ix.Match(qs[0])
	if err != nil || !reflect.DeepEqual(again, first[0]) {
		t.Errorf("asked again after Release: %v\n%+v\nwant\n%+v", err, again, first[0])
	}
}
