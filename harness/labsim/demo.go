package labsim

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

var demoCmd = &command{
	name:  "demo",
	args:  "[-seed N] [-hosts N] [-duration D] [-trace FILE]",
	short: "a ping counter (not Raft) under random faults, run twice to show a seed replays",
	long: fmt.Sprintf(`
Demo is a ping counter, not Raft: N hosts ping each other every 20-80 ms
over an unreliable network while a random nemesis partitions, cuts, kills
and restarts them, about once a second. It prints the fault log, how many
pings were answered, and the world's summary line with its trace hash,
then runs the same seed again and checks that the hash is the same: a run
is a function of its seed. It exits with status 1 if the replay differs.

The work grows with hosts squared times duration: 5 hosts for a minute
take about 0.05 s, 100 hosts for 10 s about 5 s (twice, for the replay),
so -hosts is at most %d and -duration at most %s of virtual time.`, maxDemoHosts, shortDuration(maxDemoDuration)),
	flags: func(fs *flag.FlagSet) action {
		seed := seedFlag(fs, 1, "the world's seed `N`")
		hosts := intFlag(fs, "hosts", 5, 1, maxDemoHosts, fmt.Sprintf("`N` hosts, 1 to %d", maxDemoHosts))
		duration := durationFlag(fs, "duration", time.Minute, maxDemoDuration,
			fmt.Sprintf("simulate `D` of virtual time, at most %s", shortDuration(maxDemoDuration)))
		trace := fs.String("trace", "", "write the first run's event trace to `FILE`")
		return func(e *env, _ string) error {
			return demo(e, *seed, int(*hosts), *duration, *trace)
		}
	},
}

// demoSteps is how many pieces each demo run's virtual time is cut into,
// to show progress.
const demoSteps = 100

// demo runs the ping counter twice from seed and checks that the runs
// agree.
func demo(e *env, seed int64, hosts int, d time.Duration, trace string) error {
	traceOut, closeTrace, err := traceFile(trace)
	if err != nil {
		return err
	}
	p := newProgress(e, "demo", "", 2*demoSteps, true)
	steps := 0
	step := func() {
		steps++
		p.set(steps, 0)
	}
	start := time.Now()
	first, err := runDemo(seed, hosts, d, demoSteps, traceOut, step)
	wall := time.Since(start)
	if cerr := closeTrace(); err == nil {
		err = cerr
	}
	var again demoResult
	if err == nil {
		again, err = runDemo(seed, hosts, d, demoSteps, nil, step)
	}
	p.finish()
	if err != nil {
		return err
	}
	out := e.stdout
	fmt.Fprintf(out, "a ping counter, not Raft: %d hosts pinging each other for %s of virtual time under random faults\n", hosts, shortDuration(d))
	fmt.Fprintf(out, "fault log (seed %d):\n%s\n", seed, first.faults)
	fmt.Fprintf(out, "%d hosts, %d of them alive at the end\n", first.hosts, first.alive)
	fmt.Fprintf(out, "%d pings sent (%d bytes): %d answered, %d failed (lost, or cut off by a fault), %d with no outcome (in flight at the end, or their sender died first)\n",
		first.rpcs, first.bytes, first.ok, first.failed, first.rpcs-first.ok-first.failed)
	fmt.Fprintf(out, "%v in %.3fs of wall time\n", first.summary, wall.Seconds())
	if trace != "" {
		fmt.Fprintf(out, "event trace: %s\n", trace)
	}
	if again.summary != first.summary {
		return fmt.Errorf("replaying seed %d gave %v: the run is not deterministic", seed, again.summary)
	}
	fmt.Fprintf(out, "replayed seed %d: same trace hash %016x\n", seed, again.summary.Hash)
	return nil
}

// traceFile opens path for an event trace and returns a buffered writer to
// it and a function that flushes and closes it; an empty path gives a nil
// writer (no trace).
func traceFile(path string) (io.Writer, func() error, error) {
	if path == "" {
		return nil, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, usagef("-trace %s: %v", path, err)
	}
	buf := bufio.NewWriter(f)
	return buf, func() error {
		err := buf.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}, nil
}
