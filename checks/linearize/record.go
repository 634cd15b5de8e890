package linearize

import (
	"fmt"
	"time"
)

// A KV is a key/value client whose operations complete through callbacks,
// inside a world: a kvraft clerk, or a student's.
type KV interface {
	// Get fetches key's value and version ("" and 0 if the key is missing).
	Get(key string, done func(value string, version int64))
	// Put sets key to value.
	Put(key, value string, done func())
	// Append appends value to key's value.
	Append(key, value string, done func())
}

// A CPutter is a KV with a conditional put: it sets key to value if the
// key's version is version, and reports whether it did.
type CPutter interface {
	CPut(key, value string, version int64, done func(ok bool))
}

// A RecordedKV is a KV client whose every operation goes into a history,
// with its virtual call and return times, for a linearizability check.
type RecordedKV struct {
	ck  KV
	h   *History
	id  int                  // the client's number in the history
	now func() time.Duration // the world's virtual time
}

// Record records ck's operations in h as client id, at the times now
// tells (the world's clock).
func Record(ck KV, h *History, id int, now func() time.Duration) *RecordedKV {
	return &RecordedKV{ck: ck, h: h, id: id, now: now}
}

func (r *RecordedKV) call(in KVInput) int { return r.h.Call(r.id, in, r.now()) }

func (r *RecordedKV) ret(op int, out KVOutput) { r.h.Return(op, out, r.now()) }

// Get is KV.Get, recorded.
func (r *RecordedKV) Get(key string, done func(value string, version int64)) {
	op := r.call(KVInput{Kind: Get, Key: key})
	r.ck.Get(key, func(v string, version int64) {
		r.ret(op, KVOutput{Value: v, Version: version, Versioned: true})
		done(v, version)
	})
}

// Put is KV.Put, recorded.
func (r *RecordedKV) Put(key, value string, done func()) {
	op := r.call(KVInput{Kind: Put, Key: key, Value: value})
	r.ck.Put(key, value, func() {
		r.ret(op, KVOutput{})
		done()
	})
}

// Append is KV.Append, recorded.
func (r *RecordedKV) Append(key, value string, done func()) {
	op := r.call(KVInput{Kind: Append, Key: key, Value: value})
	r.ck.Append(key, value, func() {
		r.ret(op, KVOutput{})
		done()
	})
}

// CPut is CPutter.CPut, recorded. It panics if the client has no CPut.
func (r *RecordedKV) CPut(key, value string, version int64, done func(ok bool)) {
	cp, ok := r.ck.(CPutter)
	if !ok {
		panic(fmt.Sprintf("linearize: client %d (%T) has no CPut", r.id, r.ck))
	}
	op := r.call(KVInput{Kind: CPut, Key: key, Value: value, Version: version})
	cp.CPut(key, value, version, func(ok bool) {
		r.ret(op, KVOutput{OK: ok})
		done(ok)
	})
}
