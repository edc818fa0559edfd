package recipes

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// schemaBase is a small model recipe; the cases below replace one line.
// Line numbers: 1 model:, 2 model_id, 3 base_args, 4 base_env, 5 variants:,
// 6 default:, 7 tp.
const schemaBase = `model:
  model_id: acme/X
  base_args: ["--trust-remote-code"]
  base_env: {A: "1"}
variants:
  default:
    tp: 8
bogus_top: 1
`

// TestRecipeSchema: the synthesis inputs of a model recipe have the shapes
// of vllm-recipes.md §9.1; a wrong one is an error with file:line:col and
// the YAML path (before, these made deployments vanish or printed
// "--tensor-parallel-size -9223372036854775808"). Unknown keys (bogus_top)
// stay tolerated.
func TestRecipeSchema(t *testing.T) {
	cases := []struct{ old, new, want string }{
		{"tp: 8", "tp: 99999999999999999999999999",
			"x.yaml:7:9: variants.default.tp: want an integer from 1 to 65536, got 99999999999999999999999999"},
		{"tp: 8", "tp: -8", "x.yaml:7:9: variants.default.tp: want an integer from 1 to 65536, got -8"},
		{"tp: 8", "tp: 2.5", "x.yaml:7:9: variants.default.tp: want an integer from 1 to 65536, got 2.5"},
		{"tp: 8", "tp: eight", `x.yaml:7:9: variants.default.tp: want an integer, got the string "eight"`},
		{"tp: 8", "tp: {h200: 0}", "x.yaml:7:16: variants.default.tp.h200: want an integer from 1 to 65536, got 0"},
		{`base_args: ["--trust-remote-code"]`, `base_args: [["--trust-remote-code"]]`,
			"x.yaml:3:15: model.base_args[0]: want an argument token (a string), got a list"},
		{`base_args: ["--trust-remote-code"]`, `base_args: 7`, "x.yaml:3:14: model.base_args: want a list, got 7"},
		{`base_env: {A: "1"}`, `base_env: {X: [1,2]}`, "x.yaml:4:17: model.base_env.X: want an env value (a string), got a list"},
		{`base_env: {A: "1"}`, `base_env: [A]`, "x.yaml:4:13: model.base_env: want a mapping, got a list"},
		{"  default:\n    tp: 8", "  default: 5", "x.yaml:6:12: variants.default: want a mapping, got 5"},
		{"  model_id: acme/X\n", "  model_id: acme/X\n  model_id: acme/Y\n",
			"x.yaml:3:3: model.model_id: duplicated mapping key (first at line 2; the site's YAML loader refuses the file)"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		src := strings.Replace(schemaBase, c.old, c.new, 1)
		p := filepath.Join(dir, "x.yaml")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := scanYAML("x.yaml", []byte(src), nil, nil, true)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.new, err, c.want)
		}
	}
	if _, err := scanYAML("x.yaml", []byte(schemaBase), nil, nil, true); err != nil {
		t.Errorf("valid recipe (unknown top-level key): %v", err)
	}
}

// TestSiteInvalidRecipe: in a recipes tree, a recipe of the wrong shape is
// left out of the renderings and listed in Site.Invalid; ScanDir counts it
// as failed with the reason while the other recipes still decode.
func TestSiteInvalidRecipe(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS(fixtureSite)); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(schemaBase, "tp: 8", "tp: -8", 1)
	if err := os.WriteFile(filepath.Join(root, "models", "acme", "Bad-1.yaml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	site, err := LoadSite(root)
	if err != nil {
		t.Fatal(err)
	}
	want := "models/acme/Bad-1.yaml:7:9: variants.default.tp: want an integer from 1 to 65536, got -8"
	if len(site.Invalid) != 1 || site.Invalid[0].Error() != want {
		t.Errorf("Invalid = %v, want [%s]", site.Invalid, want)
	}
	for _, r := range site.Renderings() {
		if r.Recipe.File == "models/acme/Bad-1.yaml" {
			t.Errorf("invalid recipe rendered: %+v", r.Paths)
		}
	}
	if len(site.Renderings()) == 0 {
		t.Error("the valid recipes no longer render")
	}
	scans, errs := ScanDir(root)
	wantScan := filepath.Join(root, "models", "acme", "Bad-1.yaml") + ":7:9: variants.default.tp: want an integer from 1 to 65536, got -8"
	if len(errs) != 1 || errs[0].Error() != wantScan {
		t.Errorf("ScanDir errors = %v, want [%s]", errs, wantScan)
	}
	if len(scans) == 0 {
		t.Error("ScanDir dropped the valid files")
	}
}

// TestConfigAliases: a vLLM --config YAML value with aliases is expanded
// (not printed as anchor text); a list gives the flag then each item
// (vLLM load_config_file), a mapping its JSON; a "billion laughs" value
// fails at its position instead of expanding.
func TestConfigAliases(t *testing.T) {
	src := "defaults: &d {\"a\": 1, \"b\": [x, y]}\ncompilation-config: *d\nmax-num-seqs: 8\nlora-modules: [m1, *d]\n"
	fs, err := scanYAML("c.yaml", []byte(src), nil, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	got := fs.Deployments[0].Processes[0].Argv()
	want := []string{"vllm", "serve", "--defaults", `{"a":1,"b":["x","y"]}`, "--compilation-config", `{"a":1,"b":["x","y"]}`,
		"--max-num-seqs", "8", "--lora-modules", "m1", `{"a":1,"b":["x","y"]}`}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("argv\n got %q\nwant %q", got, want)
	}
	var b strings.Builder
	b.WriteString("a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 8; i++ {
		fmt.Fprintf(&b, "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", 'a'+i, 'a'+i, 'a'+i-1, 'a'+i-1, 'a'+i-1, 'a'+i-1, 'a'+i-1, 'a'+i-1, 'a'+i-1, 'a'+i-1, 'a'+i-1, 'a'+i-1)
	}
	_, err = scanYAML("bomb.yaml", []byte(b.String()), nil, nil, true)
	if err == nil || !strings.Contains(err.Error(), "value expands to more than 10000 YAML nodes") || !strings.HasPrefix(err.Error(), "bomb.yaml:") {
		t.Errorf("bomb: %v", err)
	}
}
