package txncheck_test

import (
	"testing"
	"time"

	"github.com/replab/replab/chaos/fault"
	"github.com/replab/replab/checks/txncheck"
	"github.com/replab/replab/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A toyStore is a transactional list store inside a world: it applies each
// transaction atomically when its request arrives. With a lag (a planted
// bug), reads go to a replica that applies each transaction lag after the
// primary does.
type toyStore struct {
	primary, replica map[int][]int
	lag              time.Duration
}

// apply runs ops atomically and returns them with the reads' results.
func (s *toyStore) apply(w *sim.World, ops []txncheck.Op) []txncheck.Op {
	done := make([]txncheck.Op, len(ops))
	var appends []txncheck.Op
	for i, o := range ops {
		switch o.Type {
		case txncheck.OpAppend:
			s.primary[o.Key] = append(s.primary[o.Key], o.Value)
			appends = append(appends, o)
			done[i] = o
		case txncheck.OpRead:
			from := s.primary
			if s.lag > 0 {
				from = s.replica
			}
			l := from[o.Key]
			done[i] = txncheck.Read(o.Key, l[:len(l):len(l)]...)
		}
	}
	if s.lag > 0 {
		w.After(s.lag, func() {
			for _, o := range appends {
				s.replica[o.Key] = append(s.replica[o.Key], o.Value)
			}
		})
	}
	return done
}

// runClients runs processes clients against the store for a virtual
// second, recording their transactions: requests and replies take up to
// 2 ms and one in ten is lost, after which the client gives up (the
// transaction's outcome is unknown) and moves on.
func runClients(seed int64, s *toyStore) *txncheck.History {
	w := sim.NewWorld(seed)
	h := &txncheck.History{}
	value := 0
	for p := range 5 {
		var step func()
		step = func() {
			ops := make([]txncheck.Op, 1+w.Rand().IntN(4))
			for i := range ops {
				if k := w.Rand().IntN(5); w.Rand().IntN(2) == 0 {
					value++
					ops[i] = txncheck.Append(k, value)
				} else {
					ops[i] = txncheck.Read(k)
				}
			}
			id := h.Invoke(p, ops, w.Now())
			answered := false
			w.After(w.RandDuration(0, 2*time.Millisecond), func() {
				if w.Rand().IntN(10) == 0 {
					return // request lost
				}
				done := s.apply(w, ops)
				w.After(w.RandDuration(0, 2*time.Millisecond), func() {
					if w.Rand().IntN(10) == 0 {
						return // reply lost
					}
					answered = true
					h.Complete(id, txncheck.OK, done, w.Now())
					w.After(w.RandDuration(0, time.Millisecond), step)
				})
			})
			w.After(50*time.Millisecond, func() {
				if !answered {
					step() // give up: the outcome stays unknown
				}
			})
		}
		step()
	}
	w.Run(time.Second)
	return h
}

// TestRecordedInAWorld checks histories recorded by clients inside a world:
// a correct store passes strict serializability, and a store whose reads
// lag fails it, with its page written for people to look at.
func TestRecordedInAWorld(t *testing.T) {
	good := runClients(1, &toyStore{primary: map[int][]int{}})
	r, err := txncheck.Check(good, txncheck.StrictSerializable)
	require.NoError(t, err)
	if !r.OK() {
		path, err := r.WriteHTML(t.TempDir(), "correct-store", nil)
		t.Errorf("a correct store failed: %v\nvisualization: %s %v", r, path, err)
	}
	assert.Greater(t, good.Len(), 300)

	lagging := runClients(1, &toyStore{primary: map[int][]int{}, replica: map[int][]int{}, lag: 3 * time.Millisecond})
	r, err = txncheck.Check(lagging, txncheck.StrictSerializable)
	require.NoError(t, err)
	assert.Equal(t, txncheck.Invalid, r.Verdict)
	assert.LessOrEqual(t, r.Weakest, txncheck.Serializable, "stale reads break serializability, not just real time")
	path, err := r.WriteHTML(t.TempDir(), "lagging-replica", []fault.Interval{{Start: 0, End: time.Second, Label: "replica lags 3ms"}})
	require.NoError(t, err)
	t.Logf("%d transactions, %d anomalies, weakest model violated: %v; visualization: %s", lagging.Len(), len(r.Anomalies), r.Weakest, path)
}
