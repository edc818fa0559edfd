package sandbox

import (
	"context"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/syntaxwalk"
)

// This file holds the sandbox's model of the processes a script sends to
// the background with a simple command (`setsid bash -c "$CMD" > log &`,
// `"$@" &`). Such a command runs in place (prepare.go: the recorded order
// is the script's), and what bash gives the script about the process is
// modelled on what it ran:
//   - $! is a pseudo PID (firstJobPID, 20001, 20002, … in the order the
//     jobs start: the same on every machine);
//   - a job that started a server (Config.IsServer) is running until a
//     signal is sent to it (kill PID, kill -SIG -PGID of a setsid
//     leader): the model's servers come up and serve;
//   - so is a job that ran a program the sandbox does not evaluate (a
//     daemon: `mooncake_master … &`, then `kill -0` to see it started):
//     whether and when it ends is not known, and waiting for it is
//     Unsupported;
//   - any other job (every command of it evaluated: `bash -c "$BARRIER"
//     &` of a known helper) has finished with the status it had;
//   - `kill -0 PID` tells which (status 1 and bash's "No such process"
//     for a finished job), `wait PID` gives a finished job's status (128 +
//     the signal for a server the script killed; a running server never
//     ends, so waiting for it is Unsupported), and `ps -o pgid= -p PID`
//     (also pid=) prints a job's process group: its own PID when setsid
//     started it (setsid(1) makes the command a session and group
//     leader), else Unsupported (the script's own group is not known).
//
// A background compound statement (`( … ) &`) runs in a goroutine of the
// interpreter, whose $! ("gN") the interpreter's wait understands: $!
// stays the interpreter's after one, and kill / wait of "gN" are the
// interpreter's (kill succeeds).

// bgStartCmd and bgDoneCmd bracket a simple command sent to the
// background that runs in place: bgDoneCmd "$?" records it as a job and
// sets bgPIDVar to its pseudo PID.
const (
	bgStartCmd = "__cookbook_sync_bgstart"
	bgDoneCmd  = "__cookbook_sync_bgdone"
	// bgPIDVar holds $! after a simple background command (unset after
	// a compound one, whose $! is the interpreter's).
	bgPIDVar = "__cookbook_sync_lastbg"
)

// firstJobPID is the pseudo PID of the first background job: above $$
// (4242, hostParams) and every PID the tables print.
const firstJobPID = 20001

// assumedCmd is a command the sandbox does not evaluate that ran in a
// background job with its status taken as 0 because nothing used it then.
type assumedCmd struct {
	seq     int
	at      Pos
	command string
}

// bgJob is a background job's model.
type bgJob struct {
	status int // the status its command had
	// unknown, when set, is a command the sandbox does not evaluate that
	// the job ran: its status is not known.
	unknown *assumedCmd
	server  bool // it started a server: running until signalled
	setsid  bool // setsid started it: its own process group
	signal  int  // the signal the script sent it (0: none)
	// ports are the TCP ports its server commands name (--port N): the
	// ports it listens on while it runs.
	ports []int
}

// alive reports whether the job's process exists: a server, or a job
// that ran a program the sandbox does not evaluate (a daemon such as
// mooncake_master, whose end is not known: the run that published a
// result had it up), until a signal is sent to it.
func (j *bgJob) alive() bool { return (j.server || j.unknown != nil) && j.signal == 0 }

// bgGuard answers bgStartCmd and bgDoneCmd (sb.mu held).
func (sb *sandbox) bgGuard(args []string) []string {
	if args[0] == bgStartCmd {
		sb.bgStarts = append(sb.bgStarts, sb.seq)
		return sb.colonCmd()
	}
	start := 0
	if n := len(sb.bgStarts); n > 0 {
		start, sb.bgStarts = sb.bgStarts[n-1], sb.bgStarts[:n-1]
	}
	j := &bgJob{}
	if len(args) > 1 {
		j.status, _ = strconv.Atoi(args[1])
	}
	// setsid is read from the command as written (rewriteBackground): the
	// commands recorded in the job's range may interleave with those of
	// goroutines (a process substitution's tee), so the first of them is
	// not the job's.
	j.setsid = len(args) > 2 && args[2] == "setsid"
	for i := range sb.run.Commands {
		c := &sb.run.Commands[i]
		if c.Seq <= start {
			continue
		}
		if sb.cfg.IsServer != nil {
			if inner, _ := unwrapAll(c.Argv); len(inner) > 0 && sb.cfg.IsServer(inner) {
				j.server = true
				j.ports = append(j.ports, serverPorts(inner)...)
			}
		}
	}
	for i := range sb.assumed {
		if a := &sb.assumed[i]; a.seq > start && j.unknown == nil {
			j.unknown = a
		}
	}
	if sb.jobs == nil {
		sb.jobs = map[int]*bgJob{}
	}
	pid := firstJobPID + len(sb.jobs)
	sb.jobs[pid] = j
	return []string{"eval", bgPIDVar + "=" + strconv.Itoa(pid)}
}

