// Package prose reads the settings the prose of a deployment page states
// beside its commands — the SGLang cookbook's hand-written pages
// (sgl-project/sglang docs/cookbook/**.mdx) and the prose of a vLLM model
// YAML recipe (vllm-project/recipes models/<org>/<repo>.yaml: its `guide:`
// Markdown and variants.<v>.description) — as documented alternates of the
// page's commands (issue 22, item 5). It is the rule of the vLLM Markdown
// guides' prose deltas (recipes.ProseDelta), with the same strictness,
// extended to sentences that are not next to a command and that name the
// hardware / variant they are for.
//
// Accepted shapes (Kind), each for the hardware / variant its sentence,
// its list item or the items and headings enclosing it name (Scope):
//
//   - a parallel size (Size): "**MI355X (288GB)** runs with tp=2",
//     "use tp=4", "Use `--tp 4` on GB200" — "TP=N", "tp=N", "TP N",
//     "tensor parallel size N", or a parallel flag with its value in code;
//     a qualifier about concurrency ("for low concurrency") is accepted and
//     kept (Qualifier), one about sequence length only with a value ("for
//     128K context", "at 1M");
//   - a lower bound (AtLeast): "the MXFP8 variant runs from TP=4", "at
//     least TP=4", "TP=4 or more" — it admits N (and the larger sizes the
//     selection space offers, which are selections already);
//   - settings to add (Add): "Add `--kv-cache-dtype fp8` to any command",
//     "**H100 FP8:** Add `--enable-symm-mem`" — every flag and NAME=value
//     written in code spans of the clause, one alternate per statement;
//     "any command", "every variant", "all commands" (Scope.All) applies to
//     every selection.
//
// A sentence is split into clauses — the text outside parentheses and dash
// asides, and each parenthetical — and a clause holding a setting must
// hold its cue ("run(s) with/at/on", "use", "set", "add", "pass", "switch
// to", …; "run(s) from", "at least", "or more" for a bound). Rejected (a
// Finding with the reason, no Statement): a negation or failure word
// ("not", "avoid", "fails", "OOM", …), a condition anywhere in the sentence
// ("if you see OOM", "when …", "unless", "only", "in case"), a hedge ("can",
// "may", "might", "could", "optionally"), a qualifier other than concurrency
// or a sequence length with a value ("for long context", "for lower
// latency", "for chat completion tasks", "under multi-GPU settings"), a
// clause with no cue ("requires", "needs", "fits", "supports"), several
// parallel sizes in one clause, a range ("TP=1~2", "tp=2 / 4"), a
// placeholder value ("<N>", "$TP") and a flag without its value when one
// is needed ("add `--tp`"). Whether a statement names the hardware /
// variant it needs (a page with several) is decided by the caller, which
// knows the page's selections (see Scope).
//
// Read never panics on input and bounds the text it parses (MaxSize).
package prose

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// MaxSize is the largest text Read parses: 2 MiB, the bound of the vLLM
// guides' Markdown (recipes.MaxMarkdownSize); the largest cookbook page is
// about 100 KiB.
const MaxSize = 2 << 20

// Kind is the shape of a Statement.
type Kind string

const (
	// Size states the tensor-parallel size (Statement.TP).
	Size Kind = "size"
	// AtLeast states the smallest tensor-parallel size (Statement.TP).
	AtLeast Kind = "at-least"
	// Add states settings to add to a command (Statement.Flags, Env).
	Add Kind = "add"
)

// Flag is one flag a statement adds, as written in its code span.
type Flag struct {
	Name  string // "--kv-cache-dtype", "--tp" (as written, "-" prefix kept)
	Value string // "fp8"; "" for a bare flag
}

// Env is one NAME=value a statement sets.
type Env struct{ Name, Value string }

// Scope is what a statement is for: the names of its clause, else of its
// sentence, its paragraph (a list item's whole text), the list items
// enclosing it and the headings above it, the innermost that names the
// dimension winning (a child "MI355X" over its parent's "B200/B300 …
// MI355X").
type Scope struct {
	// All: the statement says it is for every command ("to any command",
	// "every variant", "all commands").
	All bool
	// Hardware lists the hardware ids named (the caller's hardware
	// function; e.g. mi355x, b200), in order, without duplicates.
	Hardware []string
	// Vendors lists "amd" / "nvidia" when named ("AMD GPUs", "NVIDIA").
	Vendors []string
	// Precisions lists the precision words named, lower case: bf16, fp16,
	// fp8, fp4, nvfp4, mxfp4, mxfp8, int4, int8, w4a8, w4a16.
	Precisions []string
	// Checkpoints lists the Hugging Face ids named (org/name); Sizes the
	// model sizes named ("397b", "35b-a3b", "405b"), lower case.
	Checkpoints []string
	Sizes       []string
	// HardwareFrom, VariantFrom say where each was read: "clause",
	// "sentence", "paragraph" (its bold label and label-only sentences),
	// "item" (an enclosing list item), "heading" or "context"
	// (Options.Context); "" when nothing names it.
	HardwareFrom, VariantFrom string
}

// NamesVariant reports whether the scope names a precision, checkpoint or
// model size.
func (s Scope) NamesVariant() bool {
	return len(s.Precisions)+len(s.Checkpoints)+len(s.Sizes) > 0
}

// NamesModel reports whether the scope names a checkpoint or model size.
func (s Scope) NamesModel() bool { return len(s.Checkpoints)+len(s.Sizes) > 0 }

// Statement is one accepted setting the prose states.
type Statement struct {
	Kind Kind
	// TP is the tensor-parallel size (Size) or its lower bound (AtLeast).
	TP int
	// Flags and Env are the settings of an Add statement, in sentence order
	// (a Size statement written as a flag, "Use `--tp 4 --ep 4`", is Add).
	Flags []Flag
	Env   []Env
	Scope Scope
	// Qualifier is the concurrency / sequence-length qualifier of the
	// clause, as written ("for low concurrency"); "" when none.
	Qualifier string
	// File and Line place the sentence (Line: where it starts, 1-based);
	// Sentence is its text, inline markup removed, spaces collapsed;
	// Clause the clause holding the setting.
	File     string
	Line     int
	Sentence string
	Clause   string
	// NextToCode lists the fenced code blocks right before or after the
	// paragraph (nothing but blank lines between): a vLLM guide's launch
	// block takes such a sentence as its own delta (recipes.ProseDelta).
	NextToCode []string
}

