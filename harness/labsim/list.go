package labsim

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/replab/replab/harness/experiments"
	"github.com/replab/replab/harness/sweep"
)

// width is the widest line labsim's listings and help print.
const width = 100

var listCmd = &command{
	name:  "list",
	args:  "[-v]",
	short: "list the experiments and the sweep scenarios",
	long: `
List prints the experiments, which regenerate the papers' figures ('labsim
run', 'labsim figures'), and the sweep scenarios, which hunt for bugs over
many seeds ('labsim sweep'), each with a line on what it does. With -v it
adds the paper figure each experiment reproduces, its pinned seed and the
command that runs it; 'labsim help NAME' shows the same for one.`,
	flags: func(fs *flag.FlagSet) action {
		verbose := fs.Bool("v", false, "show the details of each")
		return func(e *env, _ string) error {
			if *verbose {
				listVerbose(e)
			} else {
				list(e)
			}
			return nil
		}
	},
}

// list prints a line or two per experiment and scenario.
func list(e *env) {
	var rows [][2]string
	for _, x := range e.experiments {
		rows = append(rows, [2]string{x.Name, x.Description})
	}
	fmt.Fprintln(e.stdout, "EXPERIMENTS (labsim run NAME; details: labsim help NAME, or labsim list -v)")
	table(e.stdout, rows)
	rows = rows[:0]
	for _, s := range e.scenarios {
		rows = append(rows, [2]string{s.Name, s.Description})
	}
	fmt.Fprintln(e.stdout, "\nSWEEP SCENARIOS (labsim sweep NAME)")
	table(e.stdout, rows)
}

// listVerbose prints every experiment and scenario with its details.
func listVerbose(e *env) {
	fmt.Fprintln(e.stdout, "EXPERIMENTS (labsim run NAME runs one, labsim figures all)")
	for _, x := range e.experiments {
		fmt.Fprintln(e.stdout)
		describeExperiment(e.stdout, x)
	}
	fmt.Fprintln(e.stdout, "\nSWEEP SCENARIOS (labsim sweep NAME)")
	for _, s := range e.scenarios {
		fmt.Fprintln(e.stdout)
		describeScenario(e.stdout, s)
	}
}

// describeExperiment prints x's name and, indented, its details.
func describeExperiment(w io.Writer, x experiments.Experiment) {
	lines := []string{x.Description, "reproduces: " + x.Reproduces, fmt.Sprintf("pinned seed: %d", x.Seed)}
	full := ""
	if x.Full != "" {
		lines = append(lines, "cut down to keep 'labsim figures' short; -full "+x.Full)
		full = " [-full]"
	}
	lines = append(lines, fmt.Sprintf("run: labsim run %s [-seed N]%s [-out DIR]", x.Name, full))
	describe(w, x.Name, lines...)
}

// describeScenario prints s's name and, indented, its details.
func describeScenario(w io.Writer, s sweep.Scenario) {
	describe(w, s.Name, s.Description,
		fmt.Sprintf("sweep: labsim sweep %s [-seeds N] [-parallel P]", s.Name),
		fmt.Sprintf("replay a seed: labsim sweep %s -seed N [-trace FILE]", s.Name))
}

// describe prints name, then each paragraph wrapped and indented.
func describe(w io.Writer, name string, paras ...string) {
	const indent = "    "
	fmt.Fprintln(w, name)
	for _, p := range paras {
		for _, line := range wrap(p, width-len(indent)) {
			fmt.Fprintln(w, indent+line)
		}
	}
}

// table prints rows of a name and a text, the texts aligned and wrapped
// to fit width.
func table(w io.Writer, rows [][2]string) {
	const indent, gap = 2, 2
	col := 0
	for _, r := range rows {
		col = max(col, utf8.RuneCountInString(r[0]))
	}
	pad := strings.Repeat(" ", indent+col+gap)
	for _, r := range rows {
		for i, line := range wrap(r[1], width-len(pad)) {
			if i == 0 {
				fmt.Fprintf(w, "%*s%-*s%*s%s\n", indent, "", col, r[0], gap, "", line)
			} else {
				fmt.Fprintln(w, pad+line)
			}
		}
	}
}

// wrap breaks text into lines of at most n characters at spaces (a word
// longer than n gets a line of its own).
func wrap(text string, n int) []string {
	var lines []string
	line := ""
	for _, word := range glueUnits(strings.Fields(text)) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= n:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// glueUnits joins each unit ("s", "ms", "%", ...) to the number before
// it, so that "0.5 s" never breaks across lines.
func glueUnits(words []string) []string {
	var out []string
	for _, w := range words {
		unit := strings.TrimRight(w, ",.;:)")
		if len(out) > 0 && slices.Contains([]string{"s", "ms", "µs", "ns", "%", "KB", "MB", "GB"}, unit) {
			out[len(out)-1] += " " + w
			continue
		}
		out = append(out, w)
	}
	return out
}
