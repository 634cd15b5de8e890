package cluster

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/raft"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
)

// rafts is a factory of bare Raft nodes that count what they apply.
func rafts(applied map[string]int) Factory {
	return func(n Node) (Replica, []*labrpc.Service, error) {
		host, peers, me, ps := n.Host, n.Peers, n.Me, n.Persister
		key := fmt.Sprintf("%s/%d", host.Name(), me)
		rf, err := raft.Make(host, peers, me, ps, func(m raft.ApplyMsg) {
			if m.CommandValid {
				applied[key]++
			}
		}, raft.LabConfig())
		if err != nil {
			return nil, nil, err
		}
		return rf, []*labrpc.Service{rf.Service()}, nil
	}
}

// TestTwoGroupsOnSharedHosts places two Raft groups of five on the same
// five hosts, cuts off the host of group a's leader, and checks that a
// elects another leader while b, whose leader is elsewhere, keeps its
// leader and commits; the fault log names the host.
func TestTwoGroupsOnSharedHosts(t *testing.T) {
	simtest.Run(t, []int64{1, 2}, func(t *testing.T, seed int64) simtest.Result {
		w := simtest.NewWorld(t, seed)
		applied := map[string]int{}
		hosts := []int{0, 1, 2, 3, 4}
		c, err := New(w, Config{Hosts: 5, Groups: []Group{
			{Name: "a", Replicas: 5, Factory: rafts(applied), Hosts: hosts},
			{Name: "b", Replicas: 5, Factory: rafts(applied), Hosts: []int{4, 3, 2, 1, 0}},
		}})
		require.NoError(t, err)
		simtest.Explain(t, "fault log", func() string { return c.Log().String() })
		leaders := func() (int, int, bool) {
			la, okA := c.Leader(0)
			lb, okB := c.Leader(1)
			return la, lb, okA && okB
		}
		require.True(t, w.RunUntil(func() bool { _, _, ok := leaders(); return ok }, 5*time.Second), "both groups elect")
		// Wait until the two leaders are on different hosts.
		for {
			la, lb, ok := leaders()
			if ok && c.HostOf(0, la) != c.HostOf(1, lb) {
				break
			}
			require.NoError(t, c.Apply(fault.Fault{Kind: fault.Kill, Host: c.HostOf(0, la)}))
			c.Sleep(time.Second)
			require.NoError(t, c.Apply(fault.Fault{Kind: fault.Restart, Host: c.HostOf(0, la)}))
			c.Sleep(time.Second)
		}
		la, lb, _ := leaders()
		termB, _ := c.Replica(1, lb).GetState()
		h := c.HostOf(0, la)
		require.NoError(t, c.Apply(fault.Fault{Kind: fault.Isolate, Host: h}))
		c.Sleep(2 * time.Second)

		newA, ok := c.Leader(0)
		require.True(t, ok)
		assert.NotEqual(t, h, c.HostOf(0, newA), "group a elected a leader away from the isolated host")
		nowB, ok := c.Leader(1)
		require.True(t, ok)
		term, _ := c.Replica(1, nowB).GetState()
		assert.Equal(t, [2]int{lb, termB}, [2]int{nowB, term}, "group b kept its leader and term")
		_, _, isLeader := c.Replica(1, nowB).(*raft.Raft).Start(42)
		require.True(t, isLeader)
		c.Sleep(time.Second)
		committed := 0
		for i := range 5 {
			if applied[fmt.Sprintf("h%d/%d", c.HostOf(1, i), i)] > 0 {
				committed++
			}
		}
		assert.GreaterOrEqual(t, committed, 4, "group b commits with the isolated host cut off")
		last := c.Log()[len(c.Log())-1]
		assert.Equal(t, fmt.Sprintf("isolate h%d", h), last.Text, "the fault log names the host")
		return simtest.Result{World: w, Hosts: len(w.Hosts()), RPCs: c.Net().GetTotalCount(), Bytes: c.Net().GetTotalBytes()}
	})
}

