package testbed

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/sim"
)

// txnStore is a toy transactional store kept in the test, outside the
// network: each transaction takes effect at once, 2 ms after it is
// asked for, so histories are strictly serializable. leak makes every
// transfer take its amount and give nothing; abort makes every
// transaction abort from then on. A transfer of one move (the workload's)
// that would overdraw its account aborts.
type txnStore struct {
	w           *sim.World
	lists       map[int][]int
	balances    []int64
	leak, abort bool
	tries       int // the list transactions asked for
	// starve names a client whose every list transaction aborts.
	starve string
}

// txnToy is a client of a txnStore, called name.
type txnToy struct {
	s    *txnStore
	name string
}

func (c txnToy) later(f func()) { c.s.w.After(2*time.Millisecond, f) }

func (c txnToy) ListTxn(ops []txncheck.Op, done func(txncheck.Outcome, []txncheck.Op)) {
	c.s.tries++
	c.later(func() {
		if c.s.abort || c.name == c.s.starve {
			done(txncheck.Fail, nil)
			return
		}
		out := make([]txncheck.Op, len(ops))
		for i, o := range ops {
			out[i] = o
			if o.Type == txncheck.OpAppend {
				c.s.lists[o.Key] = append(c.s.lists[o.Key], o.Value)
			} else {
				out[i] = txncheck.Read(o.Key, append([]int(nil), c.s.lists[o.Key]...)...)
			}
		}
		done(txncheck.OK, out)
	})
}

func (c txnToy) Transfer(moves []bank.Transfer, done func(txncheck.Outcome)) {
	c.later(func() {
		if c.s.abort || c.s.balances[moves[0].From] < moves[0].Amount {
			done(txncheck.Fail)
			return
		}
		for _, m := range moves {
			c.s.balances[m.From] -= m.Amount
			if !c.s.leak {
				c.s.balances[m.To] += m.Amount
			}
		}
		done(txncheck.OK)
	})
}

func (c txnToy) Balances(accounts int, done func(txncheck.Outcome, []int64)) {
	c.later(func() {
		if c.s.abort {
			done(txncheck.Fail, nil)
			return
		}
		done(txncheck.OK, append([]int64(nil), c.s.balances[:accounts]...))
	})
}

// txnRun is a run of three clients of s on the toy cluster, under bursts
// of link faults (which the store, outside the network, never sees),
// with the bank workload if bank.
func txnRun(t *testing.T, s *txnStore, bank bool) Run {
	tx := &Txn{
		Client: func(c *cluster.Cluster, name string) (workload.TxnClient, error) {
			s.w = c.World()
			return txnToy{s, name}, nil
		},
		Clients: 3, Balance: 100, Backoff: 10 * time.Millisecond,
		Lists: workload.ListSpec{Keys: 3, MaxOps: 3, Reads: 0.5, Think: 20 * time.Millisecond},
		Open: func(e *Env, accounts int, balance int64) error {
			s.balances = make([]int64, accounts)
			for a := range s.balances {
				s.balances[a] = balance
			}
			return nil
		},
	}
	if bank {
		tx.Bank = &workload.BankSpec{Accounts: 4, MaxAmount: 10, Reads: 0.5, Think: 20 * time.Millisecond}
	}
	n, err := Bursts{
		Hosts: 3, Faults: chaos.NemesisConfig{Interval: 100 * time.Millisecond, Weights: links},
		Burst: time.Second, Calm: time.Second, Length: 6 * time.Second,
	}.Generate(rand.New(rand.NewPCG(1, 0)))
	require.NoError(t, err)
	return Run{
		Name: "txn-toy", Seed: 1,
		Deploy:   cluster.Config{Groups: []cluster.Group{{Name: "toy", Replicas: 3, Factory: toyFactory}}},
		Workload: tx, Nemesis: n,
		Length: 6 * time.Second, Settle: 5 * time.Second, Progress: time.Second,
		Checks: []Check{tx.Check()},
	}
}

// TestTxnPassesAndCatches runs the transaction workload on a store that
// keeps its promises (lists and bank: both pass, with progress after
// every heal) and on one that leaks money (the bank check says no).
func TestTxnPassesAndCatches(t *testing.T) {
	for _, isBank := range []bool{false, true} {
		s := &txnStore{lists: map[int][]int{}}
		r := txnRun(t, s, isBank)
		rec, err := r.Execute()
		require.NoError(t, err)
		require.True(t, rec.OK(), "bank %v: %s", isBank, rec.Problem)
		assert.Empty(t, rec.Stalls)
		assert.Greater(t, rec.Ops, 100, "bank %v", isBank)
	}
	s := &txnStore{lists: map[int][]int{}, leak: true}
	r := txnRun(t, s, true)
	rec, err := r.Execute()
	require.NoError(t, err)
	assert.Contains(t, rec.Problem, "wrong-total")
}

