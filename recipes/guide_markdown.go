package recipes

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Block is one fenced code block of a recipe's Markdown (legacy
// <Vendor>/<Model>.md or a YAML `guide:`) with its context.
type Block struct {
	File      string // path as given
	Line, Col int    // fence opening in File (1-based)
	Lang      string // first word of the info string, lower case ("" = untagged)
	Text      string // the block content
	// Context: heading chain H1…H6 (empty levels dropped), pymdown tab label
	// (=== "…"), <details><summary> text, the nearest preceding paragraph and
	// an inline-code label line (`launch_server.sh`).
	Headings []string
	Tab      string
	Summary  string
	Prose    string
	Label    string
	// Candidate: the block mentions a launch (vllm serve, the api_server
	// module, dynamo.vllm or docker run) in a shell-like fence.
	Candidate bool
	Shell     *ShellResult // parse result (nil when not parsed or unparsable)
	Err       error        // unparsable: file:line:col: reason
	// Hardware lists taxonomy ids named by the headings, tab and summary;
	// when they name none, the ids of a GPU generation named there
	// ("NVFP4 on Blackwell" → b200, b300, gb200, gb300; GenerationIDs),
	// else the ids (or generation) named by the bold label in effect
	// (Bold). A generation is narrowed to the parts of it the prose in
	// effect names (the latest paragraph of the section naming a part:
	// "launch the tested B200 baseline" under "NVFP4 on Blackwell" → b200;
	// narrowByProse). HardwareFrom says which: "context", "generation",
	// "generation+prose", "bold" or "" (none). HardwareWords lists all GPU
	// words of the context and the bold label (A100 has no taxonomy id);
	// ProseHardware the ids named only by the preceding paragraph (set
	// only when HardwareWords is empty).
	Hardware      []string
	HardwareFrom  string
	HardwareWords []string
	ProseHardware []string
	// Bold is the bold label in effect: the strong-emphasis text that opens
	// the latest paragraph since the last heading ("**H200**", "**NVFP4
	// on Blackwell**", "**CUDA**"); a new label replaces it, a heading
	// clears it.
	Bold string
	// SectionEnv lists the variables exported by export-only blocks of
	// the block's section (see the guide rules in guide_deployments.go); they are also
	// merged into each launch command's Env (From "section").
	SectionEnv []GuideEnv
	// Deltas are the documented alternates stated by the sentences right
	// before or after the block (see ProseDelta); GuideDeployments renders
	// each as a second deployment.
	Deltas []ProseDelta

	sec           [6]int     // heading ids of the section chain (0 = no heading at that level)
	before, after *mdPara    // the paragraph right before / after the fence
	exports       []GuideEnv // the variables of an export-only block (nil otherwise)
}

// IsLaunch reports a block with at least one parsed launch command.
func (b *Block) IsLaunch() bool { return b.Shell != nil && len(b.Shell.Commands) > 0 }

// Section is the context as one string: "H1 > H2 > … [tab] (summary)".
func (b *Block) Section() string {
	s := strings.Join(b.Headings, " > ")
	if b.Tab != "" {
		s += " [" + b.Tab + "]"
	}
	if b.Summary != "" {
		s += " (" + b.Summary + ")"
	}
	return s
}

var (
	launchRe  = regexp.MustCompile(`vllm\s+serve|vllm\.entrypoints\.openai\.api_server|dynamo\.vllm|docker\s+run`)
	tabRe     = regexp.MustCompile(`^\s*===[+!]?\s+"([^"]*)"\s*$`)
	admonRe   = regexp.MustCompile(`^\s*(?:!!!|\?\?\?\+?)\s+\S`)
	summaryRe = regexp.MustCompile(`(?is)<summary[^>]*>(.*?)</summary>`)
	tagRe     = regexp.MustCompile(`<[^>]+>`)
	labelRe   = regexp.MustCompile("^`([^`]+)`:?$")
)

// shellLangs are fence languages read as shell (untagged fences included).
var shellLangs = map[string]bool{"": true, "bash": true, "sh": true, "shell": true, "console": true, "zsh": true}

// mdSource maps a Markdown buffer onto the file it came from.
type mdSource struct {
	file    string
	src     []byte
	starts  []int // byte offset of each buffer line
	lineMap []int // buffer line (0-based) → file line (1-based); nil = identity + base
	base    int   // file line of buffer line 0 minus 1 (when lineMap is nil)
	colOff  []int // extra columns per buffer line (indent removed by the caller)
	md      goldmark.Markdown
}

func newMDSource(file string, src []byte, base int, lineMap, colOff []int) *mdSource {
	m := &mdSource{file: file, src: src, base: base, lineMap: lineMap, colOff: colOff}
	m.starts = append(m.starts, 0)
	for i, c := range src {
		if c == '\n' {
			m.starts = append(m.starts, i+1)
		}
	}
	return m
}

