package labrpc

import (
	"fmt"
	"math"
	"reflect"
	"time"
	"unsafe"

	"github.com/replab/replab/sim"
)

// A ClientEnd is one client's connection to one server name. Calls on it are
// asynchronous: Call returns at once and the world later runs the callback.
type ClientEnd struct {
	net       *Network
	name      any
	id        int
	host      *sim.Host
	enabled   bool
	connected bool
	server    any
	srv       *Server // the server named server, as of network generation gen
	gen       uint64
	frame     *frame // the frame type of the last call
	meth      string // the method of the last call ("" at first)
	methWord  uint64 // and its sim.StringWord
}

// Call sends a request for svcMeth ("Service.Method") with a copy of args,
// and later calls done: with true once the reply has been copied into reply
// (a non-nil pointer), or with false if the request or the reply was lost,
// the end is disabled, the server is missing or dead, or a link on the way
// is down. done runs only if the calling host is still the incarnation that
// made the call. Unless the handler never answers, done always runs (with a
// CallTimeout, even then).
//
// Call panics, naming the bad value, if args or reply cannot be sent, args
// is nil, reply is not a non-nil pointer, done is nil, or the server the end
// is connected to has no such method or takes other types for it.
func (e *ClientEnd) Call(svcMeth string, args, reply any, done func(ok bool)) {
	n := e.net
	av, rv := checkCall(svcMeth, args, reply, done)
	f := e.frame
	if f == nil || f.at != av.Type() || f.rt != rv.Type() {
		f = n.codec.frameFor(av.Type(), rv.Type())
		e.frame = f
	}
	to := n.serverOf(e)
	if to != nil {
		to.lookup(svcMeth).check(av.Type(), rv.Type())
	}

	c := f.newCall()
	size := n.codec.copyInto(f.args, c.args, av, f.argsPtr)
	n.count++
	n.bytes += int64(size)
	c.id, c.end, c.svcMeth, c.reply, c.done = uint64(n.count), e, svcMeth, rv.UnsafePointer(), done
	if e.host != nil {
		c.callerInc = e.host.Incarnation()
	}
	if svcMeth != e.meth {
		e.meth, e.methWord = svcMeth, sim.StringWord(svcMeth)
	}
	n.w.Fold(sim.TagCall, uint64(e.id), uint64(size), e.methWord)
	if n.w.Tracing() {
		n.w.Tracef("call #%d %v→%v %s %dB", c.id, e.name, e.server, svcMeth, size)
	}
	if n.w.Recording() {
		c.size = uint32(min(size, math.MaxUint32))
		c.record(sim.KindSend, e.host, to.hostOf(), size, svcMeth)
	}
	if n.p.CallTimeout > 0 {
		c.failAfter(n.p.CallTimeout)
	}

	rs := n.route(e)
	if rs == nil {
		c.lost("no route", n.noReplyDelay())
		return
	}
	c.srv = rs
	if rs.host != nil {
		c.srvInc = rs.host.Incarnation()
	}
	var delay time.Duration
	if !n.reliable {
		delay = sim.Duration(n.rng, 0, n.p.ShortDelay)
		if n.rng.Float64() < n.p.RequestLoss {
			c.lost("request dropped", delay)
			return
		}
	}
	delay += n.transit(e.host, svcMeth, size) + n.extraDelay(c, false)
	n.w.Schedule(delay, (*deliverAct)(c))
	if n.p.Duplicate > 0 && n.rng.Float64() < n.p.Duplicate {
		// The second delivery gets args of its own, as sent: the first
		// handler may keep or change its copy.
		c.dupArgs = reflect.New(f.args.t).UnsafePointer()
		n.codec.copyInto(f.args, c.dupArgs, av, f.argsPtr)
		n.w.Schedule(delay+n.transit(e.host, svcMeth, size), (*deliverAct)(c))
	}
}

// checkCall panics unless Call's arguments are usable, and returns args and
// reply as reflect.Values.
func checkCall(svcMeth string, args, reply any, done func(bool)) (reflect.Value, reflect.Value) {
	rv := reflect.ValueOf(reply)
	if !rv.IsValid() || rv.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("labrpc: Call(%q): reply must be a non-nil pointer, got %T", svcMeth, reply))
	}
	if rv.IsNil() {
		panic(fmt.Sprintf("labrpc: Call(%q): reply must be a non-nil pointer, got a nil %T", svcMeth, reply))
	}
	av := reflect.ValueOf(args)
	if !av.IsValid() {
		panic(fmt.Sprintf("labrpc: Call(%q): args must not be nil", svcMeth))
	}
	if av.Kind() == reflect.Pointer && av.IsNil() {
		panic(fmt.Sprintf("labrpc: Call(%q): args is a nil %T", svcMeth, args))
	}
	if done == nil {
		panic(fmt.Sprintf("labrpc: Call(%q): done must not be nil", svcMeth))
	}
	return av, rv
}

