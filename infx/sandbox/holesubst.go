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
	got, _, ok := (&substituter{r: subst}).value(src)
	if !ok {
		return out, false
	}
	return got.Interface().(T), true
}

// substituter is one SubstituteHoles call: its replacer, and the []string
// slices it has changed by their first element and length (a run's
// commands share one environment listing while it does not change,
// sandbox.envDiff): each is copied once, and the copy shared.
type substituter struct {
	r       *strings.Replacer
	strings map[stringsKey]substStrings
}

type stringsKey struct {
	first *string
	n     int
}

type substStrings struct {
	out     []string
	changed bool
}

// plainStrings is the type []string (substituter.stringSlice).
var plainStrings = reflect.TypeFor[[]string]()

// stringSlice is value for a []string: the strings read directly, and a
// slice gone through before (the same first element and length) that
// changed answered with the same copy; one that did not change is its own
// answer, found again when met again (kept, every argv was: 0.7% of a
// coverage run's allocation, issue 24). ok is false on a residual.
func (st *substituter) stringSlice(src reflect.Value) (out reflect.Value, changed, ok bool) {
	var ss []string
	if src.CanAddr() {
		ss = *src.Addr().Interface().(*[]string) // (a pointer: no copy of the header made)
	} else {
		ss = src.Interface().([]string)
	}
	if len(ss) == 0 {
		return src, false, true
	}
	key := stringsKey{first: &ss[0], n: len(ss)}
	if m, seen := st.strings[key]; seen {
		if !m.changed {
			return src, false, true
		}
		return reflect.ValueOf(m.out), true, true
	}
	var res []string
	for i, s := range ss {
		if !HasHole(s) {
			if escapedHole(s) {
				return src, false, false
			}
			continue
		}
		s = st.r.Replace(s)
		if Residual(s) {
			return src, false, false
		}
		if res == nil {
			res = make([]string, len(ss))
			copy(res, ss)
		}
		res[i] = s
	}
	if res == nil {
		// (not kept: met again, it is gone through again, and answered
		// with itself again)
		return src, false, true
	}
	if st.strings == nil {
		st.strings = map[stringsKey]substStrings{}
	}
	st.strings[key] = substStrings{out: res, changed: true}
	return reflect.ValueOf(res), true, true
}

// value is src with the holes replaced (a value of src's type, src
// itself when changed is false); ok is false on a residual, a key
// collision or an unexported field that may hold a string.
func (st *substituter) value(src reflect.Value) (out reflect.Value, changed, ok bool) {
	r := st.r
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
		e, ch, ok := st.value(src.Elem())
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
		e, ch, ok := st.value(src.Elem())
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
		if src.Type() == plainStrings && src.CanInterface() {
			return st.stringSlice(src)
		}
		var out reflect.Value
		for i := range src.Len() {
			e, ch, ok := st.value(src.Index(i))
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
			k, kch, ok := st.value(it.Key())
			if !ok {
				return src, false, false
			}
			v, vch, ok := st.value(it.Value())
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
			e, ch, ok := st.value(src.Field(i))
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
