package rsm

import (
	"github.com/replab/replab/labrpc"
)

// A Directory is a well-known service that says which server leads each
// group: paper 003's replica manager, the service discovery of its
// deployment. A group's servers tell it when they become leader of a term
// and when they stop (Server.Announce); clients and other groups' servers
// ask it for a group's leader when the one they knew fails them
// (Router.Discover), instead of trying the next server in turn as paper
// 000's clients do.
//
// It keeps, per group, the report of the highest term: a deposed leader
// that has not heard of its successor reports an older term and is not
// believed. It holds no log: like the paper's, it is one process, and what
// it knows is rebuilt from the leaders' next reports.
type Directory struct {
	groups map[string]LookupReply
}

// NewDirectory returns a directory that knows no leader yet.
func NewDirectory() *Directory { return &Directory{groups: map[string]LookupReply{}} }

// NewDirectoryService returns the RPC service of a new directory: what a
// harness runs on the directory's host.
func NewDirectoryService() *labrpc.Service { return NewDirectory().Service() }

// Service returns the directory's RPC service ("Directory.Report",
// "Directory.Lookup").
func (d *Directory) Service() *labrpc.Service {
	svc := labrpc.MakeService(d)
	labrpc.Handle(svc, "Report", d.Report)
	labrpc.Handle(svc, "Lookup", d.Lookup)
	return svc
}

// ReportArgs tells a directory that Server of Group leads Term (Leading)
// or has stopped leading it.
type ReportArgs struct {
	Group   string
	Server  int
	Term    int
	Leading bool
}

// ReportReply acknowledges a report.
type ReportReply struct{}

// LookupArgs asks a directory who leads Group.
type LookupArgs struct{ Group string }

// LookupReply names the leader of a group and its term; Known is false if
// no server of the group has reported leading since the last one stepped
// down.
type LookupReply struct {
	Known  bool
	Server int
	Term   int
}

// Report is the handler for a server's news of its leadership.
func (d *Directory) Report(args *ReportArgs, _ *ReportReply) {
	cur, seen := d.groups[args.Group]
	switch {
	case args.Leading && (!seen || args.Term > cur.Term):
		d.groups[args.Group] = LookupReply{Known: true, Server: args.Server, Term: args.Term}
	case !args.Leading && seen && cur.Known && args.Term == cur.Term && args.Server == cur.Server:
		cur.Known = false
		d.groups[args.Group] = cur
	}
}

// Lookup is the handler for a question about a group's leader.
func (d *Directory) Lookup(args *LookupArgs, reply *LookupReply) { *reply = d.groups[args.Group] }

// A Listing is where a group's leader is announced and looked up: the
// end to a directory, and the group's name there.
type Listing struct {
	Dir   *labrpc.ClientEnd
	Group string
}

// Announce makes the server report to l's directory each time it becomes
// leader of a term or stops leading it. A report that is lost is sent
// again while the leadership it reports still holds.
func (s *Server) Announce(l Listing) {
	if l.Dir == nil {
		panic("rsm: Announce: a listing with no directory end")
	}
	s.listing = l
}

// report sends the directory the news of a leadership change.
func (s *Server) report(term int, leading bool) {
	args := &ReportArgs{Group: s.listing.Group, Server: s.me, Term: term, Leading: leading}
	s.listing.Dir.Call("Directory.Report", args, &ReportReply{}, func(ok bool) {
		if ok {
			return
		}
		s.host.After(roundPause, func() {
			if now, lead := s.rf.GetState(); now == term && lead == leading {
				s.report(term, leading)
			}
		})
	})
}