// A call is one request in flight and what is needed to answer it. It
// lives in a frame (see frame), with its args and its first answer.
type call struct {
	id      uint64
	end     *ClientEnd // the caller's end: its network and host
	svcMeth string
	frame   *frame
	args    unsafe.Pointer // the copy of the args, in the frame
	dupArgs unsafe.Pointer // another, for a duplicate delivery
	reply   unsafe.Pointer // the caller's reply pointer
	done    func(bool)

	callerInc uint64 // the caller's incarnation when it called
	srv       *Server
	srvInc    uint64
	handled   bool // the handler has run (a duplicate may run it again)
	finished  bool // the caller has its answer
	delivered bool // the request has reached its server (a duplicate may reach it again)
	// size is the request's size, kept only while recording (for its
	// delivery's event), in what the bools leave of a word: a call costs
	// nothing more when nothing records.
	size  uint32
	first Deferred // the first handling's answer
}

// deliverAct fires when a request reaches the server's host.
type deliverAct call

// Fire delivers the request.
func (a *deliverAct) Fire() { (*call)(a).deliver() }

// failAct fires when the caller learns that a call failed.
type failAct call

// Fire tells the caller the call failed.
func (a *failAct) Fire() { (*call)(a).finish(nil, false) }

// replyAct fires when an answer reaches the caller, and again when the
// caller's CPU has processed it (see Params.ServiceTime).
type replyAct Deferred

// Fire delivers the reply, once the caller's CPU is free.
func (a *replyAct) Fire() {
	c := a.c
	if !a.processed {
		if !c.end.net.LinkUp(c.srv.host, c.end.host) {
			c.finish(nil, false)
			return
		}
		if d := c.end.net.processing(c.end.host); d > 0 {
			a.processed = true
			c.schedule(d, a)
			return
		}
	}
	c.finish(a.wire, true)
}

// handleAct fires when the server's CPU gets to a request.
type handleAct call

// Fire runs the handler.
func (a *handleAct) Fire() {
	c := (*call)(a)
	if !c.srvAlive() {
		c.lost("server died before handling", 0)
		return
	}
	c.handle()
}

// srvAlive reports whether the server the call was sent to is still
// registered and is the same incarnation.
func (c *call) srvAlive() bool {
	rs := c.end.net.serverOf(c.end)
	if rs != c.srv || rs == nil {
		return false
	}
	h := rs.host
	return h == nil || (h.Alive() && h.Incarnation() == c.srvInc)
}

func (c *call) deliver() {
	n := c.end.net
	if n.route(c.end) != c.srv || !c.srvAlive() {
		c.lost("server gone or unreachable on arrival", 0)
		return
	}
	n.w.Fold(sim.TagDeliver, c.id)
	if n.w.Tracing() {
		n.w.Tracef("call #%d %s delivered to %v", c.id, c.svcMeth, c.end.server)
	}
	if n.w.Recording() {
		k := sim.KindDeliver
		if c.delivered {
			k = sim.KindDup
		}
		c.delivered = true
		c.record(k, c.srv.host, c.end.host, int(c.size), c.svcMeth)
	}
	c.srv.count++
	if d := n.processing(c.srv.host); d > 0 {
		n.w.Schedule(d, (*handleAct)(c))
		return
	}
	c.handle()
}

// handle runs the handler for a delivered request.
func (c *call) handle() {
	m := c.srv.lookup(c.svcMeth)
	m.check(c.frame.at, c.frame.rt)
	a, args := &c.first, c.args
	if c.handled {
		a, args = c.newAnswer(), c.dupArgs
	}
	c.handled = true
	if !m.deferred {
		m.invoke(args, a.reply, nil)
		a.Reply()
		return
	}
	c.srv.waiting[c.id] = c
	m.invoke(args, a.reply, a)
}

