package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/syntaxwalk"
)

// This file holds the fence around a child script that cannot start a
// server. A script of the checkout run as a new process (`bash FILE`) as
// a statement of its own, whose status and output nothing reads
// (ctxPlain), and whose text cannot start a server (inertScript), is run
// fenced: when it stops at something the sandbox does not know (an image
// patch script asking Python where the engine is installed), only the
// child stops. The run goes on as if it had exited 0 — the one status
// under which a script under `set -e` goes on to the server whose result
// was published, and a status nothing reads otherwise — and is marked
// (Trace.Unfollowed): what the child would have done after its stop is
// not known, so every file read after it is refused (readKnown). A
// separate process cannot change the parent's variables, directory or
// functions; the servers it could start are ruled out by its text.

// Unfollowed is a child script the run went past without following it to
// its end (fence.go).
type Unfollowed struct {
	// File is the script, At where the run started it.
	File string `json:"file"`
	At   Pos    `json:"at"`
	// Stop is where and why the child stopped.
	Stop Unsupported `json:"stop"`
}

// String says which script was not followed past where, and why.
func (u Unfollowed) String() string {
	return fmt.Sprintf("%s (run at %s) was not followed past %s", u.File, u.At, u.Stop.String())
}

// inertScript reports whether a script's text cannot start a server or
// run text it does not show: every simple command names its program with
// a literal word; none is eval, exec, source / ., a shell given a string
// or another script, a job launcher or container runtime (srun, docker,
// podman, enroot, sbatch, salloc), or a wrapper (nohup, setsid, env,
// timeout, sudo, …); and none is a server launch by its literal words
// (Config.IsServer). Only a script that parses qualifies.
func (sb *sandbox) inertScript(src []byte, name string) bool {
	in := sb.cache.plainInert(src, name)
	if in == nil || !in.inert {
		return false
	}
	if sb.cfg.IsServer != nil {
		for _, argv := range in.argvs {
			if sb.cfg.IsServer(argv) {
				return false
			}
		}
	}
	return true
}

// inertFacts is what inertScript reads of a text, kept with its parse
// (plainInert): inert, no simple command disqualifies it by its program
// (Config.IsServer aside); argvs, the literal words of every simple
// command, in the order syntax.Walk visits them, for Config.IsServer (a
// pure function of the argv).
type inertFacts struct {
	inert bool
	argvs [][]string
}

// plainInert is inertFacts of src (nil: it does not parse), made once
// per text and kept with its plainParse tree.
func (c *Cache) plainInert(src []byte, name string) *inertFacts {
	c.mu.Lock()
	kt, ok := c.plain[string(src)]
	var in *inertFacts
	if ok {
		in = kt.inert
	}
	c.mu.Unlock()
	if in != nil {
		return in
	}
	f := c.plainParse(src, name)
	if f == nil {
		return nil
	}
	in = &inertFacts{inert: true}
	syntaxwalk.Walk(f, func(n syntax.Node) bool {
		if !in.inert {
			return false
		}
		ce, ok := n.(*syntax.CallExpr)
		if !ok || len(ce.Args) == 0 {
			return true
		}
		prog := ce.Args[0].Lit()
		if prog == "" {
			in.inert = false
			return false
		}
		switch base := path.Base(prog); base {
		case "eval", "exec", "source", ".", "bash", "sh", "zsh", "dash", "srun", "docker", "podman", "enroot", "sbatch", "salloc", "xargs", "command", "builtin":
			in.inert = false
			return false
		default:
			if _, wrapper := wrapperValueOpts[base]; wrapper {
				in.inert = false
				return false
			}
		}
		argv := make([]string, len(ce.Args))
		for i, w := range ce.Args {
			argv[i] = w.Lit()
		}
		in.argvs = append(in.argvs, argv)
		return true
	})
	c.mu.Lock()
	if kt, ok := c.plain[string(src)]; ok {
		kt.inert = in
	}
	c.mu.Unlock()
	return in
}

