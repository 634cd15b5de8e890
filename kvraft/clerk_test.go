package kvraft_test

import (
	"fmt"
	"time"

	"github.com/replab/replab/kvraft"
	"github.com/replab/replab/workload"
)

// opLimit bounds how long a blocking test operation may take.
const opLimit = 2 * time.Minute

// A clerk is a test client: a Clerk on its own host, connected to some
// servers, whose every operation goes into the history.
type clerk struct {
	*workload.KVClient
	cfg     *config
	value   string // what the last Get returned
	version int64
}

// makeClient returns a clerk connected to the servers in to.
func (cfg *config) makeClient(to []int) *clerk {
	host := cfg.c.NewClient(fmt.Sprintf("clerk%d", len(cfg.clerks)))
	raw := kvraft.MakeClerk(host, cfg.c.Ends(host, 0, to))
	ck := &clerk{KVClient: workload.NewKVClient(raw, &cfg.history, len(cfg.clerks)), cfg: cfg}
	cfg.clerks = append(cfg.clerks, ck)
	return ck
}

// connect connects the clerk to exactly the servers in to.
func (ck *clerk) connect(to []int) { ck.cfg.c.Connect(ck.Host(), 0, to) }

// getAsync gets key, remembering what it read.
func (ck *clerk) getAsync(key string, done func(value string)) {
	ck.Get(key, func(v string, version int64) {
		ck.value, ck.version = v, version
		done(v)
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
	ck.wait(func(done func()) { ck.Put(key, value, done) }, "Put")
}

func (ck *clerk) append(key, value string) {
	ck.wait(func(done func()) { ck.Append(key, value, done) }, "Append")
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
