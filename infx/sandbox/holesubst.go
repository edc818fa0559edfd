package sandbox

import (
	"reflect"
	"strings"
)

// SubstituteHoles returns a deep copy of v (a pointer, slice, map or
// struct of such, as a run's Trace is) with every hole of subst (hole →
// value, strings.NewReplacer's pairs) replaced by its value, in every
// string, map key and element it reaches through exported fields,
// pointers, slices, arrays, maps and interfaces. ok is false when the
// copy still holds what is left of a hole (Residual: a hole cut by
// bytes, one subst does not name) or v has an unexported field that may
// hold a string: the copy is then not the values' and the caller runs
// them on their own. Pointers shared in v are copied once per path.
func SubstituteHoles[T any](v T, subst *strings.Replacer) (out T, ok bool) {
	src := reflect.ValueOf(&v).Elem()
	dst := reflect.New(src.Type()).Elem()
	if !substValue(dst, src, subst) {
		return out, false
	}
	return dst.Interface().(T), true
}

// substValue sets dst (settable, src's type) to a copy of src with the
// holes replaced; false on a residual or an unexported field.
func substValue(dst, src reflect.Value, r *strings.Replacer) bool {
	switch src.Kind() {
	case reflect.String:
		s := src.String()
		if HasHole(s) {
			s = r.Replace(s)
		}
		if Residual(s) {
			return false
		}
		dst.SetString(s)
	case reflect.Pointer:
		if src.IsNil() {
			return true
		}
		p := reflect.New(src.Type().Elem())
		if !substValue(p.Elem(), src.Elem(), r) {
			return false
		}
		dst.Set(p)
	case reflect.Interface:
		if src.IsNil() {
			return true
		}
		e := src.Elem()
		c := reflect.New(e.Type()).Elem()
		if !substValue(c, e, r) {
			return false
		}
		dst.Set(c)
	case reflect.Slice:
		if src.IsNil() {
			return true
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			if !substValue(s.Index(i), src.Index(i), r) {
				return false
			}
		}
		dst.Set(s)
	case reflect.Array:
		for i := range src.Len() {
			if !substValue(dst.Index(i), src.Index(i), r) {
				return false
			}
		}
	case reflect.Map:
		if src.IsNil() {
			return true
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			k := reflect.New(src.Type().Key()).Elem()
			v := reflect.New(src.Type().Elem()).Elem()
			if !substValue(k, it.Key(), r) || !substValue(v, it.Value(), r) {
				return false
			}
			if m.MapIndex(k).IsValid() {
				return false // two keys became one
			}
			m.SetMapIndex(k, v)
		}
		dst.Set(m)
	case reflect.Struct:
		t := src.Type()
		dst.Set(src) // the unexported fields, which hold no string
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				if mayHoldString(t.Field(i).Type) {
					return false
				}
				continue
			}
			if !substValue(dst.Field(i), src.Field(i), r) {
				return false
			}
		}
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		dst.Set(src)
	default: // a func, a channel, an unsafe pointer: not a value to copy
		return false
	}
	return true
}

// mayHoldString reports whether a value of type t may hold a string.
func mayHoldString(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Interface, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return mayHoldString(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if mayHoldString(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
