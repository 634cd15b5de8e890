package assert

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
)

// Contains checks that container holds item: a substring of a string, an
// element of an array or slice (compared as Equal does), or a key of a map.
func Contains(t T, container, item any, msg ...any) bool {
	t.Helper()
	found, err := contains(container, item)
	if err != nil {
		return fail(t, err.Error(), msg)
	}
	if found {
		return true
	}
	return fail(t, fmt.Sprintf("%s does not contain %s", show(container), show(item)), msg)
}

// NotContains checks that container does not hold item, in the sense of
// Contains.
func NotContains(t T, container, item any, msg ...any) bool {
	t.Helper()
	found, err := contains(container, item)
	if err != nil {
		return fail(t, err.Error(), msg)
	}
	if !found {
		return true
	}
	return fail(t, fmt.Sprintf("%s should not contain %s", show(container), show(item)), msg)
}

func contains(container, item any) (bool, error) {
	c := reflect.ValueOf(container)
	switch c.Kind() {
	case reflect.String:
		s, ok := item.(string)
		if !ok {
			return false, fmt.Errorf("a string can contain only a string, not %s (%T)", show(item), item)
		}
		return strings.Contains(c.String(), s), nil
	case reflect.Array, reflect.Slice:
		for i := range c.Len() {
			if equal(c.Index(i).Interface(), item) {
				return true, nil
			}
		}
		return false, nil
	case reflect.Map:
		for _, k := range c.MapKeys() {
			if equal(k.Interface(), item) {
				return true, nil
			}
		}
		return false, nil
	}
	return false, fmt.Errorf("%s (%T) is not a string, array, slice or map", show(container), container)
}

// Regexp checks that s (a string, a []byte, or anything else as fmt.Sprint
// prints it) matches pattern (a *regexp.Regexp or a string to compile).
func Regexp(t T, pattern, s any, msg ...any) bool {
	t.Helper()
	rx, ok := pattern.(*regexp.Regexp)
	if !ok {
		var err error
		if rx, err = regexp.Compile(fmt.Sprint(pattern)); err != nil {
			return fail(t, err.Error(), msg)
		}
	}
	text, ok := s.(string)
	if b, isBytes := s.([]byte); isBytes {
		text, ok = string(b), true
	}
	if !ok {
		text = fmt.Sprint(s)
	}
	if rx.MatchString(text) {
		return true
	}
	return fail(t, fmt.Sprintf("%q does not match %q", text, rx), msg)
}

// FileExists checks that path names a file that is not a directory.
func FileExists(t T, path string, msg ...any) bool {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil {
		return fail(t, err.Error(), msg)
	}
	if info.IsDir() {
		return fail(t, fmt.Sprintf("%q is a directory", path), msg)
	}
	return true
}
