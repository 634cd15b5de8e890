package txncheck

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"time"
)

// A workload describes generated histories.
type workload struct {
	txns       int
	ops        int     // micro-ops per transaction
	keys       int     // keys in use at once
	processes  int     //
	maxWrites  int     // appends (or writes) a key takes before a fresh key replaces it
	failRate   float64 // transactions that abort
	unknownMay float64 // transactions whose outcome is unknown (half of them take effect)
	registers  bool    // write registers instead of appending to lists
}

// benchWorkload is the benchmarks' workload of n transactions.
func benchWorkload(n int) workload {
	return workload{txns: n, ops: 4, keys: 100, processes: 10, maxWrites: 32}
}

// generate returns a strictly serializable history: the transactions run
// one at a time in a serial order, each at a commit point inside its
// [invoke, complete] window, and their reads show the state at that point.
// Each process runs its transactions one after another; invocation and
// completion times are drawn at random within the windows the serial order
// and the processes leave.
func generate(seed uint64, w workload) *History {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	lists := make(map[int][]int)
	registers := make(map[int]int)
	writes := make(map[int]int)
	active := make([]int, w.keys)
	for i := range active {
		active[i] = i
	}
	fresh, value := w.keys, 0
	txns := make([]Txn, w.txns)
	commit := make([]time.Duration, w.txns)
	for i := range txns {
		t := &txns[i]
		t.Process = rng.IntN(w.processes)
		commit[i] = time.Duration(i+1) * 10 * time.Microsecond
		r := rng.Float64()
		switch {
		case r < w.failRate:
			t.Outcome = Fail
		case r < w.failRate+w.unknownMay:
			t.Outcome = Unknown
		default:
			t.Outcome = OK
		}
		applied := t.Outcome == OK || t.Outcome == Unknown && rng.IntN(2) == 0
		t.Ops = make([]Op, w.ops)
		for j := range t.Ops {
			slot := rng.IntN(len(active))
			k := active[slot]
			if rng.IntN(2) == 0 {
				if t.Outcome == OK {
					if w.registers {
						if v, ok := registers[k]; ok {
							t.Ops[j] = Read(k, v)
						} else {
							t.Ops[j] = Read(k)
						}
					} else {
						l := lists[k]
						t.Ops[j] = Read(k, l[:len(l):len(l)]...)
					}
				} else {
					t.Ops[j] = Read(k)
				}
				continue
			}
			value++
			if w.registers {
				t.Ops[j] = Write(k, value)
			} else {
				t.Ops[j] = Append(k, value)
			}
			if applied {
				lists[k] = append(lists[k], value)
				registers[k] = value
			}
			if writes[k]++; writes[k] == w.maxWrites {
				active[slot] = fresh
				fresh++
			}
		}
	}
	// Times: each process's transactions in serial order; a transaction
	// begins after its predecessor completed and by its commit point, and
	// completes before its successor's commit point.
	last := make([]int, w.processes) // each process's latest transaction + 1
	for i := range txns {
		p := txns[i].Process
		prevEnd := time.Duration(0)
		if j := last[p] - 1; j >= 0 {
			txns[j].Complete = between(rng, commit[j], commit[i])
			prevEnd = txns[j].Complete
		}
		txns[i].Invoke = between(rng, prevEnd+1, commit[i]+1)
		last[p] = i + 1
	}
	for _, l := range last {
		if j := l - 1; j >= 0 {
			txns[j].Complete = between(rng, commit[j], commit[j]+time.Millisecond)
		}
	}
	// A recorder numbers transactions as they begin.
	slices.SortStableFunc(txns, func(a, b Txn) int { return cmp.Compare(a.Invoke, b.Invoke) })
	h := &History{}
	for _, t := range txns {
		if t.Outcome == Unknown {
			t.Complete = 0
		}
		h.Add(t)
	}
	return h
}

// between returns a time drawn uniformly from [lo, hi).
func between(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rng.Int64N(int64(hi-lo)))
}
