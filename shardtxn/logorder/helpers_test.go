package logorder_test

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/bank"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/shardtxn/logorder"
	"github.com/replab/replab/shardtxn/logorder/logordertest"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deployment is a logorder service on a world, as the tests build it,
// with every node's decisions recorded by tid.
type deployment struct {
	w         *sim.World
	c         *cluster.Cluster
	d         logordertest.Deployment
	decisions []map[int]logorder.Outcome // per node
	clients   int
}

// config is the default configuration on nodes nodes with replication r.
func config(nodes, r int) logorder.Config {
	cfg := logorder.DefaultConfig()
	cfg.Layout = logorder.DefaultLayout(nodes, r)
	return cfg
}

func deploy(t simtest.T, seed int64, cfg logorder.Config) *deployment {
	t.Helper()
	d := &deployment{w: sim.NewWorld(seed), decisions: make([]map[int]logorder.Outcome, cfg.Layout.Nodes)}
	for i := range d.decisions {
		d.decisions[i] = map[int]logorder.Outcome{}
	}
	d.d = logordertest.Deployment{Config: cfg, Setup: func(node int, s *logorder.Server) {
		s.OnDecide(func(tid int, o logorder.Outcome) {
			if old, ok := d.decisions[node][tid]; ok && old != o {
				t.Errorf("node %d decided tid %d %v, and %v after a restart", node, tid, old, o)
			}
			d.decisions[node][tid] = o
		})
	}}
	ccfg, err := d.d.Cluster()
	require.NoError(t, err)
	d.c, err = cluster.New(d.w, ccfg)
	require.NoError(t, err)
	return d
}

// result is the run's summary for simtest.Run.
func (d *deployment) result() simtest.Result {
	return simtest.Result{World: d.w, Hosts: len(d.w.Hosts()), RPCs: d.c.Net().GetTotalCount()}
}

// disagreement returns a tid two nodes decided differently, or "".
func (d *deployment) disagreement() string {
	for a := range d.decisions {
		for tid, o := range d.decisions[a] {
			for b := a + 1; b < len(d.decisions); b++ {
				if p, ok := d.decisions[b][tid]; ok && p != o {
					return fmt.Sprintf("tid %d: node %d decided %v, node %d %v", tid, a, o, b, p)
				}
			}
		}
	}
	return ""
}

// transfers starts n clients moving money among 40 accounts, two moves a
// transaction, overdrafts allowed, as the catch-up tests load the log.
func (d *deployment) transfers(n int) *workload.Run {
	clients := make([]workload.TxnClient, n)
	for i := range clients {
		clients[i] = logordertest.Client{Clerk: d.clerk(), Overdraft: true}
	}
	return workload.StartBank(d.w, clients, workload.BankSpec{Accounts: 40, MaxAmount: 10, Moves: 2}, &bank.History{})
}

func (d *deployment) clerk() *logorder.Clerk {
	d.clients++
	return logordertest.Clerk(d.c, fmt.Sprintf("client%d", d.clients), d.d.Config.Layout)
}

func (d *deployment) server(i int) *logorder.Server {
	s, _ := d.c.Replica(0, i).(*logorder.Server)
	return s
}

// runUntil runs the world until *done is set, or fails t.
func (d *deployment) runUntil(t simtest.T, what string, done *bool) {
	t.Helper()
	require.True(t, d.w.RunUntil(func() bool { return *done }, 30*time.Second), "%s did not end", what)
}

func (d *deployment) begin(t simtest.T, ck *logorder.Clerk, min int) *logorder.Tx {
	t.Helper()
	var tx *logorder.Tx
	ended := false
	ck.Begin(min, func(x *logorder.Tx, err error) {
		require.NoError(t, err)
		tx, ended = x, true
	})
	d.runUntil(t, "begin", &ended)
	return tx
}

func (d *deployment) get(t simtest.T, tx *logorder.Tx, key string) (string, bool) {
	t.Helper()
	var v string
	var found, ended bool
	require.NoError(t, tx.Get(key, func(value string, f bool, err error) {
		require.NoError(t, err)
		v, found, ended = value, f, true
	}))
	d.runUntil(t, "get "+key, &ended)
	return v, found
}

func (d *deployment) commit(t simtest.T, tx *logorder.Tx) (int, logorder.Outcome) {
	t.Helper()
	var tid int
	var o logorder.Outcome
	ended := false
	tx.Commit(func(id int, out logorder.Outcome, err error) {
		require.NoError(t, err)
		tid, o, ended = id, out, true
	})
	d.runUntil(t, "commit", &ended)
	return tid, o
}

// put commits one transaction that writes key=value, blindly.
func (d *deployment) put(t simtest.T, ck *logorder.Clerk, key, value string) int {
	t.Helper()
	tx := d.begin(t, ck, ck.LastTid())
	require.NoError(t, tx.Put(key, value))
	tid, o := d.commit(t, tx)
	require.Equal(t, logorder.Applied, o)
	return tid
}

// keyOn returns a key that node keeps first (its range's first owner).
func keyOn(node int, layout logorder.Layout, name string) string {
	for c := 'a'; ; c++ {
		k := string(c) + name
		if layout.Owners(k)[0] == node {
			return k
		}
	}
}

// A raw client calls the nodes' handlers itself, as a clerk would, to ask
// what a clerk never asks.
type raw struct {
	d    *deployment
	ends []*labrpc.ClientEnd
}

func (d *deployment) raw() *raw {
	d.clients++
	h := d.c.NewClient(fmt.Sprintf("raw%d", d.clients))
	return &raw{d: d, ends: d.c.Ends(h, 0, nil)}
}

// call sends method to node to, runs the world until the call ends, and
// returns how long it took.
func (r *raw) call(t simtest.T, to int, method string, args, reply any) time.Duration {
	t.Helper()
	start, ended := r.d.w.Now(), false
	r.ends[to].Call(method, args, reply, func(bool) { ended = true })
	r.d.runUntil(t, method, &ended)
	return r.d.w.Now() - start
}

// cutOff writes a=1 through ck, cuts a follower off from the log, and
// writes a=2, which the follower misses: it returns the leader, the
// follower, and the second write's tid.
func (d *deployment) cutOff(t simtest.T, ck *logorder.Clerk) (leader, cut, tid int) {
	t.Helper()
	d.put(t, ck, "a", "1")
	leader, ok := d.c.Leader(0)
	require.True(t, ok)
	cut = (leader + 1) % d.d.Config.Layout.Nodes
	require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Isolate, Host: d.c.HostOf(0, cut)}))
	return leader, cut, d.put(t, ck, "a", "2")
}

// assertBehind asks node for a's value as of tid, which it has not
// processed, and checks that it answers ErrBehind once ReadWait has
// passed.
func (r *raw) assertBehind(t simtest.T, node, tid int, msg string) {
	t.Helper()
	var get logorder.GetReply
	took := r.call(t, node, "Server.Get", &logorder.GetArgs{Tid: tid, Keys: []string{"a"}}, &get)
	assert.Equal(t, logorder.ErrBehind, get.Err, msg)
	wait := r.d.d.Config.ReadWait
	assert.GreaterOrEqual(t, took, wait, msg)
	assert.Less(t, took, wait+10*time.Millisecond, msg)
}
