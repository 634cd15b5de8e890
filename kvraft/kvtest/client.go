package kvtest

import (
	"fmt"

	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/sim"
)

// A Client is a test's clerk: the service's clerk on a host of its own,
// connected to some servers, whose every operation goes into the history.
// The operations ending in Async call back when done; the others run the
// world until they are.
type Client struct {
	h       *Harness
	host    *sim.Host
	ck      linearize.KV
	rec     *linearize.RecordedKV
	value   string // what the last Get returned
	version int64
}

// MakeClient returns a client connected to the servers in to.
func (h *Harness) MakeClient(to []int) *Client {
	host := h.c.NewClient(fmt.Sprintf("clerk%d", len(h.clients)))
	ck := h.svc.MakeClerk(host, h.c.Ends(host, 0, to))
	c := &Client{h: h, host: host, ck: ck, rec: linearize.Record(ck, &h.history, len(h.clients), h.w.Now)}
	h.clients = append(h.clients, c)
	return c
}

// Host returns the client's host.
func (c *Client) Host() *sim.Host { return c.host }

// Clerk returns the service's clerk, unrecorded.
func (c *Client) Clerk() linearize.KV { return c.ck }

// Connect connects the client to exactly the servers in to.
func (c *Client) Connect(to []int) { c.h.c.Connect(c.host, 0, to) }

// GetAsync gets key, remembering what it read.
func (c *Client) GetAsync(key string, done func(value string)) {
	c.rec.Get(key, func(v string, version int64) {
		c.value, c.version = v, version
		done(v)
	})
}

// PutAsync sets key to value.
func (c *Client) PutAsync(key, value string, done func()) { c.rec.Put(key, value, done) }

// AppendAsync appends value to key's value.
func (c *Client) AppendAsync(key, value string, done func()) { c.rec.Append(key, value, done) }

// CPutAsync sets key to value if its version is version. The clerk must
// have a CPut (see linearize.CPutter).
func (c *Client) CPutAsync(key, value string, version int64, done func(ok bool)) {
	c.rec.CPut(key, value, version, done)
}

// LastRead returns the value and version the last Get returned.
func (c *Client) LastRead() (string, int64) { return c.value, c.version }

// Get gets key's value.
func (c *Client) Get(key string) string {
	var v string
	c.wait(func(done func()) { c.GetAsync(key, func(s string) { v = s; done() }) }, "Get")
	return v
}

// Put sets key to value.
func (c *Client) Put(key, value string) {
	c.wait(func(done func()) { c.PutAsync(key, value, done) }, "Put")
}

// Append appends value to key's value.
func (c *Client) Append(key, value string) {
	c.wait(func(done func()) { c.AppendAsync(key, value, done) }, "Append")
}

// wait starts an operation and runs the world until it is done.
func (c *Client) wait(start func(done func()), what string) {
	c.h.t.Helper()
	finished := false
	start(func() { finished = true })
	if !c.h.w.RunUntil(func() bool { return finished }, OpLimit) {
		c.h.t.Fatalf("%s did not complete in %v of virtual time", what, OpLimit)
	}
}

// Check gets key and fails the test unless its value is want.
func (c *Client) Check(key, want string) {
	c.h.t.Helper()
	if v := c.Get(key); v != want {
		c.h.t.Fatalf("Get(%q): %s", key, difference(want, v))
	}
}

// difference describes how got differs from want in a few lines, however
// long the values: their lengths, and 30 bytes of each from where they
// first differ.
func difference(want, got string) string {
	at := 0
	for at < len(want) && at < len(got) && want[at] == got[at] {
		at++
	}
	from := max(0, at-10)
	clip := func(v string) string { return fmt.Sprintf("%q", v[from:min(len(v), from+30)]) }
	return fmt.Sprintf("wanted %d bytes, got %d; first difference at byte %d: wanted …%s…, got …%s…", len(want), len(got), at, clip(want), clip(got))
}
