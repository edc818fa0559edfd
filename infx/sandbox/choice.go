package sandbox

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cookbook-sync/cookbook-sync/infx/shellutil"
	"mvdan.cc/sh/v3/syntax"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/syntaxwalk"
)

// This file holds the choice points of a run (Config.Choose): a probe or a
// read whose answer depends on a fact the sandbox does not know, but whose
// possible answers are few and documented, is answered with the
// alternative Config.Choices selects and recorded in Trace.Choices, so
// that the caller runs the script once per answer and never takes one for
// the fact. Two kinds:
//   - a hardware probe whose fact the runner table leaves out but lists
//     the alternatives of (shellutil.ChoiceFor: `rocm-smi --showfw`, `df`
//     of /dev/shm, nicctl and `command -v nicctl`); a machine fact keeps
//     its first answer for the rest of the run (chooseFact);
//   - a condition (if/elif, while/until, the left of && / ||) whose status
//     depends on a read of a file of the container image (outside the
//     checkout and the read roots; not /proc, /sys, /dev, a clone or a
//     staged checkpoint): the condition true, or false. Only a condition
//     that cannot do anything but give a status is one (markConditions):
//     its commands are read-only text tools, tests and echo/printf,
//     without an assignment, a redirection to a file, a function call or
//     a background job, and it prints nothing on its standard output. A
//     value read from the unknown file elsewhere (an assignment, the
//     condition's body) stays Unsupported.

// DefaultMaxChoices is Config.MaxChoices' default: the choice points one
// run may reach before it stops as Unsupported.
const DefaultMaxChoices = 16

// Choice is one choice point of a run (Trace.Choices): where the answer
// that is not known was asked, what is not known, the alternatives in the
// order Config.Choices numbers them, and the one the run took.
type Choice struct {
	Pos Pos `json:"at"`
	// Command is the command that asked, as written (shortened).
	Command string `json:"command"`
	// Fact says what is not known.
	Fact string `json:"fact"`
	// Answers are the alternatives, for a reader.
	Answers []string `json:"answers"`
	// Taken is the index of the alternative the run took.
	Taken int `json:"taken"`
	// Cond is, for a condition, where the condition is written (zero for
	// a probe).
	Cond Pos `json:"cond,omitzero"`
}

// String gives "fact (command at file:line:col)".
func (c Choice) String() string {
	return fmt.Sprintf("%s (%s at %s)", c.Fact, c.Command, c.Pos)
}

// Answer is the alternative the run took.
func (c Choice) Answer() string {
	if c.Taken >= 0 && c.Taken < len(c.Answers) {
		return c.Answers[c.Taken]
	}
	return ""
}

// choose records a choice point (sb.mu held) and returns the alternative
// to take: Config.Choices' entry for its index, else 0. ok is false when
// the run is past Config.MaxChoices: the run is stopped as Unsupported.
func (sb *sandbox) choose(ch Choice) (int, bool) {
	if sb.closed {
		return 0, false
	}
	n := len(sb.run.Choices)
	k := 0
	if n < len(sb.cfg.Choices) {
		k = sb.cfg.Choices[n]
		if k < 0 || k >= len(ch.Answers) {
			k = 0
		}
	}
	ch.Taken = k
	sb.run.Choices = append(sb.run.Choices, ch)
	limit := sb.cfg.MaxChoices
	if limit <= 0 {
		limit = DefaultMaxChoices
	}
	if n+1 > limit {
		if sb.stopReason == nil {
			sb.stopReason = &Unsupported{Pos: ch.Pos, Command: ch.Command, Msg: fmt.Sprintf("more than %d choice points (%s): the runs of every answer are past the bound", limit, choiceSites(sb.run.Choices))}
		}
		sb.stop()
		return 0, false
	}
	return k, true
}

