// Package require holds package assert's checks, each stopping the test
// (t.FailNow) when it does not hold: for checks whose failure makes the
// rest of the test meaningless.
package require

import "github.com/replab/replab/internal/assert"

// T is what a check reports to and stops: *testing.T and *testing.B are
// both one.
type T interface {
	assert.T
	FailNow()
}

// stop stops the test unless its check held.
func stop(t T, held bool) {
	if !held {
		t.FailNow()
	}
}

// Equal is assert.Equal, stopping the test if it fails.
func Equal(t T, expected, actual any, msg ...any) {
	t.Helper()
	stop(t, assert.Equal(t, expected, actual, msg...))
}

// NotEqual is assert.NotEqual, stopping the test if it fails.
func NotEqual(t T, expected, actual any, msg ...any) {
	t.Helper()
	stop(t, assert.NotEqual(t, expected, actual, msg...))
}

// EqualValues is assert.EqualValues, stopping the test if it fails.
func EqualValues(t T, expected, actual any, msg ...any) {
	t.Helper()
	stop(t, assert.EqualValues(t, expected, actual, msg...))
}

// True is assert.True, stopping the test if it fails.
func True(t T, value bool, msg ...any) { t.Helper(); stop(t, assert.True(t, value, msg...)) }

// False is assert.False, stopping the test if it fails.
func False(t T, value bool, msg ...any) { t.Helper(); stop(t, assert.False(t, value, msg...)) }

// Same is assert.Same, stopping the test if it fails.
func Same(t T, expected, actual any, msg ...any) {
	t.Helper()
	stop(t, assert.Same(t, expected, actual, msg...))
}

// NotSame is assert.NotSame, stopping the test if it fails.
func NotSame(t T, expected, actual any, msg ...any) {
	t.Helper()
	stop(t, assert.NotSame(t, expected, actual, msg...))
}

// Nil is assert.Nil, stopping the test if it fails.
func Nil(t T, value any, msg ...any) { t.Helper(); stop(t, assert.Nil(t, value, msg...)) }

// NotNil is assert.NotNil, stopping the test if it fails.
func NotNil(t T, value any, msg ...any) { t.Helper(); stop(t, assert.NotNil(t, value, msg...)) }

// Zero is assert.Zero, stopping the test if it fails.
func Zero(t T, value any, msg ...any) { t.Helper(); stop(t, assert.Zero(t, value, msg...)) }

// NotZero is assert.NotZero, stopping the test if it fails.
func NotZero(t T, value any, msg ...any) { t.Helper(); stop(t, assert.NotZero(t, value, msg...)) }

// Empty is assert.Empty, stopping the test if it fails.
func Empty(t T, value any, msg ...any) { t.Helper(); stop(t, assert.Empty(t, value, msg...)) }

// NotEmpty is assert.NotEmpty, stopping the test if it fails.
func NotEmpty(t T, value any, msg ...any) { t.Helper(); stop(t, assert.NotEmpty(t, value, msg...)) }

// Len is assert.Len, stopping the test if it fails.
func Len(t T, value any, n int, msg ...any) { t.Helper(); stop(t, assert.Len(t, value, n, msg...)) }

// Contains is assert.Contains, stopping the test if it fails.
func Contains(t T, container, item any, msg ...any) {
	t.Helper()
	stop(t, assert.Contains(t, container, item, msg...))
}

// NotContains is assert.NotContains, stopping the test if it fails.
func NotContains(t T, container, item any, msg ...any) {
	t.Helper()
	stop(t, assert.NotContains(t, container, item, msg...))
}

// Regexp is assert.Regexp, stopping the test if it fails.
func Regexp(t T, pattern, s any, msg ...any) {
	t.Helper()
	stop(t, assert.Regexp(t, pattern, s, msg...))
}

// FileExists is assert.FileExists, stopping the test if it fails.
func FileExists(t T, path string, msg ...any) {
	t.Helper()
	stop(t, assert.FileExists(t, path, msg...))
}

// NoError is assert.NoError, stopping the test if it fails.
func NoError(t T, err error, msg ...any) { t.Helper(); stop(t, assert.NoError(t, err, msg...)) }

// Error is assert.Error, stopping the test if it fails.
func Error(t T, err error, msg ...any) { t.Helper(); stop(t, assert.Error(t, err, msg...)) }

// EqualError is assert.EqualError, stopping the test if it fails.
func EqualError(t T, err error, text string, msg ...any) {
	t.Helper()
	stop(t, assert.EqualError(t, err, text, msg...))
}

// ErrorContains is assert.ErrorContains, stopping the test if it fails.
func ErrorContains(t T, err error, part string, msg ...any) {
	t.Helper()
	stop(t, assert.ErrorContains(t, err, part, msg...))
}

// ErrorIs is assert.ErrorIs, stopping the test if it fails.
func ErrorIs(t T, err, target error, msg ...any) {
	t.Helper()
	stop(t, assert.ErrorIs(t, err, target, msg...))
}

// Greater is assert.Greater, stopping the test if it fails.
func Greater(t T, a, b any, msg ...any) { t.Helper(); stop(t, assert.Greater(t, a, b, msg...)) }

// GreaterOrEqual is assert.GreaterOrEqual, stopping the test if it fails.
func GreaterOrEqual(t T, a, b any, msg ...any) {
	t.Helper()
	stop(t, assert.GreaterOrEqual(t, a, b, msg...))
}

// Less is assert.Less, stopping the test if it fails.
func Less(t T, a, b any, msg ...any) { t.Helper(); stop(t, assert.Less(t, a, b, msg...)) }

// LessOrEqual is assert.LessOrEqual, stopping the test if it fails.
func LessOrEqual(t T, a, b any, msg ...any) { t.Helper(); stop(t, assert.LessOrEqual(t, a, b, msg...)) }

// Positive is assert.Positive, stopping the test if it fails.
func Positive(t T, a any, msg ...any) { t.Helper(); stop(t, assert.Positive(t, a, msg...)) }

// IsNonDecreasing is assert.IsNonDecreasing, stopping the test if it fails.
func IsNonDecreasing(t T, list any, msg ...any) {
	t.Helper()
	stop(t, assert.IsNonDecreasing(t, list, msg...))
}

// InDelta is assert.InDelta, stopping the test if it fails.
func InDelta(t T, expected, actual any, delta float64, msg ...any) {
	t.Helper()
	stop(t, assert.InDelta(t, expected, actual, delta, msg...))
}

// Panics is assert.Panics, stopping the test if it fails.
func Panics(t T, f func(), msg ...any) { t.Helper(); stop(t, assert.Panics(t, f, msg...)) }

// PanicsWithValue is assert.PanicsWithValue, stopping the test if it fails.
func PanicsWithValue(t T, expected any, f func(), msg ...any) {
	t.Helper()
	stop(t, assert.PanicsWithValue(t, expected, f, msg...))
}

// PanicsWithError is assert.PanicsWithError, stopping the test if it fails.
func PanicsWithError(t T, text string, f func(), msg ...any) {
	t.Helper()
	stop(t, assert.PanicsWithError(t, text, f, msg...))
}
