package launch

import (
	"reflect"
	"testing"
)

// fill sets every field reachable from v (structs, slices of two
// elements, pointers) to a non-zero value derived from seed.
func fill(v reflect.Value, seed string) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(seed)
	case reflect.Int:
		v.SetInt(int64(len(seed)))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed+"."+v.Type().Field(i).Name)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), seed+"["+string(rune('0'+i))+"]")
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), seed+"*")
	default:
		panic("fill: kind " + v.Kind().String() + " (teach fill and Deployment.Clone about it)")
	}
}

// TestDeploymentCloneDeep: every field of a fully filled Deployment is in
// the clone, and changing every value reachable from the clone leaves the
// original as it was (fill reaches fields added later, so a field Clone
// does not copy fails here).
func TestDeploymentCloneDeep(t *testing.T) {
	var d, want Deployment
	fill(reflect.ValueOf(&d).Elem(), "d")
	fill(reflect.ValueOf(&want).Elem(), "d")
	c := d.Clone()
	if !reflect.DeepEqual(c, d) {
		t.Fatalf("clone differs from the original:\n%+v\n%+v", c, d)
	}
	var mutate func(v reflect.Value)
	mutate = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString("changed")
		case reflect.Int:
			v.SetInt(-1)
		case reflect.Bool:
			v.SetBool(false)
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					mutate(v.Field(i))
				}
			}
		case reflect.Slice:
			for i := range v.Len() {
				mutate(v.Index(i))
			}
		case reflect.Pointer:
			if !v.IsNil() {
				mutate(v.Elem())
			}
		}
	}
	mutate(reflect.ValueOf(&c).Elem())
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("changing the clone changed the original:\n%+v", d)
	}
}

// TestDeploymentCloneNilAndEmpty: nil slices stay nil, empty ones empty.
func TestDeploymentCloneNilAndEmpty(t *testing.T) {
	d := Deployment{Processes: []Process{{Args: []Arg{{Flag: "--x", Values: []string{}}}}}, Notes: []string{}}
	c := d.Clone()
	if c.Notes == nil || c.Inherited != nil || c.Processes[0].Args[0].Values == nil || c.Processes[0].Env != nil {
		t.Fatalf("nil/empty not kept: %#v", c)
	}
}
