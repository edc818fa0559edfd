package recipes

// Guide rules: what a reader of a guide (a legacy <Vendor>/<Model>.md or a
// model YAML `guide:`) takes from the text around a launch block, beyond
// the block itself. ParseMarkdown applies them after the walk; the source
// of each rule is the way vllm-project/recipes guides are written (issue
// 12, spec vllm-recipes.md §3).
//
// Section exports. An export-only block — a shell-like fence whose every
// statement is `export NAME=value` (comments and blank lines allowed) —
// applies to every launch block of the same section: the export block's
// heading chain is the launch block's or encloses it (an export under
// "### AMD ROCm" reaches "### AMD ROCm > #### TP8"), and its pymdown tab
// and <details> summary are empty or the launch block's. Position does
// not matter (a reader runs the export block whether it sits before or
// after the serve command); when several export blocks set a name, the
// later one in the file wins, and the launch command's own exports, env
// prefixes and docker -e win over all of them. The variables are merged
// into each ShellCommand.Env with From "section" and Line relative to the
// launch block's fence (Block.Line+Line is the file line of the export
// statement; it is ≤ 0 for an export block above the launch block). A
// `docker run` command gets only the variables it passes through with
// `-e NAME` / `--env NAME` (the container does not inherit the shell).
// Blocks of other sections (siblings, other tabs) never receive them.
//
// Hardware from headings and bold prose: see Block.Hardware, GenerationIDs
// and guideHardware.
//
// Prose deltas: see ProseDelta.

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/launch"
	"mvdan.cc/sh/v3/syntax"
)

// GuideEnv is one variable exported by an export-only block of a guide.
type GuideEnv struct {
	Name  string
	Value string // unquoted text; `${VAR}` and `$(…)` kept as written
	Line  int    // file line of the export statement (1-based)
	Block int    // file line of the export block's opening fence
}

// ProseDelta is a documented alternate of a launch block: a sentence of
// the paragraph right before or right after the fence (nothing but blank
// lines between them) that states one changed setting. GuideDeployments
// renders it as a second deployment with that flag set (replaced when the
// command has it, appended otherwise), whose changed argument's origin is
// the sentence (file:line, text in the Detail).
//
// Supported forms (case-insensitive; backticks and ** removed first):
//
//   - a vLLM option with a value: "--max-model-len 32768",
//     "--max-model-len=32768", "-tp 4" (short aliases and argparse
//     spellings normalised with NormalizeFlag; the option must be in
//     vLLM's option list and take a plain value: letters, digits, . _ : / + -);
//   - "TP=N", "TP N", "tensor parallel size N" (also "tensor-parallel
//     size", "tensor parallelism size of N") → --tensor-parallel-size N.
//
// A flag value that is a plain lower-case word ("use the --cpu-offload-gb
// parameter", "set --tensor-parallel-size to the number of GPUs") is prose,
// not a value. Environment assignments the same sentence states
// ("use HIP_VISIBLE_DEVICES=0,1,2,3 and --tensor-parallel-size 4") go with
// the delta (Env), set in the alternate's worker env.
//
// A sentence is taken only when it holds exactly one such setting, names
// an action ("use", "set", "run(s)", "runs from", "switch/change to",
// "increase/reduce/lower/raise", "pass", "add", "try", "for N GPUs", …),
// has no negation or failure word ("avoid", "not", "never", "instead of",
// "fails", "error", "OOM", …), names no other checkpoint ("variant",
// "checkpoint", an org/model id), and its value differs from the
// command's (an absent --tensor-parallel-size counts as 1). Hardware it
// names ("on H100") becomes the alternate's hardware. A range ("TP=1~2"),
// a placeholder value ("N", "<n>", "$TP") or anything else is ignored.
// Deltas apply only to a block that renders as exactly one deployment.
type ProseDelta struct {
	Flag     string   // canonical vLLM option, e.g. "--tensor-parallel-size"
	Value    string   // its value as written, e.g. "4"
	Hardware []string // hardware ids the sentence names, in order (may be empty)
	Line     int      // file line where the sentence starts (1-based)
	Sentence string   // the sentence, inline markup removed, spaces collapsed
	// Env holds the NAME=value assignments the sentence also states (Line
	// is the sentence's, Block 0).
	Env []GuideEnv
}

