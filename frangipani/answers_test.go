package frangipani_test

import (
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// LockServer stands in for a lock server that answers what no lock
// server does (labrpc names the service after the type): every acquire
// with acquire; renewals and releases with a status per lock if
// statuses, else with none.
type LockServer struct {
	acquire  frangipani.AcquireReply
	statuses bool
	acquires int
}

// Acquire answers with s.acquire.
func (s *LockServer) Acquire(_ *frangipani.AcquireArgs, reply *frangipani.AcquireReply) {
	s.acquires++
	*reply = s.acquire
}

// Renew renews every lock, or answers with no status.
func (s *LockServer) Renew(args *frangipani.RenewArgs, reply *frangipani.RenewReply) {
	reply.Err, reply.Status = frangipani.OK, s.status(len(args.Locks))
}

// Release applies every lock, or answers with no status.
func (s *LockServer) Release(args *frangipani.ReleaseArgs, reply *frangipani.ReleaseReply) {
	reply.Err, reply.Status = frangipani.OK, s.status(len(args.Locks))
}

func (s *LockServer) status(n int) []frangipani.Status {
	if !s.statuses {
		return nil
	}
	out := make([]frangipani.Status, n)
	for i := range out {
		out[i] = frangipani.Renewed
	}
	return out
}

// Watch never answers.
func (s *LockServer) Watch(*frangipani.WatchArgs, *frangipani.WatchReply, *labrpc.Deferred) {}

// fakeServer returns a clerk talking to one fake lock server, and the
// world's trace.
func fakeServer(t *testing.T, s *LockServer) (*sim.World, *frangipani.Clerk, *strings.Builder) {
	w := sim.NewWorld(1)
	var trace strings.Builder
	w.SetTraceWriter(&trace)
	net := labrpc.MakeNetwork(w)
	srv := labrpc.MakeServer(w.NewHost("server"))
	srv.AddService(labrpc.MakeService(s))
	net.AddServer("server", srv)
	end := net.MakeEnd("clerk", w.NewHost("clerk"))
	net.Connect("clerk", "server")
	net.Enable("clerk", true)
	ck, err := frangipani.MakeClerk(w.Hosts()[1], []*labrpc.ClientEnd{end}, frangipani.DefaultConfig())
	require.NoError(t, err)
	return w, ck, &trace
}

// TestUnexpectedAcquireAnswer has a lock server refuse a clerk's acquire:
// the operation's callback gets an error saying so, which the run's
// trace shows too, and the clerk takes its next operation. The clerk used
// to panic, stopping the whole world.
func TestUnexpectedAcquireAnswer(t *testing.T) {
	t.Parallel()
	s := &LockServer{acquire: frangipani.AcquireReply{Err: frangipani.ErrBadRequest, Reason: "no such thing"}}
	w, ck, trace := fakeServer(t, s)
	want := "frangipani: clerk " + itoa(ck.ID()) + `: unexpected answer: acquire of "k": ErrBadRequest: no such thing`
	for range 2 {
		var err error
		done := false
		require.NoError(t, ck.Get("k", func(_ string, _ int64, e error) { err, done = e, true }))
		require.True(t, w.RunUntil(func() bool { return done }, time.Second))
		assert.EqualError(t, err, want)
	}
	assert.Equal(t, 2, s.acquires)
	assert.Contains(t, trace.String(), want)
}

// TestStatusesMissing has a lock server answer a renewal, and then a
// release, with no status for the lock asked about: the clerk counts the
// lock lost, the trace says why, and the next Sync reports the write
// lost with it.
func TestStatusesMissing(t *testing.T) {
	t.Parallel()
	s := &LockServer{acquire: frangipani.AcquireReply{Err: frangipani.OK, Grant: 1}}
	w, ck, trace := fakeServer(t, s)
	put := func() {
		done := false
		require.NoError(t, ck.Put("k", "v", func(err error) { require.NoError(t, err); done = true }))
		require.True(t, w.RunUntil(func() bool { return done }, time.Second))
	}
	sync := func() error {
		var err error
		done := false
		require.NoError(t, ck.Sync(func(e error) { err, done = e, true }))
		require.True(t, w.RunUntil(func() bool { return done }, time.Second))
		return err
	}
	lost := "frangipani: clerk " + itoa(ck.ID()) + " lost the unflushed writes of 1 locks since the last Sync"

	put()
	w.Run(frangipani.DefaultConfig().RenewEvery * 3 / 2)
	assert.Contains(t, trace.String(), "unexpected answer: a renewal of 1 locks answered with 0 statuses")
	assert.Equal(t, 1, ck.Lost())
	assert.EqualError(t, sync(), lost)

	s.statuses = true // renewals answered; the release is not
	put()
	assert.Equal(t, 2, s.acquires, "the lost lock was asked for again")
	s.statuses = false
	assert.EqualError(t, sync(), lost)
	assert.Contains(t, trace.String(), "unexpected answer: a release of 1 locks answered with 0 statuses")
	assert.Equal(t, 2, ck.Lost())
}