// Cite is "file:line: \"sentence\"" (with the qualifier when there is one).
func (s *Statement) Cite() string {
	c := fmt.Sprintf("%s:%d %s", s.File, s.Line, strconv.Quote(s.Sentence))
	if s.Qualifier != "" {
		c += " (qualifier " + strconv.Quote(s.Qualifier) + ", taken at every concurrency)"
	}
	return c
}

// Summary is the statement's setting in words: "tp=4", "tp>=4", "add
// --kv-cache-dtype fp8".
func (s *Statement) Summary() string {
	switch s.Kind {
	case Size:
		return "tp=" + strconv.Itoa(s.TP)
	case AtLeast:
		return "tp>=" + strconv.Itoa(s.TP)
	}
	var parts []string
	for _, e := range s.Env {
		parts = append(parts, e.Name+"="+e.Value)
	}
	for _, f := range s.Flags {
		parts = append(parts, strings.TrimSpace(f.Name+" "+f.Value))
	}
	return "add " + strings.Join(parts, " ")
}

// Finding is one clause with a setting shape, accepted or not: the list a
// reviewer checks the rule against.
type Finding struct {
	File     string
	Line     int
	Sentence string
	Clause   string
	Shape    string // size | at-least | add | "" (no shape read)
	Accepted bool
	Reason   string // why not (Accepted false)
}

// Options are the caller's vocabularies.
type Options struct {
	// Hardware maps text to the hardware ids it names (required).
	Hardware func(text string) []string
	// Context are texts enclosing the whole input, outermost last, read
	// like headings above it (a variant's description: "variant mxfp8
	// mxfp8 MiniMaxAI/MiniMax-M3-MXFP8").
	Context []string
}

// Read walks the Markdown src of file (its first line is line firstLine of
// file) and returns the statements of its prose and a Finding for every
// clause that has a setting shape. Text over MaxSize is refused (an error
// naming file:firstLine); a parser failure is an error, never a panic.
func Read(file string, src []byte, firstLine int, opt Options) (stmts []Statement, found []Finding, err error) {
	defer func() {
		if r := recover(); r != nil {
			stmts, found, err = nil, nil, fmt.Errorf("%s:%d:1: prose: markdown parser failure: %v", file, firstLine, r)
		}
	}()
	if len(src) > MaxSize {
		return nil, nil, fmt.Errorf("%s:%d:1: prose: text is %d bytes, over the %d-byte limit", file, firstLine, len(src), MaxSize)
	}
	if opt.Hardware == nil {
		opt.Hardware = func(string) []string { return nil }
	}
	w := &walker{file: file, src: src, base: firstLine, opt: opt}
	w.starts = append(w.starts, 0)
	for i, c := range src {
		if c == '\n' {
			w.starts = append(w.starts, i+1)
		}
	}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	doc := md.Parser().Parse(text.NewReader(src))
	var headings [6]string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			lvl := min(max(n.Level, 1), 6)
			headings[lvl-1] = w.rawText(n.Lines())
			for i := lvl; i < 6; i++ {
				headings[i] = ""
			}
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock:
			var hs []string
			for _, h := range headings {
				if h != "" {
					hs = append(hs, h)
				}
			}
			w.paragraph(n, hs)
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return w.stmts, w.found, nil
}

type walker struct {
	file   string
	src    []byte
	starts []int
	base   int
	opt    Options
	stmts  []Statement
	found  []Finding
}

func (w *walker) line(off int) int {
	return w.base + sort.Search(len(w.starts), func(i int) bool { return w.starts[i] > off }) - 1
}

