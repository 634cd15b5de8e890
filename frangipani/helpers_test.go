package frangipani_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/frangipani/frangipanitest"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/testbed"
	"github.com/replab/replab/sim"
	"github.com/replab/replab/sim/simtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runSpec runs a scenario shape for a seed, failing t with its problem
// and fault log.
func runSpec(t simtest.T, sp frangipanitest.Spec, seed int64) *testbed.Record {
	t.Helper()
	rec, err := sp.Run(seed, "", nil)
	require.NoError(t, err)
	if !rec.OK() {
		t.Fatalf("%s seed %d: %s\nfault log:\n%s", sp.Name, seed, rec.Problem, rec.FaultLog)
	}
	return rec
}

// testSpec runs a scenario shape over seeds, checks each and that the
// first replays to the same trace.
func testSpec(t *testing.T, sp frangipanitest.Spec, seeds ...int64) {
	for _, seed := range simtest.Seeds(t, seeds...) {
		rec, err := sp.Run(seed, t.TempDir(), nil)
		require.NoError(t, err)
		require.True(t, rec.OK(), "seed %d: %s\nreplay: %s\nfault log:\n%s", seed, rec.Problem, simtest.ReplayCommand(t.Name(), seed), rec.FaultLog)
		t.Logf("%s seed %d: %d ops, virtual %v, trace %016x", t.Name(), seed, rec.Ops, rec.World.Now(), rec.World.TraceHash())
		assert.Greater(t, rec.Ops, 50, "operations run")
		again, err := sp.Run(seed, "", nil)
		require.NoError(t, err)
		assert.Equal(t, rec.Summary, again.Summary, "the seed replays")
	}
}

// deployment is a frangipani service on a world, as the tests build it.
type deployment struct {
	w *sim.World
	c *cluster.Cluster
	d frangipanitest.Deployment
}

func deploy(t simtest.T, seed int64, cfg frangipani.Config) *deployment {
	t.Helper()
	w := sim.NewWorld(seed)
	d := frangipanitest.Deployment{Replicas: 3, Config: cfg}
	cc, err := d.Cluster()
	require.NoError(t, err)
	c, err := cluster.New(w, cc)
	require.NoError(t, err)
	return &deployment{w: w, c: c, d: d}
}

// clerk returns a clerk on a new client host.
func (d *deployment) clerk(t simtest.T, name string) (*frangipani.Clerk, *sim.Host) {
	t.Helper()
	h := d.c.NewClient(name)
	ck, err := d.d.Clerk(d.c, h)
	require.NoError(t, err)
	return ck, h
}

// wait runs the world until *done, or fails t after limit.
func (d *deployment) wait(t simtest.T, what string, done *bool, limit time.Duration) {
	t.Helper()
	require.True(t, d.w.RunUntil(func() bool { return *done }, limit), "%s did not end within %v", what, limit)
}

func (d *deployment) get(t simtest.T, ck *frangipani.Clerk, key string) (string, int64) {
	t.Helper()
	var value string
	var version int64
	var err error
	done := false
	require.NoError(t, ck.Get(key, func(v string, ver int64, e error) { value, version, err, done = v, ver, e, true }))
	d.wait(t, "get "+key, &done, 10*time.Second)
	require.NoError(t, err)
	return value, version
}

func (d *deployment) put(t simtest.T, ck *frangipani.Clerk, key, value string) {
	t.Helper()
	require.NoError(t, d.write(t, "put "+key, 10*time.Second, func(done func(error)) error { return ck.Put(key, value, done) }))
}

func (d *deployment) append(t simtest.T, ck *frangipani.Clerk, key, value string) {
	t.Helper()
	require.NoError(t, d.write(t, "append "+key, 10*time.Second, func(done func(error)) error { return ck.Append(key, value, done) }))
}

// write starts a write (or a Sync) by start, requires it to be taken,
// runs the world until it is done, or fails t after limit, and returns
// its callback's error.
func (d *deployment) write(t simtest.T, what string, limit time.Duration, start func(done func(error)) error) error {
	t.Helper()
	var err error
	done := false
	require.NoError(t, start(func(e error) { err, done = e, true }))
	d.wait(t, what, &done, limit)
	return err
}

func (d *deployment) sync(t simtest.T, ck *frangipani.Clerk, limit time.Duration) error {
	t.Helper()
	return d.write(t, "sync", limit, ck.Sync)
}

// value returns key's value and version on the lock service's leader.
func (d *deployment) value(t simtest.T, key string) (string, int64, int) {
	t.Helper()
	var l int
	require.True(t, d.w.RunUntil(func() bool {
		var ok bool
		l, ok = d.c.Leader(0)
		return ok
	}, 5*time.Second), "a lock server leads")
	return d.c.Replica(0, l).(*frangipani.LockServer).Value(key)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
