package labsim

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
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
points; the simulator packages they run on, with their imports rewritten
to the kit's module path; a go.mod, a README for the student, and
GUIDE.md, on writing Raft for a deterministic world. 'go test ./raft' (or
./kvraft) in the kit fails until the student's code passes. DIR must be
empty or new.`,
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
	args:  "[-in FILE] [-json FILE]",
	short: "turn a 'go test -json' run of a kit's tests into a grade sheet",
	long: `
Grade reads the output of 'go test -json' on a course kit's tests (from
-in FILE, or standard input) and prints a grade sheet: each test with its
part of the lab, its points and its result, and under each failing test
the seed it failed with and the command that replays it; then the points
by part and in all. -json also writes the sheet as JSON. Only the tests
that ran are graded: run the whole catalogue. It exits with status 1 if
a test or a package's build failed.

  go test -json ./raft | labsim grade -json grades.json`,
	flags: func(fs *flag.FlagSet) action {
		in := fs.String("in", "-", "read 'go test -json' output from `FILE` (- is standard input)")
		jsonOut := fs.String("json", "", "write the grade sheet as JSON to `FILE`")
		return func(e *env, _ string) error {
			r := e.stdin
			if *in != "-" {
				f, err := os.Open(*in)
				if err != nil {
					return usagef("-in %s: %v", *in, errors.Unwrap(err))
				}
				defer f.Close()
				r = f
			}
			if *jsonOut != "" {
				if fi, err := os.Stat(filepath.Dir(*jsonOut)); err != nil || !fi.IsDir() {
					return usagef("-json %s: %s is not a directory", *jsonOut, filepath.Dir(*jsonOut))
				}
			}
			sheet, err := kit.Grade(r)
			if err != nil {
				return errors.New(strings.TrimPrefix(err.Error(), "kit: "))
			}
			if err := sheet.WriteTable(e.stdout); err != nil {
				return err
			}
			if *jsonOut != "" {
				if err := writeJSON(*jsonOut, sheet); err != nil {
					return err
				}
			}
			if sheet.Failed() {
				return fmt.Errorf("%d of %d points: not every test passed", sheet.Points, sheet.Max)
			}
			return nil
		}
	},
}

// writeJSON writes v, indented, to the file at path.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
