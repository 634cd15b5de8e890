package frangipani_test

import (
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/frangipani/frangipanitest"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOperations runs each operation on one clerk, then reads the keys
// from a second: the first's writes reach it through the flush on revoke.
// The second's reads, of keys another client used last, are performed by
// the lock service; its second write to a key it used last takes the lock.
func TestOperations(t *testing.T) {
	t.Parallel()
	simtest.Run(t, []int64{1}, func(t *testing.T, seed int64) simtest.Result {
		d := deploy(t, seed, frangipani.DefaultConfig())
		a, _ := d.clerk(t, "a")
		v, ver := d.get(t, a, "x")
		assert.Equal(t, "", v, "a key never written is empty")
		assert.Zero(t, ver)
		d.put(t, a, "x", "1")
		d.append(t, a, "x", "2")
		d.append(t, a, "y", "3")
		v, ver = d.get(t, a, "x")
		assert.Equal(t, "12", v)
		assert.Equal(t, int64(2), ver, "each write bumps the version")
		sv, sver, holders := d.value(t, "x")
		assert.Equal(t, []any{"", int64(0), 1}, []any{sv, sver, holders}, "the writes are in a's cache only")

		b, _ := d.clerk(t, "b")
		v, ver = d.get(t, b, "x")
		assert.Equal(t, "12", v, "b reads a's writes, flushed when a's lock was revoked")
		assert.Equal(t, int64(2), ver)
		v, _ = d.get(t, b, "y")
		assert.Equal(t, "3", v)
		sv, sver, holders = d.value(t, "x")
		assert.Equal(t, []any{"12", int64(2), 0}, []any{sv, sver, holders}, "the lock service holds the flushed value and performed b's read: nobody holds x")
		d.put(t, b, "x", "4")
		sv, sver, holders = d.value(t, "x")
		assert.Equal(t, []any{"12", int64(2), 1}, []any{sv, sver, holders}, "b used x last: its write took the lock, and is in its cache only")
		v, ver = d.get(t, a, "x")
		assert.Equal(t, "4", v, "a reads b's write")
		assert.Equal(t, int64(3), ver)
		sv, sver, holders = d.value(t, "x")
		assert.Equal(t, []any{"4", int64(3), 0}, []any{sv, sver, holders}, "b flushed its write and the lock service performed a's read")
		assert.Zero(t, a.Lost()+b.Lost())
		return simtest.Result{World: d.w, Hosts: len(d.w.Hosts()), RPCs: d.c.Net().GetTotalCount()}
	})
}

// TestBadConfig shows each kind of bad configuration refused with an
// error that names it, by Validate, MakeClerk and StartLockServer.
func TestBadConfig(t *testing.T) {
	t.Parallel()
	bad := func(f func(*frangipani.Config)) error {
		c := frangipani.DefaultConfig()
		f(&c)
		return c.Validate()
	}
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.Drift = 1 }), "frangipani: Drift 1 is not in [0, 1)")
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.Drift = -0.1 }), "frangipani: Drift -0.1 is not in [0, 1)")
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.Drift = 0.9 }), "frangipani: RenewEvery 100ms must be shorter than the clerk's lease 52.631578ms (Lease 1s with Drift 0.9)")
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.Lease = 0 }), "frangipani: Lease 0s must be positive")
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.CacheHit = -1 }), "frangipani: CacheHit -1ns must be positive")
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.BreakAfter = c.Lease / 2 }), "frangipani: BreakAfter 500ms is shorter than Lease 1s")
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.RPCTimeout = c.RenewEvery }), "frangipani: RPCTimeout 100ms must be longer than RenewEvery 100ms")
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.MaxValue = 0 }), "frangipani: MaxValue 0 must be positive")
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.Linger = 0 }), "frangipani: Linger 0s must be positive")
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.MaxHold = -1 }), "frangipani: MaxHold -1ns must be positive")
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.MaxHold = c.Linger / 2 }), "frangipani: MaxHold 25µs is shorter than Linger 50µs")
	assert.NoError(t, bad(func(c *frangipani.Config) { c.MaxHold = c.Linger }))
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.RSM.MaxRaftState = 0 }), "rsm: MaxRaftState 0 must be positive, or -1 for no snapshots")
	assert.NoError(t, frangipani.DefaultConfig().Validate())
	assert.NoError(t, bad(func(c *frangipani.Config) { c.Drift, c.BreakAfter = 0, c.Lease }), "no drift, and a lock broken as soon as a lease ends, can work")
	assert.EqualError(t, bad(func(c *frangipani.Config) { c.Drift, c.Lease, c.BreakAfter = 0, c.RenewEvery, c.RenewEvery }),
		"frangipani: RenewEvery 100ms must be shorter than the clerk's lease 100ms (Lease 100ms with Drift 0)")

	c := frangipani.DefaultConfig()
	c.Drift = 2
	h := sim.NewWorld(1).NewHost("h")
	_, err := frangipani.MakeClerk(h, nil, c)
	assert.ErrorContains(t, err, "Drift 2")
	_, err = frangipani.MakeClerk(h, nil, frangipani.DefaultConfig())
	assert.EqualError(t, err, "frangipani: a clerk needs at least one lock server, got none")
	_, err = frangipani.StartLockServer(h, nil, 0, h.Persister(), c)
	assert.ErrorContains(t, err, "Drift 2")
}

