package experiments

import (
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Paper 000's Table 1 measured for real: concurrent writes to a map
// guarded by one lock, and to a map with one global lock and a lock per
// key, each writer holding its lock(s) for a waiting time (the paper's
// stand-in for the two phases of 2PC, a round trip apart). This is wall
// time, Go's maps and mutexes on this machine; the txn-concurrent-map
// experiment is its model in virtual time. The sleep under the lock is
// the thing measured: it runs only under -bench, never in a test.
//
//	go test ./harness/experiments -run XXX -bench ConcurrentMap -count 6 | tee new.txt
//	benchstat new.txt

// A benchMap is a string map that writers share.
type benchMap interface {
	// write sets key to value, holding the lock(s) that guard key for
	// wait (and, in the one-lock map, every other key with it).
	write(key, value string, wait time.Duration)
}

// oneLockMap guards the whole map with one lock, held for the wait.
type oneLockMap struct {
	mu sync.RWMutex
	m  map[string]string
}

func (m *oneLockMap) write(key, value string, wait time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[key] = value
	time.Sleep(wait)
}

// fineLockMap is the paper's concurrent map: one global lock for the map
// and one for each entry; a writer takes the global lock, then the
// entry's, and lets the global lock go at once, holding only the entry's
// for the wait.
type fineLockMap struct {
	mu sync.RWMutex
	m  map[string]*fineEntry
}

// A fineEntry is a value with its own lock.
type fineEntry struct {
	mu    sync.RWMutex
	value string
}

func (m *fineLockMap) write(key, value string, wait time.Duration) {
	m.mu.Lock()
	e, ok := m.m[key]
	if !ok {
		e = &fineEntry{}
		m.m[key] = e
	}
	e.mu.Lock()
	m.mu.Unlock()
	defer e.mu.Unlock()
	e.value = value
	time.Sleep(wait)
}

// benchWriters is how many goroutines write at once, each to a key of its
// own. The paper does not say; its fine-grained rows stay near 400 ns an
// operation with 1 ms held, which takes at least 2500 writers at once.
const benchWriters = 10_000

// BenchmarkConcurrentMap is the paper's Table 1: ns per write of
// benchWriters goroutines, each writing a key of its own over and over,
// on the one-lock map and the fine-grained one, at each waiting time.
func BenchmarkConcurrentMap(b *testing.B) {
	for _, wait := range []struct {
		name string
		d    time.Duration
	}{{"1ns", time.Nanosecond}, {"1us", time.Microsecond}, {"1ms", time.Millisecond}} {
		for _, lock := range []struct {
			name string
			make func() benchMap
		}{
			{"one", func() benchMap { return &oneLockMap{m: map[string]string{}} }},
			{"fine", func() benchMap { return &fineLockMap{m: map[string]*fineEntry{}} }},
		} {
			b.Run("wait="+wait.name+"/lock="+lock.name, func(b *testing.B) {
				m := lock.make()
				var next atomic.Int64
				b.SetParallelism(max(1, benchWriters/runtime.GOMAXPROCS(0)))
				b.RunParallel(func(pb *testing.PB) {
					key := strconv.FormatInt(next.Add(1), 10)
					for pb.Next() {
						m.write(key, "v", wait.d)
					}
				})
			})
		}
	}
}

// TestConcurrentMapModel runs txn-concurrent-map's model cut down (1, 10
// and 3000 writers) and checks what its caption says: with one lock a
// write costs the global lock's time, a wake-up and the wait, however many
// write at once; fine-grained, one writer costs the same, and enough
// writers share a write's whole time until only the global lock's is left;
// the caption's numbers are the table's.
func TestConcurrentMapModel(t *testing.T) {
	t.Parallel()
	sc := concMapScale{writers: []int{1, 10, 3000}, opsPer: 5, minOps: 100}
	r, err := concurrentMap(1, sc)
	require.NoError(t, err)
	again, err := concurrentMap(1, sc)
	require.NoError(t, err)
	assert.Equal(t, r.Table, again.Table, "the same seed, the same numbers")
	other, err := concurrentMap(2, sc)
	require.NoError(t, err)
	assert.NotEqual(t, r.Table, other.Table, "another seed, other wake-ups")

	mapCost, wake := concMapCosts()
	assert.Equal(t, 364*time.Nanosecond, mapCost, "the paper's fine-grained write at 1 ns")
	assert.Equal(t, (2339-364-1)*time.Nanosecond, wake, "the paper's one-lock write at 1 ns, less the rest")
	got := map[string]float64{} // ns per write by writers, wait and lock
	for _, row := range r.Table.Rows {
		v, err := strconv.ParseFloat(row[5], 64)
		require.NoError(t, err)
		got[row[0]+"/"+row[1]+"/"+row[2]] = v
	}
	require.Len(t, got, 3*3*2)
	for _, wait := range concMapWaits {
		w := strconv.FormatInt(wait.Nanoseconds(), 10)
		whole := float64(mapCost + wake + wait)
		for _, n := range []string{"1", "10", "3000"} {
			assert.InEpsilon(t, whole, got[n+"/"+w+"/one"], 0.05, "one lock, %s writers, %v held", n, wait)
		}
		assert.InEpsilon(t, whole, got["1/"+w+"/fine"], 0.05, "fine-grained, one writer, %v held", wait)
		assert.InEpsilon(t, float64(mapCost), got["3000/"+w+"/fine"], 0.1, "fine-grained, 3000 writers, %v held: the global lock's time", wait)
	}
	assert.InEpsilon(t, float64(mapCost+wake+time.Millisecond)/10, got["10/1000000/fine"], 0.05, "ten writers share a write's whole time")

	require.Len(t, r.Figures, 1)
	caption := r.Figures[0].Caption
	t.Log(caption)
	assert.Contains(t, caption, fmt.Sprintf("One lock: %.3g µs at 1 µs and %.4g µs at 1 ms", got["3000/1000/one"]/1000, got["3000/1000000/one"]/1000))
	assert.Contains(t, caption, fmt.Sprintf("with 10 writers and %.0f with 3000", got["3000/1000000/fine"]))
	paths, err := r.Write(t.TempDir(), "txn-concurrent-map")
	require.NoError(t, err)
	assert.Len(t, paths, 3, "a CSV, a PNG and an SVG")
}