// rawText is the source text of segments, lines joined with "\n".
func (w *walker) rawText(l *text.Segments) string {
	var b strings.Builder
	for i := 0; i < l.Len(); i++ {
		s := l.At(i)
		b.Write(bytes.TrimRight(s.Value(w.src), "\r\n"))
		if i+1 < l.Len() {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// itemLead is the text of a list item's first block (its own words).
func (w *walker) itemLead(li ast.Node) string {
	for c := li.FirstChild(); c != nil; c = c.NextSibling() {
		switch c.(type) {
		case *ast.Paragraph, *ast.TextBlock:
			return w.rawText(c.Lines())
		}
		return ""
	}
	return ""
}

// paragraph reads one paragraph (or a tight list item's text block).
func (w *walker) paragraph(n ast.Node, headings []string) {
	lines := n.Lines()
	if lines.Len() == 0 {
		return
	}
	// context, innermost first: enclosing list items (the one this
	// paragraph opens is the paragraph itself), then headings
	var ctx []ctxText
	for p := n.Parent(); p != nil; p = p.Parent() {
		if _, ok := p.(*ast.ListItem); !ok {
			continue
		}
		if p == n.Parent() && p.FirstChild() == n {
			continue
		}
		if t := w.itemLead(p); t != "" {
			ctx = append(ctx, ctxText{"item", t})
		}
	}
	for i := len(headings) - 1; i >= 0; i-- {
		ctx = append(ctx, ctxText{"heading", headings[i]})
	}
	for _, c := range w.opt.Context {
		ctx = append(ctx, ctxText{"context", c})
	}
	var code []string
	for _, sib := range []ast.Node{n.PreviousSibling(), n.NextSibling()} {
		if f, ok := sib.(*ast.FencedCodeBlock); ok {
			code = append(code, w.rawText(f.Lines()))
		}
	}
	var raw strings.Builder
	var lineAt []int // byte offset in raw → file line, per raw line start
	var rawStarts []int
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		rawStarts = append(rawStarts, raw.Len())
		lineAt = append(lineAt, w.line(s.Start))
		raw.Write(bytes.TrimRight(s.Value(w.src), "\r\n"))
		raw.WriteByte('\n')
	}
	para := raw.String()
	lineOf := func(off int) int {
		i := sort.Search(len(rawStarts), func(i int) bool { return rawStarts[i] > off }) - 1
		if i < 0 {
			i = 0
		}
		return lineAt[i]
	}
	for _, s := range splitSentences(para) {
		w.sentence(s.text, lineOf(s.off), para, ctx, code)
	}
}

type ctxText struct{ from, text string }

type sentenceAt struct {
	text string
	off  int
}

// abbrevs end a word that a period does not end a sentence after.
var abbrevs = map[string]bool{"e.g": true, "i.e": true, "etc": true, "vs": true, "approx": true, "cf": true, "fig": true, "no": true}

// splitSentences splits a paragraph at ".", "!" or "?" followed by
// whitespace (not inside a code span, not after an abbreviation such as
// "e.g."), keeping each sentence's byte offset.
func splitSentences(p string) []sentenceAt {
	var out []sentenceAt
	start := 0
	inCode := false
	flush := func(end int) {
		t := strings.Join(strings.Fields(p[start:end]), " ")
		if t != "" {
			off := start
			for off < end && (p[off] == ' ' || p[off] == '\n' || p[off] == '\t') {
				off++
			}
			out = append(out, sentenceAt{t, off})
		}
		start = end
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '`' {
			inCode = !inCode
			continue
		}
		if inCode || (c != '.' && c != '!' && c != '?') {
			continue
		}
		if i+1 < len(p) && p[i+1] != ' ' && p[i+1] != '\n' && p[i+1] != '\t' {
			continue
		}
		// the word before the period
		j := i
		for j > start && p[j-1] != ' ' && p[j-1] != '\n' && p[j-1] != '(' {
			j--
		}
		if c == '.' && abbrevs[strings.ToLower(strings.Trim(p[j:i], "*_"))] {
			continue
		}
		flush(i + 1)
	}
	flush(len(p))
	return out
}

var (
	linkRe    = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	tagRe     = regexp.MustCompile(`<[^>]*>`)
	codeRe    = regexp.MustCompile("`([^`]+)`")
	entityRep = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&nbsp;", " ", "&ge;", "≥", "&le;", "≤")
	markupRep = strings.NewReplacer("**", "", "__", "")
	// onlyRep keeps "-only" compounds ("text-only") from reading as a
	// condition (sentence); sepRep reads "_" and "-" as word breaks
	// (PrecisionWords). Built once: a Replacer is safe for concurrent use.
	onlyRep = strings.NewReplacer("-only", "_only", "-Only", "_Only")
	sepRep  = strings.NewReplacer("_", " ", "-", " ")
)

// clean removes inline markup but code spans' backticks: links to their
// text, HTML tags, bold markers, entities; spaces collapsed.
func clean(s string) string {
	if strings.Contains(s, "](") { // (what every link has: the regexps run only where they can match)
		s = linkRe.ReplaceAllString(s, "$1")
	}
	if strings.IndexByte(s, '<') >= 0 {
		s = tagRe.ReplaceAllString(s, " ")
	}
	s = entityRep.Replace(markupRep.Replace(s))
	return strings.Join(strings.Fields(s), " ")
}

// noCode is s with each code span a space (codeRe: a backtick pair,
// nothing to replace without a backtick).
func noCode(s string) string {
	if strings.IndexByte(s, '`') < 0 {
		return s
	}
	return codeRe.ReplaceAllString(s, " ")
}

// tpMatches is tpRe's FindAllStringSubmatch of s, run only when s holds
// "tp" or "ten" in any case (each match starts with one; none of their
// letters folds outside ASCII).
func tpMatches(s string) [][]string {
	if !containsFoldASCII(s, "tp") && !containsFoldASCII(s, "ten") {
		return nil
	}
	return tpRe.FindAllStringSubmatch(s, -1)
}

// containsFoldASCII reports whether s holds sub (lower-case ASCII letters)
// in any ASCII case.
func containsFoldASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for j < len(sub) && s[i+j]|0x20 == sub[j] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// plain is s without backticks.
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }

var (
	negRe = regexp.MustCompile(`(?i)\b(avoid|avoids|don'?t|do not|does not|doesn'?t|not|never|cannot|can'?t|instead of|without|fail|fails|failed|failure|failures|error|errors|unsupported|crash|crashes|hang|hangs|oom|drop|remove|disable)\b`)
	// condRe: a condition on when the statement holds
	condRe = regexp.MustCompile(`(?i)\b(if|when|whenever|unless|in case|only|once|otherwise|except|encounter|encountered|depending|older|newer|legacy|workaround)\b|\bTP\s*(?:<=|>=|<|>|≤|≥)\s*\d`)
	// exampleRe: an example value, not a setting ("e.g. --max-model-len
	// 131072")
	exampleRe = regexp.MustCompile(`(?i)\b(?:e\.g\.|for example|for instance|such as)`)
	// hedgeRe: an option, not a statement of what runs
	hedgeRe = regexp.MustCompile(`(?i)\b(can|may|might|could|optional|optionally|experimental|experimentation)\b`)
	// allRe: "to any command", "every variant", "all commands"
	allRe = regexp.MustCompile(`(?i)\b(any|every|all|each)\s+(?:of\s+the\s+)?(?:\w+\s+)?(commands?|variants?|configurations?|deployments?|recipes?)\b`)
	// qualRe: a qualifier phrase of the clause: a preposition, up to five
	// words, a workload noun
	qualRe = regexp.MustCompile(`(?i)\b(for|at|under|with|in|across|on|during)\s+((?:[^\s,;:()]+\s+){0,5}?)(concurrenc(?:y|ies)|batch(?:es|\s+sizes?)?|load|latency|throughput|performance|context(?:\s+lengths?)?|sequences?(?:\s+lengths?)?|prompts?|inputs?|outputs?|isl|osl|tokens|workloads?|tasks?|use\s+cases?|settings|scenarios|environments?|runs?|benchmarks?|measurements?|testing|tests?|validation|evaluations?|reproductions?)\b`)
	numRe  = regexp.MustCompile(`\d`)
	// labelQualRe: a sentence's leading "Label:" that names a workload
	// ("Image-only workloads: pass …", "MNNVL environments: …")
	labelQualRe = regexp.MustCompile(`(?i)^([^:.]{1,60}):\s`)
	workNounRe  = regexp.MustCompile(`(?i)\b(workloads?|tasks?|environments?|scenarios?|use\s+cases?|runs?|benchmarks?|setups?)\b`)
	// featureRe: a preposition phrase that qualifies the setting by a
	// deployment feature or layout the page's selections tell apart —
	// speculative decoding, DP attention, expert parallelism,
	// disaggregation or a role's workers, a named mode / scenario /
	// profile / strategy ("with MTP", "with DP attention", "in the
	// high-throughput scenario", "on the decode workers"). The phrase
	// runs from the preposition over at most four plain words (a code
	// span ends it: codeMark) to the feature noun.
	featureRe = regexp.MustCompile(`(?i)(?:^|[\s(])(with|in|on|under|during|at|across|for|using|via)\s+((?:[A-Za-z0-9./+-]+\s+){0,4}?)(MTP|speculative(?:\s+decoding)?|spec(?:ulative)?[- ]decod\w*|EAGLE\d?|NEXTN|DP[- ]attention|data[- ]parallel(?:\s+attention)?|expert[- ]parallel\w*|EP|DEP|TEP|DP|disaggregat\w*|PD|P/D|(?:prefill|decode)\s+(?:workers?|nodes?|servers?|instances?|roles?|sides?|pools?)|[A-Za-z0-9-]+\s+(?:mode|scenario|profile|strategy|preset|recipe))\b`)
	// featureStopRe: a word that ends a featureRe phrase before its noun
	// ("with care to enable MTP": the noun belongs to "to enable")
	featureStopRe = regexp.MustCompile(`(?i)^(?:to|and|or|then|which|that|so|because|while|but|enables?|enabling)$`)
	// gpuCountRe: a GPU count ("on 4 GPUs", "a single 8-GPU node",
	// "MI355X x4", "8x H200", "B200x8"): the number is submatch 1, 2, 3 or 4
	gpuCountRe = regexp.MustCompile(`(?i)\b(\d+)\s*-?\s*(?:gpus?|accelerators?|cards?|devices?)\b|\b(\d+)\s*[x×]\s*(?:[A-Z]{1,3}\d{2,4}[A-Z]?|GPUs?)\b|(?:\b[A-Z]{1,3}\d{2,4}[A-Z]?|\bGPUs?)\s+[x×]\s?(\d+)\b|\b[A-Z]{1,2}\d{3}[x×](\d+)\b`)
	// TP in prose: "TP=4", "tp = 4", "TP 4", "tensor parallel size 4";
	// group 2/4: a range or product right after ("TP=1~2", "tp=2 / 4")
	tpRe = regexp.MustCompile(`(?i)\bTP\s*(?:=\s*|\s)(\d+)(\s*(?:[~/x×-]|or|to)\s*\d+)?|\btensor[- ]parallel(?:ism)?[- ]size(?:\s+of|\s*=|\s+to)?\s+(\d+)(\s*[~/x×-]\s*\d+)?`)
	// bounds of a lower-bound clause
	fromRe  = regexp.MustCompile(`(?i)\bruns?\s+from\s+(?:TP\b|tensor)|\bfrom\s+TP\s*=`)
	leastRe = regexp.MustCompile(`(?i)\bat\s+least\s+TP\b|\bTP\s*(?:>=|≥)\s*\d|\bTP\s*=\s*\d+(?:\+(?:\s|$)|\s+or\s+(?:more|higher|larger|above|greater)\b)`)
	// orRe: alternatives ("TP=4 or TP=8", "enable the toggle or add …");
	// "or more" / "or higher" is a bound
	orRe = regexp.MustCompile(`(?i)\b(?:or|either)\b(?:\s+(?:more|higher|larger|above|greater)\b)?`)
	// otherParRe: a parallel setting other than TP, or a node count, in a
	// size clause ("TP=16 and EP=16", "2-node 16 GPU layout")
	otherParRe = regexp.MustCompile(`(?i)\b(?:EP|DP|PP|CP|DEP|TEP|SP|DCP)\b|\b\d+\s*-?\s*nodes?\b|\bmulti-?node\b|\b(?:expert|data|pipeline)[- ]parallel`)
	// uiRe: the page's own selector, not a command
	uiRe = regexp.MustCompile(`(?i)\b(toggle|toggles|playground|selector|generator|panel|checkbox|button|pill|feature)\b`)
	// benchRe: a section about benchmarks or tests, not a deployment
	benchRe = regexp.MustCompile(`(?i)\b(benchmark\w*|reproduc\w*|sweep|accuracy|evaluation|validation|test|tests|testing|profil\w*|debug\w*|troubleshoot\w*)\b`)
	// boolFlagRe: a flag that stands bare (a switch)
	boolFlagRe = regexp.MustCompile(`(?:^-+|-)(?:enable|disable|no|use|trust|skip|allow|only|async|force)(?:-|$)`)
	// cues
	sizeCueRe = regexp.MustCompile(`(?i)\bruns?\s+(?:with|at|on)\b|\b(use|using|set|setting|switch\s+to|change\s+to|run|running|pass)\b`)
	addCueRe  = regexp.MustCompile(`(?i)\b(add|adding|append|use|using|set|setting|pass|enable)\b`)
	// upper bounds and comparisons other than a lower bound
	upperRe = regexp.MustCompile(`(?i)\bTP\s*(?:<=|≤|<|>)|\bup\s+to\b|\bat\s+most\b`)
	// placeholders in a value
	placeholderRe = regexp.MustCompile(`^(?:<[^>]*>|\$\{?\w+\}?|N|M|X|\.\.\.|…)$`)
	envRe         = regexp.MustCompile(`^([A-Z][A-Z0-9_]*[A-Z0-9])=(.*)$`)
	valueRe       = regexp.MustCompile(`^[A-Za-z0-9_.:/+,-]+$`)
)

// parallelFlags are the spellings of a tensor-parallel flag (SGLang
// server_args.py --tp/--tp-size/--tensor-parallel-size; vLLM -tp /
// --tensor-parallel-size): a flag statement with one of them states a size.
var parallelFlags = map[string]bool{"--tp": true, "--tp-size": true, "--tensor-parallel-size": true, "-tp": true}

// valueFlags are flags that never stand bare: a parallel size or a
// fraction ("add `--tp`, `--ep` and `--mem-fraction-static`" names no
// value).
var valueFlags = map[string]bool{"--tp": true, "--tp-size": true, "--tensor-parallel-size": true, "-tp": true, "--ep": true, "--ep-size": true,
	"--expert-parallel-size": true, "--dp": true, "--dp-size": true, "--data-parallel-size": true, "--pp": true, "--pp-size": true,
	"--pipeline-parallel-size": true, "--mem-fraction-static": true, "--gpu-memory-utilization": true, "--max-model-len": true,
	"--context-length": true, "--chunked-prefill-size": true, "--max-running-requests": true, "--max-num-seqs": true,
	"--max-num-batched-tokens": true, "--kv-cache-dtype": true, "--quantization": true, "--attention-backend": true}

// clauses splits a sentence into its main clauses (the text outside
// parentheses and dash asides, split at "; ") and each parenthetical /
// aside, main clauses first; nMain is how many are main.
func clauses(s string) (all []string, nMain int) {
	var main strings.Builder
	var out []string
	depth, start := 0, 0
	inCode := false
	for i, r := range s {
		switch {
		case r == '`':
			inCode = !inCode
		case inCode:
		case r == '(':
			if depth == 0 {
				start = i + 1
			}
			depth++
			continue
		case r == ')' && depth > 0:
			depth--
			if depth == 0 {
				out = append(out, s[start:i])
			}
			continue
		}
		if depth == 0 {
			main.WriteRune(r)
		}
	}
	if depth > 0 {
		out = append(out, s[start:])
	}
	m := main.String()
	// dash asides: " — …" to the end or the next dash
	for _, d := range []string{" — ", " – ", " -- "} {
		if i := strings.Index(m, d); i >= 0 {
			out = append(out, m[i+len(d):])
			m = m[:i]
		}
	}
	var mains []string
	for _, part := range strings.Split(m, "; ") {
		if t := strings.Join(strings.Fields(part), " "); t != "" {
			mains = append(mains, t)
		}
	}
	return append(mains, out...), len(mains)
}

// codeSettings reads the flags and NAME=value assignments of the code
// spans of c (words split as the shell does for simple quoting; other
// words are skipped). bad is set when a flag's value is a placeholder or
// unreadable, or a flag that needs a value has none; tp holds the values
// of parallel flags.
func codeSettings(c string) (flags []Flag, env []Env, tp []int, bad string) {
	for _, m := range codeRe.FindAllStringSubmatch(c, -1) {
		words := shellWords(m[1])
		if len(words) == 0 {
			continue
		}
		if tpm := tpRe.FindStringSubmatch(m[1]); tpm != nil && !strings.HasPrefix(words[0], "-") && len(words) == 1 {
			// `tp=8` written as code
			if tpm[2] != "" || tpm[4] != "" {
				return nil, nil, nil, "a range of parallel sizes"
			}
			n, _ := strconv.Atoi(tpm[1] + tpm[3])
			tp = append(tp, n)
			continue
		}
		for i := 0; i < len(words); i++ {
			wd := words[i]
			if e := envRe.FindStringSubmatch(wd); e != nil && i == 0 || e != nil && !strings.HasPrefix(words[max(i-1, 0)], "-") {
				if placeholderRe.MatchString(e[2]) || e[2] == "" {
					return nil, nil, nil, "a placeholder value"
				}
				env = append(env, Env{Name: e[1], Value: e[2]})
				continue
			}
			if !strings.HasPrefix(wd, "-") || wd == "-" || wd == "--" {
				continue // a word that is no setting
			}
			name, val, eq := strings.Cut(wd, "=")
			if !eq && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") && envRe.FindStringSubmatch(words[i+1]) == nil {
				val = words[i+1]
				i++
			}
			if val != "" && placeholderRe.MatchString(val) {
				return nil, nil, nil, "a placeholder value"
			}
			if val != "" && !valueRe.MatchString(val) && !strings.HasPrefix(val, "{") && !strings.HasPrefix(val, "[") {
				return nil, nil, nil, "a value that cannot be read (" + val + ")"
			}
			if val == "" && valueFlags[name] {
				return nil, nil, nil, "a flag that needs a value names none"
			}
			if parallelFlags[name] {
				n, err := strconv.Atoi(val)
				if err != nil {
					return nil, nil, nil, "a parallel size that is not a number"
				}
				tp = append(tp, n)
			}
			flags = append(flags, Flag{Name: name, Value: val})
		}
	}
	return flags, env, tp, ""
}

