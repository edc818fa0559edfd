package pages

import "reflect"

// walkAST visits every node of a goja AST reachable from root once,
// parents before children, through the exported fields: f gets each
// non-nil pointer (*ast.ForStatement, *ast.StringLiteral, …) and then each
// struct value (ast.Identifier, also when embedded by value). f may
// replace a pointer node's fields; the new children are walked.
func walkAST(root any, f func(n any)) {
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			f(v.Interface())
			walk(v.Elem())
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			f(v.Interface())
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(root))
}
