package recipes

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ShellEnv is one environment assignment that applies to a launch command:
// an env prefix (`VAR=x vllm serve …`), an earlier `export VAR=x` in the
// same block, a docker `-e VAR=x`, or (added by ParseMarkdown) an export
// of an export-only block of the same guide section.
type ShellEnv struct {
	Name  string
	Value string // unquoted text; `${VAR}` and `$(…)` are kept as written
	// Line is the 1-based line in the block (0 = unknown, docker -e); for
	// From "section" it is relative to the launch block's fence and may be
	// ≤ 0 (Block.Line+Line is the file line of the export statement).
	Line int
	From string // "prefix", "export", "docker" or "section"
}

// ShellCommand is one command of a shell block that launches a vLLM server:
// `vllm serve`, `python -m vllm.entrypoints.openai.api_server`,
// `python -m dynamo.vllm`, or `docker run … vllm/vllm-* …` whose entrypoint
// is `vllm serve` (vllm-project/recipes legacy guides, spec §2.2).
type ShellCommand struct {
	Line, Col  int    // 1-based position of the command in the block text
	Kind       string // "vllm serve", "api_server", "dynamo.vllm"
	Program    string // e.g. "vllm serve", "python3 -m vllm.entrypoints.openai.api_server"
	Model      string // the positional model argument, or the --model value
	Positional bool   // the model was given positionally
	Args       []string
	Env        []ShellEnv
	Docker     []string // docker run flags before the image (docker form only)
	Image      string   // docker image (docker form only)
	Comments   []string // comment lines just before the command ("# node 0")
	Background bool     // ended with &
}

// ShellResult is what ParseShell finds in one block.
type ShellResult struct {
	Commands []ShellCommand
	// Fixes lists what the lenient pass changed before parsing, each as
	// "line N: reason" (a `\` followed by spaces, a dangling `\`, a
	// `<placeholder>` token).
	Fixes []string
	// Vars holds plain shell assignments and exports (`DTYPE="FP4"`) that
	// are assigned exactly once in the block; a variable assigned in both
	// branches of an if is left out.
	Vars map[string]string
	// Values holds every distinct value assigned to each variable, in
	// order (both branches of an if/else: DTYPE → [FP4 FP8]).
	Values map[string][]string
}

var varRefRe = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// Resolve substitutes $VAR and ${VAR} in s with the block's single-valued
// variables (Vars); other references stay as written.
func (r *ShellResult) Resolve(s string) string {
	if r == nil || !strings.Contains(s, "$") {
		return s
	}
	return varRefRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := varRefRe.FindStringSubmatch(m)
		name := sub[1] + sub[2]
		if v, ok := r.Vars[name]; ok {
			return v
		}
		return m
	})
}

// ShellError is an unparsable shell block; Line and Col are 1-based in the
// block text.
type ShellError struct {
	Line, Col int
	Msg       string
}