// TestBadRequests sends lock servers requests no clerk makes: an acquire
// with no key or no mode, a key or a value over the limit, and a holder
// of a shared lock asking for it exclusive.
func TestBadRequests(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	cfg.MaxValue = 8
	d := deploy(t, 1, cfg)
	h := d.c.NewClient("raw")
	ends := d.c.Ends(h, 0, nil)
	call := func(args *frangipani.AcquireArgs) frangipani.AcquireReply {
		for {
			var reply frangipani.AcquireReply
			done := false
			l, ok := d.c.Leader(0)
			if !ok {
				d.w.Run(100 * time.Millisecond)
				continue
			}
			ends[l].Call("LockServer.Acquire", args, &reply, func(bool) { done = true })
			d.wait(t, "acquire", &done, 10*time.Second)
			if reply.Err != frangipani.ErrWrongLeader && reply.Err != "" {
				return reply
			}
		}
	}
	r := call(&frangipani.AcquireArgs{Client: 7, Seq: 1, Mode: frangipani.Shared})
	assert.Equal(t, frangipani.ErrBadRequest, r.Err)
	assert.Equal(t, `an acquire needs a key and a mode, got key "" mode shared`, r.Reason)
	r = call(&frangipani.AcquireArgs{Client: 7, Seq: 1, Key: "k"})
	assert.Equal(t, `an acquire needs a key and a mode, got key "k" mode Mode(0)`, r.Reason)
	r = call(&frangipani.AcquireArgs{Client: 7, Seq: 1, Key: "k", Mode: frangipani.Shared})
	assert.Equal(t, frangipani.OK, r.Err)
	r = call(&frangipani.AcquireArgs{Client: 7, Seq: 2, Key: "k", Mode: frangipani.Exclusive})
	assert.Equal(t, frangipani.ErrBadRequest, r.Err)
	assert.Equal(t, `client 7 holds "k" shared: release it before asking for it exclusive`, r.Reason)
	r = call(&frangipani.AcquireArgs{Client: 7, Seq: 1, Key: "k", Mode: frangipani.Shared})
	assert.Equal(t, frangipani.OK, r.Err, "a retry of the acquire that holds the lock is answered with it")
	assert.Equal(t, "exclusive", frangipani.Exclusive.String())
	r = call(&frangipani.AcquireArgs{Client: 7, Seq: 3, Key: "j", Mode: frangipani.Shared, Op: &frangipani.Op{Kind: frangipani.OpAppend, Value: "v"}})
	assert.Equal(t, frangipani.ErrBadRequest, r.Err)
	assert.Equal(t, "an acquire in mode shared with an operation of kind 3, which needs mode exclusive", r.Reason)
	r = call(&frangipani.AcquireArgs{Client: 7, Seq: 3, Key: "j", Mode: frangipani.Exclusive, Op: &frangipani.Op{Kind: 9}})
	assert.Equal(t, "an acquire in mode exclusive with an operation of kind 9, which needs mode Mode(0)", r.Reason)
	r = call(&frangipani.AcquireArgs{Client: 7, Seq: 3, Key: strings.Repeat("j", frangipani.MaxKey+1), Mode: frangipani.Shared})
	assert.Equal(t, frangipani.ErrBadRequest, r.Err)
	assert.Equal(t, "a key of 1025 bytes is over the limit of 1024 (MaxKey)", r.Reason)
	r = call(&frangipani.AcquireArgs{Client: 7, Seq: 3, Key: "j", Mode: frangipani.Exclusive, Op: &frangipani.Op{Kind: frangipani.OpAppend, Value: "123456789"}})
	assert.Equal(t, frangipani.ErrBadRequest, r.Err)
	assert.Equal(t, `a value of 9 bytes for key "j" is over the limit of 8 (MaxValue)`, r.Reason)
	r = call(&frangipani.AcquireArgs{Client: 7, Seq: 3, Key: strings.Repeat("j", frangipani.MaxKey), Mode: frangipani.Exclusive, Op: &frangipani.Op{Kind: frangipani.OpPut, Value: "12345678"}})
	assert.Equal(t, frangipani.OK, r.Err, "a key and a value at their limits")
	r = call(&frangipani.AcquireArgs{Client: 7, Seq: 3, Key: "j", Mode: frangipani.Exclusive, Op: &frangipani.Op{Kind: frangipani.OpPut, Value: "v"}})
	assert.Equal(t, frangipani.OK, r.Err)
	assert.Positive(t, r.Grant, "a well-formed acquire of a key nobody used is granted")
	v, ver, _ := d.value(t, "j")
	assert.Equal(t, []any{"", int64(0)}, []any{v, ver}, "the granted operation is the client's to perform")
}

