package report

import "reflect"

// escapedReport is r with every string in it passed through esc, the
// first rule the text and Markdown printers apply to the values they print
// (issue 20, item 4): file names, flags, values, messages and notes come
// from checkouts written by strangers. The text printer uses
// launch.EscapeLine (newline, CR, tab, ESC, NUL, U+2028, every other
// control or format character and every byte that is not UTF-8 as a
// visible escape: a value never ends a line), the Markdown printer
// mdOneLine (line breaks as spaces, as its mdCell / mdText / htmlEsc
// always did, and launch.EscapeControl). A clean string is unchanged; r
// itself is never modified. Copied on write: only the values on the path
// to a string esc changes are copied, the rest is r's own — shared, so a
// printer only reads what it is given (the CLI stores r while the text
// printer runs; TestPrintersLeaveReport). On the complete trees' report,
// where hardly a string changes, the deep copy it was took half of the
// text printer's CPU.
func escapedReport(r *Report, esc func(string) string) *Report {
	if r == nil {
		return nil
	}
	e := escaper{esc: esc, seen: map[ptrKey]escaped{}}
	out, _ := e.value(reflect.ValueOf(r))
	if e.cycle {
		// a pointer reached from itself (no report the tool makes has one):
		// the deep copy, whose pointers map to their copies before they
		// are filled
		c := copier{esc: esc, seen: map[ptrKey]reflect.Value{}}
		return c.value(reflect.ValueOf(r)).Interface().(*Report)
	}
	return out.Interface().(*Report)
}

// escaper gives values with every string passed through esc, copying on
// write: a value none of whose strings esc changes is given back as it is.
// A pointer seen before gives what it gave then, so shared structure stays
// shared. Unexported fields are kept as they are. cycle is set when a
// pointer is met again while its value is being escaped.
type escaper struct {
	esc   func(string) string
	seen  map[ptrKey]escaped
	cycle bool
	// fields are, per struct type, the exported fields whose type can
	// hold a string (stringFields): the others cannot change.
	fields map[reflect.Type][]int
}

// stringFields lists the exported fields of struct type t whose type can
// hold a string (holdsString), in order; kept per type.
func (e *escaper) stringFields(t reflect.Type) []int {
	if f, ok := e.fields[t]; ok {
		return f
	}
	f := []int{} // (not nil: known)
	for i := 0; i < t.NumField(); i++ {
		if sf := t.Field(i); sf.IsExported() && holdsString(sf.Type, map[reflect.Type]bool{}) {
			f = append(f, i)
		}
	}
	if e.fields == nil {
		e.fields = map[reflect.Type][]int{}
	}
	e.fields[t] = f
	return f
}

// holdsString reports whether a value of type t can hold a string the
// escaper would reach: a string, an interface, or a pointer, slice,
// array, map or struct (its exported fields) with one inside. A type met
// again within one look (visiting: a recursive type, or one already met in
// another part of the same field's type) counts as holding one — at worst a
// field is walked that need not be.
func holdsString(t reflect.Type, visiting map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		if visiting[t] {
			return true
		}
		visiting[t] = true
		return holdsString(t.Elem(), visiting)
	case reflect.Map:
		if visiting[t] {
			return true
		}
		visiting[t] = true
		return holdsString(t.Key(), visiting) || holdsString(t.Elem(), visiting)
	case reflect.Struct:
		if visiting[t] {
			return true
		}
		visiting[t] = true
		for i := 0; i < t.NumField(); i++ {
			if sf := t.Field(i); sf.IsExported() && holdsString(sf.Type, visiting) {
				return true
			}
		}
	}
	return false
}

// escaped is the outcome of a pointer: the value given (v itself when
// unchanged), or done false while it is being escaped.
type escaped struct {
	v       reflect.Value
	changed bool
	done    bool
}

// ptrKey names a pointer by type and address (a struct and its first
// field share the address).
type ptrKey struct {
	t reflect.Type
	p uintptr
}

// value returns v with its strings escaped, and whether that changed
// anything (false: the value returned is v).
func (e *escaper) value(v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		t := e.esc(s)
		if t == s {
			return v, false
		}
		out := reflect.New(v.Type()).Elem()
		out.SetString(t)
		return out, true
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		k := ptrKey{v.Type(), v.Pointer()}
		if c, ok := e.seen[k]; ok {
			if !c.done {
				e.cycle = true
				return v, false
			}
			return c.v, c.changed
		}
		e.seen[k] = escaped{}
		el, changed := e.value(v.Elem())
		out := v
		if changed {
			out = reflect.New(v.Type().Elem())
			out.Elem().Set(el)
		}
		e.seen[k] = escaped{v: out, changed: changed, done: true}
		return out, changed
	case reflect.Struct:
		var out reflect.Value
		for _, i := range e.stringFields(v.Type()) {
			f, changed := e.value(v.Field(i))
			if !changed {
				continue
			}
			if !out.IsValid() {
				out = reflect.New(v.Type()).Elem()
				out.Set(v)
			}
			out.Field(i).Set(f)
		}
		if !out.IsValid() {
			return v, false
		}
		return out, true
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return v, false
		}
		var out reflect.Value
		for i := 0; i < v.Len(); i++ {
			el, changed := e.value(v.Index(i))
			if !changed {
				continue
			}
			if !out.IsValid() {
				if v.Kind() == reflect.Slice {
					out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
				} else {
					out = reflect.New(v.Type()).Elem()
				}
				reflect.Copy(out, v)
			}
			out.Index(i).Set(el)
		}
		if !out.IsValid() {
			return v, false
		}
		return out, true
	case reflect.Map:
		if v.IsNil() {
			return v, false
		}
		type kv struct{ k, v reflect.Value }
		var all []kv
		any := false
		it := v.MapRange()
		for it.Next() {
			k, kc := e.value(it.Key())
			x, xc := e.value(it.Value())
			any = any || kc || xc
			all = append(all, kv{k, x})
		}
		if !any {
			return v, false
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for _, p := range all {
			out.SetMapIndex(p.k, p.v)
		}
		return out, true
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		el, changed := e.value(v.Elem())
		if !changed {
			return v, false
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(el)
		return out, true
	}
	return v, false
}

// copier is the deep copy escapedReport falls back to: values copied with
// every string passed through esc; pointers seen before map to the same
// copy, so shared structure (and a cycle) stays shared. Unexported fields
// are copied as they are.
type copier struct {
	esc  func(string) string
	seen map[ptrKey]reflect.Value
}

// value returns the escaped copy of v.
func (e copier) value(v reflect.Value) reflect.Value {
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