// Error gives "line:col: message" (block-relative).
func (e *ShellError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

var placeholderRe = regexp.MustCompile(`^<[A-Za-z_][A-Za-z0-9_.:/\-]*(?: [A-Za-z0-9_.:/\-]+)*>`)

// lenient applies the documented repairs (spec §5.4, §5.8) so POSIX parsing
// matches what the author meant; it returns the repaired text and the notes.
func lenient(src string) (string, []string) {
	var fixes []string
	lines := strings.Split(src, "\n")
	lastNonBlank := -1
	for i, l := range lines {
		trimmed := strings.TrimRight(l, " \t\r")
		if strings.HasSuffix(trimmed, "\\") && len(trimmed) < len(strings.TrimRight(l, "\r")) {
			fixes = append(fixes, fmt.Sprintf("line %d: `\\` followed by trailing spaces (bash would end the command here); read as a continuation", i+1))
			lines[i] = trimmed
		}
		if strings.TrimSpace(l) != "" {
			lastNonBlank = i
		}
	}
	for i, l := range lines {
		if !strings.HasSuffix(l, "\\") || strings.HasSuffix(l, "\\\\") {
			continue
		}
		if i == lastNonBlank || (i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == "" && i < lastNonBlank) {
			if i == lastNonBlank {
				fixes = append(fixes, fmt.Sprintf("line %d: dangling `\\` at the end of the block", i+1))
				lines[i] = strings.TrimSuffix(l, "\\")
			} else {
				fixes = append(fixes, fmt.Sprintf("line %d: `\\` followed by a blank line", i+1))
			}
		}
	}
	src = strings.Join(lines, "\n")
	// Quote <placeholder> tokens outside quotes and comments.
	var b strings.Builder
	const (
		none = iota
		single
		double
	)
	state := none
	line := 1
	wordStart := true
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '\n' {
			line++
		}
		switch state {
		case single:
			if c == '\'' {
				state = none
			}
			b.WriteByte(c)
			continue
		case double:
			if c == '\\' && i+1 < len(src) {
				b.WriteByte(c)
				i++
				if src[i] == '\n' {
					line++
				}
				b.WriteByte(src[i])
				continue
			}
			if c == '"' {
				state = none
			}
			b.WriteByte(c)
			continue
		}
		switch {
		case c == '\\' && i+1 < len(src):
			b.WriteByte(c)
			i++
			if src[i] == '\n' {
				line++
			}
			b.WriteByte(src[i])
			wordStart = false
			continue
		case c == '\'':
			state = single
		case c == '"':
			state = double
		case c == '#' && wordStart:
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				j = len(src) - i
			}
			b.WriteString(src[i : i+j])
			i += j - 1
			continue
		case c == '<':
			if m := placeholderRe.FindString(src[i:]); m != "" {
				fixes = append(fixes, fmt.Sprintf("line %d: placeholder %s kept as a literal", line, m))
				b.WriteString("'" + m + "'")
				i += len(m) - 1
				wordStart = false
				continue
			}
		}
		b.WriteByte(c)
		wordStart = c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')'
	}
	return b.String(), fixes
}

// ParseShell parses the text of one fenced block as bash (mvdan.cc/sh/v3
// syntax, comments kept) after the lenient repairs, and returns its launch
// commands with the env prefixes and the `export`s before each. Errors are
// *ShellError with the block line:col; it never panics on input.
//
// When the block does not parse as a whole (prose swallowed by a fence
// closed on a command line, an error log), each launch statement — the
// line that starts it plus its `\` continuations, with a trailing "```"
// removed — is parsed on its own; the failure is noted in Fixes. The error
// is returned only when a launch statement itself cannot be parsed.
func ParseShell(src string) (res *ShellResult, err error) {
	res, err = parseShellStrict(src)
	if err == nil {
		return res, nil
	}
	whole := err.(*ShellError)
	lines := strings.Split(src, "\n")
	out := &ShellResult{Vars: map[string]string{}, Fixes: []string{fmt.Sprintf("line %d: block does not parse as a whole (%s); launch statements parsed one by one", whole.Line, whole.Msg)}}
	var exports []ShellEnv
	for i := 0; i < len(lines); i++ {
		j := i
		for j < len(lines) && strings.HasSuffix(strings.TrimRight(lines[j], " \t"), "\\") {
			j++
		}
		if j >= len(lines) {
			j = len(lines) - 1
		}
		stmt := strings.Join(lines[i:j+1], "\n")
		if k := strings.Index(stmt, "```"); k >= 0 {
			stmt = stmt[:k]
			out.Fixes = append(out.Fixes, fmt.Sprintf("line %d: fence closed on a command line", i+1))
		}
		trim := strings.TrimSpace(stmt)
		if strings.HasPrefix(trim, "export ") {
			if r, e := parseShellStrict(stmt); e == nil {
				_ = r
				for _, l := range strings.Fields(strings.TrimPrefix(trim, "export ")) {
					if k, v, ok := strings.Cut(l, "="); ok {
						exports = setEnv(exports, ShellEnv{Name: k, Value: strings.Trim(v, `"'`), Line: i + 1, From: "export"})
					}
				}
			}
		}
		if launchRe.MatchString(stmt) && !strings.HasPrefix(trim, "#") {
			r, e := parseShellStrict(stmt)
			if e != nil {
				se := e.(*ShellError)
				return nil, &ShellError{Line: i + se.Line, Col: se.Col, Msg: se.Msg}
			}
			out.Fixes = append(out.Fixes, r.Fixes...)
			for _, c := range r.Commands {
				c.Line += i
				c.Env = mergeEnv(exports, c.Env)
				out.Commands = append(out.Commands, c)
			}
		}
		i = j
	}
	if len(out.Commands) == 0 {
		return nil, whole
	}
	return out, nil
}

