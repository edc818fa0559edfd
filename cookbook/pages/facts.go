package pages

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"
)

// FileInfo is what is known of a snippet file before any of its code runs:
// its place, the pages importing it, and the model ids it can show, read
// statically (Models) — the cheap facts a run uses to choose which files to
// run (Options.Files).
type FileInfo struct {
	// Rel is the file, "docs/src/snippets/…".
	Rel string
	// Pages are the cookbook pages importing it ("docs/cookbook/….mdx"),
	// sorted.
	Pages []string
	// Models are the Hugging Face ids ("org/name") written whole in the
	// file's source (string literals, and whole whitespace-separated words
	// of literals and template parts), sorted, deduplicated, as written.
	// When Known, every model id the file's code can show is one of them
	// or has a name one of Prefixes starts.
	Models []string
	// Prefixes are the starts of the names (the part after the last "/")
	// of the model ids the file's code may compose at run time: the text
	// after the last "/" of a word that meets a computed part ("Qwen3.5-"
	// of `Qwen/Qwen3.5-${size}`, "DeepSeek-Math-V2" of
	// `${org}/DeepSeek-Math-V2`) or of a word with a "/" that is no whole
	// id ("Qwen3-8B" of '/Qwen3-8B', "completions" of a link), sorted,
	// deduplicated. When Known, every model id the file's code
	// can show is one of Models or has a name starting with one of
	// Prefixes (ModelFamily, which MayShow compares, reads the name only).
	Prefixes []string
	// Known is false when the model ids cannot be read statically: the
	// file does not parse, or it composes a string whose part holding a
	// "/" meets a computed part (a template literal's `${…}`, a `+`
	// operand, a join/concat argument) with no name after its "/" —
	// "moonshotai/" + name, `${org}/${m}`, [org, name].join("/") — or in
	// a tagged template, or writes an organisation alone ("Qwen/"), or
	// both a prefix a computed part continues and a word with a "/" no
	// name follows ("A / B", a link ending in "/": identifiers may join it
	// to the prefix), so a model id may be built at run time. Such a
	// file can show any model.
	Known bool
}

// hfWord is a whole Hugging Face model id ("org/name"); hfName its name.
var (
	hfWord = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	hfName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
)

