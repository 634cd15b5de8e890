package testbed

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/sim"
)

// Txn is a workload of transaction clients (workload.TxnClient, any
// transactional service behind a small adapter), their history recorded:
// list-append transactions by Lists, checked by StrictSerializable, or,
// with Bank set, bank transfers and reads of every balance, checked by
// Balanced. A transaction that commits counts as progress; one that
// aborts does not. Make one per run.
type Txn struct {
	// Client returns a client of the service deployed on c, on a client
	// host of its own called name.
	Client  func(c *cluster.Cluster, name string) (workload.TxnClient, error)
	Clients int
	// Lists is what each client does when Bank is nil.
	Lists workload.ListSpec
	// Bank, if set, is what each client does instead.
	Bank *workload.BankSpec
	// Open, if set, opens the bank's accounts, each with Balance, before
	// the clients start; it may run the world.
	Open    func(e *Env, accounts int, balance int64) error
	Balance int64
	// Backoff, if positive, makes each client a caller that backs off on
	// aborts, as write intents want of their callers (shardtxn's doc):
	// after its n-th abort in a row, a client pauses up to Backoff·2ⁿ⁻¹
	// (at most 256·Backoff), drawn at random, before its next
	// transaction.
	Backoff time.Duration
	// Retry makes each client run a list transaction that aborted again,
	// the same one, until it commits (after its back-off pause, if it
	// backs off), as a caller that must see its transaction through does:
	// the history holds the transaction once, from its first try to the
	// try that committed.
	Retry bool
	// Order, if set, gives the list history the order in which the
	// service installed each key's values before it is checked
	// (txncheck.History.Installed).
	Order func(h *txncheck.History)

	lists    txncheck.History
	accounts bank.History
}

// txnLoad is Txn's clients at work.
type txnLoad struct {
	t   *Txn
	run *workload.Run
}

// counted is a client whose committed transactions count as progress,
// and that backs off on aborts.
type counted struct {
	workload.TxnClient
	e       *Env
	name    string // the client's host's name, which Env.Tried is told
	backoff time.Duration
	retry   bool
	aborts  int        // in a row
	rng     *rand.Rand // the client's stream (workload.ClientRand)
	// record, if the world records, records an operation's invoke and
	// returns what records its return (see clientOp).
	record func(input string) func(output string)
}

func (c *counted) ListTxn(ops []txncheck.Op, done func(txncheck.Outcome, []txncheck.Op)) {
	ret := c.invoke(func() string { return listInput(ops) })
	var try func()
	try = func() {
		start := c.e.World.Now()
		c.TxnClient.ListTxn(ops, func(o txncheck.Outcome, filled []txncheck.Op) {
			if o == txncheck.Fail && c.retry {
				c.ended(start, o, try)
				return
			}
			ret(func() string { return listOutput(o, filled) })
			c.ended(start, o, func() { done(o, filled) })
		})
	}
	try()
}

func (c *counted) Transfer(moves []bank.Transfer, done func(txncheck.Outcome)) {
	start := c.e.World.Now()
	ret := c.invoke(func() string { return transferInput(moves) })
	c.TxnClient.Transfer(moves, func(o txncheck.Outcome) {
		ret(o.String)
		c.ended(start, o, func() { done(o) })
	})
}

func (c *counted) Balances(accounts int, done func(txncheck.Outcome, []int64)) {
	start := c.e.World.Now()
	ret := c.invoke(func() string { return fmt.Sprintf("read %d balances", accounts) })
	c.TxnClient.Balances(accounts, func(o txncheck.Outcome, b []int64) {
		ret(func() string { return balancesOutput(o, b) })
		c.ended(start, o, func() { done(o, b) })
	})
}

// invoke records the invoke of an operation said by input, if the world
// records, and returns what records its return.
func (c *counted) invoke(input func() string) func(output func() string) {
	if c.record == nil {
		return func(func() string) {}
	}
	ret := c.record(input())
	return func(output func() string) { ret(output()) }
}

// ended counts a transaction begun at start that ended with o, tells
// the run of the try (Env.Tried), and reports it by done, after a pause
// if it aborted and the client backs off.
func (c *counted) ended(start time.Duration, o txncheck.Outcome, done func()) {
	if o == txncheck.OK {
		c.e.Completed(start)
	}
	c.e.Tried(c.name, start, o == txncheck.OK)
	if o != txncheck.Fail || c.backoff <= 0 {
		c.aborts = 0
		done()
		return
	}
	c.aborts++
	w := c.e.World
	w.After(sim.Duration(c.rng, 0, c.backoff<<min(c.aborts-1, 8)), done)
}

