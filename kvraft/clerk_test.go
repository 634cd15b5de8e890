package kvraft

import (
	"time"

	"github.com/replab/replab/internal/linearize"
)

// opLimit bounds how long a blocking test operation may take.
const opLimit = 2 * time.Minute

// A clerk is a test client: a Clerk on its own host, connected to some
// servers, whose every operation goes into the history.
type clerk struct {
	*Clerk
	cfg     *config
	id      int    // the client's number in the history
	value   string // what the last Get returned
	version int64
}

// makeClient returns a clerk connected to the servers in to.
func (cfg *config) makeClient(to []int) *clerk {
	ck := &clerk{Clerk: cfg.MakeClerk(to), cfg: cfg, id: len(cfg.clerks)}
	cfg.clerks = append(cfg.clerks, ck)
	return ck
}

// connect connects the clerk to exactly the servers in to.
func (ck *clerk) connect(to []int) { ck.cfg.ConnectClerk(ck.Clerk, to) }

// The asynchronous operations record their call and return in the history.

func (ck *clerk) getAsync(key string, done func(value string)) {
	id := ck.cfg.history.Call(ck.id, linearize.KVInput{Kind: linearize.Get, Key: key}, ck.cfg.w.Now())
	ck.Get(key, func(v string, version int64) {
		ck.cfg.history.Return(id, linearize.KVOutput{Value: v, Version: version}, ck.cfg.w.Now())
		ck.value, ck.version = v, version
		done(v)
	})
}

func (ck *clerk) putAsync(key, value string, done func()) {
	id := ck.cfg.history.Call(ck.id, linearize.KVInput{Kind: linearize.Put, Key: key, Value: value}, ck.cfg.w.Now())
	ck.Put(key, value, func() {
		ck.cfg.history.Return(id, linearize.KVOutput{}, ck.cfg.w.Now())
		done()
	})
}

func (ck *clerk) appendAsync(key, value string, done func()) {
	id := ck.cfg.history.Call(ck.id, linearize.KVInput{Kind: linearize.Append, Key: key, Value: value}, ck.cfg.w.Now())
	ck.Append(key, value, func() {
		ck.cfg.history.Return(id, linearize.KVOutput{}, ck.cfg.w.Now())
		done()
	})
}

func (ck *clerk) cputAsync(key, value string, version int64, done func(ok bool)) {
	id := ck.cfg.history.Call(ck.id, linearize.KVInput{Kind: linearize.CPut, Key: key, Value: value, Version: version}, ck.cfg.w.Now())
	ck.CPut(key, value, version, func(ok bool) {
		ck.cfg.history.Return(id, linearize.KVOutput{OK: ok}, ck.cfg.w.Now())
		done(ok)
	})
}

// lastRead returns the value and version the last Get returned.
func (ck *clerk) lastRead() (string, int64) { return ck.value, ck.version }

// The blocking operations run the world until the operation completes.

func (ck *clerk) get(key string) string {
	var v string
	ck.wait(func(done func()) { ck.getAsync(key, func(s string) { v = s; done() }) }, "Get")
	return v
}

func (ck *clerk) put(key, value string) {
	ck.wait(func(done func()) { ck.putAsync(key, value, done) }, "Put")
}

func (ck *clerk) append(key, value string) {
	ck.wait(func(done func()) { ck.appendAsync(key, value, done) }, "Append")
}

func (ck *clerk) cput(key, value string, version int64) bool {
	var ok bool
	ck.wait(func(done func()) { ck.cputAsync(key, value, version, func(b bool) { ok = b; done() }) }, "CPut")
	return ok
}

func (ck *clerk) wait(start func(done func()), what string) {
	ck.cfg.t.Helper()
	finished := false
	start(func() { finished = true })
	if !ck.cfg.w.RunUntil(func() bool { return finished }, opLimit) {
		ck.cfg.t.Fatalf("%s did not complete in %v of virtual time", what, opLimit)
	}
	ck.cfg.ops++
}

// check gets key and fails the test unless its value is want.
func (ck *clerk) check(key, want string) {
	ck.cfg.t.Helper()
	if v := ck.get(key); v != want {
		ck.cfg.t.Fatalf("Get(%q): expected:\n%q\nreceived:\n%q", key, want, v)
	}
}