// shellWords splits s at blanks, honouring single and double quotes (the
// quotes removed).
func shellWords(s string) []string {
	var out []string
	var b strings.Builder
	var q rune
	word := false
	for _, r := range s {
		switch {
		case q != 0:
			if r == q {
				q = 0
			} else {
				b.WriteRune(r)
			}
		case r == '\'' || r == '"':
			q, word = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\\':
			if word || b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
				word = false
			}
		default:
			b.WriteRune(r)
			word = true
		}
	}
	if word || b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// sentence classifies one sentence.
func (w *walker) sentence(raw string, line int, para string, ctx []ctxText, code []string) {
	s := clean(raw)
	cls, nMain := clauses(s)
	sentencePlain := plain(s)
	// the sentence's words outside code spans; "-only" compounds
	// ("text-only") are no condition
	prose := strings.Join(strings.Fields(noCode(s)), " ")
	prose = onlyRep.Replace(prose)
	type parsed struct {
		clause string
		kind   Kind
		tp     int
		flags  []Flag
		env    []Env
		reason string
		qual   string
		idx    int    // clause index (main clauses first)
		code   string // the clause with its code spans' backticks
	}
	var ps []parsed
	for ci, c := range cls {
		cp := plain(c)
		// the clause's words outside code spans: cues, qualifiers and
		// alternatives are read there (a flag named --enable-x is no cue)
		outside := noCode(c)
		words := strings.Join(strings.Fields(outside), " ")
		flags, env, ctp, bad := codeSettings(c)
		// prose TP values outside code spans
		var tps []int
		rangeSeen := false
		for _, m := range tpMatches(outside) {
			if m[2] != "" || m[4] != "" {
				rangeSeen = true
				continue
			}
			n, _ := strconv.Atoi(m[1] + m[3])
			tps = append(tps, n)
		}
		tps = append(tps, ctp...)
		if len(flags) == 0 && len(env) == 0 && len(tps) == 0 && !rangeSeen && bad == "" {
			continue // no setting in this clause
		}
		p := parsed{clause: cp, code: c, idx: ci}
		switch {
		case bad != "":
			p.reason = bad
		case rangeSeen:
			p.reason = "a range of parallel sizes"
		case len(flags) > 0 || len(env) > 0:
			p.kind = Add
			p.flags, p.env = flags, env
			if !addCueRe.MatchString(words) {
				p.reason = "no cue (add / use / set / pass)"
			}
			for _, f := range flags {
				if f.Value == "" && !boolFlagRe.MatchString(f.Name) {
					p.reason = "a flag without its value (" + f.Name + ")"
				}
			}
			if len(slices.Compact(slices.Sorted(slices.Values(tps)))) > 1 {
				p.reason = "several parallel sizes"
			}
			seen := map[string]string{}
			for _, f := range flags {
				if v, ok := seen[f.Name]; ok && v != f.Value {
					p.reason = "several values for " + f.Name
				}
				seen[f.Name] = f.Value
			}
		default:
			uniq := slices.Compact(slices.Sorted(slices.Values(tps)))
			p.tp = tps[0]
			switch {
			case len(uniq) > 1:
				p.kind, p.reason = Size, "several parallel sizes"
			case upperRe.MatchString(words):
				p.kind, p.reason = Size, "an upper bound or comparison"
			case otherParRe.MatchString(words):
				p.kind, p.reason = Size, "states more than the parallel size ("+otherParRe.FindString(words)+")"
			case fromRe.MatchString(words) || leastRe.MatchString(words):
				p.kind = AtLeast
			case sizeCueRe.MatchString(words):
				p.kind = Size
			default:
				p.kind, p.reason = Size, "no cue (runs with / use / set): a requirement or a fact, not a setting"
			}
		}
		if p.reason == "" {
			if m := orRe.FindString(words); m != "" && !strings.Contains(m, " ") {
				p.reason = "alternatives (" + m + ")"
			}
		}
		if p.reason == "" {
			if q := qualRe.FindStringSubmatch(words); q != nil {
				noun := strings.ToLower(q[3])
				switch {
				case strings.HasPrefix(noun, "concurrenc") || strings.HasPrefix(noun, "batch"):
					p.qual = q[0]
				case seqNoun(noun) && numRe.MatchString(q[2]):
					p.qual = q[0]
				case seqNoun(noun):
					p.reason = "a sequence-length condition without a value (" + q[0] + ")"
				default:
					p.reason = "a condition other than concurrency or sequence length (" + q[0] + ")"
				}
			}
		}
		ps = append(ps, p)
	}
	if len(ps) == 0 {
		return
	}
	// flags in a parenthetical without a cue of its own name what the
	// clause around it says ("Use the DSA tilelang backend (`--dsa-…`)
	// and add `--chunked-prefill-size 131072`"): one statement
	mainAdd := -1
	for i := range ps {
		if ps[i].idx < nMain && ps[i].kind == Add && ps[i].reason == "" {
			mainAdd = i
			break
		}
	}
	if mainAdd >= 0 {
		kept := ps[:0]
		for i, p := range ps {
			if i != mainAdd && p.idx >= nMain && p.kind == Add && strings.HasPrefix(p.reason, "no cue") {
				ps[mainAdd].flags = append(ps[mainAdd].flags, p.flags...)
				ps[mainAdd].env = append(ps[mainAdd].env, p.env...)
				continue
			}
			kept = append(kept, p)
		}
		ps = kept
	}
	// sentence-wide rejections
	why := ""
	switch {
	case negRe.MatchString(prose):
		why = "a negation or failure (" + negRe.FindString(prose) + ")"
	case condRe.MatchString(prose):
		why = "a condition (" + condRe.FindString(prose) + ")"
	case hedgeRe.MatchString(prose):
		why = "an option, not a statement (" + hedgeRe.FindString(prose) + ")"
	case uiRe.MatchString(prose):
		why = "the page's selector, not a command (" + uiRe.FindString(prose) + ")"
	case exampleRe.MatchString(prose):
		why = "an example, not a setting (" + exampleRe.FindString(prose) + ")"
	}
	if why == "" {
		if m := labelQualRe.FindStringSubmatch(prose); m != nil && workNounRe.MatchString(m[1]) {
			why = "a condition in the label (" + m[1] + ")"
		}
	}
	var flagNames []string // the flags the sentence itself sets
	for _, p := range ps {
		for _, f := range p.flags {
			flagNames = append(flagNames, strings.SplitN(f.Name, "=", 2)[0])
		}
	}
	if why == "" {
		why = featureCondition(s, flagNames)
	}
	if why == "" {
		var tps []int // the parallel sizes the sentence itself states
		for _, p := range ps {
			if p.kind == Size || p.kind == AtLeast {
				tps = append(tps, p.tp)
			}
			for _, f := range p.flags {
				if parallelFlags[strings.SplitN(f.Name, "=", 2)[0]] {
					if n, err := strconv.Atoi(f.Value); err == nil {
						tps = append(tps, n)
					}
				}
			}
		}
		why = gpuCountCondition(prose, tps)
	}
	if why == "" {
		for _, c := range ctx {
			if m := benchRe.FindString(plain(clean(c.text))); m != "" {
				why = "a " + c.from + " about benchmarks or tests (" + m + ")"
				break
			}
		}
	}
	for _, p := range ps {
		f := Finding{File: w.file, Line: line, Sentence: sentencePlain, Clause: p.clause, Shape: string(p.kind)}
		switch {
		case why != "":
			f.Reason = why
		case p.reason != "":
			f.Reason = p.reason
		case p.kind == Size || p.kind == AtLeast:
			if p.tp < 1 || p.tp > 1024 {
				f.Reason = "a parallel size out of range"
			}
		}
		if f.Reason == "" {
			f.Accepted = true
			st := Statement{Kind: p.kind, TP: p.tp, Flags: p.flags, Env: p.env, Qualifier: p.qual, File: w.file, Line: line,
				Sentence: sentencePlain, Clause: p.clause, NextToCode: code}
			st.Scope = w.scope(p.code, s, paraLabels(para), ctx)
			w.stmts = append(w.stmts, st)
		}
		w.found = append(w.found, f)
	}
}