// choiceSites names the distinct choice points of a list, in order.
func choiceSites(cs []Choice) string {
	seen := map[string]bool{}
	var out []string
	for _, c := range cs {
		s := c.String()
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

// probeChoice answers a probe whose fact is a choice (shellutil.ChoiceFor)
// with the machine of the alternative taken; ok=false when the probe is no
// choice (or choices are off). A run past the bound is stopped (stopped).
func (sb *sandbox) probeChoice(c *Call) (facts shellutil.Facts, ok, stopped bool) {
	if !sb.cfg.Choose {
		return sb.facts, false, false
	}
	fc, isChoice := shellutil.ChoiceFor(c.Args, sb.facts)
	if !isChoice {
		return sb.facts, false, false
	}
	sb.mu.Lock()
	k, more := sb.chooseFact(c.Pos, strings.Join(ShortArgv(c.Args), " "), fc)
	sb.mu.Unlock()
	if !more {
		return sb.facts, false, true
	}
	return fc.Machines[k], true, false
}

// chooseFact is choose for a machine fact (sb.mu held): a fact asked
// again in the same run — by the same probe or another, on any node of
// the job (its machines are alike) — keeps the answer it got the first
// time, without a new choice point.
func (sb *sandbox) chooseFact(at Pos, command string, fc shellutil.FactChoice) (int, bool) {
	if k, ok := sb.factAnswers[fc.Fact]; ok {
		return k, true
	}
	k, ok := sb.choose(Choice{Pos: at, Command: command, Fact: fc.Fact, Answers: fc.Answers})
	if ok {
		if sb.factAnswers == nil {
			sb.factAnswers = map[string]int{}
		}
		sb.factAnswers[fc.Fact] = k
	}
	return k, ok
}

// Guard commands of a condition whose outcome may be a choice
// (markConditions): condBeginCmd MARKER opens it, condEndCmd MARKER "$?"
// closes it and gives its status (the status the condition had, or the
// alternative taken when a read in it was not known); condStatusCmd N is
// the command that exits N.
const (
	condBeginCmd  = "__cookbook_sync_cond_begin"
	condEndCmd    = "__cookbook_sync_cond_end"
	condStatusCmd = "__cookbook_sync_cond_status"
	// bgCmd + or - brackets a background compound statement (`( … ) &`):
	// while one runs, no read is covered (coverUnknown cannot tell which
	// goroutine a read comes from).
	bgCmd = "__cookbook_sync_bg"
)

// condScope is a condition of markConditions being evaluated.
type condScope struct {
	id string // its marker word
	at Pos
	// impure: a command in it has a side effect its words did not show
	// (sed -i, printf -v …, found at run time): a read in it is not
	// covered.
	impure bool
	// taint is the first read in it the sandbox could not answer.
	taint *condTaint
}

// condTaint is a read in a condition the sandbox could not answer.
type condTaint struct {
	at      Pos
	command string
	name    string // the file
	why     string
}

// coverUnknown reports whether an unknown read u by command at is inside
// exactly one open condition (markConditions) that has had no side
// effect, and u is of a file of the container image: then the condition
// is marked and its outcome becomes a choice at its end, and the command
// answers with no output and status 1 (which the choice overrides).
func (sb *sandbox) coverUnknown(at Pos, command string, u *unknownRead) bool {
	if !sb.cfg.Choose || u == nil || !u.image {
		return false
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if len(sb.conds) != 1 || sb.conds[0].impure || sb.bgRunning > 0 || sb.closed || sb.stopReason != nil {
		return false
	}
	s := sb.conds[0]
	if s.taint == nil {
		s.taint = &condTaint{at: at, command: command, name: u.name, why: u.why}
	}
	return true
}

// condCommand watches a command run inside an open condition (sb.mu
// held): one with a side effect its words did not show (sed -i, printf
// -v, tail -f) makes the condition impure; after a read the sandbox could
// not answer, that is Unsupported (what the command does depends on the
// unknown content).
func (sb *sandbox) condCommand(at Pos, args []string) error {
	if len(sb.conds) == 0 || !sideEffect(args) {
		return nil
	}
	for _, s := range sb.conds {
		s.impure = true
		if s.taint != nil {
			if sb.stopReason == nil {
				sb.stopReason = &Unsupported{Pos: at, Command: args[0], Msg: fmt.Sprintf("%s in a condition whose outcome depends on %s, which is not known (%s): a command with a side effect there", strings.Join(ShortArgv(args), " "), s.taint.name, s.taint.why)}
			}
			sb.stop()
			return errStopped
		}
	}
	return nil
}

// sideEffect reports whether a command of condPure's list has a side
// effect by its arguments: sed -i (in place), printf -v (an
// assignment), tail -f (never ends).
func sideEffect(args []string) bool {
	switch args[0] {
	case "sed":
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--in-place") || a == "-s" || a == "--separate" || strings.HasPrefix(a, "--follow") {
				return true
			}
		}
	case "printf":
		return len(args) > 1 && args[1] == "-v"
	case "tail":
		for _, a := range args[1:] {
			if a == "-f" || a == "-F" || strings.HasPrefix(a, "--follow") || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "fF") {
				return true
			}
		}
	}
	return false
}

