package sandbox

import (
	"reflect"
	"strings"
)

// SubstituteHoles returns v with every hole of subst (hole → value,
// strings.NewReplacer's pairs) replaced by its value, in every string,
// map key and element it reaches through exported fields, pointers,
// slices, arrays, maps and interfaces. What holds no hole is shared with v
// (a slice, map or pointed-to value is copied only when something under
// it changes), so neither v nor the result may be modified in place
// afterwards; the caller copies what it changes. ok is false when the
// result still holds what is left of a hole (Residual: a hole cut by
// bytes, one subst does not name), two map keys become one, or v has an
// unexported field that may hold a string: the result is then not the
// values' and the caller runs them on their own.
func SubstituteHoles[T any](v T, subst *strings.Replacer) (out T, ok bool) {
	src := reflect.ValueOf(&v).Elem()
	got, _, ok := substValue(src, subst)
	if !ok {
		return out, false
	}
	return got.Interface().(T), true
}

// substValue is src with the holes replaced (a value of src's type, src
// itself when changed is false); ok is false on a residual, a key
// collision or an unexported field that may hold a string.
func substValue(src reflect.Value, r *strings.Replacer) (out reflect.Value, changed, ok bool) {
	switch src.Kind() {
	case reflect.String:
		s := src.String()
		if HasHole(s) {
			s = r.Replace(s)
			if Residual(s) {
				return src, false, false
			}
			v := reflect.New(src.Type()).Elem()
			v.SetString(s)
			return v, true, true
		}
		return src, false, !escapedHole(s) // HasHole(s) is false
	case reflect.Pointer:
		if src.IsNil() {
			return src, false, true
		}
		e, ch, ok := substValue(src.Elem(), r)
		if !ok || !ch {
			return src, false, ok
		}
		p := reflect.New(src.Type().Elem())
		p.Elem().Set(e)
		return p, true, true
	case reflect.Interface:
		if src.IsNil() {
			return src, false, true
		}
		e, ch, ok := substValue(src.Elem(), r)
		if !ok || !ch {
			return src, false, ok
		}
		v := reflect.New(src.Type()).Elem()
		v.Set(e)
		return v, true, true
	case reflect.Slice, reflect.Array:
		if src.Kind() == reflect.Slice && src.IsNil() {
			return src, false, true
		}
		var out reflect.Value
		for i := range src.Len() {
			e, ch, ok := substValue(src.Index(i), r)
			if !ok {
				return src, false, false
			}
			if !ch {
				continue
			}
			if !out.IsValid() {
				if src.Kind() == reflect.Slice {
					out = reflect.MakeSlice(src.Type(), src.Len(), src.Len())
					reflect.Copy(out, src)
				} else {
					out = reflect.New(src.Type()).Elem()
					out.Set(src)
				}
			}
			out.Index(i).Set(e)
		}
		if !out.IsValid() {
			return src, false, true
		}
		return out, true, true
	case reflect.Map:
		if src.IsNil() {
			return src, false, true
		}
		type kv struct{ k, v reflect.Value }
		var all []kv
		any := false
		it := src.MapRange()
		for it.Next() {
			k, kch, ok := substValue(it.Key(), r)
			if !ok {
				return src, false, false
			}
			v, vch, ok := substValue(it.Value(), r)
			if !ok {
				return src, false, false
			}
			any = any || kch || vch
			all = append(all, kv{k, v})
		}
		if !any {
			return src, false, true
		}
		m := reflect.MakeMapWithSize(src.Type(), len(all))
		for _, e := range all {
			if m.MapIndex(e.k).IsValid() {
				return src, false, false // two keys became one
			}
			m.SetMapIndex(e.k, e.v)
		}
		return m, true, true
	case reflect.Struct:
		t := src.Type()
		var out reflect.Value
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				if mayHoldString(t.Field(i).Type) {
					return src, false, false
				}
				continue
			}
			e, ch, ok := substValue(src.Field(i), r)
			if !ok {
				return src, false, false
			}
			if !ch {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(t).Elem()
				out.Set(src) // the unexported fields, which hold no string
			}
			out.Field(i).Set(e)
		}
		if !out.IsValid() {
			return src, false, true
		}
		return out, true, true
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return src, false, true
	}
	// a func, a channel, an unsafe pointer: not a value to copy
	return src, false, false
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
