// Command labsim runs the lab's simulations from the command line.
//
// Usage:
//
//	labsim list
//	labsim run NAME [-seed N] [-out DIR]
//	labsim figures [-out DIR] [-parallel P]
//	labsim sweep SCENARIO [-seeds N] [-first S] [-parallel P] [-shard i/n] [-out DIR]
//	labsim sweep SCENARIO -seed N [-trace FILE] [-out DIR]
//	labsim demo [-seed N] [-hosts N] [-duration D] [-trace FILE]
//
// list shows the experiments (and the paper figures they reproduce) and
// the sweep scenarios. run runs one experiment and writes its CSV, PNG and
// SVG files; figures runs them all from their pinned seeds and writes an
// index. sweep runs a chaos scenario over many seeds and prints every
// failing seed with the command that replays it. demo is a small chaos run
// that shows the trace hash replaying.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "labsim:", err)
		os.Exit(2)
	}
}

const usage = `usage: labsim COMMAND [flags]

commands:
  list                  the experiments, the paper figures they reproduce, and the sweep scenarios
  run NAME              run one experiment (-seed N, -out DIR)
  figures               run every experiment from its pinned seed and write an index (-out DIR, -parallel P)
  sweep SCENARIO        run a chaos scenario over many seeds (-seeds N, -first S, -parallel P, -shard i/n, -out DIR),
                        or replay one (-seed N, -trace FILE)
  demo                  a seeded chaos run: fault log, summary and trace hash, replayed

Run 'labsim COMMAND -h' for a command's flags.
`

// run runs the command line args, writing results to out and progress to
// errOut.
func run(args []string, out, errOut io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("no command given\n%s", usage)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "list":
		return list(rest, out)
	case "run":
		return runExperiment(rest, out)
	case "figures":
		return figures(rest, out, errOut)
	case "sweep":
		return sweepCmd(rest, out, errOut)
	case "demo":
		return demo(rest, out)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(out, usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", cmd, usage)
	}
}