// condGuard answers condBeginCmd and condEndCmd (sb.mu held): out is the
// command to run in place of it (":" or the status of the condition).
func (sb *sandbox) condGuard(args []string) (out []string, err error) {
	if len(args) < 2 {
		return sb.colonCmd(), nil
	}
	if args[0] == bgCmd {
		if args[1] == "+" {
			sb.bgRunning++
			// $! is the interpreter's after a compound background
			// statement (bgjobs.go).
			return []string{"unset", bgPIDVar}, nil
		} else {
			sb.bgRunning--
		}
		return sb.colonCmd(), nil
	}
	at, _ := sb.decodeMarker(args[1])
	if args[0] == condBeginCmd {
		sb.conds = append(sb.conds, &condScope{id: args[1], at: at})
		return sb.colonCmd(), nil
	}
	status := 0
	if len(args) > 2 {
		status, _ = strconv.Atoi(args[2])
	}
	var s *condScope
	for i := len(sb.conds) - 1; i >= 0; i-- {
		if sb.conds[i].id == args[1] {
			s = sb.conds[i]
			sb.conds = append(sb.conds[:i:i], sb.conds[i+1:]...)
			break
		}
	}
	if s != nil && s.taint != nil {
		t := s.taint
		k, ok := sb.choose(Choice{Pos: t.at, Command: t.command, Cond: s.at,
			Fact:    fmt.Sprintf("the content of %s (%s), which decides the condition at %s", t.name, t.why, s.at),
			Answers: []string{"the condition at " + s.at.String() + " holds", "the condition at " + s.at.String() + " does not hold"}})
		if !ok {
			return nil, errStopped
		}
		status = k
	}
	if status == 0 {
		return sb.colonCmd(), nil
	}
	return []string{condStatusCmd, strconv.Itoa(status)}, nil
}

// condPureCmds are the commands a condition may run and still only give a
// status (markConditions): read-only text tools, tests, echo and printf
// (their side-effect forms are found at run time: sideEffect).
var condPureCmds = map[string]bool{
	"sed": true, "grep": true, "egrep": true, "fgrep": true, "head": true, "tail": true, "cut": true, "tr": true,
	"wc": true, "cat": true, "test": true, "[": true, "true": true, "false": true, ":": true, "echo": true, "printf": true,
}