func mergeEnv(base, over []ShellEnv) []ShellEnv {
	out := append([]ShellEnv(nil), base...)
	for _, e := range over {
		out = setEnv(out, e)
	}
	return out
}

func parseShellStrict(src string) (res *ShellResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &ShellError{Line: 1, Col: 1, Msg: fmt.Sprint("shell parser failure: ", r)}
		}
	}()
	if e := checkShellBounds(src); e != nil {
		return nil, e
	}
	fixed, fixes := lenient(src)
	p := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash))
	f, perr := p.Parse(strings.NewReader(fixed), "")
	if perr != nil {
		var pe syntax.ParseError
		if errors.As(perr, &pe) {
			return nil, &ShellError{Line: int(pe.Pos.Line()), Col: int(pe.Pos.Col()), Msg: pe.Text}
		}
		var le syntax.LangError
		if errors.As(perr, &le) {
			return nil, &ShellError{Line: int(le.Pos.Line()), Col: int(le.Pos.Col()), Msg: le.Error()}
		}
		return nil, &ShellError{Line: 1, Col: 1, Msg: perr.Error()}
	}
	res = &ShellResult{Fixes: fixes, Vars: map[string]string{}, Values: map[string][]string{}}
	assigned := map[string]int{}
	assign := func(name, val string) {
		if !contains(res.Values[name], val) {
			res.Values[name] = append(res.Values[name], val)
		}
		assigned[name]++
		if assigned[name] == 1 {
			res.Vars[name] = val
		} else {
			delete(res.Vars, name)
		}
	}
	// Pre-pass: variables assigned exactly once in the block, and where.
	once := map[string]int{}
	onceLine := map[string]uint{}
	syntax.Walk(f, func(n syntax.Node) bool {
		note := func(a *syntax.Assign) {
			if a.Name != nil && !a.Naked {
				once[a.Name.Value]++
				onceLine[a.Name.Value] = a.Pos().Line()
			}
		}
		switch n := n.(type) {
		case *syntax.DeclClause:
			if n.Variant != nil && n.Variant.Value == "export" {
				for _, a := range n.Args {
					note(a)
				}
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				for _, a := range n.Assigns {
					note(a)
				}
			}
		}
		return true
	})
	var exports []ShellEnv
	var cur *syntax.Stmt
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			cur = n
		case *syntax.DeclClause:
			if n.Variant != nil && n.Variant.Value == "export" {
				for _, a := range n.Args {
					if a.Name == nil || a.Naked {
						continue
					}
					v := wordText(a.Value, fixed)
					exports = setEnv(exports, ShellEnv{Name: a.Name.Value, Value: v, Line: int(a.Pos().Line()), From: "export"})
					assign(a.Name.Value, v)
				}
			}
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				for _, a := range n.Assigns {
					if a.Name != nil {
						assign(a.Name.Value, wordText(a.Value, fixed))
					}
				}
				return true
			}
			line := n.Pos().Line()
			vars := func(name string) (string, bool) {
				if once[name] != 1 || onceLine[name] >= line {
					return "", false
				}
				v, ok := res.Vars[name]
				return v, ok
			}
			words := make([]string, len(n.Args))
			for i, w := range n.Args {
				words[i] = wordTextVars(w, fixed, vars)
			}
			env := append([]ShellEnv(nil), exports...)
			for _, a := range n.Assigns {
				if a.Name != nil {
					env = setEnv(env, ShellEnv{Name: a.Name.Value, Value: wordText(a.Value, fixed), Line: int(a.Pos().Line()), From: "prefix"})
				}
			}
			sc, ok := launchCommand(words, env)
			if !ok {
				return true
			}
			sc.Line, sc.Col = int(n.Pos().Line()), int(n.Pos().Col())
			if cur != nil {
				sc.Background = cur.Background
				for _, c := range cur.Comments {
					if c.Hash.Line() < cur.Pos().Line() {
						sc.Comments = append(sc.Comments, strings.TrimSpace(c.Text))
					}
				}
			}
			res.Commands = append(res.Commands, sc)
		}
		return true
	})
	return res, nil
}

