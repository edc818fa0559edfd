package pages

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"
)

// stepName is the global the step counter is bound to. It is no
// identifier page code can write (it holds a NUL), it is defined
// non-writable and non-configurable on the global object, and `with`
// statements (the one way an object's keys shadow a name) are refused, so
// page code can neither replace nor shadow it.
const stepName = "\x00cookbook-sync-step"

// ErrWith: page code with a `with` statement (which could shadow the step
// counter) is refused; the oracle's pages have none.
var ErrWith = errors.New("a `with` statement is not run in the sandbox")

// instrument counts work in prg: a call to the step counter is put at the
// start of every loop body (for, for-in, for-of, while, do-while) and of
// every function body (after its directive prologue, so "use strict" stays
// in force; an arrow function's expression body becomes "(step(), expr)").
// Every loop iteration and every call therefore costs one step, so code
// that runs long runs out of steps (Options.MaxSteps) whatever the
// machine's speed or load. Errors: ErrWith at the position of a `with`
// statement (a *FileError).
func instrument(name string, prg *ast.Program) error {
	var bad ast.Node
	walkAST(prg, func(n any) {
		guardPlus(n)
		switch n := n.(type) {
		case *ast.WithStatement:
			if bad == nil {
				bad = n
			}
		case *ast.ForStatement:
			n.Body = stepBlock(n.For, n.Body)
		case *ast.ForInStatement:
			n.Body = stepBlock(n.For, n.Body)
		case *ast.ForOfStatement:
			n.Body = stepBlock(n.For, n.Body)
		case *ast.WhileStatement:
			n.Body = stepBlock(n.While, n.Body)
		case *ast.DoWhileStatement:
			n.Body = stepBlock(n.Do, n.Body)
		case *ast.FunctionLiteral:
			if n.Body != nil {
				n.Body.List = afterPrologue(n.Body.List, stepStmt(n.Body.LeftBrace))
			}
		case *ast.ArrowFunctionLiteral:
			switch b := n.Body.(type) {
			case *ast.BlockStatement:
				b.List = afterPrologue(b.List, stepStmt(b.LeftBrace))
			case *ast.ExpressionBody:
				b.Expression = &ast.SequenceExpression{Sequence: []ast.Expression{stepCall(b.Expression.Idx0()), b.Expression}}
			}
		}
	})
	if bad != nil {
		fe := &FileError{File: name, Err: ErrWith}
		if prg.File != nil {
			p := prg.File.Position(int(bad.Idx0()) - prg.File.Base())
			fe.Line, fe.Column = p.Line, p.Column
		}
		return fe
	}
	return nil
}

// plusName is the global the guarded + is bound to (see guards.plus); like
// stepName, no identifier page code can write.
const plusName = "\x00cookbook-sync-plus"

var exprType = reflect.TypeOf((*ast.Expression)(nil)).Elem()

// guardPlus rewrites the + operations among n's children so that a string
// longer than Options.MaxString is refused before it is built (goja's +
// builds it in one piece; s += s doubles a string per step): a + b becomes
// plus(a, b), a template literal a chain of them (guardedExpr), and x += b — x an identifier, or a property of an
// identifier or this by a name or literal key, which read again read the
// same — becomes x = plus(x, b). A += on any other target is left as is.
func guardPlus(n any) {
	v := reflect.ValueOf(n)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return
	}
	if a, ok := n.(*ast.AssignExpression); ok && a.Operator == token.PLUS && plainTarget(a.Left) {
		a.Operator = token.ASSIGN
		a.Right = plusCall(a.Left, a.Right)
	}
	s := v.Elem()
	for i := range s.NumField() {
		if !s.Type().Field(i).IsExported() {
			continue
		}
		f := s.Field(i)
		switch {
		case f.Type() == exprType:
			if r := guardedExpr(f.Interface()); r != nil {
				f.Set(reflect.ValueOf(r))
			}
		case f.Kind() == reflect.Slice && f.Type().Elem() == exprType:
			for j := range f.Len() {
				if r := guardedExpr(f.Index(j).Interface()); r != nil {
					f.Index(j).Set(reflect.ValueOf(r))
				}
			}
		}
	}
}

