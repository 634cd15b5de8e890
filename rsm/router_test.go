package rsm_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// A stage is a router before three scripted servers (s0, s1, s2) and a
// directory, on a reliable network where every message takes exactly
// 1 ms: no Raft, so that a test decides each answer and when it comes, and
// reads every request the router sends, with the virtual time it left, in
// sent. The router's timeout is 50 ms.
type stage struct {
	w       *sim.World
	r       *rsm.Router
	dir     *rsm.Directory
	listing rsm.Listing
	refuse  [3]int           // how many more requests each server answers "wrong leader" (for ever if negative)
	lag     map[string]int64 // extra milliseconds on the replies of a host, by name
	sent    []string         // "12ms s1", "14ms dir"
}

// Stub is a scripted server's service: it answers with its number.
type Stub struct {
	st *stage
	me int
}

// Add answers "wrong leader" while the server still refuses.
func (s *Stub) Add(_ *AddArgs, reply *AddReply) {
	reply.Total = int64(s.me)
	if n := &s.st.refuse[s.me]; *n != 0 {
		reply.Wrong = true
		if *n > 0 {
			*n--
		}
	}
}

func newStage(t *testing.T) *stage {
	t.Helper()
	w := sim.NewWorld(1)
	net := labrpc.MakeNetwork(w)
	require.NoError(t, net.SetParams(labrpc.Params{Latency: time.Millisecond}))
	st := &stage{w: w, dir: rsm.NewDirectory(), lag: map[string]int64{}}
	client := w.NewHost("client")
	serve := func(name string, svc *labrpc.Service) *labrpc.ClientEnd {
		srv := labrpc.MakeServer(w.NewHost(name))
		srv.AddService(svc)
		net.AddServer(name, srv)
		e := net.MakeEnd("to-"+name, client)
		net.Connect("to-"+name, name)
		net.Enable("to-"+name, true)
		return e
	}
	var ends []*labrpc.ClientEnd
	for i := range 3 {
		ends = append(ends, serve(fmt.Sprintf("s%d", i), labrpc.MakeService(&Stub{st, i})))
	}
	st.listing = rsm.Listing{Dir: serve("dir", st.dir.Service()), Group: "g"}
	net.SetDelayRule(func(m labrpc.Message) time.Duration {
		if m.IsReply {
			return time.Duration(st.lag[m.From.Name()]) * time.Millisecond
		}
		return 0
	})
	net.Watch(func(m labrpc.Message) {
		if !m.IsReply {
			st.sent = append(st.sent, fmt.Sprintf("%v %s", w.Now(), m.To.Name()))
		}
	})
	st.r = rsm.MakeRouter(client, ends)
	st.r.SetTimeout(50 * time.Millisecond)
	return st
}

// leads tells the directory that server leads term.
func (st *stage) leads(server, term int) {
	st.dir.Report(&rsm.ReportArgs{Group: "g", Server: server, Term: term, Leading: true}, &rsm.ReportReply{})
}

// An answer is what a call's done got: which server answered, and when.
type answer struct {
	from  int64
	at    time.Duration
	calls int
}

// call starts a call through the router; its answer is filled in when
// done is called.
func (st *stage) call() (*answer, func()) {
	a := &answer{from: -1}
	cancel := st.r.Call("Stub.Add", &AddArgs{N: 1}, func() any { return &AddReply{} },
		func(r any) bool { return r.(*AddReply).Wrong },
		func(r any) { a.from, a.at = r.(*AddReply).Total, st.w.Now(); a.calls++ })
	return a, cancel
}

