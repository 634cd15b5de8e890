package labsim

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/replab/replab/harness/experiments"
	"github.com/replab/replab/harness/sweep"
)

// usage is labsim's general help.
func usage() string {
	var b strings.Builder
	b.WriteString(`labsim runs the lab's simulations: the experiments that regenerate the
papers' figures, chaos sweeps over many seeds, and a small demo; and it
writes course kits and grades what students hand in.

usage: labsim COMMAND [ARGUMENT] [flags]

commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.short)
	}
	b.WriteString(`
'labsim help COMMAND' or 'labsim COMMAND -h' shows a command's usage and flags;
'labsim help EXPERIMENT' or 'labsim help SCENARIO' describes one.

exit status: 0 all went well, 1 a run failed or found failures, 2 the
command line was refused (nothing ran).
`)
	return b.String()
}

// help prints the help for the topic in args: a command, an experiment or
// a sweep scenario, or with no topic the general help.
func help(args []string, e *env) error {
	if len(args) > 1 {
		return usagef("unexpected argument %q: help takes one topic", args[1])
	}
	if len(args) == 0 || args[0] == "help" {
		fmt.Fprint(e.stdout, usage())
		return nil
	}
	topic := args[0]
	for _, c := range commands() {
		if c.name == topic {
			c.help(e.stdout)
			return nil
		}
	}
	for _, x := range e.experiments {
		if x.Name == topic {
			describeExperiment(e.stdout, x)
			return nil
		}
	}
	for _, s := range e.scenarios {
		if s.Name == topic {
			describeScenario(e.stdout, s)
			return nil
		}
	}
	topics := commandNames()
	for _, x := range e.experiments {
		topics = append(topics, x.Name)
	}
	for _, s := range e.scenarios {
		topics = append(topics, s.Name)
	}
	return usagef("unknown help topic %q%s: try a command, an experiment or a scenario", topic, suggest(topic, topics))
}

// commandNames returns the names of labsim's commands.
func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

// findExperiment returns the experiment called name.
func findExperiment(e *env, name string) (experiments.Experiment, error) {
	return find(e.experiments, func(x experiments.Experiment) string { return x.Name }, "experiment", name)
}

// findScenario returns the sweep scenario called name.
func findScenario(e *env, name string) (sweep.Scenario, error) {
	return find(e.scenarios, func(s sweep.Scenario) string { return s.Name }, "scenario", name)
}

// find returns the item called name, or a usage error that suggests the
// nearest name if there is one.
func find[T any](items []T, nameOf func(T) string, kind, name string) (T, error) {
	var names []string
	for _, x := range items {
		if nameOf(x) == name {
			return x, nil
		}
		names = append(names, nameOf(x))
	}
	var zero T
	return zero, usagef("unknown %s %q%s ('labsim list' shows them)", kind, name, suggest(name, names))
}

// suggest returns "; did you mean X?" for the name among names that is
// nearest to typed (one that starts with it, or the fewest edits away:
// two, or a third of its length if more), or "" if none is near.
func suggest(typed string, names []string) string {
	best, bestDist := "", max(2, len(typed)/3)+1
	for _, n := range names {
		d := editDistance(typed, n)
		if strings.HasPrefix(n, typed) && typed != "" {
			d = 0
		}
		if d < bestDist {
			best, bestDist = n, d
		}
	}
	if best == "" {
		return ""
	}
	if strings.ContainsAny(best, " \t\"'") {
		best = strconv.Quote(best) // as a shell takes it
	}
	return fmt.Sprintf("; did you mean %s?", best)
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
