// Package assert holds the checks this module's tests make. Each reports
// what it compared through t.Errorf when it does not hold, and returns
// whether it held; package require has the same checks, stopping the test
// at the first that fails.
//
// The checks follow the names, argument order and verdicts of testify's
// assert package, which the tests used before; the module carries its own
// because testify's imports (net/http among them) cost about half a second
// of linking for each of the module's test binaries. Where they differ,
// these are mostly stricter (EqualValues converts both ways, Contains on a
// string wants a string); InDelta also takes numbers of named types. A
// report prints values in Go syntax, with what a String or Error method
// says beside them, and cuts long ones after 4 KB, saying where the two
// first differ. Every check takes, after its operands, an optional
// message: a format and its arguments, or any values to print.
package assert

import (
	"bytes"
	"fmt"
	"reflect"
)

// T is what a check reports to: *testing.T and *testing.B are both one.
type T interface {
	Helper()
	Errorf(format string, args ...any)
}

// fail reports a failed check: what failed, then the caller's message.
func fail(t T, what string, msg []any) bool {
	t.Helper()
	if m := message(msg); m != "" {
		what += "\n" + m
	}
	t.Errorf("%s", what)
	return false
}

// message renders a check's optional message: a format string and its
// arguments, or values printed as fmt.Sprint would.
func message(msg []any) string {
	if len(msg) == 0 {
		return ""
	}
	if format, ok := msg[0].(string); ok && len(msg) > 1 {
		return fmt.Sprintf(format, msg[1:]...)
	}
	return fmt.Sprint(msg...)
}

// Equal checks that expected and actual are deeply equal (byte slices by
// their contents).
func Equal(t T, expected, actual any, msg ...any) bool {
	t.Helper()
	if isFunc(expected) || isFunc(actual) {
		return fail(t, fmt.Sprintf("cannot compare functions: %T and %T", expected, actual), msg)
	}
	if equal(expected, actual) {
		return true
	}
	return fail(t, "not equal:\n"+compare(expected, actual), msg)
}

// NotEqual checks that expected and actual are not deeply equal.
func NotEqual(t T, expected, actual any, msg ...any) bool {
	t.Helper()
	if isFunc(expected) || isFunc(actual) {
		return fail(t, fmt.Sprintf("cannot compare functions: %T and %T", expected, actual), msg)
	}
	if !equal(expected, actual) {
		return true
	}
	return fail(t, "should not be equal to "+show(expected)+", is "+show(actual), msg)
}

// EqualValues checks that expected and actual are equal once actual is
// converted to expected's type (as 5 and int64(5) are).
func EqualValues(t T, expected, actual any, msg ...any) bool {
	t.Helper()
	if equalValues(expected, actual) {
		return true
	}
	return fail(t, "not equal values:\n"+compare(expected, actual), msg)
}

// True checks that value is true.
func True(t T, value bool, msg ...any) bool {
	t.Helper()
	if value {
		return true
	}
	return fail(t, "should be true", msg)
}

// False checks that value is false.
func False(t T, value bool, msg ...any) bool {
	t.Helper()
	if !value {
		return true
	}
	return fail(t, "should be false", msg)
}

// Same checks that expected and actual are pointers of one type to the
// same variable.
func Same(t T, expected, actual any, msg ...any) bool {
	t.Helper()
	if same(expected, actual) {
		return true
	}
	return fail(t, fmt.Sprintf("should be the same pointer: %p (%T) and %p (%T)", expected, expected, actual, actual), msg)
}

// NotSame checks that expected and actual are pointers, not both of one
// type to the same variable.
func NotSame(t T, expected, actual any, msg ...any) bool {
	t.Helper()
	if !isPointer(expected) || !isPointer(actual) {
		return fail(t, fmt.Sprintf("NotSame needs two pointers, got %T and %T", expected, actual), msg)
	}
	if !same(expected, actual) {
		return true
	}
	return fail(t, fmt.Sprintf("should not be the same pointer: both %p (%T)", expected, expected), msg)
}

func same(a, b any) bool {
	if !isPointer(a) || !isPointer(b) || reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer()
}

func isPointer(v any) bool { return reflect.ValueOf(v).Kind() == reflect.Pointer }