// TestSync shows what a crash loses: a clerk's writes since its last Sync
// (or release). Another clerk gets the lock once the lock service breaks
// the dead clerk's lock (BreakAfter), and reads the synced value.
func TestSync(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	d := deploy(t, 1, cfg)
	a, ah := d.clerk(t, "a")
	d.put(t, a, "k", "synced")
	require.NoError(t, d.sync(t, a, 5*time.Second))
	v, ver, _ := d.value(t, "k")
	assert.Equal(t, []any{"synced", int64(1)}, []any{v, ver}, "Sync applied the write, keeping the lock")
	d.append(t, a, "k", "+unsynced")
	ah.Kill()
	b, _ := d.clerk(t, "b")
	start := d.w.Now()
	v, ver = d.get(t, b, "k")
	assert.Equal(t, []any{"synced", int64(1)}, []any{v, ver}, "the write after the Sync died with a")
	assert.GreaterOrEqual(t, d.w.Now()-start, cfg.BreakAfter*95/100, "b waited for the lock to be broken")
	assert.Less(t, d.w.Now()-start, cfg.BreakAfter+time.Second)
}

// TestLostWritesReported cuts off a clerk holding unflushed writes until
// the lock service breaks its lock for a waiting clerk: when it is back,
// its Sync says the writes were lost, and Lost counts them.
func TestLostWritesReported(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	d := deploy(t, 1, cfg)
	a, ah := d.clerk(t, "a")
	d.put(t, a, "k", "lost")
	d.c.Connect(ah, 0, nil)
	b, _ := d.clerk(t, "b")
	v, _ := d.get(t, b, "k")
	assert.Equal(t, "", v)
	d.c.Connect(ah, 0, d.c.All(0))
	assert.EqualError(t, d.sync(t, a, 5*time.Second), "frangipani: clerk "+itoa(a.ID())+" lost the unflushed writes of 1 locks since the last Sync")
	assert.Equal(t, 1, a.Lost())
	assert.NoError(t, d.sync(t, a, 5*time.Second), "a Sync reports a loss once")
	v, _ = d.get(t, a, "k")
	assert.Equal(t, "", v, "a reads the value the lock service holds")
}

