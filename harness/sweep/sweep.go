// Package sweep runs chaos scenarios over many seeds looking for bugs:
// each seed is one whole run (a world, a workload, a nemesis, a check:
// linearizability for the key/value and lock scenarios, strict
// serializability or the bank invariant for the transaction scenarios,
// agreement on every index for the Raft scenarios), and a failing seed
// replays exactly. Some nemeses are random; others strike at chosen
// moments (a leader's first entries of its term, a vote just cast), seen
// through a tap on the network.
//
// Planted switches one of a service's planted bugs on in a scenario, and
// FirstFailure finds the first seed that fails: docs/planted-bugs.md
// shows every planted bug found by some scenario within 20 seeds.
//
// A sweep too large for one machine runs in shards (Seeds), each writing
// its results file (ResultsFormat: a SeedRecord a line, then a
// SummaryRecord); ReadResults reads one back and checks it, and Merge
// checks that files are the whole of one sweep and gives its verdict.
package sweep

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// A Scenario is a seeded chaos run that ends with a verdict.
type Scenario struct {
	Name        string
	Description string
	// Run runs one seed, writing a violation's visualization into dir
	// and, if trace is not nil, the event trace to it.
	Run func(seed int64, dir string, trace io.Writer) Outcome
	// Build, for a scenario on the testbed, returns a seed's run without
	// carrying it out (Run carries it out), so that it can be changed
	// first: shrunk, say. Nil for a scenario not on the testbed.
	Build func(seed int64, dir string, trace io.Writer) (testbed.Run, error)
	// plant, in this package's scenarios, returns the scenario with a
	// planted bug switched on (see Planted).
	plant func(Bug) (Scenario, bool)
}

// An Outcome is the verdict of one seed.
type Outcome struct {
	Seed     int64
	Problem  string // "" if the run passed
	HTML     string // porcupine's visualization of a violation
	FaultLog string // what the chaos monkey did (Run drops it for seeds that pass)
	Ops      int
	Summary  sim.Summary
	// Drawn is what the seed drew of the run's configuration, by name, in
	// the order drawn (txn-crossing's hold on second prepares, a swarm's
	// whole configuration); nil for a scenario whose configuration is
	// fixed. Its values are as the scenario prints them.
	Drawn []testbed.Param
	// Wall is the wall time the seed took, set by Run and Each.
	Wall time.Duration
}

// OK reports whether the run passed.
func (o Outcome) OK() bool { return o.Problem == "" }

// Scenarios returns every scenario, by name.
func Scenarios() []Scenario {
	return append([]Scenario{
		kvScenario("kv-linearizability", "Five key/value servers that put every read through the Raft log serve five clients on an unreliable network, snapshotting, while random partitions, kills and restarts run for 30 s; porcupine then checks that the history is linearizable.", rsm.ReadLog),
		kvScenario("kv-readindex", "Five key/value servers that read by ReadIndex (the leader confirms it still leads with a round of heartbeats, then reads) serve five clients on an unreliable network, snapshotting, while random partitions, kills and restarts run for 30 s; porcupine then checks that the history is linearizable.", rsm.ReadIndex),
		kvScenario("kv-lease", "Five key/value servers whose leader reads its own state at once while it holds a leader lease serve five clients on an unreliable network, snapshotting, while random partitions, kills and restarts run for 30 s; porcupine then checks that the history is linearizable.", rsm.ReadLease),
		leaseElections(),
		leaseDriftSpec().scenario(),
		swarmKVScenario(),
	}, slices.Concat(raftScenarios(), []Scenario{swarmRaftScenario()}, txnScenarios(), cutScenarios(), []Scenario{crossingScenario(), swarmTxnScenario(), soakTxnKills(), soakAcidCrashes()}, logOrderScenarios(), []Scenario{swarmLogOrderScenario()}, lockScenarios())...)
}

// Lookup returns the scenario called name, or an error that lists them.
func Lookup(name string) (Scenario, error) {
	var names []string
	for _, s := range Scenarios() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q; the scenarios are: %s", name, strings.Join(names, ", "))
}