// TestRouterRedirect makes the router try a named server first, server 0
// too; a number out of range is ignored.
func TestRouterRedirect(t *testing.T) {
	st := newStage(t)
	st.refuse = [3]int{-1, -1, 0}
	st.r.Redirect(2)
	st.r.Redirect(-1)
	st.r.Redirect(3)
	a, _ := st.call()
	st.w.Run(10 * time.Millisecond)
	st.refuse = [3]int{0, -1, -1}
	st.r.Redirect(0)
	b, _ := st.call()
	st.w.Run(10 * time.Millisecond)
	assert.Equal(t, []string{"0s s2", "10ms s0"}, st.sent, "each call's first try went to the server named")
	assert.Equal(t, answer{from: 2, at: 2 * time.Millisecond, calls: 1}, *a)
	assert.Equal(t, answer{from: 0, at: 12 * time.Millisecond, calls: 1}, *b)
}

// TestRouterIgnoresLateAnswers has the server tried first answer after
// the router's timeout, while the next try is out: without a directory
// the next server's, with one the directory's lookup. The late answer is
// not the call's, though it says the server leads: done gets the answer
// of the try under way when it came.
func TestRouterIgnoresLateAnswers(t *testing.T) {
	t.Run("next server", func(t *testing.T) {
		st := newStage(t)
		st.lag["s0"], st.lag["s1"] = 80, 40
		a, _ := st.call()
		st.w.Run(time.Second)
		assert.Equal(t, []string{"0s s0", "50ms s1"}, st.sent)
		assert.Equal(t, answer{from: 1, at: 92 * time.Millisecond, calls: 1}, *a, "s1's answer; s0's came at 82 ms")
	})
	t.Run("directory", func(t *testing.T) {
		st := newStage(t)
		st.r.Discover(st.listing)
		st.leads(0, 1)
		st.lag["s0"], st.lag["dir"] = 80, 40
		a, _ := st.call()
		st.w.Run(60 * time.Millisecond)
		st.leads(1, 2) // s1 took over while s0 was slow
		st.w.Run(time.Second)
		assert.Equal(t, []string{"0s dir", "42ms s0", "92ms dir", "134ms s1"}, st.sent)
		assert.Equal(t, answer{from: 1, at: 136 * time.Millisecond, calls: 1}, *a, "s1's answer; s0's came at 124 ms")
	})
}

// timed starts a call through the router with CallTimed; its answer is
// filled in when done is called, and sent with when the try answered was
// sent.
func (st *stage) timed(sent *time.Duration) (*answer, func()) {
	a := &answer{from: -1}
	cancel := st.r.CallTimed("Stub.Add", &AddArgs{N: 1}, func() any { return &AddReply{} },
		func(r any) bool { return r.(*AddReply).Wrong },
		func(r any, at time.Duration) { a.from, a.at = r.(*AddReply).Total, st.w.Now(); a.calls++; *sent = at })
	return a, cancel
}

// TestRouterCallTimedSaysWhenTheTryAnsweredWasSent has s0 refuse a call
// and s1 answer it late, past the timeout, then s2 answer it: done is
// told the answer came from the try sent to s2, not when the call began.
func TestRouterCallTimedSaysWhenTheTryAnsweredWasSent(t *testing.T) {
	st := newStage(t)
	st.refuse[0], st.lag["s1"] = 1, 80
	var sent time.Duration
	a, _ := st.timed(&sent)
	st.w.Run(time.Second)
	assert.Equal(t, []string{"0s s0", "2ms s1", "52ms s2"}, st.sent)
	assert.Equal(t, answer{from: 2, at: 54 * time.Millisecond, calls: 1}, *a, "s2's answer; s1's came at 84 ms")
	assert.Equal(t, 52*time.Millisecond, sent)
}

