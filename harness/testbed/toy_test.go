package testbed

import (
	"strconv"
	"time"

	"github.com/replab/replab/checks/linearize"
	"github.com/replab/replab/harness/cluster"
	"github.com/replab/replab/harness/workload"
	"github.com/replab/replab/labrpc"
	"github.com/replab/replab/sim"
)

// Store is a toy key/value store of one replica, kept in memory: it is
// linearizable while its host lives (a clerk's request sent again, its
// answer lost, is answered as before, not done twice), and forgets
// everything when the host is killed.
type Store struct {
	data    map[string]string
	version map[string]int64
	last    map[int64]done // each clerk's last request
}

// done is a clerk's last request done, and its answer.
type done struct {
	seq    int64
	answer Answer
}

// Op is a request to the store.
type Op struct {
	Kind       string // "get", "put" or "append"
	Key, Value string
	Clerk, Seq int64 // who asks, and the how-manieth request it is
}

// Answer is the store's answer.
type Answer struct {
	Value   string
	Version int64
}

// Do performs op.
func (s *Store) Do(op Op, reply *Answer) {
	if d, ok := s.last[op.Clerk]; ok && d.seq == op.Seq {
		*reply = d.answer
		return
	}
	switch op.Kind {
	case "put":
		s.data[op.Key] = op.Value
		s.version[op.Key]++
	case "append":
		s.data[op.Key] += op.Value
		s.version[op.Key]++
	}
	reply.Value, reply.Version = s.data[op.Key], s.version[op.Key]
	s.last[op.Clerk] = done{op.Seq, *reply}
}

// Inspect shows how many keys the store holds (sim.Inspector).
func (s *Store) Inspect() []sim.Field {
	return []sim.Field{{Name: "keys", Value: strconv.Itoa(len(s.data))}}
}

func (s *Store) GetState() (int, bool) { return 1, true }
func (s *Store) Kill()                 {}

// toyFactory makes Stores.
func toyFactory(n cluster.Node) (cluster.Replica, []*labrpc.Service, error) {
	s := &Store{data: map[string]string{}, version: map[string]int64{}, last: map[int64]done{}}
	n.Host.Inspect("store", s)
	return s, []*labrpc.Service{labrpc.MakeService(s)}, nil
}

// toy is what a test does to the toy's clerks: hang makes every clerk
// stop sending, deaf makes every clerk made from then on never send.
type toy struct{ hang, deaf bool }

// toyClerk calls the store's replica 0, again every 50 ms until it
// answers.
type toyClerk struct {
	w    *sim.World
	end  *labrpc.ClientEnd
	t    *toy
	deaf bool
	id   int64
	seq  *int64
}

func (c toyClerk) do(op Op, done func(Answer)) {
	if op.Seq == 0 {
		*c.seq++
		op.Clerk, op.Seq = c.id, *c.seq
	}
	if c.t.hang || c.deaf {
		c.w.After(50*time.Millisecond, func() { c.do(op, done) })
		return
	}
	var a Answer
	c.end.Call("Store.Do", op, &a, func(ok bool) {
		if !ok {
			c.w.After(50*time.Millisecond, func() { c.do(op, done) })
			return
		}
		done(a)
	})
}

func (c toyClerk) Get(key string, done func(string, int64)) {
	c.do(Op{Kind: "get", Key: key}, func(a Answer) { done(a.Value, a.Version) })
}
func (c toyClerk) Put(key, value string, done func()) {
	c.do(Op{Kind: "put", Key: key, Value: value}, func(Answer) { done() })
}
func (c toyClerk) Append(key, value string, done func()) {
	c.do(Op{Kind: "append", Key: key, Value: value}, func(Answer) { done() })
}

// toyKV is a KV workload on the toy store.
func toyKV(t *toy, clients int) *KV {
	return &KV{
		Clerk: func(host *sim.Host, servers []*labrpc.ClientEnd) linearize.KV {
			return toyClerk{w: host.World(), end: servers[0], t: t, deaf: t.deaf, id: host.Rand().Int64(), seq: new(int64)}
		},
		Clients: clients,
		Spec:    workload.Spec{Mix: workload.Mix{Get: 1, Put: 1, Append: 1}, Keys: workload.Uniform(3), Think: 20 * time.Millisecond},
	}
}