// exportOnly returns the variables of an export-only shell block (fence is
// the file line of its opening fence), or nil when the block holds
// anything else or no export with a value.
func exportOnly(text string, fence int) (out []GuideEnv) {
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	if !strings.Contains(text, "export") || checkShellBounds(text) != nil {
		return nil
	}
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil || len(f.Stmts) == 0 {
		return nil
	}
	for _, st := range f.Stmts {
		d, ok := st.Cmd.(*syntax.DeclClause)
		if !ok || d.Variant == nil || d.Variant.Value != "export" || st.Background || st.Negated || len(st.Redirs) > 0 {
			return nil
		}
		for _, a := range d.Args {
			if a.Name == nil || a.Naked {
				continue
			}
			out = setGuideEnv(out, GuideEnv{Name: a.Name.Value, Value: wordText(a.Value, text), Line: fence + int(a.Pos().Line()), Block: fence})
		}
	}
	return out
}

func setGuideEnv(env []GuideEnv, e GuideEnv) []GuideEnv {
	for i := range env {
		if env[i].Name == e.Name {
			env[i] = e
			return env
		}
	}
	return append(env, e)
}

// encloses reports whether the export block e belongs to b's section:
// e's heading chain is b's or a prefix of it, and e's tab and summary are
// empty or b's.
func encloses(e, b *Block) bool {
	deepest := -1
	for i, id := range e.sec {
		if id != 0 {
			deepest = i
		}
	}
	for i := 0; i <= deepest; i++ {
		if e.sec[i] != b.sec[i] {
			return false
		}
	}
	return (e.Tab == "" || e.Tab == b.Tab) && (e.Summary == "" || e.Summary == b.Summary)
}

// linkGuide applies the guide rules to the blocks of one Markdown text (in
// document order): section exports and prose deltas of launch blocks.
func linkGuide(blocks []*Block) {
	for _, b := range blocks {
		if !b.IsLaunch() {
			continue
		}
		var env []GuideEnv
		for _, e := range blocks {
			if e != b && e.exports != nil && encloses(e, b) {
				for _, v := range e.exports {
					env = setGuideEnv(env, v)
				}
			}
		}
		b.SectionEnv = env
		for i := range b.Shell.Commands {
			sc := &b.Shell.Commands[i]
			pass := dockerPassThrough(sc)
			var base []ShellEnv
			for _, v := range env {
				if sc.Image != "" && !pass[v.Name] {
					continue
				}
				base = append(base, ShellEnv{Name: v.Name, Value: v.Value, Line: v.Line - b.Line, From: "section"})
			}
			if len(base) > 0 {
				sc.Env = mergeEnv(base, sc.Env)
			}
		}
		b.Deltas = proseDeltas(b)
	}
}

// dockerPassThrough returns the names a docker run passes from the shell
// (`-e NAME`, `--env NAME`, `--env=NAME`, without a value).
func dockerPassThrough(sc *ShellCommand) map[string]bool {
	m := map[string]bool{}
	for i := 0; i < len(sc.Docker); i++ {
		f, v, eq := strings.Cut(sc.Docker[i], "=")
		if f != "-e" && f != "--env" {
			continue
		}
		if !eq {
			if i+1 >= len(sc.Docker) {
				break
			}
			i++
			v = sc.Docker[i]
		}
		if v != "" && !strings.Contains(v, "=") {
			m[v] = true
		}
	}
	return m
}

var (
	deltaFlagRe  = regexp.MustCompile(`(?:^|[\s(])(--?[A-Za-z][A-Za-z0-9_.-]*)(?:=|\s+)([^\s,;()'"]+)`)
	deltaTPRe    = regexp.MustCompile(`(?i)\bTP\s*(?:=\s*|\s)(\d+)([~/x×-]\d)?|\btensor[- ]parallel(?:ism)?[- ]size(?:\s+of|\s*=|\s+to)?\s+(\d+)([~/x×-]\d)?`)
	deltaValueRe = regexp.MustCompile(`^[A-Za-z0-9_.:/+-]+$`)
	deltaWordRe  = regexp.MustCompile(`^[a-z]+$`)
	deltaEnvRe   = regexp.MustCompile(`(?:^|\s)([A-Z][A-Z0-9_]*[A-Z0-9])=([^\s;()'"]+)`)
	deltaCueRe   = regexp.MustCompile(`(?i)\b(use|using|set|setting|run|runs|running|switch|change|increase|decrease|reduce|raise|lower|pass|add|try|for \d+\s*(?:x\s*)?(?:gpus?|cards?|chips?|devices?))\b|\bruns? (?:from|with|at|on)\b`)
	deltaNegRe   = regexp.MustCompile(`(?i)\b(avoid|avoids|don'?t|do not|does not|doesn'?t|not|never|cannot|can'?t|instead of|without|fail|fails|failed|failure|failures|error|errors|unsupported|crash|crashes|hang|hangs|oom)\b`)
	deltaOtherRe = regexp.MustCompile(`(?i)\b(variant|checkpoint)s?\b`)
	deltaModelRe = regexp.MustCompile(`\b[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]*[0-9][A-Za-z0-9_.-]*`)
	deltaMarkup  = strings.NewReplacer("`", "", "**", "", "__", "")
)

