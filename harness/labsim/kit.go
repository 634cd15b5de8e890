package labsim

import (
	"encoding/json"
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
path; a go.mod, a README for the student, GUIDE.md, on writing Raft for
a deterministic world, INSTRUCTORS.md, on grading, and SHA256SUMS, the
hashes of the files a student must not change. 'go test ./raft' (or
./kvraft) in the kit fails until the student's code passes; 'labsim grade
-student' grades a student's files in a fresh kit. DIR must be empty or
new.`,
	flags: func(fs *flag.FlagSet) action {
		dir := fs.String("out", "", "write the kit into `DIR` (default: KIT-kit)")
		module := fs.String("module", kit.DefaultModule, "the kit's module `PATH`")
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