// Nil checks that value is nil, or a nil pointer, slice, map, channel or
// function inside an interface.
func Nil(t T, value any, msg ...any) bool {
	t.Helper()
	if isNil(value) {
		return true
	}
	return fail(t, "should be nil, is "+show(value), msg)
}

// NotNil checks that value is not nil in the sense of Nil.
func NotNil(t T, value any, msg ...any) bool {
	t.Helper()
	if !isNil(value) {
		return true
	}
	return fail(t, fmt.Sprintf("should not be nil (%T)", value), msg)
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Chan, reflect.Func, reflect.Interface, reflect.Map, reflect.Pointer, reflect.Slice, reflect.UnsafePointer:
		return rv.IsNil()
	}
	return false
}

// Zero checks that value is nil or its type's zero value.
func Zero(t T, value any, msg ...any) bool {
	t.Helper()
	if isZero(value) {
		return true
	}
	return fail(t, "should be zero, is "+show(value), msg)
}

// NotZero checks that value is neither nil nor its type's zero value.
func NotZero(t T, value any, msg ...any) bool {
	t.Helper()
	if !isZero(value) {
		return true
	}
	return fail(t, fmt.Sprintf("should not be zero (%T)", value), msg)
}

func isZero(v any) bool {
	return v == nil || reflect.ValueOf(v).IsZero()
}

// Empty checks that value is empty: nil, a zero value, a string, slice, map
// or channel of length zero, or a pointer to an empty value.
func Empty(t T, value any, msg ...any) bool {
	t.Helper()
	if isEmpty(value) {
		return true
	}
	return fail(t, "should be empty, is "+show(value), msg)
}

// NotEmpty checks that value is not empty in the sense of Empty.
func NotEmpty(t T, value any, msg ...any) bool {
	t.Helper()
	if !isEmpty(value) {
		return true
	}
	return fail(t, fmt.Sprintf("should not be empty: %s", show(value)), msg)
}

func isEmpty(v any) bool { return v == nil || isEmptyValue(reflect.ValueOf(v)) }

// isEmptyValue is isEmpty of a reflect.Value: an interface holding an empty
// slice is not empty, as it is not nil.
func isEmptyValue(rv reflect.Value) bool {
	switch rv.Kind() {
	case reflect.Chan, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() == 0
	case reflect.Pointer:
		return rv.IsNil() || isEmptyValue(rv.Elem())
	}
	return rv.IsZero()
}

// Len checks that value (a string, array, slice, map or channel) has
// length n.
func Len(t T, value any, n int, msg ...any) bool {
	t.Helper()
	rv := reflect.ValueOf(value)
	switch rv.Kind() {
	case reflect.Array, reflect.Chan, reflect.Map, reflect.Slice, reflect.String:
	default:
		return fail(t, fmt.Sprintf("%s (%T) has no length", show(value), value), msg)
	}
	if rv.Len() == n {
		return true
	}
	return fail(t, fmt.Sprintf("should have %d items, has %d: %s", n, rv.Len(), show(value)), msg)
}

// equal reports whether a and b are deeply equal, two byte slices by
// their contents (but nil equals only nil).
func equal(a, b any) bool {
	if a == nil || b == nil {
		return a == b
	}
	ab, aok := a.([]byte)
	bb, bok := b.([]byte)
	if !aok || !bok {
		return reflect.DeepEqual(a, b)
	}
	if ab == nil || bb == nil {
		return ab == nil && bb == nil
	}
	return bytes.Equal(ab, bb)
}

// equalValues reports whether a and b are equal, or b converts to a's type
// and then equals it.
func equalValues(a, b any) bool {
	if equal(a, b) {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	ta, vb := reflect.TypeOf(a), reflect.ValueOf(b)
	if !vb.Type().ConvertibleTo(ta) {
		return false
	}
	// A conversion between numbers may wrap or truncate: compare it both
	// ways, so that int8(-1) does not equal uint8(255).
	if !reflect.ValueOf(a).CanConvert(vb.Type()) {
		return false
	}
	return reflect.DeepEqual(vb.Convert(ta).Interface(), a) &&
		reflect.DeepEqual(reflect.ValueOf(a).Convert(vb.Type()).Interface(), b)
}

func isFunc(v any) bool {
	return v != nil && reflect.TypeOf(v).Kind() == reflect.Func
}
