package rsm_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/rsm"
	"github.com/replab/replab/sim"
)

// TestDirectoryBelievesTheNewestTerm keeps, per group, the leader of the
// highest term reported: a deposed leader's late news changes nothing.
func TestDirectoryBelievesTheNewestTerm(t *testing.T) {
	d := rsm.NewDirectory()
	lookup := func(group string) rsm.LookupReply {
		var r rsm.LookupReply
		d.Lookup(&rsm.LookupArgs{Group: group}, &r)
		return r
	}
	assert.Equal(t, rsm.LookupReply{}, lookup("g"), "no leader reported yet")
	d.Report(&rsm.ReportArgs{Group: "g", Server: 1, Term: 2, Leading: true}, &rsm.ReportReply{})
	d.Report(&rsm.ReportArgs{Group: "g", Server: 0, Term: 1, Leading: true}, &rsm.ReportReply{})
	d.Report(&rsm.ReportArgs{Group: "g", Server: 0, Term: 2, Leading: false}, &rsm.ReportReply{})
	assert.Equal(t, rsm.LookupReply{Known: true, Server: 1, Term: 2}, lookup("g"), "an older term's leader and another server's step-down are not believed")
	assert.Equal(t, rsm.LookupReply{}, lookup("h"), "groups are apart")
	d.Report(&rsm.ReportArgs{Group: "g", Server: 1, Term: 2, Leading: false}, &rsm.ReportReply{})
	assert.False(t, lookup("g").Known, "the leader stepped down")
	d.Report(&rsm.ReportArgs{Group: "g", Server: 1, Term: 2, Leading: true}, &rsm.ReportReply{})
	assert.False(t, lookup("g").Known, "a late report of the term it stepped down from is not believed")
	d.Report(&rsm.ReportArgs{Group: "g", Server: 2, Term: 3, Leading: true}, &rsm.ReportReply{})
	assert.Equal(t, rsm.LookupReply{Known: true, Server: 2, Term: 3}, lookup("g"))
}

// TestRouterDiscoversTheLeader routes calls through the directory the
// servers announce themselves to: the first call goes straight to the
// leader the directory names, the next ones ask nothing, and after the
// leader's host is killed the router asks again and finds its successor.
func TestRouterDiscoversTheLeader(t *testing.T) {
	w := newWorldOf(t, rsm.DefaultConfig(), true)
	l := w.leader(t)
	w.w.Run(100 * time.Millisecond) // the leader's report arrives
	client := w.c.NewClient("c")
	r := rsm.MakeRouter(client, w.c.Ends(client, 0, nil))
	r.Discover(rsm.Listing{Dir: w.c.Directory(client), Group: "n"})
	seq := int64(0)
	call := func() {
		t.Helper()
		seq++
		done := false
		r.Call("Counter.Add", &AddArgs{Session: rsm.Session{Client: 1, Seq: seq}, N: 1}, func() any { return &AddReply{} },
			func(r any) bool { return r.(*AddReply).Wrong }, func(any) { done = true })
		require.True(t, w.w.RunUntil(func() bool { return done }, 5*time.Second), "call %d answered", seq)
	}
	lookups := func() int { return w.c.Net().GetCount("directory") }
	reports := lookups()
	assert.Positive(t, reports, "the leader reported")
	call()
	call()
	assert.Equal(t, 2, w.calls, "each call went to the leader the directory named")
	assert.Equal(t, reports+1, lookups(), "one lookup, before the first call")

	require.NoError(t, w.c.Apply(fault.Fault{Kind: fault.Kill, Host: w.c.HostOf(0, l)}))
	call()
	nl, ok := w.c.Leader(0)
	require.True(t, ok)
	assert.NotEqual(t, l, nl)
	assert.Greater(t, lookups(), reports+2, "the router asked again after the dead leader failed it (and the new leader reported)")
	assert.Equal(t, 3, w.applied[nl], "every call applied once at the new leader")
}

// TestLostReportIsSentAgain cuts every server off the directory while the
// first leader is elected: its report is lost, and it sends it again
// while it leads, so that once the cut heals the directory names it.
func TestLostReportIsSentAgain(t *testing.T) {
	w := newWorldOf(t, rsm.DefaultConfig(), true)
	var dir *sim.Host
	for _, h := range w.w.Hosts() {
		if h.Name() == "directory" {
			dir = h
		}
	}
	require.NotNil(t, dir)
	cut := func(down bool) {
		for _, h := range w.c.Hosts() { // the directory's host is not the monkey's: the test cuts its links itself
			w.c.Net().SetLink(h, dir, !down)
		}
	}
	cut(true)
	l := w.leader(t)
	w.w.Run(time.Second)
	require.Zero(t, w.c.Net().GetCount("directory"), "no report got through the cut")
	cut(false)
	w.w.Run(200 * time.Millisecond) // a lost report fails within 100 ms, and is sent again 10 ms later
	term, leading := w.server(l).Raft().GetState()
	require.True(t, leading)
	var got rsm.LookupReply
	answered := false
	w.c.Directory(w.c.NewClient("c")).Call("Directory.Lookup", &rsm.LookupArgs{Group: "n"}, &got, func(ok bool) { answered = ok })
	require.True(t, w.w.RunUntil(func() bool { return answered }, time.Second))
	assert.Equal(t, rsm.LookupReply{Known: true, Server: l, Term: term}, got)
}
