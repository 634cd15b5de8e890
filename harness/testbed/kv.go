package testbed

import (
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// KV is a workload of key/value clients, their history recorded for
// porcupine: Clients work by Spec's mix, and Readers only read the same
// keys (a reader that has a deposed leader's ear keeps reading from it).
// Make one per run.
type KV struct {
	// Clerk returns a clerk on host that talks to servers.
	Clerk func(host *sim.Host, servers []*labrpc.ClientEnd) linearize.KV
	// Group is the cluster group the clerks talk to.
	Group            int
	Clients, Readers int
	// Spec is what each client does; its Done, if set, still hears of
	// every completed operation.
	Spec workload.Spec

	h linearize.History
}

// kvLoad is KV's clients at work.
type kvLoad struct {
	k    *KV
	runs []*workload.Run
}

// Start starts the clients, each on a host of its own (clerk0, ...).
func (k *KV) Start(e *Env) (Load, error) {
	if k.Clients < 0 || k.Readers < 0 || k.Clients+k.Readers == 0 {
		return nil, fmt.Errorf("kv workload of %d clients and %d readers: want some, none negative", k.Clients, k.Readers)
	}
	c, w := e.Cluster, e.World
	clients := make([]workload.KV, k.Clients+k.Readers)
	for i := range clients {
		host := c.NewClient(fmt.Sprintf("clerk%d", i))
		clients[i] = linearize.Record(k.Clerk(host, c.Ends(host, k.Group, nil)), &k.h, i, w.Now)
		if w.Recording() {
			clients[i] = &recordedKV{ck: clients[i], w: w, host: host.ID(), client: i}
		}
	}
	spec := k.Spec
	done := spec.Done
	spec.Done = func(client int, kind workload.Kind, start, end time.Duration) {
		e.Completed(start)
		if done != nil {
			done(client, kind, start, end)
		}
	}
	l := &kvLoad{k: k}
	if k.Clients > 0 {
		l.runs = append(l.runs, workload.Start(w, clients[:k.Clients], spec))
	}
	if k.Readers > 0 {
		spec.Mix = workload.Mix{Get: 1}
		l.runs = append(l.runs, workload.Start(w, clients[k.Clients:], spec))
	}
	return l, nil
}

func (l *kvLoad) Stop() {
	for _, r := range l.runs {
		r.Stop()
	}
}

func (l *kvLoad) Finished() bool {
	for _, r := range l.runs {
		if !r.Finished() {
			return false
		}
	}
	return true
}

// Probe reads a key through a fresh clerk on a host of its own; the read
// is not recorded.
func (l *kvLoad) Probe(e *Env, done func()) error {
	host := e.Cluster.NewClient("probe")
	ck := l.k.Clerk(host, e.Cluster.Ends(host, l.k.Group, nil))
	ck.Get("k0", func(string, int64) { done() })
	return nil
}

// Linearizable returns the check that the clients' history is
// linearizable, porcupine given timeout of wall time (a check that runs
// out of it fails the run as unknown, never passes it).
func (k *KV) Linearizable(timeout time.Duration) Check {
	return func(e *Env) (Verdict, error) {
		e.Ops = k.h.Len()
		name := fmt.Sprintf("%s-seed%d", e.Run.Name, e.Run.Seed)
		r, err := linearize.Check(linearize.KVModel(), k.h.Operations(), e.Cluster.Log(), timeout, e.Run.Dir, name)
		if err != nil {
			return Verdict{}, fmt.Errorf("checking linearizability: %w", err)
		}
		if r.OK() {
			return Verdict{}, nil
		}
		v := Verdict{Problem: r.Problem(), HTML: r.HTML, Kind: "linearizability"}
		if x := r.Explanation; x != nil {
			v.Ops = append(v.Ops, x.Stuck.Index)
			for _, o := range x.Writes {
				v.Ops = append(v.Ops, o.Index)
			}
		}
		if r.Verdict != porcupine.Illegal {
			v.Kind = "unknown"
		}
		return v, nil
	}
}

// Counts returns how many clients and readers the workload has (Resizer).
func (k *KV) Counts() []int { return []int{k.Clients, k.Readers} }

// Resize sets how many clients and readers the workload has (Resizer).
func (k *KV) Resize(counts []int) error {
	if len(counts) != 2 {
		return fmt.Errorf("kv workload: %d counts %v: want clients and readers", len(counts), counts)
	}
	k.Clients, k.Readers = counts[0], counts[1]
	return nil
}