// readFacts reads the model ids of one snippet source statically (see
// FileInfo.Models, Prefixes and Known). It runs none of the file's code.
func readFacts(name string, src []byte) (models, prefixes []string, known bool) {
	defer func() {
		if recover() != nil { // a library panicked: nothing is known
			models, prefixes, known = nil, nil, false
		}
	}()
	js, err := transform(string(src), name, true)
	if err != nil {
		return nil, nil, false
	}
	prg, err := goja.Parse(name, js, parser.WithSourceMapLoader(denySourceMap))
	if err != nil {
		return nil, nil, false
	}
	known = true
	seen := map[string]bool{}
	add := func(w string) {
		w = strings.Trim(w, "\"'`,;()[]{}")
		if hfWord.MatchString(w) && !seen[w] {
			seen[w] = true
			models = append(models, w)
		}
	}
	seenPrefix := map[string]bool{}
	prefix := func(name string) {
		if !seenPrefix[name] {
			seenPrefix[name] = true
			prefixes = append(prefixes, name)
		}
	}
	// loose: a word with a "/" no name follows, which identifiers could
	// join after a prefix a computed part of the code continues
	// (continued: `Qwen/Qwen3.5-${x}`, x = sep + y, sep = "/"): then that
	// prefix does not bound the name, and the file's models are not
	// known. (A {{KEY}} or $VAR after a name is filled from the file's
	// own literals — the placeholders' defaults, the command's
	// assignments — whose words are read too.)
	loose, continued := false, false
	// fragment records the words of a string part; open says the part's
	// start / end meets a computed part, where a word holding "/" may
	// continue into (or from) a value only known at run time. A word
	// holding "/" still tells the family of the id (ModelFamily reads the
	// name, after the last "/"): a whole id is a model; otherwise the text
	// after its last "/" up to a computed part (${…}, the engine's {{KEY}},
	// the shell's $VAR) starts the name — a prefix, whatever the
	// organisation, link or path before it; with nothing there the name is
	// computed and the models are not known. untagged is false for a
	// tagged template, whose tag may make anything of its parts;
	// transformed is true for a literal a string method rewrites.
	fragment := func(s string, openStart, openEnd, untagged, transformed bool) {
		words := strings.Fields(s)
		startsWord := s != "" && !isSpace(s[0])
		endsWord := s != "" && !isSpace(s[len(s)-1])
		for i, w := range words {
			// the word a command parser sees: quotes removed, a line
			// continuation dropped (`Qwen/"Qwen3-8B"`, `Qwen/Qwen3-8B\`)
			w = shellWord(w)
			if !strings.Contains(w, "/") {
				add(w)
				continue
			}
			if transformed || !untagged {
				// a literal a string method rewrites (replace, slice…)
				// or a tag makes anything of: its ids are not known
				known = false
				continue
			}
			atStart := i == 0 && openStart && startsWord
			atEnd := i == len(words)-1 && openEnd && endsWord
			t := w
			if !atStart {
				t = strings.TrimLeft(t, "\"'`,;()[]{}")
			}
			if !atEnd {
				t = strings.TrimRight(t, "\"'`,;()[]{}")
			}
			// the name: what follows the last "/"; the engine's {{KEY}}
			// and the shell's $VAR are computed parts that continue it
			tail := t[strings.LastIndexByte(t, '/')+1:]
			cont := atEnd
			if k := strings.Index(tail, "{{"); k >= 0 {
				tail, cont = tail[:k], true
			}
			if k := strings.IndexByte(tail, '$'); k >= 0 {
				tail, cont = tail[:k], true
			}
			switch {
			case tail == "" && (cont || atStart):
				// `Qwen/${name}`, `${org}/${name}`: the name is computed
				known = false
			case tail == "":
				// a word that ends in "/", which identifiers may join to
				// a name at run time: an organisation alone ("Qwen/")
				// leaves the models unknown; any other ("/", a link)
				// could put a "/" after a name a computed part continues
				if org := strings.TrimSuffix(t, "/"); hfName.MatchString(org) {
					known = false
				} else {
					loose = true
				}
			case !cont && !atStart && hfWord.MatchString(t):
				add(t) // a whole id
			default:
				// the start of a name: the id's family starts with it
				// (ModelFamily reads the name only), whatever the
				// organisation, link or path before it
				continued = continued || atEnd
				prefix(tail)
			}
		}
	}
	// transformed: literals a string method is called on
	transformed := map[ast.Node]bool{}
	composed := map[ast.Node]bool{} // string literals that are parts of a composition
	walkAST(prg, func(n any) {
		switch n := n.(type) {
		case *ast.TemplateLiteral:
			// a part meets a ${…} on each side it has one; a tag
			// function may join the parts with anything, and a template
			// that is a part of a composition meets what it is joined to
			// at its own start and end
			tagged, c := n.Tag != nil, composed[n]
			last := len(n.Elements) - 1
			for i, el := range n.Elements {
				fragment(el.Parsed.String(), tagged || i > 0 || c, tagged || i < last || c, !tagged, transformed[n])
			}
		case *ast.BinaryExpression:
			if n.Operator == token.PLUS {
				for _, side := range []ast.Expression{n.Left, n.Right} {
					markComposed(composed, side)
				}
			}
		case *ast.AssignExpression:
			// goja's parser keeps `x += y` as Operator PLUS
			if n.Operator == token.ADD_ASSIGN || n.Operator == token.PLUS {
				markComposed(composed, n.Right)
			}
		case *ast.CallExpression:
			if d, ok := n.Callee.(*ast.DotExpression); ok {
				switch d.Identifier.Name {
				case "replace", "replaceAll", "slice", "substring", "substr", "split", "at", "charAt",
					"padStart", "padEnd", "repeat", "concat", "normalize", "toWellFormed":
					// the receiver literal's words are rewritten
					switch d.Left.(type) {
					case *ast.StringLiteral, *ast.TemplateLiteral:
						transformed[d.Left] = true
					}
				}
				switch d.Identifier.Name {
				case "join", "concat", "replace", "replaceAll", "padStart", "padEnd":
					for _, a := range n.ArgumentList {
						markComposed(composed, a)
					}
					if al, ok := d.Left.(*ast.ArrayLiteral); ok && d.Identifier.Name == "join" {
						for _, e := range al.Value {
							markComposed(composed, e)
						}
					}
				}
			}
		case *ast.StringLiteral:
			// parents are visited first: composition is known here
			c := composed[n]
			fragment(n.Value.String(), c, c, true, transformed[n])
		}
	})
	slices.Sort(models)
	slices.Sort(prefixes)
	if loose && continued {
		known = false
	}
	if !known {
		prefixes = nil
	}
	return models, prefixes, known
}

