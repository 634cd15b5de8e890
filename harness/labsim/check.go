package labsim

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/replab/replab/checks/linearize"
)

var checkCmd = &command{
	name:    "check",
	args:    "FILE [-timeout D] [-out DIR]",
	short:   "check a key/value history file for linearizability",
	arg:     "file",
	argHint: "(a history in porcupine's key/value format, or - for standard input)",
	long: `
Check checks a key/value history recorded outside the simulator (a
6.824-style clerk's log, a student's service, a Jepsen run) for
linearizability, with the lab's checker. FILE has one event a line, in
the format of porcupine's key/value logs (Jepsen's EDN maps):

  {:process 3, :type :invoke, :f :append, :key "7", :value "x 3 12 y"}
  {:process 3, :type :ok, :f :append, :key "7", :value "x 3 12 y"}

The operations are :get, :put and :append. :ok completes an operation
(a get's :value is what it read), :fail says it did not take effect, and
:info, like no completion at all, that it may or may not have. Gets are
checked by their values. Jepsen's register logs (:read, :write and :cas
on one register, such as porcupine's etcd logs) are not supported.

The verdict goes to standard output. A violation names the operation that
cannot follow any order of the ones before it, with the lines of FILE it
was called and returned on, and is drawn, with porcupine's visualization
of the failing key, into DIR if -out is given. Many concurrent operations
on one key can make the check take minutes and gigabytes of memory:
-timeout bounds it, and progress shows on standard error meanwhile. Check
exits 1 if the history is not linearizable or the check ran out of time
(unknown is not a pass), and 2 if FILE cannot be read or is not such a
history (the bad line named).`,
	flags: func(fs *flag.FlagSet) action {
		timeout := fs.Duration("timeout", time.Minute, "give the check at most `D` (0: no limit)")
		dir := fs.String("out", "", "draw a violation into `DIR` (default: draw none)")
		return func(e *env, file string) error {
			if *timeout < 0 {
				return usagef("-timeout %v: negative", *timeout)
			}
			if *dir != "" {
				if err := checkOut(*dir); err != nil {
					return err
				}
			}
			ops, err := readHistory(e, file)
			if err != nil {
				return err
			}
			name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
			if file == "-" {
				name = "stdin"
			}
			limit, most := *timeout, "at most "+timeout.String()
			if limit == 0 {
				limit, most = linearize.NoTimeout, "no time limit"
			}
			size := fmt.Sprintf("%s on %s", count(len(ops), "operation"), count(keys(ops), "key"))
			p := newProgress(e, fmt.Sprintf("check %s (%s, %s)", file, size, most), "keys", keys(ops), false)
			p.begin("porcupine")
			r, err := linearize.Check(linearize.KVModel(), ops, nil, limit, *dir, name)
			p.finish()
			switch {
			case err != nil:
				return fmt.Errorf("%s: %v", file, err)
			case r.OK():
				fmt.Fprintf(e.stdout, "%s: linearizable: %s, checked in %v\n", file, size, r.Took.Round(time.Millisecond))
				return nil
			}
			fmt.Fprintf(e.stdout, "%s: %s\n", file, r.ProblemAt(linearize.LogLines))
			if r.Verdict == porcupine.Unknown {
				return fmt.Errorf("%s: unknown: the check ran out of its %v, which is not a pass", file, r.Timeout)
			}
			return fmt.Errorf("%s: not linearizable", file)
		}
	},
}

// readHistory reads the key/value history in file, or on standard input
// if file is "-". A file that cannot be opened, or is not a history, is a
// refused command line.
func readHistory(e *env, file string) ([]porcupine.Operation, error) {
	var r io.Reader = e.stdin
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, usagef("%s: %v", file, err)
		}
		defer f.Close()
		r = f
	}
	ops, err := linearize.ReadKVLog(r)
	if err != nil {
		return nil, usagef("%s: %v", file, err)
	}
	if len(ops) == 0 {
		return nil, usagef("%s: no operations: nothing to check (a history has an event a line, such as {:process 0, :type :invoke, :f :get, :key \"1\"})", file)
	}
	return ops, nil
}

// keys counts the keys of a key/value history.
func keys(ops []porcupine.Operation) int {
	seen := map[string]bool{}
	for _, op := range ops {
		seen[op.Input.(linearize.KVInput).Key] = true
	}
	return len(seen)
}