// TestRouterTakesLateAnswers has s0, the first server tried, answer every
// try 80 ms after it was sent, past the router's 50 ms timeout, while the
// others refuse as wrong leaders. A router that drops late answers never
// ends the call; one that takes them ends it with s0's answer to the
// first try, at 82 ms, says that try was sent at 0, and drops the answer
// to the try under way then (done runs once). A call cancelled before a
// late answer comes does not take it.
func TestRouterTakesLateAnswers(t *testing.T) {
	for _, late := range []bool{false, true} {
		st := newStage(t)
		st.refuse = [3]int{0, -1, -1}
		st.lag["s0"] = 80
		if late {
			st.r.TakeLateAnswers()
		}
		var sent time.Duration
		a, cancel := st.timed(&sent)
		st.w.Run(time.Second)
		if !late {
			assert.Zero(t, a.calls, "no try answered within the timeout")
			assert.Equal(t, []string{"0s s0", "50ms s1", "52ms s2", "64ms s0"}, st.sent[:4], "a round every 64 ms: s0's timeout, s1's and s2's refusals, a pause")
			assert.Equal(t, "960ms s0", st.sent[len(st.sent)-1], "s0 tried for the 16th time, the call still under way")
			cancel()
			continue
		}
		assert.Equal(t, []string{"0s s0", "50ms s1", "52ms s2", "64ms s0"}, st.sent)
		assert.Equal(t, answer{from: 0, at: 82 * time.Millisecond, calls: 1}, *a, "s0's answer to the first try; its answer to the second, at 146 ms, is dropped")
		assert.Zero(t, sent, "the first try's")
	}

	st := newStage(t)
	st.r.TakeLateAnswers()
	st.refuse = [3]int{0, -1, -1}
	st.lag["s0"] = 80
	a, cancel := st.call()
	st.w.Run(60 * time.Millisecond)
	cancel()
	st.w.Run(time.Second)
	assert.Equal(t, []string{"0s s0", "50ms s1", "52ms s2"}, st.sent)
	assert.Zero(t, a.calls, "cancelled at 60 ms, in the pause: s0's answer at 82 ms is dropped")
}

// TestRouterCancelDropsALateAnswer cancels a call in its pause after a
// round of tries that all timed out: the last try's answer, which comes
// later, is dropped, and nothing more is sent.
func TestRouterCancelDropsALateAnswer(t *testing.T) {
	st := newStage(t)
	st.lag["s0"], st.lag["s1"], st.lag["s2"] = 80, 80, 80
	a, cancel := st.call()
	st.w.Run(155 * time.Millisecond) // tries at 0, 50 and 100 ms, then a pause from 150 to 160 ms
	cancel()
	st.w.Run(time.Second)
	assert.Equal(t, []string{"0s s0", "50ms s1", "100ms s2"}, st.sent)
	assert.Zero(t, a.calls, "s2's answer at 182 ms is dropped")
}

// TestRouterPausesBeforeTheSameLeaderAgain has the directory name, after
// the leader failed the call, the same leader in the same term: the
// router pauses 10 ms before it tries that server again. Once the
// directory names it for a newer term (it was elected again), the router
// tries it at once.
func TestRouterPausesBeforeTheSameLeaderAgain(t *testing.T) {
	st := newStage(t)
	st.r.Discover(st.listing)
	st.leads(0, 1)
	st.refuse[0] = -1
	a, _ := st.call()
	st.w.Run(32500 * time.Microsecond) // the lookup sent at 32 ms is on its way
	st.leads(0, 2)
	st.refuse[0] = 0
	st.w.Run(time.Second)
	assert.Equal(t, []string{
		"0s dir", "2ms s0", // the directory names s0, which refuses
		"4ms dir", "16ms s0", // s0 again in term 1: a pause first
		"18ms dir", "30ms s0",
		"32ms dir", "34ms s0", // s0 again, in term 2: no pause
	}, st.sent)
	assert.Equal(t, answer{from: 0, at: 36 * time.Millisecond, calls: 1}, *a)
}

// TestRouterAsksTheDirectoryUntilItNamesAServer has the directory know
// no leader, then name a server the router does not have (a group
// configured apart from the router): the router asks again after each
// 10 ms pause, and tries only the server it has once one is named.
func TestRouterAsksTheDirectoryUntilItNamesAServer(t *testing.T) {
	st := newStage(t)
	st.r.Discover(st.listing)
	a, _ := st.call()
	st.w.Run(15 * time.Millisecond)
	st.leads(3, 1)
	st.w.Run(25 * time.Millisecond)
	st.leads(1, 2)
	st.w.Run(time.Second)
	assert.Equal(t, []string{"0s dir", "12ms dir", "24ms dir", "36ms dir", "48ms dir", "50ms s1"}, st.sent)
	assert.Equal(t, answer{from: 1, at: 52 * time.Millisecond, calls: 1}, *a)
}

