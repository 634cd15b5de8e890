package shardtxn

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Add adds n to the integer at key, as paper 000's client does: a read,
// then a conditional set on the value read, again until the set commits.
// It fails (Committed false) if the key does not hold an integer, or if
// the sum would overflow an int64.
func (ck *Clerk) Add(key string, n int64, done func(Outcome)) error {
	if err := ck.usable("Add", done == nil); err != nil {
		return err
	}
	return ck.update([]string{key}, func(v []int64) ([]int64, string) {
		if overflows(v[0], n) {
			return nil, fmt.Sprintf("%s holds %d: adding %d overflows an int64", key, v[0], n)
		}
		return []int64{v[0] + n}, ""
	}, done)
}

// Xfer moves amount from one key's integer to another's, across shards:
// a read-only transaction of both, then a transaction of two conditional
// sets, again until it commits. It fails if from holds less than amount,
// or if to's sum would overflow an int64.
func (ck *Clerk) Xfer(from, to string, amount int64, done func(Outcome)) error {
	if err := ck.usable("Xfer", done == nil); err != nil {
		return err
	}
	switch {
	case from == to:
		return fmt.Errorf("shardtxn: xfer from %q to itself", from)
	case amount < 0:
		return fmt.Errorf("shardtxn: xfer of a negative amount %d", amount)
	}
	return ck.update([]string{from, to}, func(v []int64) ([]int64, string) {
		switch {
		case v[0] < amount:
			return nil, fmt.Sprintf("%s holds %d, less than %d", from, v[0], amount)
		case overflows(v[1], amount):
			return nil, fmt.Sprintf("%s holds %d: adding %d overflows an int64", to, v[1], amount)
		}
		return []int64{v[0] - amount, v[1] + amount}, ""
	}, done)
}

// overflows reports whether a+b overflows an int64: the sum, wrapped
// around, is above a exactly when b is not positive.
func overflows(a, b int64) bool { return (a+b > a) != (b > 0) }

// update is Update on keys' integers: it fails if a key does not hold
// one.
func (ck *Clerk) update(keys []string, next func([]int64) ([]int64, string), done func(Outcome)) error {
	return ck.Update(keys, func(read []Result) ([]string, string) {
		old := make([]int64, len(keys))
		for i, r := range read {
			v, err := strconv.ParseInt(r.Value, 10, 64)
			if !r.Found || err != nil {
				return nil, fmt.Sprintf("%s holds %q, not an integer", keys[i], r.Value)
			}
			old[i] = v
		}
		vals, reason := next(old)
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = strconv.FormatInt(v, 10)
		}
		return out, reason
	}, done)
}

// An update that aborts begins again after a random pause of up to
// updatePause, doubling with each abort in a row up to updatePauseMax, as
// the package's doc asks of a caller: updates that begin again at once
// take their locks again while the others still hold theirs, and on a
// network slower than a lock wait they thrash (TestUpdatesBackOff:
// sixteen clerks' transfers over four keys committed 8 in 20 s so, 46
// with the pause).
const (
	updatePause    = 10 * time.Millisecond
	updatePauseMax = time.Second
)

// Update reads keys in a read-only transaction, asks next for their new
// values given what it read (or for a reason to give up, which ends the
// update uncommitted), and sets them in a second transaction conditionally
// on the values read (on absence, for a key not found), retrying from the
// read, after a random pause, when a condition fails or a lock wait runs
// out. Add and Xfer are
// updates. No keys, a bad or repeated key, a nil next or done, a call
// while another is in progress and a clerk whose host was killed are
// refused with an error, and nothing is sent. Values from next that
// cannot be set (too many or too few, or too long) end the update
// uncommitted, with the reason.
func (ck *Clerk) Update(keys []string, next func(read []Result) (values []string, reason string), done func(Outcome)) error {
	if err := ck.usable("Update", done == nil); err != nil {
		return err
	}
	if len(keys) == 0 {
		return fmt.Errorf("shardtxn: an update of no keys")
	}
	reads := make([]Op, len(keys))
	for i, k := range keys {
		reads[i] = Get(k)
		if slices.Contains(keys[:i], k) {
			return fmt.Errorf("shardtxn: an update of key %q twice", k)
		}
	}
	switch err := checkTxn(reads); {
	case err != nil:
		return err
	case next == nil:
		return fmt.Errorf("shardtxn: clerk %d: Update with a nil next", ck.ck.ID())
	}
	ck.busy = "an update"
	end := func(out Outcome) {
		ck.busy = ""
		done(out)
	}
	var round func()
	pause := updatePause
	again := func() {
		p := pause
		pause = min(2*pause, updatePauseMax)
		ck.host.After(ck.host.RandDuration(0, p), round)
	}
	round = func() {
		ck.run(reads, func(out Outcome) {
			if !out.Committed {
				again()
				return
			}
			vals, reason := next(out.Results)
			if reason == "" && len(vals) != len(keys) {
				reason = fmt.Sprintf("shardtxn: Update's next gave %d values for %d keys", len(vals), len(keys))
			}
			if reason != "" {
				end(Outcome{Reason: reason})
				return
			}
			sets := make([]Op, len(keys))
			for i, k := range keys {
				sets[i] = CSet(k, vals[i], out.Results[i].Value)
				if !out.Results[i].Found {
					sets[i] = CSetAbsent(k, vals[i])
				}
			}
			if err := checkTxn(sets); err != nil {
				end(Outcome{Reason: err.Error()})
				return
			}
			ck.run(sets, func(out Outcome) {
				if out.Committed {
					end(out)
					return
				}
				again()
			})
		})
	}
	round()
	return nil
}
