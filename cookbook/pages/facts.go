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
	// When Known, every model id the file's code can show is one of them.
	Models []string
	// Known is false when the model ids cannot be read statically: the
	// file does not parse, or it composes a string whose part holding a
	// "/" meets a computed part (a template literal's `${…}`, a `+`
	// operand, a join/concat argument) — "moonshotai/" + name, `${org}/${m}`,
	// [org, name].join("/") — so a model id may be built at run time.
	// Such a file can show any model.
	Known bool
}

// hfWord is a whole Hugging Face model id ("org/name").
var hfWord = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// readFacts reads the model ids of one snippet source statically (see
// FileInfo.Models and Known). It runs none of the file's code.
func readFacts(name string, src []byte) (models []string, known bool) {
	defer func() {
		if recover() != nil { // a library panicked: nothing is known
			models, known = nil, false
		}
	}()
	js, err := transform(string(src), name, true)
	if err != nil {
		return nil, false
	}
	prg, err := goja.Parse(name, js, parser.WithSourceMapLoader(denySourceMap))
	if err != nil {
		return nil, false
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
	// fragment records the words of a string part; open says the part's
	// start / end meets a computed part, where a word holding "/" may
	// continue into (or from) a value only known at run time.
	fragment := func(s string, openStart, openEnd bool) {
		words := strings.Fields(s)
		startsWord := s != "" && !isSpace(s[0])
		endsWord := s != "" && !isSpace(s[len(s)-1])
		for i, w := range words {
			edge := (i == 0 && openStart && startsWord) || (i == len(words)-1 && openEnd && endsWord)
			if edge && strings.Contains(w, "/") {
				known = false
				continue
			}
			add(w)
		}
	}
	composed := map[ast.Node]bool{} // string literals that are parts of a composition
	walkAST(prg, func(n any) {
		switch n := n.(type) {
		case *ast.TemplateLiteral:
			// a part meets a ${…} on each side it has one; a tag
			// function may join the parts with anything
			tagged := n.Tag != nil
			for i, el := range n.Elements {
				fragment(el.Parsed.String(), tagged || i > 0, tagged || i < len(n.Elements)-1)
			}
		case *ast.BinaryExpression:
			if n.Operator == token.PLUS {
				for _, side := range []ast.Expression{n.Left, n.Right} {
					if sl, ok := side.(*ast.StringLiteral); ok {
						composed[sl] = true
					}
				}
			}
		case *ast.AssignExpression:
			if n.Operator == token.ADD_ASSIGN {
				if sl, ok := n.Right.(*ast.StringLiteral); ok {
					composed[sl] = true
				}
			}
		case *ast.CallExpression:
			if d, ok := n.Callee.(*ast.DotExpression); ok {
				switch d.Identifier.Name {
				case "join", "concat", "replace", "replaceAll", "padStart", "padEnd":
					for _, a := range n.ArgumentList {
						if sl, ok := a.(*ast.StringLiteral); ok {
							composed[sl] = true
						}
					}
					if al, ok := d.Left.(*ast.ArrayLiteral); ok && d.Identifier.Name == "join" {
						for _, e := range al.Value {
							if sl, ok := e.(*ast.StringLiteral); ok {
								composed[sl] = true
							}
						}
					}
				}
			}
		case *ast.StringLiteral:
			// parents are visited first: composition is known here
			c := composed[n]
			fragment(n.Value.String(), c, c)
		}
	})
	slices.Sort(models)
	return models, known
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
	return false
}
