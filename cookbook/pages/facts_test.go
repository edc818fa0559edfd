package pages

import (
	"context"
	"slices"
	"testing"

	"github.com/cookbook-sync/cookbook-sync/internal/testutil"
	"github.com/cookbook-sync/cookbook-sync/launch"
)

// TestReadFacts: model ids written whole are read; a string whose "/" part
// meets a computed part makes the models not known.
func TestReadFacts(t *testing.T) {
	for _, c := range []struct {
		src    string
		models []string
		known  bool
	}{
		{"export const config = { modelNames: { a: 'nvidia/Foo-NVFP4', b: \"org/Bar\" } };", []string{"nvidia/Foo-NVFP4", "org/Bar"}, true},
		{"const m = {x: 'Foo'};\nconst id = `moonshotai/${m.x}`;", nil, false},
		{"const id = 'moonshotai/' + name;", nil, false},
		{"const id = org + '/' + name;", nil, false},
		{"const id = [org, name].join('/');", nil, false},
		{"const id = `${org}/${name}`;", nil, false},
		// a whole id inside a command template is read; a path meeting a
		// computed part is not an id but may hide one
		{"const c = `python -m sglang.launch_server --model-path zai-org/GLM-5 --tp ${tp}`;", []string{"zai-org/GLM-5"}, true},
		{"const c = `--model-path /models/${name}`;", nil, false},
		// a suffix without "/" is extended at run time: known, and MayShow
		// relates the extension to the literal
		{"const m = {a: 'google/gemma-4-E2B-it'}; const p = `${m.a}${q ? '-qat' : ''}`;", []string{"google/gemma-4-E2B-it"}, true},
		{"this is not javascript (", nil, false},
	} {
		models, known := readFacts("x.jsx", []byte(c.src))
		if known != c.known || !slices.Equal(models, c.models) {
			t.Errorf("%s:\n got %v known=%v, want %v known=%v", c.src, models, known, c.models, c.known)
		}
	}
	fi := FileInfo{Known: true, Models: []string{"google/gemma-4-E2B-it"}}
	for m, want := range map[string]bool{"google/gemma-4-E2B-it-qat-q4_0-unquantized": true, "Google/GEMMA-4-E2B-it-FP8": true, "google/gemma-3-4b-it": false, "Qwen/Qwen3.5-9B": false} {
		if fi.MayShow(m) != want {
			t.Errorf("MayShow(%s) = %v, want %v", m, !want, want)
		}
	}
	if !(FileInfo{}).MayShow("any/model") {
		t.Error("a file whose models are not known must be able to show any model")
	}
}

// TestCorpusPageFactsSound: on the complete sglang docs tree, every model a
// snippet's code shows (the worker's --model-path of every selection) is
// one its static facts say it may show (FileInfo.MayShow), so a run that
// chooses files by model never leaves out a file that serves the model.
func TestCorpusPageFactsSound(t *testing.T) {
	root := testutil.SharedPath(t, "corpus/upstream/sglang-docs")
	set, err := Load(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	known, models := 0, 0
	for _, f := range set.Files {
		fi := set.Info[f]
		if fi.Known {
			known++
		}
		seen := map[string]bool{}
		for i := range set.Selections[f] {
			d, err := ParseCommand("", &set.Selections[f][i])
			if err != nil {
				continue
			}
			for _, p := range d.Processes {
				if p.Kind != launch.KindWorker {
					continue
				}
				m := d.Model
				if v, ok := launch.Lookup(p.Args, "--model-path"); ok && len(v) == 1 {
					m = v[0]
				}
				if seen[m] {
					continue
				}
				seen[m] = true
				models++
				if !fi.MayShow(m) {
					t.Errorf("%s shows %s, which its static models %v do not cover", f, m, fi.Models)
				}
			}
		}
	}
	t.Logf("%d snippet files, %d with models known statically; %d (file, model) pairs checked", len(set.Files), known, models)
	if len(set.Files) != 79 || known != 50 {
		t.Errorf("files %d, known %d: want 79, 50 (sglang docs @6c749811)", len(set.Files), known)
	}
}
