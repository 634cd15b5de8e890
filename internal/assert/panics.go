package assert

import (
	"fmt"
	"reflect"
)

// recovered calls f and returns what it panicked with, and whether it did.
func recovered(f func()) (value any, panicked bool) {
	panicked = true
	defer func() { value = recover() }()
	f()
	panicked = false
	return
}

// Panics checks that f panics.
func Panics(t T, f func(), msg ...any) bool {
	t.Helper()
	if _, ok := recovered(f); ok {
		return true
	}
	return fail(t, "should panic, did not", msg)
}

// PanicsWithValue checks that f panics with expected: a value == to it
// (so a pointer, only the same pointer).
func PanicsWithValue(t T, expected any, f func(), msg ...any) bool {
	t.Helper()
	if expected != nil && !reflect.ValueOf(expected).Comparable() {
		return fail(t, fmt.Sprintf("a panic's value cannot be compared with %s (%T)", show(expected), expected), msg)
	}
	v, ok := recovered(f)
	if !ok {
		return fail(t, "should panic with "+show(expected)+", did not panic", msg)
	}
	if reflect.TypeOf(v) == reflect.TypeOf(expected) && v == expected {
		return true
	}
	return fail(t, "panicked with another value:\n"+compare(expected, v), msg)
}

// PanicsWithError checks that f panics with an error whose message is text.
func PanicsWithError(t T, text string, f func(), msg ...any) bool {
	t.Helper()
	v, ok := recovered(f)
	if !ok {
		return fail(t, fmt.Sprintf("should panic with error %q, did not panic", text), msg)
	}
	err, isErr := v.(error)
	if !isErr {
		return fail(t, fmt.Sprintf("should panic with error %q, panicked with %s (%T)", text, show(v), v), msg)
	}
	if err.Error() == text {
		return true
	}
	return fail(t, "panicked with another error:\n"+compare(text, err.Error()), msg)
}
