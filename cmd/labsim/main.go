// Command labsim runs the lab's simulations from the command line.
//
// Usage:
//
//	labsim demo [-seed N] [-hosts N] [-duration D] [-trace FILE]
//
// demo builds a world of hosts that ping each other over an unreliable
// network while a random ChaosMonkey partitions, kills and restarts them,
// then prints the fault log, the traffic, and the run's summary and trace
// hash. It runs the seed twice to show that the hash is the same.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "labsim:", err)
		os.Exit(2)
	}
}

const usage = `usage: labsim COMMAND [flags]

commands:
  demo    run a seeded chaos scenario and print its fault log, summary and trace hash
`

func run(args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("no command given\n%s", usage)
	}
	switch args[0] {
	case "demo":
		return demo(args[1:], out)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(out, usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
}
