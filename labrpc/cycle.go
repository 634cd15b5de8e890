package labrpc

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// tooDeepError explains why a copy of v went more than maxDepth references
// deep: it locates a reference in v that leads back to a value that contains
// it, or, if v has no cycle, says that v is nested too deeply.
func tooDeepError(v reflect.Value) *TypeError {
	f := cycleFinder{onPath: make(map[ref]int)}
	if f.find(v) {
		back := "the top"
		if f.back > 0 {
			back = f.path(f.back)
		}
		return &TypeError{Type: v.Type(), Path: f.path(len(f.steps)), Why: "a cycle: it refers back to the value at " + back}
	}
	return &TypeError{Type: v.Type(), Why: fmt.Sprintf("it nests more than %d references deep", maxDepth)}
}

// A ref identifies what a reference refers to: an address and a type, since
// a struct and its first field share an address.
type ref struct {
	addr uintptr
	t    reflect.Type
}

// A cycleFinder walks a value depth first, remembering the references on
// the path from the top to where it is.
type cycleFinder struct {
	steps  []string    // the path from the top: field names and indexes
	onPath map[ref]int // reference on the path -> len(steps) where it was met
	back   int         // once a cycle is found: len(steps) where it leads back to
}

// path formats the first n steps, as in "Log[3].Next".
func (f *cycleFinder) path(n int) string {
	return strings.TrimPrefix(strings.Join(f.steps[:n], ""), ".")
}

// find reports whether v holds a reference that refers back to a value on
// the way to it; if so, f.steps is the path to the reference.
func (f *cycleFinder) find(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice:
		if v.IsNil() || (v.Kind() == reflect.Slice && v.Len() == 0) {
			return false
		}
		r := ref{v.Pointer(), v.Type()}
		if at, ok := f.onPath[r]; ok {
			f.back = at
			return true
		}
		f.onPath[r] = len(f.steps)
		defer delete(f.onPath, r)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && f.find(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if f.step("["+strconv.Itoa(i)+"]", v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		// In the order of the keys as printed, so that the cycle reported
		// does not change from run to run with the map's order.
		keys := v.MapKeys()
		names := make([]string, len(keys))
		order := make([]int, len(keys))
		for i, k := range keys {
			names[i], order[i] = fmt.Sprintf("[%v]", k), i
		}
		slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
		for _, i := range order {
			if f.step(names[i], v.MapIndex(keys[i])) {
				return true
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f.step("."+v.Type().Field(i).Name, v.Field(i)) {
				return true
			}
		}
	}
	return false
}

// step looks for a cycle in v, one step named s down the path.
func (f *cycleFinder) step(s string, v reflect.Value) bool {
	f.steps = append(f.steps, s)
	if f.find(v) {
		return true
	}
	f.steps = f.steps[:len(f.steps)-1]
	return false
}