// TestLockServiceRestart kills and restarts every lock server while a
// clerk holds a lock with synced and unsynced writes: the locks and
// values survive, the clerk's renewals go on, and a second clerk's
// request revokes the lock and reads every write.
func TestLockServiceRestart(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	cfg.RSM.MaxRaftState = 2000
	d := deploy(t, 1, cfg)
	a, _ := d.clerk(t, "a")
	for i := range 50 { // enough renewals to snapshot
		d.append(t, a, "k", itoa(int64(i%10)))
		d.w.Run(50 * time.Millisecond)
	}
	require.NoError(t, d.sync(t, a, 5*time.Second))
	d.append(t, a, "k", "!")
	_, snap := d.c.Sizes(0)
	assert.Positive(t, snap, "the lock servers snapshotted")
	for i := range d.c.Hosts() {
		require.NoError(t, d.c.Apply(fault.Fault{Kind: fault.Kill, Host: i}))
	}
	d.w.Run(time.Second)
	require.NoError(t, d.c.Recover())
	b, _ := d.clerk(t, "b")
	v, ver := d.get(t, b, "k")
	assert.Equal(t, strings.Repeat("0123456789", 5)+"!", v)
	assert.Equal(t, int64(51), ver)
	assert.Zero(t, a.Lost())
}

// hop is the most one message takes on the tests' network.
func (d *deployment) hop() time.Duration {
	p := d.c.Net().Params()
	return p.Latency + p.Jitter
}

// locksOnly is the default configuration with every operation taking its
// key's lock, and a holder that another client waits for serving on for
// up to 20 ms while it is busy.
func locksOnly() frangipani.Config {
	cfg := frangipani.DefaultConfig()
	cfg.LocksOnly, cfg.MaxHold = true, 20*time.Millisecond
	return cfg
}

// TestHandOver shows a lock handed over in one round through the log,
// without waiting for a renewal: the leader tells the holder of the
// waiter as soon as the acquire reaches it, the idle holder releases
// Linger later (not MaxHold), and the waiter's acquire is answered in the
// apply of the release: its request, the hint, the release, a round to
// the followers and the answer, six messages.
func TestHandOver(t *testing.T) {
	t.Parallel()
	d := deploy(t, 1, locksOnly())
	a, _ := d.clerk(t, "a")
	b, _ := d.clerk(t, "b")
	for i := range 10 {
		ck := []*frangipani.Clerk{a, b}[i%2]
		d.w.Run(time.Duration(i) * 7 * time.Millisecond) // at different points of the renewal period
		start := d.w.Now()
		d.append(t, ck, "k", itoa(int64(i)))
		if i > 1 { // b's first call finds the leader
			assert.Less(t, d.w.Now()-start, 7*d.hop(), "hand-over %d", i)
		}
	}
	v, _ := d.get(t, a, "k")
	assert.Equal(t, "0123456789", v)
}

// threeClerks deploys the lock service with locksOnly and three clerks,
// a, b and c, of which a has put "a" to key k and holds its lock.
func threeClerks(t *testing.T) (frangipani.Config, *deployment, *frangipani.Clerk, *frangipani.Clerk, *frangipani.Clerk) {
	cfg := locksOnly()
	d := deploy(t, 1, cfg)
	a, _ := d.clerk(t, "a")
	b, _ := d.clerk(t, "b")
	c, _ := d.clerk(t, "c")
	d.put(t, a, "k", "a")
	return cfg, d, a, b, c
}