// sentences splits a paragraph into sentences, each with the file line it
// starts on.
func (p *mdPara) sentences() (texts []string, lines []int) {
	var b strings.Builder
	start := -1
	flush := func() {
		if s := strings.Join(strings.Fields(b.String()), " "); s != "" {
			texts = append(texts, s)
			lines = append(lines, start)
		}
		b.Reset()
		start = -1
	}
	for li, l := range p.lines {
		for i := 0; i < len(l); i++ {
			c := l[i]
			if start < 0 && c != ' ' && c != '\t' {
				start = p.at[li]
			}
			b.WriteByte(c)
			if (c == '.' || c == '!' || c == '?') && (i+1 == len(l) || l[i+1] == ' ' || l[i+1] == '\t') {
				flush()
			}
		}
		b.WriteByte(' ')
	}
	flush()
	return texts, lines
}

// deltaSetting parses one sentence into a setting, or ok false.
func deltaSetting(s string) (flag, value string, ok bool) {
	type kv struct{ f, v string }
	var found []kv
	add := func(f, v string) {
		for _, k := range found {
			if k.f == f && k.v == v {
				return
			}
		}
		found = append(found, kv{f, v})
	}
	for _, m := range deltaFlagRe.FindAllStringSubmatch(s, -1) {
		canon, sub, inline := NormalizeFlag(m[1])
		v := strings.TrimRight(m[2], ".:!?")
		if sub != "" || inline != "" || !vllmFlags[canon] || strings.HasPrefix(v, "-") {
			continue
		}
		if deltaWordRe.MatchString(v) {
			continue // an English word after the flag ("use --x flag to …")
		}
		if !deltaValueRe.MatchString(v) || (len(v) <= 2 && strings.ToUpper(v) == v && strings.Trim(v, "0123456789") != "") {
			return "", "", false // a placeholder or a value we cannot read
		}
		add(canon, v)
	}
	for _, m := range deltaTPRe.FindAllStringSubmatch(s, -1) {
		if m[2] != "" || m[4] != "" {
			return "", "", false // a range or a product ("TP=1~2", "TP 2x4")
		}
		add("--tensor-parallel-size", m[1]+m[3])
	}
	if len(found) != 1 {
		return "", "", false
	}
	return found[0].f, found[0].v, true
}

// proseDeltas reads the sentences right before and after launch block b.
func proseDeltas(b *Block) []ProseDelta {
	if len(b.Shell.Commands) == 0 {
		return nil
	}
	var out []ProseDelta
	for _, p := range []*mdPara{b.before, b.after} {
		if p == nil {
			continue
		}
		texts, lines := p.sentences()
		for i, raw := range texts {
			s := strings.Join(strings.Fields(deltaMarkup.Replace(raw)), " ")
			if !deltaCueRe.MatchString(s) || deltaNegRe.MatchString(s) || deltaOtherRe.MatchString(s) || otherModel(s) {
				continue
			}
			flag, val, ok := deltaSetting(s)
			if !ok || commandValue(b, &b.Shell.Commands[0], flag) == val {
				continue
			}
			hw := HardwareIDs(s)
			for _, id := range GenerationIDs(s) {
				if !slices.Contains(hw, id) {
					hw = append(hw, id)
				}
			}
			pd := ProseDelta{Flag: flag, Value: val, Hardware: hw, Line: lines[i], Sentence: s}
			for _, m := range deltaEnvRe.FindAllStringSubmatch(s, -1) {
				if m[1] != "TP" {
					pd.Env = setGuideEnv(pd.Env, GuideEnv{Name: m[1], Value: strings.TrimRight(m[2], ".,:!?"), Line: lines[i]})
				}
			}
			out = append(out, pd)
		}
	}
	return out
}

// otherModel reports an org/model id in s (hardware pairs such as
// "H100/H200" are not ids).
func otherModel(s string) bool {
	for _, m := range deltaModelRe.FindAllString(s, -1) {
		if strings.Contains(m, "://") || strings.HasPrefix(m, "--") {
			continue
		}
		if len(HardwareWords(m)) == 0 {
			return true
		}
	}
	return false
}

