package labrpc

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/replab/replab/sim"
)

// Requests and replies in flight are sim.Messages, so that a search
// (harness/search) may deliver them late, in any order, or drop them.

// Message describes the request on its way to the server.
func (a *deliverAct) Message() (sim.MessageInfo, bool) {
	c := (*call)(a)
	return sim.MessageInfo{From: hostID(c.end.host), To: hostID(c.srv.host), What: c.svcMeth, Digest: func() uint64 {
		return digest(c.frame.args, c.args)
	}, Duplicable: c.dupArgs == nil}, true
}

// Duplicate puts a second delivery of the request in flight, due now, with
// args of its own copied from the first's, as a duplicating network does
// (a call is duplicated at most once).
func (a *deliverAct) Duplicate() {
	c := (*call)(a)
	n, f := c.end.net, c.frame
	c.dupArgs = reflect.New(f.args.t).UnsafePointer()
	n.codec.copyInto(f.args, c.dupArgs, reflect.NewAt(f.args.t, c.args), true)
	n.w.Schedule(0, a)
}

// Drop loses the request: the caller learns it failed.
func (a *deliverAct) Drop() { (*call)(a).lost("request dropped by a search", 0) }

// Message describes the reply on its way back to the caller, until it
// arrives; while it waits for the caller's CPU it is no message.
func (a *replyAct) Message() (sim.MessageInfo, bool) {
	if a.processed {
		return sim.MessageInfo{}, false
	}
	c := a.c
	return sim.MessageInfo{From: hostID(c.srv.host), To: hostID(c.end.host), What: c.svcMeth + " reply", Digest: func() uint64 {
		return digest(c.frame.reply, a.wire)
	}}, true
}

// Drop loses the reply: the caller learns the call failed.
func (a *replyAct) Drop() { a.c.lost("reply dropped by a search", 0) }

// digest returns a digest of the value of cp's type at p: its printed form
// hashed, which shows every field. A pointer below the top of the value
// prints as an address, which differs from run to run: two equal messages
// holding one then digest apart, so a search merges fewer states, never
// two different ones. Raft's and the services' messages hold none.
func digest(cp *copier, p unsafe.Pointer) uint64 {
	return sim.StringWord(fmt.Sprintf("%+v", cp.at(p).Interface()))
}
