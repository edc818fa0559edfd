package helpers

import (
	"errors"
	"unicode/utf8"
)

// This file is the JSON normalizer of InferenceX's AMD multi-node job:
// benchmarks/multi_node/amd_utils/server_sglang.sh (the agentic client's
// env file, KV_OFFLOAD_BACKEND_METADATA) runs
//
//	python3 -c 'import json, sys
//	print(json.dumps(json.loads(sys.stdin.read())))' <<<"$_val"
//
// to put the workflow's toJson (pretty-printed) on one line.

// JSONNormalizePath is the file the normalizer's text is in.
const JSONNormalizePath = "benchmarks/multi_node/amd_utils/server_sglang.sh"

// jsonNormalizeV1 is the SHA-256 of the -c word as written, quotes
// included: the one text of the program in the InferenceX history
// (every commit of server_sglang.sh holding it, 2026-07-14 315760c1c …
// 2026-08-22 a46977ffa, 843c6254f among them).
const jsonNormalizeV1 = "cc4a0f98ac5a782dc8da7a5eee8c6f56defdafc86c9fbe520bf951dc3eee15ad"

// JSONNormalizeTable lists the known versions of the normalizer.
func JSONNormalizeTable() []Program {
	return []Program{{
		ID:      "amd_utils/server_sglang.sh JSON normalizer v1",
		SHA256:  jsonNormalizeV1,
		Path:    JSONNormalizePath,
		Commits: []string{"315760c1c", "843c6254f", "a46977ffa"},
	}}
}

// IsJSONNormalize reports whether raw (a -c word's source text, quotes
// included) is a known version of the normalizer.
func IsJSONNormalize(raw string) bool {
	_, ok := Lookup(JSONNormalizeTable(), []byte(raw))
	return ok
}

// ErrNotReproduced is a run of a known program whose output the Go
// implementation does not make exactly (a Python error whose traceback
// text it does not write, input it does not read as Python does).
var ErrNotReproduced = errors.New("the program's output for this input is not reproduced")

// RunJSONNormalize runs the normalizer on its standard input as python3
// would: sys.stdin.read() (UTF-8), json.loads (CPython Lib/json: dict
// order kept, the last duplicate key winning in the first one's place,
// NaN / Infinity accepted, integers of any size), json.dumps with its
// default separators (", ", ": ") and ensure_ascii, then print's newline.
// Status 0 with that output; input Python rejects (not UTF-8, not JSON)
// is status 1 — Python's traceback is not reproduced: Stderr names the
// error only, and a caller that uses Stderr must not take it for
// Python's. Errors: ErrNotReproduced for input past the decoder's bounds
// (nesting deeper than CPython's recursion allows, an integer longer than
// int_max_str_digits), which Python answers with other exceptions.
func RunJSONNormalize(stdin []byte) (AMDModelsOutput, error) {
	out := AMDModelsOutput{Program: JSONNormalizeTable()[0]}
	if !utf8.Valid(stdin) {
		out.Stderr, out.Status = "UnicodeDecodeError: 'utf-8' codec can't decode the input\n", 1
		return out, nil
	}
	v, err := pyLoads(string(stdin))
	if err != nil {
		var de *errJSONDecode
		if errors.As(err, &de) {
			out.Stderr, out.Status = de.Error()+"\n", 1
			return out, nil
		}
		return out, ErrNotReproduced
	}
	out.Stdout = pyDumpsDefault(v) + "\n"
	return out, nil
}
