package labsim

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/replab/replab/harness/kit"
)

// maxGradeTimeout bounds grade's -timeout.
const maxGradeTimeout = 24 * time.Hour

var gradeCmd = &command{
	name:  "grade",
	args:  "-student DIR [-lab LAB] [-module PATH] [-secret S] [-timeout D] [-json FILE]\n[-in FILE] [-lab LAB] [-json FILE]",
	short: "grade a student's files in a fresh kit, or read a kit's 'go test -json' run as practice",
	long: `
With -student, grade grades what a student hands in: DIR holds the
student's files at their paths in the kit (raft/*.go but tests; for
kvraft, kvraft/*.go too), alone or in the whole kit as handed out. It
writes a fresh kit (its module path from -module, else DIR's go.mod, else
lab; LAB from DIR's directories unless given) and refuses the
submission, with 0 points and each reason named by file and line, if
DIR holds a file that is neither the student's nor the kit's unchanged,
or a student's file that declares an init function, calls os.Exit,
carries a //go: directive other than //go:build, or imports a package
the kit does not allow (its INSTRUCTORS.md lists them). Otherwise it puts
the student's files, and nothing else, into the fresh kit, runs the
catalogue there once with go test, every test on seeds drawn from
-secret and the student's files (from the time, without -secret), above
any seed a student runs with -seeds N, and grades that run: the sheet
names the seeds, and a run that is not one whole run of the catalogue
(a pass the harness's record of the run does not show, a test run twice
or on other seeds, a pass without its replay check, a pass a failure in
the same run contradicts) scores 0, each thing named.

With -in FILE, or standard input, grade reads the output of
'go test -json' on a kit's tests, run by a student: the sheet says it is
practice, not a grade, since such a run can be edited or written from
scratch. It checks the run's shape the same way, on the seeds the run
used.

Either way the sheet lists every test of the catalogue, as this labsim
holds it, with its part and points and what the run did with it, the
seed and replay command of each failing test, and the points by part and
in all, out of the whole catalogue's: a test that did not run scores 0, a
package that does not build scores 0 with the compiler's first error,
and tests outside the catalogue earn nothing (the kit's own checks,
TestSeedDriven and TestCatalogueComplete, are listed with how they
ended). -json also writes the sheet as JSON. Grade exits with status 1
unless every test of the catalogue ran and passed.

  labsim grade -student submissions/ada -secret "$SECRET" -json ada.json
  go test -json ./raft | labsim grade`,
	flags: func(fs *flag.FlagSet) action {
		student := fs.String("student", "", "grade the student's files in `DIR` in a fresh kit")
		in := fs.String("in", "-", "read 'go test -json' output from `FILE` (- is standard input), as practice")
		lab := fs.String("lab", "", "grade against the catalogue of `LAB` (default: from DIR, or from the run's package name)")
		module := fs.String("module", "", "with -student: the kit's module `PATH` (default: DIR's go.mod, or "+kit.DefaultModule+")")
		secret := fs.String("secret", "", "with -student: draw the seeds from `S` and the student's files (default: from the time)")
		timeout := durationFlag(fs, "timeout", 10*time.Minute, maxGradeTimeout, "with -student: stop the run after `D`, as go test -timeout")
		jsonOut := fs.String("json", "", "write the grade sheet as JSON to `FILE`")
		return func(e *env, _ string) error {
			if *lab != "" && !slices.Contains(kit.Kinds(), *lab) {
				return usagef("-lab %q: unknown lab%s (%s)", *lab, suggest(*lab, kit.Kinds()), strings.Join(kit.Kinds(), " or "))
			}
			if *student == "" {
				for _, f := range []string{"module", "secret", "timeout"} {
					if isSet(fs, f) {
						return usagef("-%s goes with -student, which grades a student's files", f)
					}
				}
			} else if isSet(fs, "in") {
				return usagef("-in and -student: give one (-student grades a student's files; -in reads a run, as practice)")
			}
			if *module != "" {
				if err := kit.CheckModulePath(*module); err != nil {
					return usagef("-module %q: %v", *module, strings.TrimPrefix(err.Error(), "kit: "))
				}
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
			var sheet *kit.Sheet
			var err error
			if *student != "" {
				sheet, err = gradeStudent(e, kit.Submission{Dir: *student, Lab: *lab, Module: *module, Secret: *secret, Timeout: *timeout})
			} else {
				sheet, err = gradeRun(e, *in, *lab)
			}
			if err != nil {
				if sheetFile != nil {
					os.Remove(*jsonOut) // made to check it can be written: no sheet goes into it
				}
				return err
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

// gradeStudent grades the submission, showing the catalogue's progress.
func gradeStudent(e *env, sub kit.Submission) (*kit.Sheet, error) {
	if fi, err := os.Stat(sub.Dir); err != nil {
		return nil, usagef("-student %s: %v", sub.Dir, errors.Unwrap(err))
	} else if !fi.IsDir() {
		return nil, usagef("-student %s: not a directory (a submission is a directory of the student's files)", sub.Dir)
	}
	var p *progress
	done, failed := 0, 0
	sub.Progress = func(s kit.Step) {
		switch {
		case s.Test == "":
			fmt.Fprintf(e.stderr, "labsim grade: running the catalogue on the student's files in a fresh kit (about a minute if Go's build cache is empty, as on a new machine; seconds after)\n")
			p = newProgress(e, "grade "+sub.Dir, "tests", s.Total, false)
		case s.Ended:
			done++
			if s.Failed {
				failed++
			}
			p.set(done, failed) // a line at each tenth, not one a test
		}
	}
	sheet, err := kit.GradeStudent(sub)
	if p != nil {
		p.finish()
	}
	switch {
	case errors.Is(err, kit.ErrNoLab):
		return nil, usagef("-student %s: %v; name it with -lab", sub.Dir, kit.ErrNoLab)
	case err != nil:
		return nil, errors.New(strings.TrimPrefix(err.Error(), "kit: "))
	}
	return sheet, nil
}

// gradeRun reads a run from the file in ("-": standard input) and grades
// it, as practice.
func gradeRun(e *env, in, lab string) (*kit.Sheet, error) {
	r := e.stdin
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return nil, usagef("-in %s: %v", in, errors.Unwrap(err))
		}
		defer f.Close()
		r = f
	}
	if in == "-" && e.stdinTTY {
		fmt.Fprintln(e.stderr, "labsim grade: reading 'go test -json' output from standard input, until end of input (Ctrl-D);\n"+
			"pipe a run in (go test -json ./raft | labsim grade) or name a file with -in FILE")
	}
	sheet, err := kit.Grade(r, lab)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "kit: ")
		if errors.Is(err, kit.ErrWhichLab) {
			return nil, usagef("%s: name it with -lab", msg)
		}
		return nil, errors.New(msg)
	}
	return sheet, nil
}
