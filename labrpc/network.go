package labrpc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/replab/replab/sim"
)

// A Network is a simulated RPC network on a world, in the shape of the
// 6.5840 labrpc: client ends connect to named servers, and every fault
// (loss, delay, reordering, partitions) is drawn from the world's stream
// "net" (sim.World.Stream), so a run replays exactly from its seed.
type Network struct {
	w        *sim.World
	rng      *rand.Rand // the world's stream "net"
	p        Params
	codec    *codec
	ends     map[any]*ClientEnd
	nends    int
	nservers int
	servers  map[any]*Server
	hostOf   map[any]*sim.Host // the host of the server last added under each name, kept once it is deleted (see ClientEnd.ServerHost)
	gen      uint64            // bumped whenever a server name may map to another server

	reliable       bool
	longDelays     bool
	longReordering bool

	cut    map[[2]int]bool       // one-way links that are down, by host ID
	busy   map[int]time.Duration // when each host's uplink is next free
	cpu    map[int]time.Duration // when each host's CPU is next free
	hooked map[int]bool          // hosts whose deaths the network watches

	delayRule DelayRule
	watchers  []*watcher // see Watch
	diskFree  []string   // see SetDiskExempt

	count      int
	bytes      int64
	replyBytes int64
}

// MakeNetwork returns a reliable network on w with DefaultParams.
func MakeNetwork(w *sim.World) *Network {
	return &Network{
		w:        w,
		rng:      w.Stream("net"),
		p:        DefaultParams(),
		codec:    newCodec(),
		ends:     make(map[any]*ClientEnd),
		servers:  make(map[any]*Server),
		hostOf:   make(map[any]*sim.Host),
		reliable: true,
		gen:      1,
		cut:      make(map[[2]int]bool),
		busy:     make(map[int]time.Duration),
		cpu:      make(map[int]time.Duration),
		hooked:   make(map[int]bool),
	}
}

// World returns the world the network runs in.
func (n *Network) World() *sim.World { return n.w }

// SetParams replaces the fault and performance model, after checking it.
func (n *Network) SetParams(p Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	n.p = p
	return nil
}

// Params returns the fault and performance model in force.
func (n *Network) Params() Params { return n.p }

// Reliable turns request and reply loss and the short random request delay
// off (true) or on (false). With a chaos.Monkey on the network, switch it
// through the monkey instead (fault.Unreliable), so that the fault log,
// history drawings and replays show it; a call here is in none of them.
func (n *Network) Reliable(yes bool) {
	n.reliable = yes
	n.w.Fold(sim.TagMode, 1, b2u(yes))
}

// IsReliable reports whether the network is reliable (see Reliable).
func (n *Network) IsReliable() bool { return n.reliable }

// LongReordering holds back most replies for a long random time when on.
// With a chaos.Monkey on the network, switch it through the monkey instead
// (fault.Reordering), so that the fault log shows it.
func (n *Network) LongReordering(yes bool) {
	n.longReordering = yes
	n.w.Fold(sim.TagMode, 2, b2u(yes))
}

// IsLongReordering reports whether long reordering is on.
func (n *Network) IsLongReordering() bool { return n.longReordering }

// LongDelays makes calls that get no reply (disabled end, missing server,
// cut link) take up to LongNoReply instead of NoReply to fail. With a
// chaos.Monkey on the network, switch it through the monkey instead
// (fault.LongDelays), so that the fault log shows it.
func (n *Network) LongDelays(yes bool) {
	n.longDelays = yes
	n.w.Fold(sim.TagMode, 3, b2u(yes))
}

// IsLongDelays reports whether long delays are on.
func (n *Network) IsLongDelays() bool { return n.longDelays }

// MakeEnd returns a new client end named endname on host (nil for a client
// outside every host, such as a test driver). Replies to calls from the end
// are delivered only to the incarnation of the host that made the call.
func (n *Network) MakeEnd(endname any, host *sim.Host) *ClientEnd {
	if _, ok := n.ends[endname]; ok {
		panic(fmt.Sprintf("labrpc: MakeEnd: an end named %v already exists", endname))
	}
	e := &ClientEnd{net: n, name: endname, id: n.nends, host: host, methWord: sim.StringWord("")}
	n.nends++
	n.ends[endname] = e
	return e
}

// AddServer makes rs reachable under servername, replacing any server that
// had the name.
func (n *Network) AddServer(servername any, rs *Server) {
	if old := n.servers[servername]; old != nil && old != rs {
		n.dropServer(old)
	}
	n.servers[servername] = rs
	n.hostOf[servername] = rs.host
	n.gen++
	n.nservers++
	rs.order = n.nservers
	if h := rs.host; h != nil && !n.hooked[h.ID()] {
		n.hooked[h.ID()] = true
		h.OnKill(func() { n.hostDied(h) })
	}
}

// DeleteServer removes the server named servername. Calls it has not yet
// answered fail, and any answer it still gives is lost.
func (n *Network) DeleteServer(servername any) {
	if rs := n.servers[servername]; rs != nil {
		delete(n.servers, servername)
		n.gen++
		n.dropServer(rs)
	}
}

// Connect points the end endname at the server servername (which need not
// exist yet).
func (n *Network) Connect(endname, servername any) {
	e := n.end(endname)
	e.server, e.connected = servername, true
	n.gen++
}

// Enable enables or disables the end endname. Calls from a disabled end fail.
func (n *Network) Enable(endname any, enabled bool) {
	e := n.end(endname)
	e.enabled = enabled
	n.w.Fold(sim.TagEnable, uint64(e.id), b2u(enabled))
}

