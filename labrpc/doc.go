// Package labrpc is a simulated RPC network that runs inside a sim.World.
// Its shape follows the RPC package of MIT's 6.5840 labs, so lab code ports
// to it with few changes, but it runs on virtual time, on one goroutine, and
// replays exactly from the world's seed.
//
// # Ends, servers and services
//
// A Network connects client ends to servers by name. A ClientEnd is one
// client's line to one server name: MakeEnd creates it on the client's host,
// Connect points it at a server name and Enable turns it on. A Server is a
// set of services on one host, reachable under a name once given to
// AddServer. A Service is an object whose RPC-shaped methods (see Service)
// can be called as "Type.Method"; MakeService finds them by reflection.
// Names of ends and servers may be any comparable values.
//
// # Calls
//
// ClientEnd.Call never blocks: it sends the request and returns, and the
// world later calls the done callback exactly once, with true when the reply
// has been written into the caller's reply value, or with false when the
// call failed. A call fails if the end is disabled or not connected, the
// server is missing or dead, a link on the way is down, the request or the
// reply is lost, the handler's server is deleted before it answers, or
// Params.CallTimeout passes first. A failed call may still have run on the
// server. The callback of a host that has died since it made the call never
// runs. A handler answers when it returns, or, if it takes a *Deferred, when
// it calls Deferred.Reply, which may be many events later.
//
// # What is copied
//
// Nothing is shared between caller and handler. Call deep-copies the args
// before it returns, and the reply is deep-copied when the handler answers,
// so a caller may reuse its args at once and a handler may keep what it was
// given. Only exported fields cross, as with encoding/gob; a type with an
// unexported field, a func, a chan or an unsafe pointer anywhere in it is
// rejected with a *TypeError, and so is a value that contains itself.
// Strings, and values in interfaces whose types hold no pointers, slices or
// maps (or only interfaces holding such values in turn), are shared rather
// than copied: nothing can change them in place. Every copy is measured in
// bytes as an encoder would send it (varints, length prefixes), for the
// counts, bandwidth and the trace. The copy is planned once per type, by
// reflection, and then walks the value's memory directly.
//
// # Faults
//
// Every fault is decided when the world gets to it, with the world's random
// number generator, and folded into the world's trace hash: a run replays
// exactly from its seed. Params holds the model: latency, jitter and
// bandwidth; on an unreliable network (Reliable(false)) loss of requests and
// replies and a short random delay of requests; long reordering of replies;
// the time a call that reaches no server takes to fail; duplicate delivery;
// call timeouts; and the CPU time each message costs its host. A DelayRule
// adds delay to chosen messages. SetLink cuts and heals one-way links
// between hosts, for partitions. Killing a host
// (sim.Host.Kill) fails the calls its servers still owe.
//
// The setters of these faults (Reliable, LongReordering, LongDelays,
// SetDelayRule, SetLink, and Params.Duplicate) are the network's own, for a
// network used alone. Where a chaos.Monkey works on the network, switch
// them through it (fault.Unreliable, fault.Reordering, fault.LongDelays,
// fault.DelayRule, fault.Duplicate, and the link faults): the monkey puts
// every fault it applies in its fault log, which failing tests print,
// history drawings overlay and replays explain. A fault set here directly
// is in none of them.
package labrpc