// TestContendedGrant queues two clients for a lock: the first to get it
// learns from the grant that the other waits, serves its operation and
// releases Linger later, without waiting for its watch to tell it: the
// second gets the lock four messages after the first (the grant, the
// release, a round to the followers) and Linger.
func TestContendedGrant(t *testing.T) {
	t.Parallel()
	cfg, d, a, b, c := threeClerks(t)
	var bDone, cDone time.Duration
	require.NoError(t, b.Append("k", "b", func(error) { bDone = d.w.Now() }))
	require.NoError(t, c.Append("k", "c", func(error) { cDone = d.w.Now() }))
	require.True(t, d.w.RunUntil(func() bool { return cDone > 0 }, time.Second))
	assert.Less(t, cDone-bDone, 5*d.hop()+cfg.Linger)
	v, _ := d.get(t, a, "k")
	assert.Equal(t, "abc", v)
}

// TestBusyHolderServesOnUntilMaxHold has a client work on a key back to
// back when another asks for it: the holder serves on from its cache for
// MaxHold, thousands of operations, then hands the lock over.
func TestBusyHolderServesOnUntilMaxHold(t *testing.T) {
	t.Parallel()
	cfg := locksOnly()
	d := deploy(t, 1, cfg)
	a, _ := d.clerk(t, "a")
	b, _ := d.clerk(t, "b")
	d.put(t, a, "k", "a")
	ops, stop := 0, false
	var loop func(error)
	loop = func(err error) {
		require.NoError(t, err)
		if ops++; !stop {
			require.NoError(t, a.Put("k", itoa(int64(ops)), loop))
		}
	}
	loop(nil)
	d.w.Run(10 * time.Millisecond)
	start, before := d.w.Now(), ops
	d.put(t, b, "k", "b")
	waited, served := d.w.Now()-start, ops-before
	stop = true
	t.Logf("b waited %v while a served %d operations", waited, served)
	assert.GreaterOrEqual(t, waited, cfg.MaxHold)
	assert.Less(t, waited, cfg.MaxHold+10*d.hop())
	assert.Greater(t, served, int(cfg.MaxHold/cfg.CacheHit)/2)
}

// TestPerformedWhenTheKeyMoves shows the lock service perform an
// operation on a key another client used last, in its log, instead of
// granting the lock: the value moves once, not from cache to cache; a
// client that uses a key twice in a row gets its lock.
func TestPerformedWhenTheKeyMoves(t *testing.T) {
	t.Parallel()
	d := deploy(t, 1, frangipani.DefaultConfig())
	a, _ := d.clerk(t, "a")
	b, _ := d.clerk(t, "b")
	d.put(t, a, "k", "a")
	d.append(t, b, "k", "b")
	v, ver, holders := d.value(t, "k")
	assert.Equal(t, []any{"ab", int64(2), 0}, []any{v, ver, holders}, "a flushed, b's append was performed, nobody holds k")
	d.append(t, b, "k", "c")
	v, ver, holders = d.value(t, "k")
	assert.Equal(t, []any{"ab", int64(2), 1}, []any{v, ver, holders}, "b used k last: its second append took the lock")
	v, ver = d.get(t, a, "k")
	assert.Equal(t, []any{"abc", int64(3)}, []any{v, ver})
	assert.NoError(t, d.sync(t, b, time.Second), "b's performed append is no unflushed write")
	assert.Zero(t, a.Lost()+b.Lost())
}

