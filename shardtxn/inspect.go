package shardtxn

import (
	"maps"
	"slices"
	"strconv"

	"github.com/replab/replab/sim"
)

// heldListed is how many locked keys Inspect lists by name; past it, it
// counts them only.
const heldListed = 5

// Inspect shows the coordinator replica's state (sim.Inspector): of the
// transaction table's entries (transactions not yet finished), how many
// wait for a decision (preparing) and how many are decided and wait for
// every cohort to have it (decided); and how many transactions this
// replica drives as leader (driving). Its host shows it as "coord/txn".
func (c *CoordServer) Inspect() []sim.Field {
	undecided := 0
	for _, t := range c.sm.txns {
		if t.State == preparing {
			undecided++
		}
	}
	return []sim.Field{
		{Name: "preparing", Value: strconv.Itoa(undecided)},
		{Name: "decided", Value: strconv.Itoa(len(c.sm.txns) - undecided)},
		{Name: "driving", Value: strconv.Itoa(len(c.driving))},
	}
}

// Inspect shows the shard replica's state (sim.Inspector): how many keys
// are locked, which and by whom if there are few ("x:w1.3 y:r2.1,4.2": a
// writer's lock on x, readers' on y; "…" if there are more than
// heldListed, "-" if none), how many transactions are prepared, and for
// how many locked keys prepares wait on this replica as leader. Its host
// shows it as "shardN/txn".
func (s *ShardServer) Inspect() []sim.Field {
	return []sim.Field{
		{Name: "locks", Value: strconv.Itoa(len(s.sm.locks))},
		{Name: "held", Value: s.sm.held()},
		{Name: "prepared", Value: strconv.Itoa(len(s.sm.prepared))},
		{Name: "waiting", Value: strconv.Itoa(len(s.waiting))},
	}
}

// held lists the lock table for Inspect, in key order.
func (s *shard) held() string {
	switch n := len(s.locks); {
	case n == 0:
		return "-"
	case n > heldListed:
		return "…"
	}
	var b []byte
	for i, k := range slices.Sorted(maps.Keys(s.locks)) {
		if i > 0 {
			b = append(b, ' ')
		}
		l := s.locks[k]
		b = append(b, k...)
		if l.Writer != (Txid{}) {
			b = appendTxid(append(b, ":w"...), l.Writer)
			continue
		}
		b = append(b, ":r"...)
		for j, r := range l.Readers {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendTxid(b, r)
		}
	}
	return string(b)
}

// appendTxid appends id as Txid.String formats it, without fmt: Inspect
// runs after every event of a recording.
func appendTxid(b []byte, id Txid) []byte {
	b = strconv.AppendInt(b, id.Client, 10)
	return strconv.AppendInt(append(b, '.'), id.Seq, 10)
}
