package cookbook

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/fuzzbound"
)

// minimal is a small valid snippet; each line below is numbered in the
// comments of the tests that mutate it (line 1 = first comment line).
const minimal = `// GENERATED fixture for cookbook-sync bad-input tests.
// Second header line.
// Third header line.
export const agentx = {
 "model": "M",
 "unknownTopLevel": {"anything": [1, 2, {"x": null}]},
 "envs": [{"E": "1"}],
 "cells": [
  {"id": "c0", "hw": "b200", "ckpt": "o/M", "submitted": "sglang", "futureKey": true,
   "kv": {"available": ["none"], "unavailable": {}},
   "points": [{"concs": [1], "item": 0, "kv": "none"},
              {"concs": [2], "item": 1, "kv": "none", "patch": {"sglang": [{"args": {"--port": ["30001"]}}]}}],
   "routers": {"sglang": {"install": [], "files": [], "blocks": [
     {"kind": "worker", "role": "agg", "cmd": "python3 -m sglang.launch_server", "envRef": 0, "args": [["--port", "30000"]]}
   ]}}},
  {"id": "c1", "hw": "b200", "ckpt": "o/M", "submitted": "sglang",
   "kv": {"available": ["none"], "unavailable": {}},
   "points": [{"concs": [1], "item": 0, "kv": "none"}],
   "routers": {"sglang": {"install": [], "files": [], "blocks": [
     {"ref": [0, "sglang", 0]}
   ]}}}
 ]
};
`