// Start opens the accounts (for the bank) and starts the clients, each
// on a host of its own (client0, ...).
func (t *Txn) Start(e *Env) (Load, error) {
	if t.Clients <= 0 {
		return nil, fmt.Errorf("txn workload of %d clients: want some", t.Clients)
	}
	if t.Bank != nil && t.Open != nil {
		if err := t.Open(e, t.Bank.Accounts, t.Balance); err != nil {
			return nil, fmt.Errorf("opening the accounts: %w", err)
		}
	}
	clients := make([]workload.TxnClient, t.Clients)
	for i := range clients {
		name := fmt.Sprintf("client%d", i)
		ck, err := t.Client(e.Cluster, name)
		if err != nil {
			return nil, err
		}
		cl := &counted{TxnClient: ck, e: e, name: name, backoff: t.Backoff, retry: t.Retry, rng: workload.ClientRand(e.World, i)}
		if w := e.World; w.Recording() {
			host, client := hostNamed(w, name), i
			cl.record = func(input string) func(string) { return clientOp(w, host, client, input) }
		}
		clients[i] = cl
	}
	if t.Bank != nil {
		return &txnLoad{t, workload.StartBank(e.World, clients, *t.Bank, &t.accounts)}, nil
	}
	return &txnLoad{t, workload.StartLists(e.World, clients, t.Lists, &t.lists)}, nil
}

func (l *txnLoad) Stop()          { l.run.Stop() }
func (l *txnLoad) Finished() bool { return l.run.Finished() }

// Probe has a fresh client read (a list, or every balance), again every
// 10 ms of virtual time until a read commits; it is not recorded.
func (l *txnLoad) Probe(e *Env, done func()) error {
	ck, err := l.t.Client(e.Cluster, "probe")
	if err != nil {
		return err
	}
	var read func()
	again := func(o txncheck.Outcome) {
		if o == txncheck.OK {
			done()
			return
		}
		e.World.After(10*time.Millisecond, read)
	}
	read = func() {
		if l.t.Bank != nil {
			ck.Balances(l.t.Bank.Accounts, func(o txncheck.Outcome, _ []int64) { again(o) })
			return
		}
		ck.ListTxn([]txncheck.Op{txncheck.Read(0)}, func(o txncheck.Outcome, _ []txncheck.Op) { again(o) })
	}
	read()
	return nil
}

// StrictSerializable returns the check that the list history is strictly
// serializable (txncheck); a violation is drawn into the run's Dir, with
// the fault log.
func (t *Txn) StrictSerializable() Check {
	return func(e *Env) (Verdict, error) {
		e.Ops = t.lists.Len()
		if t.Order != nil {
			t.Order(&t.lists)
		}
		res, err := txncheck.Check(&t.lists, txncheck.StrictSerializable)
		if err != nil {
			return Verdict{}, fmt.Errorf("checking the lists: %w", err)
		}
		if res.OK() {
			return Verdict{}, nil
		}
		v := Verdict{Problem: res.String(), Kind: "serializability"}
		if res.Verdict == txncheck.Inconclusive {
			v.Kind = "unknown" // a search that ran out of budget
		}
		if len(res.Anomalies) > 0 {
			v.Ops = res.Anomalies[0].Txns
		}
		if e.Run.Dir != "" {
			v.HTML, _ = res.WriteHTML(e.Run.Dir, fmt.Sprintf("%s-seed%d", e.Run.Name, e.Run.Seed), e.Cluster.Log().Intervals(e.World.Now()))
		}
		return v, nil
	}
}

// Balanced returns the check that every read of the balances adds up to
// the accounts' opening total, and no transfer made money.
func (t *Txn) Balanced() Check {
	return func(e *Env) (Verdict, error) {
		e.Ops = t.accounts.Len()
		if t.Bank == nil {
			return Verdict{}, fmt.Errorf("the bank check on a run of lists")
		}
		res, err := bank.Check(&t.accounts, bank.Config{Accounts: t.Bank.Accounts, Total: int64(t.Bank.Accounts) * t.Balance})
		if err != nil {
			return Verdict{}, fmt.Errorf("checking the bank: %w", err)
		}
		if !res.Valid {
			v := Verdict{Problem: res.String(), Kind: "bank"}
			if len(res.Errors) > 0 {
				v.Ops = []int{res.Errors[0].First.Op}
			}
			return v, nil
		}
		return Verdict{}, nil
	}
}

// Check returns the workload's check: StrictSerializable for lists,
// Balanced for the bank.
func (t *Txn) Check() Check {
	if t.Bank != nil {
		return t.Balanced()
	}
	return t.StrictSerializable()
}

// Counts returns how many clients the workload has (Resizer).
func (t *Txn) Counts() []int { return []int{t.Clients} }

// Resize sets how many clients the workload has (Resizer).
func (t *Txn) Resize(counts []int) error {
	if len(counts) != 1 {
		return fmt.Errorf("txn workload: %d counts %v: want the clients", len(counts), counts)
	}
	t.Clients = counts[0]
	return nil
}
