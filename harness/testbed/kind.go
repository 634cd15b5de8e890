package testbed

import (
	"strings"
	"unicode"
)

// ProblemKind returns the kind of a run's problem, what shrinking a
// failing run keeps: "linearizability", "serializability", "bank",
// "agreement", "stall", "storm", "settle", "drain", "panic", "unknown" (a
// check that could not decide), or, for a problem of no kind known here,
// its first line up to a colon with the numbers taken out ("" for no
// problem). Two problems of one kind are the same violation found in two
// runs, whatever operations, seeds or times they name.
func ProblemKind(problem string) string {
	first, _, _ := strings.Cut(problem, "\n")
	switch {
	case problem == "":
		return ""
	case strings.HasPrefix(first, "panic:"):
		return "panic"
	case strings.HasPrefix(first, "storm:"):
		return "storm"
	case strings.HasPrefix(first, "stall:"):
		return "stall"
	case strings.Contains(first, "not linearizable"):
		return "linearizability"
	case strings.Contains(first, "the result is unknown"), strings.HasPrefix(first, "inconclusive"):
		return "unknown"
	case strings.Contains(first, "serializab"):
		return "serializability"
	case strings.Contains(first, "committed reads wrong"):
		return "bank"
	case strings.HasPrefix(first, "apply error"), strings.Contains(first, "holds two commands"), strings.Contains(first, "nodes disagree"):
		return "agreement"
	case strings.Contains(first, "did not end within"):
		return "settle"
	case strings.Contains(first, "of the last heal"):
		return "drain"
	}
	head, _, _ := strings.Cut(first, ":")
	return strings.Join(strings.FieldsFunc(head, func(r rune) bool { return unicode.IsDigit(r) || unicode.IsSpace(r) }), " ")
}