// codeMark stands for a code span in the text featureCondition reads: it
// ends a phrase ("with `--speculative-algo NEXTN` to enable MTP" names
// no feature after "with").
const codeMark = " \u00b7 "

// featureCondition is the reason sentence s (inline markup cleaned) is
// conditioned on a deployment feature or layout (featureRe), or "". A
// phrase naming the feature the sentence's own flags turn on is its
// purpose, not a condition ("Add `--speculative-config …` for MTP",
// "`--enable-dp-attention --dp 8` with DP attention"); a mode, scenario
// or recipe after a determiner ("in every recipe", "in this recipe") names
// none.
func featureCondition(s string, flags []string) string {
	marked := strings.Join(strings.Fields(codeRe.ReplaceAllString(s, codeMark)), " ")
	for _, m := range featureRe.FindAllStringSubmatch(marked, -1) {
		stop := false
		for _, w := range strings.Fields(m[2]) {
			if featureStopRe.MatchString(w) {
				stop = true
				break
			}
		}
		noun := strings.Fields(m[3])
		if stop || len(noun) == 2 && determinerRe.MatchString(noun[0]) || ownFeature(m[3], flags) {
			continue
		}
		return "a condition on a deployment feature or layout (" + strings.TrimSpace(m[0]) + ")"
	}
	return ""
}

