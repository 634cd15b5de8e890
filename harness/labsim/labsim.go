// Package labsim is the labsim command as a library: list, run, figures,
// sweep, merge, demo, kit, grade, check, view, search and help over a catalogue of
// experiments and sweep scenarios. cmd/labsim runs it over the lab's own catalogue; a
// researcher's module runs it over a catalogue of its own, the lab's plus
// its experiments and scenarios, and gets the same runner: progress on
// standard error, CSV, PNG and SVG files, an index of the figures, failing
// seeds with the commands that replay them, and the same exit statuses.
//
//	func main() {
//		labsim.Main(labsim.Catalogue{
//			Experiments: append(experiments.All(), myExperiment()),
//			Scenarios:   append(sweep.Scenarios(), myScenario()),
//			Command:     "go run ./cmd/mylab",
//		})
//	}
//
// See the example in examples/labext.
package labsim

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/replab/replab/harness/experiments"
	"github.com/replab/replab/harness/sweep"
)

// Exit statuses.
const (
	exitOK     = 0
	exitFailed = 1 // a run failed or found failures
	exitUsage  = 2 // the command line was refused; nothing ran
)

// A Catalogue is what a labsim program offers: its experiments, its sweep
// scenarios, and the command that runs it, for the commands it prints.
type Catalogue struct {
	Experiments []experiments.Experiment
	Scenarios   []sweep.Scenario
	// Command runs the program, as the replay commands and the figures'
	// index print it; if empty, the index says "go run ./cmd/labsim" and
	// the replay commands run the program as it was run (see Main).
	Command string

	invoked string // the program as it was run, if Main ran it
}

// Lab returns the lab's own catalogue.
func Lab() Catalogue {
	return Catalogue{Experiments: experiments.All(), Scenarios: sweep.Scenarios()}
}

// env is what a command runs with: where its output goes, how progress is
// shown, and the catalogue it looks names up in (tests bring their own).
type env struct {
	stdin          io.Reader
	stdinTTY       bool // stdin is a terminal: a command that reads it says so
	stdout, stderr io.Writer
	// tty says that stderr is a terminal, where progress is one line
	// redrawn in place; elsewhere it is plain lines.
	tty bool
	// quiet is how long a command runs before it shows progress.
	quiet       time.Duration
	experiments []experiments.Experiment
	scenarios   []sweep.Scenario
	command     string // runs the program, for the commands it prints
	invoked     string // the program as it was run, for replay commands; cmd() if empty
	// getenv reads the environment (-shard auto); os.Getenv if nil.
	getenv func(string) string
}

// Main runs the command line in os.Args over c, with the standard streams,
// and exits with its status: 0 when all went well, 1 when a run failed or
// found failures, 2 when the command line was refused. It checks the
// catalogue first: a name used twice, or an experiment or scenario
// without a name or a function to run, is a programming error, and Main
// panics naming it.
func Main(c Catalogue) {
	c.invoked = invokedAs(os.Args[0])
	os.Exit(Run(os.Args[1:], c, os.Stdin, os.Stdout, os.Stderr))
}

// invokedAs returns the command that reruns a program run as arg0: arg0
// as it was typed ("labsim" from the PATH, "./labsim", ...), or "" if go
// run built it: into a temporary directory that is gone when it ends, or,
// since Go 1.24, into Go's build cache, where a path is no command to type.
func invokedAs(arg0 string) string {
	if goRunBinary.MatchString(filepath.ToSlash(arg0)) {
		return ""
	}
	return arg0
}

// goRunBinary matches where go run puts the binary it builds: a temporary
// directory (.../go-build123/b001/exe/labsim), or the build cache, which
// keeps a binary under its action's hash (.../go-build/1f/1f...e4-d/labsim).
var goRunBinary = regexp.MustCompile(`(/go-build[0-9]+/b[0-9]+/exe|/[0-9a-f]{2}/[0-9a-f]{64}-d)/[^/]+$`)

// Run runs the command line args over c with the given streams and
// returns the exit status, as Main does. Progress is plain lines unless
// stderr is a terminal.
func Run(args []string, c Catalogue, stdin io.Reader, stdout, stderr io.Writer) int {
	if err := c.check(); err != nil {
		panic(err.Error())
	}
	f, ok := stderr.(*os.File)
	in, inFile := stdin.(*os.File)
	e := &env{
		stdin:       stdin,
		stdinTTY:    inFile && isTerminal(in),
		stdout:      stdout,
		stderr:      stderr,
		tty:         ok && isTerminal(f),
		quiet:       time.Second,
		experiments: c.Experiments,
		scenarios:   c.Scenarios,
		command:     c.Command,
		invoked:     c.invoked,
	}
	return run(args, e)
}

// cmd returns the command that runs the program.
func (e *env) cmd() string {
	if e.command == "" {
		return "go run ./cmd/labsim"
	}
	return e.command
}

// envVar returns the environment variable called name, "" if it is not set.
func (e *env) envVar(name string) string {
	if e.getenv == nil {
		return os.Getenv(name)
	}
	return e.getenv(name)
}

// replayCmd returns the command that replays a run of this program: the
// catalogue's Command if it has one, else the program as it was run.
func (e *env) replayCmd() string {
	if e.command == "" && e.invoked != "" {
		return e.invoked
	}
	return e.cmd()
}

// check returns an error naming the first experiment or scenario that is
// incomplete or whose name is taken.
func (c Catalogue) check() error {
	seen := map[string]string{}
	add := func(kind, name string, runs bool) error {
		switch {
		case name == "":
			return fmt.Errorf("labsim: the catalogue has a %s without a name", kind)
		case !runs:
			return fmt.Errorf("labsim: %s %q has no Run function", kind, name)
		case seen[name] != "":
			return fmt.Errorf("labsim: %s %q has the name of another %s", kind, name, seen[name])
		}
		seen[name] = kind
		return nil
	}
	for _, x := range c.Experiments {
		if err := add("experiment", x.Name, x.Run != nil); err != nil {
			return err
		}
	}
	for _, s := range c.Scenarios {
		if err := add("scenario", s.Name, s.Run != nil); err != nil {
			return err
		}
	}
	return nil
}

// isTerminal reports whether f is a terminal: a character device other
// than the null device.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull) // a character device too, but nobody types there
	return err != nil || !os.SameFile(fi, null)
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