// TestTxnAbortsAreNoProgress makes every transaction abort from the
// second heal on: aborts are not progress, so the run stalls there, and
// a fresh client's read after settling does not commit either.
func TestTxnAbortsAreNoProgress(t *testing.T) {
	s := &txnStore{lists: map[int][]int{}}
	r := txnRun(t, s, false)
	require.GreaterOrEqual(t, len(r.Nemesis.Heals), 2)
	heal := r.Nemesis.Heals[1]
	r.Nemesis.Reactive = func(e *Env) (func(), error) {
		e.World.After(heal, func() { s.abort = true })
		return func() {}, nil
	}
	rec, err := r.Execute()
	require.NoError(t, err)
	require.NotEmpty(t, rec.Stalls)
	assert.Equal(t, heal, rec.Stalls[0].Heal)
	assert.Contains(t, rec.Problem, "stall: no operation begun after the heal at "+heal.String())
}

// TestTxnBacksOffAfterAborts has every transaction abort: a client with a
// backoff pauses after each abort, longer each time, and so asks for far
// fewer than one without.
func TestTxnBacksOffAfterAborts(t *testing.T) {
	tries := func(backoff time.Duration) int {
		s := &txnStore{lists: map[int][]int{}, abort: true}
		r := txnRun(t, s, false)
		r.Workload.(*Txn).Backoff = backoff
		r.Nemesis, r.Progress, r.Checks = Nemesis{}, 0, nil
		_, err := r.Execute()
		require.NoError(t, err)
		return s.tries
	}
	without, with := tries(0), tries(10*time.Millisecond)
	assert.Greater(t, without, 500, "3 clients, 6 s, a try every 2-22 ms")
	assert.Less(t, with, 60, "pauses doubling from 10 ms: about a dozen tries a client")
	assert.Greater(t, with, 3*8, "the pause grows to 2.56 s at most, not for ever")
	_, err := (&Txn{}).Start(&Env{})
	assert.EqualError(t, err, "txn workload of 0 clients: want some")
}

// TestTxnStarvation has one client's every transaction abort while the
// others commit: a client that tries again and again starves, and the
// run names it and the moment, once its fruitless tries outlast the bound
// while the run is healed (within a calm after a heal, from the time
// given to recover on); a run in which every client commits passes.
func TestTxnStarvation(t *testing.T) {
	const bound, recovery = 300 * time.Millisecond, 200 * time.Millisecond
	run := func(starve string, calm bool) (Run, *Record) {
		s := &txnStore{lists: map[int][]int{}, starve: starve}
		r := txnRun(t, s, false)
		r.Workload.(*Txn).Retry, r.Workload.(*Txn).Backoff = true, 0
		r.Starve, r.StarveAfter = bound, recovery
		if calm {
			r.Nemesis = Nemesis{}
		}
		rec, err := r.Execute()
		require.NoError(t, err)
		return r, rec
	}
	for _, calm := range []bool{true, false} {
		_, rec := run("", calm)
		assert.True(t, rec.OK(), "calm %v: %s", calm, rec.Problem)
	}
	_, rec := run("client1", true)
	require.Len(t, rec.Stalls, 1, rec.Problem)
	st := rec.Stalls[0]
	assert.Equal(t, KindStall, rec.Kind)
	assert.Equal(t, "client1", st.Client)
	assert.Equal(t, bound, st.Bound)
	assert.GreaterOrEqual(t, st.Heal, recovery, "the bound runs from the recovery on")
	assert.Greater(t, st.Moment()-st.Heal, bound)
	assert.Less(t, st.Moment()-st.Heal, bound+10*time.Millisecond, "found at its first try past the bound (one every 2 ms)")
	assert.Contains(t, rec.Problem, "stall: client1 starved: it kept trying from "+st.Heal.String())

	r, rec := run("client2", false)
	require.Len(t, rec.Stalls, 1, rec.Problem)
	st = rec.Stalls[0]
	assert.Equal(t, "client2", st.Client)
	healed := false
	for _, h := range r.Nemesis.Heals {
		healed = healed || st.Heal >= h+recovery && st.Moment() < h+r.Progress
	}
	assert.True(t, healed, "starved within a calm (heals %v, progress %v): %v", r.Nemesis.Heals, r.Progress, st)
}