// serverPorts are the ports a server command names with --port N or
// --port=N.
func serverPorts(argv []string) []int {
	var out []int
	for i, a := range argv {
		v, ok := strings.CutPrefix(a, "--port=")
		if !ok && a == "--port" && i+1 < len(argv) {
			v, ok = argv[i+1], true
		}
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(v); err == nil && n > 0 && n < 65536 {
			out = append(out, n)
		}
	}
	return out
}

// Listening reports whether a background job of the run that started a
// server is running and names port with --port: the model's servers come
// up and serve (bgjobs.go), so a request to the port on this node is
// answered by it.
func (c *Call) Listening(port int) bool {
	c.sb.mu.Lock()
	defer c.sb.mu.Unlock()
	for _, j := range c.sb.jobs {
		if j.alive() && slices.Contains(j.ports, port) {
			return true
		}
	}
	return false
}

// unwrapAll removes the wrapper commands (nohup, setsid, env …) in front
// of argv.
func unwrapAll(argv []string) ([]string, []string) {
	var env []string
	for len(argv) > 0 {
		name := path.Base(argv[0])
		if _, ok := wrapperValueOpts[name]; !ok || name == "env" && len(argv) == 1 {
			break
		}
		var e []string
		argv, e = unwrap(name, argv[1:])
		env = append(env, e...)
	}
	return argv, env
}

// job returns the background job of a PID operand ("20001"), or of a
// process group ("-20001": the job that leads it); nil for anything else.
func (sb *sandbox) job(op string) (j *bgJob, group bool) {
	s, group := strings.CutPrefix(op, "-")
	n, err := strconv.Atoi(s)
	if err != nil || n < firstJobPID {
		return nil, false
	}
	j = sb.jobs[n]
	if j == nil || group && !j.setsid {
		return nil, false
	}
	return j, group
}

// killJobs answers `kill` (sb.mu held): with operands that are all
// background jobs' PIDs (or setsid groups), `kill -0` succeeds when every
// one is running, and a signal marks running ones as signalled; a
// finished one fails with bash's message. A job's PID with any other
// operand (a job spec, a group no setsid made, another PID) is not
// modelled: out is nil and msg says why (the caller stops). Without a
// job's PID the rule for the rest holds (nothing dies, nothing is
// touched): handled false.
func (sb *sandbox) killJobs(args []string) (out []string, msg string, handled bool) {
	sig := 15 // SIGTERM, kill's default
	var ops []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case (a == "-s" || a == "-n") && i+1 < len(args):
			sig = signalNumber(args[i+1])
			i++
		case len(ops) == 0 && strings.HasPrefix(a, "-") && len(a) > 1 && !isJobOperand(sb, a):
			sig = signalNumber(a[1:])
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) == 0 || sig < 0 {
		return nil, "", false
	}
	pseudo := false
	for _, op := range ops {
		if n, err := strconv.Atoi(strings.TrimPrefix(op, "-")); err == nil && sb.jobs[n] != nil || strings.HasPrefix(op, "%") && len(sb.jobs) > 0 {
			pseudo = true
		}
	}
	if !pseudo {
		return nil, "", false
	}
	for _, op := range ops {
		if j, _ := sb.job(op); j == nil {
			// mixed with a job: a job spec (%1), a process group no
			// setsid made, another PID — not modelled
			return nil, "kill " + strings.Join(ops, " ") + ": " + op + " is not a background job the sandbox models", true
		}
	}
	status := 0
	var b strings.Builder
	for _, op := range ops {
		j, _ := sb.job(op)
		if !j.alive() {
			status = 1
			fmt.Fprintf(&b, "bash: kill: (%s) - No such process\n", op)
			continue
		}
		if sig != 0 {
			j.signal = sig
		}
	}
	if status != 0 {
		return []string{condStatusCmd, "1"}, b.String(), true
	}
	return []string{":"}, "", true
}

// isJobOperand reports whether a "-N" word is a job's process group.
func isJobOperand(sb *sandbox, a string) bool {
	j, _ := sb.job(a)
	return j != nil
}

// signalNumber is the number of a kill signal operand ("0", "9", "TERM",
// "SIGKILL", "KILL"); -1 when it is none of the names the scripts use.
func signalNumber(s string) int {
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n < 65 {
		return n
	}
	switch strings.TrimPrefix(strings.ToUpper(s), "SIG") {
	case "HUP":
		return 1
	case "INT":
		return 2
	case "QUIT":
		return 3
	case "KILL":
		return 9
	case "USR1":
		return 10
	case "USR2":
		return 12
	case "TERM":
		return 15
	}
	return -1
}

