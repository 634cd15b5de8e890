package assert

import (
	"fmt"
	"strings"
)

// show renders a value for a failure message: strings quoted, other values
// in Go syntax with their field names.
func show(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case error:
		return fmt.Sprintf("%v (%T)", v, v)
	case fmt.Stringer:
		return fmt.Sprintf("%v (%T)", v, v)
	}
	return fmt.Sprintf("%#v", v)
}

// compare renders an expected and an actual value one above the other and,
// when they are long, where they first differ.
func compare(expected, actual any) string {
	e, a := show(expected), show(actual)
	if e == a {
		// Equal renderings of values that are not equal: their types differ
		// (5 and int64(5)) or what is rendered hides the difference.
		e, a = fmt.Sprintf("%s (%T)", e, expected), fmt.Sprintf("%s (%T)", a, actual)
	}
	out := "\texpected: " + e + "\n\tactual:   " + a
	if len(e) > 60 || len(a) > 60 {
		out += "\n\t" + firstDifference(e, a)
	}
	return out
}

// firstDifference says where two renderings part, with some text around it.
func firstDifference(e, a string) string {
	i := 0
	for i < len(e) && i < len(a) && e[i] == a[i] {
		i++
	}
	from := max(i-20, 0)
	excerpt := func(s string) string {
		return strings.ReplaceAll(s[from:min(i+40, len(s))], "\n", `\n`)
	}
	return fmt.Sprintf("first difference at byte %d: expected …%s…, actual …%s…", i, excerpt(e), excerpt(a))
}
