// Copyright (c) 2016, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

// Package syntaxwalk is mvdan.cc/sh/v3 v3.14.1's syntax.Walk without its
// defer (cookbook-sync patch, issue 24: PATCHES.md): upstream's Walk walks
// a statement's, case item's or array element's first trailing comment
// in a deferred call, so every call of it — one per node — set up and ran
// the defer machinery (deferreturn: 2.5% of render --all's instructions
// on the complete trees). Walk here visits the same nodes, in the same
// order, with the same f(nil) calls (TestWalkMatchesUpstream).
package syntaxwalk

import (
	"fmt"

	"mvdan.cc/sh/v3/syntax"
)

// Walk traverses a syntax tree in depth-first order: It starts by calling
// f(node); node must not be nil. If f returns true, Walk invokes f
// recursively for each of the non-nil children of node, followed by
// f(nil).
func Walk(node syntax.Node, f func(syntax.Node) bool) {
	if !f(node) {
		return
	}
	// cookbook-sync patch: the first comment after the node, which
	// upstream walks in a deferred call (after f(nil) below), is walked
	// there without one
	var trailing *syntax.Comment

	switch node := node.(type) {
	case *syntax.File:
		walkList(node.Stmts, f)
		walkComments(node.Last, f)
	case *syntax.Comment:
	case *syntax.Stmt:
		for _, c := range node.Comments {
			if !node.End().After(c.Pos()) {
				trailing = &c
				break
			}
			Walk(&c, f)
		}
		if node.Cmd != nil {
			Walk(node.Cmd, f)
		}
		walkList(node.Redirs, f)
	case *syntax.Assign:
		walkNilable(node.Name, f)
		walkNilable(node.Value, f)
		walkNilable(node.Index, f)
		walkNilable(node.Array, f)
	case *syntax.Redirect:
		walkNilable(node.N, f)
		Walk(node.Word, f)
		walkNilable(node.Hdoc, f)
	case *syntax.CallExpr:
		walkList(node.Assigns, f)
		walkList(node.Args, f)
	case *syntax.Subshell:
		walkList(node.Stmts, f)
		walkComments(node.Last, f)
	case *syntax.Block:
		walkList(node.Stmts, f)
		walkComments(node.Last, f)
	case *syntax.IfClause:
		walkList(node.Cond, f)
		walkComments(node.CondLast, f)
		walkList(node.Then, f)
		walkComments(node.ThenLast, f)
		walkComments(node.Last, f)
		walkNilable(node.Else, f)
	case *syntax.WhileClause:
		walkList(node.Cond, f)
		walkComments(node.CondLast, f)
		walkList(node.Do, f)
		walkComments(node.DoLast, f)
	case *syntax.ForClause:
		Walk(node.Loop, f)
		walkList(node.Do, f)
		walkComments(node.DoLast, f)
	case *syntax.WordIter:
		Walk(node.Name, f)
		walkList(node.Items, f)
	case *syntax.CStyleLoop:
		walkNilable(node.Init, f)
		walkNilable(node.Cond, f)
		walkNilable(node.Post, f)
	case *syntax.BinaryCmd:
		Walk(node.X, f)
		Walk(node.Y, f)
	case *syntax.FuncDecl:
		walkNilable(node.Name, f)
		walkList(node.Names, f)
		Walk(node.Body, f)
	case *syntax.Word:
		walkList(node.Parts, f)
	case *syntax.Lit:
	case *syntax.SglQuoted:
	case *syntax.DblQuoted:
		walkList(node.Parts, f)
	case *syntax.CmdSubst:
		walkList(node.Stmts, f)
		walkComments(node.Last, f)
	case *syntax.ParamExp:
		walkNilable(node.Flags, f)
		walkNilable(node.Param, f)
		walkNilable(node.NestedParam, f)
		walkNilable(node.Index, f)
		if node.Slice != nil {
			walkNilable(node.Slice.Offset, f)
			walkNilable(node.Slice.Length, f)
		}
		if node.Repl != nil {
			walkNilable(node.Repl.Orig, f)
			walkNilable(node.Repl.With, f)
		}
		if node.Exp != nil {
			walkNilable(node.Exp.Word, f)
		}
	case *syntax.ArithmExp:
		Walk(node.X, f)
	case *syntax.ArithmCmd:
		Walk(node.X, f)
	case *syntax.BinaryArithm:
		Walk(node.X, f)
		Walk(node.Y, f)
	case *syntax.BinaryTest:
		Walk(node.X, f)
		Walk(node.Y, f)
	case *syntax.UnaryArithm:
		Walk(node.X, f)
	case *syntax.UnaryTest:
		Walk(node.X, f)
	case *syntax.ParenArithm:
		Walk(node.X, f)
	case *syntax.FlagsArithm:
		Walk(node.Flags, f)
		if node.X != nil {
			Walk(node.X, f)
		}
	case *syntax.ParenTest:
		Walk(node.X, f)
	case *syntax.CaseClause:
		Walk(node.Word, f)
		walkList(node.Items, f)
		walkComments(node.Last, f)
	case *syntax.CaseItem:
		for _, c := range node.Comments {
			if c.Pos().After(node.Pos()) {
				trailing = &c
				break
			}
			Walk(&c, f)
		}
		walkList(node.Patterns, f)
		walkList(node.Stmts, f)
		walkComments(node.Last, f)
	case *syntax.TestClause:
		Walk(node.X, f)
	case *syntax.DeclClause:
		walkList(node.Args, f)
	case *syntax.ArrayExpr:
		walkList(node.Elems, f)
		walkComments(node.Last, f)
	case *syntax.ArrayElem:
		for _, c := range node.Comments {
			if c.Pos().After(node.Pos()) {
				trailing = &c
				break
			}
			Walk(&c, f)
		}
		walkNilable(node.Index, f)
		walkNilable(node.Value, f)
	case *syntax.ExtGlob:
		Walk(node.Pattern, f)
	case *syntax.ProcSubst:
		walkList(node.Stmts, f)
		walkComments(node.Last, f)
	case *syntax.TimeClause:
		walkNilable(node.Stmt, f)
	case *syntax.CoprocClause:
		walkNilable(node.Name, f)
		Walk(node.Stmt, f)
	case *syntax.LetClause:
		walkList(node.Exprs, f)
	case *syntax.TestDecl:
		Walk(node.Description, f)
		Walk(node.Body, f)
	default:
		panic(fmt.Sprintf("syntax.Walk: unexpected node type %T", node))
	}

	f(nil)
	if trailing != nil {
		Walk(trailing, f)
	}
}

type nilableNode interface {
	syntax.Node
	comparable // pointer nodes, which can be compared to nil
}

func walkNilable[N nilableNode](node N, f func(syntax.Node) bool) {
	var zero N // nil
	if node != zero {
		Walk(node, f)
	}
}

func walkList[N syntax.Node](list []N, f func(syntax.Node) bool) {
	for _, node := range list {
		Walk(node, f)
	}
}

func walkComments(list []syntax.Comment, f func(syntax.Node) bool) {
	// Note that []syntax.Comment does not satisfy the generic constraint []syntax.Node.
	for i := range list {
		Walk(&list[i], f)
	}
}
