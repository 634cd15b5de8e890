package frangipani

import (
	"slices"
	"strconv"
	"strings"

	"github.com/replab/replab/sim"
)

// keysListed is how many locks a clerk's Inspect lists by key; past it,
// it counts them only.
const keysListed = 5

// Inspect shows the lock server replica's state (sim.Inspector): how many
// keys its table holds (a value, a holder or a waiter), how many holdings
// of locks it has granted that are not yet released or expired, and how
// many acquires wait in the locks' queues. Its host shows it as "lock".
func (s *LockServer) Inspect() []sim.Field {
	return []sim.Field{
		{Name: "keys", Value: strconv.Itoa(len(s.t.locks))},
		{Name: "holders", Value: strconv.Itoa(s.t.holders)},
		{Name: "waiting", Value: strconv.Itoa(s.t.waiters)},
	}
}

// Inspect shows the clerk's state (sim.Inspector): how many locks it holds
// (leases it serves from, or would once renewed), how many of them hold
// writes not yet flushed (dirty), and, if it holds few, which: each key
// with its mode, x for exclusive and s for shared, and a * if dirty
// ("a:x* b:s"; "…" past keysListed, "-" for none). Its host shows it as
// "clerk".
func (ck *Clerk) Inspect() []sim.Field {
	holds, dirty := 0, 0
	var keys []string
	for k, e := range ck.cache {
		if e.state != held {
			continue
		}
		holds++
		if e.dirty {
			dirty++
		}
		if len(keys) <= keysListed {
			keys = append(keys, k)
		}
	}
	return []sim.Field{
		{Name: "held", Value: strconv.Itoa(holds)},
		{Name: "dirty", Value: strconv.Itoa(dirty)},
		{Name: "keys", Value: ck.listed(keys)},
	}
}

// listed formats the held keys for Inspect.
func (ck *Clerk) listed(keys []string) string {
	switch {
	case len(keys) == 0:
		return "-"
	case len(keys) > keysListed:
		return "…"
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		e := ck.cache[k]
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		if e.mode == Exclusive {
			b.WriteString(":x")
		} else {
			b.WriteString(":s")
		}
		if e.dirty {
			b.WriteByte('*')
		}
	}
	return b.String()
}