// markConditions brackets every outermost condition whose outcome may be
// a choice — the condition list of if/elif and while/until, the left of
// && and || (but not `cmd || true`) — with condBeginCmd and condEndCmd,
// when it can only give a status (condPure, condSilent).
func markConditions(f *syntax.File, name string) {
	skip := map[syntax.Node]bool{}
	lit := func(v string, at syntax.Pos) *syntax.Word {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: at, ValueEnd: at, Value: v}}}
	}
	guard := func(cmd string, at syntax.Pos, status bool) *syntax.Stmt {
		args := []*syntax.Word{lit(cmd, at), lit(markerWord(ctxPlain, at, name), at)}
		if status {
			args = append(args, &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Left: at, Right: at, Parts: []syntax.WordPart{&syntax.ParamExp{Dollar: at, Short: true, Param: &syntax.Lit{ValuePos: at, ValueEnd: at, Value: "?"}}}}}})
		}
		return &syntax.Stmt{Position: at, Cmd: &syntax.CallExpr{Args: args}}
	}
	// bgList brackets each background statement of a list (`( … ) &`,
	// `{ … } &`): `bgCmd +` before it, in the shell that starts it, and
	// `bgCmd -` at the end of what it runs (its redirections stay on the
	// statement sent to the background).
	bgList := func(list []*syntax.Stmt) []*syntax.Stmt {
		n := 0
		for _, st := range list {
			if st.Background && st.Cmd != nil {
				n++
			}
		}
		if n == 0 {
			return list
		}
		out := make([]*syntax.Stmt, 0, len(list)+n)
		for _, st := range list {
			if st.Background && st.Cmd != nil {
				at := st.Pos()
				out = append(out, &syntax.Stmt{Position: at, Cmd: &syntax.CallExpr{Args: []*syntax.Word{lit(bgCmd, at), lit("+", at)}}})
				inner := &syntax.Stmt{Position: at, Cmd: st.Cmd, Negated: st.Negated}
				minus := &syntax.Stmt{Position: at, Cmd: &syntax.CallExpr{Args: []*syntax.Word{lit(bgCmd, at), lit("-", at)}}}
				st.Negated = false
				st.Cmd = &syntax.Block{Lbrace: at, Rbrace: at, Stmts: []*syntax.Stmt{inner, minus}}
			}
			out = append(out, st)
		}
		return out
	}
	covered := func(list []*syntax.Stmt) {
		for _, st := range list {
			syntaxwalk.Walk(st, func(n syntax.Node) bool {
				if _, ok := n.(*syntax.BinaryCmd); ok {
					skip[n] = true
				}
				return true
			})
		}
	}
	wrap := func(list []*syntax.Stmt) []*syntax.Stmt {
		if len(list) == 0 || !condPure(list) || !condSilent(list) || readFree(list) {
			return list
		}
		covered(list)
		at := list[0].Pos()
		out := append([]*syntax.Stmt{guard(condBeginCmd, at, false)}, list...)
		return append(out, guard(condEndCmd, at, true))
	}
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.File:
			x.Stmts = bgList(x.Stmts)
		case *syntax.Block:
			x.Stmts = bgList(x.Stmts)
		case *syntax.Subshell:
			x.Stmts = bgList(x.Stmts)
		case *syntax.CmdSubst:
			x.Stmts = bgList(x.Stmts)
		case *syntax.ProcSubst:
			x.Stmts = bgList(x.Stmts)
		case *syntax.ForClause:
			x.Do = bgList(x.Do)
		case *syntax.CaseClause:
			for _, it := range x.Items {
				it.Stmts = bgList(it.Stmts)
			}
		case *syntax.IfClause:
			for cl := x; cl != nil; cl = cl.Else {
				cl.Then = bgList(cl.Then)
			}
			for cl := x; cl != nil; cl = cl.Else {
				cl.Cond = wrap(cl.Cond)
			}
		case *syntax.WhileClause:
			x.Do = bgList(x.Do)
			x.Cond = wrap(x.Cond)
		case *syntax.BinaryCmd:
			if skip[x] || x.Op != syntax.AndStmt && x.Op != syntax.OrStmt || x.Op == syntax.OrStmt && isTrueStmt(x.Y) {
				return true
			}
			if w := wrap([]*syntax.Stmt{x.X}); len(w) > 1 {
				x.X = &syntax.Stmt{Position: x.X.Pos(), Cmd: &syntax.Block{Lbrace: x.X.Pos(), Rbrace: x.X.Pos(), Stmts: w}}
			}
		}
		return true
	})
}

// condPure reports whether a condition list can do nothing but give a
// status and print: simple commands of condPureCmds (no assignment, no
// function), [[ ]] without =~ (which sets BASH_REMATCH), (( )) without
// an assignment, pipes, && / ||, groups and subshells of them; words
// without an assigning or exiting ${…} or a process substitution;
// redirections only to /dev/null, between descriptors, or reading. No
// background job.
func condPure(list []*syntax.Stmt) bool {
	return everyNode(list, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			if x.Background || x.Coprocess || x.Disown {
				return false
			}
			for _, r := range x.Redirs {
				switch r.Op {
				case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrAllClob:
					if r.Word == nil || r.Word.Lit() != "/dev/null" {
						return false
					}
				case syntax.DplOut, syntax.DplIn, syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
				default:
					return false
				}
			}
		case *syntax.CallExpr:
			if len(x.Assigns) > 0 || len(x.Args) == 0 || !condPureCmds[x.Args[0].Lit()] {
				return false
			}
		case *syntax.BinaryTest:
			if x.Op == syntax.TsReMatch {
				return false
			}
		case *syntax.ParamExp:
			if x.Exp != nil {
				switch x.Exp.Op {
				case syntax.AssignUnset, syntax.AssignUnsetOrNull, syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
					return false
				}
			}
		case *syntax.BinaryArithm:
			switch x.Op {
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn, syntax.AndAssgn,
				syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn, syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
				return false
			}
		case *syntax.UnaryArithm:
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				return false
			}
		case *syntax.ProcSubst, *syntax.FuncDecl, *syntax.DeclClause, *syntax.LetClause, *syntax.IfClause, *syntax.WhileClause,
			*syntax.ForClause, *syntax.CaseClause, *syntax.TimeClause, *syntax.CoprocClause, *syntax.TestDecl:
			return false
		}
		return true
	})
}

