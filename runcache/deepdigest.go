package runcache

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"io"
	"math"
	"reflect"
	"slices"
)

// DeepDigest is the SHA-256 of a canonical form of v that tells apart any
// two values reflect.DeepEqual tells apart: every field, exported or not,
// nil and empty slices and maps, nil pointers, the dynamic type of an
// interface; a map's entries in the order of their keys' form. A caller
// that stores an encoding of v (JSON, which loses some of these) with
// DeepDigest(v) knows, after decoding it, whether the decoded value is v:
// DeepDigest of it is the stored one (issue 24: the check costs a walk of
// the value where decoding it at store time cost a decode). A float is
// its bits (stricter than DeepEqual's == for -0: such a value only
// misses). ok is false for a value the form cannot vouch for, where equal
// forms could hide values DeepEqual tells apart: a NaN (never DeepEqual to
// itself), a map whose keys are not of a basic kind (DeepEqual matches
// pointer keys by identity), an interface holding a value of an unnamed
// composite type (two packages' types may print alike); and for a value
// that holds a kind the form has no place for (a func, a chan, an unsafe
// pointer, a complex number) or is nested deeper than 256 levels (a
// cycle).
func DeepDigest(v any) (sum Key, ok bool) {
	h := sha256.New()
	// the form is a stream of writes of one to eight bytes, most of them:
	// gathered before the hash takes them (a hash call of its own per
	// write, and a copy of each string for it, were a third of the time:
	// BenchmarkDeepDigest 89 → 60 µs, 968 → 6 allocations)
	bw := bufio.NewWriterSize(h, 4<<10)
	d := digester{w: bw}
	if !d.value(reflect.ValueOf(v), 0) {
		return Key{}, false
	}
	_ = bw.Flush() // a hash's writes never fail
	copy(sum[:], h.Sum(nil))
	return sum, true
}

// digester writes DeepDigest's canonical form to w (a hash or a
// buffer: writes that cannot fail).
type digester struct {
	w   io.Writer
	buf [9]byte
}

// maxDigestDepth bounds DeepDigest's nesting (a cycle never ends).
const maxDigestDepth = 256

func (d *digester) tag(t byte) { d.buf[0] = t; _, _ = d.w.Write(d.buf[:1]) }
func (d *digester) u64(n uint64) {
	binary.BigEndian.PutUint64(d.buf[:8], n)
	_, _ = d.w.Write(d.buf[:8])
}
func (d *digester) flag(b bool) {
	if b {
		d.tag(1)
	} else {
		d.tag(0)
	}
}
func (d *digester) str(s string) {
	d.u64(uint64(len(s)))
	_, _ = io.WriteString(d.w, s)
}

// value writes v's form: a kind tag, then what the kind holds, every
// variable-length part length-prefixed (so no two values share a form).
func (d *digester) value(v reflect.Value, depth int) bool {
	if depth > maxDigestDepth {
		return false
	}
	if !v.IsValid() {
		d.tag('0')
		return true
	}
	switch v.Kind() {
	case reflect.Bool:
		d.tag('b')
		d.flag(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		d.tag('i')
		d.u64(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		d.tag('u')
		d.u64(v.Uint())
	case reflect.Float32, reflect.Float64:
		if math.IsNaN(v.Float()) {
			return false
		}
		d.tag('f')
		d.u64(math.Float64bits(v.Float()))
	case reflect.String:
		d.tag('s')
		d.str(v.String())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice {
			d.tag('S')
			d.flag(v.IsNil())
		} else {
			d.tag('A')
		}
		d.u64(uint64(v.Len()))
		for i := range v.Len() {
			if !d.value(v.Index(i), depth+1) {
				return false
			}
		}
	case reflect.Map:
		if !basicKind(v.Type().Key().Kind()) {
			return false
		}
		d.tag('M')
		d.flag(v.IsNil())
		d.u64(uint64(v.Len()))
		// entries by their key's form, each key's form then its value's
		type entry struct {
			key []byte
			val reflect.Value
		}
		var entries []entry
		for it := v.MapRange(); it.Next(); {
			var kb bytes.Buffer
			if !(&digester{w: &kb}).value(it.Key(), depth+1) {
				return false
			}
			entries = append(entries, entry{kb.Bytes(), it.Value()})
		}
		slices.SortFunc(entries, func(a, b entry) int { return bytes.Compare(a.key, b.key) })
		for _, e := range entries {
			d.u64(uint64(len(e.key)))
			_, _ = d.w.Write(e.key)
			if !d.value(e.val, depth+1) {
				return false
			}
		}
	case reflect.Pointer:
		d.tag('P')
		d.flag(v.IsNil())
		if !v.IsNil() && !d.value(v.Elem(), depth+1) {
			return false
		}
	case reflect.Interface:
		d.tag('I')
		d.flag(v.IsNil())
		if !v.IsNil() {
			t := v.Elem().Type()
			if t.Name() == "" {
				return false // an unnamed composite type: no name tells it apart
			}
			d.str(t.PkgPath())
			d.str(t.String())
			if !d.value(v.Elem(), depth+1) {
				return false
			}
		}
	case reflect.Struct:
		d.tag('T')
		d.u64(uint64(v.NumField()))
		for i := range v.NumField() {
			if !d.value(v.Field(i), depth+1) {
				return false
			}
		}
	default:
		return false // func, chan, unsafe pointer, complex
	}
	return true
}

// basicKind reports whether a map key of kind k is compared by its value
// alone (bool, numbers, string), as the form compares it.
func basicKind(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
