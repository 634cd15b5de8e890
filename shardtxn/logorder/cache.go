package logorder

// A commitCache remembers the writes of the last transactions a node saw
// commit to keys it does not keep (paper 004, §2.3.1), so that it can
// decide most later transactions that read them without asking their
// owners. Its index maps a key to the tid of its newest cached write; its
// entries map a tid to that transaction's cached writes. It holds at
// most size transactions, evicting the oldest.
//
// An entry is the key's newest committed value only while the node has
// seen every transaction since: a transaction the node skips (it decides
// nothing of it) removes the keys it may have written.
type commitCache struct {
	size    int
	index   map[string]int  // key → tid of its newest cached write
	entries map[int][]Write // tid → its cached writes
	order   []int           // the cached tids, oldest first
	noInval bool            // planted bug: skipped transactions leave the cache alone
}

func newCommitCache(size int, noInvalidate bool) *commitCache {
	return &commitCache{size: size, index: map[string]int{}, entries: map[int][]Write{}, noInval: noInvalidate}
}

// get returns key's cached value, if any.
func (c *commitCache) get(key string) (string, bool) {
	tid, ok := c.index[key]
	if !ok {
		return "", false
	}
	for _, w := range c.entries[tid] {
		if w.Key == key {
			return w.Value, true
		}
	}
	panic("logorder: commit cache index names a write its entry lacks")
}

// add caches the writes of transaction tid, which committed.
func (c *commitCache) add(tid int, writes []Write) {
	if len(writes) == 0 || c.size == 0 {
		return
	}
	c.entries[tid] = writes
	c.order = append(c.order, tid)
	for _, w := range writes {
		c.index[w.Key] = tid
	}
	if len(c.order) > c.size {
		c.evict(c.order[0])
		c.order = c.order[1:]
	}
}

// evict removes transaction tid's entry and the index entries still
// pointing at it.
func (c *commitCache) evict(tid int) {
	for _, w := range c.entries[tid] {
		if c.index[w.Key] == tid {
			delete(c.index, w.Key)
		}
	}
	delete(c.entries, tid)
}

// invalidate forgets the cached values of keys: a transaction the node
// skipped may have written them.
func (c *commitCache) invalidate(writes []Write) {
	if c.noInval {
		return
	}
	for _, w := range writes {
		delete(c.index, w.Key)
	}
}

// len returns how many keys the cache can answer for.
func (c *commitCache) len() int { return len(c.index) }
