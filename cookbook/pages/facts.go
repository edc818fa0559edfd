package pages

import (
	"fmt"
	"maps"
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
	// a tagged template or a literal a string method rewrites, or writes
	// an organisation alone ("Qwen/"), or both a name a computed part
	// continues (or fills in whole: {{KEY}}, $VAR) and a word ending in
	// "/" at an end of a literal (identifiers may join it there) — literals
	// followed through the variables, properties and functions they flow
	// into (readFacts' first pass) — so a model id may be built at run
	// time. Such a file can show any model.
	Known bool
}

// hfWord is a whole Hugging Face model id ("org/name"); hfName its name;
// shellAssign a shell assignment word.
var (
	shellAssign = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	// computedPart is the engine's {{KEY}} or the shell's $VAR / ${VAR}
	computedPart = regexp.MustCompile(`\{\{\w+\}\}|\$\{?\w+\}?`)
	hfWord       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	hfName       = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
)

// computedParts is computedPart's FindAllStringIndex of w (nil without a
// "{" or "$", which each match starts with).
func computedParts(w string) [][]int {
	if !strings.ContainsAny(w, "{$") {
		return nil
	}
	return computedPart.FindAllStringIndex(w, -1)
}

// readFacts reads the model ids of one snippet source statically (see
// FileInfo.Models, Prefixes and Known). It runs none of the file's code.
func readFacts(name string, src []byte) (models, prefixes []string, known bool) {
	defer func() {
		if recover() != nil { // a library panicked: nothing is known
			models, prefixes, known = nil, nil, false
		}
	}()
	js, err := transformPlain(string(src), name)
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
		if strings.IndexByte(w, '/') >= 0 && hfWord.MatchString(w) && !seen[w] { // (an id holds a "/")
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
	// computedEnd: a word that ends in {{KEY}} or $VAR (a name the engine
	// or the shell may fill in whole, after a value ending in "/")
	computedEnd := false
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
	fragment := func(s string, openStart, openEnd, untagged, transformed, trimStart, trimEnd bool) {
		words := strings.Fields(s)
		if trimStart {
			s = strings.TrimLeft(s, " \t\n\r")
		}
		if trimEnd {
			s = strings.TrimRight(s, " \t\n\r")
		}
		startsWord := s != "" && !isSpace(s[0])
		endsWord := s != "" && !isSpace(s[len(s)-1])
		for i, w := range words {
			// the word a command parser sees: quotes removed, a line
			// continuation dropped (`Qwen/"Qwen3-8B"`, `Qwen/Qwen3-8B\`)
			w = shellWord(w)
			if !strings.Contains(w, "/") {
				if ends := computedParts(w); len(ends) > 0 {
					// {{KEY}} or $VAR, whose value may end in "/": what
					// follows the last one may start a name; a word that
					// ends in one may be a name entirely computed
					if after := strings.TrimRight(w[ends[len(ends)-1][1]:], "\"'`,;()[]{}"); after != "" {
						prefix(after)
					} else {
						computedEnd = true
					}
				}
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
				// a word that ends in "/" at an end of its literal, where
				// code the first pass does not follow may join it to a
				// name: an organisation alone ("Qwen/") leaves the models
				// unknown; any other ("/", a link) could put a "/" after
				// a name a computed part continues. Inside a literal
				// ("Weights / Precision") it joins nothing; a shell
				// assignment's value (HF_ORG=Qwen/) is joined wherever
				// $HF_ORG is: an end too.
				assign := shellAssign.MatchString(t)
				if boundary := (i == 0 && startsWord) || (i == len(words)-1 && endsWord) || assign; !boundary {
					break
				}
				org := strings.TrimSuffix(t, "/")
				if k := strings.LastIndexAny(org, "=:"); k >= 0 {
					org = org[k+1:] // --model-path=Qwen/, HF_ORG=Qwen/
				}
				if hfName.MatchString(org) {
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
	// First pass: which literals are parts of a composition (composed:
	// joined to computed text at both ends) and which a string method
	// rewrites (transformed) — directly, or through the variables and
	// object properties they are bound to (flow). Second pass: every
	// literal's words, with what the first pass found.
	fl := newFlow()
	var lits []ast.Expression // the string and template literals, in order
	walkAST(prg, func(n any) {
		switch n := n.(type) {
		case *ast.StringLiteral:
			lits = append(lits, n)
		case *ast.Binding:
			if id, ok := n.Target.(*ast.Identifier); ok && n.Initializer != nil {
				fl.bind(fl.names, id.Name.String(), n.Initializer)
			}
		case *ast.PropertyKeyed:
			if k := propName(n.Key); k != "" {
				fl.bind(fl.props, k, n.Value)
			}
		case *ast.PropertyShort:
			fl.bind(fl.props, n.Name.Name.String(), &n.Name)
		case *ast.ParameterList:
			for _, b := range n.List {
				if id, ok := b.Target.(*ast.Identifier); ok {
					fl.params[id.Name.String()] = true
				}
			}
		case *ast.ReturnStatement:
			if n.Argument != nil {
				fl.returns = append(fl.returns, n.Argument)
			}
		case *ast.ArrowFunctionLiteral:
			if b, ok := n.Body.(*ast.ExpressionBody); ok {
				fl.returns = append(fl.returns, b.Expression)
			}
		case *ast.TemplateLiteral:
			lits = append(lits, n)
			for _, e := range n.Expressions {
				fl.mark(e, useJoin) // ${e} is joined into the template
			}
		case *ast.BinaryExpression:
			if n.Operator == token.PLUS {
				fl.mark(n.Left, useJoin)
				fl.mark(n.Right, useJoin)
			}
		case *ast.AssignExpression:
			switch {
			case n.Operator == token.ADD_ASSIGN || n.Operator == token.PLUS:
				// goja's parser keeps `x += y` as Operator PLUS
				fl.mark(n.Left, useJoin)
				fl.mark(n.Right, useJoin)
			case n.Operator == token.ASSIGN:
				switch l := n.Left.(type) {
				case *ast.Identifier:
					fl.bind(fl.names, l.Name.String(), n.Right)
				case *ast.DotExpression:
					fl.bind(fl.props, l.Identifier.Name.String(), n.Right)
				}
			}
		case *ast.CallExpression:
			fl.args = append(fl.args, n.ArgumentList...)
			d, ok := n.Callee.(*ast.DotExpression)
			if !ok {
				break
			}
			switch d.Identifier.Name {
			case "replace", "replaceAll", "slice", "substring", "substr", "split", "at", "charAt",
				"padStart", "padEnd", "repeat", "normalize", "toWellFormed":
				// the receiver's words are rewritten
				fl.mark(d.Left, useRewrite)
			case "join", "concat":
				fl.mark(d.Left, useJoin)
			}
			switch d.Identifier.Name {
			case "join", "concat", "replace", "replaceAll", "padStart", "padEnd":
				for _, a := range n.ArgumentList {
					fl.mark(a, useJoin)
				}
			}
		}
	})
	fl.settle()
	for _, n := range lits {
		switch n := n.(type) {
		case *ast.TemplateLiteral:
			// a part meets a ${…} on each side it has one; a tag
			// function may join the parts with anything, and a template
			// that is a part of a composition meets what it is joined to
			// at its own start and end
			tagged, c := n.Tag != nil, fl.composed[n]
			last := len(n.Elements) - 1
			for i, el := range n.Elements {
				fragment(el.Parsed.String(), tagged || i > 0 || c, tagged || i < last || c, !tagged, fl.transformed[n], fl.trimmed[n] && i == 0, fl.trimmed[n] && i == last)
			}
		case *ast.StringLiteral:
			c := fl.composed[n]
			fragment(n.Value.String(), c, c, true, fl.transformed[n], fl.trimmed[n], fl.trimmed[n])
		}
	}
	slices.Sort(models)
	slices.Sort(prefixes)
	if loose && (continued || computedEnd) {
		known = false
	}
	if !known {
		prefixes = nil
	}
	return models, prefixes, known
}

// flow follows string literals into the expressions that compose or
// rewrite them, through variables and object properties by name (scopes
// ignored: every binding of a name counts — more literals marked, never
// fewer). readFacts' first pass fills it.
type flow struct {
	composed, transformed map[ast.Node]bool
	// trimmed: literals whose ends trim() takes off (their end words
	// reach the string's ends); marked: what mark has seen
	trimmed map[ast.Node]bool
	marked  map[markKey]bool
	// Functions, without resolving which is called: params are every
	// parameter's name, args every call's arguments, returns every
	// returned expression; a parameter joined into a composition makes
	// every argument one, a call's result joined (resultUse) every
	// returned value (a rewrite is not carried this way: it would take
	// every literal any function gets or gives as rewritten).
	params    map[string]bool
	args      []ast.Expression
	returns   []ast.Expression
	resultUse map[int]bool
	// names and props: what each variable and property name is bound to
	names, props map[string][]ast.Expression
	// the names and props used in a composition (false) or rewritten (true)
	nameUse, propUse map[string]map[int]bool
}

func newFlow() *flow {
	return &flow{composed: map[ast.Node]bool{}, transformed: map[ast.Node]bool{}, trimmed: map[ast.Node]bool{}, marked: map[markKey]bool{},
		params: map[string]bool{}, resultUse: map[int]bool{},
		names: map[string][]ast.Expression{}, props: map[string][]ast.Expression{},
		nameUse: map[string]map[int]bool{}, propUse: map[string]map[int]bool{}}
}

// bind records that name (of a variable, or of a property) is bound to e.
func (fl *flow) bind(m map[string][]ast.Expression, name string, e ast.Expression) {
	m[name] = append(m[name], e)
}

// How a value is used: joined into a composition, rewritten by a string
// method, or trimmed and then joined (the words at its ends, after the
// whitespace trim takes off, meet the composition).
const (
	useJoin = iota
	useRewrite
	useTrimJoin
)

// mark records how e's value is used (useJoin, useRewrite, useTrimJoin):
// a literal directly; a variable or property by name, settled once every
// binding is known; the branches of a condition or a logical operator, the
// elements of an array, a spread, the receiver of trim / toString and the
// argument of String(…). Each expression is marked once per use: the work
// stays linear in the source.
func (fl *flow) mark(e ast.Expression, how int) {
	if e == nil {
		return
	}
	k := markKey{e, how}
	if fl.marked[k] {
		return
	}
	fl.marked[k] = true
	switch e := e.(type) {
	case *ast.StringLiteral, *ast.TemplateLiteral:
		switch how {
		case useRewrite:
			fl.transformed[e] = true
		case useTrimJoin:
			fl.trimmed[e] = true
			fl.composed[e] = true
		default:
			fl.composed[e] = true
		}
	case *ast.Identifier:
		use(fl.nameUse, e.Name.String(), how)
	case *ast.DotExpression:
		use(fl.propUse, e.Identifier.Name.String(), how)
	case *ast.BracketExpression:
		fl.mark(e.Left, how) // an element of an array or object bound by name
	case *ast.ConditionalExpression:
		fl.mark(e.Consequent, how)
		fl.mark(e.Alternate, how)
	case *ast.BinaryExpression:
		// (the operands of a + are parts of a composition already: the
		// first pass marks them at the + itself)
		if e.Operator == token.LOGICAL_OR || e.Operator == token.LOGICAL_AND || e.Operator == token.COALESCE ||
			e.Operator == token.PLUS && how != useJoin {
			fl.mark(e.Left, how)
			fl.mark(e.Right, how)
		}
	case *ast.CallExpression:
		if d, ok := e.Callee.(*ast.DotExpression); ok {
			switch d.Identifier.Name {
			case "trim", "trimStart", "trimEnd":
				if how == useRewrite {
					fl.mark(d.Left, useRewrite)
				} else {
					fl.mark(d.Left, useTrimJoin)
				}
			case "toString", "valueOf", "toLowerCase", "toUpperCase":
				fl.mark(d.Left, how)
			}
		}
		if id, ok := e.Callee.(*ast.Identifier); ok && id.Name == "String" {
			for _, a := range e.ArgumentList {
				fl.mark(a, how)
			}
		}
		fl.resultUse[how] = true // what a function of the file returns
	case *ast.ArrayLiteral:
		for _, v := range e.Value {
			fl.mark(v, how)
		}
	case *ast.SpreadElement:
		fl.mark(e.Expression, how)
	case *ast.SequenceExpression:
		if len(e.Sequence) > 0 {
			fl.mark(e.Sequence[len(e.Sequence)-1], how)
		}
	case *ast.ObjectLiteral:
		for _, p := range e.Value {
			if pk, ok := p.(*ast.PropertyKeyed); ok {
				fl.mark(pk.Value, how)
			}
		}
	}
}

// markKey is an expression marked for one use.
type markKey struct {
	e   ast.Expression
	how int
}

// use records a use of name.
func use(m map[string]map[int]bool, name string, how int) {
	if m[name] == nil {
		m[name] = map[int]bool{}
	}
	m[name][how] = true
}

// settle marks what the names and properties used are bound to, until
// nothing new is marked (a variable bound to another carries its use on).
func (fl *flow) settle() {
	done := map[string]bool{}
	for {
		progress := false
		for _, k := range []struct {
			use   map[string]map[int]bool
			binds map[string][]ast.Expression
			tag   string
		}{{fl.nameUse, fl.names, "n"}, {fl.propUse, fl.props, "p"}} {
			for _, name := range slices.Sorted(maps.Keys(k.use)) {
				for how := useJoin; how <= useTrimJoin; how++ {
					key := fmt.Sprint(k.tag, how, name)
					if !k.use[name][how] || done[key] {
						continue
					}
					done[key] = true
					progress = true
					for _, e := range k.binds[name] {
						fl.mark(e, how)
					}
				}
			}
		}
		for _, how := range []int{useJoin, useTrimJoin} {
			// (not a rewrite: every literal passed to or returned by any
			// function would be taken as rewritten)
			if fl.resultUse[how] && !done[fmt.Sprint("r", how)] {
				done[fmt.Sprint("r", how)] = true
				progress = true
				for _, e := range fl.returns {
					fl.mark(e, how)
				}
			}
			if done[fmt.Sprint("a", how)] {
				continue
			}
			for p := range fl.params {
				if fl.nameUse[p][how] {
					done[fmt.Sprint("a", how)] = true
					progress = true
					for _, e := range fl.args {
						fl.mark(e, how)
					}
					break
				}
			}
		}
		if !progress {
			return
		}
	}
}

// propName is the name of an object literal's key: an identifier or a
// string ("" for a computed key).
func propName(k ast.Expression) string {
	switch k := k.(type) {
	case *ast.StringLiteral:
		return k.Value.String()
	case *ast.Identifier:
		return k.Name.String()
	}
	return ""
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

// ModelFamily is the checkpoint without its organisation and its
// quantization / revision suffixes, lower case
// ("nvidia/Qwen3.5-397B-A17B-NVFP4-V2" and "Qwen/Qwen3.5-397B-A17B-FP8" are
// "qwen3.5-397b-a17b"): the checkpoints of one model.
//
// The suffixes stripped, again while one ends the name, are familySuffix:
// "-" and a word of familyTokens or v\d+ (the regexp
// `(?i)-(v\d+|fp8|fp4|nvfp4|mxfp4|preview|dynamic|w4a8|int4)$` on the
// lower-case name; none of its letters has a case fold outside ASCII).
func ModelFamily(model string) string {
	f := strings.ToLower(path.Base(model))
	for {
		k := strings.LastIndexByte(f, '-')
		if k < 0 || !isToken(f[k+1:]) {
			return f
		}
		f = f[:k]
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
// l (the familySuffix of ModelFamily: "-" and a token such as "fp8" running to the end: l's
// last "-" and what follows it the start of a token, here ""), and then
// whole tokens before it ("-fp8" in "qwen3.5-fp8-v"): the family is at
// least shortest, l cut at the earliest such "-" ("qwen3.5"). So: l
// starts with want, or want with shortest (over-inclusive, as MayShow).
func prefixMayShow(p, want string) bool {
	l := strings.ToLower(p)
	return strings.HasPrefix(l, want) || strings.HasPrefix(want, shortestFamily(l))
}

// familyTokens are the words of ModelFamily's familySuffix but v\d+.
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

// isTokenStart reports whether s is the start of a familySuffix word
// (ModelFamily).
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

// isToken reports whether s is a whole familySuffix word (ModelFamily).
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
