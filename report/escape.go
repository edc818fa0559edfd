package report

import "reflect"

// escapedReport is a deep copy of r with every string in it passed
// through esc, the first rule the text and Markdown printers apply to the
// values they print (issue 20, item 4): file names, flags, values,
// messages and notes come from checkouts written by strangers. The text
// printer uses launch.EscapeLine (newline, CR, tab, ESC, NUL, U+2028,
// every other control or format character and every byte that is not
// UTF-8 as a visible escape: a value never ends a line), the Markdown
// printer mdOneLine (line breaks as spaces, as its mdCell / mdText /
// htmlEsc always did, and launch.EscapeControl). A clean string is unchanged; r itself is
// never modified.
func escapedReport(r *Report, esc func(string) string) *Report {
	if r == nil {
		return nil
	}
	e := escaper{esc: esc, seen: map[ptrKey]reflect.Value{}}
	return e.value(reflect.ValueOf(r)).Interface().(*Report)
}

// escaper copies values with every string passed through esc; pointers
// seen before map to the same copy, so shared structure stays shared.
// Unexported fields are copied as they are.
type escaper struct {
	esc  func(string) string
	seen map[ptrKey]reflect.Value
}

// ptrKey names a pointer by type and address (a struct and its first
// field share the address).
type ptrKey struct {
	t reflect.Type
	p uintptr
}

// value returns the escaped copy of v.
func (e escaper) value(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		out := reflect.New(v.Type()).Elem()
		out.SetString(e.esc(v.String()))
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		k := ptrKey{v.Type(), v.Pointer()}
		if c, ok := e.seen[k]; ok {
			return c
		}
		c := reflect.New(v.Type().Elem())
		e.seen[k] = c
		c.Elem().Set(e.value(v.Elem()))
		return c
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := 0; i < v.NumField(); i++ {
			if f := out.Field(i); f.CanSet() {
				f.Set(e.value(v.Field(i)))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(e.value(v.Index(i)))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(e.value(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			out.SetMapIndex(e.value(it.Key()), e.value(it.Value()))
		}
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(e.value(v.Elem()))
		return out
	}
	return v
}
