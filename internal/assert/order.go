package assert

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
)

// Greater checks that a > b; a and b are numbers or strings of one type.
func Greater(t T, a, b any, msg ...any) bool {
	t.Helper()
	return ordered(t, a, b, ">", func(c int) bool { return c > 0 }, msg)
}

// GreaterOrEqual checks that a >= b, as Greater compares them.
func GreaterOrEqual(t T, a, b any, msg ...any) bool {
	t.Helper()
	return ordered(t, a, b, ">=", func(c int) bool { return c >= 0 }, msg)
}

// Less checks that a < b, as Greater compares them.
func Less(t T, a, b any, msg ...any) bool {
	t.Helper()
	return ordered(t, a, b, "<", func(c int) bool { return c < 0 }, msg)
}

// LessOrEqual checks that a <= b, as Greater compares them.
func LessOrEqual(t T, a, b any, msg ...any) bool {
	t.Helper()
	return ordered(t, a, b, "<=", func(c int) bool { return c <= 0 }, msg)
}

// Positive checks that a number is greater than its type's zero.
func Positive(t T, a any, msg ...any) bool {
	t.Helper()
	if a == nil {
		return fail(t, "nil is not a number", msg)
	}
	zero := reflect.Zero(reflect.TypeOf(a)).Interface()
	return ordered(t, a, zero, ">", func(c int) bool { return c > 0 }, msg)
}

// ordered compares a with b and checks that holds of the result.
func ordered(t T, a, b any, op string, holds func(int) bool, msg []any) bool {
	t.Helper()
	c, err := order(a, b)
	if err != nil {
		return fail(t, err.Error(), msg)
	}
	if holds(c) {
		return true
	}
	return fail(t, fmt.Sprintf("should hold: %s %s %s", show(a), op, show(b)), msg)
}

// order returns -1, 0 or +1 as a is less than, equal to or greater than b.
func order(a, b any) (int, error) {
	if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) {
		return 0, fmt.Errorf("cannot order %s (%T) and %s (%T): they need one type", show(a), a, show(b), b)
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	switch va.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return cmp.Compare(va.Int(), vb.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return cmp.Compare(va.Uint(), vb.Uint()), nil
	case reflect.Float32, reflect.Float64:
		if math.IsNaN(va.Float()) || math.IsNaN(vb.Float()) {
			return 0, fmt.Errorf("cannot order %v and %v", a, b)
		}
		return cmp.Compare(va.Float(), vb.Float()), nil
	case reflect.String:
		return cmp.Compare(va.String(), vb.String()), nil
	}
	return 0, fmt.Errorf("cannot order values of type %T", a)
}

// IsNonDecreasing checks that each element of a slice or array is greater
// than or equal to the one before it.
func IsNonDecreasing(t T, list any, msg ...any) bool {
	t.Helper()
	v := reflect.ValueOf(list)
	if k := v.Kind(); k != reflect.Slice && k != reflect.Array {
		return fail(t, fmt.Sprintf("%s (%T) is not a slice or array", show(list), list), msg)
	}
	for i := 1; i < v.Len(); i++ {
		prev, cur := v.Index(i-1).Interface(), v.Index(i).Interface()
		c, err := order(prev, cur)
		if err != nil {
			return fail(t, err.Error(), msg)
		}
		if c > 0 {
			return fail(t, fmt.Sprintf("decreases at index %d: %s then %s", i, show(prev), show(cur)), msg)
		}
	}
	return true
}

// InDelta checks that two numbers, of any numeric types, differ by at most
// delta.
func InDelta(t T, expected, actual any, delta float64, msg ...any) bool {
	t.Helper()
	e, eok := toFloat(expected)
	a, aok := toFloat(actual)
	if !eok || !aok {
		return fail(t, fmt.Sprintf("InDelta needs numbers, got %T and %T", expected, actual), msg)
	}
	if math.IsNaN(e) || math.IsNaN(a) {
		if math.IsNaN(e) && math.IsNaN(a) {
			return true
		}
		return fail(t, fmt.Sprintf("%v and %v: one is NaN", expected, actual), msg)
	}
	if math.Abs(e-a) <= delta {
		return true
	}
	return fail(t, fmt.Sprintf("%v and %v differ by %v, more than %v", expected, actual, math.Abs(a-e), delta), msg)
}

func toFloat(x any) (float64, bool) {
	if x == nil {
		return 0, false
	}
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(v.Uint()), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	}
	return 0, false
}
