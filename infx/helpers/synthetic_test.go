package helpers

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// syntheticCombos maps the commits of testdata/synthetic/gen.py to the
// versions they hold (driver, __init__.py, backends in import order).
var syntheticCombos = map[string][]string{
	"7b6736f1": {"85feacf1", ""},
	"205f217e": {"4bda75a9", "9e4b949a"},
	"a5c1d5f9": {"4bda75a9", "5bc4d8a3", "e71a5df2"},
	"4689d9bf": {"80d2740e", "5bc4d8a3", "e71a5df2"},
	"6a9c6238": {"80d2740e", "8836a46b", "48fb1706", "e71a5df2"},
	"843c6254": {"bafda7a0", "8836a46b", "48fb1706", "e71a5df2"},
	"15b08571": {"1382454d", "5bc4d8a3", "d3674019"},
	"34986b94": {"1382454d", "8836a46b", "48fb1706", "d3674019"},
	"ffe90545": {"1382454d", "8836a46b", "ed581447", "d3674019"},
	"35afef0b": {"ab10bb11", "8836a46b", "ed581447", "d3674019"},
}

type syntheticCase struct {
	fw  string
	ref bool
	env []string
}

func readSyntheticCases(t *testing.T) map[string]syntheticCase {
	t.Helper()
	b, err := os.ReadFile("testdata/synthetic/cases.txt")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]syntheticCase{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		c := syntheticCase{fw: f[1], ref: f[2] == "yes"}
		if f[3] != "-" {
			c.env = strings.Split(f[3], " ")
		}
		out[f[0]] = c
	}
	return out
}

// TestGoldenSyntheticVersions runs the Go injector, in every version's
// combination, on the fixtures and cases that testdata/synthetic/gen.py ran
// the real Python program on: same exit status, same file bytes after, same
// sys.exit message.
func TestGoldenSyntheticVersions(t *testing.T) {
	cases := readSyntheticCases(t)
	ref, err := os.ReadFile("testdata/synthetic/reference-al.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/synthetic/golden.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		g := strings.Split(line, "\t")
		commit, fixture, name, wantStatus, wantSum, wantMsg := g[0], g[1], g[2], g[3], g[4], g[5]
		combo := syntheticCombos[commit]
		prog := syntheticByBlobs(combo[0], combo[1], combo[2:]...)
		if prog == nil {
			t.Fatalf("%s: no program", commit)
		}
		c := cases[name]
		recipe, err := os.ReadFile(filepath.Join("testdata/synthetic/fixtures", fixture))
		if err != nil {
			t.Fatal(err)
		}
		fwDefault := "dynamo-vllm"
		if strings.HasPrefix(fixture, "sglang") {
			fwDefault = "dynamo-sglang"
		}
		in := SyntheticInput{Args: []string{"<dir>/recipe.yaml"}, Env: map[string]string{},
			RefPath: "<dir>/runners/../benchmarks/speedbench-reference-al.yaml"}
		if c.fw != "-" {
			fw := c.fw
			if fw == "FW" {
				fw = fwDefault
			}
			in.Args = append(in.Args, fw)
		}
		for _, kv := range c.env {
			k, v, _ := strings.Cut(kv, "=")
			if v == "FW" {
				v = fwDefault
			}
			in.Env[k] = v
		}
		if c.ref {
			in.RefYAML, in.RefFound = string(ref), true
		}
		out, err := prog.Apply(in, recipe)
		status, msg := 0, ""
		var ex *Exit
		switch {
		case errors.As(err, &ex):
			status, msg = ex.Status, ex.Msg
			out = recipe // the program writes only at its end
		case err != nil:
			t.Errorf("%s %s %s: %v", commit, fixture, name, err)
			continue
		}
		where := commit + " " + fixture + " " + name
		if strconv.Itoa(status) != wantStatus {
			t.Errorf("%s: status %d (%s), want %s (%s)", where, status, msg, wantStatus, wantMsg)
			continue
		}
		if got := Hash(out); got != wantSum {
			t.Errorf("%s: recipe after:\n%s\n(sha256 %s, want %s)", where, out, got, wantSum)
		}
		if strings.HasPrefix(wantMsg, "ERROR:") || strings.HasPrefix(wantMsg, "Usage:") {
			if !strings.HasPrefix(wantMsg, msg) || msg == "" {
				t.Errorf("%s: message %q, want %q", where, msg, wantMsg)
			}
		}
		n++
	}
	if n != 2340 {
		t.Errorf("%d golden runs compared, want 2340", n)
	}
}

// TestSyntheticDifferentialRegressions pins what differential runs against
// the real program found that the golden fixtures cannot hold: the
// standalone version looks up int(0.5) == 0 (no `or 2`; python3 on
// fixtures/vllm-hostile-json.yaml with the reference of testdata exits
// "num_spec_tokens=0 not found"), and JSON beyond what CPython's json
// reads the same everywhere (an integer of more than 4300 digits: ValueError
// on 3.11+; nesting near the recursion limit: RecursionError) is not
// modelled rather than read or skipped.
func TestSyntheticDifferentialRegressions(t *testing.T) {
	ref, err := os.ReadFile("testdata/synthetic/reference-al.yaml")
	if err != nil {
		t.Fatal(err)
	}
	recipe, err := os.ReadFile("testdata/synthetic/fixtures/vllm-hostile-json.yaml")
	if err != nil {
		t.Fatal(err)
	}
	standalone := syntheticByBlobs("85feacf1", "")
	in := SyntheticInput{Args: []string{"r.yaml"}, RefYAML: string(ref), RefFound: true, RefPath: "ref.yaml",
		Env: map[string]string{"SYNTHETIC_ACCEPTANCE": "true", "MODEL_PREFIX": "dsv4"}}
	_, err = standalone.Apply(in, recipe)
	var ex *Exit
	if !errors.As(err, &ex) || !strings.HasPrefix(ex.Msg, "ERROR: num_spec_tokens=0 not found") {
		t.Errorf("standalone, num_speculative_tokens 0.5: %v, want num_spec_tokens=0 not found", err)
	}
	current := syntheticByBlobs("bafda7a0", "8836a46b", "48fb1706", "e71a5df2")
	for _, js := range []string{
		`{"num_speculative_tokens":3,"x":` + strings.Repeat("9", 4301) + `}`,
		`{"num_speculative_tokens":3,"x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`,
	} {
		for _, env := range []map[string]string{
			{"SYNTHETIC_ACCEPTANCE": "true", "SYNTHETIC_ACCEPTANCE_LENGTH": "2.27"},
			{"SYNTHETIC_ACCEPTANCE": "true", "MODEL_PREFIX": "dsr1"},
		} {
			in := SyntheticInput{Args: []string{"r.yaml", "dynamo-vllm"}, Env: env, RefYAML: string(ref), RefFound: true}
			_, err := current.Apply(in, []byte("      speculative-config: '"+js+"'\n"))
			var nm *NotModelled
			if !errors.As(err, &nm) {
				t.Errorf("%.60s… %v: %v, want not modelled", js, env, err)
			}
		}
	}
}
