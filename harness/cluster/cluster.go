// Package cluster is the harness that tests, experiments and sweeps build
// replicated services with: any number of Raft groups and their clients on
// one world and one network, servers and ends named by group, replicas
// placed on hosts (several groups may share a host, as a coordinator and a
// shard replica share a container), kills and restarts from what each
// replica persisted, and every fault applied through one chaos.Monkey, so
// that one fault log records them all. No service imports it.
package cluster

import (
	"fmt"
	"time"

	"github.com/replab/replab/chaos"
	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// A Replica is one member of a group, as the harness sees it.
type Replica interface {
	// GetState returns the replica's term and whether it leads.
	GetState() (term int, isLeader bool)
	// Kill stops the replica.
	Kill()
}

// A Factory makes the replica a Node describes. It returns the replica and
// the services to register for it (its handlers, its Raft node).
type Factory func(n Node) (Replica, []*labrpc.Service, error)

// A Node is what a Factory gets to make one replica: replica Me of the
// group named Group on Host, restored from Persister, talking to its peers
// through Peers (Peers[Me] is unused), to other groups through Dial, and to
// the cluster's directory, if it has one, through Directory.
type Node struct {
	Host      *sim.Host
	Group     string
	Peers     []*labrpc.ClientEnd
	Me        int
	Persister *sim.Persister
	c         *Cluster
}

// Directory returns a new end from the node's host to the cluster's
// directory (see Config.Directory), or nil if it has none.
func (n Node) Directory() *labrpc.ClientEnd { return n.c.Directory(n.Host) }

// Dial returns new ends from the node's host to every replica of the group
// named group (a coordinator's ends to a shard group, say). They are made
// afresh for each incarnation, like Peers, so nothing sent by a killed
// incarnation is answered to the next. It panics if no group has the name.
func (n Node) Dial(group string) []*labrpc.ClientEnd {
	for g, gr := range n.c.groups {
		if gr.Name == group {
			ends := make([]*labrpc.ClientEnd, len(gr.replicas))
			for j := range ends {
				ends[j], _ = n.c.makeEnd(n.Host, g, j)
			}
			return ends
		}
	}
	panic(fmt.Sprintf("cluster: Dial: no group is named %q", group))
}

// A Group is a set of replicas that run one Raft.
type Group struct {
	Name     string // names the group's servers ("kv/0") and own hosts ("kv0")
	Replicas int
	Factory  Factory
	// Hosts places replica i on shared host Hosts[i] (see Config.Hosts);
	// nil gives each replica a host of its own.
	Hosts []int
}

// Config describes a cluster.
type Config struct {
	// Hosts is how many shared hosts (h0, h1, ...) groups may be placed
	// on; groups with no placement get hosts of their own after them.
	Hosts  int
	Groups []Group
	// Directory, if set, makes the service of a directory (an
	// rsm.Directory: paper 003's replica manager, where the groups' leaders
	// announce themselves and clients look them up), which the cluster runs
	// on a well-known host of its own named "directory". Like a client's
	// host it is outside the monkey's hosts: faults leave it and its links
	// alone, as the paper's experiments left its replica manager.
	Directory func() *labrpc.Service
}

// A Cluster is groups of replicas on one world and network.
type Cluster struct {
	w      *sim.World
	net    *labrpc.Network
	hosts  []*sim.Host // the servers' hosts, indexed as the monkey's
	groups []*group
	byHost [][]replicaRef // the replicas on each host
	monkey *chaos.Monkey
	ends   int                            // makes end names unique
	client map[*sim.Host]map[int][]string // a client host's end names, per group
	dir    bool                           // a directory runs on the host "directory"
	// clientIndex is the index of each client's host (NewClient) in faults.
	clientIndex map[*sim.Host]int
}

type group struct {
	Group
	hosts    []int // the host of each replica
	replicas []Replica
}

type replicaRef struct{ g, i int }

// New builds the cluster on w, with every replica started and every link
// up.
func New(w *sim.World, cfg Config) (*Cluster, error) {
	if w == nil {
		return nil, fmt.Errorf("cluster: New: a nil world")
	}
	if cfg.Hosts < 0 {
		return nil, fmt.Errorf("cluster: %d shared hosts", cfg.Hosts)
	}
	if len(cfg.Groups) == 0 {
		return nil, fmt.Errorf("cluster: no groups")
	}
	c := &Cluster{w: w, net: labrpc.MakeNetwork(w), client: map[*sim.Host]map[int][]string{}, clientIndex: map[*sim.Host]int{}}
	for i := range cfg.Hosts {
		c.addHost(fmt.Sprintf("h%d", i))
	}
	names := map[string]bool{}
	for gi, gc := range cfg.Groups {
		if err := gc.check(cfg.Hosts, names); err != nil {
			return nil, err
		}
		g := &group{Group: gc, hosts: make([]int, gc.Replicas), replicas: make([]Replica, gc.Replicas)}
		for i := range g.hosts {
			if gc.Hosts == nil {
				g.hosts[i] = c.addHost(fmt.Sprintf("%s%d", gc.Name, i))
			} else {
				g.hosts[i] = gc.Hosts[i]
			}
			c.byHost[g.hosts[i]] = append(c.byHost[g.hosts[i]], replicaRef{gi, i})
		}
		c.groups = append(c.groups, g)
	}
	m, err := chaos.New(c.net, c.hosts, chaos.Hooks{Kill: c.killHost, Restart: c.restartHost})
	if err != nil {
		return nil, err
	}
	c.monkey = m
	if cfg.Directory != nil {
		srv := labrpc.MakeServer(w.NewHost(directoryName))
		srv.AddService(cfg.Directory())
		c.net.AddServer(directoryName, srv)
		c.dir = true
	}
	for gi, g := range c.groups {
		for i := range g.replicas {
			if err := c.start(gi, i); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// check validates a group's description.
func (gc Group) check(shared int, names map[string]bool) error {
	switch {
	case gc.Name == "":
		return fmt.Errorf("cluster: a group has no name")
	case names[gc.Name]:
		return fmt.Errorf("cluster: two groups are named %q", gc.Name)
	case gc.Replicas < 1:
		return fmt.Errorf("cluster: group %q has %d replicas", gc.Name, gc.Replicas)
	case gc.Factory == nil:
		return fmt.Errorf("cluster: group %q has no factory", gc.Name)
	case gc.Hosts != nil && len(gc.Hosts) != gc.Replicas:
		return fmt.Errorf("cluster: group %q places %d replicas on %d hosts", gc.Name, gc.Replicas, len(gc.Hosts))
	}
	seen := map[int]bool{}
	for i, h := range gc.Hosts {
		if h < 0 || h >= shared {
			return fmt.Errorf("cluster: group %q places replica %d on host %d, not in 0..%d", gc.Name, i, h, shared-1)
		}
		if seen[h] {
			return fmt.Errorf("cluster: group %q places two replicas on host %d", gc.Name, h)
		}
		seen[h] = true
	}
	names[gc.Name] = true
	return nil
}

func (c *Cluster) addHost(name string) int {
	c.hosts = append(c.hosts, c.w.NewHost(name))
	c.byHost = append(c.byHost, nil)
	return len(c.hosts) - 1
}

// World returns the cluster's world.
func (c *Cluster) World() *sim.World { return c.w }

// Net returns the cluster's network.
func (c *Cluster) Net() *labrpc.Network { return c.net }

// Monkey returns the monkey every fault goes through; its log is the
// cluster's fault log. Host h of a fault is Hosts()[h].
func (c *Cluster) Monkey() *chaos.Monkey { return c.monkey }

// Apply applies a fault now (see chaos.Monkey.Apply).
func (c *Cluster) Apply(f fault.Fault) error { return c.monkey.Apply(f) }

// Recover ends every link fault and kill: it heals every link and
// restarts every dead host, through the monkey, so the log shows both. The
// network's modes (unreliable, reordering, ...) stay as they are.
func (c *Cluster) Recover() error {
	if err := c.monkey.Apply(fault.Fault{Kind: fault.Heal}); err != nil {
		return err
	}
	for h, alive := range c.monkey.Alive() {
		if !alive {
			if err := c.monkey.Apply(fault.Fault{Kind: fault.Restart, Host: h}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Log returns the fault log.
func (c *Cluster) Log() fault.Log { return c.monkey.Log() }

// Hosts returns the servers' hosts, indexed as faults name them.
func (c *Cluster) Hosts() []*sim.Host { return c.hosts }

// Groups returns how many groups the cluster has.
func (c *Cluster) Groups() int { return len(c.groups) }

// Replicas returns how many replicas group g has.
func (c *Cluster) Replicas(g int) int { return len(c.groups[g].replicas) }

// All returns the indices of group g's replicas.
func (c *Cluster) All(g int) []int {
	all := make([]int, c.Replicas(g))
	for i := range all {
		all[i] = i
	}
	return all
}

// Replica returns replica i of group g, or nil while its host is dead.
func (c *Cluster) Replica(g, i int) Replica {
	return c.groups[c.checkGroup(g)].replicas[c.checkReplica(g, i)]
}

// HostOf returns the index of the host replica i of group g is on.
func (c *Cluster) HostOf(g, i int) int { return c.groups[c.checkGroup(g)].hosts[c.checkReplica(g, i)] }

// Persister returns the storage of replica i of group g.
func (c *Cluster) Persister(g, i int) *sim.Persister {
	return c.hosts[c.HostOf(g, i)].PersisterNamed(c.serverName(g, i))
}

// Sizes returns the largest persisted Raft state and the largest snapshot
// of group g's replicas, in bytes.
func (c *Cluster) Sizes(g int) (state, snapshot int) {
	for i := range c.Replicas(c.checkGroup(g)) {
		ps := c.Persister(g, i)
		state, snapshot = max(state, ps.RaftStateSize()), max(snapshot, ps.SnapshotSize())
	}
	return state, snapshot
}

// RPCCount returns how many requests the running incarnation of replica i
// of group g has received (a restart starts from 0).
func (c *Cluster) RPCCount(g, i int) int {
	return c.net.GetCount(c.serverName(c.checkGroup(g), c.checkReplica(g, i)))
}

// Leader returns a live replica of group g that thinks it leads, if any.
func (c *Cluster) Leader(g int) (int, bool) {
	for i, r := range c.groups[c.checkGroup(g)].replicas {
		if r != nil {
			if _, isLeader := r.GetState(); isLeader {
				return i, true
			}
		}
	}
	return 0, false
}

// serverName names replica i of group g on the network.
func (c *Cluster) serverName(g, i int) string { return fmt.Sprintf("%s/%d", c.groups[g].Name, i) }

// start starts (or restarts) replica i of group g on its host, with fresh
// ends to its peers, so that nothing its last incarnation sent is answered
// to it.
func (c *Cluster) start(g, i int) error {
	gr := c.groups[g]
	host := c.hosts[gr.hosts[i]]
	peers := make([]*labrpc.ClientEnd, len(gr.replicas))
	for j := range peers {
		peers[j], _ = c.makeEnd(host, g, j)
	}
	name := c.serverName(g, i)
	r, services, err := gr.Factory(Node{Host: host, Group: gr.Name, Peers: peers, Me: i, Persister: host.PersisterNamed(name), c: c})
	if err != nil {
		return fmt.Errorf("cluster: starting %s: %w", name, err)
	}
	if r == nil {
		return fmt.Errorf("cluster: starting %s: the factory returned no replica and no error", name)
	}
	srv := labrpc.MakeServer(host)
	for k, s := range services {
		if s == nil {
			return fmt.Errorf("cluster: starting %s: the factory's service %d is nil", name, k)
		}
		srv.AddService(s)
	}
	c.net.AddServer(name, srv)
	gr.replicas[i] = r
	return nil
}

// makeEnd returns a new end from host to replica j of group g, connected
// and enabled, and its name.
func (c *Cluster) makeEnd(host *sim.Host, g, j int) (*labrpc.ClientEnd, string) {
	return c.endTo(host, c.serverName(g, j))
}

// endTo returns a new end from host to the server named server, connected
// and enabled, and its name.
func (c *Cluster) endTo(host *sim.Host, server string) (*labrpc.ClientEnd, string) {
	c.ends++
	name := fmt.Sprintf("%s->%s#%d", host.Name(), server, c.ends)
	end := c.net.MakeEnd(name, host)
	c.net.Connect(name, server)
	c.net.Enable(name, true)
	return end, name
}

// killHost stops every replica on host h, then the host (the monkey's
// kill hook).
func (c *Cluster) killHost(h int) {
	for _, r := range c.byHost[h] {
		gr := c.groups[r.g]
		if gr.replicas[r.i] != nil {
			gr.replicas[r.i].Kill()
			gr.replicas[r.i] = nil
			c.net.DeleteServer(c.serverName(r.g, r.i))
		}
	}
	c.hosts[h].Kill()
}

// restartHost brings host h back and starts its replicas from what they
// persisted (the monkey's restart hook).
func (c *Cluster) restartHost(h int) {
	c.hosts[h].Restart()
	for _, r := range c.byHost[h] {
		if err := c.start(r.g, r.i); err != nil {
			// It started before from the same factory: what changed is its
			// persisted state, which the replica itself wrote. The restart
			// hook has no caller to return this to; a sweep reports the
			// seed as failing with this message.
			panic(fmt.Sprintf("%v, restarting host %d from its persisted state", err, h))
		}
	}
}

func (c *Cluster) checkGroup(g int) int {
	if g < 0 || g >= len(c.groups) {
		panic(fmt.Sprintf("cluster: group %d is not in 0..%d", g, len(c.groups)-1))
	}
	return g
}

func (c *Cluster) checkReplica(g, i int) int {
	if n := len(c.groups[g].replicas); i < 0 || i >= n {
		panic(fmt.Sprintf("cluster: group %q has no replica %d (it has 0..%d)", c.groups[g].Name, i, n-1))
	}
	return i
}

// Sleep lets d of virtual time pass.
func (c *Cluster) Sleep(d time.Duration) { c.w.Run(d) }