func TestBadInput(t *testing.T) {
	w := sim.NewWorld(1)
	f := rafts(map[string]int{})
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "cluster: no groups"},
		{Config{Hosts: -1, Groups: []Group{{Name: "a", Replicas: 1, Factory: f}}}, "cluster: -1 shared hosts"},
		{Config{Groups: []Group{{Replicas: 1, Factory: f}}}, "cluster: a group has no name"},
		{Config{Groups: []Group{{Name: "a", Replicas: 0, Factory: f}}}, `cluster: group "a" has 0 replicas`},
		{Config{Groups: []Group{{Name: "a", Replicas: 1}}}, `cluster: group "a" has no factory`},
		{Config{Groups: []Group{{Name: "a", Replicas: 1, Factory: f}, {Name: "a", Replicas: 1, Factory: f}}}, `cluster: two groups are named "a"`},
		{Config{Hosts: 2, Groups: []Group{{Name: "a", Replicas: 3, Factory: f, Hosts: []int{0, 1}}}}, `cluster: group "a" places 3 replicas on 2 hosts`},
		{Config{Hosts: 2, Groups: []Group{{Name: "a", Replicas: 2, Factory: f, Hosts: []int{0, 2}}}}, `cluster: group "a" places replica 1 on host 2, not in 0..1`},
		{Config{Hosts: 2, Groups: []Group{{Name: "a", Replicas: 2, Factory: f, Hosts: []int{1, 1}}}}, `cluster: group "a" places two replicas on host 1`},
	} {
		_, err := New(w, tc.cfg)
		assert.EqualError(t, err, tc.want)
	}
	_, err := New(nil, Config{Groups: []Group{{Name: "a", Replicas: 1, Factory: f}}})
	assert.EqualError(t, err, "cluster: New: a nil world")
	none := func(Node) (Replica, []*labrpc.Service, error) { return nil, nil, nil }
	_, err = New(w, Config{Groups: []Group{{Name: "a", Replicas: 1, Factory: none}}})
	assert.EqualError(t, err, "cluster: starting a/0: the factory returned no replica and no error")
	nilService := func(n Node) (Replica, []*labrpc.Service, error) {
		r, svcs, err := f(n)
		return r, append(svcs, nil), err
	}
	_, err = New(w, Config{Groups: []Group{{Name: "a", Replicas: 1, Factory: nilService}}})
	assert.EqualError(t, err, "cluster: starting a/0: the factory's service 1 is nil")
	c, err := New(w, Config{Groups: []Group{{Name: "a", Replicas: 3, Factory: f}}})
	require.NoError(t, err)
	assert.PanicsWithValue(t, "cluster: Ends: a nil client host (make one with NewClient)", func() { c.Ends(nil, 0, nil) })
	assert.PanicsWithValue(t, "cluster: group 1 is not in 0..0", func() { c.Leader(1) })
	assert.PanicsWithValue(t, `cluster: group "a" has no replica 3 (it has 0..2)`, func() { c.Replica(0, 3) })
	cl := c.NewClient("c")
	assert.PanicsWithValue(t, `cluster: Connect: client c has no ends to group "a"`, func() { c.Connect(cl, 0, nil) })
	c.Ends(cl, 0, nil)
	assert.PanicsWithValue(t, `cluster: group "a" has no replica 9 (it has 0..2)`, func() { c.Connect(cl, 0, []int{9}) })

	// A replica that refuses its own persisted state when restarted.
	starts := 0
	refuses := func(n Node) (Replica, []*labrpc.Service, error) {
		if starts++; starts > 1 {
			return nil, nil, errors.New("the log's checksum does not match")
		}
		return f(n)
	}
	c, err = New(w, Config{Groups: []Group{{Name: "r", Replicas: 1, Factory: refuses}}})
	require.NoError(t, err)
	require.NoError(t, c.Apply(fault.Fault{Kind: fault.Kill, Host: 0}))
	assert.PanicsWithValue(t, `cluster: starting r/0: the log's checksum does not match, restarting host 0 from its persisted state`,
		func() { _ = c.Apply(fault.Fault{Kind: fault.Restart, Host: 0}) })
}

// TestRPCCount checks that a replica's count grows with the requests it
// receives, and starts again from 0 when it restarts.
func TestRPCCount(t *testing.T) {
	w := sim.NewWorld(1)
	c, err := New(w, Config{Groups: []Group{{Name: "a", Replicas: 3, Factory: rafts(map[string]int{})}}})
	require.NoError(t, err)
	for i := range 3 {
		assert.Zero(t, c.RPCCount(0, i))
	}
	require.True(t, w.RunUntil(func() bool { _, ok := c.Leader(0); return ok }, 5*time.Second))
	c.Sleep(time.Second)
	l, _ := c.Leader(0)
	f := (l + 1) % 3
	assert.Greater(t, c.RPCCount(0, f), 5, "a follower hears a heartbeat every 100 ms")
	require.NoError(t, c.Apply(fault.Fault{Kind: fault.Kill, Host: c.HostOf(0, f)}))
	require.NoError(t, c.Apply(fault.Fault{Kind: fault.Restart, Host: c.HostOf(0, f)}))
	assert.Zero(t, c.RPCCount(0, f))
	assert.PanicsWithValue(t, `cluster: group "a" has no replica 3 (it has 0..2)`, func() { c.RPCCount(0, 3) })
}

