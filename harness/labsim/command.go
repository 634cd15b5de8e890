package labsim

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A command is one of labsim's subcommands.
type command struct {
	name  string
	args  string // what follows the name in its usage line
	short string // one line for the list of commands
	long  string // the text of 'labsim help NAME', between usage and flags
	// arg names the one argument the command takes ("experiment",
	// "scenario"), or is "" if it takes none; argHint says where to find
	// its values (default: 'labsim list').
	arg, argHint string
	// flags defines the command's flags on fs and returns the function
	// that runs it with them; a command that takes one or more arguments
	// (merge's files) has flagsMany instead.
	flags     func(fs *flag.FlagSet) action
	flagsMany func(fs *flag.FlagSet) actionMany
}

// An action runs a command with its argument ("" if it takes none).
type action func(e *env, arg string) error

// An actionMany runs a command with its one or more arguments.
type actionMany func(e *env, args []string) error

// commands returns labsim's commands, in the order help lists them.
func commands() []*command {
	return []*command{listCmd, runCmd, figuresCmd, sweepCmd, mergeCmd, compareCmd, demoCmd, kitCmd, gradeCmd, checkCmd, recordCmd, replayCmd, shrinkCmd, viewCmd, galleryCmd, searchCmd}
}

// flagSet returns c's flags, with the function that runs c with them and
// its arguments.
func (c *command) flagSet() (*flag.FlagSet, actionMany) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are printed once, by exec
	fs.Usage = func() {}
	if c.flagsMany != nil {
		return fs, c.flagsMany(fs)
	}
	act := c.flags(fs)
	return fs, func(e *env, args []string) error {
		if len(args) == 0 {
			return act(e, "")
		}
		return act(e, args[0])
	}
}

// exec runs c with the command line args, prints its error if any, and
// returns the exit status.
func (c *command) exec(args []string, e *env) int {
	fs, act := c.flagSet()
	words, err := c.parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		c.help(e.stdout)
		return exitOK
	}
	if err == nil {
		err = act(e, words)
	}
	return report(e, c.name, err)
}

// report prints err, if any, from the command called name ("" before
// there is one), and returns the exit status it calls for.
func report(e *env, name string, err error) int {
	prefix, hint := "labsim", "labsim help"
	if name != "" {
		prefix += " " + name
		if name != "help" {
			hint += " " + name
		}
	}
	var u usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &u):
		fmt.Fprintf(e.stderr, "%s: %v\nrun '%s' for usage\n", prefix, err, hint)
		return exitUsage
	default:
		fmt.Fprintf(e.stderr, "%s: %v\n", prefix, err)
		return exitFailed
	}
}

// parse parses args, where flags may come before and after the command's
// arguments, and returns those: none, one, or (with flagsMany) one or more.
func (c *command) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{fmt.Errorf("%w%s", err, suggestFlag(fs, err))}
		}
		if fs.NArg() == 0 {
			break
		}
		words = append(words, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case c.arg == "" && len(words) > 0:
		return nil, usagef("unexpected argument %q: %s takes none", words[0], c.name)
	case c.arg == "":
		return nil, nil
	case len(words) == 0 && c.argHint != "":
		return nil, usagef("which %s? %s", c.arg, c.argHint)
	case len(words) == 0:
		return nil, usagef("which %s? ('labsim list' shows them)", c.arg)
	case len(words) > 1 && c.flagsMany == nil:
		return nil, usagef("unexpected argument %q after the %s %q", words[1], c.arg, words[0])
	}
	return words, nil
}

// suggestFlag returns the suggestion of a flag of fs for the undefined one
// that err complains of, if there is one near it.
func suggestFlag(fs *flag.FlagSet, err error) string {
	typed, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, "-"+f.Name) })
	return suggest(typed, names)
}

// usageLine is c's usage line, without the leading "usage: ".
func (c *command) usageLine() string {
	return strings.ReplaceAll("labsim "+c.name+" "+c.args, "\n", "\n       labsim "+c.name+" ")
}

// help prints c's usage, description and flags.
func (c *command) help(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.usageLine(), strings.TrimSpace(c.long))
	fs, _ := c.flagSet()
	fs.SetOutput(w)
	fmt.Fprintln(w, "\nflags:")
	fs.PrintDefaults()
}

// A usageError is a refused command line: labsim exits with status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }

// usagef returns a usageError with the formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}