// commandValue returns the value of canonical flag in sc's arguments
// (variables of the block resolved); an absent --tensor-parallel-size is
// "1", another absent flag "".
func commandValue(b *Block, sc *ShellCommand, flag string) string {
	for i, a := range sc.Args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, inl, eq := strings.Cut(a, "=")
		canon, sub, inline := NormalizeFlag(name)
		if canon != flag || sub != "" {
			continue
		}
		switch {
		case eq:
			return b.Shell.Resolve(inl)
		case inline != "":
			return inline
		case i+1 < len(sc.Args):
			return b.Shell.Resolve(sc.Args[i+1])
		}
		return ""
	}
	if flag == "--tensor-parallel-size" {
		return "1"
	}
	return ""
}

// GuideDeployments is BlockDeployments with the guide rules applied: the
// env a section's export blocks contribute carries the origin of its
// export statement (file:line, Detail naming the export block), and, when
// the block renders as exactly one deployment, each ProseDelta adds an
// alternate deployment after it: a deep copy whose worker processes have
// the delta's flag set (origin: the sentence's file:line, Detail
// "prose delta: <sentence>"), Source.Section suffixed " [<flag> <value>]",
// Hardware the sentence's first hardware id when it names one, and a Note
// citing the sentence. It returns nil for a block without launch commands.
func GuideDeployments(b *Block) []launch.Deployment {
	deps := BlockDeployments(b)
	if len(b.SectionEnv) > 0 {
		byLine := map[string]*ShellCommand{}
		for i := range b.Shell.Commands {
			sc := &b.Shell.Commands[i]
			byLine[fmt.Sprintf("%s:%d", b.File, b.Line+sc.Line)] = sc
		}
		for di := range deps {
			for pi := range deps[di].Processes {
				p := &deps[di].Processes[pi]
				sc := byLine[p.Origin.Path]
				if sc == nil {
					continue
				}
				for ei := range p.Env {
					for _, se := range sc.Env {
						if se.From == "section" && se.Name == p.Env[ei].Name {
							p.Env[ei].Origin = launch.Origin{Kind: launch.OriginRecipe, Path: fmt.Sprintf("%s:%d", b.File, b.Line+se.Line),
								Detail: fmt.Sprintf("export block at %s:%d, same section", b.File, exportBlockLine(b, se))}
						}
					}
				}
			}
		}
	}
	if len(deps) != 1 {
		return deps
	}
	for _, pd := range b.Deltas {
		deps = append(deps, alternate(deps[0], b, pd))
	}
	return deps
}

func exportBlockLine(b *Block, se ShellEnv) int {
	for _, v := range b.SectionEnv {
		if v.Name == se.Name && v.Line == b.Line+se.Line {
			return v.Block
		}
	}
	return b.Line + se.Line
}

// alternate renders base with delta pd.
func alternate(base launch.Deployment, b *Block, pd ProseDelta) launch.Deployment {
	o := launch.Origin{Kind: launch.OriginRecipe, Path: fmt.Sprintf("%s:%d", b.File, pd.Line), Detail: "prose delta: " + pd.Sentence}
	alt := base
	alt.Notes = append(slices.Clone(base.Notes), fmt.Sprintf("alternate rendering of the block at %s:%d with %s %s, as stated at %s:%d: %s",
		b.File, b.Line, pd.Flag, pd.Value, b.File, pd.Line, strconv.Quote(pd.Sentence)))
	alt.Source.Section += " [" + pd.Flag + " " + pd.Value + "]"
	if len(pd.Hardware) > 0 {
		alt.Hardware = pd.Hardware[0]
	}
	alt.Processes = make([]launch.Process, len(base.Processes))
	for i, p := range base.Processes {
		p.Env = slices.Clone(p.Env)
		if p.Kind != launch.KindWorker {
			p.Args = slices.Clone(p.Args)
			alt.Processes[i] = p
			continue
		}
		var args []launch.Arg
		set := false
		for _, a := range p.Args {
			name, _, _ := strings.Cut(a.Flag, "=")
			if canon, sub, _ := NormalizeFlag(name); a.Flag != "" && canon == pd.Flag && sub == "" {
				if !set {
					args = append(args, launch.Arg{Flag: pd.Flag, Values: []string{pd.Value}, Origin: o})
					set = true
				}
				continue
			}
			a.Values = slices.Clone(a.Values)
			args = append(args, a)
		}
		if !set {
			args = append(args, launch.Arg{Flag: pd.Flag, Values: []string{pd.Value}, Origin: o})
		}
		p.Args = args
		for _, e := range pd.Env {
			ev := launch.EnvVar{Name: e.Name, Value: e.Value, Origin: o}
			if j := slices.IndexFunc(p.Env, func(x launch.EnvVar) bool { return x.Name == e.Name }); j >= 0 {
				p.Env[j] = ev
			} else {
				p.Env = append(p.Env, ev)
			}
		}
		alt.Processes[i] = p
	}
	return alt
}