// Seeds returns the seeds first, first+1, ..., first+count-1 that fall to
// shard i of n (every n-th one, starting with the i-th).
func Seeds(first, count int64, i, n int) ([]int64, error) {
	if count <= 0 {
		return nil, fmt.Errorf("seed count %d is not positive", count)
	}
	if n <= 0 || i < 0 || i >= n {
		return nil, fmt.Errorf("shard %d/%d: want i/n with 0 <= i < n", i, n)
	}
	var seeds []int64
	for k := int64(i); k < count; k += int64(n) {
		seeds = append(seeds, first+k)
	}
	return seeds, nil
}

// ParseShard reads a shard as "i/n".
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("shard %q is not of the form i/n, e.g. 0/4", s)
	}
	return i, n, nil
}

// Run runs the scenario for every seed, parallel at a time (0 means one
// per CPU), calling progress after each, and returns the outcomes in seed
// order. It keeps the fault log of failing seeds only: a sweep of a
// million seeds would otherwise hold gigabytes of logs that nobody reads
// (replaying a seed prints its log).
func Run(sc Scenario, seeds []int64, parallel int, dir string, progress func(done, failed int)) []Outcome {
	out := make([]Outcome, len(seeds))
	done, failed := 0, 0
	Each(sc, seeds, parallel, dir, func(k int, o Outcome) {
		out[k] = o
		done++
		if !o.OK() {
			failed++
		}
		if progress != nil {
			progress(done, failed)
		}
	})
	return out
}

// Each runs the scenario for every seed, parallel at a time (0 means one
// per CPU), and calls each with the seed's index in seeds and its outcome
// as each seed ends: one call at a time, in the order the seeds end. Like
// Run, it drops the fault log of a seed that passed; unlike Run, it keeps
// no outcome, so a sweep of a million seeds can write each as it ends.
func Each(sc Scenario, seeds []int64, parallel int, dir string, each func(k int, o Outcome)) {
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				start := time.Now()
				o := RunSeed(sc, seeds[k], dir, nil)
				o.Wall = time.Since(start)
				if o.OK() {
					o.FaultLog = ""
				}
				mu.Lock()
				each(k, o)
				mu.Unlock()
			}
		}()
	}
	for k := range seeds {
		next <- k
	}
	close(next)
	wg.Wait()
}

// RunSeed runs one seed of sc, writing its event trace to trace if it is
// not nil; a panic (a node's, or a checker's) fails the seed with the
// panic's value and where it was raised, rather than ending the sweep or
// the program. The outcome names seed, whatever the scenario's Run filled
// in (a run that could not be built says nothing of its seed).
func RunSeed(sc Scenario, seed int64, dir string, trace io.Writer) (o Outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = Outcome{Problem: fmt.Sprintf("panic: %v\n%s", r, debug.Stack())}
		}
		o.Seed = seed
	}()
	return sc.Run(seed, dir, trace)
}

// onTestbed returns the scenario whose seeds build runs on the testbed:
// its Run carries out build's run.
func onTestbed(name, description string, build func(seed int64, dir string, trace io.Writer) (testbed.Run, error)) Scenario {
	return Scenario{Name: name, Description: description, Build: build, Run: func(seed int64, dir string, trace io.Writer) Outcome {
		return outcome(execute(build(seed, dir, trace)))
	}}
}

// execute carries out a run built, or passes on why it could not be built.
func execute(r testbed.Run, err error) (*testbed.Record, error) {
	if err != nil {
		return nil, err
	}
	return r.Execute()
}

// outcome is a testbed run's record as a seed's outcome; a run that could
// not be carried out fails its seed with the reason.
func outcome(rec *testbed.Record, err error) Outcome {
	if err != nil {
		return Outcome{Problem: err.Error()}
	}
	return Outcome{Seed: rec.Seed, Problem: rec.Problem, HTML: rec.HTML, FaultLog: rec.FaultLog.String(), Ops: rec.Ops, Summary: rec.Summary, Drawn: rec.Drawn}
}

func must(err error) {
	if err != nil {
		panic(err) // faults on the cluster's own hosts: a bug
	}
}
