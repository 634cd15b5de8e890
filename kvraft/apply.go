package kvraft

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/replab/replab/raft"
)

// apply takes what Raft commits, in order.
func (kv *KVServer) apply(m raft.ApplyMsg) {
	if m.SnapshotValid {
		if m.SnapshotIndex <= kv.applied {
			return
		}
		if err := kv.restore(m.Snapshot); err != nil {
			panic(err) // the leader's snapshot is ours: this is a bug
		}
		kv.failWaitersUpTo(kv.applied)
		kv.serveReads()
		return
	}
	if !m.CommandValid || m.CommandIndex <= kv.applied {
		return
	}
	kv.applied = m.CommandIndex
	op := m.Command.(Op)
	r := kv.execute(op)
	if w := kv.waiting[m.CommandIndex]; w != nil {
		delete(kv.waiting, m.CommandIndex)
		if w.op.same(op) {
			w.answer(r)
		} else {
			w.answer(wrongLeader) // another leader's entry took the index
		}
	}
	kv.serveReads()
	if kv.maxraftstate > 0 && kv.ps.RaftStateSize() >= kv.maxraftstate {
		kv.rf.Snapshot(m.CommandIndex, kv.snapshot())
	}
}

// execute applies op to the state, at most once per client request.
func (kv *KVServer) execute(op Op) result {
	if op.Kind == OpGet {
		return kv.read(op.Key)
	}
	if s, ok := kv.sessions[op.ClientID]; ok && op.Seq <= s.Seq && !kv.opts.bugs.noDedup {
		return result{err: s.Err}
	}
	err := OK
	cur := kv.data[op.Key]
	switch op.Kind {
	case OpPut:
		kv.data[op.Key] = value{op.Value, cur.Version + 1}
	case OpAppend:
		kv.data[op.Key] = value{cur.Value + op.Value, cur.Version + 1}
	case OpCPut:
		if op.Version != cur.Version {
			err = ErrVersion
		} else {
			kv.data[op.Key] = value{op.Value, cur.Version + 1}
		}
	}
	kv.sessions[op.ClientID] = session{Seq: op.Seq, Err: err}
	return result{err: err}
}

// serveReads answers the confirmed reads whose index has been applied.
func (kv *KVServer) serveReads() {
	k := 0
	for _, r := range kv.reads {
		if r.index <= kv.applied {
			r.answer(kv.read(r.key))
		} else {
			kv.reads[k] = r
			k++
		}
	}
	kv.reads = kv.reads[:k]
}

// failWaitersUpTo answers ErrWrongLeader to operations at or below index,
// which a snapshot has covered: their outcome is unknown here, and the
// clerk's retry is answered from the de-duplication table.
func (kv *KVServer) failWaitersUpTo(index int) {
	indices := make([]int, 0, len(kv.waiting))
	for i := range kv.waiting {
		if i <= index {
			indices = append(indices, i)
		}
	}
	slices.Sort(indices)
	for _, i := range indices {
		w := kv.waiting[i]
		delete(kv.waiting, i)
		w.answer(wrongLeader)
	}
}

// snapshot encodes the applied index, the data and the de-duplication
// table, in sorted order so that the bytes are deterministic.
func (kv *KVServer) snapshot() []byte {
	b := binary.AppendUvarint(nil, uint64(kv.applied))
	keys := make([]string, 0, len(kv.data))
	for k := range kv.data {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		v := kv.data[k]
		b = appendString(b, k)
		b = appendString(b, v.Value)
		b = binary.AppendVarint(b, v.Version)
	}
	clients := make([]int64, 0, len(kv.sessions))
	if !kv.opts.bugs.snapshotNoSessions {
		for c := range kv.sessions {
			clients = append(clients, c)
		}
	}
	slices.Sort(clients)
	b = binary.AppendUvarint(b, uint64(len(clients)))
	for _, c := range clients {
		s := kv.sessions[c]
		b = binary.AppendVarint(b, c)
		b = binary.AppendVarint(b, s.Seq)
		b = appendString(b, string(s.Err))
	}
	return b
}

// restore replaces the state with a snapshot's (an empty one is the
// initial state).
func (kv *KVServer) restore(snap []byte) error {
	if len(snap) == 0 {
		return nil
	}
	d := decoder{b: snap}
	applied := int(d.uvarint())
	data := map[string]value{}
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		k := d.string()
		data[k] = value{Value: d.string(), Version: d.varint()}
	}
	sessions := map[int64]session{}
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		c := d.varint()
		sessions[c] = session{Seq: d.varint(), Err: Err(d.string())}
	}
	if d.err != nil {
		return d.err
	}
	kv.applied, kv.data, kv.sessions = applied, data, sessions
	return nil
}