// guardedExpr is e rewritten through the guarded + (nil: e stays): a + b,
// and an untagged template literal `a${x}b`, which becomes
// plus(plus("a", str(x)), "b") — str being ToString (ECMA-262 §13.2.8.6:
// each substitution is evaluated and converted in order, as here).
func guardedExpr(e any) ast.Expression {
	switch e := e.(type) {
	case *ast.BinaryExpression:
		if e.Operator == token.PLUS {
			return plusCall(e.Left, e.Right)
		}
	case *ast.TemplateLiteral:
		if e.Tag != nil || len(e.Expressions) == 0 || len(e.Elements) != len(e.Expressions)+1 {
			return nil
		}
		var acc ast.Expression = &ast.StringLiteral{Idx: e.OpenQuote, Value: e.Elements[0].Parsed}
		for i, x := range e.Expressions {
			idx := x.Idx0()
			str := &ast.CallExpression{Callee: &ast.Identifier{Name: strName, Idx: idx}, LeftParenthesis: idx, ArgumentList: []ast.Expression{x}, RightParenthesis: idx}
			acc = plusCall(acc, str)
			if p := e.Elements[i+1].Parsed; p != "" {
				acc = plusCall(acc, &ast.StringLiteral{Idx: e.Elements[i+1].Idx, Value: p})
			}
		}
		return acc
	}
	return nil
}

// strName is the global bound to ToString for template substitutions.
const strName = "\x00cookbook-sync-str"

// plusCall is plus(a, b).
func plusCall(a, b ast.Expression) *ast.CallExpression {
	idx := a.Idx0()
	return &ast.CallExpression{Callee: &ast.Identifier{Name: plusName, Idx: idx}, LeftParenthesis: idx, ArgumentList: []ast.Expression{a, b}, RightParenthesis: idx}
}

// plainTarget: reading e twice reads the same thing and runs nothing.
func plainTarget(e ast.Expression) bool {
	switch e := e.(type) {
	case *ast.Identifier:
		return true
	case *ast.DotExpression:
		return plainObject(e.Left)
	case *ast.BracketExpression:
		switch e.Member.(type) {
		case *ast.Identifier, *ast.StringLiteral, *ast.NumberLiteral:
			return plainObject(e.Left)
		}
	}
	return false
}

func plainObject(e ast.Expression) bool {
	switch e.(type) {
	case *ast.Identifier, *ast.ThisExpression:
		return true
	}
	return false
}

// stepCall is a call of the step counter placed at idx.
func stepCall(idx file.Idx) *ast.CallExpression {
	return &ast.CallExpression{Callee: &ast.Identifier{Name: stepName, Idx: idx}, LeftParenthesis: idx, RightParenthesis: idx}
}

func stepStmt(idx file.Idx) ast.Statement {
	return &ast.ExpressionStatement{Expression: stepCall(idx)}
}

// stepBlock is a loop body that counts a step first.
func stepBlock(idx file.Idx, body ast.Statement) ast.Statement {
	return &ast.BlockStatement{LeftBrace: idx, List: []ast.Statement{stepStmt(idx), body}, RightBrace: idx}
}

// afterPrologue inserts s after the directive prologue of a function body
// (its leading string-literal expression statements).
func afterPrologue(list []ast.Statement, s ast.Statement) []ast.Statement {
	i := 0
	for ; i < len(list); i++ {
		es, ok := list[i].(*ast.ExpressionStatement)
		if !ok {
			break
		}
		if _, ok := es.Expression.(*ast.StringLiteral); !ok {
			break
		}
	}
	out := make([]ast.Statement, 0, len(list)+1)
	out = append(out, list[:i]...)
	out = append(out, s)
	return append(out, list[i:]...)
}

// stepper counts the steps of one file's runtime and interrupts it when
// they run out (ErrSteps: uncatchable by page code, unlike a thrown
// error).
type stepper struct {
	vm    *goja.Runtime
	left  int64
	max   int64
	spent bool
}

// bind defines the step counter on vm's global object.
func (s *stepper) bind() error {
	fn := s.vm.ToValue(func(goja.FunctionCall) goja.Value {
		s.step()
		return goja.Undefined()
	})
	return s.vm.GlobalObject().DefineDataProperty(stepName, fn, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

// step counts one step.
func (s *stepper) step() {
	s.left--
	if s.left < 0 && !s.spent {
		s.spent = true
		s.vm.Interrupt(fmt.Errorf("%w: more than %d steps (loop iterations and function calls)", ErrSteps, s.max))
	}
}

// used is the number of steps counted.
func (s *stepper) used() int64 { return s.max - s.left }