// markComposed marks a string or template literal that is a part of a
// composition (an operand of +, the right of +=, an argument of join,
// concat, replace, pad…, an element of a joined array literal).
func markComposed(composed map[ast.Node]bool, e ast.Expression) {
	switch e.(type) {
	case *ast.StringLiteral, *ast.TemplateLiteral:
		composed[e] = true
	}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// shellWord is w as the shell reads it, for ids: quotes removed and a
// trailing line continuation dropped.
func shellWord(w string) string {
	w = strings.TrimSuffix(w, "\\")
	if strings.ContainsAny(w, "\"'") {
		w = strings.NewReplacer(`"`, "", `'`, "").Replace(w)
	}
	return w
}

// familySuffix matches the checkpoint-variant suffixes ModelFamily strips.
var familySuffix = regexp.MustCompile(`(?i)-(v\d+|fp8|fp4|nvfp4|mxfp4|preview|dynamic|w4a8|int4)$`)

// ModelFamily is the checkpoint without its organisation and its
// quantization / revision suffixes, lower case
// ("nvidia/Qwen3.5-397B-A17B-NVFP4-V2" and "Qwen/Qwen3.5-397B-A17B-FP8" are
// "qwen3.5-397b-a17b"): the checkpoints of one model.
func ModelFamily(model string) string {
	f := strings.ToLower(path.Base(model))
	for {
		g := familySuffix.ReplaceAllString(f, "")
		if g == f {
			return f
		}
		f = g
	}
}

// MayShow reports whether the file can show model or a checkpoint of its
// family (ModelFamily): always when its models are not Known, else when
// the family of one of its Models and model's family are one a prefix of
// the other — a literal id the code extends at run time
// ("google/gemma-4-E2B-it" + "-qat-q4_0-unquantized", a suffix holding no
// "/", which FileInfo.Known does not catch) stays related to what it
// becomes. Over-inclusive by design: a file it names runs, one it does not
// name cannot show the model.
func (fi FileInfo) MayShow(model string) bool {
	if !fi.Known {
		return true
	}
	want := ModelFamily(model)
	for _, m := range fi.Models {
		f := ModelFamily(m)
		if strings.HasPrefix(want, f) || strings.HasPrefix(f, want) {
			return true
		}
	}
	for _, p := range fi.Prefixes {
		if prefixMayShow(p, want) {
			return true
		}
	}
	return false
}

// prefixMayShow reports whether an id whose name starts with p
// ("Qwen3.5-") can have a family (ModelFamily) one a prefix of the other
// with want, a family. Such an id's family starts with l, p in lower case
// ("qwen3.5-"), unless ModelFamily cuts a suffix that begins inside
// l (familySuffix: "-" and a token such as "fp8" running to the end: l's
// last "-" and what follows it the start of a token, here ""), and then
// whole tokens before it ("-fp8" in "qwen3.5-fp8-v"): the family is at
// least shortest, l cut at the earliest such "-" ("qwen3.5"). So: l
// starts with want, or want with shortest (over-inclusive, as MayShow).
func prefixMayShow(p, want string) bool {
	l := strings.ToLower(p)
	return strings.HasPrefix(l, want) || strings.HasPrefix(want, shortestFamily(l))
}

// familyTokens are familySuffix's words but v\d+.
var familyTokens = []string{"fp8", "fp4", "nvfp4", "mxfp4", "preview", "dynamic", "w4a8", "int4"}

// shortestFamily is the shortest start of l ModelFamily can leave of an
// id whose lower-case name starts with l (prefixMayShow).
func shortestFamily(l string) string {
	k := strings.LastIndexByte(l, '-')
	if k < 0 || !isTokenStart(l[k+1:]) {
		return l
	}
	for {
		j := strings.LastIndexByte(l[:k], '-')
		if j < 0 || !isToken(l[j+1:k]) {
			return l[:k]
		}
		k = j
	}
}

// isTokenStart reports whether s is the start of a familySuffix word.
func isTokenStart(s string) bool {
	if s == "" || s[0] == 'v' && allDigits(s[1:]) {
		return true
	}
	for _, t := range familyTokens {
		if strings.HasPrefix(t, s) {
			return true
		}
	}
	return false
}

// isToken reports whether s is a whole familySuffix word.
func isToken(s string) bool {
	return len(s) > 1 && s[0] == 'v' && allDigits(s[1:]) || slices.Contains(familyTokens, s)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