// TestRouterNewCallAsksAfterALeaderFailed starts a call while another,
// which the leader has just failed, waits for the directory: the new call
// does not go to that leader on the router's old word but asks the
// directory, and goes at once to the server named, the same one: it is
// another call's failure, not its own, so it does not pause as the other
// does.
func TestRouterNewCallAsksAfterALeaderFailed(t *testing.T) {
	st := newStage(t)
	st.r.Discover(st.listing)
	st.leads(1, 1)
	first, _ := st.call()
	st.w.Run(10 * time.Millisecond)
	st.refuse[1] = 1
	second, _ := st.call()
	st.w.Run(3 * time.Millisecond)
	third, _ := st.call()
	st.w.Run(time.Second)
	assert.Equal(t, []string{
		"0s dir", "2ms s1", // the first call, answered at 4 ms
		"10ms s1", "12ms dir", // the second: s1 refuses it, and the router asks
		"13ms dir", "15ms s1", // the third asks too, and goes to s1 at once
		"24ms s1", // the second, after a pause: s1 in the same term had failed it
	}, st.sent)
	assert.Equal(t, []time.Duration{4 * time.Millisecond, 26 * time.Millisecond, 17 * time.Millisecond},
		[]time.Duration{first.at, second.at, third.at})
}

// TestRouterCallOnceGivesUp makes one try per call: a wrong-leader answer
// and a timeout each end the call with nil, the late answer is dropped,
// nothing is sent again, and the router forgets the leader that failed:
// without a directory the next call goes to the next server, with one it
// asks the directory first.
func TestRouterCallOnceGivesUp(t *testing.T) {
	once := func(st *stage) *answer {
		a := &answer{from: -1}
		st.r.CallOnce("Stub.Add", &AddArgs{N: 1}, func() any { return &AddReply{} },
			func(r any) bool { return r.(*AddReply).Wrong },
			func(r any) {
				a.at, a.calls = st.w.Now(), a.calls+1
				if r != nil {
					a.from = r.(*AddReply).Total
				}
			})
		return a
	}
	t.Run("next server", func(t *testing.T) {
		st := newStage(t)
		st.refuse[0] = 1
		a := once(st)
		st.w.Run(10 * time.Millisecond)
		st.lag["s1"] = 80
		b := once(st)
		st.w.Run(time.Second)
		c := once(st)
		st.w.Run(time.Second)
		assert.Equal(t, []string{"0s s0", "10ms s1", "1.01s s2"}, st.sent, "one try each, each to the next server")
		assert.Equal(t, answer{from: -1, at: 2 * time.Millisecond, calls: 1}, *a, "s0 refused: no reply")
		assert.Equal(t, answer{from: -1, at: 60 * time.Millisecond, calls: 1}, *b, "s1 timed out; its answer at 92 ms is dropped")
		assert.Equal(t, answer{from: 2, at: 1012 * time.Millisecond, calls: 1}, *c)
	})
	t.Run("directory", func(t *testing.T) {
		st := newStage(t)
		st.r.Discover(st.listing)
		st.leads(0, 1)
		st.refuse[0] = -1
		a := once(st)
		st.w.Run(10 * time.Millisecond)
		st.leads(2, 2)
		b := once(st)
		st.w.Run(time.Second)
		assert.Equal(t, []string{"0s dir", "2ms s0", "10ms dir", "12ms s2"}, st.sent, "the failed leader is forgotten: the second call asks")
		assert.Equal(t, answer{from: -1, at: 4 * time.Millisecond, calls: 1}, *a)
		assert.Equal(t, answer{from: 2, at: 14 * time.Millisecond, calls: 1}, *b)
	})
}