// readFree reports whether a condition list (of condPure) cannot read
// a file, so that its outcome can never be a choice (only an unknown
// read of a command in it is: coverUnknown) and its guards would only
// cost two handler calls per evaluation (a condition in a loop runs
// them at every iteration: 12% of a coverage run's statements were
// guards). It is, and nests only, [[ ]] of string tests (-z, -n, ==, =,
// !=, <, >, !, &&, ||, parentheses) and the lists, negations, groups and
// subshells of them, without a command or process substitution, an
// arithmetic expansion, a ${…} whose offset or index is arithmetic, a
// ~user, or an input redirection. No command: `test`, `[`, `true` may be
// functions of the script at run time (`test() { grep -q x /opt/f; }`),
// whose reads a guard must cover; [[ ]] is a keyword. Nothing in it asks
// the sandbox's last position (sandbox.lastPos): an arithmetic error, a
// test of a file or a read would, and none can happen there; a read after
// it is reported where it is written (markTests, markFileSubsts).
func readFree(list []*syntax.Stmt) bool {
	return everyNode(list, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Stmt:
			for _, r := range x.Redirs {
				if r.Op == syntax.RdrIn || r.Op == syntax.RdrInOut || r.Hdoc != nil {
					return false
				}
			}
		case *syntax.CallExpr, *syntax.FuncDecl, *syntax.DeclClause, *syntax.LetClause, *syntax.TestDecl:
			return false
		case *syntax.Lit:
			if strings.HasPrefix(x.Value, "~") {
				return false // ~user reads the user database
			}
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.AndTest, syntax.OrTest, syntax.TsMatchShort, syntax.TsMatch, syntax.TsNoMatch, syntax.TsBefore, syntax.TsAfter:
			default:
				return false
			}
		case *syntax.UnaryTest:
			switch x.Op {
			case syntax.TsEmpStr, syntax.TsNempStr, syntax.TsNot:
			default:
				return false
			}
		case *syntax.ParamExp:
			if x.Slice != nil || x.Index != nil {
				return false
			}
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.ExtGlob:
			return false
		}
		return true
	})
}

// everyNode reports whether ok holds for every node of list (syntax.Walk
// order), stopping at the first that it does not hold for.
func everyNode(list []*syntax.Stmt, ok func(syntax.Node) bool) bool {
	all := true
	for _, st := range list {
		syntaxwalk.Walk(st, func(n syntax.Node) bool {
			all = all && ok(n)
			return all
		})
		if !all {
			return false
		}
	}
	return true
}

// condSilent reports whether a condition list prints nothing on its
// standard output: each statement's output goes to /dev/null, or it is
// a test, `true`/`false`/`:`, `grep -q`, (( )), or a pipe, list, group
// or subshell of such (the left of a pipe feeds its right).
func condSilent(list []*syntax.Stmt) bool {
	for _, st := range list {
		if !stmtSilent(st) {
			return false
		}
	}
	return true
}

func stmtSilent(st *syntax.Stmt) bool {
	if st == nil {
		return true
	}
	for _, r := range st.Redirs {
		if (r.Op == syntax.RdrOut || r.Op == syntax.RdrAll || r.Op == syntax.AppOut || r.Op == syntax.AppAll) && (r.N == nil || r.N.Value == "1") && r.Word != nil && r.Word.Lit() == "/dev/null" {
			return true
		}
	}
	switch x := st.Cmd.(type) {
	case *syntax.TestClause, *syntax.ArithmCmd:
		return true
	case *syntax.CallExpr:
		if len(x.Args) == 0 {
			return true
		}
		switch x.Args[0].Lit() {
		case "test", "[", "true", "false", ":":
			return true
		case "grep", "egrep", "fgrep":
			for _, w := range x.Args[1:] {
				a := w.Lit()
				if a == "--quiet" || a == "--silent" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'q') {
					return true
				}
			}
		}
		return false
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			return stmtSilent(x.Y)
		}
		return stmtSilent(x.X) && stmtSilent(x.Y)
	case *syntax.Block:
		return condSilent(x.Stmts)
	case *syntax.Subshell:
		return condSilent(x.Stmts)
	}
	return false
}
