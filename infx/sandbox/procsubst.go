package sandbox

import (
	"fmt"

	"mvdan.cc/sh/v3/syntax"

	"github.com/cookbook-sync/cookbook-sync/internal/third_party/mvdan-sh/syntaxwalk"
)

// procSubstPrefix names the in-memory files rewriteProcSubst gives process
// substitutions (the open handler reads them from the run's Writes).
const procSubstPrefix = "/dev/fd/cookbook-sync-procsubst-"

// rewriteProcSubst replaces every process substitution with an in-memory
// file, so that nothing blocks on a FIFO: `<(LIST)` becomes a path that
// LIST writes to in a statement run just before the one that reads it,
// `>(LIST)` a path LIST reads from in a statement run just after. The
// interpreter's own process substitution creates a FIFO on disk, and a
// FIFO nobody opens blocks forever. Commands never run concurrently in the
// sandbox, so ordering them is what bash's pipe would observe.
func rewriteProcSubst(f *syntax.File) {
	n := 0
	f.Stmts = psList(f.Stmts, &n)
}

// psList processes one statement list: nested lists first, then the
// process substitutions of each statement itself.
func psList(list []*syntax.Stmt, n *int) []*syntax.Stmt {
	var out []*syntax.Stmt
	for _, st := range list {
		psNested(st, n)
		var pre, post []*syntax.Stmt
		syntaxwalk.Walk(st, func(node syntax.Node) bool {
			switch x := node.(type) {
			case *syntax.Block, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause, *syntax.CaseClause,
				*syntax.Subshell, *syntax.FuncDecl, *syntax.CmdSubst:
				return false // nested lists: psNested
			case *syntax.Word:
				for i, p := range x.Parts {
					ps, ok := p.(*syntax.ProcSubst)
					if !ok {
						continue
					}
					*n++
					name := fmt.Sprintf("%s%d", procSubstPrefix, *n)
					x.Parts[i] = &syntax.Lit{ValuePos: ps.Pos(), ValueEnd: ps.End(), Value: name}
					body := &syntax.Stmt{Cmd: &syntax.Block{Stmts: psList(ps.Stmts, n)}}
					target := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: name}}}
					if ps.Op == syntax.CmdOut {
						body.Redirs = []*syntax.Redirect{{Op: syntax.RdrIn, Word: target}}
						post = append(post, body)
					} else {
						body.Redirs = []*syntax.Redirect{{Op: syntax.RdrOut, Word: target}}
						pre = append(pre, body)
					}
				}
			}
			return true
		})
		out = append(out, pre...)
		out = append(out, st)
		out = append(out, post...)
	}
	return out
}

// psNested processes the statement lists nested in a statement (compound
// commands, function bodies, command substitutions).
func psNested(st *syntax.Stmt, n *int) {
	syntaxwalk.Walk(st, func(node syntax.Node) bool {
		switch x := node.(type) {
		case *syntax.Block:
			x.Stmts = psList(x.Stmts, n)
			return false
		case *syntax.Subshell:
			x.Stmts = psList(x.Stmts, n)
			return false
		case *syntax.CmdSubst:
			x.Stmts = psList(x.Stmts, n)
			return false
		case *syntax.IfClause:
			for c := x; c != nil; c = c.Else {
				c.Cond = psList(c.Cond, n)
				c.Then = psList(c.Then, n)
			}
			return false
		case *syntax.WhileClause:
			x.Cond = psList(x.Cond, n)
			x.Do = psList(x.Do, n)
			return false
		case *syntax.ForClause:
			x.Do = psList(x.Do, n)
			return true // the loop words may hold $(…)
		case *syntax.CaseClause:
			for _, it := range x.Items {
				it.Stmts = psList(it.Stmts, n)
			}
			return false
		case *syntax.FuncDecl:
			psNested(x.Body, n)
			return false
		case *syntax.ProcSubst:
			return false // handled with its statement by psList
		}
		return true
	})
}
