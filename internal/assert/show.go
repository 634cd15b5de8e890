package assert

import (
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// maxShown is the most of a value's rendering a report prints; where the
// two values of a comparison part is said separately, so a long value is
// cut, not lost.
const maxShown = 4 << 10

// show renders a value for a failure message, cut to maxShown bytes.
func show(v any) string { return clip(rendering(v)) }

// rendering renders a value whole, in Go syntax (see goSyntax). A value
// with a String or Error method is rendered by it, with its type, if it is
// a number, a string or a bool; otherwise what the method says follows in
// parentheses, as it may hide fields that differ.
func rendering(v any) string {
	s := goSyntax(v)
	d, described := described(v)
	switch k := reflect.ValueOf(v).Kind(); {
	case !described:
		return s
	case k <= reflect.Complex128 || k == reflect.String: // a basic kind
		return fmt.Sprintf("%s (%T)", d, v)
	}
	return s + " (" + d + ")"
}

// described returns what v's Error or String method says, if it has one
// and it does not panic (on a nil pointer, say).
func described(v any) (text string, ok bool) {
	defer func() {
		if recover() != nil {
			text, ok = "", false
		}
	}()
	switch d := v.(type) {
	case error:
		return d.Error(), true
	case fmt.Stringer:
		return d.String(), true
	}
	return "", false
}

// clip cuts s to maxShown bytes, at a character's start, saying how long
// it was.
func clip(s string) string {
	if len(s) <= maxShown {
		return s
	}
	return s[:runeStart(s, maxShown)] + fmt.Sprintf("… (%d bytes in all)", len(s))
}

// runeStart moves i back to the start of the character it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// compare renders an expected and an actual value one above the other and,
// when they are long, where they first differ.
func compare(expected, actual any) string {
	e, a := rendering(expected), rendering(actual)
	alike := ""
	switch {
	case e != a:
	case reflect.TypeOf(expected) != reflect.TypeOf(actual):
		e, a = fmt.Sprintf("%s (%T)", e, expected), fmt.Sprintf("%s (%T)", a, actual)
	default:
		alike = "\n\t(they print alike: they differ where printing does not look, a NaN say)"
	}
	out := "\texpected: " + clip(e) + "\n\tactual:   " + clip(a) + alike
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
	i = min(runeStart(e, i), runeStart(a, i)) // the two agree before i
	from := i - 20
	for from > 0 && !utf8.RuneStart(e[from]) {
		from++
	}
	from = max(from, 0)
	excerpt := func(s string) string {
		return strings.ReplaceAll(s[from:runeStart(s, min(i+40, len(s)))], "\n", `\n`)
	}
	return fmt.Sprintf("first difference at byte %d of the lines above: expected …%s…, actual …%s…", i, excerpt(e), excerpt(a))
}
