package frangipani_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/replab/replab/frangipani"
	"github.com/replab/replab/labrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBadCalls makes each call of the public API with a bad argument:
// an empty key or one over MaxKey, a value over MaxValue, an operation
// while one is in progress, a nil host, end, persister or callback. Each
// returns an error naming it, and nothing is applied: the clerk goes on,
// and the key keeps its value.
func TestBadCalls(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	d := deploy(t, 1, cfg)
	ck, _ := d.clerk(t, "a")
	d.put(t, ck, "k", "kept")
	assert.EqualError(t, ck.Put("", "v", func(error) {}), "frangipani: empty key")
	assert.EqualError(t, ck.Get("", func(string, int64, error) {}), "frangipani: empty key")
	big := strings.Repeat("x", cfg.MaxValue+1)
	assert.EqualError(t, ck.Append("k", big, func(error) {}), `frangipani: a value of 1048577 bytes for key "k" is over the limit of 1048576`)
	at := false
	require.NoError(t, ck.Put("k", big[1:], func(error) { at = true }), "a value at the limit is written")
	d.wait(t, "put at the limit", &at, time.Second)
	d.put(t, ck, "k", "kept")
	put := false
	require.NoError(t, ck.Put("j", "v", func(error) { put = true })) // waits for j's lock
	assert.ErrorContains(t, ck.Get("k", func(string, int64, error) {}), `an operation on "k" while one on "j" is in progress`)
	d.wait(t, "put", &put, 5*time.Second)
	v, _ := d.get(t, ck, "k")
	assert.Equal(t, "kept", v, "the refused operations changed nothing")

	h := d.c.NewClient("h")
	ends := d.c.Ends(h, 0, nil)
	dead := d.c.NewClient("dead")
	dead.Kill()
	long := strings.Repeat("k", frangipani.MaxKey+1)
	id := "frangipani: clerk " + itoa(ck.ID()) + ": "
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"MakeClerk, nil host", func() error { _, err := frangipani.MakeClerk(nil, ends, cfg); return err }, "frangipani: MakeClerk: a nil host"},
		{"MakeClerk, dead host", func() error { _, err := frangipani.MakeClerk(dead, ends, cfg); return err }, "frangipani: MakeClerk: host dead is dead"},
		{"MakeClerk, nil end", func() error {
			_, err := frangipani.MakeClerk(h, []*labrpc.ClientEnd{nil, ends[1], ends[2]}, cfg)
			return err
		}, "frangipani: MakeClerk: the end to lock server 0 is nil"},
		{"StartLockServer, nil host and peers", func() error {
			_, err := frangipani.StartLockServer(nil, nil, 0, h.Persister(), cfg)
			return err
		}, "frangipani: StartLockServer: a nil host"},
		{"StartLockServer, nil persister", func() error { _, err := frangipani.StartLockServer(h, ends, 0, nil, cfg); return err }, "frangipani: StartLockServer: a nil persister"},
		{"StartLockServer, nil peer", func() error {
			_, err := frangipani.StartLockServer(h, []*labrpc.ClientEnd{nil, ends[1], nil}, 0, h.Persister(), cfg)
			return err
		}, "frangipani: StartLockServer: the end to peer 2 is nil"},
		{"Get, nil callback", func() error { return ck.Get("k", nil) }, id + "Get with a nil callback"},
		{"Put, nil callback", func() error { return ck.Put("k", "v", nil) }, id + "Put with a nil callback"},
		{"Append, nil callback", func() error { return ck.Append("k", "v", nil) }, id + "Append with a nil callback"},
		{"Sync, nil callback", func() error { return ck.Sync(nil) }, id + "Sync with a nil callback"},
		{"Get, long key", func() error { return ck.Get(long, func(string, int64, error) {}) }, "frangipani: a key of 1025 bytes is over the limit of 1024 (MaxKey)"},
		{"Put, long key", func() error { return ck.Put(long, "v", func(error) {}) }, "frangipani: a key of 1025 bytes is over the limit of 1024 (MaxKey)"},
	} {
		assert.EqualError(t, c.call(), c.want, c.name)
	}
	ok, err := frangipani.MakeClerk(h, ends, cfg)
	require.NoError(t, err, "a clerk on the host the bad calls named")
	v, _ = d.get(t, ok, "k")
	assert.Equal(t, "kept", v)
	d.put(t, ck, strings.Repeat("k", frangipani.MaxKey), "v")
	assert.Zero(t, ck.Lost())
}