// waitJobs answers `wait PID…` (sb.mu held) when every operand is a
// background job: the last one's status; a running server never ends
// (why says so). handled false otherwise (the interpreter's wait).
func (sb *sandbox) waitJobs(args []string) (out []string, why string, handled bool) {
	if len(args) < 2 {
		return nil, "", false
	}
	pseudo := false
	for _, op := range args[1:] {
		if j, group := sb.job(op); j != nil && !group {
			pseudo = true
		}
	}
	if !pseudo {
		return nil, "", false
	}
	status := 0
	for _, op := range args[1:] {
		j, group := sb.job(op)
		if j == nil || group {
			// an option (-n, -f) or a job the interpreter runs, with a
			// modelled one
			return nil, fmt.Sprintf("wait %s: %s with a background job the sandbox models is not modelled", strings.Join(args[1:], " "), op), true
		}
		switch {
		case j.signal != 0:
			status = 128 + j.signal
		case j.unknown != nil:
			return nil, fmt.Sprintf("wait %s: the job's status depends on %s at %s, which the sandbox does not evaluate", op, j.unknown.command, j.unknown.at), true
		case j.server:
			return nil, fmt.Sprintf("wait %s: the job is a server, which runs until a signal is sent to it, so the script would wait forever", op), true
		default:
			status = j.status
		}
	}
	if status == 0 {
		return []string{":"}, "", true
	}
	return []string{condStatusCmd, strconv.Itoa(status)}, "", true
}

// hPs answers `ps -o FIELD= -p PID` for a background job (FIELD pid or
// pgid, no header): procps-ng prints the value right-aligned in the
// field's width, 5 for both (ps/output.c format_array: "pgid", "pid").
// The process group of a job setsid did not start is not known; any other
// form of ps is the unknown-command rule's (ErrUnhandled).
func hPs(_ context.Context, c *Call) error {
	field, pid := "", ""
	args := c.Args[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-o" && i+1 < len(args):
			field = args[i+1]
			i++
		case strings.HasPrefix(a, "-o") && len(a) > 2:
			field = a[2:]
		case (a == "-p" || a == "--pid") && i+1 < len(args):
			pid = args[i+1]
			i++
		case strings.HasPrefix(a, "-p") && len(a) > 2:
			pid = a[2:]
		default:
			return ErrUnhandled
		}
	}
	if field != "pgid=" && field != "pid=" {
		return ErrUnhandled
	}
	c.sb.mu.Lock()
	j, group := c.sb.job(pid)
	c.sb.mu.Unlock()
	if j == nil || group {
		return ErrUnhandled
	}
	if !j.alive() {
		// procps: no such process, nothing printed, status 1.
		return ExitStatus(1)
	}
	if field == "pgid=" && !j.setsid {
		return c.Unsupported("ps", fmt.Sprintf("the process group of background job %s: it shares the script's, which is not known", pid))
	}
	_, _ = io.WriteString(c.Stdout(), fmt.Sprintf("%5s\n", pid))
	return nil
}

// rewriteBackground runs each simple command sent to the background in
// place, bracketed by bgStartCmd and bgDoneCmd "$?" (its status stays
// 0, as `cmd &`'s is), and makes $! read bgPIDVar when it is set.
// Compound background statements stay in the background; the statement
// that starts one unsets bgPIDVar first (bgList's bgCmd +).
func rewriteBackground(file *syntax.File) {
	lit := func(v string, at syntax.Pos) *syntax.Word {
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: at, ValueEnd: at, Value: v}}}
	}
	syntaxwalk.Walk(file, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok || !st.Background {
			return true
		}
		if _, simple := st.Cmd.(*syntax.CallExpr); !simple {
			return true
		}
		at := st.Pos()
		st.Background = false
		inner := &syntax.Stmt{Position: at, Cmd: st.Cmd, Negated: st.Negated}
		st.Negated = false
		status := &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Left: at, Right: at, Parts: []syntax.WordPart{&syntax.ParamExp{Dollar: at, Short: true, Param: &syntax.Lit{ValuePos: at, ValueEnd: at, Value: "?"}}}}}}
		done := []*syntax.Word{lit(bgDoneCmd, at), status}
		if call := st.Cmd.(*syntax.CallExpr); len(call.Args) > 0 && path.Base(call.Args[0].Lit()) == "setsid" {
			done = append(done, lit("setsid", at))
		}
		st.Cmd = &syntax.Block{Lbrace: at, Rbrace: at, Stmts: []*syntax.Stmt{
			{Position: at, Cmd: &syntax.CallExpr{Args: []*syntax.Word{lit(bgStartCmd, at)}}},
			inner,
			{Position: at, Cmd: &syntax.CallExpr{Args: done}},
		}}
		return false
	})
	syntaxwalk.Walk(file, func(n syntax.Node) bool {
		pe, ok := n.(*syntax.ParamExp)
		if !ok || pe.Param == nil || pe.Param.Value != "!" || pe.Excl || pe.Length || pe.Width || pe.Index != nil || pe.Slice != nil || pe.Repl != nil || pe.Exp != nil || pe.Names != 0 {
			return true
		}
		at := pe.Pos()
		orig := &syntax.ParamExp{Dollar: at, Short: true, Param: &syntax.Lit{ValuePos: at, ValueEnd: at, Value: "!"}}
		pe.Short = false
		pe.Param = &syntax.Lit{ValuePos: at, ValueEnd: at, Value: bgPIDVar}
		pe.Exp = &syntax.Expansion{Op: syntax.DefaultUnset, Word: &syntax.Word{Parts: []syntax.WordPart{orig}}}
		return false
	})
}
