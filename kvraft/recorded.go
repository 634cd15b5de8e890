package kvraft

import "github.com/replab/replab/linearize"

// A RecordedClerk is a Clerk whose every operation goes into a history,
// with its virtual call and return times, for a linearizability check.
type RecordedClerk struct {
	*Clerk
	history *linearize.History
	id      int // the client's number in the history
}

// NewRecordedClerk records ck's operations in h as client id.
func NewRecordedClerk(ck *Clerk, h *linearize.History, id int) *RecordedClerk {
	return &RecordedClerk{Clerk: ck, history: h, id: id}
}

func (r *RecordedClerk) call(in linearize.KVInput) int {
	return r.history.Call(r.id, in, r.Host().World().Now())
}

func (r *RecordedClerk) ret(op int, out linearize.KVOutput) {
	r.history.Return(op, out, r.Host().World().Now())
}

// Get is Clerk.Get, recorded.
func (r *RecordedClerk) Get(key string, done func(value string, version int64)) {
	op := r.call(linearize.KVInput{Kind: linearize.Get, Key: key})
	r.Clerk.Get(key, func(v string, version int64) {
		r.ret(op, linearize.KVOutput{Value: v, Version: version})
		done(v, version)
	})
}

// Put is Clerk.Put, recorded.
func (r *RecordedClerk) Put(key, value string, done func()) {
	op := r.call(linearize.KVInput{Kind: linearize.Put, Key: key, Value: value})
	r.Clerk.Put(key, value, func() {
		r.ret(op, linearize.KVOutput{})
		done()
	})
}

// Append is Clerk.Append, recorded.
func (r *RecordedClerk) Append(key, value string, done func()) {
	op := r.call(linearize.KVInput{Kind: linearize.Append, Key: key, Value: value})
	r.Clerk.Append(key, value, func() {
		r.ret(op, linearize.KVOutput{})
		done()
	})
}

// CPut is Clerk.CPut, recorded.
func (r *RecordedClerk) CPut(key, value string, version int64, done func(ok bool)) {
	op := r.call(linearize.KVInput{Kind: linearize.CPut, Key: key, Value: value, Version: version})
	r.Clerk.CPut(key, value, version, func(ok bool) {
		r.ret(op, linearize.KVOutput{OK: ok})
		done(ok)
	})
}
