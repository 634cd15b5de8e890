package testbed

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/runfile"
	"github.com/replab/replab/sim"
)

// An OpLister is a Workload that lists its clients' operations for a run
// file, in the order they began (the order its check numbers them in).
type OpLister interface {
	RunOps() []runfile.Op
}

// The kinds of verdicts a run gives besides its checks' (runfile.Verdict's
// Kind): what shrinking keeps. They are ProblemKind's names; a problem
// given without a kind gets ProblemKind's.
const (
	KindStorm  = "storm"  // the run fired more events than its bound
	KindStall  = "stall"  // no progress after a heal
	KindSettle = "settle" // the clients' last operations did not end
	KindDrain  = "drain"  // a drain did not hold
	KindPanic  = "panic"  // a node panicked (the run file of a recording keeps the run up to it)
)

// clientOp records a client's operation as world events when the world
// records: invoke now, and return when the function it returns is called.
// The events' ID is the client's number.
func clientOp(w *sim.World, host, client int, input string) func(output string) {
	w.Record(sim.Event{Kind: sim.KindInvoke, Host: host, Peer: -1, ID: uint64(client), What: input})
	return func(output string) {
		w.Record(sim.Event{Kind: sim.KindReturn, Host: host, Peer: -1, ID: uint64(client), What: output})
	}
}

// recordedKV is a KV client whose operations the world records.
type recordedKV struct {
	ck           linearize.KV
	w            *sim.World
	host, client int
}

func (r *recordedKV) Get(key string, done func(value string, version int64)) {
	in := linearize.KVInput{Kind: linearize.Get, Key: key}
	ret := clientOp(r.w, r.host, r.client, kvInput(in))
	r.ck.Get(key, func(v string, version int64) {
		ret(kvOutput(in, linearize.KVOutput{Value: v, Version: version, Versioned: true}))
		done(v, version)
	})
}

func (r *recordedKV) Put(key, value string, done func()) {
	ret := clientOp(r.w, r.host, r.client, kvInput(linearize.KVInput{Kind: linearize.Put, Key: key, Value: value}))
	r.ck.Put(key, value, func() { ret("ok"); done() })
}

func (r *recordedKV) Append(key, value string, done func()) {
	ret := clientOp(r.w, r.host, r.client, kvInput(linearize.KVInput{Kind: linearize.Append, Key: key, Value: value}))
	r.ck.Append(key, value, func() { ret("ok"); done() })
}

// kvInput says a key/value operation as called: get("k0"), put("k0", "x").
func kvInput(in linearize.KVInput) string {
	switch in.Kind {
	case linearize.Get:
		return fmt.Sprintf("get(%q)", in.Key)
	case linearize.CPut:
		return fmt.Sprintf("cput(%q, %q, v%d)", in.Key, in.Value, in.Version)
	}
	return fmt.Sprintf("%v(%q, %q)", in.Kind, in.Key, in.Value)
}

// kvOutput says what a key/value operation returned: "x" v3, ok, failed.
func kvOutput(in linearize.KVInput, out linearize.KVOutput) string {
	switch {
	case out.Failed:
		return "failed"
	case in.Kind == linearize.Get && out.Versioned:
		return fmt.Sprintf("%q v%d", out.Value, out.Version)
	case in.Kind == linearize.Get:
		return fmt.Sprintf("%q", out.Value)
	case in.Kind == linearize.CPut:
		return fmt.Sprint(out.OK)
	}
	return "ok"
}

// RunOps lists the clients' operations as the linearizability check
// numbers them (OpLister).
func (k *KV) RunOps() []runfile.Op {
	ops := k.h.Operations()
	out := make([]runfile.Op, len(ops))
	for i, o := range ops {
		in := o.Input.(linearize.KVInput)
		out[i] = runfile.Op{Client: o.ClientId, Call: o.Call, Return: o.Return, Input: kvInput(in), Key: in.Key}
		if o.Return == math.MaxInt64 {
			out[i].Return = -1
		}
		if res, ok := o.Output.(linearize.KVOutput); ok {
			out[i].Output = kvOutput(in, res)
		}
	}
	return out
}

// listInput says a list transaction as called: [append(1, 3) read(2)].
func listInput(ops []txncheck.Op) string {
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = o.String()
		if o.Type == txncheck.OpRead {
			s[i] = fmt.Sprintf("read(%d)", o.Key)
		}
	}
	return "[" + strings.Join(s, " ") + "]"
}

// listOutput says how a list transaction ended: its outcome, and for one
// that committed, its reads' results.
func listOutput(o txncheck.Outcome, ops []txncheck.Op) string {
	if o != txncheck.OK {
		return o.String()
	}
	var reads []string
	for _, op := range ops {
		if op.Type == txncheck.OpRead {
			reads = append(reads, op.String())
		}
	}
	return strings.TrimSpace(o.String() + " " + strings.Join(reads, " "))
}

