package srtslurm

import (
	"strings"
	"testing"
)

// TestPyJSON checks pyJSON against Python's json.dumps(v, indent=2) (the
// encoding of srt-slurm's mooncake_store_config.json, backends/vllm.py):
// the expected text is what CPython 3 prints for the same value (PyYAML
// reads 1.0e+20 as a float; 1e+20, without a dot, would be a string).
func TestPyJSON(t *testing.T) {
	v, err := parseYAML("t.yaml", []byte("n: .nan\ni: -.inf\nbig: 123456789012345678901234567890\ne: 1.0e+20\nu: \"\\U0001F600\\x7f\\x01/\"\nl: [[1], {}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	pyJSON(&b, v, "")
	want := "{\n  \"n\": NaN,\n  \"i\": -Infinity,\n  \"big\": 123456789012345678901234567890,\n  \"e\": 1e+20,\n  \"u\": \"\\ud83d\\ude00\\u007f\\u0001/\",\n  \"l\": [\n    [\n      1\n    ],\n    {}\n  ]\n}"
	if b.String() != want {
		t.Errorf("pyJSON\n got %q\nwant %q", b.String(), want)
	}
}
