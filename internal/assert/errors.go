package assert

import (
	"errors"
	"fmt"
	"strings"
)

// NoError checks that err is nil.
func NoError(t T, err error, msg ...any) bool {
	t.Helper()
	if err == nil {
		return true
	}
	return fail(t, fmt.Sprintf("unexpected error: %v", err), msg)
}

// Error checks that err is not nil.
func Error(t T, err error, msg ...any) bool {
	t.Helper()
	if err != nil {
		return true
	}
	return fail(t, "an error was expected, got nil", msg)
}

// EqualError checks that err is an error whose message is text.
func EqualError(t T, err error, text string, msg ...any) bool {
	t.Helper()
	if err == nil {
		return fail(t, fmt.Sprintf("an error %q was expected, got nil", text), msg)
	}
	if err.Error() == text {
		return true
	}
	return fail(t, "error message not equal:\n"+compare(text, err.Error()), msg)
}

// ErrorContains checks that err is an error whose message contains part.
func ErrorContains(t T, err error, part string, msg ...any) bool {
	t.Helper()
	if err == nil {
		return fail(t, fmt.Sprintf("an error containing %q was expected, got nil", part), msg)
	}
	if strings.Contains(err.Error(), part) {
		return true
	}
	return fail(t, fmt.Sprintf("error %q does not contain %q", err.Error(), part), msg)
}

// ErrorIs checks that errors.Is(err, target).
func ErrorIs(t T, err, target error, msg ...any) bool {
	t.Helper()
	if errors.Is(err, target) {
		return true
	}
	return fail(t, fmt.Sprintf("error %s is not %s", show(err), show(target)), msg)
}