// plainParse is the parse of src as written (nil when it does not
// parse), kept by its text: the tree is only walked, never changed.
func (c *Cache) plainParse(src []byte, name string) *syntax.File {
	c.mu.Lock()
	kt, ok := c.plain[string(src)]
	if ok {
		c.touch(&kt.use)
	}
	c.mu.Unlock()
	if ok {
		return kt.file
	}
	f, err := syntax.NewParser().Parse(bytes.NewReader(src), name)
	if err != nil {
		f = nil
	}
	c.mu.Lock()
	if _, had := c.plain[string(src)]; !had && c.n < cacheMax {
		if c.plain == nil {
			c.plain = map[string]*keptTree{}
		}
		kt := &keptTree{file: f}
		c.plain[string(src)] = kt
		c.keep(&kt.use, len(src))
	}
	c.mu.Unlock()
	return f
}

// runParse is the parse of the text a run starts and ends with (runFile:
// BASH_SOURCE, TMPDIR, the directory; the final wait) in the file named
// name, nil when it does not parse; kept by name and text, as plainParse
// keeps its trees (the interpreter never changes one).
func (c *Cache) runParse(text, name string) *syntax.File {
	key := runParseKey{text, name}
	c.mu.Lock()
	kt, ok := c.runs[key]
	if ok {
		c.touch(&kt.use)
	}
	c.mu.Unlock()
	if ok {
		return kt.file
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(text), name)
	if err != nil {
		f = nil
	}
	c.mu.Lock()
	if _, had := c.runs[key]; !had && c.n < cacheMax {
		if c.runs == nil {
			c.runs = map[runParseKey]*keptTree{}
		}
		kt := &keptTree{file: f}
		c.runs[key] = kt
		c.keep(&kt.use, len(text)+len(name))
	}
	c.mu.Unlock()
	return f
}

// runParseKey is a runParse entry: the text and the file it is in.
type runParseKey struct{ text, name string }

// runFenced runs a child script under its own cancel (stop cancels only
// it): a stop at something not known ends the child, and the run goes on
// with status 0, the child recorded in Trace.Unfollowed and every later
// read refused. A bound or bad input still ends the run.
func (sb *sandbox) runFenced(ctx context.Context, file *syntax.File, fr fileRun, at Pos, abs string) (int, error) {
	sb.mu.Lock()
	before := sb.stopReason
	sb.mu.Unlock()
	if before != nil {
		return sb.runFile(ctx, file, fr)
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sb.stopMu.Lock()
	outer := sb.cancel
	sb.cancel = cancel
	sb.stopMu.Unlock()
	status, err := sb.runFile(cctx, file, fr)
	sb.stopMu.Lock()
	sb.cancel = outer
	sb.stopMu.Unlock()
	sb.mu.Lock()
	defer sb.mu.Unlock()
	stop := sb.stopReason
	if stop == nil || sb.limit != nil || sb.badInput != nil || ctx.Err() != nil || err != nil && err != errStopped {
		return status, err
	}
	sb.stopReason = nil
	sb.run.Unfollowed = append(sb.run.Unfollowed, Unfollowed{File: abs, At: at, Stop: *stop})
	if sb.afterUnfollowed.Load() == nil {
		why := fmt.Sprintf("%s, run at %s, was not followed past %s, so what it wrote after that is not known", abs, at, stop.Pos)
		sb.afterUnfollowed.Store(&why)
	}
	return 0, nil
}

// unfollowedWhy is, after a fenced child stopped (runFenced), why no file
// can be read any more; "" before.
func (sb *sandbox) unfollowedWhy() string {
	if w := sb.afterUnfollowed.Load(); w != nil {
		return *w
	}
	return ""
}

// refuseAfterUnfollowed stops the run at a read of a script (to run or
// source) after a fenced child stopped: the child may have changed it.
// It reports whether it did.
func (sb *sandbox) refuseAfterUnfollowed(name string) bool {
	why := sb.unfollowedWhy()
	if why == "" {
		return false
	}
	sb.mu.Lock()
	if sb.stopReason == nil {
		sb.stopReason = &Unsupported{Pos: sb.lastPos(), Command: "read", Msg: fmt.Sprintf("a read of %s: %s", name, why)}
	}
	sb.mu.Unlock()
	sb.stop()
	return true
}