// bufLine returns the 0-based buffer line of offset.
func (m *mdSource) bufLine(off int) int {
	return sort.Search(len(m.starts), func(i int) bool { return m.starts[i] > off }) - 1
}

// filePos maps a buffer line (0-based) and column (1-based) to the file.
func (m *mdSource) filePos(line, col int) (int, int) {
	fl := m.base + line + 1
	if m.lineMap != nil && line >= 0 && line < len(m.lineMap) {
		fl = m.lineMap[line]
	}
	if m.colOff != nil && line >= 0 && line < len(m.colOff) {
		col += m.colOff[line]
	}
	return fl, col
}

// mdContext is the running context of the walk.
type mdContext struct {
	headings [6]string
	sec      [6]int // heading ids per level
	nsec     int    // headings seen
	tab      string
	summary  string
	prose    string
	label    string
	bold     string
	// proseHW is the taxonomy ids named by the latest paragraph since the
	// last heading that names any (HardwareIDs), nil when none did.
	proseHW  []string
	lastPara *mdPara // paragraph with nothing after it yet
	after    *Block  // block with nothing after it yet
}

// mdPara is one prose paragraph: its raw lines (inline markup kept) and
// the file line of each.
type mdPara struct {
	lines []string
	at    []int
}

// adjacent clears the paragraph/block adjacency at a node that separates
// them (heading, fence, list, HTML, indented code).
func (c *mdContext) adjacent() { c.lastPara, c.after = nil, nil }

// ParseMarkdown walks Markdown (CommonMark + GFM via goldmark; pymdown
// `=== "tab"` bodies and `!!!` admonition bodies are re-parsed) and returns
// every fenced block with its context; shell-like blocks that mention a
// launch are parsed with ParseShell. firstLine/colOff place src inside file
// (1 and 0 for a whole .md file). It never panics on input. Text over
// MaxMarkdownSize or nested deeper than MaxMarkdownDepth is refused before
// goldmark sees it (*launch.InputError at file:line:col).
func ParseMarkdown(file string, src []byte, firstLine, colOff int) (blocks []*Block, err error) {
	defer func() {
		if r := recover(); r != nil {
			blocks, err = nil, fmt.Errorf("%s:%d:1: markdown parser failure: %v", file, firstLine, r)
		}
	}()
	if err := checkMarkdownBounds(file, src, firstLine, colOff); err != nil {
		return nil, err
	}
	var cols []int
	if colOff != 0 {
		n := strings.Count(string(src), "\n") + 1
		cols = make([]int, n)
		for i := range cols {
			cols[i] = colOff
		}
	}
	m := newMDSource(file, src, firstLine-1, nil, cols)
	m.md = goldmark.New(goldmark.WithExtensions(extension.GFM))
	var ctx mdContext
	walkMarkdown(m, &ctx, &blocks, 0)
	linkGuide(blocks)
	return blocks, nil
}

func segText(n ast.Node, src []byte) string {
	var b strings.Builder
	var rec func(ast.Node)
	rec = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch t := c.(type) {
			case *ast.Text:
				b.Write(t.Segment.Value(src))
				if t.SoftLineBreak() || t.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(t.Value)
			case *ast.RawHTML:
				for i := 0; i < t.Segments.Len(); i++ {
					s := t.Segments.At(i)
					b.Write(s.Value(src))
				}
			default:
				rec(c)
			}
		}
	}
	rec(n)
	return strings.TrimSpace(b.String())
}

func linesText(l *text.Segments, src []byte) string {
	var b strings.Builder
	for i := 0; i < l.Len(); i++ {
		s := l.At(i)
		b.WriteString(strings.Repeat(" ", s.Padding))
		b.Write(s.Value(src))
	}
	return b.String()
}