func setEnv(env []ShellEnv, e ShellEnv) []ShellEnv {
	for i := range env {
		if env[i].Name == e.Name {
			env[i] = e
			return env
		}
	}
	return append(env, e)
}

// wordText gives the shell word as one string with quotes removed; parameter
// expansions and command substitutions keep their source text.
func wordText(w *syntax.Word, src string) string { return wordTextVars(w, src, nil) }

// wordTextVars is wordText that expands simple $NAME / ${NAME} references
// (unquoted or in double quotes, as the shell would) with vars.
func wordTextVars(w *syntax.Word, src string, vars func(name string) (string, bool)) string {
	if w == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range w.Parts {
		partText(&b, p, src, false, vars)
	}
	return b.String()
}

func simpleParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil && !p.Excl && !p.Length && !p.Width && !p.IsSet &&
		p.NestedParam == nil && p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil &&
		p.Repl == nil && p.Names == 0 && p.Exp == nil
}

func partText(b *strings.Builder, p syntax.WordPart, src string, inDbl bool, vars func(string) (string, bool)) {
	switch p := p.(type) {
	case *syntax.Lit:
		b.WriteString(unescape(p.Value, inDbl))
	case *syntax.SglQuoted:
		b.WriteString(p.Value)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			partText(b, q, src, true, vars)
		}
	case *syntax.ParamExp:
		if vars != nil && simpleParam(p) {
			if v, ok := vars(p.Param.Value); ok {
				b.WriteString(v)
				return
			}
		}
		s, e := int(p.Pos().Offset()), int(p.End().Offset())
		if s >= 0 && e <= len(src) && s <= e {
			b.WriteString(src[s:e])
		}
	default:
		s, e := int(p.Pos().Offset()), int(p.End().Offset())
		if s >= 0 && e <= len(src) && s <= e {
			b.WriteString(src[s:e])
		}
	}
}

