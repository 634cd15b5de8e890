package txncheck

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// serializableByBruteForce reports whether some serial order of the
// history's committed transactions, with any subset of those of unknown
// outcome, explains every committed read: the second checker, for small
// histories of lists. It replays each order against an in-memory store.
func serializableByBruteForce(h *History) bool {
	var ok, unknown []int
	for id, t := range h.txns {
		switch t.Outcome {
		case OK:
			ok = append(ok, id)
		case Unknown:
			unknown = append(unknown, id)
		}
	}
	for subset := range 1 << len(unknown) {
		ids := slices.Clone(ok)
		for i, id := range unknown {
			if subset&(1<<i) != 0 {
				ids = append(ids, id)
			}
		}
		if serialOrder(h, ids, 0, map[int][]int{}) {
			return true
		}
	}
	return false
}

// serialOrder reports whether the transactions ids (those from done on
// still to place) run one after another, in some order, from state,
// explain every committed read.
func serialOrder(h *History, ids []int, done int, state map[int][]int) bool {
	if done == len(ids) {
		return true
	}
	for i := done; i < len(ids); i++ {
		ids[done], ids[i] = ids[i], ids[done]
		t := &h.txns[ids[done]]
		next := make(map[int][]int, len(state))
		for k, l := range state {
			next[k] = l
		}
		fits := true
		for _, o := range t.Ops {
			switch {
			case o.Type == OpAppend:
				next[o.Key] = append(slices.Clip(next[o.Key]), o.Value)
			case t.Outcome == OK && !slices.Equal(o.Values, next[o.Key]):
				fits = false
			}
		}
		if fits && serialOrder(h, ids, done+1, next) {
			return true
		}
		ids[done], ids[i] = ids[i], ids[done]
	}
	return false
}

// An injected fault breaks one run of the reference store.
type injected uint8

const (
	noFault       injected = iota
	staleRead              // a committed read returns an older prefix of the list
	droppedAppend          // a committed append never reaches the store
	swappedPair            // a committed read returns two elements swapped
	numFaults
)

// smallHistory runs up to 7 transactions of list appends and reads on 3
// keys, one after another, against an in-memory store, and records them;
// a transaction aborts (never applied) or ends unknown (applied or not)
// now and then, and one fault of the given kind, if any, strikes a
// committed transaction. With finalRead, the last transaction reads every
// key, unfaulted.
func smallHistory(rng *rand.Rand, f injected, finalRead bool) *History {
	const keys = 3
	n := 2 + rng.IntN(5)
	if !finalRead {
		n++
	}
	store := map[int][]int{}
	h := &History{}
	value := 0
	faulted := false
	for i := range n {
		t := Txn{Process: i, Invoke: ms(10 * i), Complete: ms(10*i + 5), Outcome: OK}
		switch r := rng.IntN(10); {
		case r == 0:
			t.Outcome = Fail
		case r == 1:
			t.Outcome, t.Complete = Unknown, 0
		}
		applied := t.Outcome == OK || t.Outcome == Unknown && rng.IntN(2) == 0
		strike := f != noFault && !faulted && t.Outcome == OK && rng.IntN(n-i) == 0
		state := map[int][]int{}
		for k, l := range store {
			state[k] = l
		}
		for range 1 + rng.IntN(4) {
			k := rng.IntN(keys)
			if rng.IntN(2) == 0 {
				value++
				t.Ops = append(t.Ops, Append(k, value))
				if !(strike && f == droppedAppend && !faulted) {
					state[k] = append(slices.Clip(state[k]), value)
				} else {
					faulted = true
				}
				continue
			}
			l := slices.Clone(state[k])
			switch {
			case t.Outcome != OK:
				l = nil
			case strike && f == staleRead && !faulted && len(l) > 0:
				l, faulted = l[:rng.IntN(len(l))], true
			case strike && f == swappedPair && !faulted && len(l) > 1:
				j := rng.IntN(len(l) - 1)
				l[j], l[j+1] = l[j+1], l[j]
				faulted = true
			}
			t.Ops = append(t.Ops, Read(k, l...))
		}
		if applied {
			store = state
		}
		h.Add(t)
	}
	if finalRead {
		t := Txn{Process: n, Invoke: ms(10 * n), Complete: ms(10*n + 5), Outcome: OK}
		for k := range keys {
			t.Ops = append(t.Ops, Read(k, store[k]...))
		}
		h.Add(t)
	}
	return h
}

// bruteForceRuns is how many small histories TestAgainstBruteForce
// checks: a few thousand, or TXNCHECK_BRUTE_FORCE of them.
func bruteForceRuns(t *testing.T) int {
	if s := os.Getenv("TXNCHECK_BRUTE_FORCE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("TXNCHECK_BRUTE_FORCE=%q: %v", s, err)
		}
		return n
	}
	return 3000
}

// TestAgainstBruteForce checks Check(…, Serializable) against the brute-
// force checker on small random histories: it never reports an anomaly
// where some serial order explains the history, and, where the last
// transaction reads every key's final state, it always reports one where
// none does.
func TestAgainstBruteForce(t *testing.T) {
	n := bruteForceRuns(t)
	var total, withFinal, faulted, serializable, flagged, missed, falseAlarms, unseen int
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 21))
		f := injected(rng.IntN(int(numFaults)))
		final := rng.IntN(2) == 0
		h := smallHistory(rng, f, final)
		r, err := Check(h, Serializable)
		if !assert.NoError(t, err) {
			return
		}
		brute := serializableByBruteForce(h)
		total++
		if final {
			withFinal++
		}
		if f != noFault {
			faulted++
		}
		if brute {
			serializable++
		}
		if !r.OK() {
			flagged++
		}
		switch {
		case brute && !r.OK():
			falseAlarms++
			if falseAlarms <= 3 {
				t.Errorf("seed %d: brute force found a serial order, the check did not:\n%v\n%v", seed, txnsText(h), r)
			}
		case !brute && r.OK() && !final:
			unseen++ // allowed: nothing read the state that shows it
		case !brute && r.OK() && final:
			missed++
			if missed <= 3 {
				t.Errorf("seed %d: no serial order, final reads, and the check passed it:\n%v", seed, txnsText(h))
			}
		}
	}
	t.Logf("%d histories (%d with final reads, %d with a fault): %d serializable by brute force, %d flagged by Check; %d false alarms, %d missed with final reads (%d unserializable without final reads passed)",
		total, withFinal, faulted, serializable, flagged, falseAlarms, missed, unseen)
}

// txnsText lists a history's transactions, a line each.
func txnsText(h *History) string {
	s := ""
	for id, t := range h.txns {
		s += "T" + strconv.Itoa(id) + " " + t.String() + "\n"
	}
	return s
}