func walkMarkdown(m *mdSource, ctx *mdContext, out *[]*Block, depth int) {
	doc := m.md.Parser().Parse(text.NewReader(m.src))
	pendingTab, pendingAdmon := "", false
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			lvl := n.Level
			if lvl < 1 {
				lvl = 1
			}
			if lvl > 6 {
				lvl = 6
			}
			ctx.headings[lvl-1] = segText(n, m.src)
			ctx.nsec++
			ctx.sec[lvl-1] = ctx.nsec
			for i := lvl; i < 6; i++ {
				ctx.headings[i] = ""
				ctx.sec[i] = 0
			}
			ctx.bold, ctx.proseHW = "", nil
			ctx.adjacent()
			if depth == 0 {
				ctx.tab = ""
			}
			ctx.prose, ctx.label = "", ""
			pendingTab, pendingAdmon = "", false
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph:
			raw := strings.TrimRight(linesText(n.Lines(), m.src), "\n")
			lines := strings.Split(raw, "\n")
			last := lines[len(lines)-1]
			pendingTab, pendingAdmon = "", false
			if t := tabRe.FindStringSubmatch(last); t != nil {
				pendingTab = t[1]
				return ast.WalkSkipChildren, nil
			}
			if admonRe.MatchString(lines[0]) {
				pendingAdmon = true
			}
			if l := labelRe.FindStringSubmatch(strings.TrimSpace(raw)); l != nil {
				ctx.label = l[1]
				ctx.adjacent()
				return ast.WalkSkipChildren, nil
			}
			ctx.prose = segText(n, m.src)
			if ids := HardwareIDs(ctx.prose); len(ids) > 0 {
				ctx.proseHW = ids
			}
			ctx.label = ""
			if e, ok := n.FirstChild().(*ast.Emphasis); ok && e.Level == 2 {
				ctx.bold = segText(e, m.src)
			}
			p := m.para(n)
			if ctx.after != nil {
				ctx.after.after = p
			}
			ctx.lastPara, ctx.after = p, nil
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock:
			raw := linesText(n.Lines(), m.src)
			if n.HasClosure() {
				raw += string(n.ClosureLine.Value(m.src))
			}
			handleHTML(ctx, raw)
			ctx.adjacent()
			return ast.WalkSkipChildren, nil
		case *ast.List:
			ctx.adjacent()
		case *ast.FencedCodeBlock:
			b := m.fenced(n, ctx)
			b.before = ctx.lastPara
			*out = append(*out, b)
			ctx.label = ""
			ctx.lastPara, ctx.after = nil, b
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock:
			ctx.adjacent()
			body := linesText(n.Lines(), m.src)
			if depth < 4 && (pendingTab != "" || pendingAdmon || strings.Contains(body, "```") || strings.Contains(body, "~~~")) {
				m.reparse(n, ctx, pendingTab, out, depth)
			}
			pendingTab, pendingAdmon = "", false
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// handleHTML tracks <summary> and </details> in raw HTML.
func handleHTML(ctx *mdContext, raw string) {
	low := strings.ToLower(raw)
	closeAt := strings.LastIndex(low, "</details>")
	sums := summaryRe.FindAllStringSubmatchIndex(raw, -1)
	if len(sums) > 0 {
		last := sums[len(sums)-1]
		if closeAt < 0 || last[0] > closeAt {
			ctx.summary = strings.TrimSpace(tagRe.ReplaceAllString(raw[last[2]:last[3]], ""))
			return
		}
	}
	if closeAt >= 0 {
		ctx.summary = ""
	}
}

// reparse walks an indented body (pymdown tab, admonition, indented
// details) as Markdown of its own, keeping line mapping to the file.
func (m *mdSource) reparse(n *ast.CodeBlock, ctx *mdContext, tab string, out *[]*Block, depth int) {
	var buf strings.Builder
	var lineMap, cols []int
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		bl := m.bufLine(s.Start)
		fl, fc := m.filePos(bl, s.Start-m.starts[bl]+1)
		lineMap = append(lineMap, fl)
		cols = append(cols, fc-1-s.Padding)
		buf.WriteString(strings.Repeat(" ", s.Padding))
		buf.Write(s.Value(m.src))
	}
	sub := newMDSource(m.file, []byte(buf.String()), 0, lineMap, cols)
	sub.md = m.md
	saved := ctx.tab
	if tab != "" {
		ctx.tab = tab
	}
	walkMarkdown(sub, ctx, out, depth+1)
	ctx.tab = saved
	if tab != "" {
		ctx.tab = ""
	}
}

// para returns the raw lines of a paragraph with their file lines.
func (m *mdSource) para(n *ast.Paragraph) *mdPara {
	p := &mdPara{}
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		fl, _ := m.filePos(m.bufLine(s.Start), 1)
		p.lines = append(p.lines, strings.TrimRight(string(s.Value(m.src)), "\r\n"))
		p.at = append(p.at, fl)
	}
	return p
}

