// Command labsim runs the lab's simulations from the command line.
//
// Usage:
//
//	labsim list [-v]
//	labsim run EXPERIMENT [-seed N] [-out DIR]
//	labsim figures [-out DIR] [-parallel P]
//	labsim sweep SCENARIO [-seeds N] [-first S] [-shard i/n] [-parallel P] [-out DIR]
//	labsim sweep SCENARIO -seed N [-trace FILE] [-out DIR]
//	labsim demo [-seed N] [-hosts N] [-duration D] [-trace FILE]
//	labsim kit KIT [-out DIR] [-module PATH]
//	labsim grade [-in FILE] [-json FILE]
//	labsim help [COMMAND | EXPERIMENT | SCENARIO]
//
// list shows the experiments and the sweep scenarios (-v: the paper
// figures they reproduce, their pinned seeds and how to run them). run
// runs one experiment and writes its CSV, PNG and SVG files; figures runs
// them all from their pinned seeds and writes an index. sweep runs a chaos
// scenario over many seeds and prints every failing seed with the command
// that replays it, or replays one seed. demo is a ping counter (not Raft)
// under random faults, run twice to show that a seed replays to the same
// trace hash. kit writes a course kit (a skeleton to fill in, the lab's
// test catalogue, the simulator) as a standalone module; grade turns a
// 'go test -json' run of a kit's tests into a grade sheet.
//
// Flags may come before or after a command's argument. Progress goes to
// standard error: one line redrawn in place on a terminal, plain lines
// elsewhere. The exit status is 0 when all went well, 1 when a run failed
// or found failures, and 2 when the command line was refused.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/replab/replab/experiments"
	"github.com/replab/replab/sweep"
)

// Exit statuses.
const (
	exitOK     = 0
	exitFailed = 1 // a run failed or found failures
	exitUsage  = 2 // the command line was refused; nothing ran
)

// env is what a command runs with: where its output goes, how progress is
// shown, and the catalogues it looks names up in (tests bring their own).
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// tty says that stderr is a terminal, where progress is one line
	// redrawn in place; elsewhere it is plain lines.
	tty bool
	// quiet is how long a command runs before it shows progress.
	quiet       time.Duration
	experiments []experiments.Experiment
	scenarios   []sweep.Scenario
}

func main() {
	e := &env{
		stdin:       os.Stdin,
		stdout:      os.Stdout,
		stderr:      os.Stderr,
		tty:         isTerminal(os.Stderr),
		quiet:       time.Second,
		experiments: experiments.All(),
		scenarios:   sweep.Scenarios(),
	}
	os.Exit(run(os.Args[1:], e))
}

// isTerminal reports whether f is a terminal (a character device).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// run runs the command line args and returns the exit status.
func run(args []string, e *env) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage())
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		return report(e, "help", help(rest, e))
	}
	for _, c := range commands() {
		if c.name == name {
			return c.exec(rest, e)
		}
	}
	if strings.HasPrefix(name, "-") {
		return report(e, "", usagef("flag %s before the command: flags go after it, as in 'labsim demo -seed 3'", name))
	}
	return report(e, "", usagef("unknown command %q%s", name, suggest(name, commandNames())))
}
