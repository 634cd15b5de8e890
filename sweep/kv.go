package sweep

import (
	"fmt"
	"io"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/fault"
	"github.com/replab/replab/internal/linearize"
	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/sim"
)

// The shape of the key/value scenarios.
const (
	kvServers    = 5
	kvClients    = 5
	kvKeys       = 5
	kvChaosFor   = 30 * time.Second
	kvSettle     = 2 * time.Minute
	checkTimeout = 20 * time.Second
)

// kvScenario is the key/value linearizability hunt with the given read
// mode.
func kvScenario(name, description string, reads kvraft.ReadMode) Scenario {
	return Scenario{Name: name, Description: description, Run: func(seed int64, dir string, trace io.Writer) Outcome {
		return runKV(name, seed, reads, dir, trace)
	}}
}

func runKV(name string, seed int64, reads kvraft.ReadMode, dir string, trace io.Writer) Outcome {
	w := sim.NewWorld(seed)
	w.SetTraceWriter(trace)
	o := Outcome{Seed: seed}
	fail := func(format string, args ...any) Outcome {
		o.Problem = fmt.Sprintf(format, args...)
		o.Summary = w.Summary()
		return o
	}
	c, err := kvraft.NewCluster(w, kvServers, 1000, kvraft.Options{Reads: reads, Raft: raft.LabConfig()})
	if err != nil {
		return fail("%v", err)
	}
	c.Net().Reliable(false)
	m, err := c.Monkey()
	if err != nil {
		return fail("%v", err)
	}
	nemesis, err := m.StartNemesis(chaos.NemesisConfig{Interval: 500 * time.Millisecond, Weights: chaos.DefaultWeights()})
	if err != nil {
		return fail("%v", err)
	}

	var h linearize.History
	stop, finished := false, 0
	for i := range kvClients {
		ck := kvraft.NewRecordedClerk(c.MakeClerk(c.All()), &h, i)
		var step func()
		step = func() {
			if stop {
				finished++
				return
			}
			next := func() { w.After(w.RandDuration(0, 10*time.Millisecond), step) }
			key := fmt.Sprintf("k%d", w.Rand().IntN(kvKeys))
			switch w.Rand().IntN(3) {
			case 0:
				ck.Get(key, func(string, int64) { next() })
			case 1:
				ck.Put(key, fmt.Sprintf("%d.%d", i, h.Len()), next)
			default:
				ck.Append(key, fmt.Sprintf(" %d.%d", i, h.Len()), next)
			}
		}
		step()
	}

	w.Run(kvChaosFor)
	nemesis.Stop()
	if err := m.Apply(fault.Fault{Kind: fault.Heal}); err != nil {
		return fail("%v", err)
	}
	for i, alive := range m.Alive() {
		if !alive {
			if err := m.Apply(fault.Fault{Kind: fault.Restart, Host: i}); err != nil {
				return fail("%v", err)
			}
		}
	}
	stop = true
	o.FaultLog = m.Log().String()
	o.Ops = h.Len()
	if !w.RunUntil(func() bool { return finished == kvClients }, kvSettle) {
		return fail("the clients' last operations did not complete within %v of healing", kvSettle)
	}
	o.Summary = w.Summary()
	var faults []linearize.Fault
	for _, e := range m.Log() {
		faults = append(faults, linearize.Fault{At: e.At, Description: e.Fault.String()})
	}
	r, err := linearize.Check(linearize.KVModel(), h.Operations(), faults, checkTimeout, dir, fmt.Sprintf("%s-seed%d", name, seed))
	if err != nil {
		return fail("writing the visualization: %v", err)
	}
	o.HTML = r.HTML
	if !r.OK() {
		o.Problem = r.Problem()
	}
	return o
}
