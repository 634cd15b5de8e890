package labsim

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/replab/replab/harness/kit"
)

var kitCmd = &command{
	name:    "kit",
	args:    "KIT [-out DIR] [-module PATH]",
	short:   "write a course kit: a skeleton to fill in, the lab's tests, the simulator",
	arg:     "kit",
	argHint: "(" + strings.Join(kit.Kinds(), " or ") + ")",
	long: `
Kit writes a standalone Go module that a course can hand out for a lab
(KIT is ` + strings.Join(kit.Kinds(), " or ") + `): a skeleton of the package the student
writes, whose every function says "not implemented" until it is written;
the lab's test catalogue as that package's tests, numbered by part with
points (the key/value kit carries the Raft lab's too, for the Raft it
stands on); TestSeedDriven, which names each goroutine, lock, sleep or
wall-clock read in the student's code that breaks a seed; the simulator
packages they run on, with their imports rewritten to the kit's module
path; a go.mod, a README for the student, and GUIDE.md, on writing Raft
for a deterministic world. 'go test ./raft' (or ./kvraft) in the kit fails
until the student's code passes; 'labsim grade' turns a run into a grade
sheet. DIR must be empty or new.`,
	flags: func(fs *flag.FlagSet) action {
		dir := fs.String("out", "", "write the kit into `DIR` (default: KIT-kit)")
		module := fs.String("module", "lab", "the kit's module `PATH`")
		return func(e *env, name string) error {
			if !slices.Contains(kit.Kinds(), name) {
				return usagef("unknown kit %q%s (%s)", name, suggest(name, kit.Kinds()), strings.Join(kit.Kinds(), " or "))
			}
			if err := kit.CheckModulePath(*module); err != nil {
				return usagef("-module %q: %v", *module, strings.TrimPrefix(err.Error(), "kit: "))
			}
			out := *dir
			if out == "" {
				out = name + "-kit"
			}
			if err := checkOut(out); err != nil {
				return err
			}
			if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
				return usagef("-out %s: not empty; a kit goes into a new or empty directory", out)
			}
			if err := kit.Write(name, out, *module); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote the %s kit (module %s) into %s\n", name, *module, out)
			fmt.Fprintf(e.stdout, "its README says how to start; 'go test ./...' there fails with \"not implemented\" until the skeleton is written\n")
			return nil
		}
	},
}

var gradeCmd = &command{
	name:  "grade",
	args:  "[-in FILE] [-lab LAB] [-json FILE]",
	short: "grade a 'go test -json' run of a kit's tests against the lab's catalogue",
	long: `
Grade reads the output of 'go test -json' on a course kit's tests (from
-in FILE, or standard input) and prints a grade sheet against the lab's
catalogue, as this labsim holds it: every test of the catalogue with its
part and points and what the run did with it, the seed and replay command
of each failing test, and the points by part and in all, out of the whole
catalogue's. Points come from the catalogue, not from what the run prints:
a catalogue test that did not run scores 0 and is listed, a run of a
subset (-run) is not a full grade, a package that does not build scores 0
and the sheet shows the compiler's first error, and tests outside the
catalogue earn nothing: the kit's own checks (TestSeedDriven,
TestCatalogueComplete) are listed with how they ended, any other test by
name. LAB (` + strings.Join(kit.Kinds(), " or ") + `) is read from the run's
package names unless given. -json also writes the sheet as JSON. It exits
with status 1 unless every test of the catalogue ran and passed.

Grade the student's code with the kit's own test files, as handed out: a
passing test that did not log its part and points, as the catalogue's
tests do, is marked "not the catalogue's" and scores 0.

  go test -json ./raft | labsim grade -json grades.json`,
	flags: func(fs *flag.FlagSet) action {
		in := fs.String("in", "-", "read 'go test -json' output from `FILE` (- is standard input)")
		lab := fs.String("lab", "", "grade against the catalogue of `LAB` (default: the run's package name)")
		jsonOut := fs.String("json", "", "write the grade sheet as JSON to `FILE`")
		return func(e *env, _ string) error {
			if *lab != "" && !slices.Contains(kit.Kinds(), *lab) {
				return usagef("-lab %q: unknown lab%s (%s)", *lab, suggest(*lab, kit.Kinds()), strings.Join(kit.Kinds(), " or "))
			}
			r := e.stdin
			if *in != "-" {
				f, err := os.Open(*in)
				if err != nil {
					return usagef("-in %s: %v", *in, errors.Unwrap(err))
				}
				defer f.Close()
				r = f
			}
			var sheetFile *os.File
			if *jsonOut != "" {
				f, err := os.Create(*jsonOut)
				if err != nil {
					return usagef("-json %s: cannot write it: %v", *jsonOut, errors.Unwrap(err))
				}
				defer f.Close()
				sheetFile = f
			}
			if *in == "-" && e.stdinTTY {
				fmt.Fprintln(e.stderr, "labsim grade: reading 'go test -json' output from standard input, until end of input (Ctrl-D);\n"+
					"pipe a run in (go test -json ./raft | labsim grade) or name a file with -in FILE")
			}
			sheet, err := kit.Grade(r, *lab)
			if err != nil {
				if sheetFile != nil {
					os.Remove(*jsonOut) // made to check it can be written: no sheet goes into it
				}
				msg := strings.TrimPrefix(err.Error(), "kit: ")
				if errors.Is(err, kit.ErrWhichLab) {
					return usagef("%s: name it with -lab", msg)
				}
				return errors.New(msg)
			}
			if err := sheet.WriteTable(e.stdout); err != nil {
				return err
			}
			if sheetFile != nil {
				if err := writeJSON(sheetFile, sheet); err != nil {
					return fmt.Errorf("-json %s: %v", *jsonOut, err)
				}
			}
			return sheet.Err()
		}
	},
}

// writeJSON writes v, indented, to f.
func writeJSON(f *os.File, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		return err
	}
	return f.Close()
}
