package recipes

import (
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

// JSON values keep their numbers as written (launch.CanonicalJSON): vLLM
// reads them with Python's json.loads, where 1.0 is a float and 1 an int;
// large integers stay exact; no HTML escaping.
func TestNormalizeArgsJSONNumbers(t *testing.T) {
	args := []launch.Arg{
		{Flag: "--speculative-config", Values: []string{`{"num_speculative_tokens": 1.0, "method": "<draft>", "synthetic_acceptance_length": 2, "seed": 12345678901234567890}`}},
		{Flag: "--compilation-config.level", Values: []string{"3"}},
		{Flag: "--compilation-config.max_capture_size", Values: []string{"2.0"}},
		{Flag: "-cc", Values: []string{`{"a": 1.50}`}},
	}
	out, synth := NormalizeArgs(args)
	want := map[string]string{
		"--speculative-config": `{"method":"<draft>","num_speculative_tokens":1.0,"seed":12345678901234567890}`,
		"--compilation-config": `{"a":1.50,"level":3,"max_capture_size":2.0}`,
	}
	if len(out) != len(want) {
		t.Fatalf("args %v", out)
	}
	for _, a := range out {
		if len(a.Values) != 1 || a.Values[0] != want[a.Flag] {
			t.Errorf("%s = %q, want %q", a.Flag, a.Values, want[a.Flag])
		}
	}
	if len(synth) != 1 || synth[0] != "--speculative-config.synthetic_acceptance_length" {
		t.Errorf("synthetic %q", synth)
	}
	if v, removed := StripSyntheticAcceptance(`{"x": 1.0} trailing`); v != `{"x": 1.0} trailing` || removed != nil {
		t.Errorf("trailing data: %q %q", v, removed)
	}
	if c, ok := CanonicalJSON(`{"b": 1e3, "a": "x"}`); !ok || c != `{"a":"x","b":1e3}` {
		t.Errorf("CanonicalJSON %q %v", c, ok)
	}
	if c, ok := CanonicalJSON(`{"b": <n>}`); ok || c != `{"b": <n>}` {
		t.Errorf("invalid JSON comes back unchanged: %q %v", c, ok)
	}
}

// NormalizeFlag reads vLLM's short options from the shared alias table
// (launch.CanonicalFlag) and leaves Dynamo's --dyn-* names alone.
func TestNormalizeFlagShortAliases(t *testing.T) {
	for _, c := range []struct{ in, canon, sub, inline string }{
		{"-tp", "--tensor-parallel-size", "", ""},
		{"-asc", "--api-server-count", "", ""},
		{"-cc.pass_config.x", "--compilation-config", "pass_config.x", ""},
		{"-O3", "--optimization-level", "", "3"},
		{"-O", "--optimization-level", "", ""},
		{"-zz", "-zz", "", ""},
		{"--dyn-tool-call-parser", "--dyn-tool-call-parser", "", ""},
	} {
		canon, sub, inline := NormalizeFlag(c.in)
		if canon != c.canon || sub != c.sub || inline != c.inline {
			t.Errorf("NormalizeFlag(%q) = %q %q %q", c.in, canon, sub, inline)
		}
	}
}

// TestQueryTopologyTPInsideDP: a master row with dp-attn and more EP ranks
// than TP ranks runs TP inside DP ranks (agg-h200-tp16dp2ep32: tp 16, ep
// 32), not DEP32; the plain DEP row (tp 8, ep 8) stays DEP8.
func TestQueryTopologyTPInsideDP(t *testing.T) {
	if got := QueryTopology(16, 32, 0, true); got.TP != 16 || got.DP != 2 || !got.EP || got.GPUs != 32 || got.String() != "TP16×DEP2" {
		t.Errorf("tp16 ep32 dp-attn: %+v %s", got, got.String())
	}
	if got := QueryTopology(8, 8, 0, true); got.TP != 1 || got.DP != 8 || got.GPUs != 8 || got.String() != "DEP8" {
		t.Errorf("tp8 ep8 dp-attn: %+v %s", got, got.String())
	}
}
