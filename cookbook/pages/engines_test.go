package pages

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nodeRows reads a JSONL file of render_component.mjs rows, as the
// package's golden JSON (Selection.GoldenJSON: the page field moved out).
func nodeRows(t *testing.T, name string) (rows []string, pages []string) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	pageRE := regexp.MustCompile(`"page":("(?:[^"\\]|\\.)*"),`)
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		line := sc.Text()
		page := ""
		if m := pageRE.FindStringSubmatch(line); m != nil {
			if err := json.Unmarshal([]byte(m[1]), &page); err != nil {
				t.Fatal(err)
			}
			line = strings.Replace(line, m[0], "", 1)
		}
		rows = append(rows, line)
		pages = append(pages, page)
	}
	return rows, pages
}

// TestEngineVersions: for a small checkout in the shape of each version of
// the cookbook's page engine (testdata/engines, docs/ and docs_new/), the
// config selections Load gives — selection, cell, badge, mode, command,
// page, in order — equal what the page's own code gives under Node
// (testdata/engines/*.golden.jsonl, made by
// testdata/oracle/render_component.mjs).
func TestEngineVersions(t *testing.T) {
	for _, name := range []string{"june", "july27", "august"} {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join("testdata", "engines", name)
			want, wantPages := nodeRows(t, root+".golden.jsonl")
			set, err := Load(context.Background(), root, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(set.Errors) > 0 {
				t.Fatalf("errors: %v", set.Errors)
			}
			var got, gotPages []string
			for _, f := range set.Files {
				if snippetKind(f) != "config" {
					continue
				}
				for _, s := range set.Selections[f] {
					j, err := s.GoldenJSON()
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, string(j))
					gotPages = append(gotPages, s.Page)
				}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if strings.Join(gotPages, "\n") != strings.Join(wantPages, "\n") {
				t.Errorf("pages %q, want %q", gotPages, wantPages)
			}
		})
	}
	// a page decoded alone renders its own tag (an aliased component and
	// config import)
	root := filepath.Join("testdata", "engines", "august")
	sels, err := DecodeFile(context.Background(), root, "docs/cookbook/autoregressive/Acme/Gamma.mdx", Options{})
	if err != nil || len(sels) != 7 || sels[0].Verified != "in-progress" || sels[6].Mode != "docker" ||
		sels[0].URL != "https://docs.sglang.io/cookbook/autoregressive/Acme/Gamma#hw=b200&variant=base&encoder=tp" {
		t.Fatalf("Gamma.mdx: %d %v %+v", len(sels), err, sels)
	}
	// docs_new/: the repository root, the docs dir and paths under it
	root = filepath.Join("testdata", "engines", "june")
	for _, r := range []string{root, filepath.Join(root, "docs_new")} {
		sels, err := DecodeFile(context.Background(), r, "docs_new/cookbook/autoregressive/Acme/Alpha.mdx", Options{})
		if err != nil || len(sels) != 8 || sels[0].File != "docs_new/src/snippets/configs/acme/alpha.jsx" ||
			sels[0].URL != "https://docs.sglang.io/cookbook/autoregressive/Acme/Alpha#hw=h100&variant=base&quant=bf16&strategy=balanced&nodes=single" {
			t.Errorf("%s: %d %v", r, len(sels), err)
		}
	}
	abs, _ := filepath.Abs(filepath.Join(root, "docs_new"))
	if r, err := FindRoot(filepath.Join(root, "docs_new/src/snippets/configs/acme/alpha.jsx")); err != nil || r != abs {
		t.Errorf("FindRoot: %q %v", r, err)
	}
}

// TestNodeEngineGoldens: the committed goldens of testdata/engines are what
// testdata/oracle/render_component.mjs prints today (Node run live; skipped,
// loudly, without node or under -short).
func TestNodeEngineGoldens(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: runs node")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("SKIP: node not on PATH: the goldens of testdata/engines were not re-made live")
	}
	for _, name := range []string{"june", "july27", "august"} {
		cmd := exec.Command(node, "testdata/oracle/render_component.mjs", filepath.Join("testdata", "engines", name))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v: %s", name, err, stderr.Bytes())
		}
		want, err := os.ReadFile(filepath.Join("testdata", "engines", name+".golden.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want) {
			t.Errorf("%s: render_component.mjs prints\n%s\nthe golden holds\n%s", name, out, want)
		}
	}
}