// A Deferred is one answer to a call. A deferred handler gets it for
// answering later: it fills in its reply, keeps the Deferred, and calls
// Reply when the answer is ready (a KV server answers once Raft has applied
// the command).
type Deferred struct {
	c         *call
	reply     unsafe.Pointer // what the handler fills in
	wire      unsafe.Pointer // the copy of the reply on its way back
	replied   bool
	processed bool // the caller's CPU has processed the reply
}

// Reply sends the reply as it stands now. Calls after the first do nothing.
func (d *Deferred) Reply() {
	if d.replied {
		return
	}
	d.replied = true
	d.c.respond(d)
}

// respond sends the answer a back towards the caller.
func (c *call) respond(a *Deferred) {
	n := c.end.net
	delete(c.srv.waiting, c.id)
	if !c.srvAlive() {
		c.lost("server died before answering", 0)
		return
	}
	rc := c.frame.reply
	size := n.codec.copyInto(rc, a.wire, reflect.NewAt(rc.t, a.reply), true)
	n.replyBytes += int64(size)
	n.w.Fold(sim.TagReply, c.id, uint64(size))
	if n.w.Tracing() {
		n.w.Tracef("call #%d %s answered by %v %dB", c.id, c.svcMeth, c.end.server, size)
	}
	if n.w.Recording() {
		c.record(sim.KindReply, c.srv.host, c.end.host, size, c.svcMeth)
	}
	if !n.reliable && n.rng.Float64() < n.p.ReplyLoss {
		c.lost("reply dropped", 0)
		return
	}
	if !n.LinkUp(c.srv.host, c.end.host) {
		c.lost("reply link down", 0)
		return
	}
	var delay time.Duration
	if n.longReordering && n.rng.Float64() < n.p.ReorderProb {
		delay = n.p.ReorderMin + sim.Duration(n.rng, 0, sim.Duration(n.rng, 0, n.p.ReorderSpan))
	} else {
		delay = n.transit(c.srv.host, c.svcMeth, size)
	}
	delay += n.extraDelay(c, true)
	c.schedule(delay, (*replyAct)(a))
}

// lost records why a message was lost and fails the call after delay.
func (c *call) lost(why string, delay time.Duration) {
	c.end.net.w.Fold(sim.TagLost, c.id)
	if c.end.net.w.Tracing() {
		c.end.net.w.Tracef("call #%d %s: %s", c.id, c.svcMeth, why)
	}
	if c.end.net.w.Recording() {
		c.record(sim.KindLost, c.end.host, c.srv.hostOf(), 0, c.svcMeth+": "+why)
	}
	c.failAfter(delay)
}

func (c *call) failAfter(delay time.Duration) {
	c.schedule(delay, (*failAct)(c))
}

// schedule runs a on the caller's incarnation: if the caller has died since
// the call, nothing happens.
func (c *call) schedule(delay time.Duration, a sim.Action) {
	if c.end.host == nil {
		c.end.net.w.Schedule(delay, a)
		return
	}
	c.end.host.ScheduleFor(c.callerInc, delay, a)
}

// finish completes the call once, with the reply at wire if ok: later
// replies or failures are ignored.
func (c *call) finish(wire unsafe.Pointer, ok bool) {
	if c.finished {
		return
	}
	c.finished = true
	c.end.net.w.Fold(sim.TagDone, c.id, b2u(ok))
	if c.end.net.w.Tracing() {
		c.end.net.w.Tracef("call #%d %s returns to %v ok=%t", c.id, c.svcMeth, c.end.name, ok)
	}
	if c.end.net.w.Recording() {
		what := c.svcMeth + ": failed"
		if ok {
			what = c.svcMeth + ": ok"
		}
		c.record(sim.KindDone, c.end.host, c.srv.hostOf(), 0, what)
	}
	if ok {
		rc := c.frame.reply
		rc.at(c.reply).Set(rc.at(wire))
	}
	c.done(ok)
}

// record records an event of the call, from host to peer (either nil for
// none); the caller checks that the world is recording.
func (c *call) record(k sim.Kind, host, peer *sim.Host, size int, what string) {
	c.end.net.w.Record(sim.Event{Kind: k, Host: hostID(host), Peer: hostID(peer), ID: c.id, Size: size, What: what})
}

// hostID returns h's ID, or -1 for no host.
func hostID(h *sim.Host) int {
	if h == nil {
		return -1
	}
	return h.ID()
}

// hostOf returns the server's host: nil for no server or one outside every
// host.
func (s *Server) hostOf() *sim.Host {
	if s == nil {
		return nil
	}
	return s.host
}