func TestMinimalSnippet(t *testing.T) {
	f, err := Parse("min.jsx", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Header) != 3 || f.Header[1] != "Second header line." {
		t.Errorf("header = %q", f.Header)
	}
	d, err := f.Decode(Selection{0, 1, "sglang", "none"})
	if err != nil {
		t.Fatal(err)
	}
	want := "E=1 \\\npython3 -m sglang.launch_server \\\n  --port 30001"
	if len(d.Blocks) != 1 || d.Blocks[0].Text != want {
		t.Errorf("blocks = %+v, want text %q", d.Blocks, want)
	}
	if d.CopyAll != "# Worker\n"+want {
		t.Errorf("copyAll = %q", d.CopyAll)
	}
	d, err = f.Decode(Selection{1, 0, "sglang", "none"})
	if err != nil || d.Blocks[0].Text != "E=1 \\\npython3 -m sglang.launch_server \\\n  --port 30000" {
		t.Errorf("ref'd cell: %v %+v", err, d)
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string // substrings of the error
	}{
		{"truncated", minimal[:len(minimal)/2], []string{"bad.jsx:", "JavaScript syntax"}},
		{"truncated at end", strings.TrimSuffix(minimal, "};\n"), []string{"bad.jsx:"}},
		{"wrong top-level name", strings.Replace(minimal, "const agentx", "const agentz", 1),
			[]string{"bad.jsx:4:14:", "want `agentx`", `"agentz"`}},
		{"let instead of const", strings.Replace(minimal, "const agentx", "let agentx", 1), []string{"bad.jsx:4:8:", "want `const`"}},
		{"missing semicolon then code", strings.Replace(minimal, "};\n", "}\nconsole.log(1);\n", 1), []string{"bad.jsx:", "want `;`"}},
		{"trailing statement", minimal + "export const other = 1;\n", []string{"bad.jsx:24:1:", "after `export const agentx"}},
		{"not JSON (trailing comma)", strings.Replace(minimal, `"model": "M",`, `"model": "M",,`, 1), []string{"bad.jsx:5:"}},
		{"not JSON (unquoted key)", strings.Replace(minimal, `"model": "M"`, `model: "M"`, 1), []string{"bad.jsx:5:", "not strict JSON"}},
		{"bad ref index", strings.Replace(minimal, `{"ref": [0, "sglang", 0]}`, `{"ref": [0, "sglang", 9]}`, 1),
			[]string{"bad.jsx:20:7:", "cells[1].routers.sglang.blocks[0].ref", "block index 9 out of range"}},
		{"bad ref cell", strings.Replace(minimal, `{"ref": [0, "sglang", 0]}`, `{"ref": [7, "sglang", 0]}`, 1),
			[]string{"bad.jsx:20:", "cells[1].routers.sglang.blocks[0].ref", "cell index 7 out of range"}},
		{"bad ref shape", strings.Replace(minimal, `{"ref": [0, "sglang", 0]}`, `{"ref": [0, 0]}`, 1),
			[]string{"bad.jsx:20:", "cells[1].routers.sglang.blocks[0].ref", "want [cellIndex, routerName, blockIndex]"}},
		{"self ref", strings.Replace(minimal, `{"ref": [0, "sglang", 0]}`, `{"ref": [1, "sglang", 0]}`, 1),
			[]string{"bad.jsx:20:7: cells[1].routers.sglang.blocks[0].ref: ref to cells[1] from cells[1]: a ref must point to an earlier cell"}},
		{"bad envRef", strings.Replace(minimal, `"envRef": 0`, `"envRef": 3`, 1),
			[]string{"bad.jsx:14:", "cells[0].routers.sglang.blocks[0].envRef", "index 3 out of range"}},
		{"patch longer than blocks", strings.Replace(minimal, `"patch": {"sglang": [{`, `"patch": {"sglang": [null, {`, 1),
			[]string{"bad.jsx:12:", "cells[0].points[1].patch.sglang[1]", "patch has 2 entries but router \"sglang\" has 1 blocks"}},
		{"unknown point KV tier", strings.Replace(minimal, `"item": 1, "kv": "none"`, `"item": 1, "kv": "disk"`, 1),
			[]string{"bad.jsx:12:", "cells[0].points[1].kv", `unknown KV tier "disk"`}},
		{"unknown available KV tier", strings.Replace(minimal, `"available": ["none"]`, `"available": ["none", "ssd"]`, 1),
			[]string{"bad.jsx:10:", "cells[0].kv.available[1]", `unknown KV tier "ssd"`}},
		{"wrong type", strings.Replace(minimal, `"concs": [2]`, `"concs": "2"`, 1), []string{"bad.jsx:12:", "cells.points.concs"}},
		{"env not a string", strings.Replace(minimal, `"envs": [{"E": "1"}]`, `"envs": [{"E": 1}]`, 1),
			[]string{"bad.jsx:7:", "envs[0].E", "must be a string"}},
		{"patch for unknown router", strings.Replace(minimal, `"patch": {"sglang"`, `"patch": {"vllm"`, 1),
			[]string{"bad.jsx:12:", "cells[0].points[1].patch.vllm"}},
		{"patch bad shape", strings.Replace(minimal, `"patch": {"sglang": [{"args": {"--port": ["30001"]}}]}`, `"patch": {"sglang": 3}`, 1),
			[]string{"bad.jsx:12:", "cells[0].points[1].patch.sglang"}},
		{"diff args not strings", strings.Replace(minimal, `{"--port": ["30001"]}`, `{"--port": [30001]}`, 1),
			[]string{"bad.jsx:12:", `cells[0].points[1].patch.sglang[0]`, `args["--port"]`}},
		{"submitted router missing", strings.Replace(minimal, `"submitted": "sglang", "futureKey"`, `"submitted": "dynamo", "futureKey"`, 1),
			[]string{"bad.jsx:9:", "cells[0].submitted"}},
		{"empty file", "", []string{"bad.jsx:1:1:", "empty"}},
		{"not an object", "export const agentx = [1];\n", []string{"bad.jsx:1:23:", "object literal"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.jsx", []byte(c.src))
			if err == nil {
				t.Fatalf("no error")
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("error %T is not *Error: %v", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestBadSelection(t *testing.T) {
	f, err := Parse("min.jsx", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sel  Selection
		want string
	}{
		{Selection{5, 0, "sglang", "none"}, "cell index 5 out of range"},
		{Selection{0, 9, "sglang", "none"}, "point index 9 out of range"},
		{Selection{0, 0, "dynamo", "none"}, `unknown router "dynamo"`},
		{Selection{0, 0, "sglang", "disk"}, `unknown KV tier "disk"`},
		{Selection{0, 0, "sglang", "hicache"}, `KV tier "hicache" is unavailable`},
	} {
		if _, err := f.Decode(c.sel); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.sel, err, c.want)
		}
	}
	if _, err := f.CellIndex("c1"); err != nil {
		t.Error(err)
	}
	if i, err := f.CellIndex("1"); err != nil || i != 1 {
		t.Error(i, err)
	}
	if _, err := f.CellIndex("nope"); err == nil {
		t.Error("no error for unknown cell id")
	}
}

// FuzzParse: Parse and decoding every selection must never panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	if b, err := os.ReadFile("testdata/features.jsx"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(strings.Replace(minimal, `{"ref": [0, "sglang", 0]}`, `{"from": 0, "cmd": "x", "diff": {"block": {"kind": "nginx", "cmd": "n"}}}`, 1)))
	f.Add([]byte("export const agentx = {};\n"))
	f.Add([]byte("// c\nexport const agentx = {\"cells\": []};"))
	f.Fuzz(func(t *testing.T, src []byte) {
		err := fuzzbound.Within(fuzzbound.Bound, func() error {
			file, err := Parse("fuzz.jsx", src)
			if err != nil {
				return nil
			}
			for _, s := range file.Selections() {
				d, err := file.Decode(s)
				if err == nil {
					_ = d.OracleJSON()
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%v\ninput: %q", err, src)
		}
	})
}

// TestClosedKeySets: block, diff and patch objects have a closed key set
// (spec agentx-format.md (a) "Blocks", "diff semantics", "point.patch"), and
// the data invariants the spec states are enforced: env/envRef exclusive
// ((f) 7), refs point backwards ((f) 6), no patch on point 0 ((a)
// "cell.points[j]"), unique cell ids ((a) "cells[i]"). Each error is exact:
// file:line:col, JSON path and message. Unknown keys elsewhere (top level,
// cell, point — the format grows there, spec (e)) stay tolerated: minimal
// carries "unknownTopLevel" and "futureKey".
func TestClosedKeySets(t *testing.T) {
	cases := []struct {
		name, old, new, want string
	}{
		{"patch diff typo", `[{"args": {"--port": ["30001"]}}]`, `[{"argz": {"--port": ["30001"]}}]`,
			`bad.jsx:12:77: cells[0].points[1].patch.sglang[0].argz: unknown diff key "argz" (want args and/or env, or block)`},
		{"block diff typo", `{"ref": [0, "sglang", 0]}`, `{"ref": [0, "sglang", 0], "diff": {"args": {}, "envv": {}}}`,
			`bad.jsx:20:53: cells[1].routers.sglang.blocks[0].diff.envv: unknown diff key "envv" (want args and/or env, or block)`},
		{"diff block and args", `{"ref": [0, "sglang", 0]}`, `{"ref": [0, "sglang", 0], "diff": {"args": {}, "block": {"kind": "nats", "cmd": "n"}}}`,
			`bad.jsx:20:53: cells[1].routers.sglang.blocks[0].diff.block: a diff is either {"args", "env"} or {"block"}, not both`},
		{"block key typo", `"envRef": 0, "args"`, `"envRef": 0, "argss": [], "args"`,
			`bad.jsx:14:95: cells[0].routers.sglang.blocks[0].argss: unknown block key "argss" (want one of kind, role, workers, nodes_per_worker, count, count_nodes, ports, preamble, gpu_pinning, cmd, env, envRef, args, from, ref, drop, diff)`},
		{"block key case (JS keys are exact)", `{"ref": [0, "sglang", 0]}`, `{"ref": [0, "sglang", 0], "Workers": 2}`,
			`bad.jsx:20:32: cells[1].routers.sglang.blocks[0].Workers: unknown block key "Workers" (want one of kind, role, workers, nodes_per_worker, count, count_nodes, ports, preamble, gpu_pinning, cmd, env, envRef, args, from, ref, drop, diff)`},
		{"escaped block key", `{"ref": [0, "sglang", 0]}`, `{"ref": [0, "sglang", 0], "\u0077orkerz": 2}`,
			`bad.jsx:20:32: cells[1].routers.sglang.blocks[0].workerz: unknown block key "workerz" (want one of kind, role, workers, nodes_per_worker, count, count_nodes, ports, preamble, gpu_pinning, cmd, env, envRef, args, from, ref, drop, diff)`},
		{"delta key typo", `{"ref": [0, "sglang", 0]}`, `{"ref": [0, "sglang", 0], "worker": 2}`,
			`bad.jsx:20:32: cells[1].routers.sglang.blocks[0].worker: unknown block key "worker" (want one of kind, role, workers, nodes_per_worker, count, count_nodes, ports, preamble, gpu_pinning, cmd, env, envRef, args, from, ref, drop, diff)`},
		{"block wrong type", `{"ref": [0, "sglang", 0]}`, `{"ref": [0, "sglang", 0], "workers": "2"}`,
			`bad.jsx:20:32: cells[1].routers.sglang.blocks[0].workers: cannot use JSON string as int`},
		{"drop unknown key", `{"ref": [0, "sglang", 0]}`, `{"ref": [0, "sglang", 0], "drop": ["cmd", "gpu_pin"]}`,
			`bad.jsx:20:48: cells[1].routers.sglang.blocks[0].drop[1]: drop names unknown block key "gpu_pin"`},
		{"patch replace typo", `{"sglang": [{"args": {"--port": ["30001"]}}]}`, `{"sglang": {"replace": [], "replac": []}}`,
			`bad.jsx:12:91: cells[0].points[1].patch.sglang.replac: unknown patch key "replac" (want {"replace": [...]})`},
		{"patch block key typo", `[{"args": {"--port": ["30001"]}}]`, `[{"block": {"kind": "nats", "cmd": "n", "arg": []}}]`,
			`bad.jsx:12:115: cells[0].points[1].patch.sglang[0].block.arg: unknown block key "arg" (want one of kind, role, workers, nodes_per_worker, count, count_nodes, ports, preamble, gpu_pinning, cmd, env, envRef, args, from, ref, drop, diff)`},
		{"env and envRef", `"envRef": 0, "args"`, `"envRef": 0, "env": {}, "args"`,
			`bad.jsx:14:82: cells[0].routers.sglang.blocks[0].envRef: block has both env and envRef (they are mutually exclusive)`},
		{"forward ref", `{"kind": "worker", "role": "agg", "cmd": "python3 -m sglang.launch_server", "envRef": 0, "args": [["--port", "30000"]]}`,
			`{"ref": [1, "sglang", 0]}`,
			`bad.jsx:14:7: cells[0].routers.sglang.blocks[0].ref: ref to cells[1] from cells[0]: a ref must point to an earlier cell`},
		{"patch on point 0", `{"concs": [1], "item": 0, "kv": "none"}`, `{"concs": [1], "item": 0, "kv": "none", "patch": {"sglang": null}}`,
			`bad.jsx:11:55: cells[0].points[0].patch: point 0 cannot have a patch (the cell's blocks are point 0's launch)`},
		{"duplicate cell id", `{"id": "c1"`, `{"id": "c0"`,
			`bad.jsx:16:4: cells[1].id: duplicate cell id "c0" (also cells[0].id)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(minimal, c.old) {
				t.Fatalf("fixture has no %q", c.old)
			}
			src := strings.Replace(minimal, c.old, c.new, 1)
			if c.name == "forward ref" { // cell 1 becomes the full block cell 0 refers to
				src = strings.Replace(src, `{"ref": [0, "sglang", 0]}`, c.old, 1)
			}
			_, err := Parse("bad.jsx", []byte(src))
			if err == nil || err.Error() != c.want {
				t.Errorf("error\n  %v\nwant\n  %s", err, c.want)
			}
		})
	}
}

// TestBadStatus: provenance statuses outside spec (a)/(c)'s sets are input
// errors with their JSON path.
func TestBadStatus(t *testing.T) {
	src := strings.Replace(minimal, `"model": "M",`, `"model": "M", "source": {"repo": "r", "main": "0123456", "prs": {"7": {"sha": "0123456", "run": null, "status": "teleported"}}},`, 1)
	_, err := Parse("bad.jsx", []byte(src))
	if want := `bad.jsx:5:104: source.prs["7"].status: "teleported" is not a provenance status (want verified, verified-pr, in-progress)`; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	src = strings.Replace(minimal, `{"concs": [2], "item": 1, "kv": "none",`, `{"concs": [2], "item": 1, "kv": "none", "status": "derived",`, 1)
	_, err = Parse("bad.jsx", []byte(src))
	if want := `bad.jsx:12:55: cells[0].points[1].status: "derived" is not a provenance status (want verified, verified-pr, in-progress)`; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