// TestSizes checks that Sizes reports the largest persisted state and
// snapshot of a group's replicas.
func TestSizes(t *testing.T) {
	c, err := New(sim.NewWorld(1), Config{Groups: []Group{{Name: "a", Replicas: 3, Factory: rafts(map[string]int{})}}})
	require.NoError(t, err)
	c.Persister(0, 1).Save(make([]byte, 7), make([]byte, 2))
	c.Persister(0, 2).Save(make([]byte, 3), make([]byte, 5))
	state, snapshot := c.Sizes(0)
	assert.Equal(t, [2]int{7, 5}, [2]int{state, snapshot})
}

// TestDial has a replica of one group call the replicas of another through
// ends its factory dialed, across a kill and restart of its host: the new
// incarnation dials afresh and is answered.
func TestDial(t *testing.T) {
	w := sim.NewWorld(1)
	dialed := map[int][]*labrpc.ClientEnd{}
	caller := func(n Node) (Replica, []*labrpc.Service, error) {
		dialed[n.Me] = n.Dial("b")
		return rafts(map[string]int{})(n)
	}
	c, err := New(w, Config{Groups: []Group{
		{Name: "a", Replicas: 1, Factory: caller},
		{Name: "b", Replicas: 3, Factory: rafts(map[string]int{})},
	}})
	require.NoError(t, err)
	require.Len(t, dialed[0], 3)
	require.NoError(t, c.Apply(fault.Fault{Kind: fault.Kill, Host: c.HostOf(0, 0)}))
	require.NoError(t, c.Apply(fault.Fault{Kind: fault.Restart, Host: c.HostOf(0, 0)}))
	answered := 0
	for _, end := range dialed[0] {
		var reply raft.RequestVoteReply
		end.Call("Raft.RequestVote", &raft.RequestVoteArgs{}, &reply, func(ok bool) {
			if ok {
				answered++
			}
		})
	}
	w.Run(time.Second)
	assert.Equal(t, 3, answered, "the restarted replica's dialed ends reach group b")
	assert.PanicsWithValue(t, `cluster: Dial: no group is named "c"`, func() { Node{c: c, Host: c.Hosts()[0]}.Dial("c") })
}

// TestRecover kills one host and cuts another off, then recovers: every
// host is alive and connected again, and the log shows the heal and the
// restart.
func TestRecover(t *testing.T) {
	c, err := New(sim.NewWorld(1), Config{Groups: []Group{{Name: "a", Replicas: 3, Factory: rafts(map[string]int{})}}})
	require.NoError(t, err)
	require.NoError(t, c.Apply(fault.Fault{Kind: fault.Kill, Host: 0}))
	require.NoError(t, c.Apply(fault.Fault{Kind: fault.Isolate, Host: 1}))
	require.NoError(t, c.Recover())
	assert.Equal(t, []bool{true, true, true}, c.Monkey().Alive())
	assert.True(t, c.Monkey().Connected(1, 2))
	n := len(c.Log())
	require.GreaterOrEqual(t, n, 4)
	assert.Equal(t, []fault.Kind{fault.Heal, fault.Restart}, []fault.Kind{c.Log()[n-2].Fault.Kind, c.Log()[n-1].Fault.Kind})
	assert.NotNil(t, c.Replica(0, 0), "the killed replica is back")
}

// TestClientFaults checks that a client's host is one the monkey knows:
// a fault names it by HostIndex and cuts it off from every server, and
// Recover lets it back.
func TestClientFaults(t *testing.T) {
	w := sim.NewWorld(1)
	c, err := New(w, Config{Groups: []Group{{Name: "a", Replicas: 3, Factory: rafts(map[string]int{})}}})
	require.NoError(t, err)
	cl, other := c.NewClient("clerk"), c.NewClient("other")
	assert.Equal(t, []int{1, 3, 4}, []int{c.HostIndex(c.Hosts()[1]), c.HostIndex(cl), c.HostIndex(other)})
	require.NoError(t, c.Apply(fault.Fault{Kind: fault.Isolate, Host: c.HostIndex(cl)}))
	for s := range 3 {
		assert.False(t, c.Monkey().Connected(3, s))
		assert.False(t, c.Monkey().Connected(s, 3))
		assert.True(t, c.Monkey().Connected(4, s), "the other client still reaches server %d", s)
	}
	assert.Equal(t, "isolate clerk", c.Log()[0].Text)
	require.NoError(t, c.Recover())
	assert.True(t, c.Monkey().Connected(3, 0))
	assert.PanicsWithValue(t, "cluster: HostIndex: stranger is neither a server's host nor a client's", func() { c.HostIndex(w.NewHost("stranger")) })
	assert.PanicsWithValue(t, "cluster: HostIndex: a nil host is neither a server's host nor a client's", func() { c.HostIndex(nil) })
}
