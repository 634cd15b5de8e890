// Command labsim runs the lab's simulations from the command line: the
// labsim package over the lab's own catalogue.
//
// Usage:
//
//	labsim list [-v]
//	labsim run EXPERIMENT [-seed N] [-full] [-out DIR]
//	labsim figures [-out DIR] [-parallel P] [-full]
//	labsim sweep SCENARIO [-seeds N] [-first S] [-shard i/n|auto] [-json FILE] [-parallel P]
//	labsim sweep SCENARIO -seed N [-trace FILE] [-out DIR]
//	labsim sweep SCENARIO -plant BUG [either's flags] | -plant list
//	labsim merge FILE|DIR... [-json FILE] [-markdown FILE]
//	labsim compare DIR_A DIR_B [-columns N]
//	labsim demo [-seed N] [-hosts N] [-duration D] [-trace FILE]
//	labsim kit KIT [-out DIR] [-module PATH]
//	labsim grade -student DIR [-lab LAB] [-module PATH] [-secret S] [-timeout D] [-json FILE]
//	labsim grade [-in FILE] [-lab LAB] [-json FILE]
//	labsim check FILE [-timeout D] [-out DIR]
//	labsim record SCENARIO [-seed N] [-plant BUG] [-out FILE]
//	labsim replay FILE [-out FILE]
//	labsim shrink SCENARIO [-seed N] [-plant BUG] [-out FILE] | FILE.run.json [-out FILE]
//	labsim view FILE [-out HTML]
//	labsim gallery [-out DIR] [-only TEXT]
//	labsim search SCENARIO [-strategy S] [-inorder] [-depth D] [-budget N] [-time T] [-out DIR]
//	labsim search SCENARIO -replay PATH [-plant BUG] [-faults F] [-drops K] [-dups K] [-out DIR]
//	labsim search list
//	labsim help [COMMAND | EXPERIMENT | SCENARIO]
//
// list shows the experiments and the sweep scenarios (-v: the paper
// figures they reproduce, their pinned seeds, how to run them and which
// are cut down, which -full undoes). run runs one experiment and writes
// its CSV, PNG and SVG files; figures runs them all from their pinned
// seeds and writes an index. sweep runs a chaos scenario over many seeds
// and prints every failing seed with the command that replays it, or
// replays one seed; -plant switches one of the services' planted bugs on;
// -shard splits a sweep over machines (auto: a Kubernetes Indexed Job, a
// GitHub Actions matrix or a Slurm array) and -json writes its results as
// JSON lines, which merge puts together into one verdict (-markdown: a
// section of docs/swarms.md). compare compares two runs of figures (the
// cut-down and -full, say) experiment by experiment, from their CSVs.
// demo is a ping counter (not Raft) under random faults, run twice to show
// that a seed replays to the same trace hash. kit writes a course kit (a
// skeleton to fill in, the lab's test catalogue, the simulator) as a
// standalone module; grade -student grades a student's files, run in a
// fresh kit on seeds it chooses, and grade -in turns a 'go test -json'
// run of a kit's tests into a practice sheet. check checks a key/value history recorded elsewhere
// (porcupine's and Jepsen's log format) for linearizability. record runs
// one seed of a scenario and writes its run file (every event, the hosts'
// states, the operations, the verdict); replay runs it again and checks
// that the trace is the same, or says where it parts. shrink makes a
// failing seed's run small (fewer faults, clients, servers, a shorter
// run) while it fails the same way, and writes its run file. view draws a
// run file as a page that steps through the run in a browser, opening on
// its violation. gallery hunts, shrinks and draws every planted bug's
// first failing seed. search explores a small Raft or kvraft world's schedules (BFS with
// state hashing, random walks, PCT) with Raft's invariants, or
// linearizability of the history so far, checked in every state, and prints a violation's schedule and the command that
// replays it.
//
// Flags may come before or after a command's argument. Progress goes to
// standard error: one line redrawn in place on a terminal, plain lines
// elsewhere. The exit status is 0 when all went well, 1 when a run failed
// or found failures, and 2 when the command line was refused.
package main

import "github.com/replab/replab/harness/labsim"

func main() { labsim.Main(labsim.Lab()) }
