package kvraft

import (
	"fmt"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// A Cluster is a whole key/value service on a simulated world: n servers
// on hosts of their own, connected all to all, and clerks on hosts of
// their own. The tests, the experiments and the sweeps build on it.
type Cluster struct {
	w            *sim.World
	net          *labrpc.Network
	opts         Options
	maxraftstate int
	hosts        []*sim.Host
	servers      []*KVServer
	endnames     [][]string // endnames[i][j]: server i's end to server j
	groups       []int      // the partition each server is in
	clerkEnds    map[*Clerk][]string
	ends         int // makes end names unique

	// OnFault, if set, hears of every kill, restart and partition.
	OnFault func(description string)
}

// NewCluster starts n servers on w, all connected. maxraftstate and opts
// are as for StartKVServer.
func NewCluster(w *sim.World, n, maxraftstate int, opts Options) (*Cluster, error) {
	hosts, err := w.NewHosts(n, "kv")
	if err != nil {
		return nil, err
	}
	c := &Cluster{
		w: w, net: labrpc.MakeNetwork(w), opts: opts, maxraftstate: maxraftstate, hosts: hosts,
		servers: make([]*KVServer, n), endnames: make([][]string, n), groups: make([]int, n),
		clerkEnds: map[*Clerk][]string{},
	}
	for i := range n {
		if err := c.Start(i); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// World returns the cluster's world.
func (c *Cluster) World() *sim.World { return c.w }

// Net returns the cluster's network.
func (c *Cluster) Net() *labrpc.Network { return c.net }

// Hosts returns the servers' hosts, by server index.
func (c *Cluster) Hosts() []*sim.Host { return c.hosts }

// N returns the number of servers.
func (c *Cluster) N() int { return len(c.hosts) }

// Server returns server i, or nil if it is down.
func (c *Cluster) Server(i int) *KVServer { return c.servers[i] }

// All returns every server index.
func (c *Cluster) All() []int {
	all := make([]int, c.N())
	for i := range all {
		all[i] = i
	}
	return all
}

func (c *Cluster) fault(format string, args ...any) {
	if c.OnFault != nil {
		c.OnFault(fmt.Sprintf(format, args...))
	}
}

// Start starts or restarts server i from what its host persisted, with
// fresh ends to the other servers, connected as its partition allows.
func (c *Cluster) Start(i int) error {
	if i < 0 || i >= c.N() {
		return fmt.Errorf("kvraft: Start: server %d is not in 0..%d", i, c.N()-1)
	}
	if c.servers[i] != nil {
		c.Shutdown(i)
	}
	if c.hosts[i].Restart() {
		c.fault("restart server %d", i)
	}
	c.endnames[i] = make([]string, c.N())
	ends := make([]*labrpc.ClientEnd, c.N())
	for j := range ends {
		c.ends++
		c.endnames[i][j] = fmt.Sprintf("end%d:%d->%d", c.ends, i, j)
		ends[j] = c.net.MakeEnd(c.endnames[i][j], c.hosts[i])
		c.net.Connect(c.endnames[i][j], j)
	}
	kv, err := StartKVServer(c.hosts[i], ends, i, c.hosts[i].Persister(), c.maxraftstate, c.opts)
	if err != nil {
		return err
	}
	c.servers[i] = kv
	srv := labrpc.MakeServer(c.hosts[i])
	srv.AddService(labrpc.MakeService(kv))
	srv.AddService(labrpc.MakeService(kv.Raft()))
	c.net.AddServer(i, srv)
	c.connectServer(i)
	return nil
}

// Shutdown kills server i: only what it persisted survives.
func (c *Cluster) Shutdown(i int) {
	c.checkServer("Shutdown", i)
	if c.servers[i] == nil {
		return
	}
	c.fault("kill server %d", i)
	c.net.DeleteServer(i)
	c.servers[i].Kill()
	c.servers[i] = nil
	c.hosts[i].Kill()
}

// Partition puts the servers in groups; servers in different groups (or
// in none) cannot talk to each other. Clerks keep their connections. It
// panics, naming the server, if a server is unknown or in two groups.
func (c *Cluster) Partition(groups ...[]int) {
	seen := make([]bool, c.N())
	for _, servers := range groups {
		for _, i := range servers {
			c.checkServer("Partition", i)
			if seen[i] {
				panic(fmt.Sprintf("kvraft: Partition(%v): server %d is in two groups", groups, i))
			}
			seen[i] = true
		}
	}
	for i := range c.groups {
		c.groups[i] = -1 - i
	}
	for g, servers := range groups {
		for _, i := range servers {
			c.groups[i] = g
		}
	}
	if len(groups) == 1 && len(groups[0]) == c.N() {
		c.fault("heal")
	} else {
		c.fault("partition %v", groups)
	}
	for i := range c.groups {
		c.connectServer(i)
	}
}

// checkServer panics, naming the call, if i is not a server of c.
func (c *Cluster) checkServer(call string, i int) {
	if i < 0 || i >= c.N() {
		panic(fmt.Sprintf("kvraft: %s: server %d is not in 0..%d", call, i, c.N()-1))
	}
}

// ConnectAll heals every partition.
func (c *Cluster) ConnectAll() { c.Partition(c.All()) }

func (c *Cluster) connectServer(i int) {
	if c.endnames[i] == nil {
		return
	}
	for j, name := range c.endnames[i] {
		c.net.Enable(name, c.groups[i] == c.groups[j])
	}
}

// Leader returns a live server that thinks it leads, if there is one.
func (c *Cluster) Leader() (int, bool) {
	for i, kv := range c.servers {
		if kv != nil {
			if _, isLeader := kv.Raft().GetState(); isLeader {
				return i, true
			}
		}
	}
	return 0, false
}

// MakeClerk returns a clerk on a host of its own, connected to the servers
// in to.
func (c *Cluster) MakeClerk(to []int) *Clerk {
	for _, j := range to {
		c.checkServer("MakeClerk", j)
	}
	host := c.w.NewHost(fmt.Sprintf("clerk%d", len(c.clerkEnds)))
	ends := make([]*labrpc.ClientEnd, c.N())
	names := make([]string, c.N())
	for j := range ends {
		c.ends++
		names[j] = fmt.Sprintf("%s-end%d->%d", host.Name(), c.ends, j)
		ends[j] = c.net.MakeEnd(names[j], host)
		c.net.Connect(names[j], j)
	}
	ck := MakeClerk(host, ends)
	c.clerkEnds[ck] = names
	c.ConnectClerk(ck, to)
	return ck
}

// ConnectClerk connects a clerk made by MakeClerk to exactly the servers
// in to.
func (c *Cluster) ConnectClerk(ck *Clerk, to []int) {
	on := make([]bool, c.N())
	for _, j := range to {
		c.checkServer("ConnectClerk", j)
		on[j] = true
	}
	for j, name := range c.clerkEnds[ck] {
		c.net.Enable(name, on[j])
	}
}

// Monkey returns a ChaosMonkey on the servers' hosts whose kills and
// restarts go through Shutdown and Start.
func (c *Cluster) Monkey() (*chaos.Monkey, error) {
	return chaos.New(c.net, c.hosts, chaos.Hooks{Kill: c.Shutdown, Restart: func(i int) {
		if err := c.Start(i); err != nil {
			panic(err) // it started before from the same persisted state: a bug
		}
	}})
}

// LogSize returns the largest persisted Raft state of any server.
func (c *Cluster) LogSize() int {
	size := 0
	for _, h := range c.hosts {
		size = max(size, h.Persister().RaftStateSize())
	}
	return size
}

// SnapshotSize returns the largest persisted snapshot of any server.
func (c *Cluster) SnapshotSize() int {
	size := 0
	for _, h := range c.hosts {
		size = max(size, h.Persister().SnapshotSize())
	}
	return size
}