// TestSettingsTooLong sets each duration of a Config to the longest
// one, which passed Validate and then overflowed the virtual clock in the
// first timer set from it: each is refused by name. A day (MaxSetting)
// is long enough.
func TestSettingsTooLong(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		set  func(c *frangipani.Config, d time.Duration)
	}{
		{"Lease", func(c *frangipani.Config, d time.Duration) { c.Lease = d }},
		{"BreakAfter", func(c *frangipani.Config, d time.Duration) { c.BreakAfter = d }},
		{"RenewEvery", func(c *frangipani.Config, d time.Duration) { c.RenewEvery = d }},
		{"Tick", func(c *frangipani.Config, d time.Duration) { c.Tick = d }},
		{"RPCTimeout", func(c *frangipani.Config, d time.Duration) { c.RPCTimeout = d }},
		{"CacheHit", func(c *frangipani.Config, d time.Duration) { c.CacheHit = d }},
		{"Linger", func(c *frangipani.Config, d time.Duration) { c.Linger = d }},
		{"MaxHold", func(c *frangipani.Config, d time.Duration) { c.MaxHold = d }},
	} {
		cfg := frangipani.DefaultConfig()
		c.set(&cfg, math.MaxInt64)
		assert.EqualError(t, cfg.Validate(), "frangipani: "+c.name+" 2562047h47m16.854775807s is longer than a day (MaxSetting)")
	}
	cfg := frangipani.DefaultConfig()
	cfg.BreakAfter, cfg.Tick = frangipani.MaxSetting, frangipani.MaxSetting
	assert.NoError(t, cfg.Validate())
}

// TestAppendPastMaxValue appends to a key until its value would be
// longer than MaxValue: in the cache, and where the lock service would
// perform the append (the key was another clerk's last), which grants
// the lock instead so that the clerk refuses it with the value in hand.
// Each refused append's callback gets an error, and nothing is written.
func TestAppendPastMaxValue(t *testing.T) {
	t.Parallel()
	cfg := frangipani.DefaultConfig()
	cfg.MaxValue = 8
	d := deploy(t, 1, cfg)
	a, _ := d.clerk(t, "a")
	b, _ := d.clerk(t, "b")
	appendErr := func(ck *frangipani.Clerk, value string) error {
		return d.write(t, "append", time.Second, func(done func(error)) error { return ck.Append("k", value, done) })
	}
	d.put(t, a, "k", "12345")
	assert.EqualError(t, appendErr(a, "6789"), `frangipani: an append of 4 bytes to key "k", whose value has 5, would make it longer than the limit of 8; nothing was written`)
	require.NoError(t, appendErr(a, "678"), "an append up to the limit")
	assert.EqualError(t, appendErr(b, "9"), `frangipani: an append of 1 bytes to key "k", whose value has 8, would make it longer than the limit of 8; nothing was written`)
	_, _, holders := d.value(t, "k")
	assert.Equal(t, 1, holders, "b was granted the lock, its append not performed")
	v, _ := d.get(t, a, "k")
	assert.Equal(t, "12345678", v)
	assert.Zero(t, a.Lost()+b.Lost())
}

// TestClerkAfterItsHostDied uses a clerk whose host was killed, and then
// restarted: every call is refused, where it used to be taken and never
// answered. A new clerk on the restarted host works.
func TestClerkAfterItsHostDied(t *testing.T) {
	t.Parallel()
	d := deploy(t, 1, frangipani.DefaultConfig())
	ck, h := d.clerk(t, "a")
	d.put(t, ck, "k", "v")
	want := "frangipani: clerk " + itoa(ck.ID()) + ": %s after its host a was killed; make a new clerk"
	for _, restart := range []bool{false, true} {
		if restart {
			require.True(t, h.Restart())
		} else {
			require.True(t, h.Kill())
		}
		assert.EqualError(t, ck.Get("k", func(string, int64, error) { t.Error("answered") }), fmt.Sprintf(want, "Get"))
		assert.EqualError(t, ck.Put("k", "w", func(error) { t.Error("answered") }), fmt.Sprintf(want, "Put"))
		assert.EqualError(t, ck.Sync(func(error) { t.Error("answered") }), fmt.Sprintf(want, "Sync"))
	}
	again, err := frangipani.MakeClerk(h, d.c.Ends(h, 0, d.c.All(0)), frangipani.DefaultConfig())
	require.NoError(t, err)
	v, _ := d.get(t, again, "k")
	assert.Equal(t, "", v, "the dead clerk's write was never flushed")
}