func unescape(s string, inDbl bool) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			n := s[i+1]
			if n == '\n' {
				i++
				continue
			}
			if !inDbl || n == '"' || n == '\\' || n == '$' || n == '`' {
				b.WriteByte(n)
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// dockerValueFlags are docker run flags that take a separate value.
var dockerValueFlags = map[string]bool{
	"-e": true, "--env": true, "-v": true, "--volume": true, "-p": true, "--publish": true,
	"--name": true, "--gpus": true, "--ipc": true, "--shm-size": true, "--entrypoint": true,
	"--network": true, "--net": true, "--device": true, "--group-add": true, "--security-opt": true,
	"--runtime": true, "-w": true, "--workdir": true, "--ulimit": true, "--env-file": true,
	"--cap-add": true, "--cap-drop": true, "--mount": true, "--user": true, "-u": true, "--platform": true,
	"--memory": true, "-m": true, "--cpus": true, "--restart": true, "--label": true, "-l": true,
	"--hostname": true, "-h": true, "--add-host": true, "--pid": true, "--uts": true, "--tmpfs": true,
	"--log-driver": true, "--log-opt": true, "--cpuset-cpus": true, "--pull": true,
}

// isVLLMImage reports a vLLM server image (vllm/vllm-openai, vllm-openai-rocm,
// vllm-tpu, vllm-openai-cpu, …, or a rocm/vllm image).
func isVLLMImage(img string) bool {
	l := strings.ToLower(img)
	return strings.Contains(l, "vllm/vllm-") || strings.Contains(l, "rocm/vllm") || strings.Contains(l, "vllm-openai")
}

func isPython(w string) bool {
	return w == "python" || w == "python3" || strings.HasPrefix(w, "python3.")
}

// launchCommand recognises a launch in words; env holds prefixes/exports.
func launchCommand(words []string, env []ShellEnv) (ShellCommand, bool) {
	for len(words) > 0 {
		switch words[0] {
		case "sudo", "nohup", "exec", "time", "command":
			words = words[1:]
			continue
		case "env":
			words = words[1:]
			for len(words) > 0 {
				w := words[0]
				switch {
				case strings.Contains(w, "=") && !strings.HasPrefix(w, "-"):
					k, v, _ := strings.Cut(w, "=")
					env = setEnv(env, ShellEnv{Name: k, Value: v, From: "prefix"})
				case w == "-i" || w == "--ignore-environment" || w == "-":
					env = nil // the command starts from an empty environment
				case (w == "-u" || w == "--unset") && len(words) > 1:
					env = unsetEnv(env, words[1])
					words = words[1:]
				case strings.HasPrefix(w, "--unset="):
					env = unsetEnv(env, strings.TrimPrefix(w, "--unset="))
				case strings.HasPrefix(w, "-u") && len(w) > 2:
					env = unsetEnv(env, w[2:])
				case w == "--":
					words = words[1:]
					goto done
				default:
					goto done
				}
				words = words[1:]
			}
		done:
			continue
		}
		break
	}
	sc := ShellCommand{Env: env}
	switch {
	case len(words) >= 2 && words[0] == "vllm" && words[1] == "serve":
		sc.Kind, sc.Program = "vllm serve", "vllm serve"
		setEngineArgs(&sc, words[2:])
		return sc, true
	case len(words) >= 3 && isPython(words[0]) && words[1] == "-m" && words[2] == "vllm.entrypoints.openai.api_server":
		sc.Kind, sc.Program = "api_server", strings.Join(words[:3], " ")
		setEngineArgs(&sc, words[3:])
		return sc, true
	case len(words) >= 3 && isPython(words[0]) && words[1] == "-m" && words[2] == "dynamo.vllm":
		sc.Kind, sc.Program = "dynamo.vllm", strings.Join(words[:3], " ")
		setEngineArgs(&sc, words[3:])
		return sc, true
	case len(words) >= 2 && words[0] == "docker" && words[1] == "run":
		i := 2
		entry := ""
		for i < len(words) && strings.HasPrefix(words[i], "-") {
			w := words[i]
			flag, val, hasEq := strings.Cut(w, "=")
			if !hasEq && dockerValueFlags[flag] && i+1 < len(words) {
				val = words[i+1]
				sc.Docker = append(sc.Docker, w, val)
				i += 2
			} else {
				sc.Docker = append(sc.Docker, w)
				i++
			}
			switch flag {
			case "-e", "--env":
				if k, v, ok := strings.Cut(val, "="); ok {
					sc.Env = setEnv(sc.Env, ShellEnv{Name: k, Value: v, From: "docker"})
				}
			case "--entrypoint":
				entry = val
			}
		}
		if i >= len(words) || !isVLLMImage(words[i]) {
			return sc, false
		}
		sc.Image = words[i]
		rest := words[i+1:]
		if entry != "" && !strings.Contains(entry, "vllm") {
			return sc, false // --entrypoint /bin/bash: the serve command is elsewhere
		}
		sc.Kind = "vllm serve"
		sc.Program = "vllm serve"
		if len(rest) >= 2 && rest[0] == "vllm" && rest[1] == "serve" {
			rest = rest[2:]
		} else if len(rest) > 0 && (rest[0] == "bash" || rest[0] == "sh" || rest[0] == "/bin/bash") {
			return sc, false
		}
		setEngineArgs(&sc, rest)
		return sc, true
	}
	return sc, false
}

func setEngineArgs(sc *ShellCommand, rest []string) {
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		sc.Model, sc.Positional = rest[0], true
		rest = rest[1:]
	}
	sc.Args = rest
	if !sc.Positional {
		for i, a := range rest {
			if a == "--model" && i+1 < len(rest) {
				sc.Model = rest[i+1]
			} else if strings.HasPrefix(a, "--model=") {
				sc.Model = strings.TrimPrefix(a, "--model=")
			}
		}
	}
}

// unsetEnv drops name from env (an `env -u NAME` wrapper).
func unsetEnv(env []ShellEnv, name string) []ShellEnv {
	out := env[:0:0]
	for _, e := range env {
		if e.Name != name {
			out = append(out, e)
		}
	}
	return out
}