// determinerRe: a word that names no mode, scenario or recipe of its own.
var determinerRe = regexp.MustCompile(`(?i)^(?:every|all|any|each|this|that|these|those|the|our|same|a|an|its|their|other|default)$`)

// featureFlags maps a feature noun (lower case, by prefix) to the flag
// prefixes that turn it on (SGLang server_args.py / vLLM arg_utils.py
// names): a sentence setting one of them is about that feature.
var featureFlags = []struct{ noun, flags []string }{
	{[]string{"mtp", "speculative", "spec", "eagle", "nextn"}, []string{"--speculative", "--enable-multi-layer-eagle"}},
	{[]string{"dp", "data"}, []string{"--enable-dp-attention", "--dp", "--data-parallel"}},
	{[]string{"ep", "dep", "tep", "expert"}, []string{"--ep", "--expert-parallel", "--enable-expert-parallel", "--moe-a2a-backend"}},
	{[]string{"disaggregat", "pd", "p/d", "prefill", "decode"}, []string{"--disaggregation"}},
}

// ownFeature reports whether feature (a featureRe noun) is turned on by
// one of flags.
func ownFeature(feature string, flags []string) bool {
	f := strings.ToLower(feature)
	for _, ff := range featureFlags {
		if !slices.ContainsFunc(ff.noun, func(n string) bool { return strings.HasPrefix(f, n) }) {
			continue
		}
		for _, name := range flags {
			if slices.ContainsFunc(ff.flags, func(p string) bool { return strings.HasPrefix(name, p) }) {
				return true
			}
		}
	}
	return false
}