func (n *Network) end(endname any) *ClientEnd {
	e, ok := n.ends[endname]
	if !ok {
		panic(fmt.Sprintf("labrpc: no end named %v", endname))
	}
	return e
}

// SetLink takes the one-way link from one host to another up or down. A
// message from a host to another crosses only if the link is up when it is
// sent and when it arrives. Ends and servers outside every host (nil) are
// always connected. Links between a chaos.Monkey's hosts are the monkey's
// to change: it logs what it does, and knows nothing of a change made
// here.
func (n *Network) SetLink(from, to *sim.Host, up bool) {
	k := [2]int{from.ID(), to.ID()}
	if up {
		delete(n.cut, k)
	} else {
		n.cut[k] = true
	}
	n.w.Fold(sim.TagLink, uint64(from.ID()), uint64(to.ID()), b2u(up))
}

// LinkUp reports whether the one-way link from one host to another is up.
func (n *Network) LinkUp(from, to *sim.Host) bool {
	if len(n.cut) == 0 || from == nil || to == nil {
		return true
	}
	return !n.cut[[2]int{from.ID(), to.ID()}]
}

// HealLinks brings every link back up.
func (n *Network) HealLinks() {
	clear(n.cut)
	n.w.Fold(sim.TagLink, 0, 0, 2)
}

// GetCount returns the number of requests delivered to the server named
// servername, or 0 if there is none.
func (n *Network) GetCount(servername any) int {
	if rs := n.servers[servername]; rs != nil {
		return rs.count
	}
	return 0
}

// GetTotalCount returns the number of calls made on the network.
func (n *Network) GetTotalCount() int { return n.count }

// GetTotalBytes returns the bytes of all request arguments sent, as the
// lab's labrpc counts them.
func (n *Network) GetTotalBytes() int64 { return n.bytes }

// GetTotalReplyBytes returns the bytes of all replies sent.
func (n *Network) GetTotalReplyBytes() int64 { return n.replyBytes }

// SetDiskExempt lets the messages of methods beginning with one of
// prefixes (a service's reads, say, which answer from state a quorum has
// already written) leave without waiting for their sender's disk
// (sim.Host.SetDiskLatency); every other message of a host waits for the
// saves the host made before it. None are exempt by default.
func (n *Network) SetDiskExempt(prefixes ...string) { n.diskFree = prefixes }

// waitsForDisk reports whether a message of svcMeth waits for its
// sender's disk (SetDiskExempt).
func (n *Network) waitsForDisk(svcMeth string) bool {
	return !slices.ContainsFunc(n.diskFree, func(p string) bool { return strings.HasPrefix(svcMeth, p) })
}

// transit returns how long a message of svcMeth of size bytes sent now
// from host takes to arrive: latency, jitter, the wait for the host's
// disk, and its turn on the host's uplink.
func (n *Network) transit(from *sim.Host, svcMeth string, size int) time.Duration {
	d := n.p.Latency
	if n.p.Jitter > 0 {
		d += sim.Duration(n.rng, 0, n.p.Jitter)
	}
	if from == nil {
		return d
	}
	// A message leaves once its host's disk has written what the host
	// saved before sending it (sim.Host.SetDiskLatency).
	now := n.w.Now()
	start := now
	if free := from.DiskFree(); free > now && n.waitsForDisk(svcMeth) {
		start = free
	}
	if n.p.Bandwidth > 0 {
		start = max(start, n.busy[from.ID()])
		done := start + time.Duration(int64(size)*int64(time.Second)/n.p.Bandwidth)
		n.busy[from.ID()] = done
		return d + done - now
	}
	return d + start - now
}

// processing returns how long from now until host has processed one more
// message, with messages queueing for its CPU (see Params.ServiceTime).
func (n *Network) processing(h *sim.Host) time.Duration {
	if n.p.ServiceTime == 0 || h == nil {
		return 0
	}
	now := n.w.Now()
	done := max(now, n.cpu[h.ID()]) + n.p.ServiceTime
	n.cpu[h.ID()] = done
	return done - now
}

// noReplyDelay is how long a call that reaches no server takes to fail.
func (n *Network) noReplyDelay() time.Duration {
	if n.longDelays {
		return sim.Duration(n.rng, 0, n.p.LongNoReply)
	}
	return sim.Duration(n.rng, 0, n.p.NoReply)
}

// serverOf returns the server e is connected to, or nil.
func (n *Network) serverOf(e *ClientEnd) *Server {
	if e.gen != n.gen {
		e.srv = nil
		if e.connected {
			e.srv = n.servers[e.server]
		}
		e.gen = n.gen
	}
	return e.srv
}

// route returns the server a request from e reaches now, or nil.
func (n *Network) route(e *ClientEnd) *Server {
	if !e.enabled {
		return nil
	}
	rs := n.serverOf(e)
	if rs == nil || (rs.host != nil && !rs.host.Alive()) || !n.LinkUp(e.host, rs.host) {
		return nil
	}
	return rs
}

// dropServer fails every call rs still owes an answer.
func (n *Network) dropServer(rs *Server) {
	for _, c := range rs.drainWaiting() {
		c.failAfter(n.noReplyDelay())
	}
}

// hostDied fails the calls waiting on the dead host's servers.
func (n *Network) hostDied(h *sim.Host) {
	var dead []*Server
	for _, rs := range n.servers {
		if rs.host == h {
			dead = append(dead, rs)
		}
	}
	slices.SortFunc(dead, func(a, b *Server) int { return a.order - b.order })
	for _, rs := range dead {
		n.dropServer(rs)
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