// TestNoStarvation runs five clients on one key with no pauses and checks
// that every operation completes within 25 ms: no client waits for more
// than a few hand-overs (each about 1.5 ms: a hint, a release through the
// log, the grant, after at most MaxHold), and none waits for a renewal
// round.
func TestNoStarvation(t *testing.T) {
	t.Parallel()
	d := deploy(t, simtest.Seeds(t, 1)[0], frangipani.DefaultConfig())
	var clients []workload.KV
	for i := range 5 {
		ck, _ := d.clerk(t, "c"+itoa(int64(i)))
		clients = append(clients, frangipanitest.CachingKV{Clerk: ck})
	}
	d.w.Run(time.Second)
	var worst time.Duration
	ops := 0
	run := workload.Start(d.w, clients, workload.Spec{Mix: workload.Mix{Get: 1, Put: 1, Append: 1}, Keys: workload.Uniform(1),
		Done: func(_ int, _ workload.Kind, start, end time.Duration) { worst, ops = max(worst, end-start), ops+1 }})
	d.w.Run(100 * time.Millisecond)
	run.Stop()
	require.True(t, d.w.RunUntil(run.Finished, time.Second))
	t.Logf("%d operations, the slowest took %v", ops, worst)
	assert.Less(t, worst, 25*time.Millisecond)
	assert.Greater(t, ops, 1000)
}

// TestSilentHolderKeepsItsLock cuts off a clerk holding unflushed writes
// for twice BreakAfter while no one waits for its lock: the lock service
// takes a lock only from a holder someone waits for, so when the clerk is
// back its lease is renewed and its Sync applies the writes.
func TestSilentHolderKeepsItsLock(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	d := deploy(t, 1, cfg)
	a, ah := d.clerk(t, "a")
	d.put(t, a, "k", "kept")
	d.c.Connect(ah, 0, nil)
	d.w.Run(2 * cfg.BreakAfter)
	d.c.Connect(ah, 0, d.c.All(0))
	require.NoError(t, d.sync(t, a, 5*time.Second))
	v, ver, holders := d.value(t, "k")
	assert.Equal(t, []any{"kept", int64(1), 1}, []any{v, ver, holders})
	assert.Zero(t, a.Lost())
}

// TestIdleHolderKeepsItsLock has a client use a key, then leave it for
// several renewal periods with nobody else asking for it: it keeps the
// lock (its watch is not answered for a lock nobody waits for), and its
// next operation is served from its cache, in CacheHit.
func TestIdleHolderKeepsItsLock(t *testing.T) {
	t.Parallel()
	cfg := locksOnly()
	d := deploy(t, 1, cfg)
	a, _ := d.clerk(t, "a")
	d.put(t, a, "k", "a")
	d.w.Run(5 * cfg.RenewEvery)
	start := d.w.Now()
	v, _ := d.get(t, a, "k")
	assert.Equal(t, "a", v)
	assert.Equal(t, cfg.CacheHit, d.w.Now()-start, "served from the cache")
	_, _, holders := d.value(t, "k")
	assert.Equal(t, 1, holders)
}

// TestHandOverBetweenModes shows which holders the leader tells of a new
// acquire: a reader's acquire reaches a writer holding the key, and a
// writer's acquire the readers holding it, each handed over in about a
// round through the log; a second reader's acquire is granted beside the
// first reader, who keeps its lock and serves from its cache.
func TestHandOverBetweenModes(t *testing.T) {
	t.Parallel()
	cfg, d, a, b, c := threeClerks(t)
	d.get(t, b, "other") // b and c find the leader
	d.get(t, c, "other")
	timed := func(op func()) time.Duration {
		start := d.w.Now()
		op()
		return d.w.Now() - start
	}
	d.w.Run(cfg.RenewEvery / 2)
	assert.Less(t, timed(func() { d.get(t, b, "k") }), 8*d.hop(), "a writer is told of a reader")
	assert.Less(t, timed(func() { d.get(t, c, "k") }), 4*d.hop(), "a second reader joins the first")
	assert.Equal(t, cfg.CacheHit, timed(func() { d.get(t, b, "k") }), "the first reader was not told to yield")
	d.w.Run(cfg.RenewEvery / 2)
	assert.Less(t, timed(func() { d.put(t, a, "k", "A") }), 8*d.hop(), "readers are told of a writer")
	v, _ := d.get(t, b, "k")
	assert.Equal(t, "A", v)
}
