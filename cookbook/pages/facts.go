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
	// loose: a word with a "/" no name follows, which identifiers could
	// join after a prefix a computed part continues (continued:
	// `Qwen/Qwen3.5-${x}`, x = sep + y, sep = "/"): then that prefix does
	// not bound the name, and the file's models are not known
	loose, continued := false, false
	// fragment records the words of a string part; open says the part's
	// start / end meets a computed part, where a word holding "/" may
	// continue into (or from) a value only known at run time. Such a word
	// still tells the family of the id (ModelFamily reads the name, after
	// the last "/"): when the text after its last "/" is a name, the id's
	// name starts with it — a prefix (what comes before is the
	// organisation, computed or not, and a computed part after it
	// continues the name). untagged is false for a tagged template, whose
	// tag may make anything of its parts.
	fragment := func(s string, openStart, openEnd, untagged bool) {
		words := strings.Fields(s)
		startsWord := s != "" && !isSpace(s[0])
		endsWord := s != "" && !isSpace(s[len(s)-1])
		for i, w := range words {
			atStart := i == 0 && openStart && startsWord
			atEnd := i == len(words)-1 && openEnd && endsWord
			if (atStart || atEnd) && strings.Contains(w, "/") {
				name := w[strings.LastIndexByte(w, '/')+1:]
				if !atEnd {
					name = strings.TrimRight(name, "\"'`,;()[]{}")
				}
				if untagged && hfName.MatchString(name) {
					continued = continued || atEnd
					if !seenPrefix[name] {
						seenPrefix[name] = true
						prefixes = append(prefixes, name)
					}
					continue
				}
				known = false
				continue
			}
			if t := strings.Trim(w, "\"'`,;()[]{}"); strings.Contains(t, "/") && !hfWord.MatchString(t) {
				// a whole word that is part of an id identifiers may
				// join at run time (const org = "Qwen/"; org + name): an
				// organisation alone leaves the models unknown; a word
				// whose last "/" a name follows ("/Qwen3-8B") gives that
				// name as a prefix; any other ("/", a path or link ending
				// in "/") may put a "/" after a prefix's name (loose)
				if org, ok := strings.CutSuffix(t, "/"); ok && hfName.MatchString(org) {
					known = false
					continue
				}
				if name := t[strings.LastIndexByte(t, '/')+1:]; hfName.MatchString(name) {
					if !seenPrefix[name] {
						seenPrefix[name] = true
						prefixes = append(prefixes, name)
					}
					continue
				}
				loose = true
			}
			add(w)
		}
	}
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
				fragment(el.Parsed.String(), tagged || i > 0 || c, tagged || i < last || c, !tagged)
			}
		case *ast.BinaryExpression:
			if n.Operator == token.PLUS {
				for _, side := range []ast.Expression{n.Left, n.Right} {
					markComposed(composed, side)
				}
			}
		case *ast.AssignExpression:
			if n.Operator == token.ADD_ASSIGN {
				markComposed(composed, n.Right)
			}
		case *ast.CallExpression:
			if d, ok := n.Callee.(*ast.DotExpression); ok {
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
			fragment(n.Value.String(), c, c, true)
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
