package cluster

import (
	"fmt"
	"slices"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// NewClient adds a host for a client. The monkey knows it as a client:
// faults between servers leave its links alone, and a fault that names it
// (by HostIndex) cuts it off from the servers, in the fault log. Connect
// chooses which replicas its ends reach, outside the log.
func (c *Cluster) NewClient(name string) *sim.Host {
	h := c.w.NewHost(name)
	i, err := c.monkey.AddClient(h)
	if err != nil {
		panic(fmt.Sprintf("cluster: NewClient(%q): %v", name, err)) // a fresh host of the monkey's world
	}
	c.clientIndex[h] = i
	return h
}

// HostIndex returns the index by which faults name host h, a server's
// host or a client's (NewClient). It panics if h is neither.
func (c *Cluster) HostIndex(h *sim.Host) int {
	if i := slices.Index(c.hosts, h); i >= 0 {
		return i
	}
	i, ok := c.clientIndex[h]
	if !ok {
		name := "a nil host"
		if h != nil {
			name = h.Name()
		}
		panic(fmt.Sprintf("cluster: HostIndex: %s is neither a server's host nor a client's", name))
	}
	return i
}

// Ends returns new ends from a client host to every replica of group g,
// connected to those in to (nil: all).
func (c *Cluster) Ends(client *sim.Host, g int, to []int) []*labrpc.ClientEnd {
	if client == nil {
		panic("cluster: Ends: a nil client host (make one with NewClient)")
	}
	gr := c.groups[c.checkGroup(g)]
	ends := make([]*labrpc.ClientEnd, len(gr.replicas))
	names := make([]string, len(gr.replicas))
	for j := range ends {
		ends[j], names[j] = c.makeEnd(client, g, j)
	}
	if c.client[client] == nil {
		c.client[client] = map[int][]string{}
	}
	c.client[client][g] = names
	if to != nil {
		c.Connect(client, g, to)
	}
	return ends
}

// Connect connects a client's ends to group g (made by Ends) to exactly
// the replicas in to.
func (c *Cluster) Connect(client *sim.Host, g int, to []int) {
	names, ok := c.client[client][c.checkGroup(g)]
	if !ok {
		panic(fmt.Sprintf("cluster: Connect: client %s has no ends to group %q", client.Name(), c.groups[g].Name))
	}
	on := make([]bool, len(names))
	for _, j := range to {
		on[c.checkReplica(g, j)] = true
	}
	for j, name := range names {
		c.net.Enable(name, on[j])
	}
}

// directoryName names the directory's host and server.
const directoryName = "directory"

// Directory returns a new end from host (a client's or a server's) to the
// cluster's directory, connected and enabled, or nil if the cluster has
// none (see Config.Directory).
func (c *Cluster) Directory(host *sim.Host) *labrpc.ClientEnd {
	if !c.dir {
		return nil
	}
	end, _ := c.endTo(host, directoryName)
	return end
}
