package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/launch"
)

var edgeMD = filepath.Join("..", "..", "recipes", "testdata", "md", "edge.md")

func TestRecipesDecodeText(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"recipes", "decode", edgeMD}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{
		"(markdown): 12 deployments",
		"hardware=mi300x",
		"section: Edge Model Usage Guide > GPU Deployment > Running Edge-72B with BF16 [4xMI300X/MI325X/MI355X]",
		"vllm serve edge/Edge-72B --tensor-parallel-size 4 --limit-mm-per-prompt '{\"image\":2,\"video\":0}'",
		"VLLM_ROCM_USE_AITER=1",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestRecipesDecodeJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"recipes", "decode", "--format", "json", edgeMD}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var deps []launch.Deployment
	if err := json.Unmarshal(out.Bytes(), &deps); err != nil {
		t.Fatal(err)
	}
	if len(deps) != 12 || deps[0].Engine != "vllm" || deps[0].Model != "edge/Edge-72B" || deps[0].Hardware != "mi300x" {
		t.Errorf("deployments: %d, first %+v", len(deps), deps[0])
	}
}

func TestRecipesUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"recipes", "decode", "--format", "yaml", edgeMD},
		{"recipes", "decode", filepath.Join("testdata", "does-not-exist.md")},
		{"recipes", "scan", edgeMD},
		{"recipes", "decode"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func TestRecipesScan(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"recipes", "scan", filepath.Dir(edgeMD)}, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "launch blocks: 10 (13 commands); with hardware context: 6") {
		t.Errorf("scan output:\n%s", out.String())
	}
}