func (m *mdSource) fenced(n *ast.FencedCodeBlock, ctx *mdContext) *Block {
	b := &Block{File: m.file, Tab: ctx.tab, Summary: ctx.summary, Prose: ctx.prose, Label: ctx.label, Bold: ctx.bold, sec: ctx.sec}
	for _, h := range ctx.headings {
		if h != "" {
			b.Headings = append(b.Headings, h)
		}
	}
	if n.Info != nil {
		info := strings.TrimSpace(string(n.Info.Segment.Value(m.src)))
		if f := strings.Fields(info); len(f) > 0 {
			b.Lang = strings.ToLower(strings.Trim(f[0], "{}."))
		}
	}
	lines := n.Lines()
	// Fence line: the line before the first content line, or the info line.
	fenceLine := -1
	if n.Info != nil {
		fenceLine = m.bufLine(n.Info.Segment.Start)
	} else if lines.Len() > 0 {
		fenceLine = m.bufLine(lines.At(0).Start) - 1
	} else if n.Pos() >= 0 {
		fenceLine = m.bufLine(n.Pos())
	}
	if fenceLine < 0 {
		fenceLine = 0
	}
	indent := 0
	if fenceLine < len(m.starts) {
		for p := m.starts[fenceLine]; p < len(m.src) && m.src[p] == ' '; p++ {
			indent++
		}
	}
	b.Line, b.Col = m.filePos(fenceLine, indent+1)
	b.Text = linesText(lines, m.src)
	// Innermost context first: summary, tab, then headings from the deepest.
	parts := []string{b.Summary, b.Tab}
	for i := len(b.Headings) - 1; i >= 0; i-- {
		parts = append(parts, b.Headings[i])
	}
	ctxText := strings.Join(parts, "\n")
	b.Hardware, b.HardwareFrom, b.HardwareWords = guideHardware(ctxText, b.Summary+" "+b.Tab+" "+lastOf(b.Headings), b.Bold)
	if b.HardwareFrom == "generation" {
		if nb := narrowByProse(b.Hardware, ctx.proseHW); len(nb) < len(b.Hardware) {
			b.Hardware, b.HardwareFrom = nb, "generation+prose"
		}
	}
	if len(b.HardwareWords) == 0 {
		b.ProseHardware = HardwareIDs(b.Prose)
	}
	// (launchRe's matches start with "vllm" or "docker": a text with
	// neither is no launch without running it)
	launches := shellLangs[b.Lang] && (strings.Contains(b.Text, "vllm") || strings.Contains(b.Text, "docker")) && launchRe.MatchString(b.Text)
	if shellLangs[b.Lang] && !launches {
		b.exports = exportOnly(b.Text, b.Line)
	}
	if !launches {
		return b
	}
	b.Candidate = true
	res, err := ParseShell(b.Text)
	if err != nil {
		se, _ := err.(*ShellError)
		line, col := 1, 1
		if se != nil {
			line, col = se.Line, se.Col
		}
		// Map the block line to the file: content line k is fence line + k.
		fl, fc := m.filePos(fenceLine+line, col)
		if bl := fenceLine + line; bl < len(m.starts) && lines.Len() >= line && line >= 1 {
			s := lines.At(line - 1)
			fc += s.Start - m.starts[bl]
		}
		msg := err.Error()
		if se != nil {
			msg = se.Msg
		}
		b.Err = fmt.Errorf("%s:%d:%d: shell: %s", m.file, fl, fc, msg)
		return b
	}
	b.Shell = res
	return b
}

// narrowByProse keeps, of the hardware ids of a GPU generation a block's
// headings, tab or summary name (hw, HardwareFrom "generation"), those the
// prose in effect names (prose: the ids of the latest paragraph since the
// last heading that names a part), when that leaves at least one. A
// section for a generation ("Quantized Variant (NVFP4 on Blackwell)")
// whose text says which part its command is for ("launch the tested B200
// baseline directly", vllm-project/recipes models/MiniMaxAI/MiniMax-M3.yaml)
// is for that part only — B200 and B300 are different SKUs (taxonomy.yaml
// hardware_profiles) — and a later block of the section whose paragraph
// names none ("swap in the GQA variant") stays with the part last named.
// Prose naming only parts outside hw (a comparison with another
// generation) narrows nothing; parts a heading names ("AMD (MI300X /
// MI325X / MI355X)") are not narrowed by prose saying where a command was
// verified (guideHardware "context").
func narrowByProse(hw, prose []string) []string {
	if len(hw) == 0 || len(prose) == 0 {
		return hw
	}
	var out []string
	for _, id := range hw {
		if slices.Contains(prose, id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return hw
	}
	return out
}

var (
	amdHint    = regexp.MustCompile(`(?i)\b(rocm|amd|instinct)\b`)
	nvidiaHint = regexp.MustCompile(`(?i)\b(cuda|nvidia)\b`)
)

// filterBrand keeps the ids of the vendor named by hint ("— ROCm", "AMD",
// "— CUDA", "NVIDIA"); a vendor section under a heading naming only the
// other vendor's GPU has no hardware id.
func filterBrand(ids []string, hint string) []string {
	amd, nv := amdHint.MatchString(hint), nvidiaHint.MatchString(hint)
	if amd == nv {
		return ids
	}
	var out []string
	for _, id := range ids {
		if strings.HasPrefix(id, "mi3") == amd {
			out = append(out, id)
		}
	}
	return out
}
