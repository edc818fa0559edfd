package pages

import (
	"context"
	"path"
	"regexp"
	"slices"
	"strings"
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
		{"this is not javascript (", nil, false},
		// the word a command parser sees: quotes inside it removed, a
		// line continuation dropped
		{"const c = `--model-path Qwen/\"Qwen3-8B\" --tp 8`;", []string{"Qwen/Qwen3-8B"}, true},
		{"const c = `--model-path Qwen/Qwen3-8B\\\n  --tp 8`;", []string{"Qwen/Qwen3-8B"}, true},
	} {
		models, prefixes, known := readFacts("x.jsx", []byte(c.src))
		if known != c.known || !slices.Equal(models, c.models) || len(prefixes) > 0 {
			t.Errorf("%s:\n got %v %v known=%v, want %v known=%v", c.src, models, prefixes, known, c.models, c.known)
		}
	}
	// A word holding "/" that meets a computed part gives the start of
	// the id's name (what follows its last "/"), whatever comes before.
	for _, c := range []struct {
		src      string
		prefixes []string
		known    bool
	}{
		{"const id = `Qwen/Qwen3.5-${size}${quant}`;", []string{"Qwen3.5-"}, true},
		// a literal bound to a variable or property used in a composition
		// is a part of it (the flow of the first pass)
		{"const m = {a: 'google/gemma-4-E2B-it'}; const p = `${m.a}${q ? '-qat' : ''}`;", []string{"gemma-4-E2B-it"}, true},
		{"const SEP = '/'; const id = ORG + SEP + NAME;", nil, false},
		{"const id = ['Qwen', 'Qwen3-8B'].join(SEP); const SEP = '/';", nil, false},
		{"const parts = ['Qwen', '/', 'Qwen3-8B']; const id = parts.join('');", nil, false},
		{"const id = `${org}${'/'}${name}`;", nil, false},
		{"const id = org + (hf ? '/' : '--') + name;", nil, false},
		{"const f = (o, n, s = '/') => o + s + n;", nil, false},
		{"const m = {org: 'Qwen', sep: '/', name: 'Qwen3-8B'}; const id = m.org + m.sep + m.name;", nil, false},
		{"const id = 'Qwen'.concat(...['/', 'Qwen3-8B']);", nil, false},
		{"const base = 'Qwen/Qwen3-235B-A22B-Instruct-2507'; const id = base.replace('Instruct', 'Thinking');", nil, false},
		{"const t = {title: 'Weights / Precision'}; const id = `Qwen/Qwen3-${x}`;", []string{"Qwen3-"}, true},
		// trim brings a literal's end words to its ends; String() and
		// toString pass a value on; a shell assignment's value is joined
		// where its variable is; --flag=org/ is an organisation alone
		{"const F = `\n--model-path acme/\n`.trim(); const c = F + 'Gamma';", nil, false},
		{"const F = `\n--model-path acme/\n`; const c = F.trim() + 'Gamma';", nil, false},
		{"const SEP = ' / '; const id = 'Qwen' + SEP.trim() + 'Qwen3-8B';", nil, false},
		{"const SEP = '/'; const id = ORG + String(SEP) + NAME;", nil, false},
		{"const c = `export HF_ORG=Qwen/\nsglang serve --model-path \\${HF_ORG}Qwen3-8B`;", nil, false},
		{"const f = () => '--model-path=acme/'; const c = f() + name;", nil, false},
		// through functions: an argument given to a parameter a
		// composition joins, a returned value a composition joins
		{"const hfId = (org, sep, name) => org + sep + name; const c = '--model-path ' + hfId('acme', '/', 'Gamma');", nil, false},
		{"function sep() { return '/'; } const id = 'Qwen' + sep() + 'Qwen3-8B';", nil, false},
		// a {{KEY}} whose default ends in "/": what follows it starts a
		// name; a word that ends in one may be a name filled in whole
		{"export const config = { placeholders: { DIR: { default: '/models/' } }, flags: ['--model-path {{DIR}}Gamma'] };", []string{"Gamma"}, true},
		{"export const config = { placeholders: { DIR: { default: '/models/' }, NAME: { default: 'Gamma' } }, flags: ['--model-path {{DIR}}{{NAME}}'] };", nil, false},
		{"const c = `sglang serve --model-path Qwen/Qwen3-${s} --tp ${tp}`;", []string{"Qwen3-"}, true},
		{"const c = `--model-path \"zai-org/GLM-5${v}\"`;", []string{"GLM-5"}, true},
		{"const a = `Qwen/Qwen3-${s}`; const b = `nvidia/Qwen3-${s}-FP4`;", []string{"Qwen3-"}, true},
		{"const id = `${org}/DeepSeek-Math-V2`;", []string{"DeepSeek-Math-V2"}, true},
		{"const id = `${org}/DeepSeek-Math-V2\",`;", []string{"DeepSeek-Math-V2"}, true},
		{"const id = `${org}/gpt-oss-${size}`;", []string{"gpt-oss-"}, true},
		{"const id = `${x}Qwen/Qwen3-${s}`;", []string{"Qwen3-"}, true},
		{"const id = pre + `Qwen/Qwen3-${s}`;", []string{"Qwen3-"}, true},
		{"const id = 'Qwen/Qwen3-' + s;", []string{"Qwen3-"}, true},
		{"const id = org + '/Kimi-K2';", []string{"Kimi-K2"}, true},
		{"const c = `--model=Qwen/Qwen3-${s}`;", []string{"Qwen3-"}, true},
		// no name after the "/", or a tag that may make anything of
		// the parts: not known
		{"const id = `${org}/${name}`;", nil, false},
		{"const id = `Qwen/${name}`;", nil, false},
		{"const id = tag`Qwen/Qwen3-${s}`;", nil, false},
		{"const id = [org, `x`].join('/');", nil, false},
		{"const id = `${org}/Qwen:3-${s}`;", []string{"Qwen:3-"}, true},
		// the engine's {{KEY}} and the shell's $VAR are computed parts
		{"export const config = { flags: ['--model-path Qwen/Qwen3-{{SIZE}}'] };", []string{"Qwen3-"}, true},
		{"export const config = { flags: ['--model-path {{ORG}}/{{NAME}}'] };", nil, false},
		{"const c = `MODEL=Qwen3-8B\nsglang serve --model-path Qwen/$MODEL`;", nil, false},
		{"const c = `sglang serve --model-path Qwen/Qwen3-${'$'}{SIZE}`;", []string{"Qwen3-"}, true},
		// a literal a string method rewrites, and += (goja: Operator PLUS)
		{"const id = 'Qwen/Qwen3-8B'.replace(/8B$/, '32B');", nil, false},
		{"const id = 'Qwen/Qwen3-8B'.slice(0, -2) + '32B';", nil, false},
		{"let id = 'Qwen'; id += '/'; id += 'Qwen3-8B';", nil, false},
		// half an id in a literal of its own, joined by identifiers
		{"const org = 'Qwen/'; const id = org + name;", nil, false},
		{"const n = '/Qwen3-8B'; const id = org + n;", []string{"Qwen3-8B"}, true},
		{"const u = 'https://huggingface.co/Qwen/'; const p = '/models/a/b';", []string{"b"}, true},
		// a "/" no name follows (a label's separator, a link ending in
		// "/") may continue a prefix's name through identifiers: only a
		// prefix a computed part continues is then not known
		{"const id = `Qwen/Qwen3-${x}`; const l = 'Reasoning / CoT';", []string{"Qwen3-"}, true}, // inside a literal: joins nothing
		{"const id = `Qwen/Qwen3-${x}`; const u = 'https://example.com/';", nil, false},
		{"const id = `${org}/DeepSeek-Math-V2`; const l = 'TP / EP';", []string{"DeepSeek-Math-V2"}, true},
	} {
		models, prefixes, known := readFacts("x.jsx", []byte(c.src))
		if known != c.known || !slices.Equal(prefixes, c.prefixes) || len(models) > 0 {
			t.Errorf("%s:\n got %v %v known=%v, want prefixes %v known=%v", c.src, models, prefixes, known, c.prefixes, c.known)
		}
	}
	fi := FileInfo{Known: true, Models: []string{"google/gemma-4-E2B-it"}}
	for m, want := range map[string]bool{"google/gemma-4-E2B-it-qat-q4_0-unquantized": true, "Google/GEMMA-4-E2B-it-FP8": true, "google/gemma-3-4b-it": false, "Qwen/Qwen3.5-9B": false} {
		if fi.MayShow(m) != want {
			t.Errorf("MayShow(%s) = %v, want %v", m, !want, want)
		}
	}
	// An id that starts with a prefix: its family starts with the prefix's
	// name, or with less where a suffix ModelFamily cuts begins inside it.
	for _, c := range []struct {
		prefix, model string
		want          bool
	}{
		{"Qwen/Qwen3.5-", "Qwen/Qwen3.5-397B-A17B-FP8", true},
		{"Qwen/Qwen3.5-", "Qwen/Qwen3.5-FP8", true}, // family qwen3.5
		{"Qwen/Qwen3.5-", "nvidia/Qwen3.5-397B-A17B-NVFP4", true},
		{"Qwen/Qwen3.5-", "Qwen/Qwen3", true}, // qwen3 a prefix of qwen3.5-
		{"Qwen/Qwen3.5-", "deepseek-ai/DeepSeek-V4-Pro", false},
		{"Qwen/Qwen3.5-", "Qwen/Qwen3.6-35B", false},
		{"zai-org/GLM-5", "zai-org/GLM-5.2-FP8", true},
		{"zai-org/GLM-5", "zai-org/GLM-4.5", false},
		{"zai-org/GLM-4.5", "zai-org/GLM-5.2", false},
		{"org/Model-fp", "org/Model", true},           // -fp[8] cut: family model
		{"org/Model-fp8-v", "org/Model", true},        // -v… then -fp8 cut
		{"org/Model-fp8-x", "org/Model-fp8-y", false}, // -x… is no suffix: family model-fp8-x…
		{"org/Model-fp", "org/Model-x", true},         // family model, a prefix of model-x
		{"org/Model-V2", "org/Model-V2-Instruct", true},
	} {
		fi := FileInfo{Known: true, Prefixes: []string{c.prefix[strings.LastIndexByte(c.prefix, '/')+1:]}}
		if got := fi.MayShow(c.model); got != c.want {
			t.Errorf("prefix %s: MayShow(%s) = %v, want %v", c.prefix, c.model, got, c.want)
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
	if len(set.Files) != 79 || known != 70 {
		t.Errorf("files %d, known %d: want 79, 70 (sglang docs @6c749811; 50 before model id prefixes)", len(set.Files), known)
	}
}

// TestReadFactsLinear: a long chain of + is read in time linear in its
// length (each expression is marked once; it took minutes at 200 KB when
// every + marked its whole left side again).
func TestReadFactsLinear(t *testing.T) {
	src := "const x = " + strings.Repeat("a+", 100_000) + "'/';"
	models, prefixes, known := readFacts("x.jsx", []byte(src))
	if known || len(models) > 0 || len(prefixes) > 0 {
		t.Errorf("got %v %v known=%v, want not known", models, prefixes, known)
	}
}

// familyOracle is ModelFamily as the regexp it was first written with.
func familyOracle(model string) string {
	re := regexp.MustCompile(`(?i)-(v\d+|fp8|fp4|nvfp4|mxfp4|preview|dynamic|w4a8|int4)$`)
	f := strings.ToLower(path.Base(model))
	for {
		g := re.ReplaceAllString(f, "")
		if g == f {
			return f
		}
		f = g
	}
}

func TestModelFamilyMatchesRegexp(t *testing.T) {
	fixed := []string{"", "-", "a-", "-v", "-v1", "x-V12", "x-v1a", "x-v-1", "nvidia/Qwen3.5-397B-A17B-NVFP4-V2", "Qwen/Qwen3.5-397B-A17B-FP8",
		"deepseek-ai/DeepSeek-R1-0528-FP4-v2-preview", "a-FP8-fp4-Int4-W4A8-dynamic-Preview-mxfp4", "a/b/c-fp8", "m-fp8/", "x-fp88", "x-\u212a", "ſ-fp8", "İ-fp8", "x-int4-"}
	fixed = append(fixed, testutil.RandomTexts(3, testutil.Runes("-vV0189fpFPnNmMxXrReEiIwWdDyYaAcCt4/\u212aſİ."), 20000, 14)...)
	for _, m := range fixed {
		if got, want := ModelFamily(m), familyOracle(m); got != want {
			t.Errorf("ModelFamily(%q) = %q, the regexp gives %q", m, got, want)
		}
	}
}