// gpuCountCondition is the reason text (a sentence's words outside code
// spans) is conditioned on a GPU count the statement's own parallel size
// does not state ("on 4 GPUs", "MI355X x4" for a setting that is not
// --tp 4; "--tp 8 … on a single 8-GPU node" states its size), or "".
func gpuCountCondition(text string, tps []int) string {
	for _, m := range gpuCountRe.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1] + m[2] + m[3] + m[4])
		if !slices.Contains(tps, n) {
			return "a condition on the GPU count (" + m[0] + ")"
		}
	}
	return ""
}

// onlyParenRe is a sentence that is a parenthesized label only ("(MXFP4)").
var onlyParenRe = regexp.MustCompile(`^\([^()]*\)\.?$`)

// paraLabels is what labels a paragraph as a whole: its leading bold label
// ("**MI355X (288GB)** runs …") and its sentences that are a parenthesized
// label only ("… (use tp=4 for low concurrency). (MXFP4)").
func paraLabels(para string) string {
	var parts []string
	if m := labelRe.FindStringSubmatch(para); m != nil {
		parts = append(parts, m[1])
	}
	for _, s := range splitSentences(para) {
		if t := plain(clean(s.text)); onlyParenRe.MatchString(t) {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}

func seqNoun(n string) bool {
	for _, p := range []string{"context", "sequence", "prompt", "input", "output", "isl", "osl", "token"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

var (
	precRe  = regexp.MustCompile(`(?i)\b(bf16|fp16|fp8|fp4|nvfp4|mxfp4|mxfp8|int4|int8|w4a8|w4a16)\b`)
	hfRe    = regexp.MustCompile(`\b([A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9])`)
	sizeRe  = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?[BT](?:-A\d+(?:\.\d+)?B)?)\b`)
	amdRe   = regexp.MustCompile(`(?i)\b(AMD|ROCm|Instinct)\b`)
	nvRe    = regexp.MustCompile(`(?i)\b(NVIDIA|CUDA)\b`)
	labelRe = regexp.MustCompile(`^\s*(?:[-*+]\s+)?\*\*([^*]+)\*\*`)
	// kvAfterRe: what follows a precision word that names a cache or
	// attention dtype
	kvAfterRe = regexp.MustCompile(`(?i)^[\s-]*(?:kv|kv-?cache|cache|attention|indexer|activations?)\b`)
	// flagCodeRe: a code span holding flags or NAME=value (its values
	// name no hardware or variant: "--kv-cache-dtype fp8")
	flagCodeRe = regexp.MustCompile("`\\s*(?:-|[A-Z][A-Z0-9_]*=)[^`]*`")
)

// scope resolves what the statement is for, dimension by dimension, from
// the innermost text that names it: the clause, the sentence, the
// paragraph, the enclosing list items, the headings. Code spans holding
// flags or NAME=value name nothing (their values are settings); a clause
// naming no part defers to its sentence's parts.
func (w *walker) scope(clause, sentence, para string, ctx []ctxText) Scope {
	var sc Scope
	sc.All = allRe.MatchString(sentence)
	levels := append([]ctxText{{"clause", clause}, {"sentence", sentence}, {"paragraph", para}}, ctx...)
	for li, l := range levels {
		t := plain(clean(flagCodeRe.ReplaceAllString(l.text, " ")))
		if sc.HardwareFrom == "" && li == 0 && len(w.opt.Hardware(t)) == 0 && len(w.opt.Hardware(plain(clean(flagCodeRe.ReplaceAllString(sentence, " "))))) > 0 {
			// the clause names a vendor at most and its sentence names
			// the parts ("AMD GPUs (MI300X / MI355X). Use …"): the
			// sentence's parts
			continue
		}
		if sc.HardwareFrom == "" {
			hw := w.opt.Hardware(t)
			var vend []string
			if amdRe.MatchString(t) {
				vend = append(vend, "amd")
			}
			if nvRe.MatchString(t) {
				vend = append(vend, "nvidia")
			}
			if len(hw) > 0 || len(vend) > 0 {
				sc.Hardware, sc.Vendors, sc.HardwareFrom = hw, vend, l.from
			}
		}
		if sc.VariantFrom == "" {
			var precs, ids, sizes []string
			for _, ix := range precRe.FindAllStringIndex(t, -1) {
				if kvAfterRe.MatchString(t[ix[1]:]) {
					continue // "FP8 KV cache" is a cache dtype, not a variant
				}
				precs = appendNew(precs, strings.ToLower(t[ix[0]:ix[1]]))
			}
			for _, m := range hfRe.FindAllString(t, -1) {
				if !hfID(m) || len(w.opt.Hardware(m)) > 0 {
					continue
				}
				ids = appendNew(ids, m)
			}
			for _, m := range sizeRe.FindAllString(t, -1) {
				sizes = appendNew(sizes, strings.ToLower(m))
			}
			if len(precs)+len(ids)+len(sizes) > 0 {
				sc.Precisions, sc.Checkpoints, sc.Sizes, sc.VariantFrom = precs, ids, sizes, l.from
			}
		}
	}
	return sc
}

// hfID reports an org/name Hugging Face id: both parts hold a letter, the
// name a digit, and neither is a precision or a model size ("70B/8B",
// "BF16/FP8" are not ids).
func hfID(m string) bool {
	org, name, _ := strings.Cut(m, "/")
	if strings.Contains(name, "/") || !strings.ContainsAny(name, "0123456789") {
		return false
	}
	for _, p := range []string{org, name} {
		if !strings.ContainsFunc(p, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }) {
			return false
		}
		if precRe.FindString(p) == p || sizeRe.FindString(p) == p {
			return false
		}
	}
	return true
}

func appendNew(l []string, s string) []string {
	if slices.Contains(l, s) {
		return l
	}
	return append(l, s)
}

// PrecisionWords are the precision words a checkpoint's name or a
// selection's quantization holds, lower case (the family — "fp4" for
// nvfp4 / mxfp4 — included): what a Scope's Precisions are matched with.
func PrecisionWords(texts ...string) []string {
	var out []string
	for _, t := range texts {
		for _, m := range precRe.FindAllString(sepRep.Replace(t), -1) {
			w := strings.ToLower(m)
			out = appendNew(out, w)
			switch w {
			case "nvfp4", "mxfp4":
				out = appendNew(out, "fp4")
			case "mxfp8":
				out = appendNew(out, "fp8")
			}
		}
	}
	return out
}

// MatchesVariant reports whether a selection serving checkpoint with the
// precision words precs (PrecisionWords) is in the scope's variant: every
// dimension the scope names matches (precision: one of its words is one
// of precs; checkpoint: equal, case-insensitive; size: the checkpoint's
// name holds it as a word).
func (s Scope) MatchesVariant(checkpoint string, precs []string) bool {
	if len(s.Precisions) > 0 && !slices.ContainsFunc(s.Precisions, func(p string) bool { return slices.Contains(precs, p) }) {
		return false
	}
	if !s.NamesModel() {
		return true
	}
	for _, c := range s.Checkpoints {
		if strings.EqualFold(c, checkpoint) {
			return true
		}
	}
	name := strings.ToLower(checkpoint)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	for _, z := range s.Sizes {
		if i := strings.Index(name, z); i >= 0 {
			before := i == 0 || !isAlnum(name[i-1])
			after := i+len(z) == len(name) || !isAlnum(name[i+len(z)])
			if before && after {
				return true
			}
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// MatchesHardware reports whether hardware id hw (vendor "amd" or
// "nvidia") is in the scope's hardware: named, or of a named vendor.
func (s Scope) MatchesHardware(hw, vendor string) bool {
	if slices.Contains(s.Hardware, hw) {
		return true
	}
	return len(s.Hardware) == 0 && slices.Contains(s.Vendors, vendor)
}

// NamesHardware reports whether the scope names hardware or a vendor.
func (s Scope) NamesHardware() bool { return len(s.Hardware)+len(s.Vendors) > 0 }

// Vendor is "amd" for an AMD Instinct hardware id (mi…), else "nvidia".
func Vendor(hw string) string {
	if strings.HasPrefix(strings.ToLower(hw), "mi") {
		return "amd"
	}
	return "nvidia"
}

// Describe is one line per finding, "file:line: shape accepted|rejected
// (reason): clause", for test logs and reviews.
func Describe(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		state := "accepted"
		if !f.Accepted {
			state = "rejected (" + f.Reason + ")"
		}
		shape := f.Shape
		if shape == "" {
			shape = "-"
		}
		fmt.Fprintf(&b, "%s:%d: %s %s: %s\n", f.File, f.Line, shape, state, f.Clause)
	}
	return b.String()
}
