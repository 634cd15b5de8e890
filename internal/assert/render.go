package assert

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// goSyntax renders v in Go syntax much as %#v does, but follows pointers
// inside values, where %#v prints addresses: two values that differ only
// in what a nested pointer points to print apart. A pointer met again
// inside itself prints as a cycle, and rendering stops at twice maxShown.
func goSyntax(v any) string {
	r := renderer{seen: map[uintptr]bool{}}
	r.value(reflect.ValueOf(v))
	return r.String()
}

type renderer struct {
	strings.Builder
	seen map[uintptr]bool // the pointers being rendered, to stop at cycles
}

// full reports whether the rendering is long enough to stop.
func (r *renderer) full() bool { return r.Len() > 2*maxShown }

// next starts item i of a list, a struct or a map: it writes the separator
// and reports false, having written "…" instead, if the rendering is long
// enough to stop.
func (r *renderer) next(i int) bool {
	if i > 0 {
		r.WriteString(", ")
	}
	if r.full() {
		r.WriteString("…")
		return false
	}
	return true
}

func (r *renderer) value(v reflect.Value) {
	if r.full() {
		r.WriteString("…")
		return
	}
	switch v.Kind() {
	case reflect.Invalid:
		r.WriteString("nil")
	case reflect.Pointer:
		r.pointer(v)
	case reflect.Interface:
		if v.IsNil() {
			r.WriteString("nil")
			return
		}
		r.value(v.Elem())
	case reflect.Struct:
		r.WriteString(v.Type().String() + "{")
		for i := range v.NumField() {
			if !r.next(i) {
				break
			}
			r.WriteString(v.Type().Field(i).Name + ":")
			r.value(v.Field(i))
		}
		r.WriteString("}")
	case reflect.Slice, reflect.Array:
		r.list(v)
	case reflect.Map:
		r.mapping(v)
	case reflect.String:
		r.WriteString(strconv.Quote(v.String()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		r.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		r.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		r.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, v.Type().Bits()))
	case reflect.Bool:
		r.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Complex64, reflect.Complex128:
		r.WriteString(strconv.FormatComplex(v.Complex(), 'g', -1, 128))
	default: // a function, a channel, an unsafe.Pointer: only its address
		if v.IsNil() {
			fmt.Fprintf(r, "(%s)(nil)", v.Type())
			return
		}
		fmt.Fprintf(r, "(%s)(%#x)", v.Type(), v.Pointer())
	}
}

func (r *renderer) pointer(v reflect.Value) {
	if v.IsNil() {
		fmt.Fprintf(r, "(%s)(nil)", v.Type())
		return
	}
	p := v.Pointer()
	if r.seen[p] {
		fmt.Fprintf(r, "(%s)(cycle)", v.Type())
		return
	}
	r.seen[p] = true
	r.WriteString("&")
	r.value(v.Elem())
	delete(r.seen, p)
}

// list renders a slice or an array; bytes in hexadecimal, as %#v does.
func (r *renderer) list(v reflect.Value) {
	name := v.Type().String()
	if name == "[]uint8" {
		name = "[]byte"
	}
	if v.Kind() == reflect.Slice && v.IsNil() {
		r.WriteString(name + "(nil)")
		return
	}
	r.WriteString(name + "{")
	for i := range v.Len() {
		if !r.next(i) {
			break
		}
		if e := v.Index(i); e.Kind() == reflect.Uint8 {
			fmt.Fprintf(r, "%#x", e.Uint())
		} else {
			r.value(e)
		}
	}
	r.WriteString("}")
}

// mapping renders a map with its entries in the order of their keys'
// renderings, so that equal maps print alike.
func (r *renderer) mapping(v reflect.Value) {
	if v.IsNil() {
		fmt.Fprintf(r, "%s(nil)", v.Type())
		return
	}
	type entry struct{ k, v string }
	var entries []entry
	for it := v.MapRange(); it.Next(); {
		var k, e renderer
		k.seen, e.seen = r.seen, r.seen
		k.value(it.Key())
		e.value(it.Value())
		entries = append(entries, entry{k.String(), e.String()})
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.k, b.k) })
	r.WriteString(v.Type().String() + "{")
	for i, e := range entries {
		if !r.next(i) {
			break
		}
		r.WriteString(e.k + ":" + e.v)
	}
	r.WriteString("}")
}