func transferInput(moves []bank.Transfer) string {
	s := make([]string, len(moves))
	for i, m := range moves {
		s[i] = fmt.Sprintf("transfer %d from %d to %d", m.Amount, m.From, m.To)
	}
	return strings.Join(s, ", ")
}

func balancesOutput(o txncheck.Outcome, balances []int64) string {
	if o != txncheck.OK {
		return o.String()
	}
	return fmt.Sprintf("%v %v", o, balances)
}

// RunOps lists the clients' transactions as the workload's check numbers
// them (OpLister).
func (t *Txn) RunOps() []runfile.Op {
	var out []runfile.Op
	ret := func(o txncheck.Outcome, at time.Duration) int64 {
		if o == txncheck.Unknown {
			return -1
		}
		return int64(at)
	}
	if t.Bank != nil {
		for _, o := range t.accounts.Ops() {
			op := runfile.Op{Client: o.Process, Call: int64(o.Invoke), Return: ret(o.Outcome, o.Complete), Input: fmt.Sprintf("read %d balances", t.Bank.Accounts)}
			if o.Transfer != nil {
				op.Input = transferInput([]bank.Transfer{*o.Transfer})
			}
			if o.Outcome != txncheck.Unknown {
				op.Output = balancesOutput(o.Outcome, o.Balances)
			}
			out = append(out, op)
		}
		return out
	}
	for _, x := range t.lists.Txns() {
		op := runfile.Op{Client: x.Process, Call: int64(x.Invoke), Return: ret(x.Outcome, x.Complete), Input: listInput(x.Ops)}
		if x.Outcome != txncheck.Unknown {
			op.Output = listOutput(x.Outcome, x.Ops)
		}
		out = append(out, op)
	}
	return out
}

// hostNamed returns the ID of w's host called name, or -1.
func hostNamed(w *sim.World, name string) int {
	for _, h := range w.Hosts() {
		if h.Name() == name {
			return h.ID()
		}
	}
	return -1
}

// runFile writes the run down, from what rec recorded and what the run
// left in out.
func (r *Run) runFile(rec *runfile.Recorder, e *Env, out *Record) *runfile.File {
	f := rec.File()
	f.Scenario, f.Seed = r.Name, r.Seed
	for _, p := range r.Drawn {
		f.Drawn = append(f.Drawn, runfile.Param{Name: p.Name, Value: p.Value})
	}
	f.Faults = RunFaults(e.Cluster.Monkey(), out.FaultLog)
	if l, ok := r.Workload.(OpLister); ok {
		f.Ops = l.RunOps()
	}
	v := &f.Verdict
	v.Problem, v.Kind = out.Problem, out.Kind
	if v.Problem != "" && v.Kind == "" {
		v.Kind = ProblemKind(v.Problem)
	}
	for _, k := range out.Culprits {
		if k >= 0 && k < len(f.Ops) {
			v.Ops = append(v.Ops, k)
		}
	}
	if v.Problem != "" {
		v.At = verdictAt(f, out)
	}
	return f
}

// verdictAt returns the index of the event at which the verdict shows:
// the return of the operation it names first (its call, if it never
// returned), the first event at a stall's deadline, else the run's last.
func verdictAt(f *runfile.File, out *Record) int {
	last := len(f.Events) - 1
	from := func(at int64) int {
		for i, e := range f.Events {
			if e.At >= at {
				return i
			}
		}
		return last
	}
	switch {
	case len(f.Verdict.Ops) > 0:
		o := f.Ops[f.Verdict.Ops[0]]
		kind, at := sim.KindReturn, o.Return
		if at < 0 {
			kind, at = sim.KindInvoke, o.Call
		}
		for i := from(at); i >= 0 && i < len(f.Events) && f.Events[i].At == at; i++ {
			if e := f.Events[i]; e.Kind == kind && e.ID == uint64(o.Client) {
				return i
			}
		}
		return from(at)
	case out.Kind == KindStall && len(out.Stalls) > 0:
		return from(int64(out.Stalls[0].Moment()))
	}
	return last
}

// RunFaults returns the faults of log, applied by m, as a run file holds
// them: each with the world IDs of the hosts it struck.
func RunFaults(m *chaos.Monkey, log fault.Log) []runfile.Fault {
	var fs []runfile.Fault
	for _, x := range log {
		fs = append(fs, runfile.Fault{At: int64(x.At), Text: x.Text, Hosts: m.Struck(x.Fault), Heal: x.Fault.Heals()})
	}
	return fs
}
