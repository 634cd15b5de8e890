package shardtxn

// A batcher puts items in a group's log many to an entry: while one
// entry is in flight, new items wait, and go together in the next. So the
// coordinator's log is not the bottleneck: its entries grow with the load
// instead of their number.
type batcher[T any] struct {
	pending []T
	busy    bool
	items   int // submitted, in all
	entries int // log entries they went in
	// submit puts a batch in the log and calls done once it is applied
	// (ok) or cannot be (not ok: this server no longer leads).
	submit func(batch []T, done func(ok bool))
}

// add queues item and submits it unless an entry is in flight.
func (b *batcher[T]) add(item T) {
	b.pending = append(b.pending, item)
	b.flush()
}

func (b *batcher[T]) flush() {
	if b.busy || len(b.pending) == 0 {
		return
	}
	batch := b.pending
	b.pending, b.busy = nil, true
	b.items += len(batch)
	b.entries++
	b.submit(batch, func(bool) {
		b.busy = false
		b.flush()
	})
}

// reset forgets what is queued (leadership was lost: the next leader
// recovers it from the table).
func (b *batcher[T]) reset() { b.pending = nil }
